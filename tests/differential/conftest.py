"""Fixtures of the differential tests: the candidate and the oracle backend, with identical tables.

The backends come from the shared harness (``tests/backends.py``): the embedded engine and the session's
DynamoDB Local.  ``DYNABASE_DIFF_PAIR`` (default ``embedded,dynamodb-local``) names the candidate and the
oracle; ``dynamodb-local,dynamodb-local`` compares DynamoDB Local with itself, which checks the generators and
the normalisation (it must always pass).  The tests are skipped when ``DYNABASE_BACKENDS`` leaves out a
backend of the pair.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from backends import BACKEND_FACTORIES, Backend, selected_backends
from ddb_helpers import delete_table_quietly, gsi, lsi, table_request, wait_table_active

from .harness import Pair, Side
from .strategies import TABLES


def pair_names() -> tuple[str, str]:
    names = [n.strip() for n in os.environ.get("DYNABASE_DIFF_PAIR", "embedded,dynamodb-local").split(",")]
    if len(names) != 2 or any(n not in BACKEND_FACTORIES for n in names):
        raise ValueError(f"DYNABASE_DIFF_PAIR must name two of {sorted(BACKEND_FACTORIES)}, got {names}")
    return names[0], names[1]


@pytest.fixture(scope="session")
def diff_backends(request: pytest.FixtureRequest) -> Iterator[tuple[Backend, Backend]]:
    """(candidate, oracle) backends; one instance when both names are the same."""
    candidate_name, oracle_name = pair_names()
    selected = selected_backends()
    missing = [n for n in (candidate_name, oracle_name) if n not in selected]
    if missing:
        pytest.skip(f"differential tests need {missing} (DYNABASE_BACKENDS={','.join(selected)})")
    instances: dict[str, Backend] = {}
    for name in (candidate_name, oracle_name):
        if name not in instances:
            instances[name] = BACKEND_FACTORIES[name](request)
    try:
        yield instances[candidate_name], instances[oracle_name]
    finally:
        for instance in instances.values():
            instance.close()


def create_tables(client: Any, names: dict[str, str]) -> None:
    for logical, spec in TABLES.items():
        shape = {
            "gsis": [gsi(n, *keys, projection=proj) for n, keys, proj in spec["gsis"]],
            "lsis": [lsi(n, key, projection=proj) for n, key, proj in spec["lsis"]],
        }
        client.create_table(**table_request(names[logical], spec["keys"], **shape))
        wait_table_active(client, names[logical])


def delete_tables(client: Any, names: dict[str, str]) -> None:
    for name in names.values():
        delete_table_quietly(client, name)


def clear_tables(side: Side) -> None:
    """Delete every item of the side's tables, then check they are empty (plain Scan + DeleteItem)."""
    for logical, name in side.tables.items():
        hash_name = TABLES[logical]["keys"][0].split(":")[0]
        key_names = [k.split(":")[0] for k in TABLES[logical]["keys"]]
        for _ in range(5):
            keys = []
            kwargs: dict[str, Any] = {
                "TableName": name,
                "ProjectionExpression": ", ".join(f"#k{i}" for i in range(len(key_names))),
                "ExpressionAttributeNames": {f"#k{i}": k for i, k in enumerate(key_names)},
            }
            while True:
                page = side.client.scan(**kwargs)
                keys.extend(page.get("Items", []))
                if not page.get("LastEvaluatedKey"):
                    break
                kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
            if not keys:
                break
            for key in keys:
                side.client.delete_item(TableName=name, Key=key)
        else:
            raise AssertionError(f"{side.label}: could not empty table {name} ({hash_name})")


@pytest.fixture(scope="session")
def diff_pair(diff_backends: tuple[Backend, Backend]) -> Iterator[Pair]:
    """A :class:`Pair` with the tables of ``strategies.TABLES`` created on both sides (emptied per example)."""
    candidate_backend, oracle_backend = diff_backends
    run_id = uuid.uuid4().hex[:10]
    oracle_names = {logical: f"dynabase_diff-{run_id}-{logical.lower()}" for logical in TABLES}
    if candidate_backend is oracle_backend:
        candidate_names = {logical: f"dynabase_diff-{run_id}-{logical.lower()}-self" for logical in TABLES}
    else:
        candidate_names = dict(
            oracle_names
        )  # same names, so error messages naming tables compare as they are
    candidate = Side(
        candidate_backend.name,
        candidate_backend.client(),
        candidate_names,
        is_dynamodb_local=candidate_backend.name == "dynamodb-local",
    )
    oracle = Side(
        oracle_backend.name,
        oracle_backend.client(),
        oracle_names,
        is_dynamodb_local=oracle_backend.name == "dynamodb-local",
    )
    if candidate_backend is oracle_backend:
        candidate.label += " (2nd set of tables)"
    created: list[tuple[Side, dict[str, str]]] = []
    try:
        for side in (oracle, candidate):
            create_tables(side.client, side.tables)
            created.append((side, side.tables))
        yield Pair(candidate, oracle)
    finally:
        for side, names in created:
            delete_tables(side.client, names)
