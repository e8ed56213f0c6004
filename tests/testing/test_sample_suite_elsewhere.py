"""The sample suite is a fair migration proof only if it passes where it came from: under moto's mock_aws, and
against DynamoDB Local (the oracle). Both are slow, so they run with ``-m slow`` (bench/testing_bench.py times
the same runs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(backend: str, **env: str) -> subprocess.CompletedProcess[str]:
    child = {**os.environ, "SAMPLE_SUITE_BACKEND": backend, "AWS_DEFAULT_REGION": "us-east-1", **env}
    child["PYTHONPATH"] = str(ROOT / "src") + (
        os.pathsep + child["PYTHONPATH"] if child.get("PYTHONPATH") else ""
    )
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/testing/sample_suite"],
        cwd=ROOT,
        env=child,
        capture_output=True,
        text=True,
        timeout=1800,
    )


@pytest.mark.slow
def test_sample_suite_passes_under_moto() -> None:
    pytest.importorskip("moto")
    result = _run("moto")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "200 passed" in result.stdout


@pytest.mark.slow
def test_sample_suite_passes_against_dynamodb_local(dynamodb_local_endpoint: str) -> None:
    result = _run(
        "local",
        AWS_ENDPOINT_URL_DYNAMODB=dynamodb_local_endpoint,
        AWS_ENDPOINT_URL_DYNAMODB_STREAMS=dynamodb_local_endpoint,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "200 passed" in result.stdout
