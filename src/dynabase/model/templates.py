"""A fast path for value templates on the hot paths (keys of get/find/create).

Templates whose references are plain field names render here directly when the values are strings or
integers (the usual key material); anything else (dotted paths, floats, dates, ...) goes to the schema
package's :class:`~dynabase.schema.template.Template`, which has OneTable's full rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class FastTemplate:
    """A template with ``render`` compiled to straight-line code when its references are plain field names
    (``renderer(values, iso_dates)``: the compiled function itself, for the hot paths)."""

    __slots__ = ("template", "parts", "simple", "text", "fields", "roots", "refs", "renderer")

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
        general = template.render
        self.renderer = (
            _compile(self.parts, general)
            if simple
            else lambda values, iso_dates=False: general(values, iso_dates=iso_dates)
        )

    def render(self, values: Mapping[str, Any], *, iso_dates: bool = False) -> str | None:
        return self.renderer(values, iso_dates)

    def prefix(self, values: Mapping[str, Any], *, iso_dates: bool = False) -> str:
        return self.template.prefix(values, iso_dates=iso_dates)

    def missing(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        return self.template.missing(values)


def _compile(parts: tuple, general: Any) -> Any:
    """``render`` for a template of plain references: each value a str or an int (padded to its length),
    else the general renderer (OneTable's rules for other types); None when a value is missing."""
    lines = [
        "def render(values, iso_dates=False):",
        *inline_render(parts, "values", "out", "general(values, iso_dates=iso_dates)", "    "),
        "    return out",
    ]
    namespace: dict[str, Any] = {"general": general}
    exec("\n".join(lines), namespace)  # noqa: S102
    return namespace["render"]


def inline_render(parts: tuple, values: str, out: str, general: str, indent: str) -> list[str]:
    """Source lines setting ``out`` to a simple template's text (``parts`` of :class:`FastTemplate`) made from
    the mapping named ``values`` when every referenced value is a str or an int, else to the expression
    ``general`` (the full renderer: other types, and None for a missing value).  Generated code inlines them to
    save the renderer's call."""
    refs = _refs(parts)
    lines = [f"{out}_{i} = {values}.get({name!r})" for i, name in refs]
    steps, text = _text_before(parts, out, len(parts))
    if not refs:
        return [indent + line for line in [*lines, f"{out} = {text}"]]
    lines += [
        f"if {' and '.join(_usable(f'{out}_{i}') for i, _ in refs)}:",
        *("    " + step for step in steps),
        f"    {out} = {text}",
        "else:",
        f"    {out} = {general}",
    ]
    return [indent + line for line in lines]


def inline_prefix(parts: tuple, values: str, out: str, prefix: str, general: str, indent: str) -> list[str]:
    """:func:`inline_render`'s lines for a find's sort key: ``out`` is the text when every referenced value is
    a str or an int; when one is missing and those before it are str or int, ``out`` is None and ``prefix``
    the text before it (``Template.prefix``'s); otherwise ``out`` is the expression ``general`` (``prefix``
    then stays None)."""
    render = inline_render(parts, values, out, general, "")
    refs = _refs(parts)
    if not refs:
        return [indent + line for line in [f"{prefix} = None", *render]]
    missing = []  # a branch per ref: the refs before it usable, it missing
    for k, (i, _) in enumerate(refs):
        before = [_usable(f"{out}_{j}") for j, _ in refs[:k]]
        steps, text = _text_before(parts, out, i)
        missing += [
            f"elif {' and '.join([*before, f'{out}_{i} is None'])}:",
            *("    " + step for step in steps),
            f"    {out} = None",
            f"    {prefix} = {text}",
        ]
    # the render's own lines, its else (the general renderer) last
    return [indent + line for line in [f"{prefix} = None", *render[:-2], *missing, *render[-2:]]]


def _refs(parts: tuple) -> list[tuple[int, str]]:
    """The index and field name of each reference among ``parts``."""
    return [(i, name) for i, (_, name, _, _) in enumerate(parts) if name is not None]


def _usable(ref: str) -> str:
    return f"(type({ref}) is str or type({ref}) is int)"


def _text_before(parts: tuple, out: str, upto: int) -> tuple[list[str], str]:
    """The lines turning each referenced value before part ``upto`` into its text (str, padded), and the
    expression joining the parts before it."""
    steps, pieces = [], []
    for i, (literal, name, length, pad) in enumerate(parts[:upto]):
        if name is None:
            pieces.append(repr(literal))
            continue
        ref = f"{out}_{i}"
        steps += [f"if type({ref}) is not str:", f"    {ref} = str({ref})"]
        if length:
            steps += [f"if len({ref}) < {length}:", f"    {ref} = {pad!r} * ({length} - len({ref})) + {ref}"]
        pieces.append(ref)
    return steps, " + ".join(pieces) or repr("")


__all__ = ["FastTemplate", "inline_prefix", "inline_render"]
