"""Lambda filter criteria (the subset dynabase supports) on Lambda-shaped stream records."""

from __future__ import annotations

import pytest

from dynabase.streams.filters import FilterError, compile_filters, matches

RECORD = {
    "eventName": "MODIFY",
    "dynamodb": {
        "Keys": {"pk": {"S": "device#d1"}},
        "NewImage": {
            "pk": {"S": "device#d1"},
            "severity": {"S": "Error"},
            "temp": {"N": "42.5"},
            "tags": {"SS": ["a", "b"]},
            "on": {"BOOL": True},
        },
    },
}


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ({"eventName": ["MODIFY", "INSERT"]}, True),
        ({"eventName": ["REMOVE"]}, False),
        ({"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "device#"}]}}}}, True),
        ({"dynamodb": {"Keys": {"pk": {"S": [{"suffix": "#d2"}]}}}}, False),
        ({"dynamodb": {"NewImage": {"severity": {"S": [{"equals-ignore-case": "error"}]}}}}, True),
        ({"dynamodb": {"NewImage": {"severity": {"S": [{"anything-but": ["Error"]}]}}}}, False),
        ({"dynamodb": {"NewImage": {"severity": {"S": [{"anything-but": {"prefix": "Warn"}}]}}}}, True),
        ({"dynamodb": {"NewImage": {"temp": {"N": [{"numeric": [">", 40, "<=", 42.5]}]}}}}, True),
        ({"dynamodb": {"NewImage": {"temp": {"N": [{"numeric": ["<", 40]}]}}}}, False),
        ({"dynamodb": {"NewImage": {"tags": {"SS": ["b"]}}}}, True),  # an array matches when a member does
        ({"dynamodb": {"NewImage": {"on": {"BOOL": [True]}}}}, True),
        ({"dynamodb": {"NewImage": {"on": {"BOOL": [1]}}}}, False),  # true is not 1
        ({"dynamodb": {"NewImage": {"missing": [{"exists": False}]}}}, True),
        ({"dynamodb": {"NewImage": {"temp": [{"exists": False}]}}}, False),
        ({"dynamodb": {"OldImage": {"temp": [{"exists": True}]}}}, False),
        ({"eventName": ["MODIFY"], "dynamodb": {"NewImage": {"severity": {"S": ["Info"]}}}}, False),
    ],
)
def test_patterns(pattern, expected):
    assert matches(RECORD, compile_filters([pattern])) is expected


def test_any_filter_may_match_and_none_means_all():
    assert matches(RECORD, compile_filters([{"eventName": ["REMOVE"]}, {"eventName": ["MODIFY"]}]))
    assert matches(RECORD, compile_filters([]))
    assert matches(RECORD, compile_filters([{"Pattern": '{"eventName": ["MODIFY"]}'}]))


@pytest.mark.parametrize(
    "pattern, message",
    [
        ("{", "not JSON"),
        ("[1]", "must be a JSON object"),
        ({"eventName": "MODIFY"}, "eventName: must be an object or a list"),
        ({"eventName": [{"wildcard": "M*"}]}, 'eventName: unsupported comparison {"wildcard": "M*"}'),
        ({"n": [{"numeric": [">"]}]}, "n: numeric takes"),
        ({"n": [{"numeric": ["~", 1]}]}, "n: numeric takes"),
        ({"n": [{"numeric": [">", "1"]}]}, "n: numeric takes"),
    ],
)
def test_unusable_patterns_are_refused(pattern, message):
    with pytest.raises(
        FilterError, match=message.replace("(", r"\(").replace("[", r"\[").replace("*", r"\*")
    ):
        compile_filters([pattern])
