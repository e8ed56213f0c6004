"""``dynabase export`` / ``dynabase import`` through ``dynabase.cli.main.main``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import dynabase.cli.transfer as cli_transfer
from dynabase.cli.main import main

from .helpers import Recorder, all_types_item, dump, embedded, item_json, put_all, simple_table, write_lines

ITEMS = 120


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "source.db"
    client = embedded(str(path))
    simple_table(client, "orders", keys=("pk:S", "sk:N"))
    put_all(client, "orders", [all_types_item(n) for n in range(ITEMS)])
    client.close()
    return path


def table_dump(path: Path, table: str) -> list[Any]:
    client = embedded(str(path))
    try:
        return dump(client, table)
    finally:
        client.close()


@pytest.mark.parametrize("fmt", ["jsonl", "s3"])
def test_export_then_import_with_create(tmp_path: Path, db: Path, fmt: str, capsys: Any) -> None:
    out = tmp_path / ("orders.jsonl" if fmt == "jsonl" else "orders-export")
    code = main(["export", "orders", "--db", str(db), "--out", str(out), "--format", fmt, "--segments", "3"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert f"exported {ITEMS} items from orders to {out} ({fmt}, 3 segments)" in captured.out
    assert captured.err == ""  # no progress line: stderr is not a terminal

    copy = tmp_path / "copy.db"
    code = main(["import", str(out), "--table", "orders", "--db", str(copy), "--create", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.startswith(f"created table orders; imported {ITEMS} of {ITEMS} lines into orders")
    assert table_dump(copy, "orders") == table_dump(db, "orders")

    code = main(["import", str(out), "--table", "orders", "--db", str(copy)])
    assert code == 0
    assert "nothing to do" in capsys.readouterr().out


def test_import_takes_the_table_name_from_table_json(tmp_path: Path, db: Path, capsys: Any) -> None:
    out = tmp_path / "o.jsonl"
    assert main(["export", "orders", "--db", str(db), "-o", str(out), "-q"]) == 0
    assert main(["import", str(out), "--db", str(tmp_path / "copy.db"), "--create"]) == 0
    assert "into orders" in capsys.readouterr().out


def test_bad_lines_exit_2_with_a_summary(tmp_path: Path, capsys: Any) -> None:
    target = tmp_path / "t.db"
    client = embedded(str(target))
    simple_table(client, "tab")
    client.close()
    path = tmp_path / "in.jsonl"
    write_lines(path, [item_json("a"), "oops", item_json("b"), json.dumps({"Item": {"x": {"S": "1"}}})])
    code = main(["import", str(path), "--table", "tab", "--db", str(target)])
    captured = capsys.readouterr()
    assert code == 2
    assert "in.jsonl:2: invalid JSON" in captured.err
    assert "in.jsonl:4: missing key attribute 'pk'" in captured.err
    assert "imported 2 of 4 lines into tab" in captured.out
    assert f"2 lines were REJECTED: see {path}.rejects.jsonl" in captured.out
    assert "Traceback" not in captured.err
    assert [
        json.loads(r)["line"] for r in (tmp_path / "in.jsonl.rejects.jsonl").read_text().splitlines()
    ] == [2, 4]
    # a re-run has nothing left to do, and still says some lines were rejected
    assert main(["import", str(path), "--table", "tab", "--db", str(target)]) == 2
    assert "nothing to do" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "nope", "--db", "{db}", "--out", "{tmp}/x.jsonl"], "table 'nope' does not exist"),
        (
            ["export", "orders", "--db", "{tmp}/missing.db", "--out", "{tmp}/x.jsonl"],
            "missing.db does not exist",
        ),
        (["export", "orders", "--db", "{db}", "--out", "{tmp}/no/such/dir/x.jsonl"], "does not exist"),
        (["export", "orders", "--db", "{tmp}/junk.txt", "--out", "{tmp}/x.jsonl"], "cannot open database"),
        (
            ["import", "{tmp}/missing.jsonl", "--table", "orders", "--db", "{db}"],
            "missing.jsonl does not exist",
        ),
        (["import", "{tmp}", "--table", "orders", "--db", "{db}"], "not a DynamoDB S3 export"),
        (["import", "{tmp}/junk.txt", "--table", "nope", "--db", "{db}"], "table 'nope' does not exist"),
        (["import", "{tmp}/junk.txt", "--table", "orders", "--db", "{tmp}/new.db"], "new.db does not exist"),
        (["import", "{tmp}/junk.txt", "--db", "{db}"], "no table name given"),
    ],
)
def test_user_errors_are_one_line_and_exit_1(
    tmp_path: Path, db: Path, capsys: Any, argv: list[str], message: str
) -> None:
    (tmp_path / "junk.txt").write_text("not a database\n")
    code = main([a.format(db=db, tmp=tmp_path) for a in argv])
    captured = capsys.readouterr()
    assert code == 1
    assert message in captured.err
    assert captured.err.startswith(f"dynabase {argv[0]}: error: ")
    assert "Traceback" not in captured.err
    assert not (tmp_path / "new.db").exists()


def test_export_refuses_to_overwrite_without_force(tmp_path: Path, db: Path, capsys: Any) -> None:
    out = str(tmp_path / "o.jsonl")
    assert main(["export", "orders", "--db", str(db), "--out", out]) == 0
    assert main(["export", "orders", "--db", str(db), "--out", out]) == 1
    assert "--force" in capsys.readouterr().err
    assert main(["export", "orders", "--db", str(db), "--out", out, "--force"]) == 0


def test_exactly_one_of_db_and_endpoint(tmp_path: Path, capsys: Any) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["export", "t", "--db", "a.db", "--endpoint-url", "http://localhost:1", "--out", "x"])
    assert caught.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["import", "x.jsonl", "--table", "t"])
    assert "one of the arguments --db --endpoint-url is required" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["export", "t", "--db", "a.db", "--out", "x", "--segments", "0"])
    assert "must be at least 1" in capsys.readouterr().err


def test_unreachable_endpoint_is_a_clear_error(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "fake")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    code = main(["export", "t", "--endpoint-url", "http://127.0.0.1:9", "--out", str(tmp_path / "x.jsonl")])
    assert code == 1
    assert "Could not connect to the endpoint URL" in capsys.readouterr().err


def test_interrupted_import_resumes(tmp_path: Path, db: Path, capsys: Any, monkeypatch: Any) -> None:
    out = tmp_path / "orders.jsonl"
    assert main(["export", "orders", "--db", str(db), "--out", str(out)]) == 0
    copy = tmp_path / "copy.db"
    recorders: list[Recorder] = []
    real_client = cli_transfer._client

    def recording_client(args: Any, **kwargs: Any) -> Any:
        recorder = Recorder(real_client(args, **kwargs))
        if not recorders:  # the first run: Ctrl-C during the third batch
            passthrough = lambda client, params: client.batch_write_item(**params)  # noqa: E731
            recorder.scripted = [passthrough, passthrough, KeyboardInterrupt()]
        recorders.append(recorder)
        return recorder

    monkeypatch.setattr(cli_transfer, "_client", recording_client)
    argv = ["import", str(out), "--db", str(copy), "--create", "--checkpoint", str(tmp_path / "ck")]
    capsys.readouterr()
    assert main(argv) == 130
    assert "interrupted; progress is saved" in capsys.readouterr().err
    assert main(argv) == 0
    assert "(resumed)" in capsys.readouterr().out
    sent = [i["pk"]["S"] for r in recorders for i in r.sent_items()]
    assert len(sent) == ITEMS + 25  # only the interrupted batch went out twice (it may have been written)
    assert len(set(sent)) == ITEMS
    assert table_dump(copy, "orders") == table_dump(db, "orders")


def test_help_lists_the_commands(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "export" in out and "import" in out
