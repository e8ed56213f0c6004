"""The pytest plugin, run as a user runs it: a small suite in a child pytest (with pytest-xdist when present)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

SUITE = """
import boto3
import pytest

SCHEMA = {
    "format": "onetable:1.1.0", "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "gs1pk", "sort": "gs1sk"}},
    "models": {"User": {
        "pk": {"type": "string", "value": "user#${id}"}, "sk": {"type": "string", "value": "user#"},
        "gs1pk": {"type": "string", "value": "email#${email}"}, "gs1sk": {"type": "string", "value": "user#"},
        "id": {"type": "string", "required": True}, "email": {"type": "string", "required": True},
    }},
    "params": {"timestamps": False},
}
KEYS = dict(
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
    BillingMode="PAY_PER_REQUEST",
)


@pytest.fixture(scope="session", autouse=True)
def shared_tables(dynabase_session):
    dynabase_session.create_table(TableName="shared", **KEYS)


@pytest.mark.parametrize("n", range(40))
def test_isolated(dynamodb, n):
    assert dynamodb.scan(TableName="shared")["Count"] == 0   # nothing from the test before
    dynamodb.put_item(TableName="shared", Item={"pk": {"S": f"item{n}"}})
    dynamodb.create_table(TableName=f"own{n}", **KEYS)
    assert sorted(dynamodb.list_tables()["TableNames"]) == [f"own{n}", "shared"]


def test_resource_and_streams(dynamodb_resource, dynamodb_streams):
    table = dynamodb_resource.create_table(
        TableName="events", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}, **KEYS)
    table.put_item(Item={"pk": "a"})
    assert dynamodb_streams.list_streams(TableName="events")["Streams"]


def test_plain_boto3_inside(dynabase_mock):
    assert boto3.client("dynamodb").list_tables()["TableNames"] == ["shared"]


@pytest.mark.parametrize("n", range(3))
def test_entity_table(dynabase_table, n):
    table = dynabase_table(SCHEMA, name="users")
    User = table.model("User")
    assert User.find({"email": "a@b.c"}, index="gs1") == []
    User.create({"id": f"u{n}", "email": "a@b.c"})
    assert [u["id"] for u in User.find({"email": "a@b.c"}, index="gs1")] == [f"u{n}"]


def test_entity_table_first_use_after_the_copy(dynamodb, dynabase_table):
    dynamodb.list_tables()  # the test's copy of the session is taken here, before the table exists
    table = dynabase_table(SCHEMA, name="late")
    table.model("User").create({"id": "x", "email": "e"})


def test_keep_writes_a_file(dynamodb, dynabase_mock):
    dynamodb.put_item(TableName="shared", Item={"pk": {"S": "kept"}})


def test_without_the_fixtures_nothing_is_mocked():
    from dynabase.testing.hook import _active
    assert _active == []
"""


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_suite.py").write_text(SUITE)
    plugin = (
        []
        if any(e.name == "dynabase" for e in entry_points(group="pytest11"))
        else ["-p", "dynabase.testing.plugin"]
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin, *args, "test_suite.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_fixtures_isolation_session_tables_and_keep(tmp_path: Path) -> None:
    keep = tmp_path / "kept"
    result = _run(tmp_path, "--dynabase-keep", str(keep))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "48 passed" in result.stdout
    kept = keep / "test_suite.py_test_keep_writes_a_file" / "123456789012_us-east-1.db"
    import dynabase

    client = dynabase.connect(str(kept))
    try:
        assert client.scan(TableName="shared")["Items"] == [{"pk": {"S": "kept"}}]
    finally:
        client.engine.close()


@pytest.mark.slow  # two worker processes start: ~15 s on the shared machine
def test_under_xdist(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    result = _run(tmp_path, "-n", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "48 passed" in result.stdout


def test_session_tables_are_created_once_and_conflicts_are_errors() -> None:
    from dynabase.testing.plugin import SessionTables

    keys = {
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    schema = {
        "format": "onetable:1.1.0",
        "version": "0.0.1",
        "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
        "models": {
            "User": {
                "pk": {"type": "string", "value": "u#${id}"},
                "sk": {"type": "string", "value": "u#"},
                "id": {"type": "string"},
            }
        },
    }
    session = SessionTables()
    try:
        session.create_table(TableName="shared", **keys)
        session.create_table(TableName="shared", **keys)  # the same request again: nothing to do
        with pytest.raises(ValueError, match="another definition"):
            session.create_table(TableName="shared", **{**keys, "BillingMode": "PROVISIONED"})
        assert session.table(schema, "users")["TableName"] == "users"
        session.table(schema, "users")
        session.create_table(region="eu-west-1", TableName="shared", **keys)  # another region's database
        assert session.engine().catalog.names() == ["shared", "users"]
        assert session.engine("eu-west-1").catalog.names() == ["shared"]
    finally:
        session.databases.close()
