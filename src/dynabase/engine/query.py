"""Query and Scan: key conditions to SQL ranges, Limit before filter, the 1 MB page, pagination keys, segments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ValidationException
from ..expressions import Placeholders
from ..expressions.keycondition import (
    NO_KEY_CONDITION,
    KeyCondition,
    MultiKeyCondition,
    bind_key_condition,
    extract_key_conditions,
    multi_key_condition,
    schema_key_condition,
)
from ..types import (
    MAX_HASH_KEY_SIZE,
    MAX_RANGE_KEY_SIZE,
    encode_composite_key,
    encode_key,
    encode_key_part,
    escape_key_bytes,
    item_size,
    validate_item,
)
from .capacity import Consumed, check_mode, read_units
from .items import bind_condition, bind_projection, bind_request, check_scalar_keys
from .readers import ITEM_READER, ReaderError
from .schema import Index, Table, check_key_value_size
from .storage import item_sql, partition_hash
from .turns import Turns

if TYPE_CHECKING:
    from .engine import Engine

PAGE_BYTES = 1024 * 1024
_FETCH = 256
_HASH_SPACE = 1 << 32


def query(engine: Engine, req: dict) -> dict:
    return _read(engine, req, is_query=True)


def scan(engine: Engine, req: dict) -> dict:
    return _read(engine, req, is_query=False)


def _read(engine: Engine, req: dict, is_query: bool) -> dict:
    """A page of a Query or a Scan.

    The request is checked in DynamoDB Local's order: the table, Limit (a Query's before its index), the index,
    a Scan's consistent read of a GSI; the FilterExpression, the ProjectionExpression and the
    KeyConditionExpression, each parsed and bound, then unused placeholders; a Query's paths into key
    attributes (in the same order), its key condition's shape, its consistent read of a GSI, its key values;
    the ExclusiveStartKey; a Query's filter on key attributes; Select; a Scan's segment (and the start key's
    place in it) and its paths into key attributes; what a GSI projects.
    """
    table = engine.catalog.get(req.get("TableName"))
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    if is_query:
        _check_limit(req)
    index = table.index(req["IndexName"]) if req.get("IndexName") is not None else None
    consistent = bool(req.get("ConsistentRead"))
    gsi = index is not None and index.kind == "GSI"
    if not is_query:
        if consistent and gsi:
            raise ValidationException(_CONSISTENT_GSI)
        _check_limit(req)
    limit = req.get("Limit")
    keys = index.keys if index is not None else table.keys
    if is_query:
        filt, projection, bound_key, ph = bind_request(
            req, _bind_query, ("KeyConditionExpression", "FilterExpression")
        )
    else:
        filt, projection, bound_key, ph = bind_request(req, _bind_scan, ("FilterExpression",))
    cond: KeyCondition | MultiKeyCondition | None = None
    segment = None
    if is_query:
        for bound in (filt, projection, bound_key):
            if bound is not None:
                check_scalar_keys(table, bound.paths)
        if bound_key is None:
            raise ValidationException(NO_KEY_CONDITION)
        conditions = extract_key_conditions(bound_key, ph)
        if consistent and gsi:
            raise ValidationException(_CONSISTENT_GSI)
        if keys.multi:
            cond = multi_key_condition(
                conditions, [n for n, _ in keys.hash_attrs], [n for n, _ in keys.range_attrs]
            )
            key_ranges = _multi_key_ranges(cond, keys, index)
        else:
            cond = schema_key_condition(conditions, keys.hash_name, keys.range_name)
            key_ranges = _key_ranges(cond, keys, index)
    start = req.get("ExclusiveStartKey")
    position = (
        _start_position(table, index, start, cond, key_ranges if is_query else None)
        if start is not None
        else None
    )
    if is_query and filt is not None:
        for path in filt.paths:
            if path[0] in keys.names:
                raise ValidationException(
                    f"Filter Expression can only contain non-primary key attributes: Primary key attribute: {path[0]}"
                )
        if index is not None and index.kind == "LSI":
            projected = index.projected_names()
            if projected is not None:
                missing = sorted({path[0] for path in filt.paths} - projected)
                if missing:
                    raise ValidationException(
                        f"One or more parameter values were invalid: Secondary index {index.name} does not project "
                        f"one or more filter attributes: [{', '.join(missing)}]"
                    )
    select = _select(req, index, is_query)
    if not is_query:
        segment = _segment(req)
        if position is not None and segment is not None:
            _check_in_segment(position[0], segment)
        for bound in (filt, projection):
            if bound is not None:
                check_scalar_keys(table, bound.paths)
    if projection is not None and gsi and index is not None:
        projected = index.projected_names()
        if projected is not None:
            missing = [n for n in projection.top_level_names if n not in projected]
            if missing:
                raise ValidationException(
                    f"One or more parameter values were invalid: Global secondary index {index.name} does not "
                    f"project [{', '.join(missing)}]"
                )

    where, args = [], []
    if index is None:
        cols = f"{item_sql(table.sql)}, bin, size, pk, sk"
        src = table.sql
        order = ["pk", "sk"] if not is_query else ["sk"]
        prefix = ""
    else:
        cols = f"{item_sql(table.sql, 't')}, t.bin, t.size, t.pk, t.sk"
        src = f"{index.sql} i JOIN {table.sql} t ON t.h = i.h AND t.pk = i.pk AND t.sk = i.sk"
        order = ["i.ik", "i.isk", "i.pk", "i.sk"] if not is_query else ["i.isk", "i.pk", "i.sk"]
        prefix = "i."
    forward = req.get("ScanIndexForward", True) is not False if is_query else True

    if is_query:
        hk, range_sql, range_args = key_ranges
        where.append(f"{prefix}{'ih' if index else 'h'} = ? AND {prefix}{'ik' if index else 'pk'} = ?")
        args += [partition_hash(hk), hk]
        key_col = f"{prefix}{'isk' if index else 'sk'}"
        for op, _value in range_sql:
            where.append(f"{key_col} {op} ?")
        args += range_args
    elif segment is not None:
        number, total = segment
        lo = number * _HASH_SPACE // total
        hi = (number + 1) * _HASH_SPACE // total
        hcol = f"{prefix}{'ih' if index else 'h'}"
        where.append(f"{hcol} >= ? AND {hcol} < ?")
        args += [lo, hi]

    if position is not None:
        cols_order = ([f"{prefix}{'ih' if index else 'h'}"] if not is_query else []) + order
        where.append(
            f"({', '.join(cols_order)}) {'>' if forward else '<'} ({', '.join('?' * len(position))})"
        )
        args += position

    if not is_query:
        order = [f"{prefix}{'ih' if index else 'h'}"] + order
    direction = "" if forward else " DESC"
    sql = (
        f"SELECT {cols} FROM {src}"
        + (f" WHERE {' AND '.join(where)}" if where else "")
        + " ORDER BY "
        + ", ".join(f"{c}{direction}" for c in order)
    )

    gsi_projection = index is not None and index.kind == "GSI" and index.projection != "ALL"
    project_index = index is not None and (
        select == "ALL_PROJECTED_ATTRIBUTES"
        or (select in ("COUNT", "SPECIFIC_ATTRIBUTES") and gsi_projection)
    )
    lsi_scan = not is_query and index is not None and index.kind == "LSI"
    fetches = _fetches_from_table(index, project_index, select, projection)
    fetched_units = (
        0.0  # the table reads of the items an LSI query fetches (each item's size rounded on its own)
    )
    items: list[dict] = []
    count = scanned = 0
    total_size = 0
    last: dict | None = None
    # one SELECT statement reads one consistent snapshot (SQLite holds its read transaction until the statement
    # is done), so no explicit transaction is needed around the page
    load_row = table.load_row
    # the index's projection of an item (project_index and fetches are only set for an index)
    project = index.project if index is not None else _whole_item
    all_projected = index is None or index.projection == "ALL"
    reader = whole = None
    item_reader = ITEM_READER.get()
    if item_reader is not None:
        reader, whole = item_reader
        # a Scan's filter may name key attributes: its items are read whole
        if whole is not None and is_query and index is None and projection is None:
            load_row = table.load_body
        else:
            whole = None
    with engine.storage.reading() as conn:  # a reader connection: a long Scan holds up no other read
        cursor = conn.execute(sql, args)
        # on the shared connection (in :memory:, or in a write) it holds the storage lock: no turns then
        turns = Turns(engine.storage.turns, conn is not engine.storage.conn)
        try:
            fetch = min(limit, _FETCH) if limit is not None else _FETCH
            while True:
                rows = cursor.fetchmany(fetch)
                if not rows:
                    break
                stop = False
                for text, binary, size, pk, sk in rows:
                    turns.tick()
                    item = load_row(text, binary, pk, sk)
                    visible = project(item) if project_index else item
                    if fetches:
                        fetched_units += read_units(size, consistent)
                        size = item_size(project(item))
                    elif project_index and not all_projected:
                        size = item_size(visible)
                    scanned += 1
                    total_size += size
                    # a Scan of an LSI filters the whole item (its Query may only filter on projected attributes)
                    if filt is None or filt.evaluate(item if lsi_scan else visible):
                        count += 1
                        if select != "COUNT":
                            shown = projection.apply(visible) if projection is not None else visible
                            if reader is None:
                                items.append(shown)
                            else:
                                try:
                                    value = reader(shown)
                                    if value is None and whole is not None:
                                        value = whole(table.load_row(text, binary, pk, sk))
                                except Exception as error:  # the reader's own: not the engine's failure
                                    raise ReaderError(error) from error
                                items.append(value)
                    if (limit is not None and scanned >= limit) or total_size >= PAGE_BYTES:
                        if whole is not None:  # the page's last item, with the keys that end it
                            item = table.load_row(text, binary, pk, sk)
                        if not (is_query and index is None and _at_range_end(cond, keys, item, forward)):
                            last = _last_key(table, index, item)
                        stop = True
                        break
                if stop:
                    break
        finally:
            turns.done()
            cursor.close()  # before the connection goes back to its pool

    out: dict[str, Any] = {}
    if select != "COUNT":
        out["Items"] = items
    out["Count"] = count
    out["ScannedCount"] = scanned
    if last is not None:
        out["LastEvaluatedKey"] = last
    if mode != "NONE":
        consumed = Consumed(table)
        units = read_units(total_size, consistent)
        if index is None:
            consumed.table_units = units
        else:
            consumed.add_index(index, units)
            consumed.table_units = fetched_units
        out["ConsumedCapacity"] = consumed.response(mode)
    return out


def _fetches_from_table(index: Any, project_index: bool, select: str, projection: Any) -> bool:
    """True for a query of a local index that returns attributes the index does not project: DynamoDB fetches
    them from the table, and charges the table's reads too."""
    if index is None or index.kind != "LSI" or project_index or select == "COUNT":
        return False
    projected = index.projected_names()
    if projected is None:
        return False
    return projection is None or not set(projection.top_level_names) <= projected


