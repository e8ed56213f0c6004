"""The request fuzzer's world: a ``dynabase serve`` child process, the tables it fuzzes, and realistic valid
requests of every operation the engine implements (the seeds the mutations start from)."""

from __future__ import annotations

import base64
import http.client
from typing import Any
from urllib.parse import urlsplit

import botocore.session

from .helpers import RawResponse, boto_client, request_headers

DDB = "DynamoDB_20120810."
STREAMS = "DynamoDBStreams_20120810."

_SESSION = botocore.session.get_session()
MODELS = {DDB: _SESSION.get_service_model("dynamodb"), STREAMS: _SESSION.get_service_model("dynamodbstreams")}
#: every operation of both service models, as X-Amz-Target values
TARGETS = sorted(prefix + op for prefix, model in MODELS.items() for op in model.operation_names)

HASH_TABLE = "fuzz_hash"  # pk:S, a stream, TTL on "ttl"
RANGE_TABLE = "fuzz_range"  # pk:S sk:N, GSIs (gpk:S gsk:B, gsk:B keys only), an LSI (pk lsk:S), a stream
BINARY_TABLE = "fuzz_binary"  # pk:B sk:S, provisioned
FIXTURE_TABLES = (HASH_TABLE, RANGE_TABLE, BINARY_TABLE)
#: tables the control-plane cases create, update and delete (the fixture tables stay as they are)
SCRATCH_TABLES = ("fuzz_scratch_0", "fuzz_scratch_1")


# -- the server -------------------------------------------------------------------------------------------------


