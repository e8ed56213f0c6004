"""FormKiQ's document table on dynabase: the access patterns of docs.formkiq.com's "DynamoDB Schema" page.

The schema (``schema.json5`` beside this file) carries every entity of the page with its key formats; this
module holds the access patterns, as functions taking a :class:`dynabase.model.Table`:

* global entities (sites, group permissions, shares, API keys, OPA policies) take the table from
  :func:`open_table`;
* site-scoped entities (documents and everything under them) take a *site table* from
  :func:`site_table`: the same DynamoDB table, whose context carries the site's key prefix (``''`` for the
  ``default`` site, ``'finance/'`` for ``finance``), so every key it builds is in that site's namespace.

Dates are FormKiQ's text formats (UTC): :func:`full_date` ``2024-03-05T14:07:09+0000``,
:func:`short_date` ``2024-03-05`` and :func:`version_date` ``2024-03-05T14:07:09``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

from dynabase.model import NotFoundError, Table
from dynabase.schema import load_schema

SCHEMA = Path(__file__).with_name("schema.json5")
TABLE_NAME = "formkiq-documents"
DEFAULT_SITE = "default"
SITE_FIELD = "sitePrefix"
KEY_FIELDS = ("PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "_type", SITE_FIELD)


# == tables and sites ==========================================================================================


def _transform(
    model: Any, direction: str, item: dict[str, Any], properties: Any, params: Any, raw: Any = None
):
    """Keep the site prefix out of stored items: it only feeds the key templates."""
    if direction == "write":
        item.pop(SITE_FIELD, None)
    return item


def open_table(client: Any, name: str = TABLE_NAME, *, create: bool = False) -> Table:
    """The FormKiQ table for global entities (sites, shares, API keys, OPA); ``create`` makes it in DynamoDB."""
    table = Table(name, client, load_schema(SCHEMA), transform=_transform)
    if create and not table.exists():
        table.create_table()
    return table


def site_prefix(site_id: str | None) -> str:
    """``''`` for the default site, ``'<siteId>/'`` for any other."""
    return "" if site_id in (None, "", DEFAULT_SITE) else f"{site_id}/"


def site_table(table: Table, site_id: str | None = DEFAULT_SITE) -> Table:
    """The same DynamoDB table, scoped to one site: its context fills ``${sitePrefix}`` in every key."""
    cache = table.__dict__.setdefault("_formkiq_sites", {})
    site_id = site_id or DEFAULT_SITE
    scoped = cache.get(site_id)
    if scoped is None:
        scoped = Table(
            table.name,
            table.client,
            table.schema,
            context={SITE_FIELD: site_prefix(site_id)},
            transform=_transform,
        )
        scoped.site_id = site_id
        cache[site_id] = scoped
    return scoped


# == dates and ids =============================================================================================


def _utc(at: datetime | None) -> datetime:
    at = at or datetime.now(timezone.utc)
    return at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)


def full_date(at: datetime | None = None) -> str:
    """FullDate ``yyyy-MM-dd'T'HH:mm:ssZ`` (Java's ``Z``: ``+0000``)."""
    return _utc(at).strftime("%Y-%m-%dT%H:%M:%S+0000")


def short_date(at: datetime | None = None) -> str:
    """ShortDate ``yyyy-MM-dd``."""
    return _utc(at).strftime("%Y-%m-%d")


def version_date(at: datetime | None = None) -> str:
    """The attribute-version date ``yyyy-MM-dd'T'HH:mm:ss``."""
    return _utc(at).strftime("%Y-%m-%dT%H:%M:%S")


def new_id() -> str:
    return str(uuid.uuid4())


def _only(*models: str) -> str:
    """A where clause keeping items of the given models (a partition or GSI may hold several)."""
    return " or ".join(f"${{_type}} = {{{name}}}" for name in models)


def _fields(item: Mapping[str, Any]) -> dict[str, Any]:
    """An item's entity fields, without keys, type and site prefix (to re-create it as another entity)."""
    return {k: v for k, v in item.items() if k not in KEY_FIELDS and v is not None}


# == sites (global) ============================================================================================


def add_site(table: Table, site_id: str, title: str, status: str = "ACTIVE") -> dict[str, Any]:
    return table.Site.create({"siteId": site_id, "title": title, "status": status})


def list_sites(table: Table, status: str | None = None) -> list[dict[str, Any]]:
    """Sites by GSI1 (``sites#<status>#<siteId>``): all of them, or those with ``status``."""
    properties: dict[str, Any] = {}
    if status:
        properties["status"] = status
    return list(table.Site.find(properties, index="GSI1"))


def grant_site_to_group(table: Table, group: str, site_id: str, permissions: list[str]) -> dict[str, Any]:
    return table.SiteGroupPermission.upsert(
        {"groupName": group, "siteId": site_id, "permissions": permissions}
    )


def sites_of_group(table: Table, group: str) -> list[dict[str, Any]]:
    return list(table.SiteGroupPermission.find({"groupName": group}))


def groups_of_site(table: Table, site_id: str) -> list[dict[str, Any]]:
    return list(table.SiteGroupPermission.find({"siteId": site_id}, index="GSI1"))


# == documents =================================================================================================


def add_document(
    st: Table,
    path: str,
    *,
    user_id: str,
    content_type: str = "application/octet-stream",
    document_id: str | None = None,
    at: datetime | None = None,
    checksum: str | None = None,
    deep_link_path: str | None = None,
    tag_schema_id: str | None = None,
    folders: bool = True,
) -> dict[str, Any]:
    """Create a Document (and, with ``folders``, its folder-index entries) in one transaction."""
    document_id = document_id or new_id()
    when = full_date(at)
    transaction: dict[str, Any] = {}
    document = st.Document.create(
        {
            "documentId": document_id,
            "shortdate": short_date(at),
            "inserteddate": when,
            "lastModifiedDate": when,
            "userId": user_id,
            "path": path,
            "contentType": content_type,
            "checksum": checksum,
            "deepLinkPath": deep_link_path,
            "tagSchemaId": tag_schema_id,
        },
        transaction=transaction,
    )
    if folders:
        _index_in_folders(st, document_id, path, user_id, when, transaction)
    st.transact("write", transaction)
    return document


def get_document(st: Table, document_id: str) -> dict[str, Any] | None:
    return st.Document.get({"documentId": document_id})


def documents_by_date(st: Table, day: str) -> list[dict[str, Any]]:
    """Live documents inserted on ``day`` (ShortDate), oldest first: GSI1 ``<day>`` / ``<FullDate>#<id>``."""
    return list(st.Document.find({"shortdate": day}, index="GSI1", where=_only("Document")))


def add_child_document(st: Table, parent_id: str, child_id: str) -> dict[str, Any]:
    return st.ChildDocument.create({"belongsToDocumentId": parent_id, "documentId": child_id})


def child_documents(st: Table, parent_id: str) -> list[str]:
    return [c["documentId"] for c in st.ChildDocument.find({"belongsToDocumentId": parent_id})]


def soft_delete_document(st: Table, document_id: str) -> dict[str, Any]:
    """Move a Document into the soft-delete namespace (one transaction: the move happens whole or not at
    all); NotFoundError when there is no live document."""
    document = st.Document.get({"documentId": document_id}, hidden=True)
    if document is None:
        raise NotFoundError(f"no document {document_id}")
    transaction: dict[str, Any] = {}
    st.Document.remove({"documentId": document_id}, transaction=transaction, exists=True)
    deleted = st.SoftDeletedDocument.create(_fields(document), transaction=transaction)
    st.transact("write", transaction)
    return deleted


def restore_document(st: Table, document_id: str) -> dict[str, Any]:
    """Move a soft-deleted Document back; fails (changing nothing) if a live one has the same id."""
    deleted = st.SoftDeletedDocument.get({"documentId": document_id}, hidden=True)
    if deleted is None:
        raise NotFoundError(f"no soft-deleted document {document_id}")
    transaction: dict[str, Any] = {}
    st.SoftDeletedDocument.remove({"documentId": document_id}, transaction=transaction, exists=True)
    restored = st.Document.create(_fields(deleted), transaction=transaction)
    st.transact("write", transaction)
    return restored


def soft_deleted_documents(st: Table) -> list[dict[str, Any]]:
    return list(st.SoftDeletedDocument.find({}))


def set_ocr(
    st: Table,
    document_id: str,
    *,
    engine: str,
    status: str,
    user_id: str,
    at: datetime | None = None,
    **more: Any,
) -> dict[str, Any]:
    return st.DocumentOcr.upsert(
        {
            "documentId": document_id,
            "ocrEngine": engine,
            "ocrStatus": status,
            "userId": user_id,
            "inserteddate": full_date(at),
            **more,
        }
    )


def publish_document(
    st: Table, document_id: str, *, path: str, content_type: str, s3_version: str, user_id: str
) -> dict[str, Any]:
    return st.DocumentPublication.upsert(
        {
            "documentId": document_id,
            "path": path,
            "contentType": content_type,
            "s3Version": s3_version,
            "userId": user_id,
        }
    )


def document_items(st: Table, document_id: str) -> dict[str, list[dict[str, Any]]]:
    """Everything under ``doc#<id>`` in one query, grouped by entity."""
    return st.fetch(
        [
            "Document",
            "ChildDocument",
            "DocumentOcr",
            "DocumentAction",
            "DocumentTag",
            "DocumentTagValue",
            "DocumentActivity",
            "DocumentAttribute",
            "DocumentAttributeVersion",
            "DocumentPublication",
        ],
        {"documentId": document_id},
        hidden=False,
    )


# == actions ===================================================================================================


def add_actions(
    st: Table,
    document_id: str,
    actions: Iterable[Mapping[str, Any]],
    *,
    user_id: str,
    at: datetime | None = None,
) -> list[dict[str, Any]]:
    """Append actions (``{"type": "OCR", "parameters": {...}, "queueId": ...}``) as PENDING, numbered
    after the document's existing ones."""
    existing = st.DocumentAction.find({"documentId": document_id})
    start = max((a["idx"] for a in existing), default=-1) + 1
    when = full_date(at)
    transaction: dict[str, Any] = {}
    created = [
        st.DocumentAction.create(
            {
                "documentId": document_id,
                "idx": start + i,
                "status": "PENDING",
                "userId": user_id,
                "inserteddate": when,
                **action,
            },
            transaction=transaction,
        )
        for i, action in enumerate(actions)
    ]
    st.transact("write", transaction)
    return created


def set_action_status(
    st: Table, document_id: str, idx: int, type: str, status: str, *, expected: str | None = None, **more: Any
) -> dict[str, Any]:
    """Change an action's status (its GSI2 ``actions#<status>`` key moves with it); with ``expected`` the
    change only happens from that status (ConditionFailedError otherwise)."""
    params: dict[str, Any] = {}
    if expected is not None:
        params["where"] = "${status} = @{expected}"
        params["substitutions"] = {"expected": expected}
    return st.DocumentAction.update(
        {"documentId": document_id, "idx": idx, "type": type, "status": status, **more}, **params
    )


def document_actions(st: Table, document_id: str) -> list[dict[str, Any]]:
    return list(st.DocumentAction.find({"documentId": document_id}))


def actions_by_status(st: Table, status: str) -> list[dict[str, Any]]:
    """GSI2 ``actions#<status>``."""
    return list(st.DocumentAction.find({"status": status}, index="GSI2"))


def queued_actions(st: Table, type: str, queue_id: str) -> list[dict[str, Any]]:
    """GSI1 ``action#<type>#<queueId>`` (only queued actions are in GSI1)."""
    return list(st.DocumentAction.find({"type": type, "queueId": queue_id}, index="GSI1"))


# == tags ======================================================================================================


def add_tag(
    st: Table,
    document_id: str,
    key: str,
    value: str | list[str] | None = None,
    *,
    user_id: str,
    at: datetime | None = None,
    type: str = "USERDEFINED",
) -> list[dict[str, Any]]:
    """Tag a document, replacing the tag's earlier value(s), in one transaction: a single value
    (``tags#<key>``) or several (``tags#<key>#idx<n>``, one item per value, each in GSI1/GSI2 by its value)."""
    common = {
        "documentId": document_id,
        "tagKey": key,
        "type": type,
        "userId": user_id,
        "inserteddate": full_date(at),
    }
    multi = isinstance(value, (list, tuple))
    transaction: dict[str, Any] = {}
    if multi:
        items = [
            st.DocumentTagValue.create(
                {**common, "index": i, "tagValue": v, "tagValues": list(value)},
                transaction=transaction,
                exists=None,
            )
            for i, v in enumerate(value)
        ]
    else:
        items = [
            st.DocumentTag.create(
                {**common, "tagValue": value if value is not None else ""},
                transaction=transaction,
                exists=None,
            )
        ]
    # earlier items of this tag that the new ones do not overwrite
    where = {"documentId": document_id, "tagKey": key}
    if multi:
        for old in st.DocumentTag.find(where, where=_only("DocumentTag")):
            st.DocumentTag.remove({**where, "tagKey": old["tagKey"]}, transaction=transaction)
    for old in st.DocumentTagValue.find(where, where=_only("DocumentTagValue")):
        if not multi or old["index"] >= len(value):
            st.DocumentTagValue.remove({**where, "index": old["index"]}, transaction=transaction)
    st.transact("write", transaction)
    return items


def document_tags(st: Table, document_id: str) -> dict[str, str | list[str]]:
    """``{tagKey: value}`` (a list for multi-value tags) from the ``tags#`` items of a document."""
    tags: dict[str, Any] = {}
    for item in st.DocumentTag.find(
        {"documentId": document_id}, where=_only("DocumentTag", "DocumentTagValue")
    ):
        if "index" in item:
            tags.setdefault(item["tagKey"], []).append(item["tagValue"])
        else:
            tags[item["tagKey"]] = item["tagValue"]
    return tags


def documents_with_tag(st: Table, key: str, value: str) -> list[str]:
    """Documents tagged ``key=value`` (single or one of a multi-value tag), oldest first: GSI1."""
    items = st.DocumentTag.find({"tagKey": key, "tagValue": value}, index="GSI1")
    return [item["documentId"] for item in items]


def documents_with_tag_key(st: Table, key: str, value_prefix: str | None = None) -> list[tuple[str, str]]:
    """``(tagValue, documentId)`` of documents having tag ``key``, ordered by value: GSI2, optionally with
    values beginning ``value_prefix``."""
    properties: dict[str, Any] = {"tagKey": key}
    if value_prefix is not None:
        properties["GSI2SK"] = {"begins": value_prefix}
    items = st.DocumentTag.find(properties, index="GSI2")
    return [(item["tagValue"], item["documentId"]) for item in items]


# == activities ================================================================================================


def record_activity(
    st: Table, document_id: str, type: str, *, user_id: str, at: datetime | None = None
) -> dict[str, Any]:
    return st.DocumentActivity.create(
        {"documentId": document_id, "type": type, "userId": user_id, "inserteddate": full_date(at)}
    )


def activities_by_user(st: Table, user_id: str, limit: int | None = None) -> list[dict[str, Any]]:
    """A user's activities, newest first: GSI1 ``activity#user#<user>``."""
    return list(st.DocumentActivity.find({"userId": user_id}, index="GSI1", reverse=True, limit=limit))


def recent_activities(st: Table, limit: int | None = None) -> list[dict[str, Any]]:
    """The site's activities, newest first: GSI2 ``activity#``."""
    return list(st.DocumentActivity.find({}, index="GSI2", reverse=True, limit=limit))


def document_activities(st: Table, document_id: str) -> list[dict[str, Any]]:
    return list(st.DocumentActivity.find({"documentId": document_id}))


# == attributes ================================================================================================


def define_attribute(
    st: Table, key: str, data_type: str = "string", *, type: str = "STANDARD"
) -> dict[str, Any]:
    return st.Attribute.create(
        {"key": key, "documentId": key, "dataType": data_type, "type": type, "isInUse": False}
    )


def list_attributes(st: Table) -> list[str]:
    """Attribute definitions by key: GSI1 ``attr#`` / ``attr#<key>``."""
    return [item["key"] for item in st.Attribute.find({}, index="GSI1")]


def _attribute_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"valueType": "boolean", "booleanValue": value, "value": "true" if value else "false"}
    if isinstance(value, (int, float, Decimal)):
        number = Decimal(str(value))
        text = format(number.normalize(), "f") if number != number.to_integral() else str(int(number))
        return {"valueType": "number", "numberValue": value, "value": text}
    return {"valueType": "string", "stringValue": str(value), "value": str(value)}


