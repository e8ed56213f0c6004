"""Stream records and context as Lambda's event source mapping hands them over: the context's function ARN,
and, where the record comes from the engine, TTL deletes (``userIdentity`` in Lambda's spelling, so that
AWS's documented TTL filter matches them).

DynamoDB Local deletes expired items on a schedule of its own and records them without ``userIdentity``
(``tests/aws_differences.py``, "TTL deletes in the stream"), so these run where dynabase's engine sweeps:
embedded, ``dynabase serve`` and the lean client.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from aws_differences import behaviour
from dynabase.streams import Consumer, LambdaContext, Options

TTL = behaviour("TTL deletes in the stream")
#: the DynamoDB developer guide's Lambda filter for TTL deletes (time-to-live-ttl-streams, "Using DynamoDB
#: Streams and Lambda to archive TTL deleted items")
TTL_FILTER = {"userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}}
SERVICE = {"principalId": "dynamodb.amazonaws.com", "type": "Service"}


@pytest.fixture
def engine(client: Any, backend: Any) -> Any:
    engine = getattr(client, "engine", None) or backend.served_engine
    if engine is None:
        pytest.skip(f"AWS-only: Local {TTL.local} (ref: {TTL.ref})")
    return engine


def test_ttl_deletes_reach_the_handler_as_lambda_delivers_them(client, streams_client, make_table, engine):
    table = make_table(("pk:S",), stream="NEW_AND_OLD_IMAGES")
    client.update_time_to_live(
        TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}
    )
    now = int(time.time())
    client.put_item(TableName=table, Item={"pk": {"S": "expired"}, "exp": {"N": str(now - 60)}})
    client.put_item(TableName=table, Item={"pk": {"S": "kept"}, "exp": {"N": str(now + 3600)}})
    client.put_item(TableName=table, Item={"pk": {"S": "deleted"}})
    client.delete_item(TableName=table, Key={"pk": {"S": "deleted"}})
    assert engine.sweep_expired() == 1

    def run(name: str, **options: Any) -> list[dict]:
        seen: list[dict] = []
        Consumer.for_table(
            client,
            table,
            lambda event, context: seen.extend(event["Records"]),
            streams=streams_client,
            options=Options(poll_interval=0.05, **options),
            name=name,
        ).run(until_idle=True)
        return seen

    removes = {
        r["dynamodb"]["Keys"]["pk"]["S"]: r.get("userIdentity")
        for r in run("all")
        if r["eventName"] == "REMOVE"
    }
    assert removes == {"deleted": None, "expired": SERVICE}
    ttl_only = run("ttl", filters=[TTL_FILTER])
    assert [(r["dynamodb"]["Keys"]["pk"]["S"], r["userIdentity"]) for r in ttl_only] == [("expired", SERVICE)]


@pytest.mark.parametrize(
    "name, stream, arn",
    [
        (
            "handlers:on_order",
            "arn:aws:dynamodb:eu-west-1:123456789012:table/orders/stream/2026-11-28T10:00:00.000",
            "arn:aws:lambda:eu-west-1:123456789012:function:handlers-on_order",
        ),
        (
            "dynabase.streams.metrics:emf",
            "arn:aws-cn:dynamodb:cn-north-1:123456789012:table/t/stream/2026-11-28T10:00:00.000",
            "arn:aws-cn:lambda:cn-north-1:123456789012:function:dynabase-streams-metrics-emf",
        ),
        ("x" * 80, None, "arn:aws:lambda:us-east-1:000000000000:function:" + "x" * 64),
        ("", "not an arn", "arn:aws:lambda:us-east-1:000000000000:function:consumer"),
        (
            "c",
            "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2026-11-28T10:00:00.000",
            "arn:aws:lambda:us-east-1:000000000000:function:c",
        ),
    ],
)
def test_the_context_names_a_real_lambda_function_arn(name, stream, arn):
    """Lambda's ARN shape, arn:PARTITION:lambda:REGION:ACCOUNT:function:NAME, NAME of 1 to 64 letters, digits,
    '-' and '_' (the Lambda API reference: FunctionName's pattern and "limited to 64 characters")."""
    context = LambdaContext(name, None, stream_arn=stream)
    assert context.invoked_function_arn == arn
    assert context.function_name == arn.rsplit(":", 1)[1]
    assert context.log_group_name == f"/aws/lambda/{context.function_name}"
