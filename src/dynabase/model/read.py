"""Reading items: AttributeValue items and decoded items back to result dicts (attribute names -> field names,
packed attributes unpacked, dates -> ``datetime``, binary -> ``bytes``, hidden fields left out).
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import partial
from typing import Any

from .base import ModelBase
from .codec import Decoder
from .expression import Expression
from .spec import MISSING, FieldSpec
from .unique import UNIQUE_MODEL
from .values import read_date

#: what an item reader returns for an item that gives no result (a unique field's sentinel)
SKIP: Any = object()


class ReadPath(ModelBase):
    """How a Model maps the items it gets back to results."""

    def _compile_readers(self) -> None:
        """The model's compiled read plan (see :func:`compile_readers`), or None for the general path."""
        self._reader: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
        self._read_written: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
        self._read_items: Callable[..., list[dict[str, Any]]] | None = None
        self._read_one: Callable[..., Any] | None = None
        self._read_own: Callable[[dict[str, Any]], Any] | None = None
        self._reads_keys = True
        fields = self.fields
        if self.spec.generic or any(
            f.crypt or f.encode or f.fields is not None or len(f.attribute) > 1 for f in fields.values()
        ):
            return
        plan = [f for f in fields.values() if not f.hidden]
        #: whether the compiled reader reads a key attribute of the table (a key field shown)
        self._reads_keys = any(f.attribute[0] in self.primary.keys for f in plan)
        self._reader, self._read_written, self._read_items, self._read_one, self._read_own = compile_readers(
            plan, self.table.decoder, self.type_field, self.name
        )

    def _fast_read_ok(self, p: Mapping[str, Any]) -> bool:
        return (
            self._reader is not None
            and bool(p.get("parse"))
            and p.get("hidden") is None
            and not self.table.hidden
            and not p.get("fields")
            and p.get("follow") is not True
            and p.get("decrypt") is not False
            and p.get("transform") is None
            and p.get("generic") is None
            and self.table.transform is None
        )

    def _read_raw_items(self, op: str, raws: list[dict[str, Any]], p: Mapping[str, Any]) -> list[Any]:
        """AttributeValue items -> result dicts, each through the model its type attribute names."""
        if self._read_items is not None:
            return self._read_items(raws, lambda raw, out: self._read_other(op, raw, p, out))
        out: list[Any] = []
        for raw in raws:
            self._read_other(op, raw, p, out)
        return out

    def _item_reader(
        self, op: str, p: Mapping[str, Any]
    ) -> tuple[Callable[[dict[str, Any]], Any], Callable[[dict[str, Any]], Any] | None, list[Any]]:
        """A reader of one AttributeValue item (``_read_one`` with the model's ``other``), for a client that reads
        each item as it is made (see :meth:`RequestPath` 's compiled find); the reader of whole items when the
        first may be handed items without the table's key attributes (it returns None for an item of another
        model, which the second reads whole), or None; and the list that collects the :data:`SKIP` they return
        for an item that is no result (a unique field's sentinel)."""
        skipped: list[Any] = []

        def other(raw: dict[str, Any]) -> Any:
            out: list[Any] = []
            self._read_other(op, raw, p, out)
            if out:
                return out[0]
            skipped.append(SKIP)
            return SKIP

        read_one = self._read_one
        assert read_one is not None  # a compiled model's (the caller's check)
        if self._reads_keys:
            return partial(read_one, other), None, skipped
        assert self._read_own is not None  # compiled with read_one
        return self._read_own, other, skipped

    def _read_other(self, op: str, raw: dict[str, Any], p: Mapping[str, Any], out: list[Any]) -> None:
        """Append the result for ``raw``, read by the model its type attribute names (none for a sentinel)."""
        tag = raw.get(self.type_field)
        kind = tag.get("S") if tag else None
        if kind is None or kind == self.name:
            model = self
        elif kind == UNIQUE_MODEL:
            return
        else:
            model = self.table.model_for(kind) or self
        reader = model._reader
        if reader is not None:
            out.append(reader(raw))
        else:
            out.append(model._transform_read(op, self.table.decoder.decode_item(raw), {}, p))

    def _parse_response(self, op: str, expr: Expression | None, items: list[dict[str, Any]]) -> list[Any]:
        p = expr.params if expr is not None else {}
        properties = expr.properties if expr is not None else {}
        if op == "put":
            if self._fast_read_ok(p):
                # _fast_read_ok(): the compiled readers exist
                return [self._read_written(properties)]  # type: ignore[misc]
            return [self._transform_read(op, properties, properties, p)]
        table = self.table
        type_field = self.type_field
        out = []
        for item in items:
            kind = item.get(type_field)
            if kind == UNIQUE_MODEL:
                continue
            model = table.model_for(kind) if kind is not None and kind != self.name else self
            out.append((model or self)._transform_read(op, item, properties, p))
        return out

    def _transform_read(self, op: str, raw: Any, properties: Mapping[str, Any], p: Mapping[str, Any]) -> Any:
        if not raw:
            return raw
        rec = self._read_block(op, raw, properties, p, self.fields, True)
        transform = self.table.transform
        if transform is not None:
            rec = transform(self, "read", rec, properties, p, raw)
        return rec

    def _read_block(
        self,
        op: str,
        raw: Mapping[str, Any],
        properties: Any,
        p: Mapping[str, Any],
        fields: dict[str, FieldSpec],
        top: bool,
    ) -> dict[str, Any]:
        rec: dict[str, Any] = {}
        hidden = p.get("hidden")
        show_hidden = p.get("follow") is True or hidden is True or (hidden is None and self.table.hidden)
        wanted = p.get("fields")
        decrypt = p.get("decrypt") is not False
        transform = p.get("transform")
        put = op == "put"
        get = raw.get
        for name, field in fields.items():
            if field.hidden and not show_hidden:
                continue
            attribute = field.attribute
            if put:
                value = get(name, MISSING)
            else:
                value = get(attribute[0], MISSING)
                if len(attribute) > 1:
                    value = value.get(attribute[1], MISSING) if isinstance(value, dict) else MISSING
            if value is MISSING and field.encode:
                att, sep, position = field.encode
                parts = str(get(att) or "").split(sep)
                value = parts[position] if position < len(parts) else MISSING
            if field.crypt and decrypt and value is not MISSING:
                value = self.table.crypto.decrypt(value)
            if value is MISSING:
                if field.default is not MISSING and (not wanted or name in wanted):
                    rec[name] = field.default_value()
                continue
            if field.fields is not None and value is not None and isinstance(value, (dict, list)):
                sub = properties.get(name) if isinstance(properties, Mapping) else None
                if field.is_array and isinstance(value, list):
                    rec[name] = [
                        self._read_block(op, item, {}, p, field.fields, False)
                        if isinstance(item, Mapping)
                        else item
                        for item in value
                    ]
                elif isinstance(value, Mapping):
                    rec[name] = self._read_block(op, value, sub or {}, p, field.fields, False)
                else:
                    rec[name] = value
                continue
            if callable(transform):
                rec[name] = transform(self, "read", name, value, properties)
                continue
            kind = field.type
            if kind == "date":
                rec[name] = read_date(value, field.ttl)
            elif kind == "binary" and isinstance(value, str):
                try:
                    rec[name] = base64.b64decode(value)
                except ValueError:
                    rec[name] = value
            else:
                rec[name] = value
        if top:
            generic = p.get("generic") if p.get("generic") is not None else self.spec.generic
            if generic:
                for name, value in raw.items():
                    if name not in rec:
                        rec[name] = value
            elif hidden is True and self.type_field not in rec:
                rec[self.type_field] = self.name
        return rec


