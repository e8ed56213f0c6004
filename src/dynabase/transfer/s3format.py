"""DynamoDB's export-to-S3 layout (DYNAMODB_JSON), written to and read from a local directory.

The directory is what AWS writes under ``<bucket>/<prefix>/AWSDynamoDB/<ExportId>/``::

    manifest-summary.json       export summary (version 2020-06-30, exportArn, itemCount, outputFormat, ...)
    manifest-summary.checksum   MD5 (hex) of manifest-summary.json
    manifest-files.json         one JSON object per line per data file:
                                {"itemCount", "md5Checksum" (base64 MD5), "etag" (hex MD5), "dataFileS3Key"}
    manifest-files.checksum     MD5 (hex) of manifest-files.json
    _started                    empty marker
    data/<id>.json.gz           gzip'd lines of {"Item": {...}} (one data file per scan segment)
    table.json                  dynabase's addition: the table's definition, for ``import --create``

S3 keys in the manifests are relative to the bucket as AWS writes them (``AWSDynamoDB/<ExportId>/data/...``);
the reader resolves them against the directory, so a real AWS export copied down with ``aws s3 sync`` reads too.
"""

from __future__ import annotations

import base64
import datetime as _dt
import gzip
import hashlib
import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import TransferError

SUMMARY = "manifest-summary.json"
FILES = "manifest-files.json"
DATA_DIR = "data"
STARTED = "_started"
MANIFEST_VERSION = "2020-06-30"
OUTPUT_FORMAT = "DYNAMODB_JSON"


def new_export_id(now: float | None = None) -> str:
    """An ExportId shaped like AWS's: 14 digits of epoch milliseconds, a dash, 8 hex digits."""
    millis = int((time.time() if now is None else now) * 1000)
    return f"{millis:014d}-{secrets.token_hex(4)}"


def new_data_file_name() -> str:
    """AWS-style data file name: 26 random base32 characters, ``.json.gz``."""
    return base64.b32encode(secrets.token_bytes(16)).decode("ascii").rstrip("=").lower() + ".json.gz"


def timestamp(when: float) -> str:
    """``2020-11-04T07:28:34.028Z``"""
    moment = _dt.datetime.fromtimestamp(when, tz=_dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def md5_file(path: Path) -> bytes:
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.digest()


class DataFileWriter:
    """One gzip'd data file of ``{"Item": ...}`` lines."""

    def __init__(self, directory: Path, key_prefix: str) -> None:
        self.name = new_data_file_name()
        self.path = directory / DATA_DIR / self.name
        self.key = f"{key_prefix}{DATA_DIR}/{self.name}"
        self.items = 0
        self._raw = open(self.path, "wb")  # noqa: SIM115 - closed in close()
        self._gzip = gzip.GzipFile(fileobj=self._raw, mode="wb", compresslevel=6, mtime=0)

    def write_lines(self, lines: list[str]) -> None:
        if lines:
            self._gzip.write(("\n".join(lines) + "\n").encode("utf-8"))
            self.items += len(lines)

    def close(self) -> dict[str, Any]:
        self._gzip.close()
        self._raw.close()
        digest = md5_file(self.path)
        return {
            "itemCount": self.items,
            "md5Checksum": base64.b64encode(digest).decode("ascii"),
            "etag": digest.hex(),
            "dataFileS3Key": self.key,
        }

    def abort(self) -> None:
        try:
            self._gzip.close()
        finally:
            self._raw.close()


class S3ExportWriter:
    """Writes one export directory; ``data_file()`` per segment, then ``finish()`` writes the manifests."""

    def __init__(self, directory: Path, description: dict[str, Any], started: float) -> None:
        self.directory = directory
        self.description = description
        self.started = started
        self.export_id = new_export_id(started)
        self.key_prefix = f"AWSDynamoDB/{self.export_id}/"
        (directory / DATA_DIR).mkdir(parents=True, exist_ok=True)
        (directory / STARTED).write_bytes(b"")

    def data_file(self) -> DataFileWriter:
        return DataFileWriter(self.directory, self.key_prefix)

    def finish(self, entries: list[dict[str, Any]], ended: float) -> dict[str, Any]:
        files_text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries)
        files_path = self.directory / FILES
        files_path.write_text(files_text, encoding="utf-8")
        (self.directory / "manifest-files.checksum").write_text(hashlib.md5(files_text.encode()).hexdigest())
        table_arn = (
            self.description.get("TableArn") or f"arn:aws:dynamodb:::table/{self.description['TableName']}"
        )
        summary = {
            "version": MANIFEST_VERSION,
            "exportArn": f"{table_arn}/export/{self.export_id}",
            "startTime": timestamp(self.started),
            "endTime": timestamp(ended),
            "tableArn": table_arn,
            "tableId": self.description.get("TableId"),
            "exportTime": timestamp(self.started),
            "s3Bucket": None,
            "s3Prefix": None,
            "s3SseAlgorithm": None,
            "s3SseKmsKeyId": None,
            "manifestFilesS3Key": f"{self.key_prefix}{FILES}",
            "billedSizeBytes": int(self.description.get("TableSizeBytes") or 0),
            "itemCount": sum(e["itemCount"] for e in entries),
            "outputFormat": OUTPUT_FORMAT,
            "exportType": "FULL_EXPORT",
        }
        summary_text = json.dumps(summary, indent=2) + "\n"
        (self.directory / SUMMARY).write_text(summary_text, encoding="utf-8")
        (self.directory / "manifest-summary.checksum").write_text(
            hashlib.md5(summary_text.encode()).hexdigest()
        )
        return summary


