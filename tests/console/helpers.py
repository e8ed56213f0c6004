"""A schema, sample data and a small HTTP client for the console's tests."""

from __future__ import annotations

import http.client
import json
from typing import Any

SCHEMA: dict[str, Any] = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "name": "device",
    "indexes": {
        "primary": {"hash": "pk", "sort": "sk"},
        "gs1": {"hash": "gs1pk", "sort": "gs1sk", "project": "all"},
    },
    "models": {
        "Fault": {
            "pk": {"type": "string", "value": "device#${deviceId}"},
            "sk": {"type": "string", "value": "fault#${id}"},
            "gs1pk": {"type": "string", "value": "severity#${severity}"},
            "gs1sk": {"type": "string", "value": "fault#${id}"},
            "deviceId": {"type": "string", "required": True},
            "id": {"type": "string", "generate": "ulid"},
            "severity": {"type": "string", "required": True, "enum": ["info", "warn", "error"]},
            "email": {"type": "string", "unique": True, "validate": "/^[^@]+@[^@]+$/"},
            "message": {"type": "string", "required": True},
        },
        "Device": {
            "pk": {"type": "string", "value": "device#${id}"},
            "sk": {"type": "string", "value": "device#"},
            "id": {"type": "string", "required": True},
            "name": {"type": "string"},
        },
    },
    "params": {"isoDates": True, "timestamps": True},
}

#: the sample table: partition "p" holds 30 items sk 00..29 (number attribute n, one with 38 digits)
PAGED_ITEMS = 30
BIG_NUMBER = "12345678901234567890123456789012345678"


def fill_paged_table(client: Any, name: str) -> None:
    """``name``: a pk/sk table with ``PAGED_ITEMS`` items in partition ``p`` (sk ``00``.. ``29``)."""
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for i in range(PAGED_ITEMS):
        item = {"pk": {"S": "p"}, "sk": {"S": f"{i:02d}"}, "n": {"N": str(i)}}
        if i == 7:
            item["n"] = {"N": BIG_NUMBER}
            item["tags"] = {"SS": ["a", "b"]}
        client.put_item(TableName=name, Item=item)


class ConsoleHTTP:
    """Requests to a console at ``127.0.0.1:port``, with its token cookie and CSRF header unless told not to."""

    def __init__(self, port: int, cookie_name: str, token: str) -> None:
        self.port = port
        self.cookie = f"{cookie_name}={token}"

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            sent = {"Host": f"127.0.0.1:{self.port}"}
            sent.update(headers or {})
            conn.request(method, path, body=body, headers={k: v for k, v in sent.items() if v is not None})
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def post(
        self, operation: str, body: dict[str, Any] | None = None, **headers: str | None
    ) -> tuple[int, Any]:
        sent = {"Cookie": self.cookie, "X-Dynabase-Console": "1", "Content-Type": "application/json"}
        sent.update({k.replace("_", "-"): v for k, v in headers.items()})
        status, _, data = self.request("POST", f"/console/api/{operation}", json.dumps(body or {}), sent)
        return status, json.loads(data)

    def ok(self, operation: str, body: dict[str, Any] | None = None) -> Any:
        status, document = self.post(operation, body)
        assert status == 200, (operation, status, document)
        return document
