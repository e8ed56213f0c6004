"""Resource style: the order service's own tests, decorated with mock_aws."""

from __future__ import annotations

from decimal import Decimal

import boto3
import pytest

from . import shop
from ._mock import mock_aws

LINES = [("apple", 3, "0.50"), ("pear", 1, "1.25")]


@pytest.fixture
def orders():
    """The moto idiom: a fixture that starts the mock and yields inside it."""
    with mock_aws():
        shop.create_table()
        yield shop.Orders()


@mock_aws
def test_table_is_created_with_its_index():
    table = shop.create_table()
    description = boto3.client("dynamodb").describe_table(TableName=shop.TABLE)["Table"]
    assert description["GlobalSecondaryIndexes"][0]["IndexName"] == "by-status"
    assert table.table_status == "ACTIVE"


@pytest.mark.parametrize("quantity", range(1, 51))
def test_place_and_get(orders, quantity):
    placed = orders.place("ann", f"o{quantity}", [("apple", quantity, "0.50")])
    stored = orders.get("ann", f"o{quantity}")
    assert stored["total"] == Decimal("0.50") * quantity == placed["total"]
    assert stored["lines"] == [{"sku": "apple", "qty": quantity, "price": Decimal("0.50")}]


@pytest.mark.parametrize("order_id", [f"dup{i}" for i in range(20)])
def test_placing_twice_is_refused(orders, order_id):
    orders.place("ann", order_id, LINES)
    with pytest.raises(shop.OrderExists):
        orders.place("ann", order_id, LINES)


def test_missing_order_is_none(orders):
    assert orders.get("nobody", "none") is None


@pytest.mark.parametrize("count,page_size", [(n, p) for n in (0, 1, 7, 30) for p in (1, 5, 25)])
def test_customer_orders_page_through(orders, count, page_size):
    for i in range(count):
        orders.place("bob", f"{i:04d}", LINES)
    orders.place("carol", "x", LINES)  # another customer's order stays out
    found = orders.for_customer("bob", page_size=page_size)
    assert [o["sk"] for o in found] == [f"ORDER#{i:04d}" for i in range(count)]


@pytest.mark.parametrize("shipped", range(0, 6))
def test_status_index(orders, shipped):
    for i in range(5):
        orders.place("dan", f"o{i}", LINES)
    for i in range(shipped if shipped < 5 else 5):
        orders.ship("dan", f"o{i}")
    assert len(orders.by_status("SHIPPED")) == min(shipped, 5)
    assert len(orders.by_status("PLACED")) == 5 - min(shipped, 5)


@pytest.mark.parametrize(
    "first,second", [("ship", "ship"), ("ship", "cancel"), ("cancel", "ship"), ("cancel", "cancel")]
)
def test_transitions_only_from_placed(orders, first, second):
    orders.place("eve", "o1", LINES)
    assert getattr(orders, first)("eve", "o1")["status"] in ("SHIPPED", "CANCELLED")
    with pytest.raises(shop.InvalidTransition):
        getattr(orders, second)("eve", "o1")


def test_transition_of_a_missing_order(orders):
    with pytest.raises(shop.InvalidTransition):
        orders.ship("eve", "nope")


@pytest.mark.parametrize("size", [1, 5, 24, 25, 26, 60, 101])
def test_import_with_batch_writer(orders, size):
    rows = [
        {
            "pk": f"CUSTOMER#imp{i % 4}",
            "sk": f"ORDER#{i:05d}",
            "status": "PLACED",
            "placed": i,
            "total": Decimal(i),
        }
        for i in range(size)
    ]
    assert orders.import_orders(rows) == size
    assert sum(len(orders.for_customer(f"imp{c}")) for c in range(4)) == size


@pytest.mark.parametrize("count", [0, 3, 30])
def test_forget_customer(orders, count):
    for i in range(count):
        orders.place("fay", f"o{i}", LINES)
    orders.place("gus", "o1", LINES)
    assert orders.forget_customer("fay") == count
    assert orders.for_customer("fay") == []
    assert len(orders.for_customer("gus")) == 1


@mock_aws
class TestStock:
    """moto's class decorator: each test method gets its own fresh mock."""

    def test_reserve_takes_stock(self):
        shop.create_table()
        orders = shop.Orders()
        orders.stock("apple", 10)
        orders.place("hal", "o1", LINES)
        orders.reserve("hal", "o1", "apple", 4)
        assert orders.table.get_item(Key={"pk": "SKU#apple", "sk": "STOCK"})["Item"]["count"] == 6
        assert orders.get("hal", "o1")["reserved"] == 4

    def test_reserve_more_than_stock_changes_nothing(self):
        shop.create_table()
        orders = shop.Orders()
        orders.stock("apple", 2)
        orders.place("hal", "o1", LINES)
        with pytest.raises(shop.OutOfStock):
            orders.reserve("hal", "o1", "apple", 3)
        assert orders.table.get_item(Key={"pk": "SKU#apple", "sk": "STOCK"})["Item"]["count"] == 2
        assert "reserved" not in orders.get("hal", "o1")

    def test_reserve_for_a_missing_order_changes_nothing(self):
        shop.create_table()
        orders = shop.Orders()
        orders.stock("apple", 5)
        with pytest.raises(shop.OutOfStock):
            orders.reserve("hal", "missing", "apple", 1)
        assert orders.table.get_item(Key={"pk": "SKU#apple", "sk": "STOCK"})["Item"]["count"] == 5

    def test_each_test_starts_empty(self):
        assert boto3.client("dynamodb").list_tables()["TableNames"] == []