def compile_readers(
    plan: list[FieldSpec], decoder: Decoder, type_field: str, model: str
) -> tuple[Any, Any, Any, Any, Any]:
    """Functions generated for the fields of ``plan`` (in order): ``read_item`` (an AttributeValue item -> result
    dict), ``read_written`` (a written record: stored forms by field name -> result dict) and ``read_items(raws,
    other)`` (a page: ``read_item`` inlined for the items of ``model``, ``other(raw, out)`` for the rest) and
    ``read_one(other, raw)`` (one item: ``read_item``'s result for an item of ``model``, ``other(raw)`` for others)
    and ``read_own(raw)`` (``read_one`` with None for the items of other models).
    Straight-line code, one statement per field with its attribute name, type test and default inlined: no
    loop over fields, no lookups of the schema per call."""
    auto = decoder.number is not Decimal
    item = ["def read_item(raw):", "    rec = {}"]
    written = ["def read_written(raw):", "    rec = {}", "    get = raw.get"]
    for i, field in enumerate(plan):
        name, kind = repr(field.name), 1 if field.type == "date" else 2 if field.type == "binary" else 0
        attribute = repr(field.attribute[0])
        item += [f"    if {attribute} in raw:", f"        av = raw[{attribute}]"]
        # the expected type read in a try (free in CPython 3.11 when it does not raise), any other through decode
        if kind:
            item.append(
                f'        rec[{name}] = read_stored(av["S"] if "S" in av else decode(av), {kind}, PLAN[{i}].ttl)'
            )
        elif field.type in _TAGS:
            item += [
                "        try:",
                f"            rec[{name}] = av[{_TAGS[field.type]!r}]",
                "        except KeyError:",
                f"            rec[{name}] = decode(av)",
            ]
        elif field.type == "number":
            item += _expect(
                name,
                "N",
                [
                    f"        rec[{name}] = int(value) if value.isdecimal() else "
                    'fraction(value) if "." in value else number(value)'
                ]
                if auto
                else [f"        rec[{name}] = number(value)"],
            )
        elif field.type == "object":
            item += _expect(
                name,
                "M",
                [
                    "        out = {}",
                    "        for k, v in value.items():",
                    '            if "S" in v:',
                    '                out[k] = v["S"]',
                    *(
                        [
                            '            elif "N" in v and v["N"].isdecimal():',
                            '                out[k] = int(v["N"])',
                        ]
                        if auto
                        else []
                    ),
                    "            else:",
                    "                out[k] = decode(v)",
                    f"        rec[{name}] = out",
                ],
            )
        elif field.type == "array":
            item += _expect(
                name,
                "L",
                [
                    "        out = []",
                    "        for v in value:",
                    '            out.append(v["S"] if "S" in v else decode(v))',
                    f"        rec[{name}] = out",
                ],
            )
        else:
            item.append(f"        rec[{name}] = decode(av)")
        written += [f"    value = get({name}, MISSING)", "    if value is not MISSING:"]
        written.append(
            f"        rec[{name}] = read_stored(value, {kind}, PLAN[{i}].ttl)"
            if kind
            else f"        rec[{name}] = value"
        )
        if field.default is not MISSING:
            for lines in (item, written):
                lines += ["    else:", f"        rec[{name}] = fresh(PLAN[{i}].default)"]
    namespace = {
        "MISSING": MISSING,
        "PLAN": plan,
        "decode": decoder.decode,
        "number": decoder.number,
        "fraction": decoder.fraction,
        "read_stored": _read_stored,
        "fresh": _fresh,
    }
    # an item of this model (or with no type attribute) has the tag OWN (as the default) or a value equal to it
    namespace["OWN"] = {"S": model}
    one = [
        "def read_one(other, raw):",
        f"    if raw.get({type_field!r}, OWN) != OWN:",
        "        return other(raw)",
        *item[1:],
        "    return rec",
    ]
    own = [
        "def read_own(raw):",
        f"    if raw.get({type_field!r}, OWN) != OWN:",
        "        return None",
        *item[1:],
        "    return rec",
    ]
    page = [
        "def read_items(raws, other):",
        "    page = []",
        "    append = page.append",
        "    for raw in raws:",
        f"        if raw.get({type_field!r}, OWN) != OWN:",
        "            other(raw, page)",
        "            continue",
        *("    " + line for line in item[1:]),
        "        append(rec)",
        "    return page",
    ]
    source = [*item, "    return rec", "", *written, "    return rec", "", *page, "", *one, "", *own]
    exec("\n".join(source), namespace)  # noqa: S102
    return (
        namespace["read_item"],
        namespace["read_written"],
        namespace["read_items"],
        namespace["read_one"],
        namespace["read_own"],
    )


#: the AttributeValue type a field of these types is stored as, taken as it is
_TAGS = {"string": "S", "boolean": "BOOL"}


def _expect(name: str, tag: str, then: list[str]) -> list[str]:
    """Lines of a generated reader: ``value`` is ``av[tag]`` and ``then`` runs, or ``av`` is of another type and
    the generic decoder reads it (a field's value written by another writer)."""
    return [
        "        try:",
        f"            value = av[{tag!r}]",
        "        except KeyError:",
        f"            rec[{name}] = decode(av)",
        "        else:",
        *("    " + line for line in then),
    ]


def _fresh(default: Any) -> Any:
    """A field's default as a result value: a copy when it is a container the caller could change."""
    return copy.deepcopy(default) if type(default) in (dict, list, set) else default


def _read_stored(value: Any, kind: int, ttl: Any) -> Any:
    """A stored value of a date field (``kind`` 1) or a binary field kept as base64 text, as the caller gets it."""
    if kind == 1:
        return read_date(value, ttl)
    if isinstance(value, str):
        try:
            return base64.b64decode(value)
        except ValueError:
            pass
    return value
