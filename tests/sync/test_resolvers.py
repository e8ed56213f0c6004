"""Conflict resolvers in real conflicts: two replicas change one item concurrently (neither saw the other's
change), the device with the resolver pushing after the other side. Per-field merge and a custom resolver,
with the device's change newer and older than the cloud's, and fields added, changed and removed on each side.
The cloud is embedded (no Date header: each device's fake clock is exactly its stamp clock)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

import dynabase
from dynabase.model import Table
from dynabase.sync import Sync

from .test_sync import SCHEMA as BASE_SCHEMA

SCHEMA: dict[str, Any] = copy.deepcopy(BASE_SCHEMA)
FIELDS = ("d_change", "d_remove", "d_add", "c_change", "c_remove", "c_add", "both")
SCHEMA["models"]["Note"].update({name: {"type": "string"} for name in FIELDS})
START = {"id": "m", "d_change": "0", "d_remove": "0", "c_change": "0", "c_remove": "0", "both": "0"}
DEVICE_EDIT = {"d_change": "dev", "d_remove": None, "d_add": "dev", "both": "dev"}
CLOUD_EDIT = {"c_change": "cloud", "c_remove": None, "c_add": "cloud", "both": "cloud"}


class Replicas:
    """An embedded cloud; device "d" (with the resolver under test) and device "o" (the other side)."""

    def __init__(self, resolver: Any) -> None:
        self.now = [1_800_000_000.0]
        self.cloud = Table("resolve", dynabase.connect(":memory:"), SCHEMA, side="cloud")
        self.cloud.create_table()
        self.d, self.sd = self._device("d", {"Note": resolver})
        self.o, self.so = self._device("o", None)

    def _device(self, name: str, resolvers: Any) -> tuple[Table, Sync]:
        clock: Callable[[], float] = lambda: self.now[0]  # noqa: E731
        table = Table("resolve", dynabase.connect(":memory:", clock=clock), SCHEMA, side="device")
        table.create_table()
        sync = Sync(table, self.cloud, device_id=name, resolvers=resolvers)
        sync.monotonic = clock  # the fake clock's jumps are time passing
        return table, sync

    def conflict(self, device_newer: bool) -> None:
        """Both devices hold START; each edits it without seeing the other's edit; "o" pushes first."""
        self.d.Note.create(dict(START))
        self.sd.sync_once()
        self.so.sync_once()
        first, second = (self.o, self.d) if device_newer else (self.d, self.o)
        self.now[0] += 5
        first.Note.update({"id": "m", **(CLOUD_EDIT if first is self.o else DEVICE_EDIT)})
        self.now[0] += 5
        second.Note.update({"id": "m", **(CLOUD_EDIT if second is self.o else DEVICE_EDIT)})
        self.so.sync_once()  # the other side's edit reaches the cloud first
        self.sd.sync_once()  # the conflict: the device's edit meets it
        for sync in (self.so, self.sd, self.so):
            assert sync.sync_once().in_step

    def everywhere(self) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in table.Note.get({"id": "m"}).items() if k in FIELDS}
            for table in (self.cloud, self.d, self.o)
        ]


MERGED = {"d_change": "dev", "d_add": "dev", "c_change": "cloud", "c_add": "cloud", "both": "dev"}


@pytest.mark.parametrize("device_newer", [False, True], ids=["cloud-newer", "device-newer"])
def test_merge_keeps_each_sides_fields_whichever_is_newer(device_newer: bool) -> None:
    replicas = Replicas("merge")
    replicas.conflict(device_newer)
    assert (
        replicas.everywhere() == [MERGED] * 3
    )  # removed fields stay removed, the device's edit wins on "both"


@pytest.mark.parametrize("device_newer", [False, True], ids=["cloud-newer", "device-newer"])
def test_a_custom_resolver_is_called_with_both_sides_and_its_result_goes_everywhere(
    device_newer: bool,
) -> None:
    calls: list[tuple[dict, dict, str]] = []

    def resolver(local: dict, cloud: dict, model: str) -> dict:
        calls.append((local, cloud, model))
        return {**cloud, "both": f"{local['both']}+{cloud['both']}", "pk": "changed?"}

    replicas = Replicas(resolver)
    replicas.conflict(device_newer)
    assert len(calls) == 1
    local, cloud, model = calls[0]
    assert model == "Note"
    assert {k: local.get(k) for k in FIELDS} == {**{k: START.get(k) for k in FIELDS}, **DEVICE_EDIT}
    assert {k: cloud.get(k) for k in FIELDS} == {**{k: START.get(k) for k in FIELDS}, **CLOUD_EDIT}
    assert not any(name.startswith("_sync") for name in (*local, *cloud))
    expected = {
        **{k: v for k, v in START.items() if k in FIELDS},
        **{k: v for k, v in CLOUD_EDIT.items() if v is not None},
        "both": "dev+cloud",
    }
    del expected["c_remove"]
    assert replicas.everywhere() == [expected] * 3
    assert replicas.cloud.Note.get({"id": "m"}) is not None  # the key was not changed by the resolver


@pytest.mark.parametrize("device_newer", [False, True], ids=["cloud-newer", "device-newer"])
def test_a_resolver_returning_none_keeps_last_writer_wins(device_newer: bool) -> None:
    replicas = Replicas(lambda local, cloud, model: None)
    replicas.conflict(device_newer)
    newer = DEVICE_EDIT if device_newer else CLOUD_EDIT
    expected = {k: v for k, v in {**START, **newer}.items() if k in FIELDS and v is not None}
    assert replicas.everywhere() == [expected] * 3


@pytest.mark.parametrize("device_newer", [False, True], ids=["cloud-newer", "device-newer"])
def test_a_delete_against_a_resolver_is_whole_item(device_newer: bool) -> None:
    calls: list[Any] = []
    replicas = Replicas(lambda local, cloud, model: calls.append(1) or cloud)
    replicas.d.Note.create(dict(START))
    replicas.sd.sync_once()
    replicas.so.sync_once()
    first, second = (replicas.o, replicas.d) if device_newer else (replicas.d, replicas.o)
    replicas.now[0] += 5
    first.Note.remove({"id": "m"}) if first is replicas.o else first.Note.update({"id": "m", **DEVICE_EDIT})
    replicas.now[0] += 5
    second.Note.remove({"id": "m"}) if second is replicas.o else second.Note.update(
        {"id": "m", **DEVICE_EDIT}
    )
    replicas.so.sync_once()
    replicas.sd.sync_once()
    for sync in (replicas.so, replicas.sd, replicas.so):
        assert sync.sync_once().in_step
    held = [table.Note.get({"id": "m"}) for table in (replicas.cloud, replicas.d, replicas.o)]
    assert not calls  # a delete is not merged
    if device_newer:  # the device's later edit wins over the earlier remove
        assert all(item is not None and item["d_change"] == "dev" for item in held)
    else:
        assert held == [None, None, None]
