"""``dynabase iac``: CloudFormation (JSON, YAML), Terraform JSON, CreateTable; cfn-lint; the embedded engine."""

from __future__ import annotations

import dataclasses
import json
import sys

import pytest
import yaml

import dynabase
from dynabase.tools import iac
from dynabase.tools.iac import IacOptions, apply_table_extras, cloudformation, create_table_request, terraform

from .helpers import FORMKIQ, IOTO, SCHEMAS, VAMS, load, run


def props(template: dict) -> dict:
    return template["Resources"]["Table"]["Properties"]


# -- CloudFormation structure ---------------------------------------------------------------------------------


def test_cloudformation_ioto():
    template = cloudformation(load("ioto"), IacOptions("ioto-devices"))
    assert template["AWSTemplateFormatVersion"] == "2010-09-09"
    table = template["Resources"]["Table"]
    assert table["Type"] == "AWS::DynamoDB::Table"
    assert table["DeletionPolicy"] == table["UpdateReplacePolicy"] == "Retain"
    assert table["Properties"] == {
        "TableName": "ioto-devices",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "_syncScope", "AttributeType": "S"},
            {"AttributeName": "_syncSeq", "AttributeType": "S"},
        ],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "BillingMode": "PAY_PER_REQUEST",
        # Fault syncs up: devices pull from the sync index; sync's tombstones expire by TTL
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "syncIndex",
                "KeySchema": [
                    {"AttributeName": "_syncScope", "KeyType": "HASH"},
                    {"AttributeName": "_syncSeq", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        "TimeToLiveSpecification": {"AttributeName": "_syncTtl", "Enabled": True},
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
        "DeletionProtectionEnabled": {"Ref": "DeletionProtection"},
    }
    assert template["Parameters"]["DeletionProtection"]["AllowedValues"] == ["true", "false"]
    assert template["Parameters"]["DeletionProtection"]["Default"] == "true"
    assert template["Outputs"]["TableArn"]["Value"] == {"Fn::GetAtt": ["Table", "Arn"]}
    assert "StreamArn" not in template["Outputs"]


def test_the_default_description_reads_as_a_sentence_with_or_without_a_schema_name():
    schema = load("ioto")  # no name: the template's description must not read "device for (OneTable ..."
    assert schema.name is None
    assert cloudformation(schema, IacOptions("device"))["Description"] == (
        "DynamoDB table device (OneTable schema, version 0.0.1), made by dynabase iac"
    )
    named = dataclasses.replace(schema, name="Ioto")
    assert cloudformation(named, IacOptions("device"))["Description"] == (
        "DynamoDB table device for Ioto (OneTable schema, version 0.0.1), made by dynabase iac"
    )


def test_cloudformation_formkiq_gsis_projections_provisioned():
    options = IacOptions(
        "formkiq",
        billing="PROVISIONED",
        read_capacity=7,
        write_capacity=3,
        stream="NEW_AND_OLD_IMAGES",
        tags={"team": "docs", "env": "prod"},
    )
    template = cloudformation(load("formkiq"), options)
    p = props(template)
    assert [a["AttributeName"] for a in p["AttributeDefinitions"]] == [
        "PK",
        "SK",
        "GSI1PK",
        "GSI1SK",
        "GSI2PK",
        "GSI2SK",
    ]
    assert p["BillingMode"] == "PROVISIONED"
    assert p["ProvisionedThroughput"] == {"ReadCapacityUnits": 7, "WriteCapacityUnits": 3}
    gsi1, gsi2 = p["GlobalSecondaryIndexes"]
    assert gsi1 == {
        "IndexName": "GSI1",
        "KeySchema": [
            {"AttributeName": "GSI1PK", "KeyType": "HASH"},
            {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
        "ProvisionedThroughput": {"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
    }
    assert gsi2["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["documentId", "path"]}
    assert "LocalSecondaryIndexes" not in p
    assert p["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert p["TimeToLiveSpecification"] == {"AttributeName": "TimeToLive", "Enabled": True}
    assert p["Tags"] == [{"Key": "env", "Value": "prod"}, {"Key": "team", "Value": "docs"}]
    assert list(p)[-1] == "Tags"
    assert template["Outputs"]["StreamArn"]["Value"] == {"Fn::GetAtt": ["Table", "StreamArn"]}


def test_cloudformation_vams_lsi_and_keys_only():
    p = props(cloudformation(load("vams"), IacOptions("vams-workflow-executions")))
    assert p["KeySchema"] == [
        {"AttributeName": "databaseId:assetId", "KeyType": "HASH"},
        {"AttributeName": "executionId", "KeyType": "RANGE"},
    ]
    assert p["LocalSecondaryIndexes"] == [
        {
            "IndexName": "WorkflowLSI",
            "KeySchema": [
                {"AttributeName": "databaseId:assetId", "KeyType": "HASH"},
                {"AttributeName": "workflowDatabaseId:workflowId", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }
    ]
    gsis = {g["IndexName"]: g for g in p["GlobalSecondaryIndexes"]}
    assert gsis["WorkflowGSI"]["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert gsis["ExecutionIdGSI"]["Projection"] == {
        "ProjectionType": "INCLUDE",
        "NonKeyAttributes": ["executionStatus", "startDate"],
    }
    assert p["TimeToLiveSpecification"]["AttributeName"] == "expiresAt"


def test_include_projection_of_key_attributes_only_is_keys_only():
    schema = dynabase_schema(project=["pk", "gsk"])
    p = props(cloudformation(schema, IacOptions("t-1")))
    assert p["GlobalSecondaryIndexes"][0]["Projection"] == {"ProjectionType": "KEYS_ONLY"}


def dynabase_schema(**gsi):
    from dynabase.schema import load_schema

    return load_schema(
        {
            "format": "onetable:1.1.0",
            "version": "1.0.0",
            "indexes": {"primary": {"hash": "pk"}, "gs1": {"hash": "gpk", "sort": "gsk", **gsi}},
            "models": {
                "A": {
                    "pk": {"type": "string", "value": "a#${id}"},
                    "gpk": {"type": "number"},
                    "gsk": {"type": "date"},
                    "id": {"type": "string"},
                    "exp": {"type": "date", "ttl": True},
                }
            },
        }
    )


def test_attribute_types_follow_the_schema():
    p = props(cloudformation(dynabase_schema(), IacOptions("typed")))
    assert p["AttributeDefinitions"] == [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "gpk", "AttributeType": "N"},
        {"AttributeName": "gsk", "AttributeType": "N"},  # epoch dates without isoDates
    ]


def test_ttl_options():
    schema = load("formkiq")
    assert "TimeToLiveSpecification" not in props(cloudformation(schema, IacOptions("x-1", ttl=False)))
    assert props(cloudformation(schema, IacOptions("x-1", ttl="TimeToLive")))["TimeToLiveSpecification"]
    with pytest.raises(ValueError, match="ttl field is stored in 'TimeToLive'"):
        cloudformation(schema, IacOptions("x-1", ttl="expires"))
    ioto = load("ioto")
    assert props(cloudformation(ioto, IacOptions("x-1")))["TimeToLiveSpecification"] == {
        "AttributeName": "_syncTtl",  # Fault syncs: tombstones expire
        "Enabled": True,
    }
    assert "TimeToLiveSpecification" not in props(cloudformation(ioto, IacOptions("x-1", ttl=False)))
    with pytest.raises(ValueError, match="has no ttl field"):
        cloudformation(ioto, IacOptions("x-1", ttl=True))
    assert props(cloudformation(ioto, IacOptions("x-1", ttl="expires")))["TimeToLiveSpecification"] == {
        "AttributeName": "expires",
        "Enabled": True,
    }


def test_bad_options():
    with pytest.raises(ValueError, match="invalid table name"):
        cloudformation(load("ioto"), IacOptions("x"))
    with pytest.raises(ValueError, match="unknown billing mode"):
        cloudformation(load("ioto"), IacOptions("abc", billing="FREE"))
    with pytest.raises(ValueError, match="unknown stream view type"):
        cloudformation(load("ioto"), IacOptions("abc", stream="ALL"))


# -- YAML --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_yaml_is_the_same_template(name):
    options = IacOptions("tbl-" + name, stream="NEW_IMAGE", tags={"a": "true"})
    text = iac.render(load(name), "cloudformation-yaml", options)
    assert text.startswith("AWSTemplateFormatVersion: '2010-09-09'\n")
    assert "&id" not in text and "*id" not in text  # no YAML anchors / aliases
    assert yaml.safe_load(text) == cloudformation(load(name), options)
    assert json.loads(iac.render(load(name), "cloudformation", options)) == cloudformation(
        load(name), options
    )


def test_yaml_without_pyyaml_is_a_clear_error(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` now raises ImportError
    with pytest.raises(RuntimeError, match=r"YAML output needs PyYAML: pip install 'dynabase\[yaml\]'"):
        iac.to_yaml({"a": 1})
    result = run(capsys, "iac", IOTO, "--table", "ioto", "--format", "cloudformation-yaml")
    assert result.code == 1
    assert "needs PyYAML" in result.err


# -- Terraform ---------------------------------------------------------------------------------------------


def test_terraform_formkiq():
    options = IacOptions("formkiq-docs", stream="NEW_AND_OLD_IMAGES", tags={"team": "docs"})
    config = terraform(load("formkiq"), options)
    table = config["resource"]["aws_dynamodb_table"]["formkiq_docs"]
    assert table["name"] == "formkiq-docs"
    assert table["billing_mode"] == "PAY_PER_REQUEST"
    assert (table["hash_key"], table["range_key"]) == ("PK", "SK")
    assert table["attribute"][:2] == [{"name": "PK", "type": "S"}, {"name": "SK", "type": "S"}]
    assert table["global_secondary_index"] == [
        {"name": "GSI1", "hash_key": "GSI1PK", "range_key": "GSI1SK", "projection_type": "ALL"},
        {
            "name": "GSI2",
            "hash_key": "GSI2PK",
            "range_key": "GSI2SK",
            "projection_type": "INCLUDE",
            "non_key_attributes": ["documentId", "path"],
        },
    ]
    assert (table["stream_enabled"], table["stream_view_type"]) == (True, "NEW_AND_OLD_IMAGES")
    assert table["ttl"] == {"attribute_name": "TimeToLive", "enabled": True}
    assert table["point_in_time_recovery"] == {"enabled": True}
    assert table["deletion_protection_enabled"] == "${var.deletion_protection}"
    assert table["tags"] == {"team": "docs"}
    assert config["variable"]["deletion_protection"]["default"] is True
    assert config["output"]["table_arn"]["value"] == "${aws_dynamodb_table.formkiq_docs.arn}"
    assert config["output"]["stream_arn"]["value"] == "${aws_dynamodb_table.formkiq_docs.stream_arn}"
    assert "read_capacity" not in table


def test_terraform_vams_provisioned_lsi():
    config = terraform(
        load("vams"),
        IacOptions(
            "9vams",
            billing="PROVISIONED",
            read_capacity=2,
            write_capacity=4,
            pitr=False,
            deletion_protection=False,
        ),
    )
    ((label, table),) = config["resource"]["aws_dynamodb_table"].items()
    assert label == "t_9vams"
    assert (table["read_capacity"], table["write_capacity"]) == (2, 4)
    assert table["local_secondary_index"] == [
        {"name": "WorkflowLSI", "range_key": "workflowDatabaseId:workflowId", "projection_type": "KEYS_ONLY"}
    ]
    assert all(g["read_capacity"] == 2 and g["write_capacity"] == 4 for g in table["global_secondary_index"])
    assert "point_in_time_recovery" not in table
    assert config["variable"]["deletion_protection"]["default"] is False
    assert {a["name"] for a in table["attribute"]} == {
        "databaseId:assetId",
        "executionId",
        "workflowDatabaseId:workflowId",
        "workflowId",
    }


# -- cfn-lint --------------------------------------------------------------------------------------------------


def test_cfn_lint_accepts_every_variant(cfn_lint):
    variants = [
        ("ioto", IacOptions("ioto-devices")),
        ("ioto", IacOptions("ioto-devices", ttl="expires", pitr=False, deletion_protection=False)),
        ("formkiq", IacOptions("formkiq", stream="NEW_AND_OLD_IMAGES", tags={"team": "docs"})),
        ("formkiq", IacOptions("formkiq", billing="PROVISIONED", read_capacity=10, write_capacity=5)),
        ("vams", IacOptions("vams-executions", stream="KEYS_ONLY")),
        ("vams", IacOptions("vams-executions", billing="PROVISIONED")),
    ]
    seen = set()
    for name, options in variants:
        # YAML says the same as JSON (test_yaml_is_the_same_template): lint it once per schema
        formats = ("cloudformation",) if name in seen else ("cloudformation", "cloudformation-yaml")
        seen.add(name)
        for fmt in formats:
            text = iac.render(load(name), fmt, options)
            assert cfn_lint(text) == [], (name, fmt, options)


def test_cfn_lint_catches_a_broken_template(cfn_lint):
    # the control: were the linter not really running, the test above would prove nothing
    template = cloudformation(load("vams"), IacOptions("vams-executions"))
    props(template)["AttributeDefinitions"].append({"AttributeName": "unused", "AttributeType": "S"})
    problems = cfn_lint(json.dumps(template))
    assert any("E3039" in p for p in problems), problems


# -- CreateTable on the embedded engine ----------------------------------------------------------------------


def test_create_table_request_from_properties():
    template = cloudformation(load("vams"), IacOptions("vams-x", stream="NEW_IMAGE", tags={"a": "b"}))
    request = create_table_request(template)
    assert request["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    assert request["DeletionProtectionEnabled"] is True  # the parameter's default
    assert (
        create_table_request(template, {"DeletionProtection": "false"})["DeletionProtectionEnabled"] is False
    )
    assert "TimeToLiveSpecification" not in request and "PointInTimeRecoverySpecification" not in request
    assert create_table_request(props(template), {"DeletionProtection": "true"}) == request
    with pytest.raises(ValueError, match="unresolved Ref"):
        create_table_request(props(template))


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@pytest.mark.parametrize("billing", ["PAY_PER_REQUEST", "PROVISIONED"])
def test_embedded_engine_creates_the_table(name, billing):
    schema = load(name)
    template = json.loads(
        iac.render(
            schema,
            "cloudformation",
            IacOptions(
                "tbl-" + name, billing=billing, stream="NEW_AND_OLD_IMAGES", tags={"app": name}, ttl=None
            ),
        )
    )
    client = dynabase.connect(":memory:")
    try:
        client.create_table(**create_table_request(template))
        apply_table_extras(client, template)
        table = client.describe_table(TableName="tbl-" + name)["Table"]
        p = props(template)
        assert table["KeySchema"] == p["KeySchema"]
        assert sorted(table["AttributeDefinitions"], key=str) == sorted(p["AttributeDefinitions"], key=str)
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            got = {i["IndexName"]: (i["KeySchema"], i["Projection"]) for i in table.get(kind, [])}
            want = {i["IndexName"]: (i["KeySchema"], i["Projection"]) for i in p.get(kind, [])}
            assert got == want
        assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
        assert table["DeletionProtectionEnabled"] is True
        assert table.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED") == billing
        ttl = client.describe_time_to_live(TableName="tbl-" + name)["TimeToLiveDescription"]
        if "TimeToLiveSpecification" in p:
            assert ttl == {
                "TimeToLiveStatus": "ENABLED",
                "AttributeName": p["TimeToLiveSpecification"]["AttributeName"],
            }
        else:
            assert ttl["TimeToLiveStatus"] == "DISABLED"
        backups = client.describe_continuous_backups(TableName="tbl-" + name)["ContinuousBackupsDescription"]
        assert backups["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
        tags = client.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"]
        assert tags == [{"Key": "app", "Value": name}]
    finally:
        client.close()


def test_entities_work_on_the_table_made_from_the_template():
    """Items the entity layer writes with the FormKiQ schema land in the GSIs the template declared."""
    from dynabase.model import Table

    schema = load("formkiq")
    template = cloudformation(schema, IacOptions("formkiq"))
    client = dynabase.connect(":memory:")
    try:
        client.create_table(**create_table_request(template))
        tags = Table("formkiq", client, schema).model("DocumentTag")
        tags.create({"siteId": "finance", "documentId": "d1", "tagKey": "color", "tagValue": "red"})
        tags.create({"siteId": "finance", "documentId": "d2", "tagKey": "color", "tagValue": "blue"})
        tags.create({"siteId": "legal", "documentId": "d3", "tagKey": "color", "tagValue": "red"})
        found = client.query(
            TableName="formkiq",
            IndexName="GSI2",
            KeyConditionExpression="GSI2PK = :p",
            ExpressionAttributeValues={":p": {"S": "finance/tag#color"}},
        )
        assert [i["GSI2SK"]["S"] for i in found["Items"]] == ["blue#d2", "red#d1"]
        # GSI2 projects documentId and path only (INCLUDE), besides the keys
        assert set(found["Items"][0]) == {"PK", "SK", "GSI2PK", "GSI2SK", "documentId"}
    finally:
        client.close()


# -- the command ---------------------------------------------------------------------------------------------


def test_iac_command(capsys, tmp_path):
    result = run(
        capsys,
        "iac",
        VAMS,
        "--table",
        "vams-x",
        "--stream",
        "NEW_AND_OLD_IMAGES",
        "--tag",
        "a=b",
        "--tag",
        "c=d=e",
    )
    assert result.code == 0, result.err
    template = json.loads(result.out)
    assert template == cloudformation(
        load("vams"), IacOptions("vams-x", stream="NEW_AND_OLD_IMAGES", tags={"a": "b", "c": "d=e"})
    )

    out = tmp_path / "t.yaml"
    result = run(
        capsys,
        "iac",
        FORMKIQ,
        "-t",
        "fkq",
        "-f",
        "cloudformation-yaml",
        "--billing",
        "PROVISIONED",
        "--read-capacity",
        "9",
        "--no-ttl",
        "--no-pitr",
        "--no-deletion-protection",
        "-o",
        out,
    )
    assert result.code == 0 and result.out == ""
    template = yaml.safe_load(out.read_text())
    p = props(template)
    assert p["ProvisionedThroughput"] == {"ReadCapacityUnits": 9, "WriteCapacityUnits": 5}
    assert "TimeToLiveSpecification" not in p and "PointInTimeRecoverySpecification" not in p
    assert template["Parameters"]["DeletionProtection"]["Default"] == "false"

    for bad, message in (("0", "must be at least 1, got 0"), ("five", "not a whole number: 'five'")):
        result = run(capsys, "iac", IOTO, "-t", "ioto", "--billing", "PROVISIONED", "--read-capacity", bad)
        assert result.code == 2 and f"--read-capacity: {message}" in result.err

    result = run(capsys, "iac", IOTO, "-t", "ioto", "-f", "terraform", "--ttl", "expires")
    config = json.loads(result.out)
    assert config["resource"]["aws_dynamodb_table"]["ioto"]["ttl"]["attribute_name"] == "expires"

    result = run(capsys, "iac", IOTO, "-t", "ioto", "-f", "create-table")
    request = json.loads(result.out)
    assert request["TableName"] == "ioto" and request["DeletionProtectionEnabled"] is True


def test_iac_command_errors(capsys, tmp_path):
    result = run(capsys, "iac", IOTO, "--table", "ioto", "--ttl")
    assert result.code == 1
    assert "has no ttl field" in result.err
    result = run(capsys, "iac", IOTO, "--table", "x")
    assert result.code == 1 and "invalid table name" in result.err
    result = run(capsys, "iac", IOTO)  # --table is required
    assert result.code == 2
    result = run(capsys, "iac", IOTO, "--table", "ioto", "--billing", "FREE")
    assert result.code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = run(capsys, "iac", bad, "--table", "abc")
    assert result.code == 1 and "version: required" in result.err
