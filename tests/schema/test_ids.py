"""ULID / UUID / UID generators."""

from __future__ import annotations

import re
import threading
import time
import uuid

import pytest

from dynabase.schema import (
    CROCKFORD_ALPHABET,
    Generate,
    generate_id,
    new_uid,
    new_ulid,
    new_uuid,
    ulid_timestamp,
)
from dynabase.schema.ids import UlidGenerator, ulid_datetime

ULID_RE = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")


def test_alphabet_is_crockford_base32():
    assert CROCKFORD_ALPHABET == "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    assert len(set(CROCKFORD_ALPHABET)) == 32
    assert not set("ILOU") & set(CROCKFORD_ALPHABET)


def test_ulid_shape_and_time():
    before = int(time.time() * 1000)
    value = new_ulid()
    after = int(time.time() * 1000)
    assert ULID_RE.match(value)
    assert before <= ulid_timestamp(value) <= after
    assert ulid_timestamp(value.lower()) == ulid_timestamp(value)
    assert ulid_datetime(value).tzinfo is not None


def test_ulid_known_encoding():
    # The time part of the spec's example: 01ARYZ6S41 is 1469918176385 ms.
    assert ulid_timestamp("01ARYZ6S41TSV4RRFFQ69G5FAV") == 1469918176385
    assert new_ulid(0)[:10] >= "0000000000"
    assert ulid_timestamp("7ZZZZZZZZZZZZZZZZZZZZZZZZZ") == 2**48 - 1


def test_ulids_sort_by_time():
    early = new_ulid(1_000_000_000_000)
    late = new_ulid(2_000_000_000_000)
    assert early < late
    assert ulid_timestamp(early) == 1_000_000_000_000


def _random_part(value: str) -> int:
    number = 0
    for ch in value[10:]:
        number = number * 32 + CROCKFORD_ALPHABET.index(ch)
    return number


def test_ulids_are_monotonic_within_a_millisecond():
    fixed = 1_800_000_000_000
    generator = UlidGenerator(clock=lambda: fixed)
    values = [generator.new() for _ in range(1000)]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert {ulid_timestamp(v) for v in values} == {fixed}
    # Consecutive values in one millisecond differ by one in the random part.
    assert all(_random_part(b) == _random_part(a) + 1 for a, b in zip(values, values[1:], strict=False))


def test_ulids_stay_monotonic_when_the_clock_goes_back():
    times = iter([1_900_000_000_000, 1_800_000_000_000, 1_900_000_000_001])
    generator = UlidGenerator(clock=lambda: next(times))
    first, second, third = generator.new(), generator.new(), generator.new()
    assert first < second < third
    assert ulid_timestamp(second) == 1_900_000_000_000
    assert ulid_timestamp(third) == 1_900_000_000_001


def test_default_ulids_are_monotonic():
    values = [new_ulid() for _ in range(2000)]
    assert values == sorted(values) and len(set(values)) == 2000


def test_ulids_from_many_threads_are_unique_and_ordered_per_thread():
    results: list[list[str]] = []

    def work():
        mine = [new_ulid() for _ in range(300)]
        results.append(mine)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [v for chunk in results for v in chunk]
    assert len(set(everything)) == len(everything)
    assert all(chunk == sorted(chunk) for chunk in results)


def test_ulid_errors():
    with pytest.raises(ValueError):
        new_ulid(-1)
    with pytest.raises(ValueError):
        new_ulid(2**48)
    for bad in ("short", "01ARYZ6S41TSV4RRFFQ69G5FAU", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", 5):
        with pytest.raises(ValueError):
            ulid_timestamp(bad)  # type: ignore[arg-type]


def test_uuid4():
    value = new_uuid()
    parsed = uuid.UUID(value)
    assert parsed.version == 4 and str(parsed) == value and len(value) == 36
    assert new_uuid() != new_uuid()


def test_uid():
    value = new_uid()
    assert len(value) == 10 and set(value) <= set(CROCKFORD_ALPHABET)
    assert len(new_uid(1)) == 1 and len(new_uid(64)) == 64
    many = "".join(new_uid(50) for _ in range(100))
    assert set(many) == set(CROCKFORD_ALPHABET)  # every letter is used
    for bad in (0, -1, True, "5"):
        with pytest.raises(ValueError):
            new_uid(bad)  # type: ignore[arg-type]


def test_generate_id():
    assert ULID_RE.match(generate_id("ulid"))
    assert uuid.UUID(generate_id("uuid")).version == 4
    assert len(generate_id("uid")) == 10
    assert len(generate_id("uid", 16)) == 16
    assert len(generate_id("uid(8)")) == 8
    for bad in ("guid", "uid()", "uid(x)", None):
        with pytest.raises(ValueError):
            generate_id(bad)  # type: ignore[arg-type]


def test_generate_from_schema_definition():
    assert len(Generate("uid", 12).new()) == 12
    assert ULID_RE.match(Generate("ulid").new())
    with pytest.raises(ValueError, match="application-supplied generator"):
        Generate("custom").new()
