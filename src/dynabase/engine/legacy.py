"""DynamoDB's legacy (pre-expression) parameters: checked as DynamoDB Local checks them, then run as expressions.

KeyConditions, QueryFilter, ScanFilter, Expected, ConditionalOperator, AttributesToGet and AttributeUpdates are
validated with Local's own messages and in Local's order (after the table lookup, and after the key checks the
operation makes first), so that the expression layer never sees a request it would word differently. They are
then rewritten into KeyConditionExpression, FilterExpression, ConditionExpression, ProjectionExpression and
UpdateExpression with generated placeholders, so one evaluator serves both styles. Legacy semantics that the
expression language lacks are spelled out: NOT_CONTAINS is ``attribute_exists(a) AND NOT contains(a, v)`` (a
missing attribute matches nothing) and ADD of a list is ``SET a = list_append(if_not_exists(a, :empty), v)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ValidationException
from ..expressions.binder import MAX_IN_OPERANDS
from ..expressions.keycondition import NO_KEY_CONDITION
from ..expressions.update import BAD_TYPE
from ..expressions.values import LONG_TYPE_NAMES, type_of
from ..types import compare_values, validate_item, validate_value
from .items import check_not_key, checked_item, item_row, key_row, placeholders
from .schema import KeySchema, Table

if TYPE_CHECKING:
    from .engine import Engine

#: the operations that take legacy parameters
OPERATIONS = {"PutItem", "GetItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem"}
_LEGACY = (  # in the order Local lists them in its messages
    "AttributesToGet",
    "AttributeUpdates",
    "QueryFilter",
    "ScanFilter",
    "Expected",
    "ConditionalOperator",
    "KeyConditions",
)
_EXPRESSIONS = (  # likewise
    "UpdateExpression",
    "ConditionExpression",
    "ProjectionExpression",
    "FilterExpression",
    "KeyConditionExpression",
)
#: the expressions that can take values, per operation, as Local names them when ExpressionAttributeValues has none
_VALUE_FIELDS = {
    "PutItem": ("ConditionExpression",),
    "DeleteItem": ("ConditionExpression",),
    "UpdateItem": ("UpdateExpression", "ConditionExpression"),
    "Query": ("FilterExpression", "KeyConditionExpression"),
    "Scan": ("FilterExpression",),
    "GetItem": (),
}
_INVALID = "One or more parameter values were invalid: "
_TYPE_MISMATCH = "Type mismatch for attribute to update"

_SCALARS = frozenset({"S", "N", "B"})
_NOT_COLLECTIONS = frozenset({"S", "N", "B", "BOOL", "NULL"})
#: operator: (number of values, None for one or more; the value types it takes, None for any)
_OPERATORS: dict[str, tuple[int | None, frozenset | None]] = {
    "EQ": (1, None),
    "NE": (1, None),
    "LE": (1, _SCALARS),
    "LT": (1, _SCALARS),
    "GE": (1, _SCALARS),
    "GT": (1, _SCALARS),
    "BEGINS_WITH": (1, frozenset({"S", "B"})),
    "CONTAINS": (1, _NOT_COLLECTIONS),
    "NOT_CONTAINS": (1, _NOT_COLLECTIONS),
    "IN": (None, _SCALARS),
    "BETWEEN": (2, _SCALARS),
    "NULL": (0, None),
    "NOT_NULL": (0, None),
}
#: each operator as an expression, of ``{path}`` and its values ``{0}``, ``{1}`` (``{all}`` for IN)
_TEMPLATES = {
    "EQ": "{path} = {0}",
    "NE": "{path} <> {0}",
    "LE": "{path} <= {0}",
    "LT": "{path} < {0}",
    "GE": "{path} >= {0}",
    "GT": "{path} > {0}",
    "BEGINS_WITH": "begins_with({path}, {0})",
    "CONTAINS": "contains({path}, {0})",
    "NOT_CONTAINS": "attribute_exists({path}) AND NOT contains({path}, {0})",
    "IN": "{path} IN ({all})",
    "BETWEEN": "{path} BETWEEN {0} AND {1}",
    "NULL": "attribute_not_exists({path})",
    "NOT_NULL": "attribute_exists({path})",
}
_HASH_OPERATORS = frozenset({"EQ"})
_RANGE_OPERATORS = frozenset({"EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN"})
_SETS = frozenset({"SS", "NS", "BS"})
_ADDABLE = frozenset({"N", "L"}) | _SETS

Handler = Callable[["Engine", dict], dict]


_LEGACY_NAMES = frozenset(_LEGACY)


def call(engine: Engine, operation: str, req: dict, handler: Handler) -> dict:
    """Run ``handler`` on the request, its legacy parameters (if any) translated into expressions."""
    if operation == "BatchGetItem":
        return handler(engine, _batch_get(req))
    if _LEGACY_NAMES.isdisjoint(req) or not any(req.get(k) is not None for k in _LEGACY):
        return handler(engine, req)
    table = engine.catalog.get(req.get("TableName"))
    translated = _Translation(table, operation, req).request()
    try:
        return handler(engine, translated)
    except ValidationException as error:
        # an ADD or DELETE that meets a stored value of another type
        if error.message == BAD_TYPE and req.get("AttributeUpdates"):
            raise ValidationException(_TYPE_MISMATCH) from None
        raise


# -- conditions --------------------------------------------------------------------------------------------


@dataclass
class _Condition:
    """One legacy condition (of KeyConditions, a filter or Expected), checked."""

    attribute: str
    op: str
    values: list

    def expression(self, names: _Names) -> str:
        refs = [names.value(v) for v in self.values]
        path = names.name(self.attribute)
        if self.op == "IN" and len(refs) > MAX_IN_OPERANDS:
            # the 100-operand limit is the expression language's: a longer legacy list is ORed IN groups
            groups = [refs[i : i + MAX_IN_OPERANDS] for i in range(0, len(refs), MAX_IN_OPERANDS)]
            return "(" + " OR ".join(f"{path} IN ({', '.join(group)})" for group in groups) + ")"
        return _TEMPLATES[self.op].format(*refs, path=path, all=", ".join(refs))


def _check_name(attribute: Any) -> None:
    if not isinstance(attribute, str) or not attribute:
        raise ValidationException("Empty attribute name")


def _condition(attribute: str, op: Any, values: Any) -> _Condition:
    """Check a condition's attribute name, operator, number of values, the values and their types."""
    _check_name(attribute)
    if op not in _OPERATORS:
        raise ValidationException("Comparison type does not exist in DynamoDB")
    count, types = _OPERATORS[op]
    values = values or []
    if not isinstance(values, list) or (len(values) != count if count is not None else not values):
        raise ValidationException(_INVALID + f"Invalid number of argument(s) for the {op} ComparisonOperator")
    values = [validate_value(v) for v in values]
    for value in values:
        if types is not None and type_of(value) not in types:
            raise ValidationException(
                _INVALID + f"ComparisonOperator {op} is not valid for {type_of(value)} AttributeValue type"
            )
    if op in ("IN", "BETWEEN") and len({type_of(v) for v in values}) > 1:
        raise ValidationException(_INVALID + "AttributeValues inside AttributeValueList must be of same type")
    if op == "BETWEEN":
        order = compare_values(values[0], values[1])
        assert order is not None  # two scalars (BETWEEN's types) of one type, both checked above
        if order > 0:
            raise ValidationException(
                "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"
            )
    return _Condition(attribute, op, values)