_CONSISTENT_GSI = "Consistent reads are not supported on global secondary indexes"


def _bind_query(req: dict, ph: Placeholders) -> tuple:
    """A Query's expressions bound in Local's order (filter, projection, key condition), and the placeholders
    (the key condition's values are taken from them; a cached binding keeps them, as equal requests have equal
    placeholders)."""
    filt = bind_condition(req, ph, "FilterExpression")
    projection = bind_projection(req, ph)
    text = req.get("KeyConditionExpression")
    bound_key = bind_key_condition(text, ph) if text is not None else None
    return filt, projection, bound_key, ph


def _bind_scan(req: dict, ph: Placeholders) -> tuple:
    return bind_condition(req, ph, "FilterExpression"), bind_projection(req, ph), None, ph


def _check_limit(req: dict) -> None:
    limit = req.get("Limit")
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise ValidationException(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1"
        )


def _select(req: dict, index: Index | None, is_query: bool) -> str:
    select = req.get("Select")
    has_projection = req.get("ProjectionExpression") is not None or req.get("AttributesToGet") is not None
    if select is None:
        if has_projection:
            return "SPECIFIC_ATTRIBUTES"
        return "ALL_PROJECTED_ATTRIBUTES" if index is not None else "ALL_ATTRIBUTES"
    if select not in ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT"):
        raise ValidationException(
            "Select must be ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, COUNT, or SPECIFIC_ATTRIBUTES"
        )
    if select == "ALL_PROJECTED_ATTRIBUTES" and index is None:
        raise ValidationException(
            "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
        )
    if select == "SPECIFIC_ATTRIBUTES" and not has_projection:
        raise ValidationException(
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
        )
    if select == "COUNT" and has_projection:
        raise ValidationException(
            "Cannot specify the ProjectionExpression when choosing to get only the Count"
        )
    if select == "ALL_ATTRIBUTES" and has_projection:
        raise ValidationException(
            "Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES"
        )
    if select == "ALL_PROJECTED_ATTRIBUTES" and has_projection:
        raise ValidationException(
            "Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES"
        )
    if select == "ALL_ATTRIBUTES" and index is not None and index.kind == "GSI" and index.projection != "ALL":
        raise ValidationException(
            "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global "
            f"secondary index {index.name} because its projection type is not ALL"
        )
    return select


