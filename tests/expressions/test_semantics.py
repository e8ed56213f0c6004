"""Behaviour beyond the recorded cases: return values, key conditions, reuse of bound expressions."""

from __future__ import annotations

import pytest

from dynabase.errors import ValidationException
from dynabase.expressions import (
    Placeholders,
    compile_condition,
    compile_projection,
    compile_update,
    key_condition,
)

N = lambda n: {"N": str(n)}  # noqa: E731
S = lambda s: {"S": s}  # noqa: E731

ITEM = {
    "pk": S("k"),
    "n": N(5),
    "l": {"L": [N(1), N(2), {"M": {"a": N(1)}}]},
    "m": {"M": {"x": N(1), "y": {"M": {"z": S("q")}}}},
}


def update(text, values=None, names=None):
    return compile_update(text).bind(Placeholders(names, values))


def test_update_paths_and_updated_attributes():
    bound = update("SET m.x = :v, l[5] = :v REMOVE m.y.z, n", {":v": N(9)})
    assert bound.paths == ["m", "l", "n"]
    new = bound.apply(ITEM)
    assert new["l"]["L"][-1] == N(9) and "n" not in new and new["m"]["M"] == {"x": N(9), "y": {"M": {}}}
    # DynamoDB Local returns whole top-level attributes whose updated path exists in the item
    assert bound.updated(ITEM, new, new=False) == {"m": ITEM["m"], "n": ITEM["n"]}
    assert bound.updated(ITEM, new, new=True) == {"m": new["m"]}


def test_list_positions_are_the_original_ones():
    assert update("SET l[2] = :s REMOVE l[0]", {":s": S("x")}).apply(ITEM)["l"] == {"L": [N(2), S("x")]}
    assert update("SET l[9] = :s, l[7] = :n", {":s": S("x"), ":n": N(0)}).apply(ITEM)["l"]["L"][3:] == [
        N(0),
        S("x"),
    ]


def test_numbers_keep_the_requests_scale():
    bound = update(
        "SET a = :x - :y, b = :z ADD n :w",
        {":x": N("1.50"), ":y": N("1.5"), ":z": N("1E+2"), ":w": N("1.000")},
    )
    new = bound.apply(ITEM)
    assert (new["a"], new["b"], new["n"]) == (N("0.00"), N("1E+2"), N("6.000"))
    with pytest.raises(ValidationException, match="precision up to 38 digits"):
        update("SET a = :x + :x", {":x": N("9" * 38)}).apply(ITEM)


def test_update_error_order():
    with pytest.raises(ValidationException) as caught:
        update("SET b = n.q, a = zz ADD n.q :v", {":v": N(1)}).apply(ITEM)
    assert caught.value.message == "The document path provided in the update expression is invalid for update"
    with pytest.raises(ValidationException) as caught:
        update("SET a = zz, b = m + :v", {":v": N(1)}).apply(ITEM)
    assert caught.value.message == "An operand in the update expression has an incorrect data type"
    with pytest.raises(ValidationException) as caught:
        update("SET zz.q = :v, a = zz", {":v": N(1)}).apply(ITEM)
    assert (
        caught.value.message
        == "The provided expression refers to an attribute that does not exist in the item"
    )


def test_bound_expressions_are_reusable_and_pure():
    condition = compile_condition("n BETWEEN :lo AND :hi AND contains(l, :one)").bind(
        Placeholders(None, {":lo": N(1), ":hi": N(9), ":one": N("1.0")})
    )
    assert condition.evaluate(ITEM) is True
    assert condition.evaluate({"n": N(10), "l": {"L": [N(1)]}}) is False
    assert condition.evaluate({}) is False
    assert compile_condition("n = :v") is compile_condition("n = :v")  # compiled once


def test_projection():
    bound = compile_projection("l[2].a, #m.y, n").bind(Placeholders({"#m": "m"}, None))
    assert bound.top_level_names == {"l", "m", "n"}
    assert bound.apply(ITEM) == {
        "l": {"L": [{"M": {"a": N(1)}}]},
        "m": {"M": {"y": ITEM["m"]["M"]["y"]}},
        "n": N(5),
    }


def test_key_condition():
    ph = Placeholders({"#p": "pk"}, {":p": S("k"), ":lo": N(1), ":hi": N(3)})
    assert key_condition("#p = :p AND sk BETWEEN :lo AND :hi", ph, "pk", "sk") == (
        S("k"),
        "BETWEEN",
        (N(1), N(3)),
    )
    ph = Placeholders(None, {":p": S("k"), ":v": N(1)})
    assert key_condition(":v <= sk AND pk = :p", ph, "pk", "sk") == (S("k"), ">=", (N(1),))
    assert key_condition("pk = :p", ph, "pk", None).range_op is None
    with pytest.raises(ValidationException, match="^Query condition missed key schema element: pk$"):
        key_condition("sk = :v", ph, "pk", "sk")