def set_document_attribute(
    st: Table, document_id: str, key: str, value: Any, *, at: datetime | None = None
) -> dict[str, Any]:
    """Set a document attribute; the value it replaces becomes a DocumentAttributeVersion (SK
    ``attr#<key>#<yyyy-MM-ddTHH:mm:ss>#<value>``, ``archive#SK`` = its old SK).  One transaction."""
    new = {"documentId": document_id, "key": key, **_attribute_value(value)}
    current = [
        item
        for item in st.DocumentAttribute.find(
            {"documentId": document_id, "key": key}, where=_only("DocumentAttribute")
        )
        if item["key"] == key
    ]
    if any(item["value"] == new["value"] for item in current):
        return next(item for item in current if item["value"] == new["value"])
    transaction: dict[str, Any] = {}
    for item in current:
        st.DocumentAttribute.remove(
            {"documentId": document_id, "key": key, "value": item["value"]},
            transaction=transaction,
            exists=True,
        )
        st.DocumentAttributeVersion.create(
            {**_fields(item), "versionDate": version_date(at)}, transaction=transaction
        )
    created = st.DocumentAttribute.create(new, transaction=transaction)
    st.transact("write", transaction)
    return created


def document_attribute_versions(st: Table, document_id: str, key: str) -> list[dict[str, Any]]:
    return list(
        st.DocumentAttributeVersion.find(
            {"documentId": document_id, "key": key}, where=_only("DocumentAttributeVersion")
        )
    )


