"""Import inputs: a JSON lines file (plain or gzip'd) or an S3 export directory, read line by line with
positions (file, line number, byte offset) so an import can checkpoint and resume exactly."""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from . import s3format
from .errors import TransferError
from .exporter import table_file_for_jsonl
from .tabledef import TABLE_FILE

GZIP_MAGIC = b"\x1f\x8b"

#: The longest line read whole (bytes, without its newline); a longer one is rejected unread and the import goes
#: on at the next line. No item exceeds 400 KB, and compact DynamoDB JSON (as AWS's export and dynabase's write
#: it) spells a byte of an item in at most about 9 bytes: a control character escaped as ``\\u001f`` takes 6,
#: a one-letter attribute holding NULL (2 bytes of item size) ``"a":{"NULL":true},`` 18. So a 400 KB item is
#: at most ~3.6 MB of text; 8 MiB leaves room for that and for padding, and bounds what one line may cost in
#: memory (only numbers spelled with 100+ leading zeros, or a line padded with whitespace, go beyond it).
MAX_LINE_BYTES = 8 << 20
#: bytes of a too-long line kept (in its rejects record), and the step it is skipped in
KEPT_BYTES = 1024
SKIP_BYTES = 1 << 20


@dataclass
class DataFile:
    path: Path
    #: how the file is named in messages and the rejects file
    display: str
    compressed: bool
    size: int
    #: items the manifest says the file holds (S3 exports)
    expected_items: int | None = None
    #: the file's modification time (ns), device and inode when it was opened
    identity: tuple[int, int, int] = (0, 0, 0)

    @property
    def fingerprint(self) -> list[Any]:
        """What an import checkpoint records of the file, to resume only in this very file as it was."""
        return [self.display, self.size, *self.identity]


@dataclass
class Source:
    kind: str  # "jsonl" or "s3"
    path: Path
    files: list[DataFile]
    table_file: Path | None
    #: table name from the export summary's tableArn (S3 exports), a fallback when there's no table.json
    table_hint: str | None = None

    @property
    def total_items(self) -> int | None:
        counts = [f.expected_items for f in self.files]
        known = [c for c in counts if c is not None]
        return None if len(known) < len(counts) else sum(known)

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


def _is_gzip(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == GZIP_MAGIC
    except OSError as error:
        raise TransferError(f"cannot read {path}: {error.strerror or error}")


def _data_file(path: Path, display: str, expected: int | None = None) -> DataFile:
    try:
        stat = path.stat()
    except OSError as error:
        raise TransferError(f"cannot read {path}: {error.strerror or error}")
    identity = (stat.st_mtime_ns, stat.st_dev, stat.st_ino)
    return DataFile(path, display, _is_gzip(path), stat.st_size, expected, identity)


def open_source(path: str | os.PathLike[str]) -> Source:
    """Detect the input's kind: a directory (or its manifest-summary.json) is an S3 export, a file JSON lines."""
    given = Path(path)
    if not given.exists():
        raise TransferError(f"input {given} does not exist")
    if given.is_file() and given.name == s3format.SUMMARY:
        given = given.parent
    if given.is_dir():
        root = s3format.find_export_dir(given)
        if root is None:
            raise TransferError(
                f"{given} is a directory but not a DynamoDB S3 export (no {s3format.SUMMARY} in it or under "
                "AWSDynamoDB/<ExportId>/)"
            )
        summary = s3format.read_summary(root)
        files = [
            _data_file(entry.path, str(entry.path.relative_to(given)), entry.item_count)
            for entry in s3format.read_manifest_files(root, inside=given)
        ]
        table_file = next((p for p in (root / TABLE_FILE, given / TABLE_FILE) if p.is_file()), None)
        arn = summary.get("tableArn") or ""
        hint = arn.rsplit("table/", 1)[1].split("/")[0] if "table/" in arn else None
        return Source("s3", given, files, table_file, hint or None)
    if not os.access(given, os.R_OK):
        raise TransferError(f"cannot read {given}: permission denied")
    beside = table_file_for_jsonl(given)
    table_file = next((p for p in (beside, given.with_name(TABLE_FILE)) if p.is_file()), None)
    return Source("jsonl", given, [_data_file(given, given.name)], table_file)


def _open(data_file: DataFile) -> IO[bytes]:
    opener: Any = gzip.open if data_file.compressed else open
    handle: IO[bytes] = opener(data_file.path, "rb")
    return handle


def _read_line(handle: IO[bytes], limit: int) -> tuple[bytes, int]:
    """The next line and its size in bytes; of a line longer than ``limit``, only its first
    :data:`KEPT_BYTES` (the rest is read past in steps, never held)."""
    raw = handle.readline(limit + 1)
    if len(raw) <= limit or raw.endswith(b"\n"):
        return raw, len(raw)
    kept, size = raw[:KEPT_BYTES], len(raw)
    del raw
    while True:
        step = handle.readline(SKIP_BYTES)
        size += len(step)
        if not step or step.endswith(b"\n"):
            return kept, size


def read_lines(
    data_file: DataFile, start_line: int = 0, start_offset: int = 0, limit: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, int, bytes, int]]:
    """``(line number, offset after the line, raw line, its size)`` from just after
    ``start_line``/``start_offset``. A line longer than ``limit`` bytes comes as its first
    :data:`KEPT_BYTES` only (``size > len(raw)``), so no more than ``limit`` bytes of a line are ever held.

    Offsets count bytes of the (decompressed) text. A plain file seeks straight to ``start_offset``; a gzip'd
    one is decompressed from the start and the first ``start_line`` lines skipped unparsed.
    """
    try:
        handle = _open(data_file)  # closed in finally
    except OSError as error:
        raise TransferError(f"cannot read {data_file.display}: {error.strerror or error}")
    line, offset = 0, 0
    try:
        if data_file.compressed:
            while line < start_line:
                raw, size = _read_line(handle, limit)
                if not size:
                    break
                line += 1
                offset += size
        elif start_offset:
            handle.seek(start_offset)
            line, offset = start_line, start_offset
        while True:
            raw, size = _read_line(handle, limit)
            if not size:
                return
            line += 1
            offset += size
            yield line, offset, raw, size
    except (OSError, EOFError, zlib.error) as error:
        detail: Any = getattr(error, "strerror", None) or error
        raise TransferError(f"{data_file.display}: read failed after line {line}: {detail}")
    finally:
        handle.close()
