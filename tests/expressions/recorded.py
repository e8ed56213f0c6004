"""Expressions and DynamoDB Local's answers to them, recorded from DynamoDB Local 3.3.1 (2026-05-28).

Each case ran against ITEM (put afresh) with the placeholders it mentions taken from NAMES and VALUES:
conditions through DeleteItem's ConditionExpression (True/False or the error), updates through UpdateItem
with ReturnValues ALL_NEW, projections through GetItem, key conditions through Query on a table whose key is
pk (S, hash) and sk (N, range). Regenerate rather than edit by hand.
"""

# ruff: noqa: E501

ITEM = {
    "a": {"N": "3"},
    "b": {"S": "abc"},
    "bs": {"BS": [b"\x01"]},
    "c": {"B": b"\x01\x02"},
    "e": {"S": "😀"},
    "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
    "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
    "nl": {"NULL": True},
    "ns": {"NS": ["1", "2"]},
    "pk": {"S": "k"},
    "ss": {"SS": ["a", "b"]},
    "t": {"BOOL": True},
}

VALUES = {
    ":b": {"B": b"\x01"},
    ":bad": {"S": "Q"},
    ":big": {"N": "99999999999999999999999999999999999999"},
    ":bs": {"BS": [b"\x01"]},
    ":l": {"L": [{"S": "a"}]},
    ":m": {"M": {"x": {"N": "1"}}},
    ":n1": {"N": "1"},
    ":n3": {"N": "3.0"},
    ":n5": {"N": "5"},
    ":ns": {"NS": ["2", "7"]},
    ":nul": {"NULL": True},
    ":s": {"S": "ab"},
    ":sa": {"S": "a"},
    ":ss": {"SS": ["a", "c"]},
    ":ssab": {"SS": ["b", "a"]},
    ":t": {"BOOL": True},
    ":ty": {"S": "SS"},
}

NAMES = {"#a": "a", "#m": "m", "#r": "name", "#x": "x"}

