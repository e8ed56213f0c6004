"""jsonlimits: JSON nesting measured without recursion, before any parser recurses into it."""

from __future__ import annotations

import json

import pytest

from dynabase import jsonlimits


@pytest.mark.parametrize(
    "text, deeper",
    [
        (b"[" * 256 + b"]" * 256, False),
        (b"[" * 257 + b"]" * 257, True),
        (b"[" * 100_000, True),  # unclosed
        (b'{"a":' * 257 + b"1" + b"}" * 257, True),
        (b"[" * 200 + b"]" * 200 + b"[" * 200 + b"]" * 200, False),  # 400 brackets, 200 deep
        (b'"' + b"[" * 1000 + b'"', False),  # inside a string: text
        (b'["\\"' + b"[" * 1000 + b'"]', False),  # an escaped quote does not end the string
        (b'["\\\\", ' + b"[" * 300 + b"]" * 300 + b"]", True),  # an escaped backslash does
        ('["\u00e9' + "[" * 1000 + '"]', False),  # text as str, beyond ASCII
        # close to the limit for more than a chunk of brackets, then one level too many (or not)
        (b"[" * 250 + b"[]" * 70_000 + b"[" * 7, True),
        (b"[" * 250 + b"[]" * 70_000 + b"[" * 6, False),
        (b"[" * 200 + b"[]" * 70_000 + b"[" * 57 + b"]" * 257, True),
    ],
)
def test_depth(text, deeper):
    assert jsonlimits.depth_exceeds(text) is deeper


def test_loads_refuses_before_parsing_and_is_json_loads_otherwise():
    with pytest.raises(jsonlimits.TooDeep, match="deeper than 256 levels"):
        jsonlimits.loads(b"[" * 100_000 + b"]" * 100_000)
    assert isinstance(jsonlimits.TooDeep("x"), ValueError)  # callers that refuse bad JSON refuse it too
    document = {"a": [[{"b": "[[[["}]], "c": "\\"}
    assert jsonlimits.loads(json.dumps(document)) == document
