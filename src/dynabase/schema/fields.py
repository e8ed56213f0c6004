"""Compiling a model's fields: each field's properties, nested schemas, packed (``map``) and encoded fields,
value templates, and the checks of a model's key fields."""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping
from typing import Any

from .compiler import CompilerBase
from .defs import FIELD_TYPES, Encode, Field, FieldMap, Generate
from .errors import TemplateError, join_path
from .ids import DEFAULT_UID_LENGTH
from .rules import (
    FIELD_PROPS,
    KEY_TYPES,
    MAX_NESTING,
    PY_TYPES,
    TYPE_ALIASES,
    UID_SPEC,
    is_int,
    is_number,
    js_regex,
    kind_of,
    show,
)
from .template import Template


class FieldDraft:
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
        self.schema: dict[str, FieldDraft] | None = None
        self.items: FieldDraft | None = None
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
    def nested(self) -> dict[str, FieldDraft] | None:
        if self.schema is not None:
            return self.schema
        if self.items is not None:
            return self.items.schema
        return None


class FieldParts(CompilerBase):
    """The fields of the models."""

    def compile_block(
        self, raw: Mapping[str, Any], path: str, *, level: int, parent_partial: bool | None, top: bool = True
    ) -> dict[str, FieldDraft]:
        drafts: dict[str, FieldDraft] = {}
        for name in self.str_keys(raw, path):
            fpath = join_path(path, name)
            if not self.valid_field_name(name):
                self.error(fpath, "invalid field name (must be non-empty without '.', ':', '{' or '}')")
                continue
            spec = raw[name]
            if not isinstance(spec, Mapping):
                self.error(fpath, f"must be an object (a field definition), not {kind_of(spec)}")
                continue
            drafts[name] = self.compile_field(name, spec, fpath, level=level, parent_partial=parent_partial)
        if level == 0 and top:
            self.add_implicit_fields(drafts, path)
        self.check_maps(drafts)
        self.resolve_encodes(drafts)
        self.check_templates(drafts, path, top=level == 0)
        return drafts

    def add_implicit_fields(self, drafts: dict[str, FieldDraft], path: str) -> None:
        params = self.params
        type_field = params.type_field
        declared = drafts.get(type_field)
        if declared is not None and declared.type != "string":
            self.error(join_path(declared.path, "type"), f"the type field {type_field!r} must be a string")
        if declared is not None and declared.sub is not None:
            self.error(join_path(declared.path, "map"), f"the type field {type_field!r} cannot be packed")
        if type_field not in drafts:
            draft = FieldDraft(type_field, join_path(path, type_field), {})
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
            draft = FieldDraft(fname, join_path(path, fname), {})
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
            mapped = PY_TYPES.get(value)
            if mapped is None:
                self.error(tpath, "must be one of " + ", ".join(FIELD_TYPES))
                return "string"
            return mapped
        if isinstance(value, str):
            lowered = value.lower()
            lowered = TYPE_ALIASES.get(lowered, lowered)
            if lowered in FIELD_TYPES:
                return lowered
        self.error(tpath, "must be one of " + ", ".join(FIELD_TYPES))
        return "string"

    def compile_field(
        self, name: str, spec: Mapping[str, Any], path: str, *, level: int, parent_partial: bool | None
    ) -> FieldDraft:
        draft = FieldDraft(name, path, dict(spec))
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
                self.error(dpath, f"{show(default)} does not match the field type {ftype!r}")
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
    def check_maps(self, drafts: dict[str, FieldDraft]) -> None:
        uses: dict[str, list[FieldDraft]] = {}
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

    def resolve_encodes(self, drafts: dict[str, FieldDraft]) -> None:
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
                and is_int(raw[2])
                and raw[2] >= 0
            ):
                if raw[0] not in drafts:
                    self.error(epath, f"unknown field {raw[0]!r}")
                    continue
                draft.props["encode"] = Encode(raw[0], raw[1], raw[2])
            else:
                self.error(epath, "must be a field name or [field, separator, index]")

    def resolve_ref(self, drafts: dict[str, FieldDraft], path: str) -> bool:
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

    def check_templates(self, drafts: dict[str, FieldDraft], path: str, *, top: bool) -> None:
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

    def check_model_keys(self, model: str, drafts: dict[str, FieldDraft], mpath: str) -> None:
        primary = self.indexes.get("primary")
        if primary is None:
            return
        by_attribute: dict[str, FieldDraft] = {}
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
                if draft.type not in KEY_TYPES:
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
    def freeze(self, draft: FieldDraft, *, top: bool) -> Field:
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
        return is_number(value) and not (isinstance(value, float) and math.isnan(value))
    if ftype == "boolean":
        return isinstance(value, bool)
    if ftype == "date":
        return isinstance(value, (str, _dt.date)) or is_number(value)
    if ftype == "object":
        return isinstance(value, Mapping)
    if ftype == "array":
        return isinstance(value, (list, tuple))
    if ftype == "set":
        return isinstance(value, (list, tuple, set, frozenset))
    if ftype == "binary":
        return isinstance(value, (str, bytes, bytearray))
    return True


__all__ = ["FieldDraft", "FieldParts"]
