"""mock_dynamodb(): boto3 (client, resource, streams) answered in process, everything above HTTP unchanged."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import unittest
from decimal import Decimal
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.config import Config
from botocore.exceptions import ClientError, EndpointConnectionError, ParamValidationError

import dynabase
from dynabase.testing import mock_dynamodb
from dynabase.testing.mock import MockDynamoDB, patch_client

KEYS = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def make_orders(client: Any, name: str = "orders", **extra: Any) -> None:
    client.create_table(TableName=name, **KEYS, **extra)


def test_lazy_public_name() -> None:
    assert dynabase.mock_dynamodb is mock_dynamodb


def test_client_round_trip_and_errors() -> None:
    with mock_dynamodb():
        client = boto3.client("dynamodb")
        make_orders(client)
        client.put_item(TableName="orders", Item={"pk": {"S": "c1"}, "sk": {"S": "o1"}, "n": {"N": "1.50"}})
        item = client.get_item(TableName="orders", Key={"pk": {"S": "c1"}, "sk": {"S": "o1"}})["Item"]
        assert item == {"pk": {"S": "c1"}, "sk": {"S": "o1"}, "n": {"N": "1.5"}}
        with pytest.raises(client.exceptions.ConditionalCheckFailedException) as caught:
            client.put_item(
                TableName="orders",
                Item={"pk": {"S": "c1"}, "sk": {"S": "o1"}},
                ConditionExpression="attribute_not_exists(pk)",
            )
        assert caught.value.response["Error"]["Message"] == "The conditional request failed"
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        with pytest.raises(client.exceptions.ResourceNotFoundException):
            client.get_item(TableName="missing", Key={"pk": {"S": "x"}})
        with pytest.raises(ClientError) as bad:
            client.update_item(
                TableName="orders",
                Key={"pk": {"S": "c1"}, "sk": {"S": "o1"}},
                UpdateExpression="SET n = n + :one",
                ExpressionAttributeValues={},
            )
        assert bad.value.response["Error"]["Code"] == "ValidationException"
        with pytest.raises(ParamValidationError):  # botocore's validation still runs before the send
            client.get_item(TableName="orders")


def test_resource_batch_writer_conditions_paginators_waiters() -> None:
    with mock_dynamodb():
        dynamodb = boto3.resource("dynamodb")
        table = dynamodb.create_table(TableName="orders", **KEYS)
        table.wait_until_exists()
        with table.batch_writer() as batch:
            for i in range(60):
                batch.put_item(Item={"pk": f"c{i % 3}", "sk": f"o{i:03d}", "total": Decimal(i) / 4})
        page = table.query(KeyConditionExpression=Key("pk").eq("c1") & Key("sk").begins_with("o00"))
        assert [it["sk"] for it in page["Items"]] == ["o001", "o004", "o007"]
        big = table.scan(FilterExpression=Attr("total").gte(Decimal(14)))
        assert sorted(it["sk"] for it in big["Items"]) == ["o056", "o057", "o058", "o059"]
        table.update_item(
            Key={"pk": "c0", "sk": "o000"},
            UpdateExpression="SET tags = list_append(if_not_exists(tags, :e), :t)",
            ExpressionAttributeValues={":e": [], ":t": ["new"]},
        )
        assert table.get_item(Key={"pk": "c0", "sk": "o000"})["Item"]["tags"] == ["new"]
        paginator = dynamodb.meta.client.get_paginator("query")
        pages = list(
            paginator.paginate(
                TableName="orders",
                KeyConditionExpression="pk = :p",
                ExpressionAttributeValues={":p": "c2"},  # the resource client serialises
                PaginationConfig={"PageSize": 7},
            )
        )
        assert sum(p["Count"] for p in pages) == 20 and len(pages) == 3
        table.delete()
        dynamodb.meta.client.get_waiter("table_not_exists").wait(TableName="orders")


def test_transactions_and_partiql() -> None:
    with mock_dynamodb():
        client = boto3.client("dynamodb")
        make_orders(client)
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "orders", "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}},
                {"Put": {"TableName": "orders", "Item": {"pk": {"S": "b"}, "sk": {"S": "1"}}}},
            ]
        )
        with pytest.raises(client.exceptions.TransactionCanceledException) as caught:
            client.transact_write_items(
                TransactItems=[
                    {"Put": {"TableName": "orders", "Item": {"pk": {"S": "c"}, "sk": {"S": "1"}}}},
                    {
                        "ConditionCheck": {
                            "TableName": "orders",
                            "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}},
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                ]
            )
        reasons = [r["Code"] for r in caught.value.response["CancellationReasons"]]
        assert reasons == ["None", "ConditionalCheckFailed"]
        rows = client.execute_statement(Statement="SELECT * FROM orders")["Items"]
        assert sorted(r["pk"]["S"] for r in rows) == ["a", "b"]


def test_streams_client() -> None:
    with mock_dynamodb():
        client = boto3.client("dynamodb")
        spec = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
        make_orders(client, StreamSpecification=spec)
        client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "sk": {"S": "1"}})
        client.delete_item(TableName="orders", Key={"pk": {"S": "a"}, "sk": {"S": "1"}})
        streams = boto3.client("dynamodbstreams")
        arn = streams.list_streams(TableName="orders")["Streams"][0]["StreamArn"]
        assert arn.startswith("arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/")
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        records = streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
        assert [r["eventName"] for r in records] == ["INSERT", "REMOVE"]


def test_fresh_state_per_activation_and_decorators() -> None:
    seen: list[list[str]] = []

    @mock_dynamodb
    def bare() -> None:
        client = boto3.client("dynamodb")
        seen.append(client.list_tables()["TableNames"])
        make_orders(client)

    @mock_dynamodb()
    def called() -> None:
        seen.append(boto3.client("dynamodb").list_tables()["TableNames"])

    bare()
    bare()
    called()
    assert seen == [[], [], []]


def test_async_test_function() -> None:
    @mock_dynamodb
    async def coroutine() -> list[str]:
        client = boto3.client("dynamodb")
        make_orders(client)
        await asyncio.sleep(0)
        return client.list_tables()["TableNames"]

    assert asyncio.run(coroutine()) == ["orders"]


@mock_dynamodb
class TestUnittestClass(unittest.TestCase):
    def setUp(self) -> None:
        self.client = boto3.client("dynamodb")
        make_orders(self.client)  # a second test would fail here if state leaked between tests

    def test_one(self) -> None:
        self.client.put_item(TableName="orders", Item={"pk": {"S": "x"}, "sk": {"S": "1"}})
        assert self.client.scan(TableName="orders")["Count"] == 1

    def test_two(self) -> None:
        assert self.client.scan(TableName="orders")["Count"] == 0


@mock_dynamodb
class TestPlainClass:
    def test_one(self) -> None:
        make_orders(boto3.client("dynamodb"))

    def test_two(self) -> None:
        make_orders(boto3.client("dynamodb"))


def test_mock_inactive_outside_and_stop_without_start() -> None:
    mock = MockDynamoDB()
    assert not mock.active
    with pytest.raises(RuntimeError):
        mock.stop()
    with pytest.raises(RuntimeError):
        mock.engine()


def test_regions_and_accounts_are_separate_databases() -> None:
    with mock_dynamodb(accounts={"AKIAOTHER": "210987654321"}) as mock:
        east = boto3.client("dynamodb", region_name="us-east-1")
        west = boto3.client("dynamodb", region_name="eu-west-1")
        make_orders(east)
        assert west.list_tables()["TableNames"] == []
        make_orders(west)
        arn = west.describe_table(TableName="orders")["Table"]["TableArn"]
        assert arn == "arn:aws:dynamodb:eu-west-1:123456789012:table/orders"
        other = boto3.client(
            "dynamodb", aws_access_key_id="AKIAOTHER", aws_secret_access_key="x", region_name="us-east-1"
        )
        numbered = boto3.client(
            "dynamodb", aws_access_key_id="111122223333", aws_secret_access_key="x", region_name="us-east-1"
        )
        assert other.list_tables()["TableNames"] == [] and numbered.list_tables()["TableNames"] == []
        make_orders(numbered)
        assert (
            numbered.describe_table(TableName="orders")["Table"]["TableArn"].split(":")[4] == "111122223333"
        )
        same_account = boto3.client(
            "dynamodb", aws_access_key_id="AKIAANOTHERKEY", aws_secret_access_key="y", region_name="us-east-1"
        )
        assert same_account.list_tables()["TableNames"] == ["orders"]  # the default account's table
        assert mock.engine("eu-west-1").catalog.names() == ["orders"]


def test_no_credentials_needed(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    with mock_dynamodb():
        assert boto3.client("dynamodb").list_tables()["TableNames"] == []
    assert "AWS_ACCESS_KEY_ID" not in os.environ  # the environment is as it was


def test_unsigned_requests_are_refused_as_by_dynamodb_local() -> None:
    from botocore import UNSIGNED

    with mock_dynamodb():
        client = boto3.client("dynamodb", config=Config(signature_version=UNSIGNED))
        with pytest.raises(ClientError) as caught:
            client.list_tables()
        assert caught.value.response["Error"]["Code"] == "MissingAuthenticationToken"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_other_services_pass_through() -> None:
    config = Config(retries={"max_attempts": 1}, connect_timeout=1)
    with mock_dynamodb():
        sts = boto3.client("sts", endpoint_url=f"http://127.0.0.1:{_closed_port()}", config=config)
        with pytest.raises(EndpointConnectionError):  # it really went to the (closed) endpoint
            sts.get_caller_identity()


def test_dynamodb_endpoint_urls_are_answered_too() -> None:
    with mock_dynamodb():
        client = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{_closed_port()}")
        assert client.list_tables()["TableNames"] == []


def test_patch_client_made_before_the_hook() -> None:
    from dynabase.testing.hook import before_send

    client = boto3.client(
        "dynamodb",
        endpoint_url=f"http://127.0.0.1:{_closed_port()}",
        config=Config(retries={"max_attempts": 1}, connect_timeout=1),
        aws_access_key_id="made-early",
        aws_secret_access_key="x",
    )
    for event in ("before-send.dynamodb", "before-send.dynamodb-streams"):
        # as if made before dynabase was imported: neither the built-in nor the default session's registration
        client.meta.events.unregister(event, before_send)
        client.meta.events.unregister(event, unique_id=f"dynabase-mock-{event}")
    with mock_dynamodb():
        with pytest.raises(EndpointConnectionError):
            client.list_tables()
        patch_client(client)
        assert client.list_tables()["TableNames"] == []


def test_requests_from_other_threads() -> None:
    with mock_dynamodb():
        client = boto3.client("dynamodb")
        make_orders(client)

        def write(i: int) -> None:
            client.put_item(TableName="orders", Item={"pk": {"S": f"t{i}"}, "sk": {"S": "1"}})

        threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert client.scan(TableName="orders", Select="COUNT")["Count"] == 8


SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        "User": {
            "pk": {"type": "string", "value": "user#${id}"},
            "sk": {"type": "string", "value": "user#"},
            "id": {"type": "string", "required": True},
            "name": {"type": "string", "required": True},
        }
    },
    "params": {"timestamps": False},
}


def test_entity_layer_with_a_plain_boto3_client() -> None:
    from dynabase.model import Table

    with mock_dynamodb():
        table = Table("app", boto3.client("dynamodb"), SCHEMA)
        table.create_table()
        User = table.model("User")
        User.create({"id": "u1", "name": "Ada"})
        assert User.get({"id": "u1"})["name"] == "Ada"
        with pytest.raises(Exception, match="Conditional create failed"):
            User.create({"id": "u1", "name": "again"})


def test_seeding_tables_schemas_and_files(tmp_path: Any) -> None:
    rows = tmp_path / "orders.jsonl"
    rows.write_text(
        "\n".join(
            json.dumps({"Item": {"pk": {"S": f"c{i}"}, "sk": {"S": "o1"}, "n": {"N": str(i)}}})
            for i in range(5)
        )
        + "\n"
    )
    mock = mock_dynamodb(
        tables=[{"TableName": "orders", **KEYS}], schemas={"app": SCHEMA}, seed=[(rows, "orders")]
    )
    for _ in range(2):  # every activation starts from the seeded state, whatever the last one did
        with mock:
            client = boto3.client("dynamodb")
            assert sorted(client.list_tables()["TableNames"]) == ["app", "orders"]
            assert client.scan(TableName="orders", Select="COUNT")["Count"] == 5
            client.delete_table(TableName="orders")


def test_seed_with_a_bad_line_is_an_error(tmp_path: Any) -> None:
    rows = tmp_path / "orders.jsonl"
    rows.write_text('{"Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}\n{"Item": {"pk": {"N": "oops"}}}\n')
    mock = mock_dynamodb(tables=[{"TableName": "orders", **KEYS}], seed=[(rows, "orders")])
    with pytest.raises(ValueError, match="1 line"), mock:
        pass


def test_db_directory_keeps_the_databases(tmp_path: Any) -> None:
    with mock_dynamodb(db=tmp_path):
        client = boto3.client("dynamodb", region_name="eu-west-1")
        make_orders(client)
        client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "sk": {"S": "1"}})
    path = tmp_path / "123456789012_eu-west-1.db"
    kept = dynabase.connect(str(path))
    assert kept.scan(TableName="orders")["Count"] == 1
    kept.engine.close()
    with mock_dynamodb(db=tmp_path):  # the next run starts fresh again
        assert boto3.client("dynamodb", region_name="eu-west-1").list_tables()["TableNames"] == []


def test_moto_coexists() -> None:
    moto = pytest.importorskip("moto")
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    for order in ("moto-outside", "moto-inside"):
        outer, inner = (moto.mock_aws(), mock_dynamodb())
        if order == "moto-inside":
            outer, inner = inner, outer
        with outer, inner:
            s3 = boto3.client("s3")
            s3.create_bucket(Bucket="reports")
            s3.put_object(Bucket="reports", Key="k", Body=b"v")
            client = boto3.client("dynamodb")
            make_orders(client)
            client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "sk": {"S": "1"}})
            assert client.scan(TableName="orders")["Count"] == 1
            assert s3.get_object(Bucket="reports", Key="k")["Body"].read() == b"v"
            assert not dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].tables  # moto never saw them


@mock_dynamodb
class TestPlainClassWithSetupMethod:
    """setup_method and teardown_method run inside the test's mock."""

    def setup_method(self, method: Any) -> None:
        self.client = boto3.client("dynamodb")
        make_orders(self.client)

    def teardown_method(self, method: Any) -> None:
        assert self.client.list_tables()["TableNames"] == ["orders"]

    def test_one(self) -> None:
        self.client.put_item(TableName="orders", Item={"pk": {"S": "x"}, "sk": {"S": "1"}})

    def test_two(self) -> None:
        assert self.client.scan(TableName="orders")["Count"] == 0


def test_nested_mocks_the_innermost_answers() -> None:
    with mock_dynamodb():
        client = boto3.client("dynamodb")
        make_orders(client)
        with mock_dynamodb():
            assert client.list_tables()["TableNames"] == []
        assert client.list_tables()["TableNames"] == ["orders"]


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="decorates functions and classes"):
        mock_dynamodb(5)
    with pytest.raises(Exception, match="does not exist"), mock_dynamodb(seed=["/nonexistent/rows.jsonl"]):
        pass


def test_seeding_from_an_s3_export(tmp_path: Any) -> None:
    from dynabase.transfer import export_table

    source = dynabase.connect(":memory:")
    make_orders(source)
    for i in range(7):
        source.put_item(
            TableName="orders", Item={"pk": {"S": f"c{i}"}, "sk": {"S": "o"}, "b": {"B": b"\x01"}}
        )
    export_table(source, "orders", tmp_path / "export", format="s3")
    with mock_dynamodb(seed=[tmp_path / "export"]):  # the table is created from the export's description
        client = boto3.client("dynamodb")
        items = client.scan(TableName="orders")["Items"]
        assert len(items) == 7 and items[0]["b"] == {"B": b"\x01"}
