"""AppLens (examples/applens): key formats and the page's example item, runs per user newest first, lookup by
run id (GSI1), the guarded status lifecycle, summary fields and the canonical graph hash, on every backend."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from applens import applens

from ddb_helpers import delete_table_quietly, unique_table_name
from dynabase.model import NotFoundError, ValidationError

T0 = datetime(2026, 2, 22, 19, 12, 11, tzinfo=timezone.utc)
IAC = "uploads/prod/12345/main.tf.json"


@pytest.fixture
def table(client: Any):
    table = applens.open_table(client, unique_table_name("applens-"), create=True)
    yield table
    delete_table_quietly(client, table.name)


def raw(table, user: str, created: str, run_id: str) -> dict[str, Any] | None:
    return table.client.get_item(
        TableName=table.name,
        Key={"PK": {"S": f"USER#{user}"}, "SK": {"S": f"RUN#{created}#{run_id}"}},
        ConsistentRead=True,
    ).get("Item")


def plain(item: dict[str, Any]) -> dict[str, Any]:
    """A raw item as the page writes items: strings as strings, numbers as ints."""
    return {k: int(v["N"]) if "N" in v else v["S"] for k, v in item.items()}


def page_graph() -> dict[str, Any]:
    """A graph with the page's example summary: 42 nodes, 67 edges, 2 internet-exposed, 4 datastores."""
    nodes = [{"id": f"n{i:02d}", "category": "compute"} for i in range(42)]
    for node in nodes[:2]:
        node["internetExposed"] = True
    for node in nodes[2:6]:
        node["category"] = "datastore"
    edges = [{"source": f"n{i % 42:02d}", "target": f"n{(i * 7 + 1) % 42:02d}", "n": i} for i in range(67)]
    return {"nodes": nodes, "edges": edges}


def test_the_page_example_item(table):
    applens.create_run(table, "12345", environment="prod", iac_s3_key=IAC, run_id="c8a91e", at=T0)
    applens.start_processing(table, "c8a91e", at=T0 + timedelta(seconds=20))
    graph = page_graph()
    applens.complete_run(table, "c8a91e", graph, at=T0 + timedelta(seconds=51))
    item = plain(raw(table, "12345", "2026-02-22T19:12:11Z", "c8a91e"))
    # the page's example item, its graphHash being the real hash of this graph
    assert {k: v for k, v in item.items() if k not in ("GSI1PK", "GSI1SK", "_type")} == {
        "PK": "USER#12345",
        "SK": "RUN#2026-02-22T19:12:11Z#c8a91e",
        "runId": "c8a91e",
        "status": "COMPLETE",
        "environment": "prod",
        "createdAt": "2026-02-22T19:12:11Z",
        "updatedAt": "2026-02-22T19:13:02Z",
        "graphS3Key": "graphs/prod/12345/c8a91e/graph.json",
        "iacS3Key": "uploads/prod/12345/main.tf.json",
        "analysisS3Key": "reports/prod/12345/c8a91e/risk.json",
        "nodeCount": 42,
        "edgeCount": 67,
        "internetExposedCount": 2,
        "datastoreCount": 4,
        "graphHash": applens.graph_hash(graph),
    }
    assert (item["GSI1PK"], item["GSI1SK"]) == ("RUN#c8a91e", "USER#12345")
    assert item["graphHash"].startswith("sha256:") and len(item["graphHash"]) == 7 + 64


def test_runs_per_user_newest_first_and_latest(table):
    for i in range(5):
        applens.create_run(
            table,
            "u1",
            environment="prod" if i % 2 else "dev",
            iac_s3_key=IAC,
            run_id=f"r{i}",
            at=T0 + timedelta(minutes=i),
        )
    applens.create_run(
        table, "u2", environment="prod", iac_s3_key=IAC, run_id="x1", at=T0 + timedelta(hours=1)
    )
    assert [r["runId"] for r in applens.runs_for_user(table, "u1")] == ["r4", "r3", "r2", "r1", "r0"]
    assert [r["runId"] for r in applens.runs_for_user(table, "u1", environment="prod")] == ["r3", "r1"]
    first = applens.runs_for_user(table, "u1", limit=2)
    assert [r["runId"] for r in first] == ["r4", "r3"]
    rest = applens.runs_for_user(table, "u1", next=first.next)
    assert [r["runId"] for r in rest] == ["r2", "r1", "r0"]
    assert applens.latest_run(table, "u1")["runId"] == "r4"
    assert applens.latest_run(table, "u2")["runId"] == "x1"
    assert applens.latest_run(table, "nobody") is None
    assert [r["userId"] for r in applens.runs_for_user(table, "u2")] == ["u2"]  # read back from PK


