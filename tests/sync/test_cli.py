"""``dynabase sync``: --once, --watch with a clean Ctrl-C, status, and clear failures."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

import dynabase
from backends import boto3_client, free_loopback_port
from dynabase.cli.main import main
from dynabase.model import Table
from dynabase.server import run_in_thread
from processes import dynabase_command

from .test_sync import SCHEMA

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def cloud(tmp_path: Path, monkeypatch: Any) -> Any:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "fake")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    client = boto3_client("dynamodb", url)
    table = Table("clitable", client, SCHEMA, side="cloud")
    table.create_table()
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    yield url, table, schema
    stop()
    engine.close()


def _args(schema: Path, db: Path, url: str, *extra: str) -> list[str]:
    return ["sync", str(schema), "--db", str(db), "--table", "clitable", "--endpoint-url", url, *extra]


def test_once_pushes_pulls_and_status_reports(cloud: Any, tmp_path: Path, capsys: Any) -> None:
    url, table, schema = cloud
    db = tmp_path / "device.db"
    table.Note.create({"id": "from-cloud", "text": "down"})
    table.Setting.create({"deviceId": "dev7", "name": "rate", "value": "3"})
    assert main(_args(schema, db, url, "--device-id", "dev7", "--once")) == 0
    assert "in step" in capsys.readouterr().err
    device = Table("clitable", dynabase.connect(str(db)), SCHEMA, side="device")
    assert device.Note.get({"id": "from-cloud"})["text"] == "down"
    assert device.Setting.get({"deviceId": "dev7", "name": "rate"})["value"] == "3"
    device.Note.create({"id": "from-device", "text": "up"})
    device.client.close()
    assert main(_args(schema, db, url, "--once", "-q")) == 0  # the device id is the stored one
    assert table.Note.get({"id": "from-device"})["text"] == "up"
    assert main(["sync", "status", str(schema), "--db", str(db), "--table", "clitable", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (
        status["device_id"] == "dev7" and status["pending"] == 0 and "Setting#dev7" in status["checkpoints"]
    )
    assert main(["sync", "status", str(schema), "--db", str(db), "--table", "clitable"]) == 0
    assert "pending changes: 0" in capsys.readouterr().out


def test_once_fails_clearly(cloud: Any, tmp_path: Path, capsys: Any) -> None:
    url, table, schema = cloud
    dead = f"http://127.0.0.1:{free_loopback_port()}"
    assert main(_args(schema, tmp_path / "d.db", dead, "--once", "--retries", "1")) == 1
    assert "cannot reach" in capsys.readouterr().err
    assert main(_args(schema, tmp_path / "d.db", url, "--once", "--table", "nosuchtable")) == 1
    assert "not found" in capsys.readouterr().err
    assert main(_args(schema, tmp_path / "d.db", url)) == 2  # a usage error
    assert "--once or --watch" in capsys.readouterr().err
    assert (
        main(["sync", "status", str(schema), "--db", str(tmp_path / "none.db"), "--table", "clitable"]) == 1
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_watch_keeps_in_step_and_stops_cleanly_on_a_signal_even_with_sigint_ignored(
    cloud: Any, tmp_path: Path, signum: int
) -> None:
    """Started as a background job of a non-interactive shell starts it (SIGINT ignored), as systemd's
    KillSignal=SIGINT unit in docs/sync.md relies on: Ctrl-C and SIGTERM both stop it, exit status 0."""
    url, table, schema = cloud
    db = tmp_path / "device.db"
    env = {"AWS_ACCESS_KEY_ID": "fake", "AWS_SECRET_ACCESS_KEY": "fake"}
    command = _args(schema, db, url, "--watch", "--interval", "0.2", "--device-id", "w1")
    with dynabase_command(command, env=env) as child:
        child.wait_for("sync: watching (device w1)")
        table.Note.create({"id": "live", "text": "to the device"})
        deadline = time.monotonic() + 60  # a hang guard: the pull comes every 0.2 s
        found = None
        while found is None:
            assert time.monotonic() < deadline, "the cloud's change never reached the device"
            probe = Table("clitable", dynabase.connect(str(db)), SCHEMA, side="device")
            try:
                found = probe.Note.get({"id": "live"})
            finally:
                probe.client.close()
            time.sleep(0.05)
        assert found["text"] == "to the device"
        assert child.stop(signum) == 0
        assert "stopping after the batch in flight" in child.rest()


def test_the_usage_line_shows_the_status_form(capsys: pytest.CaptureFixture[str]) -> None:
    from dynabase.cli.main import main

    with pytest.raises(SystemExit):
        main(["sync", "--help"])
    usage = capsys.readouterr().out.splitlines()[0]
    assert usage == "usage: dynabase sync [status | quarantine] SCHEMA --db DEVICE_DB --table TABLE [options]"
