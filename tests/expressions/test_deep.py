"""deep.run: recursion written as generators, at any depth; deep.call: deep passes on a fresh, large stack.

Neither ever changes the process's recursion limit: on Python 3.11 and older it also bounds the C JSON parser
on every other thread, which overflowed its stack (SIGSEGV) while a deep expression had the limit raised.
"""

from __future__ import annotations

import sys
import threading

import pytest

from dynabase.errors import ValidationException
from dynabase.expressions import deep


def _depth(n: int) -> deep.Recursive[int]:
    if n == 0:
        return 0
    return 1 + (yield _depth(n - 1))


def _recurse(n: int) -> int:
    return 0 if n == 0 else 1 + _recurse(n - 1)


def test_generators_recurse_far_beyond_the_recursion_limit_without_changing_it():
    limit = sys.getrecursionlimit()
    assert deep.run(_depth(100 * limit)) == 100 * limit
    assert sys.getrecursionlimit() == limit


def test_an_exception_is_thrown_back_through_every_level_and_can_be_caught():
    def failing(n: int) -> deep.Recursive[int]:
        if n == 0:
            raise ValidationException(
                "Invalid ConditionExpression: The expression has redundant parentheses;"
            )
        return (yield failing(n - 1))

    with pytest.raises(ValidationException, match="redundant parentheses"):
        deep.run(failing(5000))

    def catching() -> deep.Recursive[str]:
        try:
            yield failing(5000)
        except ValidationException as error:
            return error.message
        return "not raised"

    assert "redundant" in deep.run(catching())


def test_shallow_calls_run_on_the_callers_thread():
    assert deep.call(deep.SHALLOW, threading.current_thread) is threading.current_thread()


def test_deep_calls_run_on_a_fresh_stack_with_the_limit_unchanged():
    limit = sys.getrecursionlimit()
    seen = []

    def work() -> int:
        seen.append((threading.current_thread() is not threading.main_thread(), sys.getrecursionlimit()))
        return _recurse(limit - 50)  # all of the limit: the worker's stack starts empty

    assert deep.call(2000, work) == limit - 50
    assert seen == [(True, limit)]
    assert sys.getrecursionlimit() == limit


def test_recursion_beyond_the_limit_is_a_validation_error_not_a_crash():
    limit = sys.getrecursionlimit()
    with pytest.raises(ValidationException, match="nested too deeply"):
        deep.call(2000, _recurse, 2 * limit)
    assert sys.getrecursionlimit() == limit


def test_errors_reach_the_caller():
    def fail():
        raise ValidationException("Invalid ConditionExpression: The expression has redundant parentheses;")

    with pytest.raises(ValidationException, match="redundant parentheses"):
        deep.call(500, fail)


def test_a_deep_call_inside_a_deep_call_runs_where_it_is():
    """PartiQL translates on a worker and may compile a deep expression there."""
    done = []

    def outer():
        done.append(deep.call(400, lambda: deep.call(300, _recurse, 500)))

    thread = threading.Thread(target=lambda: deep.call(100, outer), daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert done == [500]
