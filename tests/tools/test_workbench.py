"""NoSQL Workbench data models: ``iac --format workbench`` and ``import-workbench``."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import yaml

from dynabase.schema import SchemaError, load_schema, validate_schema
from dynabase.tools import export_workbench, import_workbench
from dynabase.tools.iac import IacOptions

from .helpers import FORMKIQ, IOTO, SCHEMAS, load, run, signature

NOW = dt.datetime(2024, 3, 5, 14, 7, tzinfo=dt.timezone.utc)


def table_of(model: dict) -> dict:
    (table,) = model["DataModel"]
    return table


# -- export ------------------------------------------------------------------------------------------------


def test_export_ioto():
    model = export_workbench(load("ioto"), IacOptions("ioto-devices"), now=NOW)
    assert model["ModelName"] == "ioto-devices"
    assert model["ModelMetadata"] == {
        "Author": "dynabase",
        "DateCreated": "Mar 05, 2024, 02:07 PM",
        "DateLastModified": "Mar 05, 2024, 02:07 PM",
        "Description": "OneTable schema version 0.0.1",
        "AWSService": "Amazon DynamoDB",
        "Version": "3.0",
    }
    table = table_of(model)
    assert table["TableName"] == "ioto-devices"
    assert table["KeyAttributes"] == {
        "PartitionKey": {"AttributeName": "pk", "AttributeType": "S"},
        "SortKey": {"AttributeName": "sk", "AttributeType": "S"},
    }
    non_key = {a["AttributeName"]: a["AttributeType"] for a in table["NonKeyAttributes"]}
    assert non_key["parameters"] == "M"
    assert non_key["timestamp"] == "S"  # isoDates
    assert non_key["_type"] == "S"
    assert "pk" not in non_key and "sk" not in non_key
    status, fault = table["TableFacets"]
    assert fault == {
        "FacetName": "Fault",
        "KeyAttributeAlias": {"PartitionKeyAlias": "device#<deviceId>", "SortKeyAlias": "fault#<id>"},
        "TableData": [],
        "NonKeyAttributes": [
            "deviceId",
            "id",
            "timestamp",
            "source",
            "severity",
            "subject",
            "message",
            "_type",
            "created",
            "updated",
        ],
    }
    assert status["KeyAttributeAlias"] == {"PartitionKeyAlias": "status#", "SortKeyAlias": "status#"}
    status_item, fault_item = table["TableData"]
    assert fault_item["pk"] == {"S": "device#<deviceId>"}
    assert fault_item["sk"] == {"S": "fault#<id>"}
    assert fault_item["_type"] == {"S": "Fault"}
    assert fault_item["deviceId"] == {"S": "<deviceId>"}
    assert status_item["parameters"] == {"M": {}}
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert "ProvisionedCapacitySettings" not in table
    assert "GlobalSecondaryIndexes" not in table


def test_export_formkiq_gsis_packed_and_provisioned():
    options = IacOptions("formkiq", billing="PROVISIONED", read_capacity=4, write_capacity=2)
    model = export_workbench(load("formkiq"), options, now=NOW)
    assert model["ModelName"] == "FormKiQ documents"
    assert model["ModelMetadata"]["Description"].startswith("Documents, tags and sites")
    table = table_of(model)
    assert table["GlobalSecondaryIndexes"][1] == {
        "IndexName": "GSI2",
        "KeyAttributes": {
            "PartitionKey": {"AttributeName": "GSI2PK", "AttributeType": "S"},
            "SortKey": {"AttributeName": "GSI2SK", "AttributeType": "S"},
        },
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["documentId", "path"]},
    }
    non_key = {a["AttributeName"]: a["AttributeType"] for a in table["NonKeyAttributes"]}
    for attribute in ("GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"):
        assert non_key[attribute] == "S"  # index keys are attributes of the table too
    assert non_key["meta"] == "M"  # packed fields
    assert non_key["TimeToLive"] == "N"
    assert non_key["ct"] == "S"  # mapped field: the stored name
    facets = {f["FacetName"]: f for f in table["TableFacets"]}
    assert facets["DocumentTag"]["KeyAttributeAlias"] == {
        "PartitionKeyAlias": "<siteId>/docs#<documentId>",
        "SortKeyAlias": "tags#<tagKey>",
    }
    assert "GSI2PK" in facets["DocumentTag"]["NonKeyAttributes"]
    assert "GSI2PK" not in facets["Document"]["NonKeyAttributes"]
    # facets only name attributes the table defines
    for facet in table["TableFacets"]:
        assert set(facet["NonKeyAttributes"]) <= set(non_key)
    items = {i["entity"]["S"]: i for i in table["TableData"]}  # params.typeField
    assert items["DocumentTag"]["GSI1PK"] == {"S": "<siteId>/tag#<tagKey>#<tagValue>"}
    assert items["Document"]["meta"] == {"M": {"user": {"S": "<userId>"}, "link": {"S": "<deepLinkPath>"}}}
    assert items["Site"]["status"] == {"S": "ACTIVE"}  # the default
    assert items["Counter"]["n"] == {"N": "0"}
    assert table["ProvisionedCapacitySettings"]["ProvisionedThroughput"] == {
        "ReadCapacityUnits": 4,
        "WriteCapacityUnits": 2,
    }
    assert table["BillingMode"] == "PROVISIONED"


def test_export_vams_lsi():
    table = table_of(export_workbench(load("vams"), "vams-x", now=NOW))
    assert table["LocalSecondaryIndexes"] == [
        {
            "IndexName": "WorkflowLSI",
            "KeyAttributes": {
                "PartitionKey": {"AttributeName": "databaseId:assetId", "AttributeType": "S"},
                "SortKey": {"AttributeName": "workflowDatabaseId:workflowId", "AttributeType": "S"},
            },
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }
    ]
    assert [g["IndexName"] for g in table["GlobalSecondaryIndexes"]] == ["WorkflowGSI", "ExecutionIdGSI"]
    version = next(i for i in table["TableData"] if i["_type"] == {"S": "AssetVersion"})
    assert version["executionId"] == {"S": "version#<assetVersionId:6>"}
    assert version["isArchived"] == {"BOOL": False}


def test_export_is_deterministic(monkeypatch):
    for name in SCHEMAS:
        assert export_workbench(load(name), "t-1", now=NOW) == export_workbench(load(name), "t-1", now=NOW)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert export_workbench(load("ioto"), "t-1")["ModelMetadata"]["DateCreated"] == "Jan 01, 1970, 12:00 AM"


# -- round trip --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_round_trip_keeps_indexes_models_and_key_templates(name):
    original = load(name)
    back = import_workbench(export_workbench(original, "t-1", now=NOW))
    assert validate_schema(back) == []
    imported = load_schema(back)
    assert signature(imported) == signature(original)
    # and again: a second trip changes nothing more
    again = import_workbench(export_workbench(imported, "t-1", now=NOW))
    assert again == back


def test_round_trip_details():
    back = import_workbench(export_workbench(load("ioto"), "ioto", now=NOW))
    assert back["params"] == {"timestamps": True, "isoDates": True}
    assert back["models"]["Fault"]["pk"] == {"type": "string", "value": "device#${deviceId}"}
    assert back["models"]["Fault"]["sk"] == {"type": "string", "value": "fault#${id}"}
    assert back["models"]["Status"]["pk"] == {"type": "string", "value": "status#"}  # literal template
    assert back["models"]["Fault"]["deviceId"] == {"type": "string"}
    assert "_type" not in back["models"]["Fault"]  # OneTable adds the type field itself

    back = import_workbench(export_workbench(load("formkiq"), "fk1", now=NOW))
    assert back["params"]["typeField"] == "entity"
    site = back["models"]["Site"]
    assert site["GSI1PK"] == {"type": "string", "value": "sites"}
    assert site["GSI1SK"] == {"type": "string", "value": "sites#${status}#${siteId}"}
    assert back["models"]["Counter"]["SK"] == {"type": "string", "value": "seq#${n:8}"}
    assert back["models"]["Counter"]["n"] == {"type": "number"}
    assert back["models"]["Document"]["meta"] == {"type": "object"}
    assert back["indexes"]["GSI2"] == {"hash": "GSI2PK", "sort": "GSI2SK", "project": ["documentId", "path"]}

    back = import_workbench(export_workbench(load("vams"), "vams1", now=NOW))
    assert back["indexes"]["WorkflowLSI"] == {
        "type": "local",
        "sort": "workflowDatabaseId:workflowId",
        "project": "keys",
    }
    execution = back["models"]["WorkflowExecution"]
    # attribute names that are not field names get a field name and a map
    assert execution["databaseId_assetId"] == {
        "type": "string",
        "value": "${databaseId}:${assetId}",
        "map": "databaseId:assetId",
    }


# -- Workbench models made by hand -----------------------------------------------------------------------------

MUSIC = {
    "ModelName": "Music library",
    "ModelMetadata": {
        "Author": "",
        "Description": "Songs and their downloads",
        "AWSService": "Amazon DynamoDB",
        "Version": "3.0",
    },
    "DataModel": [
        {
            "TableName": "Songs",
            "KeyAttributes": {
                "PartitionKey": {"AttributeName": "Id", "AttributeType": "S"},
                "SortKey": {"AttributeName": "Metadata", "AttributeType": "S"},
            },
            "NonKeyAttributes": [
                {"AttributeName": "Title", "AttributeType": "S"},
                {"AttributeName": "Plays", "AttributeType": "N"},
                {"AttributeName": "Explicit", "AttributeType": "BOOL"},
                {"AttributeName": "Genres", "AttributeType": "SS"},
                {"AttributeName": "DownloadMonth", "AttributeType": "S"},
            ],
            "TableFacets": [
                {
                    "FacetName": "Song details",
                    "KeyAttributeAlias": {"PartitionKeyAlias": "SongId", "SortKeyAlias": "Metadata"},
                    "NonKeyAttributes": ["Title", "Plays", "Explicit", "Genres"],
                },
                {
                    "FacetName": "MonthlyDownloads",
                    "KeyAttributeAlias": {
                        "PartitionKeyAlias": "song#<songId>",
                        "SortKeyAlias": "month#<DownloadMonth>",
                    },
                    "NonKeyAttributes": ["DownloadMonth", "Plays"],
                },
            ],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "ByMonth",
                    "KeyAttributes": {
                        "PartitionKey": {"AttributeName": "DownloadMonth", "AttributeType": "S"}
                    },
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            ],
            "BillingMode": "PAY_PER_REQUEST",
        }
    ],
}


def test_import_hand_made_model():
    doc = import_workbench(MUSIC)
    assert doc["name"] == "Music library"
    assert doc["description"] == "Songs and their downloads"
    assert doc["indexes"] == {
        "primary": {"hash": "Id", "sort": "Metadata"},
        "ByMonth": {"hash": "DownloadMonth", "project": "keys"},
    }
    details = doc["models"]["Song_details"]  # facet names become model names
    # friendly aliases without placeholders are just names: the keys are plain fields
    assert details == {
        "Id": {"type": "string"},
        "Metadata": {"type": "string"},
        "Title": {"type": "string"},
        "Plays": {"type": "number"},
        "Explicit": {"type": "boolean"},
        "Genres": {"type": "set"},
    }
    downloads = doc["models"]["MonthlyDownloads"]
    assert downloads["Id"] == {"type": "string", "value": "song#${songId}"}
    assert downloads["Metadata"] == {"type": "string", "value": "month#${DownloadMonth}"}
    assert downloads["songId"] == {"type": "string"}  # referenced, so defined
    schema = load_schema(doc)
    assert schema.model("MonthlyDownloads").has_index("ByMonth")
    assert not schema.model("Song_details").has_index("ByMonth")


def test_import_model_without_facets_and_table_choice():
    two = json.loads(json.dumps(MUSIC))
    catalog = {
        "TableName": "Catalog",
        "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
        "NonKeyAttributes": [
            {"AttributeName": "name", "AttributeType": "S"},
            {"AttributeName": "stock", "AttributeType": "N"},
        ],
        "TableData": [{"PK": {"S": "P#1"}, "name": {"S": "Model 3"}, "stock": {"N": "70"}}],
    }
    two["DataModel"].append(catalog)
    with pytest.raises(SchemaError, match="the model has 2 tables \\(Songs, Catalog\\); choose one"):
        import_workbench(two)
    with pytest.raises(SchemaError, match="no table 'Nope'"):
        import_workbench(two, table="Nope")
    doc = import_workbench(two, table="Catalog", version="2.1.0")
    assert doc["version"] == "2.1.0"
    assert doc["models"] == {
        "Catalog": {"PK": {"type": "string"}, "name": {"type": "string"}, "stock": {"type": "number"}}
    }


def test_import_rejects_what_is_not_a_model():
    with pytest.raises(SchemaError, match="needs a DataModel list"):
        import_workbench({"ModelName": "x"})
    with pytest.raises(SchemaError, match="PartitionKey"):
        import_workbench({"DataModel": [{"TableName": "t"}]})


# -- the commands ------------------------------------------------------------------------------------------


def test_workbench_commands_round_trip(capsys, tmp_path):
    model_path = tmp_path / "model.json"
    result = run(capsys, "iac", FORMKIQ, "--table", "formkiq", "--format", "workbench", "--out", model_path)
    assert result.code == 0, result.err
    model = json.loads(model_path.read_text())
    assert model["DataModel"][0]["TableName"] == "formkiq"

    schema_path = tmp_path / "back.json"
    result = run(capsys, "import-workbench", model_path, "--out", schema_path)
    assert result.code == 0, result.err
    assert "6 models, 3 indexes" in result.err
    assert run(capsys, "validate", schema_path).code == 0
    assert signature(load_schema(schema_path)) == signature(load("formkiq"))

    yaml_path = tmp_path / "back.yaml"
    assert run(capsys, "import-workbench", model_path, "-o", yaml_path).code == 0
    assert yaml.safe_load(yaml_path.read_text()) == json.loads(schema_path.read_text())

    # docs of the imported schema show the same key formats
    result = run(capsys, "docs", schema_path)
    assert "| GSI2 PK | GSI2 | `GSI2PK` | `<siteId>/tag#<tagKey>` |" in result.out


def test_import_workbench_command_errors(capsys, tmp_path):
    assert run(capsys, "import-workbench", tmp_path / "missing.json", "--out", tmp_path / "s.json").code == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = run(capsys, "import-workbench", bad, "--out", tmp_path / "s.json")
    assert result.code == 1 and "not JSON" in result.err
    bad.write_text('{"DataModel": []}')
    result = run(capsys, "import-workbench", bad, "--out", tmp_path / "s.json")
    assert result.code == 1 and "DataModel: a NoSQL Workbench model needs a DataModel list" in result.err
    assert not (tmp_path / "s.json").exists()
    assert run(capsys, "import-workbench", bad).code == 2  # --out is required


def test_ioto_export_cli_matches_api(capsys, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    result = run(capsys, "iac", IOTO, "--table", "ioto", "--format", "workbench")
    assert json.loads(result.out) == export_workbench(load("ioto"), "ioto")
