"""The source distribution and the wheel: the licence in both, and the sdist exactly the files meant for it.

The tracked files of this checkout are copied with stray files beside them (a scratch script, databases,
caches, ``site/``, ``build/``, ``dist/``), an sdist is built from the copy with setuptools >= 77 (pyproject's
build requirement), and a wheel from the unpacked sdist.
"""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: what the sdist carries of the checkout: the package, its tests and what they read, and the top-level files
SHIPPED_DIRS = ("src/", "tests/", "docs/", "examples/")
SHIPPED_FILES = {"README.md", "LICENSE", "pyproject.toml", "mkdocs.yml", "MANIFEST.in"}
#: files a working tree gathers that must not ship
STRAYS = (
    "scratch.py",
    "notes.txt",
    "app.db",
    "tests/scratch.db",
    "tests/__pycache__/test_x.cpython-311.pyc",
    "src/dynabase/__pycache__/cli.cpython-311.pyc",
    "site/index.html",
    "build/lib/dynabase/__init__.py",
    "dist/dynabase-0.0.1.tar.gz",
    ".hypothesis/examples/x",
)


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (the tracked files are what an sdist may carry)")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def _setuptools(tmp: Path) -> Path:
    """A directory holding setuptools >= 77, for PYTHONPATH (pip fetches it; the environment's is left alone)."""
    target = tmp / "setuptools"
    fetched = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            "setuptools>=77",
        ],
        capture_output=True,
        text=True,
    )
    if fetched.returncode != 0:
        pytest.skip(f"pip could not fetch setuptools>=77: {fetched.stderr.strip()[-300:]}")
    return target


def _build(kind: str, source: Path, out: Path, setuptools: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(setuptools)}
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from setuptools import build_meta as b; print(b.build_{kind}({str(out)!r}))",
        ],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, f"build_{kind} failed:\n{built.stderr[-2000:]}"
    return out / built.stdout.strip().splitlines()[-1]


def test_the_sdist_and_wheel_carry_the_licence_and_only_what_they_should(tmp_path: Path) -> None:
    tracked = _tracked()
    checkout = tmp_path / "checkout"
    for name in [*tracked, *STRAYS]:
        target = checkout / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name in STRAYS:
            target.write_text("stray\n")
        else:
            shutil.copy2(ROOT / name, target)
    setuptools = _setuptools(tmp_path)

    sdist = _build("sdist", checkout, tmp_path / "dist", setuptools)
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {m.name[len(top) + 1 :] for m in archive.getmembers() if m.isfile()}
        archive.extractall(tmp_path / "unpacked", filter="data")
        pkg_info = archive.extractfile(f"{top}/PKG-INFO")
        assert pkg_info is not None
        metadata = email.message_from_bytes(pkg_info.read())
    generated = {n for n in names if n in ("PKG-INFO", "setup.cfg") or n.startswith("src/dynabase.egg-info/")}
    expected = {n for n in tracked if n.startswith(SHIPPED_DIRS) or n in SHIPPED_FILES}
    assert names - generated == expected, (
        f"unexpected: {sorted(names - generated - expected)}; missing: {sorted(expected - names)}"
    )
    assert metadata["License-Expression"] == "Apache-2.0" and metadata["License-File"] == "LICENSE"

    wheel = _build("wheel", tmp_path / "unpacked" / top, tmp_path / "wheel", setuptools)
    with zipfile.ZipFile(wheel) as archive:
        inside = archive.namelist()
        info = next(n.split("/")[0] for n in inside if n.endswith(".dist-info/METADATA"))
        assert (ROOT / "LICENSE").read_bytes() == archive.read(f"{info}/licenses/LICENSE")
        metadata = email.message_from_bytes(archive.read(f"{info}/METADATA"))
    assert metadata["License-Expression"] == "Apache-2.0"
    assert {n.split("/")[0] for n in inside} == {"dynabase", info}  # the package alone: no tests, no docs
