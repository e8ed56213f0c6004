"""``import_table``: JSON lines or an S3 export into a table with BatchWriteItem; resumable, and no line lost.

Each input line is parsed, checked against the table's key schema and queued; every 25 queued items go out as
one BatchWriteItem (UnprocessedItems retried with exponential backoff), then the checkpoint records the
position. A bad line (not UTF-8 JSON, not a DynamoDB JSON item, over :data:`~.sources.MAX_LINE_BYTES`, or
refused by the table: a batch the table refuses is halved until the bad item is alone) goes to stderr and to
the rejects file with its file, line number and error, and the import carries on.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import IO, Any

from botocore.exceptions import ClientError

from .checkpoint import Checkpoint, CheckpointFile
from .codec import InvalidItem, Item, parse_line, printable
from .destination import Destination, destination_of
from .errors import TransferError
from .progress import Progress
from .resume import checkpoint_for, default_checkpoint
from .retry import Backoff
from .sources import MAX_LINE_BYTES, Source, open_source, read_lines
from .tabledef import create_table, describe, error_code, error_message, read_table_file

BATCH_SIZE = 25  # BatchWriteItem's limit
MAX_REPORTED = 50  # rejects printed to stderr per run; all of them go to the rejects file


@dataclass
class ImportSummary:
    table: str
    #: where the items went: the database file or endpoint + region, and the table
    destination: Destination
    path: Path
    format: str  # "jsonl" or "s3"
    #: non-blank input lines dealt with, over all runs of this import (a resumed one counts the earlier runs)
    lines: int
    imported: int
    rejected: int
    #: BatchWriteItem batches of 25 (or fewer) written, over all runs
    batches: int
    seconds: float
    created: bool
    resumed: bool
    #: the checkpoint said this import had already finished: nothing was read or written
    already_complete: bool
    checkpoint: Path
    rejects: Path

    @property
    def ok(self) -> bool:
        return self.rejected == 0


class KeyCheck:
    """Client-side checks of an item against the table's keys, for a clear message per line."""

    def __init__(self, description: dict[str, Any]) -> None:
        types = {a["AttributeName"]: a["AttributeType"] for a in description.get("AttributeDefinitions", [])}
        self.keys = [
            (k["AttributeName"], types.get(k["AttributeName"], "S")) for k in description["KeySchema"]
        ]
        names = {name for name, _ in self.keys}
        self.index_keys = [(name, type_) for name, type_ in types.items() if name not in names]

    def problem(self, item: Item) -> str | None:
        for name, type_ in self.keys:
            value = item.get(name)
            if value is None:
                return f"missing key attribute {name!r}"
            if type_ not in value:
                return f"key attribute {name!r} must be of type {type_}, got {next(iter(value))}"
            if type_ in ("S", "B") and len(value[type_]) == 0:
                return f"key attribute {name!r} is empty"
        for name, type_ in self.index_keys:
            value = item.get(name)
            if value is not None and type_ not in value:
                return f"index key attribute {name!r} must be of type {type_}, got {next(iter(value))}"
        return None

    def key(self, item: Item) -> tuple[Any, ...]:
        parts: list[Any] = []
        for name, type_ in self.keys:
            value = item[name][type_]
            if type_ == "N":
                try:
                    value = Decimal(value).normalize()
                except InvalidOperation:
                    pass
            parts.append(value)
        return tuple(parts)


@dataclass
class _Pending:
    item: Item
    file: str
    line: int
    raw: bytes


