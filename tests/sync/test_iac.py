"""``dynabase iac`` gives a cloud table with synced models the sync index and TTL for tombstones."""

from __future__ import annotations

from dynabase.schema import load_schema
from dynabase.tools import iac

from .test_sync import SCHEMA


def test_iac_emits_the_sync_index_and_tombstone_ttl() -> None:
    props = iac.table_properties(load_schema(SCHEMA), iac.IacOptions(table="cloud"))
    index = next(g for g in props["GlobalSecondaryIndexes"] if g["IndexName"] == "syncIndex")
    assert [k["AttributeName"] for k in index["KeySchema"]] == ["_syncScope", "_syncSeq"]
    assert {"AttributeName": "_syncSeq", "AttributeType": "S"} in props["AttributeDefinitions"]
    assert props["TimeToLiveSpecification"] == {"AttributeName": "_syncTtl", "Enabled": True}


def test_iac_without_synced_models_is_unchanged() -> None:
    plain = {**SCHEMA, "process": {"Status": {"enable": "cloud"}}}
    props = iac.table_properties(load_schema(plain), iac.IacOptions(table="cloud"))
    assert "GlobalSecondaryIndexes" not in props and "TimeToLiveSpecification" not in props


def test_create_table_output_gives_the_ttl_call_it_cannot_carry(tmp_path, capsys) -> None:
    """CreateTable has no TTL: a table made from ``-f create-table`` alone would keep tombstones forever, so
    the command says so on stderr (stdout stays the request) with the update-time-to-live call."""
    import json

    from dynabase.cli.main import main

    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    assert main(["iac", str(path), "-t", "app", "-f", "create-table", "--no-pitr"]) == 0
    out, err = capsys.readouterr()
    assert "TimeToLiveSpecification" not in json.loads(out)
    assert "CreateTable cannot enable TTL" in err
    assert (
        "aws dynamodb update-time-to-live --table-name app "
        "--time-to-live-specification AttributeName=_syncTtl,Enabled=true" in err
    )
    assert "update-continuous-backups" not in err
    assert main(["iac", str(path), "-t", "app", "-f", "cloudformation"]) == 0
    assert "update-time-to-live" not in capsys.readouterr().err  # CloudFormation carries it


def test_table_extras_are_the_calls_apply_table_extras_makes() -> None:
    props = iac.table_properties(load_schema(SCHEMA), iac.IacOptions(table="cloud"))
    calls = iac.table_extras(props)
    assert calls[0] == (
        "update_time_to_live",
        {"TableName": "cloud", "TimeToLiveSpecification": {"AttributeName": "_syncTtl", "Enabled": True}},
    )
    assert iac.table_extras_commands(props)[1] == (
        "aws dynamodb update-continuous-backups --table-name cloud "
        "--point-in-time-recovery-specification PointInTimeRecoveryEnabled=true"
    )
