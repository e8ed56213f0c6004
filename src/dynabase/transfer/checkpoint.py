"""The import checkpoint: how far an import got, rewritten atomically after every batch.

``position`` is the last input line fully dealt with (written to the table or rejected); everything up to it
is done. Resuming seeks there, truncates the rejects file to ``rejects_size`` (dropping rejects of lines the
interrupted run had passed but not yet checkpointed, which the new run reports again), and carries on.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import TransferError

CHECKPOINT_VERSION = 1


@dataclass
class Checkpoint:
    input: str
    table: str
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
    version: int = CHECKPOINT_VERSION

    def save(self, path: Path) -> None:
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(json.dumps(asdict(self), indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: Path) -> Checkpoint | None:
        if not path.exists():
            return None
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise TransferError(f"cannot read checkpoint {path}: {error.strerror or error}")
        except ValueError:
            raise TransferError(f"checkpoint {path} is damaged (not JSON); delete it to start over")
        if not isinstance(document, dict) or document.get("version") != CHECKPOINT_VERSION:
            raise TransferError(
                f"{path} is not a dynabase import checkpoint; delete it or pick another --checkpoint"
            )
        known = set(cls.__dataclass_fields__)
        try:
            return cls(**{k: v for k, v in document.items() if k in known})
        except TypeError:
            raise TransferError(f"checkpoint {path} is damaged; delete it to start over")
