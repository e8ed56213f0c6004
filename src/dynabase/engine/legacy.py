"""DynamoDB's legacy (pre-expression) parameters, translated into expressions.

KeyConditions, QueryFilter, ScanFilter, Expected, ConditionalOperator, AttributesToGet and AttributeUpdates are
rewritten into KeyConditionExpression, FilterExpression, ConditionExpression, ProjectionExpression and
UpdateExpression with generated placeholders, so one evaluator serves both. DynamoDB's rule holds: a request
may not mix the two styles.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationException

_EXPRESSIONS = (  # in the order DynamoDB lists them in its error message
    "UpdateExpression",
    "ConditionExpression",
    "KeyConditionExpression",
    "FilterExpression",
    "ProjectionExpression",
)
_LEGACY = (
    "KeyConditions",
    "QueryFilter",
    "ScanFilter",
    "Expected",
    "AttributesToGet",
    "AttributeUpdates",
    "ConditionalOperator",
)
_ARITY = {
    "EQ": 1,
    "NE": 1,
    "LE": 1,
    "LT": 1,
    "GE": 1,
    "GT": 1,
    "NOT_NULL": 0,
    "NULL": 0,
    "CONTAINS": 1,
    "NOT_CONTAINS": 1,
    "BEGINS_WITH": 1,
    "BETWEEN": 2,
}
_COMPARATORS = {"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}


class _Names:
    """Placeholder allocation for one request."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}

    def name(self, attribute: str) -> str:
        for placeholder, existing in self.names.items():
            if existing == attribute:
                return placeholder
        placeholder = f"#l{len(self.names)}"
        self.names[placeholder] = attribute
        return placeholder

    def value(self, value: Any) -> str:
        placeholder = f":l{len(self.values)}"
        self.values[placeholder] = value
        return placeholder


def translate(req: dict) -> dict:
    """Return the request with legacy parameters rewritten as expressions (the same dict when there are none)."""
    legacy = [k for k in _LEGACY if req.get(k) is not None]
    if not legacy:
        return req
    expressions = [k for k in _EXPRESSIONS if req.get(k) is not None]
    if expressions:
        raise ValidationException(
            "Can not use both expression and non-expression parameters in the same request: Non-expression "
            f"parameters: {{{', '.join(legacy)}}} Expression parameters: {{{', '.join(expressions)}}}"
        )
    for field in ("ExpressionAttributeNames", "ExpressionAttributeValues"):
        if req.get(field) is not None:
            raise ValidationException(f"{field} can only be specified when using expressions")
    out = {k: v for k, v in req.items() if k not in _LEGACY}
    names = _Names()
    operator = req.get("ConditionalOperator")
    if operator is not None and operator not in ("AND", "OR"):
        raise ValidationException(
            f"1 validation error detected: Value '{operator}' at 'conditionalOperator' failed to satisfy "
            "constraint: Member must satisfy enum value set: [AND, OR]"
        )
    conditions = [k for k in ("QueryFilter", "ScanFilter", "Expected") if req.get(k) is not None]
    if operator is not None and not conditions:
        raise ValidationException(
            "ConditionalOperator can only be used when Filter or Expected has two or more elements"
        )
    if req.get("KeyConditions") is not None:
        out["KeyConditionExpression"] = _conditions(req["KeyConditions"], "AND", names, key=True)
    for field, target in (("QueryFilter", "FilterExpression"), ("ScanFilter", "FilterExpression")):
        if req.get(field) is not None and req[field]:
            out[target] = _conditions(req[field], operator or "AND", names)
    if req.get("Expected") is not None and req["Expected"]:
        out["ConditionExpression"] = _expected(req["Expected"], operator or "AND", names)
    if req.get("AttributesToGet") is not None:
        attrs = req["AttributesToGet"]
        if not attrs:
            raise ValidationException(
                "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: "
                "Member must have length greater than or equal to 1"
            )
        if len(set(attrs)) != len(attrs):
            raise ValidationException(
                "One or more parameter values were invalid: Duplicate value in attribute name: "
                + next(a for a in attrs if attrs.count(a) > 1)
            )
        out["ProjectionExpression"] = ", ".join(names.name(a) for a in attrs)
    if req.get("AttributeUpdates") is not None and req["AttributeUpdates"]:
        update = _attribute_updates(req["AttributeUpdates"], names)
        if update:
            out["UpdateExpression"] = update
    if names.names:
        out["ExpressionAttributeNames"] = names.names
    if names.values:
        out["ExpressionAttributeValues"] = names.values
    return out