def _segment(req: dict) -> tuple[int, int] | None:
    """The parallel scan's (Segment, TotalSegments), checked in AWS's words (paritysuite/dynamodb-conformance
    tests/tier3/error-messages/scan.test.ts, captured from the service); their ranges are the model's (checked
    before, in :mod:`.validation`)."""
    seg, total = req.get("Segment"), req.get("TotalSegments")
    if seg is None and total is None:
        return None
    if total is None:
        raise ValidationException(
            "The TotalSegments parameter is required but was not present in the request when Segment parameter "
            "is present"
        )
    if seg is None:
        raise ValidationException(
            "The Segment parameter is required but was not present in the request when parameter TotalSegments "
            "is present"
        )
    if not isinstance(total, int) or not 1 <= total <= 1000000:
        raise ValidationException(
            f"1 validation error detected: Value '{total}' at 'totalSegments' failed to satisfy constraint: "
            "Member must have value less than or equal to 1000000"
        )
    if not isinstance(seg, int) or seg < 0 or seg >= total:
        raise ValidationException(
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
            f"Segment: {seg} is not less than TotalSegments: {total}"
        )
    return seg, total


def _check_type(value: dict, typ: str) -> None:
    if typ not in value:
        raise ValidationException(
            "One or more parameter values were invalid: Condition parameter type does not match schema type"
        )


