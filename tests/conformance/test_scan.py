"""Scan: filters, Limit, paging, Select, parallel segments, indexes, paginator."""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error, gsi, lsi, scan_all, sorted_items, values


@pytest.fixture
def fifty(client, hash_table):
    for i in range(50):
        client.put_item(
            TableName=hash_table,
            Item={"pk": {"S": f"k{i}"}, "n": {"N": str(i)}, "odd": {"BOOL": bool(i % 2)}},
        )
    return hash_table


def all_keys():
    return sorted(f"k{i}" for i in range(50))


def test_scan_empty_table(client, hash_table):
    result = client.scan(TableName=hash_table)
    assert result["Items"] == []
    assert (result["Count"], result["ScannedCount"]) == (0, 0)
    assert "LastEvaluatedKey" not in result


def test_scan_returns_every_item(client, fifty):
    result = client.scan(TableName=fifty)
    assert sorted(values(result["Items"], "pk")) == all_keys()
    assert (result["Count"], result["ScannedCount"]) == (50, 50)
    assert "LastEvaluatedKey" not in result


def test_scan_items_are_whole(client, fifty):
    items = sorted_items(client.scan(TableName=fifty)["Items"], "n")
    assert items[3] == {"pk": {"S": "k3"}, "n": {"N": "3"}, "odd": {"BOOL": True}}


def test_scan_filter(client, fifty):
    result = client.scan(
        TableName=fifty, FilterExpression="n < :v", ExpressionAttributeValues={":v": {"N": "10"}}
    )
    assert sorted(values(result["Items"], "n"), key=int) == [str(i) for i in range(10)]
    assert (result["Count"], result["ScannedCount"]) == (10, 50)


def test_scan_filter_on_key_attribute_allowed(client, fifty):
    result = client.scan(
        TableName=fifty, FilterExpression="pk = :k", ExpressionAttributeValues={":k": {"S": "k7"}}
    )
    assert result["Items"] == [{"pk": {"S": "k7"}, "n": {"N": "7"}, "odd": {"BOOL": True}}]


def test_scan_filter_functions(client, fifty):
    result = client.scan(
        TableName=fifty,
        FilterExpression="begins_with(pk, :p) AND odd = :t",
        ExpressionAttributeValues={":p": {"S": "k1"}, ":t": {"BOOL": True}},
    )
    assert sorted(values(result["Items"], "pk")) == ["k1", "k11", "k13", "k15", "k17", "k19"]


def test_scan_limit(client, fifty):
    result = client.scan(TableName=fifty, Limit=10)
    assert (result["Count"], result["ScannedCount"]) == (10, 10)
    last = result["LastEvaluatedKey"]
    assert set(last) == {"pk"}
    assert last == {"pk": result["Items"][-1]["pk"]}


def test_scan_limit_applies_before_filter(client, fifty):
    result = client.scan(
        TableName=fifty,
        Limit=10,
        FilterExpression="odd = :t",
        ExpressionAttributeValues={":t": {"BOOL": True}},
    )
    assert result["ScannedCount"] == 10
    assert result["Count"] == len(result["Items"]) <= 10
    assert all(item["odd"] == {"BOOL": True} for item in result["Items"])
    assert "LastEvaluatedKey" in result


def test_scan_limit_equal_to_item_count(client, fifty):
    result = client.scan(TableName=fifty, Limit=50)
    assert result["Count"] == 50
    assert "LastEvaluatedKey" in result
    rest = client.scan(TableName=fifty, ExclusiveStartKey=result["LastEvaluatedKey"])
    assert (rest["Items"], rest["Count"]) == ([], 0)
    assert "LastEvaluatedKey" not in rest


def test_scan_pagination_returns_each_item_once(client, fifty):
    items = scan_all(client, TableName=fifty, Limit=7)
    assert sorted(values(items, "pk")) == all_keys()


