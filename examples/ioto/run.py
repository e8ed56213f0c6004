"""Ioto's device database end to end: ``python examples/ioto/run.py [DIR]``.

The device side is the embedded engine on a file (``device.db``); the cloud side, AWS DynamoDB in
production, is ``dynabase serve`` on ``cloud.db`` here: a self-hosted hub, started by this script on a free
loopback port and stopped (by its PID) at the end. Both tables come from the same schema; ``process`` decides
the rest: the device table has no Status model (``enable: 'cloud'``), faults recorded on the device go up
(``sync: 'up'``), the settings the cloud writes for a device come down to that device only (``sync: 'down'``,
``scope: '${deviceId}'``), and the Fault metrics entry is evaluated. Ends with the page's music example
(value templates, a nested schema). Default DIR: a temporary directory.
"""

from __future__ import annotations

import os
import signal
import subprocess
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
SRC = Path(__file__).resolve().parents[2] / "src"


def start_cloud(db: Path) -> tuple[subprocess.Popen, str]:
    """``dynabase serve`` on ``db`` and a free loopback port: the process and its URL."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "dynabase", "serve", "--db", str(db), "--port", "0", "-q"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    line = process.stdout.readline()  # "dynabase serving on http://127.0.0.1:PORT (db: ...)"
    if "serving on" not in line:
        process.kill()
        raise RuntimeError(f"dynabase serve did not start: {line!r}")
    return process, line.split("serving on ", 1)[1].split()[0]


def stop_cloud(process: subprocess.Popen) -> None:
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()


def raw(client, table) -> list[dict]:
    return [
        {k: next(iter(v.values())) for k, v in item.items()}
        for item in client.scan(TableName=table.name)["Items"]
    ]


def main(directory: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(directory or tmp)
        base.mkdir(parents=True, exist_ok=True)
        server, url = start_cloud(base / "cloud.db")
        try:
            run_demo(base, url)
        finally:
            stop_cloud(server)


def run_demo(base: Path, url: str) -> None:
    device_client = dynabase.connect(str(base / "device.db"))
    cloud_client = dynabase.aws(
        endpoint_url=url, region="us-east-1", aws_access_key_id="demo", aws_secret_access_key="demo"
    )
    device = ioto.open_table(device_client, "device", ioto.DEVICE_TABLE, create=True)
    cloud = ioto.open_table(cloud_client, "cloud", ioto.DEVICE_TABLE, create=True)
    schema = ioto.load()
    print(f"device table {device.name!r} in {base / 'device.db'}: models {device.list_models()}")
    print(f"cloud table {cloud.name!r} at {url} (dynabase serve): models {cloud.list_models()}")
    print("process:", {name: schema.process_for(name) for name in schema.models})
    sync = ioto.open_sync(device, cloud, "dev-01")

    print("\n== the device records faults")
    try:
        device.model("Status")
    except ModelDisabledError as error:
        print("    no Status on the device:", error)
    recorded = []
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
        recorded.append(fault)
        print("   ", fault["id"], fault["severity"], fault["timestamp"].isoformat())
    try:
        ioto.record_fault(device, "dev-01", source="sensor", severity="panic", subject="x", message="y")
    except ValidationError as error:
        print("    refused:", error)
    print("    newest first:", [f["subject"] for f in ioto.faults(device, "dev-01")])
    print("    pending changes:", sync.status().pending)

    print("\n== the cloud keeps the status and sets the device's settings")
    print("    status", ioto.set_status(cloud, {"firmware": "2.1.0", "interval": 60}, "0.0.1"))
    ioto.set_settings(cloud, "dev-01", interval=30, logLevel="info")
    ioto.set_settings(cloud, "dev-02", interval=90, logLevel="warn")  # another device's: not for dev-01
    print(
        "    models that sync up:",
        ioto.synced_models(schema, "up"),
        "down:",
        ioto.synced_models(schema, "down"),
    )

    print("\n== sync")
    print("   ", sync.sync_once())
    print("    cloud faults:", [f["subject"] for f in ioto.faults(cloud, "dev-01")])
    settings = ioto.get_settings(device, "dev-01")
    print("    device settings:", {k: settings[k] for k in ("interval", "logLevel")})
    print("    dev-02's settings on this device:", ioto.get_settings(device, "dev-02"))
    print("    device items after sync:", sorted({item["_type"] for item in raw(device_client, device)}))
    device.Fault.remove({"deviceId": "dev-01", "id": recorded[0]["id"]})
    print("    removed a fault on the device; sync:", sync.sync_once())
    print("    cloud faults:", [f["subject"] for f in ioto.faults(cloud, "dev-01")])
    print("    status:", sync.status())
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
