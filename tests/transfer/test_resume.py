"""Resumable imports: stop after N batches, run again, and the table ends up equal with no line sent twice."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dynabase.transfer import TransferError, export_table, import_table

from .helpers import Recorder, all_types_item, dump, embedded, item_json, put_all, simple_table, write_lines

ITEMS = 430  # 18 batches: 17 of 25 and one of 5


class Stop(Exception):
    """Raised by the test hook to cut an import short."""


def stop_after(batches: int) -> Any:
    def hook(written: int) -> None:
        if written == batches:
            raise Stop

    return hook


@pytest.fixture(scope="module")
def source() -> Any:
    client = embedded()
    simple_table(client, "big", keys=("pk:S", "sk:N"))
    put_all(client, "big", [all_types_item(n) for n in range(ITEMS)])
    return client


def sent_keys(*recorders: Recorder) -> Counter[str]:
    return Counter(item["pk"]["S"] for r in recorders for item in r.sent_items())


@pytest.mark.parametrize(("fmt", "segments"), [("jsonl", 1), ("jsonl", 3), ("s3", 3), ("gz", 2)])
def test_resume_after_interruption(tmp_path: Path, source: Any, fmt: str, segments: int) -> None:
    out = {"jsonl": tmp_path / "big.jsonl", "gz": tmp_path / "big.jsonl.gz", "s3": tmp_path / "big"}[fmt]
    export_table(source, "big", out, format="s3" if fmt == "s3" else "jsonl", segments=segments)
    target = embedded()

    first = Recorder(target)
    with pytest.raises(Stop):
        import_table(first, out, create=True, on_batch=stop_after(7))
    assert len(first.batch_calls) == 7
    assert target.scan(TableName="big", Select="COUNT")["Count"] == 7 * 25
    (checkpoint,) = json.loads(Path(f"{out}.dynabase-progress").read_text())["imports"]
    assert (checkpoint["imported"], checkpoint["batches"], checkpoint["complete"]) == (175, 7, False)

    second = Recorder(target)
    summary = import_table(second, out, create=True)
    assert summary.resumed and not summary.created
    assert (summary.lines, summary.imported, summary.rejected, summary.batches) == (ITEMS, ITEMS, 0, 18)
    assert len(second.batch_calls) == 18 - 7
    assert all(len(c["RequestItems"]["big"]) == 25 for c in first.batch_calls + second.batch_calls[:-1])
    counts = sent_keys(first, second)
    assert len(counts) == ITEMS and set(counts.values()) == {1}, "a line was sent twice"
    assert dump(target, "big") == dump(source, "big")

    third = Recorder(target)
    again = import_table(third, out)
    assert again.already_complete and again.imported == ITEMS
    assert third.batch_calls == []


def test_interrupted_twice(tmp_path: Path, source: Any) -> None:
    out = tmp_path / "big"
    export_table(source, "big", out, format="s3", segments=4)
    target = embedded()
    runs = [Recorder(target) for _ in range(3)]
    with pytest.raises(Stop):
        import_table(runs[0], out, create=True, on_batch=stop_after(3))
    with pytest.raises(Stop):
        import_table(runs[1], out, on_batch=stop_after(11))
    import_table(runs[2], out)
    assert [len(r.batch_calls) for r in runs] == [3, 8, 7]
    counts = sent_keys(*runs)
    assert len(counts) == ITEMS and set(counts.values()) == {1}
    assert dump(target, "big") == dump(source, "big")


def test_resume_keeps_rejects_exact(tmp_path: Path) -> None:
    """A crash after a reject was written but before the next checkpoint: the resumed run reports that line
    again, and the rejects file still lists it once."""
    lines = [item_json(f"k{n:03d}") for n in range(100)]
    for bad in (10, 60, 61):  # 0-based; 60 and 61 fall in the batch that crashes
        lines[bad] = f"bad line {bad}"
    path = tmp_path / "in.jsonl"
    write_lines(path, lines)
    target = embedded()
    simple_table(target, "tab")

    crashing = Recorder(target)
    crashing.scripted = [lambda client, params: client.batch_write_item(**params)] * 2 + [
        OSError("network down")
    ]
    messages: list[str] = []
    with pytest.raises(OSError):
        import_table(crashing, path, table="tab", log=messages.append)
    assert messages == ["in.jsonl:11: invalid JSON: Expecting value (column 1)", *messages[1:]]
    assert len(messages) == 3  # 61 and 62 were reported before the crash

    resumed = Recorder(target)
    messages.clear()
    summary = import_table(resumed, path, table="tab", log=messages.append)
    assert [m.split(":")[1] for m in messages] == ["61", "62"]
    records = [json.loads(r) for r in summary.rejects.read_text().splitlines()]
    assert [r["line"] for r in records] == [11, 61, 62]
    assert (summary.lines, summary.imported, summary.rejected) == (100, 97, 3)
    assert target.scan(TableName="tab", Select="COUNT")["Count"] == 97


def test_checkpoint_guards(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    write_lines(path, [item_json(f"k{n}") for n in range(60)])
    target = embedded()
    simple_table(target, "tab")
    simple_table(target, "tab2")
    custom = tmp_path / "my.ckpt"
    with pytest.raises(Stop):
        import_table(target, path, table="tab", checkpoint=custom, on_batch=stop_after(1))
    assert custom.exists() and not Path(f"{path}.dynabase-progress").exists()

    with path.open("a") as handle:
        handle.write(item_json("late") + "\n")
    with pytest.raises(TransferError, match="input changed"):
        import_table(target, path, table="tab", checkpoint=custom)
    custom.write_text("{broken")
    with pytest.raises(TransferError, match="damaged"):
        import_table(target, path, table="tab", checkpoint=custom)
    custom.write_text(json.dumps({"something": "else"}))
    with pytest.raises(TransferError, match="not a dynabase import checkpoint"):
        import_table(target, path, table="tab", checkpoint=custom)
    custom.write_text(json.dumps({"version": 1, "input": str(path), "table": "tab", "complete": True}))
    with pytest.raises(TransferError, match="earlier dynabase and does not record where it imported"):
        import_table(target, path, table="tab", checkpoint=custom)
    custom.write_text(json.dumps({"version": 2, "imports": []}))
    with pytest.raises(TransferError, match="earlier dynabase and is not tied to the input file"):
        import_table(target, path, table="tab", checkpoint=custom)
    custom.write_text(json.dumps({"version": 3, "imports": [{"destination": {"table": "tab"}}]}))
    with pytest.raises(TransferError, match="damaged"):
        import_table(target, path, table="tab", checkpoint=custom)
    custom.unlink()
    assert import_table(target, path, table="tab", checkpoint=custom).imported == 61


def test_resume_with_blank_lines_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    body = "".join(item_json(f"k{n:02d}") + ("\r\n\r\n" if n % 10 == 0 else "\r\n") for n in range(60))
    path.write_bytes(body.encode())
    target = embedded()
    simple_table(target, "tab")
    runs = [Recorder(target), Recorder(target)]
    with pytest.raises(Stop):
        import_table(runs[0], path, table="tab", on_batch=stop_after(1))
    summary = import_table(runs[1], path, table="tab")
    assert (summary.lines, summary.imported) == (60, 60)
    counts = sent_keys(*runs)
    assert len(counts) == 60 and set(counts.values()) == {1}


def test_stopped_right_after_the_last_batch_finishes_without_resending(tmp_path: Path, source: Any) -> None:
    """Stopped after the last batch but before the final checkpoint: the re-run only marks it complete."""
    client = embedded()
    simple_table(client, "tab")
    put_all(client, "tab", [{"pk": {"S": f"k{n}"}} for n in range(50)])
    out = tmp_path / "e"
    export_table(client, "tab", out, format="s3")
    target = embedded()
    runs = [Recorder(target), Recorder(target)]
    with pytest.raises(Stop):
        import_table(runs[0], out, create=True, on_batch=stop_after(2))
    summary = import_table(runs[1], out)
    assert summary.imported == 50 and len(runs[1].batch_calls) == 0
    assert dump(target, "tab") == dump(client, "tab")