def test_scan_pagination_is_stable(client, fifty):
    first = client.scan(TableName=fifty, Limit=20)
    again = client.scan(TableName=fifty, Limit=20)
    assert first["Items"] == again["Items"]
    rest = scan_all(client, TableName=fifty, ExclusiveStartKey=first["LastEvaluatedKey"])
    assert sorted(values(first["Items"] + rest, "pk")) == all_keys()


def test_scan_paginator(client, fifty):
    pages = list(client.get_paginator("scan").paginate(TableName=fifty, PaginationConfig={"PageSize": 20}))
    assert [p["Count"] for p in pages] == [20, 20, 10]
    assert sorted(v for p in pages for v in values(p["Items"], "pk")) == all_keys()


def test_scan_paginator_with_filter(client, fifty):
    result = (
        client.get_paginator("scan")
        .paginate(
            TableName=fifty,
            FilterExpression="odd = :t",
            ExpressionAttributeValues={":t": {"BOOL": True}},
            PaginationConfig={"PageSize": 9},
        )
        .build_full_result()
    )
    assert sorted(values(result["Items"], "n"), key=int) == [str(i) for i in range(1, 50, 2)]


def test_scan_select_count(client, fifty):
    result = client.scan(TableName=fifty, Select="COUNT")
    assert "Items" not in result
    assert (result["Count"], result["ScannedCount"]) == (50, 50)


def test_scan_select_count_with_limit(client, fifty):
    result = client.scan(TableName=fifty, Select="COUNT", Limit=10)
    assert "Items" not in result
    assert (result["Count"], result["ScannedCount"]) == (10, 10)
    assert "LastEvaluatedKey" in result


def test_scan_select_count_with_filter(client, fifty):
    result = client.scan(
        TableName=fifty,
        Select="COUNT",
        FilterExpression="n < :v",
        ExpressionAttributeValues={":v": {"N": "10"}},
    )
    assert (result["Count"], result["ScannedCount"]) == (10, 50)


def test_scan_select_all_projected_on_table(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, Select="ALL_PROJECTED_ATTRIBUTES"),
        "ValidationException",
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
    )


def test_scan_select_specific_attributes(client, fifty):
    result = client.scan(TableName=fifty, Select="SPECIFIC_ATTRIBUTES", ProjectionExpression="n", Limit=1)
    assert list(result["Items"][0]) == ["n"]


def test_scan_select_count_with_projection(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, Select="COUNT", ProjectionExpression="n"),
        "ValidationException",
        "Cannot specify the ProjectionExpression when choosing to get only the Count",
    )


def test_scan_consistent_read(client, fifty):
    assert client.scan(TableName=fifty, ConsistentRead=True)["Count"] == 50


def test_scan_unknown_index(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, IndexName="nope"),
        "ValidationException",
        "The table does not have the specified index: nope",
    )


def test_scan_filter_errors(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, FilterExpression="n = :v"),
        "ValidationException",
        "Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :v",
    )
    assert_client_error(
        lambda: client.scan(
            TableName=fifty, FilterExpression="n = :v AND", ExpressionAttributeValues={":v": {"N": "1"}}
        ),
        "ValidationException",
        'Invalid FilterExpression: Syntax error; token: "<EOF>", near: "AND"',
    )


def test_scan_exclusive_start_key_wrong_size(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, ExclusiveStartKey={"pk": {"S": "k1"}, "x": {"S": "y"}}),
        "ValidationException",
        "Exclusive Start Key must have same size as table's key schema",
    )


def test_scan_with_scan_filter_and_filter_expression(client, fifty):
    assert_client_error(
        lambda: client.scan(
            TableName=fifty,
            FilterExpression="attribute_exists(n)",
            ScanFilter={"n": {"ComparisonOperator": "NOT_NULL"}},
        ),
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
        "{ScanFilter} Expression parameters: {FilterExpression}",
    )


