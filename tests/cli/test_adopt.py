"""Another application's SQLite file is refused, unchanged, unless adopted (``--adopt``, ``adopt=True``): opening
it used to switch it to WAL journaling and add dynabase's tables without a word."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import dynabase
from dynabase.errors import StorageError

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    path = tmp_path / "notes.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        conn.execute("INSERT INTO notes (body) VALUES ('keep me')")
    conn.close()
    return path


def _state(path: Path) -> tuple[str, list[str]]:
    conn = sqlite3.connect(path)
    try:
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        return mode, [row[0] for row in conn.execute("SELECT name FROM sqlite_master ORDER BY name")]
    finally:
        conn.close()


def test_connect_refuses_a_foreign_file_and_leaves_it_alone(foreign: Path) -> None:
    with pytest.raises(StorageError) as caught:
        dynabase.connect(str(foreign))
    message = str(caught.value)
    assert str(foreign) in message and "another application's SQLite database (tables: notes)" in message
    assert "--adopt" in message and "adopt=True" in message
    assert _state(foreign) == ("delete", ["notes"])


def test_adopt_uses_it_and_then_it_is_dynabase_s(foreign: Path) -> None:
    client = dynabase.connect(str(foreign), adopt=True)
    assert client.list_tables()["TableNames"] == []
    client.close()
    assert _state(foreign)[0] == "wal"
    dynabase.connect(str(foreign)).close()  # adopted once: no flag needed again


def test_new_empty_and_dynabase_files_need_no_flag(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    sqlite3.connect(tmp_path / "no-tables.db").close()
    for path in (empty, tmp_path / "no-tables.db", tmp_path / "new.db"):
        dynabase.connect(str(path)).close()
        dynabase.connect(str(path)).close()


@pytest.mark.parametrize(
    "command",
    [
        ["serve", "--port", "0"],
        ["ui", "--port", "0"],
        ["export", "notes", "--out", "{tmp}/out.jsonl"],
        ["import", "{tmp}/in", "--table", "notes"],
        ["streams", "tail", "notes"],
        ["sync", "{tmp}/schema.json", "--table", "notes", "--once"],
        ["sync-hub", "{tmp}/schema.json", "--table", "notes", "--mqtt", "mqtt://127.0.0.1:1"],
    ],
)
def test_every_command_that_opens_a_db_refuses_it(foreign: Path, tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "schema.json").write_text(
        '{"format": "onetable:1.1.0", "version": "0.0.1", "indexes": {"primary": {"hash": "pk"}}, "models": {}}'
    )
    args = [part.format(tmp=tmp_path) for part in command]
    result = subprocess.run(
        [sys.executable, "-m", "dynabase", *args, "--db", str(foreign)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": SRC, "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x"},
    )
    assert result.returncode != 0
    assert "another application's SQLite database (tables: notes)" in result.stderr, result.stderr
    assert "--adopt" in result.stderr
    assert _state(foreign) == ("delete", ["notes"])


def test_serve_adopt_serves_it(foreign: Path) -> None:
    from dynabase.server import start_subprocess

    with start_subprocess(str(foreign), args=["--adopt", "-q"]) as process:
        assert process.url.startswith("http://127.0.0.1:")
    assert _state(foreign)[0] == "wal"
