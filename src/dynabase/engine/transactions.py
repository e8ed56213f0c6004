"""TransactWriteItems and TransactGetItems: all-or-nothing, with cancellation reasons and idempotency tokens.

TransactWriteItems checks a request in DynamoDB Local's order:

1. the whole request, action by action: the action's kind, its expressions and placeholders, its attribute
   values, the size of a Put's item and Local's limit on an update's size -- any problem fails the request;
2. then action by action against the transaction's own view, in which earlier actions' writes are visible:
   the table; the key (and a Put's index keys); the condition; an update of a key attribute; the update's
   result; the one-item rule (an action that failed does not count). A failed condition and the problems in
   ``_REASONS`` become the action's cancellation reason, an update of a key attribute cancels the transaction
   with that single reason, and every other problem fails the request at once.

When no action failed, the writes are applied in one SQLite transaction.
"""

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
from ..types import validate_item
from .capacity import Consumed, check_mode, read_units, tables_collection_metrics
from .items import (
    ITEM_TOO_BIG_UPDATE,
    Row,
    bind_condition,
    bind_projection,
    bind_update,
    check_not_key,
    check_scalar_keys,
    checked_item,
    placeholders,
    read_row,
    sized_item,
    write_row,
)
from .schema import HASH_KEY_TOO_BIG, RANGE_KEY_TOO_BIG

if TYPE_CHECKING:
    from .engine import Engine
    from .schema import Table

MAX_ACTIONS = 100
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024
MAX_TOKEN_LENGTH = 36
TOKEN_SECONDS = 600
#: what Local bills a transactional delete of a missing item, before the doubling (1 unit in all, not 2)
MISSING_DELETE_UNITS = 0.5
_ACTIONS = ("ConditionCheck", "Put", "Delete", "Update")
_TYPE_MISMATCH = "One or more parameter values were invalid: Type mismatch for key"
_KEY_COUNT = "The number of conditions on the keys is invalid"
_MISSING_KEY = "One of the required keys was not given a value"
#: the problems of a write action that Local reports as its ValidationError cancellation reason
_REASONS = {
    _TYPE_MISMATCH,
    HASH_KEY_TOO_BIG,
    RANGE_KEY_TOO_BIG,
    "One or more parameter values were invalid: Type mismatch for Index Key",
    ITEM_TOO_BIG_UPDATE,
}
#: a TransactGetItems key of the wrong shape (an attribute missing, or one too many): AWS cancels the
#: transaction with a ValidationError reason for that action (Local: a cancellation with no reasons); the
#: reason's message is not established, so it is Local's text
_GET_KEY_SHAPE = {_KEY_COUNT, _MISSING_KEY}
TOKENS_SCHEMA = """
CREATE TABLE IF NOT EXISTS dynabase_tokens (
    token TEXT PRIMARY KEY, digest TEXT NOT NULL, response TEXT NOT NULL, created REAL NOT NULL
)
"""


class _Reason(Exception):
    """An action's cancellation reason."""

    def __init__(self, code: str, message: str, item: dict | None = None) -> None:
        self.code, self.message, self.item = code, message, item
        #: the failed action's item (table, pk, sk), for a condition failure returning the item
        self.ident: tuple | None = None

    def response(self) -> dict:
        out: dict[str, Any] = {} if self.item is None else {"Item": self.item}
        return {**out, "Code": self.code, "Message": self.message}


def _canceled(message: str, **extra: Any) -> TransactionCanceledException:
    """The error, with its modeled ``Message`` member as Local sends it."""
    return TransactionCanceledException(message, Message=message, **extra)


def _cancel(reasons: list[dict]) -> TransactionCanceledException:
    codes = ", ".join(r["Code"] for r in reasons)
    message = f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
    return _canceled(message, CancellationReasons=reasons)


def _check_actions(items: Any) -> list:
    if not isinstance(items, list) or not items:
        raise ValidationException(
            "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: "
            "Member must have length greater than or equal to 1"
        )
    if len(items) > MAX_ACTIONS:
        raise ValidationException(f"Member must have length less than or equal to {MAX_ACTIONS}")
    return items


def _check_token(token: Any) -> None:
    if token is None:
        return
    if not isinstance(token, str) or not token:  # Local takes an empty token; the API (and boto3) do not
        raise ValidationException(
            f"1 validation error detected: Value '{token}' at 'clientRequestToken' failed to satisfy constraint: "
            "Member must have length greater than or equal to 1"
        )
    if len(token) > MAX_TOKEN_LENGTH:
        raise ValidationException(
            f"Value {token} at 'clientRequestToken' failed to satisfy constraint: Member must have length less "
            f"than or equal to {MAX_TOKEN_LENGTH}"
        )


