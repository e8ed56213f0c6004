"""Compiled request paths: the requests of ``create``, ``update`` and ``find`` built straight from properties.

When a Model is built it compiles, for a model whose fields are plain (no nested schema, packed or encoded
attribute, ``crypt`` or ``value: true`` field, no unique field), what these calls need: the fields in order
with their attribute names and the Python types stored as they are, the defaults and generated ids to fill,
the value templates in dependency order, the fields to check, the key placeholders; and from them, for each
op, a fill and a record maker generated as straight-line code (one block per field, the commonest types and
encodings inlined).  A call with plain properties and no params beyond :data:`WRITE_PARAMS` /
:data:`FIND_PARAMS` then builds its request in one pass and runs it (a find on a client with ``read_query``
reads each item as the engine makes it); anything else, an invalid value included (the
general path reports it), takes the general pipeline (:mod:`.prepare` and
:class:`~dynabase.model.expression.Expression`), whose requests these are, byte for byte (the tests compare
the two on every call shape).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from . import ids
from .base import ModelBase
from .codec import encode
from .expression import _and
from .paging import Page
from .read import SKIP
from .request import SANITY_PAGES
from .spec import MISSING
from .templates import inline_prefix, inline_render
from .values import js_str
from .where import NEEDS_EXPANSION, Placeholders

if TYPE_CHECKING:  # pragma: no cover
    from .spec import IndexSpec

#: params a compiled create / update takes (they only steer how the request runs)
WRITE_PARAMS = frozenset(("execute", "log", "throw", "client"))
#: params a compiled find takes
FIND_PARAMS = frozenset(("execute", "log", "throw", "client", "consistent", "limit", "reverse"))
#: the Python types each field type stores as they are (others go through the field's conversion)
_STORED_AS: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, Decimal, float),
    "boolean": (bool,),
}
_FIND_VALUES = (str, int, Decimal, bool, float)
_EMPTIES = (set, frozenset, list, tuple)
_NESTED = {"object": dict, "array": list}
_NO_PARAMS: dict[str, Any] = {}
#: how many update shapes a model keeps the made expression of
_TEMPLATES = 256


def _now() -> datetime:
    """The time a write stamps (read at every call: tests freeze this module's ``datetime``)."""
    return datetime.now(timezone.utc)


def _token(value: Any, values: list[Any], shared: dict[tuple[type, Any], int]) -> int:
    """The placeholder number of ``value`` among ``values`` (appended when new), shared as
    :meth:`Placeholders.value` shares: non-empty strings and booleans."""
    kind = type(value)
    if (kind is str and value) or kind is bool:
        token = shared.get((kind, value))
        if token is None:
            token = shared[(kind, value)] = len(values)
            values.append(value)
        return token
    values.append(value)
    return len(values) - 1


class Built:
    """A request a compiled path built, in the shape :meth:`RequestPath._run` takes (an Expression's)."""

    __slots__ = ("op", "params", "properties", "index", "cmd")

    def __init__(
        self,
        op: str,
        params: dict[str, Any],
        properties: dict[str, Any],
        index: IndexSpec,
        cmd: dict[str, Any],
    ) -> None:
        self.op, self.params, self.properties, self.index, self.cmd = op, params, properties, index, cmd

    def command(self) -> dict[str, Any]:
        return self.cmd


class CompiledPaths(ModelBase):
    """The compiled create / update / find of a Model (``_compiled`` is False for models they cannot serve)."""

    def _compile_requests(self) -> None:
        self._compiled = False
        fields, primary = self.fields, self.primary
        if (
            self.spec.generic
            or self.spec.nested
            or self.spec.has_unique
            or self._reader is None
            or self._projection(primary) is not None
            or any(
                f.crypt or f.encode or f.fields is not None or len(f.attribute) > 1 or f.value is True
                for f in fields.values()
            )
        ):
            return
        # the attribute a property's set / filter clause names (Placeholders.target of the attribute name)
        targets = {}
        for name, f in fields.items():
            att = f.attribute[0]
            if "." in att or "[" in att:
                return
            other = fields.get(att)
            targets[name] = other.attribute[0] if other is not None else att
        atts = [f.attribute[0] for f in fields.values()]
        type_field = fields.get(self.type_field)
        if len(set(atts)) < len(atts) or (type_field is not None and type_field.attribute[0] in primary.keys):
            return
        hash_field = next((f for f in fields.values() if f.attribute[0] == primary.hash), None)
        if hash_field is None:
            return
        self._hash_name = hash_field.name
        self._order = [(name, f.attribute[0], f, _STORED_AS.get(f.type, ())) for name, f in fields.items()]
        self._targets = targets
        self._defaults = [
            f for f in fields.values() if not f.value and (f.default is not MISSING or f.generate)
        ]
        self._templates = [f for f in self.block.deps if f.fields is None and f.value]
        if any(not hasattr(f.template, "renderer") for f in self._templates):
            return
        self._find_templates = [
            f for f in self._templates if not (f.is_indexed and f.attribute[0] not in primary.keys)
        ]
        self._checked = [f for f in fields.values() if f.validate is not None or f.enum is not None]
        self._required = [f for f in fields.values() if f.required]
        keys = [a for a in (primary.hash, primary.sort) if a]
        self._key_names = {f"#_{i}": att for i, att in enumerate(keys)}
        self._put_condition = _and([f"attribute_not_exists(#_{i})" for i in range(len(keys))])
        self._update_condition = _and([f"attribute_exists(#_{i})" for i in range(len(keys))])
        # update: the key attributes by property name (a key attribute's own value is not SET), the properties
        # never SET, and the ExpressionAttributeNames / UpdateExpression made for each shape of call
        keyed = {name: f.attribute[0] for name, f in fields.items() if f.attribute[0] in primary.keys}
        self._update_keys = {name: att for name, att in keyed.items() if fields[name].is_indexed}
        self._update_skip = frozenset({*keyed, self.type_field})
        self._update_templates: dict[tuple[Any, ...], tuple[dict[str, str], str]] = {}
        # find: each field's clause (the hash key's, the sort key's, a filter's or none) and the made templates
        self._find_roles = {
            name: ("sort" if att == primary.sort else "key")
            if att in primary.keys
            else "filter"
            if fields[name].filter
            else None
            for name, att in ((name, f.attribute[0]) for name, f in fields.items())
        }
        self._find_shapes: dict[tuple[Any, ...], tuple[dict[str, str], str, str]] = {}
        #: each op's record maker (a put's also encodes its item)
        self._stored = {op: self._compile_stored(op, op == "put") for op in ("put", "update", "find")}
        self._fills = {op: self._compile_fill(op) for op in ("put", "update", "find")}
        self._compiled = True

    def _run_built(self, built: Built) -> Any:
        """Run a compiled request the short way when nothing but the client call and the read is left to do (no
        ``execute=False``, no hidden fields shown); otherwise the general :meth:`RequestPath._run`.  The same
        results as the general run: ``_compiled_ok`` already ruled out synced models and read hooks."""
        p, op, table = built.params, built.op, self.table
        self._refuse_device_write(op)
        if p.get("execute") is False or table.hidden:
            # RequestPath._run (not declared in base: it takes this Built where an Expression goes)
            return self._run(op, built)  # type: ignore[attr-defined]
        cmd = built.cmd
        if op == "put":
            if table.execute(self.name, op, "put_item", cmd, p) is None:
                return None  # throw=False swallowed an error
            # ReadPath's compiled reader: _compiled_ok() ruled out the models without one
            return self._read_written(built.properties)  # type: ignore[misc]
        if op == "update":
            result = table.execute(self.name, op, "update_item", cmd, p)
            if result is None or "Attributes" not in result:
                return None
            items = self._read_raw_items(op, [result["Attributes"]], p)
            return items[0] if items else None
        return self._run_find(built)

    def _run_find(self, built: Built) -> Page:
        """A compiled query, paged as the general run pages it (``limit``, the sanity bound on pages).  A client
        with ``read_query`` (the embedded one) hands each item to the model's reader as the engine makes it;
        another's pages of AttributeValue items are read after."""
        p, cmd, table = built.params, built.cmd, self.table
        reader = whole = skipped = None
        if hasattr(p.get("client") or table.client, "read_query"):
            reader, whole, skipped = self._item_reader("find", p)  # type: ignore[attr-defined]
        raw: list[Any] = []
        pages = 0
        while True:
            result = table.execute(self.name, "find", "query", cmd, p, reader, whole)
            if result is None:  # throw=False swallowed an error
                return Page()
            last_key = result.get("LastEvaluatedKey")
            if last_key:
                cmd["ExclusiveStartKey"] = last_key
            if raw:
                raw.extend(result.get("Items", ()))
            else:  # the first page's list (the client's, made for this call)
                raw = result.get("Items") or []
            if raw and cmd.get("Limit"):
                cmd["Limit"] -= result.get("Count", 0)
                if cmd["Limit"] <= 0:
                    break
            pages += 1
            if not last_key or pages >= SANITY_PAGES:
                break
        if reader is None:
            page = Page(self._read_raw_items("find", raw, p))
        else:
            page = Page([item for item in raw if item is not SKIP] if skipped else raw)
        if last_key:
            page.next = table.decoder.decode_item(last_key)
        level = "info" if p.get("log") else "data"
        if table.logs(level):
            table.log(level, f'OneTable result for "find" "{self.name}"', items=page)
        return page

    def _compiled_ok(self) -> bool:
        """Whether the table lets this call take a compiled path (no hooks or context that change requests)."""
        table = self.table
        return (
            self._compiled
            and not table.context
            and table.transform is None
            and table.validate_fn is None
            and not (table.side == "cloud" and self.name in table.sync_plan.models)
        )

    # -- building ---------------------------------------------------------------------------------------------

    def _compile_fill(self, op: str) -> Callable[[Mapping[str, Any]], dict[str, Any] | None]:
        """``fill(properties)`` for ``op``: straight-line code that copies the properties and adds timestamps,
        the type, defaults (put) and value templates (simple ones inlined), then checks ``validate`` / ``enum``
        / ``required`` (put, update); None when the general path must run (a template that fails, a None or an
        empty collection to drop, a value it would reject)."""
        namespace: dict[str, Any] = {
            "model": self,
            "now": _now,
            "ids": ids,
            "EMPTIES": _EMPTIES,
            "js_str": js_str,
        }
        lines = [
            "def fill(properties):",
            "    props = dict(properties)  # field containers: copied by stored",
        ]
        stamps = self.timestamps
        if stamps and op != "find":
            lines.append("    stamp = now()")
            if op == "put" and (stamps is True or stamps == "create"):
                lines.append(f"    props[{self.created_field!r}] = stamp")
            if stamps is True or stamps == "update":
                lines.append(f"    props[{self.updated_field!r}] = stamp")
        lines.append(f"    props[{self.type_field!r}] = {self.name!r}")
        for i, f in enumerate(self.fields.values()):
            namespace[f"F{i}"] = f
        index = {f.name: i for i, f in enumerate(self.fields.values())}
        if op == "put":
            for f in self._defaults:
                made = (
                    f"F{index[f.name]}.default_value()"
                    if f.default is not MISSING
                    else f"ids.generate(F{index[f.name]}.generate, model.table.generate)"
                )
                lines += [f"    if {f.name!r} not in props:", f"        props[{f.name!r}] = {made}"]
        find = op == "find"
        for f in self._find_templates if find else self._templates:
            i = index[f.name]
            namespace[f"render{i}"] = f.template.renderer
            general = f"render{i}(props, {f.iso_dates!r})"
            simple = getattr(f.template, "simple", False)
            sort_key = find and f.attribute[0] == self.primary.sort  # a missing value: begins_with its prefix
            if sort_key:
                body = (
                    inline_prefix(f.template.parts, "props", "v", "prefix", general, "            ")
                    if simple
                    else ["            prefix = None", f"            v = {general}"]
                )
            else:
                body = (
                    inline_render(f.template.parts, "props", "v", general, "            ")
                    if simple
                    else [f"            v = {general}"]
                )
            lines += [f"    if {f.name!r} not in props:", "        try:", *body]
            if sort_key:
                lines += [
                    "            if v is None:",
                    "                if prefix is None:",
                    f"                    prefix = F{i}.template.prefix(props, iso_dates={f.iso_dates!r})",
                    '                v = {"begins": prefix} if prefix else None',
                ]
            lines += [
                "        except ValueError:",
                "            return None",
                "        if v is not None:",
                f"            props[{f.name!r}] = v",
            ]
        lines += [
            "    for value in props.values():",
            "        if value is None or (not value and type(value) in EMPTIES):",
            "            return None",
        ]
        if not find:
            for f in self._checked:
                i = index[f.name]
                lines += [f"    if {f.name!r} in props:", f"        value = props[{f.name!r}]"]
                if f.validate is not None:
                    lines += [
                        f"        if not F{i}.validate.search(value if isinstance(value, str) else js_str(value)):",
                        "            return None",
                    ]
                if f.enum is not None:
                    lines += [f"        if value not in F{i}.enum:", "            return None"]
            if op == "put":
                lines += [f"    if {f.name!r} not in props:\n        return None" for f in self._required]
        lines.append("    return props")
        exec("\n".join(lines), namespace)  # noqa: S102
        fill: Callable[[Mapping[str, Any]], dict[str, Any] | None] = namespace["fill"]
        return fill

    def _compile_stored(self, op: str, encoding: bool) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        """``stored(props, item)`` for ``op``: straight-line code, one block per field in order, that keeps a
        value of a type the field stores as it is, converts the rest (``_nested_write`` for a dict or list of an
        object or array field, ``_write_value`` for others; a find keeps sort-key operator dicts and leaves the
        type field out) and, when ``encoding``, puts its AttributeValue into ``item``."""
        lines = ["def stored(props, item):", "    rec = {}"]
        namespace: dict[str, Any] = {
            "encode": encode,
            "write": self._write_value,
            "nested": self._nested_write,
            "NO_PARAMS": _NO_PARAMS,
            "Decimal": Decimal,
        }
        find = op == "find"
        member = "{'S': x} if type(x) is str else encode(x)"
        for i, (name, att, f, kinds) in enumerate(self._order):
            if find and name == self.type_field:
                continue
            namespace[f"F{i}"] = f
            rec = f"rec[{name!r}] = v"
            store = (
                [rec, f"item[{att!r}] = {{'S': v}} if type(v) is str else encode(v)"] if encoding else [rec]
            )
            # (test, lines) in order, then the general conversion: the commonest types and encodings inlined
            cases: list[tuple[str, list[str]]] = []
            if encoding and kinds == (str,):
                cases.append(("t is str", [rec, f"item[{att!r}] = {{'S': v}}"]))
            elif encoding and kinds == (bool,):
                cases.append(("t is bool", [rec, f"item[{att!r}] = {{'BOOL': v}}"]))
            elif encoding and f.type == "number":  # ints, and finite floats with a fraction: their text
                cases += [
                    ("t is int", [rec, f"item[{att!r}] = {{'N': str(v)}}"]),
                    (  # repr's notation is JavaScript's from 1e-4 to 1e16; js_number_text has the rest
                        "t is float and v - v == 0 and not v.is_integer() and 'e' not in (r := repr(v))",
                        [rec, f"item[{att!r}] = {{'N': r}}"],
                    ),
                    ("t is float or t is Decimal", store),
                ]
            elif kinds:  # the types stored as they are
                cases.append((" or ".join(f"t is {k.__name__}" for k in kinds), store))
            nested = _NESTED.get(f.type)
            if (
                nested is not None
            ):  # a copy with its dates converted; its members encoded inline (encode's M / L)
                walk = [f"v = nested(F{i}, v)"]
                if not encoding:
                    walk.append(rec)
                elif nested is dict:
                    walk += [
                        "m = {}",
                        "for k, x in v.items():",
                        f"    m[k if type(k) is str else str(k)] = {member}",
                    ]
                    walk += [rec, f"item[{att!r}] = {{'M': m}}"]
                else:
                    walk += [
                        "m = []",
                        "for x in v:",
                        f"    m.append({member})",
                        rec,
                        f"item[{att!r}] = {{'L': m}}",
                    ]
                cases.append((f"t is {nested.__name__}", walk))
            if find:  # sort-key operators ({"begins": ...}) stay as they are
                cases.append(("t is dict", store))
            lines += [f"    if {name!r} in props:", f"        v = props[{name!r}]", "        t = type(v)"]
            for j, (test, then) in enumerate(cases):
                lines += [f"        {'el' if j else ''}if {test}:", *("            " + line for line in then)]
            general = [f"v = write({op!r}, '', F{i}, v, props, NO_PARAMS)", *store]
            if cases:
                lines += ["        else:", *("            " + line for line in general)]
            else:
                lines += ["        " + line for line in general]
        lines.append("    return rec")
        exec("\n".join(lines), namespace)  # noqa: S102
        stored: Callable[[dict[str, Any], Any], dict[str, Any]] = namespace["stored"]
        return stored

    def _record(
        self, op: str, properties: Mapping[str, Any], item: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """The record of the request (stored forms, in field order; ``item`` filled for a put), or
        None for the general path."""
        props = self._fills[op](properties)
        if props is None:
            return None
        rec = self._stored[op](props, item)
        return rec if rec.get(self._hash_name) is not None else None

    def _build_put(self, properties: Mapping[str, Any], params: Mapping[str, Any]) -> Built | None:
        item: dict[str, Any] = {}
        try:
            rec = self._record("put", properties, item)
        except (TypeError, ValueError):  # a value the codec cannot store: the general path reports it
            return None
        if rec is None:
            return None
        cmd = {
            "TableName": self.table.name,
            "ConditionExpression": self._put_condition,
            "ExpressionAttributeNames": dict(self._key_names),
            "Item": item,
            "ReturnValues": "NONE",
        }
        p = {"parse": True, "high": True, "exists": False, **params, "checked": True}
        return Built("put", p, rec, self.primary, cmd)

    def _build_update(self, properties: Mapping[str, Any], params: Mapping[str, Any]) -> Built | None:
        rec = self._record("update", properties)
        if rec is None:
            return None
        key_atts, skip = self._update_keys, self._update_skip
        key: dict[str, Any] = {}
        names: list[str] = []  # the properties SET, in order
        values: list[Any] = []  # the distinct values, in placeholder order (Placeholders.value's sharing)
        tokens: list[int] = []  # the placeholder of each property SET
        shared: dict[tuple[type, Any], int] = {}
        for name, value in rec.items():
            if name in key_atts:
                key[key_atts[name]] = value
            elif name not in skip:
                names.append(name)
                tokens.append(_token(value, values, shared))
        if not key or not names:
            return None
        shape = (*names, *tokens)
        template = self._update_templates.get(shape)
        if template is None:
            template = self._update_template(rec, names)
            if len(self._update_templates) < _TEMPLATES:
                self._update_templates[shape] = template
        try:
            cmd = {
                "TableName": self.table.name,
                "ConditionExpression": self._update_condition,
                "ExpressionAttributeNames": dict(template[0]),
                "ExpressionAttributeValues": {
                    f":_{i}": {"S": v} if type(v) is str else encode(v) for i, v in enumerate(values)
                },
                "ReturnValues": "ALL_NEW",
                "UpdateExpression": template[1],
                "Key": {att: encode(v) for att, v in key.items()},
            }
        except (TypeError, ValueError):
            return None
        p = {"exists": True, "parse": True, "high": True, **params, "checked": True}
        return Built("update", p, rec, self.primary, cmd)

    def _update_template(self, rec: dict[str, Any], names: list[str]) -> tuple[dict[str, str], str]:
        """ExpressionAttributeNames and UpdateExpression of an update SETting ``names`` (the values of ``rec``
        give the placeholders' sharing): the same for every call of this shape, so made once."""
        ph = Placeholders()
        for att in self._key_names.values():
            ph.name(att)
        sets = [f"{ph.name(self._targets[name])} = {ph.value(rec[name])}" for name in names]
        return ph.names, "set " + ", ".join(sets)

    def _build_find(self, properties: Mapping[str, Any], params: Mapping[str, Any]) -> Built | None:
        for value in properties.values():
            if type(value) not in _FIND_VALUES:
                return None  # sort-key operators, nested values: the general path
        rec = self._record("find", properties)
        if rec is None:
            return None
        # the shape of the call: the key and filter clauses of the properties and which values share a
        # placeholder; its ExpressionAttributeNames and expressions are made once
        roles = self._find_roles
        values: list[Any] = []
        shared: dict[tuple[type, Any], int] = {}
        shape: list[Any] = []
        for name, value in rec.items():
            role = roles[name]
            if role is None:
                continue
            if role == "filter":
                if type(value) is str and NEEDS_EXPANSION.search(value):
                    return None
            elif role == "sort" and type(value) is dict:
                value, role = value["begins"], "begins"
            shape += (name, role, _token(value, values, shared))
        key = tuple(shape)
        template = self._find_shapes.get(key)
        if template is None:
            template = self._find_template(rec)
            if len(self._find_shapes) < _TEMPLATES:
                self._find_shapes[key] = template
        names, key_condition, filter_expression = template
        try:
            cmd: dict[str, Any] = {
                "TableName": self.table.name,
                "ExpressionAttributeNames": dict(names),
                "ExpressionAttributeValues": {
                    f":_{i}": {"S": v} if type(v) is str else encode(v) for i, v in enumerate(values)
                },
            }
        except (TypeError, ValueError):
            return None
        if filter_expression:
            cmd["FilterExpression"] = filter_expression
        cmd["KeyConditionExpression"] = key_condition
        cmd["ConsistentRead"] = bool(params.get("consistent"))
        if params.get("limit"):
            cmd["Limit"] = int(params["limit"])
        cmd["ScanIndexForward"] = not params.get("reverse")
        p = {"parse": True, "high": True, **params, "checked": True}
        return Built("find", p, rec, self.primary, cmd)

    def _find_template(self, rec: dict[str, Any]) -> tuple[dict[str, str], str, str]:
        """ExpressionAttributeNames, KeyConditionExpression and FilterExpression ("" for none) of a find with
        the record ``rec`` (its values give the placeholders' sharing): the same for every call of its shape."""
        roles, targets = self._find_roles, self._targets
        ph = Placeholders()
        keys, filters = [], []
        for name, value in rec.items():
            role = roles[name]
            if role == "filter":
                filters.append(f"{ph.name(targets[name])} = {ph.value(value)}")
            elif role is not None:
                att = self.fields[name].attribute[0]
                if role == "sort" and type(value) is dict:
                    keys.append(f"begins_with({ph.name(att)}, {ph.value(value['begins'])})")
                else:
                    keys.append(f"{ph.name(att)} = {ph.value(value)}")
        return ph.names, " and ".join(keys), _and(filters) if filters else ""


__all__ = ["FIND_PARAMS", "WRITE_PARAMS", "Built", "CompiledPaths"]
