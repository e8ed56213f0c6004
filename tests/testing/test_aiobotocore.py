"""mock_dynamodb answers aiobotocore's clients too: the same hook, the response awaited where botocore reads it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ddb_helpers import table_request
from dynabase.testing import mock_dynamodb


def _aiobotocore_or_reason() -> str | None:
    """Why aiobotocore's tests cannot run with the botocore installed, or None. Each aiobotocore pins a narrow
    botocore range, so ``[test]`` does not install it (it would move the user's botocore); ``python
    dev/compat.py --ends aiobotocore`` runs these tests with the newest aiobotocore and its botocore."""
    from importlib import metadata

    from packaging.requirements import Requirement

    try:
        requires = metadata.requires("aiobotocore") or []
    except metadata.PackageNotFoundError:
        return "aiobotocore is not installed (python dev/compat.py --ends aiobotocore runs these tests)"
    botocore_version = metadata.version("botocore")
    for text in requires:
        requirement = Requirement(text)
        if (
            requirement.name == "botocore"
            and requirement.marker is None
            and not requirement.specifier.contains(botocore_version, prereleases=True)
        ):
            return (
                f"aiobotocore {metadata.version('aiobotocore')} needs botocore{requirement.specifier}; "
                f"botocore {botocore_version} is installed"
            )
    return None


_reason = _aiobotocore_or_reason()
if _reason is not None:
    pytest.skip(_reason, allow_module_level=True)
aiobotocore_session = pytest.importorskip("aiobotocore.session")

TABLE = table_request("aio-orders", ("pk:S", "sk:S"), stream="NEW_IMAGE")


async def _scenario() -> dict[str, Any]:
    out: dict[str, Any] = {}
    session = aiobotocore_session.get_session()
    async with session.create_client("dynamodb", region_name="us-east-1") as client:
        await client.create_table(**TABLE)
        waiter = client.get_waiter("table_exists")
        await waiter.wait(TableName="aio-orders", WaiterConfig={"Delay": 0.01, "MaxAttempts": 2})
        for i in range(7):
            await client.put_item(
                TableName="aio-orders", Item={"pk": {"S": "c1"}, "sk": {"S": f"o{i}"}, "n": {"N": str(i)}}
            )
        got = await client.get_item(TableName="aio-orders", Key={"pk": {"S": "c1"}, "sk": {"S": "o3"}})
        out["get"] = got["Item"]
        page = await client.query(
            TableName="aio-orders",
            KeyConditionExpression="pk = :p AND sk > :s",
            ExpressionAttributeValues={":p": {"S": "c1"}, ":s": {"S": "o4"}},
        )
        out["query"] = [item["sk"]["S"] for item in page["Items"]]
        paginator = client.get_paginator("query")
        pages = paginator.paginate(
            TableName="aio-orders",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "c1"}},
            Limit=3,
        )
        out["pages"] = [[item["sk"]["S"] for item in page["Items"]] async for page in pages]
        try:
            await client.put_item(
                TableName="aio-orders",
                Item={"pk": {"S": "c1"}, "sk": {"S": "o1"}},
                ConditionExpression="attribute_not_exists(pk)",
            )
        except client.exceptions.ConditionalCheckFailedException as error:
            out["error"] = (
                error.response["Error"]["Code"],
                error.response["ResponseMetadata"]["HTTPStatusCode"],
            )
        arn = (await client.describe_table(TableName="aio-orders"))["Table"]["LatestStreamArn"]
    async with session.create_client("dynamodbstreams", region_name="us-east-1") as streams:
        shard = (await streams.describe_stream(StreamArn=arn))["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = (
            await streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        )["ShardIterator"]
        out["records"] = len((await streams.get_records(ShardIterator=iterator))["Records"])
    return out


def test_aiobotocore_put_get_query_paginator_exception() -> None:
    with mock_dynamodb():
        out = asyncio.run(_scenario())
    assert out["get"] == {"pk": {"S": "c1"}, "sk": {"S": "o3"}, "n": {"N": "3"}}
    assert out["query"] == ["o5", "o6"]
    assert out["pages"] == [["o0", "o1", "o2"], ["o3", "o4", "o5"], ["o6"]]
    assert out["error"] == ("ConditionalCheckFailedException", 400)
    assert out["records"] == 7


def test_aiobotocore_under_the_decorator_on_a_coroutine() -> None:
    @mock_dynamodb
    async def scenario() -> list[str]:
        async with aiobotocore_session.get_session().create_client("dynamodb", region_name="eu-west-1") as c:
            await c.create_table(**{**TABLE, "TableName": "decorated"})
            return (await c.list_tables())["TableNames"]

    assert asyncio.run(scenario()) == ["decorated"]


def test_botocore_still_reads_plain_bytes() -> None:
    import boto3

    with mock_dynamodb():
        client = boto3.client("dynamodb", region_name="us-east-1")
        seen: list[Any] = []
        client.meta.events.register(
            "after-call.dynamodb.ListTables", lambda http_response, **_: seen.append(http_response)
        )
        client.list_tables()
    (response,) = seen
    assert isinstance(response.content, bytes) and response.content.startswith(b"{")
    assert response.text.startswith("{")
