"""Bad input -> ValidationError naming the model and the field(s); nothing is written."""

from __future__ import annotations

import pytest

from dynabase.model import MissingKeyError, OneTableArgError, ValidationError

from .conftest import raw_items


def _fails(call, model, *fields):
    with pytest.raises(ValidationError) as info:
        call()
    error = info.value
    assert isinstance(error, ValueError)
    assert error.model == model
    for name in fields:
        assert name in error.fields, (name, error.fields)
        assert name in str(error)
    assert model in str(error)
    return error


def test_missing_required(table):
    User = table.model("User")
    error = _fails(lambda: User.create({"accountId": "acme"}), "User", "email")
    assert error.code == "ValidationError"
    assert raw_items(table) == []


def test_missing_several_required_named_together(table):
    Item = table.model("Item")
    _fails(lambda: Item.create({}), "Item", "group", "seq")


def test_required_cannot_be_nulled_by_update(table):
    Account = table.model("Account")
    acct = Account.create({"name": "Acme"})
    _fails(lambda: Account.update({"id": acct["id"], "name": None}), "Account", "name")
    assert Account.get({"id": acct["id"]})["name"] == "Acme"


def test_enum_miss(table):
    User = table.model("User")
    _fails(lambda: User.create({"accountId": "acme", "email": "a@acme.com", "role": "boss"}), "User", "role")
    assert raw_items(table) == []


def test_regex_miss(table):
    User = table.model("User")
    _fails(lambda: User.create({"accountId": "acme", "email": "not-an-email"}), "User", "email")
    assert raw_items(table) == []


def test_nested_regex_miss_names_path(table):
    User = table.model("User")
    _fails(
        lambda: User.create({"accountId": "acme", "email": "a@acme.com", "address": {"zip": "abc"}}),
        "User",
        "address.zip",
    )
    assert raw_items(table) == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("age", "forty"),
        ("born", "not a date"),
        ("prefs", "text"),
        ("tags", "a"),
        ("photo", 12),
        ("active", ["x"]),
    ],
)
def test_wrong_type(table, field, value):
    User = table.model("User")
    _fails(lambda: User.create({"accountId": "acme", "email": "a@acme.com", field: value}), "User", field)
    assert raw_items(table) == []


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("born", "not a date", "Invalid date 'not a date' for \"born\""),
        ("age", "forty", "Invalid value 'forty' for number field \"age\""),
        ("photo", 12, 'Invalid value 12 for binary field "photo"'),
    ],
)
def test_the_bad_value_is_quoted_once(table, field, value, message):
    # the value is shown as Python writes it (a string in one set of quotes), not wrapped in another set
    error = _fails(
        lambda: table.model("User").create({"accountId": "acme", "email": "a@acme.com", field: value}),
        "User",
        field,
    )
    assert error.fields[field].startswith(message)


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        # a map where a key template needs a scalar, and a non-list for an array field: OneTable fails these as
        # wrong calls (TypeError / ArgumentError), not as validation failures (see tests/onetable_compat)
        ("age", {"n": 1}, "TypeError"),
        ("name", {"first": "x"}, "TypeError"),
        ("history", 5, "ArgumentError"),
    ],
)
def test_wrong_shape_is_an_argument_error(table, field, value, code):
    User = table.model("User")
    with pytest.raises(OneTableArgError) as info:
        User.create({"accountId": "acme", "email": "a@acme.com", field: value})
    assert info.value.code == code
    assert field in str(info.value)
    assert raw_items(table) == []


def test_coercions_like_onetable(table):
    User = table.model("User")
    user = User.create(
        {"accountId": "acme", "email": "c@acme.com", "age": "41", "active": "false", "name": 12}
    )
    assert user["age"] == 41 and user["active"] is False and user["name"] == "12"


def test_unknown_model(table):
    with pytest.raises(ValidationError) as info:
        table.model("Nope")
    assert info.value.model == "Nope" and "Nope" in str(info.value)
    with pytest.raises(AttributeError):
        table.Nope  # noqa: B018


def test_properties_must_be_a_mapping(table):
    with pytest.raises(ValidationError) as info:
        table.model("User").create(["not", "a", "dict"])
    assert info.value.model == "User"


def test_empty_hash_key(table):
    User = table.model("User")
    with pytest.raises(MissingKeyError) as info:
        User.get({"email": "a@acme.com"})
    assert isinstance(info.value, ValidationError)
    assert info.value.model == "User" and "pk" in info.value.fields
    with pytest.raises(MissingKeyError):
        User.find({})


def test_validation_on_update(table):
    User = table.model("User")
    User.create({"accountId": "acme", "email": "u@acme.com"})
    _fails(lambda: User.update({"accountId": "acme", "email": "u@acme.com", "role": "root"}), "User", "role")
    assert table.model("User").get({"accountId": "acme", "email": "u@acme.com"})["role"] == "user"


def test_unknown_properties_are_ignored(table):
    User = table.model("User")
    user = User.create({"accountId": "acme", "email": "x@acme.com", "shoeSize": 44})
    assert "shoeSize" not in user
    assert all("shoeSize" not in item for item in raw_items(table))