def documents_by_attribute(st: Table, key: str, value: Any = None) -> list[tuple[str, str]]:
    """``(value, documentId)`` of documents with attribute ``key`` (optionally ``= value``): GSI1."""
    properties: dict[str, Any] = {"key": key}
    if value is not None:
        properties["value"] = _attribute_value(value)["value"]
    items = st.DocumentAttribute.find(properties, index="GSI1")
    return [(item["value"], item["documentId"]) for item in items]


# == site schema and classifications ===========================================================================


def set_site_schema(
    st: Table,
    name: str,
    schema: Mapping[str, Any],
    *,
    entity: str = "document",
    composite_keys: Iterable[list[str]] = (),
    allowed_values: Mapping[str, Iterable[str]] | None = None,
    attribute_keys: Iterable[str] = (),
) -> dict[str, Any]:
    """The site schema with its composite keys, attribute keys and allowed values (one transaction)."""
    transaction: dict[str, Any] = {}
    created = st.SiteSchema.upsert(
        {"entity": entity, "name": name, "schema": dict(schema)}, transaction=transaction
    )
    for keys in composite_keys:
        st.SiteCompositeKey.create(
            {"keys": list(keys), "joinedKeys": "#".join(keys)}, transaction=transaction
        )
    for key in dict.fromkeys([*attribute_keys, *(allowed_values or {})]):
        st.SiteAttributeKey.create({"key": key}, transaction=transaction, exists=None)
    for key, values in (allowed_values or {}).items():
        for value in values:
            st.SiteAttributeAllowedValue.create(
                {"key": key, "value": value}, transaction=transaction, exists=None
            )
    st.transact("write", transaction)
    return created


