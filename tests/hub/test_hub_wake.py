"""The hub reads the table's stream right after a push it applied lands, not at its next idle poll: a device's
change reaches the other devices even when the hub polls an idle stream once an hour (the latency itself is
measured by ``bench/sync_bench.py --mqtt``)."""

from __future__ import annotations

import threading
from typing import Any

from dynabase.hub import HubCore
from dynabase.hub.mqtt import MqttHub

from .broker import HUB_USER
from .conftest import PATIENCE, Fleet, eventually, password


def test_a_landed_push_is_fanned_out_without_waiting_for_the_next_poll(fleet: Fleet, watching: Any) -> None:
    hub = MqttHub(
        HubCore(fleet.cloud),
        fleet.broker.url,
        streams=fleet.client.streams(),
        username=HUB_USER,
        password=password(HUB_USER),
        client_id="hub-hourly",
        poll_interval=3600.0,
    )
    stop, ready = threading.Event(), threading.Event()
    thread = threading.Thread(target=hub.run, args=(stop, ready.set), daemon=True)
    thread.start()
    fleet.hubs.append((hub, stop, thread))
    assert ready.wait(PATIENCE), "the hub did not get ready"
    d1, s1 = fleet.device("dev1")
    d2, s2 = fleet.device("dev2")
    s2.sync_once()
    watching(s2)
    d1.Note.create({"id": "n1", "text": "hello"})
    assert s1.sync_once().pushed == 1
    eventually(lambda: d2.Note.get({"id": "n1"}), "the note on dev2 (an hour before the hub's next poll)")
    assert hub.fanned_out >= 1
