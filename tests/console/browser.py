"""A real headless Chromium for the console's tests: Debian's ``chromium`` driven by Playwright.

Installed on demand, as ``tests/backends.py`` installs DynamoDB Local: ``apt-get install -y chromium`` (after
``apt-get update`` when the package is not known yet; needs root) and ``pip install playwright`` (its wheel
carries its driver; ``playwright install``, which downloads a browser build, is never run). When neither can be
had, :func:`browser_or_reason` says why, and the browser tests skip with that reason.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_LOCK = Path(__file__).resolve().parents[2] / ".cache" / "chromium-install.lock"


@contextlib.contextmanager
def _install_lock():
    """One installer at a time (pytest-xdist workers, parallel sessions)."""
    import fcntl

    _LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(_LOCK, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(command: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200)


def _ensure_chromium() -> str | None:
    if os.access(CHROMIUM, os.X_OK):
        return None
    apt = shutil.which("apt-get")
    if apt is None:
        return "Chromium is not installed and apt-get is not available to install Debian's chromium"
    if os.geteuid() != 0:
        return (
            "Chromium is not installed and installing Debian's chromium needs root (apt-get install chromium)"
        )
    result = _run([apt, "install", "-y", "chromium"])
    if result.returncode != 0:
        _run([apt, "update"])
        result = _run([apt, "install", "-y", "chromium"])
    if result.returncode != 0 or not os.access(CHROMIUM, os.X_OK):
        return (
            f"apt-get install -y chromium failed (exit {result.returncode}): {result.stderr.strip()[-500:]}"
        )
    return None


def _ensure_playwright() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        result = _run([sys.executable, "-m", "pip", "install", "playwright>=1.40"])
        if result.returncode != 0:
            return f"pip install playwright failed (exit {result.returncode}): {result.stderr.strip()[-500:]}"
        import importlib

        importlib.invalidate_caches()
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError as error:
            return f"playwright installed but cannot be imported: {error}"
    return None


def browser_or_reason() -> str | None:
    """Install what is missing; ``None`` when Chromium and Playwright are ready, else why not."""
    if not sys.platform.startswith("linux"):
        return "the browser tests use Debian's chromium (Linux only)"
    with _install_lock():
        return _ensure_chromium() or _ensure_playwright()


@contextlib.contextmanager
def launched(extra_args: list[str] | tuple[str, ...] = ()) -> Any:
    """A headless Chromium (with ``extra_args``) for a test module; skips the module when none can be had."""
    import pytest

    reason = browser_or_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra_args], headless=True
        )
        try:
            yield instance
        finally:
            instance.close()