def _conditions(spec: Any) -> list[_Condition]:
    """The conditions of KeyConditions, QueryFilter or ScanFilter."""
    if not isinstance(spec, dict):
        raise ValidationException(_INVALID + "Invalid condition")
    out = []
    for attribute, condition in spec.items():
        if not isinstance(condition, dict):
            raise ValidationException(_INVALID + "Invalid condition")
        out.append(
            _condition(attribute, condition.get("ComparisonOperator"), condition.get("AttributeValueList"))
        )
    return out


def _expected(spec: Any) -> list[_Condition]:
    """The conditions of Expected: ``Value``/``Exists`` forms become EQ, NULL and NOT_NULL conditions."""
    if not isinstance(spec, dict):
        raise ValidationException(_INVALID + "Invalid Expected condition")
    return [_expected_condition(attribute, condition) for attribute, condition in spec.items()]


def _expected_condition(attribute: str, cond: Any) -> _Condition:
    if not isinstance(cond, dict):
        raise ValidationException(_INVALID + "Invalid Expected condition")
    _check_name(attribute)
    for_attribute = f" for Attribute: {attribute}"
    op = cond.get("ComparisonOperator")
    if op is not None:
        if "Exists" in cond:
            raise ValidationException(
                _INVALID + "Exists and ComparisonOperator cannot be used together" + for_attribute
            )
        if "Value" in cond and "AttributeValueList" in cond:
            raise ValidationException(
                _INVALID + "Value and AttributeValueList cannot be used together" + for_attribute
            )
        if "Value" in cond:
            return _condition(attribute, op, [cond["Value"]])
        if "AttributeValueList" not in cond and _OPERATORS.get(op, (1,))[0] != 0:
            raise ValidationException(
                _INVALID
                + f"Value or AttributeValueList must be used with ComparisonOperator: {op}"
                + for_attribute
            )
        return _condition(attribute, op, cond.get("AttributeValueList"))
    if "AttributeValueList" in cond:
        raise ValidationException(
            _INVALID + "AttributeValueList can only be used with a ComparisonOperator" + for_attribute
        )
    if cond.get("Exists", True) is False:
        if "Value" in cond:
            raise ValidationException(_INVALID + "Value cannot be used when Exists is false" + for_attribute)
        return _Condition(attribute, "NULL", [])
    if "Value" not in cond:
        state = "true" if "Exists" in cond else "null"
        raise ValidationException(_INVALID + f"Value must be provided when Exists is {state}" + for_attribute)
    return _condition(attribute, "EQ", [cond["Value"]])


