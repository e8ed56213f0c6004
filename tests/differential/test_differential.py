"""Differential test: random operation sequences on the embedded engine and on DynamoDB Local must agree.

Hypothesis drives a state machine whose rules are DynamoDB operations (PutItem, UpdateItem, DeleteItem,
GetItem, Query on the table and its GSI/LSI, Scan incl. parallel scans, BatchWriteItem, BatchGetItem,
TransactWriteItems, TransactGetItems) over two tables (``strategies.TABLES``).  Every operation runs on both
backends and the outcomes -- the response, or the error's Code, Message, Item and CancellationReasons -- must
be equal after normalising only what DynamoDB leaves unspecified (see ``harness``).  Reads follow every page.

It runs in the default test run (and so in CI) whenever both backends of the pair are selected
(``DYNABASE_BACKENDS``, see ``conftest``): a derandomized run of a few thousand operations, the same examples
each time, in about a minute.  Other runs::

    python -m pytest tests/differential/test_differential.py -q -rP         # the CI run, printing its size
    DYNABASE_DIFF_EXAMPLES=2000 python -m pytest tests/differential/test_differential.py -q   # bigger run
    DYNABASE_DIFF_RANDOM=1 ...                               # fresh random examples instead of the fixed ones
    DYNABASE_DIFF_PAIR=dynamodb-local,dynamodb-local ...     # DynamoDB Local against itself (self-check)

Knobs: ``DYNABASE_DIFF_EXAMPLES`` (examples, default 150), ``DYNABASE_DIFF_STEPS`` (most operations per
example, default 40), ``DYNABASE_DIFF_RANDOM`` (1: random instead of derandomized examples, and failures print
a reproduction blob), ``DYNABASE_DIFF_PAIR`` (candidate,oracle; default ``embedded,dynamodb-local``),
``DYNABASE_DIFF_STATS`` (1: print how often each operation succeeded or failed with which error).  The test
prints how many operations it compared (``-s`` or ``-rP`` shows it).

A disagreement fails with the request and both normalised outcomes, then Hypothesis's shrunk sequence of
operations (``state.put_item(request={...})`` ...).  Each kind of disagreement (operation x oracle outcome) is a
distinct exception type, so several different bugs are shrunk and reported side by side.
"""

from __future__ import annotations

import os
import time
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

from . import strategies as gen
from .conftest import clear_tables
from .harness import Pair, parallel_scan_outcome, query_outcome, scan_outcome

EXAMPLES = int(os.environ.get("DYNABASE_DIFF_EXAMPLES", "150"))
STEPS = int(os.environ.get("DYNABASE_DIFF_STEPS", "40"))
RANDOM = os.environ.get("DYNABASE_DIFF_RANDOM", "") not in ("", "0")

SETTINGS = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    print_blob=RANDOM,
    suppress_health_check=list(HealthCheck),
)

#: the full-state check (scans of every table and index) runs every this many operations, and at the end
FULL_CHECK_EVERY = 10


