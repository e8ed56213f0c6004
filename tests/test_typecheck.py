"""``python -m mypy`` on the package, with pyproject.toml's configuration (strict for the public modules)."""

from __future__ import annotations

import hashlib
import importlib
import subprocess
import sys
import tempfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # mypy's own dependency on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
#: the packages whose ``__all__`` is dynabase's public API (and those of the server, transfer, console and
#: command line, strict as well; schema and tools are not yet: schema.loader and tools.common are not strict)
PUBLIC_PACKAGES = (
    "dynabase",
    "dynabase.client",
    "dynabase.model",
    "dynabase.testing",
    "dynabase.sync",
    "dynabase.streams",
    "dynabase.server",
    "dynabase.transfer",
    "dynabase.console",
    "dynabase.cli",
)


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    # a cache per working tree, outside it: a warm run takes about a second
    cache = Path(tempfile.gettempdir()) / f"dynabase-mypy-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:12]}"
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _overrides(flag: str) -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return {m for o in config["overrides"] if o.get(flag) for m in o["module"]}


def test_the_package_type_checks() -> None:
    run = _mypy()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout


def test_every_public_module_is_strict() -> None:
    public = set(PUBLIC_PACKAGES)
    for name in PUBLIC_PACKAGES:
        package = importlib.import_module(name)
        for export in package.__all__:  # a class or function: its module (a constant: the package's)
            public.add(getattr(getattr(package, export), "__module__", name))
    assert not public - _overrides("disallow_untyped_defs"), "not in pyproject.toml's strict overrides"


def test_no_module_is_exempt_from_checking() -> None:
    """Every module passes ``python -m mypy``: none has its errors ignored."""
    assert not _overrides("ignore_errors"), "modules whose errors mypy ignores"


def test_a_strict_module_refuses_an_untyped_def(tmp_path: Path) -> None:
    source = ROOT / "src/dynabase/model/table.py"
    shadow = tmp_path / "table.py"
    shadow.write_text(source.read_text() + "\n\ndef untyped(x):\n    return x\n")
    run = _mypy("--shadow-file", str(source), str(shadow))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "table.py:" in run.stdout and "[no-untyped-def]" in run.stdout