# -- reading -------------------------------------------------------------------------------------------------


@dataclass
class ManifestEntry:
    path: Path
    key: str
    item_count: int | None


def find_export_dir(directory: Path) -> Path | None:
    """The directory holding manifest-summary.json: ``directory`` itself, or the one export under
    ``directory/AWSDynamoDB/<ExportId>/`` (an export prefix copied down from S3)."""
    if (directory / SUMMARY).is_file():
        return directory
    candidates = sorted(directory.glob(f"AWSDynamoDB/*/{SUMMARY}"))
    if len(candidates) > 1:
        names = ", ".join(str(c.parent) for c in candidates)
        raise TransferError(f"{directory} holds several exports ({names}); pass one of them")
    return candidates[0].parent if candidates else None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise TransferError(f"cannot read {path}: {error.strerror or error}")
    except ValueError as error:
        raise TransferError(f"{path} is not valid JSON: {error}")


def read_summary(directory: Path) -> dict[str, Any]:
    summary = _read_json(directory / SUMMARY)
    if not isinstance(summary, dict):
        raise TransferError(f"{directory / SUMMARY} is not an export summary")
    fmt = summary.get("outputFormat", OUTPUT_FORMAT)
    if not isinstance(summary.get("tableArn", ""), (str, type(None))):
        raise TransferError(f"{directory / SUMMARY}: tableArn is not a string")
    if fmt != OUTPUT_FORMAT:
        raise TransferError(f"{directory} is a {fmt} export; only {OUTPUT_FORMAT} exports can be imported")
    return summary


def _resolve(directory: Path, key: str) -> Path:
    relative = PurePosixPath(key)
    parts = relative.parts
    if DATA_DIR in parts:  # ".../AWSDynamoDB/<id>/data/<name>" -> <directory>/data/<name>
        tail = parts[len(parts) - 1 - parts[::-1].index(DATA_DIR) :]
        candidate = directory.joinpath(*tail)
        if candidate.exists():
            return candidate
    candidate = directory.joinpath(*parts)
    if candidate.exists():
        return candidate
    return directory / DATA_DIR / relative.name


def _data_file(directory: Path, key: Any, where: str, inside: Path) -> Path:
    """The data file ``key`` names, which must be a relative S3 key and lead to a file inside ``inside``
    (symlinks followed): the manifest is read from the export, and the export is not trusted."""
    if not isinstance(key, str) or not key:
        raise TransferError(f"{where}: dataFileS3Key is not a non-empty string")
    relative = PurePosixPath(key)
    parts = relative.parts
    if not parts or relative.is_absolute() or "\\" in key or ":" in parts[0] or ".." in parts:
        raise TransferError(
            f"{where}: dataFileS3Key {key!r} is not a relative key inside the export (no leading /, no '..')"
        )
    path = _resolve(directory, key)
    if not path.resolve().is_relative_to(inside.resolve()):
        raise TransferError(f"{where}: dataFileS3Key {key!r} leads outside the export directory {inside}")
    return path


def read_manifest_files(directory: Path, inside: Path | None = None) -> list[ManifestEntry]:
    """The data files of the export in ``directory``, each of which must be inside ``inside`` (the directory
    the user named, which may hold the export under ``AWSDynamoDB/<ExportId>/``; default ``directory``)."""
    path = directory / FILES
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise TransferError(f"cannot read {path}: {error.strerror or error}")
    except ValueError:
        raise TransferError(f"{path} is not UTF-8 text")
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if not isinstance(entry, dict) or "dataFileS3Key" not in entry:
            raise TransferError(f"{where}: not a manifest entry with a dataFileS3Key")
        count = entry.get("itemCount")
        if count is not None and (type(count) is not int or count < 0):
            raise TransferError(f"{where}: itemCount is not a whole number of 0 or more")
        key = entry["dataFileS3Key"]
        entries.append(ManifestEntry(_data_file(directory, key, where, inside or directory), key, count))
    missing = [str(e.path) for e in entries if not e.path.is_file()]
    if missing:
        raise TransferError(f"export {directory} is missing data file(s): {', '.join(missing)}")
    return entries


def remove_export_dir(directory: Path, *, check_only: bool = False) -> None:
    """Remove an earlier export (for overwriting), refusing anything that doesn't look like one."""
    if not directory.exists():
        return
    if not directory.is_dir():
        raise TransferError(f"{directory} exists and is not a directory")
    entries = set(os.listdir(directory))
    ours = {
        SUMMARY,
        FILES,
        "manifest-summary.checksum",
        "manifest-files.checksum",
        STARTED,
        DATA_DIR,
        "table.json",
    }
    if entries - ours:
        raise TransferError(f"{directory} holds files that are not part of an export; not overwriting it")
    if check_only:
        return
    for name in entries:
        target = directory / name
        if target.is_dir():
            for child in target.iterdir():
                child.unlink()
            target.rmdir()
        else:
            target.unlink()
