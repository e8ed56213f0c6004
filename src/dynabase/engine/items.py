"""Single-item operations: PutItem, GetItem, UpdateItem, DeleteItem, and the write path they share."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..errors import ConditionalCheckFailedException, ValidationException
from ..expressions import (
    BoundUpdate,
    Placeholders,
    Update,
    ast,
    compile_condition,
    compile_projection,
    compile_update,
)
from ..types import MAX_ITEM_SIZE, attribute_size, item_size, validate_item, validate_sized_item, value_size
from .capacity import Consumed, check_mode, collection_metrics, read_units
from .catalog import CatalogChanged
from .schema import Table
from .storage import (
    body_of,
    delete_row,
    dump_body,
    insert_row,
    item_sql,
    partition_hash,
    rewrite_row,
)

if TYPE_CHECKING:
    from .engine import Engine

_ITEM_TOO_BIG = "Item size has exceeded the maximum allowed size"
ITEM_TOO_BIG_UPDATE = "Item size to update has exceeded the maximum allowed size"


# -- request helpers -----------------------------------------------------------------------------------------


_EXPRESSION_FIELDS = (
    "UpdateExpression",
    "ConditionExpression",
    "KeyConditionExpression",
    "FilterExpression",
    "ProjectionExpression",
)
_VALUE_FIELDS = ("UpdateExpression", "ConditionExpression", "KeyConditionExpression", "FilterExpression")


def placeholders(req: dict, value_fields: tuple[str, ...] = ()) -> Placeholders:
    """The request's placeholders; DynamoDB refuses them when the request has no expression to use them in.

    ``value_fields`` names the operation's expressions that can use values, for the error message.
    """
    names, values = req.get("ExpressionAttributeNames"), req.get("ExpressionAttributeValues")
    if names is not None and not any(req.get(f) is not None for f in _EXPRESSION_FIELDS):
        raise ValidationException("ExpressionAttributeNames can only be specified when using expressions")
    if values is not None and value_fields and not any(req.get(f) is not None for f in _VALUE_FIELDS):
        missing = " and ".join(value_fields)
        verb = "are" if len(value_fields) > 1 else "is"
        raise ValidationException(
            f"ExpressionAttributeValues can only be specified when using expressions: {missing} {verb} null"
        )
    return Placeholders(names, values)


def bind_condition(req: dict, ph: Placeholders, field: str = "ConditionExpression"):
    text = req.get(field)
    if text is None:
        return None
    return compile_condition(text, field).bind(ph)


def bind_update(req: dict, ph: Placeholders) -> BoundUpdate | None:
    """The request's UpdateExpression bound to its placeholders, within Local's limit on an update's size."""
    text = req.get("UpdateExpression")
    if text is None:
        return None
    update = compile_update(text)
    bound = update.bind(ph)
    check_update_size(update, bound, ph)
    return bound


def bind_projection(req: dict, ph: Placeholders):
    text = req.get("ProjectionExpression")
    if text is None:
        return None
    return compile_projection(text).bind(ph)


# -- bound expressions, reused across requests --------------------------------------------------------------

#: (binder, expression texts, names, values) -> what the binder returned for a request that bound cleanly
_BOUND: dict[tuple, Any] = {}
_BOUND_LIMIT = 2048
_MISS = object()


def bind_request(
    req: dict, make: Callable[[dict, Placeholders], Any], value_fields: tuple[str, ...] = ()
) -> Any:
    """``make(req, placeholders)`` -- the request's expressions bound to its placeholders -- then the check that
    every placeholder was used.

    Binding depends only on the expression texts, the names and the values, so a request that repeats those of
    an earlier one (a counter's ``SET #c = #c + :one``, ``attribute_not_exists(pk)``, the same projection) takes
    the earlier result. Only clean bindings are kept, so a bad request always meets its error; requests with
    values that cannot be keys (lists, maps, sets) are bound afresh every time.
    """
    key = _bound_key(req, make)
    if key is not None:
        try:
            bound = _BOUND.get(key, _MISS)
        except TypeError:  # a value that cannot be a dict key
            key, bound = None, _MISS
        if bound is not _MISS:
            return bound
    ph = placeholders(req, value_fields)
    bound = make(req, ph)
    ph.check_unused()
    if key is not None:
        if len(_BOUND) >= _BOUND_LIMIT:
            _BOUND.clear()
        _BOUND[key] = bound
    return bound


