"""Key plans: a model's primary key built straight from properties when its key fields allow (used by ``get``)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any


class KeyPath:
    """The direct key building of a Model."""

    def _fast_key(self, properties: Mapping[str, Any]) -> dict[str, Any] | None:
        key: dict[str, Any] = {}
        values = None
        for field, att in self._key_fields:  # type: ignore[union-attr]
            value = properties.get(field.name)
            if value is None and field.template is not None:
                if values is None:
                    values = dict(properties)
                    values[self.type_field] = self.name
                try:
                    value = field.template.render(values, iso_dates=field.iso_dates)
                except ValueError:
                    return None
            if value is None:
                return None
            kind = type(value)
            if field.type == "string":
                if kind is not str:
                    return None
            elif kind not in (int, Decimal, float):
                return None
            key[att] = value
        return key
