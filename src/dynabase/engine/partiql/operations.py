"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction, run through the engine's item operations."""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from typing import TYPE_CHECKING, Any

from ... import jsonlimits
from ...errors import (
    ConditionalCheckFailedException,
    DuplicateItemException,
    DynamoDBError,
    ResourceNotFoundException,
    TransactionCanceledException,
    ValidationException,
)
from ...expressions import compile_update, deep
from ...types import NESTING, encode_key, validate_value
from .. import items, query, transactions
from ..capacity import check_mode
from .lexer import Malformed
from .parser import Select, Unsupported, parse
from .translate import GetPlan, ItemError, MissingKey, ReadPlan, WritePlan, compile_statement, translate

if TYPE_CHECKING:
    from ..engine import Engine

MAX_BATCH = 25
MAX_TRANSACTION = 100
MAX_STATEMENT_BYTES = 8192
_EXPRESSION_PREFIX = re.compile(r"^Invalid (?:KeyCondition|Filter|Condition|Update|Projection)Expression: ")
_HANDLERS = {"PutItem": items.put_item, "UpdateItem": items.update_item, "DeleteItem": items.delete_item}
_TRANSACT_KINDS = {
    "PutItem": "Put",
    "UpdateItem": "Update",
    "DeleteItem": "Delete",
    "ConditionCheck": "ConditionCheck",
}
_BATCH_CODES = {
    "ValidationException": "ValidationError",
    "InternalFailure": "InternalServerError",
    "ThrottlingException": "ThrottlingError",
}


# -- ExecuteStatement ---------------------------------------------------------------------------------------


def execute_statement(engine: Engine, req: dict) -> dict:
    """Run one PartiQL statement: a SELECT page, or one item write."""
    statement = _statement(req.get("Statement"))
    parameters = _parameters(req.get("Parameters"))
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    on_failure = items.check_on_failure(req.get("ReturnValuesOnConditionCheckFailure"))
    plan = compile_statement(statement, parameters, engine.catalog, "statement")
    if isinstance(plan, ReadPlan):
        return _read(engine, plan, req, mode)
    out = _write(engine, plan, on_failure, mode)  # type: ignore[arg-type]
    response: dict[str, Any] = {"Items": [out["Attributes"]] if "Attributes" in out else []}
    if "ConsumedCapacity" in out:
        response["ConsumedCapacity"] = out["ConsumedCapacity"]
    return response


def _read(engine: Engine, plan: ReadPlan, req: dict, mode: str) -> dict:
    handler = query.query if plan.operation == "Query" else query.scan
    start, start_key = 0, None
    if req.get("NextToken") is not None:
        start, start_key = decode_token(req["NextToken"], len(plan.requests))
    post = None
    if plan.post is not None:
        try:
            post = items.bind_condition(plan.post, items.placeholders(plan.post))
        except ValidationException as error:
            raise _unprefixed(error) from None
    remaining = req.get("Limit")
    found: list[dict] = []
    consumed: list[dict] = []
    token = None
    for i in range(start, len(plan.requests)):
        request = dict(plan.requests[i])
        if i == start and start_key is not None:
            request["ExclusiveStartKey"] = start_key
        if remaining is not None:
            request["Limit"] = remaining
        if req.get("ConsistentRead") is not None:
            request["ConsistentRead"] = req["ConsistentRead"]
        if mode != "NONE":
            request["ReturnConsumedCapacity"] = mode
        out = _call(handler, engine, request)
        found.extend(_shape(item, plan.shape) for item in out["Items"] if post is None or post.evaluate(item))
        if "ConsumedCapacity" in out:
            consumed.append(out["ConsumedCapacity"])
        if out.get("LastEvaluatedKey"):
            token = encode_token(i, out["LastEvaluatedKey"])
            break
        if remaining is not None:
            remaining -= out["ScannedCount"]
            if remaining <= 0:
                if i + 1 < len(plan.requests):
                    token = encode_token(i + 1, None)
                break
    response: dict[str, Any] = {"Items": found}
    if token is not None:
        response["NextToken"] = token
    if consumed:
        response["ConsumedCapacity"] = _merge_capacity(consumed)[0]
    return response