def _check_not_empty(value: dict, name: str, index: Index | None = None) -> None:
    ((kind, inner),) = value.items()
    if kind in ("S", "B") and len(inner) == 0:
        if index is not None:
            raise ValidationException(
                "One or more parameter values are not valid. A value specified for a secondary index key is not "
                "supported. The AttributeValue for a key attribute cannot contain an empty "
                f"{'string' if kind == 'S' else 'binary'} value. IndexName: {index.name}, IndexKey: {name}"
            )
        raise ValidationException(
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
            f"empty {'string' if kind == 'S' else 'binary'} value. Key: {name}"
        )


def _check_sort_values(values: list[dict], name: str, index: Index | None, prefix: bytes | None) -> None:
    """A key condition's values on a sort key: not empty, and (one-attribute sort keys) within 1024 bytes."""
    for value in values:
        _check_not_empty(value, name, index)
        if prefix is None:
            check_key_value_size(value, MAX_RANGE_KEY_SIZE)


def _successor(prefix: bytes) -> bytes | None:
    """The smallest byte string greater than every string starting with ``prefix`` (None: no bound)."""
    data = bytearray(prefix)
    while data and data[-1] == 0xFF:
        data.pop()
    if not data:
        return None
    data[-1] += 1
    return bytes(data)


def _key_ranges(
    cond: Any, keys: Any, index: Index | None = None
) -> tuple[bytes, list[tuple[str, bytes]], list[bytes]]:
    hash_value = _checked_key_value(cond.hash_value, keys.hash_type, keys.hash_name, index)
    # AWS refuses a table's oversized partition key value (Local does not); its answer on an index is unknown
    if index is None:
        check_key_value_size(hash_value, MAX_HASH_KEY_SIZE)
    hk = encode_key(hash_value)
    ranges: list[tuple[str, bytes]] = []
    if cond.range_op is not None:
        ranges = _sort_ranges(cond.range_op, cond.range_values, keys.range_type, keys.range_name, index)
    return hk, ranges, [v for _, v in ranges]


