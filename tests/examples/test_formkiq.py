"""FormKiQ (examples/formkiq): every entity's key formats as the seed page gives them, sites, and the access
patterns, on every backend (raw items read back with the low-level client)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from formkiq import formkiq as fk

from ddb_helpers import delete_table_quietly, unique_table_name
from dynabase.model import ConditionFailedError, NotFoundError, TransactionError, ValidationError

T0 = datetime(2024, 3, 5, 14, 7, 9, tzinfo=timezone.utc)
FULL = "2024-03-05T14:07:09+0000"
KEY_ATTRIBUTES = ("PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK")


@pytest.fixture
def table(client: Any):
    table = fk.open_table(client, unique_table_name("formkiq-"), create=True)
    yield table
    delete_table_quietly(client, table.name)


def raw_items(table) -> list[dict[str, Any]]:
    items, request = [], {"TableName": table.name, "ConsistentRead": True}
    while True:
        page = table.client.scan(**request)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def raw_keys(item: dict[str, Any]) -> dict[str, str]:
    return {k: item[k]["S"] for k in KEY_ATTRIBUTES if k in item}


def raw_item(table, pk: str, sk: str) -> dict[str, Any] | None:
    return table.client.get_item(
        TableName=table.name, Key={"PK": {"S": pk}, "SK": {"S": sk}}, ConsistentRead=True
    ).get("Item")


# == every entity of the page, with its key formats ============================================================

#: (model, properties, keys as the page gives them; "{p}" is the site prefix of site-scoped entities)
ENTITIES: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    (
        "Site",
        {"siteId": "s1", "title": "S", "status": "ACTIVE"},
        {"PK": "sites", "SK": "sites#s1", "GSI1PK": "sites", "GSI1SK": "sites#ACTIVE#s1"},
    ),
    (
        "SiteGroupPermission",
        {"groupName": "g1", "siteId": "s1", "permissions": ["READ"]},
        {"PK": "sitegroups", "SK": "group#g1#site#s1", "GSI1PK": "sitegroups", "GSI1SK": "site#s1#group#g1"},
    ),
    (
        "Document",
        {"documentId": "d1", "shortdate": "2024-03-05", "inserteddate": FULL, "path": "a.pdf"},
        {"PK": "{p}doc#d1", "SK": "document", "GSI1PK": "{p}2024-03-05", "GSI1SK": f"{FULL}#d1"},
    ),
    (
        "ChildDocument",
        {"belongsToDocumentId": "d1", "documentId": "c1"},
        {"PK": "{p}doc#d1", "SK": "document#c1"},
    ),
    (
        "SoftDeletedDocument",
        {"documentId": "d9", "shortdate": "2024-03-05", "inserteddate": FULL},
        {
            "PK": "{p}softdelete#doc#",
            "SK": "softdelete#documentd9",
            "GSI1PK": "{p}2024-03-05",
            "GSI1SK": f"{FULL}#d9",
        },
    ),
    (
        "DocumentOcr",
        {"documentId": "d1", "ocrEngine": "textract", "ocrStatus": "requested"},
        {"PK": "{p}doc#d1", "SK": "ocr#"},
    ),
    (
        "DocumentAction",
        {
            "documentId": "d1",
            "idx": 0,
            "type": "OCR",
            "status": "PENDING",
            "queueId": "q1",
            "inserteddate": FULL,
        },
        {
            "PK": "{p}doc#d1",
            "SK": "action#0#OCR",
            "GSI1PK": "{p}action#OCR#q1",
            "GSI1SK": f"action#d1#{FULL}",
            "GSI2PK": "{p}actions#PENDING",
            "GSI2SK": "action#d1",
        },
    ),
    (
        "DocumentTag",
        {"documentId": "d1", "tagKey": "cat", "tagValue": "inv", "inserteddate": FULL},
        {
            "PK": "{p}doc#d1",
            "SK": "tags#cat",
            "GSI1PK": "{p}tag#cat#inv",
            "GSI1SK": f"{FULL}#d1",
            "GSI2PK": "{p}tag#cat",
            "GSI2SK": f"inv#{FULL}#d1",
        },
    ),
    (
        "DocumentTagValue",
        {
            "documentId": "d1",
            "tagKey": "who",
            "index": 1,
            "tagValue": "bob",
            "tagValues": ["ann", "bob"],
            "inserteddate": FULL,
        },
        {
            "PK": "{p}doc#d1",
            "SK": "tags#who#idx1",
            "GSI1PK": "{p}tag#who#bob",
            "GSI1SK": f"{FULL}#d1",
            "GSI2PK": "{p}tag#who",
            "GSI2SK": f"bob#{FULL}#d1",
        },
    ),
    (
        "DocumentActivity",
        {"documentId": "d1", "type": "view", "userId": "joe", "inserteddate": FULL},
        {
            "PK": "{p}doc#d1",
            "SK": f"activity#{FULL}",
            "GSI1PK": "{p}activity#user#joe",
            "GSI1SK": f"activity#{FULL}#d1",
            "GSI2PK": "{p}activity#",
            "GSI2SK": f"activity#{FULL}#d1",
        },
    ),
    (
        "DocumentAttribute",
        {"documentId": "d1", "key": "amount", "value": "120", "valueType": "number", "numberValue": 120},
        {"PK": "{p}doc#d1", "SK": "attr#amount#120", "GSI1PK": "{p}doc#attr#amount", "GSI1SK": "120"},
    ),
    (
        "DocumentAttributeVersion",
        {"documentId": "d1", "key": "amount", "value": "100", "versionDate": "2024-03-05T14:07:09"},
        {"PK": "{p}doc#d1", "SK": "attr#amount#2024-03-05T14:07:09#100"},
    ),
    (
        "DocumentPublication",
        {"documentId": "d1", "path": "p.pdf", "s3Version": "v1"},
        {"PK": "{p}doc#d1", "SK": "publication"},
    ),
    (
        "Attribute",
        {"key": "amount", "documentId": "amount", "dataType": "number"},
        {"PK": "{p}attr#amount", "SK": "attribute", "GSI1PK": "{p}attr#", "GSI1SK": "attr#amount"},
    ),
    (
        "SiteSchema",
        {"entity": "document", "name": "n", "schema": {"a": 1}},
        {"PK": "{p}schemas", "SK": "site#document"},
    ),
    (
        "SiteCompositeKey",
        {"compositeKeyId": "u1", "keys": ["a", "b"], "joinedKeys": "a#b"},
        {
            "PK": "{p}schemas",
            "SK": "compositeKey#u1",
            "GSI1PK": "{p}schemas#compositeKey",
            "GSI1SK": "key#a#b",
        },
    ),
    (
        "SiteAttributeKey",
        {"key": "status"},
        {"PK": "{p}schemas", "SK": "attr#status", "GSI1PK": "{p}attr#status", "GSI1SK": "true"},
    ),
    (
        "SiteAttributeAllowedValue",
        {"key": "status", "value": "open"},
        {
            "PK": "{p}schemas",
            "SK": "attr#status#allowedvalue#open",
            "GSI1PK": "{p}attr#status#allowedvalue",
            "GSI1SK": "val#open",
        },
    ),
    (
        "Classification",
        {"documentId": "c1", "entity": "document", "name": "invoice"},
        {
            "PK": "{p}schemas#c1",
            "SK": "class#document",
            "GSI1PK": "{p}class#document",
            "GSI1SK": "attr#invoice",
        },
    ),
    (
        "ClassificationCompositeKey",
        {"documentId": "c1", "compositeKeyId": "u2", "keys": ["x"], "joinedKeys": "x"},
        {
            "PK": "{p}schemas#c1",
            "SK": "compositeKey#u2",
            "GSI1PK": "{p}schemas#compositeKey",
            "GSI1SK": "key#x",
        },
    ),
    (
        "ClassificationAttributeKey",
        {"documentId": "c1", "key": "currency"},
        {"PK": "{p}schemas#c1", "SK": "attr#currency", "GSI1PK": "{p}attr#currency", "GSI1SK": "true"},
    ),
    (
        "ClassificationAttributeAllowedValue",
        {"documentId": "c1", "key": "currency", "value": "EUR"},
        {
            "PK": "{p}schemas#c1",
            "SK": "attr#currency#allowedvalue#EUR",
            "GSI1PK": "{p}attr#currency#allowedvalue",
            "GSI1SK": "val#EUR",
        },
    ),
    (
        "Share",
        {"principalType": "group", "name": "auditors", "siteId": "s1", "documentId": "d1"},
        {"PK": "shares#group#auditors", "SK": "share#s1#d1"},
    ),
    (
        "DocumentShare",
        {"documentId": "sh1", "name": "team", "path": "invoices"},
        {"PK": "{p}shares#sh1", "SK": "share", "GSI1PK": "{p}share#team", "GSI1SK": "share#invoices#sh1"},
    ),
    (
        "Folder",
        {"parentDocumentId": "", "path": "invoices", "documentId": "f1"},
        {"PK": "{p}global#folders#", "SK": "ff#invoices", "GSI1PK": "{p}folder#f1", "GSI1SK": "folder"},
    ),
    (
        "FolderFile",
        {"parentDocumentId": "f1", "path": "a.pdf", "documentId": "d1"},
        {"PK": "{p}global#folders#f1", "SK": "fi#a.pdf"},
    ),
    (
        "Queue",
        {"documentId": "q1", "name": "review"},
        {"PK": "{p}queues#q1", "SK": "queue", "GSI1PK": "{p}queues#", "GSI1SK": "queue#review#q1"},
    ),
    (
        "Workflow",
        {"documentId": "w1", "name": "approve", "status": "ACTIVE"},
        {
            "PK": "{p}workflows#w1",
            "SK": "workflow",
            "GSI1PK": "{p}workflows#",
            "GSI1SK": "workflow#approve#w1",
            "GSI2PK": "{p}workflows#",
            "GSI2SK": "workflow#ACTIVE#approve#w1",
        },
    ),
    (
        "DocumentWorkflow",
        {"documentId": "d1", "workflowId": "w1", "workflowName": "approve"},
        {
            "PK": "{p}wfdoc#d1",
            "SK": "wf#w1",
            "GSI1PK": "{p}wfdoc#d1",
            "GSI1SK": "wf#approve#w1",
            "GSI2PK": "{p}wf#w1",
            "GSI2SK": "wfdoc#d1",
        },
    ),
    (
        "Case",
        {"documentId": "k1", "name": "audit"},
        {"PK": "{p}case#k1", "SK": "case", "GSI1PK": "{p}case#", "GSI1SK": "case#k1"},
    ),
    ("Task", {"caseId": "k1", "documentId": "t1", "name": "collect"}, {"PK": "{p}case#k1", "SK": "task#t1"}),
    ("Nigo", {"caseId": "k1", "documentId": "n1", "name": "unsigned"}, {"PK": "{p}case#k1", "SK": "nigo#n1"}),
    (
        "CaseDocument",
        {"caseId": "k1", "documentId": "d1", "type": "task", "objectId": "t1"},
        {"PK": "{p}case#k1", "SK": "doc#task#t1#d1"},
    ),
    (
        "Ruleset",
        {"documentId": "r1", "priority": 5, "status": "ACTIVE", "version": 1},
        {"PK": "{p}rulesets", "SK": "ruleset#ACTIVE#5#r1", "GSI1PK": "{p}ruleset#", "GSI1SK": "ruleset#r1"},
    ),
    (
        "Rule",
        {"rulesetId": "r1", "documentId": "u1", "priority": 2, "status": "ACTIVE"},
        {"PK": "{p}ruleset#r1", "SK": "rule#u1", "GSI1PK": "{p}ruleset#r1", "GSI1SK": "rule#2#u1"},
    ),
    (
        "RuleByStatus",
        {"rulesetId": "r1", "documentId": "u1", "priority": 2, "status": "ACTIVE"},
        {"PK": "{p}ruleset#", "SK": "rule#ACTIVE#r1#2#u1", "GSI1PK": "{p}ruleset#r1", "GSI1SK": "rule#u1"},
    ),
    (
        "Mapping",
        {"documentId": "m1", "name": "fields", "attributes": []},
        {"PK": "{p}mappings#m1", "SK": "mapping", "GSI1PK": "{p}mappings#", "GSI1SK": "mapping#fields"},
    ),
    (
        "ApiKey",
        {"apiKey": "KEY0123456789", "apiKeyMask": "KEY0****6789", "name": "ci", "siteId": "s1"},
        {
            "PK": "apikeys#",
            "SK": "apikey#KEY0123456789",
            "GSI1PK": "s1/apikeys#",
            "GSI1SK": "apikey#ciKEY0123456789",
            "GSI2PK": "s1/apikeys#",
            "GSI2SK": "apikey#KEY0****6789",
        },
    ),
    (
        "OpaPolicy",
        {"siteId": "s1", "policy": "package x"},
        {"PK": "controlpolicy#opa", "SK": "opa#full#s1#policy"},
    ),
    (
        "OpaPolicyItem",
        {"siteId": "s1", "index": 3, "policy": "allow"},
        {"PK": "controlpolicy#opa", "SK": "opa#item#s1#policy#3"},
    ),
]


def test_the_schema_has_every_entity_of_the_page(table):
    assert sorted(table.models) == sorted(name for name, _, _ in ENTITIES)
    assert len(table.models) == 40
    definition = table.describe_table()["Table"]
    assert [k["AttributeName"] for k in definition["KeySchema"]] == ["PK", "SK"]
    assert sorted(i["IndexName"] for i in definition["GlobalSecondaryIndexes"]) == ["GSI1", "GSI2"]


@pytest.mark.parametrize("site", ["default", "finance"])
def test_key_formats_of_every_entity(table, site):
    scoped = fk.site_table(table, site)
    prefix = "" if site == "default" else "finance/"
    for model, properties, _ in ENTITIES:
        scoped.model(model).create(dict(properties), exists=None)
    by_type = {item["_type"]["S"]: item for item in raw_items(table)}
    assert sorted(by_type) == sorted(name for name, _, _ in ENTITIES)
    for model, _, keys in ENTITIES:
        expected = {k: v.replace("{p}", prefix) for k, v in keys.items()}
        assert raw_keys(by_type[model]) == expected, model
        assert "sitePrefix" not in by_type[model]  # the prefix only feeds the templates
    version = by_type["DocumentAttributeVersion"]
    assert version["archive#SK"] == {"S": "attr#amount#100"}
    action = by_type["DocumentAction"]
    assert action["idx"] == {"N": "0"} and action["queueId"] == {"S": "q1"}


def test_site_scoped_entities_need_a_site(table):
    with pytest.raises(ValidationError, match="PK"):  # no site context: the PK template cannot resolve
        table.Document.create({"documentId": "d1", "shortdate": "2024-03-05", "inserteddate": FULL})
    with pytest.raises(ValidationError):
        table.Document.get({"documentId": "d1"})
    assert raw_items(table) == []


def test_sites_and_group_permissions(table):
    fk.add_site(table, "default", "Default")
    fk.add_site(table, "finance", "Finance")
    fk.add_site(table, "old", "Old", status="INACTIVE")
    assert [s["siteId"] for s in fk.list_sites(table)] == ["default", "finance", "old"]  # by status, then id
    assert [s["siteId"] for s in fk.list_sites(table, "ACTIVE")] == ["default", "finance"]
    fk.grant_site_to_group(table, "admins", "finance", ["READ", "WRITE"])
    fk.grant_site_to_group(table, "admins", "default", ["READ"])
    fk.grant_site_to_group(table, "auditors", "finance", ["READ"])
    assert [g["siteId"] for g in fk.sites_of_group(table, "admins")] == ["default", "finance"]
    assert [g["groupName"] for g in fk.groups_of_site(table, "finance")] == ["admins", "auditors"]


def test_documents_are_isolated_by_site(table):
    default, finance = fk.site_table(table), fk.site_table(table, "finance")
    fk.add_document(default, "a/one.pdf", user_id="joe", document_id="d1", at=T0)
    fk.add_document(finance, "a/two.pdf", user_id="ann", document_id="d2", at=T0 + timedelta(seconds=1))
    fk.add_tag(default, "d1", "cat", "invoice", user_id="joe", at=T0)
    fk.add_tag(finance, "d2", "cat", "invoice", user_id="ann", at=T0)
    assert fk.get_document(default, "d1")["path"] == "a/one.pdf"
    assert fk.get_document(default, "d2") is None
    assert fk.get_document(finance, "d2")["userId"] == "ann"
    assert [d["documentId"] for d in fk.documents_by_date(default, "2024-03-05")] == ["d1"]
    assert [d["documentId"] for d in fk.documents_by_date(finance, "2024-03-05")] == ["d2"]
    assert fk.documents_with_tag(default, "cat", "invoice") == ["d1"]
    assert fk.documents_with_tag(finance, "cat", "invoice") == ["d2"]
    assert fk.list_folder(finance) == {"folders": ["a"], "files": []}
    assert raw_keys(raw_item(table, "finance/doc#d2", "document")) == {
        "PK": "finance/doc#d2",
        "SK": "document",
        "GSI1PK": "finance/2024-03-05",
        "GSI1SK": "2024-03-05T14:07:10+0000#d2",
    }


def test_documents_by_date_oldest_first_and_children(table):
    st = fk.site_table(table)
    for i, doc in enumerate(["late", "early", "next-day"]):
        at = T0 + timedelta(hours=2 - 2 * i) if doc != "next-day" else T0 + timedelta(days=1)
        fk.add_document(st, f"{doc}.pdf", user_id="joe", document_id=doc, at=at, folders=False)
    assert [d["documentId"] for d in fk.documents_by_date(st, "2024-03-05")] == ["early", "late"]
    assert [d["documentId"] for d in fk.documents_by_date(st, "2024-03-06")] == ["next-day"]
    fk.add_child_document(st, "early", "early-p2")
    fk.add_child_document(st, "early", "early-p3")
    assert fk.child_documents(st, "early") == ["early-p2", "early-p3"]


def test_soft_delete_moves_the_document_and_restore_brings_it_back(table):
    st = fk.site_table(table)
    fk.add_document(st, "x.pdf", user_id="joe", document_id="d1", at=T0, checksum="abc", folders=False)
    live = raw_item(table, "doc#d1", "document")
    fk.soft_delete_document(st, "d1")
    assert raw_item(table, "doc#d1", "document") is None
    moved = raw_item(table, "softdelete#doc#", "softdelete#documentd1")
    assert raw_keys(moved) == {
        "PK": "softdelete#doc#",
        "SK": "softdelete#documentd1",
        "GSI1PK": "2024-03-05",
        "GSI1SK": f"{FULL}#d1",
    }
    attributes = (
        "documentId",
        "inserteddate",
        "lastModifiedDate",
        "userId",
        "path",
        "contentType",
        "checksum",
    )
    assert {k: moved[k] for k in attributes} == {k: live[k] for k in attributes}
    assert fk.get_document(st, "d1") is None
    assert [d["documentId"] for d in fk.soft_deleted_documents(st)] == ["d1"]
    assert fk.documents_by_date(st, "2024-03-05") == []  # the GSI1 entry stays, the Document filter drops it
    with pytest.raises(NotFoundError):
        fk.soft_delete_document(st, "d1")

    fk.restore_document(st, "d1")
    assert raw_item(table, "doc#d1", "document") == live
    assert fk.soft_deleted_documents(st) == []
    with pytest.raises(NotFoundError):
        fk.restore_document(st, "d1")


def test_restore_over_a_live_document_fails_and_changes_nothing(table):
    st = fk.site_table(table)
    fk.add_document(st, "x.pdf", user_id="joe", document_id="d1", at=T0, folders=False)
    fk.soft_delete_document(st, "d1")
    fk.add_document(st, "y.pdf", user_id="ann", document_id="d1", at=T0, folders=False)
    before = sorted(map(str, raw_items(table)))
    with pytest.raises(TransactionError):
        fk.restore_document(st, "d1")
    assert sorted(map(str, raw_items(table))) == before
    assert fk.get_document(st, "d1")["path"] == "y.pdf"


def test_tags_single_and_multi_value_are_searchable(table):
    st = fk.site_table(table)
    fk.add_tag(st, "d1", "category", "invoice", user_id="joe", at=T0)
    fk.add_tag(st, "d2", "category", "receipt", user_id="joe", at=T0 + timedelta(seconds=1))
    fk.add_tag(st, "d3", "category", "invoice", user_id="joe", at=T0 + timedelta(seconds=2))
    fk.add_tag(st, "d1", "approvers", ["bob", "ann"], user_id="joe", at=T0)
    fk.add_tag(st, "d2", "approvers", ["ann"], user_id="joe", at=T0)
    assert fk.document_tags(st, "d1") == {"approvers": ["bob", "ann"], "category": "invoice"}
    # GSI1: by key and value, oldest first
    assert fk.documents_with_tag(st, "category", "invoice") == ["d1", "d3"]
    assert fk.documents_with_tag(st, "approvers", "ann") == ["d1", "d2"]
    assert fk.documents_with_tag(st, "approvers", "bob") == ["d1"]
    # GSI2: by key, ordered by value, optionally by value prefix
    assert fk.documents_with_tag_key(st, "category") == [
        ("invoice", "d1"),
        ("invoice", "d3"),
        ("receipt", "d2"),
    ]
    assert fk.documents_with_tag_key(st, "category", "rec") == [("receipt", "d2")]
    assert fk.documents_with_tag_key(st, "approvers") == [("ann", "d1"), ("ann", "d2"), ("bob", "d1")]
    multi = raw_item(table, "doc#d1", "tags#approvers#idx0")
    assert multi["tagValue"] == {"S": "bob"}
    assert multi["tagValues"] == {"L": [{"S": "bob"}, {"S": "ann"}]}
    # re-tagging replaces the earlier value(s) and moves their GSI entries
    fk.add_tag(st, "d1", "approvers", ["cy"], user_id="joe", at=T0)
    assert fk.document_tags(st, "d1")["approvers"] == ["cy"]
    assert fk.documents_with_tag(st, "approvers", "ann") == ["d2"]
    fk.add_tag(st, "d2", "approvers", "dee", user_id="joe", at=T0)  # multi -> single
    assert fk.document_tags(st, "d2") == {"approvers": "dee", "category": "receipt"}
    fk.add_tag(st, "d2", "approvers", ["dee", "eve"], user_id="joe", at=T0)  # single -> multi
    assert fk.document_tags(st, "d2")["approvers"] == ["dee", "eve"]
    assert raw_item(table, "doc#d2", "tags#approvers") is None
    fk.add_tag(st, "d1", "category", "receipt", user_id="joe", at=T0)
    assert fk.documents_with_tag(st, "category", "invoice") == ["d3"]
    assert fk.documents_with_tag(st, "category", "receipt") == ["d1", "d2"]


def test_folders_list_folders_before_files(table):
    st = fk.site_table(table)
    fk.add_document(st, "invoices/2024/b.pdf", user_id="joe", document_id="d1", at=T0)
    fk.add_document(st, "invoices/2024/a.pdf", user_id="joe", document_id="d2", at=T0)
    fk.add_document(st, "invoices/summary.xlsx", user_id="joe", document_id="d3", at=T0)
    fk.add_document(st, "readme.txt", user_id="joe", document_id="d4", at=T0)
    assert fk.list_folder(st) == {"folders": ["invoices"], "files": ["readme.txt"]}
    invoices = fk.folder_id(st, "invoices")
    assert fk.list_folder(st, invoices) == {"folders": ["2024"], "files": ["summary.xlsx"]}
    year = fk.folder_id(st, "invoices/2024")
    assert fk.list_folder(st, year) == {"folders": [], "files": ["a.pdf", "b.pdf"]}
    assert fk.get_folder(st, year)["path"] == "2024"  # GSI1 folder#<id>
    assert fk.folder_id(st, "nope") is None
    folders = [i for i in raw_items(table) if i["_type"]["S"] == "Folder"]
    assert len(folders) == 2  # the second document reused both folders
    raw_file = raw_item(table, f"global#folders#{year}", "fi#a.pdf")
    assert raw_file["documentId"] == {"S": "d2"} and "GSI1PK" not in raw_file


def test_actions_by_status_and_guarded_status_changes(table):
    st = fk.site_table(table)
    fk.add_actions(st, "d1", [{"type": "OCR", "queueId": "q1"}, {"type": "FULLTEXT"}], user_id="joe", at=T0)
    fk.add_actions(st, "d2", [{"type": "OCR", "queueId": "q1"}], user_id="joe", at=T0)
    fk.add_actions(
        st, "d1", [{"type": "WEBHOOK", "parameters": {"url": "https://example.com"}}], user_id="joe"
    )
    assert [(a["idx"], a["type"]) for a in fk.document_actions(st, "d1")] == [
        (0, "OCR"),
        (1, "FULLTEXT"),
        (2, "WEBHOOK"),
    ]
    assert sorted((a["documentId"], a["type"]) for a in fk.actions_by_status(st, "PENDING")) == [
        ("d1", "FULLTEXT"),
        ("d1", "OCR"),
        ("d1", "WEBHOOK"),
        ("d2", "OCR"),
    ]
    assert [a["documentId"] for a in fk.queued_actions(st, "OCR", "q1")] == ["d1", "d2"]
    assert fk.queued_actions(st, "FULLTEXT", "q1") == []  # not queued: not in GSI1

    fk.set_action_status(st, "d1", 0, "OCR", "RUNNING", expected="PENDING")
    fk.set_action_status(st, "d1", 0, "OCR", "COMPLETE", expected="RUNNING", completedDate=FULL)
    assert [a["type"] for a in fk.actions_by_status(st, "COMPLETE")] == ["OCR"]
    assert raw_keys(raw_item(table, "doc#d1", "action#0#OCR")) == {
        "PK": "doc#d1",
        "SK": "action#0#OCR",
        "GSI1PK": "action#OCR#q1",
        "GSI1SK": f"action#d1#{FULL}",
        "GSI2PK": "actions#COMPLETE",
        "GSI2SK": "action#d1",
    }
    before = raw_item(table, "doc#d1", "action#1#FULLTEXT")
    with pytest.raises(ConditionFailedError):
        fk.set_action_status(st, "d1", 1, "FULLTEXT", "COMPLETE", expected="RUNNING")
    assert raw_item(table, "doc#d1", "action#1#FULLTEXT") == before


def test_activities_by_user_newest_first(table):
    st = fk.site_table(table)
    events = [("d1", "add", "joe"), ("d1", "view", "ann"), ("d2", "change", "ann"), ("d1", "delete", "joe")]
    for minute, (doc, kind, user) in enumerate(events):
        fk.record_activity(st, doc, kind, user_id=user, at=T0 + timedelta(minutes=minute))
    assert [(a["documentId"], a["type"]) for a in fk.activities_by_user(st, "ann")] == [
        ("d2", "change"),
        ("d1", "view"),
    ]
    assert [a["type"] for a in fk.activities_by_user(st, "joe", limit=1)] == ["delete"]
    assert [a["userId"] for a in fk.recent_activities(st)] == ["joe", "ann", "ann", "joe"]
    assert [a["type"] for a in fk.document_activities(st, "d1")] == ["add", "view", "delete"]
    with pytest.raises(ConditionFailedError):  # the page's SK: one activity per document and second
        fk.record_activity(st, "d1", "view", user_id="bob", at=T0)


def test_attributes_with_versions(table):
    st = fk.site_table(table)
    fk.define_attribute(st, "customer")
    fk.define_attribute(st, "amount", "number")
    assert fk.list_attributes(st) == ["amount", "customer"]
    fk.set_document_attribute(st, "d1", "amount", 120, at=T0)
    fk.set_document_attribute(st, "d2", "amount", 80, at=T0)
    fk.set_document_attribute(st, "d1", "customer", "acme", at=T0)
    fk.set_document_attribute(st, "d1", "amount", 125, at=T0 + timedelta(days=1))
    fk.set_document_attribute(st, "d1", "amount", 125, at=T0 + timedelta(days=2))  # same value: no version
    assert fk.documents_by_attribute(st, "amount") == [("125", "d1"), ("80", "d2")]
    assert fk.documents_by_attribute(st, "amount", 80) == [("80", "d2")]
    assert fk.documents_by_attribute(st, "customer", "acme") == [("acme", "d1")]
    versions = fk.document_attribute_versions(st, "d1", "amount")
    assert [(v["value"], v["versionDate"]) for v in versions] == [("120", "2024-03-06T14:07:09")]
    old = raw_item(table, "doc#d1", "attr#amount#2024-03-06T14:07:09#120")
    assert old["archive#SK"] == {"S": "attr#amount#120"} and old["numberValue"] == {"N": "120"}
    assert raw_item(table, "doc#d1", "attr#amount#120") is None
    assert raw_item(table, "doc#d1", "attr#amount#125")["valueType"] == {"S": "number"}


def test_schema_and_classification_entities(table):
    st = fk.site_table(table)
    fk.set_site_schema(
        st,
        "site",
        {"required": ["status"]},
        composite_keys=[["status", "amount"]],
        allowed_values={"status": ["paid", "open"]},
    )
    fk.add_classification(
        st,
        "invoice",
        {"required": ["currency"]},
        classification_id="c1",
        composite_keys=[["currency"]],
        allowed_values={"currency": ["USD", "EUR"], "status": ["void"]},
    )
    fk.add_classification(st, "receipt", {}, classification_id="c2", attribute_keys=["currency"])
    assert fk.allowed_values(st, "status") == ["open", "paid", "void"]
    assert fk.allowed_values(st, "currency") == ["EUR", "USD"]
    assert fk.classifications(st) == ["invoice", "receipt"]
    assert sorted(fk.schemas_using_attribute(st, "currency")) == ["c1", "c2"]
    assert sorted(fk.schemas_using_attribute(st, "status")) == ["c1", "site"]
    assert sorted(fk.composite_keys(st)) == [["currency"], ["status", "amount"]]
    assert st.SiteSchema.get({"entity": "document"})["schema"] == {"required": ["status"]}


def test_shares_queues_workflows_cases_rulesets_mappings(table):
    st = fk.site_table(table, "finance")
    fk.share(
        table,
        "user",
        "ann",
        site_id="finance",
        document_id="d1",
        path="ledger",
        permissions=["READ"],
        user_id="joe",
    )
    fk.share(
        table,
        "user",
        "ann",
        site_id="default",
        document_id="d9",
        path="misc",
        permissions=["READ"],
        user_id="joe",
    )
    assert [s["path"] for s in fk.shares_of(table, "user", "ann")] == ["misc", "ledger"]
    assert [s["path"] for s in fk.shares_of(table, "user", "ann", "finance")] == ["ledger"]
    fk.add_document_share(
        st, "team", shared_document_id="d1", path="b", permissions=["READ"], user_id="joe", share_id="s2"
    )
    fk.add_document_share(
        st, "team", shared_document_id="d2", path="a", permissions=["READ"], user_id="joe", share_id="s1"
    )
    assert [s["path"] for s in fk.document_shares_by_name(st, "team")] == ["a", "b"]
    assert raw_item(table, "finance/shares#s1", "share")["siteId"] == {"S": "finance"}

    fk.add_queue(st, "review", queue_id="q2")
    fk.add_queue(st, "intake", queue_id="q1")
    assert fk.list_queues(st) == ["intake", "review"]

    approve = fk.add_workflow(st, "approve", user_id="joe", workflow_id="w1")
    fk.add_workflow(st, "archive", status="INACTIVE", user_id="joe", workflow_id="w2")
    assert fk.workflows_by_name(st) == ["approve", "archive"]
    assert fk.workflows_by_status(st, "ACTIVE") == ["approve"]
    fk.start_document_workflow(st, "d1", approve)
    fk.start_document_workflow(st, "d2", approve)
    assert fk.documents_in_workflow(st, "w1") == ["d1", "d2"]
    assert fk.workflows_of_document(st, "d1") == ["approve"]
    assert st.Workflow.get({"documentId": "w1"})["inUse"] is True

    fk.add_case(st, "audit", case_id="k1", status="OPEN")
    fk.add_task(st, "k1", "collect", task_id="t1")
    fk.add_nigo(st, "k1", "unsigned", nigo_id="n1")
    fk.attach_to_case(st, "k1", "d1", type="nigo", object_id="n1")
    contents = fk.case_contents(st, "k1")
    assert {k: [i["documentId"] for i in v] for k, v in contents.items()} == {
        "Case": ["k1"],
        "Task": ["t1"],
        "Nigo": ["n1"],
        "CaseDocument": ["d1"],
    }
    assert fk.list_cases(st) == ["k1"]

    fk.add_ruleset(st, priority=2, ruleset_id="rs2")
    fk.add_ruleset(st, priority=1, ruleset_id="rs1")
    fk.add_ruleset(st, priority=3, ruleset_id="rs3", status="INACTIVE")
    assert [r["documentId"] for r in fk.rulesets_by_status(st, "ACTIVE")] == ["rs1", "rs2"]
    assert fk.get_ruleset(st, "rs3")["status"] == "INACTIVE"
    fk.add_rule(st, "rs1", priority=3, conditions={"tag": "a"}, rule_id="u3")
    fk.add_rule(st, "rs1", priority=1, conditions={"tag": "b"}, rule_id="u1")
    fk.add_rule(st, "rs2", priority=2, conditions={"tag": "c"}, rule_id="u2", status="INACTIVE")
    assert [r["documentId"] for r in fk.rules_of_ruleset(st, "rs1")] == ["u1", "u3"]
    assert [r["documentId"] for r in fk.rules_by_status(st, "ACTIVE")] == ["u1", "u3"]
    assert [r["documentId"] for r in fk.rules_by_status(st, "INACTIVE")] == ["u2"]

    fk.add_mapping(st, "invoice", [{"attributeKey": "amount"}], mapping_id="m1")
    assert fk.list_mappings(st) == ["invoice"]


def test_api_keys_and_opa_are_global(table):
    key = fk.add_api_key(
        table, "finance", "reporting", user_id="ann", permissions=["READ"], api_key="ABCD1234567890WXYZ"
    )
    fk.add_api_key(table, "finance", "backup", user_id="ann", permissions=["READ", "WRITE"])
    fk.add_api_key(table, "default", "ci", user_id="joe", permissions=["READ"], api_key="DEF0000000000000")
    assert fk.api_keys_of_site(table, "finance") == ["backup", "reporting"]
    assert fk.api_keys_of_site(table, "default") == ["ci"]
    assert fk.api_key_by_mask(table, "finance", "ABCD****WXYZ")["name"] == "reporting"
    assert fk.check_api_key(table, key["apiKey"])["siteId"] == "finance"
    assert raw_keys(raw_item(table, "apikeys#", "apikey#DEF0000000000000")) == {
        "PK": "apikeys#",
        "SK": "apikey#DEF0000000000000",
        "GSI1PK": "default/apikeys#",
        "GSI1SK": "apikey#ciDEF0000000000000",
        "GSI2PK": "default/apikeys#",
        "GSI2SK": "apikey#DEF0****0000",
    }
    fk.set_opa_policy(table, "finance", "package fin", ["allow a", "allow b"])
    fk.set_opa_policy(table, "default", "package def")
    assert fk.opa_policy(table, "finance") == {"policy": "package fin", "items": ["allow a", "allow b"]}
    assert fk.opa_policy(table, "default") == {"policy": "package def", "items": []}


def test_run_end_to_end_on_the_embedded_default(capsys):
    from formkiq import run

    run.main()
    out = capsys.readouterr().out
    assert "'PK': 'finance/doc#doc-ledger'" in out
    assert "reopened the file: doc-inv-1 is still at invoices/2024/inv-001.pdf" in out
