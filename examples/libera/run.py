"""Libera SDC metadata end to end on the embedded engine: ``python examples/libera/run.py [DB_PATH | :memory:]``
(DB_PATH: a new file; the demo's items are created, not upserted).

Default: a database file in a temporary directory.  Records a data file with its sortable metadata, ingests
a level-0 construction record with its PDS file (one transaction), a calibration file, then reads a file's
items by kind, searches files by applicable date (the date-search GSI) and calibration files by level, and
updates a hyphenated counter under a condition -- printing the raw items and the expressions' placeholders.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the example importable as the package ``libera``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dynabase
from dynabase.model import ConditionFailedError
from libera import libera


def main(db: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = db or str(Path(tmp) / "libera.db")
        client = dynabase.connect(path)
        table = libera.open_table(client, create=True)
        print(f"table {table.name!r} in {path}, indexes {list(table.indexes)}")

        print("\n== writes")
        libera.record_file(
            table, "Example_file.nc", archive_time="2024-01-01 00:00:00", algorithm_version="1.0.0"
        )
        libera.add_sortable(table, "Example_file.nc", "L0#SPICE#AZ", "2024-01-01")
        libera.ingest_construction_record(
            table,
            "L0_CONS_file.PDS",
            "L0_PDS_file.PDS",
            applicable_date="2024-01-01",
            ingest_time="2024-01-01 00:00:00",
            archive_time="2024-01-01 00:01:00",
            algorithm_version="1.0.0",
            apids=[
                {
                    "APID": 11,
                    "SCID": 1,
                    "edos-version": "1.0.0",
                    "first-packet-time": "2024-01-01 00:00:00",
                    "last-packet-time": "2024-01-01 00:00:00",
                    "missing-packet-count": 0,
                    "filled-gap-count": 0,
                },
                {
                    "APID": 12,
                    "SCID": 1,
                    "edos-version": "1.0.0",
                    "first-packet-time": "2024-01-01 00:00:05",
                    "last-packet-time": "2024-01-01 23:59:59",
                    "missing-packet-count": 0,
                    "filled-gap-count": 0,
                },
            ],
        )
        libera.record_file(
            table, "L0_CONS_other.PDS", archive_time="2024-01-02 00:01:00", algorithm_version="1.0.0"
        )
        libera.add_sortable(table, "L0_CONS_other.PDS", "L0#APID11", "2024-01-02")
        libera.record_calibration(
            table,
            "Example_calibration_file.nc",
            "L0",
            archive_time="2024-01-01 00:00:00",
            calibration_version="1.0.0",
        )
        for item in client.scan(TableName=table.name)["Items"]:
            print("   ", {k: next(iter(v.values())) for k, v in item.items() if k != "_type"})

        print("\n== reads")
        items = libera.file_metadata(table, "L0_CONS_file.PDS")
        print("    L0_CONS_file.PDS: file", items["file"])
        print(
            "      sortable",
            [s["identifier"] for s in items["sortable"]],
            "additional",
            [a["identifier"] for a in items["additional"]],
        )
        print("    files for 2024-01-01 (date-search GSI):", libera.files_for_date(table, "2024-01-01"))
        print("    L0#APID files for 2024-01-01:", libera.files_for_date(table, "2024-01-01", "L0#APID"))
        print("    L0 calibration files (calibration GSI):", libera.calibration_files(table, "L0"))

        print("\n== hyphenated names through placeholders")
        command = table.SortableMetadata.update(
            {"file": "L0_CONS_file.PDS", "identifier": "L0#APID11"},
            add={"missing-packet-count": 3},
            where="${applicable-date} = @{date}",
            substitutions={"date": "2024-01-01"},
            execute=False,
        )
        print(
            "    UpdateExpression",
            command["UpdateExpression"],
            "ConditionExpression",
            command["ConditionExpression"],
        )
        print("    ExpressionAttributeNames", command["ExpressionAttributeNames"])
        updated = libera.count_missing_packets(
            table, "L0_CONS_file.PDS", "L0#APID11", 3, applicable_date="2024-01-01"
        )
        print("    missing-packet-count is now", updated["missing-packet-count"])
        try:
            libera.count_missing_packets(
                table, "L0_CONS_file.PDS", "L0#APID11", 1, applicable_date="2024-01-02"
            )
        except ConditionFailedError as error:
            print("    wrong applicable-date refused:", error)
        client.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
