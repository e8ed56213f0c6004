"""Export then import on the embedded engine: every type survives, and --create rebuilds the table's shape."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from dynabase.transfer import TransferError, export_table, import_table

from .helpers import all_types_item, dump, embedded, put_all, simple_table

ITEMS = 180  # several pages' worth of batches, not too slow


def all_types_table(client: Any, name: str = "alltypes") -> str:
    simple_table(client, name, keys=("pk:S", "sk:N"))
    put_all(client, name, [all_types_item(n) for n in range(ITEMS)])
    return name


def indexed_table(client: Any, name: str = "orders") -> str:
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "status", "AttributeType": "S"},
            {"AttributeName": "total", "AttributeType": "N"},
            {"AttributeName": "day", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-status",
                "KeySchema": [
                    {"AttributeName": "status", "KeyType": "HASH"},
                    {"AttributeName": "total", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["note"]},
                "ProvisionedThroughput": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
            }
        ],
        LocalSecondaryIndexes=[
            {
                "IndexName": "by-day",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "day", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 6},
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    client.update_time_to_live(
        TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"}
    )
    items = [
        {
            "pk": {"S": f"customer#{n % 7}"},
            "sk": {"S": f"order#{n:04d}"},
            "status": {"S": ("OPEN", "SHIPPED", "LOST")[n % 3]},
            "total": {"N": str(n * 3)},
            "day": {"S": f"2024-01-{n % 28 + 1:02d}"},
            "note": {"S": f"note {n}"},
            "expires": {"N": "4102444800"},  # 2100: not expired
        }
        for n in range(60)
    ]
    put_all(client, name, items)
    return name


def shape(description: dict[str, Any]) -> dict[str, Any]:
    """What --create must reproduce of a DescribeTable answer."""

    def index(i: dict[str, Any]) -> dict[str, Any]:
        out = {"IndexName": i["IndexName"], "KeySchema": i["KeySchema"], "Projection": i["Projection"]}
        if "ProvisionedThroughput" in i:
            pt = i["ProvisionedThroughput"]
            out["Throughput"] = (pt.get("ReadCapacityUnits"), pt.get("WriteCapacityUnits"))
        return out

    pt = description.get("ProvisionedThroughput", {})
    return {
        "KeySchema": description["KeySchema"],
        "AttributeDefinitions": sorted(description["AttributeDefinitions"], key=lambda a: a["AttributeName"]),
        "Billing": (description.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED"),
        "Throughput": (pt.get("ReadCapacityUnits"), pt.get("WriteCapacityUnits")),
        "GSIs": sorted((index(i) for i in description.get("GlobalSecondaryIndexes", [])), key=repr),
        "LSIs": sorted((index(i) for i in description.get("LocalSecondaryIndexes", [])), key=repr),
        "Stream": description.get("StreamSpecification"),
    }


@pytest.mark.parametrize("fmt", ["jsonl", "s3"])
@pytest.mark.parametrize("segments", [1, 4])
def test_round_trip_all_types(tmp_path: Path, fmt: str, segments: int) -> None:
    source, target = embedded(), embedded()
    all_types_table(source)
    out = tmp_path / ("items.jsonl" if fmt == "jsonl" else "export")
    exported = export_table(source, "alltypes", out, format=fmt, segments=segments)
    assert exported.items == ITEMS
    assert exported.segments == segments

    imported = import_table(target, out, create=True)
    assert (imported.lines, imported.imported, imported.rejected) == (ITEMS, ITEMS, 0)
    assert imported.created and imported.ok
    assert imported.table == "alltypes"
    assert imported.batches == -(-ITEMS // 25)
    assert dump(target, "alltypes") == dump(source, "alltypes")


def test_jsonl_layout(tmp_path: Path) -> None:
    client = embedded()
    all_types_table(client)
    out = tmp_path / "items.jsonl"
    summary = export_table(client, "alltypes", out)
    assert summary.table_file == tmp_path / "items.table.json"
    assert summary.files == [out]
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == ITEMS
    first = json.loads(lines[0])
    assert list(first) == ["Item"]
    assert isinstance(first["Item"]["b"]["B"], str)  # base64
    assert not list(tmp_path.glob(".*partial*"))


def test_gzip_jsonl_round_trip(tmp_path: Path) -> None:
    source, target = embedded(), embedded()
    all_types_table(source)
    out = tmp_path / "items.jsonl.gz"
    export_table(source, "alltypes", out, segments=3)
    assert (tmp_path / "items.table.json").is_file()
    with gzip.open(out, "rt", encoding="utf-8") as handle:
        assert sum(1 for _ in handle) == ITEMS
    import_table(target, out, create=True)
    assert dump(target, "alltypes") == dump(source, "alltypes")


@pytest.mark.parametrize("fmt", ["jsonl", "s3"])
def test_create_rebuilds_indexes_billing_stream_and_ttl(tmp_path: Path, fmt: str) -> None:
    source, target = embedded(), embedded()
    indexed_table(source)
    out = tmp_path / ("orders.jsonl" if fmt == "jsonl" else "orders")
    export_table(source, "orders", out, format=fmt, segments=2)

    summary = import_table(target, out, table="orders-copy", create=True)
    assert summary.created and summary.imported == 60
    original = source.describe_table(TableName="orders")["Table"]
    copy = target.describe_table(TableName="orders-copy")["Table"]
    assert shape(copy) == shape(original)
    assert shape(copy)["Throughput"] == (5, 6)
    assert target.describe_time_to_live(TableName="orders-copy")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED",
        "AttributeName": "expires",
    }
    assert dump(target, "orders-copy") == dump(source, "orders")
    by_status = target.query(
        TableName="orders-copy",
        IndexName="by-status",
        KeyConditionExpression="#s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": {"S": "LOST"}},
    )
    assert by_status["Count"] == 20


def test_table_json_records_the_definition(tmp_path: Path) -> None:
    client = embedded()
    indexed_table(client)
    export_table(client, "orders", tmp_path / "orders", format="s3")
    document = json.loads((tmp_path / "orders" / "table.json").read_text())
    assert document["TableName"] == "orders"
    assert document["TimeToLive"] == {"AttributeName": "expires", "Enabled": True}
    create = document["CreateTable"]
    assert create["BillingMode"] == "PROVISIONED"
    assert create["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert [i["IndexName"] for i in create["GlobalSecondaryIndexes"]] == ["by-status"]
    assert create["GlobalSecondaryIndexes"][0]["Projection"] == {
        "ProjectionType": "INCLUDE",
        "NonKeyAttributes": ["note"],
    }
    assert [i["IndexName"] for i in create["LocalSecondaryIndexes"]] == ["by-day"]
    assert document["ItemCount"] == 60
    assert document["TableDescription"]["TableName"] == "orders"


def test_on_demand_table_stays_on_demand(tmp_path: Path) -> None:
    source, target = embedded(), embedded()
    simple_table(source, "ondemand")
    put_all(source, "ondemand", [{"pk": {"S": str(n)}} for n in range(3)])
    export_table(source, "ondemand", tmp_path / "o.jsonl")
    import_table(target, tmp_path / "o.jsonl", create=True)
    described = target.describe_table(TableName="ondemand")["Table"]
    assert described["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"


def test_empty_table(tmp_path: Path) -> None:
    source, target = embedded(), embedded()
    simple_table(source, "empty")
    for fmt in ("jsonl", "s3"):
        out = tmp_path / f"empty-{fmt}"
        assert export_table(source, "empty", out, format=fmt, segments=2).items == 0
        summary = import_table(target, out, create=True)
        assert (summary.lines, summary.imported, summary.rejected) == (0, 0, 0)
    assert dump(target, "empty") == []


def test_import_into_existing_table_by_another_name(tmp_path: Path) -> None:
    source, target = embedded(), embedded()
    all_types_table(source)
    export_table(source, "alltypes", tmp_path / "a.jsonl")
    simple_table(target, "elsewhere", keys=("pk:S", "sk:N"))
    summary = import_table(target, tmp_path / "a.jsonl", table="elsewhere")
    assert not summary.created
    assert dump(target, "elsewhere") == dump(source, "alltypes")


def test_import_needs_the_table_or_create(tmp_path: Path) -> None:
    source, target = embedded(), embedded()
    all_types_table(source)
    export_table(source, "alltypes", tmp_path / "a.jsonl")
    with pytest.raises(TransferError, match="does not exist.*--create"):
        import_table(target, tmp_path / "a.jsonl")
    (tmp_path / "a.table.json").unlink()
    with pytest.raises(TransferError, match="no table name"):
        import_table(target, tmp_path / "a.jsonl", create=True)
    with pytest.raises(TransferError, match="no table.json"):
        import_table(target, tmp_path / "a.jsonl", table="alltypes", create=True)


def test_a_plain_table_json_beside_the_input_is_used(tmp_path: Path) -> None:
    source, target = embedded(), embedded()
    all_types_table(source)
    export_table(source, "alltypes", tmp_path / "a.jsonl")
    (tmp_path / "a.table.json").rename(tmp_path / "table.json")
    assert import_table(target, tmp_path / "a.jsonl", create=True).imported == ITEMS


def test_export_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    client = embedded()
    all_types_table(client)
    out = tmp_path / "a.jsonl"
    export_table(client, "alltypes", out)
    with pytest.raises(TransferError, match="already exists"):
        export_table(client, "alltypes", out)
    assert export_table(client, "alltypes", out, overwrite=True).items == ITEMS
    directory = tmp_path / "dir"
    export_table(client, "alltypes", directory, format="s3")
    with pytest.raises(TransferError, match="not empty"):
        export_table(client, "alltypes", directory, format="s3")
    assert export_table(client, "alltypes", directory, format="s3", overwrite=True, segments=2).items == ITEMS
    assert len(list((directory / "data").iterdir())) == 2  # the old export's data files are gone
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "precious.txt").write_text("keep me")
    with pytest.raises(TransferError, match="not part of an export"):
        export_table(client, "alltypes", tmp_path / "other", format="s3", overwrite=True)
    assert (tmp_path / "other" / "precious.txt").read_text() == "keep me"


def test_export_errors(tmp_path: Path) -> None:
    client = embedded()
    with pytest.raises(TransferError, match="'missing' does not exist"):
        export_table(client, "missing", tmp_path / "x.jsonl")
    simple_table(client, "tab")
    with pytest.raises(TransferError, match="unknown export format"):
        export_table(client, "tab", tmp_path / "x", format="csv")
    with pytest.raises(TransferError, match="segments"):
        export_table(client, "tab", tmp_path / "x", segments=0)
    with pytest.raises(TransferError, match="does not exist"):
        export_table(client, "tab", tmp_path / "nowhere" / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()


def test_failed_export_leaves_nothing_behind(tmp_path: Path) -> None:
    client = embedded()
    all_types_table(client)

    class Broken:
        def __init__(self) -> None:
            self.pages = 0

        def scan(self, **params: Any) -> Any:
            self.pages += 1
            if self.pages > 2:
                raise OSError("connection lost")
            return client.scan(Limit=10, **params)

        def __getattr__(self, name: str) -> Any:
            return getattr(client, name)

    for fmt in ("jsonl", "s3"):
        with pytest.raises(OSError, match="connection lost"):
            export_table(Broken(), "alltypes", tmp_path / f"out-{fmt}", format=fmt, segments=2)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_overwrite_keeps_the_earlier_export(tmp_path: Path) -> None:
    client = embedded()
    all_types_table(client)
    export_table(client, "alltypes", tmp_path / "e", format="s3")
    export_table(client, "alltypes", tmp_path / "e.jsonl")
    before = sorted(p.name for p in (tmp_path / "e" / "data").iterdir())

    class Broken:
        def scan(self, **params: Any) -> Any:
            raise OSError("disk on fire")

        def __getattr__(self, name: str) -> Any:
            return getattr(client, name)

    for fmt, out in (("s3", tmp_path / "e"), ("jsonl", tmp_path / "e.jsonl")):
        with pytest.raises(OSError):
            export_table(Broken(), "alltypes", out, format=fmt, overwrite=True)
    assert sorted(p.name for p in (tmp_path / "e" / "data").iterdir()) == before
    assert import_table(embedded(), tmp_path / "e", create=True).imported == ITEMS
    assert import_table(embedded(), tmp_path / "e.jsonl", create=True).imported == ITEMS
