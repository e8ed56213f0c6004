"""Import checkpoints: how far an import of one input into one destination got, rewritten atomically after
every batch.

A checkpoint file holds one :class:`Checkpoint` per destination (database file, or endpoint + region, and
table) the input was imported into, so the same file can be tried locally, then loaded into AWS, and either
import resumes on its own. Progress recorded for another destination is never taken as progress here.

``position`` is the last input line fully dealt with (written to the table or rejected); everything up to it
is done. Resuming seeks there, truncates the destination's rejects file to ``rejects_size`` (dropping rejects
of lines the interrupted run had passed but not yet checkpointed, which the new run reports again), and
carries on.

A checkpoint file may come from anywhere (shipped beside a data file, edited by hand), so nothing in it is
trusted: every field is type-checked on loading (a bad one makes the file "damaged", an error before anything
is touched), each import is bound to the input files it read (name, size, modification time, device and
inode: a copy of the input, or a checkpoint that came with it, does not match), and the importer only takes
a rejects path from it that it would have chosen itself.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .destination import Destination
from .errors import TransferError

CHECKPOINT_VERSION = 3
#: the whole-number fields of an import
_COUNTS = ("file_index", "line", "offset", "lines", "imported", "rejected", "batches", "rejects_size")

_saving = threading.Lock()  # one read-merge-write of a checkpoint file at a time in this process


@dataclass
class Checkpoint:
    destination: Destination
    input: str
    #: absolute path of this import's rejects file
    rejects: str
    #: each input file's display name, size, modification time (ns), device and inode: to notice a changed
    #: input, or another copy of it (see :attr:`~dynabase.transfer.sources.DataFile.fingerprint`)
    files: list[list[Any]] = field(default_factory=list)
    #: index into ``files``, line number and byte offset of the last line dealt with
    file_index: int = 0
    line: int = 0
    offset: int = 0
    lines: int = 0
    imported: int = 0
    rejected: int = 0
    batches: int = 0
    rejects_size: int = 0
    complete: bool = False

    def to_json(self) -> dict[str, Any]:
        document = asdict(self)
        document["destination"] = self.destination.to_json()
        return document

    @classmethod
    def from_json(cls, document: Any) -> Checkpoint:
        """An import read from a checkpoint file, every field checked (ValueError names the bad one)."""
        if not isinstance(document, dict):
            raise ValueError("an import is not an object")
        destination = Destination.from_json(document.get("destination"))
        for name in ("input", "rejects"):
            if not isinstance(document.get(name), str):
                raise ValueError(f"{name!r} is not a string")
        counts = {name: document.get(name, 0) for name in _COUNTS}
        for name, value in counts.items():
            if type(value) is not int or value < 0:
                raise ValueError(f"{name!r} is not a whole number of 0 or more: {_shown(value)}")
        complete = document.get("complete", False)
        if not isinstance(complete, bool):
            raise ValueError(f"'complete' is not true or false: {_shown(complete)}")
        files = document.get("files")
        if not isinstance(files, list) or not all(_is_fingerprint(f) for f in files):
            raise ValueError("'files' is not a list of [name, size, modified, device, inode]")
        if counts["file_index"] >= max(len(files), 1):
            raise ValueError(f"'file_index' {counts['file_index']} is past the {len(files)} input file(s)")
        return cls(destination, document["input"], document["rejects"], files, complete=complete, **counts)


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_fingerprint(entry: Any) -> bool:
    return (
        isinstance(entry, list)
        and len(entry) == 5
        and isinstance(entry[0], str)
        and all(type(v) is int and v >= 0 for v in entry[1:])
    )


class CheckpointFile:
    """The checkpoint file of an input: its imports, one per destination."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> list[Checkpoint]:
        """Every import recorded, except those into in-memory databases that are gone (or not this process's)."""
        path = self.path
        if not path.exists():
            return []
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise TransferError(f"cannot read checkpoint {path}: {error.strerror or error}")
        except ValueError:
            raise TransferError(f"checkpoint {path} is damaged (not JSON); delete it to start over")
        version = document.get("version") if isinstance(document, dict) else None
        if version == 1:
            raise TransferError(
                f"checkpoint {path} was written by an earlier dynabase and does not record where it imported "
                "to; delete it to import from the start"
            )
        if version == 2:
            raise TransferError(
                f"checkpoint {path} was written by an earlier dynabase and is not tied to the input file it "
                "describes; delete it to import from the start"
            )
        if version != CHECKPOINT_VERSION or not isinstance(document.get("imports"), list):
            raise TransferError(
                f"{path} is not a dynabase import checkpoint; delete it or pick another --checkpoint"
            )
        try:
            imports = [Checkpoint.from_json(entry) for entry in document["imports"]]
        except (TypeError, ValueError) as error:
            raise TransferError(f"checkpoint {path} is damaged ({error}); delete it to start over")
        return [c for c in imports if not c.destination.gone]

    def save(self, checkpoint: Checkpoint) -> None:
        """Record ``checkpoint``, keeping the other destinations' imports as they are in the file now.

        Imports into two destinations may run at once: each re-reads the file before writing its own record
        (through a temporary file of its own), one thread at a time. Between processes, a write that slips
        in between can only set the other's progress back, which makes it redo batches (PutItem again, the
        same items), never skip any.
        """
        with _saving:
            others = [c for c in self.load() if c.destination != checkpoint.destination]
            imports = [c.to_json() for c in [*others, checkpoint]]
            document = {"version": CHECKPOINT_VERSION, "imports": imports}
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
            os.replace(temporary, self.path)
