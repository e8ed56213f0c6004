"""The console's operations on a DynamoDB client (embedded or boto3): tables, items, PartiQL, entities.

Items cross the wire as DynamoDB JSON (binaries in base64, numbers as strings: nothing is rounded); item text
typed as plain JSON is turned into AttributeValues here, numbers kept exact. Every read is one page (``Limit``
items, a ``LastEvaluatedKey`` cursor): a table is never loaded whole.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Literal, overload

from .. import jsonlimits
from ..model.codec import encode_item as encode_plain_item
from ..model.values import iso_string
from ..transfer.codec import InvalidItem, decode_item, encode_item

DEFAULT_LIMIT = 25
MAX_LIMIT = 1000
_NOT_PLAIN = ("B", "BS", "SS", "NS")
#: what a table's shape (``tableShape``) keeps of its description
_SHAPE = (
    "TableName",
    "KeySchema",
    "AttributeDefinitions",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
)  # types plain JSON cannot say: such items are edited as DynamoDB JSON


class ApiError(Exception):
    """An answer other than success: HTTP status, error type, message and per-field messages."""

    def __init__(self, status: int, type_: str, message: str, fields: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.message = message
        self.fields = fields or {}

    def document(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.fields:
            out["fields"] = self.fields
        return out


def bad(message: str, field: str | None = None) -> ApiError:
    return ApiError(400, "ValidationError", message, {field: message} if field else None)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: Any, field: str, *, default: Any = None) -> Any:
    """``text`` (JSON typed by the user) parsed, numbers exact; errors name ``field``."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return default
    if not isinstance(text, str):
        return text
    try:
        return jsonlimits.loads(text, parse_float=Decimal, parse_constant=_reject_constant)
    except ValueError as error:
        raise bad(f"Not valid JSON: {error}", field)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime.datetime):
        return iso_string(value)
    return str(value)


def as_json(value: Any) -> Any:
    """A response (a table description) as JSON values: dates in the one form the console shows them in,
    ``Date.toISOString()``'s, as OneTable stores them (not ``str()``'s ``... +00:00``)."""
    return json.loads(json.dumps(value, default=_json_default))


def to_attribute_values(document: Any, fmt: str, field: str) -> dict[str, Any]:
    """A map of attributes typed as DynamoDB JSON (``fmt="ddb"``) or plain JSON, as boto3 AttributeValues."""
    if not isinstance(document, dict):
        raise bad("Expected a JSON object of attributes", field)
    if fmt == "plain":
        try:
            return encode_plain_item(document)
        except (TypeError, ValueError) as error:
            raise bad(str(error), field)
    try:
        return {name: value for name, value in decode_item(document).items()} if document else {}
    except InvalidItem as error:
        raise bad(str(error), field)


def _has_unplain(value: dict[str, Any]) -> bool:
    (kind, inner), *_ = value.items()
    if kind in _NOT_PLAIN:
        return True
    if kind == "M":
        return any(_has_unplain(v) for v in inner.values())
    if kind == "L":
        return any(_has_unplain(v) for v in inner)
    return False


def limit_of(request: dict[str, Any]) -> int:
    value = request.get("limit", DEFAULT_LIMIT)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_LIMIT:
        raise bad(f"limit must be a whole number from 1 to {MAX_LIMIT}", "limit")
    return value


