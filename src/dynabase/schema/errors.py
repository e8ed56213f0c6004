"""Schema issues and the one exception that carries all of them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["SchemaError", "SchemaIssue", "TemplateError", "join_path"]

_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_$\-]+$")


def join_path(base: str, key: object) -> str:
    """Append a key (object property) or an int (list index) to a dotted issue path.

    Keys that are not plain words are written JSON-quoted in brackets so the path stays readable and
    unambiguous: ``queries["Get photos"]``, ``process.Fault.metrics[0]``.
    """
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{base}[{key}]"
    text = key if isinstance(key, str) else repr(key)
    if _PLAIN_KEY.match(text):
        return f"{base}.{text}" if base else text
    return f"{base}[{json.dumps(text, ensure_ascii=False)}]"


@dataclass(frozen=True)
class SchemaIssue:
    """One problem found in a schema.

    ``path`` names the offending place in the document (``models.Fault.severity.enum``; ``""`` for the
    document itself); ``severity`` is ``"error"`` (the schema is refused) or ``"warning"`` (it loads, and
    the warning is kept on :attr:`Schema.warnings`).
    """

    path: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class SchemaError(ValueError):
    """A schema that cannot be used. ``errors`` lists every problem found, not only the first."""

    def __init__(self, errors: Iterable[SchemaIssue] | str, *, warnings: Iterable[SchemaIssue] = ()):
        if isinstance(errors, str):
            errors = [SchemaIssue("", errors)]
        self.errors: list[SchemaIssue] = list(errors)
        self.warnings: list[SchemaIssue] = list(warnings)
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(str(issue) for issue in self.errors)

    def __reduce__(self) -> tuple[Any, ...]:  # keep pickling (multiprocessing, pytest-xdist) working
        return (self.__class__, (self.errors,), {"warnings": self.warnings})


class TemplateError(ValueError):
    """A value template that cannot be parsed, or a value that cannot be put into one."""
