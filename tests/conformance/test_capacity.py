"""ReturnConsumedCapacity: TOTAL / INDEXES / NONE and the unit arithmetic.

Writes cost 1 unit per started KB (1024 bytes) of the larger of the old and new item; reads cost 1 unit per started
4 KB (4096 bytes), half of that when eventually consistent.  Index writes are billed per index on the size of the
index entry (projected attributes).  Item sizes: see test_types.test_attribute_value_size.
"""

from __future__ import annotations

import pytest

from ddb_helpers import gsi, lsi

K = {"pk": {"S": "a"}, "sk": {"S": "1"}}  # 3 + 3 bytes


def capacity(response):
    return response["ConsumedCapacity"]


def item_of_size(size, **extra):
    """An item for a ("pk:S", "sk:S") table that is exactly ``size`` bytes (attribute "d" pads it)."""
    base = 6 + sum(len(k) + len(v["S"]) for k, v in extra.items())
    return {**K, **extra, "d": {"S": "x" * (size - base - 1)}}


@pytest.fixture
def indexed_table(make_table):
    return make_table(
        ("pk:S", "sk:S"),
        gsis=[
            gsi("byG", "g:S"),
            gsi("byK", "g:S", projection="KEYS_ONLY"),
            gsi("byI", "g:S", projection=["d"]),
        ],
        lsis=[lsi("byL", "l:S", projection="KEYS_ONLY")],
    )


# -- shapes ------------------------------------------------------------------------------------------------------


def test_no_capacity_by_default(client, range_table):
    assert "ConsumedCapacity" not in client.put_item(TableName=range_table, Item=K)
    assert "ConsumedCapacity" not in client.get_item(TableName=range_table, Key=K)


def test_capacity_none(client, range_table):
    response = client.put_item(TableName=range_table, Item=K, ReturnConsumedCapacity="NONE")
    assert "ConsumedCapacity" not in response


def test_put_total(client, range_table):
    response = client.put_item(TableName=range_table, Item=K, ReturnConsumedCapacity="TOTAL")
    assert capacity(response) == {"TableName": range_table, "CapacityUnits": 1.0}


def test_put_indexes_without_indexes(client, range_table):
    response = client.put_item(TableName=range_table, Item=K, ReturnConsumedCapacity="INDEXES")
    assert capacity(response) == {
        "TableName": range_table,
        "CapacityUnits": 1.0,
        "Table": {"CapacityUnits": 1.0},
    }


def test_put_indexes_unindexed_item(client, indexed_table):
    response = client.put_item(TableName=indexed_table, Item=K, ReturnConsumedCapacity="INDEXES")
    assert capacity(response) == {
        "TableName": indexed_table,
        "CapacityUnits": 1.0,
        "Table": {"CapacityUnits": 1.0},
    }


def test_put_indexes_breakdown(client, indexed_table):
    item = {**K, "g": {"S": "x"}, "l": {"S": "y"}}
    response = client.put_item(TableName=indexed_table, Item=item, ReturnConsumedCapacity="INDEXES")
    assert capacity(response) == {
        "TableName": indexed_table,
        "CapacityUnits": 5.0,
        "Table": {"CapacityUnits": 1.0},
        "GlobalSecondaryIndexes": {
            "byG": {"CapacityUnits": 1.0},
            "byK": {"CapacityUnits": 1.0},
            "byI": {"CapacityUnits": 1.0},
        },
        "LocalSecondaryIndexes": {"byL": {"CapacityUnits": 1.0}},
    }


def test_put_total_includes_indexes(client, indexed_table):
    item = {**K, "g": {"S": "x"}, "l": {"S": "y"}}
    response = client.put_item(TableName=indexed_table, Item=item, ReturnConsumedCapacity="TOTAL")
    assert capacity(response) == {"TableName": indexed_table, "CapacityUnits": 5.0}


# -- write units -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "size, units",
    [(10, 1.0), (1024, 1.0), (1025, 2.0), (2048, 2.0), (2049, 3.0), (4096, 4.0), (4097, 5.0), (10000, 10.0)],
)
def test_put_write_units(client, range_table, size, units):
    response = client.put_item(TableName=range_table, Item=item_of_size(size), ReturnConsumedCapacity="TOTAL")
    assert capacity(response)["CapacityUnits"] == units


