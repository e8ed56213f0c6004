"""PynamoDB models under mock_dynamodb: PynamoDB builds its own botocore clients, and they are routed too.

The same tests run against DynamoDB Local (the oracle) when ``DYNABASE_BACKENDS`` names it (the default).
"""

from __future__ import annotations

import socket
from datetime import datetime, timezone

import pytest

pytest.importorskip("pynamodb", reason="PynamoDB is in the test extra: pip install -e '.[test]'")

from pynamodb.attributes import (  # noqa: E402
    BinaryAttribute,
    ListAttribute,
    MapAttribute,
    NumberAttribute,
    NumberSetAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.connection import Connection  # noqa: E402
from pynamodb.exceptions import DoesNotExist, PutError, TransactWriteError, UpdateError  # noqa: E402
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, LocalSecondaryIndex  # noqa: E402
from pynamodb.models import Model  # noqa: E402
from pynamodb.transactions import TransactGet, TransactWrite  # noqa: E402

from backends import selected_backends  # noqa: E402
from dynabase.testing import mock_dynamodb  # noqa: E402


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# as code written for DynamoDB Local names its endpoint: the mock answers whatever the host
LOCAL_HOST = f"http://127.0.0.1:{_closed_port()}"


class ByViews(LocalSecondaryIndex):
    class Meta:
        projection = AllProjection()

    forum = UnicodeAttribute(hash_key=True)
    views = NumberAttribute(range_key=True)


class ByAuthor(GlobalSecondaryIndex):
    class Meta:
        index_name = "by-author"
        projection = AllProjection()

    author = UnicodeAttribute(hash_key=True)
    posted = UTCDateTimeAttribute(range_key=True)


class Details(MapAttribute):
    words = NumberAttribute()
    tags = ListAttribute(of=UnicodeAttribute, null=True)


class Thread(Model):
    class Meta:
        table_name = "threads"
        region = "us-east-1"
        host = LOCAL_HOST
        billing_mode = "PAY_PER_REQUEST"

    forum = UnicodeAttribute(hash_key=True)
    subject = UnicodeAttribute(range_key=True)
    author = UnicodeAttribute()
    posted = UTCDateTimeAttribute(default=lambda: datetime.now(timezone.utc))
    views = NumberAttribute(default=0)
    scores = NumberSetAttribute(null=True)
    body = BinaryAttribute(null=True, legacy_encoding=False)
    details = Details(null=True)
    version = VersionAttribute()
    by_views = ByViews()
    by_author = ByAuthor()


TARGETS = ["mock"] + (["dynamodb-local"] if "dynamodb-local" in selected_backends() else [])


@pytest.fixture(params=TARGETS)
def threads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    if request.param == "mock":
        with mock_dynamodb():
            Thread._connection = None  # PynamoDB keeps one connection per model class; a fresh one per test
            Thread.create_table(wait=True)
            yield Thread
        return
    monkeypatch.setattr(Thread.Meta, "host", request.getfixturevalue("dynamodb_local_endpoint"))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    Thread._connection = None
    Thread.create_table(wait=True)
    try:
        yield Thread
    finally:
        Thread.delete_table()
        Thread._connection = None


def test_save_get_refresh_and_types(threads) -> None:
    thread = Thread("python", "mocks", author="ann", scores={1, 2.5}, body=b"\x00\xff")
    thread.details = Details(words=120, tags=["testing"])
    thread.save()
    got = Thread.get("python", "mocks")
    assert (got.author, got.scores, got.body, got.version) == ("ann", {1, 2.5}, b"\x00\xff", 1)
    assert got.details.words == 120 and got.details.tags == ["testing"]
    with pytest.raises(DoesNotExist):
        Thread.get("python", "nothing")
    assert Thread.exists() and Thread.count("python") == 1


def test_versioning_and_conditions(threads) -> None:
    thread = Thread("python", "v", author="ann")
    thread.save()
    stale = Thread.get("python", "v")
    thread.views = 3
    thread.save()  # version 2
    stale.views = 9
    with pytest.raises(PutError):  # version 1 is stale
        stale.save()
    with pytest.raises(PutError):
        Thread("python", "v", author="bob").save(condition=Thread.forum.does_not_exist())
    thread.update(actions=[Thread.views.add(2), Thread.scores.add({7})], condition=Thread.author == "ann")
    assert (thread.views, thread.scores, thread.version) == (5, {7}, 3)
    with pytest.raises(UpdateError):
        thread.update(actions=[Thread.views.set(0)], condition=Thread.author == "bob")


def test_queries_indexes_scans_and_pages(threads) -> None:
    with Thread.batch_write() as batch:
        for i in range(40):
            batch.save(Thread("python" if i % 2 else "rust", f"s{i:02d}", author=f"a{i % 4}", views=i))
    assert [t.subject for t in Thread.query("python", Thread.subject.startswith("s0"))] == [
        "s01",
        "s03",
        "s05",
        "s07",
        "s09",
    ]
    popular = list(Thread.by_views.query("rust", Thread.views >= 30, scan_index_forward=False))
    assert [t.views for t in popular] == [38, 36, 34, 32, 30]
    assert len(list(Thread.by_author.query("a1"))) == 10
    pages = Thread.scan(Thread.views < 10, page_size=3)
    assert sorted(t.views for t in pages) == list(range(10))
    assert len(list(Thread.batch_get([("python", f"s{i:02d}") for i in range(1, 40, 2)]))) == 20
    with Thread.batch_write() as batch:
        for thread in Thread.query("rust"):
            batch.delete(thread)
    assert Thread.count("rust") == 0 and Thread.count("python") == 20


def test_transactions(threads) -> None:
    connection = Connection(region="us-east-1", host=Thread.Meta.host)
    Thread("python", "t1", author="ann").save()
    stored = Thread.get("python", "t1")  # its version goes into the update's condition
    with TransactWrite(connection=connection) as writes:
        writes.save(Thread("python", "t2", author="bob"))
        writes.update(stored, actions=[Thread.views.add(1)], condition=Thread.author == "ann")
    with pytest.raises(TransactWriteError) as caught, TransactWrite(connection=connection) as writes:
        writes.save(Thread("python", "t3", author="cat"))
        writes.condition_check(Thread, "python", "t1", condition=Thread.author == "nobody")
    assert [r.code for r in caught.value.cancellation_reasons if r] == ["ConditionalCheckFailed"]
    with TransactGet(connection=connection) as reads:
        first = reads.get(Thread, "python", "t1")
        second = reads.get(Thread, "python", "t2")
    assert (first.get().views, second.get().author) == (1, "bob")
    assert not Thread.count("python", Thread.subject == "t3")


def test_each_test_starts_without_tables() -> None:
    with mock_dynamodb():
        Thread._connection = None
        assert not Thread.exists()
