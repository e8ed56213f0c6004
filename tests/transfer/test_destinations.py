"""An import checkpoint knows where the data went: the same input imported into another database file, another
endpoint or another table is imported there from the start (with a note), never reported as already done;
and each destination keeps its own progress, so both resume."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dynabase
from dynabase.cli.main import main
from dynabase.server import run_in_thread
from dynabase.transfer import TransferError, export_table, import_table
from dynabase.transfer.destination import Destination, destination_of, normalise_endpoint

from .helpers import Recorder, dump, embedded, item_json, put_all, simple_table, write_lines
from .test_resume import Stop, stop_after

LINES = 60  # three batches: 25, 25, 10


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """A JSON lines export of table ``tab`` with its table.json, as ``dynabase export`` writes them."""
    path = tmp_path / "tab.jsonl"
    source = embedded()
    simple_table(source, "tab")
    put_all(source, "tab", [{"pk": {"S": f"k{n:03d}"}, "n": {"N": str(n)}} for n in range(LINES)])
    export_table(source, "tab", path)
    return path


@pytest.fixture
def server() -> Iterator[str]:
    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    try:
        yield url
    finally:
        stop()
        engine.close()


@pytest.fixture
def credentials(monkeypatch: Any) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "fake")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def count(client: Any, table: str) -> int:
    return client.scan(TableName=table, Select="COUNT")["Count"]


def db_count(path: Path, table: str = "tab") -> int:
    client = embedded(str(path))
    try:
        return count(client, table)
    finally:
        client.close()


def test_a_second_database_file_is_imported_not_skipped(
    tmp_path: Path, export: Path, capsys: Any, monkeypatch: Any
) -> None:
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    assert main(["import", str(export), "--db", str(first), "--create", "-q"]) == 0
    capsys.readouterr()

    assert main(["import", str(export), "--db", str(second), "--create", "-q"]) == 0
    captured = capsys.readouterr()
    assert f"imported {LINES} of {LINES} lines into tab" in captured.out
    assert "nothing to do" not in captured.out
    assert captured.err == (
        f"note: checkpoint {export}.dynabase-progress only has progress for table 'tab' in {first}; "
        f"importing into table 'tab' in {second} from the start (each destination keeps its own progress)\n"
    )
    assert db_count(second) == LINES

    # both are finished now; the same file named another way is the same destination
    monkeypatch.chdir(tmp_path)
    for db in (str(first), "second.db", "./sub/../second.db"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        assert main(["import", str(export), "--db", db]) == 0
        out = capsys.readouterr().out
        name = first if db == str(first) else second
        assert out.startswith(f"nothing to do: {export} was already imported into table 'tab' in {name} ")
        assert "pass --restart to import it again" in out


def test_another_table_of_the_same_database_is_imported(tmp_path: Path, export: Path) -> None:
    target = embedded(str(tmp_path / "t.db"))
    simple_table(target, "tab")
    simple_table(target, "copy")
    assert import_table(target, export).imported == LINES
    notes: list[str] = []
    summary = import_table(target, export, table="copy", log=notes.append)
    assert not summary.already_complete and summary.imported == LINES
    assert count(target, "copy") == LINES
    assert len(notes) == 1 and "only has progress for table 'tab' in" in notes[0]
    notes.clear()
    assert import_table(target, export, table="copy", restart=True, log=notes.append).imported == LINES
    assert notes == []  # asked for: no note about the other destination


def test_a_new_in_memory_database_is_imported(export: Path) -> None:
    """Each in-memory database is its own destination: nothing of an earlier one can be in it."""
    earlier = embedded()
    assert import_table(earlier, export, create=True).imported == LINES
    assert import_table(earlier, export).already_complete
    later = embedded()
    summary = import_table(later, export, create=True)
    assert not summary.already_complete and count(later, "tab") == LINES


def test_database_file_then_serve_endpoint(
    tmp_path: Path, export: Path, server: str, credentials: None, capsys: Any
) -> None:
    """Try the import locally, then load the same file into a server: the server gets every item."""
    local = tmp_path / "local.db"
    assert main(["import", str(export), "--db", str(local), "--create", "-q"]) == 0
    capsys.readouterr()
    argv = ["import", str(export), "--endpoint-url", server, "--region", "eu-west-1", "--create", "-q"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert f"created table tab; imported {LINES} of {LINES} lines" in captured.out
    assert f"importing into table 'tab' at {server} (eu-west-1) from the start" in captured.err
    remote = dynabase.aws(endpoint_url=server, region="eu-west-1")
    assert dump(remote, "tab") == dump(embedded(str(local)), "tab")

    # the same endpoint spelled differently is the same destination; another region is not
    spelled = server.upper().replace("HTTP://", "http://") + "/"
    assert main(["import", str(export), "--endpoint-url", spelled, "--region", "eu-west-1"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["import", str(export), "--endpoint-url", server, "--region", "us-east-1", "-q"]) == 0
    captured = capsys.readouterr()
    assert "nothing to do" not in captured.out and "(us-east-1) from the start" in captured.err

    document = json.loads(Path(f"{export}.dynabase-progress").read_text())
    assert [i["destination"] for i in document["imports"]] == [
        {"table": "tab", "database": str(local.resolve())},
        {"table": "tab", "endpoint": server, "region": "eu-west-1"},
        {"table": "tab", "endpoint": server, "region": "us-east-1"},
    ]


def test_two_destinations_resume_each_on_its_own(tmp_path: Path, export: Path) -> None:
    lines = export.read_text().splitlines()
    lines[5], lines[40] = "not json", json.dumps({"Item": {"other": {"S": "no key"}}})
    write_lines(export, lines)
    a, b = embedded(str(tmp_path / "a.db")), embedded(str(tmp_path / "b.db"))
    simple_table(a, "tab")
    simple_table(b, "tab")

    runs = [Recorder(a), Recorder(b), Recorder(b), Recorder(a)]
    with pytest.raises(Stop):
        import_table(runs[0], export, on_batch=stop_after(1), log=lambda _: None)
    with pytest.raises(Stop):
        import_table(runs[1], export, on_batch=stop_after(1), log=lambda _: None)
    done_b = import_table(runs[2], export, log=lambda _: None)
    done_a = import_table(runs[3], export, log=lambda _: None)

    assert done_a.resumed and done_b.resumed
    for done, first, second, client in ((done_a, runs[0], runs[3], a), (done_b, runs[1], runs[2], b)):
        assert (done.imported, done.rejected) == (LINES - 2, 2)
        sent = [i["pk"]["S"] for i in first.sent_items() + second.sent_items()]
        assert len(sent) == len(set(sent)) == LINES - 2, "a line was sent twice"
        assert count(client, "tab") == LINES - 2
        assert [json.loads(r)["line"] for r in done.rejects.read_text().splitlines()] == [6, 41]
    assert done_a.rejects == export.with_name("tab.jsonl.rejects.jsonl")
    assert done_b.rejects == export.with_name("tab.jsonl.b.db-tab.rejects.jsonl")


def test_restart_imports_again(tmp_path: Path, export: Path, capsys: Any) -> None:
    db = tmp_path / "t.db"
    argv = ["import", str(export), "--db", str(db), "--create", "-q"]
    assert main(argv) == 0
    client = embedded(str(db))
    client.delete_item(TableName="tab", Key={"pk": {"S": "k007"}})
    client.close()
    assert main(argv) == 0 and "nothing to do" in capsys.readouterr().out
    assert db_count(db) == LINES - 1
    assert main([*argv, "--restart"]) == 0
    assert f"imported {LINES} of {LINES} lines" in capsys.readouterr().out
    assert db_count(db) == LINES


def test_changed_input_asks_for_restart(tmp_path: Path, export: Path) -> None:
    target = embedded(str(tmp_path / "t.db"))
    simple_table(target, "tab")
    with pytest.raises(Stop):
        import_table(target, export, on_batch=stop_after(1))
    with export.open("a") as handle:
        handle.write(item_json("late") + "\n")
    with pytest.raises(TransferError, match="input changed .* with --restart"):
        import_table(target, export)
    assert import_table(target, export, restart=True).imported == LINES + 1


def test_rejects_file_of_another_destination_is_not_reused(tmp_path: Path, export: Path) -> None:
    a, b = embedded(str(tmp_path / "a.db")), embedded(str(tmp_path / "b.db"))
    simple_table(a, "tab")
    simple_table(b, "tab")
    shared = tmp_path / "rejects.jsonl"
    with pytest.raises(Stop):
        import_table(a, export, rejects=shared, on_batch=stop_after(1))
    with pytest.raises(TransferError, match="holds the rejected lines of the import into table 'tab' in"):
        import_table(b, export, rejects=shared, log=lambda _: None)
    with pytest.raises(TransferError, match="keeps its rejected lines in"):
        import_table(a, export, rejects=tmp_path / "elsewhere.jsonl")
    assert import_table(a, export, rejects=shared).resumed


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("HTTP://LocalHost:80/", "http://localhost"),
        ("https://dynamodb.us-east-1.amazonaws.com:443", "https://dynamodb.us-east-1.amazonaws.com"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("http://[::1]:8000//", "http://[::1]:8000"),
        ("https://example.com:8443/prefix/", "https://example.com:8443/prefix"),
    ],
)
def test_endpoints_are_normalised(url: str, normal: str) -> None:
    assert normalise_endpoint(url) == normal


def test_destination_of_clients(tmp_path: Path) -> None:
    client = embedded(str(tmp_path / "x.db"))
    assert destination_of(client, "t") == Destination("t", database=str((tmp_path / "x.db").resolve()))
    remote = dynabase.aws(endpoint_url="http://127.0.0.1:1/", region="ap-south-1")
    assert destination_of(remote, "t") == Destination("t", endpoint="http://127.0.0.1:1", region="ap-south-1")
    with pytest.raises(TransferError, match="cannot tell where a object writes"):
        destination_of(object(), "t")


def test_two_destinations_at_once_share_the_checkpoint_file(tmp_path: Path, export: Path) -> None:

    clients = [embedded(str(tmp_path / f"{name}.db")) for name in ("a", "b")]
    results: list[Any] = []

    def load(client: Any) -> None:
        results.append(import_table(client, export, create=True, log=lambda _: None))

    threads = [threading.Thread(target=load, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.imported for r in results) == [LINES, LINES]
    for client in clients:
        assert count(client, "tab") == LINES
        assert import_table(client, export).already_complete