def _condition(attribute: str, spec: Any, names: _Names, key: bool = False) -> str:
    if not isinstance(spec, dict):
        raise ValidationException("One or more parameter values were invalid: Invalid condition")
    op = spec.get("ComparisonOperator")
    values = spec.get("AttributeValueList") or []
    if op not in _ARITY and op != "IN":
        raise ValidationException(
            f"1 validation error detected: Value '{op}' at 'comparisonOperator' failed to satisfy constraint: "
            "Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, "
            "BEGINS_WITH, GE, CONTAINS]"
        )
    if (op == "IN" and not values) or (op != "IN" and len(values) != _ARITY[op]):
        raise ValidationException(
            f"One or more parameter values were invalid: Invalid number of argument(s) for the {op} ComparisonOperator"
        )
    if key and op not in ("EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN"):
        raise ValidationException(
            f"One or more parameter values were invalid: Unsupported operator on KeyCondition: {op}"
            if op not in ("NE",)
            else "Query key condition not supported"
        )
    path = names.name(attribute)
    refs = [names.value(v) for v in values]
    if op in _COMPARATORS:
        return f"{path} {_COMPARATORS[op]} {refs[0]}"
    if op == "NOT_NULL":
        return f"attribute_exists({path})"
    if op == "NULL":
        return f"attribute_not_exists({path})"
    if op == "CONTAINS":
        return f"contains({path}, {refs[0]})"
    if op == "NOT_CONTAINS":
        return f"NOT contains({path}, {refs[0]})"
    if op == "BEGINS_WITH":
        return f"begins_with({path}, {refs[0]})"
    if op == "BETWEEN":
        return f"{path} BETWEEN {refs[0]} AND {refs[1]}"
    return f"{path} IN ({', '.join(refs)})"


def _conditions(spec: Any, operator: str, names: _Names, key: bool = False) -> str:
    if not isinstance(spec, dict):
        raise ValidationException("One or more parameter values were invalid: Invalid condition")
    parts = [_condition(attribute, cond, names, key) for attribute, cond in spec.items()]
    return f" {operator} ".join(f"({p})" if len(parts) > 1 else p for p in parts)


def _expected(spec: dict, operator: str, names: _Names) -> str:
    parts = []
    for attribute, cond in spec.items():
        if not isinstance(cond, dict):
            raise ValidationException("One or more parameter values were invalid: Invalid Expected condition")
        if "ComparisonOperator" in cond:
            if "Value" in cond or "Exists" in cond:
                raise ValidationException(
                    "One or more parameter values were invalid: Value or Exists parameters cannot be used with "
                    f"ComparisonOperator. Attribute: {attribute}"
                    if "Value" in cond
                    else "One or more parameter values were invalid: Exists and ComparisonOperator cannot be used "
                    f"together for Attribute: {attribute}"
                )
            parts.append(_condition(attribute, cond, names))
            continue
        exists = cond.get("Exists", True)
        if "AttributeValueList" in cond:
            raise ValidationException(
                "One or more parameter values were invalid: AttributeValueList can only be used with a "
                f"ComparisonOperator for Attribute: {attribute}"
            )
        if exists is False:
            if "Value" in cond:
                raise ValidationException(
                    "One or more parameter values were invalid: Value cannot be used when Exists is false for "
                    f"Attribute: {attribute}"
                )
            parts.append(f"attribute_not_exists({names.name(attribute)})")
        else:
            if "Value" not in cond:
                raise ValidationException(
                    "One or more parameter values were invalid: Value must be provided when Exists is true for "
                    f"Attribute: {attribute}"
                    if "Exists" in cond
                    else "One or more parameter values were invalid: Value must be provided when Exists is null for "
                    f"Attribute: {attribute}"
                )
            parts.append(f"{names.name(attribute)} = {names.value(cond['Value'])}")
    return f" {operator} ".join(f"({p})" if len(parts) > 1 else p for p in parts)


def _attribute_updates(spec: dict, names: _Names) -> str:
    sets, removes, adds, deletes = [], [], [], []
    for attribute, update in spec.items():
        action = (update or {}).get("Action", "PUT")
        value = (update or {}).get("Value")
        path = names.name(attribute)
        if action == "PUT":
            if value is None:
                raise ValidationException(
                    "One or more parameter values were invalid: Only DELETE action is allowed when no attribute "
                    f"value is specified: {attribute}"
                )
            sets.append(f"{path} = {names.value(value)}")
        elif action == "DELETE":
            if value is None:
                removes.append(path)
            else:
                deletes.append(f"{path} {names.value(value)}")
        elif action == "ADD":
            if value is None:
                raise ValidationException(
                    "One or more parameter values were invalid: Only DELETE action is allowed when no attribute "
                    f"value is specified: {attribute}"
                )
            adds.append(f"{path} {names.value(value)}")
        else:
            raise ValidationException(
                f"1 validation error detected: Value '{action}' at 'attributeUpdates.{attribute}.member.action' "
                "failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"
            )
    clauses = []
    for keyword, parts in (("SET", sets), ("REMOVE", removes), ("ADD", adds), ("DELETE", deletes)):
        if parts:
            clauses.append(f"{keyword} {', '.join(parts)}")
    return " ".join(clauses)