def _check_key_conditions(conditions: list[_Condition], keys: KeySchema) -> None:
    """KeyConditions against the key schema: the hash key's condition, then the range key's."""
    if not conditions:
        raise ValidationException("Conditions must be at least length 1")
    if keys.multi:  # each condition alone here; their shape is checked on the KeyConditionExpression
        attributes = dict(keys.attrs)
        for c in conditions:
            if c.attribute in attributes:
                which = "Hash" if c.attribute in dict(keys.hash_attrs) else "Range"
                _check_key_condition(c, attributes[c.attribute], which, _RANGE_OPERATORS)
        return
    if len(conditions) > 2:
        raise ValidationException("Conditions can be of length 1 or 2 only")
    by_name = {c.attribute: c for c in conditions}
    if keys.hash_name not in by_name or any(name not in keys.names for name in by_name):
        raise ValidationException("Query condition missed key schema element")
    _check_key_condition(by_name[keys.hash_name], keys.hash_type, "Hash", _HASH_OPERATORS)
    if keys.range_name in by_name:
        assert keys.range_type is not None  # a KeySchema with a range_name has its range_type
        _check_key_condition(by_name[keys.range_name], keys.range_type, "Range", _RANGE_OPERATORS)


def _check_key_condition(cond: _Condition, typ: str, which: str, operators: frozenset) -> None:
    if cond.op in ("NULL", "NOT_NULL"):
        raise ValidationException(f"Only scalar types can be used as {which} Key values")
    if any(typ not in value for value in cond.values):
        raise ValidationException(_INVALID + "Condition parameter type does not match schema type")
    if cond.op not in operators:
        raise ValidationException(
            "Query key condition not supported"
            if which == "Hash"
            else "Attempted conditional constraint is not an indexable operation"
        )
    for value in cond.values:
        if typ in ("S", "B") and len(value[typ]) == 0:
            raise ValidationException(
                "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain "
                f"an empty {'string' if typ == 'S' else 'binary'} value. Key: {cond.attribute}"
            )


def _filter_conditions(req: dict, field: str | None) -> list[_Condition]:
    """The conditions of the request's QueryFilter, ScanFilter or Expected (``field``)."""
    if field is None:
        return []
    return _expected(req[field]) if field == "Expected" else _conditions(req[field])


def _check_query_filter(filters: list[_Condition], keys: KeySchema) -> None:
    for cond in filters:
        if cond.attribute in keys.names:
            raise ValidationException(
                f"QueryFilter can only contain non-primary key attributes: Primary key attribute: {cond.attribute}"
            )


# -- the translation -----------------------------------------------------------------------------------------


class _Names:
    """Generated placeholders, clear of the request's own (Local lets KeyConditions go with expressions)."""

    def __init__(self, names: Any, values: Any) -> None:
        self.names: dict[str, str] = dict(names or {})
        self.values: dict[str, Any] = dict(values or {})

    def name(self, attribute: str) -> str:
        for placeholder, existing in self.names.items():
            if existing == attribute:
                return placeholder
        placeholder = _fresh("#l", self.names)
        self.names[placeholder] = attribute
        return placeholder

    def value(self, value: Any) -> str:
        placeholder = _fresh(":l", self.values)
        self.values[placeholder] = value
        return placeholder


