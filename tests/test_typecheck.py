"""``python -m mypy`` on the package, with pyproject.toml's configuration (strict for the public modules)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_type_checks() -> None:
    # a cache per working tree, outside it: a warm run takes about a second
    cache = Path(tempfile.gettempdir()) / f"dynabase-mypy-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:12]}"
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout
