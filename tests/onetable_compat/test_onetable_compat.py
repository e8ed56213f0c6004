"""Item-for-item compatibility of dynabase's entity layer with OneTable (``dynamodb-onetable``) itself.

Each scenario (``scenarios.py``: a schema, write steps, read steps) runs

* through OneTable, in Node (``runner.mjs``), on DynamoDB Local: table A;
* through dynabase's :func:`~dynabase.model.scenario.run_scenario` on DynamoDB Local via boto3: table B;
* through dynabase on the embedded engine;

and then the read steps run through both libraries on both A and B, so each reads the items the other wrote.
The tests assert, after normalising generated ids and timestamp values (``harness.Normaliser``):

* ``table``: ``createTable`` makes the same table (keys, key types, indexes, projections);
* ``items``: the stored items (AttributeValue JSON) are identical, on DynamoDB Local and on the embedded engine;
* ``results``: every step's outcome is the same (the value returned, or that both failed, with the same code);
* ``reads``: dynabase reading OneTable's items gives what OneTable reads from them (and Python values of the
  field's type: datetime for dates, bytes for binary, set for sets...), and OneTable reading dynabase's items
  gives what it reads from its own.

OneTable is installed on demand (``harness.ensure_onetable``); without node/npm the module is skipped.
"""

from __future__ import annotations

import copy
import os
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

import dynabase
from backends import selected_backends
from dynabase.model import Table
from dynabase.model.scenario import run_scenario, run_steps

from .harness import (
    Normaliser,
    OneTableUnavailable,
    canonical,
    decode_steps,
    ensure_onetable,
    item_differences,
    run_onetable,
    scan_raw,
)
from .scenarios import SCENARIOS, Scenario

# -- fixtures -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def onetable_prefix():
    try:
        return ensure_onetable()
    except OneTableUnavailable as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def local_endpoint(request: pytest.FixtureRequest) -> str:
    """The session's DynamoDB Local (the harness's ``dynamodb_local_endpoint``): OneTable needs a real endpoint."""
    if not os.environ.get("DYNAMODB_LOCAL_ENDPOINT") and "dynamodb-local" not in selected_backends():
        pytest.skip("DYNABASE_BACKENDS leaves out dynamodb-local: OneTable is compared on DynamoDB Local")
    return request.getfixturevalue("dynamodb_local_endpoint")


@pytest.fixture(scope="module")
def local_client(local_endpoint: str) -> Any:
    return dynabase.aws(
        endpoint_url=local_endpoint,
        region="us-east-1",
        aws_access_key_id="fake",
        aws_secret_access_key="fake",
    )


@pytest.fixture(scope="module")
def embedded_client() -> Any:
    client = dynabase.connect(":memory:")
    yield client
    if hasattr(client, "close"):
        client.close()


@dataclass
class Outcome:
    scenario: Scenario
    table_ot: str
    table_db: str
    onetable: dict  # steps on A: {"results", "items"}
    local: dict  # dynabase on DynamoDB Local (table B): {"results", "items"}
    embedded: dict  # dynabase on the embedded engine
    reads: dict[str, list]  # "<reader> on <writer>" -> results
    definitions: dict[str, dict]  # "onetable" / "dynabase" -> the created table's shape (DescribeTable)
    typed: list[str] = field(default_factory=list)  # Python value type problems (dynabase reading A)


@pytest.fixture(scope="module")
def outcomes(onetable_prefix, local_endpoint, local_client, embedded_client):
    """Runs each scenario once (lazily, on first use) and keeps what happened; drops the tables at the end."""
    cache: dict[str, Outcome] = {}
    tables: list[str] = []

    def get(scenario: Scenario) -> Outcome:
        if scenario.name not in cache:
            cache[scenario.name] = _run(
                scenario, onetable_prefix, local_endpoint, local_client, embedded_client, tables
            )
        return cache[scenario.name]

    yield get
    for name in tables:
        try:
            local_client.delete_table(TableName=name)
        except Exception:
            pass