def test_scan_range_table_orders_within_partition(client, num_range_table):
    for pk in ("a", "b"):
        for sk in (3, 1, 2):
            client.put_item(TableName=num_range_table, Item={"pk": {"S": pk}, "sk": {"N": str(sk)}})
    items = client.scan(TableName=num_range_table)["Items"]
    for pk in ("a", "b"):
        assert [i["sk"]["N"] for i in items if i["pk"]["S"] == pk] == ["1", "2", "3"]


# -- parallel scan -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("total", [1, 2, 3, 4, 7, 100])
def test_parallel_scan_covers_every_item_once(client, fifty, total):
    seen = []
    for segment in range(total):
        seen += values(scan_all(client, TableName=fifty, Segment=segment, TotalSegments=total), "pk")
    assert sorted(seen) == all_keys()


def test_parallel_scan_segments_are_disjoint_and_stable(client, fifty):
    first = [
        sorted(values(scan_all(client, TableName=fifty, Segment=s, TotalSegments=3), "pk")) for s in range(3)
    ]
    again = [
        sorted(values(scan_all(client, TableName=fifty, Segment=s, TotalSegments=3), "pk")) for s in range(3)
    ]
    assert first == again
    assert sum(len(s) for s in first) == 50


def test_parallel_scan_paging_within_segment(client, fifty):
    segment = sorted(values(scan_all(client, TableName=fifty, Segment=1, TotalSegments=3), "pk"))
    paged = sorted(values(scan_all(client, TableName=fifty, Segment=1, TotalSegments=3, Limit=3), "pk"))
    assert paged == segment


def test_parallel_scan_key_from_other_segment(client, fifty):
    segment0 = scan_all(client, TableName=fifty, Segment=0, TotalSegments=2)
    assert segment0
    assert_client_error(
        lambda: client.scan(
            TableName=fifty, Segment=1, TotalSegments=2, ExclusiveStartKey={"pk": segment0[0]["pk"]}
        ),
        "ValidationException",
        "Exclusive start key must lie within the segment",
    )


def test_parallel_scan_huge_segment_count(client, fifty):
    result = client.scan(TableName=fifty, Segment=999999, TotalSegments=1000000)
    assert result["Count"] == len(result["Items"])


def test_segment_without_total(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, Segment=0),
        "ValidationException",
        "The TotalSegments parameter is required but was not present in the request when Segment parameter is "
        "present",  # AWS's words (tests/aws_differences.py)
    )


def test_total_without_segment(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, TotalSegments=2),
        "ValidationException",
        "The Segment parameter is required but was not present in the request when parameter TotalSegments is "
        "present",
    )


def test_segment_not_below_total(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, Segment=2, TotalSegments=2),
        "ValidationException",
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 is not less "
        "than TotalSegments: 2",
    )


def test_total_segments_too_large(client, fifty):
    assert_client_error(
        lambda: client.scan(TableName=fifty, Segment=0, TotalSegments=1000001),
        "ValidationException",
        "1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have "
        "value less than or equal to 1000000",
    )


# -- 1 MB page ---------------------------------------------------------------------------------------------------


def test_scan_page_stops_once_1mb_is_reached(client, num_range_table):
    for i in range(1, 7):
        client.put_item(
            TableName=num_range_table,
            Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "d": {"S": "x" * (262144 - 8)}},
        )
    result = client.scan(TableName=num_range_table, ProjectionExpression="sk")
    assert values(result["Items"], "sk") == ["1", "2", "3", "4"]
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "4"}}


def test_scan_1mb_page_counts_filtered_items(client, num_range_table):
    for i in range(1, 10):
        client.put_item(
            TableName=num_range_table,
            Item={
                "pk": {"S": "p"},
                "sk": {"N": str(i)},
                "f": {"N": str(i % 2)},
                "d": {"S": "x" * (262144 - 16)},
            },
        )
    result = client.scan(
        TableName=num_range_table,
        ProjectionExpression="sk",
        FilterExpression="f = :zero",
        ExpressionAttributeValues={":zero": {"N": "0"}},
    )
    assert values(result["Items"], "sk") == ["2", "4"]
    assert result["ScannedCount"] == 5
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "5"}}


