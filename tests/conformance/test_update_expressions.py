"""UpdateExpression: SET (arithmetic, if_not_exists, list_append, list indexes), REMOVE, ADD, DELETE, errors."""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error

K = {"pk": {"S": "a"}}
ITEM = {
    **K,
    "s": {"S": "hello"},
    "n": {"N": "5"},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
    "bs": {"BS": [b"a"]},
    "l": {"L": [{"S": "x"}, {"N": "1"}, {"M": {"q": {"S": "r"}}}]},
    "m": {"M": {"k": {"S": "v"}, "nested": {"M": {"deep": {"N": "7"}}}}},
}
NO_ATTRIBUTE = "The provided expression refers to an attribute that does not exist in the item"
BAD_PATH = "The document path provided in the update expression is invalid for update"
WRONG_TYPE = "An operand in the update expression has an incorrect data type"


@pytest.fixture
def table(client, hash_table):
    client.put_item(TableName=hash_table, Item=ITEM)
    return hash_table


def update(client, table, expression, values=None, names=None, return_values="ALL_NEW"):
    kwargs = {}
    if values is not None:
        kwargs["ExpressionAttributeValues"] = values
    if names is not None:
        kwargs["ExpressionAttributeNames"] = names
    response = client.update_item(
        TableName=table, Key=K, UpdateExpression=expression, ReturnValues=return_values, **kwargs
    )
    return response.get("Attributes")


def stored(client, table):
    return client.get_item(TableName=table, Key=K, ConsistentRead=True)["Item"]


def invalid(client, table, expression, message, values=None, names=None):
    assert_client_error(
        lambda: update(client, table, expression, values, names),
        "ValidationException",
        message,
    )
    assert stored(client, table) == ITEM


def V(**values):
    return {f":{k}": v for k, v in values.items()}


def sorted_set(value):
    ((type_, members),) = value.items()
    return {type_: sorted(members, key=float) if type_ == "NS" else sorted(members)}


# -- SET ---------------------------------------------------------------------------------------------------------


def test_set_new_attribute(client, table):
    assert update(client, table, "SET x = :v", V(v={"S": "new"}), return_values="UPDATED_NEW") == {
        "x": {"S": "new"}
    }
    assert stored(client, table) == {**ITEM, "x": {"S": "new"}}


def test_set_replaces_value_and_type(client, table):
    update(client, table, "SET n = :v", V(v={"S": "now a string"}))
    assert stored(client, table)["n"] == {"S": "now a string"}


def test_set_multiple(client, table):
    update(client, table, "SET a = :a, b = :b", V(a={"N": "1"}, b={"N": "2"}))
    item = stored(client, table)
    assert (item["a"], item["b"]) == ({"N": "1"}, {"N": "2"})


def test_set_copy_attribute(client, table):
    update(client, table, "SET dup = m")
    assert stored(client, table)["dup"] == ITEM["m"]


def test_set_reads_original_item(client, table):
    # every operand is evaluated against the item as it was before the update
    result = update(client, table, "SET n = :v, x = n", V(v={"N": "1"}), return_values="UPDATED_NEW")
    assert result == {"n": {"N": "1"}, "x": {"N": "5"}}


def test_set_cannot_read_attribute_set_in_same_update(client, table):
    invalid(client, table, "SET x = :v, y = x", NO_ATTRIBUTE, V(v={"N": "1"}))


@pytest.mark.parametrize(
    "expression, value, result",
    [
        ("SET n = n + :v", {"N": "2.5"}, "7.5"),
        ("SET n = n - :v", {"N": "10"}, "-5"),
        ("SET n = :v - n", {"N": "1"}, "-4"),
        ("SET n = :v + n", {"N": "-5"}, "0"),
        ("SET n = n + :v", {"N": "0.1"}, "5.1"),
        ("SET n = n + :v", {"N": "1e2"}, "105"),
        ("SET n = n - :v", {"N": "4.9999"}, "0.0001"),
    ],
)
def test_set_arithmetic(client, table, expression, value, result):
    assert update(client, table, expression, V(v=value), return_values="UPDATED_NEW") == {"n": {"N": result}}


