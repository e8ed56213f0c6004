"""A request fuzzer for ``dynabase serve`` (issue 10): random and mutated requests of every operation of
DynamoDB's and DynamoDB Streams' service models, over HTTP. No answer may be a 5xx, every 4xx carries a
DynamoDB error body, the server never logs a traceback and never dies.

The default run is bounded and deterministic (derandomized, no example database): the same requests every
time. The ``slow`` run is random (``DYNABASE_FUZZ_SEED=N`` replays one; ``DYNABASE_FUZZ_EXAMPLES`` sets its
length) and many times longer.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings

from .fuzz_strategies import Case, _bounds, cases, check_answer, encode, fuzz_seed, single_mutations
from .fuzz_world import (
    FIXTURE_TABLES,
    TARGETS,
    Connection,
    Fixtures,
    FuzzServer,
    race_requests,
    realistic_requests,
)

#: examples of the default (CI) run: about 10 s on a 2-CPU machine
DEFAULT_EXAMPLES = 1000
#: examples of the slow run
SLOW_EXAMPLES = 20_000


@pytest.fixture(scope="module")
def fuzz_server() -> Iterator[FuzzServer]:
    server = FuzzServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def fixtures(fuzz_server: FuzzServer) -> Fixtures:
    return Fixtures(fuzz_server.url)


@pytest.fixture(scope="module")
def realistic(fixtures: Fixtures) -> dict[str, list[dict[str, Any]]]:
    return realistic_requests(fixtures)


def _send_and_check(server: FuzzServer, case: Case) -> Any:
    target, body, headers = case
    response = server.send(target, body, headers)
    check_answer(case, response, server.new_output(), server.alive)
    return response


def test_realistic_requests_reach_real_tables(
    fuzz_server: FuzzServer, realistic: dict[str, list[dict[str, Any]]]
) -> None:
    """The seeds of the mutations are valid: each is answered 200 the first time it is sent, so mutated
    requests start from requests that reach tables, indexes and streams."""
    failures = []
    for target, requests in realistic.items():
        for request in requests:
            response = _send_and_check(fuzz_server, (target, encode(request), {}))
            if response.status != 200:
                failures.append((target, response.status, response.body[:300]))
    assert not failures, "\n".join(map(repr, failures))


def test_every_member_of_every_realistic_request_swapped(
    fuzz_server: FuzzServer, realistic: dict[str, list[dict[str, Any]]]
) -> None:
    """Deterministic sweep: each member of each realistic request replaced in turn by null, another JSON
    type or an edge value (about 6,500 requests, a few seconds)."""
    sent = 0
    for target, requests in realistic.items():
        for request in requests:
            for changed in single_mutations(request):
                _send_and_check(fuzz_server, (target, encode(changed), {}))
                sent += 1
    assert sent > 5000


def _fuzz(
    server: FuzzServer,
    fixtures: Fixtures,
    realistic: dict[str, list[dict[str, Any]]],
    examples: int,
    random_seed: int | None = None,
    **options: Any,
) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        **options,
    )
    @given(case=cases(fixtures, realistic))
    def run(case: Case) -> None:
        _send_and_check(server, case)

    if random_seed is not None:
        run = seed(random_seed)(run)
    run()


def test_fuzz_every_operation(
    fuzz_server: FuzzServer, fixtures: Fixtures, realistic: dict[str, list[dict[str, Any]]]
) -> None:
    _fuzz(fuzz_server, fixtures, realistic, DEFAULT_EXAMPLES, derandomize=True)
    _assert_fixture_tables_survived(fuzz_server)


def _assert_fixture_tables_survived(server: FuzzServer) -> None:
    """The run fuzzed real tables to its end: no random request deleted the fixtures."""
    for table in FIXTURE_TABLES:
        response = server.send("DynamoDB_20120810.DescribeTable", encode({"TableName": table}))
        assert response.status == 200, (table, response)


@pytest.mark.slow
def test_fuzz_every_operation_long(
    fuzz_server: FuzzServer, fixtures: Fixtures, realistic: dict[str, list[dict[str, Any]]]
) -> None:
    chosen = fuzz_seed()
    print(f"fuzz seed: {chosen} (DYNABASE_FUZZ_SEED={chosen} replays it)")
    examples = int(os.environ.get("DYNABASE_FUZZ_EXAMPLES") or SLOW_EXAMPLES)
    _fuzz(fuzz_server, fixtures, realistic, examples, random_seed=chosen)
    _assert_fixture_tables_survived(fuzz_server)


@pytest.mark.slow
def test_fuzz_table_lifecycle_races(fuzz_server: FuzzServer, fixtures: Fixtures) -> None:
    """Threads racing a scratch table's CreateTable/UpdateTable/DeleteTable against reads and writes of its
    items (``DYNABASE_FUZZ_RACE_SECONDS``, default 10): every answer is 200 or a DynamoDB 4xx."""
    seconds = float(os.environ.get("DYNABASE_FUZZ_RACE_SECONDS") or 10)
    requests = race_requests()
    chosen = fuzz_seed()
    print(f"race seed: {chosen}")
    bad: list[tuple[str, int, bytes]] = []
    deadline = time.monotonic() + seconds

    def worker(index: int) -> None:
        rng = random.Random(chosen + index)
        connection = Connection(fuzz_server.url)
        try:
            while time.monotonic() < deadline and len(bad) < 20:
                target, request = rng.choice(requests)
                response = connection.send(target, encode(request))
                if response.status >= 500 or (response.status >= 400 and b"__type" not in response.body):
                    bad.append((target, response.status, response.body[:200]))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    output = fuzz_server.new_output()
    assert fuzz_server.alive()
    assert not bad, "\n".join(map(repr, bad)) + "\n" + output[-5000:]
    assert "Traceback" not in output and "level=error" not in output, output[-5000:]


def test_every_operation_of_both_models_is_a_target() -> None:
    assert len(TARGETS) == len(set(TARGETS)) >= 61
    assert {"DynamoDB_20120810.PutItem", "DynamoDBStreams_20120810.GetRecords"} <= set(TARGETS)


@pytest.mark.parametrize(
    ("metadata", "bounds"),
    [
        ({}, (-5, 100)),
        ({"min": 1024}, (1024, 1124)),
        ({"max": -50}, (-150, -50)),
        ({"min": 1, "max": 25}, (1, 25)),
    ],
)
def test_integer_shapes_get_a_valid_interval_whichever_bounds_the_model_gives(
    metadata: dict[str, int], bounds: tuple[int, int]
) -> None:
    """botocore 1.44's StartBulkPutItems has MaxWriteRequestUnits with min 1024 and no max: the long fuzz run
    failed before it sent a request (hypothesis: max_value=100 < min_value=1024)."""
    assert _bounds(metadata) == bounds
