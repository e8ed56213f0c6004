"""The state a schema compilation carries, how it reports problems, and how it reads simple properties.

:class:`CompilerBase` is shared by the parts of the compiler (:mod:`.tables`, :mod:`.fields`, :mod:`.checks`),
which :mod:`dynabase.schema.validate` puts together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .defs import Index, Params
from .errors import SchemaIssue, join_path
from .rules import FIELD_NAME_FORBIDDEN, suggest

if TYPE_CHECKING:
    from .fields import FieldDraft


class CompilerBase:
    """One compilation of one document: the problems found so far and what has been built."""

    def __init__(self, data: Any, crypto: Mapping[str, Any] | None = None):
        self.data = data
        self.extra_crypto = crypto
        self.errors: list[SchemaIssue] = []
        self.warnings: list[SchemaIssue] = []
        self.params = Params()
        self.indexes: dict[str, Index] = {}
        self.model_drafts: dict[str, dict[str, FieldDraft]] = {}

    # -- reporting --------------------------------------------------------------------------------------
    def error(self, path: str, message: str) -> None:
        self.errors.append(SchemaIssue(path, message))

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(SchemaIssue(path, message, "warning"))

    def check_keys(self, obj: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> None:
        for key in obj:
            if not isinstance(key, str):
                self.error(join_path(path, str(key)), "property names must be strings")
            elif key not in allowed:
                self.error(join_path(path, key), "unknown property" + suggest(key, allowed))

    def str_keys(self, obj: Mapping[str, Any], path: str) -> list[str]:
        keys = []
        for key in obj:
            if isinstance(key, str):
                keys.append(key)
            else:
                self.error(join_path(path, str(key)), "names must be strings")
        return keys

    def get_bool(
        self, obj: Mapping[str, Any], key: str, path: str, default: bool | None = None
    ) -> bool | None:
        if key not in obj:
            return default
        value = obj[key]
        if value is None:
            return default
        if not isinstance(value, bool):
            self.error(join_path(path, key), "must be a boolean")
            return default
        return value

    def get_str(
        self, obj: Mapping[str, Any], key: str, path: str, *, required: bool = False, empty: bool = False
    ) -> str | None:
        if key not in obj or obj[key] is None:
            if required:
                self.error(join_path(path, key), "required")
            return None
        value = obj[key]
        if not isinstance(value, str):
            self.error(join_path(path, key), "must be a string")
            return None
        if not value and not empty:
            self.error(join_path(path, key), "must not be empty")
            return None
        return value

    def get_choice(
        self, obj: Mapping[str, Any], key: str, path: str, choices: tuple[str, ...], default: str
    ) -> str:
        if key not in obj or obj[key] is None:
            return default
        value = obj[key]
        if not isinstance(value, str) or value not in choices:
            self.error(join_path(path, key), "must be one of " + ", ".join(choices))
            return default
        return value

    def valid_field_name(self, name: str) -> bool:
        return bool(name) and not (set(name) & FIELD_NAME_FORBIDDEN)


__all__ = ["CompilerBase"]