@pytest.mark.local_quirk
@pytest.mark.parametrize(
    "expression, value, result",
    [
        ("SET n = n - :v", {"N": "5.000"}, "0.000"),
        ("SET n = n + :v", {"N": "0.10"}, "5.10"),
        ("SET n = n + :v", {"N": "-5.0"}, "0.0"),
        ("ADD n :v", {"N": "-5.000"}, "0.000"),
        ("ADD n :v", {"N": "5.000"}, "10.000"),
        ("SET x = :v", {"N": "1.50"}, "1.50"),
        ("ADD x :v", {"N": "1.50"}, "1.50"),
        ("SET x = if_not_exists(x, :v)", {"N": "1.50"}, "1.50"),
    ],
)
def test_update_numbers_keep_their_scale(client, table, expression, value, result):
    # DynamoDB Local does not normalise numbers written by UpdateItem: values are stored as given and
    # arithmetic results keep the scale of the operands (Java BigDecimal), unlike PutItem
    attribute = expression.split()[1]
    update(client, table, expression, V(v=value))
    assert stored(client, table)[attribute] == {"N": result}


def test_set_arithmetic_on_two_values(client, table):
    assert update(
        client, table, "SET x = :a + :b", V(a={"N": "1"}, b={"N": "2"}), return_values="UPDATED_NEW"
    ) == {"x": {"N": "3"}}


def test_set_arithmetic_on_two_attributes(client, table):
    assert update(client, table, "SET x = n + m.nested.deep", return_values="UPDATED_NEW") == {
        "x": {"N": "12"}
    }


def test_set_arithmetic_chain_is_syntax_error(client, table):
    invalid(
        client,
        table,
        "SET n = n + n + n",
        'Invalid UpdateExpression: Syntax error; token: "+", near: "n + n"',
    )


def test_set_arithmetic_on_missing_attribute(client, table):
    invalid(client, table, "SET x = nope + :v", NO_ATTRIBUTE, V(v={"N": "1"}))


def test_set_arithmetic_on_string_attribute(client, table):
    invalid(client, table, "SET s = s + :v", WRONG_TYPE, V(v={"N": "1"}))


def test_set_arithmetic_with_string_value(client, table):
    invalid(
        client,
        table,
        "SET n = n + :v",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, "
        "operand type: S",
        V(v={"S": "x"}),
    )


@pytest.mark.parametrize(
    "value", ["99999999999999999999999999999999999999", "0.00000000000000000000000000000000000001"]
)
def test_set_arithmetic_precision_overflow(client, table, value):
    invalid(
        client, table, "SET n = n + :v", "DynamoDB only supports precision up to 38 digits", V(v={"N": value})
    )


def test_if_not_exists_missing(client, table):
    assert update(
        client, table, "SET x = if_not_exists(x, :v)", V(v={"N": "1"}), return_values="UPDATED_NEW"
    ) == {"x": {"N": "1"}}


def test_if_not_exists_present(client, table):
    assert update(
        client, table, "SET n = if_not_exists(n, :v)", V(v={"N": "1"}), return_values="UPDATED_NEW"
    ) == {"n": {"N": "5"}}


def test_if_not_exists_other_attribute(client, table):
    result = update(
        client, table, "SET x = if_not_exists(n, :v)", V(v={"N": "1"}), return_values="UPDATED_NEW"
    )
    assert result == {"x": {"N": "5"}}


def test_if_not_exists_in_arithmetic(client, table):
    result = update(
        client,
        table,
        "SET x = if_not_exists(x, :zero) + :one",
        V(zero={"N": "0"}, one={"N": "1"}),
        return_values="UPDATED_NEW",
    )
    assert result == {"x": {"N": "1"}}
    result = update(
        client, table, "SET x = :v + if_not_exists(n, :v)", V(v={"N": "1"}), return_values="UPDATED_NEW"
    )
    assert result == {"x": {"N": "6"}}


def test_if_not_exists_nested_path(client, table):
    update(client, table, "SET m.k = if_not_exists(m.nope, :v)", V(v={"N": "1"}))
    assert stored(client, table)["m"] == {"M": {"k": {"N": "1"}, "nested": {"M": {"deep": {"N": "7"}}}}}


def test_if_not_exists_requires_path(client, table):
    invalid(
        client,
        table,
        "SET x = if_not_exists(:v, x)",
        "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists",
        V(v={"N": "1"}),
    )


def test_list_append_at_end(client, table):
    update(client, table, "SET l = list_append(l, :v)", V(v={"L": [{"S": "y"}]}))
    assert stored(client, table)["l"] == {"L": [*ITEM["l"]["L"], {"S": "y"}]}


