"""The VAMS example (``examples/vams``) against its data-model page, on every backend.

The page's tables, keys, indexes and streams and its search schemas are written out here independently of the
example's schema files, so the tests check the example against the page, not against itself. Items are read
back raw with the low-level client (``get_item`` with the literal composite keys the page describes).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import pytest
from vams import tables as vams_tables
from vams.vams import (
    ASSET_INDEX,
    FILE_INDEX,
    SEARCH_DIR,
    ConflictError,
    NotFoundError,
    SearchIndex,
    SearchProjector,
    StreamPoller,
    Vams,
    check_document,
    drain,
    follow_in_process,
    sample_rows,
    write_samples,
)

from dynabase.schema import validate_schema
from dynabase.streams import SqliteCheckpoints

# == the page ==================================================================================================

K, A = "KEYS_ONLY", "ALL"

#: table -> (hash, sort), stream, {GSI: (hash, sort, projection)}, {LSI: sort}; from the page (the projections
#: the page leaves open -- ApiKeyStorageTable's and bucketNameGSI -- are ALL, keys inferred from the names)
PAGE_TABLES: dict[str, dict[str, Any]] = {
    "AssetStorageTable": {
        "keys": ("databaseId", "assetId"),
        "stream": "NEW_IMAGE",
        "gsis": {"BucketIdGSI": ("bucketId", "assetId", K), "assetIdGSI": ("assetId", "databaseId", K)},
    },
    "DatabaseStorageTable": {"keys": ("databaseId", None), "stream": "NEW_IMAGE"},
    "AssetVersionsStorageTableV2": {"keys": ("databaseId:assetId", "assetVersionId")},
    "AssetFileVersionsStorageTableV2": {
        "keys": ("databaseId:assetId:assetVersionId", "fileKey"),
        "gsis": {"databaseIdAssetIdIndex": ("databaseId:assetId", None, A)},
    },
    "AssetFileMetadataVersionsStorageTable": {
        "keys": ("databaseId:assetId:assetVersionId", "type:filePath:metadataKey"),
        "gsis": {"databaseIdAssetIdIndex": ("databaseId:assetId", None, A)},
    },
    "AssetUploadsStorageTable": {
        "keys": ("uploadId", "assetId"),
        "gsis": {
            "AssetIdGSI": ("assetId", "uploadId", K),
            "DatabaseIdGSI": ("databaseId", "uploadId", K),
            "UserIdGSI": ("UserId", "createdAt", K),
        },
    },
    "DatabaseMetadataStorageTableV2": {
        "keys": ("metadataKey", "databaseId"),
        "stream": "NEW_IMAGE",
        "gsis": {"DatabaseIdIndex": ("databaseId", "metadataKey", A)},
    },
    "AssetFileMetadataStorageTableV2": {
        "keys": ("metadataKey", "databaseId:assetId:filePath"),
        "stream": "NEW_IMAGE",
        "gsis": {
            "DatabaseIdAssetIdFilePathIndex": ("databaseId:assetId:filePath", "metadataKey", A),
            "DatabaseIdAssetIdIndex": ("databaseId:assetId", "metadataKey", A),
        },
    },
    "FileAttributeStorageTableV2": {
        "keys": ("attributeKey", "databaseId:assetId:filePath"),
        "stream": "NEW_IMAGE",
        "gsis": {
            "DatabaseIdAssetIdFilePathIndex": ("databaseId:assetId:filePath", "attributeKey", A),
            "DatabaseIdAssetIdIndex": ("databaseId:assetId", "attributeKey", A),
        },
    },
    "MetadataSchemaStorageTableV2": {
        "keys": ("metadataSchemaId", "databaseId:metadataEntityType"),
        "gsis": {
            "DatabaseIdMetadataEntityTypeIndex": ("databaseId:metadataEntityType", "metadataSchemaId", A),
            "MetadataEntityTypeIndex": ("metadataEntityType", "metadataSchemaId", A),
            "DatabaseIdIndex": ("databaseId", "metadataSchemaId", A),
        },
    },
    "AssetLinksStorageTableV2": {
        "keys": ("assetLinkId", None),
        "stream": "NEW_IMAGE",
        "gsis": {
            "fromAssetGSI": ("fromAssetDatabaseId:fromAssetId", "toAssetDatabaseId:toAssetId", K),
            "toAssetGSI": ("toAssetDatabaseId:toAssetId", "fromAssetDatabaseId:fromAssetId", K),
        },
    },
    "AssetLinksMetadataStorageTable": {"keys": ("assetLinkId", "metadataKey"), "stream": "NEW_IMAGE"},
    "PipelineStorageTable": {"keys": ("databaseId", "pipelineId")},
    "WorkflowStorageTable": {"keys": ("databaseId", "workflowId")},
    "WorkflowExecutionsStorageTable": {
        "keys": ("databaseId:assetId", "executionId"),
        "lsis": {"WorkflowLSI": "workflowDatabaseId:workflowId"},
        "gsis": {
            "WorkflowGSI": ("workflowDatabaseId:workflowId", "executionId", K),
            "ExecutionIdGSI": ("workflowId", "executionId", K),
        },
    },
    "ConstraintsStorageTable": {
        "keys": ("constraintId", None),
        "gsis": {
            "GroupPermissionsIndex": ("groupId", "objectType", A),
            "UserPermissionsIndex": ("userId", "objectType", A),
            "ObjectTypeIndex": ("objectType", "constraintId", A),
        },
    },
    "AuthEntitiesStorageTable": {"keys": ("entityType", "sk")},
    "RolesStorageTable": {"keys": ("roleName", None)},
    "UserRolesStorageTable": {"keys": ("userId", "roleName")},
    "UserStorageTable": {"keys": ("userId", None)},
    "ApiKeyStorageTable": {
        "keys": ("apiKeyId", None),
        "gsis": {"apiKeyHashIndex": ("apiKeyHash", None, A), "userIdIndex": ("userId", "apiKeyId", A)},
    },
    "TagStorageTable": {"keys": ("tagName", None)},
    "TagTypeStorageTable": {"keys": ("tagTypeName", None)},
    "SubscriptionsStorageTable": {"keys": ("eventName", "entityName_entityId")},
    "CommentStorageTable": {"keys": ("assetId", "assetVersionId:commentId")},
    "AppFeatureEnabledStorageTable": {"keys": ("featureName", None)},
    "S3AssetBucketsStorageTable": {
        "keys": ("bucketId", "bucketName:baseAssetsPrefix"),
        "gsis": {"bucketNameGSI": ("bucketName", "baseAssetsPrefix", A)},
    },
}

TEXT_KW = {"type": "text", "fields": {"keyword": {"type": "keyword"}}}
PAGE_DYNAMIC_TEMPLATES = {
    "dynamic_templates": [
        {"core_strings": {"match": "str_*", "mapping": TEXT_KW}},
        {"core_numeric": {"match": "num_*", "mapping": {"type": "long"}}},
        {"core_boolean": {"match": "bool_*", "mapping": {"type": "boolean"}}},
        {"core_dates": {"match": "date_*", "mapping": {"type": "date"}}},
        {"core_lists": {"match": "list_*", "mapping": TEXT_KW}},
    ]
}
ASSET_FIELDS = [
    "str_databaseid",
    "str_assetid",
    "str_assetname",
    "str_assettype",
    "str_description",
    "str_bucketid",
    "str_bucketname",
    "str_bucketprefix",
    "str_asset_version_id",
    "str_asset_version_comment",
    "str_assetlocationkey",
    "str_previewfilekey",
    "bool_isdistributable",
    "list_tags",
    "date_asset_version_createdate",
    "bool_has_asset_children",
    "bool_has_asset_parents",
    "bool_has_assets_related",
    "bool_archived",
    "MD_",
    "_rectype",
]
FILE_FIELDS = [
    "str_key",
    "str_databaseid",
    "str_assetid",
    "str_assetname",
    "str_bucketid",
    "str_bucketname",
    "str_bucketprefix",
    "str_fileext",
    "str_etag",
    "str_s3_version_id",
    "str_previewfilekey",
    "date_lastmodified",
    "num_filesize",
    "bool_archived",
    "list_tags",
    "MD_",
    "AB_",
    "_rectype",
]


def page_type(field: str) -> dict[str, Any]:
    if field in ("MD_", "AB_"):
        return {"type": "flat_object"}
    if field == "_rectype":
        return {"type": "keyword"}
    prefix = field.split("_", 1)[0] + "_"
    return {
        "str_": TEXT_KW,
        "list_": TEXT_KW,
        "bool_": {"type": "boolean"},
        "date_": {"type": "date"},
        "num_": {"type": "long"},
    }[prefix]


# == fixtures ==================================================================================================


@pytest.fixture(scope="module")
def app(backend: Any) -> Any:
    """The 27 tables on the backend under test, once per module (names prefixed), deleted at the end."""
    vams = Vams(backend.client(), prefix=f"vams-{uuid.uuid4().hex[:8]}-")
    vams.create_tables()
    vams.add_bucket("bkt-1", "vams-assets", "/")
    vams.add_bucket("bkt-2", "vams-archive", "assets/")
    try:
        yield vams
    finally:
        vams.delete_tables()


@pytest.fixture
def db(app: Vams) -> str:
    """A fresh database (tests share the tables, never a database)."""
    database_id = f"db-{uuid.uuid4().hex[:10]}"
    app.add_bucket(f"bkt-{database_id}", f"vams-{database_id}", "/")  # asset ids are unique per bucket
    app.create_database(database_id, "test", default_bucket_id=f"bkt-{database_id}")
    return database_id


def bucket_of(app: Vams, db: str) -> Any:
    return app.buckets[f"vams-{db}"]


def S(value: str) -> dict[str, str]:
    return {"S": value}


def raw_get(client: Any, app: Vams, table: str, **key: str) -> dict[str, Any] | None:
    return client.get_item(
        TableName=app.tables.physical(table), Key={k: S(v) for k, v in key.items()}, ConsistentRead=True
    ).get("Item")


def key_names(items: list[dict[str, Any]]) -> list[set[str]]:
    return [set(item) for item in items]


# == tables and indexes ========================================================================================


def test_example_has_every_table_of_the_page() -> None:
    assert list(vams_tables.TABLE_NAMES) == list(PAGE_TABLES)
    assert len(PAGE_TABLES) == 27


@pytest.mark.parametrize("name", list(PAGE_TABLES))
def test_schema_files_are_clean_onetable_documents(name: str) -> None:
    spec = vams_tables.SPECS[name]
    document = json.loads(spec.path.read_text())
    assert document["format"] == "onetable:1.1.0"
    assert validate_schema(document, warnings=True) == []
    assert len(document["models"]) == 1
    assert spec.stream == PAGE_TABLES[name].get("stream")


def test_every_table_exists_with_keys_indexes_and_stream(app: Vams, client: Any, backend_name: str) -> None:
    assert app.tables.pitr == (backend_name != "dynamodb-local")
    for name, page in PAGE_TABLES.items():
        table = client.describe_table(TableName=app.tables.physical(name))["Table"]
        hash_key, sort_key = page["keys"]
        expected_keys = [{"AttributeName": hash_key, "KeyType": "HASH"}]
        if sort_key:
            expected_keys.append({"AttributeName": sort_key, "KeyType": "RANGE"})
        assert table["KeySchema"] == expected_keys, name
        types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
        assert set(types.values()) == {"S"}, name  # every key attribute on the page is a String
        assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST", name

        gsis = {
            g["IndexName"]: (
                g["KeySchema"][0]["AttributeName"],
                g["KeySchema"][1]["AttributeName"] if len(g["KeySchema"]) > 1 else None,
                g["Projection"]["ProjectionType"],
            )
            for g in table.get("GlobalSecondaryIndexes", [])
        }
        assert gsis == page.get("gsis", {}), name
        lsis = {
            i["IndexName"]: (i["KeySchema"][0]["AttributeName"], i["KeySchema"][1]["AttributeName"])
            for i in table.get("LocalSecondaryIndexes", [])
        }
        assert lsis == {n: (hash_key, s) for n, s in page.get("lsis", {}).items()}, name
        for index in table.get("LocalSecondaryIndexes", []):
            assert index["Projection"]["ProjectionType"] == "ALL"

        if app.tables.pitr:  # the page: point-in-time recovery on every table (DynamoDB Local has no PITR)
            backups = client.describe_continuous_backups(TableName=app.tables.physical(name))
            pitr = backups["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
            assert pitr["PointInTimeRecoveryStatus"] == "ENABLED", name
        stream = table.get("StreamSpecification") or {}
        if page.get("stream"):
            assert stream == {"StreamEnabled": True, "StreamViewType": page["stream"]}, name
            assert table.get("LatestStreamArn"), name
        else:
            assert not stream.get("StreamEnabled"), name


# == key formats ===============================================================================================


def test_asset_record_and_its_indexes(app: Vams, client: Any, db: str) -> None:
    app.create_asset(db, "x-pump", name="Pump", asset_type="e57", tags=["pump"], description="scan")
    item = raw_get(client, app, "AssetStorageTable", databaseId=db, assetId="x-pump")
    assert item["databaseId"] == S(db) and item["assetId"] == S("x-pump")
    assert item["assetName"] == S("Pump") and item["tags"] == {"L": [S("pump")]}
    assert item["bucketId"] == S(f"bkt-{db}") and item["assetLocation"] == {"M": {"Key": S("x-pump/")}}
    assert item["isDistributable"] == {"BOOL": True}
    assert {"createdAt", "updatedAt"} <= set(item)
    # assetIdGSI (keys only): assetId -> the databaseId partition
    rows = client.query(
        TableName=app.tables.physical("AssetStorageTable"),
        IndexName="assetIdGSI",
        KeyConditionExpression="assetId = :a",
        ExpressionAttributeValues={":a": S("x-pump")},
    )["Items"]
    assert {"databaseId": S(db), "assetId": S("x-pump")} in rows
    assert all(set(row) == {"databaseId", "assetId"} for row in rows)
    assert db in app.locate_asset("x-pump")
    assert app.assets_in_bucket(f"bkt-{db}") == ["x-pump"]


def test_composite_keys_are_colon_joined(app: Vams, client: Any, db: str) -> None:
    app.create_asset(db, "x1", name="One")
    app.create_asset(db, "x2", name="Two")
    app.upload_files(db, "x1", {"/dir/a.obj": b"obj"}, user_id="u1")
    app.set_metadata(db, "x1", "partNumber", "P-1")
    app.set_metadata(db, "x1", "scanner", "FARO", file_path="/dir/a.obj")
    app.set_attribute(db, "x1", "/dir/a.obj", "vertexCount", "8", "number")
    app.create_version(db, "x1", comment="v1")
    link = app.link_assets(db, "x1", db, "x2", "parentChild")
    app.record_execution(db, "x1", "GLOBAL", "wf-1", execution_id="e-1")

    assert raw_get(
        client,
        app,
        "AssetVersionsStorageTableV2",
        **{"databaseId:assetId": f"{db}:x1", "assetVersionId": "1"},
    )
    files = raw_get(
        client,
        app,
        "AssetFileVersionsStorageTableV2",
        **{"databaseId:assetId:assetVersionId": f"{db}:x1:1", "fileKey": "/dir/a.obj"},
    )
    assert files["databaseId:assetId"] == S(f"{db}:x1") and files["key"] == S("x1/dir/a.obj")
    for sort_key in (
        "metadata:/:partNumber",
        "metadata:/dir/a.obj:scanner",
        "attribute:/dir/a.obj:vertexCount",
    ):
        snapshot = raw_get(
            client,
            app,
            "AssetFileMetadataVersionsStorageTable",
            **{"databaseId:assetId:assetVersionId": f"{db}:x1:1", "type:filePath:metadataKey": sort_key},
        )
        assert snapshot is not None, sort_key
        assert snapshot["databaseId:assetId"] == S(f"{db}:x1")
    metadata = raw_get(
        client,
        app,
        "AssetFileMetadataStorageTableV2",
        **{"metadataKey": "partNumber", "databaseId:assetId:filePath": f"{db}:x1:/"},
    )
    assert metadata["metadataValue"] == S("P-1") and metadata["databaseId:assetId"] == S(f"{db}:x1")
    attribute = raw_get(
        client,
        app,
        "FileAttributeStorageTableV2",
        **{"attributeKey": "vertexCount", "databaseId:assetId:filePath": f"{db}:x1:/dir/a.obj"},
    )
    assert attribute["attributeValue"] == S("8") and attribute["attributeValueType"] == S("number")
    stored_link = raw_get(client, app, "AssetLinksStorageTableV2", assetLinkId=link["assetLinkId"])
    assert stored_link["fromAssetDatabaseId:fromAssetId"] == S(f"{db}:x1")
    assert stored_link["toAssetDatabaseId:toAssetId"] == S(f"{db}:x2")
    execution = raw_get(
        client,
        app,
        "WorkflowExecutionsStorageTable",
        **{"databaseId:assetId": f"{db}:x1", "executionId": "e-1"},
    )
    assert execution["workflowDatabaseId:workflowId"] == S("GLOBAL:wf-1") and execution["workflowId"] == S(
        "wf-1"
    )
    bucket = raw_get(
        client,
        app,
        "S3AssetBucketsStorageTable",
        **{"bucketId": "bkt-2", "bucketName:baseAssetsPrefix": "vams-archive:assets/"},
    )
    assert bucket["baseAssetsPrefix"] == S("assets/")


def test_every_other_table_key_format(app: Vams, client: Any) -> None:
    write_samples(app)
    rows = sample_rows()
    expected = {
        "MetadataSchemaStorageTableV2": {
            "metadataSchemaId": "schema-1",
            "databaseId:metadataEntityType": "engineering:assetMetadata",
        },
        "ConstraintsStorageTable": {"constraintId": "c-1"},
        "AuthEntitiesStorageTable": {"entityType": "constraint", "sk": "constraint#c-1"},
        "RolesStorageTable": {"roleName": "engineers"},
        "UserRolesStorageTable": {"userId": "ana@example.com", "roleName": "engineers"},
        "UserStorageTable": {"userId": "ana@example.com"},
        "ApiKeyStorageTable": {"apiKeyId": "key-1"},
        "TagStorageTable": {"tagName": "pump"},
        "TagTypeStorageTable": {"tagTypeName": "equipment"},
        "SubscriptionsStorageTable": {
            "eventName": "Asset Version Change",
            "entityName_entityId": "Asset#x-pump",
        },
        "CommentStorageTable": {
            "assetId": "x-pump",
            "assetVersionId:commentId": "1:01J0000000000000000000000C",
        },
        "AppFeatureEnabledStorageTable": {"featureName": "AUTHPROVIDER_COGNITO"},
    }
    assert set(expected) == set(rows)
    for table, key in expected.items():
        assert raw_get(client, app, table, **key) is not None, table

    def query(table: str, index: str, **key: str) -> list[dict[str, Any]]:
        names = {f"#k{i}": k for i, k in enumerate(key)}
        return client.query(
            TableName=app.tables.physical(table),
            IndexName=index,
            KeyConditionExpression=" and ".join(f"#k{i} = :v{i}" for i in range(len(key))),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues={f":v{i}": S(v) for i, v in enumerate(key.values())},
        )["Items"]

    assert query(
        "MetadataSchemaStorageTableV2",
        "DatabaseIdMetadataEntityTypeIndex",
        **{"databaseId:metadataEntityType": "engineering:assetMetadata"},
    )
    assert query(
        "MetadataSchemaStorageTableV2", "MetadataEntityTypeIndex", metadataEntityType="assetMetadata"
    )
    assert query("MetadataSchemaStorageTableV2", "DatabaseIdIndex", databaseId="engineering")
    assert query("ConstraintsStorageTable", "GroupPermissionsIndex", groupId="engineers", objectType="asset")
    assert query("ConstraintsStorageTable", "ObjectTypeIndex", objectType="asset")
    assert query("ApiKeyStorageTable", "apiKeyHashIndex", apiKeyHash=rows["ApiKeyStorageTable"]["apiKeyHash"])
    assert query("ApiKeyStorageTable", "userIdIndex", userId="ana@example.com")
    assert query(
        "S3AssetBucketsStorageTable", "bucketNameGSI", bucketName="vams-assets", baseAssetsPrefix="/"
    )


def test_uploads_and_workflow_execution_indexes(app: Vams, client: Any, db: str) -> None:
    app.create_asset(db, "x1", name="One")
    user = f"user-{uuid.uuid4().hex[:6]}"
    first = app.upload_files(db, "x1", {"/a.txt": b"a"}, user_id=user)
    time.sleep(0.005)  # distinct createdAt (the GSI's sort key, milliseconds)
    second = app.upload_files(db, "x1", {"/b.txt": b"b"}, user_id=user)
    by_user = app.uploads_of_user(user)
    assert [u["uploadId"] for u in by_user] == [first["uploadId"], second["uploadId"]]  # createdAt order
    assert {u["uploadId"] for u in app.uploads_of_database(db)} == {first["uploadId"], second["uploadId"]}
    rows = client.query(
        TableName=app.tables.physical("AssetUploadsStorageTable"),
        IndexName="UserIdGSI",
        KeyConditionExpression="UserId = :u",
        ExpressionAttributeValues={":u": S(user)},
    )["Items"]
    assert key_names(rows) == [{"uploadId", "assetId", "UserId", "createdAt"}] * 2  # keys only

    app.record_execution(db, "x1", db, "wf-a", execution_id="e1")
    app.record_execution(db, "x1", db, "wf-b", execution_id="e2")
    app.record_execution(db, "x1", "GLOBAL", "wf-a", execution_id="e3")
    assert [e["executionId"] for e in app.executions_of_asset(db, "x1")] == ["e1", "e2", "e3"]
    assert [e["executionId"] for e in app.executions_of_asset(db, "x1", db, "wf-a")] == ["e1"]  # the LSI
    lsi = client.query(
        TableName=app.tables.physical("WorkflowExecutionsStorageTable"),
        IndexName="WorkflowLSI",
        KeyConditionExpression="#h = :h and #s = :s",
        ExpressionAttributeNames={"#h": "databaseId:assetId", "#s": "workflowDatabaseId:workflowId"},
        ExpressionAttributeValues={":h": S(f"{db}:x1"), ":s": S("GLOBAL:wf-a")},
    )["Items"]
    assert [i["executionId"] for i in lsi] == [S("e3")] and "executionStatus" in lsi[0]  # LSI projects ALL
    assert [e["executionId"] for e in app.executions_of_workflow(db, "wf-b")] == ["e2"]
    assert {"e1", "e3"} <= set(app.execution_ids_of_workflow_id("wf-a"))


# == archive / unarchive =======================================================================================


def partitions(client: Any, app: Vams, db: str, asset_id: str) -> tuple[Any, Any]:
    return (
        raw_get(client, app, "AssetStorageTable", databaseId=db, assetId=asset_id),
        raw_get(client, app, "AssetStorageTable", databaseId=f"{db}#deleted", assetId=asset_id),
    )


def test_archive_and_unarchive_move_the_asset_between_partitions(app: Vams, client: Any, db: str) -> None:
    app.create_asset(db, "x1", name="One", tags=["t"])
    app.upload_files(db, "x1", {"/a.txt": b"a"}, user_id="u")
    app.create_version(db, "x1", comment="v1")
    live_before, _ = partitions(client, app, db, "x1")

    app.archive_asset(db, "x1")
    live, archived = partitions(client, app, db, "x1")
    assert live is None
    assert archived["databaseId"] == S(f"{db}#deleted") and archived["assetId"] == S("x1")
    unchanged = {k: v for k, v in live_before.items() if k not in ("databaseId", "updatedAt")}
    assert {k: archived[k] for k in unchanged} == unchanged  # the same record, moved
    assert [a["assetId"] for a in app.list_assets(db)] == []
    assert [a["assetId"] for a in app.list_assets(db, archived=True)] == ["x1"]
    assert app.get_version(db, "x1", "1")["isArchived"] is True
    assert app.locate_asset("x1").count(f"{db}#deleted") == 1
    bucket = bucket_of(app, db)
    assert bucket.latest("x1/a.txt").delete_marker  # files archived on the S3 side

    app.unarchive_asset(db, "x1")
    live, archived = partitions(client, app, db, "x1")
    assert archived is None and live["databaseId"] == S(db)
    assert {k: live[k] for k in unchanged} == unchanged
    assert app.get_version(db, "x1", "1")["isArchived"] is False
    assert not bucket.latest("x1/a.txt").delete_marker


def test_archive_is_atomic_when_the_deleted_partition_is_taken(app: Vams, client: Any, db: str) -> None:
    app.create_asset(db, "x1", name="One")
    app.create_version(db, "x1")
    stale = {"databaseId": S(f"{db}#deleted"), "assetId": S("x1"), "assetName": S("stale copy")}
    client.put_item(TableName=app.tables.physical("AssetStorageTable"), Item=stale)
    before = partitions(client, app, db, "x1")

    with pytest.raises(ConflictError) as failure:
        app.archive_asset(db, "x1")
    assert "ConditionalCheckFailed" in failure.value.reasons
    assert partitions(client, app, db, "x1") == before  # neither partition changed
    assert app.get_version(db, "x1", "1")["isArchived"] is False  # nor the version


def test_unarchive_is_atomic_when_the_live_partition_is_taken(app: Vams, client: Any, db: str) -> None:
    app.create_asset(db, "x1", name="One")
    app.archive_asset(db, "x1")
    client.put_item(
        TableName=app.tables.physical("AssetStorageTable"),
        Item={"databaseId": S(db), "assetId": S("x1"), "assetName": S("new live asset")},
    )
    before = partitions(client, app, db, "x1")
    with pytest.raises(ConflictError):
        app.unarchive_asset(db, "x1")
    assert partitions(client, app, db, "x1") == before


def test_archive_fails_when_the_asset_changed_after_it_was_read(
    app: Vams, client: Any, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.create_asset(db, "x1", name="One")
    read = app.Asset.get
    stale = {**read({"databaseId": db, "assetId": "x1"})}
    time.sleep(
        0.005
    )  # updatedAt (milliseconds) is the optimistic-lock token: make the next write a later one
    app.update_asset(db, "x1", assetName="renamed meanwhile")
    before = partitions(client, app, db, "x1")
    monkeypatch.setattr(app.Asset, "get", lambda *a, **k: dict(stale))  # archive works from the stale read
    with pytest.raises(ConflictError):
        app.archive_asset(db, "x1")
    monkeypatch.undo()
    assert partitions(client, app, db, "x1") == before
    assert before[0]["assetName"] == S("renamed meanwhile")


def test_archive_errors(app: Vams, db: str) -> None:
    app.create_asset(db, "x1", name="One")
    app.archive_asset(db, "x1")
    with pytest.raises(NotFoundError):
        app.archive_asset(db, "x1")  # not live any more
    with pytest.raises(ConflictError):
        app.create_asset(db, "x1", name="reuse")  # the id is taken in the #deleted partition
    with pytest.raises(NotFoundError):
        app.unarchive_asset(db, "nope")


def test_asset_ids_are_unique_per_bucket(app: Vams, db: str) -> None:
    app.create_asset(db, "x1", name="One")
    other = f"{db}-b"
    app.create_database(other, "shares the bucket", default_bucket_id=f"bkt-{db}")
    with pytest.raises(ConflictError):  # its files would share the keys x1/... (BucketIdGSI)
        app.create_asset(other, "x1", name="clash")
    assert app.get_asset(other, "x1") is None


# == versions ==================================================================================================


def test_create_version_snapshots_files_and_metadata(app: Vams, client: Any, db: str) -> None:
    app.create_asset(db, "x1", name="One")
    bucket = bucket_of(app, db)
    app.upload_files(db, "x1", {"/a.obj": b"first", "/b/c.txt": b"c"}, user_id="u")
    app.set_metadata(db, "x1", "partNumber", "P-1")
    app.set_metadata(db, "x1", "material", "steel", file_path="/a.obj")
    app.set_attribute(db, "x1", "/a.obj", "vertexCount", "8", "number")
    v1 = app.create_version(db, "x1", comment="first", created_by="ana", alias="baseline")
    assert (v1["assetVersionId"], v1["comment"], v1["versionAlias"], v1["createdBy"], v1["isArchived"]) == (
        "1",
        "first",
        "baseline",
        "ana",
        False,
    )
    first_a = bucket.current("x1/a.obj").version_id

    app.upload_files(db, "x1", {"/a.obj": b"second!", "/d.txt": b"d"}, user_id="u")
    app.set_metadata(db, "x1", "partNumber", "P-2")
    app.set_attribute(db, "x1", "/a.obj", "vertexCount", "12", "number")
    app.create_version(db, "x1", comment="second")
    assert app.get_asset(db, "x1")["currentVersionId"] == "2"
    assert [v["assetVersionId"] for v in app.list_versions(db, "x1")] == ["1", "2"]

    files_1 = {f["fileKey"]: f for f in app.version_files(db, "x1", "1")}
    files_2 = {f["fileKey"]: f for f in app.version_files(db, "x1", "2")}
    assert sorted(files_1) == ["/a.obj", "/b/c.txt"] and sorted(files_2) == ["/a.obj", "/b/c.txt", "/d.txt"]
    assert files_1["/a.obj"]["s3VersionId"] == first_a and files_1["/a.obj"]["size"] == 5
    assert files_2["/a.obj"]["s3VersionId"] == bucket.current("x1/a.obj").version_id != first_a
    assert files_2["/a.obj"]["size"] == 7
    assert len(app.all_version_files(db, "x1")) == 5  # databaseIdAssetIdIndex: every version's files

    def values(version: str, **narrow: str) -> dict[str, str]:
        rows = app.version_metadata(db, "x1", version, **narrow)
        return {f"{r['type']}:{r['filePath']}:{r['metadataKey']}": r["metadataValue"] for r in rows}

    assert values("1") == {
        "attribute:/a.obj:vertexCount": "8",
        "metadata:/:partNumber": "P-1",
        "metadata:/a.obj:material": "steel",
    }
    assert values("2")["metadata:/:partNumber"] == "P-2"
    assert values("1", kind="metadata", file_path="/a.obj") == {"metadata:/a.obj:material": "steel"}
    assert values("2", kind="attribute") == {"attribute:/a.obj:vertexCount": "12"}
    raw = client.query(
        TableName=app.tables.physical("AssetFileMetadataVersionsStorageTable"),
        KeyConditionExpression="#h = :h and begins_with(#s, :p)",
        ExpressionAttributeNames={
            "#h": "databaseId:assetId:assetVersionId",
            "#s": "type:filePath:metadataKey",
        },
        ExpressionAttributeValues={":h": S(f"{db}:x1:1"), ":p": S("metadata:")},
    )["Items"]
    assert [r["type:filePath:metadataKey"]["S"] for r in raw] == [
        "metadata:/:partNumber",
        "metadata:/a.obj:material",
    ]

    updated = app.update_version(db, "x1", "1", alias="golden", comment="first, reviewed")
    assert (updated["versionAlias"], updated["comment"]) == ("golden", "first, reviewed")


def test_archived_assets_cannot_be_versioned(app: Vams, db: str) -> None:
    app.create_asset(db, "x1", name="One")
    app.archive_asset(db, "x1")
    with pytest.raises(NotFoundError):
        app.create_version(db, "x1")


# == links =====================================================================================================


def test_links_in_both_directions(app: Vams, client: Any, db: str) -> None:
    for asset_id in ("plant", "pump", "motor"):
        app.create_asset(db, asset_id, name=asset_id)
    parent = app.link_assets(db, "plant", db, "pump", "parentChild", metadata={"position": "bay 3"})
    app.link_assets(db, "pump", db, "motor", "related")

    def ends(links: dict[str, list[dict[str, Any]]]) -> dict[str, list[str]]:
        return {k: sorted(f"{v['fromAssetId']}>{v['toAssetId']}" for v in vs) for k, vs in links.items()}

    assert ends(app.links_of(db, "pump")) == {
        "children": [],
        "parents": ["plant>pump"],
        "related": ["pump>motor"],
    }
    assert ends(app.links_of(db, "plant")) == {"children": ["plant>pump"], "parents": [], "related": []}
    assert ends(app.links_of(db, "motor")) == {"children": [], "parents": [], "related": ["pump>motor"]}
    assert app.link_flags(db, "motor") == {"children": False, "parents": False, "related": True}

    incoming = client.query(
        TableName=app.tables.physical("AssetLinksStorageTableV2"),
        IndexName="toAssetGSI",
        KeyConditionExpression="#t = :t",
        ExpressionAttributeNames={"#t": "toAssetDatabaseId:toAssetId"},
        ExpressionAttributeValues={":t": S(f"{db}:pump")},
    )["Items"]
    assert incoming == [
        {
            "assetLinkId": S(parent["assetLinkId"]),
            "toAssetDatabaseId:toAssetId": S(f"{db}:pump"),
            "fromAssetDatabaseId:fromAssetId": S(f"{db}:plant"),
        }
    ]
    assert raw_get(
        client,
        app,
        "AssetLinksMetadataStorageTable",
        assetLinkId=parent["assetLinkId"],
        metadataKey="position",
    )

    with pytest.raises(ConflictError):
        app.link_assets(db, "plant", db, "pump", "parentChild")  # already linked
    links_before = len(app.links_of(db, "plant")["children"])
    with pytest.raises(ConflictError):
        app.link_assets(db, "plant", db, "ghost", "parentChild", metadata={"k": "v"})  # no such asset
    assert len(app.links_of(db, "plant")["children"]) == links_before

    app.unlink(parent["assetLinkId"])
    assert app.links_of(db, "pump")["parents"] == []
    assert app.link_metadata(parent["assetLinkId"]) == []


# == search documents from stream records ======================================================================


def test_search_mappings_reproduce_the_page() -> None:
    assert json.loads((SEARCH_DIR / "dynamic_templates.json").read_text()) == PAGE_DYNAMIC_TEMPLATES
    for index, fields, doc_id in (
        ("asset", ASSET_FIELDS, "{databaseId}:{assetId}"),
        ("file", FILE_FIELDS, "{databaseId}:{assetId}:{fileKey}"),
    ):
        mappings = json.loads((SEARCH_DIR / f"{index}_index.json").read_text())["mappings"]
        assert mappings["dynamic_templates"] == PAGE_DYNAMIC_TEMPLATES["dynamic_templates"]
        assert list(mappings["properties"]) == fields
        assert mappings["properties"] == {f: page_type(f) for f in fields}
        assert mappings["_meta"]["document_id"] == doc_id


def _projected(app: Vams, streams_client: Any) -> tuple[SearchProjector, StreamPoller]:
    projector = SearchProjector(app)
    return projector, StreamPoller(app, streams_client, from_start=False)


def test_search_documents_from_stream_records(app: Vams, client: Any, streams_client: Any, db: str) -> None:
    projector, poller = _projected(app, streams_client)
    app.create_asset(db, "x1", name="Pump P-1", asset_type="e57", tags=["pump", "site-a"], description="scan")
    app.create_asset(db, "x2", name="Plant")
    app.upload_files(
        db, "x1", {"/t/pump.e57": b"E57" * 10, "/t/pump.e57.previewFile.gif": b"GIF"}, user_id="u"
    )
    app.set_metadata(db, "x1", "partNumber", "P-1")
    app.set_metadata(db, "x1", "location", '{"lat": 47.6, "lon": -122.3}', "geopoint")
    app.set_metadata(db, "x1", "VAMS_sourceHash", "abc")  # excluded
    app.set_metadata(db, "x1", "_internal", "x")  # excluded
    app.set_metadata(db, "x1", "scanner", "FARO", file_path="/t/pump.e57")
    app.set_metadata(db, "x1", "VAMS_checksum", "c", file_path="/t/pump.e57")  # excluded
    app.set_attribute(db, "x1", "/t/pump.e57", "pointCount", "1200", "number")
    app.set_attribute(db, "x1", "/t/pump.e57", "_scratch", "1")  # excluded
    app.create_version(db, "x1", comment="first scan")
    app.link_assets(db, "x2", db, "x1", "parentChild")

    records = poller.poll()
    assert {t for t, _ in records} >= {
        "AssetStorageTable",
        "AssetFileMetadataStorageTableV2",
        "FileAttributeStorageTableV2",
        "AssetLinksStorageTableV2",
    }
    for table, record in records:
        assert record["dynamodb"]["StreamViewType"] == "NEW_IMAGE", table
    projector.handle_all(records)

    asset = projector.index.get(ASSET_INDEX, f"{db}:x1")
    assert check_document(asset, ASSET_INDEX) == []
    version = app.get_version(db, "x1", "1")
    assert asset == {
        "str_databaseid": db,
        "str_assetid": "x1",
        "str_assetname": "Pump P-1",
        "str_assettype": "e57",
        "str_description": "scan",
        "str_bucketid": f"bkt-{db}",
        "str_bucketname": f"vams-{db}",
        "str_bucketprefix": "/",
        "str_asset_version_id": "1",
        "str_asset_version_comment": "first scan",
        "str_assetlocationkey": "x1/",
        "bool_isdistributable": True,
        "list_tags": ["pump", "site-a"],
        "date_asset_version_createdate": version["createdAt"]
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "bool_has_asset_children": False,
        "bool_has_asset_parents": True,
        "bool_has_assets_related": False,
        "bool_archived": False,
        "MD_": {"partNumber": "P-1", "location": '{"lat": 47.6, "lon": -122.3}'},
        "gp_location": {"lat": 47.6, "lon": -122.3},
        "_rectype": "asset",
    }
    assert projector.index.get(ASSET_INDEX, f"{db}:x2")["bool_has_asset_children"] is True

    file_doc = projector.index.get(FILE_INDEX, f"{db}:x1:/t/pump.e57")
    assert check_document(file_doc, FILE_INDEX) == []
    current = bucket_of(app, db).current("x1/t/pump.e57")
    assert {k: v for k, v in file_doc.items() if k != "date_lastmodified"} == {
        "str_key": "x1/t/pump.e57",
        "str_databaseid": db,
        "str_assetid": "x1",
        "str_assetname": "Pump P-1",
        "str_bucketid": f"bkt-{db}",
        "str_bucketname": f"vams-{db}",
        "str_bucketprefix": "/",
        "str_fileext": "e57",
        "str_etag": current.etag,
        "str_s3_version_id": current.version_id,
        "str_previewfilekey": "x1/t/pump.e57.previewFile.gif",
        "num_filesize": 30,
        "bool_archived": False,
        "list_tags": ["pump", "site-a"],
        "MD_": {"scanner": "FARO"},
        "AB_": {"pointCount": "1200"},
        "_rectype": "file",
    }
    assert file_doc["date_lastmodified"].endswith("Z")
    assert (
        projector.index.get(FILE_INDEX, f"{db}:x1:/t/pump.e57.previewFile.gif") is None
    )  # previews are not files
    for doc in (asset, file_doc):
        assert not [f for f in doc if f.startswith(("VAMS_", "_")) and f != "_rectype"]
        assert not [k for k in (*doc.get("MD_", {}), *doc.get("AB_", {})) if k.startswith(("VAMS_", "_"))]

    # archive: REMOVE (keys only) from the live partition + INSERT into #deleted -> bool_archived
    app.archive_asset(db, "x1")
    records = poller.poll()
    asset_records = [
        (r["eventName"], r["dynamodb"]["Keys"]["databaseId"]["S"])
        for t, r in records
        if t == "AssetStorageTable"
    ]
    assert ("REMOVE", db) in asset_records and ("INSERT", f"{db}#deleted") in asset_records
    assert all("NewImage" not in r["dynamodb"] for t, r in records if r["eventName"] == "REMOVE")
    projector.handle_all(records)
    archived = projector.index.get(ASSET_INDEX, f"{db}:x1")
    assert archived["bool_archived"] is True and archived["str_databaseid"] == db
    assert projector.index.get(FILE_INDEX, f"{db}:x1:/t/pump.e57")["bool_archived"] is True

    # the two records of the transaction give the same document in either order
    for ordering in (records, list(reversed(records))):
        other = SearchProjector(app)
        other.handle_all(ordering)
        assert other.index.get(ASSET_INDEX, f"{db}:x1") == archived

    app.unarchive_asset(db, "x1")
    app.delete_metadata(db, "x1", "partNumber")  # a REMOVE on the metadata stream
    drain(poller, projector)
    restored = projector.index.get(ASSET_INDEX, f"{db}:x1")
    assert restored["bool_archived"] is False and "partNumber" not in restored["MD_"]
    assert projector.index.get(FILE_INDEX, f"{db}:x1:/t/pump.e57")["bool_archived"] is False

    # deleting the asset for good removes its documents
    app.Asset.remove({"databaseId": db, "assetId": "x1"})
    drain(poller, projector)
    assert projector.index.get(ASSET_INDEX, f"{db}:x1") is None
    assert projector.index.search(FILE_INDEX, str_assetid="x1", str_databaseid=db) == {}


def test_the_projection_restarts_from_its_checkpoint(
    app: Vams, streams_client: Any, db: str, tmp_path
) -> None:
    """Stopped and started again, the projection catches up with what changed while it was down (a poller
    restarting from LATEST would miss it), even when it stops before its first commit."""
    search, checkpoints = str(tmp_path / "search.db"), str(tmp_path / "checkpoints.db")

    def started() -> tuple[
        SearchProjector, StreamPoller
    ]:  # a new process: the index and checkpoints are files
        projector = SearchProjector(app, SearchIndex(search))
        return projector, StreamPoller(
            app, streams_client, from_start=False, checkpoints=SqliteCheckpoints(checkpoints)
        )

    started()  # stops before it ever polls
    app.create_asset(db, "r1", name="Written before the first poll")
    projector, poller = started()
    drain(poller, projector)
    assert projector.index.get(ASSET_INDEX, f"{db}:r1")["str_assetname"] == "Written before the first poll"

    app.create_asset(db, "r2", name="Written while it was down")  # the projection is stopped now
    app.archive_asset(db, "r1")
    projector, poller = started()
    drain(poller, projector)
    assert projector.index.get(ASSET_INDEX, f"{db}:r2")["str_assetname"] == "Written while it was down"
    assert projector.index.get(ASSET_INDEX, f"{db}:r1")["bool_archived"] is True
    projector, poller = started()  # nothing new: nothing projected again
    assert drain(poller, projector) == 0


def test_link_removal_reindexes_both_ends(app: Vams, streams_client: Any, db: str) -> None:
    projector, poller = _projected(app, streams_client)
    app.create_asset(db, "a", name="A")
    app.create_asset(db, "b", name="B")
    link = app.link_assets(db, "a", db, "b", "related")
    drain(poller, projector)
    assert projector.index.get(ASSET_INDEX, f"{db}:b")["bool_has_assets_related"] is True
    app.unlink(link["assetLinkId"])  # NEW_IMAGE: the REMOVE record carries only assetLinkId
    drain(poller, projector)
    assert projector.index.get(ASSET_INDEX, f"{db}:a")["bool_has_assets_related"] is False
    assert projector.index.get(ASSET_INDEX, f"{db}:b")["bool_has_assets_related"] is False


def test_bucket_events_index_files(app: Vams, db: str) -> None:
    projector = SearchProjector(app)
    bucket = bucket_of(app, db)
    app.create_asset(db, "x1", name="One", tags=["t"])
    bucket.subscribe(projector.handle_object_event)
    try:
        app.upload_files(
            db, "x1", {"/m/part.glb": b"glTF", "/m/part.glb.previewFile.png": b"png"}, user_id="u"
        )
        doc = projector.index.get(FILE_INDEX, f"{db}:x1:/m/part.glb")
        assert doc["str_previewfilekey"] == "x1/m/part.glb.previewFile.png" and doc["bool_archived"] is False
        bucket.delete_object("x1/m/part.glb")  # a delete marker: archived, still indexed
        assert projector.index.get(FILE_INDEX, f"{db}:x1:/m/part.glb")["bool_archived"] is True
        bucket.remove_delete_marker("x1/m/part.glb")
        assert projector.index.get(FILE_INDEX, f"{db}:x1:/m/part.glb")["bool_archived"] is False
    finally:
        bucket.unsubscribe(projector.handle_object_event)


def test_bucket_prefix_in_keys_and_documents(app: Vams, db: str) -> None:
    projector = SearchProjector(app)
    app.create_asset(db, "x9", name="Nine", bucket_id="bkt-2")
    app.upload_files(db, "x9", {"/a.txt": b"a"}, user_id="u")
    assert app.buckets["vams-archive"].keys("assets/x9/") == ["assets/x9/a.txt"]
    doc = projector.reindex_file(db, "x9", "/a.txt")
    assert (doc["str_key"], doc["str_bucketprefix"], doc["str_bucketname"]) == (
        "assets/x9/a.txt",
        "assets/",
        "vams-archive",
    )
    assert projector.reindex_asset(db, "x9")["str_assetlocationkey"] == "assets/x9/"


def test_follow_stream_in_process(app: Vams, db: str) -> None:
    if getattr(app.client, "engine", None) is None:
        pytest.skip("follow_stream is the embedded engine's in-process API")
    projector = SearchProjector(app)
    stop = threading.Event()
    threads = follow_in_process(app, projector.handle, stop=stop, tables=["AssetStorageTable"])
    try:
        app.create_asset(db, "live", name="Followed")
        app.archive_asset(db, "live")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            doc = projector.index.get(ASSET_INDEX, f"{db}:live")
            if doc and doc["bool_archived"]:
                break
            time.sleep(0.02)
        assert doc is not None and doc["bool_archived"] is True and doc["str_assetname"] == "Followed"
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
