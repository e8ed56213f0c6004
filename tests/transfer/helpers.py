"""Shared bits of the transfer tests: tables with every attribute type, a call-counting client, table dumps."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import dynabase


def embedded(path: str = ":memory:") -> Any:
    return dynabase.connect(path, ttl_sweep_seconds=None)


def simple_table(client: Any, name: str = "items", *, keys: tuple[str, ...] = ("pk:S",)) -> str:
    types = [k.split(":") for k in keys]
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": n, "KeyType": ("HASH", "RANGE")[i]} for i, (n, _) in enumerate(types)],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t} for n, t in types],
        BillingMode="PAY_PER_REQUEST",
    )
    return name


def all_types_item(n: int) -> dict[str, Any]:
    """An item with every DynamoDB type, nested ones included, varying with ``n``."""
    return {
        "pk": {"S": f"item#{n:05d}"},
        "sk": {"N": str(n)},
        "s": {"S": f'héllo ✓ {n} "quoted" \\ back\nslash'},
        "n": {"N": f"-{n}.125"},
        "big": {"N": "12345678901234567890123456789012345678"},
        "tiny": {"N": "0.000000000000000000000000000000000001"},
        "b": {"B": bytes([n % 256, 0, 255, 10, 13]) + b"\x00binary"},
        "t": {"BOOL": n % 2 == 0},
        "f": {"BOOL": False},
        "z": {"NULL": True},
        "ss": {"SS": [f"a{n}", "b", "ü"]},
        "ns": {"NS": [str(n), "2.5", "-7"]},
        "bs": {"BS": [b"\x01\x02", bytes([n % 256 + 1 if n % 256 < 255 else 1])]},
        "l": {"L": [{"S": "x"}, {"N": "1"}, {"B": b"\xff"}, {"L": []}, {"M": {}}, {"NULL": True}]},
        "m": {
            "M": {
                "deep": {"M": {"deeper": {"L": [{"M": {"bin": {"B": b"\x00\x01"}, "set": {"BS": [b"z"]}}}]}}},
                "empty": {"S": ""},
                "num": {"N": "3"},
            }
        },
    }


def put_all(client: Any, table: str, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), 25):
        chunk = items[start : start + 25]
        client.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": i}} for i in chunk]})


def _canonical(value: Any) -> Any:
    """An AttributeValue in a comparable form: sets sorted, numbers as Decimals, bytes kept."""
    (kind, inner), *_ = value.items()
    if kind == "N":
        return ("N", Decimal(inner))
    if kind in ("SS", "BS"):
        return (kind, tuple(sorted(bytes(v) if kind == "BS" else v for v in inner)))
    if kind == "NS":
        return (kind, tuple(sorted(Decimal(v) for v in inner)))
    if kind == "M":
        return ("M", tuple(sorted((k, _canonical(v)) for k, v in inner.items())))
    if kind == "L":
        return ("L", tuple(_canonical(v) for v in inner))
    if kind == "B":
        return ("B", bytes(inner))
    return (kind, inner)


def canonical_item(item: dict[str, Any]) -> Any:
    return tuple(sorted((k, _canonical(v)) for k, v in item.items()))


def dump(client: Any, table: str) -> list[Any]:
    """Every item of a table, canonical and sorted: two tables with equal dumps hold the same data."""
    items: list[Any] = []
    params: dict[str, Any] = {"TableName": table}
    while True:
        page = client.scan(**params)
        items.extend(canonical_item(i) for i in page["Items"])
        if "LastEvaluatedKey" not in page:
            break
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    return sorted(items, key=repr)


class Recorder:
    """Wraps a client; records every BatchWriteItem call (and can fake UnprocessedItems / errors)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.batch_calls: list[dict[str, Any]] = []
        #: responses to hand out instead of calling through: a dict (returned) or an exception (raised)
        self.scripted: list[Any] = []

    def batch_write_item(self, **params: Any) -> dict[str, Any]:
        self.batch_calls.append(params)
        if self.scripted:
            answer = self.scripted.pop(0)
            if isinstance(answer, BaseException):
                raise answer
            if callable(answer):
                return answer(self.client, params)
            return answer
        return self.client.batch_write_item(**params)

    def sent_items(self) -> list[dict[str, Any]]:
        return [
            request["PutRequest"]["Item"]
            for call in self.batch_calls
            for requests in call["RequestItems"].values()
            for request in requests
        ]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


def small_s3_export(directory: Path, items: int = 10) -> Path:
    """``directory/export``: an S3 export of a table ``tab`` of ``items`` items with keys ``k0``, ``k1``..."""
    from dynabase.transfer import export_table

    source = embedded()
    simple_table(source, "tab")
    put_all(source, "tab", [{"pk": {"S": f"k{n}"}} for n in range(items)])
    out = directory / "export"
    export_table(source, "tab", out, format="s3")
    return out


def write_lines(path: Any, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def item_json(pk: str, **attributes: Any) -> str:
    item = {"pk": {"S": pk}}
    item.update(attributes)
    return json.dumps({"Item": item})