class Connection:
    """One keep-alive HTTP connection sending raw requests (reopened once when the server closed it)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def send(
        self, target: str | None, body: bytes, headers: dict[str, str | None] | None = None
    ) -> RawResponse:
        sent = request_headers(target, headers)
        for attempt in (1, 2):
            if self._conn is None:
                parts = urlsplit(self.url)
                self._conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
            try:
                self._conn.request("POST", "/", body=body, headers=sent)
                response = self._conn.getresponse()
                data = response.read()
            except (ConnectionError, http.client.HTTPException):
                self.close()
                if attempt == 2:
                    raise
                continue
            if response.getheader("connection", "").lower() == "close":
                self.close()
            return RawResponse(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        raise AssertionError("unreachable")


class FuzzServer:
    """A ``dynabase serve -q`` child process (its whole stderr kept in a file) and a connection to it."""

    def __init__(self) -> None:
        from dynabase.server import start_subprocess

        self.process = start_subprocess(":memory:", args=["-q"])
        self.url = self.process.url
        self.connection = Connection(self.url)
        self.send = self.connection.send
        self._log_offset = 0

    def close(self) -> None:
        self.connection.close()
        self.process.close()

    def alive(self) -> bool:
        return self.process.process.poll() is None

    def new_output(self) -> str:
        """What the server wrote to stderr since the last call."""
        try:
            with open(self.process.log_path, "rb") as handle:
                handle.seek(self._log_offset)
                data = handle.read()
        except OSError:
            return ""
        self._log_offset += len(data)
        return data.decode("utf-8", "replace")


# -- fixture tables ---------------------------------------------------------------------------------------------


class Fixtures:
    """The tables, items and stream handles the realistic requests refer to."""

    def __init__(self, url: str) -> None:
        ddb = boto_client(url)
        streams = boto_client(url, "dynamodbstreams")
        ddb.create_table(
            TableName=HASH_TABLE,
            KeySchema=key_schema("pk"),
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )
        ddb.update_time_to_live(
            TableName=HASH_TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"}
        )
        ddb.create_table(
            TableName=RANGE_TABLE,
            KeySchema=key_schema("pk", "sk"),
            AttributeDefinitions=[
                {"AttributeName": name, "AttributeType": kind}
                for name, kind in (("pk", "S"), ("sk", "N"), ("gpk", "S"), ("gsk", "B"), ("lsk", "S"))
            ],
            BillingMode="PAY_PER_REQUEST",
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "gsi",
                    "KeySchema": key_schema("gpk", "gsk"),
                    "Projection": {"ProjectionType": "ALL"},
                },
                {
                    "IndexName": "gsi_keys",
                    "KeySchema": key_schema("gsk"),
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                },
            ],
            LocalSecondaryIndexes=[
                {
                    "IndexName": "lsi",
                    "KeySchema": key_schema("pk", "lsk"),
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]},
                }
            ],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
        )
        ddb.create_table(
            TableName=BINARY_TABLE,
            KeySchema=key_schema("pk", "sk"),
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "B"},
                {"AttributeName": "sk", "AttributeType": "S"},
            ],
            ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        )
        for i in range(4):
            ddb.put_item(
                TableName=HASH_TABLE, Item={"pk": {"S": f"h{i}"}, "a": {"N": str(i)}, "ttl": {"N": "1"}}
            )
            ddb.put_item(TableName=RANGE_TABLE, Item=_wire_to_boto(range_item(i)))
            ddb.put_item(TableName=BINARY_TABLE, Item={"pk": {"B": bytes([i, 255])}, "sk": {"S": f"s{i}"}})
        self.table_arn = ddb.describe_table(TableName=RANGE_TABLE)["Table"]["TableArn"]
        self.stream_arn = ddb.describe_table(TableName=HASH_TABLE)["Table"]["LatestStreamArn"]
        stream = streams.describe_stream(StreamArn=self.stream_arn)["StreamDescription"]
        self.shard_id = stream["Shards"][0]["ShardId"]
        self.shard_iterator = streams.get_shard_iterator(
            StreamArn=self.stream_arn, ShardId=self.shard_id, ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]


def key_schema(hash_key: str, range_key: str | None = None) -> list[dict[str, str]]:
    schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key is not None:
        schema.append({"AttributeName": range_key, "KeyType": "RANGE"})
    return schema


def _wire_to_boto(value: Any) -> Any:
    """A wire-format item (blobs base64) as boto3 takes it (blobs as bytes)."""
    if isinstance(value, dict):
        return {
            k: (
                base64.b64decode(v)
                if k == "B"
                else [base64.b64decode(b) for b in v]
                if k == "BS"
                else _wire_to_boto(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_wire_to_boto(v) for v in value]
    return value


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def range_item(i: int) -> dict[str, Any]:
    """Item ``i`` of the range table, in wire format: every AttributeValue type, index keys included."""
    return {
        "pk": {"S": "p1"},
        "sk": {"N": str(i)},
        "gpk": {"S": f"g{i % 2}"},
        "gsk": {"B": b64(bytes([i]))},
        "lsk": {"S": f"l{i}"},
        "a": {"N": str(i * 10)},
        "b": {"M": {"c": {"L": [{"S": "x"}, {"N": "1.5"}, {"BOOL": True}, {"NULL": True}]}}},
        "ss": {"SS": ["a", "b"]},
        "ns": {"NS": ["1", "2"]},
        "bs": {"BS": [b64(b"\x00"), b64(b"\x01")]},
        "l": {"L": [{"S": "e"}]},
    }


# -- realistic requests -----------------------------------------------------------------------------------------

_RKEY = {"pk": {"S": "p1"}, "sk": {"N": "1"}}
_NAMES = {"#a": "a", "#b": "b"}


def realistic_requests(fx: Fixtures) -> dict[str, list[dict[str, Any]]]:
    """Valid requests, by X-Amz-Target, for every operation the engine implements (the others get shaped ones)."""
    scratch = {
        "TableName": SCRATCH_TABLES[0],
        "KeySchema": key_schema("pk", "sk"),
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "N"},
        ],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "gix",
                "KeySchema": key_schema("g"),
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        "LocalSecondaryIndexes": [
            {
                "IndexName": "lix",
                "KeySchema": key_schema("pk", "g"),
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
        "Tags": [{"Key": "k", "Value": "v"}],
    }
    put = {
        "TableName": RANGE_TABLE,
        "Item": {**range_item(1), "sk": {"N": "7"}},
        "ConditionExpression": "attribute_not_exists(pk) OR (#a < :v AND size(#b) >= :one)",
        "ExpressionAttributeNames": _NAMES,
        "ExpressionAttributeValues": {":v": {"N": "100"}, ":one": {"N": "1"}},
        "ReturnValues": "ALL_OLD",
        "ReturnConsumedCapacity": "INDEXES",
        "ReturnItemCollectionMetrics": "SIZE",
    }
    update = {
        "TableName": RANGE_TABLE,
        "Key": _RKEY,
        "UpdateExpression": "SET #a = if_not_exists(#a, :zero) + :one, l = list_append(l, :l), b.c[0] = :s "
        "REMOVE lsk ADD ns :ns DELETE ss :ss",
        "ConditionExpression": "attribute_exists(pk) AND begins_with(gpk, :g) AND contains(ss, :sv)",
        "ExpressionAttributeNames": {"#a": "a"},
        "ExpressionAttributeValues": {
            ":zero": {"N": "0"},
            ":one": {"N": "1"},
            ":l": {"L": [{"S": "z"}]},
            ":s": {"S": "y"},
            ":ns": {"NS": ["3"]},
            ":ss": {"SS": ["b"]},
            ":g": {"S": "g"},
            ":sv": {"S": "a"},
        },
        "ReturnValues": "UPDATED_NEW",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    query = {
        "TableName": RANGE_TABLE,
        "KeyConditionExpression": "pk = :p AND sk BETWEEN :lo AND :hi",
        "FilterExpression": "#a >= :zero AND attribute_type(#b, :m) AND NOT contains(l, :s)",
        "ProjectionExpression": "pk, sk, #a, #b.c[1]",
        "ExpressionAttributeNames": _NAMES,
        "ExpressionAttributeValues": {
            ":p": {"S": "p1"},
            ":lo": {"N": "0"},
            ":hi": {"N": "9"},
            ":zero": {"N": "0"},
            ":m": {"S": "M"},
            ":s": {"S": "q"},
        },
        "ScanIndexForward": False,
        "Limit": 2,
        "ExclusiveStartKey": {"pk": {"S": "p1"}, "sk": {"N": "3"}},
        "ReturnConsumedCapacity": "TOTAL",
    }
    gsi_query = {
        "TableName": RANGE_TABLE,
        "IndexName": "gsi",
        "KeyConditionExpression": "gpk = :g AND gsk > :b",
        "ExpressionAttributeValues": {":g": {"S": "g1"}, ":b": {"B": b64(b"\x00")}},
        "Select": "COUNT",
    }
    lsi_query = {
        "TableName": RANGE_TABLE,
        "IndexName": "lsi",
        "KeyConditionExpression": "pk = :p AND begins_with(lsk, :l)",
        "ExpressionAttributeValues": {":p": {"S": "p1"}, ":l": {"S": "l"}},
        "Select": "ALL_PROJECTED_ATTRIBUTES",
        "ConsistentRead": True,
    }
    legacy_query = {
        "TableName": RANGE_TABLE,
        "KeyConditions": {
            "pk": {"AttributeValueList": [{"S": "p1"}], "ComparisonOperator": "EQ"},
            "sk": {"AttributeValueList": [{"N": "1"}, {"N": "3"}], "ComparisonOperator": "BETWEEN"},
        },
        "QueryFilter": {
            "a": {"AttributeValueList": [{"N": "5"}], "ComparisonOperator": "GT"},
            "ss": {"AttributeValueList": [{"S": "a"}], "ComparisonOperator": "CONTAINS"},
        },
        "ConditionalOperator": "OR",
        "AttributesToGet": ["pk", "a"],
    }
    scan = {
        "TableName": RANGE_TABLE,
        "FilterExpression": "#a IN (:one, :two) OR size(ss) = :two",
        "ExpressionAttributeNames": {"#a": "a"},
        "ExpressionAttributeValues": {":one": {"N": "10"}, ":two": {"N": "2"}},
        "Segment": 1,
        "TotalSegments": 2,
    }
    legacy_scan = {
        "TableName": HASH_TABLE,
        "ScanFilter": {"a": {"AttributeValueList": [{"N": "1"}], "ComparisonOperator": "GE"}},
        "Select": "SPECIFIC_ATTRIBUTES",
        "AttributesToGet": ["a"],
        "Limit": 3,
    }
    transact_write = {
        "TransactItems": [
            {
                "ConditionCheck": {
                    "TableName": RANGE_TABLE,
                    "Key": {"pk": {"S": "p1"}, "sk": {"N": "0"}},
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
            {"Put": {"TableName": HASH_TABLE, "Item": {"pk": {"S": "t1"}, "m": {"M": {}}}}},
            {
                "Update": {
                    "TableName": HASH_TABLE,
                    "Key": {"pk": {"S": "h0"}},
                    "UpdateExpression": "ADD #a :one",
                    "ExpressionAttributeNames": {"#a": "a"},
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            },
            {"Delete": {"TableName": BINARY_TABLE, "Key": {"pk": {"B": b64(b"\x07")}, "sk": {"S": "s"}}}},
        ],
        "ClientRequestToken": "token-1",
        "ReturnConsumedCapacity": "TOTAL",
    }
    hash_key = {"pk": {"S": "h1"}}
    requests: dict[str, list[dict[str, Any]]] = {
        "GetItem": [
            {
                "TableName": RANGE_TABLE,
                "Key": _RKEY,
                "ProjectionExpression": "#a, #b.c[0], ss",
                "ExpressionAttributeNames": _NAMES,
                "ConsistentRead": True,
            },
            {
                "TableName": BINARY_TABLE,
                "Key": {"pk": {"B": b64(bytes([1, 255]))}, "sk": {"S": "s1"}},
                "AttributesToGet": ["sk"],
            },
        ],
        "PutItem": [
            put,
            {
                "TableName": HASH_TABLE,
                "Item": {"pk": {"S": "h9"}, "a": {"N": "-1.5e10"}, "u": {"S": "\u00e9\U0001f600"}},
                "Expected": {"a": {"Exists": False}},
            },
        ],
        "UpdateItem": [
            update,
            {
                "TableName": HASH_TABLE,
                "Key": hash_key,
                "AttributeUpdates": {
                    "a": {"Action": "ADD", "Value": {"N": "1"}},
                    "s": {"Action": "PUT", "Value": {"SS": ["x"]}},
                    "gone": {"Action": "DELETE"},
                },
                "Expected": {"a": {"ComparisonOperator": "NOT_NULL"}},
                "ReturnValues": "ALL_NEW",
            },
        ],
        "DeleteItem": [
            {
                "TableName": HASH_TABLE,
                "Key": {"pk": {"S": "h9"}},
                "ConditionExpression": "attribute_not_exists(nothing)",
                "ReturnValues": "ALL_OLD",
            },
        ],
        "Query": [query, gsi_query, lsi_query, legacy_query],
        "Scan": [
            scan,
            legacy_scan,
            {
                "TableName": RANGE_TABLE,
                "IndexName": "gsi_keys",
                "ConsistentRead": False,
                "Select": "ALL_PROJECTED_ATTRIBUTES",
            },
        ],
        "BatchGetItem": [
            {
                "RequestItems": {
                    RANGE_TABLE: {
                        "Keys": [_RKEY, {"pk": {"S": "p1"}, "sk": {"N": "2"}}],
                        "ProjectionExpression": "pk, a",
                    },
                    HASH_TABLE: {"Keys": [hash_key], "ConsistentRead": True},
                },
                "ReturnConsumedCapacity": "INDEXES",
            }
        ],
        "BatchWriteItem": [
            {
                "RequestItems": {
                    HASH_TABLE: [
                        {"PutRequest": {"Item": {"pk": {"S": "b1"}, "n": {"NULL": True}}}},
                        {"DeleteRequest": {"Key": {"pk": {"S": "b2"}}}},
                    ],
                    RANGE_TABLE: [{"PutRequest": {"Item": {**range_item(2), "sk": {"N": "8"}}}}],
                },
                "ReturnItemCollectionMetrics": "SIZE",
            }
        ],
        "TransactGetItems": [
            {
                "TransactItems": [
                    {"Get": {"TableName": RANGE_TABLE, "Key": _RKEY, "ProjectionExpression": "a"}},
                    {"Get": {"TableName": HASH_TABLE, "Key": hash_key}},
                ]
            }
        ],
        "TransactWriteItems": [transact_write],
        "ExecuteStatement": [
            {
                "Statement": f'SELECT pk, a FROM "{RANGE_TABLE}" WHERE pk = ? AND sk > ?',
                "Parameters": [{"S": "p1"}, {"N": "0"}],
            },
            {
                "Statement": f"INSERT INTO \"{HASH_TABLE}\" VALUE {{'pk': 'e1', 'l': [1, 'x', {{'m': <<'a','b'>>}}]}}"
            },
            {"Statement": f"UPDATE \"{HASH_TABLE}\" SET a = a + 1 REMOVE x WHERE pk = 'h2'"},
            {"Statement": f"DELETE FROM \"{HASH_TABLE}\" WHERE pk = 'e1'"},
            {
                "Statement": f'SELECT * FROM "{RANGE_TABLE}"."gsi" WHERE gpk = \'g1\'',
                "Limit": 2,
                "ConsistentRead": False,
            },
        ],
        "BatchExecuteStatement": [
            {
                "Statements": [
                    {"Statement": f'SELECT * FROM "{HASH_TABLE}" WHERE pk = ?', "Parameters": [{"S": "h1"}]},
                    {
                        "Statement": f'SELECT a FROM "{RANGE_TABLE}" WHERE pk = ? AND sk = 1',
                        "Parameters": [{"S": "p1"}],
                    },
                ]
            },
            {
                "Statements": [
                    {
                        "Statement": f"UPDATE \"{HASH_TABLE}\" SET a = 3 WHERE pk = 'h3'",
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    },
                    {"Statement": f"DELETE FROM \"{HASH_TABLE}\" WHERE pk = 'nothing'"},
                ]
            },
        ],
        "ExecuteTransaction": [
            {
                "TransactStatements": [
                    {
                        "Statement": f"UPDATE \"{HASH_TABLE}\" SET a = ? WHERE pk = 'h1'",
                        "Parameters": [{"N": "5"}],
                    },
                    {
                        "Statement": f"EXISTS(SELECT * FROM \"{RANGE_TABLE}\" WHERE pk = 'p1' AND sk = 1 AND a >= 0)"
                    },
                ],
                "ClientRequestToken": "tok",
            }
        ],
        "CreateTable": [
            scratch,
            {
                "TableName": SCRATCH_TABLES[1],
                "KeySchema": key_schema("id"),
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "B"}],
                "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                "TableClass": "STANDARD_INFREQUENT_ACCESS",
                "DeletionProtectionEnabled": False,
            },
        ],
        "UpdateTable": [
            {
                "TableName": SCRATCH_TABLES[0],
                "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
                "GlobalSecondaryIndexUpdates": [
                    {
                        "Create": {
                            "IndexName": "hix",
                            "KeySchema": key_schema("h"),
                            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]},
                        }
                    }
                ],
            },
            {
                "TableName": SCRATCH_TABLES[0],
                "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "gix"}}],
            },
            {
                "TableName": SCRATCH_TABLES[1],
                "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "OLD_IMAGE"},
            },
            {"TableName": SCRATCH_TABLES[1], "BillingMode": "PAY_PER_REQUEST"},
        ],
        "DescribeTable": [{"TableName": RANGE_TABLE}],
        "ListTables": [{"ExclusiveStartTableName": HASH_TABLE, "Limit": 2}, {}],
        "DescribeTimeToLive": [{"TableName": HASH_TABLE}],
        "UpdateTimeToLive": [
            {
                "TableName": SCRATCH_TABLES[1],
                "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "exp"},
            }
        ],
        "TagResource": [{"ResourceArn": fx.table_arn, "Tags": [{"Key": "env", "Value": "fuzz"}]}],
        "UntagResource": [{"ResourceArn": fx.table_arn, "TagKeys": ["env", "none"]}],
        "ListTagsOfResource": [{"ResourceArn": fx.table_arn}],
        "DescribeContinuousBackups": [{"TableName": RANGE_TABLE}],
        "UpdateContinuousBackups": [
            {
                "TableName": SCRATCH_TABLES[0],
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            }
        ],
        "DescribeLimits": [{}],
        "DescribeEndpoints": [{}],
        "DeleteTable": [{"TableName": name} for name in SCRATCH_TABLES],
    }
    out = {DDB + op: reqs for op, reqs in requests.items()}
    out[STREAMS + "ListStreams"] = [{"TableName": HASH_TABLE, "Limit": 5}, {}]
    out[STREAMS + "DescribeStream"] = [{"StreamArn": fx.stream_arn, "Limit": 1}]
    out[STREAMS + "GetShardIterator"] = [
        {"StreamArn": fx.stream_arn, "ShardId": fx.shard_id, "ShardIteratorType": "TRIM_HORIZON"},
        {
            "StreamArn": fx.stream_arn,
            "ShardId": fx.shard_id,
            "ShardIteratorType": "AFTER_SEQUENCE_NUMBER",
            "SequenceNumber": "000000000000000000001",
        },
    ]
    out[STREAMS + "GetRecords"] = [{"ShardIterator": fx.shard_iterator, "Limit": 10}]
    return out


def race_requests() -> list[tuple[str, dict[str, Any]]]:
    """Requests on one scratch table (pk:S sk:S) that threads send concurrently: its creation, updates and
    deletion racing reads and writes of its items."""
    table = SCRATCH_TABLES[0]
    key = {"pk": {"S": "r"}, "sk": {"S": "1"}}
    create = {
        "TableName": table,
        "KeySchema": key_schema("pk", "sk"),
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
    }
    by_op = {
        "CreateTable": create,
        "DeleteTable": {"TableName": table},
        "DescribeTable": {"TableName": table},
        "UpdateTable": {"TableName": table, "BillingMode": "PAY_PER_REQUEST"},
        "UpdateTimeToLive": {
            "TableName": table,
            "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "ttl"},
        },
        "PutItem": {"TableName": table, "Item": {**key, "a": {"N": "1"}}},
        "GetItem": {"TableName": table, "Key": key, "ConsistentRead": True},
        "UpdateItem": {
            "TableName": table,
            "Key": key,
            "UpdateExpression": "ADD a :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        },
        "DeleteItem": {"TableName": table, "Key": key},
        "Query": {
            "TableName": table,
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": "r"}},
        },
        "Scan": {"TableName": table},
        "BatchWriteItem": {"RequestItems": {table: [{"PutRequest": {"Item": {**key, "sk": {"S": "2"}}}}]}},
        "BatchGetItem": {"RequestItems": {table: {"Keys": [key]}}},
        "TransactWriteItems": {
            "TransactItems": [{"Put": {"TableName": table, "Item": {**key, "sk": {"S": "3"}}}}]
        },
        "TransactGetItems": {"TransactItems": [{"Get": {"TableName": table, "Key": key}}]},
        "ExecuteStatement": {"Statement": f"SELECT * FROM \"{table}\" WHERE pk = 'r'"},
    }
    return [(DDB + op, request) for op, request in by_op.items()] + [
        (STREAMS + "ListStreams", {"TableName": table})
    ]
