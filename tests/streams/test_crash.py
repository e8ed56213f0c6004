"""At-least-once delivery across a crash: ``kill -9`` of a ``dynabase streams run`` consumer in the middle of a
batch, then a restart: every record is handled, none is skipped (embedded database file, DynamoDB Local)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import dynabase
from backends import FAKE_CREDENTIALS, REGION, boto3_client
from ddb_helpers import table_request

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src"
RECORDS = 240
BATCH = 50

pytestmark = pytest.mark.slow


def create(client: Any, table: str) -> None:
    client.create_table(**table_request(table, ("pk:S",), stream="NEW_IMAGE"))
    for i in range(RECORDS):
        client.put_item(TableName=table, Item={"pk": {"S": f"k{i:04}"}, "n": {"N": str(i)}})


def stream_sequences(client: Any, streams: Any, table: str) -> list[str]:
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    out = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator)
            if not page["Records"]:
                break
            out += [r["dynamodb"]["SequenceNumber"] for r in page["Records"]]
            iterator = page.get("NextShardIterator")
    return out


def consume(args: list[str], log: Path, *, delay: float, until_idle: bool) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": f"{SRC}{os.pathsep}{HERE}",
        "CRASH_LOG": str(log),
        "CRASH_DELAY": str(delay),
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
        "AWS_DEFAULT_REGION": REGION,
    }
    command = [sys.executable, "-m", "dynabase", "streams", "run", "crash_handler:handle", *args]
    command += ["--batch-size", str(BATCH), "--poll", "0.1"] + (["--until-idle"] if until_idle else [])
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def lines(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def crash_then_restart(args: list[str], log: Path) -> list[str]:
    process = consume(args, log, delay=0.01, until_idle=False)
    try:
        deadline = time.monotonic() + 60
        while len(lines(log)) < BATCH + BATCH // 2:  # in the middle of the second batch
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the consumer handled too little"
            time.sleep(0.01)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    crashed_at = len(lines(log))
    assert crashed_at < RECORDS
    restarted = consume(args, log, delay=0.0, until_idle=True)
    out, err = restarted.communicate(timeout=120)
    assert restarted.returncode == 0, err
    handled = lines(log)
    assert len(handled) < crashed_at + RECORDS, "the restart began again from the start"
    return handled


def test_kill_9_mid_batch_then_restart_embedded(tmp_path):
    db, log = tmp_path / "app.db", tmp_path / "handled.log"
    client = dynabase.connect(str(db))
    create(client, "orders")
    expected = stream_sequences(client, client.streams(), "orders")
    client.close()
    handled = crash_then_restart(["orders", "--db", str(db)], log)
    assert set(handled) == set(expected)  # none skipped
    assert len(handled) > len(set(handled))  # the batch the crash cut short was handed over again
    assert handled[-1] == expected[-1]


def test_kill_9_mid_batch_then_restart_dynamodb_local(tmp_path, dynamodb_local_endpoint):
    client = boto3_client("dynamodb", dynamodb_local_endpoint)
    streams = boto3_client("dynamodbstreams", dynamodb_local_endpoint)
    table = f"crash-{os.getpid()}-{int(time.time() * 1000)}"
    create(client, table)
    try:
        expected = stream_sequences(client, streams, table)
        args = [table, "--endpoint-url", dynamodb_local_endpoint, "--checkpoints", str(tmp_path / "cp.db")]
        handled = crash_then_restart(args, tmp_path / "handled.log")
        assert set(handled) == set(expected)
        assert len(handled) > len(set(handled))
    finally:
        client.delete_table(TableName=table)
