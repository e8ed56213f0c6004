"""VAMS's access patterns on dynabase's entity layer (one OneTable schema per table, see :mod:`.tables`).

What is here, following the data-model page:

* **Archive / unarchive** (:meth:`Vams.archive_asset`, :meth:`Vams.unarchive_asset`): the asset record moves
  from partition ``<databaseId>`` to ``<databaseId>#deleted`` (and back) in one ``TransactWriteItems``: a
  conditional Delete of the source item, a conditional Put of the copy, and the current version's
  ``isArchived`` flag. Any failed condition cancels all of it, so both partitions stay as they were.
* **Versions** (:meth:`Vams.create_version`): the asset's current files (S3 object versions) become records of
  the Asset File Versions table and all its metadata and file attributes become records of the Asset File
  Metadata Versions table (sort key ``type:filePath:metadataKey``); then the version record and the asset's
  ``currentVersionId`` are written in one transaction.
* **Links** (:meth:`Vams.link_assets`, :meth:`Vams.links_of`): one item per link, found from either end
  through ``fromAssetGSI`` / ``toAssetGSI`` (keys-only indexes: the model's ``follow`` reads the items).
* **Search documents from stream records** (:class:`SearchProjector`): the asset, file-metadata,
  file-attribute and link streams (``NEW_IMAGE``) are followed -- through the DynamoDB Streams API
  (:class:`StreamPoller`, ``client.streams()`` or boto3's ``dynamodbstreams``) or in process with the
  embedded engine's ``follow_stream`` (:func:`follow_in_process`) -- and every asset or file change becomes
  a document of the asset or file index with the type-prefixed fields of the page (``str_``, ``num_``,
  ``bool_``, ``date_``, ``list_``, ``MD_``, ``AB_``, ``_rectype``); fields prefixed ``VAMS_`` or ``_``
  (except ``_rectype``) are dropped. The index mappings are ``search/*.json``.

S3 is not part of dynabase: :class:`AssetBucket` is a small in-memory stand-in for a versioned asset bucket
(put, delete markers, object versions, event notifications) so that file records, version snapshots and
file documents have something to point at. The OpenSearch indexes are :class:`SearchIndex`: dynabase's
search projection (SQLite FTS5), the documents named by the declared ``search/*_projection.json`` specs.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dynabase.model import TransactionError
from dynabase.streams.checkpoints import Checkpoint, CheckpointStore
from dynabase.streams.consumer import read_through
from dynabase.streams.search import Page, Projection
from dynabase.streams.search import SearchIndex as FullTextIndex

from .tables import STREAMED, VamsTables

DELETED = "#deleted"
#: ``filePath`` of asset-level metadata in the Asset File Metadata table
ASSET_PATH = "/"
SEARCH_DIR = Path(__file__).resolve().parent / "search"
ASSET_INDEX = "asset"
FILE_INDEX = "file"

#: the page's dynamic field naming convention: prefix -> OpenSearch type
FIELD_PREFIXES = {
    "str_": "text",
    "num_": "long",
    "bool_": "boolean",
    "date_": "date",
    "list_": "text",
    "gp_": "geo_point",
    "gs_": "text",
}


class VamsError(Exception):
    pass


class NotFoundError(VamsError):
    pass


class ConflictError(VamsError):
    """A transaction was cancelled (a condition failed); nothing was written."""

    def __init__(self, message: str, reasons: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.reasons = list(reasons)


# == keys ========================================================================================================


def archived_id(database_id: str) -> str:
    """The partition of archived assets: ``my-database`` -> ``my-database#deleted``."""
    return database_id if database_id.endswith(DELETED) else database_id + DELETED


def live_id(database_id: str) -> str:
    """``my-database#deleted`` -> ``my-database``."""
    return database_id[: -len(DELETED)] if database_id.endswith(DELETED) else database_id


def is_archived_id(database_id: str) -> bool:
    return database_id.endswith(DELETED)


def split_composite(value: str, parts: int) -> list[str]:
    """``"db:x1:/a/b.e57"`` -> ``["db", "x1", "/a/b.e57"]`` (the last part may itself contain ``:``)."""
    return value.split(":", parts - 1)


def assets_prefix(base_assets_prefix: str | None) -> str:
    """The bucket key prefix of assets: ``"/"`` (the default) means the bucket root."""
    prefix = (base_assets_prefix or "/").lstrip("/")
    return prefix if not prefix or prefix.endswith("/") else prefix + "/"


def object_key(base_assets_prefix: str | None, asset_id: str, file_path: str) -> str:
    """``{baseAssetsPrefix}{assetId}/{relative_path}/{filename}`` for a file path like ``/test/pump.e57``."""
    return f"{assets_prefix(base_assets_prefix)}{asset_id}/{file_path.lstrip('/')}"


def is_preview_key(key: str) -> bool:
    """Pipeline preview outputs: ``<file>.previewFile.<ext>`` and the asset preview ``<assetId>/preview.<ext>``."""
    name = key.rsplit("/", 1)[-1]
    return ".previewFile." in name or (name.startswith("preview.") and key.count("/") == 1)


def iso(when: datetime | str | None) -> str | None:
    """A datetime as the ISO text the tables store (``isoDates``): ``2024-05-01T12:00:00.000Z``."""
    if when is None or isinstance(when, str):
        return when
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def now() -> datetime:
    return datetime.now(timezone.utc)


# == S3 stand-in =================================================================================================


@dataclass(frozen=True)
class ObjectVersion:
    key: str
    version_id: str
    etag: str = ""
    size: int = 0
    last_modified: datetime | None = None
    delete_marker: bool = False


