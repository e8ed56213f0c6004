"""Compiling a schema's ``params`` (with ``crypto``) and ``indexes``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .compiler import CompilerBase
from .defs import Crypto, Index, Params
from .errors import join_path
from .rules import (
    CIPHERS,
    CRYPTO_PROPS,
    INDEX_NAME,
    INDEX_PROPS,
    MAX_GLOBAL_INDEXES,
    MAX_KEY_ATTRIBUTES,
    MAX_LOCAL_INDEXES,
    PARAM_PROPS,
)


class TableParts(CompilerBase):
    """The table-wide parts of a schema: its params and its indexes."""

    # -- params ------------------------------------------------------------------------------------------
    def compile_params(self, raw: Any) -> Params:
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            self.error("params", "must be an object")
            raw = {}
        path = "params"
        self.check_keys(raw, PARAM_PROPS, path)
        defaults = Params()
        names: dict[str, str] = {}
        for key, attr in (
            ("typeField", "type_field"),
            ("createdField", "created_field"),
            ("updatedField", "updated_field"),
        ):
            value = self.get_str(raw, key, path)
            if value is not None and not self.valid_field_name(value):
                self.error(join_path(path, key), f"not a valid field name: {value!r}")
                value = None
            names[attr] = value if value is not None else getattr(defaults, attr)
        if names["created_field"] == names["updated_field"]:
            self.error(join_path(path, "updatedField"), "must differ from createdField")
        if names["type_field"] in (names["created_field"], names["updated_field"]):
            self.error(join_path(path, "typeField"), "must differ from createdField and updatedField")

        timestamps: bool | str = False
        if raw.get("timestamps") is not None:
            value = raw["timestamps"]
            if isinstance(value, bool) or value in ("create", "update"):
                timestamps = value
            else:
                self.error(join_path(path, "timestamps"), "must be true, false, 'create' or 'update'")

        separator = self.get_str(raw, "separator", path)
        crypto = self.compile_crypto(raw.get("crypto"), join_path(path, "crypto"))
        return Params(
            type_field=names["type_field"],
            created_field=names["created_field"],
            updated_field=names["updated_field"],
            timestamps=timestamps,
            iso_dates=bool(self.get_bool(raw, "isoDates", path, False)),
            nulls=bool(self.get_bool(raw, "nulls", path, False)),
            separator=separator if separator is not None else defaults.separator,
            warn=bool(self.get_bool(raw, "warn", path, False)),
            hidden=bool(self.get_bool(raw, "hidden", path, False)),
            partial=bool(self.get_bool(raw, "partial", path, False)),
            legacy_empties=bool(self.get_bool(raw, "legacyEmpties", path, False)),
            crypto=crypto,
        )

    def compile_crypto(self, raw: Any, path: str) -> dict[str, Crypto] | None:
        entries: dict[str, Crypto] = {}
        sources = []
        if raw is not None:
            sources.append((raw, path))
        if self.extra_crypto is not None:
            sources.append((self.extra_crypto, "crypto"))
        for source, spath in sources:
            if not isinstance(source, Mapping):
                self.error(spath, "must be an object mapping names to {cipher, password}")
                continue
            for name in self.str_keys(source, spath):
                entry = source[name]
                epath = join_path(spath, name)
                if not isinstance(entry, Mapping):
                    self.error(epath, "must be an object with cipher and password")
                    continue
                self.check_keys(entry, CRYPTO_PROPS, epath)
                cipher = self.get_str(entry, "cipher", epath, required=True)
                if cipher is not None and cipher not in CIPHERS:
                    self.error(join_path(epath, "cipher"), "must be one of " + ", ".join(CIPHERS))
                password = self.get_str(entry, "password", epath, required=True)
                if cipher and password:
                    entries[name] = Crypto(name, cipher, password)
        return entries or None

    # -- indexes -----------------------------------------------------------------------------------------
    def compile_indexes(self, raw: Any, present: bool) -> dict[str, Index]:
        path = "indexes"
        if not present or raw is None:
            self.error(path, "required")
            return {}
        if not isinstance(raw, Mapping):
            self.error(path, "must be an object")
            return {}
        if "primary" not in raw:
            self.error(join_path(path, "primary"), "required")
        names = self.str_keys(raw, path)
        # The primary first: the others are checked against it.
        names.sort(key=lambda n: n != "primary")
        result: dict[str, Index] = {}
        primary: Index | None = None
        locals_ = globals_ = 0
        for name in names:
            ipath = join_path(path, name)
            spec = raw[name]
            if not isinstance(spec, Mapping):
                self.error(ipath, "must be an object")
                continue
            self.check_keys(spec, INDEX_PROPS, ipath)
            description = self.get_str(spec, "description", ipath, empty=True)
            follow = bool(self.get_bool(spec, "follow", ipath, False))
            multi_ok = name != "primary" and spec.get("type", "global") == "global"
            hash_, more_hash = self.key_names(spec, "hash", ipath, multi_ok)
            sort, more_sort = self.key_names(spec, "sort", ipath, multi_ok)
            if name == "primary":
                if "hash" not in spec or spec.get("hash") is None:
                    self.error(join_path(ipath, "hash"), "required")
                for key in ("type", "project", "follow"):
                    if key in spec:
                        self.error(join_path(ipath, key), "not valid for the primary index")
                if hash_ is not None and sort is not None and hash_ == sort:
                    self.error(join_path(ipath, "sort"), "must differ from the hash key")
                if hash_ is not None:
                    primary = Index("primary", hash_, sort, "primary", "all", False, description)
                    result[name] = primary
                continue
            if not INDEX_NAME.match(name):
                self.error(
                    ipath, "an index name must be 3 to 255 characters of A-Z, a-z, 0-9, '_', '-' and '.'"
                )
            kind = self.get_choice(spec, "type", ipath, ("global", "local"), "global")
            project = self.compile_project(spec, ipath, kind)
            if kind == "local":
                locals_ += 1
                if primary is not None:
                    if hash_ is not None and hash_ != primary.hash:
                        self.error(
                            join_path(ipath, "hash"),
                            f"a local index must use the primary hash key {primary.hash!r}",
                        )
                    if primary.sort is None:
                        self.error(ipath, "a local index needs a primary index with a sort key")
                    hash_ = primary.hash
                if "sort" not in spec or spec.get("sort") is None:
                    self.error(join_path(ipath, "sort"), "required")
            else:
                globals_ += 1
                if "hash" not in spec or spec.get("hash") is None:
                    self.error(join_path(ipath, "hash"), "required")
            if hash_ is not None and sort is not None and {hash_, *more_hash} & {sort, *more_sort}:
                self.error(join_path(ipath, "sort"), "must differ from the hash key")
            if primary is not None and kind == "local" and sort is not None and sort == primary.sort:
                self.error(
                    join_path(ipath, "sort"), "a local index must use a sort key other than the primary's"
                )
            if hash_ is not None:
                result[name] = Index(
                    name, hash_, sort, kind, project, follow, description, more_hash, more_sort
                )
        if locals_ > MAX_LOCAL_INDEXES:
            self.error(path, f"DynamoDB allows at most {MAX_LOCAL_INDEXES} local secondary indexes per table")
        if globals_ > MAX_GLOBAL_INDEXES:
            self.warn(
                path,
                f"more than {MAX_GLOBAL_INDEXES} global secondary indexes exceeds DynamoDB's default quota",
            )
        return result

    def key_names(
        self, spec: Mapping[str, Any], key: str, ipath: str, multi_ok: bool
    ) -> tuple[str | None, tuple[str, ...]]:
        """An index's ``hash`` or ``sort``: an attribute name, or (a global index's multi-attribute key) a list
        of 1 to 4 distinct names. Returns the first name and the others."""
        value = spec.get(key)
        if not isinstance(value, list):
            return self.get_str(spec, key, ipath), ()
        kpath = join_path(ipath, key)
        if not multi_ok:
            self.error(kpath, "a list of attributes (a multi-attribute key) is only valid for a global index")
            return None, ()
        if not 1 <= len(value) <= MAX_KEY_ATTRIBUTES:
            self.error(kpath, f"a multi-attribute key has 1 to {MAX_KEY_ATTRIBUTES} attributes")
            return None, ()
        if not all(isinstance(v, str) and v for v in value):
            self.error(kpath, "must be a list of attribute names")
            return None, ()
        if len(set(value)) != len(value):
            self.error(kpath, "must not name an attribute twice")
            return None, ()
        return value[0], tuple(value[1:])

    def compile_project(self, spec: Mapping[str, Any], ipath: str, kind: str) -> str | tuple[str, ...]:
        if "project" not in spec or spec["project"] is None:
            return "all"
        value = spec["project"]
        ppath = join_path(ipath, "project")
        if isinstance(value, str) and value in ("all", "keys"):
            return value
        if isinstance(value, (list, tuple)):
            if not all(isinstance(v, str) and v for v in value):
                self.error(ppath, "must be 'all', 'keys' or a list of attribute names")
                return "all"
            seen: list[str] = []
            for v in value:
                if v in seen:
                    self.error(ppath, f"lists {v!r} more than once")
                else:
                    seen.append(v)
            return tuple(seen)
        self.error(ppath, "must be 'all', 'keys' or a list of attribute names")
        return "all"


__all__ = ["TableParts"]
