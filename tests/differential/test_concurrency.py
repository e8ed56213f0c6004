"""Concurrency differential: threads racing conditional increments and transactions must leave the serial end state.

The same workload runs on the embedded engine and on DynamoDB Local (each on its own fresh table), with several
threads sharing one client:

* optimistic increments: read a counter, write ``n + 1`` on condition ``n = old`` (retry when beaten);
* atomic increments: ``ADD n :1``;
* transfers between accounts as TransactWriteItems (debit on condition of funds, credit, ledger ``ADD``),
  retried when cancelled for a conflict; some transfers can never be funded and must be cancelled with
  ``ConditionalCheckFailed`` and leave nothing behind;
* a reader checking with TransactGetItems that the money is conserved in every snapshot.

Every transfer that can succeed is retried until it does, so the end state is fully determined: counters equal
threads x increments, balances equal the initial ones plus the transfers, the ledger counts exactly the
transfers that went through, and both backends end with equal tables.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError

from ddb_helpers import delete_table_quietly, make_table, scan_all

from .harness import multiset

THREADS = 4
INCREMENTS = 30  # per thread, of each kind of counter
TRANSFERS = 25  # per thread
ACCOUNTS = ["acct-0", "acct-1", "acct-2", "acct-3"]
INITIAL = 1000
MAX_ATTEMPTS = 500
DEADLINE_SECONDS = 120
RETRY = object()  # an attempt's result meaning: try again


def _key(pk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}}


def _code(error: ClientError) -> str:
    return error.response["Error"]["Code"]


def _reasons(error: ClientError) -> list[str]:
    return [r.get("Code", "None") for r in error.response.get("CancellationReasons", [])]


def _plan(thread: int) -> list[tuple[str, str, int]]:
    """The transfers of one thread: (from, to, amount); deterministic, so both backends do the same ones."""
    rng = random.Random(thread)
    plan = []
    for _ in range(TRANSFERS):
        source, target = rng.sample(ACCOUNTS, 2)
        plan.append((source, target, rng.randint(1, 20)))
    return plan


class Workload:
    def __init__(self, client: Any, table: str) -> None:
        self.client = client
        self.table = table
        self.errors: list[str] = []
        self.impossible_cancelled = 0
        self.deadline = time.monotonic() + DEADLINE_SECONDS
        self.stop_reader = threading.Event()
        self.snapshots = 0
        self.retries = 0

    def setup(self) -> None:
        for account in ACCOUNTS:
            self.client.put_item(TableName=self.table, Item={**_key(account), "bal": {"N": str(INITIAL)}})
        self.client.put_item(TableName=self.table, Item={**_key("optimistic"), "n": {"N": "0"}})

    def _retrying(self, what: str, attempt: Any) -> Any:
        for _ in range(MAX_ATTEMPTS):
            if time.monotonic() > self.deadline:
                raise TimeoutError(f"{what}: still retrying at the deadline")
            result = attempt()
            if result is not RETRY:
                return result
            self.retries += 1
            time.sleep(random.random() * 0.002)
        raise AssertionError(f"{what}: no success in {MAX_ATTEMPTS} attempts")

    def optimistic_increment(self) -> None:
        def attempt() -> Any:
            item = self.client.get_item(TableName=self.table, Key=_key("optimistic"), ConsistentRead=True)[
                "Item"
            ]
            old = item["n"]["N"]
            try:
                self.client.update_item(
                    TableName=self.table,
                    Key=_key("optimistic"),
                    UpdateExpression="SET #n = :new",
                    ConditionExpression="#n = :old",
                    ExpressionAttributeNames={"#n": "n"},
                    ExpressionAttributeValues={":new": {"N": str(int(old) + 1)}, ":old": {"N": old}},
                )
            except ClientError as error:
                if _code(error) in ("ConditionalCheckFailedException", "TransactionConflictException"):
                    return RETRY
                raise
            return None

        self._retrying("optimistic increment", attempt)

    def atomic_increment(self) -> None:
        def attempt() -> Any:
            try:
                self.client.update_item(
                    TableName=self.table,
                    Key=_key("atomic"),
                    UpdateExpression="ADD #n :one",
                    ExpressionAttributeNames={"#n": "n"},
                    ExpressionAttributeValues={":one": {"N": "1"}},
                )
            except ClientError as error:
                if _code(error) == "TransactionConflictException":  # DynamoDB Local, racing a transaction
                    return RETRY
                raise
            return None

        self._retrying("atomic increment", attempt)

    def _transfer_items(self, source: str, target: str, amount: int) -> list[dict[str, Any]]:
        names = {"#b": "bal"}
        return [
            {
                "Update": {
                    "TableName": self.table,
                    "Key": _key(source),
                    "UpdateExpression": "SET #b = #b - :x",
                    "ConditionExpression": "#b >= :x",
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": {":x": {"N": str(amount)}},
                }
            },
            {
                "Update": {
                    "TableName": self.table,
                    "Key": _key(target),
                    "UpdateExpression": "SET #b = #b + :x",
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": {":x": {"N": str(amount)}},
                }
            },
            {
                "Update": {
                    "TableName": self.table,
                    "Key": _key("ledger"),
                    "UpdateExpression": "ADD #c :one, #t :x",
                    "ExpressionAttributeNames": {"#c": "count", "#t": "total"},
                    "ExpressionAttributeValues": {":one": {"N": "1"}, ":x": {"N": str(amount)}},
                }
            },
        ]

    def transfer(self, source: str, target: str, amount: int) -> None:
        def attempt() -> Any:
            try:
                self.client.transact_write_items(TransactItems=self._transfer_items(source, target, amount))
            except ClientError as error:
                if _code(error) == "TransactionConflictException" or (
                    _code(error) == "TransactionCanceledException"
                    and "TransactionConflict" in _reasons(error)
                ):
                    return RETRY
                raise
            return None

        self._retrying(f"transfer {source}->{target} {amount}", attempt)

    def impossible_transfer(self, source: str, target: str) -> None:
        """More than all the money there is: must be cancelled for the debit's condition, every time."""

        def attempt() -> Any:
            try:
                self.client.transact_write_items(
                    TransactItems=self._transfer_items(source, target, INITIAL * len(ACCOUNTS) + 1)
                )
            except ClientError as error:
                reasons = _reasons(error)
                if "TransactionConflict" in reasons or _code(error) == "TransactionConflictException":
                    return RETRY
                if _code(error) == "TransactionCanceledException" and reasons == [
                    "ConditionalCheckFailed",
                    "None",
                    "None",
                ]:
                    self.impossible_cancelled += 1
                    return None
                raise
            self.errors.append(f"an unfundable transfer {source}->{target} went through")
            return None

        self._retrying("impossible transfer", attempt)

    def worker(self, thread: int) -> None:
        try:
            plan = _plan(thread)
            for step in range(max(INCREMENTS, TRANSFERS)):
                if step < INCREMENTS:
                    self.optimistic_increment()
                    self.atomic_increment()
                if step < TRANSFERS:
                    self.transfer(*plan[step])
                if step % 5 == 0:
                    self.impossible_transfer(
                        ACCOUNTS[thread % len(ACCOUNTS)], ACCOUNTS[(thread + 1) % len(ACCOUNTS)]
                    )
        except Exception as error:  # reported by the test, with the thread
            self.errors.append(f"thread {thread}: {type(error).__name__}: {error}")

    def reader(self) -> None:
        """TransactGetItems is a snapshot: the balances always add up to the initial total."""
        try:
            while not self.stop_reader.is_set() and time.monotonic() < self.deadline:
                try:
                    response = self.client.transact_get_items(
                        TransactItems=[
                            {"Get": {"TableName": self.table, "Key": _key(account)}} for account in ACCOUNTS
                        ]
                    )
                except ClientError as error:
                    if _code(error) in ("TransactionCanceledException", "TransactionConflictException"):
                        continue  # DynamoDB Local cancels reads that race a write transaction
                    raise
                total = sum(int(r["Item"]["bal"]["N"]) for r in response["Responses"])
                self.snapshots += 1
                if total != INITIAL * len(ACCOUNTS):
                    self.errors.append(
                        f"a TransactGetItems snapshot saw a half-applied transfer: total {total}"
                    )
                    return
        except Exception as error:
            self.errors.append(f"reader: {type(error).__name__}: {error}")

    def run(self) -> None:
        workers = [threading.Thread(target=self.worker, args=(t,)) for t in range(THREADS)]
        reader = threading.Thread(target=self.reader)
        reader.start()
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join(DEADLINE_SECONDS + 30)
        self.stop_reader.set()
        reader.join(30)