@overload
def _text(request: dict[str, Any], name: str, *, required: Literal[True]) -> str: ...
@overload
def _text(request: dict[str, Any], name: str, *, required: bool = False) -> str | None: ...
def _text(request: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = request.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise bad(f"{name} is required", name)
        return None
    if not isinstance(value, str):
        raise bad(f"{name} must be text", name)
    return value.strip()


def page(response: dict[str, Any]) -> dict[str, Any]:
    """A Query/Scan response as the console's page: items and cursor in DynamoDB JSON."""
    last = response.get("LastEvaluatedKey")
    return {
        "items": [encode_item(item) for item in response.get("Items", [])],
        "lastKey": encode_item(last) if last else None,
        "count": response.get("Count", 0),
        "scannedCount": response.get("ScannedCount", 0),
    }


def client_error(error: Any, field: str | None = None, message: str | None = None) -> ApiError:
    """A botocore ``ClientError`` as the console's error (``message`` in place of DynamoDB's, on ``field``)."""
    details = error.response.get("Error", {})
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 400
    text = message or str(details.get("Message") or error)
    return ApiError(
        status if 400 <= status < 500 else 502,
        str(details.get("Code") or "ClientError"),
        text,
        {field: text} if field else None,
    )


class ConsoleAPI:
    """The operations (``call(name, request)``) on ``client``; writes refused when ``read_only``.

    ``entities``: a :class:`~dynabase.console.entities.Entities` when a schema was given.
    """

    def __init__(self, client: Any, *, target: str, read_only: bool = False, entities: Any = None) -> None:
        self.client = client
        self.target = target
        self.read_only = read_only
        self.entities = entities
        self._operations: dict[str, tuple[bool, Callable[[dict[str, Any]], Any]]] = {
            "info": (False, self.info),
            "listTables": (False, self.list_tables),
            "describeTable": (False, self.describe_table),
            "tableShape": (False, self.table_shape),
            "createTable": (True, self.create_table),
            "deleteTable": (True, self.delete_table),
            "query": (False, self.query),
            "scan": (False, self.scan),
            "getItem": (False, self.get_item),
            "putItem": (True, self.put_item),
            "deleteItem": (True, self.delete_item),
            "partiql": (False, self.partiql),  # refuses writes itself when read-only
        }
        if entities is not None:
            self._operations.update(entities.operations(self))

    def call(self, name: str, request: dict[str, Any]) -> Any:
        entry = self._operations.get(name)
        if entry is None:
            raise ApiError(404, "UnknownOperation", f"No console operation {name!r}")
        writes, operation = entry
        if writes:
            self.check_writable()
        return self.guarded(operation, request)

    def check_writable(self) -> None:
        if self.read_only:
            raise ApiError(
                403,
                "ReadOnly",
                f"The console is read-only against {self.target} (an endpoint on another machine); "
                "start it with --allow-writes to change data there.",
            )

    @staticmethod
    def guarded(operation: Callable[[dict[str, Any]], Any], request: dict[str, Any]) -> Any:
        """Run ``operation``; DynamoDB and botocore failures become :class:`ApiError`."""
        from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, ParamValidationError

        try:
            return operation(request)
        except ClientError as error:
            raise client_error(error)
        except ParamValidationError as error:
            raise ApiError(400, "ParamValidationError", str(error))
        except NoCredentialsError:
            raise ApiError(400, "NoCredentials", "No AWS credentials found for the endpoint.")
        except BotoCoreError as error:
            raise ApiError(502, type(error).__name__, str(error))

    def docs_html(self) -> str:
        if self.entities is None:
            raise ApiError(404, "NoSchema", "No schema was given (dynabase ui --schema FILE).")
        return self.entities.docs_html()

    # -- tables --------------------------------------------------------------------------------------------

    def info(self, request: dict[str, Any]) -> dict[str, Any]:
        return {
            "target": self.target,
            "readOnly": self.read_only,
            "schema": self.entities.summary() if self.entities is not None else None,
        }

    def list_tables(self, request: dict[str, Any]) -> dict[str, Any]:
        names: list[str] = []
        params: dict[str, Any] = {}
        while True:
            response = self.client.list_tables(**params)
            names += response.get("TableNames", [])
            if not response.get("LastEvaluatedTableName"):
                return {"tables": names}
            params["ExclusiveStartTableName"] = response["LastEvaluatedTableName"]

    def describe_table(self, request: dict[str, Any]) -> dict[str, Any]:
        name = _text(request, "table", required=True)
        table = self.client.describe_table(TableName=name)["Table"]
        try:
            ttl = self.client.describe_time_to_live(TableName=name).get("TimeToLiveDescription")
        except Exception:  # an endpoint without TTL support: the rest of the description still helps
            ttl = None
        return {"table": as_json(table), "ttl": ttl}

    def _shape(self, name: str) -> dict[str, Any]:
        engine = getattr(self.client, "engine", None)
        if engine is None:
            return self.client.describe_table(TableName=name)["Table"]
        from ..errors import DynamoDBError

        try:
            return engine.catalog.get(name).description
        except DynamoDBError as error:
            raise ApiError(error.status, error.code, error.message)

    def table_shape(self, request: dict[str, Any]) -> dict[str, Any]:
        """The table's keys and indexes, without its counts: what the item views need. An embedded database
        reads them from its catalog (its DescribeTable counts every item: seconds on a 1M-item table)."""
        shape = self._shape(_text(request, "table", required=True) or "")
        return {"table": as_json({k: shape[k] for k in _SHAPE if k in shape})}

    def create_table(self, request: dict[str, Any]) -> dict[str, Any]:
        definition = parse_json(request.get("definition"), "definition")
        if not isinstance(definition, dict) or not definition.get("TableName"):
            raise bad("A CreateTable definition (a JSON object with TableName) is required", "definition")
        response = self.client.create_table(**definition)
        return {"table": as_json(response["TableDescription"])}

    def delete_table(self, request: dict[str, Any]) -> dict[str, Any]:
        name = _text(request, "table", required=True)
        if request.get("confirm") != name:
            raise bad(f"Type the table's name ({name}) to confirm", "confirm")
        self.client.delete_table(TableName=name)
        return {"deleted": name}

    # -- items ---------------------------------------------------------------------------------------------

    def _expression_params(self, request: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {"TableName": _text(request, "table", required=True)}
        index = _text(request, "index")
        if index:
            params["IndexName"] = index
        filter_ = _text(request, "filter")
        if filter_:
            params["FilterExpression"] = filter_
        names = parse_json(request.get("names"), "names")
        if names:
            if not isinstance(names, dict):
                raise bad('Attribute names must be a JSON object like {"#n": "name"}', "names")
            params["ExpressionAttributeNames"] = names
        values = parse_json(request.get("values"), "values")
        if values:
            params["ExpressionAttributeValues"] = to_attribute_values(
                values, request.get("format", "ddb"), "values"
            )
        start = request.get("startKey")
        if start:
            params["ExclusiveStartKey"] = to_attribute_values(start, "ddb", "startKey")
        params["Limit"] = limit_of(request)
        return params

    def query(self, request: dict[str, Any]) -> dict[str, Any]:
        params = self._expression_params(request)
        params["KeyConditionExpression"] = _text(request, "keyCondition", required=True)
        params["ScanIndexForward"] = request.get("forward", True) is not False
        return page(self.client.query(**params))

    def scan(self, request: dict[str, Any]) -> dict[str, Any]:
        return page(self.client.scan(**self._expression_params(request)))

    def _key(self, request: dict[str, Any]) -> dict[str, Any]:
        return to_attribute_values(request.get("key"), "ddb", "key")

    def get_item(self, request: dict[str, Any]) -> dict[str, Any]:
        name = _text(request, "table", required=True)
        item = self.client.get_item(TableName=name, Key=self._key(request), ConsistentRead=True).get("Item")
        return {"item": encode_item(item) if item else None}

    def _key_names(self, table: str) -> list[str]:
        schema = self._shape(table)["KeySchema"]
        return [k["AttributeName"] for k in sorted(schema, key=lambda k: k["KeyType"] != "HASH")]

    def put_item(self, request: dict[str, Any]) -> dict[str, Any]:
        """``mode: "create"`` writes only a new key; ``"edit"`` only replaces the item ``key`` names, whose
        key attributes it may not change (either way nothing else is overwritten unseen)."""
        name = _text(request, "table", required=True)
        fmt = request.get("format", "ddb")
        item = to_attribute_values(parse_json(request.get("item"), "item"), fmt, "item")
        keys = self._key_names(name)
        mode = request.get("mode", "create")
        params: dict[str, Any] = {
            "TableName": name,
            "Item": item,
            "ExpressionAttributeNames": {"#k": keys[0]},
        }
        if mode == "edit":
            original = self._key(request)
            if {k: item.get(k) for k in keys} != original:
                raise bad(
                    f"An edit cannot change the key ({', '.join(keys)}); create a new item instead", "item"
                )
            if fmt == "plain":
                current = self.client.get_item(TableName=name, Key=original, ConsistentRead=True).get("Item")
                if current and any(_has_unplain(v) for v in current.values()):
                    raise bad(
                        "This item holds binary values or sets, which plain JSON cannot express: "
                        "edit it as DynamoDB JSON",
                        "item",
                    )
            params["ConditionExpression"] = "attribute_exists(#k)"
        elif mode == "create":
            params["ConditionExpression"] = "attribute_not_exists(#k)"
        else:
            raise bad('mode must be "create" or "edit"', "mode")
        from botocore.exceptions import ClientError

        try:
            self.client.put_item(**params)
        except ClientError as error:
            message = None
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                message = (
                    "An item with this key already exists"
                    if mode == "create"
                    else "The item no longer exists (deleted meanwhile?)"
                )
            raise client_error(error, "item", message)
        return {"item": encode_item(item)}

    def delete_item(self, request: dict[str, Any]) -> dict[str, Any]:
        name = _text(request, "table", required=True)
        self.client.delete_item(TableName=name, Key=self._key(request))
        return {"deleted": True}

    def partiql(self, request: dict[str, Any]) -> dict[str, Any]:
        statement = _text(request, "statement", required=True) or ""
        words = statement.split(None, 1)
        if self.read_only and (not words or words[0].upper() != "SELECT"):
            self.check_writable()
        params: dict[str, Any] = {"Statement": statement}
        parameters = parse_json(request.get("parameters"), "parameters")
        if parameters:
            if not isinstance(parameters, list):
                raise bad(
                    'Parameters must be a JSON list of DynamoDB JSON values, like [{"S": "a"}]', "parameters"
                )
            params["Parameters"] = list(
                to_attribute_values(
                    {str(i): v for i, v in enumerate(parameters)}, "ddb", "parameters"
                ).values()
            )
        if request.get("nextToken"):
            params["NextToken"] = request["nextToken"]
        response = self.client.execute_statement(**params)
        return {
            "items": [encode_item(item) for item in response.get("Items", [])],
            "nextToken": response.get("NextToken"),
        }
