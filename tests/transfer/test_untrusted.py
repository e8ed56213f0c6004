"""A checkpoint or an S3 export manifest may come with the data from anywhere: nothing in them is trusted. A
shipped progress file cannot make an import delete or truncate another file, a damaged field is a clear error
before anything is touched, and a manifest cannot import a file from outside its export."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dynabase
from dynabase.cli.main import main
from dynabase.server import run_in_thread
from dynabase.transfer import TransferError, import_table
from dynabase.transfer.destination import Destination
from dynabase.transfer.sources import open_source

from .helpers import embedded, item_json, simple_table, small_s3_export, write_lines

IMPORTANT = b"precious data, not a rejects file\n" * 100


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "fake")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    try:
        simple_table(dynabase.aws(endpoint_url=url, region="us-east-1"), "tab")
        yield url
    finally:
        stop()
        engine.close()


def bundle(directory: Path, **fields: Any) -> tuple[Path, Path]:
    """``data.jsonl`` and the ``data.jsonl.dynabase-progress`` shipped with it, and ``important.db`` beside."""
    data = directory / "data.jsonl"
    write_lines(data, [item_json(f"k{n}") for n in range(30)] + ["not json"])
    important = directory / "important.db"
    important.write_bytes(IMPORTANT)
    entry = {
        "destination": {"table": "tab", "database": str(directory / "t.db")},
        "input": str(data),
        "rejects": "important.db",
        "files": [["data.jsonl", data.stat().st_size, 0, 0, 0]],
        "file_index": 0,
        "line": 0,
        "offset": 0,
        "lines": 0,
        "imported": 0,
        "rejected": 0,
        "batches": 0,
        "rejects_size": 0,
        "complete": False,
        **fields,
    }
    (directory / "data.jsonl.dynabase-progress").write_text(json.dumps({"version": 3, "imports": [entry]}))
    return data, important


def real_fingerprint(data: Path) -> list[list[Any]]:
    return [f.fingerprint for f in open_source(data).files]


def run_import(directory: Path, *extra: str) -> int:
    os.chdir(directory)  # the case: a relative rejects path, resolved in the current directory
    return main(["import", "data.jsonl", "--table", "tab", "--db", "t.db", "-q", *extra])


@pytest.fixture
def target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    client = embedded(str(tmp_path / "t.db"))
    simple_table(client, "tab")
    client.close()
    return tmp_path / "t.db"


def table_count(db: Path) -> int:
    client = embedded(str(db))
    try:
        return int(client.scan(TableName="tab", Select="COUNT")["Count"])
    finally:
        client.close()


def assert_untouched(directory: Path, important: Path, progress_before: str) -> None:
    assert important.read_bytes() == IMPORTANT
    assert (directory / "data.jsonl.dynabase-progress").read_text() == progress_before
    assert not (directory / "data.jsonl.rejects.jsonl").exists()


def test_a_shipped_progress_file_for_an_endpoint_deletes_nothing(
    tmp_path: Path, server: str, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's case: the bundle's progress names the endpoint the user imports into and "important.db"."""
    monkeypatch.chdir(tmp_path)
    destination = Destination("tab", endpoint=server, region="us-east-1")
    data, important = bundle(tmp_path, destination=destination.to_json())
    before = (tmp_path / "data.jsonl.dynabase-progress").read_text()
    argv = ["import", "data.jsonl", "--table", "tab", "--endpoint-url", server, "--region", "us-east-1", "-q"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "records progress in another copy of data.jsonl" in err and "--restart" in err
    assert_untouched(tmp_path, important, before)

    # --restart imports from the start, into the derived rejects file; important.db stays as it was
    assert main([*argv, "--restart"]) == 2
    assert "imported 30 of 31 lines" in capsys.readouterr().out
    assert important.read_bytes() == IMPORTANT
    assert (tmp_path / "data.jsonl.rejects.jsonl").exists()


@pytest.mark.parametrize("rejects_size", [0, 10])
def test_a_rejects_path_the_import_would_not_choose_is_refused(
    tmp_path: Path, target: Path, capsys: Any, rejects_size: int
) -> None:
    """Even a checkpoint bound to this very file (written here by hand) cannot point the rejects elsewhere:
    with rejects_size 0 the import used to delete that file, otherwise truncate it."""
    data, important = bundle(tmp_path, rejects_size=rejects_size)
    progress = tmp_path / "data.jsonl.dynabase-progress"
    document = json.loads(progress.read_text())
    document["imports"][0]["destination"]["database"] = str(target.resolve())
    document["imports"][0]["files"] = real_fingerprint(data)
    progress.write_text(json.dumps(document))
    before = progress.read_text()
    assert run_import(tmp_path) == 1
    err = capsys.readouterr().err
    assert (
        f"keeps its rejected lines in {tmp_path / 'important.db'}" not in err
    )  # the path is not made absolute
    assert "keeps its rejected lines in important.db; pass --rejects with that file if it is right" in err
    assert_untouched(tmp_path, important, before)
    assert table_count(target) == 0


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("offset", "abc", "'offset' is not a whole number of 0 or more: \"abc\""),
        ("offset", 1.5, "'offset' is not a whole number"),
        ("line", -3, "'line' is not a whole number of 0 or more: -3"),
        ("imported", True, "'imported' is not a whole number"),
        ("rejects_size", None, "'rejects_size' is not a whole number"),
        ("complete", "yes", "'complete' is not true or false"),
        ("rejects", 5, "'rejects' is not a string"),
        ("input", ["x"], "'input' is not a string"),
        ("files", "data.jsonl", "'files' is not a list of"),
        ("files", [["data.jsonl", "31"]], "'files' is not a list of"),
        ("file_index", 3, "'file_index' 3 is past the 1 input file(s)"),
        ("destination", {"table": "tab"}, "destination names neither a database nor an endpoint"),
        ("destination", {"table": "tab", "database": 5}, "destination is not an object of strings"),
    ],
)
def test_every_field_is_type_checked(
    tmp_path: Path, target: Path, capsys: Any, field: str, value: Any, message: str
) -> None:
    data, important = bundle(tmp_path, **{field: value})
    before = (tmp_path / "data.jsonl.dynabase-progress").read_text()
    assert run_import(tmp_path) == 1
    err = capsys.readouterr().err
    assert err.startswith("dynabase import: error: checkpoint ") and "is damaged (" in err, err
    assert message in err and "delete it to start over" in err
    assert "Traceback" not in err
    assert_untouched(tmp_path, important, before)
    assert table_count(target) == 0


