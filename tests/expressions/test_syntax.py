"""Syntax errors, limits and parse-time errors; every message verified on DynamoDB Local."""

from __future__ import annotations

import pytest

from dynabase.errors import ValidationException
from dynabase.expressions import compile_condition, compile_projection, compile_update


def message(compile_, text, *args) -> str:
    compile_.cache_clear()
    with pytest.raises(ValidationException) as caught:
        compile_(text, *args)
    return caught.value.message


CONDITION_SYNTAX = [
    ("a = = :v", "=", "= = :v"),
    ("a   =    =   :v   AND b", "=", "=    =   :v"),
    ("a = :v AND", "<EOF>", "AND"),
    ("a = :v )", ")", ":v )"),
    ("(a = :v", "<EOF>", ":v"),
    ("a ! :v", "!", "a ! :v"),
    ("a == :v", "=", "== :v"),
    ("a.b..c = :v", ".", "..c"),
    ("a[x] = :v", "x", "[x]"),
    ("a[1.5] = :v", ".", "1.5"),
    ("a[-1] = :v", "-", "[-1"),
    ("   ", "<EOF>", "   "),
    ("a = ", "<EOF>", "= "),
    ("#", "#", "#"),
    ("a = 'x'", "'", "= 'x"),
    ("1 = a", "1", "1 ="),
    ("a IN :v", ":v", "IN :v"),
    ("a IN ()", ")", "()"),
    ("a BETWEEN :v OR :w", "OR", ":v OR :w"),
    ("a\t=\n:v\rb", "b", ":v\rb"),
    ("a[01] = :v", "1", "01]"),
    ("  ! a", "!", "  ! a"),
    ("a = :v b  ", "b", ":v b  "),
    ("(a) ", "<EOF>", ") "),
    ("(a = :v) = :w", "=", ") = :w"),
    ("foo() AND a = :v", ")", "() AND"),
    ("a IN (:v,) AND b = :w", ")", ",) AND"),
    ("_a = :v", "_", "_a"),
    ("a.remove = :v", "remove", ".remove ="),
    ("((a)) x", "x", ") x"),
    ("(((a))", "<EOF>", ")"),
    ("size(((a)) x", "x", ") x"),
    ("size(((a)), x", "<EOF>", "x"),
    ("a\u00e9 = :v", "\u00e9", "a\u00e9 ="),
    ("a\U0001f600b = :v", "\ud83d", "a\U0001f600"),
]


@pytest.mark.parametrize(("text", "token", "near"), CONDITION_SYNTAX)
def test_condition_syntax_errors(text, token, near):
    assert (
        message(compile_condition, text)
        == f'Invalid ConditionExpression: Syntax error; token: "{token}", near: "{near}"'
    )


@pytest.mark.parametrize(
    ("text", "token", "near"),
    [
        ("SET a x", "x", "a x"),
        ("SET a = b + :v + :w", "+", ":v + :w"),
        ("SET a = :v - (b + :w)", "+", "b + :w"),
        ("SET a = -b", "-", "= -b"),
        ("SET a = :v, ", "<EOF>", ", "),
        ("SET", "<EOF>", "SET"),
        ("REMOVE a,", "<EOF>", ","),
        ("ADD a b", "b", "a b"),
        ("ADD a (:v)", "(", "a (:v"),
        ("ADD a = :v", "=", "a = :v"),
        ("SET a = b = c", "=", "b = c"),
        ("DELETE a . :v", "<EOF>", ":v"),
        ("SET a = :v SET b = :w c", "c", ":w c"),
        ("SET a = if_not_exists(((b)), :v x", "x", ":v x"),
        ("SET remove = :v", "remove", "SET remove ="),
    ],
)
def test_update_syntax_errors(text, token, near):
    assert (
        message(compile_update, text)
        == f'Invalid UpdateExpression: Syntax error; token: "{token}", near: "{near}"'
    )


@pytest.mark.parametrize(
    ("text", "token", "near"),
    [
        ("add", "add", "add"),
        (":v.a", ":v", ":v."),
        ("a[:v]", ":v", "[:v]"),
        ("a.[0]", "[", ".[0"),
        ("a.1", "1", ".1"),
        ("[0]", "[", "[0"),
    ],
)
def test_projection_syntax_errors(text, token, near):
    assert (
        message(compile_projection, text)
        == f'Invalid ProjectionExpression: Syntax error; token: "{token}", near: "{near}"'
    )


@pytest.mark.parametrize(
    "text",
    [
        "((a)) = :v",
        "((a = :v))",
        "((a)) = :v b",
        "((a = :v)) x",
        "a BETWEEN ((:v)) x",
        "a IN ((:v), ((:v))",
        "size(((a))) x",
        "((attribute_exists(a)))",
        "(" * 1000 + "a = :v" + ")" * 999,
    ],
)
def test_redundant_parentheses(text):
    assert (
        message(compile_condition, text)
        == "Invalid ConditionExpression: The expression has redundant parentheses;"
    )


@pytest.mark.parametrize(
    "text", ["SET a = ((b))", "SET a = ((b + :v))", "SET a = ((b)) x", "SET a = if_not_exists(((b)), :v) x"]
)
def test_redundant_parentheses_in_updates(text):
    assert (
        message(compile_update, text) == "Invalid UpdateExpression: The expression has redundant parentheses;"
    )


def test_single_parentheses_are_fine():
    for text in [
        "(a) = :v",
        "(a = :v) AND (b) = :w",
        "size((a)) = :v",
        "a IN ((:v))",
        "((a) = :v)",
        "((a = :v) AND b = :v)",
    ]:
        compile_condition(text)
    compile_update("SET a = (b + :v), c = (d) + (:w), e = if_not_exists((f), :v)")


def test_empty_and_size_limits():
    assert message(compile_condition, "") == "Invalid ConditionExpression: The expression can not be empty;"
    assert message(compile_update, "") == "Invalid UpdateExpression: The expression can not be empty;"
    compile_projection("a" * 4096)
    assert message(compile_projection, "a" * 4097) == (
        "Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size;"
    )
    assert message(compile_condition, "a" * 4097, "FilterExpression") == (
        "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; expression size: 4097"
    )
    assert message(compile_condition, "\U0001f600" * 2049) == (  # sizes count UTF-16 code units
        "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4098"
    )


def test_list_index_range_and_keywords():
    compile_projection("a[2147483647]")
    assert message(compile_projection, "a[2147483648]") == (
        "Invalid ProjectionExpression: List index is not within the allowable range; index: [2147483648]"
    )
    # a syntax error is reported before an index out of range
    assert message(compile_condition, "a[99999999999] = :v x").startswith(
        "Invalid ConditionExpression: Syntax error"
    )
    compile_condition("attribute_exists(a) Or a BeTWEEN :v and :v")  # keywords are case-insensitive
    assert (
        message(compile_condition, "SIZE(a) = :v")
        == "Invalid ConditionExpression: Invalid function name; function: SIZE"
    )


def test_deep_nesting_does_not_overflow():
    assert message(compile_condition, "(" * 4000 + "a").startswith(
        "Invalid ConditionExpression: Syntax error"
    )
    assert message(compile_condition, "NOT " * 1000 + "a").startswith(
        "Invalid ConditionExpression: Syntax error"
    )