class _Import:
    def __init__(
        self,
        client: Any,
        table: str,
        source: Source,
        state: Checkpoint,
        checkpoints: CheckpointFile,
        check: KeyCheck,
        backoff: Backoff,
        meter: Progress,
        log: Callable[[str], None],
        on_batch: Callable[[int], None] | None,
    ) -> None:
        self.client, self.table, self.source, self.state = client, table, source, state
        self.checkpoints, self.rejects_path = checkpoints, Path(state.rejects)
        self.check, self.backoff, self.meter, self.log, self.on_batch = check, backoff, meter, log, on_batch
        self.batch: list[_Pending] = []
        self.batch_keys: set[tuple[Any, ...]] = set()
        self.handled = (state.file_index, state.line, state.offset)
        self.rejects: IO[bytes] | None = None
        self.reported = 0
        self.metered_lines = state.lines
        self.metered_work = 0.0
        self.by_bytes = meter.total is not None and source.total_items is None

    # -- rejects -----------------------------------------------------------------------------------------

    def open_rejects(self) -> None:
        size = self.state.rejects_size
        if size == 0:
            self.rejects_path.unlink(missing_ok=True)
        elif self.rejects_path.exists() and self.rejects_path.stat().st_size > size:
            with open(self.rejects_path, "r+b") as handle:
                handle.truncate(size)

    def reject(self, file: str, line: int, error: str, raw: bytes) -> None:
        if self.rejects is None:
            self.rejects = open(self.rejects_path, "ab")  # noqa: SIM115 - closed in close()
        file, error = printable(file), printable(error)  # names may hold lone surrogates: keep them readable
        record = {
            "file": file,
            "line": line,
            "error": error,
            "text": raw.decode("utf-8", "replace").rstrip("\r\n"),
        }
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:  # keep the exact bytes too: nothing is lost
            record["base64"] = base64.b64encode(raw.rstrip(b"\r\n")).decode("ascii")
        self.rejects.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
        self.rejects.flush()
        self.state.rejected += 1
        self.reported += 1
        if self.reported <= MAX_REPORTED:
            self.log(f"{file}:{line}: {error}")
        elif self.reported == MAX_REPORTED + 1:
            self.log(f"(more rejected lines: see {self.rejects_path})")

    def close(self) -> None:
        if self.rejects is not None:
            self.rejects.close()
            self.rejects = None

    # -- writing -----------------------------------------------------------------------------------------

    def batch_write(self, requests: list[dict[str, Any]]) -> None:
        attempt = 0
        while True:
            response = self.backoff.call(
                f"BatchWriteItem into {self.table!r}",
                self.client.batch_write_item,
                RequestItems={self.table: requests},
            )
            unprocessed = (response.get("UnprocessedItems") or {}).get(self.table) or []
            if not unprocessed:
                return
            if len(unprocessed) < len(requests):
                attempt = 0  # progress: start the backoff over
            if attempt >= self.backoff.attempts:
                raise TransferError(
                    f"{len(unprocessed)} item(s) still unprocessed by {self.table!r} after {attempt} retries "
                    "(throttled?); progress is saved: re-run to resume"
                )
            self.backoff.sleep(self.backoff.delay(attempt))
            attempt += 1
            requests = unprocessed

    def write(self, pending: list[_Pending]) -> None:
        try:
            self.batch_write([{"PutRequest": {"Item": p.item}} for p in pending])
        except ClientError as error:
            if error_code(error) != "ValidationException":
                raise TransferError(f"writing to table {self.table!r} failed: {error_message(error)}")
            if len(pending) == 1:
                p = pending[0]
                message = error.response.get("Error", {}).get("Message", "") or "ValidationException"
                self.reject(p.file, p.line, f"rejected by the table: {message}", p.raw)
                return
            # the table wrote none of the batch: halve it until the item(s) it refuses are alone
            middle = len(pending) // 2
            self.write(pending[:middle])
            self.write(pending[middle:])
            return
        self.state.imported += len(pending)

    def flush(self, final: bool = False) -> None:
        wrote = bool(self.batch)
        if self.batch:
            self.write(self.batch)
            self.batch.clear()
            self.batch_keys.clear()
            self.state.batches += 1
        if not (wrote or final):
            return
        self.state.file_index, self.state.line, self.state.offset = self.handled
        if self.rejects is not None:
            self.rejects.flush()
            self.state.rejects_size = self.rejects.tell()
        self.state.complete = final
        self.checkpoints.save(self.state)
        self.advance_meter()
        if wrote and self.on_batch is not None:
            self.on_batch(self.state.batches)

    def advance_meter(self) -> None:
        lines = self.state.lines - self.metered_lines
        work = self.work_done() - self.metered_work
        self.metered_lines += lines
        self.metered_work += work
        self.meter.advance(lines, work if self.by_bytes else None)

    def work_done(self) -> float:
        if not self.by_bytes:
            return float(self.state.lines)
        index, _, offset = self.handled
        return float(sum(f.size for f in self.source.files[:index]) + offset)

    # -- the loop ----------------------------------------------------------------------------------------

    def parse(self, raw: bytes, size: int) -> Item | str:
        """The item of a line, or what is wrong with it."""
        if size > len(raw):
            return (
                f"the line is {size:,} bytes, over the {MAX_LINE_BYTES:,}-byte limit for one line (an item is "
                f"at most 400 KB); skipped unread, its first {len(raw):,} bytes kept here"
            )
        try:
            item = parse_line(raw)
        except InvalidItem as error:
            return str(error)
        return self.check.problem(item) or item

    def run(self) -> None:
        self.open_rejects()
        self.metered_work = self.work_done()
        self.meter.start_at(self.state.lines, self.metered_work)
        state = self.state
        resume_index, resume_at = state.file_index, (state.line, state.offset)
        for index, data_file in enumerate(self.source.files):
            if index < resume_index:
                continue
            start = resume_at if index == resume_index else (0, 0)
            for line, offset, raw, size in read_lines(data_file, *start):
                if size == len(raw) and not raw.strip():
                    self.handled = (index, line, offset)
                    continue
                parsed = self.parse(raw, size)
                if isinstance(parsed, str):
                    self.reject(data_file.display, line, parsed, raw)
                else:
                    key = self.check.key(parsed)
                    if key in self.batch_keys:  # a batch may not hold one key twice: send what's queued first
                        self.flush()
                    self.batch.append(_Pending(parsed, data_file.display, line, raw))
                    self.batch_keys.add(key)
                state.lines += 1
                self.handled = (index, line, offset)
                if len(self.batch) >= BATCH_SIZE:
                    self.flush()
        self.flush(final=True)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def import_table(
    client: Any,
    path: str | os.PathLike[str],
    table: str | None = None,
    create: bool = False,
    checkpoint: str | os.PathLike[str] | None = None,
    *,
    rejects: str | os.PathLike[str] | None = None,
    restart: bool = False,
    progress: bool | Progress = False,
    log: Callable[[str], None] | None = None,
    on_batch: Callable[[int], None] | None = None,
    backoff: Backoff | None = None,
) -> ImportSummary:
    """Import a JSON lines file or an S3 export directory (auto-detected) into ``table``.

    ``table`` defaults to the name in the export's ``table.json`` (or the S3 summary's tableArn). With
    ``create=True`` a missing table is created from ``table.json`` first. The checkpoint file
    (``<path>.dynabase-progress`` unless given) records progress per destination (the client's database file,
    or its endpoint and region, and the table): a re-run into the same destination continues where an
    interrupted one stopped and a finished import is not redone; an import into another destination starts
    from the beginning, after a note. ``restart=True`` drops this destination's progress. Rejected lines go to
    ``rejects`` (``<path>.rejects.jsonl``, or ``<path>.<destination>.rejects.jsonl`` when another
    destination's import keeps its rejects there) and ``log`` (stderr). ``on_batch(n)`` is called after the
    n-th batch is written and checkpointed (tests use it to interrupt an import).
    """
    started = time.monotonic()
    log = log or _stderr
    backoff = backoff or Backoff()
    source = open_source(path)
    document = read_table_file(source.table_file) if source.table_file else None
    name = table or (document or {}).get("TableName") or source.table_hint
    if not name:
        raise TransferError(f"no table name given and no table.json beside {source.path} to take it from")
    input_path = source.path
    destination = destination_of(client, name)
    checkpoints = CheckpointFile(Path(checkpoint) if checkpoint else default_checkpoint(input_path))
    state, resumed = checkpoint_for(checkpoints, destination, source, rejects, restart, log)

    def summary(created: bool, already: bool) -> ImportSummary:
        return ImportSummary(
            table=name,
            destination=destination,
            path=input_path,
            format=source.kind,
            lines=state.lines,
            imported=state.imported,
            rejected=state.rejected,
            batches=state.batches,
            seconds=time.monotonic() - started,
            created=created,
            resumed=resumed,
            already_complete=already,
            checkpoint=checkpoints.path,
            rejects=Path(state.rejects),
        )

    if state.complete:
        return summary(False, True)

    description = describe(client, name)
    created = False
    if description is None:
        if not create:
            raise TransferError(f"table {name!r} does not exist (pass --create to create it from table.json)")
        if document is None:
            raise TransferError(
                f"table {name!r} does not exist and there is no table.json beside {source.path}"
            )
        description = create_table(client, name, document)
        created = True
    elif document is not None and document["CreateTable"].get("KeySchema") not in (
        None,
        description["KeySchema"],
    ):
        ours = ", ".join(f"{k['AttributeName']} {k['KeyType']}" for k in description["KeySchema"])
        log(f"warning: table {name!r} has a different key schema ({ours}) from the exported table's")

    if isinstance(progress, Progress):
        meter = progress
    elif source.total_items is not None:
        meter = Progress(f"import {name}", source.total_items, unit="items", enabled=bool(progress))
    else:
        compressed = any(f.compressed for f in source.files)
        total = None if compressed else source.total_bytes
        meter = Progress(f"import {name}", total, unit="lines", enabled=bool(progress))

    def log_line(message: str) -> None:
        if meter.enabled:
            meter.message(message)
        else:
            log(message)

    run = _Import(
        client,
        name,
        source,
        state,
        checkpoints,
        KeyCheck(description),
        backoff,
        meter,
        log_line,
        on_batch,
    )
    if not resumed:  # from here on, this destination's earlier progress (--restart) is gone
        checkpoints.save(state)
    try:
        run.run()
    finally:
        run.close()
        meter.close()
    return summary(created, False)