def test_put_over_larger_item_uses_larger_size(client, range_table):
    client.put_item(TableName=range_table, Item=item_of_size(5000))
    response = client.put_item(TableName=range_table, Item=K, ReturnConsumedCapacity="TOTAL")
    assert capacity(response)["CapacityUnits"] == 5.0


def test_delete_uses_old_item_size(client, range_table):
    client.put_item(TableName=range_table, Item=item_of_size(3000))
    response = client.delete_item(TableName=range_table, Key=K, ReturnConsumedCapacity="TOTAL")
    assert capacity(response) == {"TableName": range_table, "CapacityUnits": 3.0}


def test_delete_missing_item_costs_one_unit(client, range_table):
    response = client.delete_item(TableName=range_table, Key=K, ReturnConsumedCapacity="TOTAL")
    assert capacity(response) == {"TableName": range_table, "CapacityUnits": 1.0}


def test_update_uses_larger_of_old_and_new(client, range_table):
    client.put_item(TableName=range_table, Item=item_of_size(3000))
    response = client.update_item(
        TableName=range_table, Key=K, UpdateExpression="REMOVE d", ReturnConsumedCapacity="TOTAL"
    )
    assert capacity(response)["CapacityUnits"] == 3.0


def test_update_growing_item(client, range_table):
    client.put_item(TableName=range_table, Item=K)
    response = client.update_item(
        TableName=range_table,
        Key=K,
        UpdateExpression="SET d = :d",
        ExpressionAttributeValues={":d": {"S": "x" * 2500}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert capacity(response)["CapacityUnits"] == 3.0


def test_conditional_failure_has_no_capacity_in_error(client, range_table):
    client.put_item(TableName=range_table, Item=K)
    with pytest.raises(client.exceptions.ConditionalCheckFailedException) as exc_info:
        client.put_item(
            TableName=range_table,
            Item=K,
            ConditionExpression="attribute_not_exists(pk)",
            ReturnConsumedCapacity="TOTAL",
        )
    assert exc_info.value.response["Error"]["Code"] == "ConditionalCheckFailedException"


# -- index write units -------------------------------------------------------------------------------------------


def test_index_units_follow_projection(client, indexed_table):
    # 3000 bytes of "d" (projected into byG and byI), 3000 of "e" (only byG)
    item = {**K, "g": {"S": "g"}, "l": {"S": "l"}, "d": {"S": "x" * 3000}, "e": {"S": "y" * 3000}}
    response = client.put_item(TableName=indexed_table, Item=item, ReturnConsumedCapacity="INDEXES")
    assert capacity(response) == {
        "TableName": indexed_table,
        "CapacityUnits": 17.0,
        "Table": {"CapacityUnits": 6.0},
        "GlobalSecondaryIndexes": {
            "byG": {"CapacityUnits": 6.0},
            "byK": {"CapacityUnits": 1.0},
            "byI": {"CapacityUnits": 3.0},
        },
        "LocalSecondaryIndexes": {"byL": {"CapacityUnits": 1.0}},
    }


def test_index_entry_removed_costs_old_entry_size(client, indexed_table):
    item = {**K, "g": {"S": "g"}, "l": {"S": "l"}, "d": {"S": "x" * 3000}, "e": {"S": "y" * 3000}}
    client.put_item(TableName=indexed_table, Item=item)
    response = client.put_item(TableName=indexed_table, Item=K, ReturnConsumedCapacity="INDEXES")
    assert capacity(response) == {
        "TableName": indexed_table,
        "CapacityUnits": 17.0,
        "Table": {"CapacityUnits": 6.0},
        "GlobalSecondaryIndexes": {
            "byG": {"CapacityUnits": 6.0},
            "byK": {"CapacityUnits": 1.0},
            "byI": {"CapacityUnits": 3.0},
        },
        "LocalSecondaryIndexes": {"byL": {"CapacityUnits": 1.0}},
    }


def test_update_of_unprojected_attribute_skips_index(client, indexed_table):
    client.put_item(TableName=indexed_table, Item={**K, "g": {"S": "g"}, "d": {"S": "x" * 3000}})
    response = client.update_item(
        TableName=indexed_table,
        Key=K,
        UpdateExpression="SET z = :v",
        ExpressionAttributeValues={":v": {"S": "v"}},
        ReturnConsumedCapacity="INDEXES",
    )
    # only the ALL-projection index sees the change
    assert capacity(response) == {
        "TableName": indexed_table,
        "CapacityUnits": 6.0,
        "Table": {"CapacityUnits": 3.0},
        "GlobalSecondaryIndexes": {"byG": {"CapacityUnits": 3.0}},
    }


def test_index_key_change_costs_delete_plus_put(client, indexed_table):
    client.put_item(TableName=indexed_table, Item={**K, "g": {"S": "g"}, "d": {"S": "x" * 3000}})
    response = client.update_item(
        TableName=indexed_table,
        Key=K,
        UpdateExpression="SET g = :v",
        ExpressionAttributeValues={":v": {"S": "h"}},
        ReturnConsumedCapacity="INDEXES",
    )
    assert capacity(response) == {
        "TableName": indexed_table,
        "CapacityUnits": 17.0,
        "Table": {"CapacityUnits": 3.0},
        "GlobalSecondaryIndexes": {
            "byG": {"CapacityUnits": 6.0},
            "byK": {"CapacityUnits": 2.0},
            "byI": {"CapacityUnits": 6.0},
        },
    }


def test_delete_item_index_breakdown(client, indexed_table):
    client.put_item(TableName=indexed_table, Item={**K, "g": {"S": "g"}})
    response = client.delete_item(TableName=indexed_table, Key=K, ReturnConsumedCapacity="INDEXES")
    assert capacity(response) == {
        "TableName": indexed_table,
        "CapacityUnits": 4.0,
        "Table": {"CapacityUnits": 1.0},
        "GlobalSecondaryIndexes": {
            "byG": {"CapacityUnits": 1.0},
            "byK": {"CapacityUnits": 1.0},
            "byI": {"CapacityUnits": 1.0},
        },
    }


# -- read units --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "size, eventual, strong",
    [
        (10, 0.5, 1.0),
        (4096, 0.5, 1.0),
        (4097, 1.0, 2.0),
        (8192, 1.0, 2.0),
        (8193, 1.5, 3.0),
        (10000, 1.5, 3.0),
    ],
)
def test_get_read_units(client, range_table, size, eventual, strong):
    client.put_item(TableName=range_table, Item=item_of_size(size))
    response = client.get_item(TableName=range_table, Key=K, ReturnConsumedCapacity="TOTAL")
    assert capacity(response) == {"TableName": range_table, "CapacityUnits": eventual}
    response = client.get_item(
        TableName=range_table, Key=K, ReturnConsumedCapacity="TOTAL", ConsistentRead=True
    )
    assert capacity(response) == {"TableName": range_table, "CapacityUnits": strong}


def test_get_missing_item_read_units(client, range_table):
    response = client.get_item(TableName=range_table, Key=K, ReturnConsumedCapacity="TOTAL")
    assert capacity(response) == {"TableName": range_table, "CapacityUnits": 0.5}


def test_get_indexes_breakdown(client, indexed_table):
    client.put_item(TableName=indexed_table, Item=K)
    response = client.get_item(TableName=indexed_table, Key=K, ReturnConsumedCapacity="INDEXES")
    assert capacity(response) == {
        "TableName": indexed_table,
        "CapacityUnits": 0.5,
        "Table": {"CapacityUnits": 0.5},
    }


@pytest.fixture
def ten_items(client, make_table):
    """Ten 1009-byte items in one partition, indexed by a GSI (ALL) and an LSI (ALL)."""
    table = make_table(("pk:S", "sk:N"), gsis=[gsi("byG", "g:S")], lsis=[lsi("byL", "l:N")])
    for i in range(10):
        client.put_item(
            TableName=table,
            Item={
                "pk": {"S": "a"},
                "sk": {"N": str(i)},
                "g": {"S": "g"},
                "l": {"N": str(i)},
                "d": {"S": "x" * 996},
            },
        )
    return table


Q = {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}


def test_query_read_units_sum_item_sizes(client, ten_items):
    response = client.query(TableName=ten_items, ReturnConsumedCapacity="TOTAL", **Q)
    assert capacity(response) == {"TableName": ten_items, "CapacityUnits": 1.5}


def test_query_consistent_read_units(client, ten_items):
    response = client.query(TableName=ten_items, ReturnConsumedCapacity="TOTAL", ConsistentRead=True, **Q)
    assert capacity(response) == {"TableName": ten_items, "CapacityUnits": 3.0}


@pytest.mark.parametrize("limit, units", [(1, 0.5), (4, 0.5), (5, 1.0)])
def test_query_read_units_with_limit(client, ten_items, limit, units):
    response = client.query(TableName=ten_items, ReturnConsumedCapacity="TOTAL", Limit=limit, **Q)
    assert capacity(response)["CapacityUnits"] == units


def test_query_filtered_items_still_cost(client, ten_items):
    response = client.query(
        TableName=ten_items,
        ReturnConsumedCapacity="TOTAL",
        KeyConditionExpression="pk = :p",
        FilterExpression="d = :none",
        ExpressionAttributeValues={":p": {"S": "a"}, ":none": {"S": "none"}},
    )
    assert response["Count"] == 0
    assert capacity(response)["CapacityUnits"] == 1.5


def test_query_count_costs_the_same(client, ten_items):
    response = client.query(TableName=ten_items, ReturnConsumedCapacity="TOTAL", Select="COUNT", **Q)
    assert capacity(response)["CapacityUnits"] == 1.5


def test_query_empty_result_costs_nothing(client, ten_items):
    response = client.query(
        TableName=ten_items,
        ReturnConsumedCapacity="INDEXES",
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "none"}},
    )
    assert capacity(response) == {
        "TableName": ten_items,
        "CapacityUnits": 0.0,
        "Table": {"CapacityUnits": 0.0},
    }


