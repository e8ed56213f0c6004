"""AppLens graph metadata on dynabase: run tracking, status lifecycle, summary fields, canonical graph hash.

Access patterns (each a function taking a :class:`dynabase.model.Table` opened with :func:`open_table`):

* :func:`create_run` -- a new run, ``UPLOADED`` (``PK = USER#<userId>``, ``SK = RUN#<createdAt>#<runId>``);
* :func:`runs_for_user` -- a user's runs, newest first (optionally one environment); :func:`latest_run`;
* :func:`get_run` -- a run by its id alone, through GSI1 (``RUN#<runId>`` / ``USER#<userId>``), as an
  asynchronous Lambda callback does;
* :func:`start_processing` / :func:`complete_run` / :func:`fail_run` -- the lifecycle
  ``UPLOADED -> PROCESSING -> COMPLETE | FAILED``.  Each transition is one conditional UpdateItem: the item
  changes only if it is still in the state the transition starts from, so a late or repeated callback
  raises :class:`IllegalTransition` and changes nothing.

Canonical JSON (what :func:`graph_hash` hashes) is defined precisely:

* objects: keys sorted by Unicode code point (Python's ``sorted`` on ``str``), each key once;
* no insignificant whitespace: separators are exactly ``,`` and ``:``;
* strings: JSON escapes only where JSON requires them (``"``, ``\\``, control characters as ``\\uXXXX``
  except ``\\b \\f \\n \\r \\t``); every other character is written as itself, never ``\\uXXXX``;
* numbers: integers in decimal; floats as Python's ``repr`` (shortest round-trip, e.g. ``0.1``, ``1e-07``,
  ``1.0``); NaN and infinities are rejected; ``true``, ``false``, ``null`` as in JSON;
* the text is encoded as UTF-8, without a byte order mark.

The *canonical graph* is the graph object with its ``nodes`` sorted by ``id`` and its ``edges`` sorted by
their own canonical JSON, so the same graph built in another order has the same hash.  ``graphHash`` is
``"sha256:"`` followed by the 64 lowercase hex digits of SHA-256 over those bytes.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dynabase.model import ConditionFailedError, NotFoundError, Table
from dynabase.schema import load_schema

SCHEMA = Path(__file__).with_name("schema.json5")
TABLE_NAME = "applens-graph-metadata"

#: target status -> the one status it may be reached from
TRANSITIONS = {"PROCESSING": "UPLOADED", "COMPLETE": "PROCESSING", "FAILED": "PROCESSING"}


class IllegalTransition(ConditionFailedError):
    """A status change the run's current status does not allow (nothing was changed)."""


def open_table(client: Any, name: str = TABLE_NAME, *, create: bool = False) -> Table:
    table = Table(name, client, load_schema(SCHEMA))
    if create and not table.exists():
        table.create_table()
    return table


def iso(at: datetime | None = None) -> str:
    """ISO 8601 UTC to the second: ``2026-02-22T19:12:11Z``."""
    at = at or datetime.now(timezone.utc)
    at = at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def new_run_id() -> str:
    """Six lowercase hex digits, like the page's ``c8a91e``."""
    return secrets.token_hex(3)


# == canonical graph JSON ======================================================================================


def canonical_json(value: Any) -> bytes:
    """``value`` as canonical JSON bytes (see the module docstring)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def canonical_graph(graph: Mapping[str, Any]) -> dict[str, Any]:
    """The graph with ``nodes`` sorted by id and ``edges`` by their canonical JSON."""
    out = dict(graph)
    out["nodes"] = sorted(graph.get("nodes", []), key=lambda node: str(node["id"]))
    out["edges"] = sorted(graph.get("edges", []), key=canonical_json)
    return out


def graph_hash(graph: Mapping[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(canonical_graph(graph))).hexdigest()


def summarize(graph: Mapping[str, Any]) -> dict[str, Any]:
    """The precomputed summary fields of a graph: node / edge counts, public-facing services (nodes with
    ``internetExposed: true``), storage services (nodes with ``category: "datastore"``) and the hash."""
    nodes = graph.get("nodes", [])
    return {
        "nodeCount": len(nodes),
        "edgeCount": len(graph.get("edges", [])),
        "internetExposedCount": sum(1 for n in nodes if n.get("internetExposed") is True),
        "datastoreCount": sum(1 for n in nodes if n.get("category") == "datastore"),
        "graphHash": graph_hash(graph),
    }


# == runs ======================================================================================================


def create_run(
    table: Table,
    user_id: str,
    *,
    environment: str,
    iac_s3_key: str,
    run_id: str | None = None,
    at: datetime | None = None,
    **provenance: Any,
) -> dict[str, Any]:
    """A new run in ``UPLOADED`` (provenance: ``iacCommitSha``, ``terraformWorkspace``, ``accountId``,
    ``region``)."""
    now = iso(at)
    return table.GraphRun.create(
        {
            "userId": user_id,
            "runId": run_id or new_run_id(),
            "status": "UPLOADED",
            "environment": environment,
            "createdAt": now,
            "updatedAt": now,
            "iacS3Key": iac_s3_key,
            **provenance,
        }
    )


def runs_for_user(
    table: Table, user_id: str, *, environment: str | None = None, limit: int | None = None, next: Any = None
) -> Any:
    """A user's runs, newest first (a Page: ``.next`` continues)."""
    properties: dict[str, Any] = {"userId": user_id}
    if environment is not None:
        properties["environment"] = environment
    return table.GraphRun.find(properties, reverse=True, limit=limit, next=next)