def _kind(spec: Any) -> str:
    kinds = [k for k in _ACTIONS if isinstance(spec, dict) and spec.get(k) is not None]  # null: absent
    if not kinds:
        raise ValidationException(
            "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
        )
    if len(kinds) > 1:
        raise ValidationException("TransactItems can only contain one of Check, Put, Update or Delete")
    return kinds[0]


class _Action:
    """One TransactWriteItems action: checked on its own first, then evaluated in order by :class:`_Run`."""

    def __init__(self, kind: str, spec: dict) -> None:
        self.kind, self.spec = kind, spec
        # Local takes any value here; only ALL_OLD returns the item
        self.return_old = spec.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
        ph = placeholders(spec)
        if kind == "Update" and spec.get("UpdateExpression") is None:
            raise ValidationException(
                "1 validation error detected: Value null at 'transactItems.member.update.updateExpression' "
                "failed to satisfy constraint: Member must not be null"
            )
        if kind == "ConditionCheck" and spec.get("ConditionExpression") is None:
            raise ValidationException(
                "1 validation error detected: Value null at 'transactItems.member.conditionCheck.conditionExpression' "
                "failed to satisfy constraint: Member must not be null"
            )
        self.update = bind_update(spec, ph)
        self.condition = bind_condition(spec, ph)
        ph.check_unused()
        self.item: dict | None = None
        self.size = 0
        if kind == "Put":
            self.item, self.size = sized_item(spec.get("Item"))
        else:
            self.key = validate_item(spec.get("Key") or {})
        # set when evaluated
        self.table: Table
        self.row: Row
        self.old: dict | None = None
        self.old_size = 0

    @property
    def writes(self) -> bool:
        return self.kind != "ConditionCheck"

    def locate(self, engine: Engine) -> tuple:
        """Find the action's table and row; its identity for the one-item rule."""
        self.table = engine.catalog.get(self.spec.get("TableName"))
        if self.kind == "Put":
            item = self.item
            assert item is not None  # a Put's item, set in __init__
            self.row = Row(self.table, item, what="item")
            self.table.check_index_keys(item)
        else:
            self.row = Row(self.table, self.key)
        if self.condition is not None and self.kind != "ConditionCheck":
            check_scalar_keys(self.table, self.condition.paths)
        return (self.table.name, self.row.pk, self.row.sk)

    def one_item_ident(self) -> tuple:
        """The item as DynamoDB Local tells a transaction's items apart for the one-item rule: by its key values'
        text, a Put's as stored (numbers in normal form) but the other actions' Key as written -- so ``10`` and
        ``1E+1`` in two Keys (or ``1E+1`` in a Key and in a Put's item) are two items to the rule, though one in
        the table, and the actions then apply one after the other."""
        raw = self.spec.get("Key") if self.kind != "Put" else None
        key = self.item if self.kind == "Put" else self.key
        assert key is not None  # a Put's item, set in __init__
        ident: list = [self.table.name]
        for name in self.table.keys.names:
            ((kind, inner),) = key[name].items()
            if kind == "N" and raw is not None:
                inner = raw[name]["N"]
            ident.append((kind, inner))
        return tuple(ident)

    def check_condition(self, current: dict | None) -> None:
        if self.condition is not None and not self.condition.evaluate(current or {}):
            message = "The conditional request failed" + ("." if self.kind == "ConditionCheck" else "")
            raise _Reason("ConditionalCheckFailed", message, current if self.return_old else None)

    def check_key_update(self) -> None:
        """An update of a key attribute cancels the whole transaction with this one reason."""
        if self.update is None:
            return
        try:
            check_not_key(self.table, self.update.paths)
        except ValidationException as error:
            raise _cancel([_Reason("ValidationError", error.message).response()]) from None

    def result(self, current: dict | None) -> dict | None:
        """The item after this action (``current`` is the item as the transaction sees it)."""
        if self.kind == "ConditionCheck":
            return current
        if self.kind == "Update":
            update = self.update
            assert update is not None  # __init__ refused an Update without an UpdateExpression
            check_scalar_keys(self.table, update.updated_paths + update.read_paths)
            base = current if current is not None else dict(self.key)
            self.item, self.size = checked_item(self.table, update.apply(base), updating=True)
        return self.item

    def bill(self, consumed: dict[str, Consumed]) -> None:
        """Add the action's units (before the doubling of transactional units)."""
        units = consumed.setdefault(self.table.name, Consumed(self.table))
        if not self.writes:
            units.table_units += 1.0
        elif self.old is None and self.item is None:
            units.table_units += MISSING_DELETE_UNITS
        else:
            units.add_write(self.old, self.item, self.old_size, self.size)