def test_list_append_at_start(client, table):
    update(client, table, "SET l = list_append(:v, l)", V(v={"L": [{"S": "y"}, {"S": "z"}]}))
    assert stored(client, table)["l"] == {"L": [{"S": "y"}, {"S": "z"}, *ITEM["l"]["L"]]}


def test_list_append_two_values(client, table):
    result = update(
        client,
        table,
        "SET x = list_append(:a, :b)",
        V(a={"L": [{"N": "1"}]}, b={"L": []}),
        return_values="UPDATED_NEW",
    )
    assert result == {"x": {"L": [{"N": "1"}]}}


def test_list_append_to_missing_attribute(client, table):
    invalid(client, table, "SET x = list_append(x, :v)", NO_ATTRIBUTE, V(v={"L": [{"S": "y"}]}))


def test_list_append_with_if_not_exists(client, table):
    result = update(
        client,
        table,
        "SET x = list_append(if_not_exists(x, :empty), :v)",
        V(empty={"L": []}, v={"L": [{"S": "y"}]}),
        return_values="UPDATED_NEW",
    )
    assert result == {"x": {"L": [{"S": "y"}]}}


def test_list_append_non_list_value(client, table):
    invalid(
        client,
        table,
        "SET l = list_append(l, :v)",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: "
        "list_append, operand type: S",
        V(v={"S": "y"}),
    )


def test_list_append_non_list_attribute(client, table):
    invalid(client, table, "SET s = list_append(s, :v)", WRONG_TYPE, V(v={"L": []}))


def test_list_append_one_operand(client, table):
    invalid(
        client,
        table,
        "SET x = list_append(:v)",
        "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: "
        "list_append, number of operands: 1",
        V(v={"L": []}),
    )


def test_set_list_element(client, table):
    update(client, table, "SET l[1] = :v", V(v={"S": "new"}))
    assert stored(client, table)["l"] == {"L": [{"S": "x"}, {"S": "new"}, {"M": {"q": {"S": "r"}}}]}


def test_set_list_index_at_end_appends(client, table):
    update(client, table, "SET l[3] = :v", V(v={"S": "new"}))
    assert stored(client, table)["l"]["L"][-1] == {"S": "new"}


def test_set_list_index_beyond_end_appends(client, table):
    update(client, table, "SET l[10] = :v", V(v={"S": "new"}))
    assert stored(client, table)["l"] == {"L": [*ITEM["l"]["L"], {"S": "new"}]}


def test_set_several_indexes_beyond_end_append_in_index_order(client, table):
    update(client, table, "SET l[11] = :a, l[10] = :b", V(a={"S": "eleven"}, b={"S": "ten"}))
    assert stored(client, table)["l"]["L"][3:] == [{"S": "ten"}, {"S": "eleven"}]


def test_set_two_list_elements(client, table):
    update(client, table, "SET l[0] = :v, l[1] = :v", V(v={"N": "9"}))
    assert stored(client, table)["l"]["L"][:2] == [{"N": "9"}, {"N": "9"}]


def test_set_inside_list_element(client, table):
    update(client, table, "SET l[2].q = :v", V(v={"S": "new"}))
    assert stored(client, table)["l"]["L"][2] == {"M": {"q": {"S": "new"}}}


def test_set_map_key(client, table):
    update(client, table, "SET m.k = :v, m.added = :v", V(v={"S": "new"}))
    assert stored(client, table)["m"] == {
        "M": {"k": {"S": "new"}, "added": {"S": "new"}, "nested": {"M": {"deep": {"N": "7"}}}}
    }


def test_set_deep_map_key(client, table):
    update(client, table, "SET m.nested.deep = :v", V(v={"N": "8"}))
    assert stored(client, table)["m"]["M"]["nested"] == {"M": {"deep": {"N": "8"}}}


@pytest.mark.parametrize("path", ["m.nope.deeper", "nope.deeper", "nope[0]", "s[0]", "s.x", "l.x", "m[0]"])
def test_set_invalid_document_path(client, table, path):
    invalid(client, table, f"SET {path} = :v", BAD_PATH, V(v={"S": "new"}))


def test_set_names_and_reserved_words(client, table):
    result = update(
        client,
        table,
        "SET #s = :v, #d = :v",
        V(v={"N": "9"}),
        {"#s": "status", "#d": "a.b"},
        return_values="UPDATED_NEW",
    )
    assert result == {"status": {"N": "9"}, "a.b": {"N": "9"}}


