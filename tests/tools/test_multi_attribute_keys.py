"""The schema tools on a global index with a multi-attribute key: iac (CloudFormation, Terraform, CreateTable,
Workbench) and docs."""

from __future__ import annotations

import json

import pytest

import dynabase
from dynabase.schema import load_schema
from dynabase.tools.docs import build, render_markdown
from dynabase.tools.iac import IacOptions, cloudformation, create_table_request, terraform
from dynabase.tools.workbench import export_workbench

from .helpers import run

SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {
        "primary": {"hash": "pk", "sort": "sk"},
        "gs1": {"hash": "gs1pk", "sort": "gs1sk"},
        "gs3": {"hash": ["tenant", "region"], "sort": ["status", "created"], "project": "keys"},
    },
    "models": {
        "Order": {
            "pk": {"type": "string", "value": "order#${id}"},
            "sk": {"type": "string", "value": "order#"},
            "gs1pk": {"type": "string", "value": "customer#${customer}"},
            "gs1sk": {"type": "string", "value": "order#${id}"},
            "id": {"type": "string", "generate": "ulid"},
            "customer": {"type": "string"},
            "tenant": {"type": "string", "required": True},
            "region": {"type": "string", "required": True},
            "status": {"type": "string", "required": True},
            "created": {"type": "number", "required": True},
        },
    },
}

GS3_KEYS = [
    {"AttributeName": "tenant", "KeyType": "HASH"},
    {"AttributeName": "region", "KeyType": "HASH"},
    {"AttributeName": "status", "KeyType": "RANGE"},
    {"AttributeName": "created", "KeyType": "RANGE"},
]


def gsis(props):
    return {g["IndexName"]: g for g in props["GlobalSecondaryIndexes"]}


def test_cloudformation_lists_every_key_attribute():
    props = cloudformation(load_schema(SCHEMA), IacOptions("orders"))["Resources"]["Table"]["Properties"]
    assert gsis(props)["gs3"]["KeySchema"] == GS3_KEYS
    assert gsis(props)["gs1"]["KeySchema"] == [
        {"AttributeName": "gs1pk", "KeyType": "HASH"},
        {"AttributeName": "gs1sk", "KeyType": "RANGE"},
    ]
    types = {d["AttributeName"]: d["AttributeType"] for d in props["AttributeDefinitions"]}
    assert types["created"] == "N" and types["tenant"] == types["region"] == types["status"] == "S"


def test_terraform_uses_key_schema_blocks_for_a_multi_attribute_key():
    resource = terraform(load_schema(SCHEMA), IacOptions("orders"))["resource"]["aws_dynamodb_table"][
        "orders"
    ]
    by_name = {g["name"]: g for g in resource["global_secondary_index"]}
    assert by_name["gs3"]["key_schema"] == [
        {"attribute_name": k["AttributeName"], "key_type": k["KeyType"]} for k in GS3_KEYS
    ]
    assert "hash_key" not in by_name["gs3"] and "range_key" not in by_name["gs3"]
    assert (by_name["gs1"]["hash_key"], by_name["gs1"]["range_key"]) == ("gs1pk", "gs1sk")
    assert "key_schema" not in by_name["gs1"]


def test_the_create_table_request_makes_a_queryable_table():
    template = cloudformation(load_schema(SCHEMA), IacOptions("orders", deletion_protection=False))
    client = dynabase.connect(":memory:")
    client.create_table(**create_table_request(template))
    described = client.describe_table(TableName="orders")["Table"]
    assert {g["IndexName"]: g["KeySchema"] for g in described["GlobalSecondaryIndexes"]}["gs3"] == GS3_KEYS


def test_iac_cli_writes_the_multi_attribute_key(tmp_path, capsys):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    result = run(capsys, "iac", path, "--table", "orders", "--format", "create-table")
    assert result.code == 0, result.err
    assert gsis(json.loads(result.out))["gs3"]["KeySchema"] == GS3_KEYS


def test_workbench_refuses_what_its_format_cannot_hold(tmp_path, capsys):
    with pytest.raises(
        ValueError, match="index gs3: NoSQL Workbench's data model has no multi-attribute keys"
    ):
        export_workbench(load_schema(SCHEMA), IacOptions("orders"))
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    result = run(capsys, "iac", path, "--table", "orders", "--format", "workbench")
    assert result.code != 0 and "multi-attribute keys" in result.err


def test_docs_show_every_key_attribute():
    doc = build(load_schema(SCHEMA))
    (gs3,) = [i for i in doc.indexes if i.name == "gs3"]
    assert (gs3.hash, gs3.sort) == ("tenant + region", "status + created")
    (order,) = doc.entities
    assert [(k.index, k.role, k.attribute) for k in order.keys if k.index == "gs3"] == [
        ("gs3", "hash", "tenant"),
        ("gs3", "hash", "region"),
        ("gs3", "sort", "status"),
        ("gs3", "sort", "created"),
    ]
    (partition,) = [p for p in doc.partitions if p.index == "gs3"]
    assert partition.attribute == "tenant + region"
    assert partition.members == [("Order", "<tenant> + <region>", "<status> + <created>")]
    markdown = render_markdown(doc)
    assert "| gs3 | GSI | `tenant` + `region` | `status` + `created` | KEYS_ONLY |" in markdown


def test_cfn_lint_accepts_the_multi_attribute_key():
    api = pytest.importorskip("cfnlint.api")
    template = cloudformation(load_schema(SCHEMA), IacOptions("orders"))
    assert [
        str(m) for m in api.lint(json.dumps(template), config=api.ManualArgs(regions=["us-east-1"]))
    ] == []
