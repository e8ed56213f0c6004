"""``dynabase validate``: exit codes, ``path: message`` lines, JSON output."""

from __future__ import annotations

import io
import json

import pytest

from .helpers import FORMKIQ, IOTO, SCHEMAS, run

BAD = """{
    format: 'onetable:1.1.0',
    version: '1.0',
    indexes: {primary: {hash: 'pk', sort: 'sk'}, gs: {hash: 'gpk'}},
    models: {
        Fault: {
            pk: {type: 'string', value: 'device#${deviceId}'},
            sk: {type: 'strin', value: 'fault#${id}'},
            id: {type: 'string', generate: 'ulid'},
            severity: {type: 'string', enum: 'info'},
        },
    },
}
"""


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_fixture_schemas_are_valid(capsys, name):
    result = run(capsys, "validate", SCHEMAS[name])
    assert result.code == 0, result.err
    assert result.out.strip().startswith(f"{SCHEMAS[name]}: valid")


def test_valid_schema_prints_its_warnings(capsys):
    # Ioto's schema computes a metric from 'temperature', a field its Fault model does not define
    result = run(capsys, "validate", IOTO)
    assert result.code == 0
    assert "valid (1 warning)" in result.out
    assert result.err.splitlines() == [
        "warning: process.Fault.metrics[0].fields: the model defines no field 'temperature'"
    ]


def test_invalid_schema_exits_1_with_path_message_lines(capsys, tmp_path):
    path = tmp_path / "bad.json5"
    path.write_text(BAD)
    result = run(capsys, "validate", path)
    assert result.code == 1
    assert result.out == ""
    lines = result.err.splitlines()
    assert "version: not a SemVer version: '1.0'" in lines
    assert (
        "models.Fault.sk.type: must be one of array, binary, boolean, date, number, object, set, string"
        in lines
    )
    assert "models.Fault.pk.value: unknown field 'deviceId' in template 'device#${deviceId}'" in lines
    assert any(line.startswith("models.Fault.severity.enum: ") for line in lines)
    assert "indexes.gs: an index name must be 3 to 255 characters of A-Z, a-z, 0-9, '_', '-' and '.'" in lines
    # warnings are reported too, marked as such, and not counted as errors
    assert "warning: indexes.gs.hash: no model defines attribute 'gpk'" in lines
    errors = [line for line in lines[:-1] if not line.startswith("warning: ")]
    assert lines[-1] == f"{path}: invalid ({len(errors)} errors)"
    # every issue line is "path: message"
    for line in errors:
        where, sep, message = line.partition(": ")
        assert sep and where and message and " " not in where


def test_a_metric_and_a_dimension_sharing_a_name_are_refused(capsys, tmp_path):
    """EMF holds each in a root member of its name, a string for a dimension and a number for a metric."""
    path = tmp_path / "metrics.json5"
    path.write_text(
        """{format: 'onetable:1.1.0', version: '0.0.1', indexes: {primary: {hash: 'pk', sort: 'sk'}},
        models: {Reading: {pk: {type: 'string', value: 'device#${deviceId}'}, sk: {type: 'string', value: 'r#${id}'},
                           deviceId: {type: 'string'}, id: {type: 'string'}, temp: {type: 'number'}}},
        process: {Reading: {metrics: [{namespace: 'N', fields: [{Device: 'temp'}], dimensions: [{Device: 'deviceId'}]}]}}}"""
    )
    result = run(capsys, "validate", path)
    assert result.code == 1
    assert result.err.splitlines() == [
        "process.Reading.metrics[0].dimensions[0]: dimension 'Device' is also a metric of this definition: an EMF "
        "document holds both in one member named after them, and a dimension's value must be a string where a "
        "metric's is a number; rename one",
        f"{path}: invalid (1 error)",
    ]


def test_json_output(capsys, tmp_path):
    path = tmp_path / "bad.json5"
    path.write_text(BAD)
    result = run(capsys, "validate", path, "--json")
    assert result.code == 1
    report = json.loads(result.out)
    assert report["valid"] is False
    assert report["schema"] == str(path)
    assert report["errors"] == len([i for i in report["issues"] if i["severity"] == "error"]) >= 3
    assert {"path": "version", "message": "not a SemVer version: '1.0'", "severity": "error"} in report[
        "issues"
    ]

    result = run(capsys, "validate", IOTO, "--json")
    assert result.code == 0
    report = json.loads(result.out)
    assert report == {
        "schema": str(IOTO),
        "valid": True,
        "errors": 0,
        "warnings": 1,
        "issues": [
            {
                "path": "process.Fault.metrics[0].fields",
                "message": "the model defines no field 'temperature'",
                "severity": "warning",
            }
        ],
    }

    result = run(capsys, "validate", FORMKIQ, "--json")
    assert json.loads(result.out)["issues"] == []


def test_syntax_error_and_missing_file(capsys, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "onetable:1.1.0",\n "version": }')
    result = run(capsys, "validate", path)
    assert result.code == 1
    assert "JSON syntax error in broken.json at line 2" in result.err

    result = run(capsys, "validate", tmp_path / "nope.json")
    assert result.code == 1
    assert "schema file not found" in result.err


def test_yaml_schema_and_stdin(capsys, tmp_path, monkeypatch):
    path = tmp_path / "s.yaml"
    path.write_text(
        "format: onetable:1.1.0\nversion: 1.0.0\nindexes:\n  primary: {hash: pk}\n"
        "models:\n  User:\n    pk: {type: string, value: 'user#${id}'}\n    id: {type: string}\n"
    )
    assert run(capsys, "validate", path).code == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(FORMKIQ.read_text()))
    result = run(capsys, "validate", "-")
    assert result.code == 0
    assert result.out.startswith("-: valid")
