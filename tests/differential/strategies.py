"""Hypothesis strategies for DynamoDB requests over two fixed table shapes (see ``TABLES``).

Every strategy returns a finished request dict (what is sent, and what Hypothesis prints for a failing
example), built from a small alphabet of keys, attribute names and values so that collisions, overwrites,
true and false conditions and type errors all happen often.  Expressions always go through
``ExpressionAttributeNames``/``ExpressionAttributeValues`` placeholders, and every placeholder generated is
used (an unused one is a ValidationException that would drown everything else).

Table names in requests are the *logical* names ``HR`` and ``BIN``; :mod:`harness` binds them to each
backend's real table names.
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from typing import Any

from hypothesis import strategies as st

# -- the tables --------------------------------------------------------------------------------------------------

HR = "HR"  # S hash "pk" + N range "sk"; GSI "gsi" (S "g", S "h", ALL); LSI "lsi" (N "l", INCLUDE ["a"])
BIN = "BIN"  # B hash "pk"

TABLES: dict[str, dict[str, Any]] = {
    HR: {
        "keys": ("pk:S", "sk:N"),
        "gsis": [("gsi", ("g:S", "h:S"), "ALL")],
        "lsis": [("lsi", "l:N", ["a"])],
    },
    BIN: {"keys": ("pk:B",), "gsis": [], "lsis": []},
}

#: key attributes of each table and index: (hash, range or None)
KEY_ATTRS = {
    (HR, None): ("pk", "sk"),
    (HR, "gsi"): ("g", "h"),
    (HR, "lsi"): ("pk", "l"),
    (BIN, None): ("pk", None),
}

# -- alphabets ---------------------------------------------------------------------------------------------------

#: strings: empty, unicode outside the BMP, a NUL, and a pair whose UTF-8 and UTF-16 orders differ
STRINGS = ["", "a", "ab", "b", "B", "é", "😀", "\uffff", "a b", "a\x00"]
#: numbers: negatives, decimals, different spellings of one value, the extremes of the range and precision
NUMBERS = [
    "0",
    "-0",
    "1",
    "1.0",
    "-1",
    "1.5",
    "-0.25",
    "2",
    "10",
    "1E+1",
    "100",
    "1e-3",
    "0.001",
    "-12345678901234567890.123456789",
    "12345678901234567890123456789012345678",
    "9.9999999999999999999999999999999999999E+125",
    "-9.9999999999999999999999999999999999999E+125",
    "1E-130",
    "-1E-130",
]
BINARIES = [b"", b"\x00", b"a", b"ab", b"\xff\x00", b"\x7f"]
MAP_KEYS = ["a", "b", "c d"]
TYPE_NAMES = ["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "M", "L"]

HR_PKS = ["a", "b", "é"]
HR_SKS = ["-1", "0", "1", "1.0", "2.5", "10", "1E+1", "-0.5"]  # "1"/"1.0" and "10"/"1E+1" are the same key
GSI_HASH = ["x", "y"]
GSI_RANGE = ["a", "ab", "b", "\uffff", "😀"]
LSI_RANGE = ["0", "1", "-1.5"]
BIN_PKS = [b"\x00", b"\x01", b"a", b"\xff", b"\x00\x01"]

ATTRS = ["a", "b", "name", "x.y"]  # "name" is a reserved word, "x.y" needs a placeholder to be one name
HR_INDEX_ATTRS = ["g", "h", "l"]

#: invalid attribute values (one per request at most, so which error wins is never in question)
BAD_VALUES = [
    {"SS": []},
    {"NS": []},
    {"BS": []},
    {"SS": ["a", "a"]},
    {"NS": ["1", "1.0"]},
    {"N": "1E+126"},
    {"N": "1E-131"},
    {"N": "123456789012345678901234567890123456789"},
    {"N": "abc"},
    {"N": ""},
]


def freq(*weighted: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """A weighted choice between strategies (shrinks towards the first); a composite keeps its repr short."""
    total = sum(weight for weight, _ in weighted)

    @st.composite
    def weighted_choice(draw: Any) -> Any:
        pick = draw(st.integers(0, total - 1))
        for weight, strategy in weighted:
            if pick < weight:
                return draw(strategy)
            pick -= weight
        raise AssertionError("unreachable")

    return weighted_choice()


def maybe(strategy: st.SearchStrategy, weight_none: int = 1, weight_some: int = 1) -> st.SearchStrategy:
    return freq((weight_none, st.none()), (weight_some, strategy))


def _num_key(s: str) -> Any:
    return Decimal(s)


# -- attribute values --------------------------------------------------------------------------------------------

s_values = st.sampled_from(STRINGS).map(lambda s: {"S": s})
n_values = st.sampled_from(NUMBERS).map(lambda n: {"N": n})
b_values = st.sampled_from(BINARIES).map(lambda b: {"B": b})
bool_values = st.booleans().map(lambda b: {"BOOL": b})
null_values = st.just({"NULL": True})

ss_values = st.lists(st.sampled_from(["a", "b", "c", "é", ""]), min_size=1, max_size=3, unique=True).map(
    lambda v: {"SS": v}
)
ns_values = st.lists(
    st.sampled_from(["0", "1", "-1", "2.5", "10", "1E+1", "1e-3"]), min_size=1, max_size=3, unique_by=_num_key
).map(lambda v: {"NS": v})
bs_values = st.lists(st.sampled_from([b"\x00", b"a", b"\xff", b""]), min_size=1, max_size=3, unique=True).map(
    lambda v: {"BS": v}
)
set_values = st.one_of(ss_values, ns_values, bs_values)
scalar_values = freq((3, s_values), (3, n_values), (1, b_values), (1, bool_values), (1, null_values))


def _containers(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.lists(children, max_size=3).map(lambda v: {"L": v}),
        st.dictionaries(st.sampled_from(MAP_KEYS), children, max_size=3).map(lambda v: {"M": v}),
    )


values = st.recursive(freq((5, scalar_values), (2, set_values)), _containers, max_leaves=5)
list_values = st.lists(values, max_size=2).map(lambda v: {"L": v})
#: values for ADD/DELETE: numbers and sets, sometimes of the wrong type
add_values = freq(
    (8, st.sampled_from(["1", "-1", "2.5", "1E+1"]).map(lambda n: {"N": n})),
    (8, set_values),
    (1, s_values),
    (1, list_values),
)
delete_values = freq((12, set_values), (1, n_values), (1, s_values))

# -- keys and items ----------------------------------------------------------------------------------------------

hr_pk = st.sampled_from(HR_PKS).map(lambda s: {"S": s})
hr_sk = st.sampled_from(HR_SKS).map(lambda n: {"N": n})
bin_pk = st.sampled_from(BIN_PKS).map(lambda b: {"B": b})

hr_keys = st.fixed_dictionaries({"pk": hr_pk, "sk": hr_sk})
bin_keys = st.fixed_dictionaries({"pk": bin_pk})

#: keys that do not match the schema (missing range key, wrong type, extra attribute, empty binary)
bad_hr_keys = st.one_of(
    st.fixed_dictionaries({"pk": hr_pk}),
    st.fixed_dictionaries({"pk": hr_pk, "sk": s_values}),
    st.fixed_dictionaries({"pk": hr_pk, "sk": hr_sk, "a": s_values}),
    st.fixed_dictionaries({"pk": st.just({"S": ""}), "sk": hr_sk}),
)
bad_bin_keys = st.one_of(
    st.just({"pk": {"B": b""}}),
    st.fixed_dictionaries({"pk": s_values}),
    st.fixed_dictionaries({"pk": bin_pk, "sk": n_values}),
)


@cache
def keys_for(table: str, bad_weight: int = 1) -> st.SearchStrategy:
    good, bad = (hr_keys, bad_hr_keys) if table == HR else (bin_keys, bad_bin_keys)
    return freq((30, good), (bad_weight, bad))


good_gsi_hash = st.sampled_from(GSI_HASH).map(lambda s: {"S": s})
good_gsi_range = st.sampled_from(GSI_RANGE).map(lambda s: {"S": s})
good_lsi_range = st.sampled_from(LSI_RANGE).map(lambda n: {"N": n})
#: invalid values for index key attributes: empty string, wrong type
bad_index_values = {
    "g": st.sampled_from([{"S": ""}, {"N": "1"}]),
    "h": st.sampled_from([{"S": ""}, {"B": b"a"}]),
    "l": st.sampled_from([{"S": "1"}, {"B": b"\x00"}]),
}

_attr_values = {name: values for name in ATTRS}


@cache
def items_for(table: str, bad: bool = True) -> st.SearchStrategy:
    """Full items for ``table``; with ``bad``, sometimes with exactly one invalid attribute value."""
    return _items(table, bad)


@st.composite
def _items(draw: Any, table: str, bad: bool) -> dict[str, Any]:
    item = dict(draw(keys_for(table, bad_weight=0)))
    optional = dict(_attr_values)
    if table == HR:
        optional.update(g=good_gsi_hash, h=good_gsi_range, l=good_lsi_range)
    for name, strategy in optional.items():
        if draw(st.booleans()):
            item[name] = draw(strategy)
    if bad and draw(st.integers(0, 15)) == 0:
        if table == HR and draw(st.booleans()):
            name = draw(st.sampled_from(HR_INDEX_ATTRS))
            item[name] = draw(bad_index_values[name])
        else:
            item[draw(st.sampled_from(ATTRS))] = draw(st.sampled_from(BAD_VALUES))
    return item


# -- expressions -------------------------------------------------------------------------------------------------


class Ctx:
    """Collects placeholders while rendering expressions: one ``#n`` per distinct name, one ``:v`` per value."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}

    def name(self, name: str) -> str:
        for placeholder, existing in self.names.items():
            if existing == name:
                return placeholder
        placeholder = f"#n{len(self.names)}"
        self.names[placeholder] = name
        return placeholder

    def value(self, value: Any) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = value
        return placeholder

    def apply(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.names:
            request["ExpressionAttributeNames"] = dict(self.names)
        if self.values:
            request["ExpressionAttributeValues"] = dict(self.values)
        return request

    # rendering -------------------------------------------------------------------------------------------------

    def path(self, path: tuple) -> str:
        out = self.name(path[0])
        for part in path[1:]:
            out += f"[{part}]" if isinstance(part, int) else "." + self.name(part)
        return out

    def operand(self, operand: tuple) -> str:
        kind = operand[0]
        if kind == "path":
            return self.path(operand[1])
        if kind == "val":
            return self.value(operand[1])
        if kind == "size":
            return f"size({self.path(operand[1])})"
        if kind == "ine":
            return f"if_not_exists({self.path(operand[1])}, {self.operand(operand[2])})"
        if kind == "append":
            return f"list_append({self.operand(operand[1])}, {self.operand(operand[2])})"
        raise ValueError(operand)

    def condition(self, cond: tuple) -> str:
        kind = cond[0]
        if kind == "cmp":
            return f"{self.operand(cond[2])} {cond[1]} {self.operand(cond[3])}"
        if kind == "between":
            return f"{self.operand(cond[1])} BETWEEN {self.operand(cond[2])} AND {self.operand(cond[3])}"
        if kind == "in":
            return f"{self.operand(cond[1])} IN ({', '.join(self.operand(o) for o in cond[2])})"
        if kind == "exists":
            return f"attribute_exists({self.path(cond[1])})"
        if kind == "not_exists":
            return f"attribute_not_exists({self.path(cond[1])})"
        if kind == "type":
            return f"attribute_type({self.path(cond[1])}, {self.value({'S': cond[2]})})"
        if kind == "begins":
            return f"begins_with({self.path(cond[1])}, {self.operand(cond[2])})"
        if kind == "contains":
            return f"contains({self.path(cond[1])}, {self.operand(cond[2])})"
        if kind in ("and", "or"):
            return f"({self.condition(cond[1])}) {kind.upper()} ({self.condition(cond[2])})"
        if kind == "not":
            return f"NOT ({self.condition(cond[1])})"
        raise ValueError(cond)

    def update(self, clauses: list[tuple[str, list]]) -> str:
        parts = []
        for clause, actions in clauses:
            if clause == "SET":
                rendered = []
                for path, expr in actions:
                    if expr[0] in ("+", "-"):
                        value = f"{self.operand(expr[1])} {expr[0]} {self.operand(expr[2])}"
                    else:
                        value = self.operand(expr[1])
                    rendered.append(f"{self.path(path)} = {value}")
            elif clause == "REMOVE":
                rendered = [self.path(path) for path in actions]
            else:  # ADD / DELETE
                rendered = [f"{self.path(path)} {self.value(value)}" for path, value in actions]
            parts.append(f"{clause} {', '.join(rendered)}")
        return " ".join(parts)

    def projection(self, paths: list[tuple]) -> str:
        return ", ".join(self.path(p) for p in paths)


@cache
def paths_for(
    table: str, key_weight: int = 1, index_weight: int = 6, nested_weight: int = 3
) -> st.SearchStrategy:
    """Document paths: a top-level name and up to two map keys / list indexes.

    Weights are out of 40 for the plain attributes; a key or index attribute with a nested part (an error:
    key attributes must be scalars) is rarer still.
    """
    tail = st.lists(st.one_of(st.sampled_from(["a", "b"]), st.integers(0, 2)), min_size=1, max_size=2)
    plain = st.sampled_from(ATTRS).map(lambda n: (n,))
    nested = st.tuples(st.sampled_from(ATTRS), tail).map(lambda t: (t[0], *t[1]))
    tops = [(40, plain)]
    if nested_weight:
        tops.append((nested_weight * 8, nested))
    key_names = ["pk", "sk"] if table == HR else ["pk"]
    key_like = list(key_names) + (HR_INDEX_ATTRS if table == HR else [])
    if table == HR and index_weight:
        tops.append((index_weight, st.sampled_from(HR_INDEX_ATTRS).map(lambda n: (n,))))
    if key_weight:
        tops.append((key_weight, st.sampled_from(key_names).map(lambda n: (n,))))
        if nested_weight:
            tops.append((1, st.tuples(st.sampled_from(key_like), tail).map(lambda t: (t[0], *t[1]))))
    return freq(*tops)


#: literal operands in conditions: mostly S/N/B (a BOOL, NULL, list, map or set literal is an error for the
#: ordering comparators, BETWEEN and begins_with)
condition_values = freq((4, s_values), (4, n_values), (1, b_values), (1, scalar_values), (1, values))


@cache
def operands_for(table: str, key_weight: int = 1) -> st.SearchStrategy:
    paths = paths_for(table, key_weight)
    return freq(
        (4, paths.map(lambda p: ("path", p))),
        (4, condition_values.map(lambda v: ("val", v))),
        (1, paths.map(lambda p: ("size", p))),
    )


@cache
def conditions_for(table: str, key_weight: int = 1) -> st.SearchStrategy:
    paths = paths_for(table, key_weight)
    operand = operands_for(table, key_weight)
    comparators = st.sampled_from(["=", "<>", "<", "<=", ">", ">="])
    leaf = freq(
        (4, st.tuples(st.just("cmp"), comparators, operand, operand)),
        (1, st.tuples(st.just("between"), operand, operand, operand)),
        (1, st.tuples(st.just("in"), operand, st.lists(operand, min_size=1, max_size=3).map(tuple))),
        (3, st.tuples(st.just("exists"), paths)),
        (3, st.tuples(st.just("not_exists"), paths)),
        (1, st.tuples(st.just("type"), paths, st.sampled_from(TYPE_NAMES))),
        (1, st.tuples(st.just("begins"), paths, operand)),
        (1, st.tuples(st.just("contains"), paths, operand)),
    )
    return st.recursive(
        leaf,
        lambda children: st.one_of(
            st.tuples(st.just("and"), children, children),
            st.tuples(st.just("or"), children, children),
            st.tuples(st.just("not"), children),
        ),
        max_leaves=3,
    )


@cache
def update_clauses_for(table: str) -> st.SearchStrategy:
    paths = paths_for(table, key_weight=1, nested_weight=1)
    set_paths = freq(
        (10, paths_for(table, key_weight=1, nested_weight=0)), (1, paths)
    )  # ADD/DELETE: top level
    plain = freq(
        (4, values.map(lambda v: ("val", v))),
        (1, paths.map(lambda p: ("path", p))),
        (2, st.tuples(st.just("ine"), paths, values.map(lambda v: ("val", v)))),
    )
    list_operand = freq(
        (3, list_values.map(lambda v: ("val", v))),
        (1, paths.map(lambda p: ("path", p))),
        (2, st.tuples(st.just("ine"), paths, list_values.map(lambda v: ("val", v)))),
    )
    number_operand = freq(
        (
            8,
            st.sampled_from(["1", "-1", "2.5", "1E+1", "9.9999999999999999999999999999999999999E+125"]).map(
                lambda n: ("val", {"N": n})
            ),
        ),
        (6, st.tuples(st.just("ine"), paths, n_values.map(lambda v: ("val", v)))),
        (3, paths.map(lambda p: ("path", p))),
        (1, s_values.map(lambda v: ("val", v))),
    )
    arithmetic = st.tuples(st.sampled_from(["+", "-"]), number_operand, number_operand)
    set_value = freq(
        (4, plain.map(lambda o: ("=", o))),
        (2, arithmetic),
        (2, st.tuples(list_operand, list_operand).map(lambda t: ("=", ("append", t[0], t[1])))),
    )
    # The LSI range key "l" (N) is only SET to a number or to arithmetic (a number, or an error before any
    # write).  DynamoDB Local does not check the type of an LSI key attribute an UpdateItem writes (it stores
    # ``l = {"S": "x"}``, where a PutItem of that item fails with "Type mismatch for Index Key", as on AWS),
    # and then serves such items from the LSI in the order of its internal key encoding across types, which is
    # a Local bug the engine does not copy (it rejects the update, as DynamoDB does).
    lsi_key_value = freq((3, n_values.map(lambda v: ("=", ("val", v)))), (2, arithmetic))
    set_action = paths.flatmap(lambda p: st.tuples(st.just(p), lsi_key_value if p == ("l",) else set_value))
    clause = {
        "SET": st.lists(set_action, min_size=1, max_size=3),
        "REMOVE": st.lists(paths, min_size=1, max_size=2),
        "ADD": st.lists(st.tuples(set_paths, add_values), min_size=1, max_size=2),
        "DELETE": st.lists(st.tuples(set_paths, delete_values), min_size=1, max_size=2),
    }
    order = freq(
        (3, st.just(["SET"])),
        (1, st.just(["REMOVE"])),
        (1, st.just(["ADD"])),
        (1, st.just(["DELETE"])),
        (
            2,
            st.permutations(["SET", "REMOVE", "ADD", "DELETE"]).flatmap(
                lambda perm: st.integers(2, 4).map(lambda n: perm[:n])
            ),
        ),
    )
    drawn = order.flatmap(
        lambda names: st.tuples(*[st.tuples(st.just(n), clause[n]) for n in names]).map(list)
    )
    # mostly keep one action per top-level attribute (else most updates fail for overlapping paths)
    return st.tuples(drawn, st.integers(0, 4)).map(lambda t: t[0] if t[1] == 0 else _distinct_tops(t[0]))


def _distinct_tops(clauses: list[tuple[str, list]]) -> list[tuple[str, list]]:
    seen: set[str] = set()
    out = []
    for clause, actions in clauses:
        kept = []
        for action in actions:
            path = action if clause == "REMOVE" else action[0]
            if path[0] not in seen:
                seen.add(path[0])
                kept.append(action)
        if kept:
            out.append((clause, kept))
    return out or clauses[:1]


@cache
def projections_for(table: str) -> st.SearchStrategy:
    paths = st.lists(paths_for(table, key_weight=4, index_weight=4), min_size=1, max_size=3)
    # mostly one path per top-level attribute (else most projections fail for overlapping paths)
    return st.tuples(paths, st.integers(0, 4)).map(
        lambda t: t[0] if t[1] == 0 else list({p[0]: p for p in reversed(t[0])}.values())[::-1]
    )


tables = freq((2, st.just(HR)), (1, st.just(BIN)))


# -- requests ----------------------------------------------------------------------------------------------------

RETURN_VALUES_UPDATE = ["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"]


@st.composite
def put_item_requests(draw: Any, table: str | None = None, for_transaction: bool = False) -> dict[str, Any]:
    table = table or draw(tables)
    ctx = Ctx()
    request: dict[str, Any] = {"TableName": table, "Item": draw(items_for(table))}
    condition = draw(maybe(conditions_for(table)))
    if condition is not None:
        request["ConditionExpression"] = ctx.condition(condition)
    if not for_transaction:
        return_values = draw(freq((30, st.sampled_from([None, "NONE", "ALL_OLD"])), (1, st.just("ALL_NEW"))))
        if return_values:
            request["ReturnValues"] = return_values
    on_failure = draw(st.sampled_from([None, "NONE", "ALL_OLD"]))
    if on_failure:
        request["ReturnValuesOnConditionCheckFailure"] = on_failure
    return ctx.apply(request)


@st.composite
def update_item_requests(
    draw: Any, table: str | None = None, for_transaction: bool = False
) -> dict[str, Any]:
    table = table or draw(tables)
    ctx = Ctx()
    request: dict[str, Any] = {"TableName": table, "Key": draw(keys_for(table))}
    request["UpdateExpression"] = ctx.update(draw(update_clauses_for(table)))
    condition = draw(maybe(conditions_for(table), 2, 1))
    if condition is not None:
        request["ConditionExpression"] = ctx.condition(condition)
    if not for_transaction:
        return_values = draw(st.sampled_from([None, *RETURN_VALUES_UPDATE]))
        if return_values:
            request["ReturnValues"] = return_values
    on_failure = draw(st.sampled_from([None, "NONE", "ALL_OLD"]))
    if on_failure:
        request["ReturnValuesOnConditionCheckFailure"] = on_failure
    return ctx.apply(request)


@st.composite
def delete_item_requests(
    draw: Any, table: str | None = None, for_transaction: bool = False
) -> dict[str, Any]:
    table = table or draw(tables)
    ctx = Ctx()
    request: dict[str, Any] = {"TableName": table, "Key": draw(keys_for(table))}
    condition = draw(maybe(conditions_for(table)))
    if condition is not None:
        request["ConditionExpression"] = ctx.condition(condition)
    if not for_transaction:
        return_values = draw(st.sampled_from([None, "NONE", "ALL_OLD"]))
        if return_values:
            request["ReturnValues"] = return_values
    on_failure = draw(st.sampled_from([None, "NONE", "ALL_OLD"]))
    if on_failure:
        request["ReturnValuesOnConditionCheckFailure"] = on_failure
    return ctx.apply(request)


@st.composite
def condition_check_requests(draw: Any, table: str | None = None) -> dict[str, Any]:
    table = table or draw(tables)
    ctx = Ctx()
    request: dict[str, Any] = {"TableName": table, "Key": draw(keys_for(table))}
    request["ConditionExpression"] = ctx.condition(draw(conditions_for(table)))
    on_failure = draw(st.sampled_from([None, "NONE", "ALL_OLD"]))
    if on_failure:
        request["ReturnValuesOnConditionCheckFailure"] = on_failure
    return ctx.apply(request)


@st.composite
def get_item_requests(draw: Any, table: str | None = None, for_transaction: bool = False) -> dict[str, Any]:
    table = table or draw(tables)
    ctx = Ctx()
    request: dict[str, Any] = {"TableName": table, "Key": draw(keys_for(table))}
    projection = draw(maybe(projections_for(table)))
    if projection is not None:
        request["ProjectionExpression"] = ctx.projection(projection)
    if not for_transaction:
        consistent = draw(st.sampled_from([None, True, False]))
        if consistent is not None:
            request["ConsistentRead"] = consistent
    return ctx.apply(request)


_HASH_VALUES = {
    (BIN, None): freq((20, bin_pk), (1, st.just({"B": b""})), (1, s_values)),
    (HR, "gsi"): freq((20, st.sampled_from(GSI_HASH).map(lambda s: {"S": s})), (1, st.just({"S": ""}))),
    (HR, None): freq((20, hr_pk), (1, n_values)),
    (HR, "lsi"): freq((20, hr_pk), (1, n_values)),
}
_RANGE_VALUES = {
    (HR, "gsi"): freq(
        (20, st.sampled_from([*GSI_RANGE, "😀a", "\ufffe"]).map(lambda s: {"S": s})), (1, n_values)
    ),
    (HR, "lsi"): freq((20, st.sampled_from(LSI_RANGE).map(lambda n: {"N": n})), (1, s_values)),
    (HR, None): freq((20, hr_sk), (1, n_values), (1, s_values)),
}
_RANGE_KINDS = st.sampled_from([None, None, "=", "<", "<=", ">", ">=", "between", "begins"])


def _key_condition(draw: Any, ctx: Ctx, table: str, index: str | None) -> str:
    hash_name, range_name = KEY_ATTRS[(table, index)]
    hash_part = f"{ctx.name(hash_name)} = {ctx.value(draw(_HASH_VALUES[(table, index)]))}"
    if range_name is None:
        # a hash-only table: sometimes (wrongly) add a condition on a non-key attribute
        if draw(st.integers(0, 9)) == 0:
            return f"{hash_part} AND {ctx.name('a')} = {ctx.value(draw(s_values))}"
        return hash_part
    kind = draw(_RANGE_KINDS)
    if kind is None:
        return hash_part
    range_values = _RANGE_VALUES[(table, index)]
    range_path = ctx.name(range_name)
    if kind == "between":
        range_part = (
            f"{range_path} BETWEEN {ctx.value(draw(range_values))} AND {ctx.value(draw(range_values))}"
        )
    elif kind == "begins":
        range_part = f"begins_with({range_path}, {ctx.value(draw(range_values))})"
    else:
        range_part = f"{range_path} {kind} {ctx.value(draw(range_values))}"
    if draw(st.integers(0, 3)) == 0:
        return f"{range_part} AND {hash_part}"
    return f"{hash_part} AND {range_part}"


def _read_options(draw: Any, ctx: Ctx, request: dict[str, Any], table: str, index: str | None) -> None:
    """Limit, FilterExpression, Select / ProjectionExpression and ConsistentRead for Query and Scan."""
    limit = draw(freq((2, st.none()), (2, st.integers(1, 4))))
    if limit is not None:
        request["Limit"] = limit
    if draw(st.integers(0, 2)) == 0:
        # a filter on key attributes is an error on Query; rarely generate one
        request["FilterExpression"] = ctx.condition(draw(conditions_for(table, key_weight=0)))
    elif draw(st.integers(0, 40)) == 0:
        request["FilterExpression"] = ctx.condition(draw(conditions_for(table, key_weight=3)))
    select = draw(
        st.sampled_from(
            [
                None,
                None,
                None,
                "COUNT",
                "ALL_ATTRIBUTES",
                "ALL_PROJECTED_ATTRIBUTES",
                "SPECIFIC_ATTRIBUTES",
                "PROJECTION",
            ]
        )
    )
    if select == "PROJECTION" or (select == "SPECIFIC_ATTRIBUTES" and draw(st.integers(0, 9))):
        request["ProjectionExpression"] = ctx.projection(draw(projections_for(table)))
    if select and select != "PROJECTION":
        if select == "ALL_PROJECTED_ATTRIBUTES" and index is None and draw(st.integers(0, 3)):
            select = "ALL_ATTRIBUTES"  # only valid on an index; keep the invalid combination rare
        request["Select"] = select
    consistent = draw(st.sampled_from([None, None, True, False]))
    if consistent is not None and not (index == "gsi" and consistent and draw(st.integers(0, 3))):
        request["ConsistentRead"] = consistent


@st.composite
def query_requests(draw: Any) -> dict[str, Any]:
    table = draw(tables)
    index = draw(st.sampled_from([None, "gsi", "lsi"])) if table == HR else None
    ctx = Ctx()
    request: dict[str, Any] = {"TableName": table}
    if index:
        request["IndexName"] = index
    request["KeyConditionExpression"] = _key_condition(draw, ctx, table, index)
    _read_options(draw, ctx, request, table, index)
    forward = draw(st.sampled_from([None, True, False]))
    if forward is not None:
        request["ScanIndexForward"] = forward
    return ctx.apply(request)


@st.composite
def scan_requests(draw: Any, parallel: bool = False) -> dict[str, Any]:
    table = draw(tables)
    index = draw(st.sampled_from([None, None, "gsi", "lsi"])) if table == HR else None
    ctx = Ctx()
    request: dict[str, Any] = {"TableName": table}
    if index:
        request["IndexName"] = index
    _read_options(draw, ctx, request, table, index)
    if parallel:
        request["TotalSegments"] = draw(st.integers(1, 4))
    return ctx.apply(request)


def _write_requests(table: str, bad: bool) -> st.SearchStrategy:
    return st.one_of(
        items_for(table, bad).map(lambda item: {"PutRequest": {"Item": item}}),
        keys_for(table, 1000 if bad else 0).map(lambda key: {"DeleteRequest": {"Key": key}}),
    )


def _write_key(write: dict[str, Any], table: str) -> str:
    from decimal import Decimal

    body = write.get("PutRequest", {}).get("Item") or write.get("DeleteRequest", {}).get("Key")
    names = ("pk", "sk") if table == HR else ("pk",)
    key = []
    for name in names:
        ((kind, value),) = body[name].items()
        key.append(repr(Decimal(value)) if kind == "N" else repr(value))
    return "|".join(key)


@st.composite
def batch_write_requests(draw: Any) -> dict[str, Any]:
    """1-2 tables, 1-4 writes each on distinct keys; sometimes exactly one problem in the whole request (an
    invalid item or key, or a duplicate key): which of several problems DynamoDB reports depends on the
    order it visits the tables in (a hash map's): unspecified."""
    chosen = draw(st.lists(tables, min_size=1, max_size=2, unique=True))
    request_items = {}
    for table in chosen:
        request_items[table] = draw(
            st.lists(
                _write_requests(table, False),
                min_size=1,
                max_size=4,
                unique_by=lambda w, t=table: _write_key(w, t),
            )
        )
    problem = draw(st.sampled_from([None] * 8 + ["invalid", "duplicate"]))
    if problem:
        table = draw(st.sampled_from(chosen))
        writes = request_items[table]
        if problem == "invalid":
            writes[draw(st.integers(0, len(writes) - 1))] = draw(_write_requests(table, True))
        else:
            twin = draw(st.sampled_from(writes))
            twin_key = twin.get("PutRequest", {}).get("Item") or twin["DeleteRequest"]["Key"]
            key = {name: value for name, value in twin_key.items() if name in ("pk", "sk")}
            if "sk" in key:  # the same number, spelt the same or differently
                number = key["sk"]["N"]
                key["sk"] = {
                    "N": draw(st.sampled_from([number] if "e" in number.lower() else [number, number + "E0"]))
                }
            writes.insert(
                draw(st.integers(0, len(writes))),
                draw(st.sampled_from([{"DeleteRequest": {"Key": key}}, {"PutRequest": {"Item": key}}])),
            )
    return {"RequestItems": request_items}


@st.composite
def batch_get_requests(draw: Any) -> dict[str, Any]:
    """1-2 tables, 1-4 distinct keys each; a ProjectionExpression on at most one table, and sometimes exactly one
    invalid or duplicate key, in that same table (see batch_write_requests: which table's problem DynamoDB
    reports first is unspecified)."""
    chosen = draw(st.lists(tables, min_size=1, max_size=2, unique=True))
    focus = draw(st.sampled_from(chosen))
    request_items = {}
    for table in chosen:
        ctx = Ctx()
        keys = draw(
            st.lists(
                keys_for(table, 0),
                min_size=1,
                max_size=4,
                unique_by=lambda k, t=table: _write_key({"DeleteRequest": {"Key": k}}, t),
            )
        )
        spec: dict[str, Any] = {"Keys": keys}
        projection = draw(maybe(projections_for(table), 2, 1)) if table == focus else None
        if projection is not None:
            spec["ProjectionExpression"] = ctx.projection(projection)
        consistent = draw(st.sampled_from([None, True, False]))
        if consistent is not None:
            spec["ConsistentRead"] = consistent
        request_items[table] = ctx.apply(spec)
    problem = draw(st.sampled_from([None] * 8 + ["invalid", "duplicate"]))
    if problem:
        keys = request_items[focus]["Keys"]
        if problem == "invalid":
            keys[draw(st.integers(0, len(keys) - 1))] = draw(keys_for(focus, 1000))
        else:
            keys.insert(draw(st.integers(0, len(keys))), dict(draw(st.sampled_from(keys))))
    return {"RequestItems": request_items}


@st.composite
def transact_write_requests(draw: Any) -> dict[str, Any]:
    actions = draw(
        st.lists(
            freq(
                (2, put_item_requests(for_transaction=True).map(lambda r: {"Put": r})),
                (3, update_item_requests(for_transaction=True).map(lambda r: {"Update": r})),
                (1, delete_item_requests(for_transaction=True).map(lambda r: {"Delete": r})),
                (2, condition_check_requests().map(lambda r: {"ConditionCheck": r})),
            ),
            min_size=1,
            max_size=3,
        )
    )
    return {"TransactItems": actions}


@st.composite
def transact_get_requests(draw: Any) -> dict[str, Any]:
    gets = draw(
        st.lists(get_item_requests(for_transaction=True).map(lambda r: {"Get": r}), min_size=1, max_size=4)
    )
    return {"TransactItems": gets}