def allowed_values(st: Table, key: str) -> list[str]:
    """Allowed values of an attribute in the site schema and every classification: GSI1."""
    items = st.SiteAttributeAllowedValue.find({"key": key}, index="GSI1")
    return [item["value"] for item in items]


def add_classification(
    st: Table,
    name: str,
    schema: Mapping[str, Any],
    *,
    classification_id: str | None = None,
    entity: str = "document",
    composite_keys: Iterable[list[str]] = (),
    allowed_values: Mapping[str, Iterable[str]] | None = None,
    attribute_keys: Iterable[str] = (),
) -> dict[str, Any]:
    classification_id = classification_id or new_id()
    transaction: dict[str, Any] = {}
    base = {"documentId": classification_id}
    created = st.Classification.create(
        {**base, "entity": entity, "name": name, "schema": dict(schema)}, transaction=transaction
    )
    for keys in composite_keys:
        st.ClassificationCompositeKey.create(
            {**base, "keys": list(keys), "joinedKeys": "#".join(keys)}, transaction=transaction
        )
    for key in dict.fromkeys([*attribute_keys, *(allowed_values or {})]):
        st.ClassificationAttributeKey.create({**base, "key": key}, transaction=transaction)
    for key, values in (allowed_values or {}).items():
        for value in values:
            st.ClassificationAttributeAllowedValue.create(
                {**base, "key": key, "value": value}, transaction=transaction
            )
    st.transact("write", transaction)
    return created