def _shape(item: dict, shape: list | None) -> dict:
    """ExecuteStatement's projection: each selected path's value under its own name, at the top level."""
    if shape is None:
        return item
    out = {}
    for label, name, steps in shape:
        value: Any = item.get(name)
        for step in steps:
            if value is None:
                break
            if isinstance(step, int):
                value = value["L"][step] if "L" in value and step < len(value["L"]) else None
            else:
                value = value["M"].get(step) if "M" in value else None
        if value is not None:
            out[label] = value
    return out


def _write(engine: Engine, plan: WritePlan, on_failure: str, mode: str) -> dict:
    request = dict(plan.request)
    if on_failure != "NONE" and plan.kind != "insert":
        request["ReturnValuesOnConditionCheckFailure"] = on_failure
    if mode != "NONE":
        request["ReturnConsumedCapacity"] = mode
    try:
        return _call(_HANDLERS[plan.operation], engine, request)
    except ConditionalCheckFailedException:
        if plan.kind == "insert":
            raise DuplicateItemException("Duplicate primary key exists in table") from None
        raise


# -- BatchExecuteStatement ----------------------------------------------------------------------------------


def batch_execute_statement(engine: Engine, req: dict) -> dict:
    """Up to 25 single-item reads or writes (not both), each answered on its own."""
    specs = req.get("Statements")
    if not isinstance(specs, list) or not specs:
        raise ValidationException(
            "1 validation error detected: Value null at 'statements' failed to satisfy constraint: Member must "
            "have length greater than or equal to 1"
        )
    _check_lengths(specs)
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    entries: list[tuple[dict, Any, DynamoDBError | None]] = []
    for spec in specs:
        spec = spec if isinstance(spec, dict) else {}
        try:
            plan = compile_statement(
                _statement(spec.get("Statement")),
                _parameters(spec.get("Parameters")),
                engine.catalog,
                "batch",
            )
            entries.append((spec, plan, None))
        except DynamoDBError as error:
            entries.append((spec, None, error))
    plans = [plan for _, plan, _ in entries if plan is not None]
    writes = any(isinstance(plan, WritePlan) for plan in plans)
    if writes and any(isinstance(plan, GetPlan) for plan in plans):
        raise ValidationException("Read and write requests together in the same batch is not supported.")
    if len(specs) > MAX_BATCH:
        raise ValidationException(
            f"BatchWriteItem cannot write more than {MAX_BATCH} items"
            if writes
            else f"BatchGetItem cannot fetch more than {MAX_BATCH} items"
        )
    seen = set()
    for plan in plans:
        key = plan.request["Key"] if isinstance(plan, GetPlan) else plan.key
        ident = (plan.table.name, tuple(encode_key(key[n]) for n in plan.table.keys.names))
        if ident in seen:
            raise ValidationException("Provided list of item keys contains duplicates")
        seen.add(ident)
    responses, consumed = [], []
    for spec, plan, refused in entries:
        if refused is not None:
            responses.append(_error_entry(refused))
            continue
        try:
            if isinstance(plan, GetPlan):
                request = dict(plan.request)
                if spec.get("ConsistentRead") is not None:
                    request["ConsistentRead"] = spec["ConsistentRead"]
                if mode != "NONE":
                    request["ReturnConsumedCapacity"] = mode
                out = _call(items.get_item, engine, request)
                entry = {"TableName": plan.table.name}
                if "Item" in out:
                    entry["Item"] = out["Item"]
            else:
                on_failure = items.check_on_failure(spec.get("ReturnValuesOnConditionCheckFailure"))
                out = _write(engine, plan, on_failure, mode)
                entry = {"TableName": plan.table.name}
                if "Attributes" in out:
                    entry["Item"] = out["Attributes"]
            if "ConsumedCapacity" in out:
                consumed.append(out["ConsumedCapacity"])
        except DynamoDBError as failure:
            entry = _error_entry(failure, plan.table.name)
        responses.append(entry)
    response: dict[str, Any] = {"Responses": responses}
    if consumed:
        response["ConsumedCapacity"] = _merge_capacity(consumed)
    return response


def _error_entry(error: DynamoDBError, table: str | None = None) -> dict:
    code = _BATCH_CODES.get(error.code, error.code.removesuffix("Exception"))
    entry: dict[str, Any] = {"Error": {"Code": code, "Message": error.message}}
    if error.extra.get("Item") is not None:
        entry["Error"]["Item"] = error.extra["Item"]
    if table is not None and code in ("ConditionalCheckFailed", "DuplicateItem"):
        entry["TableName"] = table
    return entry


