"""Streams: what the order service's revenue report reads from the table's change stream."""

from __future__ import annotations

from decimal import Decimal

import pytest

from . import shop
from ._mock import mock_aws

LINE = [("apple", 2, "1.50")]


@pytest.fixture
def orders():
    with mock_aws():
        shop.create_table()
        yield shop.Orders()


@pytest.mark.parametrize("placed", range(1, 16))
def test_revenue_of_placed_orders(orders, placed):
    for i in range(placed):
        orders.place("ivy", f"o{i}", LINE)
    assert shop.revenue(shop.stream_events()) == Decimal("3.00") * placed


@pytest.mark.parametrize("cancelled", range(0, 5))
def test_cancellations_count_against_revenue(orders, cancelled):
    for i in range(4):
        orders.place("jon", f"o{i}", LINE)
    for i in range(cancelled):
        orders.cancel("jon", f"o{i}")
    assert shop.revenue(shop.stream_events()) == Decimal("3.00") * (4 - cancelled)


def test_event_names_and_images(orders):
    orders.place("kim", "o1", LINE)
    orders.ship("kim", "o1")
    orders.forget_customer("kim")
    records = shop.stream_events()
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    modify = records[1]["dynamodb"]
    assert modify["OldImage"]["status"] == {"S": "PLACED"}
    assert modify["NewImage"]["status"] == {"S": "SHIPPED"}
    assert "NewImage" not in records[2]["dynamodb"]
    assert records[2]["dynamodb"]["Keys"] == {"pk": {"S": "CUSTOMER#kim"}, "sk": {"S": "ORDER#o1"}}


def test_failed_conditions_write_no_records(orders):
    orders.place("lee", "o1", LINE)
    with pytest.raises(shop.OrderExists):
        orders.place("lee", "o1", LINE)
    with pytest.raises(shop.InvalidTransition):
        orders.ship("lee", "o2")
    assert len(shop.stream_events()) == 1


def test_stock_reservations_stream_both_items(orders):
    orders.stock("apple", 5)
    orders.place("max", "o1", LINE)
    orders.reserve("max", "o1", "apple", 2)
    names = [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in shop.stream_events()]
    assert names[:2] == [("INSERT", "SKU#apple"), ("INSERT", "CUSTOMER#max")]
    assert sorted(names[2:]) == [("MODIFY", "CUSTOMER#max"), ("MODIFY", "SKU#apple")]
