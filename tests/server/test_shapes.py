"""The wire <-> engine conversion for every operation of both service models, checked against botocore itself.

For each operation a sample of its input (every member, blobs and timestamps included) is serialised by
botocore's JSON serialiser, then converted by the server: the result must be the sample with bytes for blobs.
Each output sample, as the engine would return it (bytes, epoch seconds), is encoded by the server and parsed
by botocore's parser: it must come back as it went in.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import botocore.session
import pytest
from botocore.parsers import create_parser
from botocore.serialize import create_serializer

from dynabase.errors import SerializationException
from dynabase.server import jsonio
from dynabase.server.shapes import SERVICES, Models, decode_blob

BLOB = b"\x00\x01\xfe\xffbinary"
WHEN = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)
SAMPLE_AV = {
    "M": {
        "b": {"B": BLOB},
        "l": {"L": [{"BS": [BLOB, b"\x02"]}, {"S": "s"}, {"N": "1.5"}, {"BOOL": False}, {"NULL": True}]},
        "ss": {"SS": ["a", "b"]},
        "ns": {"NS": ["1", "2"]},
    }
}

MODELS = Models()


def _sample(model: Any, shape: Any, depth: int = 0) -> Any:
    kind = shape.type_name
    if kind == "structure":
        if shape.name == "AttributeValue":
            return json.loads(json.dumps(SAMPLE_AV, default=lambda b: b.hex()), object_hook=_unhex)
        if depth > 8:
            return {}
        return {name: _sample(model, member, depth + 1) for name, member in shape.members.items()}
    if kind == "list":
        return [_sample(model, shape.member, depth + 1)]
    if kind == "map":
        return {"key": _sample(model, shape.value, depth + 1)}
    if kind == "string":
        return shape.enum[0] if shape.enum else "text"
    if kind in ("integer", "long"):
        return 7
    if kind in ("double", "float"):
        return 1.5
    if kind == "boolean":
        return True
    if kind == "timestamp":
        return WHEN
    if kind == "blob":
        return BLOB
    raise AssertionError(kind)


def _unhex(obj: dict) -> dict:
    if set(obj) == {"B"}:
        return {"B": bytes.fromhex(obj["B"])}
    if set(obj) == {"BS"}:
        return {"BS": [bytes.fromhex(v) for v in obj["BS"]]}
    return obj


def _epochs(value: Any) -> Any:
    """Timestamps as the engine sees them: epoch seconds."""
    if isinstance(value, dict):
        return {k: _epochs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_epochs(v) for v in value]
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    return value


def _operations() -> list[tuple[str, str]]:
    session = botocore.session.get_session()
    return [
        (service, op) for service in SERVICES for op in session.get_service_model(service).operation_names
    ]


@pytest.mark.parametrize(("service", "operation"), _operations())
def test_requests_convert_like_botocore_serialises_them(service: str, operation: str) -> None:
    model = botocore.session.get_session().get_service_model(service)
    op_model = model.operation_model(operation)
    if op_model.input_shape is None:
        pytest.skip("no input")
    params = _sample(model, op_model.input_shape)
    body = create_serializer("json", include_validation=False).serialize_to_request(params, op_model)["body"]
    converted = MODELS.service(service).request_converter(operation)(jsonio.loads(body))
    assert converted == _epochs(params)


@pytest.mark.parametrize(("service", "operation"), _operations())
def test_responses_encode_like_botocore_parses_them(service: str, operation: str) -> None:
    model = botocore.session.get_session().get_service_model(service)
    op_model = model.operation_model(operation)
    if op_model.output_shape is None:
        pytest.skip("no output")
    expected = _sample(model, op_model.output_shape)
    engine_answer = _epochs(expected)
    coercer = MODELS.service(service).response_coercer(operation)
    if coercer is not None:
        engine_answer = coercer(engine_answer)
    body = jsonio.dumps(engine_answer)
    parsed = create_parser("json").parse(
        {"body": body, "headers": {}, "status_code": 200, "context": {"operation_name": operation}},
        op_model.output_shape,
    )
    parsed.pop("ResponseMetadata", None)
    assert _epochs(parsed) == _epochs(expected)


def test_response_coercion_fixes_engine_numbers() -> None:
    from decimal import Decimal

    coercer = MODELS.service("dynamodb").response_coercer("DescribeTable")
    answer = coercer(
        {
            "Table": {
                "ItemCount": Decimal("3"),
                "TableSizeBytes": 10.0,
                "CreationDateTime": WHEN,
                "ProvisionedThroughput": {"ReadCapacityUnits": "5"},
            }
        }
    )
    assert answer["Table"] == {
        "ItemCount": 3,
        "TableSizeBytes": 10,
        "CreationDateTime": WHEN.timestamp(),
        "ProvisionedThroughput": {"ReadCapacityUnits": 5},
    }
    assert type(answer["Table"]["ItemCount"]) is int


def test_both_json_backends_agree() -> None:
    sample = {"a": [1, 2.5, "é", True, None, {"b": BLOB}], "n": 10**30}
    std = json.loads(jsonio._std_dumps(sample))
    assert std["a"][5]["b"] == "AAH+/2JpbmFyeQ=="
    if jsonio.upgrade() == "orjson":
        assert json.loads(jsonio.dumps(sample)) == std
        assert jsonio.loads(b'{"x": [1, {"y": "z"}]}') == jsonio._std_loads(b'{"x": [1, {"y": "z"}]}')


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("", True),
        ("AA==", True),
        ("AAE=", True),
        ("AAEC", True),
        ("AB==", False),
        ("A===", False),
        ("AA=A", False),
        ("AA", False),
        ("@@@@", False),
        ("AA==AA==", False),
        ("YWJj\n", False),
    ],
)
def test_blob_decoding_is_strict(text: str, ok: bool) -> None:
    if ok:
        assert isinstance(decode_blob(text), bytes)
    else:
        with pytest.raises(SerializationException):
            decode_blob(text)
