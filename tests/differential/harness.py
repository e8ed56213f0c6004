"""Running one request on two backends and comparing the outcomes modulo what DynamoDB leaves unspecified.

What is normalised (and nothing else):

* ``ResponseMetadata`` is dropped.
* The order of the elements of SS/NS/BS sets (sets are unordered).
* Table names: each side's real table names are mapped back to the logical ``HR``/``BIN`` (they are the same
  names on both sides unless one backend is compared with itself).
* Scan results: the order of items (across partitions the order is unspecified), so a paginated Scan is
  compared as the multiset of all items, the total Count and ScannedCount, and the ScannedCount of each page
  (that many items were evaluated, whatever their order).  Parallel scans: the union over the segments.
* Query on a secondary index: the order among items with *equal* index keys (ties are unordered), and the
  table-key part of ``LastEvaluatedKey``; per page only ScannedCount and the index-key part of
  ``LastEvaluatedKey`` (Count per page depends on how ties are split across pages).  A Query on the table is
  compared page by page, exactly.
* BatchGetItem: the order of items in each table's ``Responses``.
* Error messages of the listed differences between DynamoDB Local and AWS (``tests/aws_differences.py``):
  where Local is known to word an answer differently from the service, the engine follows the service, and
  both sides' messages are replaced by the difference's name before comparing; an error of a listed behaviour
  difference that says how to recognise it (``Behaviour.explains``) is replaced, on both sides, by the
  behaviour's name.  Each listed difference names its reference; nothing else about an error is normalised.
"""

from __future__ import annotations

import copy
import json
import pprint
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from botocore.exceptions import ClientError, ParamValidationError

from aws_differences import difference, explained_behaviour

from .strategies import KEY_ATTRS

MAX_PAGES = 60


# -- normalisation -----------------------------------------------------------------------------------------------


def _num_sort_key(text: str) -> tuple:
    try:
        return (0, Decimal(text), text)
    except (InvalidOperation, TypeError):
        return (1, Decimal(0), str(text))


def norm_value(value: Any) -> Any:
    if not isinstance(value, dict) or len(value) != 1:
        return value
    ((kind, inner),) = value.items()
    if kind == "SS":
        return {kind: sorted(inner)}
    if kind == "NS":
        return {kind: sorted(inner, key=_num_sort_key)}
    if kind == "BS":
        return {kind: sorted(bytes(b) for b in inner)}
    if kind == "B" and isinstance(inner, (bytes, bytearray)):
        return {kind: bytes(inner)}
    if kind == "M" and isinstance(inner, dict):
        return {kind: {k: norm_value(v) for k, v in inner.items()}}
    if kind == "L" and isinstance(inner, list):
        return {kind: [norm_value(v) for v in inner]}
    return value


