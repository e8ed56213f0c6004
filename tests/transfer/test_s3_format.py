"""The S3 export layout: AWS's file names and manifest fields, gzip'd {"Item": ...} data files, item counts."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from dynabase.transfer import TransferError, export_table, import_table

from .helpers import all_types_item, dump, embedded, put_all, simple_table

ITEMS = 137
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
def source() -> Any:
    client = embedded()
    simple_table(client, "catalog", keys=("pk:S", "sk:N"))
    put_all(client, "catalog", [all_types_item(n) for n in range(ITEMS)])
    return client


def manifest_entries(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (directory / "manifest-files.json").read_text().splitlines()]


def test_layout_and_manifests(tmp_path: Path, source: Any) -> None:
    out = tmp_path / "export"
    summary = export_table(source, "catalog", out, format="s3", segments=3)
    assert sorted(p.name for p in out.iterdir()) == [
        "_started",
        "data",
        "manifest-files.checksum",
        "manifest-files.json",
        "manifest-summary.checksum",
        "manifest-summary.json",
        "table.json",
    ]
    assert (out / "_started").read_bytes() == b""

    manifest = json.loads((out / "manifest-summary.json").read_text())
    assert set(manifest) >= {
        "version",
        "exportArn",
        "startTime",
        "endTime",
        "tableArn",
        "tableId",
        "exportTime",
        "s3Bucket",
        "s3Prefix",
        "s3SseAlgorithm",
        "s3SseKmsKeyId",
        "manifestFilesS3Key",
        "billedSizeBytes",
        "itemCount",
        "outputFormat",
    }
    described = source.describe_table(TableName="catalog")["Table"]
    assert manifest["version"] == "2020-06-30"
    assert manifest["outputFormat"] == "DYNAMODB_JSON"
    assert manifest["exportType"] == "FULL_EXPORT"
    assert manifest["itemCount"] == ITEMS == summary.items
    assert manifest["tableArn"] == described["TableArn"]
    assert manifest["tableId"] == described["TableId"]
    export_id = manifest["exportArn"].rsplit("/export/", 1)[1]
    assert manifest["exportArn"] == f"{described['TableArn']}/export/{export_id}"
    assert re.fullmatch(r"\d{14}-[0-9a-f]{8}", export_id)
    assert manifest["manifestFilesS3Key"] == f"AWSDynamoDB/{export_id}/manifest-files.json"
    for field in ("startTime", "endTime", "exportTime"):
        assert TIMESTAMP.match(manifest[field]), manifest[field]
    assert manifest["startTime"] <= manifest["endTime"]
    assert isinstance(manifest["billedSizeBytes"], int)

    for name in ("manifest-summary", "manifest-files"):
        checksum = (out / f"{name}.checksum").read_text().strip()
        assert checksum == hashlib.md5((out / f"{name}.json").read_bytes()).hexdigest()

    entries = manifest_entries(out)
    assert len(entries) == 3  # one data file per segment
    assert sum(e["itemCount"] for e in entries) == ITEMS
    data_files = sorted((out / "data").iterdir())
    assert sorted(e["dataFileS3Key"].rsplit("/", 1)[1] for e in entries) == [p.name for p in data_files]
    for entry in entries:
        assert set(entry) == {"itemCount", "md5Checksum", "etag", "dataFileS3Key"}
        key = entry["dataFileS3Key"]
        assert re.fullmatch(rf"AWSDynamoDB/{export_id}/data/[a-z2-7]{{26}}\.json\.gz", key)
        path = out / "data" / key.rsplit("/", 1)[1]
        raw = path.read_bytes()
        assert raw[:2] == b"\x1f\x8b"  # gzip
        assert entry["md5Checksum"] == base64.b64encode(hashlib.md5(raw).digest()).decode()
        assert entry["etag"] == hashlib.md5(raw).hexdigest()
        lines = gzip.decompress(raw).decode("utf-8").splitlines()
        assert len(lines) == entry["itemCount"]
        for line in lines:
            document = json.loads(line)
            assert list(document) == ["Item"]
            assert "pk" in document["Item"]
    assert sorted(summary.files) == data_files


def test_empty_segments_still_get_a_file(tmp_path: Path) -> None:
    client = embedded()
    simple_table(client, "few")
    put_all(client, "few", [{"pk": {"S": "only"}}])
    export_table(client, "few", tmp_path / "e", format="s3", segments=4)
    entries = manifest_entries(tmp_path / "e")
    assert len(entries) == 4 and sorted(e["itemCount"] for e in entries) == [0, 0, 0, 1]
    for entry in entries:
        text = gzip.decompress(
            (tmp_path / "e" / "data" / entry["dataFileS3Key"].rsplit("/", 1)[1]).read_bytes()
        )
        assert len(text.splitlines()) == entry["itemCount"]


def test_import_reads_an_aws_style_prefix(tmp_path: Path, source: Any) -> None:
    """An export as AWS lays it out under a bucket prefix (``prefix/AWSDynamoDB/<ExportId>/...``), copied down
    with ``aws s3 sync``; no table.json, so the table name comes from the summary's tableArn."""
    out = tmp_path / "export"
    export_table(source, "catalog", out, format="s3", segments=2)
    manifest = json.loads((out / "manifest-summary.json").read_text())
    export_id = manifest["exportArn"].rsplit("/", 1)[1]
    prefix = tmp_path / "bucket" / "2024-exports"
    shutil.copytree(out, prefix / "AWSDynamoDB" / export_id)
    (prefix / "AWSDynamoDB" / export_id / "table.json").unlink()
    # AWS writes keys with the export prefix in front
    entries = manifest_entries(out)
    with open(prefix / "AWSDynamoDB" / export_id / "manifest-files.json", "w") as handle:
        for entry in entries:
            entry["dataFileS3Key"] = "2024-exports/" + entry["dataFileS3Key"]
            handle.write(json.dumps(entry) + "\n")

    target = embedded()
    simple_table(target, "catalog", keys=("pk:S", "sk:N"))
    summary = import_table(target, prefix)
    assert summary.table == "catalog" and summary.format == "s3"
    assert summary.imported == ITEMS
    assert dump(target, "catalog") == dump(source, "catalog")


