"""Ioto's device database end to end: ``python examples/ioto/run.py [DIR]``.

The device side is the embedded engine on a file (``device.db``); the cloud side, AWS DynamoDB in production
(``dynabase.aws(...)``), is a second embedded database here (``cloud.db``).  Both tables come from the same
schema; ``process`` decides the rest: the device table has no Status model (``enable: 'cloud'``), faults
recorded on the device go up to the cloud (``sync: 'up'``), and the Fault metrics entry is evaluated.  Ends
with the page's music example (value templates, a nested schema).  Default DIR: a temporary directory
(give a new one: the demo's items are created, not upserted).
"""

from __future__ import annotations

import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the example importable as the package ``ioto``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dynabase
from dynabase.model import ModelDisabledError, ValidationError
from ioto import ioto

T0 = datetime(2025, 6, 1, 8, 0, 0, tzinfo=timezone.utc)


def raw(client, table) -> list[dict]:
    return [
        {k: next(iter(v.values())) for k, v in item.items()}
        for item in client.scan(TableName=table.name)["Items"]
    ]


def main(directory: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(directory or tmp)
        base.mkdir(parents=True, exist_ok=True)
        device_client = dynabase.connect(str(base / "device.db"))
        cloud_client = dynabase.connect(str(base / "cloud.db"))
        device = ioto.open_table(device_client, "device", create=True)
        cloud = ioto.open_table(cloud_client, "cloud", create=True)
        schema = ioto.load()
        print(f"device table {device.name!r} in {base / 'device.db'}: models {device.list_models()}")
        print(f"cloud table {cloud.name!r} in {base / 'cloud.db'}: models {cloud.list_models()}")
        print("process:", {name: schema.process_for(name) for name in schema.models})

        print("\n== the device records faults")
        try:
            device.model("Status")
        except ModelDisabledError as error:
            print("    no Status on the device:", error)
        for i, (severity, subject) in enumerate([("warn", "temperature high"), ("error", "fan stalled")]):
            fault = ioto.record_fault(
                device,
                "dev-01",
                source="sensor",
                severity=severity,
                subject=subject,
                message=f"{subject} on dev-01",
                at=T0 + timedelta(minutes=i),
            )
            print("   ", fault["id"], fault["severity"], fault["timestamp"].isoformat())
        try:
            ioto.record_fault(device, "dev-01", source="sensor", severity="panic", subject="x", message="y")
        except ValidationError as error:
            print("    refused:", error)
        print("    newest first:", [f["subject"] for f in ioto.faults(device, "dev-01")])
        for item in raw(device_client, device):
            print("    raw", item)

        print("\n== the cloud keeps the status; faults sync up")
        status = ioto.set_status(cloud, {"firmware": "2.1.0", "interval": 60}, "0.0.1")
        print("    status", status)
        print(
            "    models that sync up:",
            ioto.synced_models(schema, "up"),
            "down:",
            ioto.synced_models(schema, "down"),
        )
        print(
            "    copied",
            ioto.sync(device, cloud, "up"),
            "items up;",
            ioto.sync(cloud, device, "down"),
            "down",
        )
        print("    cloud faults:", [f["subject"] for f in ioto.faults(cloud, "dev-01")])
        print("    device items after sync:", sorted({item["_type"] for item in raw(device_client, device)}))
        print(
            "    metrics of faults:",
            ioto.metrics(schema, "Fault", ioto.faults(cloud, "dev-01")),
            "(the page's Fault model has no 'temperature' field)",
        )
        print(
            "    metrics of a reading carrying one:",
            ioto.metrics(schema, "Fault", [{"deviceId": "dev-01", "temperature": 81.5}]),
        )

        print("\n== the music example")
        music = ioto.open_music(cloud_client, create=True)
        ioto.add_album(music, "Abbey Road", 17)
        ioto.add_artist(music, "The Beatles", {"street": "3 Savile Row", "city": "London", "zip": "W1S 3PR"})
        print("    moved:", ioto.move_artist(music, "The Beatles", city="Liverpool"))
        for item in raw(cloud_client, music):
            print("    raw", item)
        device_client.close()
        cloud_client.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
