"""Libera SDC (examples/libera): the page's example items under one filename, hyphenated attribute names through
expression placeholders, the date-search GSI and calibration files, on every backend."""

from __future__ import annotations

from typing import Any

import pytest
from libera import libera

from ddb_helpers import delete_table_quietly, unique_table_name
from dynabase.model import ConditionFailedError, TransactionError, ValidationError

CR, PDS = "L0_CONS_file.PDS", "L0_PDS_file.PDS"
APID11 = {
    "APID": 11,
    "SCID": 1,
    "edos-version": "1.0.0",
    "first-packet-time": "2024-01-01 00:00:00",
    "last-packet-time": "2024-01-01 00:00:00",
    "missing-packet-count": 0,
    "filled-gap-count": 0,
}


@pytest.fixture
def table(client: Any):
    table = libera.open_table(client, unique_table_name("libera-"), create=True)
    yield table
    delete_table_quietly(client, table.name)


def ingest(table, apids=(APID11,)) -> None:
    libera.ingest_construction_record(
        table,
        CR,
        PDS,
        applicable_date="2024-01-01",
        ingest_time="2024-01-01 00:00:00",
        archive_time="2024-01-01 00:01:00",
        algorithm_version="1.0.0",
        apids=list(apids),
    )


def raw(table, pk: str, sk: str) -> dict[str, Any] | None:
    item = table.client.get_item(
        TableName=table.name, Key={"PK": {"S": pk}, "SK": {"S": sk}}, ConsistentRead=True
    ).get("Item")
    return None if item is None else {k: int(v["N"]) if "N" in v else v["S"] for k, v in item.items()}


def without(item: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in ("_type", *names)}


def test_the_page_example_items(table):
    libera.record_file(
        table, "Example_file.nc", archive_time="2024-01-01 00:00:00", algorithm_version="1.0.0"
    )
    libera.add_sortable(table, "Example_file.nc", "L0#SPICE#AZ", "2024-01-01")
    libera.record_calibration(
        table,
        "Example_calibration_file.nc",
        "L0",
        archive_time="2024-01-01 00:00:00",
        calibration_version="1.0.0",
    )
    ingest(table)
    # each item as the page's tables give it; our extra attributes are the type and the SK's identifier/level
    assert without(raw(table, "Example_file.nc", "#")) == {
        "PK": "Example_file.nc",
        "SK": "#",
        "archive-time": "2024-01-01 00:00:00",
        "algorithm-version": "1.0.0",
    }
    assert without(raw(table, "Example_file.nc", "#L0#SPICE#AZ"), "identifier") == {
        "PK": "Example_file.nc",
        "SK": "#L0#SPICE#AZ",
        "applicable-date": "2024-01-01",
    }
    assert without(raw(table, CR, "#")) == {
        "PK": CR,
        "SK": "#",
        "ingest-time": "2024-01-01 00:00:00",
        "archive-time": "2024-01-01 00:01:00",
        "algorithm-version": "1.0.0",
    }
    assert without(raw(table, CR, "#L0#APID11"), "identifier") == {
        "PK": CR,
        "SK": "#L0#APID11",
        "applicable-date": "2024-01-01",
        "first-packet-time": "2024-01-01 00:00:00",
        "last-packet-time": "2024-01-01 00:00:00",
        "missing-packet-count": 0,
        "filled-gap-count": 0,
    }
    assert without(raw(table, CR, "#PDS"), "identifier") == {"PK": CR, "SK": "#PDS", "filename": PDS}
    assert without(raw(table, CR, "#APID11"), "identifier") == {
        "PK": CR,
        "SK": "#APID11",
        "edos-version": "1.0.0",
        "SCID": 1,
        "APID": 11,
    }
    assert without(raw(table, PDS, "#")) == {
        "PK": PDS,
        "SK": "#",
        "ingest-time": "2024-01-01 00:00:00",
        "archive-time": "2024-01-01 00:01:00",
        "algorithm-version": "1.0.0",
    }
    assert without(raw(table, "Example_calibration_file.nc", "#CAL#L0"), "level") == {
        "PK": "Example_calibration_file.nc",
        "SK": "#CAL#L0",
        "archive-time": "2024-01-01 00:00:00",
        "calibration-version": "1.0.0",
    }
    assert raw(table, CR, "#APID11")["identifier"] == "APID11"


def test_file_metadata_groups_one_files_items(table):
    ingest(table, [APID11, {**APID11, "APID": 12}])
    items = libera.file_metadata(table, CR)
    assert items["file"] == {
        "file": CR,
        "ingest-time": "2024-01-01 00:00:00",
        "archive-time": "2024-01-01 00:01:00",
        "algorithm-version": "1.0.0",
    }
    assert [s["identifier"] for s in items["sortable"]] == ["L0#APID11", "L0#APID12"]
    assert [a["identifier"] for a in items["additional"]] == ["APID11", "APID12", "PDS"]
    assert items["additional"][2]["filename"] == PDS
    assert items["calibration"] == []
    assert libera.file_metadata(table, PDS)["sortable"] == []
    assert libera.file_metadata(table, "missing.nc") == {
        "file": None,
        "sortable": [],
        "additional": [],
        "calibration": [],
    }


def test_ingest_is_all_or_nothing(table):
    libera.record_file(table, PDS, archive_time="2023-12-31 00:00:00", algorithm_version="0.9.0")
    with pytest.raises(TransactionError):
        ingest(table)
    items = table.client.scan(TableName=table.name)["Items"]
    assert [(i["PK"]["S"], i["SK"]["S"]) for i in items] == [(PDS, "#")]
    assert raw(table, PDS, "#")["algorithm-version"] == "0.9.0"