def test_lookup_by_run_id_through_gsi1(table):
    applens.create_run(table, "u1", environment="dev", iac_s3_key=IAC, run_id="abc123", at=T0)
    applens.create_run(table, "u2", environment="dev", iac_s3_key=IAC, run_id="def456", at=T0)
    run = applens.get_run(table, "def456")
    assert (run["userId"], run["createdAt"], run["status"]) == ("u2", "2026-02-22T19:12:11Z", "UPLOADED")
    assert applens.get_run(table, "nope00") is None
    query = table.client.query(
        TableName=table.name,
        IndexName="GSI1",
        KeyConditionExpression="GSI1PK = :pk",
        ExpressionAttributeValues={":pk": {"S": "RUN#abc123"}},
    )
    assert [(i["GSI1SK"]["S"], i["SK"]["S"]) for i in query["Items"]] == [
        ("USER#u1", "RUN#2026-02-22T19:12:11Z#abc123")
    ]


def test_lifecycle_and_illegal_transitions_change_nothing(table):
    applens.create_run(table, "u1", environment="prod", iac_s3_key=IAC, run_id="aaa111", at=T0)
    applens.create_run(
        table, "u1", environment="prod", iac_s3_key=IAC, run_id="bbb222", at=T0 + timedelta(seconds=1)
    )
    key_a = ("u1", "2026-02-22T19:12:11Z", "aaa111")

    def refused(action, *args, **kwargs):
        before = raw(table, *key_a)
        with pytest.raises(applens.IllegalTransition):
            action(table, "aaa111", *args, **kwargs)
        assert raw(table, *key_a) == before

    refused(applens.complete_run, page_graph())  # UPLOADED -> COMPLETE
    refused(applens.fail_run, "nope")  # UPLOADED -> FAILED
    processing = applens.start_processing(table, "aaa111", at=T0 + timedelta(seconds=5))
    assert (processing["status"], processing["updatedAt"]) == ("PROCESSING", "2026-02-22T19:12:16Z")
    refused(applens.start_processing)  # PROCESSING -> PROCESSING
    done = applens.complete_run(table, "aaa111", page_graph(), at=T0 + timedelta(seconds=9))
    assert done["status"] == "COMPLETE" and done["nodeCount"] == 42
    refused(applens.fail_run, "late callback")  # COMPLETE -> FAILED
    refused(applens.complete_run, {"nodes": [], "edges": []})  # the graph is immutable per run
    refused(applens.start_processing)  # COMPLETE -> PROCESSING

    applens.start_processing(table, "bbb222")
    failed = applens.fail_run(table, "bbb222", "plan did not parse")
    assert (failed["status"], failed["failureReason"]) == ("FAILED", "plan did not parse")
    assert "graphHash" not in failed
    with pytest.raises(applens.IllegalTransition):
        applens.complete_run(table, "bbb222", page_graph())

    with pytest.raises(ValueError):
        applens._transition(table, "aaa111", "UPLOADED", at=None)
    with pytest.raises(NotFoundError):
        applens.start_processing(table, "zzz999")
    assert [r["status"] for r in applens.runs_for_user(table, "u1")] == ["FAILED", "COMPLETE"]