# -- ExecuteTransaction -------------------------------------------------------------------------------------


def execute_transaction(engine: Engine, req: dict) -> dict:
    """Up to 100 statements, all reads or all writes, all-or-nothing through the engine's transactions."""
    specs = req.get("TransactStatements")
    if not isinstance(specs, list) or not specs:
        raise ValidationException(
            "1 validation error detected: Value null at 'transactStatements' failed to satisfy constraint: Member "
            "must have length greater than or equal to 1"
        )
    if len(specs) > MAX_TRANSACTION:
        raise ValidationException(f"Member must have length less than or equal to {MAX_TRANSACTION}")
    _check_lengths(specs)
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    specs = [spec if isinstance(spec, dict) else {} for spec in specs]
    parsed = [parse(_statement(spec.get("Statement"))) for spec in specs]
    reads = [isinstance(p.statement, Select) for p in parsed]
    if any(reads) and not all(reads):
        raise ValidationException(
            "ExecuteTransaction API does not support both read and write operations in the same request."
        )
    plans: list[Any] = []
    invalid: dict[int, str] = {}
    for i, (spec, p) in enumerate(zip(specs, parsed, strict=True)):
        try:
            plans.append(
                deep.call(
                    p.nesting,
                    translate,
                    p.statement,
                    p.parameters,
                    _parameters(spec.get("Parameters")),
                    engine.catalog,
                    "transaction",
                )
            )
        except (Unsupported, Malformed):
            raise
        except MissingKey as error:
            raise TransactionCanceledException(f"ValidationError {error.message}") from None
        except ItemError as error:  # DynamoDB reports the first such statement only
            if not invalid:
                invalid[i] = error.message
            plans.append(None)
        except ResourceNotFoundException:
            raise ResourceNotFoundException("Requested resource not found") from None
        except ValidationException as error:
            raise ValidationException(
                f"Validation failed in TransactStatements[{i}]: {error.message}"
            ) from None
    if invalid:
        raise _cancelled(
            [
                {"Code": "ValidationError", "Message": invalid[i]} if i in invalid else {"Code": "None"}
                for i in range(len(plans))
            ]
        )
    if all(reads):
        request: dict[str, Any] = {"TransactItems": [{"Get": plan.request} for plan in plans]}
        if mode != "NONE":
            request["ReturnConsumedCapacity"] = mode
        out = _call(transactions.transact_get_items, engine, request)
        response: dict[str, Any] = {"Responses": out["Responses"]}
    else:
        request = {
            "TransactItems": [
                _transact_item(plan, spec, i) for i, (plan, spec) in enumerate(zip(plans, specs, strict=True))
            ]
        }
        if req.get("ClientRequestToken") is not None:
            request["ClientRequestToken"] = req["ClientRequestToken"]
        if mode != "NONE":
            request["ReturnConsumedCapacity"] = mode
        try:
            out = _call(transactions.partiql_write_transaction, engine, request)
        except TransactionCanceledException as error:
            reasons = error.extra.get("CancellationReasons")
            if not reasons:
                raise
            for plan, reason in zip(plans, reasons, strict=False):
                if plan.kind == "insert" and reason.get("Code") == "ConditionalCheckFailed":
                    reason.clear()
                    reason.update(Code="ValidationError", Message="Duplicate primary key exists in table")
            raise _cancelled(reasons) from None
        response = {"Responses": []}
    if "ConsumedCapacity" in out:
        response["ConsumedCapacity"] = out["ConsumedCapacity"]
    return response


def _transact_item(plan: WritePlan, spec: dict, index: int) -> dict:
    action = {k: v for k, v in plan.request.items() if k != "ReturnValues"}
    on_failure = items.check_on_failure(spec.get("ReturnValuesOnConditionCheckFailure"))
    if on_failure != "NONE" and plan.kind != "insert":
        action["ReturnValuesOnConditionCheckFailure"] = on_failure
    try:  # DynamoDB names the statement whose expression it rejects
        ph = items.placeholders(action)
        if action.get("UpdateExpression") is not None:
            compile_update(action["UpdateExpression"]).bind(ph)
        items.bind_condition(action, ph)
    except ValidationException as error:
        message = _unprefixed(error).message
        raise ValidationException(f"Validation failed in TransactStatements[{index}]: {message}") from None
    return {_TRANSACT_KINDS[plan.operation]: action}


