"""A fast path for value templates on the hot paths (keys of get/find/create).

Templates whose references are plain field names render here directly when the values are strings or
integers (the usual key material); anything else (dotted paths, floats, dates, ...) goes to the schema
package's :class:`~dynabase.schema.template.Template`, which has OneTable's full rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class FastTemplate:
    __slots__ = ("template", "parts", "simple", "text", "fields", "roots", "refs")

    def __init__(self, template: Any) -> None:
        self.template = template
        self.text = template.text
        self.fields = template.fields
        self.roots = template.roots
        self.refs = template.refs
        parts = []
        simple = True
        for part in template.parts:
            if isinstance(part, str):
                parts.append((part, None, 0, ""))
            else:
                if "." in part.path:
                    simple = False
                parts.append(("", part.path, part.length or 0, part.pad or "0"))
        self.parts = tuple(parts)
        self.simple = simple

    def render(self, values: Mapping[str, Any], *, iso_dates: bool = False) -> str | None:
        if self.simple:
            out = []
            for literal, name, length, pad in self.parts:
                if name is None:
                    out.append(literal)
                    continue
                value = values.get(name)
                if value is None:
                    return None
                kind = type(value)
                if kind is str:
                    text = value
                elif kind is int:
                    text = str(value)
                else:
                    return self.template.render(values, iso_dates=iso_dates)
                if length and len(text) < length:
                    text = pad * (length - len(text)) + text
                out.append(text)
            return "".join(out)
        return self.template.render(values, iso_dates=iso_dates)

    def prefix(self, values: Mapping[str, Any], *, iso_dates: bool = False) -> str:
        return self.template.prefix(values, iso_dates=iso_dates)

    def missing(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        return self.template.missing(values)


__all__ = ["FastTemplate"]
