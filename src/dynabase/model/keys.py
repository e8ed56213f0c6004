"""Key plans: a model's primary key built straight from properties when its key fields allow (used by ``get``)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ..clock import DELETED_ATTR
from .codec import encode

#: params a get by key takes without the general pipeline
GET_PARAMS = frozenset(("consistent",))
#: what :meth:`KeyPath._get_by_key` returns when the call needs the general path
GENERAL: Any = object()


class KeyPath:
    """The direct key building of a Model."""

    def _compile_keys(self) -> None:
        """The primary key fields, when every one is a plain string or number field (its template, if any, over
        untemplated fields): ``get`` then builds the key without the general pipeline."""
        keys = []
        templated = {name for name, f in self.fields.items() if f.value}
        for att in (self.primary.hash, self.primary.sort):
            if att is None:
                continue
            field = next((f for f in self.fields.values() if f.attribute == (att,)), None)
            if (
                field is None
                or field.crypt
                or field.encode
                or field.value is True
                or field.type not in ("string", "number")
                or (field.template is not None and any(root in templated for root in field.template.roots))
            ):
                self._key_fields = None
                return
            render = field.template.renderer if field.template is not None else None
            keys.append((field.name, att, render, field.iso_dates, field.type == "string"))
        self._key_reads_type = any(
            self.type_field in field.template.roots
            for field in self.fields.values()
            if field.template is not None
        )
        self._key_fields = keys if not self.spec.generic else None

    def _get_by_key(self, properties: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        """``get`` by the primary key built from ``properties``: the item read through the compiled reader, None
        when there is none, or :data:`GENERAL` when the call needs the general path."""
        table = self.table
        if table.context or table.transform is not None or table.hidden:
            return GENERAL
        key = self._fast_key(properties)
        if key is None:
            return GENERAL
        cmd = {
            "TableName": table.name,
            "Key": key,
            "ConsistentRead": bool(params.get("consistent")),
        }
        raw = table.execute(self.name, "get", "get_item", cmd, params).get("Item")
        if not raw or DELETED_ATTR in raw:  # none, or a sync tombstone
            return None
        tag = raw.get(self.type_field)
        if self._reader is not None and (tag is None or tag.get("S") == self.name):
            return self._reader(raw)
        items = self._read_raw_items("get", [raw], {"parse": True})
        return items[0] if items else None

    def _fast_key(self, properties: Mapping[str, Any]) -> dict[str, Any] | None:
        """The primary key (attribute -> AttributeValue), or None when the general path must build it."""
        key: dict[str, Any] = {}
        values = None
        for name, att, render, iso_dates, string in self._key_fields:  # type: ignore[union-attr]
            value = properties.get(name)
            if value is None and render is not None:
                if values is None:
                    values = properties
                    if self._key_reads_type:
                        values = {**properties, self.type_field: self.name}
                try:
                    value = render(values, iso_dates)
                except ValueError:
                    return None
            kind = type(value)
            if kind is str and string:
                key[att] = {"S": value}
            elif (kind is int or kind is Decimal or kind is float) and not string:
                key[att] = encode(value)
            else:
                return None
        return key
