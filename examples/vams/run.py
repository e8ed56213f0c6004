"""VAMS end to end on the embedded engine: ``python examples/vams/run.py [DB_PATH]`` (default: in memory).

Creates the 27 tables, registers a bucket and a database, creates assets with files and metadata, links them,
versions one, records workflow executions, archives and unarchives an asset, and follows the table streams
(the engine's ``follow_stream``, in threads) into the asset and file search indexes -- printing raw items as
the low-level client sees them and the search documents as they are projected.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the package importable as ``vams``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    __package__ = "vams"

import dynabase

from .vams import (
    ASSET_INDEX,
    FILE_INDEX,
    ConflictError,
    SearchProjector,
    Vams,
    check_document,
    follow_in_process,
    iso,
    iter_tables,
    plain,
    raw_items,
    write_samples,
)


def show(title: str, value: object = None) -> None:
    print(f"\n== {title}")
    if value is not None:
        print(json.dumps(value, indent=2, default=lambda v: iso(v) if isinstance(v, datetime) else str(v)))


def settle(projector: SearchProjector, quiet: float = 0.15, timeout: float = 10.0) -> None:
    """Wait until the follower threads have projected everything written so far (no new log lines for a while)."""
    deadline = time.monotonic() + timeout
    seen, since = len(projector.log), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.03)
        if len(projector.log) != seen:
            seen, since = len(projector.log), time.monotonic()
        elif time.monotonic() - since >= quiet:
            return


def main(path: str = ":memory:") -> int:
    client = dynabase.connect(path)
    vams = Vams(client)

    names = vams.create_tables()
    print(
        f"created {len(names)} tables (PAY_PER_REQUEST, point-in-time recovery {'on' if vams.tables.pitr else 'off'}):"
    )
    for name, table in iter_tables(vams):
        keys = " + ".join(k["AttributeName"] for k in table["KeySchema"])
        gsis = [g["IndexName"] for g in table.get("GlobalSecondaryIndexes", [])]
        lsis = [i["IndexName"] for i in table.get("LocalSecondaryIndexes", [])]
        stream = (table.get("StreamSpecification") or {}).get("StreamViewType")
        extra = "".join(
            [
                f"  GSI {', '.join(gsis)}" if gsis else "",
                f"  LSI {', '.join(lsis)}" if lsis else "",
                f"  stream {stream}" if stream else "",
            ]
        )
        print(f"  {name:40} {keys}{extra}")

    # follow every streamed table in process; bucket events go to the projector directly
    projector = SearchProjector(vams)
    stop = threading.Event()
    threads = follow_in_process(vams, projector.handle, stop=stop)

    bucket = vams.add_bucket("bkt-1", "vams-assets", "/")
    bucket.subscribe(projector.handle_object_event)
    vams.create_database("engineering", "Engineering assets", default_bucket_id="bkt-1")
    vams.set_database_metadata("engineering", "owner", "plant-ops")

    pump = vams.create_asset(
        "engineering",
        "x-pump",
        name="Pump P-101",
        asset_type="e57",
        tags=["pump", "site-a"],
        description="Laser scan of pump P-101",
    )
    vams.create_asset("engineering", "x-motor", name="Motor M-7", asset_type="glb", tags=["motor"])
    vams.create_asset("engineering", "x-plant", name="Plant A", asset_type="folder")
    show("asset x-pump (model)", pump)

    upload = vams.upload_files(
        "engineering",
        "x-pump",
        {"/test/pump.e57": b"E57" * 1000, "/test/pump.e57.previewFile.gif": b"GIF89a", "/notes.txt": b"ok"},
        user_id="ana@example.com",
    )
    show("upload record", upload)
    vams.set_metadata("engineering", "x-pump", "partNumber", "P-101")
    vams.set_metadata("engineering", "x-pump", "location", "47.61,-122.33", "geopoint")
    vams.set_metadata("engineering", "x-pump", "VAMS_sourceHash", "abc123")  # excluded from search
    vams.set_metadata("engineering", "x-pump", "scanner", "FARO", file_path="/test/pump.e57")
    vams.set_metadata("engineering", "x-pump", "_internal", "x", file_path="/test/pump.e57")  # excluded
    vams.set_attribute("engineering", "x-pump", "/test/pump.e57", "pointCount", "1200000", "number")

    version = vams.create_version("engineering", "x-pump", comment="first scan", created_by="ana@example.com")
    show("version 1", version)
    show("raw version record", [plain(i) for i in raw_items(vams, "AssetVersionsStorageTableV2")])
    show("raw file version records", [plain(i) for i in raw_items(vams, "AssetFileVersionsStorageTableV2")])
    show(
        "raw metadata snapshot records",
        [plain(i) for i in raw_items(vams, "AssetFileMetadataVersionsStorageTable")],
    )
    vams.update_version("engineering", "x-pump", "1", alias="baseline")

    vams.link_assets(
        "engineering", "x-plant", "engineering", "x-pump", "parentChild", metadata={"position": "bay 3"}
    )
    vams.link_assets("engineering", "x-pump", "engineering", "x-motor", "related")
    links = vams.links_of("engineering", "x-pump")
    show(
        "links of x-pump (fromAssetGSI + toAssetGSI)",
        {
            k: [f"{v['fromAssetId']} -> {v['toAssetId']} ({v['relationshipType']})" for v in vs]
            for k, vs in links.items()
        },
    )
    show("raw link records", [plain(i) for i in raw_items(vams, "AssetLinksStorageTableV2")])

    vams.create_pipeline("engineering", "pc-potree", description="Point cloud to Potree", assetType=".e57")
    vams.create_workflow("engineering", "wf-preview", pipelines=["pc-potree"])
    vams.record_execution("engineering", "x-pump", "engineering", "wf-preview", execution_id="exec-1")
    vams.record_execution(
        "engineering", "x-pump", "GLOBAL", "wf-thumbnail", execution_id="exec-2", status="SUCCEEDED"
    )
    show(
        "executions of x-pump for engineering:wf-preview (WorkflowLSI)",
        vams.executions_of_asset("engineering", "x-pump", "engineering", "wf-preview"),
    )
    show(
        "executions of workflow engineering:wf-preview (WorkflowGSI)",
        [e["executionId"] for e in vams.executions_of_workflow("engineering", "wf-preview")],
    )
    show("raw execution records", [plain(i) for i in raw_items(vams, "WorkflowExecutionsStorageTable")])

    written = write_samples(vams)
    show(
        "one record in each remaining table (raw keys)",
        {
            table: {
                k: v
                for k, v in plain(raw_items(vams, table)[0]).items()
                if k in [a["AttributeName"] for a in vams.tables.definition(table)["KeySchema"]]
            }
            for table in written
        },
    )

    settle(projector)
    asset_doc = projector.index.get(ASSET_INDEX, "engineering:x-pump")
    file_doc = projector.index.get(FILE_INDEX, "engineering:x-pump:/test/pump.e57")
    show("asset document engineering:x-pump", asset_doc)
    show("file document engineering:x-pump:/test/pump.e57", file_doc)
    assert not check_document(asset_doc, ASSET_INDEX) and not check_document(file_doc, FILE_INDEX)

    vams.archive_asset("engineering", "x-pump")
    show("after archive: live partition", [i["assetId"] for i in vams.list_assets("engineering")])
    show(
        "after archive: #deleted partition",
        [plain(i) for i in raw_items(vams, "AssetStorageTable") if i["databaseId"]["S"].endswith("#deleted")],
    )
    vams.create_asset("engineering", "x-pump2", name="Pump P-102")
    try:  # an asset with this id already sits in the #deleted partition
        vams.create_asset("engineering", "x-pump", name="again")
    except ConflictError as error:
        print(f"create x-pump again -> ConflictError: {error}")
    try:
        vams.archive_asset("engineering", "x-pump")
    except Exception as error:  # not in the live partition any more
        print(f"archive x-pump again -> {type(error).__name__}: {error}")
    settle(projector)
    show(
        "archived asset document",
        {
            k: v
            for k, v in projector.index.get(ASSET_INDEX, "engineering:x-pump").items()
            if k in ("str_databaseid", "bool_archived", "str_asset_version_id")
        },
    )
    show(
        "archived file document",
        {
            k: v
            for k, v in projector.index.get(FILE_INDEX, "engineering:x-pump:/test/pump.e57").items()
            if k in ("str_key", "bool_archived")
        },
    )
    show("version 1 after archive", vams.get_version("engineering", "x-pump", "1"))

    vams.unarchive_asset("engineering", "x-pump")
    settle(projector)
    show("after unarchive: live partition", [i["assetId"] for i in vams.list_assets("engineering")])
    show(
        "unarchived asset document bool_archived",
        projector.index.get(ASSET_INDEX, "engineering:x-pump")["bool_archived"],
    )

    hits = projector.index.query(ASSET_INDEX, "pump", filters={"bool_archived": False}, sort="str_assetname")
    show("full-text search 'pump' in the asset index (FTS5)", [doc_id for doc_id, _ in hits.hits])

    stop.set()
    for thread in threads:
        thread.join(timeout=5)
    print(
        f"\nprojector: {len(projector.log)} index operations, {projector.ignored} records of unindexed tables; "
        f"{projector.index.count(ASSET_INDEX)} asset documents, {projector.index.count(FILE_INDEX)} file documents"
    )
    client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:2]))