_ONE_ITEM = "Transaction request cannot include multiple operations on one item"


def _check_one_item_rule(engine: Engine, actions: list[_Action]) -> None:
    seen = set()
    for action in actions:
        try:
            ident = action.locate(engine)
        except ValidationException:
            continue  # the action's key problem is reported when it is evaluated
        if ident in seen:
            raise ValidationException(_ONE_ITEM)
        seen.add(ident)


class _Run:
    """One evaluation of a transaction's actions, in order, against its own view of the items."""

    def __init__(self, engine: Engine, conn: Any) -> None:
        self.engine, self.conn = engine, conn
        self.view: dict[tuple, dict | None] = {}  # the items the earlier actions touched, as they left them
        self.sizes: dict[tuple, int] = {}  # and their sizes
        self.seen: set[tuple] = set()  # the items of the earlier actions that passed, for the one-item rule

    def evaluate(self, action: _Action) -> None:
        """Raise the action's cancellation reason, or record what it writes."""
        try:
            ident = action.locate(self.engine)
            touched = ident in self.view
            current, size = (
                (self.view[ident], self.sizes[ident])
                if touched
                else read_row(self.conn, action.table, action.row)
            )
            try:
                action.check_condition(current)
            except _Reason as reason:
                reason.ident = ident if action.return_old else None
                raise
            action.check_key_update()
            new = action.result(current)
        except ValidationException as error:
            if error.message in _REASONS:
                raise _Reason("ValidationError", error.message)
            raise
        one_item = action.one_item_ident()
        if one_item in self.seen:
            raise ValidationException(_ONE_ITEM)
        self.seen.add(one_item)
        self.view[ident] = new
        self.sizes[ident] = size if not action.writes else action.size if new is not None else 0
        action.old, action.old_size = current, size

    def reasons(self, actions: list[_Action]) -> list[dict] | None:
        """Every action's cancellation reason (``{"Code": "None"}`` for those that passed); None when all passed.

        A failed condition's ``Item`` (ReturnValuesOnConditionCheckFailure ALL_OLD) is read as DynamoDB Local
        reads it: once every action was evaluated, so it shows the writes of the actions that passed, later
        ones included (a later action on the same item does not break the one-item rule when this one failed).
        """
        outcomes: list[_Reason | None] = []
        for action in actions:
            try:
                self.evaluate(action)
                outcomes.append(None)
            except _Reason as reason:
                outcomes.append(reason)
        if all(reason is None for reason in outcomes):
            return None
        reasons = []
        for outcome in outcomes:
            if outcome is None:
                reasons.append({"Code": "None"})
                continue
            if outcome.ident is not None and outcome.ident in self.view:
                outcome.item = self.view[outcome.ident]
            reasons.append(outcome.response())
        return reasons


def transact_write_items(engine: Engine, req: dict) -> dict:
    _check_token(req.get("ClientRequestToken"))
    return _write_transaction(engine, req, one_item_rule_first=False)


def partiql_write_transaction(engine: Engine, req: dict) -> dict:
    """The writes of PartiQL's ExecuteTransaction, as TransactWriteItems actions: there Local checks the one-item
    rule before any condition, and takes a ClientRequestToken of any length."""
    return _write_transaction(engine, req, one_item_rule_first=True)


def _check_payload(actions: list[_Action]) -> None:
    """Refuse a transaction whose items add up to more than 4 MB, as DynamoDB Local words it: the total counted
    up to the first item that crosses the limit (AWS's words could not be established)."""
    total = 0
    for action in actions:
        total += action.size
        if total > MAX_TRANSACTION_BYTES:
            raise ValidationException(f"Transaction payload size cannot exceed 4MB. Payload Size: {total}")