CONDITION_CASES = [
    ("a = :n3", True),
    ("a <> :n3", False),
    ("zz <> :n1", True),
    ("zz = :n1", False),
    ("NOT zz = :n1", True),
    ("zz <> zz2", True),
    ("a < :n5", True),
    ("a < :s", False),
    ("b > :sa", True),
    ("b BETWEEN :sa AND :s", False),
    ("a BETWEEN :n1 AND :n5", True),
    ("a BETWEEN :s AND :s", False),
    ("ss = :ssab", True),
    ("ss = :ss", False),
    ("ns = :ns", False),
    ("l[2][1] = :n1", False),
    ("m.y.z = :s", False),
    ("m.x IN (:n5, :n1)", True),
    ("a IN (:s, :n3)", True),
    ("zz IN (:s)", False),
    ("attribute_exists(m.y.z)", True),
    ("attribute_not_exists(m.y.q)", True),
    ("attribute_type(ss, :ty)", True),
    ("attribute_type(zz, :ty)", False),
    ("begins_with(b, :sa)", True),
    ("begins_with(c, :b)", True),
    ("begins_with(b, :b)", False),
    ("begins_with(a, :sa)", False),
    ("contains(b, :s)", True),
    ("contains(ss, :sa)", True),
    ("contains(ns, :n1)", True),
    ("contains(bs, :b)", True),
    ("contains(l, :sa)", True),
    ("contains(l, :l)", False),
    ("contains(c, :b)", True),
    ("contains(a, :n3)", False),
    ("size(b) = :n3", True),
    ("size(e) = :n1", False),
    ("size(ss) < :n3", True),
    ("size(a) = :n1", False),
    ("size(a) <> :n1", True),
    ("size(l) > :n3", True),
    ("size(m) = :n3", True),
    ("size(c) = :n1", False),
    ("size(:s) = :n1", False),
    ("size(:l) = :n1", True),
    ("a = :n3 AND b = :s OR t = :t", True),
    ("NOT a = :n3 AND b = :s", False),
    ("NOT (a = :n3 AND b = :s)", True),
    ("(a = :n3 OR b = :s) AND t = :t", True),
    ("#a = :n3", True),
    ("#m.#x = :n1", True),
    (
        "t < :t",
        {
            "error": "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
            "function: <, operand type: BOOL"
        },
    ),
    (
        "a < :l",
        {
            "error": "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
            "function: <, operand type: L"
        },
    ),
    (
        "a BETWEEN :n5 AND :n1",
        {
            "error": "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or "
            "equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: "
            "AttributeValue: {N:1}"
        },
    ),
    (
        "a BETWEEN :n1 AND :s",
        {
            "error": "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper "
            "bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: "
            "{S:ab}"
        },
    ),
    ("a BETWEEN :b AND :b", False),
    (
        "begins_with(a, :n1)",
        {
            "error": "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
            "function: begins_with, operand type: N"
        },
    ),
    (
        "begins_with(:n1, :sa)",
        {
            "error": "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
            "function: begins_with, operand type: N"
        },
    ),
    (
        "size(:n1) = :n1",
        {
            "error": "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
            "function: size, operand type: N"
        },
    ),
    (
        "size(size(a)) = :n1",
        {
            "error": "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
            "function: size, operand type: N"
        },
    ),
    (
        "attribute_type(a, :bad)",
        {
            "error": "Invalid ConditionExpression: Invalid attribute type name found; type: Q, valid types: "
            "{N,BS,L,B,NULL,M,S,SS,NS,BOOL}"
        },
    ),
    (
        "attribute_type(a, :n1)",
        {
            "error": "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
            "function: attribute_type, operand type: N"
        },
    ),
    (
        "attribute_type(a, b)",
        {
            "error": "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
            "function: attribute_type, operand type: "
            "{BS,M,B,FS,HD,FLOAT,INTSET,NULL,DOUBLE,DICT,L,INT,S,NS,DOUBLESET,BOOL,DECIMALSET,SS,N,DECIMAL,HDS}"
        },
    ),
    (
        "attribute_exists(:s)",
        {
            "error": "Invalid ConditionExpression: Operator or function requires a document path; operator or "
            "function: attribute_exists"
        },
    ),
    (
        "a = a",
        {
            "error": "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for "
            "this operator or function; operator: =, first operand: [a]"
        },
    ),
    (
        "m.x = #m.#x",
        {
            "error": "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for "
            "this operator or function; operator: =, first operand: [m, x]"
        },
    ),
    (
        "contains(l, l)",
        {
            "error": "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for "
            "this operator or function; operator: contains, first operand: [l]"
        },
    ),
    (
        "a IN (b, a)",
        {
            "error": "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for "
            "this operator or function; operator: IN, first operand: [a]"
        },
    ),
    (
        "begins_with(a)",
        {
            "error": "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or "
            "function: begins_with, number of operands: 1"
        },
    ),
    (
        "contains(a, b, b)",
        {
            "error": "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or "
            "function: contains, number of operands: 3"
        },
    ),
    (
        "size(a)",
        {
            "error": "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; "
            "function: size"
        },
    ),
    (
        "attribute_exists(a) = :t",
        {
            "error": "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; "
            "function: attribute_exists"
        },
    ),
    ("foo(a)", {"error": "Invalid ConditionExpression: Invalid function name; function: foo"}),
    (
        "if_not_exists(a, :n1) = :n1",
        {
            "error": "Invalid ConditionExpression: The function is not allowed in a condition expression; function: "
            "if_not_exists"
        },
    ),
    (
        "name = :s",
        {
            "error": "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: name"
        },
    ),
    ("#r = :s", False),
    (
        "a = :zz",
        {
            "error": "Invalid ConditionExpression: An expression attribute value used in expression is not defined; "
            "attribute value: :zz"
        },
    ),
    (
        "#zz = :s",
        {
            "error": "Invalid ConditionExpression: An expression attribute name used in the document path is not "
            "defined; attribute name: #zz"
        },
    ),
    (
        "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g = :s",
        {
            "error": "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: "
            "33"
        },
    ),
    (
        "a[2147483648] = :s",
        {
            "error": "Invalid ConditionExpression: List index is not within the allowable range; index: "
            "[2147483648]"
        },
    ),
    ("((a)) = :n1", {"error": "Invalid ConditionExpression: The expression has redundant parentheses;"}),
    ("((a = :n1))", {"error": "Invalid ConditionExpression: The expression has redundant parentheses;"}),
    ("(a) = :n1", False),
    ("(a = :n1)", False),
    ("size((a)) = :n1", False),
    ("a = :n1 b", {"error": 'Invalid ConditionExpression: Syntax error; token: "b", near: ":n1 b"'}),
    ("a ! :n1", {"error": 'Invalid ConditionExpression: Syntax error; token: "!", near: "a ! :n1"'}),
    ("a = 'x'", {"error": 'Invalid ConditionExpression: Syntax error; token: "\'", near: "= \'x"'}),
    ("a IN ()", {"error": 'Invalid ConditionExpression: Syntax error; token: ")", near: "()"'}),
    ("a.:s = :n1", {"error": "Invalid ConditionExpression: Internal server error"}),
    ("", {"error": "Invalid ConditionExpression: The expression can not be empty;"}),
    ("   ", {"error": 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "   "'}),
    ("a = :n1 AND", {"error": 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"'}),
    ("(a = :n1", {"error": 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":n1"'}),
    (
        "a BETWEEN :n1 OR :n5",
        {"error": 'Invalid ConditionExpression: Syntax error; token: "OR", near: ":n1 OR :n5"'},
    ),
    ("a[01] = :n1", {"error": 'Invalid ConditionExpression: Syntax error; token: "1", near: "01]"'}),
    (
        "a.remove = :n1",
        {"error": 'Invalid ConditionExpression: Syntax error; token: "remove", near: ".remove ="'},
    ),
    ("SIZE(a) = :n1", {"error": "Invalid ConditionExpression: Invalid function name; function: SIZE"}),
    ("a = :n1 aNd nOt b = :s", False),
    ("((a)) x", {"error": 'Invalid ConditionExpression: Syntax error; token: "x", near: ") x"'}),
    ("((a)) = :n1 x", {"error": "Invalid ConditionExpression: The expression has redundant parentheses;"}),
    ("size(((a))) x", {"error": "Invalid ConditionExpression: The expression has redundant parentheses;"}),
    ("size(((a)) x", {"error": 'Invalid ConditionExpression: Syntax error; token: "x", near: ") x"'}),
    (
        "a IN ((:n1), ((:n1))",
        {"error": "Invalid ConditionExpression: The expression has redundant parentheses;"},
    ),
    ("😀 = :n1", {"error": 'Invalid ConditionExpression: Syntax error; token: "\ud83d", near: "😀"'}),
    ("aé = :n1", {"error": 'Invalid ConditionExpression: Syntax error; token: "é", near: "aé ="'}),
]

UPDATE_CASES = [
    (
        "SET a = :n5",
        {
            "a": {"N": "5"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET a = a + :n1",
        {
            "a": {"N": "4"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET a = :n1 - a",
        {
            "a": {"N": "-2"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET zz = a - :n3",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
            "zz": {"N": "0.0"},
        },
    ),
    ("SET a = b + :n1", {"error": "An operand in the update expression has an incorrect data type"}),
    (
        "SET a = zz + :n1",
        {"error": "The provided expression refers to an attribute that does not exist in the item"},
    ),
    (
        "SET a = :s + :n1",
        {
            "error": "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
            "function: +, operand type: S"
        },
    ),
    ("SET q = :big + :big", {"error": "DynamoDB only supports precision up to 38 digits"}),
    (
        "SET q = if_not_exists(zz, :n1)",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "q": {"N": "1"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET q = if_not_exists(a, :n1)",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "q": {"N": "3"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET q = if_not_exists(a, zz)",
        {"error": "The provided expression refers to an attribute that does not exist in the item"},
    ),
    (
        "SET q = if_not_exists(:s, :n1)",
        {
            "error": "Invalid UpdateExpression: Operator or function requires a document path; operator or function: "
            "if_not_exists"
        },
    ),
    (
        "SET a = if_not_exists(a, :n1) + :n5",
        {
            "a": {"N": "8"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET l = list_append(l, :l)",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {
                "L": [
                    {"N": "1"},
                    {"S": "a"},
                    {"L": [{"S": "x"}, {"N": "2"}]},
                    {"M": {"q": {"S": "r"}}},
                    {"S": "a"},
                ]
            },
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET l = list_append(:l, l)",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {
                "L": [
                    {"S": "a"},
                    {"N": "1"},
                    {"S": "a"},
                    {"L": [{"S": "x"}, {"N": "2"}]},
                    {"M": {"q": {"S": "r"}}},
                ]
            },
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET l = list_append(l, :s)",
        {
            "error": "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
            "function: list_append, operand type: S"
        },
    ),
    (
        "SET l = list_append(a, :l)",
        {"error": "An operand in the update expression has an incorrect data type"},
    ),
    (
        "SET q = list_append(zz, :l)",
        {"error": "The provided expression refers to an attribute that does not exist in the item"},
    ),
    (
        "SET q = list_append(list_append(l, :l), :l)",
        {
            "error": "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; "
            "function: list_append"
        },
    ),
    (
        "SET q = size(a)",
        {
            "error": "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"
        },
    ),
    ("SET q = foo(a)", {"error": "Invalid UpdateExpression: Invalid function name; function: foo"}),
    (
        "SET q = if_not_exists(a)",
        {
            "error": "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or "
            "function: if_not_exists, number of operands: 1"
        },
    ),
    (
        "SET m.x = :n5",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "5"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET m.w = :s",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {
                "M": {
                    "ll": {"L": [{"N": "5"}]},
                    "w": {"S": "ab"},
                    "x": {"N": "1"},
                    "y": {"M": {"z": {"S": "q"}}},
                }
            },
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET m.zz.w = :s",
        {"error": "The document path provided in the update expression is invalid for update"},
    ),
    ("SET zz.w = :s", {"error": "The document path provided in the update expression is invalid for update"}),
    ("SET a.w = :s", {"error": "The document path provided in the update expression is invalid for update"}),
    (
        "SET l[1] = :s",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "ab"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET l[9] = :s, l[7] = :n1",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {
                "L": [
                    {"N": "1"},
                    {"S": "a"},
                    {"L": [{"S": "x"}, {"N": "2"}]},
                    {"M": {"q": {"S": "r"}}},
                    {"N": "1"},
                    {"S": "ab"},
                ]
            },
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    ("SET m[0] = :s", {"error": "The document path provided in the update expression is invalid for update"}),
    (
        "SET l[1] = :s REMOVE l[0]",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"S": "ab"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "REMOVE l[0], l[2]",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"S": "a"}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "REMOVE l[9]",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "REMOVE zz",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    ("REMOVE m.zz.q", {"error": "The document path provided in the update expression is invalid for update"}),
    ("REMOVE a.q", {"error": "The document path provided in the update expression is invalid for update"}),
    (
        "REMOVE m.x, m.y.z",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "y": {"M": {}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "ADD a :n1",
        {
            "a": {"N": "4"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "ADD zz :n1",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
            "zz": {"N": "1"},
        },
    ),
    (
        "ADD ss :ss",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b", "c"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "ADD zz :ss",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
            "zz": {"SS": ["a", "c"]},
        },
    ),
    (
        "ADD ns :ns",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2", "7"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    ("ADD ns :ss", {"error": "An operand in the update expression has an incorrect data type"}),
    ("ADD b :n1", {"error": "An operand in the update expression has an incorrect data type"}),
    (
        "ADD a :s",
        {
            "error": "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, "
            "operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"
        },
    ),
    (
        "ADD a :l",
        {
            "error": "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, "
            "operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND"
        },
    ),
    (
        "ADD l[0] :n1",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "2"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "ADD l[9] :n1",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {
                "L": [
                    {"N": "1"},
                    {"S": "a"},
                    {"L": [{"S": "x"}, {"N": "2"}]},
                    {"M": {"q": {"S": "r"}}},
                    {"N": "1"},
                ]
            },
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "ADD m.q :n1",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {
                "M": {
                    "ll": {"L": [{"N": "5"}]},
                    "q": {"N": "1"},
                    "x": {"N": "1"},
                    "y": {"M": {"z": {"S": "q"}}},
                }
            },
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "DELETE ss :ss",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "DELETE ss :ssab",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "t": {"BOOL": True},
        },
    ),
    (
        "DELETE zz :ss",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    ("DELETE ns :ss", {"error": "An operand in the update expression has an incorrect data type"}),
    ("DELETE a :ss", {"error": "An operand in the update expression has an incorrect data type"}),
    (
        "DELETE ss :s",
        {
            "error": "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, "
            "operand type: STRING, typeSet: ALLOWED_FOR_DELETE_OPERAND"
        },
    ),
    (
        "DELETE ns :ns",
        {
            "a": {"N": "3"},
            "b": {"S": "abc"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET a = :n1, a = :n5",
        {
            "error": "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite "
            "one of these paths; path one: [a], path two: [a]"
        },
    ),
    (
        "SET m.x = :n1 REMOVE m",
        {
            "error": "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite "
            "one of these paths; path one: [m, x], path two: [m]"
        },
    ),
    (
        "SET l[0] = :n1, l.q = :n1",
        {
            "error": "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite "
            "one of these paths; path one: [l, [0]], path two: [l, q]"
        },
    ),
    (
        "SET #a = :n1, a = :n5",
        {
            "error": "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite "
            "one of these paths; path one: [a], path two: [a]"
        },
    ),
    (
        "ADD ss :ss DELETE ss :ss",
        {
            "error": "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite "
            "one of these paths; path one: [ss], path two: [ss]"
        },
    ),
    (
        "SET a = :n1 SET b = :s",
        {
            "error": 'Invalid UpdateExpression: The "SET" section can only be used once in an update expression;'
        },
    ),
    (
        "REMOVE a REMOVE b",
        {
            "error": 'Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;'
        },
    ),
    (
        "SET name = :s",
        {"error": "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: name"},
    ),
    (
        "SET a = :zz",
        {
            "error": "Invalid UpdateExpression: An expression attribute value used in expression is not defined; "
            "attribute value: :zz"
        },
    ),
    ("SET a = ((b))", {"error": "Invalid UpdateExpression: The expression has redundant parentheses;"}),
    ("SET a = (b + :n1)", {"error": "An operand in the update expression has an incorrect data type"}),
    (
        "SET a = b + :n1 + :n1",
        {"error": 'Invalid UpdateExpression: Syntax error; token: "+", near: ":n1 + :n1"'},
    ),
    (
        "SET a = :n1, b = a",
        {
            "a": {"N": "1"},
            "b": {"N": "3"},
            "bs": {"BS": [b"\x01"]},
            "c": {"B": b"\x01\x02"},
            "e": {"S": "😀"},
            "l": {"L": [{"N": "1"}, {"S": "a"}, {"L": [{"S": "x"}, {"N": "2"}]}, {"M": {"q": {"S": "r"}}}]},
            "m": {"M": {"ll": {"L": [{"N": "5"}]}, "x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}},
            "nl": {"NULL": True},
            "ns": {"NS": ["1", "2"]},
            "pk": {"S": "k"},
            "ss": {"SS": ["a", "b"]},
            "t": {"BOOL": True},
        },
    ),
    (
        "SET a = zz, b.q = :s",
        {"error": "The document path provided in the update expression is invalid for update"},
    ),
    (
        "SET b.q = :s, a = zz",
        {"error": "The document path provided in the update expression is invalid for update"},
    ),
    ("SET a = zz, q = b + :n1", {"error": "An operand in the update expression has an incorrect data type"}),
    (
        "SET zz.q = :s, a = zz",
        {"error": "The provided expression refers to an attribute that does not exist in the item"},
    ),
    ("", {"error": "Invalid UpdateExpression: The expression can not be empty;"}),
    ("SET a = :n1,", {"error": 'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ","'}),
    ("ADD a (:n1)", {"error": 'Invalid UpdateExpression: Syntax error; token: "(", near: "a (:n1"'}),
]

PROJECTION_CASES = [
    ("a", {"a": {"N": "3"}}),
    ("a, b", {"a": {"N": "3"}, "b": {"S": "abc"}}),
    ("l[2][1]", {"l": {"L": [{"L": [{"N": "2"}]}]}}),
    ("l[3].q, l[0]", {"l": {"L": [{"N": "1"}, {"M": {"q": {"S": "r"}}}]}}),
    ("l[0], l[3].q", {"l": {"L": [{"N": "1"}, {"M": {"q": {"S": "r"}}}]}}),
    ("m.y.z, m.x", {"m": {"M": {"x": {"N": "1"}, "y": {"M": {"z": {"S": "q"}}}}}}),
    (
        "m.y, m.y.z",
        {
            "error": "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
            "rewrite one of these paths; path one: [m, y], path two: [m, y, z]"
        },
    ),
    (
        "m, m.x",
        {
            "error": "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
            "rewrite one of these paths; path one: [m], path two: [m, x]"
        },
    ),
    (
        "l[0], l.q",
        {
            "error": "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or "
            "rewrite one of these paths; path one: [l, [0]], path two: [l, q]"
        },
    ),
    ("l[9]", {}),
    ("m.zz", {}),
    ("a.q", {}),
    ("a[0]", {}),
    ("#a, #m.#x", {"a": {"N": "3"}, "m": {"M": {"x": {"N": "1"}}}}),
    (
        "name",
        {
            "error": "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"
        },
    ),
    ("#r", {}),
    ("zz", {}),
    ("l[2].zz", {}),
    (
        "a.:s",
        {
            "error": "Invalid ProjectionExpression: An expression attribute name used in the document path is not "
            "defined; attribute name: :s"
        },
    ),
    ("a b", {"error": 'Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"'}),
    ("a,", {"error": 'Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","'}),
    ("((a))", {"error": 'Invalid ProjectionExpression: Syntax error; token: "(", near: "(("'}),
    (
        "a[2147483648]",
        {
            "error": "Invalid ProjectionExpression: List index is not within the allowable range; index: "
            "[2147483648]"
        },
    ),
    ("pk, a", {"a": {"N": "3"}, "pk": {"S": "k"}}),
]

KEY_CASES = [
    ("pk = :s", "OK"),
    ("pk = :s AND sk = :n1", "OK"),
    (":s = pk AND :n1 < sk", "OK"),
    ("pk = :s AND sk BETWEEN :n1 AND :n5", "OK"),
    (
        "pk = :s AND begins_with(sk, :s)",
        {
            "error": "One or more parameter values were invalid: Condition parameter type does not match schema "
            "type"
        },
    ),
    ("pk = :s OR sk = :n1", {"error": "Invalid operator used in KeyConditionExpression: OR"}),
    ("NOT pk = :s", {"error": "Invalid operator used in KeyConditionExpression: NOT"}),
    ("pk < :s", {"error": "Query key condition not supported"}),
    ("pk <> :s", {"error": "Invalid operator used in KeyConditionExpression: <>"}),
    ("sk = :n1", {"error": "Query condition missed key schema element"}),
    ("pk = :s AND pk = :s", {"error": "KeyConditionExpressions must only contain one condition per key"}),
    ("zz = :s", {"error": "Query condition missed key schema element"}),
    ("pk = :s AND zz = :n1", {"error": "Query condition missed key schema element"}),
    (
        "pk = :s AND attribute_exists(sk)",
        {"error": "Invalid operator used in KeyConditionExpression: attribute_exists"},
    ),
    ("pk IN (:s)", {"error": "Invalid operator used in KeyConditionExpression: IN"}),
    (
        "pk = sk",
        {
            "error": "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
        },
    ),
    ("pk = :s AND size(sk) = :n1", {"error": "KeyConditionExpressions cannot contain nested operations"}),
    (
        "pk.x = :s",
        {
            "error": "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "
            "Key: pk"
        },
    ),
    (
        "pk = :s AND begins_with(:s, sk)",
        {
            "error": "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute "
            "as its first operand"
        },
    ),
    (
        "pk = :s AND sk > :n1 AND sk < :n5",
        {"error": "KeyConditionExpressions must only contain one condition per key"},
    ),
    (
        "pk = :zz",
        {
            "error": "Invalid KeyConditionExpression: An expression attribute value used in expression is not "
            "defined; attribute value: :zz"
        },
    ),
    (
        "name = :s",
        {
            "error": "Invalid KeyConditionExpression: Attribute name is a reserved keyword; reserved keyword: name"
        },
    ),
    ("(pk = :s) AND (sk = :n1)", "OK"),
]
