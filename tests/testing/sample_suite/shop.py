"""The application code under test: a small order service on DynamoDB, written the way such code usually is
(boto3's resource for items, the low-level client for transactions and streams)."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import boto3
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

TABLE = "shop-orders"


class OrderExists(Exception):
    pass


class InvalidTransition(Exception):
    pass


class OutOfStock(Exception):
    pass


def create_table(name: str = TABLE) -> Any:
    """The orders table: customer partitions, a status index, a stream of changes."""
    dynamodb = boto3.resource("dynamodb")
    table = dynamodb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "status", "AttributeType": "S"},
            {"AttributeName": "placed", "AttributeType": "N"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-status",
                "KeySchema": [
                    {"AttributeName": "status", "KeyType": "HASH"},
                    {"AttributeName": "placed", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    table.wait_until_exists()
    return table


def _code(error: ClientError) -> str:
    return error.response["Error"]["Code"]


class Orders:
    def __init__(self, table_name: str = TABLE) -> None:
        self.name = table_name
        self.table = boto3.resource("dynamodb").Table(table_name)
        self.client = boto3.client("dynamodb")

    def place(self, customer: str, order_id: str, lines: list[tuple[str, int, str]]) -> dict[str, Any]:
        total = sum((Decimal(price) * qty for _, qty, price in lines), Decimal(0))
        order = {
            "pk": f"CUSTOMER#{customer}",
            "sk": f"ORDER#{order_id}",
            "status": "PLACED",
            "placed": int(time.time() * 1000),
            "total": total,
            "lines": [{"sku": sku, "qty": qty, "price": Decimal(price)} for sku, qty, price in lines],
        }
        try:
            self.table.put_item(Item=order, ConditionExpression=Attr("pk").not_exists())
        except ClientError as error:
            if _code(error) == "ConditionalCheckFailedException":
                raise OrderExists(order_id) from error
            raise
        return order

    def get(self, customer: str, order_id: str) -> dict[str, Any] | None:
        return self.table.get_item(Key={"pk": f"CUSTOMER#{customer}", "sk": f"ORDER#{order_id}"}).get("Item")

    def for_customer(self, customer: str, page_size: int = 25) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": Key("pk").eq(f"CUSTOMER#{customer}") & Key("sk").begins_with("ORDER#"),
            "Limit": page_size,
        }
        while True:
            page = self.table.query(**kwargs)
            items += page["Items"]
            if "LastEvaluatedKey" not in page:
                return items
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def by_status(self, status: str) -> list[dict[str, Any]]:
        return self.table.query(IndexName="by-status", KeyConditionExpression=Key("status").eq(status))[
            "Items"
        ]

    def _transition(self, customer: str, order_id: str, source: str, target: str) -> dict[str, Any]:
        try:
            return self.table.update_item(
                Key={"pk": f"CUSTOMER#{customer}", "sk": f"ORDER#{order_id}"},
                UpdateExpression="SET #s = :target",
                ConditionExpression="#s = :source",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":target": target, ":source": source},
                ReturnValues="ALL_NEW",
            )["Attributes"]
        except ClientError as error:
            if _code(error) == "ConditionalCheckFailedException":
                raise InvalidTransition(f"{order_id}: not {source}") from error
            raise

    def ship(self, customer: str, order_id: str) -> dict[str, Any]:
        return self._transition(customer, order_id, "PLACED", "SHIPPED")

    def cancel(self, customer: str, order_id: str) -> dict[str, Any]:
        return self._transition(customer, order_id, "PLACED", "CANCELLED")

    def stock(self, sku: str, count: int) -> None:
        self.table.put_item(Item={"pk": f"SKU#{sku}", "sk": "STOCK", "count": count})

    def reserve(self, customer: str, order_id: str, sku: str, qty: int) -> None:
        """Take stock and note the reservation on the order, all or nothing."""
        try:
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "Update": {
                            "TableName": self.name,
                            "Key": {"pk": {"S": f"SKU#{sku}"}, "sk": {"S": "STOCK"}},
                            "UpdateExpression": "SET #c = #c - :q",
                            "ConditionExpression": "#c >= :q",
                            "ExpressionAttributeNames": {"#c": "count"},
                            "ExpressionAttributeValues": {":q": {"N": str(qty)}},
                        }
                    },
                    {
                        "Update": {
                            "TableName": self.name,
                            "Key": {"pk": {"S": f"CUSTOMER#{customer}"}, "sk": {"S": f"ORDER#{order_id}"}},
                            "UpdateExpression": "ADD reserved :q",
                            "ConditionExpression": "attribute_exists(pk)",
                            "ExpressionAttributeValues": {":q": {"N": str(qty)}},
                        }
                    },
                ]
            )
        except ClientError as error:
            if _code(error) == "TransactionCanceledException":
                raise OutOfStock(sku) from error
            raise

    def import_orders(self, rows: list[dict[str, Any]]) -> int:
        with self.table.batch_writer() as batch:
            for row in rows:
                batch.put_item(Item=row)
        return len(rows)

    def forget_customer(self, customer: str) -> int:
        orders = self.for_customer(customer)
        with self.table.batch_writer() as batch:
            for order in orders:
                batch.delete_item(Key={"pk": order["pk"], "sk": order["sk"]})
        return len(orders)


def stream_events(table_name: str = TABLE) -> list[dict[str, Any]]:
    """Every change record on the table's stream so far, oldest first."""
    client = boto3.client("dynamodb")
    streams = boto3.client("dynamodbstreams")
    arn = client.describe_table(TableName=table_name)["Table"]["LatestStreamArn"]
    records: list[dict[str, Any]] = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator)
            records += page["Records"]
            if not page["Records"]:
                break
            iterator = page.get("NextShardIterator")
    return records


def revenue(records: list[dict[str, Any]]) -> Decimal:
    """Placed minus cancelled order totals, from stream records."""
    total = Decimal(0)
    for record in records:
        change = record["dynamodb"]
        new, old = change.get("NewImage", {}), change.get("OldImage", {})
        if record["eventName"] == "INSERT" and new.get("sk", {}).get("S", "").startswith("ORDER#"):
            total += Decimal(new["total"]["N"])
        elif (
            record["eventName"] == "MODIFY"
            and new.get("status", {}).get("S") == "CANCELLED"
            and old.get("status", {}).get("S") != "CANCELLED"
        ):
            total -= Decimal(new["total"]["N"])
    return total