def _checked_key_value(value: dict, typ: str, name: str, index: Index | None) -> dict:
    """A key condition's value for an attribute compared with ``=``: a valid value of its type, not empty."""
    value = validate_value_checked(value)
    _check_type(value, typ)
    _check_not_empty(value, name, index)
    return value


def _sort_ranges(
    op: str, raw: tuple, typ: str, name: str, index: Index | None, prefix: bytes | None = None
) -> list[tuple[str, bytes]]:
    """SQL bounds on the sort column for ``op`` on one sort attribute. ``prefix``: the sort attribute is a part
    of a multi-attribute sort key, after the encoded parts of the leading attributes compared with ``=``."""
    values = [validate_value_checked(v) for v in raw]
    if op == "begins_with":
        value = values[0]
        if "N" in value or typ == "N":
            if "N" in value:
                raise ValidationException(
                    "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                    "operator or function: begins_with, operand type: N"
                )
            _check_type(value, "N")
        _check_type(value, typ)
        _check_sort_values(values, name, index, prefix)
        low = encode_key(value) if prefix is None else prefix + escape_key_bytes(encode_key(value))
        high = _successor(low)
        return [(">=", low)] + ([("<", high)] if high is not None else [])
    for v in values:
        _check_type(v, typ)
    encoded = [encode_key(v) for v in values]
    if op == "BETWEEN" and encoded[0] > encoded[1]:
        raise ValidationException(
            "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater "
            f"than or equal to lower bound; lower bound operand: AttributeValue: {_av_text(values[0])}, "
            f"upper bound operand: AttributeValue: {_av_text(values[1])}"
        )
    _check_sort_values(values, name, index, prefix)
    if prefix is None:
        return [(">=", encoded[0]), ("<=", encoded[1])] if op == "BETWEEN" else [(op, encoded[0])]
    # a part of a composite key: the parts after it (of the later sort attributes) follow its encoding, so an
    # inclusive bound is the successor of the part, which is self-delimiting
    parts = [prefix + encode_key_part(v) for v in values]
    after = _successor(prefix) if prefix else None
    lower, upper = prefix or None, after
    if op == "=":
        lower, upper = parts[0], _successor(parts[0])
    elif op == "<":
        upper = parts[0]
    elif op == "<=":
        upper = _successor(parts[0])
    elif op == ">":
        lower = _successor(parts[0])
    elif op == ">=":
        lower = parts[0]
    else:  # BETWEEN
        lower, upper = parts[0], _successor(parts[1])
    return ([(">=", lower)] if lower is not None else []) + ([("<", upper)] if upper is not None else [])


def _multi_key_ranges(
    cond: Any, keys: Any, index: Index | None
) -> tuple[bytes, list[tuple[str, bytes]], list[bytes]]:
    """The index partition and the SQL bounds on its sort column for a multi-attribute key condition."""
    hash_values = [
        _checked_key_value(v, typ, name, index)
        for (name, typ), v in zip(keys.hash_attrs, cond.hash_values, strict=True)
    ]
    hk = encode_composite_key(hash_values) if len(hash_values) > 1 else encode_key(hash_values[0])
    prefix_values = [
        _checked_key_value(v, typ, name, index)
        for (name, typ), v in zip(keys.range_attrs, cond.sort_prefix, strict=False)
    ]
    composite = len(keys.range_attrs) > 1
    prefix = b"".join(encode_key_part(v) for v in prefix_values)
    if cond.range_op is not None:
        typ = keys.range_attrs[len(prefix_values)][1]
        ranges = _sort_ranges(
            cond.range_op, cond.range_values, typ, cond.range_name, index, prefix if composite else None
        )
    elif prefix:
        after = _successor(prefix)
        ranges = [(">=", prefix)] + ([("<", after)] if after is not None else [])
    else:
        ranges = []
    return hk, ranges, [v for _, v in ranges]


def _av_text(value: dict) -> str:
    ((kind, inner),) = value.items()
    if kind == "B":
        import base64

        inner = base64.b64encode(inner).decode()
    return "{" + kind + ":" + str(inner) + "}"