def norm_item(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    return {name: norm_value(value) for name, value in item.items()}


def _jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": bytes(value).hex()}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def canon(value: Any) -> str:
    """A total, deterministic text form (for sorting multisets)."""
    return json.dumps(_jsonable(value), sort_keys=True, ensure_ascii=False)


def multiset(items: list[Any]) -> list[Any]:
    return sorted((norm_item(i) for i in items), key=canon)


@dataclass
class Side:
    """One backend under comparison and its real table names (logical name -> real name)."""

    label: str
    client: Any
    tables: dict[str, str]
    #: DynamoDB Local (see ``call``: one of its deviations from DynamoDB is normalised away)
    is_dynamodb_local: bool = False
    calls: int = 0

    @property
    def logical(self) -> dict[str, str]:
        return {real: logical for logical, real in self.tables.items()}

    def bind(self, request: dict[str, Any]) -> dict[str, Any]:
        """A deep copy of ``request`` with logical table names replaced by this side's."""
        return _rename_tables(copy.deepcopy(request), self.tables)

    def unbind_text(self, text: Any) -> Any:
        if not isinstance(text, str):
            return text
        for real, logical in self.logical.items():
            if real != logical:
                text = text.replace(real, logical)
        return text

    def call(self, method: str, request: dict[str, Any]) -> tuple[str, Any]:
        """``("ok", response)`` or ``("error", {...})`` (or ``("crash", ...)`` for a non-DynamoDB exception)."""
        self.calls += 1
        try:
            response = getattr(self.client, method)(**self.bind(request))
        except ClientError as error:
            return "error", self.error_view(error.response)
        except ParamValidationError as error:
            return "param-validation", str(error)
        except Exception as error:  # the engine crashing is a difference worth showing next to the oracle
            return "crash", f"{type(error).__name__}: {error}"
        response = dict(response)
        response.pop("ResponseMetadata", None)
        if self.is_dynamodb_local and request.get("ReturnConsumedCapacity", "NONE") == "NONE":
            # DynamoDB Local deviation: DeleteItem of a missing item returns ConsumedCapacity unasked, where
            # DynamoDB returns it "only if the ReturnConsumedCapacity parameter was specified".  Dropped for
            # DynamoDB Local only: the embedded engine returning it unasked is still a difference.
            response.pop("ConsumedCapacity", None)
        return "ok", _rename_tables(response, self.logical)

    def error_view(self, response: dict[str, Any]) -> dict[str, Any]:
        error = response.get("Error", {})
        view: dict[str, Any] = {"Code": error.get("Code"), "Message": self.unbind_text(error.get("Message"))}
        for key, value in response.items():
            if key in ("Error", "ResponseMetadata"):
                continue
            if key == "Item":
                value = norm_item(value)
            elif key == "CancellationReasons":
                value = [
                    {k: (norm_item(v) if k == "Item" else self.unbind_text(v)) for k, v in reason.items()}
                    for reason in value
                ]
            view[key] = value
        return view


def _rename_tables(value: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """Rename table names where requests and responses carry them (TableName, RequestItems, Responses ...)."""

    def rename(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, child in node.items():
                if key == "TableName" and isinstance(child, str):
                    out[key] = mapping.get(child, child)
                elif key in ("RequestItems", "UnprocessedItems", "UnprocessedKeys") and isinstance(
                    child, dict
                ):
                    out[key] = {mapping.get(k, k): rename(v) for k, v in child.items()}
                elif key == "Responses" and isinstance(child, dict):
                    out[key] = {mapping.get(k, k): v for k, v in child.items()}
                elif key in ("TransactItems", "ConsumedCapacity") and isinstance(child, list):
                    out[key] = [rename(a) for a in child]
                elif isinstance(child, dict) and key in (
                    "ConsumedCapacity",
                    "Put",
                    "Update",
                    "Delete",
                    "ConditionCheck",
                    "Get",
                ):
                    out[key] = rename(child)
                else:
                    out[key] = child
            return out
        return node

    return rename(value)


def norm_plain(response: dict[str, Any]) -> dict[str, Any]:
    """Single-item operations, BatchWrite, TransactWrite/Get."""
    out = dict(response)
    for key in ("Item", "Attributes", "LastEvaluatedKey"):
        if key in out:
            out[key] = norm_item(out[key])
    if "Items" in out:
        out["Items"] = [norm_item(i) for i in out["Items"]]
    if isinstance(out.get("Responses"), list):  # TransactGetItems: in request order
        out["Responses"] = [
            {k: norm_item(v) if k == "Item" else v for k, v in r.items()} for r in out["Responses"]
        ]
    elif isinstance(out.get("Responses"), dict):  # BatchGetItem: order within a table is unspecified
        out["Responses"] = {t: multiset(items) for t, items in out["Responses"].items()}
    if isinstance(out.get("UnprocessedItems"), dict):
        out["UnprocessedItems"] = {
            t: [norm_plain(w) for w in ws] for t, ws in out["UnprocessedItems"].items()
        }
    return out


# -- paginated reads ---------------------------------------------------------------------------------------------


def follow_pages(side: Side, method: str, request: dict[str, Any]) -> tuple[list[dict[str, Any]], Any]:
    """All pages of a Query/Scan: (pages, error or None); each page as returned (normalised plainly)."""
    pages: list[dict[str, Any]] = []
    request = dict(request)
    while True:
        status, response = side.call(method, request)
        if status != "ok":
            return pages, (status, response)
        pages.append(norm_plain(response))
        last = response.get("LastEvaluatedKey")
        if not last:
            return pages, None
        if len(pages) >= MAX_PAGES:
            return pages, ("too-many-pages", f"still paging after {MAX_PAGES} pages")
        request["ExclusiveStartKey"] = last


def _tie_normalised(items: list[dict[str, Any]], key_names: tuple[str, str | None]) -> list[Any]:
    """Items in returned order, except that runs of equal index keys are sorted (ties are unordered)."""
    hash_name, range_name = key_names

    def index_key(item: dict[str, Any]) -> str:
        return canon([item.get(hash_name), item.get(range_name) if range_name else None])

    out: list[Any] = []
    run: list[Any] = []
    run_key: str | None = None
    for item in items:
        key = index_key(item)
        if run and key != run_key:
            out.extend(sorted(run, key=canon))
            run = []
        run.append(item)
        run_key = key
    out.extend(sorted(run, key=canon))
    return out


def query_outcome(side: Side, request: dict[str, Any]) -> dict[str, Any]:
    pages, error = follow_pages(side, "query", request)
    index = request.get("IndexName")
    if index is None:
        return {"pages": pages, "error": error}
    table = request["TableName"]
    key_names = KEY_ATTRS[(table, index)]
    keep = {k for k in key_names if k}
    items = [i for page in pages for i in page.get("Items", [])]
    return {
        "pages": [
            {
                "ScannedCount": p.get("ScannedCount"),
                "LastEvaluatedKey(index part)": (
                    {k: v for k, v in p["LastEvaluatedKey"].items() if k in keep}
                    if "LastEvaluatedKey" in p
                    else None
                ),
                "LastEvaluatedKey(names)": sorted(p.get("LastEvaluatedKey", {})),
                "has Items": "Items" in p,
                "other keys": sorted(set(p) - {"Items", "Count", "ScannedCount", "LastEvaluatedKey"}),
            }
            for p in pages
        ],
        "Items (ties unordered)": _tie_normalised(items, key_names),
        "Count": sum(p.get("Count", 0) for p in pages),
        "ScannedCount": sum(p.get("ScannedCount", 0) for p in pages),
        "error": error,
    }


def scan_summary(pages: list[dict[str, Any]], error: Any) -> dict[str, Any]:
    return {
        "Items (multiset)": multiset([i for page in pages for i in page.get("Items", [])]),
        "Count": sum(p.get("Count", 0) for p in pages),
        "ScannedCount": sum(p.get("ScannedCount", 0) for p in pages),
        "pages (ScannedCount each)": [p.get("ScannedCount") for p in pages],
        "pages have Items": sorted({"Items" in p for p in pages}),
        "LastEvaluatedKey names": sorted({n for p in pages for n in p.get("LastEvaluatedKey", {})}),
        "other keys": sorted(
            {k for p in pages for k in p} - {"Items", "Count", "ScannedCount", "LastEvaluatedKey"}
        ),
        "error": error,
    }


def scan_outcome(side: Side, request: dict[str, Any]) -> dict[str, Any]:
    return scan_summary(*follow_pages(side, "scan", request))


def parallel_scan_outcome(side: Side, request: dict[str, Any]) -> dict[str, Any]:
    """Union over all segments (each followed to its last page), checked against a full scan on this side."""
    total = request["TotalSegments"]
    all_pages: list[dict[str, Any]] = []
    for segment in range(total):
        pages, error = follow_pages(side, "scan", {**request, "Segment": segment})
        all_pages.extend(pages)
        if error is not None:
            return {"segment": segment, "error": error}
    union = multiset([i for page in all_pages for i in page.get("Items", [])])
    full_request = {k: v for k, v in request.items() if k not in ("TotalSegments", "Segment", "Limit")}
    full_pages, full_error = follow_pages(side, "scan", full_request)
    full = multiset([i for page in full_pages for i in page.get("Items", [])])
    return {
        "union of segments (multiset)": union,
        "Count": sum(p.get("Count", 0) for p in all_pages),
        "ScannedCount": sum(p.get("ScannedCount", 0) for p in all_pages),
        "union equals full scan on this backend": union == full and full_error is None,
    }


class Disagreement(AssertionError):
    """The candidate's outcome differs from the oracle's."""


_DISAGREEMENTS: dict[str, type[Disagreement]] = {}


def disagreement(label: str, oracle_result: Any) -> type[Disagreement]:
    """A Disagreement subclass per operation and oracle outcome (ok, or the error code): Hypothesis tells
    failures apart by exception type, so each kind of disagreement is shrunk and reported on its own."""
    outcome = _outcome(oracle_result)
    kind = outcome.split(":")[0] if outcome != "ok" else "ok"
    name = "Disagreement_" + "".join(c if c.isalnum() else "_" for c in f"{label}_{kind}")
    if name not in _DISAGREEMENTS:
        _DISAGREEMENTS[name] = type(name, (Disagreement,), {})
    return _DISAGREEMENTS[name]


def _outcome(result: Any) -> str:
    if isinstance(result, tuple) and result and result[0] != "ok":
        detail = result[1]
        if isinstance(detail, dict):
            return f"{detail.get('Code')}: {str(detail.get('Message'))[:90]}"
        return f"{result[0]}: {str(detail)[:90]}"
    if isinstance(result, dict) and result.get("error"):
        return "error on a page: " + _outcome(result["error"])
    return "ok"


# -- comparison --------------------------------------------------------------------------------------------------


def _listed_differences(local: Any, other: Any) -> tuple[Any, Any]:
    """Both outcomes with the messages of each listed difference between DynamoDB Local and AWS
    (``tests/aws_differences.py``) replaced by its name, where Local answers one side and the engine the other."""
    if isinstance(local, dict) and isinstance(other, dict):
        if local.keys() >= {"Code", "Message"} and local.get("Code") == other.get("Code"):
            known = difference(local["Code"], local["Message"], other.get("Message"))
            if known is not None:
                name = f"<{known.name}>"
                return {**local, "Message": name}, {**other, "Message": name}
            behaviour = explained_behaviour(local, other)
            if behaviour is not None:
                marker = {"Code": local["Code"], "Behaviour": behaviour.name}
                return marker, dict(marker)
        pairs = {k: _listed_differences(local[k], other[k]) for k in local.keys() & other.keys()}
        return (
            {k: pairs[k][0] if k in pairs else v for k, v in local.items()},
            {k: pairs[k][1] if k in pairs else v for k, v in other.items()},
        )
    if isinstance(local, (list, tuple)) and isinstance(other, (list, tuple)) and len(local) == len(other):
        pairs = [_listed_differences(a, b) for a, b in zip(local, other, strict=True)]
        return type(local)(a for a, _ in pairs), type(other)(b for _, b in pairs)
    return local, other


@dataclass
class Pair:
    """A candidate and an oracle; ``compare`` runs one request (or read protocol) on both and asserts equality."""

    candidate: Side
    oracle: Side
    #: operations compared (a paginated read is one) and, of them, the full-state checks
    operations: int = 0
    state_checks: int = 0
    #: (operation, outcome) -> count, outcome being "ok" or the error code and message (DYNABASE_DIFF_STATS=1)
    stats: Counter = field(default_factory=Counter)

    def compare(
        self,
        label: str,
        request: dict[str, Any],
        run: Callable[[Side, dict[str, Any]], Any],
        state_check: bool = False,
    ) -> Any:
        self.operations += 1
        self.state_checks += state_check
        want = run(self.oracle, request)
        got = run(self.candidate, request)
        self.stats[(label, _outcome(want))] += 1
        if got != want and self.oracle.is_dynamodb_local and not self.candidate.is_dynamodb_local:
            want, got = _listed_differences(want, got)
        if got != want:
            raise disagreement(label, want)(
                f"{label}: {self.candidate.label} and {self.oracle.label} disagree\n"
                f"request:\n{pprint.pformat(request, width=110)}\n"
                f"--- {self.oracle.label} (oracle) ---\n{pprint.pformat(want, width=110)}\n"
                f"--- {self.candidate.label} ---\n{pprint.pformat(got, width=110)}"
            )
        return want

    def compare_call(self, method: str, request: dict[str, Any]) -> Any:
        def run(side: Side, req: dict[str, Any]) -> Any:
            status, response = side.call(method, req)
            return (status, norm_plain(response) if status == "ok" else response)

        return self.compare(method, request, run)