def _fresh(prefix: str, taken: dict) -> str:
    number = len(taken)
    while f"{prefix}{number}" in taken:
        number += 1
    return f"{prefix}{number}"


def _join(parts: list[str], operator: str) -> str:
    return f" {operator} ".join(f"({p})" if len(parts) > 1 else p for p in parts)


class _Translation:
    """One request's legacy parameters: checked in Local's order, then rewritten as expressions."""

    def __init__(self, table: Table, operation: str, req: dict) -> None:
        self.table, self.operation, self.req = table, operation, req
        self.keys = table.index(req["IndexName"]).keys if req.get("IndexName") is not None else table.keys
        self.names = _Names(req.get("ExpressionAttributeNames"), req.get("ExpressionAttributeValues"))

    def request(self) -> dict:
        req = self.req
        self._check_mixing()
        placeholders(req, _VALUE_FIELDS[self.operation])  # names or values with no expression to use them in
        self._check_key()
        key_conditions = _conditions(req["KeyConditions"]) if req.get("KeyConditions") is not None else None
        field = next((f for f in ("QueryFilter", "ScanFilter", "Expected") if req.get(f) is not None), None)
        filters = _filter_conditions(req, field)
        operator = self._conditional_operator(len(filters))
        attributes = self._attributes_to_get()
        if key_conditions is not None:
            _check_key_conditions(key_conditions, self.keys)
        if field == "QueryFilter":
            if key_conditions is None and req.get("KeyConditionExpression") is None:
                raise ValidationException(
                    NO_KEY_CONDITION
                )  # before the filter's own checks, as AWS and Local
            _check_query_filter(filters, self.keys)
        update = self._attribute_updates() if req.get("AttributeUpdates") is not None else None
        return self._translated(key_conditions, field, filters, operator, attributes, update)

    def _check_mixing(self) -> None:
        legacy = [k for k in _LEGACY if self.req.get(k) is not None]
        expressions = [k for k in _EXPRESSIONS if self.req.get(k) is not None]
        if "KeyConditionExpression" not in expressions and "KeyConditions" in legacy:
            legacy.remove("KeyConditions")  # Local lets KeyConditions go with the other expressions
        if legacy and expressions:
            raise ValidationException(
                "Can not use both expression and non-expression parameters in the same request: Non-expression "
                f"parameters: {{{', '.join(legacy)}}} Expression parameters: {{{', '.join(expressions)}}}"
            )

    def _check_key(self) -> None:
        """The key (or item) checks a write makes before it looks at its conditions, as Local orders them."""
        req = self.req
        if self.operation == "PutItem":
            item = req.get("Item")
            item, _ = checked_item(self.table, item if isinstance(item, dict) else None)
            item_row(self.table, item)
        elif self.operation in ("UpdateItem", "DeleteItem"):
            key_row(self.table, validate_item(req.get("Key") or {}))

    def _conditional_operator(self, count: int) -> str:
        operator = self.req.get("ConditionalOperator")
        if operator is None:
            return "AND"
        if operator not in ("AND", "OR"):
            raise ValidationException(
                f"1 validation error detected: Value '{operator}' at 'conditionalOperator' failed to satisfy "
                "constraint: Member must satisfy enum value set: [AND, OR]"
            )
        if count == 0:
            raise ValidationException("ConditionalOperator cannot be used without Filter or Expected")
        if count == 1:
            raise ValidationException(
                "ConditionalOperator can only be used when Filter or Expected has two or more elements"
            )
        return operator

    def _attributes_to_get(self) -> list[str] | None:
        attributes = self.req.get("AttributesToGet")
        if attributes is None:
            return None
        select = self.req.get("Select")
        if select in ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "COUNT"):
            what = "only the Count" if select == "COUNT" else select
            raise ValidationException(f"Cannot specify the AttributesToGet when choosing to get {what}")
        if not attributes:
            raise ValidationException(
                "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: "
                "Member must have length greater than or equal to 1"
            )
        for attribute in attributes:
            _check_name(attribute)
        if len(set(attributes)) != len(attributes):
            raise ValidationException("Cannot have two attributes with the same name")
        return attributes

    def _attribute_updates(self) -> str:
        """AttributeUpdates as an UpdateExpression, each entry checked in turn."""
        spec = self.req["AttributeUpdates"]
        clauses: dict[str, list[str]] = {"SET": [], "REMOVE": [], "ADD": [], "DELETE": []}
        for attribute, update in spec.items():
            keyword, action = self._attribute_update(attribute, update or {})
            clauses[keyword].append(action)
        return " ".join(f"{keyword} {', '.join(parts)}" for keyword, parts in clauses.items() if parts)

    def _attribute_update(self, attribute: str, update: dict) -> tuple[str, str]:
        _check_name(attribute)
        check_not_key(self.table, [attribute])
        action = update.get("Action", "PUT")  # AWS's default (Local ignores an entry without an Action)
        if action not in ("ADD", "DELETE", "PUT"):
            raise ValidationException("Member must satisfy enum value set: [ADD, DELETE, PUT]")
        path = self.names.name(attribute)
        if update.get("Value") is None:
            if action != "DELETE":
                raise ValidationException(
                    _INVALID + "Only DELETE action is allowed when no attribute value is specified"
                )
            return "REMOVE", path
        value = validate_value(update["Value"])
        kind = type_of(value)
        if action == "PUT":
            return "SET", f"{path} = {self.names.value(value)}"
        if action == "ADD":
            if kind not in _ADDABLE:
                raise ValidationException(
                    _INVALID + f"ADD action is not supported for the type {LONG_TYPE_NAMES[kind]}"
                )
            if kind == "L":
                empty = self.names.value({"L": []})
                return (
                    "SET",
                    f"{path} = list_append(if_not_exists({path}, {empty}), {self.names.value(value)})",
                )
            return "ADD", f"{path} {self.names.value(value)}"
        if kind not in _SETS:
            raise ValidationException(
                _INVALID + f"DELETE action with value is not supported for the type {LONG_TYPE_NAMES[kind]}"
            )
        return "DELETE", f"{path} {self.names.value(value)}"

    def _translated(
        self,
        key_conditions: list[_Condition] | None,
        field: str | None,
        filters: list[_Condition],
        operator: str,
        attributes: list[str] | None,
        update: str | None,
    ) -> dict:
        out = {k: v for k, v in self.req.items() if k not in _LEGACY}
        names = self.names
        if key_conditions is not None:
            out["KeyConditionExpression"] = _join([c.expression(names) for c in key_conditions], "AND")
        if filters:
            target = "ConditionExpression" if field == "Expected" else "FilterExpression"
            out[target] = _join([c.expression(names) for c in filters], operator)
        if attributes is not None:
            out["ProjectionExpression"] = ", ".join(names.name(a) for a in attributes)
        if update:
            out["UpdateExpression"] = update
        if names.names:
            out["ExpressionAttributeNames"] = names.names
        if names.values:
            out["ExpressionAttributeValues"] = names.values
        return out


