"""What a sync reports, the names of its state in the device database, and small helpers on cloud items."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..clock import DELETED_ATTR, VERSION_ATTR

STATE_DEVICE = "deviceId"
STATE_OFFSET = "clockOffset"
STATE_ERROR = "lastError"
STATE_SYNCED = "lastSync"
STATE_NEWEST = "newestSeq"
#: a scope's pull checkpoint (the newest arrival stamp pulled) is stored under this prefix + the scope
CHECKPOINT = "checkpoint:"
#: when a scope's last complete pull began (epoch ms), under this prefix + the scope
PULLED_AT = "pulledAt:"
#: a full resync under way: ``{"started": ms, "after": the page key it reached}``, under this prefix + the scope
RESYNC = "resync:"


@dataclass
class SyncResult:
    """What one sync did. ``in_step``: nothing was left pending and every scope was pulled to its end."""

    pushed: int = 0
    pulled: int = 0
    conflicts: int = 0
    deletes: int = 0
    #: changes the cloud refused, set aside in the device's quarantine (``Sync.quarantine()``)
    quarantined: int = 0
    #: device writes undone instead of pushed (a ``sync: down`` model's, or an edit of an item deleted while
    #: this device could not know)
    discarded: int = 0
    in_step: bool = False

    def add(self, other: SyncResult) -> None:
        for name in ("pushed", "pulled", "conflicts", "deletes", "quarantined", "discarded"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class SyncStatus:
    device_id: str
    pending: int
    checkpoints: dict[str, str]
    lag_seconds: float | None
    last_error: str | None
    clock_offset: float | None
    last_sync: str | None
    #: the changes set aside: ``{"key", "model", "reason", "refused_at"}`` each (see ``Sync.quarantine()``)
    quarantined: list[dict[str, Any]]


def error_code(error: BaseException) -> str:
    """The DynamoDB error code of a client error ("" for anything else)."""
    response = getattr(error, "response", None)
    return ((response or {}).get("Error") or {}).get("Code", "") if isinstance(response, dict) else ""


def version_of(item: Mapping[str, Any] | None) -> str | None:
    """The sync version a cloud item carries (None: not written by sync)."""
    value = (item or {}).get(VERSION_ATTR)
    return value.get("S") if isinstance(value, Mapping) else None


def is_tombstone(item: Mapping[str, Any]) -> bool:
    """Whether a cloud item is the tombstone of a delete."""
    return bool((item.get(DELETED_ATTR) or {}).get("BOOL"))


def pulled_change(item: dict[str, Any], key_names: list[str]) -> dict[str, Any]:
    """A cloud item as a change to apply on the device: the item, or a delete for a tombstone."""
    if is_tombstone(item):
        return {"Key": {n: item[n] for n in key_names}, "Version": version_of(item), "Delete": True}
    return {"Item": item}


def key_text(item: Mapping[str, Any], key_names: list[str]) -> str:
    """An item's primary key as one comparable string."""
    return json.dumps([item[n] for n in key_names], sort_keys=True)