def latest_run(table: Table, user_id: str) -> dict[str, Any] | None:
    page = table.GraphRun.find({"userId": user_id}, reverse=True, limit=1)
    return page[0] if page else None


def get_run(table: Table, run_id: str) -> dict[str, Any] | None:
    """A run by id alone: GSI1 ``RUN#<runId>``."""
    return table.GraphRun.get({"runId": run_id}, index="GSI1")


def _transition(
    table: Table, run_id: str, to: str, *, at: datetime | None, guard: str | None = None, **fields: Any
) -> dict[str, Any]:
    if to not in TRANSITIONS:
        raise ValueError(f"no transition leads to {to!r}")
    run = get_run(table, run_id)
    if run is None:
        raise NotFoundError(f"no run {run_id}")
    source = TRANSITIONS[to]
    where = "${status} = @{source}"
    if guard:
        where = f"({where}) and ({guard})"
    try:
        return table.GraphRun.update(
            {
                "userId": run["userId"],
                "createdAt": run["createdAt"],
                "runId": run_id,
                "status": to,
                "updatedAt": iso(at),
                **fields,
            },
            where=where,
            substitutions={"source": source},
        )
    except ConditionFailedError as error:
        current = get_run(table, run_id)
        raise IllegalTransition(
            f"run {run_id}: {current['status'] if current else 'missing'} -> {to} is not allowed "
            f"(only {source} -> {to})",
            code=error.code,
            error=error.error,
        ) from error


def start_processing(table: Table, run_id: str, *, at: datetime | None = None) -> dict[str, Any]:
    """``UPLOADED -> PROCESSING``."""
    return _transition(table, run_id, "PROCESSING", at=at)


def complete_run(
    table: Table,
    run_id: str,
    graph: Mapping[str, Any],
    *,
    at: datetime | None = None,
    put_object: Callable[[str, bytes], None] | None = None,
) -> dict[str, Any]:
    """``PROCESSING -> COMPLETE`` with the summary fields and the S3 keys of the graph and the risk report.

    The canonical graph JSON goes to ``put_object(key, bytes)`` (an S3 upload, or anything else) before the
    metadata is updated; the graph is immutable per run: the update also requires that no graphHash exists.
    """
    run = get_run(table, run_id)
    if run is None:
        raise NotFoundError(f"no run {run_id}")
    base = f"{run['environment']}/{run['userId']}/{run_id}"
    graph_key, report_key = f"graphs/{base}/graph.json", f"reports/{base}/risk.json"
    if put_object is not None and run["status"] == "PROCESSING":
        put_object(graph_key, canonical_json(canonical_graph(graph)))
    return _transition(
        table,
        run_id,
        "COMPLETE",
        at=at,
        guard="attribute_not_exists(${graphHash})",
        graphS3Key=graph_key,
        analysisS3Key=report_key,
        **summarize(graph),
    )


def fail_run(table: Table, run_id: str, reason: str, *, at: datetime | None = None) -> dict[str, Any]:
    """``PROCESSING -> FAILED``."""
    return _transition(table, run_id, "FAILED", at=at, failureReason=reason)


def dashboard(table: Table, user_id: str, *, limit: int = 10) -> list[dict[str, Any]]:
    """The summary of a user's latest runs, read from the metadata alone (no graph from S3)."""
    fields = [
        "runId",
        "status",
        "environment",
        "createdAt",
        "nodeCount",
        "edgeCount",
        "internetExposedCount",
        "datastoreCount",
    ]
    return list(table.GraphRun.find({"userId": user_id}, reverse=True, limit=limit, fields=fields))