def test_date_search_gsi(table):
    ingest(table, [APID11, {**APID11, "APID": 12}])
    libera.record_file(
        table, "Example_file.nc", archive_time="2024-01-01 00:00:00", algorithm_version="1.0.0"
    )
    libera.add_sortable(table, "Example_file.nc", "L0#SPICE#AZ", "2024-01-01")
    libera.add_sortable(table, "Other_file.nc", "L1B#CAM", "2024-01-01")
    libera.add_sortable(table, "Next_day.nc", "L0#APID11", "2024-01-02")
    assert libera.files_for_date(table, "2024-01-01") == [
        (CR, "#L0#APID11"),
        (CR, "#L0#APID12"),
        ("Example_file.nc", "#L0#SPICE#AZ"),
        ("Other_file.nc", "#L1B#CAM"),
    ]
    assert libera.files_for_date(table, "2024-01-01", "L0") == [
        (CR, "#L0#APID11"),
        (CR, "#L0#APID12"),
        ("Example_file.nc", "#L0#SPICE#AZ"),
    ]
    assert libera.files_for_date(table, "2024-01-02") == [("Next_day.nc", "#L0#APID11")]
    assert libera.files_for_date(table, "2023-12-31") == []
    # the raw GSI: applicable-date | SK | PK, keys only, sparse (file metadata items have no applicable-date)
    gsi = table.client.query(
        TableName=table.name,
        IndexName="DateSearch",
        KeyConditionExpression="#d = :d AND begins_with(SK, :l0)",
        ExpressionAttributeNames={"#d": "applicable-date"},
        ExpressionAttributeValues={":d": {"S": "2024-01-01"}, ":l0": {"S": "#L0"}},
    )["Items"]
    assert [sorted(i) for i in gsi] == [["PK", "SK", "applicable-date"]] * 3
    indexes = {i["IndexName"]: i for i in table.describe_table()["Table"]["GlobalSecondaryIndexes"]}
    assert indexes["DateSearch"]["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert [k["AttributeName"] for k in indexes["DateSearch"]["KeySchema"]] == ["applicable-date", "SK"]


def test_calibration_files(table):
    libera.record_calibration(
        table, "cal_b.nc", "L0", archive_time="2024-01-02 00:00:00", calibration_version="1.1.0"
    )
    libera.record_calibration(
        table, "cal_a.nc", "L0", archive_time="2024-01-01 00:00:00", calibration_version="1.0.0"
    )
    libera.record_calibration(
        table, "cal_c.nc", "L1B", archive_time="2024-01-01 00:00:00", calibration_version="2.0.0"
    )
    assert libera.calibration_files(table, "L0") == [("cal_a.nc", "1.0.0"), ("cal_b.nc", "1.1.0")]
    assert libera.calibration_files(table, "L1B") == [("cal_c.nc", "2.0.0")]
    assert libera.calibration_files(table, "L2") == []


def test_hyphenated_names_go_through_placeholders(table):
    ingest(table)
    command = table.SortableMetadata.update(
        {"file": CR, "identifier": "L0#APID11"},
        add={"missing-packet-count": 2},
        where="${applicable-date} = @{date}",
        substitutions={"date": "2024-01-01"},
        execute=False,
    )
    names = command["ExpressionAttributeNames"]
    assert {"missing-packet-count", "applicable-date"} <= set(names.values())
    for expression in (command["UpdateExpression"], command["ConditionExpression"]):
        assert "-" not in expression  # every hyphenated name is a #placeholder
    query = table.SortableMetadata.find({"applicable-date": "2024-01-01"}, index="DateSearch", execute=False)
    assert (
        "-" not in query["KeyConditionExpression"]
        and "applicable-date" in query["ExpressionAttributeNames"].values()
    )

    assert (
        libera.count_missing_packets(table, CR, "L0#APID11", 2, applicable_date="2024-01-01")[
            "missing-packet-count"
        ]
        == 2
    )
    assert (
        libera.count_missing_packets(table, CR, "L0#APID11", 3, applicable_date="2024-01-01")[
            "missing-packet-count"
        ]
        == 5
    )
    before = raw(table, CR, "#L0#APID11")
    with pytest.raises(ConditionFailedError):
        libera.count_missing_packets(table, CR, "L0#APID11", 1, applicable_date="2024-01-02")
    assert raw(table, CR, "#L0#APID11") == before
    # a filter and a where on hyphenated attributes
    found = table.SortableMetadata.find(
        {"file": CR, "filled-gap-count": 0}, where="${missing-packet-count} >= {5}"
    )
    assert [s["identifier"] for s in found] == ["L0#APID11"]
    assert table.SortableMetadata.find({"file": CR}, where="${missing-packet-count} > {5}") == []


def test_validation(table):
    with pytest.raises(ValidationError):
        libera.record_file(table, "x.nc", archive_time="2024-01-01T00:00:00Z", algorithm_version="1.0.0")
    with pytest.raises(ValidationError):
        libera.add_sortable(table, "x.nc", "L0#X", "01/01/2024")
    assert table.client.scan(TableName=table.name)["Items"] == []


def test_run_end_to_end_on_the_embedded_default(capsys):
    from libera import run

    run.main()
    out = capsys.readouterr().out
    assert "missing-packet-count is now 3" in out
    assert "L0 calibration files (calibration GSI): [('Example_calibration_file.nc', '1.0.0')]" in out
