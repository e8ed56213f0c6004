"""Operations of DynamoDB's API the engine does not implement, and method names that are no operation at all.

boto3's client has a method for every operation of botocore's model; DynamoDB Local answers the ones it lacks
(backups, global tables, exports, imports, ...) with UnknownOperationException, and so do the server and the
embedded client. A name that is no DynamoDB operation is an AttributeError, as on boto3's client.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from botocore import xform_name
from botocore.exceptions import ClientError, ParamValidationError

import dynabase
from ddb_helpers import assert_client_error


def _unimplemented() -> list[str]:
    import botocore.session

    engine = dynabase.Engine(":memory:", ttl_sweep_seconds=None)
    try:
        implemented = set(engine.operations)
    finally:
        engine.close()
    model = botocore.session.get_session().get_service_model("dynamodb")
    return sorted(set(model.operation_names) - implemented)


UNIMPLEMENTED = _unimplemented()


def _minimal(shape: Any) -> Any:
    """The smallest parameters botocore's validator accepts for a shape (required members only)."""
    kind = shape.type_name
    if kind == "structure":
        return {name: _minimal(shape.members[name]) for name in shape.required_members}
    if kind == "list":
        return [_minimal(shape.member)] * max(shape.metadata.get("min", 1), 1)
    if kind == "string":
        return "x" * max(shape.metadata.get("min", 3), 3)
    if kind in ("integer", "long"):
        return max(shape.metadata.get("min", 1), 1)
    simple = {
        "map": {},
        "boolean": False,
        "blob": b"x",
        "double": 1.0,
        "timestamp": datetime.datetime(2024, 1, 1),
    }
    return simple[kind]


def test_the_engine_lacks_the_operations_this_file_is_about():
    # the backup and global-table families are DynamoDB operations Local does not implement either
    assert {"CreateBackup", "ListBackups", "CreateGlobalTable", "ExportTableToPointInTime"} <= set(
        UNIMPLEMENTED
    )


@pytest.mark.local_quirk  # AWS implements these operations; DynamoDB Local, the server and the engine do not
@pytest.mark.parametrize("operation", UNIMPLEMENTED)
def test_an_operation_the_engine_lacks_is_an_unknown_operation(client, operation):
    method = getattr(client, xform_name(operation))
    params = _minimal(client.meta.service_model.operation_model(operation).input_shape)
    error = assert_client_error(
        lambda: method(**params), "UnknownOperationException", "An unknown operation was requested."
    )
    assert error.operation_name == operation
    assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_an_unknown_operation_is_a_client_error_of_no_modelled_class(client):
    with pytest.raises(ClientError) as caught:
        client.list_backups()
    assert type(caught.value) is ClientError  # boto3 has no class for UnknownOperationException
    assert not hasattr(client.exceptions, "UnknownOperationException")


def test_parameters_of_an_unimplemented_operation_are_still_validated_first(client):
    with pytest.raises(ParamValidationError, match='Missing required parameter in input: "BackupName"'):
        client.create_backup(TableName="some-table")


@pytest.mark.parametrize("name", ["not_an_operation", "get_records", "createBackup", "CreateBackup"])
def test_a_name_that_is_no_dynamodb_operation_is_an_attribute_error(client, name):
    # get_records is DynamoDB Streams', not DynamoDB's; boto3's methods are snake_case only
    with pytest.raises(AttributeError):
        getattr(client, name)
    assert not hasattr(client, name)