def test_import_via_the_summary_file(tmp_path: Path, source: Any) -> None:
    export_table(source, "catalog", tmp_path / "export", format="s3")
    target = embedded()
    summary = import_table(target, tmp_path / "export" / "manifest-summary.json", create=True)
    assert summary.imported == ITEMS


def test_broken_exports_are_refused(tmp_path: Path, source: Any) -> None:
    out = tmp_path / "export"
    export_table(source, "catalog", out, format="s3", segments=2)
    target = embedded()
    (tmp_path / "notanexport").mkdir()
    with pytest.raises(TransferError, match="not a DynamoDB S3 export"):
        import_table(target, tmp_path / "notanexport", table="catalog")
    victim = next((out / "data").iterdir())
    victim.rename(tmp_path / "moved.json.gz")
    with pytest.raises(TransferError, match="missing data file"):
        import_table(target, out, create=True)
    (tmp_path / "moved.json.gz").rename(victim)

    summary = json.loads((out / "manifest-summary.json").read_text())
    summary["outputFormat"] = "ION"
    (out / "manifest-summary.json").write_text(json.dumps(summary))
    with pytest.raises(TransferError, match="ION export"):
        import_table(target, out, create=True)
    (out / "manifest-summary.json").write_text("{not json")
    with pytest.raises(TransferError, match="not valid JSON"):
        import_table(target, out, create=True)


def test_corrupt_gzip_is_a_clear_error(tmp_path: Path, source: Any) -> None:
    out = tmp_path / "export"
    export_table(source, "catalog", out, format="s3")
    data = next((out / "data").iterdir())
    raw = data.read_bytes()
    data.write_bytes(raw[: len(raw) // 2])  # truncated
    with pytest.raises(TransferError, match="read failed after line"):
        import_table(embedded(), out, create=True)
