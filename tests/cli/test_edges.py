"""CLI edges: ``--version`` and quiet exits when the reader of the output goes away (``... | head``)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import dynabase
from dynabase.cli.main import EXIT_BROKEN_PIPE, main

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "tests" / "tools" / "fixtures" / "vams.json5"


def expected_version() -> str:
    try:
        return metadata.version("dynabase")
    except metadata.PackageNotFoundError:
        return dynabase.__version__


def run(args: list[str], **options: Any) -> subprocess.CompletedProcess[bytes]:
    """``python -m dynabase ARGS`` on this working tree's code."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "dynabase", *args], env=env, timeout=60, check=False, **options
    )


def test_version(capsys: Any) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"dynabase {expected_version()}\n"


def test_python_m_dynabase_version() -> None:
    done = run(["--version"], capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"dynabase {expected_version()}\n".encode(),
        b"",
    )


def test_version_falls_back_to_the_package(monkeypatch: Any, capsys: Any) -> None:
    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"dynabase {dynabase.__version__}\n"


def closed_pipe_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout a pipe whose reader is already closed: the first write (or flush) fails with EPIPE,
    as when ``head`` has read what it wanted and exited."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return run(args, stdout=writer, stderr=subprocess.PIPE, cwd=cwd)
    finally:
        os.close(writer)


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text('{"Item": {"pk": {"S": "a"}}}\n', encoding="utf-8")
    (tmp_path / "in.table.json").write_text(
        '{"TableName": "tab", "CreateTable": {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], '
        '"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], '
        '"BillingMode": "PAY_PER_REQUEST"}}',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--json", str(SCHEMA)],
        ["validate", str(SCHEMA)],
        ["docs", str(SCHEMA)],
        ["iac", str(SCHEMA), "--table", "tab", "--format", "terraform"],
        ["demo", "--db", ":memory:"],
        ["import", "{jsonl}", "--db", "{tmp}/t.db", "--create", "-q"],
        ["export", "tab", "--db", "{tmp}/t.db", "--out", "{tmp}/out.jsonl", "-q"],
        ["--version"],
    ],
    ids=lambda args: " ".join(a for a in args if not a.startswith(("/", "{"))),
)
def test_a_closed_pipe_ends_quietly(args: list[str], tmp_path: Path, jsonl: Path) -> None:
    if "export" in args:  # something to export
        assert main(["import", str(jsonl), "--db", str(tmp_path / "t.db"), "--create", "-q"]) == 0
    args = [a.format(tmp=tmp_path, jsonl=jsonl) for a in args]
    done = closed_pipe_run(args, cwd=tmp_path)
    assert done.stderr == b""
    assert done.returncode == EXIT_BROKEN_PIPE


def test_help_on_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    """argparse itself ignores a failed write of the help text, and exits 0."""
    done = closed_pipe_run(["--help"], cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")


@pytest.mark.parametrize(
    "args",
    [
        ["demo", "--db", "/no/such/dir/x.db"],
        ["import", "in.jsonl", "--db", "/no/such/dir/x.db", "--create"],
        ["serve", "--db", "/no/such/dir/x.db", "--port", "0"],
    ],
    ids=["demo", "import", "serve"],
)
def test_an_unusable_database_path_is_one_clear_line(args: list[str]) -> None:
    result = run(args, capture_output=True)
    err = result.stderr.decode()
    assert result.returncode != 0
    assert "Traceback" not in err
    assert "/no/such/dir/x.db" in err
    assert err.count("/no/such/dir/x.db") == 1, err
