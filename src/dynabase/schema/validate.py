"""Validate a OneTable 1.1.0 schema document and build its :class:`Schema`.

One pass walks the whole document, records every problem with the path of the offending property, and
builds the normalised objects as it goes (leniently, so that one mistake does not hide the next).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as _dt
import decimal
import difflib
import math
import re
from collections.abc import Mapping
from typing import Any

from .defs import (
    FIELD_TYPES,
    Crypto,
    Encode,
    Field,
    FieldMap,
    Generate,
    Index,
    Metric,
    ModelDef,
    Params,
    Process,
    Reference,
    Schema,
    scalar_type,
)
from .errors import SchemaError, SchemaIssue, TemplateError, join_path
from .ids import DEFAULT_UID_LENGTH
from .template import Template

__all__ = ["FORMAT", "build_schema", "validate_schema"]

FORMAT = "onetable:1.1.0"

TOP_LEVEL_PROPS = (
    "format",
    "version",
    "description",
    "name",
    "indexes",
    "models",
    "params",
    "process",
    "queries",
    "items",
    "extensions",
)
PARAM_PROPS = (
    "typeField",
    "createdField",
    "updatedField",
    "timestamps",
    "isoDates",
    "nulls",
    "separator",
    "warn",
    "hidden",
    "partial",
    "legacyEmpties",
    "crypto",
)
MAX_KEY_ATTRIBUTES = 4  # of a global index's multi-attribute partition (or sort) key
INDEX_PROPS = ("hash", "sort", "project", "follow", "type", "description")
FIELD_PROPS = (
    "type",
    "value",
    "default",
    "generate",
    "required",
    "enum",
    "validate",
    "unique",
    "scope",
    "crypt",
    "hidden",
    "map",
    "schema",
    "items",
    "partial",
    "nulls",
    "ttl",
    "encode",
    "filter",
    "isoDates",
    "reference",
    "timestamp",
    "uuid",
)
PROCESS_PROPS = ("enable", "sync", "scope", "metrics", "notify")
METRIC_PROPS = ("namespace", "fields", "dimensions", "where", "buffer")
CRYPTO_PROPS = ("cipher", "password")

ENABLE_VALUES = ("cloud", "device", "both")
SYNC_VALUES = ("up", "down", "both", "none")
CIPHERS = ("aes-256-gcm",)
INTERNAL_MODELS = ("_Schema", "_Migration", "_Unique", "_Generic")
MAX_NESTING = 32
MAX_LOCAL_INDEXES = 5
MAX_GLOBAL_INDEXES = 20  # the default AWS quota (adjustable), hence only a warning

# https://semver.org/#is-there-a-suggested-regular-expression-regex-to-check-a-semver-string
SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$",
    re.ASCII,
)
MODEL_NAME = re.compile(r"^[a-zA-Z_]+\w*$", re.ASCII)
INDEX_NAME = re.compile(r"^[A-Za-z0-9_.\-]{3,255}$")
FIELD_NAME_FORBIDDEN = set(".:{}")
UID_SPEC = re.compile(r"^uid\((\d{1,6})\)$")

_TYPE_ALIASES = {"buffer": "binary", "arraybuffer": "binary"}
_PY_TYPES: dict[Any, str] = {
    str: "string",
    int: "number",
    float: "number",
    decimal.Decimal: "number",
    bool: "boolean",
    dict: "object",
    list: "array",
    tuple: "array",
    set: "set",
    frozenset: "set",
    bytes: "binary",
    bytearray: "binary",
    _dt.datetime: "date",
    _dt.date: "date",
}
_KEY_TYPES = ("string", "number", "binary", "date")
_JS_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "u": 0, "g": 0, "y": 0, "d": 0}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float, decimal.Decimal))


def _kind(value: Any) -> str:
    """A short JSON-ish name for the type of ``value`` (for messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _suggest(word: str, choices: Any) -> str:
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {matches[0]!r}?)" if matches else ""


def js_regex(text: str) -> re.Pattern[str]:
    """Compile a OneTable ``validate`` string: ``'/pattern/flags'`` or a plain pattern.

    JavaScript flags i, m and s map to Python's; g, y, d and u do not change a match test. ``$`` without
    the m flag means end of input (``\\Z``), ``(?<name>`` becomes ``(?P<name>``, and ``\\d``/``\\w`` match
    ASCII only, as in JavaScript. Raises ``ValueError`` with a readable reason.
    """
    flags = 0
    pattern = text
    if text.startswith("/") and text.rfind("/") > 0:
        end = text.rfind("/")
        pattern = text[1:end]
        for flag in text[end + 1 :]:
            if flag not in _JS_FLAGS:
                raise ValueError(f"unknown regular expression flag {flag!r}")
            flags |= _JS_FLAGS[flag]
    out: list[str] = []
    i = 0
    in_class = False
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            if pattern.startswith("^]", i + 1) or pattern.startswith("]", i + 1):
                # JavaScript: "[]" matches nothing and "[^]" anything; Python reads ']' as a literal.
                negated = pattern.startswith("^]", i + 1)
                out[-1] = "(?s:.)" if negated else "(?!)"
                in_class = False
                i += 3 if negated else 2
                continue
        elif ch == "$" and not flags & re.MULTILINE:
            out.append(r"\Z")
        elif pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        else:
            out.append(ch)
        i += 1
    try:
        return re.compile("".join(out), flags | re.ASCII)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"invalid regular expression: {exc}") from None


