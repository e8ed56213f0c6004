"""Embedded engine -> every backend of the conformance harness (DynamoDB Local included, see tests/backends.py):
export from the embedded engine, import into the backend's ``client``, export from there, and compare."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import pytest

from ddb_helpers import unique_table_name
from dynabase.cli.main import main
from dynabase.transfer import export_table, import_table

from .helpers import all_types_item, dump, embedded, put_all
from .test_roundtrip import indexed_table, shape

ITEMS = 75


@pytest.fixture
def source() -> Any:
    client = embedded()
    indexed_table(client, "orders")
    client.create_table(
        TableName="alltypes",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    put_all(client, "alltypes", [all_types_item(n) for n in range(ITEMS)])
    return client


@pytest.mark.parametrize("fmt", ["jsonl", "s3"])
def test_embedded_to_backend_and_back(
    tmp_path: Path, source: Any, client: Any, make_table: Any, fmt: str
) -> None:
    out = tmp_path / ("alltypes.jsonl" if fmt == "jsonl" else "alltypes")
    export_table(source, "alltypes", out, format=fmt, segments=2)
    name = unique_table_name()
    make_table.created.append(name)
    summary = import_table(client, out, table=name, create=True)
    assert summary.created and (summary.imported, summary.rejected) == (ITEMS, 0)
    assert dump(client, name) == dump(source, "alltypes")

    back = tmp_path / "back"
    assert export_table(client, name, back, format="s3", segments=3).items == ITEMS
    again = embedded()
    import_table(again, back, table="alltypes", create=True)
    assert dump(again, "alltypes") == dump(source, "alltypes")


def test_indexed_table_recreated_on_backend(
    tmp_path: Path, source: Any, client: Any, make_table: Any
) -> None:
    export_table(source, "orders", tmp_path / "orders", format="s3")
    name = unique_table_name()
    make_table.created.append(name)
    import_table(client, tmp_path / "orders", table=name, create=True)
    assert shape(client.describe_table(TableName=name)["Table"]) == shape(
        source.describe_table(TableName="orders")["Table"]
    )
    assert client.describe_time_to_live(TableName=name)["TimeToLiveDescription"]["AttributeName"] == "expires"
    assert dump(client, name) == dump(source, "orders")


def test_cli_against_an_endpoint(
    tmp_path: Path, source: Any, client: Any, make_table: Any, monkeypatch: Any, capsys: Any
) -> None:
    endpoint = str(getattr(client.meta, "endpoint_url", ""))
    if not endpoint.startswith("http"):
        pytest.skip("the backend has no HTTP endpoint for --endpoint-url")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "fake")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    # the commands use boto3's default session: one an earlier test left holds its credentials, and DynamoDB
    # Local keeps a database per access key (the table would be made where this client does not look)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    export_table(source, "alltypes", tmp_path / "a.jsonl")
    name = unique_table_name()
    make_table.created.append(name)
    common = ["--endpoint-url", endpoint, "--region", "us-east-1", "--quiet"]
    # tried locally first: the endpoint import must not take the local checkpoint for its own
    local = ["--db", str(tmp_path / "local.db"), "--quiet"]
    assert main(["import", str(tmp_path / "a.jsonl"), "--table", name, "--create", *local]) == 0
    assert main(["import", str(tmp_path / "a.jsonl"), "--table", name, "--create", *common]) == 0
    assert f"created table {name}; imported {ITEMS} of {ITEMS} lines" in capsys.readouterr().out
    assert dump(client, name) == dump(source, "alltypes")
    assert (
        main(["export", name, "--out", str(tmp_path / "b"), "--format", "s3", "--segments", "2", *common])
        == 0
    )
    assert f"exported {ITEMS} items from {name}" in capsys.readouterr().out
    again = embedded()
    import_table(again, tmp_path / "b", table="copy-of", create=True)
    assert dump(again, "copy-of") == dump(source, "alltypes")
