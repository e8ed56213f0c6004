"""``dynabase ui`` from the command line: the address it prints, read-only against other machines, bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")


def first_line(args: list[str], cwd: Path) -> tuple[str, int | None]:
    """Start ``dynabase ui ARGS`` on a free port, read its first line, stop it (by PID): (line, exit status)."""
    command = [sys.executable, "-m", "dynabase", "ui", "--port", "0", *args]
    env = {**os.environ, "PYTHONPATH": SRC, "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x"}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd
    )
    try:
        line = process.stdout.readline().strip()
    finally:
        if process.poll() is None:
            process.terminate()
        code = process.wait(15)
        process.stdout.close()
    return line, code


def test_ui_on_a_database_file_prints_its_address_with_a_token(tmp_path: Any) -> None:
    line, code = first_line(["--db", str(tmp_path / "app.db"), "--create"], tmp_path)
    assert line.startswith(f"dynabase console for {tmp_path / 'app.db'}: open http://127.0.0.1:"), line
    assert len(line.split("token=", 1)[1]) >= 40
    assert code == 0  # SIGTERM ends it cleanly


@pytest.mark.parametrize(
    ("endpoint", "extra", "read_only"),
    [
        ("https://dynamodb.eu-west-1.amazonaws.com", [], True),
        ("https://dynamodb.eu-west-1.amazonaws.com", ["--allow-writes"], False),
        ("http://localhost:8000", [], False),
    ],
)
def test_ui_on_an_endpoint(tmp_path: Any, endpoint: str, extra: list[str], read_only: bool) -> None:
    line, _ = first_line(["--endpoint-url", endpoint, "--region", "eu-west-1", *extra], tmp_path)
    assert line.startswith(f"dynabase console for {endpoint}{' (read-only)' if read_only else ''}: open "), (
        line
    )


def test_ui_with_a_bad_schema_says_so(tmp_path: Any) -> None:
    schema = tmp_path / "bad.json"
    schema.write_text('{"format": "onetable:1.1.0", "models": {"A": {"pk": {"type": "nonsense"}}}}')
    command = [
        sys.executable,
        "-m",
        "dynabase",
        "ui",
        "--db",
        str(tmp_path / "app.db"),
        "--create",
        "--schema",
        str(schema),
    ]
    result = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=60
    )
    assert result.returncode == 1 and not result.stdout
    assert result.stderr.startswith(f"dynabase ui: error: schema {schema}: "), result.stderr


def test_serve_schema_without_ui_is_a_usage_error(capsys: Any) -> None:
    from dynabase.cli.main import main

    assert main(["serve", "--db", ":memory:", "--port", "0", "--schema", "s.json"]) == 2
    assert "--schema is for the web console: add --ui" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["ui", "--db", ":memory:"], ["serve", "--db", ":memory:", "--ui", "-q"]])
def test_allow_host_lets_the_console_answer_to_that_name(command: list[str]) -> None:
    from .helpers import ConsoleHTTP

    env = {**os.environ, "PYTHONPATH": SRC}
    args = [sys.executable, "-m", "dynabase", *command, "--port", "0", "--allow-host", "devbox"]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        line = process.stdout.readline()
        while "console" not in line and line:  # serve --ui: its serving line comes first
            line = process.stdout.readline()
        url = line.strip().rsplit(" ", 1)[1]
        port = int(url.split("/")[2].rsplit(":", 1)[1])
        http = ConsoleHTTP(port, f"dynabase_console_{port}", url.split("token=", 1)[1])
        for host, status in ((f"devbox:{port}", 200), (f"otherbox:{port}", 403), (f"localhost:{port}", 200)):
            assert http.post("listTables", {}, Host=host)[0] == status, host
    finally:
        process.terminate()  # this test's own process, by PID
        process.wait(15)
        process.stdout.close()
