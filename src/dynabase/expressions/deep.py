"""Recursion over deeply nested expressions without a deep Python stack, and without the recursion limit.

DynamoDB bounds an expression to 4 KB (a PartiQL statement to 8 KB), not its nesting, and answers even 2,000
nested parentheses with a ValidationException (redundant parentheses, too many operators, an operand type...),
so the parsers and the checks must go as deep as the text can nest. The process's recursion limit is never
raised for that: on Python 3.11 and older it also bounds the C JSON parser on every other thread, which then
overflows its stack instead of raising RecursionError.

* :func:`run` drives a recursive function written as a generator: each ``yield`` of a generator is a call, its
  result is sent back, an exception is thrown back in (anything else yielded is sent straight back: a leaf
  needs no generator). Past :data:`DIRECT_LEVELS` levels the calls are kept on a list, not the Python stack,
  so the parsers and the binder's passes are written this way.
* :func:`call` runs a pass whose recursion still follows the tree (PartiQL's translation) on a worker thread
  with a fresh stack and a large C stack when the nesting is deep; what recurses too deep there is refused
  with a ValidationException (:data:`TOO_DEEP`, dynabase's wording) instead of a RecursionError.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from types import GeneratorType
from typing import Any, TypeVar

from ..errors import ValidationException

T = TypeVar("T")

#: nesting up to which passes run on the caller's stack (they need at most ~8 frames a level)
SHALLOW = 48
#: the worker's C stack per nesting level (Python-to-Python calls take none; builtins in between do)
_STACK_PER_LEVEL = 16 * 1024
_MIN_STACK = 8 * 1024 * 1024
TOO_DEEP = "The expression is nested too deeply to be processed"

_stack_size_lock = threading.Lock()  # threading.stack_size is process-wide: set, create, restore as one
_worker = threading.local()  # on a worker thread: the nesting level it was sized for

Recursive = Generator[Any, Any, T]


def run(generator: Recursive[T]) -> T:
    """The value ``generator`` returns, each generator it yields run to completion first (its value sent back,
    its exception thrown back in). The first :data:`DIRECT_LEVELS` levels run on the Python stack (faster),
    deeper ones on a heap-allocated stack."""
    return _direct(generator, 0)


#: generator levels driven by plain recursion before :func:`_trampoline` takes over (two frames each)
DIRECT_LEVELS = 32


def _direct(generator: Recursive[T], level: int) -> T:
    value: Any = None
    error: BaseException | None = None
    while True:
        try:
            callee = generator.send(value) if error is None else generator.throw(error)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        error = None
        if callee.__class__ is not GeneratorType:  # a value the callee already had (a leaf): straight back
            value = callee
            continue
        try:
            value = _direct(callee, level + 1) if level < DIRECT_LEVELS else _trampoline(callee)
        except BaseException as raised:
            error = raised


def _trampoline(generator: Recursive[T]) -> T:
    stack: list[Generator[Any, Any, Any]] = [generator]
    value: Any = None
    error: BaseException | None = None
    while True:
        top = stack[-1]
        try:
            if error is None:
                callee = top.send(value)
            else:
                thrown, error = error, None
                callee = top.throw(thrown)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value  # type: ignore[no-any-return]
            value = done.value
            continue
        except BaseException as raised:
            stack.pop()
            if not stack:
                raise
            error = raised
            continue
        if callee.__class__ is GeneratorType:
            stack.append(callee)
            value = None
        else:
            value = callee


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
    """``function(*args)``, on a fresh, large stack when ``level`` (the nesting) is deep."""
    if level <= SHALLOW or level <= getattr(_worker, "level", 0):
        return function(*args)
    result: list = []
    failure: list[BaseException] = []

    def work() -> None:
        _worker.level = level
        try:
            result.append(function(*args))
        except RecursionError:
            failure.append(ValidationException(TOO_DEEP))
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)

    with _stack_size_lock:
        old_stack = threading.stack_size()
        threading.stack_size(max(_MIN_STACK, level * _STACK_PER_LEVEL))
        try:
            worker = threading.Thread(target=work, name="dynabase-deep-expression", daemon=True)
            worker.start()  # the stack is allocated here
        finally:
            threading.stack_size(old_stack)
    worker.join()
    if failure:
        raise failure[0]
    return result[0]
