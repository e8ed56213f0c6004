"""``bench/sync_bench.py --mqtt`` at a tiny size: it starts its components, measures every figure and stops
what it started (the figures themselves are read from a real run, see bench/README.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .broker import ensure_mosquitto

REPO = Path(__file__).resolve().parent.parent.parent


def test_the_mqtt_bench_runs_at_a_tiny_size(tmp_path: Path) -> None:
    missing = ensure_mosquitto()
    if missing:
        pytest.fail(missing)
    out = tmp_path / "figures.json"
    tiny = ["--devices", "3", "--direct-devices", "2", "--processes", "2", "--samples", "3"]
    tiny += ["--window", "1", "--rounds", "1", "--changes", "20", "--json", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "sync_bench.py"), "--mqtt", *tiny],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,  # a hang guard
    )
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text())
    assert figures["hub"]["devices"] == 3
    # idle devices over MQTT make no request at all; direct ones poll their scopes
    assert figures["mqtt_idle"]["fleet_requests"] == 0
    assert figures["mqtt_idle"]["hub_requests_per_s"] > 0  # the hub reads the stream
    assert figures["direct_idle"]["fleet_requests"] > 0
    for mode in ("mqtt", "direct"):
        latency = figures[f"{mode}_latency"]
        assert latency["missed"] == 0 and latency["measured"] == 3 * latency["observers"] > 0
        assert 0 < latency["p50"] <= latency["p99"]
        assert figures[f"{mode}_fleet"]["died"] == []
    assert figures["push"]["hub"]["pushed"] == figures["push"]["direct"]["pushed"] == 4 * 20
    assert "device -> device write-to-visible" in run.stdout and "ratio" in run.stdout
