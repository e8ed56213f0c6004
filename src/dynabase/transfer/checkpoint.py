"""Import checkpoints: how far an import of one input into one destination got, rewritten atomically after
every batch.

A checkpoint file holds one :class:`Checkpoint` per destination (database file, or endpoint + region, and
table) the input was imported into, so the same file can be tried locally, then loaded into AWS, and either
import resumes on its own. Progress recorded for another destination is never taken as progress here.

``position`` is the last input line fully dealt with (written to the table or rejected); everything up to it
is done. Resuming seeks there, truncates the destination's rejects file to ``rejects_size`` (dropping rejects
of lines the interrupted run had passed but not yet checkpointed, which the new run reports again), and
carries on.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .destination import Destination
from .errors import TransferError

CHECKPOINT_VERSION = 2

_saving = threading.Lock()  # one read-merge-write of a checkpoint file at a time in this process


@dataclass
class Checkpoint:
    destination: Destination
    input: str
    #: absolute path of this import's rejects file
    rejects: str
    #: display name and size of each input file, to notice a changed input
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
        if not isinstance(document, dict):
            raise ValueError("an import is not an object")
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in document.items() if k in known}
        values["destination"] = Destination.from_json(document.get("destination"))
        return cls(**values)


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
        if version != CHECKPOINT_VERSION or not isinstance(document.get("imports"), list):
            raise TransferError(
                f"{path} is not a dynabase import checkpoint; delete it or pick another --checkpoint"
            )
        try:
            imports = [Checkpoint.from_json(entry) for entry in document["imports"]]
        except (TypeError, ValueError):
            raise TransferError(f"checkpoint {path} is damaged; delete it to start over")
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