def test_an_offset_past_the_end_is_refused(tmp_path: Path, target: Path, capsys: Any) -> None:
    data, important = bundle(tmp_path, offset=10**6, rejects="data.jsonl.rejects.jsonl")
    progress = tmp_path / "data.jsonl.dynabase-progress"
    document = json.loads(progress.read_text())
    document["imports"][0]["destination"]["database"] = str(target.resolve())
    document["imports"][0]["files"] = real_fingerprint(data)
    progress.write_text(json.dumps(document))
    assert run_import(tmp_path) == 1
    assert "is damaged (offset past the end of data.jsonl)" in capsys.readouterr().err
    assert important.read_bytes() == IMPORTANT and table_count(target) == 0


def test_a_copied_input_does_not_resume_from_the_original_progress(tmp_path: Path) -> None:
    """The checkpoint is bound to the file (modified time, device, inode), not only to its name and size."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    data = first / "data.jsonl"
    write_lines(data, [item_json(f"k{n}") for n in range(60)])
    client = embedded(str(tmp_path / "t.db"))
    simple_table(client, "tab")

    def stop(written: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_table(client, data, table="tab", on_batch=stop)
    copy = second / "data.jsonl"
    copy.write_bytes(data.read_bytes())
    (second / "data.jsonl.dynabase-progress").write_bytes(
        (first / "data.jsonl.dynabase-progress").read_bytes()
    )
    with pytest.raises(TransferError, match="records progress in another copy of"):
        import_table(client, copy, table="tab")
    assert import_table(client, data, table="tab").resumed  # the original resumes
    client.close()


# -- S3 export manifests -------------------------------------------------------------------------------------


@pytest.fixture
def s3_export(tmp_path: Path) -> Path:
    out = small_s3_export(tmp_path)
    secret = tmp_path / "secret.jsonl"
    secret.write_text(item_json("SECRET") + "\n")
    (tmp_path / "secret.json.gz").write_bytes(gzip.compress(secret.read_bytes()))
    return out


def set_manifest(export: Path, **changes: Any) -> None:
    path = export / "manifest-files.json"
    entry = json.loads(path.read_text().splitlines()[0])
    entry.update(changes)
    text = json.dumps(entry) + "\n"
    path.write_text(text)
    (export / "manifest-files.checksum").write_text(hashlib.md5(text.encode()).hexdigest())


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("../secret.jsonl", "is not a relative key inside the export"),
        ("AWSDynamoDB/x/../../secret.jsonl", "is not a relative key inside the export"),
        ("{tmp}/secret.jsonl", "is not a relative key inside the export"),
        ("", "dataFileS3Key is not a non-empty string"),
        (5, "dataFileS3Key is not a non-empty string"),
        (["data/x"], "dataFileS3Key is not a non-empty string"),
    ],
)
def test_a_manifest_key_cannot_leave_the_export(
    tmp_path: Path, s3_export: Path, capsys: Any, key: Any, message: str
) -> None:
    set_manifest(s3_export, dataFileS3Key=key.format(tmp=tmp_path) if isinstance(key, str) else key)
    code = main(["import", str(s3_export), "--db", str(tmp_path / "copy.db"), "--create", "-q"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith("dynabase import: error: ") and "manifest-files.json:1: " in err
    assert message in err and "Traceback" not in err


def test_a_symlink_out_of_the_export_is_refused(tmp_path: Path, s3_export: Path) -> None:
    (s3_export / "data" / "link.json.gz").symlink_to(tmp_path / "secret.json.gz")
    set_manifest(s3_export, dataFileS3Key="AWSDynamoDB/123-abc/data/link.json.gz")
    with pytest.raises(TransferError, match="leads outside the export directory"):
        import_table(embedded(), s3_export, create=True)


@pytest.mark.parametrize(("count", "message"), [("5", "itemCount is not a whole"), (-1, "itemCount is not")])
def test_manifest_item_counts_are_checked(tmp_path: Path, s3_export: Path, count: Any, message: str) -> None:
    set_manifest(s3_export, itemCount=count)
    with pytest.raises(TransferError, match=message):
        import_table(embedded(), s3_export, create=True)


def test_a_summary_table_arn_that_is_not_text_is_refused(s3_export: Path) -> None:
    summary = s3_export / "manifest-summary.json"
    summary.write_text(json.dumps({**json.loads(summary.read_text()), "tableArn": 5}))
    with pytest.raises(TransferError, match="tableArn is not a string"):
        import_table(embedded(), s3_export, table="tab", create=True)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": "1"}, "version is not a whole number"),
        ({"TableName": ["tab"]}, "TableName is not a string"),
        ({"TimeToLive": "expires"}, "TimeToLive is not an object or null"),
    ],
)
def test_an_export_table_file_is_checked(s3_export: Path, change: dict[str, Any], message: str) -> None:
    table_file = s3_export / "table.json"
    table_file.write_text(json.dumps({**json.loads(table_file.read_text()), **change}))
    with pytest.raises(TransferError, match=message):
        import_table(embedded(), s3_export, create=True)


def test_an_export_found_under_the_directory_must_stay_inside_it(tmp_path: Path, s3_export: Path) -> None:
    """``DIR/AWSDynamoDB/<id>/`` as a symlink to an export elsewhere is not imported as DIR's."""
    outer = tmp_path / "outer"
    (outer / "AWSDynamoDB").mkdir(parents=True)
    (outer / "AWSDynamoDB" / "123-abc").symlink_to(s3_export)
    with pytest.raises(TransferError, match="leads outside"):
        import_table(embedded(), outer, create=True)


