"""Stream records as Lambda's event source mapping hands them over, where the record comes from the engine:
TTL deletes (``userIdentity`` in Lambda's spelling, so that AWS's documented TTL filter matches them).

DynamoDB Local deletes expired items on a schedule of its own and records them without ``userIdentity``
(``tests/aws_differences.py``, "TTL deletes in the stream"), so these run where dynabase's engine sweeps:
embedded, ``dynabase serve`` and the lean client.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from aws_differences import behaviour
from dynabase.streams import Consumer, Options

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