def test_query_gsi_indexes_breakdown(client, ten_items):
    response = client.query(
        TableName=ten_items,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "g"}},
        ReturnConsumedCapacity="INDEXES",
    )
    assert capacity(response) == {
        "TableName": ten_items,
        "CapacityUnits": 1.5,
        "Table": {"CapacityUnits": 0.0},
        "GlobalSecondaryIndexes": {"byG": {"CapacityUnits": 1.5}},
    }


def test_query_gsi_total(client, ten_items):
    response = client.query(
        TableName=ten_items,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "g"}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert capacity(response) == {"TableName": ten_items, "CapacityUnits": 1.5}


def test_query_lsi_indexes_breakdown(client, ten_items):
    response = client.query(TableName=ten_items, IndexName="byL", ReturnConsumedCapacity="INDEXES", **Q)
    assert capacity(response) == {
        "TableName": ten_items,
        "CapacityUnits": 1.5,
        "Table": {"CapacityUnits": 0.0},
        "LocalSecondaryIndexes": {"byL": {"CapacityUnits": 1.5}},
    }


def test_scan_read_units(client, ten_items):
    response = client.scan(TableName=ten_items, ReturnConsumedCapacity="TOTAL")
    assert capacity(response) == {"TableName": ten_items, "CapacityUnits": 1.5}
    response = client.scan(TableName=ten_items, ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
    assert capacity(response) == {"TableName": ten_items, "CapacityUnits": 3.0}


def test_scan_gsi_indexes_breakdown(client, ten_items):
    response = client.scan(TableName=ten_items, IndexName="byG", ReturnConsumedCapacity="INDEXES")
    assert capacity(response) == {
        "TableName": ten_items,
        "CapacityUnits": 1.5,
        "Table": {"CapacityUnits": 0.0},
        "GlobalSecondaryIndexes": {"byG": {"CapacityUnits": 1.5}},
    }
