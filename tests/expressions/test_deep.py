"""deep.call: shallow work on the caller's thread, deep work on a worker sized for it, nested calls included."""

from __future__ import annotations

import sys
import threading

import pytest

from dynabase.errors import ValidationException
from dynabase.expressions import deep


def _recurse(n: int) -> int:
    return 0 if n == 0 else 1 + _recurse(n - 1)


def test_shallow_calls_run_on_the_callers_thread():
    assert deep.call(deep.SHALLOW, threading.current_thread) is threading.current_thread()


def test_deep_calls_get_the_recursion_they_were_sized_for_and_restore_the_limit():
    limit = sys.getrecursionlimit()
    assert deep.call(2000, _recurse, 8 * 2000) == 16000  # beyond the default limit of 1,000 frames
    assert sys.getrecursionlimit() == limit


def test_errors_reach_the_caller():
    def fail():
        raise ValidationException("Invalid ConditionExpression: The expression has redundant parentheses;")

    with pytest.raises(ValidationException, match="redundant parentheses"):
        deep.call(500, fail)


def test_a_deep_call_inside_a_deep_call_does_not_wait_for_itself():
    """PartiQL translates on a worker and may compile a deep expression there."""
    done = []

    def outer():
        done.append(deep.call(400, lambda: deep.call(900, _recurse, 5000)))

    thread = threading.Thread(target=lambda: deep.call(100, outer), daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert done == [5000]