class _FieldDraft:
    """Mutable scratch form of a field while the block is being compiled."""

    __slots__ = (
        "name",
        "path",
        "raw",
        "props",
        "schema",
        "items",
        "encode_raw",
        "reference_raw",
        "nested_level",
    )

    def __init__(self, name: str, path: str, raw: dict[str, Any]):
        self.name = name
        self.path = path
        self.raw = raw
        self.props: dict[str, Any] = {}
        self.schema: dict[str, _FieldDraft] | None = None
        self.items: _FieldDraft | None = None
        self.encode_raw: Any = None
        self.reference_raw: Any = None
        self.nested_level = 0

    @property
    def type(self) -> str:
        kind: str = self.props.get("type", "string")
        return kind

    @property
    def template(self) -> Template | None:
        return self.props.get("value")

    @property
    def attribute(self) -> str:
        m = self.props.get("map")
        return m.attribute if m else self.name

    @property
    def sub(self) -> str | None:
        m = self.props.get("map")
        return m.sub if m else None

    @property
    def nested(self) -> dict[str, _FieldDraft] | None:
        if self.schema is not None:
            return self.schema
        if self.items is not None:
            return self.items.schema
        return None


class _Compiler:
    def __init__(self, data: Any, crypto: Mapping[str, Any] | None = None):
        self.data = data
        self.extra_crypto = crypto
        self.errors: list[SchemaIssue] = []
        self.warnings: list[SchemaIssue] = []
        self.params = Params()
        self.indexes: dict[str, Index] = {}
        self.model_drafts: dict[str, dict[str, _FieldDraft]] = {}

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
                self.error(join_path(path, key), "unknown property" + _suggest(key, allowed))

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

    # -- the document ------------------------------------------------------------------------------------
    def run(self) -> Schema | None:
        data = self.data
        if not isinstance(data, Mapping):
            self.error("", f"a schema must be an object, not {_kind(data)}")
            return None
        self.check_keys(data, TOP_LEVEL_PROPS, "")

        fmt = data.get("format")
        if "format" not in data:
            self.warn("format", f"missing; assuming {FORMAT!r}")
            fmt = FORMAT
        elif fmt != FORMAT:
            self.error("format", f"must be {FORMAT!r}")
            fmt = FORMAT

        version: Any = data.get("version")  # checked below: a SemVer string, or an error
        if "version" not in data or version is None:
            self.error("version", "required")
        elif not isinstance(version, str):
            self.error("version", f"must be a SemVer version string, not {_kind(version)}")
        elif not SEMVER.match(version):
            self.error("version", f"not a SemVer version: {version!r}")

        description = self.get_str(data, "description", "", empty=True)
        name = self.get_str(data, "name", "", empty=True)

        self.params = self.compile_params(data.get("params"))
        self.indexes = self.compile_indexes(data.get("indexes", None), "indexes" in data)
        models = self.compile_models(data.get("models"))
        process = self.compile_process(data.get("process"), models)

        queries = data.get("queries", {})
        if queries is None:
            queries = {}
        if not isinstance(queries, Mapping):
            self.error("queries", "must be an object")
            queries = {}
        else:
            for key in self.str_keys(queries, "queries"):
                if not isinstance(queries[key], Mapping):
                    self.error(join_path("queries", key), "must be an object")

        items = data.get("items", [])
        if items is None:
            items = []
        if not isinstance(items, (list, tuple)):
            self.error("items", "must be a list")
            items = []
        else:
            for i, item in enumerate(items):
                if not isinstance(item, Mapping):
                    self.error(join_path("items", i), "must be an object (a data item)")

        extensions = data.get("extensions", {})
        if extensions is None:
            extensions = {}
        if not isinstance(extensions, Mapping):
            self.error("extensions", "must be an object")
            extensions = {}

        self.check_index_usage(models)
        self.check_key_types(models)
        self.check_ttl(models)
        self.check_references(models)

        if self.errors:
            return None
        try:
            raw = copy.deepcopy(dict(data))
        except Exception:  # pragma: no cover - exotic values that cannot be copied
            raw = dict(data)
        return Schema(
            format=fmt,
            version=version,
            description=description,
            indexes=self.indexes,
            models=models,
            params=self.params,
            process=process,
            queries=dict(queries),
            raw=raw,
            items=tuple(items),
            extensions=dict(extensions),
            name=name,
            warnings=tuple(self.warnings),
        )

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

    # -- models ------------------------------------------------------------------------------------------
    def compile_models(self, raw: Any) -> dict[str, ModelDef]:
        path = "models"
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            self.error(path, "must be an object")
            return {}
        models: dict[str, ModelDef] = {}
        for name in self.str_keys(raw, path):
            mpath = join_path(path, name)
            if not MODEL_NAME.match(name):
                self.error(
                    mpath,
                    "invalid model name (must start with a letter or '_' and use only letters, digits and '_')",
                )
                continue
            if name in INTERNAL_MODELS:
                self.warn(mpath, "this name is reserved for OneTable's internal models")
            spec = raw[name]
            if not isinstance(spec, Mapping):
                self.error(mpath, "must be an object (the model's fields)")
                continue
            drafts = self.compile_block(spec, mpath, level=0, parent_partial=None)
            self.model_drafts[name] = drafts
        for name, drafts in self.model_drafts.items():
            mpath = join_path(path, name)
            self.check_model_keys(name, drafts, mpath)
            fields = {fname: self.freeze(draft, top=True) for fname, draft in drafts.items()}
            models[name] = ModelDef(name, fields, self.indexes, self.params, dict(raw[name]))
        return models

    def valid_field_name(self, name: str) -> bool:
        return bool(name) and not (set(name) & FIELD_NAME_FORBIDDEN)

    def compile_block(
        self, raw: Mapping[str, Any], path: str, *, level: int, parent_partial: bool | None, top: bool = True
    ) -> dict[str, _FieldDraft]:
        drafts: dict[str, _FieldDraft] = {}
        for name in self.str_keys(raw, path):
            fpath = join_path(path, name)
            if not self.valid_field_name(name):
                self.error(fpath, "invalid field name (must be non-empty without '.', ':', '{' or '}')")
                continue
            spec = raw[name]
            if not isinstance(spec, Mapping):
                self.error(fpath, f"must be an object (a field definition), not {_kind(spec)}")
                continue
            drafts[name] = self.compile_field(name, spec, fpath, level=level, parent_partial=parent_partial)
        if level == 0 and top:
            self.add_implicit_fields(drafts, path)
        self.check_maps(drafts)
        self.resolve_encodes(drafts)
        self.check_templates(drafts, path, top=level == 0)
        return drafts

    def add_implicit_fields(self, drafts: dict[str, _FieldDraft], path: str) -> None:
        params = self.params
        type_field = params.type_field
        declared = drafts.get(type_field)
        if declared is not None and declared.type != "string":
            self.error(join_path(declared.path, "type"), f"the type field {type_field!r} must be a string")
        if declared is not None and declared.sub is not None:
            self.error(join_path(declared.path, "map"), f"the type field {type_field!r} cannot be packed")
        if type_field not in drafts:
            draft = _FieldDraft(type_field, join_path(path, type_field), {})
            draft.props.update(type="string", hidden=True, required=True)
            drafts[type_field] = draft
        for wanted, fname in (
            (params.create_timestamp, params.created_field),
            (params.update_timestamp, params.updated_field),
        ):
            if not wanted:
                continue
            if fname in drafts:
                if drafts[fname].type not in ("date", "number", "string"):
                    self.warn(
                        join_path(drafts[fname].path, "type"), f"timestamp field {fname!r} should be a date"
                    )
                continue
            draft = _FieldDraft(fname, join_path(path, fname), {})
            draft.props.update(type="date", timestamp=True)
            drafts[fname] = draft

    # -- one field ---------------------------------------------------------------------------------------
    def compile_type(self, spec: Mapping[str, Any], path: str) -> str:
        if "type" not in spec or spec["type"] is None:
            self.warn(join_path(path, "type"), "missing; assuming 'string'")
            return "string"
        value = spec["type"]
        tpath = join_path(path, "type")
        if isinstance(value, type):
            mapped = _PY_TYPES.get(value)
            if mapped is None:
                self.error(tpath, "must be one of " + ", ".join(FIELD_TYPES))
                return "string"
            return mapped
        if isinstance(value, str):
            lowered = value.lower()
            lowered = _TYPE_ALIASES.get(lowered, lowered)
            if lowered in FIELD_TYPES:
                return lowered
        self.error(tpath, "must be one of " + ", ".join(FIELD_TYPES))
        return "string"

    def compile_field(
        self, name: str, spec: Mapping[str, Any], path: str, *, level: int, parent_partial: bool | None
    ) -> _FieldDraft:
        draft = _FieldDraft(name, path, dict(spec))
        draft.nested_level = level
        props = draft.props
        self.check_keys(spec, FIELD_PROPS, path)
        ftype = self.compile_type(spec, path)
        props["type"] = ftype

        for key in (
            "required",
            "hidden",
            "nulls",
            "unique",
            "crypt",
            "filter",
            "ttl",
            "isoDates",
            "timestamp",
            "partial",
        ):
            value = self.get_bool(spec, key, path)
            if value is not None:
                props[key] = value

        # value
        if "value" in spec and spec["value"] is not None:
            value = spec["value"]
            vpath = join_path(path, "value")
            if value is True:
                props["value_function"] = True
            elif isinstance(value, str):
                try:
                    props["value"] = Template(value)
                except TemplateError as exc:
                    self.error(vpath, f"invalid template {value!r}: {exc}")
                if ftype in ("object", "array", "set"):
                    self.error(vpath, f"value templates make strings; not valid for {ftype} fields")
            elif value is not False:
                self.error(vpath, "must be a template string (or true for a computed value)")

        # generate (and the deprecated uuid)
        generate = self.compile_generate(spec, path, ftype)
        if generate is not None:
            props["generate"] = generate
            if props.get("value") is not None or props.get("value_function"):
                self.error(join_path(path, "generate"), "cannot be combined with value")

        # enum
        if "enum" in spec and spec["enum"] is not None:
            epath = join_path(path, "enum")
            value = spec["enum"]
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                self.error(epath, "must be a list of strings")
            elif not value:
                self.error(epath, "must not be empty")
            else:
                if ftype != "string":
                    self.error(epath, f"only valid for string fields (this field is {ftype!r})")
                unique_values = tuple(dict.fromkeys(value))
                if len(unique_values) != len(value):
                    self.warn(epath, "lists a value more than once")
                props["enum"] = unique_values

        # default
        if "default" in spec:
            default = spec["default"]
            dpath = join_path(path, "default")
            props["default"] = default
            props["has_default"] = True
            if default is not None and not _default_fits(default, ftype):
                self.error(dpath, f"{_show(default)} does not match the field type {ftype!r}")
            elif isinstance(default, str) and props.get("enum") and default not in props["enum"]:
                self.error(dpath, f"{default!r} is not one of the enum values")
            if generate is not None:
                self.warn(join_path(path, "generate"), "never used: the default value is applied first")

        # validate
        if "validate" in spec and spec["validate"] not in (None, False):
            value = spec["validate"]
            vpath = join_path(path, "validate")
            if isinstance(value, re.Pattern):
                props["validate"] = value
            elif isinstance(value, str):
                try:
                    props["validate"] = js_regex(value)
                except ValueError as exc:
                    self.error(vpath, str(exc))
            else:
                self.error(vpath, "must be a regular expression string ('/pattern/flags' or a plain pattern)")
            if ftype in ("object", "array", "set", "binary"):
                self.error(
                    vpath, f"only valid for string, number, boolean or date fields (this field is {ftype!r})"
                )

        # scope
        if "scope" in spec and spec["scope"] is not None:
            spath = join_path(path, "scope")
            value = spec["scope"]
            if not isinstance(value, str):
                self.error(spath, "must be a template string")
            else:
                try:
                    props["scope"] = Template(value)
                except TemplateError as exc:
                    self.error(spath, f"invalid template {value!r}: {exc}")
                if not props.get("unique"):
                    self.warn(spath, "has no effect without unique: true")

        # crypt
        if props.get("crypt"):
            cpath = join_path(path, "crypt")
            if ftype != "string":
                self.error(cpath, f"only valid for string fields (this field is {ftype!r})")
            if not self.params.crypto:
                self.error(cpath, "needs a params.crypto configuration (cipher and password)")
            elif "primary" not in self.params.crypto:
                self.error(cpath, "needs a 'primary' entry in params.crypto")

        # ttl
        if props.get("ttl"):
            tpath = join_path(path, "ttl")
            if ftype not in ("date", "number"):
                self.error(tpath, f"only valid for date or number fields (this field is {ftype!r})")
            if level > 0:
                self.error(tpath, "only valid on top-level fields (DynamoDB's TTL attribute is top-level)")

        if props.get("unique") and level > 0:
            self.warn(
                join_path(path, "unique"),
                "has no effect on nested fields (only top-level fields are kept unique)",
            )

        # map
        if "map" in spec and spec["map"] is not None:
            mpath = join_path(path, "map")
            value = spec["map"]
            if not isinstance(value, str):
                self.error(mpath, "must be a string: 'attribute' or 'attribute.property'")
            else:
                parts = value.split(".")
                if len(parts) > 2 or not all(parts):
                    self.error(mpath, "must be 'attribute' or 'attribute.property'")
                else:
                    props["map"] = FieldMap(parts[0], parts[1] if len(parts) == 2 else None)

        # encode / reference: resolved once the whole block (or all models) is known
        if "encode" in spec and spec["encode"] is not None:
            draft.encode_raw = spec["encode"]
        if "reference" in spec and spec["reference"] is not None:
            draft.reference_raw = spec["reference"]
            if not isinstance(spec["reference"], str):
                self.error(
                    join_path(path, "reference"), "must be a string: 'Model:index:attribute=source,...'"
                )

        # partial (resolved: explicit, then the parent's, then params)
        explicit_partial = props.get("partial")
        resolved_partial = explicit_partial
        if resolved_partial is None:
            resolved_partial = parent_partial if parent_partial is not None else self.params.partial
        props["partial"] = resolved_partial

        # nested schema and typed array items
        has_schema = "schema" in spec and spec["schema"] is not None
        has_items = "items" in spec and spec["items"] is not None
        if has_schema:
            spath = join_path(path, "schema")
            if ftype not in ("object", "array"):
                self.error(spath, f"only valid for object or array fields (this field is {ftype!r})")
            elif not isinstance(spec["schema"], Mapping):
                self.error(spath, "must be an object (the nested fields)")
            elif level + 1 > MAX_NESTING:
                self.error(spath, f"nested deeper than {MAX_NESTING} levels")
            elif has_items:
                self.error(spath, "cannot be combined with items (put the schema in items)")
            else:
                draft.schema = self.compile_block(
                    spec["schema"], spath, level=level + 1, parent_partial=resolved_partial
                )
        if has_items:
            ipath = join_path(path, "items")
            value = spec["items"]
            if ftype != "array":
                self.error(ipath, f"only valid for array fields (this field is {ftype!r})")
            elif not isinstance(value, Mapping):
                self.error(ipath, "must be an object (the element's field definition)")
            elif level + 1 > MAX_NESTING:
                self.error(ipath, f"nested deeper than {MAX_NESTING} levels")
            else:
                draft.items = self.compile_field(
                    name, value, ipath, level=level + 1, parent_partial=resolved_partial
                )
                if draft.items.props.get("value") is not None:
                    self.error(join_path(ipath, "value"), "array elements cannot have value templates")
        if explicit_partial is not None and draft.nested is None:
            self.error(join_path(path, "partial"), "only valid for fields with a nested schema")
        return draft

    def compile_generate(self, spec: Mapping[str, Any], path: str, ftype: str) -> Generate | None:
        generate: Generate | None = None
        gpath = join_path(path, "generate")
        value = spec.get("generate")
        if value is not None and value is not False:
            if value is True:
                generate = Generate("custom")
            elif isinstance(value, str) and value in ("ulid", "uuid"):
                generate = Generate(value)
            elif value == "uid":
                generate = Generate("uid", DEFAULT_UID_LENGTH)
            elif isinstance(value, str) and UID_SPEC.match(value):
                length = int(UID_SPEC.match(value).group(1))  # type: ignore[union-attr]
                if 1 <= length <= 1024:
                    generate = Generate("uid", length)
                else:
                    self.error(gpath, "uid length must be between 1 and 1024")
            else:
                self.error(gpath, "must be 'ulid', 'uuid', 'uid', 'uid(N)' or true")
        legacy = spec.get("uuid")
        if legacy is not None and legacy is not False:
            upath = join_path(path, "uuid")
            if generate is not None or (value is not None and value is not False):
                self.error(upath, "cannot be combined with generate")
            elif legacy is True or legacy in ("uuid", "ulid"):
                kind = "uuid" if legacy is True else legacy
                self.warn(upath, f"deprecated; use generate: {kind!r}")
                generate = Generate(kind)
            else:
                self.error(upath, "must be 'uuid' or 'ulid' (deprecated: use generate)")
        if generate is not None and ftype != "string":
            self.error(
                gpath if "generate" in spec else join_path(path, "uuid"),
                f"only valid for string fields (this field is {ftype!r})",
            )
        return generate

    # -- block checks ------------------------------------------------------------------------------------
    def check_maps(self, drafts: dict[str, _FieldDraft]) -> None:
        uses: dict[str, list[_FieldDraft]] = {}
        for draft in drafts.values():
            att, sub = draft.attribute, draft.sub
            where = join_path(draft.path, "map") if "map" in draft.props else draft.path
            previous = uses.setdefault(att, [])
            if sub is None:
                if previous:
                    other = previous[0]
                    how = f" (packed as {att}.{other.sub})" if other.sub is not None else ""
                    self.error(where, f"attribute {att!r} is already used by field {other.name!r}{how}")
            else:
                plain = [p for p in previous if p.sub is None]
                same = [p for p in previous if p.sub == sub]
                if plain:
                    self.error(
                        where, f"attribute {att!r} is already used, unpacked, by field {plain[0].name!r}"
                    )
                elif same:
                    self.error(where, f"'{att}.{sub}' is already used by field {same[0].name!r}")
            previous.append(draft)

    def resolve_encodes(self, drafts: dict[str, _FieldDraft]) -> None:
        for draft in drafts.values():
            raw = draft.encode_raw
            if raw is None:
                continue
            epath = join_path(draft.path, "encode")
            if isinstance(raw, str):
                other = drafts.get(raw)
                if other is None:
                    self.error(epath, f"unknown field {raw!r}")
                    continue
                template = other.template
                separator = self.params.separator
                index = None
                if template is not None:
                    segments = template.text.split(separator)
                    wanted = "${" + draft.name + "}"
                    if wanted in segments:
                        index = segments.index(wanted)
                if index is None:
                    self.error(
                        epath,
                        f"cannot resolve: the value template of {raw!r} has no {separator!r}-separated '${{{draft.name}}}'",
                    )
                    continue
                draft.props["encode"] = Encode(raw, separator, index)
            elif (
                isinstance(raw, (list, tuple))
                and len(raw) == 3
                and isinstance(raw[0], str)
                and isinstance(raw[1], str)
                and raw[1]
                and _is_int(raw[2])
                and raw[2] >= 0
            ):
                if raw[0] not in drafts:
                    self.error(epath, f"unknown field {raw[0]!r}")
                    continue
                draft.props["encode"] = Encode(raw[0], raw[1], raw[2])
            else:
                self.error(epath, "must be a field name or [field, separator, index]")

    def resolve_ref(self, drafts: dict[str, _FieldDraft], path: str) -> bool:
        """True when ``path`` names a field (or, through nested schemas, a property) in ``drafts``."""
        steps = path.split(".")
        current = drafts.get(steps[0])
        for step in steps[1:]:
            if current is None:
                return False
            if current.type == "array" and step.isascii() and step.isdigit():
                current = current.items if current.items is not None else _ANY
                continue
            nested = current.nested if current is not _ANY else None
            if nested is not None:
                current = nested.get(step)
            elif current is _ANY or current.type in ("object", "array"):
                current = _ANY  # no nested schema: any property may be there
            else:
                return False
        return current is not None

    def check_templates(self, drafts: dict[str, _FieldDraft], path: str, *, top: bool) -> None:
        for draft in drafts.values():
            for key in ("value", "scope"):
                template = draft.props.get(key)
                if template is None:
                    continue
                tpath = join_path(draft.path, key)
                for ref_path in template.fields:
                    if not self.resolve_ref(drafts, ref_path):
                        self.error(tpath, f"unknown field {ref_path!r} in template {template.text!r}")
                    elif key == "value" and ref_path.split(".")[0] == draft.name:
                        self.error(tpath, f"template refers to its own field {draft.name!r}")
        # cycles
        order: list[str] = []
        done: set[str] = set()
        reported: set[frozenset[str]] = set()

        def visit(name: str, stack: list[str]) -> None:
            if name in done:
                return
            if name in stack:
                cycle = stack[stack.index(name) :] + [name]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    self.error(path, "value template cycle: " + " -> ".join(cycle))
                return
            stack.append(name)
            template = drafts[name].template
            if template is not None:
                for root in template.roots:
                    ref = drafts.get(root)
                    if ref is not None and root != name and ref.template is not None:
                        visit(root, stack)
            stack.pop()
            done.add(name)
            order.append(name)

        for name in drafts:
            visit(name, [])

    def check_model_keys(self, model: str, drafts: dict[str, _FieldDraft], mpath: str) -> None:
        primary = self.indexes.get("primary")
        if primary is None:
            return
        by_attribute: dict[str, _FieldDraft] = {}
        for each in drafts.values():
            by_attribute.setdefault(each.attribute, each)
        if primary.hash not in by_attribute:
            self.error(mpath, f"missing the primary hash key field {primary.hash!r}")
        if primary.sort is not None and primary.sort not in by_attribute:
            self.error(mpath, f"missing the primary sort key field {primary.sort!r}")
        for index in self.indexes.values():
            for attribute in index.keys:
                draft = by_attribute.get(attribute)
                if draft is None:
                    continue
                if draft.sub is not None:
                    self.error(
                        join_path(draft.path, "map"),
                        f"cannot pack key attribute {attribute!r} of index {index.name!r} into an object",
                    )
                if draft.type not in _KEY_TYPES:
                    self.error(
                        join_path(draft.path, "type"),
                        f"{draft.type!r} cannot be a key of index {index.name!r} (use string, number, binary or date)",
                    )
                if draft.props.get("crypt"):
                    self.error(
                        join_path(draft.path, "crypt"),
                        f"cannot encrypt key attribute {attribute!r} of index {index.name!r}",
                    )
                if index.kind == "primary":
                    draft.props["required"] = True
                    if draft.props.get("unique") and "unique" in draft.raw:
                        self.warn(join_path(draft.path, "unique"), "has no effect on a primary key field")

    # -- freezing ------------------------------------------------------------------------------------------
    def freeze(self, draft: _FieldDraft, *, top: bool) -> Field:
        props = draft.props
        params = self.params
        template = props.get("value")
        hidden = props.get("hidden")
        if hidden is None:
            hidden = template is not None
        schema = None
        if draft.schema is not None:
            schema = {name: self.freeze(d, top=False) for name, d in draft.schema.items()}
        items = self.freeze(draft.items, top=False) if draft.items is not None else None
        return Field(
            name=draft.name,
            type=props.get("type", "string"),
            value=template,
            value_function=bool(props.get("value_function", False)),
            default=props.get("default"),
            has_default=bool(props.get("has_default", False)),
            generate=props.get("generate"),
            required=bool(props.get("required", False)),
            enum=props.get("enum"),
            validate=props.get("validate"),
            unique=bool(props.get("unique", False)) and top,
            scope=props.get("scope"),
            crypt=bool(props.get("crypt", False)),
            hidden=bool(hidden),
            map=props.get("map"),
            schema=schema,
            items=items,
            partial=bool(props.get("partial", False)),
            nulls=bool(props["nulls"]) if props.get("nulls") is not None else params.nulls,
            ttl=bool(props.get("ttl", False)),
            encode=props.get("encode"),
            filter=bool(props.get("filter", True)),
            iso_dates=bool(props["isoDates"]) if props.get("isoDates") is not None else params.iso_dates,
            reference=props.get("reference"),
            timestamp=bool(props.get("timestamp", False)),
            raw=draft.raw,
            path=draft.path,
        )

    # -- process -------------------------------------------------------------------------------------------
    def compile_process(self, raw: Any, models: dict[str, ModelDef]) -> dict[str, Process]:
        path = "process"
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            self.error(path, "must be an object (model name -> processing)")
            return {}
        result: dict[str, Process] = {}
        for name in self.str_keys(raw, path):
            ppath = join_path(path, name)
            if name not in self.model_drafts:
                self.error(ppath, f"unknown model {name!r}" + _suggest(name, self.model_drafts))
            spec = raw[name]
            if not isinstance(spec, Mapping):
                self.error(ppath, "must be an object")
                continue
            self.check_keys(spec, PROCESS_PROPS, ppath)
            enable = self.get_choice(spec, "enable", ppath, ENABLE_VALUES, "both")
            sync = self.get_choice(spec, "sync", ppath, SYNC_VALUES, "none")
            notify = bool(self.get_bool(spec, "notify", ppath, False))
            if enable != "both" and sync != "none":
                self.warn(
                    join_path(ppath, "sync"), f"has no effect when the model is enabled only on the {enable}"
                )
            if sync != "none" and enable == "both" and self.params.timestamps not in (True, "update"):
                self.error(
                    join_path(ppath, "sync"),
                    "a synced model needs params.timestamps (true or 'update'): sync keeps the newer write",
                )
            scope = self.compile_scope(spec, ppath, name)
            metrics = self.compile_metrics(
                spec.get("metrics"), join_path(ppath, "metrics"), self.model_drafts.get(name)
            )
            result[name] = Process(enable, sync, metrics, notify, scope)
        return result

    def compile_scope(self, spec: Mapping[str, Any], path: str, model: str) -> str | None:
        """``process.<Model>.scope`` (a dynabase extension): a value template over the item's fields and the
        table context; a device receives the down-synced items whose scope renders as its own."""
        scope = self.get_str(spec, "scope", path)
        if scope is None:
            return None
        spath = join_path(path, "scope")
        try:
            template = Template(scope)
        except TemplateError as exc:
            self.error(spath, str(exc))
            return None
        if template.is_literal:
            self.error(spath, "must reference a field or context value (e.g. '${deviceId}')")
        if spec.get("sync", "none") in ("none", None):
            self.warn(spath, "has no effect on a model that does not sync")
        return scope

    def compile_metrics(
        self, raw: Any, path: str, drafts: dict[str, _FieldDraft] | None
    ) -> tuple[Metric, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, (list, tuple)):
            self.error(path, "must be a list of metric definitions")
            return ()
        known: set[str] = set()
        if drafts is not None:
            for draft in drafts.values():
                known.add(draft.name)
                known.add(draft.attribute)
        metrics = []
        for i, spec in enumerate(raw):
            mpath = join_path(path, i)
            if not isinstance(spec, Mapping):
                self.error(mpath, "must be an object")
                continue
            self.check_keys(spec, METRIC_PROPS, mpath)
            namespace = self.get_str(spec, "namespace", mpath, required=True)
            fields: list[tuple[str, str]] = []
            fpath = join_path(mpath, "fields")
            if "fields" not in spec or spec["fields"] is None:
                self.error(fpath, "required")
            elif not isinstance(spec["fields"], (list, tuple)):
                self.error(fpath, "must be a list of attribute names or {metric: attribute} objects")
            else:
                for j, entry in enumerate(spec["fields"]):
                    epath = join_path(fpath, j)
                    if isinstance(entry, str) and entry:
                        fields.append((entry, entry))
                    elif (
                        isinstance(entry, Mapping)
                        and entry
                        and all(isinstance(k, str) and isinstance(v, str) for k, v in entry.items())
                    ):
                        fields.extend(entry.items())
                    else:
                        self.error(epath, "must be an attribute name or a {metric: attribute} object")
                        continue
            for _metric, attribute in fields:
                if drafts is not None and attribute not in known:
                    self.warn(fpath, f"the model defines no field {attribute!r}")
            dimensions: list[Any] = []
            dpath = join_path(mpath, "dimensions")
            if spec.get("dimensions") is not None:
                if not isinstance(spec["dimensions"], (list, tuple)):
                    self.error(dpath, "must be a list")
                else:
                    for j, entry in enumerate(spec["dimensions"]):
                        if isinstance(entry, str):
                            dimensions.append(entry)
                        elif isinstance(entry, Mapping) and all(
                            isinstance(k, str) and isinstance(v, str) for k, v in entry.items()
                        ):
                            dimensions.append(dict(entry))
                            for attribute in entry.values():
                                if drafts is not None and attribute not in known:
                                    self.warn(
                                        join_path(dpath, j), f"the model defines no field {attribute!r}"
                                    )
                        else:
                            self.error(
                                join_path(dpath, j), "must be a name or a {dimension: attribute} object"
                            )
            where = self.get_str(spec, "where", mpath)
            buffer = spec.get("buffer")
            if buffer is not None and not isinstance(buffer, Mapping):
                self.error(join_path(mpath, "buffer"), "must be an object")
                buffer = None
            if namespace is not None:
                metrics.append(
                    Metric(
                        namespace, tuple(fields), tuple(dimensions), where, dict(buffer) if buffer else None
                    )
                )
        return tuple(metrics)

    # -- cross-model checks --------------------------------------------------------------------------------
    def check_index_usage(self, models: dict[str, ModelDef]) -> None:
        attributes: set[str] = set()
        for model in models.values():
            for f in model.fields.values():
                attributes.add(f.attribute)
        if not models:
            return
        for index in self.indexes.values():
            if index.kind == "primary":
                continue
            ipath = join_path("indexes", index.name)
            for key, attribute in [("hash", a) for a in index.hashes] + [("sort", a) for a in index.sorts]:
                if attribute is None or (key == "hash" and index.kind == "local"):
                    continue
                if attribute not in attributes:
                    self.warn(join_path(ipath, key), f"no model defines attribute {attribute!r}")
            if isinstance(index.project, tuple):
                for attribute in index.project:
                    if attribute not in attributes:
                        self.warn(join_path(ipath, "project"), f"no model defines attribute {attribute!r}")

    def check_key_types(self, models: dict[str, ModelDef]) -> None:
        seen: dict[str, tuple[str, str]] = {}
        for index in self.indexes.values():
            for attribute in index.keys:
                for model in models.values():
                    f = model.field_for_attribute(attribute)
                    if f is None or f.type not in _KEY_TYPES:
                        continue
                    kind = scalar_type(f)
                    if attribute not in seen:
                        seen[attribute] = (kind, f.path)
                    elif seen[attribute][0] != kind and seen[attribute][1] != f.path:
                        other_kind, other_path = seen[attribute]
                        self.error(
                            join_path(f.path, "type"),
                            f"key attribute {attribute!r} is stored as {kind} here but as {other_kind} by {other_path}",
                        )
                        seen[attribute] = (other_kind, f.path)

    def check_ttl(self, models: dict[str, ModelDef]) -> None:
        first: tuple[str, str] | None = None
        for model in models.values():
            for f in model.fields.values():
                if not f.ttl:
                    continue
                if first is None:
                    first = (f.attribute, f.path)
                elif first[0] != f.attribute:
                    self.error(
                        join_path(f.path, "ttl"),
                        f"DynamoDB allows one TTL attribute per table; {first[0]!r} ({first[1]}) is already the TTL attribute",
                    )

    def check_references(self, models: dict[str, ModelDef]) -> None:
        for name, model in models.items():
            updated: dict[str, Field] = {}
            for fname, f in model.fields.items():
                raw = (
                    self.model_drafts[name][fname].reference_raw if fname in self.model_drafts[name] else None
                )
                if isinstance(raw, str):
                    reference = self.compile_reference(raw, join_path(f.path, "reference"), model, models)
                    if reference is not None:
                        updated[fname] = dataclasses.replace(f, reference=reference)
            if updated:
                model.fields.update(updated)

    def compile_reference(
        self, text: str, path: str, model: ModelDef, models: dict[str, ModelDef]
    ) -> Reference | None:
        parts = text.split(":")
        if len(parts) != 3 or not all(parts):
            self.error(path, "must be 'Model:index:attribute=source,...'")
            return None
        target_name, index_name, spec = parts
        target = models.get(target_name)
        ok = True
        if target is None:
            self.error(path, f"unknown model {target_name!r}" + _suggest(target_name, models))
            ok = False
        if index_name not in self.indexes:
            self.error(path, f"unknown index {index_name!r}" + _suggest(index_name, self.indexes))
            ok = False
        pairs: list[tuple[str, str]] = []
        for pair in spec.split(","):
            bits = pair.split("=")
            if len(bits) != 2 or not bits[0].strip() or not bits[1].strip():
                self.error(path, f"bad attribute pair {pair!r} (expected attribute=source)")
                ok = False
                continue
            attribute, source = bits[0].strip(), bits[1].strip()
            if (
                target is not None
                and attribute not in target.fields
                and target.field_for_attribute(attribute) is None
            ):
                self.error(path, f"model {target_name!r} has no field {attribute!r}")
                ok = False
            if source not in model.fields and model.field_for_attribute(source) is None:
                self.error(path, f"model {model.name!r} has no field {source!r}")
                ok = False
            pairs.append((attribute, source))
        return Reference(target_name, index_name, tuple(pairs), text) if ok else None