def _bound_key(req: dict, make: Callable) -> tuple | None:
    names, values = req.get("ExpressionAttributeNames"), req.get("ExpressionAttributeValues")
    if names is not None:
        if type(names) is not dict:
            return None
        names = tuple(names.items())
    if values is not None:
        if type(values) is not dict:
            return None
        parts = []
        for placeholder, value in values.items():
            if type(value) is not dict or len(value) != 1:
                return None
            ((kind, inner),) = value.items()
            # the inner value's class too: {"BOOL": 1} must not pass for {"BOOL": True}
            parts.append((placeholder, kind, inner, inner.__class__))
        values = tuple(parts)
    return (make, *map(req.get, _EXPRESSION_FIELDS), names, values)


def _update_and_condition(req: dict, ph: Placeholders) -> tuple:
    return bind_update(req, ph), bind_condition(req, ph)


def _condition(req: dict, ph: Placeholders) -> Any:
    return bind_condition(req, ph)


def _projection(req: dict, ph: Placeholders) -> Any:
    return bind_projection(req, ph)


def check_return_values(value: Any, allowed: tuple[str, ...]) -> str:
    if value is None:
        return "NONE"
    if value not in allowed:
        raise ValidationException("Return values set to invalid value")
    return value


def check_on_failure(value: Any) -> str:
    if value is None:
        return "NONE"
    if value not in ("NONE", "ALL_OLD"):
        raise ValidationException(
            f"1 validation error detected: Value '{value}' at 'returnValuesOnConditionCheckFailure' failed to "
            "satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"
        )
    return value


def condition_failed(old: dict | None, on_failure: str) -> ConditionalCheckFailedException:
    extra = {"Item": old} if on_failure == "ALL_OLD" and old is not None else {}
    return ConditionalCheckFailedException("The conditional request failed", **extra)


# -- the write path ------------------------------------------------------------------------------------------


class Row:
    """Where an item lives: its partition hash and encoded keys."""

    __slots__ = ("h", "pk", "sk")

    def __init__(self, table: Table, key: dict, what: str = "key") -> None:
        self.pk, self.sk = table.key_values(key, what=what)
        self.h = partition_hash(self.pk)


#: the engine's (DynamoDB Local's) answers to a key that does not fit the key schema: an attribute too many or
#: missing, a value of another type or not a scalar
_KEY_SHAPE = frozenset(
    {
        "The number of conditions on the keys is invalid",
        "One of the required keys was not given a value",
        "One or more parameter values were invalid: Type mismatch for key",
        "Invalid attribute value type",
    }
)
#: AWS's answer to such a Key (GetItem, UpdateItem, DeleteItem; BatchGetItem's keys, and BatchWriteItem's keys and
#: items): boto/boto3#1270 (DeleteItem, a key attribute missing), paritysuite/dynamodb-conformance
#: tests/tier3/error-messages deleteItem.test.ts (the sort key missing) and batchWriteItem.test.ts (items and keys
#: of another type, not scalar or missing the partition key: four regions); Local words each its own way
KEY_NOT_IN_SCHEMA = "The provided key element does not match the schema"
_INVALID = "One or more parameter values were invalid: "


def key_row(table: Table, key: dict, what: str = "key") -> Row:
    """The row of a request's Key (``what="item"``: a batch's item), in AWS's words when it does not fit the key
    schema."""
    try:
        return Row(table, key, what=what)
    except ValidationException as error:
        if error.message in _KEY_SHAPE:
            raise ValidationException(KEY_NOT_IN_SCHEMA) from None
        raise


def item_row(table: Table, item: dict) -> Row:
    """The row of a PutItem's item, in AWS's words when its key does not fit the key schema: ``Missing the key
    <name> in the item`` (aws/aws-sdk-js#4057, with the AWS CLI) and ``Type mismatch for key <name> expected: <type>
    actual: <type>`` (paritysuite/dynamodb-conformance tests/tier3/error-messages/transactWriteItems.test.ts, a
    Put's reason; the tecRacer blog's PutItem, September 2024)."""
    try:
        return Row(table, item, what="item")
    except ValidationException as error:
        if error.message not in _KEY_SHAPE:
            raise
        for name, typ in table.keys.attrs:
            value = item.get(name)
            if value is None:
                raise ValidationException(f"{_INVALID}Missing the key {name} in the item") from None
            if isinstance(value, dict) and len(value) == 1 and typ not in value:
                actual = next(iter(value))
                raise ValidationException(
                    f"{_INVALID}Type mismatch for key {name} expected: {typ} actual: {actual}"
                ) from None
        raise


