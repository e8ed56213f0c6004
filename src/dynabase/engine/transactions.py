"""TransactWriteItems and TransactGetItems: all-or-nothing, with cancellation reasons and idempotency tokens."""

from __future__ import annotations

import hashlib
import json
import time
from typing import TYPE_CHECKING, Any

from ..errors import (
    IdempotentParameterMismatchException,
    TransactionCanceledException,
    ValidationException,
)
from ..expressions import compile_update
from ..types import validate_item
from .capacity import Consumed, check_mode, read_units
from .items import (
    Row,
    bind_condition,
    bind_projection,
    check_on_failure,
    checked_item,
    placeholders,
    read_row,
    write_row,
)

if TYPE_CHECKING:
    from .engine import Engine

MAX_ACTIONS = 100
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024
TOKEN_SECONDS = 600
_ACTIONS = ("ConditionCheck", "Put", "Delete", "Update")
TOKENS_SCHEMA = """
CREATE TABLE IF NOT EXISTS dynabase_tokens (
    token TEXT PRIMARY KEY, digest TEXT NOT NULL, response TEXT NOT NULL, created REAL NOT NULL
)
"""


class _Failure(Exception):
    def __init__(self, code: str, message: str, item: dict | None = None) -> None:
        self.code, self.message, self.item = code, message, item


def _reason(code: str = "None", message: str | None = None, item: dict | None = None) -> dict:
    out: dict[str, Any] = {}
    if item is not None:
        out["Item"] = item
    out["Code"] = code
    if message is not None:
        out["Message"] = message
    return out


def _cancel(reasons: list[dict]) -> TransactionCanceledException:
    codes = ", ".join(r["Code"] for r in reasons)
    message = f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
    return TransactionCanceledException(message, CancellationReasons=reasons)


def _check_actions(items: Any) -> list:
    if not isinstance(items, list) or not items:
        raise ValidationException(
            "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: "
            "Member must have length greater than or equal to 1"
        )
    if len(items) > MAX_ACTIONS:
        raise ValidationException(
            f"1 validation error detected: Value '[{len(items)} items]' at 'transactItems' failed to satisfy "
            f"constraint: Member must have length less than or equal to {MAX_ACTIONS}"
        )
    return items


class _Action:
    """One prepared TransactWriteItems action."""

    def __init__(self, engine: Engine, kind: str, spec: dict) -> None:
        self.kind = kind
        self.table = engine.catalog.get(spec.get("TableName"))
        self.on_failure = check_on_failure(spec.get("ReturnValuesOnConditionCheckFailure"))
        ph = placeholders(spec)
        self.update = None
        if kind == "Update":
            if spec.get("UpdateExpression") is None:
                raise ValidationException(
                    "1 validation error detected: Value null at 'transactItems.member.update.updateExpression' failed to satisfy constraint: Member must not be null"
                )
            self.update = compile_update(spec["UpdateExpression"]).bind(ph)
        if kind == "ConditionCheck" and spec.get("ConditionExpression") is None:
            raise ValidationException(
                "1 validation error detected: Value null at 'transactItems.member.conditionCheck.conditionExpression' "
                "failed to satisfy constraint: Member must not be null"
            )
        self.condition = bind_condition(spec, ph)
        ph.check_unused()
        self.item: dict | None = None
        self.size = 0
        self.invalid: str | None = None
        try:
            if kind == "Put":
                self.item, self.size = checked_item(self.table, spec.get("Item"))
                self.row = Row(self.table, self.item, what="item")
            else:
                self.key = validate_item(spec.get("Key") or {})
                self.row = Row(self.table, self.key)
        except ValidationException as error:
            if "Item size" in error.message:
                raise
            self.invalid = error.message
            self.row = None  # type: ignore[assignment]
        if self.update is not None:
            for name in self.update.paths:
                if name in self.table.keys.names:
                    raise ValidationException(
                        f"One or more parameter values were invalid: Cannot update attribute {name}. "
                        "This attribute is part of the key"
                    )

    def evaluate(self, conn: Any) -> None:
        """Check the action against the current item; remember what to write."""
        if self.invalid is not None:
            raise _Failure("ValidationError", self.invalid)
        self.old, self.old_size = read_row(conn, self.table, self.row)
        if self.condition is not None and not self.condition.evaluate(self.old or {}):
            message = "The conditional request failed" + ("." if self.kind == "ConditionCheck" else "")
            item = self.old if self.on_failure == "ALL_OLD" else None
            raise _Failure("ConditionalCheckFailed", message, item)
        if self.kind == "Update":
            base = self.old if self.old is not None else dict(self.key)
            try:
                self.item, self.size = checked_item(self.table, self.update.apply(base), updating=True)
            except ValidationException as error:
                raise _Failure("ValidationError", error.message)

    def apply(self, engine: Engine, conn: Any) -> None:
        if self.kind == "ConditionCheck":
            return
        new = None if self.kind == "Delete" else self.item
        write_row(engine, conn, self.table, self.row, self.old, new, self.size)