class DifferentialMachine(RuleBasedStateMachine):
    """Each rule is one operation, run on both backends and compared; every ``FULL_CHECK_EVERY`` operations
    and at the end, every table and index is scanned on both and compared too."""

    pair: Pair  # set by the test before running

    def __init__(self) -> None:
        super().__init__()
        for side in (self.pair.oracle, self.pair.candidate):
            clear_tables(side)
        self.steps = 0

    def _compare(self, label: str, request: dict[str, Any], run: Any = None) -> Any:
        if run is None:
            outcome = self.pair.compare_call(label, request)
        else:
            outcome = self.pair.compare(label, request, run)
        self.steps += 1
        if self.steps % FULL_CHECK_EVERY == 0:
            check_same_state(self.pair)
        return outcome

    # -- writes ------------------------------------------------------------------------------------------------

    @rule(request=gen.put_item_requests())
    def put_item(self, request: dict[str, Any]) -> None:
        self._compare("put_item", request)

    @rule(request=gen.put_item_requests(table=gen.HR))
    def put_item_hr(self, request: dict[str, Any]) -> None:
        self._compare("put_item", request)

    @rule(request=gen.update_item_requests())
    def update_item(self, request: dict[str, Any]) -> None:
        self._compare("update_item", request)

    @rule(request=gen.update_item_requests(table=gen.HR))
    def update_item_hr(self, request: dict[str, Any]) -> None:
        self._compare("update_item", request)

    @rule(request=gen.delete_item_requests())
    def delete_item(self, request: dict[str, Any]) -> None:
        self._compare("delete_item", request)

    @rule(request=gen.batch_write_requests())
    def batch_write_item(self, request: dict[str, Any]) -> None:
        self._compare("batch_write_item", request)

    @rule(request=gen.transact_write_requests())
    def transact_write_items(self, request: dict[str, Any]) -> None:
        self._compare("transact_write_items", request)

    # -- reads -------------------------------------------------------------------------------------------------

    @rule(request=gen.get_item_requests())
    def get_item(self, request: dict[str, Any]) -> None:
        self._compare("get_item", request)

    @rule(request=gen.batch_get_requests())
    def batch_get_item(self, request: dict[str, Any]) -> None:
        self._compare("batch_get_item", request)

    @rule(request=gen.transact_get_requests())
    def transact_get_items(self, request: dict[str, Any]) -> None:
        self._compare("transact_get_items", request)

    @rule(request=gen.query_requests())
    def query(self, request: dict[str, Any]) -> None:
        self._compare("query", request, query_outcome)

    @rule(request=gen.query_requests())
    def query_again(self, request: dict[str, Any]) -> None:  # queries are worth twice the weight
        self._compare("query", request, query_outcome)

    @rule(request=gen.scan_requests())
    def scan(self, request: dict[str, Any]) -> None:
        self._compare("scan", request, scan_outcome)

    @rule(request=gen.scan_requests(parallel=True))
    def parallel_scan(self, request: dict[str, Any]) -> None:
        outcome = self._compare("parallel scan", request, parallel_scan_outcome)
        assert (
            outcome.get("union of segments (multiset)") is None
            or outcome["union equals full scan on this backend"]
        ), f"on both backends, the segments of a parallel scan do not add up to the full scan: {outcome}"

    def teardown(self) -> None:
        check_same_state(self.pair)


def check_same_state(pair: Pair) -> None:
    """Every table and index, scanned to the end, holds the same items on both sides."""
    for table, index in ((gen.HR, None), (gen.HR, "gsi"), (gen.HR, "lsi"), (gen.BIN, None)):
        request: dict[str, Any] = {"TableName": table}
        if index:
            request["IndexName"] = index
        pair.compare(
            f"full scan of {table}{'/' + index if index else ''}", request, scan_outcome, state_check=True
        )


def test_differential(diff_pair: Pair) -> None:
    DifferentialMachine.pair = diff_pair
    start = time.monotonic()
    before = (diff_pair.operations, diff_pair.state_checks, diff_pair.candidate.calls, diff_pair.oracle.calls)
    try:
        run_state_machine_as_test(DifferentialMachine, settings=SETTINGS)
    finally:
        elapsed = time.monotonic() - start
        operations, checks, candidate_calls, oracle_calls = (
            now - then
            for now, then in zip(
                (
                    diff_pair.operations,
                    diff_pair.state_checks,
                    diff_pair.candidate.calls,
                    diff_pair.oracle.calls,
                ),
                before,
                strict=True,
            )
        )
        print(
            f"\ndifferential ({diff_pair.candidate.label} vs {diff_pair.oracle.label}): "
            f"{operations - checks} generated operations + {checks} full-state scans compared; "
            f"API calls: {candidate_calls} {diff_pair.candidate.label}, {oracle_calls} {diff_pair.oracle.label}; "
            f"{elapsed:.1f}s"
        )
        if os.environ.get("DYNABASE_DIFF_STATS"):
            for (label, outcome), count in sorted(diff_pair.stats.items()):
                print(f"{count:6d}  {label:24s} {outcome}")
