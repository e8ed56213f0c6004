"""``dynabase.connect`` on a path it cannot use: a StorageError naming the path and the reason, no sqlite3 error."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import dynabase
from dynabase.errors import StorageError


def _open_error(path: str) -> StorageError:
    with pytest.raises(StorageError) as caught:
        dynabase.connect(path)
    assert str(path) in str(caught.value)
    return caught.value


def test_a_missing_directory_is_named(tmp_path):
    path = str(tmp_path / "no" / "dir" / "x.db")
    error = _open_error(path)
    assert str(error) == f"cannot open database {path}: directory {tmp_path / 'no' / 'dir'} does not exist"
    assert error.path == path
    assert not (tmp_path / "no").exists()


def test_a_relative_path_names_the_directory_it_resolved_to(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    error = _open_error("missing/x.db")
    assert error.reason == f"directory {tmp_path / 'missing'} does not exist"


def test_a_directory_is_not_a_database(tmp_path):
    assert _open_error(str(tmp_path)).reason == "it is a directory"


def test_a_file_that_is_not_a_database_is_left_alone(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("hello, not SQLite\n" * 100)
    assert _open_error(str(path)).reason == "file is not a database"
    assert path.read_text() == "hello, not SQLite\n" * 100


@contextmanager
def _read_only(*paths: Path) -> Iterator[None]:
    """Make ``paths`` unwritable: by mode bits, or (root writes past those) by the immutable attribute."""
    if os.geteuid() != 0:
        for path in paths:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            for path in paths:
                path.chmod(0o755 if path.is_dir() else 0o644)
        return
    names = [str(p) for p in paths]
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", *names]).returncode != 0:
        pytest.skip("running as root without chattr +i: no place here is read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *names], check=True)


def test_a_read_only_file_is_named(tmp_path):
    path = tmp_path / "ro.db"
    dynabase.connect(str(path)).close()
    with _read_only(path, tmp_path):
        error = _open_error(str(path))
    assert error.reason.startswith("permission denied ("), error.reason


def test_a_read_only_directory_is_named(tmp_path):
    path = tmp_path / "new.db"
    with _read_only(tmp_path):
        error = _open_error(str(path))
    assert error.reason.startswith("permission denied ("), error.reason
    assert not path.exists()


def test_a_file_of_a_newer_storage_format_is_refused_not_misread(tmp_path):
    import sqlite3

    from dynabase.engine.storage import FORMAT

    path = str(tmp_path / "newer.db")
    client = dynabase.connect(path)
    client.create_table(
        TableName="things",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName="things", Item={"pk": {"S": "a"}})
    client.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM dynabase_meta WHERE name = 'format'").fetchone() == (
            str(FORMAT),
        )
        raw.execute("UPDATE dynabase_meta SET value = ? WHERE name = 'format'", (str(FORMAT + 1),))
    raw.close()
    error = _open_error(path)
    assert error.reason == (
        f"it was written by a newer dynabase (storage format {FORMAT + 1}; this version reads formats up to "
        f"{FORMAT}): upgrade dynabase to open it"
    )
    with sqlite3.connect(path) as raw:  # refused without writing anything
        assert raw.execute("SELECT value FROM dynabase_meta").fetchone() == (str(FORMAT + 1),)
    raw.close()
