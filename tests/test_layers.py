"""The package's import graph: no cycles inside the entity layer, and no layer importing the wrong way.

Every module of ``src/dynabase`` is parsed with ``ast``; an import anywhere in it counts (module level and
inside functions: a lazy import that dodges a cycle at load time is still a cycle), except those under
``if TYPE_CHECKING:`` (annotations only).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "dynabase"

#: cycles that exist elsewhere in the package today (each as its sorted set of modules); a new one fails
KNOWN_CYCLES: list[frozenset[str]] = [
    # the IaC reader and the workbench call each other (lazily); outside the entity layer, left for its owner
    frozenset({"dynabase.tools.iac", "dynabase.tools.workbench"}),
]

#: (importer prefix, imported prefix, why it is wrong)
FORBIDDEN = [
    ("dynabase.engine", "dynabase.model", "the engine knows nothing of entities"),
    ("dynabase.engine", "dynabase.sync", "the engine knows nothing of sync"),
    ("dynabase.expressions", "dynabase.model", "DynamoDB expressions know nothing of entities"),
    ("dynabase.model", "dynabase.engine", "the entity layer reaches a database through a client only"),
    ("dynabase.model", "dynabase.server", "the entity layer reaches a database through a client only"),
    ("dynabase.sync", "dynabase.engine", "sync reaches a database through a client only"),
    ("dynabase.schema", "dynabase.model", "schemas are below the entity layer"),
    ("dynabase.client", "dynabase.model", "clients are below the entity layer"),
    # sync's cloud-side semantics are plain functions the device and the hub call: they know no device side
    *[
        (
            "dynabase.sync.cloud",
            f"dynabase.sync.{part}",
            "the cloud-side semantics know nothing of the device",
        )
        for part in ("core", "push", "pull", "loop", "direct", "mqtt")
    ],
    ("dynabase.sync", "dynabase.hub", "a device knows the hub only by its messages"),
    ("dynabase.streams", "dynabase.hub", "the hub consumes streams, not the other way"),
    ("dynabase.hub", "dynabase.engine", "the hub reaches the table through a client only"),
    ("dynabase.hub", "dynabase.cli", "the hub is below the command line"),
    ("dynabase.hub", "dynabase.sync.core", "the hub is the cloud side: it runs no device's Sync"),
]

#: the entity layer's own order: Table owns the client and the models; a model and its parts do not import
#: the table, the collectors that run a table's batches and transactions, or the faces built on a Table
_TABLE_SIDE = (
    "dynabase.model.table",
    "dynabase.model.collectors",
    "dynabase.model.aio",
    "dynabase.model.migrations",
)
MODEL_LAYERS = [
    (f"dynabase.model.{part}", _TABLE_SIDE)
    for part in ("model", "base", "compiled", "keys", "prepare", "read", "request", "unique", "write")
] + [
    ("dynabase.model.expression", ("dynabase.model.model", *_TABLE_SIDE)),
    ("dynabase.model.collectors", ("dynabase.model.table",)),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The package modules ``module`` imports (a ``from X import name`` of a submodule counts as that module)."""
    base = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - node.level + 1]
                target = ".".join([*anchor, node.module] if node.module else anchor)
            else:
                target = node.module or ""
            if target.split(".")[0] == PACKAGE:
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if sub in known else target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    # importing a.b.c loads a.b's package __init__ too, but that is the package's business, not a cycle
    return {name for name in found if name in known and name != module}


def import_graph() -> dict[str, set[str]]:
    paths = {_module_name(path): path for path in (SRC / PACKAGE).rglob("*.py")}
    known = set(paths)
    return {
        name: _imports(ast.parse(path.read_text(), str(path)), name, path.name == "__init__.py", known)
        for name, path in paths.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []

    def strong(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                strong(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            strong(node)
    return out


def _is_under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_sees_lazy_imports_and_skips_type_checking() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import b\n"
        "if TYPE_CHECKING:\n    from .c import X\n"
        "def f():\n    from .d import y\n    import dynabase.e\n"
    )
    known = {"dynabase.m.a", "dynabase.m.b", "dynabase.m.c", "dynabase.m.d", "dynabase.e"}
    found = _imports(ast.parse(source), "dynabase.m.a", False, known)
    assert found == {"dynabase.m.b", "dynabase.m.d", "dynabase.e"}
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def test_no_import_cycle_inside_the_entity_layer(graph: dict[str, set[str]]) -> None:
    model_graph = {
        name: {t for t in targets if _is_under(t, "dynabase.model")}
        for name, targets in graph.items()
        if _is_under(name, "dynabase.model")
    }
    assert _cycles(model_graph) == []


def test_no_import_cycle_inside_sync(graph: dict[str, set[str]]) -> None:
    sync_graph = {
        name: {t for t in targets if _is_under(t, "dynabase.sync")}
        for name, targets in graph.items()
        if _is_under(name, "dynabase.sync")
    }
    assert _cycles(sync_graph) == []


def test_no_new_import_cycle_in_the_package(graph: dict[str, set[str]]) -> None:
    cycles = {c for c in _cycles(graph) if c not in KNOWN_CYCLES}
    assert not cycles, [sorted(c) for c in cycles]


def test_layers_import_downwards_only(graph: dict[str, set[str]]) -> None:
    wrong = [
        f"{name} imports {target}: {why}"
        for name, targets in sorted(graph.items())
        for target in sorted(targets)
        for importer, imported, why in FORBIDDEN
        if _is_under(name, importer) and _is_under(target, imported)
    ]
    for module, above in MODEL_LAYERS:
        for target in sorted(graph.get(module, ())):
            if target in above:
                wrong.append(f"{module} imports {target}, which is above it")
    assert not wrong, wrong
