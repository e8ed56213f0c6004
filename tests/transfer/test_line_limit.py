"""A line longer than any item's DynamoDB JSON is rejected without being read into memory, and the import goes
on at the next line (a 2 MiB .jsonl.gz inflating to one 2 GiB line used to be read whole: 10.4 GiB peak)."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from dynabase.cli.main import main
from dynabase.transfer.sources import KEPT_BYTES, MAX_LINE_BYTES, DataFile, read_lines

from .helpers import embedded, item_json, simple_table

BIG = 5 * MAX_LINE_BYTES  # 40 MiB of one string, ~40 KB gzip'd
HEAD, TAIL = b'{"Item":{"pk":{"S":"big"},"s":{"S":"', b'"}}}\n'


class Reads:
    """Wraps gzip.open: every readline's size argument and the length of what it returned."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[int, int]] = []
        real = gzip.open
        reads = self

        class Handle:
            def __init__(self, inner: Any) -> None:
                self.inner = inner

            def readline(self, size: int = -1) -> bytes:
                line = self.inner.readline(size)
                reads.calls.append((size, len(line)))
                return line

            def __getattr__(self, name: str) -> Any:
                return getattr(self.inner, name)

        monkeypatch.setattr(gzip, "open", lambda *args, **kwargs: Handle(real(*args, **kwargs)))


def big_gzip(path: Path) -> None:
    """Lines: a, a 40 MiB item line, b, c."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip container
    parts = [compressor.compress((item_json("a") + "\n").encode())]
    parts.append(compressor.compress(HEAD))
    chunk = b"x" * (1 << 20)
    for _ in range(BIG >> 20):
        parts.append(compressor.compress(chunk))
    parts.append(compressor.compress(TAIL + (item_json("b") + "\n" + item_json("c") + "\n").encode()))
    parts.append(compressor.flush())
    path.write_bytes(b"".join(parts))


def test_a_huge_line_is_rejected_unread_and_the_rest_imported(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "in.jsonl.gz"
    big_gzip(path)
    assert path.stat().st_size < 1 << 20
    target = tmp_path / "t.db"
    client = embedded(str(target))
    simple_table(client, "tab")
    reads = Reads(monkeypatch)

    code = main(["import", str(path), "--table", "tab", "--db", str(target)])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    size = len(HEAD) + BIG + len(TAIL)
    assert (
        f"in.jsonl.gz:2: the line is {size:,} bytes, over the {MAX_LINE_BYTES:,}-byte limit" in captured.err
    )
    assert "imported 3 of 4 lines" in captured.out
    assert {i["pk"]["S"] for i in client.scan(TableName="tab")["Items"]} == {"a", "b", "c"}
    (record,) = [json.loads(r) for r in (tmp_path / "in.jsonl.gz.rejects.jsonl").read_text().splitlines()]
    assert record["line"] == 2 and record["text"].startswith(HEAD.decode())
    assert len(record["text"]) == KEPT_BYTES

    # never a read without a limit, and never more than the limit (plus the newline) of a line held
    assert reads.calls and all(0 < size <= MAX_LINE_BYTES + 1 for size, _ in reads.calls)
    assert max(length for _, length in reads.calls) == MAX_LINE_BYTES + 1
    client.close()


def test_lines_over_the_limit_come_cut_with_their_size(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"short\n" + b"x" * 5000 + b"\n" + b"y" * 11 + b"\n0123456789\n" + b"z" * 30)
    plain = DataFile(path, "in.jsonl", compressed=False, size=path.stat().st_size)
    lines = list(read_lines(plain, limit=10))
    assert [(n, offset, size) for n, offset, _, size in lines] == [
        (1, 6, 6),
        (2, 5007, 5001),
        (3, 5019, 12),
        (4, 5030, 11),
        (5, 5060, 30),
    ]
    assert [raw for _, _, raw, _ in lines] == [
        b"short\n",
        b"x" * 11,  # what the limited read got: never more than limit + 1
        b"y" * 11,
        b"0123456789\n",  # exactly the limit, newline not counted
        b"z" * 11,
    ]
    # resuming a gzip'd file skips the earlier lines with the same limited reads
    packed = tmp_path / "in.jsonl.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    compressed = DataFile(packed, "in.jsonl.gz", compressed=True, size=packed.stat().st_size)
    assert list(read_lines(compressed, 2, 5007, limit=10)) == lines[2:]