def test_set_reserved_word(client, table):
    invalid(
        client,
        table,
        "SET Status = :v",
        "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: Status",
        V(v={"N": "9"}),
    )


def test_set_attribute_names_with_underscore_and_digits(client, table):
    assert update(client, table, "SET n_1 = :v", V(v={"N": "9"}), return_values="UPDATED_NEW") == {
        "n_1": {"N": "9"}
    }


def test_keywords_case_insensitive(client, table):
    assert update(client, table, "set x = :v remove s", V(v={"N": "1"}), return_values="UPDATED_NEW") == {
        "x": {"N": "1"}
    }


def test_size_not_allowed_in_update(client, table):
    invalid(
        client,
        table,
        "SET x = size(s)",
        "Invalid UpdateExpression: The function is not allowed in an update expression; function: size",
    )


def test_unknown_function_in_update(client, table):
    invalid(client, table, "SET x = foo(n)", "Invalid UpdateExpression: Invalid function name; function: foo")


def test_set_key_attribute(client, table):
    invalid(
        client,
        table,
        "SET pk = :v",
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
        V(v={"S": "b"}),
    )


# -- REMOVE ------------------------------------------------------------------------------------------------------


def test_remove_attributes(client, table):
    assert update(client, table, "REMOVE s, n", return_values="UPDATED_OLD") == {
        "s": ITEM["s"],
        "n": ITEM["n"],
    }
    item = stored(client, table)
    assert "s" not in item and "n" not in item


def test_remove_missing_attribute(client, table):
    assert update(client, table, "REMOVE nope", return_values="UPDATED_OLD") is None
    assert stored(client, table) == ITEM


def test_remove_list_element_shifts(client, table):
    update(client, table, "REMOVE l[0]")
    assert stored(client, table)["l"] == {"L": [{"N": "1"}, {"M": {"q": {"S": "r"}}}]}


def test_remove_several_list_elements(client, table):
    update(client, table, "REMOVE l[2], l[0]")
    assert stored(client, table)["l"] == {"L": [{"N": "1"}]}


def test_remove_list_index_beyond_end(client, table):
    update(client, table, "REMOVE l[5]")
    assert stored(client, table) == ITEM


def test_remove_and_set_use_original_indexes(client, table):
    update(client, table, "REMOVE l[0] SET l[1] = :v", V(v={"S": "new"}))
    assert stored(client, table)["l"] == {"L": [{"S": "new"}, {"M": {"q": {"S": "r"}}}]}


def test_remove_map_key(client, table):
    update(client, table, "REMOVE m.k, m.nope")
    assert stored(client, table)["m"] == {"M": {"nested": {"M": {"deep": {"N": "7"}}}}}


def test_remove_last_map_key_leaves_empty_map(client, table):
    update(client, table, "REMOVE m.k, m.nested")
    assert stored(client, table)["m"] == {"M": {}}


@pytest.mark.parametrize("path", ["nope.x", "s.x"])
def test_remove_invalid_path(client, table, path):
    invalid(client, table, f"REMOVE {path}", BAD_PATH)


def test_remove_key_attribute(client, table):
    invalid(
        client,
        table,
        "REMOVE pk",
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
    )


# -- ADD ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("delta, result", [("3", "8"), ("-10.5", "-5.5"), ("0", "5")])
def test_add_number(client, table, delta, result):
    assert update(client, table, "ADD n :v", V(v={"N": delta}), return_values="UPDATED_NEW") == {
        "n": {"N": result}
    }


def test_add_number_creates_attribute(client, table):
    assert update(client, table, "ADD x :v", V(v={"N": "3"}), return_values="UPDATED_NEW") == {
        "x": {"N": "3"}
    }


def test_add_creates_item(client, hash_table):
    update(client, hash_table, "ADD hits :one", V(one={"N": "1"}))
    assert stored(client, hash_table) == {**K, "hits": {"N": "1"}}


def test_add_several(client, table):
    assert update(client, table, "ADD n :v, x :v", V(v={"N": "1"}), return_values="UPDATED_NEW") == {
        "n": {"N": "6"},
        "x": {"N": "1"},
    }


