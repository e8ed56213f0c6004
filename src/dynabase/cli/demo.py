"""``dynabase demo``: create a table in a database file, write, query and print — the embedded engine at work."""

from __future__ import annotations

import argparse
from typing import Any

TABLE = "demo-orders"


def register(commands: Any) -> None:
    p = commands.add_parser(
        "demo",
        help="run a short end-to-end demo on the embedded engine",
        description=f"Create the table {TABLE} (with a GSI) in a database file, write, update with a "
        "condition, query the table and the index, and print what happens at each step.",
    )
    p.add_argument(
        "--db", default="dynabase-demo.db", help="database file (default: %(default)s; ':memory:' works)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .. import connect

    client = connect(args.db)
    if TABLE in client.list_tables()["TableNames"]:
        client.delete_table(TableName=TABLE)
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "status", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-status",
                "KeySchema": [
                    {"AttributeName": "status", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    print(f"created table {TABLE} in {args.db}")
    for n in range(1, 6):
        client.put_item(
            TableName=TABLE,
            Item={
                "pk": {"S": "customer#42"},
                "sk": {"S": f"order#{n:04d}"},
                "status": {"S": "OPEN" if n % 2 else "SHIPPED"},
                "total": {"N": str(n * 12.5)},
            },
        )
    print("wrote 5 orders for customer#42")
    client.update_item(
        TableName=TABLE,
        Key={"pk": {"S": "customer#42"}, "sk": {"S": "order#0001"}},
        UpdateExpression="SET #s = :shipped ADD revisions :one",
        ConditionExpression="#s = :open",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":shipped": {"S": "SHIPPED"}, ":open": {"S": "OPEN"}, ":one": {"N": "1"}},
    )
    print("shipped order#0001 (conditional update)")
    page = client.query(
        TableName=TABLE,
        KeyConditionExpression="pk = :c AND begins_with(sk, :o)",
        ExpressionAttributeValues={":c": {"S": "customer#42"}, ":o": {"S": "order#"}},
        ScanIndexForward=False,
    )
    print(f"orders of customer#42, newest first ({page['Count']}):")
    for item in page["Items"]:
        print(f"  {item['sk']['S']}  {item['status']['S']:<8} {item['total']['N']:>6}")
    shipped = client.query(
        TableName=TABLE,
        IndexName="by-status",
        KeyConditionExpression="#s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": {"S": "SHIPPED"}},
    )
    print("shipped (via GSI by-status): " + ", ".join(i["sk"]["S"] for i in shipped["Items"]))
    try:
        client.put_item(
            TableName=TABLE,
            Item={"pk": {"S": "customer#42"}, "sk": {"S": "order#0002"}},
            ConditionExpression="attribute_not_exists(pk)",
        )
    except client.exceptions.ConditionalCheckFailedException as error:
        print(f"duplicate order refused: {error.response['Error']['Message']}")
    described = client.describe_table(TableName=TABLE)["Table"]
    print(f"table {TABLE}: {described['ItemCount']} items, {described['TableSizeBytes']} bytes")
    client.close()
    return 0
