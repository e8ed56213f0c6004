"""boto3 against ``dynabase serve``: operations, binary keys/values and sets, errors, response framing."""

from __future__ import annotations

import datetime
import zlib
from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ClientError

from .helpers import boto_client, raw_request

BINARY_ITEM = {
    "pk": {"B": b"\x00\x01\xfe\xff"},
    "sk": {"B": b"sort\x00key"},
    "blob": {"B": bytes(range(256))},
    "blobs": {"BS": [b"\x00", b"\x01\x02", b"\xff" * 7]},
    "doc": {
        "M": {
            "inner": {"L": [{"B": b"deep\x00"}, {"BS": [b"x", b"y"]}, {"S": "text"}]},
            "more": {"M": {"b": {"B": b"\x80"}}},
        }
    },
    "strings": {"SS": ["a", "b", "B", "\u00e9\u4e2d"]},
    "numbers": {"NS": ["1", "-2.5", "10000000000"]},
    "flag": {"BOOL": True},
    "nothing": {"NULL": True},
    "B": {"S": "an attribute named B"},
}


def _normalise(value: Any, times: bool = True) -> Any:
    """Responses compared across clients: sets order-free, timestamps as epoch seconds (or dropped), no
    metadata."""
    if isinstance(value, dict):
        out = {}
        for key, inner in value.items():
            if key == "ResponseMetadata" or (not times and isinstance(inner, datetime.datetime)):
                continue
            if key in ("SS", "NS", "BS") and isinstance(inner, list):
                out[key] = sorted(inner, key=repr)
            else:
                out[key] = _normalise(inner, times)
        return out
    if isinstance(value, list):
        return [_normalise(v, times) for v in value]
    if isinstance(value, datetime.datetime):
        return round(value.timestamp(), 3)
    return value


def test_tables_round_trip(ddb: Any, make_table: Any) -> None:
    name = make_table(("pk:S", "sk:N"))
    assert name in ddb.list_tables()["TableNames"]
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["TableName"] == name
    assert table["TableStatus"] == "ACTIVE"
    assert isinstance(table["CreationDateTime"], datetime.datetime)
    assert {k["AttributeName"]: k["KeyType"] for k in table["KeySchema"]} == {"pk": "HASH", "sk": "RANGE"}
    assert isinstance(table["ItemCount"], int)


def test_binary_keys_values_and_sets_round_trip(ddb: Any, make_table: Any) -> None:
    name = make_table(("pk:B", "sk:B"))
    ddb.put_item(TableName=name, Item=BINARY_ITEM)
    got = ddb.get_item(
        TableName=name, Key={"pk": BINARY_ITEM["pk"], "sk": BINARY_ITEM["sk"]}, ConsistentRead=True
    )
    assert _normalise(got["Item"]) == _normalise(BINARY_ITEM)
    assert isinstance(got["Item"]["blob"]["B"], bytes)


def test_binary_query_scan_update_delete(ddb: Any, make_table: Any) -> None:
    name = make_table(("pk:B", "sk:B"))
    for n in range(5):
        ddb.put_item(
            TableName=name,
            Item={"pk": {"B": b"\x00p"}, "sk": {"B": bytes([n, 0xFF])}, "v": {"B": bytes([n])}},
        )
    page = ddb.query(
        TableName=name,
        KeyConditionExpression="pk = :p AND sk >= :s",
        ExpressionAttributeValues={":p": {"B": b"\x00p"}, ":s": {"B": b"\x02"}},
    )
    assert [i["sk"]["B"] for i in page["Items"]] == [b"\x02\xff", b"\x03\xff", b"\x04\xff"]
    assert page["Count"] == 3
    scan = ddb.scan(TableName=name)
    assert sorted(i["v"]["B"] for i in scan["Items"]) == [bytes([n]) for n in range(5)]
    updated = ddb.update_item(
        TableName=name,
        Key={"pk": {"B": b"\x00p"}, "sk": {"B": b"\x01\xff"}},
        UpdateExpression="SET extra = :b ADD bag :bs",
        ReturnValues="ALL_NEW",
        ExpressionAttributeValues={":b": {"B": b"\xde\xad"}, ":bs": {"BS": [b"\x01", b"\x02"]}},
    )["Attributes"]
    assert updated["extra"] == {"B": b"\xde\xad"}
    assert sorted(updated["bag"]["BS"]) == [b"\x01", b"\x02"]
    old = ddb.delete_item(
        TableName=name, Key={"pk": {"B": b"\x00p"}, "sk": {"B": b"\x01\xff"}}, ReturnValues="ALL_OLD"
    )["Attributes"]
    assert old["extra"] == {"B": b"\xde\xad"}
    # pagination keys carry binaries too
    first = ddb.query(
        TableName=name,
        KeyConditionExpression="pk = :p",
        Limit=2,
        ExpressionAttributeValues={":p": {"B": b"\x00p"}},
    )
    assert first["LastEvaluatedKey"]["sk"]["B"] == first["Items"][-1]["sk"]["B"]
    rest = ddb.query(
        TableName=name,
        KeyConditionExpression="pk = :p",
        ExclusiveStartKey=first["LastEvaluatedKey"],
        ExpressionAttributeValues={":p": {"B": b"\x00p"}},
    )
    assert len(first["Items"]) + len(rest["Items"]) == 4


