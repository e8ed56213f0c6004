"""Lambda filter criteria (the subset dynabase supports) on Lambda-shaped stream records.

The rules are Lambda's, from the AWS Lambda developer guide: "Control which events Lambda sends to your
function" (invocation-eventfiltering: the comparison operators; ``exists`` works on leaf nodes only) and "Using
event filtering with a DynamoDB event source" (with-ddb-filtering: numeric operators do not apply to DynamoDB
values, which are strings in the record; ``{"Organizations": {"L": {"S": [{"exists": true}]}}}`` is how to test
a list attribute), and EventBridge's "Arrays in event patterns" (an array value matches when any element does).
"""

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
            "tags": {"SS": ["alpha", "beta"]},
            "on": {"BOOL": True},
            "Organizations": {"L": [{"S": "Sales"}, {"S": "Marketing"}]},
            "address": {"M": {"city": {"S": "Anytown"}}},
        },
        "SizeBytes": 120,
    },
}
TTL_RECORD = {
    "eventName": "REMOVE",
    "userIdentity": {"principalId": "dynamodb.amazonaws.com", "type": "Service"},
    "dynamodb": {"Keys": {"pk": {"S": "device#d1"}}},
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
        # numeric: JSON numbers only; an N value is a string, which Lambda's numeric never matches
        ({"dynamodb": {"NewImage": {"temp": {"N": [{"numeric": [">", 40, "<=", 42.5]}]}}}}, False),
        ({"dynamodb": {"NewImage": {"temp": {"N": [{"numeric": ["<", 40]}]}}}}, False),
        ({"dynamodb": {"NewImage": {"temp": {"N": ["42.5"]}}}}, True),  # its text, exactly
        ({"dynamodb": {"SizeBytes": [{"numeric": [">", 100, "<=", 120]}]}}, True),
        ({"dynamodb": {"SizeBytes": [{"numeric": ["<", 100]}]}}, False),
        # an array of values matches when any member does, for values and comparisons alike
        ({"dynamodb": {"NewImage": {"tags": {"SS": ["beta"]}}}}, True),
        ({"dynamodb": {"NewImage": {"tags": {"SS": [{"prefix": "be"}]}}}}, True),
        ({"dynamodb": {"NewImage": {"tags": {"SS": [{"prefix": "ga"}]}}}}, False),
        ({"dynamodb": {"NewImage": {"tags": {"SS": [{"suffix": "pha"}]}}}}, True),
        ({"dynamodb": {"NewImage": {"tags": {"SS": [{"exists": True}]}}}}, True),
        # exists: leaf nodes only (the guide's Organizations example); an absent leaf matches exists false
        ({"dynamodb": {"NewImage": {"Organizations": [{"exists": True}]}}}, False),
        ({"dynamodb": {"NewImage": {"Organizations": {"L": {"S": [{"exists": True}]}}}}}, True),
        ({"dynamodb": {"NewImage": {"Organizations": {"L": {"S": ["Marketing"]}}}}}, True),
        ({"dynamodb": {"NewImage": {"Organizations": {"L": {"N": [{"exists": True}]}}}}}, False),
        ({"dynamodb": {"NewImage": {"address": [{"exists": True}]}}}, False),
        ({"dynamodb": {"NewImage": {"address": {"M": {"city": {"S": [{"exists": True}]}}}}}}, True),
        ({"dynamodb": {"NewImage": {"missing": {"S": [{"exists": False}]}}}}, True),
        ({"dynamodb": {"OldImage": {"temp": {"N": [{"exists": False}]}}}}, True),  # no OldImage at all
        ({"dynamodb": {"NewImage": {"temp": {"N": [{"exists": False}]}}}}, False),
        ({"dynamodb": {"NewImage": {"temp": {"N": [{"anything-but": ["1"]}]}}}}, True),
        ({"dynamodb": {"NewImage": {"missing": {"S": [{"anything-but": ["1"]}]}}}}, False),
        ({"dynamodb": {"NewImage": {"on": {"BOOL": [True]}}}}, True),
        ({"dynamodb": {"NewImage": {"on": {"BOOL": [1]}}}}, False),  # true is not 1
        ({"dynamodb": {"NewImage": {"missing": [{"exists": False}]}}}, True),
        ({"dynamodb": {"NewImage": {"temp": [{"exists": False}]}}}, True),  # temp is no leaf: {"N": ...}
        ({"dynamodb": {"OldImage": {"temp": [{"exists": True}]}}}, False),
        ({"eventName": ["MODIFY"], "dynamodb": {"NewImage": {"severity": {"S": ["Info"]}}}}, False),
    ],
)
def test_patterns(pattern, expected):
    assert matches(RECORD, compile_filters([pattern])) is expected


def test_the_documented_ttl_filter_matches_ttl_deletes_only():
    """The DynamoDB developer guide's filter for TTL deletes (time-to-live-ttl-streams: a Lambda filter on
    ``userIdentity``), against Lambda's record shape."""
    ttl = compile_filters(
        [{"userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}}]
    )
    assert matches(TTL_RECORD, ttl)
    assert not matches(RECORD, ttl)
    assert not matches(
        {**TTL_RECORD, "userIdentity": {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}}, ttl
    )


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
        ({"n": [{"exists": "yes"}]}, 'n: exists does not take "yes"'),
        ({"n": [{"prefix": 1}]}, "n: prefix does not take 1"),
        ({"n": [{"suffix": True}]}, "n: suffix does not take true"),
    ],
)
def test_unusable_patterns_are_refused(pattern, message):
    with pytest.raises(
        FilterError, match=message.replace("(", r"\(").replace("[", r"\[").replace("*", r"\*")
    ):
        compile_filters([pattern])
