"""Helpers for tests that talk to a DynamoDB low-level client: tables with unique names, errors, paging.

Key specs are ``"name:TYPE"`` strings (``"pk:S"``, ``"sk:N"``, ``"b:B"``).  Examples::

    make_table(client, keys=("pk:S", "sk:N"))
    make_table(client, keys=("pk:S",), gsis=[gsi("byEmail", "email:S", projection="KEYS_ONLY")])
    make_table(client, keys=("pk:S", "sk:S"), lsis=[lsi("byDate", "date:S", projection=["a", "b"])])
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest
from botocore.exceptions import ClientError

from aws_differences import difference

TABLE_PREFIX = "dynabase_test-"

#: set by the ``_oracle_flag`` fixture (``tests/conftest.py``): the test runs on DynamoDB Local, whose listed
#: differences from AWS (``aws_differences``) ``assert_client_error`` accepts in place of AWS's message
ON_DYNAMODB_LOCAL = False

Item = dict[str, Any]


def unique_table_name(prefix: str = TABLE_PREFIX) -> str:
    return f"{prefix}{uuid.uuid4().hex[:16]}"


def parse_key(spec: str | tuple[str, str]) -> tuple[str, str]:
    if isinstance(spec, tuple):
        return spec
    name, _, type_ = spec.rpartition(":")
    if not name or type_ not in ("S", "N", "B"):
        raise ValueError(f"bad key spec {spec!r}; want 'name:S', 'name:N' or 'name:B'")
    return name, type_


def key_schema(keys: Sequence[str | tuple[str, str]]) -> list[dict[str, str]]:
    parsed = [parse_key(k) for k in keys]
    roles = ("HASH", "RANGE")
    return [{"AttributeName": name, "KeyType": roles[i]} for i, (name, _) in enumerate(parsed)]


def projection_spec(spec: str | Sequence[str] = "ALL") -> dict[str, Any]:
    """``"ALL"``, ``"KEYS_ONLY"``, or a list of non-key attribute names for ``INCLUDE``."""
    if isinstance(spec, str):
        return {"ProjectionType": spec}
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(spec)}


def gsi(
    name: str,
    *keys: str,
    projection: str | Sequence[str] = "ALL",
    throughput: tuple[int, int] | None = None,
) -> dict[str, Any]:
    index: dict[str, Any] = {
        "IndexName": name,
        "KeySchema": key_schema(keys),
        "Projection": projection_spec(projection),
        "_keys": [parse_key(k) for k in keys],
    }
    if throughput:
        index["ProvisionedThroughput"] = {
            "ReadCapacityUnits": throughput[0],
            "WriteCapacityUnits": throughput[1],
        }
    return index


def lsi(name: str, range_key: str, projection: str | Sequence[str] = "ALL") -> dict[str, Any]:
    """An LSI; its hash key is filled in from the table's by :func:`make_table`."""
    return {
        "IndexName": name,
        "_range": parse_key(range_key),
        "Projection": projection_spec(projection),
    }


def table_request(
    name: str,
    keys: Sequence[str | tuple[str, str]] = ("pk:S",),
    gsis: Iterable[dict[str, Any]] = (),
    lsis: Iterable[dict[str, Any]] = (),
    throughput: tuple[int, int] | None = None,
    stream: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """CreateTable parameters for a shape; PAY_PER_REQUEST unless ``throughput`` is given."""
    attributes: dict[str, str] = {}
    table_keys = [parse_key(k) for k in keys]
    for key_name, type_ in table_keys:
        attributes[key_name] = type_
    request: dict[str, Any] = {"TableName": name, "KeySchema": key_schema(table_keys)}
    gsi_list = []
    for index in gsis:
        index = dict(index)
        for key_name, type_ in index.pop("_keys", []):
            attributes[key_name] = type_
        if throughput and "ProvisionedThroughput" not in index:
            index["ProvisionedThroughput"] = {
                "ReadCapacityUnits": throughput[0],
                "WriteCapacityUnits": throughput[1],
            }
        gsi_list.append(index)
    lsi_list = []
    for index in lsis:
        index = dict(index)
        range_name, range_type = index.pop("_range")
        attributes[range_name] = range_type
        index["KeySchema"] = [
            {"AttributeName": table_keys[0][0], "KeyType": "HASH"},
            {"AttributeName": range_name, "KeyType": "RANGE"},
        ]
        lsi_list.append(index)
    request["AttributeDefinitions"] = [
        {"AttributeName": n, "AttributeType": t} for n, t in attributes.items()
    ]
    if gsi_list:
        request["GlobalSecondaryIndexes"] = gsi_list
    if lsi_list:
        request["LocalSecondaryIndexes"] = lsi_list
    if throughput:
        request["BillingMode"] = "PROVISIONED"
        request["ProvisionedThroughput"] = {
            "ReadCapacityUnits": throughput[0],
            "WriteCapacityUnits": throughput[1],
        }
    else:
        request["BillingMode"] = "PAY_PER_REQUEST"
    if stream:
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream}
    request.update(extra)
    return request


def wait_table_active(client: Any, name: str, timeout: float = 120) -> dict[str, Any]:
    """Wait until the table and all its GSIs are ACTIVE (immediate on Local and the embedded engine)."""
    deadline = time.monotonic() + timeout
    while True:
        table = client.describe_table(TableName=name)["Table"]
        statuses = [table["TableStatus"]] + [
            g.get("IndexStatus", "ACTIVE") for g in table.get("GlobalSecondaryIndexes", [])
        ]
        if all(s == "ACTIVE" for s in statuses):
            return table
        if time.monotonic() > deadline:
            raise TimeoutError(f"table {name} not ACTIVE after {timeout}s: {statuses}")
        time.sleep(0.2)