def transact_write_items(engine: Engine, req: dict) -> dict:
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    specs = _check_actions(req.get("TransactItems"))
    token = req.get("ClientRequestToken")
    actions: list[_Action] = []
    for spec in specs:
        kinds = [k for k in _ACTIONS if isinstance(spec, dict) and k in spec]
        if len(kinds) != 1:
            raise ValidationException("TransactItems can only contain one of Check, Put, Update or Delete")
        actions.append(_Action(engine, kinds[0], spec[kinds[0]]))
    seen = set()
    total = 0
    for action in actions:
        if action.row is not None:
            ident = (action.table.name, action.row.pk, action.row.sk)
            if ident in seen:
                raise ValidationException(
                    "Transaction request cannot include multiple operations on one item"
                )
            seen.add(ident)
        total += action.size
    if total > MAX_TRANSACTION_BYTES:
        raise ValidationException("Transaction request size has exceeded the maximum allowed size")
    digest = hashlib.sha256(json.dumps(_digestable(req), sort_keys=True, default=repr).encode()).hexdigest()
    with engine.storage.write() as conn:
        if token is not None:
            conn.execute(TOKENS_SCHEMA)
            conn.execute("DELETE FROM dynabase_tokens WHERE created < ?", (time.time() - TOKEN_SECONDS,))
            found = conn.execute(
                "SELECT digest, response FROM dynabase_tokens WHERE token = ?", (token,)
            ).fetchone()
            if found is not None:
                if found[0] != digest:
                    raise IdempotentParameterMismatchException(
                        "Specified idempotent token was used with different request parameters within the idempotency window"
                    )
                return json.loads(found[1])
        reasons, failed = [], False
        for action in actions:
            try:
                action.evaluate(conn)
                reasons.append(_reason())
            except _Failure as failure:
                failed = True
                reasons.append(_reason(failure.code, failure.message, failure.item))
        if failed:
            raise _cancel(reasons)
        for action in actions:
            action.apply(engine, conn)
        out: dict[str, Any] = {}
        if mode != "NONE":
            consumed: dict[str, Consumed] = {}
            for action in actions:
                c = consumed.setdefault(action.table.name, Consumed(action.table))
                if action.kind == "ConditionCheck":
                    c.table_units += 1.0
                else:
                    new = None if action.kind == "Delete" else action.item
                    c.add_write(action.old, new, action.old_size, action.size)
            for c in consumed.values():
                c.scale(2)  # transactional writes and checks cost twice the units
            out["ConsumedCapacity"] = [c.response(mode) for c in consumed.values()]
        if token is not None:
            conn.execute(
                "INSERT INTO dynabase_tokens (token, digest, response, created) VALUES (?, ?, ?, ?)",
                (token, digest, json.dumps(out), time.time()),
            )
    return out


def _digestable(req: dict) -> dict:
    return {
        k: v for k, v in req.items() if k not in ("ReturnConsumedCapacity", "ReturnItemCollectionMetrics")
    }


def transact_get_items(engine: Engine, req: dict) -> dict:
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    specs = _check_actions(req.get("TransactItems"))
    plans = []
    seen = set()
    for spec in specs:
        get = spec.get("Get") if isinstance(spec, dict) else None
        if get is None:
            raise ValidationException("1 validation error detected: TransactGetItem must contain Get")
        table = engine.catalog.get(get.get("TableName"))
        ph = placeholders(get)
        projection = bind_projection(get, ph)
        ph.check_unused()
        row = Row(table, validate_item(get.get("Key") or {}))
        if (table.name, row.pk, row.sk) in seen:
            raise ValidationException("Transaction request cannot include multiple operations on one item")
        seen.add((table.name, row.pk, row.sk))
        plans.append((table, row, projection))
    responses = []
    consumed: dict[str, Consumed] = {}
    with engine.storage.read() as conn:
        for table, row, projection in plans:
            item, size = read_row(conn, table, row)
            responses.append(
                {"Item": projection.apply(item) if projection else item} if item is not None else {}
            )
            c = consumed.setdefault(table.name, Consumed(table))
            c.table_units += 2 * max(1.0, read_units(size, True))
    out: dict[str, Any] = {}
    if mode != "NONE":
        out["ConsumedCapacity"] = [c.response(mode) for c in consumed.values()]
    out["Responses"] = responses
    return out
