"""What the suite installs by itself on a new machine, with Debian's package manager: Java and npm for DynamoDB
Local (tests/backends.py), Chromium for the console's browser tests (tests/console/browser.py).

``apt-get install -y PACKAGE`` (after ``apt-get update`` when the package is not known yet), one installer at a
time across processes. It needs root and apt-get; without them :func:`apt_install` says why, and the caller
fails with (DynamoDB Local) or skips with (the browser) that reason.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

LOCKS = Path(__file__).resolve().parent.parent / ".cache"


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock across processes (pytest-xdist workers, parallel sessions installing at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no locking, installs are rare
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _apt(apt: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run([apt, *arguments], capture_output=True, text=True, env=env, timeout=1200)


def apt_install(package: str, provides: str) -> str | None:
    """Install Debian's ``package`` unless ``provides`` (a command, or an absolute path) is there already.
    None when it is there afterwards, else why not."""

    def present() -> bool:
        return os.access(provides, os.X_OK) if os.path.isabs(provides) else shutil.which(provides) is not None

    if present():
        return None
    apt = shutil.which("apt-get")
    if apt is None:
        return f"{provides} is not installed and apt-get is not available to install Debian's {package}"
    if os.geteuid() != 0:
        return f"{provides} is not installed and installing it needs root (apt-get install {package})"
    with file_lock(LOCKS / f"apt-{package}.lock"):
        if present():
            return None
        result = _apt(apt, "install", "-y", package)
        if result.returncode != 0:
            _apt(apt, "update")
            result = _apt(apt, "install", "-y", package)
    if result.returncode != 0 or not present():
        return (
            f"apt-get install -y {package} failed (exit {result.returncode}): {result.stderr.strip()[-500:]}"
        )
    return None
