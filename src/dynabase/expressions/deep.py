"""Running the recursive passes over a deeply nested expression on a stack sized for it.

The parser, the name checks and the binder recurse once or a few times per nesting level. DynamoDB bounds an
expression to 4 KB, not its nesting, and answers even 2,000 nested parentheses with a ValidationException
(redundant parentheses, too many operators, an operand type...), so the passes must go as deep as 4 KB can nest.
:func:`call` measures the need from the nesting level (counted iteratively from the tokens, before any
recursion): shallow expressions, nearly all of them, run on the caller's stack; deeper ones run on a worker thread
with a stack and a recursion budget computed for their depth, one at a time, so a RecursionError (or a C stack
overflow on a server thread with a small stack) cannot happen whatever the input.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: nesting up to which the passes run on the caller's stack (they need at most ~8 frames a level)
SHALLOW = 48
#: Python frames each nesting level may take in the recursive passes, with a wide margin
_FRAMES_PER_LEVEL = 16
_BASE_FRAMES = 200
#: the worker's C stack per nesting level (Python-to-Python calls take none; builtins in between do)
_STACK_PER_LEVEL = 16 * 1024
_MIN_STACK = 8 * 1024 * 1024

_lock = threading.Lock()
_worker = threading.local()  # on a worker thread: the nesting level it was sized for


def nesting(kinds: list[str]) -> int:
    """An upper bound on the depth of the tree the tokens parse to: parentheses plus chained operators."""
    depth = deepest = chained = 0
    for kind in kinds:
        if kind == "(":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif kind == ")":
            depth -= 1
        elif kind == "NOT" or kind == "AND" or kind == "OR":
            chained += 1
    return deepest + chained + 2


def call(level: int, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``, on a stack deep enough for recursion over ``level`` nesting levels."""
    if level <= SHALLOW:
        return function(*args)
    budget = getattr(_worker, "level", 0)
    if level <= budget:  # already on a worker sized for it
        return function(*args)
    if budget:  # on a smaller worker, whose caller holds the lock
        return _run(level, function, args)
    with _lock:  # one deep run at a time: the recursion limit is shared by all threads
        return _run(level, function, args)


def _run(level: int, function: Callable[..., T], args: tuple) -> T:
    result: list = []
    failure: list[BaseException] = []

    def run() -> None:
        _worker.level = level
        try:
            result.append(function(*args))
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)

    frames = _BASE_FRAMES + level * _FRAMES_PER_LEVEL
    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    threading.stack_size(max(_MIN_STACK, level * _STACK_PER_LEVEL))
    try:
        worker = threading.Thread(target=run, name="dynabase-deep-expression", daemon=True)
    finally:
        threading.stack_size(old_stack)
    if old_limit < frames:
        sys.setrecursionlimit(frames)
    try:
        worker.start()
        worker.join()
    finally:
        if old_limit < frames:
            sys.setrecursionlimit(old_limit)
    if failure:
        raise failure[0]
    return result[0]
