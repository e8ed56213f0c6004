"""FormKiQ end to end on the embedded engine: ``python examples/formkiq/run.py [DB_PATH | :memory:]``
(DB_PATH: a new file; the demo's items are created, not upserted).

Default: a database file in a temporary directory, reopened at the end to show the data persisted.  Creates
the table from ``schema.json5``, then: sites and group permissions, documents in the default site and in
site ``finance`` (keys prefixed ``finance/``), folders, tags (single and multi-value) and tag search,
actions by status, activities by user, attributes with versions, soft delete and restore, schemas and
classifications, shares, queues, workflows, cases, rulesets, mappings, API keys and OPA policies --
printing the raw items (as the low-level client sees them) where the key formats matter.
"""

from __future__ import annotations

import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the example importable as the package ``formkiq``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dynabase
from dynabase.model import ConditionFailedError
from formkiq import formkiq as fk

T0 = datetime(2024, 3, 5, 14, 7, 9, tzinfo=timezone.utc)


_HEADING = object()


def show(title: str, value: object = _HEADING) -> None:
    print(f"\n== {title}" if value is _HEADING else f"   {title}: {value}")


def keys(client, table, pk: str, prefix: str = "") -> list[dict[str, str]]:
    """The raw key attributes of a partition (as stored)."""
    # DynamoDB refuses an empty begins_with prefix on a key: without a prefix, ask for the whole partition
    values = {":pk": {"S": pk}, **({":sk": {"S": prefix}} if prefix else {})}
    page = client.query(
        TableName=table.name,
        KeyConditionExpression="PK = :pk and begins_with(SK, :sk)" if prefix else "PK = :pk",
        ExpressionAttributeValues=values,
    )
    return [
        {k: v["S"] for k, v in item.items() if k in ("PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK")}
        for item in page["Items"]
    ]


