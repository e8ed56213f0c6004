"""``dynabase streams tail`` and ``dynabase streams run``."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

import dynabase
from ddb_helpers import table_request
from dynabase.cli.main import main
from processes import dynabase_command

SRC = Path(__file__).resolve().parent.parent.parent / "src"

HANDLER = """
import json, os

def handle(event, context):
    with open(os.environ["OUT"], "a") as out:
        for record in event["Records"]:
            key = record["dynamodb"]["Keys"]["pk"]["S"]
            if key == "bad":
                raise RuntimeError("cannot take bad")
            out.write(json.dumps([record["eventName"], key, context.entities is not None]) + "\\n")
"""


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "app.db"
    client = dynabase.connect(str(path))
    client.create_table(**table_request("orders", ("pk:S",), stream="NEW_AND_OLD_IMAGES"))
    client.create_table(**table_request("plain", ("pk:S",)))
    client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "total": {"N": "5"}})
    client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "total": {"N": "6"}})
    client.delete_item(TableName="orders", Key={"pk": {"S": "a"}})
    client.close()
    return str(path)


def test_tail_prints_lambda_records_as_json_lines(db, capsys):
    assert main(["streams", "tail", "orders", "--db", db]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    assert records[1]["dynamodb"]["OldImage"]["total"] == {"N": "5"}
    assert records[0]["eventSourceARN"].startswith("arn:aws:dynamodb:")


def test_tail_pretty_and_latest(db, capsys):
    assert main(["streams", "tail", "orders", "--db", db, "--format", "pretty"]) == 0
    out = capsys.readouterr().out
    assert "MODIFY" in out and 'old: {pk: "a", total: 5}' in out and 'new: {pk: "a", total: 6}' in out
    assert main(["streams", "tail", "orders", "--db", db, "--from", "latest"]) == 0
    assert capsys.readouterr().out == ""


def test_tail_follow_prints_new_records(db):
    command = ["streams", "tail", "orders", "--db", db, "--from", "latest", "--follow", "--poll", "0.05"]
    with dynabase_command(command, sigint_ignored=False) as child:
        child.wait_for("dynabase streams: following the stream of orders")  # positioned at the end by now
        client = dynabase.connect(db)
        client.put_item(TableName="orders", Item={"pk": {"S": "live"}})
        client.close()
        line = child.wait_for('"eventName"', stream="stdout")
        assert (
            json.loads(line)["dynamodb"]["Keys"]["pk"]["S"] == "live"
        )  # written after it started: no history
        assert child.stop(signal.SIGINT) == 0


def test_run_checkpoints_in_the_database_and_sends_failures_to_a_file(db, tmp_path, monkeypatch, capsys):
    (tmp_path / "myhandlers.py").write_text(HANDLER)
    out, failed = tmp_path / "out.jsonl", tmp_path / "failed.jsonl"
    monkeypatch.setenv("OUT", str(out))
    monkeypatch.chdir(tmp_path)
    client = dynabase.connect(db)
    client.put_item(TableName="orders", Item={"pk": {"S": "bad"}})
    client.put_item(TableName="orders", Item={"pk": {"S": "b"}})
    client.close()
    args = ["streams", "run", "myhandlers:handle", "orders", "--db", db, "--until-idle", "--poll", "0.05"]
    failure = ["--bisect", "--max-retries", "1", "--on-failure", str(failed)]
    assert main(args + failure) == 0
    handled = [tuple(json.loads(line)[:2]) for line in out.read_text().splitlines()]
    # at least once: the handler wrote some records of the batches that failed, then got them again
    assert list(dict.fromkeys(handled)) == [
        ("INSERT", "a"),
        ("MODIFY", "a"),
        ("REMOVE", "a"),
        ("INSERT", "b"),
    ]
    (entry,) = [json.loads(line) for line in failed.read_text().splitlines()]
    assert entry["records"][0]["dynamodb"]["Keys"] == {"pk": {"S": "bad"}}
    assert "5 records read, 4 handled, 1 failed" in capsys.readouterr().err
    assert main(args) == 0  # the checkpoint is in app.db: nothing again
    assert len(out.read_text().splitlines()) == len(handled)
    assert main(args + ["--name", "again", "--event-name", "REMOVE"]) == 0
    assert json.loads(out.read_text().splitlines()[-1])[:2] == ["REMOVE", "a"]


def test_run_a_handler_file_with_a_schema(db, tmp_path, monkeypatch):
    handler = tmp_path / "h.py"
    handler.write_text(HANDLER)
    schema = tmp_path / "schema.json"
    schema.write_text(
        json.dumps(
            {
                "format": "onetable:1.1.0",
                "version": "0.0.1",
                "indexes": {"primary": {"hash": "pk"}},
                "models": {"Order": {"pk": {"type": "string"}, "total": {"type": "number"}}},
            }
        )
    )
    out = tmp_path / "out.jsonl"
    monkeypatch.setenv("OUT", str(out))
    args = [
        "streams",
        "run",
        f"{handler}:handle",
        "orders",
        "--db",
        db,
        "--until-idle",
        "--schema",
        str(schema),
    ]
    assert main(args + ["--filter", '{"eventName": ["INSERT"]}']) == 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == [["INSERT", "a", True]]


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "nocolon", "orders"], "handler must be MODULE:FUNCTION"),
        (["run", "no_such_module_xyz:f", "orders"], "No module named 'no_such_module_xyz'"),
        (["run", "json:nothing_here", "orders"], "json has no function 'nothing_here'"),
        (["run", "json:dumps", "orders", "--filter", "{nope"], "filter pattern is not JSON"),
        (
            ["run", "json:dumps", "orders", "--filter", '{"eventName": "INSERT"}'],
            "eventName: must be an object or",
        ),
        (["run", "json:dumps", "orders", "--batch-size", "0"], "batch_size must be between 1 and 10000"),
        (["run", "json:dumps", "orders", "--from", "at-timestamp"], "AT_TIMESTAMP needs starting_timestamp"),
        (
            ["run", "json:dumps", "orders", "--from", "at-timestamp", "--timestamp", "soon"],
            "--timestamp must be",
        ),
        (
            ["run", "json:dumps", "orders", "--timestamp", "0"],
            "starting_timestamp goes with AT_TIMESTAMP only",
        ),
        (["run", "json:dumps", "orders", "--poll", "-1"], "poll_interval must not be negative"),
        (["run", "json:dumps", "orders", "--parallel", "0"], "parallel_shards must be 1 or more"),
        (["tail", "orders", "--poll", "-0.5"], "poll_interval must not be negative"),
        (["tail", "missing"], "ResourceNotFoundException"),
        (["tail", "plain"], "table plain has no stream enabled"),
    ],
)
def test_errors_are_one_line_and_exit_1(db, capsys, args, message):
    assert main(["streams", *args, "--db", db]) == 1
    err = capsys.readouterr().err
    assert err.startswith("dynabase streams: error: ") and message in err, err


def test_help_shows_both_commands(capsys):
    with pytest.raises(SystemExit):
        main(["streams", "--help"])
    out = capsys.readouterr().out
    assert "tail" in out and "run" in out
    with pytest.raises(SystemExit):
        main(["streams", "tail", "--help"])
    out = capsys.readouterr().out
    for option in ("--db", "--endpoint-url", "--from", "--format", "--follow"):
        assert option in out


PARTIAL = """
import json, os

