"""The churn the concurrency tests run: random control- and data-plane calls on a few table names.

Imported by the tests and by the processes they start (run as ``python churn.py DB SEED SECONDS``).
"""

from __future__ import annotations

import random
import sys
import time


def churn(client, seed, seconds, names):
    """Random control- and data-plane calls on a few table names; returns {outcome: count}."""
    from botocore.exceptions import ClientError

    rng = random.Random(seed)
    outcomes = {}
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        name = rng.choice(names)
        op = rng.choice(OPS)
        n += 1
        try:
            op(client, name, rng, n)
            key = "ok"
        except ClientError as error:
            key = error.response["Error"]["Code"] + ": " + error.response["Error"]["Message"]
        except Exception as error:  # anything else is a finding: keep its type and text
            key = f"{type(error).__module__}.{type(error).__name__}: {error}"
        outcomes[key] = outcomes.get(key, 0) + 1
    return outcomes


def create(client, name, rng, n):
    spec = dict(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    if rng.random() < 0.5:
        spec["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    client.create_table(**spec)


def put(client, name, rng, n):
    client.put_item(
        TableName=name, Item={"pk": {"S": f"p{n % 3}"}, "sk": {"S": str(n)}, "g": {"S": "x"}, "h": {"S": "y"}}
    )


def update(client, name, rng, n):
    client.update_item(
        TableName=name,
        Key={"pk": {"S": "p0"}, "sk": {"S": "counter"}},
        UpdateExpression="ADD hits :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )


def get(client, name, rng, n):
    client.get_item(TableName=name, Key={"pk": {"S": "p1"}, "sk": {"S": str(n)}})


def query(client, name, rng, n):
    client.query(
        TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p2"}}
    )


def query_index(client, name, rng, n):
    client.query(
        TableName=name,
        IndexName="by-g",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "x"}},
        Limit=5,
    )


def scan(client, name, rng, n):
    client.scan(TableName=name, Limit=10)


def batch(client, name, rng, n):
    client.batch_write_item(
        RequestItems={
            name: [{"PutRequest": {"Item": {"pk": {"S": "p1"}, "sk": {"S": f"b{n}-{i}"}}}} for i in range(3)]
        }
    )
    client.batch_get_item(RequestItems={name: {"Keys": [{"pk": {"S": "p1"}, "sk": {"S": f"b{n}-0"}}]}})


def transact(client, name, rng, n):
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": name, "Item": {"pk": {"S": "p2"}, "sk": {"S": f"t{n}"}}}},
            {
                "Update": {
                    "TableName": name,
                    "Key": {"pk": {"S": "p2"}, "sk": {"S": "total"}},
                    "UpdateExpression": "ADD n :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            },
        ]
    )


def describe(client, name, rng, n):
    client.describe_table(TableName=name)


def list_tables(client, name, rng, n):
    client.list_tables()


def toggle_index(client, name, rng, n):
    """Add the GSI ``by-h`` when the table lacks it, else delete it."""
    indexes = client.describe_table(TableName=name)["Table"].get("GlobalSecondaryIndexes", [])
    if any(i["IndexName"] == "by-h" for i in indexes):
        client.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by-h"}}])
        return
    client.update_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "h", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "by-h",
                    "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            }
        ],
    )


def delete(client, name, rng, n):
    client.delete_table(TableName=name)


# DDL a little less often than the data plane, so tables live long enough to be used
OPS = [
    create,
    create,
    put,
    put,
    update,
    get,
    get,
    query,
    query_index,
    scan,
    batch,
    transact,
    describe,
    list_tables,
    toggle_index,
    delete,
]


if __name__ == "__main__":
    import json

    import dynabase

    client = dynabase.connect(sys.argv[1])
    print(json.dumps(churn(client, int(sys.argv[2]), float(sys.argv[3]), sys.argv[4].split(","))))
    client.close()