def test_complete_uploads_the_canonical_graph(table):
    stored: dict[str, bytes] = {}
    applens.create_run(table, "u1", environment="dev", iac_s3_key=IAC, run_id="ccc333", at=T0)
    applens.start_processing(table, "ccc333")
    graph = page_graph()
    run = applens.complete_run(table, "ccc333", graph, put_object=stored.__setitem__)
    body = stored["graphs/dev/u1/ccc333/graph.json"]
    assert run["graphS3Key"] == "graphs/dev/u1/ccc333/graph.json"
    assert run["graphHash"] == "sha256:" + hashlib.sha256(body).hexdigest()
    assert json.loads(body)["nodes"][0]["id"] == "n00"


def test_validation_of_fields(table):
    with pytest.raises(ValidationError):
        applens.create_run(table, "u1", environment="staging", iac_s3_key=IAC, run_id="r1", at=T0)
    with pytest.raises(ValidationError):
        table.GraphRun.create(
            {
                "userId": "u1",
                "runId": "r1",
                "status": "UPLOADED",
                "environment": "dev",
                "createdAt": "2026-02-22 19:12:11",
                "updatedAt": "2026-02-22T19:12:11Z",
            }
        )
    with pytest.raises(ValidationError):
        applens.create_run(table, "u1", environment="dev", iac_s3_key=IAC, run_id="r1", at=T0, accountId="12")
    applens.create_run(table, "u1", environment="dev", iac_s3_key=IAC, run_id="r1", at=T0)
    with pytest.raises(ValidationError):
        table.GraphRun.update(
            {
                "userId": "u1",
                "createdAt": "2026-02-22T19:12:11Z",
                "runId": "r1",
                "graphHash": "sha256:abc123...",
            }
        )
    scan = table.client.scan(TableName=table.name)["Items"]
    assert len(scan) == 1 and "graphHash" not in scan[0]


def test_dashboard_reads_summary_fields_only(table):
    applens.create_run(table, "u1", environment="dev", iac_s3_key=IAC, run_id="r1", at=T0)
    applens.start_processing(table, "r1")
    applens.complete_run(table, "r1", page_graph())
    applens.create_run(
        table, "u1", environment="dev", iac_s3_key=IAC, run_id="r2", at=T0 + timedelta(minutes=1)
    )
    board = applens.dashboard(table, "u1")
    assert [r["runId"] for r in board] == ["r2", "r1"]
    assert board[1] == {
        "runId": "r1",
        "status": "COMPLETE",
        "environment": "dev",
        "createdAt": "2026-02-22T19:12:11Z",
        "nodeCount": 42,
        "edgeCount": 67,
        "internetExposedCount": 2,
        "datastoreCount": 4,
    }


# == canonical JSON (no database) ==============================================================================


def test_canonical_json_is_exactly_defined():
    value = {"b": [1, 2.5, True, None], "a": {"é": 'ü\n"', "Z": 1e-7}, "A": ""}
    assert (
        applens.canonical_json(value)
        == '{"A":"","a":{"Z":1e-07,"é":"ü\\n\\""},"b":[1,2.5,true,null]}'.encode()
    )
    assert applens.canonical_json({"x": "€"}) == b'{"x":"\xe2\x82\xac"}'  # UTF-8, not \\u20ac
    with pytest.raises(ValueError):
        applens.canonical_json({"x": float("nan")})


def test_graph_hash_is_order_independent_and_content_sensitive():
    graph = page_graph()
    shuffled = {"edges": graph["edges"][::-1], "nodes": graph["nodes"][::-1]}
    assert applens.graph_hash(shuffled) == applens.graph_hash(graph)
    expected = hashlib.sha256(applens.canonical_json(applens.canonical_graph(graph))).hexdigest()
    assert applens.graph_hash(graph) == f"sha256:{expected}"
    changed = page_graph()
    changed["nodes"][5]["category"] = "compute"
    assert applens.graph_hash(changed) != applens.graph_hash(graph)
    assert applens.summarize(changed)["datastoreCount"] == 3


def test_run_end_to_end_on_the_embedded_default(capsys):
    from applens import run

    run.main()
    out = capsys.readouterr().out
    assert "refused: run c8a91e: COMPLETE -> FAILED is not allowed" in out
    assert "same graph, other order: True" in out
