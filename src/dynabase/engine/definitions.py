"""CreateTable's key schema and index definitions checked in AWS's words and order, after the model's checks.

The texts and their order are the service's answers as architect/dynalite's suite records them (its tests run
against the service; ``validations/createTable.js`` and ``test/createTable.js``), confirmed where a newer capture
exists (paritysuite/dynamodb-conformance tests/tier3/validation-ordering/createTable.test.ts: a key schema naming
one attribute twice answers ``Invalid KeySchema: ...``). What these checks do not cover (multi-attribute GSI keys,
names over 255 bytes, projected attribute counts, attribute definitions no key uses when the table has indexes)
keeps the engine's own checks, in DynamoDB Local's words (:mod:`.catalog`).
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationException

_INVALID = "One or more parameter values were invalid: "
MAX_LSI = 5
MAX_GSI = 20


def check_definitions(req: dict[str, Any]) -> None:
    """Raise AWS's ValidationException for the first problem of a CreateTable's keys and indexes, in its order."""
    if not _well_formed(req):
        return  # members of the wrong type: the deserialiser's and the engine's own checks answer them
    defined = [d.get("AttributeName") for d in req.get("AttributeDefinitions") or []]
    if len(set(defined)) != len(defined):
        return  # an attribute defined twice: AWS's answer and order not established (the engine answers Local's)
    schema = req.get("KeySchema") or []
    keys = [k.get("AttributeName") for k in schema]
    if len(keys) > len(defined):
        raise ValidationException("Invalid KeySchema: Some index key attribute have no definition")
    _defined(keys, defined)
    _key_order(schema)
    lsis, gsis = req.get("LocalSecondaryIndexes"), req.get("GlobalSecondaryIndexes")
    if lsis is None and gsis is None and len(schema) != len(defined):
        raise ValidationException(
            f"{_INVALID}Number of attributes in KeySchema does not exactly match number of attributes defined in "
            "AttributeDefinitions"
        )
    names: set[str] = set()
    if lsis is not None:
        _local_indexes(lsis, schema, defined, names)
    if gsis is not None:
        _global_indexes(gsis, req.get("BillingMode"), defined, names)


def _well_formed(req: dict[str, Any]) -> bool:
    def dicts(value: Any) -> bool:
        return value is None or (isinstance(value, list) and all(isinstance(v, dict) for v in value))

    indexes = [*(req.get("LocalSecondaryIndexes") or []), *(req.get("GlobalSecondaryIndexes") or [])]
    return (
        all(dicts(req.get(m)) for m in ("AttributeDefinitions", "KeySchema"))
        and all(dicts(req.get(m)) for m in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"))
        and all(dicts(i.get("KeySchema")) and isinstance(i.get("Projection") or {}, dict) for i in indexes)
    )


def _defined(keys: list, defined: list) -> None:
    """Every key attribute defined; the service lists both lists last element first (dynalite's tests: keys
    ``c, d`` and definitions ``a, b`` read ``Keys: [d, c], AttributeDefinitions: [b, a]``)."""
    if any(key not in defined for key in keys):
        raise ValidationException(
            f"{_INVALID}Some index key attributes are not defined in AttributeDefinitions. Keys: "
            f"[{', '.join(map(str, reversed(keys)))}], AttributeDefinitions: [{', '.join(map(str, reversed(defined)))}]"
        )


def _key_order(schema: list) -> None:
    """A key schema of one or two elements: distinct names, the partition key first, the sort key second."""
    if len(schema) == 2 and schema[0].get("AttributeName") == schema[1].get("AttributeName"):
        raise ValidationException(
            "Both the Hash Key and the Range Key element in the KeySchema have the same name"
        )
    if schema and schema[0].get("KeyType") != "HASH":
        raise ValidationException("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    if len(schema) == 2 and schema[1].get("KeyType") != "RANGE":
        raise ValidationException("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")


def _classic(schema: list) -> bool:
    """A key schema of a partition key and at most one sort key (what architect/dynalite's suite covers), not a
    GSI's multi-attribute key (several partition or sort attributes, a later feature)."""
    types = [k.get("KeyType") for k in schema]
    return len(schema) <= 2 and types.count("HASH") <= 1 and types.count("RANGE") <= 1


def _projection(spec: dict) -> None:
    projection = spec.get("Projection") or {}
    kind = projection.get("ProjectionType")
    if kind is None:
        raise ValidationException(f"{_INVALID}Unknown ProjectionType: null")
    if projection.get("NonKeyAttributes") is not None and kind != "INCLUDE":
        raise ValidationException(f"{_INVALID}ProjectionType is {kind}, but NonKeyAttributes is specified")


def _unique(name: Any, names: set[str]) -> None:
    if name in names:
        raise ValidationException(f"{_INVALID}Duplicate index name: {name}")
    names.add(name)


def _local_indexes(lsis: list, schema: list, defined: list, names: set[str]) -> None:
    if not lsis:
        raise ValidationException(f"{_INVALID}List of LocalSecondaryIndexes is empty")
    if len(schema) != 2:
        raise ValidationException(
            f"{_INVALID}Table KeySchema does not have a range key, which is required when specifying a "
            "LocalSecondaryIndex"
        )
    table_hash = schema[0].get("AttributeName")
    for spec in lsis:
        index_schema = spec.get("KeySchema") or []
        if not _classic(index_schema):
            continue  # a multi-attribute key schema: the engine's checks, in Local's words (AWS's not established)
        _defined([k.get("AttributeName") for k in index_schema], defined)
        _key_order(index_schema)
        name = spec.get("IndexName")
        if len(index_schema) != 2:
            raise ValidationException(
                f"{_INVALID}Index KeySchema does not have a range key for index: {name}"
            )
        index_hash = index_schema[0].get("AttributeName")
        if index_hash != table_hash:
            raise ValidationException(
                f"{_INVALID}Index KeySchema does not have the same leading hash key as table KeySchema for index: "
                f"{name}. index hash key: {index_hash}, table hash key: {table_hash}"
            )
        _projection(spec)
        _unique(name, names)
    if len(lsis) > MAX_LSI:
        raise ValidationException(
            f"{_INVALID}Number of LocalSecondaryIndexes exceeds per-table limit of {MAX_LSI}"
        )


def _global_indexes(gsis: list, billing: Any, defined: list, names: set[str]) -> None:
    if not gsis:
        raise ValidationException(f"{_INVALID}List of GlobalSecondaryIndexes is empty")
    for spec in gsis:
        index_schema = spec.get("KeySchema") or []
        if _classic(
            index_schema
        ):  # (a multi-attribute key is the engine's to check: AWS's words not established)
            _defined([k.get("AttributeName") for k in index_schema], defined)
            _key_order(index_schema)
        _projection(spec)
        name = spec.get("IndexName")
        if billing == "PAY_PER_REQUEST" and spec.get("ProvisionedThroughput") is not None:
            raise ValidationException(
                f"{_INVALID}ProvisionedThroughput should not be specified for index: {name} when BillingMode is "
                "PAY_PER_REQUEST"
            )
        _unique(name, names)
    if len(gsis) > MAX_GSI:
        raise ValidationException(
            f"{_INVALID}GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GSI}"
        )