def handle(event, context):  # reports the REMOVE as failed, every time
    with open(os.environ["OUT"], "a") as out:
        out.write(json.dumps([r["eventName"] for r in event["Records"]]) + "\\n")
    removes = [r for r in event["Records"] if r["eventName"] == "REMOVE"]
    return {"batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]} for r in removes]}
"""


def test_run_honours_partial_batch_responses_only_with_the_flag(db, tmp_path, monkeypatch, capsys):
    (tmp_path / "partial.py").write_text(PARTIAL)
    out, failed = tmp_path / "out.jsonl", tmp_path / "failed.jsonl"
    monkeypatch.setenv("OUT", str(out))
    args = ["streams", "run", f"{tmp_path / 'partial.py'}:handle", "orders", "--db", db, "--until-idle"]
    assert main([*args, "--name", "plain"]) == 0  # the response is ignored: all three records done
    assert "3 records read, 3 handled, 0 failed" in capsys.readouterr().err
    reported = ["--name", "reported", "--report-batch-item-failures", "--max-retries", "1"]
    assert main([*args, *reported, "--on-failure", str(failed)]) == 0
    assert "3 records read, 2 handled, 1 failed" in capsys.readouterr().err
    calls = [json.loads(line) for line in out.read_text().splitlines()]
    assert calls == [["INSERT", "MODIFY", "REMOVE"], ["INSERT", "MODIFY", "REMOVE"], ["REMOVE"]]
    (entry,) = [json.loads(line) for line in failed.read_text().splitlines()]
    assert [r["eventName"] for r in entry["records"]] == ["REMOVE"]


def metrics_device(tmp_path: Path, readings: int, metric: str = "") -> tuple[str, str]:
    """A device database with ``readings`` Reading items (temp 1, 2, ...) and its schema file, whose
    Reading metrics are ``temp`` by ``Device`` (``metric``: more of the definition, JSON5)."""
    from dynabase.model import Table
    from dynabase.schema import load_schema

    schema = tmp_path / "schema.json5"
    schema.write_text(
        """{format: 'onetable:1.1.0', version: '0.0.1', indexes: {primary: {hash: 'pk', sort: 'sk'}},
        models: {Reading: {pk: {type: 'string', value: 'device#${deviceId}'}, sk: {type: 'string', value: 'r#${id}'},
                           deviceId: {type: 'string', required: true}, id: {type: 'string'}, temp: {type: 'number'}}},
        process: {Reading: {metrics: [{namespace: 'Embedthis/Device', fields: ['temp'],
                                       dimensions: [{Device: 'deviceId'}]METRIC}]}}}""".replace(
            "METRIC", metric
        )
    )
    db = str(tmp_path / "device.db")
    client = dynabase.connect(db)
    table = Table("device", client, load_schema(schema))
    table.create_table(stream="NEW_IMAGE")
    for n in range(1, readings + 1):
        table.model("Reading").create({"deviceId": "d1", "id": f"{n:02}", "temp": n})
    client.close()
    return db, str(schema)


def emf_lines(text: str) -> list[Any]:
    from .test_metrics import check_emf

    docs = [json.loads(line) for line in text.splitlines()]
    for doc in docs:
        check_emf(doc)
        assert doc["Device"] == "d1"
    return [doc["temp"] for doc in docs]


def test_run_the_metrics_handler_prints_emf(tmp_path, capsys):
    db, schema = metrics_device(tmp_path, 1)
    args = ["streams", "run", "dynabase.streams.metrics:emf", "device", "--db", db, "--until-idle"]
    assert main(args) == 1
    assert "needs the schema: add --schema FILE" in capsys.readouterr().err
    assert main(args + ["--schema", schema]) == 0
    assert emf_lines(capsys.readouterr().out) == [1]


def test_run_flushes_buffered_metrics_before_it_saves_the_checkpoint(tmp_path, capsys):
    """7 readings in buffers of 3: 3 documents, the last one written on the way out; the checkpoint is then
    after the 7th reading, so a new run writes nothing again."""
    db, schema = metrics_device(tmp_path, 7, ", buffer: {count: 3}")
    args = ["streams", "run", "dynabase.streams.metrics:emf", "device", "--db", db, "--schema", schema]
    assert main([*args, "--until-idle"]) == 0
    assert emf_lines(capsys.readouterr().out) == [[1, 2, 3], [4, 5, 6], [7]]
    assert main([*args, "--until-idle"]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_run_stopped_by_a_signal_flushes_buffered_metrics(tmp_path, signum):
    db, schema = metrics_device(tmp_path, 7, ", buffer: {count: 3}")
    command = ["streams", "run", "dynabase.streams.metrics:emf", "device", "--db", db, "--schema", schema]
    with dynabase_command(command) as child:
        child.wait_for("dynabase streams: running dynabase.streams.metrics:emf on the stream of device")
        child.wait_for('"temp":[4,5,6]', stream="stdout")  # two documents; the 7th reading is buffered
        assert child.stop(signum) == 0
        out = child.rest("stdout")
    assert emf_lines(out)[-1] == [7]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_run_started_with_sigint_ignored_stops_on_a_signal_with_its_checkpoint_saved(
    db, tmp_path, monkeypatch, signum
):
    """As a background job of a non-interactive shell starts it (SIGINT ignored): it still stops cleanly."""
    (tmp_path / "counting.py").write_text(
        "import os\n\ndef handle(event, context):\n"
        "    with open(os.environ['OUT'], 'a') as out:\n"
        "        out.write(f\"{len(event['Records'])}\\n\")\n"
        "    print('handled', len(event['Records']), flush=True)\n"
    )
    out = tmp_path / "handled.txt"
    monkeypatch.setenv("OUT", str(out))  # for the child, and for the second run in this process
    handler = f"{tmp_path / 'counting.py'}:handle"
    command = ["streams", "run", handler, "orders", "--db", db]
    with dynabase_command(command) as child:
        child.wait_for(f"dynabase streams: running {handler} on the stream of orders")
        child.wait_for("handled 3", stream="stdout")  # the stream's three records, in one batch
        assert child.stop(signum) == 0
        err = child.rest()
    assert "stopped; run the same command again to carry on from the checkpoints" in err
    # the three records were handled before the stop; the checkpoint says so: a new run has nothing to do
    assert sum(int(n) for n in out.read_text().split()) == 3
    assert main(command + ["--until-idle"]) == 0
    assert sum(int(n) for n in out.read_text().split()) == 3


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_tail_follow_started_with_sigint_ignored_stops_on_a_signal(db, signum):
    with dynabase_command(["streams", "tail", "orders", "--db", db, "--follow"]) as child:
        child.wait_for("dynabase streams: following the stream of orders")
        child.wait_for('"REMOVE"', stream="stdout")  # the history, then it waits for more
        assert child.stop(signum) == 0
        out = child.rest("stdout")
    assert [json.loads(line)["eventName"] for line in out.splitlines()] == ["INSERT", "MODIFY", "REMOVE"]