def _write_transaction(engine: Engine, req: dict, one_item_rule_first: bool) -> dict:
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    token = req.get("ClientRequestToken")
    actions = []
    for spec in _check_actions(req.get("TransactItems")):
        kind = _kind(spec)
        actions.append(_Action(kind, spec[kind]))
    _check_payload(actions)
    if one_item_rule_first:
        _check_one_item_rule(engine, actions)
    digest = hashlib.sha256(json.dumps(_digestable(req), sort_keys=True, default=repr).encode()).hexdigest()
    with engine.storage.write() as conn:
        if token is not None:
            replayed = _replay(conn, token, digest)
            if replayed is not None:
                return _capacity_response(replayed, mode)
        reasons = _Run(engine, conn).reasons(actions)
        if reasons is not None:
            raise _cancel(reasons)
        consumed: dict[str, Consumed] = {}
        for action in actions:
            if action.writes:  # ``item`` is what the action leaves: the new item, or None for a delete
                write_row(engine, conn, action.table, action.row, action.old, action.item, action.size)
            action.bill(consumed)
        metrics = {}
        if req.get("ReturnItemCollectionMetrics") == "SIZE":
            written = [(a.table, a.row.h, a.row.pk, a.item or a.old) for a in actions if a.writes]
            metrics = tables_collection_metrics(conn, written)
        for units in consumed.values():
            units.scale(2)  # transactional writes and checks cost twice the units
        capacity = [units.response("INDEXES") for units in consumed.values()]
        if token is not None:
            conn.execute(
                "INSERT INTO dynabase_tokens (token, digest, response, created) VALUES (?, ?, ?, ?)",
                (token, digest, json.dumps(capacity), time.time()),
            )
    out = _capacity_response(capacity, mode)
    if metrics:
        out["ItemCollectionMetrics"] = metrics
    return out


def _replay(conn: Any, token: str, digest: str) -> list[dict] | None:
    """The capacity of the transaction this token already ran (None when it is new)."""
    conn.execute(TOKENS_SCHEMA)
    conn.execute("DELETE FROM dynabase_tokens WHERE created < ?", (time.time() - TOKEN_SECONDS,))
    found = conn.execute("SELECT digest, response FROM dynabase_tokens WHERE token = ?", (token,)).fetchone()
    if found is None:
        return None
    if found[0] != digest:
        raise IdempotentParameterMismatchException("", Message="")
    return json.loads(found[1])


def _capacity_response(capacity: list[dict], mode: str) -> dict:
    """The response for ``mode``, from the INDEXES form of the capacity (a replay answers in its own mode)."""
    if mode == "NONE":
        return {}
    if mode == "TOTAL":
        capacity = [{"TableName": c["TableName"], "CapacityUnits": c["CapacityUnits"]} for c in capacity]
    return {"ConsumedCapacity": capacity}


def _digestable(req: dict) -> dict:
    return {
        k: v for k, v in req.items() if k not in ("ReturnConsumedCapacity", "ReturnItemCollectionMetrics")
    }


def _get_row(table: Table, key: Any, position: int, count: int) -> Row:
    """The row of the ``position``-th of ``count`` gets; a key of the wrong shape cancels the transaction."""
    try:
        return Row(table, validate_item(key or {}))
    except ValidationException as error:
        if error.message in _GET_KEY_SHAPE:
            reasons = [{"Code": "None"}] * count
            reasons[position] = {"Code": "ValidationError", "Message": error.message}
            raise _cancel(reasons)
        if error.message == _TYPE_MISMATCH:  # Local's reason-less cancellation (AWS's not established)
            raise _canceled(error.message)
        raise


def transact_get_items(engine: Engine, req: dict) -> dict:
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    specs = _check_actions(req.get("TransactItems"))
    plans = []
    seen = set()
    for position, spec in enumerate(specs):
        get = spec.get("Get") if isinstance(spec, dict) else None
        if get is None:
            raise ValidationException("1 validation error detected: TransactGetItem must contain Get")
        table = engine.catalog.get(get.get("TableName"))
        ph = placeholders(get)
        projection = bind_projection(get, ph)
        ph.check_unused()
        if projection is not None:  # before the key, as Local checks them
            check_scalar_keys(table, projection.paths)
        row = _get_row(table, get.get("Key"), position, len(specs))
        if (table.name, row.pk, row.sk) in seen:
            raise ValidationException(_ONE_ITEM)
        seen.add((table.name, row.pk, row.sk))
        plans.append((table, row, projection))
    responses = []
    consumed: dict[str, Consumed] = {}
    with engine.storage.reading(snapshot=True) as conn:
        for table, row, projection in plans:
            item, size = read_row(conn, table, row)
            responses.append(
                {"Item": projection.apply(item) if projection else item} if item is not None else {}
            )
            c = consumed.setdefault(table.name, Consumed(table))
            c.table_units += 2 * max(1.0, read_units(size, True))
    out: dict[str, Any] = {}
    if mode != "NONE":
        out["ConsumedCapacity"] = [c.response(mode, "Read") for c in consumed.values()]
    out["Responses"] = responses
    return out