def test_gsi_query_with_binary_index_key(ddb: Any, make_table: Any) -> None:
    name = make_table(("pk:S",), gsi=("tag:B",))
    for n in range(4):
        ddb.put_item(TableName=name, Item={"pk": {"S": f"p{n}"}, "tag": {"B": b"\x01" if n % 2 else b"\x02"}})
    page = ddb.query(
        TableName=name,
        IndexName="gsi",
        KeyConditionExpression="tag = :t",
        ExpressionAttributeValues={":t": {"B": b"\x01"}},
    )
    assert sorted(i["pk"]["S"] for i in page["Items"]) == ["p1", "p3"]


def test_errors_are_botocore_client_errors(ddb: Any, make_table: Any) -> None:
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.get_item(TableName="no-such-table", Key={"pk": {"S": "x"}})
    name = make_table(("pk:B",))
    ddb.put_item(TableName=name, Item={"pk": {"B": b"\x00"}, "v": {"B": b"\x01"}})
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as caught:
        ddb.put_item(
            TableName=name,
            Item={"pk": {"B": b"\x00"}},
            ConditionExpression="attribute_not_exists(pk)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    error = caught.value.response
    assert error["Error"]["Code"] == "ConditionalCheckFailedException"
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
    if "Item" in error:  # the old item rides on the error, binaries and all
        assert error["Item"]["v"] == {"B": b"\x01"}
    with pytest.raises(ClientError) as caught:
        ddb.put_item(TableName=name, Item={"pk": {"S": "wrong key type"}})
    assert caught.value.response["Error"]["Code"] == "ValidationException"


def test_batch_and_transactions(ddb: Any, make_table: Any) -> None:
    name = make_table(("pk:B",))
    ddb.batch_write_item(
        RequestItems={
            name: [
                {"PutRequest": {"Item": {"pk": {"B": bytes([n])}, "v": {"BS": [b"a"]}}}} for n in range(10)
            ]
        }
    )
    got = ddb.batch_get_item(RequestItems={name: {"Keys": [{"pk": {"B": bytes([n])}} for n in range(10)]}})
    assert sorted(i["pk"]["B"] for i in got["Responses"][name]) == [bytes([n]) for n in range(10)]
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": name, "Item": {"pk": {"B": b"\xf0"}, "v": {"B": b"t"}}}},
            {
                "Update": {
                    "TableName": name,
                    "Key": {"pk": {"B": b"\x00"}},
                    "UpdateExpression": "SET w = :w",
                    "ExpressionAttributeValues": {":w": {"B": b"\x99"}},
                }
            },
        ]
    )
    with pytest.raises(ddb.exceptions.TransactionCanceledException) as caught:
        ddb.transact_write_items(
            TransactItems=[
                {
                    "Put": {
                        "TableName": name,
                        "Item": {"pk": {"B": b"\xf0"}},
                        "ConditionExpression": "attribute_not_exists(pk)",
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    }
                },
            ]
        )
    (reason,) = caught.value.response["CancellationReasons"]
    assert reason["Code"] == "ConditionalCheckFailed" and reason["Item"]["v"] == {"B": b"t"}
    got = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": name, "Key": {"pk": {"B": b"\x00"}}}}])
    assert got["Responses"][0]["Item"]["w"] == {"B": b"\x99"}