def classifications(st: Table, entity: str = "document") -> list[str]:
    """Classification names of an entity: GSI1 ``class#<entity>`` / ``attr#<name>``."""
    return [item["name"] for item in st.Classification.find({"entity": entity}, index="GSI1")]


def schemas_using_attribute(st: Table, key: str) -> list[str]:
    """Which schemas use attribute ``key``: ``site`` and classification ids, by GSI1 ``attr#<key>`` /
    ``true`` (shared by SiteAttributeKey and ClassificationAttributeKey)."""
    items = st.SiteAttributeKey.find({"key": key}, index="GSI1")
    return ["site" if item.get("documentId") is None else item["documentId"] for item in items]


def composite_keys(st: Table) -> list[list[str]]:
    """Every composite key (site schema and classifications): GSI1 ``schemas#compositeKey``."""
    return [item["keys"] for item in st.SiteCompositeKey.find({}, index="GSI1")]


# == shares ====================================================================================================


def share(
    table: Table,
    principal_type: str,
    name: str,
    *,
    site_id: str,
    document_id: str,
    path: str,
    permissions: list[str],
    user_id: str,
    type: str = "DIRECTORY",
    permission_type: str = "CUSTOM",
    at: datetime | None = None,
) -> dict[str, Any]:
    """Share a folder / file with a group or user (global item: ``shares#<group|user>#<name>``)."""
    return table.Share.create(
        {
            "principalType": principal_type,
            "name": name,
            "siteId": site_id,
            "documentId": document_id,
            "path": path,
            "permissions": permissions,
            "permissionType": permission_type,
            "type": type,
            "userId": user_id,
            "inserteddate": full_date(at),
        },
        exists=None,
    )


