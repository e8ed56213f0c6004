"""What a complete cloud answer looks like, per operation sync calls.

A relay or proxy that gives up mid-answer can close the connection cleanly: cut after the status line, an HTTP
answer has no headers and no body, and botocore (which checks ``x-amz-crc32`` only when the header is there)
parses a ``200`` as ``{}`` and a ``400`` as error code ``"400"``. Such an answer says nothing about the
table: sync must not act on it (a full resync would take an empty page for "the cloud has nothing"), so it is
refused as a transport fault and retried like a lost connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import SyncError


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _page_problem(answer: Mapping[str, Any]) -> str | None:
    items = answer.get("Items")
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        return "no Items list"
    if not _is_count(answer.get("Count")) or not _is_count(answer.get("ScannedCount")):
        return "no Count or ScannedCount"
    if answer["Count"] != len(items):
        return f"Count {answer['Count']} but {len(items)} items"
    if "LastEvaluatedKey" in answer and not isinstance(answer["LastEvaluatedKey"], dict):
        return "a LastEvaluatedKey that is not a key"
    return None


def _batch_get_problem(answer: Mapping[str, Any]) -> str | None:
    responses = answer.get("Responses")
    if not isinstance(responses, dict) or not all(isinstance(items, list) for items in responses.values()):
        return "no Responses map"
    if not isinstance(answer.get("UnprocessedKeys", {}), dict):
        return "an UnprocessedKeys that is not a map"
    return None


def _get_problem(answer: Mapping[str, Any]) -> str | None:
    # a GetItem that finds nothing answers {}: only an Item of the wrong shape is certain to be cut
    return None if isinstance(answer.get("Item", {}), dict) else "an Item that is not an item"


def _describe_problem(answer: Mapping[str, Any]) -> str | None:
    return None if isinstance(answer.get("Table"), dict) else "no Table"


_CHECKS = {
    "query": _page_problem,
    "scan": _page_problem,
    "batch_get_item": _batch_get_problem,
    "get_item": _get_problem,
    "describe_table": _describe_problem,
}


def check_answer(method: str, answer: Any, endpoint: str) -> None:
    """Raise a retryable :class:`SyncError` when ``answer`` is not a complete answer to ``method``."""
    check = _CHECKS.get(method)
    problem = "not a map" if not isinstance(answer, Mapping) else check(answer) if check else None
    if problem:
        raise SyncError(
            f"an incomplete answer from {endpoint} to {method} ({problem}): the connection was cut; retrying",
            retryable=True,
        )