# -- BatchGetItem --------------------------------------------------------------------------------------------


def _batch_get(req: dict) -> dict:
    """BatchGetItem with each table's AttributesToGet as a ProjectionExpression."""
    items = req.get("RequestItems")
    if not isinstance(items, dict) or not any(
        isinstance(spec, dict) and spec.get("AttributesToGet") is not None for spec in items.values()
    ):
        return req
    return {**req, "RequestItems": {name: _batch_get_spec(spec) for name, spec in items.items()}}


def _batch_get_spec(spec: Any) -> Any:
    if not isinstance(spec, dict) or spec.get("AttributesToGet") is None:
        return spec
    if spec.get("ProjectionExpression") is not None:
        raise ValidationException(
            "Can not use both expression and non-expression parameters in the same request: Non-expression "
            "parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"
        )
    placeholders(spec)
    attributes = spec["AttributesToGet"]
    for attribute in attributes:
        _check_name(attribute)
    duplicate = next((a for a in attributes if attributes.count(a) > 1), None)
    if duplicate is not None:  # BatchGetItem words it differently from GetItem, Query and Scan
        raise ValidationException(_INVALID + f"Duplicate value in attribute name: {duplicate}")
    names = _Names(None, None)
    projection = ", ".join(names.name(a) for a in attributes)
    out = {k: v for k, v in spec.items() if k != "AttributesToGet"}
    return {**out, "ProjectionExpression": projection, "ExpressionAttributeNames": names.names}