def test_a_rejects_file_that_holds_something_else_is_not_overwritten(
    tmp_path: Path, target: Path, capsys: Any
) -> None:
    """A fresh import starts its rejects file over; a --rejects naming another kind of file is refused."""
    data, important = bundle(tmp_path)
    (tmp_path / "data.jsonl.dynabase-progress").unlink()
    assert run_import(tmp_path, "--rejects", "important.db") == 1
    err = capsys.readouterr().err
    assert "important.db exists and is not a rejects file of dynabase import; not overwriting it" in err
    assert important.read_bytes() == IMPORTANT and table_count(target) == 0
    assert not (tmp_path / "data.jsonl.dynabase-progress").exists()

    # an earlier rejects file is started over; a symlink at the default path loses only the link
    (tmp_path / "data.jsonl.rejects.jsonl").symlink_to(important)
    assert run_import(tmp_path) == 2
    assert important.read_bytes() == IMPORTANT
    rejects = tmp_path / "data.jsonl.rejects.jsonl"
    assert not rejects.is_symlink() and json.loads(rejects.read_text())["line"] == 31
    assert run_import(tmp_path, "--restart") == 2
    assert [json.loads(r)["line"] for r in rejects.read_text().splitlines()] == [31]


def test_a_resumed_import_does_not_write_through_a_symlink(tmp_path: Path, target: Path) -> None:
    data, important = bundle(tmp_path)
    (tmp_path / "data.jsonl.dynabase-progress").unlink()
    client = embedded(str(target))

    def stop(written: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_table(client, data, table="tab", on_batch=stop)
    (tmp_path / "data.jsonl.rejects.jsonl").symlink_to(important)
    with pytest.raises(TransferError, match="is a symbolic link; not writing through it"):
        import_table(client, data, table="tab")
    assert important.read_bytes() == IMPORTANT
    client.close()
