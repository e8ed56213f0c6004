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
