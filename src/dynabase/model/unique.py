"""Unique fields: the ``_unique#`` sentinel items OneTable writes beside an item, in one transaction, so that
a second item with the same value of a ``unique`` field fails with :class:`~dynabase.model.errors.UniqueError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import ModelBase
from .codec import encode_item
from .errors import (
    NotFoundError,
    OneTableArgError,
    TransactionError,
    UniqueError,
)
from .spec import MISSING, FieldSpec
from .values import js_str

UNIQUE_MODEL = "_Unique"


class UniqueFields(ModelBase):
    """The unique-field paths of a Model: create, update and remove with their sentinels."""

    def _write_unique_transaction(
        self, transaction: Any, verb: str, properties: dict[str, Any], p: dict[str, Any]
    ) -> None:
        """Write an item with its unique sentinels; a sentinel that exists already is a UniqueError."""
        try:
            self.table.transact("write", transaction, log=p.get("log"))
        except TransactionError as error:
            if "ConditionalCheckFailed" in error.reasons:
                names = ", ".join(f.name for f in self.spec.unique_fields)
                raise UniqueError(
                    f'Cannot {verb} unique attributes "{names}" for "{self.name}". '
                    "An item of the same name already exists.",
                    properties=properties,
                    error=error.error,
                ) from error
            raise

    def _unique_key(self, field: FieldSpec, properties: dict[str, Any], p: dict[str, Any], value: Any) -> str:
        scope = ""
        if field.scope:
            rendered = self._render(field, field.scope, properties)
            if rendered is None:
                raise UniqueError(
                    f'Missing properties to resolve unique scope "{field.scope}" of "{self.name}.{field.name}"',
                    properties=properties,
                )
            scope = rendered + "#"
        attribute = ",".join(field.attribute)
        return f"_unique#{scope}{self.name}#{attribute}#{js_str(value)}"

    def _stored_sentinel(self, field: FieldSpec, values: dict[str, Any], p: dict[str, Any]) -> str | None:
        """The sentinel of ``field`` an item with ``values`` has, or None (no value, or a scope it cannot have
        been written with)."""
        value = values.get(field.name)
        if value is None:
            return None
        try:
            return self._unique_key(field, values, p, value)
        except UniqueError:
            return None

    def sentinel_items(self, item: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The ``_unique#`` sentinel items (wire format) that a stored item of this model (wire format) holds,
        as :meth:`create` writes them: what sync claims in the cloud with a pushed item and keeps on a device
        with a pulled one."""
        if not self.spec.unique_fields:
            return []
        read = self._read_raw_items("get", [dict(item)], {"hidden": True})
        if not read:
            return []
        properties = self._prepare("update", dict(read[0]), {"checked": True, "exists": True})
        sentinels = []
        for field in self.spec.unique_fields:
            pk = self._stored_sentinel(field, properties, {})
            if pk is not None:
                keys = self._unique_keys(pk)
                sentinels.append(encode_item({**keys, self.type_field: UNIQUE_MODEL}))
        return sentinels

    def _unique_keys(self, pk: str) -> dict[str, Any]:
        keys = {self.primary.hash: pk}
        if self.primary.sort:
            keys[self.primary.sort] = "_unique#"
        return keys

    def _create_unique(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        if p.get("batch") is not None:
            raise OneTableArgError("Cannot use batch with unique properties which require transactions")
        here = p.get("transaction") is None
        transaction = p["transaction"] = p["transaction"] if not here else {}
        now = self._timestamp(p)
        if p.get("timestamps") is not False:
            if self.timestamps is True or self.timestamps == "create":
                properties[self.created_field] = now
            if self.timestamps is True or self.timestamps == "update":
                properties[self.updated_field] = now
        properties = p["prepared"] = self._prepare("put", properties, p)
        unique = self.table.unique_model
        for field in self.spec.unique_fields:
            value = properties.get(field.name)
            if value is not None:
                pk = self._unique_key(field, properties, p, value)
                unique.create(self._unique_keys(pk), transaction=transaction, exists=False, return_="NONE")
        item = self._put_item(properties, p)
        if not here or p.get("execute") is False:
            return item if not here else transaction
        expression = p.get("expression")
        self._write_unique_transaction(transaction, "create", properties, p)
        return self._parse_response("put", expression, [])[0] if expression else item

    def _update_unique(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        if p.get("batch") is not None:
            raise OneTableArgError("Cannot use batch with unique properties which require transactions")
        here = p.get("transaction") is None
        transaction = p["transaction"] = {} if here else p["transaction"]
        primary = self.primary
        properties = p["prepared"] = self._prepare("update", properties, p)
        keys = {primary.hash: properties.get(primary.hash)}
        if primary.sort:
            keys[primary.sort] = properties.get(primary.sort)
        prior = self.get(keys, hidden=True, consistent=True)
        if prior is not None:
            prior = self._prepare("update", dict(prior), {"checked": True, "exists": True})
        elif p.get("exists", MISSING) is MISSING or p.get("exists") is True:
            raise NotFoundError(
                f'Cannot find existing item to update in "{self.name}"', properties=properties
            )
        unique = self.table.unique_model
        removing = p.get("remove") or []
        if isinstance(removing, str):
            removing = [removing]
        # the item's top-level values after the update: a property both given and removed is removed (the update
        # expression skips the value given)
        after = {**(prior or {}), **properties}
        for name in removing:
            after.pop(name, None)
        for field in self.spec.unique_fields:
            # each sentinel as the item has it and as it will have it, its scope included: a change of the
            # scope moves the sentinel as a change of the value does (OneTable moves it only for the value, and
            # leaves one that guards the old scope)
            old_pk = self._stored_sentinel(field, prior, p) if prior is not None else None
            new = after.get(field.name)
            new_pk = self._unique_key(field, after, p, new) if new is not None else None
            if old_pk == new_pk:
                continue
            if old_pk is not None:
                unique.remove(self._unique_keys(old_pk), transaction=transaction, exists=None)
            if new_pk is not None:
                unique.create(
                    self._unique_keys(new_pk), transaction=transaction, exists=False, return_="NONE"
                )
        item = self._update_item(properties, p)
        if not here or p.get("execute") is False:
            return item if not here else transaction
        self._write_unique_transaction(transaction, "update", properties, p)
        returns = p.get("return_")
        if returns is False or returns in ("none", "NONE"):
            return None
        # OneTable returns nothing here (a transaction cannot return the item); we read it back
        return self.get(keys, hidden=p.get("hidden"), consistent=True)

    def _remove_unique(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        here = p.get("transaction") is None
        transaction = p["transaction"] = {} if here else p["transaction"]
        primary = self.primary
        keys = {primary.hash: properties.get(primary.hash)}
        if primary.sort:
            keys[primary.sort] = properties.get(primary.sort)
        prior = self.get(keys, hidden=True, consistent=True)
        if prior is None and p.get("exists") is True:
            raise NotFoundError(
                f'Cannot find existing item to remove from "{self.name}"', properties=properties
            )
        # the sentinels of the item as stored: with no item there are none to remove. (OneTable removes those
        # of the values given even then; such a sentinel is another item's, and removing it would let a second
        # item take that item's value.)
        if prior is not None:
            prior_props = self._prepare("update", dict(prior), {"checked": True, "exists": True})
            unique = self.table.unique_model
            for field in self.spec.unique_fields:
                value = prior_props.get(field.name)
                if value is not None:
                    pk = self._unique_key(field, prior_props, p, value)
                    unique.remove(self._unique_keys(pk), transaction=transaction, exists=p.get("exists"))
        p["prepared"] = True
        self._delete_item(properties, p)
        if not here or p.get("execute") is False:
            return prior if not here else transaction
        self.table.transact("write", transaction, log=p.get("log"))
        if prior is not None and not p.get("hidden"):
            prior = self._strip_hidden(prior)
        return prior
