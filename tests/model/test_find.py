"""find: sort-key operators, filters, where clauses, limits, paging cursors, count, projections, indexes."""

from __future__ import annotations

import pytest

from dynabase.model import OneTableArgError, OneTableError


@pytest.fixture
def items(table):
    Item = table.model("Item")
    for seq in range(10):
        Item.create({"group": "g", "seq": seq, "label": f"L{seq}", "color": "red" if seq % 2 else "blue"})
    Item.create({"group": "other", "seq": 1})
    return Item


def seqs(page):
    return [item["seq"] for item in page]


def test_find_all_of_partition(items):
    assert seqs(items.find({"group": "g"})) == list(range(10))


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"begins": "item#00000"}, list(range(10))),
        ({"begins_with": "item#000003"}, [3]),
        ({"between": ["item#000002", "item#000004"]}, [2, 3, 4]),
        ({"<": "item#000002"}, [0, 1]),
        ({"<=": "item#000002"}, [0, 1, 2]),
        ({"=": "item#000005"}, [5]),
        ({">=": "item#000008"}, [8, 9]),
        ({">": "item#000008"}, [9]),
    ],
)
def test_sort_key_operators(items, condition, expected):
    assert seqs(items.find({"group": "g", "sk": condition})) == expected


def test_bad_sort_key_operator(items):
    with pytest.raises(OneTableArgError):
        items.find({"group": "g", "sk": {"like": "x"}})


def test_non_key_properties_filter(items):
    assert seqs(items.find({"group": "g", "color": "red"})) == [1, 3, 5, 7, 9]


def test_where_clause_with_values_and_substitutions(items):
    page = items.find({"group": "g"}, where="(${seq} >= {3}) and (${color} = {blue})")
    assert seqs(page) == [4, 6, 8]
    page = items.find(
        {"group": "g"}, where="${label} IN (@{...labels})", substitutions={"labels": ["L1", "L7"]}
    )
    assert seqs(page) == [1, 7]
    page = items.find(
        {"group": "g"}, where="${color} = @{c} and ${seq} < @{n}", substitutions={"c": "red", "n": 4}
    )
    assert seqs(page) == [1, 3]
    page = items.find({"group": "g"}, where='begins_with(${label}, {"L"}) and ${seq} <> {0}')
    assert len(page) == 9


def test_where_missing_substitution(items):
    with pytest.raises(OneTableError):
        items.find({"group": "g"}, where="${seq} = @{missing}")


def test_reverse_and_limit(items):
    assert seqs(items.find({"group": "g"}, reverse=True, limit=3)) == [9, 8, 7]


def test_paging_with_next_and_prev(items):
    first = items.find({"group": "g"}, limit=4)
    assert seqs(first) == [0, 1, 2, 3]
    assert first.next is not None and first.prev is None
    assert set(first.next) == {"pk", "sk"}
    second = items.find({"group": "g"}, limit=4, next=first.next)
    assert seqs(second) == [4, 5, 6, 7]
    assert second.prev is not None
    third = items.find({"group": "g"}, limit=4, next=second.next)
    assert seqs(third) == [8, 9]
    back = items.find({"group": "g"}, limit=4, prev=second.prev)
    assert seqs(back) == [0, 1, 2, 3]
    forward = items.find({"group": "g"}, limit=4, next=back.next)
    assert seqs(forward) == [4, 5, 6, 7]


def test_walk_all_pages(items):
    seen, cursor = [], None
    while True:
        page = items.find({"group": "g"}, limit=3, next=cursor)
        seen.extend(seqs(page))
        cursor = page.next
        if cursor is None:
            break
    assert seen == list(range(10))


def test_limit_pages_until_enough_matches(items):
    # with a filter, the engine reads `limit` items per page; find keeps paging until limit matches
    page = items.find({"group": "g", "color": "red"}, limit=3)
    assert seqs(page) == [1, 3, 5]


def test_max_pages(items):
    page = items.find({"group": "g"}, limit=2, max_pages=1)
    assert seqs(page) == [0, 1]
    assert page.next is not None


def test_count(items):
    page = items.find({"group": "g"}, count=True)
    assert page.count == 10 and list(page) == []
    page = items.find({"group": "g", "color": "red"}, count=True)
    assert page.count == 5


def test_fields_projection(items):
    page = items.find({"group": "g", "sk": {"begins": "item#000001"}}, fields=["seq", "label"])
    assert page == [{"seq": 1, "label": "L1"}]


def test_select(items):
    page = items.find({"group": "g"}, select="COUNT")
    assert page.count == 10


def test_find_on_gsi(table):
    Account = table.model("Account")
    Account.create({"name": "Zed"})
    Account.create({"name": "Ada"})
    found = Account.find({"name": "Ada"}, index="gs1")
    assert [a["name"] for a in found] == ["Ada"]


def test_find_on_lsi_with_projection(table):
    User = table.model("User")
    for age in (30, 5, 17):
        User.create(
            {"accountId": "acme", "email": f"a{age}@acme.com", "age": age, "name": f"n{age}", "status": "ok"}
        )
    found = User.find({"accountId": "acme"}, index="ls1")
    assert [u["name"] for u in found] == ["n5", "n17", "n30"]
    # ls1 projects name and status (plus keys): other attributes are not there
    assert "age" not in found[0] and found[0]["status"] == "ok"
    older = User.find({"accountId": "acme", "ls1sk": {">=": "user-age#0017"}}, index="ls1")
    assert [u["name"] for u in older] == ["n17", "n30"]


def test_find_follow_on_keys_only_index(table):
    User = table.model("User")
    User.create({"accountId": "a1", "email": "p@a1.com", "name": "Pat", "age": 1})
    User.create({"accountId": "a2", "email": "q@a2.com", "name": "Pat", "age": 2})
    found = User.find({"name": "Pat"}, index="gs2")
    assert sorted(u["age"] for u in found) == [1, 2]


def test_find_returns_other_types_in_partition_through_their_models(table):
    Account = table.model("Account")
    acct = Account.create({"name": "Mix"})
    generic = table.query_items({"pk": f"account#{acct['id']}"}, parse=True)
    assert len(generic) == 1 and generic[0]["name"] == "Mix"


def test_stats(items):
    stats = {}
    items.find({"group": "g", "color": "red"}, stats=stats)
    assert stats["count"] == 5 and stats["scanned"] == 10


def test_scan_segments(items):
    total = []
    for segment in range(3):
        total.extend(items.scan({}, segments=3, segment=segment))
    assert sorted(i["seq"] for i in total if i["group"] == "g") == list(range(10))


def test_scan_limit_and_next(items):
    first = items.scan({}, limit=4)
    assert len(first) == 4 and first.next is not None
    rest = items.scan({}, next=first.next)
    assert len(first) + len(rest) == 11
