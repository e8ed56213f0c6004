"""Batch writes and transactions: the embedded engine against moto and DynamoDB Local, in one run.

Targets (the same requests on each):

* ``dynabase``        -- ``dynabase.connect(<file in a temp dir>)``, in process.
* ``moto``            -- ``moto.mock_aws`` with ``boto3.client("dynamodb")``, in process.
* ``dynamodb-local``  -- AWS DynamoDB Local (installed from npm by the test harness's helper), through boto3.

Operations: ``batch_write`` -- BatchWriteItem of 25 new ~300-byte items; ``transaction`` -- TransactWriteItems
of 10 actions (4 puts, 4 conditional updates, 1 delete, 1 condition check). Each is timed for a fixed number of
calls after a warm-up, repeats interleaved across targets; the figure is the median calls/s (wall clock) and
items or actions per second. Ratios: dynabase / moto and dynabase / DynamoDB Local.

    python bench/batch_bench.py [--quick] [--targets dynabase,moto,dynamodb-local] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))  # the harness's DynamoDB Local provisioning

TABLE = "batchbench"
TARGETS = ("dynabase", "moto", "dynamodb-local")


def _table(client: Any) -> None:
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )


def _item(n: int) -> dict:
    return {
        "pk": {"S": f"p{n % 97}"},
        "sk": {"S": f"s{n:09d}"},
        "name": {"S": "x" * 200},
        "count": {"N": "0"},
        "tags": {"SS": ["a", "b", "c"]},
    }


class Workload:
    """Keeps each target's key counter so every batch writes new items and every transaction has fresh keys."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.n = 0
        for start in range(0, 200, 25):  # items for the transactions to update, delete and check
            self.client.batch_write_item(
                RequestItems={TABLE: [{"PutRequest": {"Item": _item(i)}} for i in range(start, start + 25)]}
            )
        self.n = 1_000_000

    def batch_write(self) -> None:
        base, self.n = self.n, self.n + 25
        self.client.batch_write_item(
            RequestItems={TABLE: [{"PutRequest": {"Item": _item(base + i)}} for i in range(25)]}
        )

    def transaction(self) -> None:
        base, self.n = self.n, self.n + 10
        updates = [
            {
                "Update": {
                    "TableName": TABLE,
                    "Key": {"pk": _item(k)["pk"], "sk": _item(k)["sk"]},
                    "UpdateExpression": "SET #c = #c + :one",
                    "ConditionExpression": "attribute_exists(pk)",
                    "ExpressionAttributeNames": {"#c": "count"},
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            }
            for k in ((base // 10 * 4 + j) % 150 for j in range(4))
        ]
        victim = base - 10  # the first item the previous transaction put
        actions = [{"Put": {"TableName": TABLE, "Item": _item(base + i)}} for i in range(4)]
        actions += updates
        actions.append(
            {"Delete": {"TableName": TABLE, "Key": {"pk": _item(victim)["pk"], "sk": _item(victim)["sk"]}}}
        )
        actions.append(
            {
                "ConditionCheck": {
                    "TableName": TABLE,
                    "Key": {"pk": _item(199)["pk"], "sk": _item(199)["sk"]},
                    "ConditionExpression": "attribute_exists(pk)",
                }
            }
        )
        self.client.transact_write_items(TransactItems=actions)


@contextlib.contextmanager
def target(name: str) -> Iterator[Any]:
    if name == "dynabase":
        import dynabase

        with tempfile.TemporaryDirectory() as folder:
            client = dynabase.connect(os.path.join(folder, "bench.db"))
            _table(client)
            yield client
            client.close()
    elif name == "moto":
        import boto3
        from moto import mock_aws

        with mock_aws():
            client = boto3.client("dynamodb", region_name="us-east-1")
            _table(client)
            yield client
    elif name == "dynamodb-local":
        import boto3

        from backends import DynamoDBLocal, ensure_dynamodb_local

        local = DynamoDBLocal(ensure_dynamodb_local())
        endpoint = local.start()
        try:
            client = boto3.client(
                "dynamodb",
                endpoint_url=endpoint,
                region_name="us-east-1",
                aws_access_key_id="bench",
                aws_secret_access_key="bench",
            )
            _table(client)
            yield client
        finally:
            local.stop()
    else:
        raise SystemExit(f"unknown target {name!r}")


def measure(call: Callable[[], None], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return calls / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer calls per repeat")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    names = [t for t in args.targets.split(",") if t]
    calls = {"dynabase": 200, "moto": 20, "dynamodb-local": 40}
    if args.quick:
        calls = {k: max(5, v // 4) for k, v in calls.items()}
    results: dict[str, dict[str, list[float]]] = {n: {"batch_write": [], "transaction": []} for n in names}
    with contextlib.ExitStack() as stack:
        workloads = {n: Workload(stack.enter_context(target(n))) for n in names}
        for w in workloads.values():  # warm-up
            w.batch_write()
            w.transaction()
        for _ in range(args.repeats):
            for op in ("batch_write", "transaction"):
                for name, w in workloads.items():
                    results[name][op].append(measure(getattr(w, op), calls[name]))
    figures = {n: {op: statistics.median(v) for op, v in ops.items()} for n, ops in results.items()}
    per_call = {"batch_write": 25, "transaction": 10}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus; median of {args.repeats} repeats")
    header = f"{'operation':<14}" + "".join(f"{n + ' calls/s':>26}" for n in names)
    for other in ("moto", "dynamodb-local"):
        if "dynabase" in names and other in names:
            header += f"{'dynabase/' + other:>24}"
    print(header)
    for op in ("batch_write", "transaction"):
        row = f"{op:<14}"
        for n in names:
            row += f"{figures[n][op]:>16,.0f} ({figures[n][op] * per_call[op]:>6,.0f}/s)"
        for other in ("moto", "dynamodb-local"):
            if "dynabase" in names and other in names:
                row += f"{figures['dynabase'][op] / figures[other][op]:>23.1f}x"
        print(row)
    print("(in parentheses: items written per second for batch_write, actions per second for transaction)")
    if args.json:
        Path(args.json).write_text(json.dumps({"figures": figures, "repeats": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