def _whole_item(item: dict) -> dict:
    return item


def validate_value_checked(value: dict) -> dict:
    return validate_item({"v": value})["v"]


def _start_position(table: Table, index: Index | None, start: Any, cond: Any, key_ranges: Any) -> list:
    """The ExclusiveStartKey as the tuple of sort columns to resume after (``key_ranges``: a Query's)."""
    is_query = key_ranges is not None
    if not isinstance(start, dict):
        raise ValidationException("The provided starting key is invalid")
    start = validate_item(start)
    names = list(table.keys.names)
    if index is not None:
        names += [n for n in index.keys.names if n not in names]
    if len(start) != len(names):
        if index is not None:
            raise ValidationException("The provided starting key is invalid")
        raise ValidationException("Exclusive Start Key must have same size as table's key schema")
    for name in names:
        if name not in start:
            raise ValidationException(
                "The provided starting key is invalid: The provided key element does not match the schema"
            )
    pk, sk = table.key_values({n: start[n] for n in table.keys.names}, what="start")
    if index is None:
        position: list = [sk] if is_query else [pk, sk]
        keys = table.keys
    else:
        keys = index.keys
        ikey = index.key_of(start)
        if ikey is None:
            raise ValidationException(
                "The provided starting key is invalid: The provided key element does not match the schema"
            )
        position = [ikey[1], pk, sk] if is_query else [ikey[0], ikey[1], pk, sk]
    if is_query:
        if keys.multi:
            assert ikey is not None  # multi-attribute keys are an index's
            matches = ikey[0] == key_ranges[0] and all(
                _OPS[op](ikey[1], bound) for op, bound in key_ranges[1]
            )
        else:
            hk = encode_key(cond.hash_value)
            matches = encode_key(start[keys.hash_name]) == hk and _range_matches(cond, keys, start)
        if not matches:
            raise ValidationException("The provided starting key does not match the range key predicate")
    else:
        position = [partition_hash(position[0] if index is not None else pk)] + position
    return position


_OPS = {
    "=": bytes.__eq__,
    "<": bytes.__lt__,
    "<=": bytes.__le__,
    ">": bytes.__gt__,
    ">=": bytes.__ge__,
}


def _check_in_segment(h: int, segment: tuple[int, int]) -> None:
    number, total = segment
    if not number * _HASH_SPACE // total <= h < (number + 1) * _HASH_SPACE // total:
        raise ValidationException("Exclusive start key must lie within the segment")


def _range_matches(cond: Any, keys: Any, start: dict) -> bool:
    if cond.range_op is None or keys.range_name is None:
        return True
    value = encode_key(start[keys.range_name])
    bounds = [encode_key(validate_value_checked(v)) for v in cond.range_values]
    op = cond.range_op
    if op == "=":
        return value == bounds[0]
    if op == "<":
        return value < bounds[0]
    if op == "<=":
        return value <= bounds[0]
    if op == ">":
        return value > bounds[0]
    if op == ">=":
        return value >= bounds[0]
    if op == "BETWEEN":
        return bounds[0] <= value <= bounds[1]
    return value.startswith(bounds[0])


def _at_range_end(cond: Any, keys: Any, item: dict, forward: bool) -> bool:
    """Whether a table Query's item is the last its key condition can match, so Local returns no LastEvaluatedKey.

    Local leaves the key out of a page that stops on the only item of a hash-only table's partition, or on an item
    whose sort key equals the condition's inclusive bound at the end of the reading direction (``<=`` or BETWEEN's
    upper bound reading forward, ``>=`` or BETWEEN's lower bound reading backward), but not for ``=`` or
    ``begins_with``, nor for index Queries.
    """
    if keys.range_name is None:
        return True
    op = cond.range_op
    if op == "BETWEEN":
        bound = cond.range_values[1 if forward else 0]
    elif op == ("<=" if forward else ">="):
        bound = cond.range_values[0]
    else:
        return False
    return encode_key(item[keys.range_name]) == encode_key(validate_value_checked(bound))


def _last_key(table: Table, index: Index | None, item: dict) -> dict:
    key = table.key_of(item)
    if index is not None:
        for name in index.keys.names:
            key[name] = item[name]
    return key
