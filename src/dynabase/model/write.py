"""Stored forms: a field's value as it is written (dates, numbers, booleans, binary, sets, crypt), and the
operands of ``set`` / ``add`` / ``delete`` updates.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from .base import ModelBase
from .errors import (
    OneTableArgError,
    ValidationError,
)
from .spec import FieldSpec
from .values import js_str, write_date

#: values _nested_write leaves as they are without a closer look
_SCALARS = frozenset((str, int, float, bool, Decimal, type(None)))
_FALSE_STRINGS = frozenset(("false", "null", "undefined"))


class WritePath(ModelBase):
    """How a Model converts values to their stored forms."""

    def _transform_properties(
        self,
        op: str,
        path: str,
        fields: dict[str, FieldSpec],
        properties: dict[str, Any],
        p: Mapping[str, Any],
        rec: dict[str, Any],
    ) -> None:
        for name, field in fields.items():
            if field.fields is not None or name not in rec:
                continue
            rec[name] = self._write_value(op, path, field, rec[name], properties, p)

    def _bad(self, path: str, field: FieldSpec, value: Any, why: str = "") -> ValidationError:
        name = self._path(path, field.name)
        detail = why or f'Invalid value {value!r} for {field.type} field "{name}"'
        return ValidationError(model=self.name, fields={name: detail})

    def _write_value(
        self,
        op: str,
        path: str,
        field: FieldSpec,
        value: Any,
        properties: Mapping[str, Any],
        p: Mapping[str, Any],
    ) -> Any:
        kind = field.type
        if not field.crypt:
            vtype = type(value)
            if vtype is str:
                if kind == "string":
                    return value
            elif vtype is int or vtype is Decimal:
                if kind == "number":
                    return value
            elif vtype is bool and kind == "boolean":
                return value
        transform = p.get("transform")
        if callable(transform):
            value = transform(self, "write", field.name, value, properties)
        elif value is None and field.nulls:
            return None
        elif op == "find" and isinstance(value, dict):
            value = self._nested_write(field, value)  # sort-key operators ({"begins": ...})
        elif kind == "string":
            if isinstance(value, (dict, list, tuple, set, frozenset, bytes, bytearray)):
                raise self._bad(path, field, value)
            if isinstance(value, datetime):
                value = write_date(value, field.iso_dates)
            value = js_str(value)
        elif kind == "number":
            value = self._to_number(path, field, value)
        elif kind == "date":
            try:
                value = write_date(value, field.iso_dates, field.ttl)
            except (ValueError, TypeError, OverflowError) as error:
                raise self._bad(
                    path, field, value, f'Invalid date {value!r} for "{field.name}": {error}'
                ) from None
        elif kind == "boolean":
            if isinstance(value, str):
                value = value not in _FALSE_STRINGS and value != ""
            elif isinstance(value, (dict, list, tuple, set)):
                raise self._bad(path, field, value)
            else:
                value = bool(value)
        elif kind == "binary":
            if isinstance(value, (bytes, bytearray, memoryview)):
                value = base64.b64encode(bytes(value)).decode("ascii")
            elif not isinstance(value, str):
                raise self._bad(path, field, value)
        elif kind == "array":
            if isinstance(value, (list, tuple)):
                value = self._nested_write(field, list(value))
            elif value == "":
                value = []
            else:  # OneTable treats a non-list for an array field as a wrong call, not a validation failure
                raise OneTableArgError(
                    f'Invalid data type for array field "{path or field.name}" in model "{self.name}"'
                )
        elif kind == "set":
            value = self._to_set(path, field, value)
        elif kind == "object":
            if isinstance(value, Mapping):
                value = self._nested_write(field, dict(value))
            else:
                raise self._bad(path, field, value)
        if field.crypt and value is not None:
            value = self.table.crypto.encrypt(value if isinstance(value, str) else js_str(value))
        return value

    def _to_number(self, path: str, field: FieldSpec, value: Any) -> Any:
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, (int, Decimal)):
            return value
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise self._bad(path, field, value)
            return value
        if isinstance(value, str):
            text = value.strip()
            try:
                if text and text.lstrip("+-").isdigit():
                    return int(text)
                number = Decimal(text)
                if number.is_finite():
                    return number
            except (InvalidOperation, ValueError):
                pass
        raise self._bad(path, field, value)

    def _to_set(self, path: str, field: FieldSpec, value: Any) -> Any:
        if isinstance(value, (set, frozenset)):
            items = value
        elif isinstance(value, (list, tuple)):
            try:
                items = set(value)
            except TypeError:  # a list or map inside: not a set DynamoDB can store
                raise self._bad(
                    path, field, value, f'Set "{field.name}" must hold only strings, numbers or bytes'
                )
        else:
            raise self._bad(path, field, value)
        if all(isinstance(v, str) for v in items):
            return set(items)
        if all(isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in items):
            return set(items)
        if all(isinstance(v, (bytes, bytearray, memoryview)) for v in items):
            return {bytes(v) for v in items}
        raise self._bad(path, field, value, f'Set "{field.name}" must hold only strings, numbers or bytes')

    def _nested_write(self, field: FieldSpec, value: Any) -> Any:
        """A copy of a plain object/array (dicts and lists copied at every depth, other values shared) with the
        dates inside in the table's date format (OneTable's transformNestedWriteFields)."""
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if type(item) in _SCALARS:
                    out[key] = item
                elif isinstance(item, (datetime, date)):
                    out[key] = write_date(item, field.iso_dates)
                elif isinstance(item, (dict, list)):
                    out[key] = self._nested_write(field, item)
                else:
                    out[key] = item
            return out
        if isinstance(value, list):
            items = []
            for item in value:
                if type(item) in _SCALARS:
                    items.append(item)
                elif isinstance(item, (datetime, date)):
                    items.append(write_date(item, field.iso_dates))
                elif isinstance(item, (dict, list)):
                    items.append(self._nested_write(field, item))
                else:
                    items.append(item)
            return items
        return value

    def update_operand(self, key: str, value: Any, kind: str) -> Any:
        """A value given to ``set`` / ``add`` / ``delete``: dates in the stored form, lists as sets for set ops."""
        field = self.fields.get(key.split(".")[0].split("[")[0])
        if isinstance(value, (datetime, date)):
            return write_date(
                value,
                field.iso_dates if field else self.table.params.iso_dates,
                field.ttl if field else False,
            )
        if kind in ("add", "delete") and isinstance(value, (list, tuple)):
            try:
                return set(value)
            except TypeError:  # a list of lists or maps: no DynamoDB set
                why = f'{kind}: "{key}" must be strings, numbers or bytes (a set), not {value!r}'
                raise ValidationError(why, model=self.name, fields={key: why}) from None
        if (
            kind == "set"
            and field is not None
            and field.fields is None
            and "." not in key
            and not isinstance(value, str)
        ):
            if field.type == "set" and isinstance(value, (list, tuple, set, frozenset)):
                return self._to_set("", field, value)
            if field.type == "binary" and isinstance(value, (bytes, bytearray)):
                return base64.b64encode(bytes(value)).decode("ascii")
        return value
