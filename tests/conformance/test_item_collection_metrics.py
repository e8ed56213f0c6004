"""``ReturnItemCollectionMetrics: SIZE``: the item collection's key and size estimate, for tables with local
secondary indexes (AWS DynamoDB; DynamoDB Local never returns them)."""

from __future__ import annotations

import pytest

from ddb_helpers import lsi

REF = (
    "DynamoDB API reference, PutItem/UpdateItem/DeleteItem/BatchWriteItem/TransactWriteItems: "
    "ItemCollectionMetrics 'is only returned if the ReturnItemCollectionMetrics parameter was specified. If the "
    "table does not have any local secondary indexes, this information is not returned'"
)
AWS_ONLY = pytest.mark.aws_only(reason="DynamoDB Local returns no ItemCollectionMetrics", ref=REF)


def key(pk, sk="1"):
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def metrics(pk):
    return {"ItemCollectionKey": {"pk": {"S": pk}}, "SizeEstimateRangeGB": [0.0, 1.0]}


@pytest.fixture
def lsi_table(make_table):
    return make_table(("pk:S", "sk:S"), lsis=[lsi("byL", "l:S")])


@AWS_ONLY
def test_single_item_writes(client, lsi_table):
    sized = {"TableName": lsi_table, "ReturnItemCollectionMetrics": "SIZE"}
    put = client.put_item(Item={**key("a"), "l": {"S": "x"}}, **sized)
    assert put["ItemCollectionMetrics"] == metrics("a")
    update = client.update_item(
        Key=key("a"), UpdateExpression="SET z = :v", ExpressionAttributeValues={":v": {"S": "q"}}, **sized
    )
    assert update["ItemCollectionMetrics"] == metrics("a")
    assert client.delete_item(Key=key("a"), **sized)["ItemCollectionMetrics"] == metrics("a")


@AWS_ONLY
def test_batch_and_transaction(client, lsi_table):
    writes = [{"PutRequest": {"Item": key(pk, sk)}} for pk, sk in (("a", "1"), ("a", "2"), ("b", "1"))]
    response = client.batch_write_item(RequestItems={lsi_table: writes}, ReturnItemCollectionMetrics="SIZE")
    assert response["ItemCollectionMetrics"] == {lsi_table: [metrics("a"), metrics("b")]}
    response = client.transact_write_items(
        TransactItems=[{"Put": {"TableName": lsi_table, "Item": key("c")}}],
        ReturnItemCollectionMetrics="SIZE",
    )
    assert response["ItemCollectionMetrics"] == {lsi_table: [metrics("c")]}


def test_none_without_local_indexes_or_unasked(client, make_table, lsi_table):
    plain = make_table(("pk:S", "sk:S"))
    assert "ItemCollectionMetrics" not in client.put_item(
        TableName=plain, Item=key("a"), ReturnItemCollectionMetrics="SIZE"
    )
    assert "ItemCollectionMetrics" not in client.put_item(TableName=lsi_table, Item=key("a"))
    assert "ItemCollectionMetrics" not in client.put_item(
        TableName=lsi_table, Item=key("a"), ReturnItemCollectionMetrics="NONE"
    )
