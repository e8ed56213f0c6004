"""``export_table``: a (parallel) Scan of a table into JSON lines or DynamoDB's S3 export layout."""

from __future__ import annotations

import gzip
import os
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from botocore.exceptions import ClientError

from . import s3format
from .codec import item_line
from .errors import TransferError
from .progress import Progress
from .retry import Backoff
from .tabledef import TABLE_FILE, error_message, require_table, table_document, write_table_file

FORMATS = ("jsonl", "s3")
MAX_SEGMENTS = 1_000_000  # DynamoDB's TotalSegments limit
MAX_WORKERS = 32


@dataclass
class ExportSummary:
    table: str
    path: Path
    format: str
    items: int
    segments: int
    seconds: float
    #: the data files written (one for jsonl; one per segment for s3)
    files: list[Path] = field(default_factory=list)
    #: the table description written for ``import --create``
    table_file: Path | None = None

    @property
    def rate(self) -> float:
        return self.items / self.seconds if self.seconds > 0 else float(self.items)


def table_file_for_jsonl(path: Path) -> Path:
    """``orders.jsonl`` / ``orders.jsonl.gz`` / ``orders.json`` -> ``orders.table.json`` beside it."""
    name = path.name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return path.with_name(f"{name}.table.json")


class _Cancelled(Exception):
    pass


def _scan_segment(
    client: Any,
    table: str,
    segment: int,
    total: int,
    sink: Any,
    stop: threading.Event,
    backoff: Backoff,
    page_size: int | None,
) -> None:
    params: dict[str, Any] = {"TableName": table}
    if total > 1:
        params.update(Segment=segment, TotalSegments=total)
    if page_size:
        params["Limit"] = page_size
    while True:
        if stop.is_set():
            raise _Cancelled
        page = backoff.call(f"Scan of {table!r}", client.scan, **params)
        sink([item_line(item) for item in page.get("Items", [])])
        last = page.get("LastEvaluatedKey")
        if not last:
            return
        params["ExclusiveStartKey"] = last


def _prepare_output(path: Path, fmt: str, overwrite: bool) -> None:
    if fmt == "jsonl":
        if path.is_dir():
            raise TransferError(f"{path} is a directory; --format jsonl writes a file")
        if path.exists() and not overwrite:
            raise TransferError(f"{path} already exists (use --force to overwrite it)")
        if not path.parent.is_dir():
            raise TransferError(f"directory {path.parent} does not exist")
    else:
        if path.exists() and not path.is_dir():
            raise TransferError(f"{path} exists and is not a directory; --format s3 writes a directory")
        if path.is_dir() and any(path.iterdir()):
            if not overwrite:
                raise TransferError(f"{path} is not empty (use --force to overwrite an earlier export)")
            s3format.remove_export_dir(path, check_only=True)  # removed once the new export is complete
        if not path.parent.is_dir():
            raise TransferError(f"directory {path.parent} does not exist")