class AssetBucket:
    """An in-memory versioned S3 bucket: enough of S3 for the example (no I/O, no AWS).

    ``subscribe(callback)`` registers an S3-event-notification-like callback, called with
    ``{"eventName": "ObjectCreated:Put" | "ObjectRemoved:DeleteMarkerCreated" | "ObjectRemoved:Delete",
    "bucket": name, "key": key, "versionId": id}``.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._versions: dict[str, list[ObjectVersion]] = {}
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self._lock = threading.RLock()

    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> None:
        self._listeners.append(callback)

    def unsubscribe(self, callback: Callable[[dict[str, Any]], None]) -> None:
        self._listeners.remove(callback)

    def _emit(self, event: str, version: ObjectVersion) -> None:
        for listener in list(self._listeners):
            listener(
                {"eventName": event, "bucket": self.name, "key": version.key, "versionId": version.version_id}
            )

    def put_object(self, key: str, body: bytes) -> ObjectVersion:
        version = ObjectVersion(
            key=key,
            version_id=uuid.uuid4().hex,
            etag=hashlib.md5(body).hexdigest(),  # S3's ETag of a single-part upload
            size=len(body),
            last_modified=now(),
        )
        with self._lock:
            self._versions.setdefault(key, []).append(version)
        self._emit("ObjectCreated:Put", version)
        return version

    def delete_object(self, key: str) -> ObjectVersion | None:
        """A versioned delete: adds a delete marker (the object's versions stay)."""
        with self._lock:
            versions = self._versions.get(key)
            if not versions or versions[-1].delete_marker:
                return None
            marker = ObjectVersion(
                key=key, version_id=uuid.uuid4().hex, last_modified=now(), delete_marker=True
            )
            versions.append(marker)
        self._emit("ObjectRemoved:DeleteMarkerCreated", marker)
        return marker

    def remove_delete_marker(self, key: str) -> bool:
        """Delete the delete marker (DeleteObject with its VersionId): the previous version is current again."""
        with self._lock:
            versions = self._versions.get(key)
            if not versions or not versions[-1].delete_marker:
                return False
            marker = versions.pop()
        self._emit("ObjectRemoved:Delete", marker)
        return True

    def latest(self, key: str) -> ObjectVersion | None:
        """The latest version (possibly a delete marker)."""
        with self._lock:
            versions = self._versions.get(key)
            return versions[-1] if versions else None

    def current(self, key: str) -> ObjectVersion | None:
        """The latest version with content (skipping delete markers)."""
        with self._lock:
            for version in reversed(self._versions.get(key, [])):
                if not version.delete_marker:
                    return version
        return None

    def versions(self, key: str) -> list[ObjectVersion]:
        with self._lock:
            return list(self._versions.get(key, []))

    def keys(self, prefix: str = "") -> list[str]:
        with self._lock:
            return sorted(k for k, v in self._versions.items() if v and k.startswith(prefix))


# == search documents ==========================================================================================

#: the page's document conventions, declared (``search/*_projection.json``): type prefixes, ``MD_`` / ``AB_``
#: flat objects, ``_rectype``, and the exclusion of fields prefixed ``VAMS_`` or ``_``
ASSET_PROJECTION = Projection(json.loads((SEARCH_DIR / "asset_projection.json").read_text()))
FILE_PROJECTION = Projection(json.loads((SEARCH_DIR / "file_projection.json").read_text()))


def excluded(name: str) -> bool:
    """The page: fields prefixed with ``VAMS_`` or ``_`` (except ``_rectype``) are not indexed."""
    return ASSET_PROJECTION.excluded(name)


def rows_map(rows: Iterable[Mapping[str, Any]], key: str, value: str) -> dict[str, Any]:
    """Metadata / attribute rows -> ``{key: value}`` (the projection drops excluded keys)."""
    return {row[key]: row[value] for row in rows if row.get(key) and row.get(value) is not None}


def geo_values(
    rows: Iterable[Mapping[str, Any]], key: str, value: str, kind: str
) -> dict[str, dict[str, Any]]:
    """Metadata typed ``geopoint`` / ``geojson`` -> ``{"geo_points": {name: {lat, lon}}, "geo_shapes":
    {name: JSON text}}`` (the projection names them ``gp_<name>`` / ``gs_<name>``)."""
    points: dict[str, Any] = {}
    shapes: dict[str, Any] = {}
    for row in rows:
        name, text, value_type = row.get(key), row.get(value), (row.get(kind) or "").lower()
        if not name or text is None:
            continue
        if value_type == "geopoint":
            try:
                parsed = json.loads(text) if str(text).lstrip().startswith("{") else None
                if parsed is None:
                    lat, lon = (float(part) for part in str(text).split(","))
                    parsed = {"lat": lat, "lon": lon}
                points[name] = {"lat": float(parsed["lat"]), "lon": float(parsed["lon"])}
            except (ValueError, KeyError, TypeError):
                continue
        elif value_type == "geojson":
            try:
                shapes[name] = json.dumps(json.loads(text), separators=(",", ":"), sort_keys=True)
            except ValueError:
                continue
    return {"geo_points": points, "geo_shapes": shapes}


def asset_document(
    asset: Mapping[str, Any],
    *,
    bucket: Mapping[str, Any] | None = None,
    version: Mapping[str, Any] | None = None,
    links: Mapping[str, bool] | None = None,
    metadata: Iterable[Mapping[str, Any]] = (),
) -> tuple[str, dict[str, Any]]:
    """The asset index document of an Asset Storage Table item: ``(document id, document)``.

    Document ID ``{databaseId}:{assetId}`` with the live databaseId; an item of the ``#deleted`` partition
    gives ``bool_archived: true``. The joined values are gathered here; :data:`ASSET_PROJECTION` names them."""
    database_id = asset["databaseId"]
    metadata = list(metadata)
    links = links or {}
    bucket = bucket or {}
    source: dict[str, Any] = {
        "databaseid": live_id(database_id),
        "assetid": asset["assetId"],
        "assetname": asset.get("assetName"),
        "assettype": asset.get("assetType"),
        "description": asset.get("description"),
        "bucketid": asset.get("bucketId"),
        "bucketname": bucket.get("bucketName"),
        "bucketprefix": bucket.get("baseAssetsPrefix"),
        "asset_version_id": (version or {}).get("assetVersionId"),
        "asset_version_comment": (version or {}).get("comment"),
        "assetlocationkey": (asset.get("assetLocation") or {}).get("Key"),
        "previewfilekey": (asset.get("previewLocation") or {}).get("Key"),
        "isdistributable": asset.get("isDistributable"),
        "tags": list(asset.get("tags") or []),
        "asset_version_createdate": iso((version or {}).get("createdAt")),
        "has_asset_children": bool(links.get("children")),
        "has_asset_parents": bool(links.get("parents")),
        "has_assets_related": bool(links.get("related")),
        "archived": is_archived_id(database_id),
        "metadata": rows_map(metadata, "metadataKey", "metadataValue"),
        **geo_values(metadata, "metadataKey", "metadataValue", "metadataValueType"),
    }
    return ASSET_PROJECTION.document_id(source), ASSET_PROJECTION.project(source)


def file_document(
    asset: Mapping[str, Any],
    *,
    file_key: str,
    key: str,
    version: ObjectVersion,
    archived: bool,
    bucket: Mapping[str, Any] | None = None,
    preview_key: str | None = None,
    metadata: Iterable[Mapping[str, Any]] = (),
    attributes: Iterable[Mapping[str, Any]] = (),
) -> tuple[str, dict[str, Any]]:
    """The file index document of one asset file: ``(document id, document)``, named by
    :data:`FILE_PROJECTION`.

    ``file_key`` is the file's path within the asset (``/test/pump.e57``, as in the metadata tables), ``key`` its
    full S3 key, ``version`` its current (content) S3 version; ``archived``: a delete marker is present."""
    bucket = bucket or {}
    metadata = list(metadata)
    name = key.rsplit("/", 1)[-1]
    source: dict[str, Any] = {
        "file_path": file_key,
        "key": key,
        "databaseid": live_id(asset["databaseId"]),
        "assetid": asset["assetId"],
        "assetname": asset.get("assetName"),
        "bucketid": asset.get("bucketId"),
        "bucketname": bucket.get("bucketName"),
        "bucketprefix": bucket.get("baseAssetsPrefix"),
        "fileext": name.rsplit(".", 1)[-1].lower() if "." in name else None,
        "etag": version.etag or None,
        "s3_version_id": version.version_id,
        "previewfilekey": preview_key,
        "lastmodified": iso(version.last_modified),
        "filesize": int(version.size),
        "archived": bool(archived),
        "tags": list(asset.get("tags") or []),
        "metadata": rows_map(metadata, "metadataKey", "metadataValue"),
        "attributes": rows_map(attributes, "attributeKey", "attributeValue"),
        **geo_values(metadata, "metadataKey", "metadataValue", "metadataValueType"),
    }
    return FILE_PROJECTION.document_id(source), FILE_PROJECTION.project(source)


def load_mapping(index: str) -> dict[str, Any]:
    """``search/asset_index.json`` or ``search/file_index.json`` (the index body: ``{"mappings": ...}``)."""
    return json.loads((SEARCH_DIR / f"{index}_index.json").read_text())


def _template_for(name: str, mappings: Mapping[str, Any]) -> dict[str, Any] | None:
    for entry in mappings.get("dynamic_templates", []):
        ((_, template),) = entry.items()
        pattern = template["match"]
        if pattern.endswith("*") and name.startswith(pattern[:-1]) or name == pattern:
            return template["mapping"]
    return None


def check_document(doc: Mapping[str, Any], index: str) -> list[str]:
    """Problems of ``doc`` against the index mapping: every field must be mapped (explicitly, by a dynamic
    template, or be a ``gp_`` / ``gs_`` metadata field) and hold a value of its type."""
    mappings = load_mapping(index)["mappings"]
    problems = []
    for name, value in doc.items():
        mapping = mappings["properties"].get(name) or _template_for(name, mappings)
        if mapping is None:
            if name.startswith("gp_") and isinstance(value, Mapping) and set(value) == {"lat", "lon"}:
                continue
            if name.startswith("gs_") and isinstance(value, str):
                continue
            problems.append(f"{name}: not mapped")
            continue
        kind = mapping["type"]
        ok = {
            "text": isinstance(value, str)
            or (isinstance(value, list) and all(isinstance(v, str) for v in value)),
            "keyword": isinstance(value, str),
            "long": isinstance(value, int) and not isinstance(value, bool),
            "boolean": isinstance(value, bool),
            "date": isinstance(value, str) and _is_iso(value),
            "flat_object": isinstance(value, Mapping),
        }.get(kind, False)
        if not ok:
            problems.append(f"{name}: {value!r} is not a {kind}")
        if name.startswith("list_") and not isinstance(value, list):
            problems.append(f"{name}: list_ fields hold lists")
    return problems


def _is_iso(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


class SearchIndex:
    """The asset and file indexes: dynabase's SQLite FTS5 search index (``path``: a file beside the database,
    or memory), one named index each. :meth:`query` is the full-text API; :meth:`search` term filters."""

    def __init__(self, path: str = ":memory:") -> None:
        self.indexes = {name: FullTextIndex(path, name) for name in (ASSET_INDEX, FILE_INDEX)}

    def put(self, index: str, doc_id: str, doc: dict[str, Any]) -> None:
        self.indexes[index].put(doc_id, doc)

    def delete(self, index: str, doc_id: str) -> bool:
        return self.indexes[index].delete(doc_id)

    def get(self, index: str, doc_id: str) -> dict[str, Any] | None:
        return self.indexes[index].get(doc_id)

    def count(self, index: str) -> int:
        return self.indexes[index].search(limit=1).total

    def search(self, index: str, **terms: Any) -> dict[str, dict[str, Any]]:
        """Term filters: a document matches when each field equals the value (or, for lists, contains it)."""
        out: dict[str, dict[str, Any]] = {}
        offset: int | None = 0
        while offset is not None:
            page = self.indexes[index].search(filters=terms, limit=500, offset=offset)
            out.update(page.hits)
            offset = page.next
        return out

    def query(self, index: str, text: str | None = None, **options: Any) -> Page:
        """Full text, ``filters``, ``sort``, ``limit`` and ``offset`` (see dynabase's ``SearchIndex.search``)."""
        return self.indexes[index].search(text, **options)


# == the application ===========================================================================================


class Vams:
    """The VAMS tables on ``client`` (``dynabase.connect(...)`` or ``boto3.client("dynamodb")``)."""

    def __init__(self, client: Any, *, prefix: str = "") -> None:
        self.client = client
        self.tables = VamsTables(client, prefix)
        model = self.tables.model
        self.Asset = model("AssetStorageTable")
        self.Database = model("DatabaseStorageTable")
        self.AssetVersion = model("AssetVersionsStorageTableV2")
        self.AssetFileVersion = model("AssetFileVersionsStorageTableV2")
        self.MetadataVersion = model("AssetFileMetadataVersionsStorageTable")
        self.AssetUpload = model("AssetUploadsStorageTable")
        self.DatabaseMetadata = model("DatabaseMetadataStorageTableV2")
        self.FileMetadata = model("AssetFileMetadataStorageTableV2")
        self.FileAttribute = model("FileAttributeStorageTableV2")
        self.MetadataSchema = model("MetadataSchemaStorageTableV2")
        self.AssetLink = model("AssetLinksStorageTableV2")
        self.AssetLinkMetadata = model("AssetLinksMetadataStorageTable")
        self.Pipeline = model("PipelineStorageTable")
        self.Workflow = model("WorkflowStorageTable")
        self.WorkflowExecution = model("WorkflowExecutionsStorageTable")
        self.S3AssetBucket = model("S3AssetBucketsStorageTable")
        #: the in-memory S3 stand-ins, by bucket name
        self.buckets: dict[str, AssetBucket] = {}

    def create_tables(self) -> list[str]:
        return self.tables.create_all()

    def delete_tables(self) -> None:
        self.tables.delete_all()

    def _transact(self, transaction: dict[str, Any], what: str) -> None:
        try:
            self.tables.transact(transaction)
        except TransactionError as error:
            reasons = error.reasons
            raise ConflictError(f"{what}: transaction cancelled ({', '.join(reasons)})", reasons) from error

    # -- configuration ------------------------------------------------------------------------------------------

    def add_bucket(self, bucket_id: str, bucket_name: str, base_assets_prefix: str = "/") -> AssetBucket:
        """Register an asset bucket (S3AssetBucketsStorageTable) and create its in-memory stand-in."""
        self.S3AssetBucket.create(
            {"bucketId": bucket_id, "bucketName": bucket_name, "baseAssetsPrefix": base_assets_prefix},
            exists=None,
        )
        return self.buckets.setdefault(bucket_name, AssetBucket(bucket_name))

    def bucket_config(self, bucket_id: str | None) -> dict[str, Any] | None:
        if not bucket_id:
            return None
        rows = self.S3AssetBucket.find({"bucketId": bucket_id}, limit=1)
        return rows[0] if rows else None

    def buckets_named(self, bucket_name: str) -> list[dict[str, Any]]:
        """The registrations of one bucket (bucketNameGSI: bucketName -> baseAssetsPrefix)."""
        return list(self.S3AssetBucket.find({"bucketName": bucket_name}, index="bucketNameGSI"))

    def _bucket_of(self, asset: Mapping[str, Any]) -> tuple[dict[str, Any] | None, AssetBucket | None]:
        config = self.bucket_config(asset.get("bucketId"))
        if config is None:
            return None, None
        return config, self.buckets.get(config["bucketName"])

    def create_database(
        self, database_id: str, description: str = "", default_bucket_id: str | None = None
    ) -> Any:
        if is_archived_id(database_id) or ":" in database_id:
            raise ValueError(f"invalid databaseId {database_id!r}")
        return self.Database.create(
            {"databaseId": database_id, "description": description, "defaultBucketId": default_bucket_id}
        )

    # -- assets -------------------------------------------------------------------------------------------------

    def create_asset(
        self,
        database_id: str,
        asset_id: str,
        *,
        name: str,
        asset_type: str | None = None,
        description: str = "",
        tags: Iterable[str] = (),
        bucket_id: str | None = None,
        is_distributable: bool = True,
    ) -> dict[str, Any]:
        """Create an asset in the live partition; fails (ConflictError) when the id is taken in either the live
        or the ``#deleted`` partition, or the database does not exist."""
        if ":" in asset_id or is_archived_id(asset_id):
            raise ValueError(f"invalid assetId {asset_id!r}")
        database = self.Database.get({"databaseId": database_id}, consistent=True)
        if database is None:
            raise NotFoundError(f"database {database_id!r}")
        bucket_id = bucket_id or database.get("defaultBucketId")
        config = self.bucket_config(bucket_id)
        # S3 keys are {baseAssetsPrefix}{assetId}/..., so an asset id names one asset per bucket (VAMS generates
        # them). BucketIdGSI is eventually consistent on AWS: this check is best effort, the transaction below
        # is exact for the database's own partitions.
        if bucket_id and self.Asset.find({"bucketId": bucket_id, "assetId": asset_id}, index="BucketIdGSI"):
            raise ConflictError(f"asset id {asset_id!r} is already used in bucket {bucket_id!r}")
        location = {"Key": f"{assets_prefix(config['baseAssetsPrefix'])}{asset_id}/"} if config else None
        t: dict[str, Any] = {}
        self.Database.check({"databaseId": database_id}, transaction=t, exists=True)
        self.Asset.check(
            {"databaseId": archived_id(database_id), "assetId": asset_id}, transaction=t, exists=False
        )
        self.Asset.create(
            {
                "databaseId": database_id,
                "assetId": asset_id,
                "assetName": name,
                "assetType": asset_type,
                "description": description,
                "tags": list(tags),
                "bucketId": bucket_id,
                "isDistributable": is_distributable,
                "assetLocation": location,
            },
            transaction=t,
        )
        self._transact(t, f"create asset {database_id}/{asset_id}")
        return self.get_asset(database_id, asset_id)

    def get_asset(self, database_id: str, asset_id: str, *, archived: bool = False) -> dict[str, Any] | None:
        partition = archived_id(database_id) if archived else live_id(database_id)
        return self.Asset.get({"databaseId": partition, "assetId": asset_id}, consistent=True)

    def find_asset(self, database_id: str, asset_id: str) -> dict[str, Any] | None:
        """The asset, live or archived (two consistent gets: live first)."""
        return self.get_asset(database_id, asset_id) or self.get_asset(database_id, asset_id, archived=True)

    def list_assets(self, database_id: str, *, archived: bool = False) -> list[dict[str, Any]]:
        """One query on the partition: active assets, or with ``archived=True`` the ``#deleted`` ones."""
        partition = archived_id(database_id) if archived else live_id(database_id)
        return list(self.Asset.find({"databaseId": partition}, consistent=True))

    def locate_asset(self, asset_id: str) -> list[str]:
        """The databaseId partitions holding ``asset_id`` (assetIdGSI, keys only)."""
        return [row["databaseId"] for row in self.Asset.find({"assetId": asset_id}, index="assetIdGSI")]

    def assets_in_bucket(self, bucket_id: str) -> list[str]:
        """Asset ids stored in a bucket (BucketIdGSI, keys only)."""
        return [row["assetId"] for row in self.Asset.find({"bucketId": bucket_id}, index="BucketIdGSI")]

    def update_asset(self, database_id: str, asset_id: str, **changes: Any) -> dict[str, Any]:
        return self.Asset.update({"databaseId": database_id, "assetId": asset_id, **changes})

    def archive_asset(self, database_id: str, asset_id: str) -> dict[str, Any]:
        """Move the asset to ``<databaseId>#deleted`` atomically; mark its current version archived; then put
        delete markers on its files (S3 side)."""
        moved = self._move(live_id(database_id), archived_id(database_id), asset_id, archived=True)
        _, bucket = self._bucket_of(moved)
        if bucket is not None:
            for key, _ in self.asset_files(moved):
                bucket.delete_object(key)
        return moved

    def unarchive_asset(self, database_id: str, asset_id: str) -> dict[str, Any]:
        """Move the asset back from ``<databaseId>#deleted`` atomically; restore its files."""
        moved = self._move(archived_id(database_id), live_id(database_id), asset_id, archived=False)
        _, bucket = self._bucket_of(moved)
        if bucket is not None:
            for key, _ in self.asset_files(moved, include_deleted=True):
                bucket.remove_delete_marker(key)
        return moved

    def _move(self, source: str, target: str, asset_id: str, *, archived: bool) -> dict[str, Any]:
        item = self.Asset.get({"databaseId": source, "assetId": asset_id}, consistent=True)
        if item is None:
            raise NotFoundError(f"asset {source}/{asset_id}")
        stamp = now()
        t: dict[str, Any] = {}
        # delete from the source partition, unless the item changed since it was read (updatedAt is the
        # token: writes within the same millisecond are not told apart)
        self.Asset.remove(
            {"databaseId": source, "assetId": asset_id},
            transaction=t,
            exists=True,
            where="${updatedAt} = @{seen}",
            substitutions={"seen": iso(item["updatedAt"])},
        )
        # the same item in the target partition, unless the key is taken there
        self.Asset.create({**item, "databaseId": target, "updatedAt": stamp}, transaction=t, timestamps=False)
        version_id = item.get("currentVersionId")
        if version_id:
            self.AssetVersion.update(
                {
                    "databaseId": live_id(source),
                    "assetId": asset_id,
                    "assetVersionId": version_id,
                    "isArchived": archived,
                },
                transaction=t,
            )
        self._transact(t, f"{'archive' if archived else 'unarchive'} {source}/{asset_id}")
        return {**item, "databaseId": target, "updatedAt": stamp}

    # -- files (the S3 side) --------------------------------------------------------------------------------------

    def upload_files(
        self, database_id: str, asset_id: str, files: Mapping[str, bytes], *, user_id: str
    ) -> dict[str, Any]:
        """Upload files (path within the asset -> content) and track the upload (AssetUploadsStorageTable)."""
        asset = self.get_asset(database_id, asset_id)
        if asset is None:
            raise NotFoundError(f"asset {database_id}/{asset_id}")
        config, bucket = self._bucket_of(asset)
        if bucket is None:
            raise NotFoundError(f"no bucket for asset {database_id}/{asset_id}")
        upload = self.AssetUpload.create(
            {
                "assetId": asset_id,
                "databaseId": database_id,
                "UserId": user_id,
                "totalFiles": len(files),
                "fileKeys": sorted("/" + p.lstrip("/") for p in files),
            }
        )
        for path, body in files.items():
            bucket.put_object(object_key(config["baseAssetsPrefix"], asset_id, path), body)
        return self.AssetUpload.update(
            {"uploadId": upload["uploadId"], "assetId": asset_id, "status": "completed"}
        )

    def uploads_of_user(self, user_id: str) -> list[dict[str, Any]]:
        """UserIdGSI (keys only: uploadId, assetId, UserId, createdAt), oldest first."""
        return list(self.AssetUpload.find({"UserId": user_id}, index="UserIdGSI"))

    def uploads_of_asset(self, asset_id: str) -> list[dict[str, Any]]:
        return list(self.AssetUpload.find({"assetId": asset_id}, index="AssetIdGSI"))

    def uploads_of_database(self, database_id: str) -> list[dict[str, Any]]:
        return list(self.AssetUpload.find({"databaseId": database_id}, index="DatabaseIdGSI"))

    def asset_files(
        self, asset: Mapping[str, Any], *, include_deleted: bool = False
    ) -> list[tuple[str, ObjectVersion]]:
        """``(S3 key, current content version)`` of the asset's files (previews left out); files whose latest
        version is a delete marker only with ``include_deleted``."""
        config, bucket = self._bucket_of(asset)
        if bucket is None:
            return []
        prefix = f"{assets_prefix(config['baseAssetsPrefix'])}{asset['assetId']}/"
        out = []
        for key in bucket.keys(prefix):
            if is_preview_key(key):
                continue
            latest, current = bucket.latest(key), bucket.current(key)
            if current is None or (latest.delete_marker and not include_deleted):
                continue
            out.append((key, current))
        return out

    def file_path_of(self, asset: Mapping[str, Any], key: str) -> str:
        config, _ = self._bucket_of(asset)
        prefix = f"{assets_prefix(config['baseAssetsPrefix'] if config else '/')}{asset['assetId']}/"
        return "/" + key[len(prefix) :]

    # -- metadata and attributes ----------------------------------------------------------------------------------

    def set_metadata(
        self,
        database_id: str,
        asset_id: str,
        key: str,
        value: str,
        value_type: str = "string",
        *,
        file_path: str = ASSET_PATH,
    ) -> Any:
        """Metadata of the asset (``file_path="/"``) or of one of its files."""
        return self.FileMetadata.create(
            {
                "metadataKey": key,
                "databaseId": database_id,
                "assetId": asset_id,
                "filePath": file_path,
                "metadataValue": value,
                "metadataValueType": value_type,
            },
            exists=None,
        )

    def delete_metadata(
        self, database_id: str, asset_id: str, key: str, *, file_path: str = ASSET_PATH
    ) -> Any:
        return self.FileMetadata.remove(
            {"metadataKey": key, "databaseId": database_id, "assetId": asset_id, "filePath": file_path}
        )

    def metadata(self, database_id: str, asset_id: str, file_path: str = ASSET_PATH) -> list[dict[str, Any]]:
        """DatabaseIdAssetIdFilePathIndex: the metadata of one file (or of the asset, ``"/"``)."""
        return list(
            self.FileMetadata.find(
                {"databaseId": database_id, "assetId": asset_id, "filePath": file_path},
                index="DatabaseIdAssetIdFilePathIndex",
            )
        )

    def all_metadata(self, database_id: str, asset_id: str) -> list[dict[str, Any]]:
        """DatabaseIdAssetIdIndex: the metadata of the asset and all its files."""
        return list(
            self.FileMetadata.find(
                {"databaseId": database_id, "assetId": asset_id}, index="DatabaseIdAssetIdIndex"
            )
        )

    def set_attribute(
        self,
        database_id: str,
        asset_id: str,
        file_path: str,
        key: str,
        value: str,
        value_type: str = "string",
    ) -> Any:
        return self.FileAttribute.create(
            {
                "attributeKey": key,
                "databaseId": database_id,
                "assetId": asset_id,
                "filePath": file_path,
                "attributeValue": value,
                "attributeValueType": value_type,
            },
            exists=None,
        )

    def attributes(self, database_id: str, asset_id: str, file_path: str) -> list[dict[str, Any]]:
        return list(
            self.FileAttribute.find(
                {"databaseId": database_id, "assetId": asset_id, "filePath": file_path},
                index="DatabaseIdAssetIdFilePathIndex",
            )
        )

    def all_attributes(self, database_id: str, asset_id: str) -> list[dict[str, Any]]:
        return list(
            self.FileAttribute.find(
                {"databaseId": database_id, "assetId": asset_id}, index="DatabaseIdAssetIdIndex"
            )
        )

    def set_database_metadata(
        self, database_id: str, key: str, value: str, value_type: str = "string"
    ) -> Any:
        return self.DatabaseMetadata.create(
            {
                "metadataKey": key,
                "databaseId": database_id,
                "metadataValue": value,
                "metadataValueType": value_type,
            },
            exists=None,
        )

    def database_metadata(self, database_id: str) -> list[dict[str, Any]]:
        return list(self.DatabaseMetadata.find({"databaseId": database_id}, index="DatabaseIdIndex"))

    # -- versions -------------------------------------------------------------------------------------------------

    def create_version(
        self,
        database_id: str,
        asset_id: str,
        *,
        comment: str = "",
        created_by: str = "system",
        alias: str | None = None,
    ) -> dict[str, Any]:
        """Snapshot the asset's files (with their S3 version ids) and all its metadata and attributes, then
        write the version record and make it the asset's current version in one transaction.

        The snapshot rows are batch-written first and only become reachable through the version record, which
        is written last: a failed version leaves orphan rows under an unused version id, never a half version.
        """
        asset = self.get_asset(database_id, asset_id)
        if asset is None:
            raise NotFoundError(f"asset {database_id}/{asset_id} (archived assets cannot be versioned)")
        taken = [int(v["assetVersionId"]) for v in self.list_versions(database_id, asset_id)]
        version_id = str(max(taken, default=0) + 1)
        keys = {"databaseId": database_id, "assetId": asset_id, "assetVersionId": version_id}
        batch: dict[str, Any] = {}
        files = self.asset_files(asset)
        for key, version in files:
            self.AssetFileVersion.create(
                {
                    **keys,
                    "fileKey": self.file_path_of(asset, key),
                    "key": key,
                    "s3VersionId": version.version_id,
                    "etag": version.etag,
                    "size": version.size,
                    "lastModified": version.last_modified,
                },
                batch=batch,
            )
        for row in self.all_metadata(database_id, asset_id):
            self.MetadataVersion.create(
                {
                    **keys,
                    "type": "metadata",
                    "filePath": row["filePath"],
                    "metadataKey": row["metadataKey"],
                    "metadataValue": row.get("metadataValue"),
                    "metadataValueType": row.get("metadataValueType"),
                },
                batch=batch,
            )
        for row in self.all_attributes(database_id, asset_id):
            self.MetadataVersion.create(
                {
                    **keys,
                    "type": "attribute",
                    "filePath": row["filePath"],
                    "metadataKey": row["attributeKey"],
                    "metadataValue": row.get("attributeValue"),
                    "metadataValueType": row.get("attributeValueType"),
                },
                batch=batch,
            )
        self.tables.batch_write(batch)
        t: dict[str, Any] = {}
        self.AssetVersion.create(
            {
                **keys,
                "comment": comment,
                "versionAlias": alias,
                "createdBy": created_by,
                "fileCount": len(files),
            },
            transaction=t,
        )
        self.Asset.update(
            {"databaseId": database_id, "assetId": asset_id, "currentVersionId": version_id}, transaction=t
        )
        self._transact(t, f"create version {version_id} of {database_id}/{asset_id}")
        return self.get_version(database_id, asset_id, version_id)

    def get_version(self, database_id: str, asset_id: str, version_id: str) -> dict[str, Any] | None:
        return self.AssetVersion.get(
            {"databaseId": live_id(database_id), "assetId": asset_id, "assetVersionId": version_id},
            consistent=True,
        )

    def list_versions(self, database_id: str, asset_id: str) -> list[dict[str, Any]]:
        rows = self.AssetVersion.find(
            {"databaseId": live_id(database_id), "assetId": asset_id}, consistent=True
        )
        return sorted(rows, key=lambda v: int(v["assetVersionId"]))

    def update_version(
        self,
        database_id: str,
        asset_id: str,
        version_id: str,
        *,
        alias: str | None = None,
        comment: str | None = None,
    ) -> dict[str, Any]:
        """The page's "Update Version": only ``versionAlias`` and ``comment`` change."""
        changes = {k: v for k, v in (("versionAlias", alias), ("comment", comment)) if v is not None}
        return self.AssetVersion.update(
            {"databaseId": live_id(database_id), "assetId": asset_id, "assetVersionId": version_id, **changes}
        )

    def version_files(self, database_id: str, asset_id: str, version_id: str) -> list[dict[str, Any]]:
        return list(
            self.AssetFileVersion.find(
                {"databaseId": live_id(database_id), "assetId": asset_id, "assetVersionId": version_id}
            )
        )

    def all_version_files(self, database_id: str, asset_id: str) -> list[dict[str, Any]]:
        """Every file record of every version of the asset (databaseIdAssetIdIndex, hash only)."""
        return list(
            self.AssetFileVersion.find(
                {"databaseId": live_id(database_id), "assetId": asset_id}, index="databaseIdAssetIdIndex"
            )
        )

    def version_metadata(
        self,
        database_id: str,
        asset_id: str,
        version_id: str,
        *,
        kind: str | None = None,
        file_path: str | None = None,
    ) -> list[dict[str, Any]]:
        """The version's metadata snapshot; ``kind`` (``metadata`` / ``attribute``) and ``file_path`` narrow it
        to a ``begins_with`` on the sort key ``type:filePath:metadataKey``."""
        props: dict[str, Any] = {
            "databaseId": live_id(database_id),
            "assetId": asset_id,
            "assetVersionId": version_id,
        }
        if kind is not None:
            props["type"] = kind
            if file_path is not None:
                props["filePath"] = file_path
        elif file_path is not None:
            raise ValueError("file_path needs kind (the sort key starts with the type)")
        return list(self.MetadataVersion.find(props))

    # -- links ----------------------------------------------------------------------------------------------------

    def link_assets(
        self,
        from_database_id: str,
        from_asset_id: str,
        to_database_id: str,
        to_asset_id: str,
        relationship_type: str = "related",
        *,
        metadata: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """A directional link (``parentChild``: from = parent, to = child; or ``related``), with its metadata
        rows, in one transaction that also checks that both assets exist (live)."""
        existing = self.AssetLink.find(
            {
                "fromAssetDatabaseId": from_database_id,
                "fromAssetId": from_asset_id,
                "toAssetDatabaseId": to_database_id,
                "toAssetId": to_asset_id,
            },
            index="fromAssetGSI",
        )
        if existing:
            raise ConflictError(
                f"{from_asset_id} -> {to_asset_id} is already linked ({existing[0]['assetLinkId']})"
            )
        t: dict[str, Any] = {}
        self.Asset.check(
            {"databaseId": from_database_id, "assetId": from_asset_id}, transaction=t, exists=True
        )
        self.Asset.check({"databaseId": to_database_id, "assetId": to_asset_id}, transaction=t, exists=True)
        link_id = str(uuid.uuid4())
        link = {
            "assetLinkId": link_id,
            "fromAssetDatabaseId": from_database_id,
            "fromAssetId": from_asset_id,
            "toAssetDatabaseId": to_database_id,
            "toAssetId": to_asset_id,
            "relationshipType": relationship_type,
        }
        self.AssetLink.create(link, transaction=t)
        for key, value in (metadata or {}).items():
            self.AssetLinkMetadata.create(
                {"assetLinkId": link_id, "metadataKey": key, "metadataValue": value}, transaction=t
            )
        self._transact(t, f"link {from_asset_id} -> {to_asset_id}")
        return link

    def unlink(self, link_id: str) -> None:
        t: dict[str, Any] = {}
        self.AssetLink.remove({"assetLinkId": link_id}, transaction=t, exists=True)
        for row in self.link_metadata(link_id):
            self.AssetLinkMetadata.remove(
                {"assetLinkId": link_id, "metadataKey": row["metadataKey"]}, transaction=t
            )
        self._transact(t, f"unlink {link_id}")

    def link_metadata(self, link_id: str) -> list[dict[str, Any]]:
        return list(self.AssetLinkMetadata.find({"assetLinkId": link_id}, consistent=True))

    def links_of(self, database_id: str, asset_id: str) -> dict[str, list[dict[str, Any]]]:
        """The asset's links from both directions: ``children`` and ``parents`` (parentChild links where it is
        the from / to end), ``related`` (either end). fromAssetGSI and toAssetGSI are keys-only; ``follow``
        reads the link items they point at."""
        here = {"databaseId": live_id(database_id), "assetId": asset_id}
        outgoing = self.AssetLink.find(
            {"fromAssetDatabaseId": here["databaseId"], "fromAssetId": asset_id},
            index="fromAssetGSI",
            follow=True,
        )
        incoming = self.AssetLink.find(
            {"toAssetDatabaseId": here["databaseId"], "toAssetId": asset_id}, index="toAssetGSI", follow=True
        )
        out: dict[str, list[dict[str, Any]]] = {"children": [], "parents": [], "related": []}
        for link in outgoing:
            out["children" if link["relationshipType"] == "parentChild" else "related"].append(link)
        for link in incoming:
            out["parents" if link["relationshipType"] == "parentChild" else "related"].append(link)
        return out

    def link_flags(self, database_id: str, asset_id: str) -> dict[str, bool]:
        return {name: bool(links) for name, links in self.links_of(database_id, asset_id).items()}

    # -- pipelines, workflows, executions -------------------------------------------------------------------------

    def create_pipeline(self, database_id: str, pipeline_id: str, **fields: Any) -> Any:
        return self.Pipeline.create({"databaseId": database_id, "pipelineId": pipeline_id, **fields})

    def create_workflow(
        self, database_id: str, workflow_id: str, *, pipelines: Iterable[str] = (), **fields: Any
    ) -> Any:
        return self.Workflow.create(
            {
                "databaseId": database_id,
                "workflowId": workflow_id,
                "specifiedPipelines": {"functions": [{"name": p} for p in pipelines]},
                **fields,
            }
        )

    def record_execution(
        self,
        database_id: str,
        asset_id: str,
        workflow_database_id: str,
        workflow_id: str,
        *,
        execution_id: str | None = None,
        status: str = "RUNNING",
    ) -> Any:
        return self.WorkflowExecution.create(
            {
                "databaseId": database_id,
                "assetId": asset_id,
                "executionId": execution_id or str(uuid.uuid4()),
                "workflowDatabaseId": workflow_database_id,
                "workflowId": workflow_id,
                "executionStatus": status,
                "startDate": now(),
            }
        )

    def executions_of_asset(
        self,
        database_id: str,
        asset_id: str,
        workflow_database_id: str | None = None,
        workflow_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """The asset's executions; of one workflow through the LSI ``WorkflowLSI`` (same partition, sort key
        ``workflowDatabaseId:workflowId``)."""
        props = {"databaseId": database_id, "assetId": asset_id}
        if workflow_id is None:
            return list(self.WorkflowExecution.find(props, consistent=True))
        props.update(workflowDatabaseId=workflow_database_id, workflowId=workflow_id)
        return list(self.WorkflowExecution.find(props, index="WorkflowLSI", consistent=True))

    def executions_of_workflow(self, workflow_database_id: str, workflow_id: str) -> list[dict[str, Any]]:
        """WorkflowGSI (keys only), followed to the execution items."""
        return list(
            self.WorkflowExecution.find(
                {"workflowDatabaseId": workflow_database_id, "workflowId": workflow_id},
                index="WorkflowGSI",
                follow=True,
            )
        )

    def execution_ids_of_workflow_id(self, workflow_id: str) -> list[str]:
        """ExecutionIdGSI (keys only): execution ids by bare workflowId."""
        return [
            row["executionId"]
            for row in self.WorkflowExecution.find({"workflowId": workflow_id}, index="ExecutionIdGSI")
        ]


# == stream following ==========================================================================================


class StreamPoller:
    """Reads the streamed VAMS tables through the DynamoDB Streams API.

    ``streams`` is a ``dynamodbstreams`` client: ``client.streams()`` on the embedded engine, or
    ``boto3.client("dynamodbstreams")``. Every :meth:`poll` drains what is new on every shard of every stream
    (from the trim horizon on the first poll, unless ``from_start=False``) and returns
    ``[(logical table name, record), ...]``, each table's records in stream order.

    With ``checkpoints`` (a :mod:`dynabase.streams` checkpoint store, e.g. ``SqliteCheckpoints("search.db")``)
    the poller remembers, under ``name``, how far each shard was projected: :meth:`commit` saves it once the
    records of the last :meth:`poll` are handled (:func:`drain` does), and a new poller on the same store
    starts right after it -- so the projection, restarted, catches up with what changed while it was down
    rather than starting from the stream's end. A shard first seen with ``from_start=False`` has its end saved
    at once, so even a restart before the first commit misses nothing.
    """

    def __init__(
        self,
        vams: Vams,
        streams: Any,
        *,
        tables: Iterable[str] = STREAMED,
        from_start: bool = True,
        checkpoints: CheckpointStore | None = None,
        name: str = "vams-search",
    ) -> None:
        self.vams = vams
        self.streams = streams
        self.tables = list(tables)
        self.from_start = from_start
        self.checkpoints = checkpoints
        self.name = name
        self._iterators: dict[
            tuple[str, str], str | None
        ] = {}  # (table, shard id) -> iterator; None = closed
        self._arns: dict[str, str] = {}
        self._polled: dict[tuple[str, str], str] = {}  # (table, shard id) -> last sequence number polled
        if not from_start:
            for table in self.tables:  # position every known shard at its end now
                for shard in self._shards(table):
                    self._iterators[(table, shard)] = self._start(table, shard)

    def _arn(self, table: str) -> str:
        arn = self._arns.get(table)
        if arn is None:
            description = self.vams.client.describe_table(TableName=self.vams.tables.physical(table))["Table"]
            arn = self._arns[table] = description["LatestStreamArn"]
        return arn

    def _shards(self, table: str) -> list[str]:
        shards: list[str] = []
        kwargs: dict[str, Any] = {"StreamArn": self._arn(table)}
        while True:
            description = self.streams.describe_stream(**kwargs)["StreamDescription"]
            shards += [s["ShardId"] for s in description.get("Shards", [])]
            last = description.get("LastEvaluatedShardId")
            if not last:
                return shards
            kwargs["ExclusiveStartShardId"] = last

    def _iterator(self, table: str, shard: str, kind: str, sequence: str | None = None) -> str:
        position = {"SequenceNumber": sequence} if sequence is not None else {}
        return self.streams.get_shard_iterator(
            StreamArn=self._arn(table), ShardId=shard, ShardIteratorType=kind, **position
        )["ShardIterator"]

    def _start(self, table: str, shard: str) -> str | None:
        """The iterator a shard is first read from: after its checkpoint, else its start or (``from_start``
        false) its end -- saved as the checkpoint when there is a store."""
        saved = self.checkpoints.get(self.name, self._arn(table), shard) if self.checkpoints else None
        if saved is not None:
            if saved.sequence is None:
                return self._iterator(table, shard, "TRIM_HORIZON")
            return self._iterator(table, shard, "AFTER_SEQUENCE_NUMBER", saved.sequence)
        if self.from_start:
            return self._iterator(table, shard, "TRIM_HORIZON")
        if self.checkpoints is None:
            return self._iterator(table, shard, "LATEST")
        last, iterator = read_through(
            self.streams, self._arn(table), shard
        )  # a LATEST iterator has no position
        self.checkpoints.save(self.name, self._arn(table), shard, Checkpoint(last))
        return iterator

    def poll(self) -> list[tuple[str, dict[str, Any]]]:
        out: list[tuple[str, dict[str, Any]]] = []
        for table in self.tables:
            for shard in self._shards(table):
                key = (table, shard)
                if key not in self._iterators:
                    self._iterators[key] = self._start(table, shard)
                iterator = self._iterators[key]
                while iterator:
                    page = self.streams.get_records(ShardIterator=iterator, Limit=1000)
                    records = page.get("Records", [])
                    out += [(table, record) for record in records]
                    if records:
                        self._polled[key] = records[-1]["dynamodb"]["SequenceNumber"]
                    iterator = page.get("NextShardIterator")
                    if not records:
                        break
                self._iterators[key] = iterator
        return out

    def commit(self) -> None:
        """Save how far the records returned by :meth:`poll` so far reach (call it once they are handled)."""
        if self.checkpoints is not None:
            for (table, shard), sequence in self._polled.items():
                self.checkpoints.save(self.name, self._arn(table), shard, Checkpoint(sequence))
        self._polled.clear()


def follow_in_process(
    vams: Vams,
    handle: Callable[[str, dict[str, Any]], Any],
    *,
    tables: Iterable[str] = STREAMED,
    stop: threading.Event,
    poll: float = 0.02,
) -> list[threading.Thread]:
    """Follow the streams with the embedded engine's ``follow_stream`` (one thread per table) until ``stop`` is
    set, calling ``handle(table, record)`` for every record (calls are serialised)."""
    engine = getattr(vams.client, "engine", None)
    if engine is None:
        raise TypeError("follow_in_process needs the embedded client (dynabase.connect); use StreamPoller")
    lock = threading.Lock()

    def run(table: str) -> None:
        for record in engine.follow_stream(
            vams.tables.physical(table), from_start=True, poll=poll, stop=stop
        ):
            with lock:
                handle(table, record)

    threads = [threading.Thread(target=run, args=(t,), name=f"follow-{t}", daemon=True) for t in tables]
    for thread in threads:
        thread.start()
    return threads


# == the search projection =====================================================================================


class SearchProjector:
    """Turns stream records (and bucket events) into asset and file documents of :class:`SearchIndex`.

    Stream records are triggers: an INSERT/MODIFY of the asset table is indexed from its ``NewImage``; a REMOVE
    (``NEW_IMAGE`` streams carry only the keys of a removed item) re-reads the asset from whichever partition
    holds it now -- so the two records of an archive or unarchive transaction give the right document in
    either order. Metadata at ``filePath "/"`` re-indexes the asset, other metadata and attributes the file;
    links re-index both ends.
    """

    def __init__(self, vams: Vams, index: SearchIndex | None = None) -> None:
        self.vams = vams
        self.index = index or SearchIndex()
        self.log: list[str] = []
        self.ignored = 0
        # NEW_IMAGE: a REMOVE of a link carries only assetLinkId, so remember which assets each link joins
        self._link_ends: dict[str, list[tuple[str, str]]] = {}
        self._lock = threading.RLock()

    # -- inputs ---------------------------------------------------------------------------------------------------

    def handle(self, table: str, record: Mapping[str, Any]) -> None:
        """One stream record of logical table ``table``."""
        with self._lock:
            handler = {
                "AssetStorageTable": self._asset_record,
                "AssetFileMetadataStorageTableV2": self._file_record,
                "FileAttributeStorageTableV2": self._file_record,
                "AssetLinksStorageTableV2": self._link_record,
            }.get(table)
            if handler is None:  # database / database metadata / link metadata: no index on the page
                self.ignored += 1
                return
            handler(table, record)

    def handle_all(self, records: Iterable[tuple[str, Mapping[str, Any]]]) -> int:
        count = 0
        for table, record in records:
            self.handle(table, record)
            count += 1
        return count

    def handle_object_event(self, event: Mapping[str, Any]) -> None:
        """A bucket event (S3 event notification): re-index the file (or, for a preview, the file it previews)."""
        with self._lock:
            key = event["key"]
            for config in self.vams.buckets_named(event["bucket"]):
                prefix = assets_prefix(config["baseAssetsPrefix"])
                if not key.startswith(prefix) or "/" not in key[len(prefix) :]:
                    continue
                asset_id, rest = key[len(prefix) :].split("/", 1)
                for database_id in self.vams.locate_asset(asset_id):
                    asset = self.vams.find_asset(live_id(database_id), asset_id)
                    if asset is None or asset.get("bucketId") != config["bucketId"]:
                        continue  # the same asset id in another bucket
                    if ".previewFile." in rest:
                        rest = rest.split(".previewFile.", 1)[0]
                    elif is_preview_key(key):
                        self.reindex_asset(database_id, asset_id)
                        continue
                    self.reindex_file(database_id, asset_id, "/" + rest)

    def _keys(self, table: str, record: Mapping[str, Any]) -> dict[str, Any]:
        return self.vams.tables[table].decoder.decode_item(record["dynamodb"]["Keys"])

    def _image(self, table: str, record: Mapping[str, Any]) -> dict[str, Any] | None:
        """The record's NewImage read through the table's model (OneTable's ``Table.stream``)."""
        for entries in self.vams.tables[table].stream([record]).values():
            for entry in entries:
                return entry.get("new")
        return None

    def _asset_record(self, table: str, record: Mapping[str, Any]) -> None:
        item = self._image(table, record) if record.get("eventName") != "REMOVE" else None
        if item is None:
            keys = self._keys(table, record)
            self.reindex_asset(keys["databaseId"], keys["assetId"])
            return
        self._index_asset(item)
        self.reindex_files(item)

    def _file_record(self, table: str, record: Mapping[str, Any]) -> None:
        keys = self._keys(table, record)
        database_id, asset_id, file_path = split_composite(keys["databaseId:assetId:filePath"], 3)
        if file_path == ASSET_PATH:
            self.reindex_asset(database_id, asset_id)
        else:
            self.reindex_file(database_id, asset_id, file_path)

    def _link_record(self, table: str, record: Mapping[str, Any]) -> None:
        link_id = self._keys(table, record)["assetLinkId"]
        item = self._image(table, record) if record.get("eventName") != "REMOVE" else None
        if item is not None:
            ends = [
                (item["fromAssetDatabaseId"], item["fromAssetId"]),
                (item["toAssetDatabaseId"], item["toAssetId"]),
            ]
            self._link_ends[link_id] = ends
        else:
            ends = self._link_ends.pop(link_id, [])
            if not ends:
                self.log.append(f"skip REMOVE of unknown link {link_id}")
        for database_id, asset_id in ends:
            self.reindex_asset(database_id, asset_id)

    # -- projection -----------------------------------------------------------------------------------------------

    def reindex_asset(self, database_id: str, asset_id: str) -> dict[str, Any] | None:
        """Index the asset from its current record (live or archived); delete its documents when it is gone."""
        item = self.vams.find_asset(live_id(database_id), asset_id)
        if item is None:
            doc_id = f"{live_id(database_id)}:{asset_id}"
            if self.index.delete(ASSET_INDEX, doc_id):
                self.log.append(f"delete {ASSET_INDEX} {doc_id}")
            for file_id in list(
                self.index.search(FILE_INDEX, str_databaseid=live_id(database_id), str_assetid=asset_id)
            ):
                self.index.delete(FILE_INDEX, file_id)
                self.log.append(f"delete {FILE_INDEX} {file_id}")
            return None
        doc = self._index_asset(item)
        self.reindex_files(item)
        return doc

    def _index_asset(self, item: Mapping[str, Any]) -> dict[str, Any]:
        database_id, asset_id = live_id(item["databaseId"]), item["assetId"]
        version_id = item.get("currentVersionId")
        doc_id, doc = asset_document(
            item,
            bucket=self.vams.bucket_config(item.get("bucketId")),
            version=self.vams.get_version(database_id, asset_id, version_id) if version_id else None,
            links=self.vams.link_flags(database_id, asset_id),
            metadata=self.vams.metadata(database_id, asset_id, ASSET_PATH),
        )
        self.index.put(ASSET_INDEX, doc_id, doc)
        self.log.append(f"index {ASSET_INDEX} {doc_id}" + (" (archived)" if doc["bool_archived"] else ""))
        return doc

    def reindex_files(self, asset: Mapping[str, Any]) -> None:
        """Every file of the asset (asset fields are copied into file documents)."""
        for key, _ in self.vams.asset_files(asset, include_deleted=True):
            self._index_file(asset, self.vams.file_path_of(asset, key))

    def reindex_file(self, database_id: str, asset_id: str, file_path: str) -> dict[str, Any] | None:
        asset = self.vams.find_asset(live_id(database_id), asset_id)
        if asset is None:
            return None
        return self._index_file(asset, file_path)

    def _index_file(self, asset: Mapping[str, Any], file_path: str) -> dict[str, Any] | None:
        database_id, asset_id = live_id(asset["databaseId"]), asset["assetId"]
        config, bucket = self.vams._bucket_of(asset)
        doc_id = f"{database_id}:{asset_id}:{file_path}"
        key = object_key(config["baseAssetsPrefix"], asset_id, file_path) if config else None
        current = bucket.current(key) if bucket is not None else None
        if current is None:  # no such object (or only delete markers ever): nothing to index
            if self.index.delete(FILE_INDEX, doc_id):
                self.log.append(f"delete {FILE_INDEX} {doc_id}")
            return None
        previews = [k for k in bucket.keys(key + ".previewFile.") if bucket.current(k) is not None]
        doc_id, doc = file_document(
            asset,
            file_key=file_path,
            key=key,
            version=current,
            archived=bucket.latest(key).delete_marker,
            bucket=config,
            preview_key=previews[-1] if previews else None,
            metadata=self.vams.metadata(database_id, asset_id, file_path),
            attributes=self.vams.attributes(database_id, asset_id, file_path),
        )
        self.index.put(FILE_INDEX, doc_id, doc)
        self.log.append(f"index {FILE_INDEX} {doc_id}" + (" (archived)" if doc["bool_archived"] else ""))
        return doc


# == sample rows for the remaining tables ======================================================================


def sample_rows() -> dict[str, dict[str, Any]]:
    """One row for each table the access patterns above do not write (properties for the table's model)."""
    return {
        "MetadataSchemaStorageTableV2": {
            "metadataSchemaId": "schema-1",
            "databaseId": "engineering",
            "metadataEntityType": "assetMetadata",
            "schemaName": "CAD assets",
            "fields": [
                {"metadataFieldKeyName": "partNumber", "metadataFieldValueType": "string", "required": True}
            ],
        },
        "ConstraintsStorageTable": {
            "constraintId": "c-1",
            "name": "engineers read engineering",
            "objectType": "asset",
            "groupId": "engineers",
            "criteriaAnd": [{"field": "databaseId", "operator": "equals", "value": "engineering"}],
            "groupPermissions": [{"groupId": "engineers", "permission": "GET", "permissionType": "allow"}],
        },
        "AuthEntitiesStorageTable": {"entityType": "constraint", "sk": "constraint#c-1", "name": "c-1"},
        "RolesStorageTable": {"roleName": "engineers", "description": "Engineering team"},
        "UserRolesStorageTable": {"userId": "ana@example.com", "roleName": "engineers"},
        "UserStorageTable": {"userId": "ana@example.com", "email": "ana@example.com"},
        "ApiKeyStorageTable": {
            "apiKeyId": "key-1",
            "apiKeyHash": hashlib.sha256(b"not-a-real-key").hexdigest(),
            "userId": "ana@example.com",
            "apiKeyName": "ci",
        },
        "TagStorageTable": {"tagName": "pump", "description": "Pumps", "tagTypeName": "equipment"},
        "TagTypeStorageTable": {"tagTypeName": "equipment", "description": "Equipment kinds"},
        "SubscriptionsStorageTable": {
            "eventName": "Asset Version Change",
            "entityName": "Asset",
            "entityId": "x-pump",
            "subscribers": ["ana@example.com"],
        },
        "CommentStorageTable": {
            "assetId": "x-pump",
            "assetVersionId": "1",
            "commentId": "01J0000000000000000000000C",
            "commentBody": "Scan looks good",
            "commentOwnerID": "ana@example.com",
        },
        "AppFeatureEnabledStorageTable": {"featureName": "AUTHPROVIDER_COGNITO"},
    }


def write_samples(vams: Vams) -> dict[str, Any]:
    """Write :func:`sample_rows` (overwriting); returns what each model wrote."""
    return {table: vams.tables.model(table).create(row, exists=None) for table, row in sample_rows().items()}


def raw_items(vams: Vams, table: str) -> list[dict[str, Any]]:
    """Every item of a table as stored (AttributeValues), via the low-level client."""
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": vams.tables.physical(table), "ConsistentRead": True}
    while True:
        page = vams.client.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def plain(item: Mapping[str, Any]) -> dict[str, Any]:
    """A raw item with its AttributeValues unwrapped one level (for printing)."""
    out = {}
    for name, value in item.items():
        ((kind, inner),) = value.items()
        out[name] = inner if kind in ("S", "N", "BOOL") else value
    return out


def drain(poller: StreamPoller, projector: SearchProjector, rounds: int = 3) -> int:
    """Poll and project until a poll returns nothing (at most ``rounds`` polls), committing the poller's
    checkpoints after each projected poll."""
    total = 0
    for _ in range(rounds):
        handled = projector.handle_all(poller.poll())
        poller.commit()
        total += handled
        if not handled:
            break
    return total


def iter_tables(vams: Vams) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(logical name, DescribeTable's Table)`` for every table."""
    for name in vams.tables:
        yield name, vams.client.describe_table(TableName=vams.tables.physical(name))["Table"]


__all__ = [
    "ASSET_INDEX",
    "ASSET_PATH",
    "ASSET_PROJECTION",
    "DELETED",
    "FIELD_PREFIXES",
    "FILE_INDEX",
    "FILE_PROJECTION",
    "AssetBucket",
    "ConflictError",
    "NotFoundError",
    "ObjectVersion",
    "SearchIndex",
    "SearchProjector",
    "StreamPoller",
    "Vams",
    "VamsError",
    "archived_id",
    "asset_document",
    "check_document",
    "drain",
    "excluded",
    "file_document",
    "follow_in_process",
    "is_archived_id",
    "live_id",
    "load_mapping",
    "object_key",
    "raw_items",
    "sample_rows",
    "write_samples",
]