def read_row(conn: Any, table: Table, row: Row) -> tuple[dict | None, int]:
    """The stored item and its size, checking in the same statement that the cached table is still current."""
    version, text, binary, size = _fetch(
        conn,
        f"SELECT v.user_version, {item_sql(table.sql, 't')}, t.bin, t.size FROM pragma_user_version AS v "
        f'LEFT JOIN "{table.sql} keys" AS k ON k.h = ? AND k.pk = ? AND k.sk = ? '
        f'LEFT JOIN "{table.sql} items" AS t ON t.id = k.id',
        row,
    )
    if version != table.version:
        raise CatalogChanged
    if text is None:
        return None, 0
    return table.load_row(text, binary, row.pk, row.sk), size


def read_item(conn: Any, table: Table, row: Row) -> tuple[dict | None, int]:
    """The stored item and its size, for a read that stands alone (GetItem).

    No catalog check is needed here: a table's key schema never changes and table ids are never reused, so a
    cached table is either right or gone (``no such table``, and the engine reloads the catalog).
    """
    found = _fetch(
        conn,
        f"SELECT {item_sql(table.sql)}, bin, size FROM {table.sql} WHERE h = ? AND pk = ? AND sk = ?",
        row,
    )
    if found is None:
        return None, 0
    return table.load_row(found[0], found[1], row.pk, row.sk), found[2]


def _fetch(conn: Any, sql: str, row: Row) -> Any:
    try:
        return conn.execute(sql, (row.h, row.pk, row.sk)).fetchone()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            raise CatalogChanged from None
        raise


def write_row(
    engine: Engine,
    conn: Any,
    table: Table,
    row: Row,
    old: dict | None,
    new: dict | None,
    new_size: int = 0,
    identity: dict | None = None,
    indexes_unchanged: bool = False,
) -> None:
    """Store ``new`` (or delete when None) in place of ``old``, keeping every secondary index in step
    (``indexes_unchanged``: the caller knows no index key attribute changed)."""
    key = (row.h, row.pk, row.sk)
    if new is None:
        if old is None:
            return
        delete_row(conn, table.sql, key)
    else:
        text, form = dump_body(body_of(new, table.row_keys))
        # in place when stored: a new row would grow the items table and leave a hole where the old one was
        store = insert_row if old is None else rewrite_row
        store(conn, table.sql, key, text, new_size, form, engine.storage.part_size)
    for index in () if indexes_unchanged else table.indexes.values():
        old_key = index.key_of(old) if old is not None else None
        new_key = index.key_of(new) if new is not None else None
        if old_key == new_key:
            continue
        if old_key is not None:
            conn.execute(
                f"DELETE FROM {index.sql} WHERE ih = ? AND ik = ? AND isk = ? AND pk = ? AND sk = ?",
                (partition_hash(old_key[0]), old_key[0], old_key[1], row.pk, row.sk),
            )
        if new_key is not None:
            conn.execute(
                f"INSERT INTO {index.sql} (ih, ik, isk, h, pk, sk) VALUES (?, ?, ?, ?, ?, ?)",
                (partition_hash(new_key[0]), new_key[0], new_key[1], row.h, row.pk, row.sk),
            )
    engine.after_write(conn, table, old, new, identity)


def sized_item(item: Any, updating: bool = False) -> tuple[dict, int]:
    """Validate an item's attribute values and the 400 KB limit (checks that need no table); return it and its size."""
    if item is None:
        raise ValidationException(
            "1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null"
        )
    if updating:  # an update's result is built from the stored item and validated placeholder values
        size = item_size(item)
    else:
        item, size = validate_sized_item(item)
    if size > MAX_ITEM_SIZE:
        raise ValidationException(ITEM_TOO_BIG_UPDATE if updating else _ITEM_TOO_BIG)
    return item, size


def checked_item(table: Table, item: Any, updating: bool = False) -> tuple[dict, int]:
    """Validate a whole item to be stored: attribute values, the 400 KB limit, then index keys (Local's order)."""
    item, size = sized_item(item, updating)
    table.check_index_keys(item, updating)
    return item, size


def check_not_key(table: Table, names: Iterable[str]) -> None:
    """An update may not touch a key attribute (Local names the first one in key schema order)."""
    touched = set(names)
    for name in table.keys.names:
        if name in touched:
            raise ValidationException(
                f"One or more parameter values were invalid: Cannot update attribute {name}. "
                "This attribute is part of the key"
            )


