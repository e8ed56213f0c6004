"""Which progress an import resumes from, and where its rejected lines go: a checkpoint file's record for this
destination, taken only when it describes this very input and names a rejects file the import would choose
itself (or ``--rejects`` names), and a rejects file that is only ever started over or truncated when it is one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from .checkpoint import Checkpoint, CheckpointFile
from .destination import Destination
from .errors import TransferError
from .sources import Source


def default_checkpoint(path: Path) -> Path:
    return path.with_name(path.name + ".dynabase-progress")


def default_rejects(path: Path, destination: Destination, taken: set[str]) -> Path:
    """``PATH.rejects.jsonl``, unless another destination's import of PATH keeps its rejects there."""
    candidate = path.with_name(path.name + ".rejects.jsonl").absolute()
    number = 1
    while str(candidate) in taken:
        suffix = destination.label() + (f"-{number}" if number > 1 else "")
        candidate = path.with_name(f"{path.name}.{suffix}.rejects.jsonl").absolute()
        number += 1
    return candidate


def is_default_rejects(path: Path, input_path: Path, destination: Destination) -> bool:
    """Whether ``path`` is one of the names :func:`default_rejects` gives ``destination``'s import of
    ``input_path``: the only rejects paths taken from a checkpoint without ``--rejects`` naming them."""
    base = input_path.absolute().with_name(input_path.name + ".rejects.jsonl")
    if path.parent.resolve() != base.parent.resolve():
        return False
    mine = re.escape(f"{input_path.name}.{destination.label()}") + r"(-[0-9]+)?\.rejects\.jsonl"
    return path.name == base.name or re.fullmatch(mine, path.name) is not None


def _resumable(
    mine: Checkpoint, source: Source, path: Path, rejects: str | None, destination: Destination
) -> None:
    """Refuse progress that does not describe this input, or names a rejects file this import would not use."""
    fingerprint = [f.fingerprint for f in source.files]
    if mine.files != fingerprint:
        if [f[:2] for f in mine.files] == [f[:2] for f in fingerprint]:
            raise TransferError(
                f"checkpoint {path} records progress in another copy of {source.path} (same name and size, "
                "another file: copied, or the checkpoint came with it), so it is not used; import from the "
                "start with --restart (restart=True)"
            )
        raise TransferError(
            f"the input changed since checkpoint {path} was written; import it again from the start with "
            "--restart (restart=True)"
        )
    data_file = source.files[mine.file_index] if source.files else None
    if data_file is not None and not data_file.compressed and mine.offset > data_file.size:
        raise TransferError(f"checkpoint {path} is damaged (offset past the end of {data_file.display})")
    if rejects is not None and rejects != mine.rejects:
        raise TransferError(
            f"the import being resumed keeps its rejected lines in {mine.rejects}; pass that --rejects "
            "file, or --restart to import from the start"
        )
    if rejects is None and not is_default_rejects(Path(mine.rejects), source.path, destination):
        raise TransferError(
            f"checkpoint {path} says the import being resumed keeps its rejected lines in {mine.rejects}; "
            "pass --rejects with that file if it is right, or --restart to import from the start"
        )


#: how every record of a rejects file starts (json.dumps of a dict whose first key is "file")
REJECTS_START = b'{"file": '


def _may_overwrite(path: Path, resumed: bool) -> None:
    """Refuse a rejects path the import would delete or truncate although it holds something else."""
    if path.is_symlink():
        if resumed:  # truncating or appending would write through the link
            raise TransferError(f"rejects file {path} is a symbolic link; not writing through it")
        return  # a new import removes the link itself, not what it points to
    if not path.exists():
        return
    if not path.is_file():
        raise TransferError(f"rejects file {path} exists and is not a file")
    with open(path, "rb") as handle:
        start = handle.read(len(REJECTS_START))
    if start and start != REJECTS_START:
        raise TransferError(
            f"{path} exists and is not a rejects file of dynabase import; not overwriting it: pass another "
            "--rejects, or remove it"
        )


def checkpoint_for(
    checkpoints: CheckpointFile,
    destination: Destination,
    source: Source,
    rejects: str | os.PathLike[str] | None,
    restart: bool,
    log: Callable[[str], None],
) -> tuple[Checkpoint, bool]:
    """This destination's progress from the checkpoint file and True, or a new checkpoint and False (after a
    note when the file records imports into other destinations)."""
    imports = checkpoints.load()
    others = [c for c in imports if c.destination != destination]
    mine = None if restart else next((c for c in imports if c.destination == destination), None)
    wanted = str(Path(rejects).absolute()) if rejects else None
    if mine is not None:
        _resumable(mine, source, checkpoints.path, wanted, destination)
        _may_overwrite(Path(mine.rejects), resumed=True)
        return mine, True
    owner = next((c.destination for c in others if c.rejects == wanted), None)
    if owner is not None:
        raise TransferError(
            f"{wanted} holds the rejected lines of the import into {owner}; pass another --rejects"
        )
    if others and not restart:
        where = "; ".join(str(c.destination) for c in others[:3]) + ("; ..." if len(others) > 3 else "")
        log(
            f"note: checkpoint {checkpoints.path} only has progress for {where}; importing into "
            f"{destination} from the start (each destination keeps its own progress)"
        )
    taken = {c.rejects for c in others}
    rejects_path = Path(rejects).absolute() if rejects else default_rejects(source.path, destination, taken)
    _may_overwrite(rejects_path, resumed=False)
    fingerprint = [f.fingerprint for f in source.files]
    state = Checkpoint(
        destination, input=str(source.path.resolve()), rejects=str(rejects_path), files=fingerprint
    )
    return state, False