class _AnyField:
    """Stands for a property of an object without a nested schema (anything may be there)."""

    type = "any"
    nested = None
    items = None


_ANY: Any = _AnyField()


def _default_fits(value: Any, ftype: str) -> bool:
    if ftype == "string":
        return isinstance(value, str)
    if ftype == "number":
        return _is_number(value) and not (isinstance(value, float) and math.isnan(value))
    if ftype == "boolean":
        return isinstance(value, bool)
    if ftype == "date":
        return isinstance(value, (str, _dt.date)) or _is_number(value)
    if ftype == "object":
        return isinstance(value, Mapping)
    if ftype == "array":
        return isinstance(value, (list, tuple))
    if ftype == "set":
        return isinstance(value, (list, tuple, set, frozenset))
    if ftype == "binary":
        return isinstance(value, (str, bytes, bytearray))
    return True


def _compile(
    data: Any, crypto: Mapping[str, Any] | None = None
) -> tuple[Schema | None, list[SchemaIssue], list[SchemaIssue]]:
    compiler = _Compiler(data, crypto)
    schema = compiler.run()
    return schema, compiler.errors, compiler.warnings


def validate_schema(
    data: Any, *, warnings: bool = False, crypto: Mapping[str, Any] | None = None
) -> list[SchemaIssue]:
    """Every error in the schema document ``data`` (an empty list when it is valid).

    With ``warnings=True`` the warnings (``severity == "warning"``) follow the errors. ``crypto`` supplies
    a crypto configuration from outside the document (see :func:`load_schema`).
    """
    _schema, errors, warns = _compile(data, crypto)
    return errors + warns if warnings else errors


def build_schema(data: Any, *, crypto: Mapping[str, Any] | None = None) -> Schema:
    """Validate ``data`` and build its :class:`Schema`; raise :class:`SchemaError` listing every error."""
    schema, errors, warns = _compile(data, crypto)
    if errors or schema is None:
        raise SchemaError(errors or [SchemaIssue("", "invalid schema")], warnings=warns)
    return schema