def check_scalar_keys(table: Table, paths: Iterable[tuple]) -> None:
    """A document path may not go into a table key or an index key attribute (``pk.a``, ``g[0]``).

    Local goes through the key schemas -- the table's, then each LSI's, then each GSI's, hash before range --
    and names the first key attribute that one of the paths goes into.
    """
    nested = {path[0] for path in paths if len(path) > 1}
    if not nested:
        return
    for name in table.keys.names:
        if name in nested:
            raise ValidationException(f"{_NOT_SCALAR}Key: {name}")
    indexes = table.indexes.values()
    for index in [i for i in indexes if i.kind == "LSI"] + [i for i in indexes if i.kind != "LSI"]:
        for name in index.keys.names:
            if name in nested:
                raise ValidationException(f"{_NOT_SCALAR}IndexKey: {name}")


_NOT_SCALAR = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "


def check_update_keys(table: Table, update: BoundUpdate) -> None:
    """Local's checks of an update's paths against the keys, made after its condition passed."""
    check_not_key(table, update.paths)
    check_scalar_keys(table, update.updated_paths + update.read_paths)  # one check over all of its paths


def check_update_size(update: Update, bound: BoundUpdate, ph: Placeholders) -> None:
    """Local's limit on an update, checked before its condition or the stored item are looked at.

    The attributes the update SETs or ADDs to, each counted with the values written in its action (as often as
    they are written), must fit in an item.
    """
    size = 0
    for action, (op, path, _) in zip(update.actions, bound.steps, strict=True):
        if op in ("SET", "ADD"):
            size += len(path[0].encode("utf-8"))
            size += sum(value_size(ph.literal(text)) for text in _value_placeholders(action.value))
    if size > MAX_ITEM_SIZE:
        raise ValidationException(ITEM_TOO_BIG_UPDATE)


def _value_placeholders(node: Any) -> list[str]:
    """The ``:value`` placeholders an update action's operand uses, once per use."""
    if isinstance(node, ast.Value):
        return [node.text]
    if isinstance(node, ast.Function):
        return [text for arg in node.args for text in _value_placeholders(arg)]
    if isinstance(node, ast.Arithmetic):
        return _value_placeholders(node.left) + _value_placeholders(node.right)
    return []


# -- operations ----------------------------------------------------------------------------------------------


def put_item(engine: Engine, req: dict) -> dict:
    table = engine.catalog.get(req.get("TableName"), fresh=False)
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    return_values = check_return_values(req.get("ReturnValues"), ("NONE", "ALL_OLD"))
    on_failure = check_on_failure(req.get("ReturnValuesOnConditionCheckFailure"))
    item = req.get("Item")
    if not isinstance(item, dict):
        item = None
    item, size = checked_item(table, item)  # Local checks the item before the expression
    row = item_row(table, item)
    return _replace(engine, req, table, row, item, size, mode, return_values, on_failure)


def delete_item(engine: Engine, req: dict) -> dict:
    table = engine.catalog.get(req.get("TableName"), fresh=False)
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    return_values = check_return_values(req.get("ReturnValues"), ("NONE", "ALL_OLD"))
    on_failure = check_on_failure(req.get("ReturnValuesOnConditionCheckFailure"))
    key = validate_item(req.get("Key") or {})
    row = key_row(table, key)  # Local checks the key before the expression
    return _replace(engine, req, table, row, None, 0, mode, return_values, on_failure)


def _replace(
    engine: Engine,
    req: dict,
    table: Table,
    row: Row,
    new: dict | None,
    size: int,
    mode: str,
    return_values: str,
    on_failure: str,
) -> dict:
    """PutItem and DeleteItem: under the request's condition, put ``new`` (or delete when None) at ``row``."""
    condition = bind_request(req, _condition, ("ConditionExpression",))
    if condition is not None:
        check_scalar_keys(table, condition.paths)
    with engine.storage.write() as conn:
        old, old_size = read_row(conn, table, row)
        if condition is not None and not condition.evaluate(old or {}):
            raise condition_failed(old, on_failure)
        write_row(engine, conn, table, row, old, new, size)
        metrics = _collection_metrics(req, conn, table, row, new if new is not None else req.get("Key"))
    out: dict[str, Any] = {}
    if return_values == "ALL_OLD" and old is not None:
        out["Attributes"] = old
    _add_write_capacity(out, table, mode, old, new, old_size, size)
    if metrics is not None:
        out["ItemCollectionMetrics"] = metrics
    return out


