"""Drive the entity layer from data: a scenario is a schema and a list of steps, each
``(model, operation, properties, params)``.  Used to compare dynabase with OneTable item for item (a Node
script runs the same scenario through dynamodb-onetable against the same kind of table).

::

    result = run_scenario(client, schema, [
        ("User", "create", {"name": "Ann", "email": "ann@x.com"}, {}),
        ("User", "update", {"email": "ann@x.com", "age": 3}, {"set": {"n": "${n} + {1}"}}),
        ("User", "create", {"name": "Bob"}, {"transaction": "$t"}),
        (None, "transact", {"op": "write", "transaction": "$t"}, {}),
        ("User", "find", {"accountId": "acme"}, {"limit": 10}),
    ])
    result["results"]   # one JSON-ready entry per step: {"ok": value} or {"error": code, "message": ...}
    result["items"]     # every item in the table afterwards, as stored (AttributeValue form), sorted by key

Model operations: ``create get find scan update upsert remove check init``.  Table operations (model
``None``): ``transact`` (``{"op": "write"|"get", "transaction": "$name"}``), ``batch_get`` / ``batch_write``
(``{"batch": "$name"}``), ``fetch`` (``{"models": [...], "properties": {...}}``), ``save_schema``,
``set_context`` (``{"context": {...}, "merge": bool}``), ``clear_context``.  A param value ``"$name"`` for
``transaction`` or ``batch`` names a collector shared between steps.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from .errors import OneTableError
from .table import Table
from .values import iso_string

MODEL_OPS = ("create", "get", "find", "scan", "update", "upsert", "remove", "check", "init")


def jsonable(value: Any) -> Any:
    """Results as JSON values: datetimes as ISO strings, bytes as base64, sets as sorted lists, Decimals as
    numbers (int when integral)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=lambda v: (str(type(v)), v))
    if isinstance(value, datetime):
        return iso_string(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def table_items(table: Table) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": table.name, "ConsistentRead": True}
    while True:
        page = table.client.scan(**kwargs)
        items.extend(page["Items"])
        if "LastEvaluatedKey" not in page:
            break
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    primary = table.indexes["primary"]

    def key(item: dict[str, Any]) -> tuple:
        return tuple(
            str(next(iter(item.get(a, {"S": ""}).values()))) for a in (primary.hash, primary.sort) if a
        )

    return sorted(items, key=key)


def run_steps(table: Table, steps: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    collectors: dict[str, dict[str, Any]] = {}
    results = []
    for step in steps:
        model, op, props, params = (list(step) + [None, None, None, None])[:4]
        props = dict(props or {})
        params = dict(params or {})
        for name in ("transaction", "batch"):
            ref = params.get(name)
            if isinstance(ref, str) and ref.startswith("$"):
                params[name] = collectors.setdefault(ref, {})
        try:
            if model is not None:
                if op not in MODEL_OPS:
                    raise ValueError(f"unknown model operation {op!r}")
                value = getattr(table.model(model), op)(props, **params)
                if op in ("find", "scan"):
                    value = {
                        "items": list(value),
                        "next": value.next,
                        "prev": value.prev,
                        "count": value.count,
                    }
            else:
                value = _table_step(table, op, props, params, collectors)
            if isinstance(value, dict) and "TransactItems" in value:
                value = None
            results.append({"ok": jsonable(value)})
        except OneTableError as error:
            results.append({"error": error.code, "message": error.message})
        except Exception as error:  # noqa: BLE001 - a scenario records every outcome
            results.append({"error": type(error).__name__, "message": str(error)})
    return results


def _table_step(
    table: Table, op: str, props: dict[str, Any], params: dict[str, Any], collectors: dict
) -> Any:
    def collector(name: str) -> dict[str, Any]:
        ref = props.get(name)
        return collectors.setdefault(ref, {}) if isinstance(ref, str) else (ref or {})

    if op == "transact":
        return table.transact(props.get("op", "write"), collector("transaction"), **params)
    if op == "batch_get":
        return table.batch_get(collector("batch"), **params)
    if op == "batch_write":
        return table.batch_write(collector("batch"), **params)
    if op == "fetch":
        return table.fetch(props["models"], props.get("properties") or {}, **params)
    if op == "save_schema":
        table.save_schema(props.get("schema"))
        return None
    if op == "set_context":
        table.set_context(props.get("context"), merge=bool(props.get("merge")))
        return None
    if op == "clear_context":
        table.clear_context()
        return None
    raise ValueError(f"unknown table operation {op!r}")


def run_scenario(
    client: Any,
    schema: Any,
    steps: Iterable[Sequence[Any]],
    *,
    table_name: str | None = None,
    create_table: bool = True,
    **table_options: Any,
) -> dict[str, Any]:
    """Run ``steps`` on a (new) table; returns ``{"table": name, "results": [...], "items": [...]}``."""
    import uuid

    name = table_name or f"scenario-{uuid.uuid4().hex[:12]}"
    table = Table(name, client, schema, **table_options)
    if create_table:
        table.create_table()
    results = run_steps(table, steps)
    return {"table": name, "results": results, "items": table_items(table)}


__all__ = ["jsonable", "run_scenario", "run_steps", "table_items"]