def _cancelled(reasons: list[dict]) -> TransactionCanceledException:
    codes = ", ".join(r["Code"] for r in reasons)
    return TransactionCanceledException(
        f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]",
        CancellationReasons=reasons,
    )


# -- helpers ------------------------------------------------------------------------------------------------


def _statement(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationException(
            "1 validation error detected: Value null at 'statement' failed to satisfy constraint: Member must not "
            "be null"
        )
    if (
        len(value) > MAX_STATEMENT_BYTES // 4
        and len(value.encode("utf-8", "surrogatepass")) > MAX_STATEMENT_BYTES
    ):
        raise ValidationException(f"Member must have length less than or equal to {MAX_STATEMENT_BYTES}")
    return value


def _check_lengths(specs: list) -> None:
    """A statement over the size limit fails the whole batch or transaction, before any statement runs."""
    for spec in specs:
        if isinstance(spec, dict) and isinstance(spec.get("Statement"), str):
            _statement(spec["Statement"])


def _parameters(value: Any) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationException("Parameters must be a list of AttributeValues")
    return [validate_value(v) for v in value]


def _call(handler: Any, engine: Engine, request: dict) -> dict:
    """Run an item operation; expression errors lose the ``Invalid ...Expression:`` prefix, as PartiQL's do."""
    try:
        return handler(engine, request)
    except ValidationException as error:
        raise _unprefixed(error) from None


def _unprefixed(error: ValidationException) -> ValidationException:
    if NESTING in error.message:  # PartiQL's literals say it shorter, in items and in values alike
        return ValidationException(NESTING)
    message = _EXPRESSION_PREFIX.sub("", error.message)
    return error if message == error.message else ValidationException(message)


def _merge_capacity(capacities: list[dict]) -> list[dict]:
    """ConsumedCapacity entries summed per table."""
    by_table: dict[str, dict] = {}
    for capacity in capacities:
        name = capacity.get("TableName", "")
        by_table[name] = _add(by_table[name], capacity) if name in by_table else capacity
    return list(by_table.values())


def _add(a: dict, b: dict) -> dict:
    out = dict(a)
    for key, value in b.items():
        if isinstance(value, dict):
            out[key] = _add(out.get(key, {}), value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = out.get(key, 0) + value
        else:
            out.setdefault(key, value)
    return out


# -- NextToken ----------------------------------------------------------------------------------------------


def encode_token(op_index: int, key: dict | None) -> str:
    """An opaque NextToken: which of the statement's requests to resume, and after which key."""
    wire = {name: _wire(value) for name, value in key.items()} if key is not None else None
    body = {
        "creationTime": round(time.time(), 3),
        "opIndexToExclusiveNextKey": {str(op_index): wire},
        "version": "V1",
    }
    return base64.b64encode(json.dumps(body, separators=(",", ":")).encode()).decode()


def decode_token(token: Any, operations: int) -> tuple[int, dict | None]:
    """(request index, ExclusiveStartKey) of a NextToken; ``Invalid NextToken`` for anything else."""
    try:
        body = jsonlimits.loads(base64.b64decode(token, validate=True))
        ((index, key),) = body["opIndexToExclusiveNextKey"].items()
        index = int(index)
        if not 0 <= index < operations:
            raise ValueError(index)
        if key is not None:
            key = {name: _unwire(value) for name, value in key.items()}
        return index, key
    except (TypeError, ValueError, KeyError, AttributeError, binascii.Error):
        raise ValidationException("Invalid NextToken") from None


def _wire(value: dict) -> dict:
    ((kind, inner),) = value.items()
    return {kind: base64.b64encode(inner).decode()} if kind == "B" else {kind: inner}


def _unwire(value: dict) -> dict:
    ((kind, inner),) = value.items()
    if kind not in ("S", "N", "B") or not isinstance(inner, str):
        raise ValueError(value)
    return {"B": base64.b64decode(inner, validate=True)} if kind == "B" else {kind: inner}
