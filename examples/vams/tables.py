"""The VAMS tables: one OneTable schema per DynamoDB table, loaded from ``schemas/<TableName>.json``.

VAMS does not use a single-table design: the data-model page lists 27 DynamoDB tables, each with its own
keys. Every schema file here is an ordinary ``onetable:1.1.0`` document (one model per table) whose
``indexes`` are the table's primary key, GSIs and LSIs exactly as the page gives them. Two things the
OneTable format has no words for live under ``extensions.vams``: the physical table name and the stream view
type (``NEW_IMAGE`` on the tables the page marks as streamed).

Composite key attributes (``databaseId:assetId``, ``type:filePath:metadataKey``, ...) cannot be field names
(OneTable field names may not contain ``:``), so each is a templated field named after its parts joined with
``_`` and ``map``-ped onto the real attribute::

    "databaseId_assetId": {"type": "string", "map": "databaseId:assetId", "value": "${databaseId}:${assetId}"}

so the stored item carries ``"databaseId:assetId": "db1:x1"`` and queries take ``{"databaseId": ..,
"assetId": ..}``.

:class:`VamsTables` binds the schemas to a client (with an optional table-name prefix, so several copies can
share one DynamoDB account or one DynamoDB Local) and creates or deletes all of them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynabase.model import Model, Table
from dynabase.schema import Schema, load_schema

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"

#: every table on the page, in the page's order
TABLE_NAMES: tuple[str, ...] = (
    "AssetStorageTable",
    "DatabaseStorageTable",
    "AssetVersionsStorageTableV2",
    "AssetFileVersionsStorageTableV2",
    "AssetFileMetadataVersionsStorageTable",
    "AssetUploadsStorageTable",
    "DatabaseMetadataStorageTableV2",
    "AssetFileMetadataStorageTableV2",
    "FileAttributeStorageTableV2",
    "MetadataSchemaStorageTableV2",
    "AssetLinksStorageTableV2",
    "AssetLinksMetadataStorageTable",
    "PipelineStorageTable",
    "WorkflowStorageTable",
    "WorkflowExecutionsStorageTable",
    "ConstraintsStorageTable",
    "AuthEntitiesStorageTable",
    "RolesStorageTable",
    "UserRolesStorageTable",
    "UserStorageTable",
    "ApiKeyStorageTable",
    "TagStorageTable",
    "TagTypeStorageTable",
    "SubscriptionsStorageTable",
    "CommentStorageTable",
    "AppFeatureEnabledStorageTable",
    "S3AssetBucketsStorageTable",
)


@dataclass(frozen=True)
class TableSpec:
    """One VAMS table as its schema file describes it."""

    name: str  # the logical (page) name, e.g. "AssetStorageTable"
    title: str  # the page's heading
    section: str
    stream: str | None  # StreamViewType, or None
    model: str  # the schema's single model
    schema: Schema
    path: Path

    @property
    def primary(self) -> Any:
        return self.schema.indexes["primary"]

    @property
    def secondary(self) -> dict[str, Any]:
        return {name: index for name, index in self.schema.indexes.items() if name != "primary"}


def load_spec(name: str) -> TableSpec:
    path = SCHEMA_DIR / f"{name}.json"
    schema = load_schema(path)
    ext = schema.extensions.get("vams") or {}
    if ext.get("table") != name:
        raise ValueError(f"{path}: extensions.vams.table is {ext.get('table')!r}, expected {name!r}")
    (model,) = schema.models  # one entity per table
    return TableSpec(
        name=name,
        title=ext.get("title", name),
        section=ext.get("section", ""),
        stream=ext.get("stream"),
        model=model,
        schema=schema,
        path=path,
    )


def load_specs() -> dict[str, TableSpec]:
    """Every table's spec, in the page's order."""
    return {name: load_spec(name) for name in TABLE_NAMES}


SPECS: dict[str, TableSpec] = load_specs()
STREAMED: tuple[str, ...] = tuple(name for name, spec in SPECS.items() if spec.stream)


class VamsTables:
    """All VAMS tables on one client; ``prefix`` is prepended to every physical table name."""

    def __init__(self, client: Any, prefix: str = "", **table_options: Any) -> None:
        self.client = client
        self.prefix = prefix
        self.specs = SPECS
        #: whether point-in-time recovery is on (set by :meth:`create_all`)
        self.pitr = False
        self.tables: dict[str, Table] = {
            name: Table(prefix + name, client, spec.schema, **table_options) for name, spec in SPECS.items()
        }

    def __getitem__(self, name: str) -> Table:
        return self.tables[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.tables)

    def physical(self, name: str) -> str:
        """The DynamoDB table name of logical table ``name``."""
        return self.tables[name].name

    def logical(self, physical: str) -> str:
        name = physical[len(self.prefix) :] if physical.startswith(self.prefix) else physical
        if name not in self.tables:
            raise KeyError(physical)
        return name

    def model(self, name: str) -> Model:
        """The single model of table ``name``."""
        return self.tables[name].model(self.specs[name].model)

    def definition(self, name: str) -> dict[str, Any]:
        """The CreateTable request: keys and indexes from the schema, the stream from ``extensions.vams``."""
        spec = self.specs[name]
        return self.tables[name].get_table_definition(stream=spec.stream)

    def create_all(self, *, timeout: float = 300.0, point_in_time_recovery: bool = True) -> list[str]:
        """Create every table (PAY_PER_REQUEST, streams where the page has them); waits until all are ACTIVE,
        then turns on point-in-time recovery as the page says (where the backend has it: DynamoDB Local
        answers UpdateContinuousBackups with UnknownOperationException, and ``self.pitr`` is then False)."""
        for name, spec in self.specs.items():
            self.tables[name].create_table(wait=0, stream=spec.stream)
        deadline = time.monotonic() + timeout
        pending = [self.physical(n) for n in self.specs]
        while pending:
            pending = [
                t
                for t in pending
                if self.client.describe_table(TableName=t)["Table"]["TableStatus"] != "ACTIVE"
            ]
            if pending and time.monotonic() > deadline:
                raise TimeoutError(f"tables not ACTIVE after {timeout}s: {pending}")
            if pending:
                time.sleep(0.5)
        self.pitr = False
        if point_in_time_recovery:
            self.pitr = self.enable_point_in_time_recovery()
        return [self.physical(n) for n in self.specs]

    def enable_point_in_time_recovery(self) -> bool:
        """PITR on every table; False when the backend has no continuous backups (DynamoDB Local)."""
        for name in self.specs:
            try:
                self.client.update_continuous_backups(
                    TableName=self.physical(name),
                    PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True},
                )
            except Exception as error:
                code = (getattr(error, "response", None) or {}).get("Error", {}).get("Code")
                if code == "UnknownOperationException":
                    return False
                raise
        return True

    def delete_all(self) -> None:
        for name in self.specs:
            try:
                self.client.delete_table(TableName=self.physical(name))
            except self.client.exceptions.ResourceNotFoundException:
                pass

    def transact(self, transaction: dict[str, Any]) -> Any:
        """Run a write transaction collected with ``transaction=`` over any of the tables (one client call)."""
        return self.tables["AssetStorageTable"].transact("write", transaction)

    def batch_write(self, batch: dict[str, Any]) -> bool:
        return self.tables["AssetStorageTable"].batch_write(batch)


__all__ = [
    "SCHEMA_DIR",
    "SPECS",
    "STREAMED",
    "TABLE_NAMES",
    "TableSpec",
    "VamsTables",
    "load_spec",
    "load_specs",
]