@pytest.mark.parametrize(
    "attribute, value, result",
    [
        ("ss", {"SS": ["c", "a"]}, {"SS": ["a", "b", "c"]}),
        ("ns", {"NS": ["3", "1.0"]}, {"NS": ["1", "2", "3"]}),
        ("bs", {"BS": [b"b"]}, {"BS": [b"a", b"b"]}),
        ("new_set", {"SS": ["q"]}, {"SS": ["q"]}),
    ],
)
def test_add_to_set(client, table, attribute, value, result):
    update(client, table, f"ADD {attribute} :v", V(v=value))
    assert sorted_set(stored(client, table)[attribute]) == result


def test_add_nested_number(client, table):
    update(client, table, "ADD m.hits :v, l[1] :v", V(v={"N": "1"}))
    item = stored(client, table)
    assert item["m"]["M"]["hits"] == {"N": "1"}
    assert item["l"]["L"][1] == {"N": "2"}


@pytest.mark.parametrize(
    "attribute, value",
    [("ss", {"NS": ["1"]}), ("n", {"SS": ["a"]}), ("l[0]", {"N": "1"}), ("s", {"NS": ["1"]})],
)
def test_add_type_mismatch(client, table, attribute, value):
    invalid(client, table, f"ADD {attribute} :v", WRONG_TYPE, V(v=value))


@pytest.mark.parametrize(
    "attribute, value, type_name",
    [
        ("s", {"S": "a"}, "STRING"),
        ("x", {"S": "a"}, "STRING"),
        ("l", {"L": []}, "LIST"),
        ("m", {"M": {}}, "MAP"),
        ("x", {"BOOL": True}, "BOOLEAN"),
    ],
)
def test_add_unsupported_operand(client, table, attribute, value, type_name):
    invalid(
        client,
        table,
        f"ADD {attribute} :v",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: "
        f"{type_name}, typeSet: ALLOWED_FOR_ADD_OPERAND",
        V(v=value),
    )


# -- DELETE ------------------------------------------------------------------------------------------------------


def test_delete_from_set(client, table):
    assert update(client, table, "DELETE ss :v", V(v={"SS": ["a"]}), return_values="UPDATED_NEW") == {
        "ss": {"SS": ["b"]}
    }


def test_delete_number_from_set_by_value(client, table):
    update(client, table, "DELETE ns :v", V(v={"NS": ["1.0"]}))
    assert stored(client, table)["ns"] == {"NS": ["2"]}


def test_delete_missing_members(client, table):
    update(client, table, "DELETE ss :v", V(v={"SS": ["zz"]}))
    assert sorted_set(stored(client, table)["ss"]) == {"SS": ["a", "b"]}


@pytest.mark.parametrize("attribute, value", [("ss", {"SS": ["a", "b"]}), ("bs", {"BS": [b"a"]})])
def test_delete_last_members_removes_attribute(client, table, attribute, value):
    update(client, table, f"DELETE {attribute} :v", V(v=value))
    assert attribute not in stored(client, table)


def test_delete_from_missing_attribute(client, table):
    update(client, table, "DELETE nope :v", V(v={"SS": ["a"]}))
    assert stored(client, table) == ITEM


@pytest.mark.parametrize("attribute, value", [("ss", {"NS": ["1"]}), ("s", {"SS": ["h"]})])
def test_delete_type_mismatch(client, table, attribute, value):
    invalid(client, table, f"DELETE {attribute} :v", WRONG_TYPE, V(v=value))


@pytest.mark.parametrize("value, type_name", [({"N": "1"}, "NUMBER"), ({"S": "a"}, "STRING")])
def test_delete_unsupported_operand(client, table, value, type_name):
    invalid(
        client,
        table,
        "DELETE ss :v",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: "
        f"{type_name}, typeSet: ALLOWED_FOR_DELETE_OPERAND",
        V(v=value),
    )


# -- combined clauses --------------------------------------------------------------------------------------------


def test_all_clauses(client, table):
    result = update(
        client,
        table,
        "SET n = :v, s = :v REMOVE l ADD ns :w DELETE ss :x",
        V(v={"N": "1"}, w={"NS": ["9"]}, x={"SS": ["a"]}),
        return_values="UPDATED_NEW",
    )
    assert {k: sorted_set(v) if k.endswith("s") and k != "s" else v for k, v in result.items()} == {
        "n": {"N": "1"},
        "s": {"N": "1"},
        "ns": {"NS": ["1", "2", "9"]},
        "ss": {"SS": ["b"]},
    }
    assert "l" not in stored(client, table)