def main(db: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = db or str(Path(tmp) / "formkiq.db")
        client = dynabase.connect(path)
        table = fk.open_table(client, create=True)
        print(f"table {table.name!r} in {path}: {len(table.models)} models, indexes {list(table.indexes)}")
        default, finance = fk.site_table(table), fk.site_table(table, "finance")

        show("sites (global)")
        fk.add_site(table, "default", "Default site")
        fk.add_site(table, "finance", "Finance")
        fk.add_site(table, "archive", "Archive", status="INACTIVE")
        fk.grant_site_to_group(table, "accounting", "finance", ["READ", "WRITE"])
        fk.grant_site_to_group(table, "admins", "finance", ["READ", "WRITE", "DELETE"])
        show("active sites (GSI1)", [s["siteId"] for s in fk.list_sites(table, "ACTIVE")])
        show("groups of finance (GSI1)", [g["groupName"] for g in fk.groups_of_site(table, "finance")])
        show("raw", keys(client, table, "sites"))

        show("documents")
        inv = fk.add_document(
            default,
            "invoices/2024/inv-001.pdf",
            user_id="joe",
            document_id="doc-inv-1",
            at=T0,
            content_type="application/pdf",
            checksum="9a0364b9e99bb480dd25e1f0284c8555",
        )
        fk.add_document(
            default,
            "invoices/2024/inv-002.pdf",
            user_id="ann",
            document_id="doc-inv-2",
            at=T0 + timedelta(hours=1),
            content_type="application/pdf",
        )
        fk.add_document(finance, "ledger/2024.xlsx", user_id="ann", document_id="doc-ledger", at=T0)
        fk.add_child_document(default, "doc-inv-1", "doc-inv-1-page-2")
        show("created", inv)
        show("raw default site", keys(client, table, "doc#doc-inv-1"))
        show("raw finance site", keys(client, table, "finance/doc#doc-ledger"))
        show(
            "documents of 2024-03-05, default site (GSI1)",
            [d["documentId"] for d in fk.documents_by_date(default, "2024-03-05")],
        )
        show(
            "documents of 2024-03-05, finance site (GSI1)",
            [d["documentId"] for d in fk.documents_by_date(finance, "2024-03-05")],
        )
        show("children of doc-inv-1", fk.child_documents(default, "doc-inv-1"))
        show("root folder", fk.list_folder(default))
        show("folder invoices/2024", fk.list_folder(default, fk.folder_id(default, "invoices/2024")))

        show("tags")
        fk.add_tag(default, "doc-inv-1", "category", "invoice", user_id="joe", at=T0)
        fk.add_tag(default, "doc-inv-2", "category", "invoice", user_id="ann", at=T0 + timedelta(hours=1))
        fk.add_tag(default, "doc-inv-1", "approvers", ["ann", "bob"], user_id="joe", at=T0)
        show("tags of doc-inv-1", fk.document_tags(default, "doc-inv-1"))
        show("category=invoice (GSI1)", fk.documents_with_tag(default, "category", "invoice"))
        show("approvers=bob (GSI1, multi-value)", fk.documents_with_tag(default, "approvers", "bob"))
        show("approvers by value (GSI2)", fk.documents_with_tag_key(default, "approvers"))
        show("raw", keys(client, table, "doc#doc-inv-1", "tags#"))

        show("actions")
        fk.add_actions(
            default,
            "doc-inv-1",
            [{"type": "OCR", "queueId": "q-ocr"}, {"type": "FULLTEXT"}],
            user_id="joe",
            at=T0,
        )
        fk.set_action_status(default, "doc-inv-1", 0, "OCR", "RUNNING", expected="PENDING")
        show(
            "PENDING (GSI2)", [(a["documentId"], a["type"]) for a in fk.actions_by_status(default, "PENDING")]
        )
        show(
            "RUNNING (GSI2)", [(a["documentId"], a["type"]) for a in fk.actions_by_status(default, "RUNNING")]
        )
        show(
            "queued OCR in q-ocr (GSI1)",
            [a["documentId"] for a in fk.queued_actions(default, "OCR", "q-ocr")],
        )
        try:
            fk.set_action_status(default, "doc-inv-1", 1, "FULLTEXT", "COMPLETE", expected="RUNNING")
        except ConditionFailedError as error:
            show("FULLTEXT is PENDING, not RUNNING", f"{type(error).__name__}: {error}")
        show("raw", keys(client, table, "doc#doc-inv-1", "action#"))

        show("activities")
        for minutes, (doc, kind, user) in enumerate(
            [("doc-inv-1", "view", "ann"), ("doc-inv-2", "change", "ann"), ("doc-inv-1", "view", "bob")]
        ):
            fk.record_activity(default, doc, kind, user_id=user, at=T0 + timedelta(minutes=minutes))
        show(
            "ann, newest first (GSI1)",
            [(a["documentId"], a["type"]) for a in fk.activities_by_user(default, "ann")],
        )
        show("site, newest first (GSI2)", [a["userId"] for a in fk.recent_activities(default)])

        show("attributes")
        fk.define_attribute(default, "amount", "number")
        fk.define_attribute(default, "customer")
        fk.set_document_attribute(default, "doc-inv-1", "amount", 120, at=T0)
        fk.set_document_attribute(default, "doc-inv-1", "amount", 125, at=T0 + timedelta(days=1))
        fk.set_document_attribute(default, "doc-inv-2", "customer", "acme", at=T0)
        show("definitions (GSI1)", fk.list_attributes(default))
        show("documents with amount (GSI1)", fk.documents_by_attribute(default, "amount"))
        show(
            "amount versions of doc-inv-1",
            [v["value"] for v in fk.document_attribute_versions(default, "doc-inv-1", "amount")],
        )
        show(
            "raw",
            [
                {k: v["S"] for k, v in item.items() if k in ("SK", "archive#SK")}
                for item in client.query(
                    TableName=table.name,
                    KeyConditionExpression="PK = :pk and begins_with(SK, :sk)",
                    ExpressionAttributeValues={":pk": {"S": "doc#doc-inv-1"}, ":sk": {"S": "attr#"}},
                )["Items"]
            ],
        )
        fk.set_ocr(default, "doc-inv-1", engine="textract", status="successful", user_id="joe", at=T0)
        fk.publish_document(
            default,
            "doc-inv-1",
            path="public/inv-001.pdf",
            content_type="application/pdf",
            s3_version="v1",
            user_id="joe",
        )
        show(
            "everything under doc#doc-inv-1",
            {k: len(v) for k, v in fk.document_items(default, "doc-inv-1").items()},
        )

        show("soft delete and restore")
        fk.soft_delete_document(default, "doc-inv-2")
        show("live doc-inv-2", fk.get_document(default, "doc-inv-2"))
        show("soft-deleted", [d["documentId"] for d in fk.soft_deleted_documents(default)])
        show("raw", keys(client, table, "softdelete#doc#"))
        show(
            "documents of 2024-03-05 (soft-deleted left out)",
            [d["documentId"] for d in fk.documents_by_date(default, "2024-03-05")],
        )
        fk.restore_document(default, "doc-inv-2")
        show("restored", fk.get_document(default, "doc-inv-2")["path"])

        show("schemas and classifications")
        fk.set_site_schema(
            default,
            "site schema",
            {"attributes": {"required": ["customer"]}},
            composite_keys=[["customer", "amount"]],
            allowed_values={"status": ["open", "paid"]},
        )
        fk.add_classification(
            default,
            "invoice",
            {"attributes": {"required": ["amount"]}},
            classification_id="cls-invoice",
            allowed_values={"currency": ["EUR", "USD"]},
        )
        show("allowed values of status (GSI1)", fk.allowed_values(default, "status"))
        show("classifications (GSI1)", fk.classifications(default))
        show("composite keys (GSI1)", fk.composite_keys(default))
        show("raw schemas", keys(client, table, "schemas"))

        show("shares, queues, workflows, cases, rulesets, mappings")
        fk.share(
            table,
            "group",
            "auditors",
            site_id="finance",
            document_id="doc-ledger",
            path="ledger",
            permissions=["READ"],
            user_id="ann",
            at=T0,
        )
        show(
            "shares of group auditors",
            [(s["siteId"], s["path"]) for s in fk.shares_of(table, "group", "auditors")],
        )
        fk.add_document_share(
            default,
            "team",
            shared_document_id="doc-inv-1",
            path="invoices",
            permissions=["READ"],
            user_id="joe",
            share_id="share-1",
            at=T0,
        )
        show(
            "document shares named team (GSI1)",
            [s["path"] for s in fk.document_shares_by_name(default, "team")],
        )
        fk.add_queue(default, "ocr-review", queue_id="q-ocr")
        show("queues (GSI1)", fk.list_queues(default))
        wf = fk.add_workflow(default, "approve invoice", user_id="joe", workflow_id="wf-1")
        fk.add_workflow(default, "archive", status="INACTIVE", user_id="joe", workflow_id="wf-2")
        fk.start_document_workflow(default, "doc-inv-1", wf, step_id="step-1")
        show("ACTIVE workflows (GSI2)", fk.workflows_by_status(default, "ACTIVE"))
        show("documents in wf-1 (GSI2)", fk.documents_in_workflow(default, "wf-1"))
        fk.add_case(default, "Audit 2024", case_id="case-1", status="OPEN")
        fk.add_task(default, "case-1", "collect invoices", task_id="task-1")
        fk.add_nigo(default, "case-1", "missing signature", nigo_id="nigo-1")
        fk.attach_to_case(default, "case-1", "doc-inv-1", type="task", object_id="task-1", at=T0)
        show("case-1 contents", {k: len(v) for k, v in fk.case_contents(default, "case-1").items()})
        show("raw case-1", keys(client, table, "case#case-1"))
        rs = fk.add_ruleset(default, priority=1, ruleset_id="rs-1", description="invoices")
        fk.add_rule(
            default,
            rs["documentId"],
            priority=2,
            conditions={"tag": "category"},
            workflow_id="wf-1",
            rule_id="r-2",
        )
        fk.add_rule(
            default,
            rs["documentId"],
            priority=1,
            conditions={"tag": "approvers"},
            workflow_id="wf-1",
            rule_id="r-1",
        )
        show(
            "rules of rs-1 by priority (GSI1)",
            [r["documentId"] for r in fk.rules_of_ruleset(default, "rs-1")],
        )
        show("ACTIVE rules", [r["documentId"] for r in fk.rules_by_status(default, "ACTIVE")])
        fk.add_mapping(
            default,
            "invoice fields",
            [{"attributeKey": "amount", "sourceType": "CONTENT"}],
            mapping_id="map-1",
        )
        show("mappings (GSI1)", fk.list_mappings(default))

        show("API keys and OPA (global)")
        key = fk.add_api_key(
            table,
            "finance",
            "reporting",
            user_id="ann",
            permissions=["READ"],
            api_key="fk" + "0123456789abcdef" * 2,
            at=T0,
        )
        show("keys of finance (GSI1)", fk.api_keys_of_site(table, "finance"))
        show("by mask (GSI2)", fk.api_key_by_mask(table, "finance", fk.mask_api_key(key["apiKey"]))["name"])
        show("raw", keys(client, table, "apikeys#"))
        fk.set_opa_policy(table, "finance", "package formkiq", ['allow { input.user == "ann" }'])
        show("OPA of finance", fk.opa_policy(table, "finance"))
        show("raw", keys(client, table, "controlpolicy#opa"))

        if db != ":memory:":
            client.close()
            reopened = fk.site_table(fk.open_table(dynabase.connect(path)))
            show(
                "reopened the file", f"doc-inv-1 is still at {fk.get_document(reopened, 'doc-inv-1')['path']}"
            )
            reopened.client.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