def shares_of(
    table: Table, principal_type: str, name: str, site_id: str | None = None
) -> list[dict[str, Any]]:
    """A group's or user's shares, optionally in one site (SK ``share#<siteId>#...``)."""
    properties = {"principalType": principal_type, "name": name}
    if site_id is not None:
        properties["siteId"] = site_id
    return list(table.Share.find(properties))


def add_document_share(
    st: Table,
    name: str,
    *,
    shared_document_id: str,
    path: str,
    permissions: list[str],
    user_id: str,
    share_id: str | None = None,
    type: str = "DIRECTORY",
    permission_type: str = "CUSTOM",
    at: datetime | None = None,
) -> dict[str, Any]:
    return st.DocumentShare.create(
        {
            "documentId": share_id or new_id(),
            "name": name,
            "sharedDocumentId": shared_document_id,
            "path": path,
            "permissions": permissions,
            "permissionType": permission_type,
            "type": type,
            "userId": user_id,
            "siteId": getattr(st, "site_id", DEFAULT_SITE),
            "inserteddate": full_date(at),
        }
    )


def document_shares_by_name(st: Table, name: str) -> list[dict[str, Any]]:
    """Shares named ``name``, ordered by path: GSI1 ``share#<name>``."""
    return list(st.DocumentShare.find({"name": name}, index="GSI1"))


# == folders ===================================================================================================


def _index_in_folders(
    st: Table, document_id: str, path: str, user_id: str, when: str, transaction: dict[str, Any]
) -> None:
    """Folder entries for ``a/b/file.pdf``: existing folders are reused, new ones join the transaction."""
    *folders, filename = [part for part in path.split("/") if part]
    parent = ""
    pending: dict[tuple[str, str], str] = {}
    for name in folders:
        existing = pending.get((parent, name))
        if existing is None:
            found = st.Folder.get({"parentDocumentId": parent, "path": name})
            existing = found["documentId"] if found else None
        if existing is None:
            existing = new_id()
            st.Folder.create(
                {
                    "parentDocumentId": parent,
                    "path": name,
                    "documentId": existing,
                    "userId": user_id,
                    "inserteddate": when,
                    "lastModifiedDate": when,
                },
                transaction=transaction,
            )
            pending[(parent, name)] = existing
        parent = existing
    st.FolderFile.create(
        {
            "parentDocumentId": parent,
            "path": filename,
            "documentId": document_id,
            "userId": user_id,
            "inserteddate": when,
            "lastModifiedDate": when,
        },
        transaction=transaction,
    )


def list_folder(st: Table, parent_document_id: str = "") -> dict[str, list[str]]:
    """A folder's listing in one query: ``{"folders": [...], "files": [...]}``, each by path (``ff#`` sorts
    before ``fi#``).  ``''`` is the root."""
    items = st.fetch(["Folder", "FolderFile"], {"parentDocumentId": parent_document_id}, hidden=False)
    return {
        "folders": [f["path"] for f in items["Folder"]],
        "files": [f["path"] for f in items["FolderFile"]],
    }


def folder_id(st: Table, path: str) -> str | None:
    """The documentId of folder ``a/b`` (walking from the root)."""
    parent = ""
    for name in [part for part in path.split("/") if part]:
        found = st.Folder.get({"parentDocumentId": parent, "path": name})
        if found is None:
            return None
        parent = found["documentId"]
    return parent


def get_folder(st: Table, folder_document_id: str) -> dict[str, Any] | None:
    """A folder by its documentId: GSI1 ``folder#<id>`` / ``folder``."""
    return st.Folder.get({"documentId": folder_document_id}, index="GSI1")


# == queues, workflows =========================================================================================


def add_queue(st: Table, name: str, queue_id: str | None = None) -> dict[str, Any]:
    return st.Queue.create({"documentId": queue_id or new_id(), "name": name})


def list_queues(st: Table) -> list[str]:
    return [q["name"] for q in st.Queue.find({}, index="GSI1")]