def export_table(
    client: Any,
    table: str,
    path: str | os.PathLike[str],
    format: str = "jsonl",
    segments: int = 1,
    *,
    overwrite: bool = False,
    progress: bool | Progress = False,
    page_size: int | None = None,
    backoff: Backoff | None = None,
) -> ExportSummary:
    """Export every item of ``table`` to ``path``.

    ``format="jsonl"``: one ``{"Item": {...}}`` line per item (gzip'd when ``path`` ends in ``.gz``), and the
    table's definition in ``<name>.table.json`` beside it. ``format="s3"``: ``path`` is a directory in
    DynamoDB's S3 export layout (see :mod:`dynabase.transfer.s3format`), with ``table.json`` inside.
    ``segments`` > 1 runs a parallel Scan, one thread per segment (up to 32 at a time).
    ``progress``: True for a progress line on stderr (only when it is a terminal), or a :class:`Progress`.
    """
    if format not in FORMATS:
        raise TransferError(f"unknown export format {format!r} (choose from {', '.join(FORMATS)})")
    if not isinstance(segments, int) or not 1 <= segments <= MAX_SEGMENTS:
        raise TransferError(f"segments must be between 1 and {MAX_SEGMENTS}, got {segments!r}")
    out = Path(path)
    backoff = backoff or Backoff()
    description = require_table(client, table)
    _prepare_output(out, format, overwrite)
    document = table_document(client, table, description)

    if isinstance(progress, Progress):
        meter = progress
    else:
        meter = Progress(f"export {table}", description.get("ItemCount"), enabled=bool(progress))
    started_wall, started = time.time(), time.monotonic()
    stop = threading.Event()
    files: list[Path] = []

    if format == "jsonl":
        partial = out.with_name(f".{out.name}.partial")
        raw = open(partial, "wb")  # noqa: SIM115 - closed below
        handle: gzip.GzipFile | IO[bytes] = (
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if out.name.endswith(".gz") else raw
        )
        lock = threading.Lock()
        written = [0]

        def sink_for(segment: int) -> Any:  # one sink for all segments
            def sink(lines: list[str]) -> None:
                if lines:
                    data = ("\n".join(lines) + "\n").encode("utf-8")
                    with lock:
                        handle.write(data)
                        written[0] += len(lines)
                    meter.advance(len(lines))

            return sink

        try:
            _run_segments(client, table, segments, sink_for, stop, backoff, page_size)
            if handle is not raw:
                handle.close()
            raw.close()
            os.replace(partial, out)
        except BaseException:
            stop.set()
            if handle is not raw:
                handle.close()
            raw.close()
            partial.unlink(missing_ok=True)
            meter.close()
            raise
        table_file = table_file_for_jsonl(out)
        files.append(out)
        items = written[0]
    else:
        partial_dir = out.with_name(f".{out.name}.partial")
        if partial_dir.exists():
            s3format.remove_export_dir(partial_dir)
        writer = s3format.S3ExportWriter(partial_dir, description, started_wall)
        data_files = [writer.data_file() for _ in range(segments)]

        def sink_for(segment: int) -> Any:
            data_file = data_files[segment]

            def sink(lines: list[str]) -> None:
                data_file.write_lines(lines)  # one thread per segment: no lock needed
                meter.advance(len(lines))

            return sink

        try:
            _run_segments(client, table, segments, sink_for, stop, backoff, page_size)
            entries = [f.close() for f in data_files]
            writer.finish(entries, time.time())
            write_table_file(partial_dir / TABLE_FILE, document)
            if out.exists():
                s3format.remove_export_dir(out)  # the earlier export (checked above), only now
                out.rmdir()
            os.replace(partial_dir, out)
        except BaseException:
            stop.set()
            for f in data_files:
                try:
                    f.abort()
                except Exception:
                    pass
            s3format.remove_export_dir(partial_dir)
            if partial_dir.exists():
                partial_dir.rmdir()
            meter.close()
            raise
        table_file = out / TABLE_FILE
        files.extend(out / s3format.DATA_DIR / f.name for f in data_files)
        items = sum(e["itemCount"] for e in entries)
    if format == "jsonl":
        write_table_file(table_file, document)
    meter.close()
    return ExportSummary(
        table=table,
        path=out,
        format=format,
        items=items,
        segments=segments,
        seconds=time.monotonic() - started,
        files=files,
        table_file=table_file,
    )


def _run_segments(
    client: Any,
    table: str,
    segments: int,
    sink_for: Any,
    stop: threading.Event,
    backoff: Backoff,
    page_size: int | None,
) -> None:
    def work(segment: int) -> None:
        _scan_segment(client, table, segment, segments, sink_for(segment), stop, backoff, page_size)

    try:
        if segments == 1:
            work(0)
            return
        with ThreadPoolExecutor(max_workers=min(segments, MAX_WORKERS), thread_name_prefix="export") as pool:
            futures = [pool.submit(work, s) for s in range(segments)]
            try:
                wait(futures, return_when=FIRST_EXCEPTION)
                for future in futures:  # re-raise a failure; the others stop at their next page
                    if future.done() and future.exception() is not None:
                        stop.set()
                        future.result()
                for future in futures:
                    future.result()
            except BaseException:
                stop.set()
                raise
    except ClientError as error:
        raise TransferError(f"scanning table {table!r} failed: {error_message(error)}")