def test_same_answers_as_the_embedded_client(server: str) -> None:
    """The same calls through HTTP and in process give the same responses (binaries, numbers, timestamps)."""
    import dynabase

    over_http = boto_client(server)
    embedded = dynabase.connect(":memory:")
    try:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("put_item", {"Item": BINARY_ITEM, "ReturnConsumedCapacity": "TOTAL"}),
            ("put_item", {"Item": {**BINARY_ITEM, "sk": {"B": b"\x02"}, "n": {"N": "12.50"}}}),
            (
                "get_item",
                {
                    "Key": {"pk": BINARY_ITEM["pk"], "sk": BINARY_ITEM["sk"]},
                    "ReturnConsumedCapacity": "TOTAL",
                },
            ),
            (
                "get_item",
                {
                    "Key": {"pk": BINARY_ITEM["pk"], "sk": BINARY_ITEM["sk"]},
                    "ProjectionExpression": "#b, doc.#i[0]",
                    "ExpressionAttributeNames": {"#b": "blob", "#i": "inner"},
                },
            ),
            (
                "query",
                {
                    "KeyConditionExpression": "pk = :p",
                    "ExpressionAttributeValues": {":p": BINARY_ITEM["pk"]},
                    "ReturnConsumedCapacity": "INDEXES",
                },
            ),
            ("scan", {"Select": "COUNT"}),
            (
                "update_item",
                {
                    "Key": {"pk": BINARY_ITEM["pk"], "sk": {"B": b"\x02"}},
                    "ReturnValues": "UPDATED_NEW",
                    "UpdateExpression": "SET n = n + :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                },
            ),
            (
                "delete_item",
                {"Key": {"pk": BINARY_ITEM["pk"], "sk": {"B": b"\x02"}}, "ReturnValues": "ALL_OLD"},
            ),
        ]
        for client in (over_http, embedded):
            client.create_table(
                TableName="same-answers",
                BillingMode="PAY_PER_REQUEST",
                KeySchema=[
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"},
                ],
                AttributeDefinitions=[
                    {"AttributeName": "pk", "AttributeType": "B"},
                    {"AttributeName": "sk", "AttributeType": "B"},
                ],
            )
        for method, params in calls:
            http_answer = getattr(over_http, method)(TableName="same-answers", **params)
            embedded_answer = getattr(embedded, method)(TableName="same-answers", **params)
            assert _normalise(http_answer) == _normalise(embedded_answer), method
        http_table = _normalise(over_http.describe_table(TableName="same-answers")["Table"], times=False)
        embedded_table = _normalise(embedded.describe_table(TableName="same-answers")["Table"], times=False)
        for volatile in ("TableArn", "TableId"):
            http_table.pop(volatile, None)
            embedded_table.pop(volatile, None)
        assert http_table == embedded_table
    finally:
        over_http.delete_table(TableName="same-answers")
        embedded.close()


def test_response_framing(server: str) -> None:
    response = raw_request(server)
    assert response.status == 200
    assert response.headers["content-type"] == "application/x-amz-json-1.0"
    assert int(response.headers["x-amz-crc32"]) == zlib.crc32(response.body)
    assert len(response.headers["x-amzn-requestid"]) == 36
    assert response.headers["content-length"] == str(len(response.body))
    other = raw_request(server)
    assert other.headers["x-amzn-requestid"] != response.headers["x-amzn-requestid"]


def test_numbers_are_json_numbers_where_the_model_says_so(server: str, make_table: Any) -> None:
    name = make_table(("pk:S",))
    body = raw_request(server, "DynamoDB_20120810.DescribeTable", f'{{"TableName":"{name}"}}'.encode()).json()
    table = body["Table"]
    assert isinstance(table["CreationDateTime"], (int, float))
    assert isinstance(table["ItemCount"], int) and not isinstance(table["ItemCount"], bool)
    assert isinstance(table["TableSizeBytes"], int)
    put = raw_request(
        server,
        "DynamoDB_20120810.PutItem",
        f'{{"TableName":"{name}","Item":{{"pk":{{"S":"a"}}}},"ReturnConsumedCapacity":"TOTAL"}}'.encode(),
    ).json()
    assert isinstance(put["ConsumedCapacity"]["CapacityUnits"], (int, float))


def test_resource_and_streams_clients_work(server: str, make_table: Any) -> None:
    import boto3

    name = make_table(("pk:S",))
    resource = boto3.resource(
        "dynamodb",
        endpoint_url=server,
        region_name="us-east-1",
        aws_access_key_id="fake",
        aws_secret_access_key="fake",
    )
    table = resource.Table(name)
    table.put_item(Item={"pk": "r1", "amount": Decimal("12.5"), "raw": b"\x00\x01", "tags": {"x", "y"}})
    item = table.get_item(Key={"pk": "r1"})["Item"]
    assert item["amount"] == Decimal("12.5")
    assert item["raw"].value == b"\x00\x01"
    assert item["tags"] == {"x", "y"}
    assert "Streams" in boto_client(server, "dynamodbstreams").list_streams()


def test_stream_records_carry_binaries(server: str, ddb: Any) -> None:
    name = "streamed-binaries"
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "B"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    try:
        ddb.put_item(TableName=name, Item={"pk": {"B": b"\x00\xff"}, "v": {"BS": [b"\x01"]}})
        streams = boto_client(server, "dynamodbstreams")
        arn = streams.list_streams(TableName=name)["Streams"][0]["StreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")[
            "ShardIterator"
        ]
        records = streams.get_records(ShardIterator=iterator)["Records"]
        image = records[0]["dynamodb"]["NewImage"]
        assert image == {"pk": {"B": b"\x00\xff"}, "v": {"BS": [b"\x01"]}}
        assert records[0]["dynamodb"]["Keys"] == {"pk": {"B": b"\x00\xff"}}
        assert isinstance(records[0]["dynamodb"]["ApproximateCreationDateTime"], datetime.datetime)
    finally:
        ddb.delete_table(TableName=name)
