"""``dynabase streams tail`` and ``dynabase streams run``."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import dynabase
from ddb_helpers import table_request
from dynabase.cli.main import main

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
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "dynabase", "streams", "tail", "orders", "--db", db]
    process = subprocess.Popen(
        command + ["--from", "latest", "--follow", "--poll", "0.05"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    try:
        client = dynabase.connect(db)
        written = []
        for i in range(60):  # until the follower, started and positioned at the end, prints one
            written.append(f"live{i}")
            client.put_item(TableName="orders", Item={"pk": {"S": written[-1]}})
            try:
                line = lines.get(timeout=0.5)
                break
            except queue.Empty:
                continue
        client.close()
        key = json.loads(line)["dynamodb"]["Keys"]["pk"]["S"]
        assert key in written and key != "a"  # a record written after it started, not the history
    finally:
        process.kill()
        process.wait()


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


def test_run_the_metrics_handler_prints_emf(tmp_path, capsys):
    from .test_metrics import check_emf

    schema = tmp_path / "schema.json5"
    schema.write_text(
        """{format: 'onetable:1.1.0', version: '0.0.1', indexes: {primary: {hash: 'pk', sort: 'sk'}},
        models: {Reading: {pk: {type: 'string', value: 'device#${deviceId}'}, sk: {type: 'string', value: 'r#${id}'},
                           deviceId: {type: 'string', required: true}, id: {type: 'string'}, temp: {type: 'number'}}},
        process: {Reading: {metrics: [{namespace: 'Embedthis/Device', fields: ['temp'], dimensions: [{Device: 'deviceId'}]}]}}}"""
    )
    db = str(tmp_path / "device.db")
    from dynabase.model import Table
    from dynabase.schema import load_schema

    client = dynabase.connect(db)
    table = Table("device", client, load_schema(schema))
    table.create_table(stream="NEW_IMAGE")
    table.model("Reading").create({"deviceId": "d1", "id": "1", "temp": 21})
    client.close()
    args = ["streams", "run", "dynabase.streams.metrics:emf", "device", "--db", db, "--until-idle"]
    assert main(args) == 1
    assert "needs the schema: add --schema FILE" in capsys.readouterr().err
    assert main(args + ["--schema", str(schema)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    doc = json.loads(line)
    check_emf(doc)
    assert (doc["Device"], doc["temp"]) == ("d1", 21)


def test_run_interrupted_says_how_to_carry_on(db, tmp_path):
    import signal

    (tmp_path / "quiet.py").write_text("def handle(event, context):\n    pass\n")
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{tmp_path}"}
    command = [
        sys.executable,
        "-m",
        "dynabase",
        "streams",
        "run",
        "quiet:handle",
        "orders",
        "--db",
        db,
        "--poll",
        "0.05",
    ]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # started, caught up, polling
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "interrupted; run the same command again to carry on from the checkpoints" in err