def _run(sc: Scenario, prefix: Any, endpoint: str, local: Any, embedded: Any, tables: list[str]) -> Outcome:
    base = f"otc-{sc.name[:40]}-{uuid.uuid4().hex[:6]}"
    table_ot, table_db = f"{base}-ot", f"{base}-db"
    steps, reads = decode_steps(sc.steps), decode_steps(sc.reads)

    # dynabase writes table B on DynamoDB Local (first: OneTable reads it below), and an embedded table
    tables.append(table_db)
    db = run_scenario(local, copy.deepcopy(sc.schema), steps, table_name=table_db, **sc.options)
    db["items"] = scan_raw(local, table_db)
    emb = run_scenario(embedded, copy.deepcopy(sc.schema), steps, table_name=table_ot, **sc.options)
    emb["items"] = scan_raw(embedded, table_ot)

    # OneTable writes table A, then reads A and B
    tables.append(table_ot)
    doc = run_onetable(
        prefix,
        endpoint,
        sc.schema,
        sc.options,
        [
            {"table": table_ot, "create": True, "steps": sc.steps},
            {"table": table_ot, "steps": sc.reads},
            {"table": table_db, "steps": sc.reads},
        ],
    )
    ot_steps, ot_on_ot, ot_on_db = doc["phases"]

    # dynabase reads A (OneTable's items) and B (its own)
    on_ot = Table(table_ot, local, copy.deepcopy(sc.schema), **sc.options)
    on_db = Table(table_db, local, copy.deepcopy(sc.schema), **sc.options)
    outcome = Outcome(
        scenario=sc,
        table_ot=table_ot,
        table_db=table_db,
        onetable={"results": ot_steps["results"], "items": ot_steps["items"]},
        local={"results": db["results"], "items": db["items"]},
        embedded={"results": emb["results"], "items": emb["items"]},
        definitions={"onetable": _table_shape(local, table_ot), "dynabase": _table_shape(local, table_db)},
        reads={
            "onetable on onetable": ot_on_ot["results"],
            "onetable on dynabase": ot_on_db["results"],
            "dynabase on onetable": run_steps(on_ot, copy.deepcopy(reads)),
            "dynabase on dynabase": run_steps(on_db, copy.deepcopy(reads)),
        },
    )
    outcome.typed = _typed_problems(sc, on_ot, reads)
    return outcome


