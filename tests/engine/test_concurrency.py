"""Tables created, used and deleted at once by several threads or processes sharing one database.

Every error a caller sees must be one DynamoDB answers for such a race (ResourceNotFoundException,
ResourceInUseException), never an internal failure, a sqlite3 error or the engine's own retry signal; and what
is left afterwards is whole: every table in the catalog is readable, no data table is orphaned.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

import dynabase
from backends import boto3_client
from dynabase.server import run_in_thread

from . import churn as churn_module

NAMES = ("churn-a", "churn-b")
#: the answers DynamoDB gives to a request that loses a race with CreateTable or DeleteTable
RACE_ERRORS = {"ResourceNotFoundException", "ResourceInUseException"}
#: and the one UpdateTable gives when another call added the same index first
INDEX_RACE = "ValidationException: Attempting to create an index which already exists"
churn = churn_module.churn
SRC = Path(__file__).resolve().parents[2] / "src"


def _run_threads(client: Any, threads: int, seconds: float) -> Counter:
    results: list[dict] = []

    def work(seed: int) -> None:
        results.append(churn(client, seed, seconds, NAMES))

    pool = [threading.Thread(target=work, args=(seed,)) for seed in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    total: Counter = Counter()
    for outcome in results:
        total.update(outcome)
    return total


def _assert_only_race_errors(outcomes: Counter) -> None:
    bad = {
        k: v
        for k, v in outcomes.items()
        if k not in ("ok", INDEX_RACE) and k.split(":")[0] not in RACE_ERRORS
    }
    assert not bad, f"errors no DynamoDB caller should see: {bad}"
    assert outcomes["ok"] > 50, outcomes  # the churn did run calls that succeeded


def _integrity_problems(raw: sqlite3.Connection) -> list[str]:
    """SQLite's integrity check, less its false "NULL value in T.C" on WITHOUT ROWID tables whose NOT NULL column
    precedes primary-key columns (SQLite 3.40 reports it for every row of an index table): such a message
    stands only when a NULL is really there."""
    problems = []
    for (line,) in raw.execute("PRAGMA integrity_check"):
        match = re.fullmatch(r"NULL value in (\w+)\.(\w+)", line)
        if match and not raw.execute(f"SELECT 1 FROM {match[1]} WHERE {match[2]} IS NULL LIMIT 1").fetchone():
            continue
        if line != "ok":
            problems.append(line)
    return problems


def _assert_whole(path: str) -> None:
    """SQLite's integrity check passes and every data table belongs to a table in the catalog."""
    with sqlite3.connect(path) as raw:
        assert _integrity_problems(raw) == []
        ids = {str(r[0]) for r in raw.execute("SELECT id FROM dynabase_tables")}
        sql_tables = [r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    # t<id>, t<id>_<index>, "t<id> parts"
    orphans = [t for t in sql_tables if t.startswith("t") and re.split("[_ ]", t[1:])[0] not in ids]
    assert not orphans, f"data tables with no catalog entry: {orphans}"
    client = dynabase.connect(path)
    try:
        for name in client.list_tables()["TableNames"]:
            client.describe_table(TableName=name)
            client.scan(TableName=name)
    finally:
        client.close()


def test_threads_racing_ddl_on_one_embedded_client_see_only_dynamodb_errors(tmp_path):
    path = str(tmp_path / "churn.db")
    client = dynabase.connect(path)
    try:
        outcomes = _run_threads(client, threads=4, seconds=1.5)
    finally:
        client.close()
    _assert_only_race_errors(outcomes)
    _assert_whole(path)


def test_threads_racing_ddl_in_memory_see_only_dynamodb_errors():
    client = dynabase.connect(":memory:")
    try:
        outcomes = _run_threads(client, threads=3, seconds=1.0)
    finally:
        client.close()
    _assert_only_race_errors(outcomes)


def test_threads_racing_ddl_through_the_server_see_only_dynamodb_errors(tmp_path):
    path = str(tmp_path / "served.db")
    engine = dynabase.Engine(path)
    url, stop = run_in_thread(engine)
    try:
        # SDK retries off (one attempt in all): every 500 reaches the caller
        client = boto3_client("dynamodb", url, retries={"total_max_attempts": 1, "mode": "standard"})
        outcomes = _run_threads(client, threads=3, seconds=1.0)
    finally:
        stop()
        engine.close()
    _assert_only_race_errors(outcomes)
    _assert_whole(path)


@pytest.mark.slow
def test_processes_racing_ddl_on_one_file_see_only_dynamodb_errors(tmp_path):
    import json

    path = str(tmp_path / "shared.db")
    dynabase.connect(path).close()
    procs = [
        subprocess.Popen(
            [sys.executable, churn_module.__file__, path, str(seed), "4", ",".join(NAMES)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(SRC)},
        )
        for seed in range(3)
    ]
    outcomes: Counter = Counter()
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        outcomes.update(json.loads(out))
    _assert_only_race_errors(outcomes)
    _assert_whole(path)


def _put_until_gone(client: Any, failures: list) -> None:
    for n in range(30):
        try:
            client.put_item(TableName="race-table", Item={"pk": {"S": "w"}, "sk": {"S": str(n)}})
        except ClientError as error:
            if error.response["Error"]["Code"] != "ResourceNotFoundException":
                failures.append(error)
            return
        except BaseException as error:  # surfaced by the test
            failures.append(error)
            return


def test_a_call_racing_a_delete_completes_before_it_or_finds_no_table(tmp_path):
    """Each put lands before the DeleteTable (and goes with the table) or gets ResourceNotFoundException;
    none lands in the table created next under the same name."""
    path = str(tmp_path / "race.db")
    client = dynabase.connect(path)
    other = dynabase.connect(path)  # a second connection: its catalog cache goes stale behind its back
    try:
        for round_ in range(15):
            churn_module.create(client, "race-table", random.Random(round_), 0)
            assert client.scan(TableName="race-table")["Count"] == 0
            other.put_item(TableName="race-table", Item={"pk": {"S": "warm"}, "sk": {"S": "0"}})
            failures: list[BaseException] = []
            thread = threading.Thread(target=_put_until_gone, args=(other, failures))
            thread.start()
            time.sleep(0.001 * (round_ % 5))
            client.delete_table(TableName="race-table")
            thread.join()
            assert not failures, failures
    finally:
        client.close()
        other.close()


def test_a_request_whose_table_keeps_changing_gets_its_answer(tmp_path, monkeypatch):
    """Another connection changes the catalog between every look-up and read: the request is run again, the
    last time holding the write lock, and answers as if alone."""
    from dynabase.engine.engine import ATTEMPTS

    path = str(tmp_path / "moving.db")
    client = dynabase.connect(path)
    other = dynabase.connect(path)
    churn_module.create(client, "moving", random.Random(0), 0)
    engine = client.engine
    looked_up = []
    original = engine.catalog.get

    def get_then_change(name, **options):
        table = original(name, **options)
        looked_up.append(engine.storage.conn.in_transaction)
        if len(looked_up) < ATTEMPTS:  # the catalog moves on under the request (not under the last run)
            other.create_table(
                TableName=f"other-{len(looked_up)}",
                KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
        return table

    monkeypatch.setattr(engine.catalog, "get", get_then_change)
    client.put_item(TableName="moving", Item={"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "x"}})
    assert len(looked_up) == ATTEMPTS and looked_up[-1] is True
    monkeypatch.undo()
    assert client.get_item(TableName="moving", Key={"pk": {"S": "a"}, "sk": {"S": "1"}})["Item"]["g"] == {
        "S": "x"
    }
    client.close()
    other.close()


def test_a_nested_write_that_fails_rolls_back_only_its_own_part():
    from dynabase.engine.storage import Storage

    storage = Storage(":memory:")
    storage.conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    with storage.write() as conn:
        conn.execute("INSERT INTO t VALUES ('outer')")
        with pytest.raises(ValueError), storage.write() as inner:
            inner.execute("INSERT INTO t VALUES ('inner')")
            raise ValueError
        with storage.write() as inner:
            inner.execute("INSERT INTO t VALUES ('kept')")
    assert [r[0] for r in storage.conn.execute("SELECT k FROM t ORDER BY k")] == ["kept", "outer"]
    storage.close()


def _add_index(client: Any, index: str, attribute: str) -> None:
    client.update_table(
        TableName="indexed",
        AttributeDefinitions=[{"AttributeName": attribute, "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": index,
                    "KeySchema": [{"AttributeName": attribute, "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )


def test_two_update_tables_at_once_both_land(tmp_path, monkeypatch):
    """Another connection's UpdateTable, made while this one's is under way, is not overwritten by it."""
    path = str(tmp_path / "indexed.db")
    client = dynabase.connect(path)
    other = dynabase.connect(path)
    churn_module.create(client, "indexed", random.Random(1), 0)
    client.put_item(
        TableName="indexed", Item={"pk": {"S": "a"}, "sk": {"S": "1"}, "x": {"S": "1"}, "y": {"S": "2"}}
    )
    racer: list[threading.Thread] = []
    original = client.engine.catalog.get

    def get_then_race(name, **options):
        table = original(name, **options)
        if not racer:  # the other UpdateTable runs now, or waits for this one to commit
            racer.append(threading.Thread(target=_add_index, args=(other, "by-y", "y")))
            racer[0].start()
            racer[0].join(0.5)
        return table

    monkeypatch.setattr(client.engine.catalog, "get", get_then_race)
    _add_index(client, "by-x", "x")
    monkeypatch.undo()
    racer[0].join()
    table = client.describe_table(TableName="indexed")["Table"]
    assert {i["IndexName"] for i in table["GlobalSecondaryIndexes"]} == {"by-g", "by-x", "by-y"}
    for index, attribute in (("by-x", "x"), ("by-y", "y")):
        found = client.query(
            TableName="indexed",
            IndexName=index,
            KeyConditionExpression="#a = :v",
            ExpressionAttributeNames={"#a": attribute},
            ExpressionAttributeValues={":v": {"S": "1" if attribute == "x" else "2"}},
        )["Items"]
        assert [i["pk"] for i in found] == [{"S": "a"}]
    client.close()
    other.close()
    _assert_whole(path)
