"""Libera SDC metadata and provenance on dynabase.

Every item of a data file lives under its unique filename (``PK``); ``SK`` tells file metadata (``#``),
sortable metadata (``#L0#SPICE#AZ``), additional metadata (``#PDS``, ``#APID11``) and calibration files
(``#CAL#L0``) apart.  Attribute names keep Libera's hyphens (``archive-time``, ``applicable-date``): pass
them as dict keys.  Access patterns, each a function taking a :class:`dynabase.model.Table` from
:func:`open_table`:

* :func:`record_file`, :func:`add_sortable`, :func:`add_additional`, :func:`record_calibration`;
* :func:`ingest_construction_record` -- a level-0 construction record with its PDS file, every item in one
  transaction (file metadata of both, the CR's sortable metadata per APID and its additional metadata);
* :func:`file_metadata` -- every item of one file, in one query, by kind;
* :func:`files_for_date` -- the date-search GSI: files with data for a date, optionally by type identifier;
* :func:`calibration_files` -- the calibration-version GSI: calibration files of a level with their versions;
* :func:`count_missing_packets` -- an atomic ADD to ``missing-packet-count`` guarded by a condition on
  ``applicable-date`` (hyphenated names in update, condition and key expressions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dynabase.model import Table
from dynabase.schema import load_schema

SCHEMA = Path(__file__).with_name("schema.json5")
TABLE_NAME = "libera-metadata"


def open_table(client: Any, name: str = TABLE_NAME, *, create: bool = False) -> Table:
    table = Table(name, client, load_schema(SCHEMA))
    if create and not table.exists():
        table.create_table()
    return table


def timestamp(at: datetime | None = None) -> str:
    """Libera's time text: ``2024-01-01 00:00:00`` (UTC)."""
    at = at or datetime.now(timezone.utc)
    at = at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)
    return at.strftime("%Y-%m-%d %H:%M:%S")


# == writing ===================================================================================================


def record_file(
    table: Table,
    filename: str,
    *,
    archive_time: str,
    algorithm_version: str,
    ingest_time: str | None = None,
    transaction: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """File metadata (``SK = '#'``)."""
    return table.FileMetadata.create(
        {
            "file": filename,
            "archive-time": archive_time,
            "algorithm-version": algorithm_version,
            "ingest-time": ingest_time,
        },
        transaction=transaction,
    )


def add_sortable(
    table: Table,
    filename: str,
    identifier: str,
    applicable_date: str,
    attributes: Mapping[str, Any] | None = None,
    *,
    transaction: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Sortable metadata (``SK = '#' + identifier``, e.g. ``L0#SPICE#AZ``); it is in the date-search GSI."""
    return table.SortableMetadata.create(
        {
            "file": filename,
            "identifier": identifier,
            "applicable-date": applicable_date,
            **(attributes or {}),
        },
        transaction=transaction,
    )


def add_additional(
    table: Table,
    filename: str,
    identifier: str,
    attributes: Mapping[str, Any] | None = None,
    *,
    transaction: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Additional, level-specific metadata (``SK = '#' + identifier``, e.g. ``PDS`` or ``APID11``)."""
    return table.AdditionalMetadata.create(
        {"file": filename, "identifier": identifier, **(attributes or {})}, transaction=transaction
    )


def record_calibration(
    table: Table, filename: str, level: str, *, archive_time: str, calibration_version: str
) -> dict[str, Any]:
    """Calibration file metadata (``SK = '#CAL#' + level``)."""
    return table.CalibrationFile.create(
        {
            "file": filename,
            "level": level,
            "archive-time": archive_time,
            "calibration-version": calibration_version,
        }
    )


def ingest_construction_record(
    table: Table,
    cr_filename: str,
    pds_filename: str,
    *,
    applicable_date: str,
    ingest_time: str,
    archive_time: str,
    algorithm_version: str,
    apids: Iterable[Mapping[str, Any]],
) -> None:
    """A level-0 construction record and its PDS file, all or nothing (one transaction).

    ``apids``: one mapping per APID, ``{"APID": 11, "SCID": 1, "edos-version": "1.0.0",
    "first-packet-time": ..., "last-packet-time": ..., "missing-packet-count": 0, "filled-gap-count": 0}``:
    the CR gets a sortable item ``#L0#APID<n>`` and an additional item ``#APID<n>`` per APID, and a ``#PDS``
    item naming its PDS file.
    """
    transaction: dict[str, Any] = {}
    files = {"ingest_time": ingest_time, "archive_time": archive_time, "algorithm_version": algorithm_version}
    record_file(table, cr_filename, transaction=transaction, **files)
    record_file(table, pds_filename, transaction=transaction, **files)
    add_additional(table, cr_filename, "PDS", {"filename": pds_filename}, transaction=transaction)
    sortable_names = ("first-packet-time", "last-packet-time", "missing-packet-count", "filled-gap-count")
    for apid in apids:
        number = apid["APID"]
        sortable = {k: apid[k] for k in sortable_names if k in apid}
        add_sortable(
            table, cr_filename, f"L0#APID{number}", applicable_date, sortable, transaction=transaction
        )
        additional = {k: v for k, v in apid.items() if k not in sortable_names}
        add_additional(table, cr_filename, f"APID{number}", additional, transaction=transaction)
    table.transact("write", transaction)


def count_missing_packets(
    table: Table, filename: str, identifier: str, count: int, *, applicable_date: str
) -> dict[str, Any]:
    """Add ``count`` to ``missing-packet-count`` of a sortable item, only if its ``applicable-date`` is
    ``applicable_date`` (ConditionFailedError otherwise)."""
    return table.SortableMetadata.update(
        {"file": filename, "identifier": identifier},
        add={"missing-packet-count": count},
        where="${applicable-date} = @{date}",
        substitutions={"date": applicable_date},
    )


# == reading ===================================================================================================


def file_metadata(table: Table, filename: str) -> dict[str, Any]:
    """Every item of one file (one query): ``{"file": {...} | None, "sortable": [...], "additional": [...],
    "calibration": [...]}``."""
    items = table.fetch(
        ["FileMetadata", "SortableMetadata", "AdditionalMetadata", "CalibrationFile"],
        {"PK": filename},
        hidden=False,
    )
    return {
        "file": (items["FileMetadata"] or [None])[0],
        "sortable": items["SortableMetadata"],
        "additional": items["AdditionalMetadata"],
        "calibration": items["CalibrationFile"],
    }


def files_for_date(
    table: Table, applicable_date: str, type_prefix: str | None = None
) -> list[tuple[str, str]]:
    """``(filename, SK)`` of the files with data for ``applicable_date``, from the date-search GSI
    (``applicable-date`` / ``SK``), optionally only type identifiers beginning ``type_prefix`` (``"L0"``)."""
    properties: dict[str, Any] = {"applicable-date": applicable_date}
    if type_prefix is not None:
        properties["SK"] = {"begins": "#" + type_prefix}
    page = table.SortableMetadata.find(properties, index="DateSearch", hidden=True)
    return [(item["file"], item["SK"]) for item in page]


def calibration_files(table: Table, level: str) -> list[tuple[str, str]]:
    """``(filename, calibration-version)`` of a level's calibration files: GSI ``SK = #CAL#<level>``."""
    page = table.CalibrationFile.find({"level": level}, index="CalibrationSearch")
    return [(item["file"], item["calibration-version"]) for item in page]