def _table_shape(client: Any, name: str) -> dict:
    """What createTable made: keys, attribute types, indexes and their projections, billing mode."""
    table = client.describe_table(TableName=name)["Table"]

    def index(entry: dict) -> dict:
        projection = dict(entry.get("Projection") or {})
        if "NonKeyAttributes" in projection:
            projection["NonKeyAttributes"] = sorted(projection["NonKeyAttributes"])
        return {"KeySchema": entry["KeySchema"], "Projection": projection}

    return {
        "KeySchema": table["KeySchema"],
        "AttributeDefinitions": sorted(table["AttributeDefinitions"], key=lambda a: a["AttributeName"]),
        "GlobalSecondaryIndexes": {i["IndexName"]: index(i) for i in table.get("GlobalSecondaryIndexes", [])},
        "LocalSecondaryIndexes": {i["IndexName"]: index(i) for i in table.get("LocalSecondaryIndexes", [])},
        "BillingMode": (table.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED"),
    }


# -- Python value types of items read back --------------------------------------------------------------------------

_PY_TYPES: dict[str, tuple] = {
    "string": (str,),
    "number": (int, float, Decimal),
    "boolean": (bool,),
    "date": (datetime,),
    "binary": (bytes,),
    "set": (set, frozenset),
    "array": (list,),
    "object": (dict,),
}


def _typed_problems(sc: Scenario, table: Table, reads: list) -> list[str]:
    """dynabase reading OneTable's items: each field's value has the Python type of its schema type."""
    problems = []
    for n, (model, op, props, params) in enumerate(reads):
        if model is None or op not in ("get", "find", "scan"):
            continue
        try:
            value = getattr(table.model(model), op)(copy.deepcopy(props), **copy.deepcopy(params))
        except Exception:
            continue  # failures are compared with OneTable's in test_dynabase_reads_onetable_items
        items = value if isinstance(value, list) else [value] if value else []
        fields = sc.schema["models"][model]
        for item in items:
            for name, val in item.items():
                spec = fields.get(name)
                if not spec or val is None or "type" not in spec:
                    continue
                kind = spec["type"].lower()
                wanted = _PY_TYPES.get(kind, (object,))
                if not isinstance(val, wanted) or (kind == "number" and isinstance(val, bool)):
                    problems.append(
                        f"read {n} {model}.{op}: field {name!r} ({kind}) came back as "
                        f"{type(val).__name__} {val!r}"
                    )
    return problems


# -- comparing -------------------------------------------------------------------------------------------------------


def _xfail(request: pytest.FixtureRequest, sc: Scenario, *aspects: str) -> None:
    reasons = [sc.xfail[a] for a in aspects if a in sc.xfail]
    if reasons:
        request.applymarker(pytest.mark.xfail(strict=True, reason=" / ".join(reasons)))


def _js_numbers(value: Any) -> Any:
    """JSON numbers as JavaScript has them: one number type (2.0 is 2, -0.0 is 0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _js_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_js_numbers(v) for v in value]
    return value


def _comparable(result: Any) -> Any:
    """Error messages are each library's own words: a failure compares by its code only."""
    if isinstance(result, dict) and "error" in result:
        return {"error": result["error"]}
    return _js_numbers(result)


def _normalised(sc: Scenario, doc: dict) -> tuple[list, list]:
    """(results, items) of one side, normalised with one Normaliser (so ids match between the two)."""
    norm = Normaliser(sc.timestamp_fields, sc.id_patterns)
    results = []
    for n, result in enumerate(doc["results"]):
        if n in sc.known:
            result = {"known deviation": sc.known[n], "value": result}
        elif n in sc.unordered and isinstance(result.get("ok"), list):
            result = {"ok": sorted(result["ok"], key=lambda v: canonical(norm.wildcard(v)))}
        results.append(result)
    results = norm.results(results)
    return results, norm.items(doc["items"])


def _result_differences(steps: list, label_a: str, a: list, label_b: str, b: list) -> list[str]:
    """One entry per step whose outcomes differ; a step marked as a known deviation must still differ
    (strict, like xfail(strict=True): when the two agree again, the mark must go)."""
    lines = []
    for n, step in enumerate(steps):
        ra = a[n] if n < len(a) else "<missing>"
        rb = b[n] if n < len(b) else "<missing>"
        if isinstance(ra, dict) and "known deviation" in ra:
            va, vb = ra["value"], rb["value"]
            if canonical(_comparable(va)) == canonical(_comparable(vb)):
                lines.append(
                    f"step {n} {canonical(step)}: marked known ({ra['known deviation']}) but both "
                    f"gave {canonical(va)}"
                )
            continue
        if canonical(_comparable(ra)) != canonical(_comparable(rb)):
            lines.append(
                f"step {n} {canonical(step)}:\n    {label_a}: {canonical(ra)}\n    {label_b}: {canonical(rb)}"
            )
    return lines


def _report(title: str, lines: list[str]) -> str:
    return title + "\n" + "\n".join(lines)


@pytest.mark.parametrize("sc", SCENARIOS, ids=str)
def test_table_definition_matches_onetable(outcomes, sc: Scenario) -> None:
    """createTable from the same schema: the same keys, key types, indexes, projections and billing mode."""
    out = outcomes(sc)
    ot, db = out.definitions["onetable"], out.definitions["dynabase"]
    assert canonical(db) == canonical(ot), f"onetable: {canonical(ot)}\ndynabase: {canonical(db)}"


@pytest.mark.parametrize("sc", SCENARIOS, ids=str)
def test_items_match_onetable(request, outcomes, sc: Scenario) -> None:
    """dynabase (boto3 on DynamoDB Local) stores exactly the items OneTable stores."""
    _xfail(request, sc, "items")
    out = outcomes(sc)
    _, ot_items = _normalised(sc, out.onetable)
    _, db_items = _normalised(sc, out.local)
    lines = item_differences("onetable", ot_items, "dynabase", db_items)
    if sc.check:
        lines += [f"onetable: {m}" for m in sc.check(ot_items)]
        lines += [f"dynabase: {m}" for m in sc.check(db_items)]
    assert not lines, _report(f"{sc.name}: stored items differ", lines)


@pytest.mark.parametrize("sc", SCENARIOS, ids=str)
def test_results_match_onetable(request, outcomes, sc: Scenario) -> None:
    """Every step returns the same value, or fails in both (with the same error code)."""
    _xfail(request, sc, "results")
    out = outcomes(sc)
    ot_results, _ = _normalised(sc, out.onetable)
    db_results, _ = _normalised(sc, out.local)
    lines = _result_differences(sc.steps, "onetable", ot_results, "dynabase", db_results)
    assert not lines, _report(f"{sc.name}: step results differ", lines)


@pytest.mark.parametrize("sc", SCENARIOS, ids=str)
def test_embedded_matches_onetable(request, outcomes, sc: Scenario) -> None:
    """The same on the embedded engine: items and step results equal OneTable's (on DynamoDB Local)."""
    _xfail(request, sc, "items", "results")
    out = outcomes(sc)
    ot_results, ot_items = _normalised(sc, out.onetable)
    em_results, em_items = _normalised(sc, out.embedded)
    lines = item_differences("onetable", ot_items, "embedded", em_items)
    lines += _result_differences(sc.steps, "onetable", ot_results, "embedded", em_results)
    assert not lines, _report(f"{sc.name}: embedded engine differs from OneTable", lines)


def _reads(sc: Scenario, out: Outcome, key: str) -> list:
    norm = Normaliser(sc.timestamp_fields, sc.id_patterns)
    return norm.results(out.reads[key])


@pytest.mark.parametrize("sc", SCENARIOS, ids=str)
def test_dynabase_reads_onetable_items(request, outcomes, sc: Scenario) -> None:
    """dynabase's get/find/scan over OneTable's table (A): what OneTable itself reads, as typed Python values
    (and over dynabase's table B: what OneTable reads there)."""
    _xfail(request, sc, "db_reads")
    out = outcomes(sc)
    lines = _result_differences(
        sc.reads,
        "onetable reads A",
        _reads(sc, out, "onetable on onetable"),
        "dynabase reads A",
        _reads(sc, out, "dynabase on onetable"),
    )
    # and both libraries read dynabase's own items alike
    lines += _result_differences(
        sc.reads,
        "onetable reads B",
        _reads(sc, out, "onetable on dynabase"),
        "dynabase reads B",
        _reads(sc, out, "dynabase on dynabase"),
    )
    lines += out.typed
    assert not lines, _report(f"{sc.name}: dynabase reading OneTable's items", lines)


@pytest.mark.parametrize("sc", SCENARIOS, ids=str)
def test_onetable_reads_dynabase_items(request, outcomes, sc: Scenario) -> None:
    """OneTable's get/find/scan over dynabase's table: what it reads from its own table."""
    _xfail(request, sc, "ot_reads")
    out = outcomes(sc)
    lines = _result_differences(
        sc.reads,
        "onetable reads A",
        _reads(sc, out, "onetable on onetable"),
        "onetable reads B",
        _reads(sc, out, "onetable on dynabase"),
    )
    assert not lines, _report(f"{sc.name}: OneTable reading dynabase's items", lines)