# -- indexes -----------------------------------------------------------------------------------------------------


@pytest.fixture
def indexed(client, make_table):
    table = make_table(
        ("pk:S", "sk:N"),
        gsis=[gsi("byG", "g:S", "gs:N"), gsi("byGK", "g:S", projection="KEYS_ONLY")],
        lsis=[lsi("byL", "l:N", projection=["a"])],
    )
    for i in range(6):
        item = {"pk": {"S": f"p{i % 2}"}, "sk": {"N": str(i)}, "a": {"S": f"a{i}"}, "b": {"S": f"b{i}"}}
        if i < 4:
            item.update({"g": {"S": f"G{i % 2}"}, "gs": {"N": str(i)}, "l": {"N": str(i)}})
        client.put_item(TableName=table, Item=item)
    return table


def test_scan_gsi(client, indexed):
    result = client.scan(TableName=indexed, IndexName="byG")
    assert result["Count"] == 4
    assert sorted(values(result["Items"], "sk")) == ["0", "1", "2", "3"]
    assert set(result["Items"][0]) == {"pk", "sk", "g", "gs", "a", "b", "l"}


def test_scan_gsi_keys_only(client, indexed):
    items = sorted_items(client.scan(TableName=indexed, IndexName="byGK")["Items"], "sk")
    assert items == [
        {"pk": {"S": f"p{i % 2}"}, "sk": {"N": str(i)}, "g": {"S": f"G{i % 2}"}} for i in range(4)
    ]


def test_scan_gsi_paging(client, indexed):
    first = client.scan(TableName=indexed, IndexName="byG", Limit=3)
    assert set(first["LastEvaluatedKey"]) == {"pk", "sk", "g", "gs"}
    rest = scan_all(client, TableName=indexed, IndexName="byG", ExclusiveStartKey=first["LastEvaluatedKey"])
    assert sorted(values(first["Items"] + rest, "sk")) == ["0", "1", "2", "3"]


def test_scan_gsi_within_index_partition_ordered(client, indexed):
    items = client.scan(TableName=indexed, IndexName="byG")["Items"]
    for g in ("G0", "G1"):
        gs = [i["gs"]["N"] for i in items if i["g"]["S"] == g]
        assert gs == sorted(gs, key=int)


def test_scan_gsi_consistent_read_rejected(client, indexed):
    assert_client_error(
        lambda: client.scan(TableName=indexed, IndexName="byG", ConsistentRead=True),
        "ValidationException",
        "Consistent reads are not supported on global secondary indexes",
    )


def test_scan_lsi(client, indexed):
    result = client.scan(TableName=indexed, IndexName="byL")
    assert sorted_items(result["Items"], "sk") == [
        {"pk": {"S": f"p{i % 2}"}, "sk": {"N": str(i)}, "l": {"N": str(i)}, "a": {"S": f"a{i}"}}
        for i in range(4)
    ]


def test_scan_lsi_paging(client, indexed):
    first = client.scan(TableName=indexed, IndexName="byL", Limit=1)
    assert set(first["LastEvaluatedKey"]) == {"pk", "sk", "l"}
    rest = scan_all(client, TableName=indexed, IndexName="byL", ExclusiveStartKey=first["LastEvaluatedKey"])
    assert sorted(values(first["Items"] + rest, "sk")) == ["0", "1", "2", "3"]


def test_scan_gsi_select_all_projected(client, indexed):
    items = client.scan(TableName=indexed, IndexName="byGK", Select="ALL_PROJECTED_ATTRIBUTES")["Items"]
    assert all(set(i) == {"pk", "sk", "g"} for i in items)


def test_scan_gsi_filter_on_projected_attribute(client, indexed):
    result = client.scan(
        TableName=indexed,
        IndexName="byG",
        FilterExpression="a = :a",
        ExpressionAttributeValues={":a": {"S": "a2"}},
    )
    assert values(result["Items"], "sk") == ["2"]
    assert result["ScannedCount"] == 4
