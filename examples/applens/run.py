"""AppLens end to end on the embedded engine: ``python examples/applens/run.py [DB_PATH | :memory:]``
(DB_PATH: a new file; the demo's items are created, not upserted).

Default: a database file in a temporary directory (and a directory standing in for the S3 bucket).  Creates
the table, uploads runs for two users, drives one run UPLOADED -> PROCESSING -> COMPLETE with its summary and
canonical graph hash and another to FAILED, shows that an illegal transition changes nothing, and queries runs
per user (newest first), the latest run, a run by id (GSI1) and the dashboard summary.
"""

from __future__ import annotations

import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the example importable as the package ``applens``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dynabase
from applens import applens

T0 = datetime(2026, 2, 22, 19, 12, 11, tzinfo=timezone.utc)

GRAPH = {
    "nodes": [
        {"id": "aws_lb.public", "type": "aws_lb", "category": "network", "internetExposed": True},
        {"id": "aws_ecs_service.api", "type": "aws_ecs_service", "category": "compute"},
        {"id": "aws_db_instance.main", "type": "aws_db_instance", "category": "datastore"},
        {"id": "aws_s3_bucket.uploads", "type": "aws_s3_bucket", "category": "datastore"},
    ],
    "edges": [
        {"source": "aws_lb.public", "target": "aws_ecs_service.api", "kind": "routes"},
        {"source": "aws_ecs_service.api", "target": "aws_db_instance.main", "kind": "reads"},
        {"source": "aws_ecs_service.api", "target": "aws_s3_bucket.uploads", "kind": "writes"},
    ],
}


def main(db: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = db or str(Path(tmp) / "applens.db")
        bucket = Path(tmp) / "s3"

        def put_object(key: str, body: bytes) -> None:
            target = bucket / key
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)

        client = dynabase.connect(path)
        table = applens.open_table(client, create=True)
        print(f"table {table.name!r} in {path}")

        print("\n== uploads")
        for i, run_id in enumerate(["a11111", "b22222", "c8a91e"]):
            run = applens.create_run(
                table,
                "12345",
                environment="prod" if i != 1 else "dev",
                iac_s3_key="uploads/prod/12345/main.tf.json",
                run_id=run_id,
                at=T0 + timedelta(minutes=i - 2),
                iacCommitSha="4f2a9c1",
                terraformWorkspace="default",
                accountId="123456789012",
                region="us-east-1",
            )
            print(f"   {run['runId']} {run['status']} created {run['createdAt']}")
        applens.create_run(
            table,
            "67890",
            environment="dev",
            iac_s3_key="uploads/dev/67890/main.tf.json",
            run_id="d44444",
            at=T0,
        )

        print("\n== lifecycle of c8a91e (callbacks know only the run id: GSI1)")
        applens.start_processing(table, "c8a91e", at=T0 + timedelta(seconds=20))
        print("   ", applens.get_run(table, "c8a91e")["status"])
        done = applens.complete_run(
            table, "c8a91e", GRAPH, at=T0 + timedelta(seconds=51), put_object=put_object
        )
        print(
            "   ",
            done["status"],
            {k: done[k] for k in ("nodeCount", "edgeCount", "internetExposedCount", "datastoreCount")},
        )
        print("    graphHash", done["graphHash"])
        print("    graph object", done["graphS3Key"], (bucket / done["graphS3Key"]).read_bytes()[:60], "...")
        try:
            applens.fail_run(table, "c8a91e", "late callback")
        except applens.IllegalTransition as error:
            print("    refused:", error)
        print(
            "    still",
            applens.get_run(table, "c8a91e")["status"],
            "updated",
            applens.get_run(table, "c8a91e")["updatedAt"],
        )

        print("\n== a failing run")
        applens.start_processing(table, "b22222", at=T0)
        print(
            "   ",
            applens.fail_run(table, "b22222", "terraform plan did not parse", at=T0 + timedelta(seconds=5))[
                "status"
            ],
        )
        try:
            applens.complete_run(table, "a11111", GRAPH)
        except applens.IllegalTransition as error:
            print("    refused:", error)

        print("\n== queries")
        print(
            "    runs of 12345, newest first:",
            [(r["runId"], r["status"]) for r in applens.runs_for_user(table, "12345")],
        )
        print(
            "    prod runs:", [r["runId"] for r in applens.runs_for_user(table, "12345", environment="prod")]
        )
        print("    latest:", applens.latest_run(table, "12345")["runId"])
        print("    dashboard:", applens.dashboard(table, "12345", limit=2))
        item = client.get_item(
            TableName=table.name,
            Key={"PK": {"S": "USER#12345"}, "SK": {"S": "RUN#2026-02-22T19:12:11Z#c8a91e"}},
        )["Item"]
        print("    raw item:", {k: next(iter(v.values())) for k, v in item.items()})
        print(
            "    same graph, other order:",
            applens.graph_hash({"edges": GRAPH["edges"][::-1], "nodes": GRAPH["nodes"][::-1]})
            == done["graphHash"],
        )
        client.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