def test_clauses_in_any_order(client, table):
    update(client, table, "REMOVE s SET x = :v", V(v={"N": "1"}))
    item = stored(client, table)
    assert "s" not in item and item["x"] == {"N": "1"}


@pytest.mark.parametrize("clause", ["SET", "REMOVE"])
def test_clause_twice(client, table, clause):
    expression = "SET n = :v SET s = :v" if clause == "SET" else "REMOVE n REMOVE s"
    invalid(
        client,
        table,
        expression,
        f'Invalid UpdateExpression: The "{clause}" section can only be used once in an update expression;',
        V(v={"N": "1"}) if clause == "SET" else None,
    )


@pytest.mark.parametrize(
    "expression, one, two",
    [
        ("SET n = :v, n = :v", "[n]", "[n]"),
        ("SET n = :v REMOVE n", "[n]", "[n]"),
        ("ADD n :v SET n = :v", "[n]", "[n]"),
        ("SET m = :v, m.k = :v", "[m]", "[m, k]"),
        ("SET m.k = :v, m = :v", "[m, k]", "[m]"),
        ("SET l[0] = :v, l[0] = :v", "[l, [0]]", "[l, [0]]"),
        ("SET l[0] = :v REMOVE l[0]", "[l, [0]]", "[l, [0]]"),
    ],
)
def test_overlapping_paths(client, table, expression, one, two):
    invalid(
        client,
        table,
        expression,
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these "
        f"paths; path one: {one}, path two: {two}",
        V(v={"N": "1"}),
    )


# -- syntax ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression, token, near",
    [
        ("SET n :v", ":v", "n :v"),
        ("SET", "<EOF>", "SET"),
        ("FOO n = :v", "FOO", "FOO n"),
        ("SET n = :v,", "<EOF>", ","),
        ("REMOVE n = :v", "=", "n = :v"),
        ("ADD n", "<EOF>", "n"),
        ("SET n = :v ADD", "<EOF>", "ADD"),
        ("SET 1n = :v", "1", "SET 1n"),
        ("SET a-b = :v", "-", "a-b"),
    ],
)
def test_syntax_errors(client, table, expression, token, near):
    values = V(v={"N": "1"}) if ":v" in expression else None
    invalid(
        client,
        table,
        expression,
        f'Invalid UpdateExpression: Syntax error; token: "{token}", near: "{near}"',
        values,
    )


def test_empty_update_expression(client, table):
    invalid(client, table, "", "Invalid UpdateExpression: The expression can not be empty;")


def test_update_undefined_value(client, table):
    invalid(
        client,
        table,
        "SET n = :nope",
        "Invalid UpdateExpression: An expression attribute value used in expression is not defined; "
        "attribute value: :nope",
        V(v={"N": "1"}),
    )


def test_update_undefined_name(client, table):
    invalid(
        client,
        table,
        "SET #nope = :v",
        "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; "
        "attribute name: #nope",
        V(v={"N": "1"}),
    )


def test_update_unused_name(client, table):
    invalid(
        client,
        table,
        "SET #n = :v",
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#m}",
        V(v={"N": "1"}),
        {"#n": "n", "#m": "m"},
    )


def test_update_unused_value(client, table):
    invalid(
        client,
        table,
        "REMOVE n",
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}",
        V(v={"N": "1"}),
    )


def test_names_and_values_shared_by_update_and_condition(client, table):
    client.update_item(
        TableName=table,
        Key=K,
        UpdateExpression="SET #n = #n + :one",
        ConditionExpression="#n = :five",
        ExpressionAttributeNames={"#n": "n"},
        ExpressionAttributeValues={":one": {"N": "1"}, ":five": {"N": "5"}},
    )
    assert stored(client, table)["n"] == {"N": "6"}


def test_failed_condition_leaves_item_unchanged(client, table):
    assert_client_error(
        lambda: client.update_item(
            TableName=table,
            Key=K,
            UpdateExpression="SET n = :v REMOVE s",
            ConditionExpression="n = :v",
            ExpressionAttributeValues={":v": {"N": "0"}},
        ),
        "ConditionalCheckFailedException",
        "The conditional request failed",
    )
    assert stored(client, table) == ITEM


def test_runtime_error_leaves_item_unchanged(client, table):
    # the first action is valid, the second fails when applied: nothing is written
    invalid(client, table, "SET x = :v, y = nope + :v", NO_ATTRIBUTE, V(v={"N": "1"}))