def add_workflow(
    st: Table,
    name: str,
    *,
    status: str = "ACTIVE",
    json: str = "{}",
    user_id: str,
    workflow_id: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    return st.Workflow.create(
        {
            "documentId": workflow_id or new_id(),
            "name": name,
            "status": status,
            "json": json,
            "userId": user_id,
            "description": description,
            "inUse": False,
        }
    )


def workflows_by_name(st: Table) -> list[str]:
    return [w["name"] for w in st.Workflow.find({}, index="GSI1")]


def workflows_by_status(st: Table, status: str) -> list[str]:
    """GSI2 ``workflows#`` / ``workflow#<status>#<name>#<id>``."""
    return [w["name"] for w in st.Workflow.find({"status": status}, index="GSI2")]


def start_document_workflow(
    st: Table, document_id: str, workflow: Mapping[str, Any], *, step_id: str | None = None
) -> dict[str, Any]:
    """Put a document into a workflow and mark the workflow in use (one transaction)."""
    transaction: dict[str, Any] = {}
    created = st.DocumentWorkflow.create(
        {
            "documentId": document_id,
            "workflowId": workflow["documentId"],
            "workflowName": workflow["name"],
            "status": "IN_PROGRESS",
            "currentStepId": step_id,
        },
        transaction=transaction,
    )
    st.Workflow.update({"documentId": workflow["documentId"], "inUse": True}, transaction=transaction)
    st.transact("write", transaction)
    return created


def workflows_of_document(st: Table, document_id: str) -> list[str]:
    """GSI1 ``wfdoc#<documentId>`` / ``wf#<workflowName>#<workflowId>``: by workflow name."""
    return [w["workflowName"] for w in st.DocumentWorkflow.find({"documentId": document_id}, index="GSI1")]


def documents_in_workflow(st: Table, workflow_id: str) -> list[str]:
    """GSI2 ``wf#<workflowId>`` / ``wfdoc#<documentId>``."""
    return [w["documentId"] for w in st.DocumentWorkflow.find({"workflowId": workflow_id}, index="GSI2")]


# == cases =====================================================================================================


def add_case(st: Table, name: str, *, case_id: str | None = None, **more: Any) -> dict[str, Any]:
    return st.Case.create({"documentId": case_id or new_id(), "name": name, **more})


def add_task(
    st: Table, case_id: str, name: str, *, task_id: str | None = None, **more: Any
) -> dict[str, Any]:
    return st.Task.create({"caseId": case_id, "documentId": task_id or new_id(), "name": name, **more})


def add_nigo(
    st: Table, case_id: str, name: str, *, nigo_id: str | None = None, **more: Any
) -> dict[str, Any]:
    return st.Nigo.create({"caseId": case_id, "documentId": nigo_id or new_id(), "name": name, **more})


def attach_to_case(
    st: Table, case_id: str, document_id: str, *, type: str, object_id: str, at: datetime | None = None
) -> dict[str, Any]:
    """Attach a document to the case itself, one of its tasks or nigos (``type`` / ``object_id``)."""
    return st.CaseDocument.create(
        {
            "caseId": case_id,
            "documentId": document_id,
            "type": type,
            "objectId": object_id,
            "inserteddate": full_date(at),
        }
    )


def case_contents(st: Table, case_id: str) -> dict[str, list[dict[str, Any]]]:
    """The case, its tasks, nigos and documents: one query of ``case#<id>``."""
    return st.fetch(["Case", "Task", "Nigo", "CaseDocument"], {"documentId": case_id}, hidden=False)


def list_cases(st: Table) -> list[str]:
    return [c["documentId"] for c in st.Case.find({}, index="GSI1")]


# == rulesets ==================================================================================================


def add_ruleset(
    st: Table,
    *,
    priority: int,
    status: str = "ACTIVE",
    description: str | None = None,
    version: int = 1,
    ruleset_id: str | None = None,
) -> dict[str, Any]:
    return st.Ruleset.create(
        {
            "documentId": ruleset_id or new_id(),
            "priority": priority,
            "status": status,
            "description": description,
            "version": version,
        }
    )


def rulesets_by_status(st: Table, status: str) -> list[dict[str, Any]]:
    """``rulesets`` / ``ruleset#<status>#<priority>#<id>``: by priority within a status."""
    return list(st.Ruleset.find({"status": status}))


def get_ruleset(st: Table, ruleset_id: str) -> dict[str, Any] | None:
    """By id alone (the primary SK holds status and priority): GSI1 ``ruleset#`` / ``ruleset#<id>``."""
    return st.Ruleset.get({"documentId": ruleset_id}, index="GSI1")


def add_rule(
    st: Table,
    ruleset_id: str,
    *,
    priority: int,
    conditions: Mapping[str, Any],
    workflow_id: str | None = None,
    status: str = "ACTIVE",
    description: str | None = None,
    rule_id: str | None = None,
) -> dict[str, Any]:
    """A rule in both of the page's layouts (Rule and RuleByStatus), in one transaction."""
    rule = {
        "rulesetId": ruleset_id,
        "documentId": rule_id or new_id(),
        "priority": priority,
        "conditions": dict(conditions),
        "workflowId": workflow_id,
        "status": status,
        "description": description,
    }
    transaction: dict[str, Any] = {}
    created = st.Rule.create(rule, transaction=transaction)
    st.RuleByStatus.create(rule, transaction=transaction)
    st.transact("write", transaction)
    return created


def rules_of_ruleset(st: Table, ruleset_id: str) -> list[dict[str, Any]]:
    """By priority: GSI1 ``ruleset#<rulesetId>`` / ``rule#<priority>#<ruleId>``."""
    return list(st.Rule.find({"rulesetId": ruleset_id}, index="GSI1", where=_only("Rule")))


def rules_by_status(st: Table, status: str) -> list[dict[str, Any]]:
    """Every ruleset's rules with ``status``: ``ruleset#`` / ``rule#<status>#<rulesetId>#<priority>#<id>``."""
    return list(st.RuleByStatus.find({"status": status}))


# == mappings ==================================================================================================


def add_mapping(
    st: Table, name: str, attributes: list[Mapping[str, Any]], *, mapping_id: str | None = None, **more: Any
) -> dict[str, Any]:
    return st.Mapping.create(
        {
            "documentId": mapping_id or new_id(),
            "name": name,
            "attributes": [dict(a) for a in attributes],
            **more,
        }
    )


def list_mappings(st: Table) -> list[str]:
    return [m["name"] for m in st.Mapping.find({}, index="GSI1")]


# == API keys (global) =========================================================================================


def mask_api_key(api_key: str) -> str:
    """The masked key of GSI2SK: the first and last four characters around ``****``."""
    return f"{api_key[:4]}****{api_key[-4:]}"


def add_api_key(
    table: Table,
    site_id: str,
    name: str,
    *,
    user_id: str,
    permissions: list[str],
    api_key: str | None = None,
    at: datetime | None = None,
) -> dict[str, Any]:
    api_key = api_key or uuid.uuid4().hex + uuid.uuid4().hex
    return table.ApiKey.create(
        {
            "apiKey": api_key,
            "apiKeyMask": mask_api_key(api_key),
            "name": name,
            "siteId": site_id or DEFAULT_SITE,
            "userId": user_id,
            "permissions": permissions,
            "inserteddate": full_date(at),
        }
    )


def api_keys_of_site(table: Table, site_id: str) -> list[str]:
    """API key names of a site, by name: GSI1 ``<siteId>/apikeys#``."""
    return [k["name"] for k in table.ApiKey.find({"siteId": site_id}, index="GSI1")]


def api_key_by_mask(table: Table, site_id: str, masked: str) -> dict[str, Any] | None:
    """GSI2 ``<siteId>/apikeys#`` / ``apikey#<mask>``."""
    return table.ApiKey.get({"siteId": site_id, "apiKeyMask": masked}, index="GSI2")


def check_api_key(table: Table, api_key: str) -> dict[str, Any] | None:
    return table.ApiKey.get({"apiKey": api_key})


# == OPA (global) ==============================================================================================


def set_opa_policy(table: Table, site_id: str, policy: str, items: Iterable[str] = (), *, type: str = "REGO"):
    """A site's full policy and its policy items (one transaction)."""
    transaction: dict[str, Any] = {}
    table.OpaPolicy.create(
        {"siteId": site_id, "policy": policy, "type": type}, transaction=transaction, exists=None
    )
    for index, item in enumerate(items):
        table.OpaPolicyItem.create(
            {"siteId": site_id, "index": index, "policy": item, "type": type},
            transaction=transaction,
            exists=None,
        )
    table.transact("write", transaction)


def opa_policy(table: Table, site_id: str) -> dict[str, Any]:
    full = table.OpaPolicy.get({"siteId": site_id})
    items = table.OpaPolicyItem.find({"siteId": site_id})
    return {"policy": full["policy"] if full else None, "items": [i["policy"] for i in items]}