def _collection_metrics(req: dict, conn: Any, table: Table, row: Row, item: Any) -> dict | None:
    """The write's ItemCollectionMetrics, when the request asks for them (``SIZE``) and the table has LSIs."""
    if req.get("ReturnItemCollectionMetrics") != "SIZE" or not isinstance(item, dict):
        return None
    return collection_metrics(conn, table, row.h, row.pk, item)


def update_item(engine: Engine, req: dict) -> dict:
    table = engine.catalog.get(req.get("TableName"), fresh=False)
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    return_values = check_return_values(
        req.get("ReturnValues"), ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")
    )
    on_failure = check_on_failure(req.get("ReturnValuesOnConditionCheckFailure"))
    key = validate_item(req.get("Key") or {})
    row = key_row(table, key)  # Local checks the key before the expressions
    if return_values in ("ALL_NEW", "UPDATED_NEW"):
        # the answer holds the values the update wrote: bind afresh, so no caller can change a shared one
        ph = placeholders(req, ("UpdateExpression", "ConditionExpression"))
        update, condition = _update_and_condition(req, ph)
        ph.check_unused()
    else:
        update, condition = bind_request(
            req, _update_and_condition, ("UpdateExpression", "ConditionExpression")
        )
    if condition is not None:
        check_scalar_keys(table, condition.paths)
    with engine.storage.write() as conn:
        old, old_size = read_row(conn, table, row)
        if condition is not None and not condition.evaluate(old or {}):
            raise condition_failed(old, on_failure)
        if update is not None:  # Local checks the condition first
            check_update_keys(table, update)
        if old is not None and update is not None:
            new = update.apply(old)
            # only the attributes the update touched changed size
            size = old_size
            for name in update.paths:
                if name in old:
                    size -= attribute_size(name, old[name])
                if name in new:
                    size += attribute_size(name, new[name])
            if size > MAX_ITEM_SIZE:
                raise ValidationException(ITEM_TOO_BIG_UPDATE)
            same_index_keys = table.index_key_names.isdisjoint(update.paths)
            if not same_index_keys:
                table.check_index_keys(new, True)
        else:
            base = old if old is not None else dict(key)
            new = update.apply(base) if update is not None else dict(base)
            new, size = checked_item(table, new, updating=True)
            same_index_keys = False
        write_row(engine, conn, table, row, old, new, size, indexes_unchanged=same_index_keys)
        metrics = _collection_metrics(req, conn, table, row, new)
    out: dict[str, Any] = {}
    if return_values == "ALL_OLD" and old is not None:
        out["Attributes"] = old
    elif return_values == "ALL_NEW":
        out["Attributes"] = new
    elif return_values in ("UPDATED_OLD", "UPDATED_NEW") and update is not None:
        attrs = update.updated(old or {}, new, new=return_values == "UPDATED_NEW")
        if attrs:
            out["Attributes"] = attrs
    _add_write_capacity(out, table, mode, old, new, old_size, size)
    if metrics is not None:
        out["ItemCollectionMetrics"] = metrics
    return out


def get_item(engine: Engine, req: dict) -> dict:
    table = engine.catalog.get(req.get("TableName"), fresh=False)
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    key = validate_item(req.get("Key") or {})
    projection = bind_request(req, _projection)
    if projection is not None:  # before the key's checks, as Local makes them
        check_scalar_keys(table, projection.paths)
    row = key_row(table, key)
    with engine.storage.reading() as conn:
        item, size = read_item(conn, table, row)
    out: dict[str, Any] = {}
    if item is not None:
        out["Item"] = projection.apply(item) if projection is not None else item
    if mode != "NONE":
        consumed = Consumed(table)
        consumed.table_units = max(
            read_units(size, bool(req.get("ConsistentRead"))), 0.5 if not req.get("ConsistentRead") else 1.0
        )
        out["ConsumedCapacity"] = consumed.response(mode)
    return out


def _add_write_capacity(
    out: dict, table: Table, mode: str, old: dict | None, new: dict | None, old_size: int, new_size: int
) -> None:
    if mode == "NONE":
        return
    consumed = Consumed(table)
    consumed.add_write(old, new, old_size, new_size)
    out["ConsumedCapacity"] = consumed.response(mode)