def make_table(client: Any, keys: Sequence[str | tuple[str, str]] = ("pk:S",), **shape: Any) -> str:
    """Create a uniquely named table of a shape (see :func:`table_request`), wait for it, return its name."""
    name = shape.pop("name", None) or unique_table_name()
    client.create_table(**table_request(name, keys, **shape))
    wait_table_active(client, name)
    return name


def delete_table_quietly(client: Any, name: str) -> None:
    try:
        client.delete_table(TableName=name)
    except ClientError as error:
        if error.response["Error"]["Code"] != "ResourceNotFoundException":
            raise


# -- errors -----------------------------------------------------------------------------------------------------


#: the table-name pattern's constraint, in AWS's words
NAME_PATTERN = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"


def violation(value: Any, path: str, constraint: str) -> str:
    """One constraint violation as AWS words it (``value`` None: ``Value null``; ``...`` as the value: the newer
    form that names the member and quotes no value)."""
    if value is ...:
        return f"Value at '{path}' failed to satisfy constraint: {constraint}"
    shown = "null" if value is None else f"'{value}'"
    return f"Value {shown} at '{path}' failed to satisfy constraint: {constraint}"


def validation_errors(*violations: str) -> str:
    """AWS's ValidationException message listing ``violations``."""
    noun = "error" if len(violations) == 1 else "errors"
    return f"{len(violations)} validation {noun} detected: " + "; ".join(violations)


def assert_client_error(
    exc_info_or_callable: Any,
    code: str,
    message: str | re.Pattern[str] | None = None,
) -> ClientError:
    """Assert a ``ClientError``'s code and message; returns the error.

    Accepts a ``pytest.raises`` ExceptionInfo, a ClientError, or a zero-argument callable expected to raise.
    ``message`` is compared exactly when a ``str``, with ``fullmatch`` when a compiled regex.
    """
    if callable(exc_info_or_callable) and not isinstance(exc_info_or_callable, BaseException):
        with pytest.raises(ClientError) as exc_info:
            exc_info_or_callable()
        error = exc_info.value
    elif isinstance(exc_info_or_callable, BaseException):
        error = exc_info_or_callable
    else:
        error = exc_info_or_callable.value
    assert isinstance(error, ClientError), f"expected ClientError, got {error!r}"
    got_code = error.response["Error"]["Code"]
    got_message = error.response["Error"].get("Message")
    assert got_code == code, f"error code {got_code!r} != {code!r} (message: {got_message!r})"
    if isinstance(message, re.Pattern):
        assert got_message is not None and message.fullmatch(got_message), (
            f"error message {got_message!r} does not match {message.pattern!r}"
        )
    elif message is not None and got_message != message:
        known = difference(code, got_message, message) if ON_DYNAMODB_LOCAL else None
        assert known is not None, f"error message\n  got:  {got_message!r}\n  want: {message!r}"
    return error


def raises_client_error(
    call: Callable[..., Any], code: str, message: Any = None, **kwargs: Any
) -> ClientError:
    """``assert_client_error(lambda: call(**kwargs), code, message)``."""
    return assert_client_error(lambda: call(**kwargs), code, message)


# -- data -------------------------------------------------------------------------------------------------------


def put_items(client: Any, table: str, items: Iterable[Item]) -> list[Item]:
    items = list(items)
    for item in items:
        client.put_item(TableName=table, Item=item)
    return items


def query_all(client: Any, **kwargs: Any) -> list[Item]:
    """Every item a query returns, following LastEvaluatedKey."""
    items: list[Item] = []
    while True:
        page = client.query(**kwargs)
        items.extend(page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def scan_all(client: Any, **kwargs: Any) -> list[Item]:
    """Every item a scan returns, following LastEvaluatedKey."""
    items: list[Item] = []
    while True:
        page = client.scan(**kwargs)
        items.extend(page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _sort_value(value: dict[str, Any]) -> tuple:
    ((type_, inner),) = value.items()
    if type_ == "N":
        from decimal import Decimal

        return (type_, Decimal(inner))
    if type_ == "B":
        return (type_, bytes(inner))
    return (type_, repr(inner))


def sorted_items(items: Iterable[Item], *attrs: str) -> list[Item]:
    """Items in a canonical order (by the given attributes, default all of them): for unordered results."""

    def sort_key(item: Item) -> tuple:
        names = attrs or sorted(item)
        return tuple((n, _sort_value(item[n])) if n in item else (n, ("",)) for n in names)

    return sorted(items, key=sort_key)


def values(items: Iterable[Item], attr: str) -> list[Any]:
    """The raw inner values of one attribute across items (``[{"sk": {"N": "1"}}] -> ["1"]``)."""
    out = []
    for item in items:
        ((_, inner),) = item[attr].items()
        out.append(inner)
    return out


def S(value: str) -> dict[str, str]:
    return {"S": value}


def N(value: Any) -> dict[str, str]:
    return {"N": str(value)}


def B(value: bytes) -> dict[str, bytes]:
    return {"B": value}


def on_small_stack(function: Callable[[], Any], stack_size: int = 512 * 1024) -> Any:
    """``function()`` on a new thread with a small stack, as a server's request threads may have; its result,
    or its exception re-raised here. Also checks that it leaves the process's recursion limit as it found it."""
    import sys
    import threading

    limit = sys.getrecursionlimit()
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as error:  # handed to the caller's thread
            outcome.append((False, error))

    old = threading.stack_size(stack_size)
    try:
        thread = threading.Thread(target=run)
    finally:
        threading.stack_size(old)
    thread.start()
    thread.join()
    assert sys.getrecursionlimit() == limit
    ok, value = outcome[0]
    if not ok:
        raise value
    return value