def expected_state() -> dict[str, dict[str, Any]]:
    balances = dict.fromkeys(ACCOUNTS, INITIAL)
    count = total = 0
    for thread in range(THREADS):
        for source, target, amount in _plan(thread):
            balances[source] -= amount
            balances[target] += amount
            count += 1
            total += amount
    state = {a: {**_key(a), "bal": {"N": str(b)}} for a, b in balances.items()}
    state["optimistic"] = {**_key("optimistic"), "n": {"N": str(THREADS * INCREMENTS)}}
    state["atomic"] = {**_key("atomic"), "n": {"N": str(THREADS * INCREMENTS)}}
    state["ledger"] = {**_key("ledger"), "count": {"N": str(count)}, "total": {"N": str(total)}}
    return state


def run_on(client: Any) -> tuple[list[dict[str, Any]], Workload]:
    table = make_table(client, ("pk:S",), name=f"dynabase_diff-conc-{uuid.uuid4().hex[:10]}")
    try:
        workload = Workload(client, table)
        workload.setup()
        workload.run()
        return scan_all(client, TableName=table, ConsistentRead=True), workload
    finally:
        delete_table_quietly(client, table)


@pytest.mark.parametrize("side", ["oracle", "candidate"])
def test_concurrent_increments_and_transactions(diff_backends: Any, side: str) -> None:
    """Each backend ends in the serial state (so both end in the same state)."""
    candidate, oracle = diff_backends
    backend = oracle if side == "oracle" else candidate
    items, workload = run_on(backend.client())
    assert not workload.errors, f"{backend.name}: " + "\n".join(workload.errors)
    expected_impossible = sum(1 for step in range(max(INCREMENTS, TRANSFERS)) if step % 5 == 0) * THREADS
    assert workload.impossible_cancelled == expected_impossible, backend.name
    assert workload.snapshots > 0, f"{backend.name}: the reader never got a snapshot"
    print(f"{backend.name}: {workload.retries} retries after conflicts, {workload.snapshots} snapshots read")
    got, want = multiset(items), multiset(list(expected_state().values()))
    assert got == want, f"{backend.name}: the end state is not the serial one\n got: {got}\nwant: {want}"


@pytest.fixture(autouse=True)
def _no_leftover_threads() -> Any:
    before = set(threading.enumerate())
    yield
    leftover = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    assert not leftover, f"threads left running: {leftover}"
