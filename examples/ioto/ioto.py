"""Ioto's device database on dynabase: one OneTable schema for the device and the cloud.

``schema.json5`` is the device schema of Ioto's "Database Schemas" page.  Its ``process`` map decides where
each model lives and how it travels:

* ``Status: {enable: 'cloud'}`` -- the Status model exists in the cloud table only: a device-side table
  (``Table(..., side="device")``) has no Status model (``ModelDisabledError``), a cloud-side one has it;
* ``Fault: {sync: 'up', metrics: [...]}`` -- faults are recorded on the device and replicated up to the
  cloud (:func:`open_sync`); the metrics entry says which CloudWatch-style metrics to derive (:func:`metrics`);
* ``Settings: {sync: 'down', scope: '${deviceId}'}`` (a dynabase addition) -- the cloud writes a device's
  settings and only that device receives them.

The device side is the embedded engine (``dynabase.connect(path)``: it captures the changes to push); the
cloud side is AWS DynamoDB (``dynabase.aws(...)`` / ``boto3.client("dynamodb")``), DynamoDB Local, or
``dynabase serve`` as a self-hosted hub.

``music.json5`` is the page's music example (value templates ``${_type}:${name}``, a nested schema); see
:func:`add_artist` / :func:`move_artist`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dynabase.model import Table
from dynabase.schema import Schema, load_schema
from dynabase.sync import Sync

SCHEMA = Path(__file__).with_name("schema.json5")
MUSIC_SCHEMA = Path(__file__).with_name("music.json5")
DEVICE_TABLE = "ioto-device"
CLOUD_TABLE = "ioto-cloud"
SEVERITIES = ("info", "warn", "error", "critical", "fatal")


def load() -> Schema:
    return load_schema(SCHEMA)


def open_table(client: Any, side: str, name: str | None = None, *, create: bool = False) -> Table:
    """The device-side (``side="device"``) or cloud-side (``side="cloud"``) table of the device schema."""
    table = Table(name or (DEVICE_TABLE if side == "device" else CLOUD_TABLE), client, load(), side=side)
    if create and not table.exists():
        table.create_table()
    return table


# == faults (both sides; recorded on the device) ===============================================================


def record_fault(
    table: Table,
    device_id: str,
    *,
    source: str,
    severity: str,
    subject: str,
    message: str,
    at: datetime | None = None,
) -> dict[str, Any]:
    """A Fault (``pk = device#<deviceId>``, ``sk = fault#<ulid>``); ``severity`` must be one of
    :data:`SEVERITIES` (ValidationError otherwise, and nothing is written)."""
    return table.Fault.create(
        {
            "deviceId": device_id,
            "timestamp": at or datetime.now(timezone.utc),
            "source": source,
            "severity": severity,
            "subject": subject,
            "message": message,
        }
    )


def faults(
    table: Table, device_id: str, *, limit: int | None = None, severity: str | None = None
) -> list[Any]:
    """A device's faults, newest first (ULIDs sort by time)."""
    properties: dict[str, Any] = {"deviceId": device_id}
    if severity is not None:
        properties["severity"] = severity
    return list(table.Fault.find(properties, reverse=True, limit=limit))


# == status (cloud only) =======================================================================================


def set_status(table: Table, parameters: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The singleton Status item (``status#`` / ``status#``); only a cloud-side table has the model."""
    return table.Status.upsert({"parameters": dict(parameters), "version": version})


def get_status(table: Table) -> dict[str, Any] | None:
    return table.Status.get({})


# == process: sync and metrics =================================================================================


def synced_models(schema: Schema, direction: str) -> list[str]:
    """Models replicated ``direction`` (``"up"``: device to cloud, ``"down"``: cloud to device) by
    ``process.<Model>.sync``, and enabled on both sides."""
    out = []
    for name in schema.models:
        process = schema.process_for(name)
        if process.sync in (direction, "both") and process.on_device and process.on_cloud:
            out.append(name)
    return out


def open_sync(device: Table, cloud: Table, device_id: str, **options: Any) -> Sync:
    """Replication between the device table and the cloud table as ``process`` says (:mod:`dynabase.sync`):
    faults go up, the device's settings come down, Status stays in the cloud."""
    return Sync(device, cloud, device_id=device_id, **options)


# == settings (written in the cloud, synced down to their device) ==============================================


def set_settings(cloud: Table, device_id: str, **values: Any) -> dict[str, Any]:
    """The cloud sets a device's settings (``interval``, ``logLevel``); the next sync brings them down."""
    return cloud.Settings.upsert({"deviceId": device_id, **values})


def get_settings(device: Table, device_id: str) -> dict[str, Any] | None:
    return device.Settings.get({"deviceId": device_id})


def metrics(schema: Schema, model: str, items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The metric data points ``process.<model>.metrics`` derives from ``items``: one per item and metric
    field the item carries, with the dimensions read from the item (``{Device: 'deviceId'}``)."""
    points = []
    for metric in schema.process_for(model).metrics:
        for item in items:
            dimensions = {
                name: item.get(attribute)
                for entry in metric.dimensions
                for name, attribute in dict(entry).items()
            }
            for name, attribute in metric.fields:
                if attribute in item:
                    points.append(
                        {
                            "namespace": metric.namespace,
                            "metric": name,
                            "value": item[attribute],
                            "dimensions": dimensions,
                        }
                    )
    return points


# == the music example =========================================================================================


def open_music(client: Any, name: str = "ioto-music", *, create: bool = False) -> Table:
    table = Table(name, client, load_schema(MUSIC_SCHEMA))
    if create and not table.exists():
        table.create_table()
    return table


def add_album(table: Table, name: str, songs: int) -> dict[str, Any]:
    return table.album.create({"name": name, "songs": songs})


def add_artist(table: Table, name: str, address: Mapping[str, str]) -> dict[str, Any]:
    return table.artist.create({"name": name, "address": dict(address)})


def move_artist(table: Table, name: str, **address: str) -> dict[str, Any]:
    """Change some address fields; the others stay (nested schemas are updated field by field)."""
    return table.artist.update({"name": name, "address": address})
