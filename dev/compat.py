"""Run the mock, plugin, client and sync tests in fresh virtual environments at both ends of the declared ranges.

    python dev/compat.py                      # every end: oldest, newest, aiobotocore
    python dev/compat.py --ends oldest        # one end
    python dev/compat.py --keep .compat       # keep the environments (made again each run)
    python dev/compat.py -- -x -k mock        # more pytest arguments

The ends:

- ``oldest``: each runtime dependency (``[project] dependencies``) pinned at the floor ``pyproject.toml``
  declares (``boto3>=1.28`` -> ``boto3==1.28.0``), and so is each extra of :data:`EXTRAS` (paho-mqtt for
  sync over MQTT); the test tools as the registry resolves them;
- ``newest``: everything as a fresh ``pip install -e '.[test]'`` resolves it today (the newest boto3/botocore);
- ``aiobotocore``: the newest aiobotocore with the botocore it pins, and its tests (``.[test]`` leaves it out
  because every aiobotocore pins a narrow botocore range and would move a user's).

Each environment is new (``python -m venv``), so a package installed by hand elsewhere cannot hide a missing
requirement. Prints the versions each end ran with and pytest's closing line; exits 1 when any end failed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ["tests/testing", "tests/client", "tests/sync", "tests/hub"]
#: optional extras whose floors the oldest end pins too (their range is tested at both ends)
EXTRAS = ("mqtt",)
ENDS = ("oldest", "newest", "aiobotocore")
REPORTED = ("boto3", "botocore", "orjson", "aiobotocore", "moto", "pynamodb", "paho-mqtt")


def floors(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """``name==floor`` for each runtime dependency, and each of the :data:`EXTRAS`, declared as ``name>=floor``."""
    text = pyproject.read_text()
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.M | re.S)
    if block is None:
        raise SystemExit("pyproject.toml: no [project] dependencies list")
    requirements = re.findall(r'^\s*"([^"]+)"', block.group(1), re.M)
    for extra in EXTRAS:
        listed = re.search(rf"^{extra} = \[(.*?)\]", text, re.M | re.S)
        if listed is None:
            raise SystemExit(f"pyproject.toml: no [project.optional-dependencies] {extra} list")
        requirements += re.findall(r'"([^"]+)"', listed.group(1))
    pins = []
    for requirement in requirements:
        match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9.]*)\s*(?:,.*)?", requirement)
        if match is None:
            raise SystemExit(f"pyproject.toml: {requirement!r} has no '>=' floor to test")
        name, version = match.groups()
        pins.append(f"{name}=={version}")
    return pins


def _run(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(command), flush=True)
    return subprocess.run(command, text=True, **options)  # type: ignore[call-overload, no-any-return]


def _environment(end: str, directory: Path) -> Path:
    """A new virtual environment for one end, with the project and what that end installs."""
    if directory.exists():
        shutil.rmtree(directory)
    _run([sys.executable, "-m", "venv", str(directory)], check=True)
    python = directory / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    install = [str(python), "-m", "pip", "install", "-q", "-e", f"{ROOT}[test]"]
    if end == "oldest":
        constraints = directory / "constraints.txt"
        constraints.write_text("\n".join(floors()) + "\n")
        install += ["-c", str(constraints)]
    elif end == "aiobotocore":
        install.append("aiobotocore")
    _run(install, check=True, cwd=ROOT)
    return python


def _versions(python: Path) -> str:
    script = (
        "import importlib.metadata as m\n"
        f"for name in {REPORTED!r}:\n"
        "    try: print(f'{name} {m.version(name)}', end='; ')\n"
        "    except m.PackageNotFoundError: pass\n"
    )
    return _run([str(python), "-c", script], capture_output=True, check=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--ends", default=",".join(ENDS), help=f"comma-separated, of {', '.join(ENDS)}")
    parser.add_argument("--keep", metavar="DIR", help="make the environments in DIR and keep them")
    parser.add_argument("pytest_args", nargs="*", help="after --: more arguments for pytest")
    options = parser.parse_args(argv)
    ends = [end.strip() for end in options.ends.split(",") if end.strip()]
    unknown = [end for end in ends if end not in ENDS]
    if unknown:
        parser.error(f"--ends: unknown {', '.join(unknown)} (known: {', '.join(ENDS)})")
    base = Path(options.keep) if options.keep else Path(tempfile.mkdtemp(prefix="dynabase-compat-"))
    results: list[tuple[str, str, str, int]] = []
    try:
        for end in ends:
            python = _environment(end, base / end)
            versions = _versions(python)
            run = _run(
                [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS, *options.pytest_args],
                cwd=ROOT,
                capture_output=True,
            )
            sys.stdout.write(run.stdout[-3000:])
            sys.stderr.write(run.stderr[-3000:])
            closing = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "(no output)"
            results.append((end, versions, closing, run.returncode))
    finally:
        if not options.keep:
            shutil.rmtree(base, ignore_errors=True)
    print("\nend          versions / pytest")
    for end, versions, closing, code in results:
        print(f"{end:<12} {versions}\n{'':<12} {closing} (exit {code})")
    return 0 if all(code == 0 for *_, code in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
