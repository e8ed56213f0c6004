"""OneTable ``where`` clauses and ``set`` expressions -> DynamoDB expressions.

A clause is DynamoDB expression syntax with three kinds of tokens:

* ``${name}`` -- a property (schema field) name, mapped to its attribute; dotted paths and list subscripts
  (``${address.city}``, ``${tags[0]}``) walk nested schemas.  Becomes an ``#_N`` attribute name.
* ``@{var}`` -- a value from ``substitutions``; ``@{...list}`` splats a list into ``:_a, :_b, ...``
  (for ``IN``).  Becomes an ``:_N`` attribute value.
* ``{value}`` -- a literal value: a number (``{42}``, ``{-1.5}``), a quoted string (``{"42"}``), ``{true}``
  / ``{false}``, or else the text as a string (``{admin}``).

Names and values are numbered in order of appearance and shared (a repeated name or string value reuses its
placeholder), as OneTable does.

With a model, a ``${name}`` that is no property of the model (nor the attribute of one, nor the type / created
/ updated attribute) is an error naming it, with a did-you-mean; so is a ``@{var}`` missing from
``substitutions``.  Generic models (any attributes) take any name.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from .errors import OneTableArgError, ParameterError
from .params import suggest

_NAME = re.compile(r"\$\{(.*?)\}")
_SUB = re.compile(r"@\{(.*?)\}")
_VALUE = re.compile(r"\{(.*?)\}", re.S)
_NUMBER = re.compile(r"^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$")
_SUBSCRIPT = re.compile(r"\[[^\]]+\]+")
NEEDS_EXPANSION = re.compile(r"\$\{.*?\}|@\{.*?\}|\{.*?\}")


def literal_number(text: str) -> int | Decimal:
    text = text.lstrip("+")
    if "." in text:
        return Decimal(text)
    return int(text)


class Placeholders:
    """ExpressionAttributeNames / ExpressionAttributeValues under construction."""

    __slots__ = ("names", "names_map", "values", "values_map", "model")

    def __init__(self, model: Any = None) -> None:
        #: the model whose properties ``${name}`` tokens must name (None: any name)
        self.model = model
        self.names: dict[str, str] = {}
        self.names_map: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self.values_map: dict[Any, str] = {}

    def name(self, attribute: str) -> str:
        token = self.names_map.get(attribute)
        if token is None:
            token = f"#_{len(self.names)}"
            self.names[token] = attribute
            self.names_map[attribute] = token
        return token

    def value(self, value: Any) -> str:
        # strings and booleans are shared; numbers and containers never are (7 vs "7")
        kind = type(value)
        key = (kind, value) if (kind is str and value) or kind is bool else None
        if key is not None:
            token = self.values_map.get(key)
            if token is not None:
                return token
        token = f":_{len(self.values)}"
        self.values[token] = value
        if key is not None:
            self.values_map[key] = token
        return token

    def target(self, fields: dict[str, Any] | None, name: str, strict: bool = False) -> str:
        """``a.b[0].c`` -> ``#_0.#_1[0].#_2`` mapping property names to attribute names through the schema;
        ``strict``: a name the model's schema does not know is an error."""
        parts = []
        top = True
        for prop in name.split("."):
            match = _SUBSCRIPT.search(prop)
            subscript = ""
            if match:
                subscript = match.group(0)
                prop = prop[: match.start()] + prop[match.end() :]
            field = fields.get(prop) if fields else None
            if field is None and strict and fields:
                self._check_name(fields, prop, name, top)
            top = False
            if field is not None:
                attribute = field.attribute
                if len(attribute) > 1:
                    # a packed field: its value lives at <map>.<sub>
                    parts.append(self.name(attribute[0]))
                    parts.append(f"{self.name(attribute[1])}{subscript}")
                else:
                    parts.append(f"{self.name(attribute[0])}{subscript}")
                fields = field.fields
            else:
                parts.append(f"{self.name(prop)}{subscript}")
                fields = None
        return ".".join(parts)

    def _check_name(self, fields: dict[str, Any], prop: str, path: str, top: bool) -> None:
        model = self.model
        if model is None or model.spec.generic:
            return
        if top and prop in (model.type_field, model.created_field, model.updated_field):
            return
        if any(prop in f.attribute for f in fields.values()):
            return  # the attribute name of a mapped field
        where = f"model {model.name!r}" if top else f"{path.rsplit('.', 1)[0]!r} of model {model.name!r}"
        message = f"${{{path}}}: {prop!r} is no property of {where}"
        best = suggest(prop, fields)
        if best is not None:
            message += f"; did you mean {best!r}?"
        raise ParameterError(message, param="where", suggestion=best)

    def expand(self, clause: str, fields: dict[str, Any] | None, substitutions: dict[str, Any] | None) -> str:
        """Expand a where/set clause: ``${name}``, ``@{var}`` / ``@{...list}`` and ``{value}`` tokens."""
        original = clause
        text = _NAME.sub(lambda m: self.target(fields, m.group(1), strict=True), str(clause))

        def substitute(match: re.Match) -> str:
            token = match.group(1)
            name = token[3:] if token.startswith("...") else token
            if not substitutions or name not in substitutions or substitutions[name] is None:
                message = f'Missing substitutions for attribute value "{name}" in "{original}"'
                best = suggest(name, substitutions or ())
                if best is not None:
                    message += f"; did you mean @{{{best}}}?"
                elif substitutions:
                    message += f" (substitutions has {', '.join(map(repr, substitutions))})"
                else:
                    message += " (no substitutions= given)"
                raise OneTableArgError(message, code="ArgError")
            value = substitutions[name]
            if token != name and isinstance(value, (list, tuple, set, frozenset)):
                return ", ".join(self.value(item) for item in value)
            return self.value(value)

        text = _SUB.sub(substitute, text)

        def literal(match: re.Match) -> str:
            token = match.group(1)
            if _NUMBER.match(token):
                return self.value(literal_number(token))
            if len(token) >= 2 and token.startswith('"') and token.endswith('"'):
                return self.value(token[1:-1])
            if token == "true" or token == "false":
                return self.value(token == "true")
            return self.value(token)

        return _VALUE.sub(literal, text)


__all__ = ["NEEDS_EXPANSION", "Placeholders", "literal_number"]
