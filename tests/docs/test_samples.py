"""Every ```python block of the documentation (``docs/**/*.md`` and ``README.md``) runs.

The blocks of one page run in order in one namespace, in a temporary directory, inside ``mock_dynamodb()``
(a boto3 client a page makes is answered by the embedded engine in process) and with every connection to
anything but loopback refused: no network. A block that is a fragment (it needs your code, or runs until
interrupted) is preceded by the line ``<!-- not-run -->``; keep them few.

A reader copies one block, not the page: a block imports every name it uses, even when a block above it on the
page imported it already (their shared namespace would hide a missing ``import dynabase``).
"""

from __future__ import annotations

import ast
import linecache
import re
import socket
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOT_RUN = "<!-- not-run -->"
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<info>[^`\n]*)$")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts)]


def python_blocks(text: str) -> list[tuple[int, str, bool]]:
    """The ```python blocks of a page: (first line number, code, whether it runs)."""
    blocks = []
    lines = text.splitlines()
    i = 0
    previous = ""
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            if lines[i].strip():
                previous = lines[i].strip()
            i += 1
            continue
        indent, fence, info = match["indent"], match["fence"], match["info"].strip()
        body = []
        i += 1
        while i < len(lines) and not (lines[i].strip() == fence and lines[i].startswith(indent)):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        start = i - len(body)
        if info.split(" ")[0] == "python":
            blocks.append((start + 1, "\n".join(body) + "\n", previous != NOT_RUN))
        previous = fence
        i += 1
    return blocks


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_the_collector_finds_blocks_and_their_marks() -> None:
    text = "para\n\n```python\nx = 1\n```\n\n<!-- not-run -->\n```python\nrun_forever()\n```\n\n```bash\nls\n```\n"
    assert python_blocks(text) == [(4, "x = 1\n", True), (9, "run_forever()\n", False)]


def test_fragments_are_few() -> None:
    marked = [(p, line) for p in pages() for line, _, runs in python_blocks(p.read_text()) if not runs]
    total = sum(len(python_blocks(p.read_text())) for p in pages())
    assert len(marked) * 4 <= total, f"{len(marked)} of {total} blocks are marked not-run: {marked}"


def _bindings(tree: ast.AST) -> tuple[set[str], set[str], set[str]]:
    """A block's names: (bound by an import, bound otherwise, read)."""
    imported: set[str] = set()
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
    return imported, bound, read


def unimported(text: str) -> list[tuple[int, list[str]]]:
    """The running blocks of a page that use a name only an earlier block imported: (line, names)."""
    carried: set[str] = set()
    found = []
    for line, code, runs in python_blocks(text):
        if not runs:
            continue
        imported, bound, read = _bindings(ast.parse(code))
        missing = sorted((read & carried) - imported - bound)
        if missing:
            found.append((line, missing))
        carried = (carried - bound) | imported
    return found


def test_unimported_names_are_found() -> None:
    text = (
        "```python\nimport dynabase\nc = dynabase.connect()\n```\n\n```python\nt = dynabase.Engine()\n```\n"
    )
    assert unimported(text) == [(7, ["dynabase"])]
    assert unimported(text.replace("t = dynabase", "import dynabase\nt = dynabase")) == []
    assert unimported(text.replace("t = dynabase.Engine()", "t = c")) == []  # a value, not an import


@pytest.mark.parametrize("page", [p for p in pages() if python_blocks(p.read_text())], ids=_page_id)
def test_each_block_imports_what_it_uses(page: Path) -> None:
    found = unimported(page.read_text())
    assert not found, f"{_page_id(page)}: (line, names only a block above imports) {found}"


def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1", "localhost"):
            raise OSError(f"the documentation's samples may not reach the network ({address!r})")
        return connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.mark.parametrize("page", [p for p in pages() if python_blocks(p.read_text())], ids=_page_id)
def test_the_python_samples_of_a_page_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dynabase import mock_dynamodb

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.delenv(name, raising=False)
    _loopback_only(monkeypatch)
    module = types.ModuleType("__docs__")  # a registered module: dataclasses and pickling look it up
    monkeypatch.setitem(sys.modules, "__docs__", module)
    monkeypatch.syspath_prepend(str(tmp_path))  # a page may write a module (e.g. typegen's) and import it
    namespace: dict[str, Any] = module.__dict__
    with mock_dynamodb():
        for line, code, runs in python_blocks(page.read_text()):
            if runs:
                where = f"{_page_id(page)}:{line}"
                linecache.cache[where] = (len(code), None, code.splitlines(True), where)  # tracebacks show it
                exec(compile(code, where, "exec"), namespace)
