"""Request building: OneTable's Expression — prepared properties + params -> one DynamoDB request.

The output is the low-level request dict (``TableName``, ``Key`` / ``Item`` as AttributeValues,
``KeyConditionExpression``, ``FilterExpression``, ``ConditionExpression``, ``UpdateExpression``, names as
``#_N`` and values as ``:_N``) that is passed to the client as keyword arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .codec import encode, encode_item
from .errors import OneTableArgError, OneTableError, ValidationError
from .where import NEEDS_EXPANSION, Placeholders

if TYPE_CHECKING:  # pragma: no cover
    from .model import Model

KEY_OPERATORS = ("<", "<=", "=", ">=", ">", "begins", "begins_with", "between")
_UPDATE_ORDER = ("add", "delete", "remove", "set")


class Expression:
    __slots__ = (
        "model",
        "op",
        "properties",
        "params",
        "index",
        "hash",
        "sort",
        "key_atts",
        "sort_atts",
        "key_names",
        "ph",
        "already",
        "conditions",
        "filters",
        "key",
        "keys",
        "mapped",
        "puts",
        "project",
        "updates",
        "fields",
    )

    def __init__(self, model: Model, op: str, properties: dict[str, Any], params: dict[str, Any]) -> None:
        self.model = model
        self.op = op
        self.properties = properties
        self.params = params
        self.index = model.select_index(params)
        self.hash = self.index.hash
        self.sort = self.index.sort
        #: every key attribute of the index, and its sort attributes (several for a multi-attribute key)
        self.key_atts = frozenset(self.index.keys)
        self.sort_atts = frozenset(self.index.sorts)
        self.key_names: list[str] = []  # the key attributes a find's key condition names
        self.ph = Placeholders(model)
        self.already: set[str] = set()
        self.conditions: list[str] = []
        self.filters: list[str] = []
        self.key: dict[str, Any] = {}
        self.keys: list[str] = []
        self.mapped: dict[str, dict[str, Any]] = {}
        self.puts: dict[str, Any] = {}
        self.project: list[str] = []
        self.updates: dict[str, list[str]] = {"add": [], "delete": [], "remove": [], "set": []}
        self.fields = model.spec.block.fields
        self._prepare()

    # -- building ---------------------------------------------------------------------------------------------

    def _prepare(self) -> None:
        op, params, fields = self.op, self.params, self.fields
        if op == "find":
            self._where_filters()
        elif op in ("delete", "put", "update", "check"):
            self._conditions()
        elif op == "scan":
            self._where_filters()
            # properties outside the model filter by their own name
            for name, value in self.properties.items():
                if name not in fields and value is not None:
                    self.filters.append(f"{self.ph.name(name)} = {self.ph.value(value)}")
                    self.already.add(name)

        self._add_properties(None, fields, self.properties)

        if self.mapped:
            for att, props in self.mapped.items():
                expected = self.model.spec.mappings.get(att, [])
                if len(props) != len(expected):
                    raise OneTableArgError(
                        f'Missing properties for mapped data field "{att}" in model "{self.model.name}"'
                    )
            for att, value in self.mapped.items():
                self._add(None, self.properties, _Packed(att), value)

        if params.get("fields"):
            for name in params["fields"]:
                if op == "batchGet":
                    self.project.append(self.ph.name(name))
                elif name in fields:
                    self.project.append(self.ph.name(fields[name].attribute[0]))

    def _add_properties(
        self, pathname: str | None, fields: dict[str, Any], properties: dict[str, Any]
    ) -> None:
        op = self.op
        model = self.model
        for name, value in properties.items():
            if name in self.already:
                continue
            field = fields.get(name)
            if field is not None:
                if (
                    op != "put"
                    and field.fields is not None
                    and value is not None
                    and model.partial_of(field, self.params)
                ):
                    path = f"{pathname}.{field.attribute[0]}" if pathname else field.attribute[0]
                    if field.is_array and isinstance(value, list):
                        for i, item in enumerate(value):
                            self._add_properties(f"{path}[{i}]", field.fields, item)
                    else:
                        self._add_properties(path, field.fields, value)
                else:
                    self._add(pathname, properties, field, value)
            elif model.spec.generic:
                self._add(pathname, properties, _Generic(name), value)

    def _add(self, pathname: str | None, properties: dict[str, Any], field: Any, value: Any) -> None:
        op = self.op
        attribute = field.attribute
        if len(attribute) > 1:
            # a packed field: collected into its map attribute, emitted once complete
            self.mapped.setdefault(attribute[0], {})[attribute[1]] = value
            return
        path = f"{pathname}.{attribute[0]}" if pathname else attribute[0]
        batch = self.params.get("batch") is not None
        if path in self.key_atts:
            if op == "find":
                self._add_key(field, value)
            elif op == "scan":
                if field.filter:
                    self._filter(path, value)
            elif op in ("delete", "get", "update", "check") and field.is_indexed:
                self.key[attribute[0]] = value
            elif op == "put" or (batch and op == "update"):
                self.puts[path] = value
        else:
            if op in ("find", "scan"):
                if field.filter and not batch and not isinstance(field, _Packed):
                    self._filter(path, value)
            elif op == "put" or (batch and op == "update"):
                self.puts[path] = value
            elif op == "update":
                self._add_update(path, field, value)

    def _conditions(self) -> None:
        params, ph = self.params, self.ph
        hash_, sort = self.index.hash, self.index.sort
        exists = params.get("exists")
        if exists is True:
            self.conditions.append(f"attribute_exists({ph.name(hash_)})")
            if sort:
                self.conditions.append(f"attribute_exists({ph.name(sort)})")
        elif exists is False:
            self.conditions.append(f"attribute_not_exists({ph.name(hash_)})")
            if sort:
                self.conditions.append(f"attribute_not_exists({ph.name(sort)})")
        if params.get("type") and sort:
            self.conditions.append(f"attribute_type({ph.name(sort)}, {params['type']})")
        if self.op == "update":
            self._update_clauses()
        if params.get("where"):
            self.conditions.append(ph.expand(params["where"], self.fields, params.get("substitutions")))

    def _where_filters(self) -> None:
        where = self.params.get("where")
        if where:
            self.filters.append(self.ph.expand(where, self.fields, self.params.get("substitutions")))

    def _filter(self, path: str, value: Any) -> None:
        if path in self.key_atts:
            return
        target, variable = self._key_value(path, value)
        self.filters.append(f"{target} = {variable}")

    def _add_key(self, field: Any, value: Any) -> None:
        ph = self.ph
        att = field.attribute[0]
        if att in self.sort_atts and isinstance(value, dict) and value:
            action, operand = next(iter(value.items()))
            if action not in KEY_OPERATORS:
                raise OneTableArgError(f'Invalid KeyCondition operator "{action}"')
            if action in ("begins_with", "begins") and operand in ("", b""):
                return  # DynamoDB refuses an empty key prefix, which would match the whole partition anyway
            self.key_names.append(att)
            name = ph.name(att)
            if action in ("begins_with", "begins"):
                self.keys.append(f"begins_with({name}, {ph.value(operand)})")
            elif action == "between":
                low, high = operand
                self.keys.append(f"{name} BETWEEN {ph.value(low)} AND {ph.value(high)}")
            else:
                self.keys.append(f"{name} {action} {ph.value(operand)}")
        else:
            self.key_names.append(att)
            self.keys.append(f"{ph.name(att)} = {ph.value(value)}")

    def _key_target(self, key: str) -> str:
        self.already.add(key)
        return self.ph.target(self.fields, key)

    def _key_value(self, key: str, value: Any) -> tuple[str, str]:
        target = self._key_target(key)
        if isinstance(value, str) and NEEDS_EXPANSION.search(value):
            return target, self.ph.expand(value, self.fields, self.params.get("substitutions"))
        return target, self.ph.value(value)

    def _add_update(self, path: str, field: Any, value: Any) -> None:
        params = self.params
        if path in self.key_atts:
            return
        if field.name == self.model.type_field and not (
            "exists" in params and params["exists"] in (None, False)
        ):
            # the type only needs writing when the update may create the item
            return
        remove = params.get("remove")
        if remove and field.name in remove:
            return
        target = self._key_target(path)
        self.updates["set"].append(f"{target} = {self.ph.value(value)}")

    def _update_clauses(self) -> None:
        params, updates = self.params, self.updates
        model = self.model

        def check(key: str, what: str) -> None:
            if key in self.key_atts:
                raise OneTableArgError(f"Cannot {what} hash or sort")

        for key, value in (params.get("add") or {}).items():
            check(key, "add")
            target, variable = self._key_value(key, model.update_operand(key, value, "add"))
            updates["add"].append(f"{target} {variable}")
        for key, value in (params.get("delete") or {}).items():
            check(key, "delete")
            target, variable = self._key_value(key, model.update_operand(key, value, "delete"))
            updates["delete"].append(f"{target} {variable}")
        remove = params.get("remove")
        if remove:
            if isinstance(remove, str):
                remove = params["remove"] = [remove]
            for key in remove:
                check(key, "remove")
                updates["remove"].append(self._key_target(key))
        for key, value in (params.get("set") or {}).items():
            check(key, "set")
            target, variable = self._key_value(key, model.update_operand(key, value, "set"))
            updates["set"].append(f"{target} = {variable}")
        for key, value in (params.get("push") or {}).items():
            check(key, "push")
            empty = self.ph.value([])
            items = self.ph.value(list(value) if isinstance(value, (list, tuple)) else [value])
            target = self._key_target(key)
            updates["set"].append(f"{target} = list_append(if_not_exists({target}, {empty}), {items})")

    def _check_multi_key(self) -> None:
        """A find on a multi-attribute key names every partition attribute, and sort attributes left to right
        (the key condition DynamoDB takes), or fails here saying which properties are missing."""
        named = set(self.key_names)
        missing = [a for a in self.index.hashes if a not in named]
        if missing:
            raise OneTableError(
                f'Missing hash key attributes {", ".join(missing)} for "find" on index "{self.index.name}"',
                code="MissingError",
            )
        given = [a for a in self.index.sorts if a in named]
        if given != list(self.index.sorts[: len(given)]):
            gap = [a for a in self.index.sorts[: self.index.sorts.index(given[-1])] if a not in named]
            raise OneTableArgError(
                f'Sort key attributes of index "{self.index.name}" are used left to right: "find" names '
                f"{given[-1]} but not {', '.join(gap)}"
            )

    # -- output -----------------------------------------------------------------------------------------------

    def command(self) -> dict[str, Any]:
        """The request; a value DynamoDB cannot store (an empty set, a mixed set, an object) is a
        :class:`ValidationError` saying which, and ``post_format`` may change the request last."""
        try:
            args = self._command()
        except (TypeError, ValueError) as error:
            if isinstance(error, OneTableError):
                raise
            raise ValidationError(
                f'Cannot build the "{self.op}" request for "{self.model.name}": {error}',
                model=self.model.name,
            ) from error
        post = self.params.get("post_format")
        if callable(post):
            args = post(self.model, args)
        return args

    def _command(self) -> dict[str, Any]:
        op, params = self.op, self.params
        if not self.key and self.puts.get(self.hash) is None and op not in ("scan", "find"):
            raise OneTableError(f'Cannot find hash key for "{op}"', code="MissingError")
        if op == "find" and not self.keys:
            raise OneTableError('Cannot find hash key for "find"', code="MissingError")
        if op == "find" and self.index.multi:
            self._check_multi_key()
        table_name = self.model.table.name

        if params.get("batch") is not None:
            if self.filters:
                raise OneTableArgError("Invalid filters with batch operation")
            if op == "get":
                return {"Keys": encode_item(self.key)}
            if op == "delete":
                return {"Key": encode_item(self.key)}
            if op in ("put", "update"):
                return {"Item": encode_item(self.puts)}
            raise OneTableArgError(f'Unsupported batch operation "{op}"')

        ph = self.ph
        args: dict[str, Any] = {"TableName": table_name}
        if self.conditions:
            args["ConditionExpression"] = _and(self.conditions)
        if ph.names:
            args["ExpressionAttributeNames"] = dict(ph.names)
            if ph.values:
                args["ExpressionAttributeValues"] = {k: encode(v) for k, v in ph.values.items()}
        if self.filters:
            args["FilterExpression"] = _and(self.filters)
        if self.keys:
            args["KeyConditionExpression"] = " and ".join(self.keys)
        if self.project:
            args["ProjectionExpression"] = ", ".join(self.project)
        select = params.get("select")
        if select:
            if self.project and select != "SPECIFIC_ATTRIBUTES":
                raise OneTableArgError("Select must be SPECIFIC_ATTRIBUTES with projection expressions")
            args["Select"] = select
        elif params.get("count"):
            if self.project:
                raise OneTableArgError("Cannot use select and count together")
            args["Select"] = "COUNT"
        if params.get("stats") is not None or params.get("capacity"):
            args["ReturnConsumedCapacity"] = params.get("capacity") or "TOTAL"

        returns = params.get("return_")
        return_values = None
        if returns is not None:
            if returns is True:
                return_values = "ALL_OLD" if op == "delete" else "ALL_NEW"
            elif returns is False or returns in ("none", "NONE"):
                return_values = "NONE"
            elif returns != "get":
                return_values = str(returns).upper()
        if op == "put":
            args["Item"] = encode_item(self.puts)
            args["ReturnValues"] = return_values or "NONE"
        elif op == "update":
            args["ReturnValues"] = return_values or "ALL_NEW"
            clauses = [
                f"{kind} {', '.join(self.updates[kind])}" for kind in _UPDATE_ORDER if self.updates[kind]
            ]
            if not clauses:
                raise OneTableArgError(f'Nothing to update for "{self.model.name}"')
            args["UpdateExpression"] = " ".join(clauses)
        elif op == "delete":
            args["ReturnValues"] = return_values or "ALL_OLD"
        if op in ("delete", "get", "update", "check"):
            args["Key"] = encode_item(self.key)
        if op in ("find", "get", "scan"):
            args["ConsistentRead"] = bool(params.get("consistent"))
            index = params.get("index")
            if index and index != "primary":
                args["IndexName"] = index
        if op in ("find", "scan"):
            if params.get("limit"):
                args["Limit"] = int(params["limit"])
            if op == "find":
                reverse = bool(params.get("reverse"))
                backwards = params.get("prev") is not None and params.get("next") is None
                args["ScanIndexForward"] = not (reverse ^ backwards)
            cursor = params.get("next") or params.get("prev")
            if cursor:
                args["ExclusiveStartKey"] = encode_item(self._cursor_key(cursor))
        if op == "scan":
            if params.get("segments") is not None:
                args["TotalSegments"] = int(params["segments"])
            if params.get("segment") is not None:
                args["Segment"] = int(params["segment"])
        return args

    def _cursor_key(self, cursor: dict[str, Any]) -> dict[str, Any]:
        start: dict[str, Any] = {}
        for index in (self.index, self.model.primary):
            for att in index.keys:
                if att and att in cursor and cursor[att] is not None:
                    start[att] = cursor[att]
        return start


class _Packed:
    """Pseudo-field for a packed map attribute (several fields mapped to ``att.sub``)."""

    __slots__ = ("name", "attribute", "filter", "is_indexed", "fields")

    def __init__(self, att: str) -> None:
        self.name = att
        self.attribute = (att,)
        self.filter = False
        self.is_indexed = False
        self.fields = None


class _Generic:
    """Pseudo-field for a property outside the schema (generic / low-level API)."""

    __slots__ = ("name", "attribute", "filter", "is_indexed", "fields")

    def __init__(self, name: str) -> None:
        self.name = name
        self.attribute = (name,)
        self.filter = True
        self.is_indexed = True
        self.fields = None


def key_operator_misuse(
    model: str, field: Any, template: Any, properties: Mapping[str, Any], path: str
) -> ValidationError | None:
    """The error for a sort-key operator (``{">=": 2}``) given to ``path``, a property that feeds the key template
    of ``field``: operators apply to a key attribute itself, not to the inputs of its template (as in OneTable)."""
    from ..schema.template import lookup

    value = lookup(properties, path)
    if not isinstance(value, Mapping) or len(value) != 1 or next(iter(value)) not in KEY_OPERATORS:
        return None
    operator, operand = next(iter(value.items()))
    text = getattr(template, "text", None) or field.value
    message = (
        f'Cannot use the sort-key operator {{"{operator}": {operand!r}}} on "{path}": "{path}" feeds the key '
        f'template "{text}" of "{field.name}", and operators apply to a key property itself. Give "{path}" a '
        f'plain value, or put the operator on "{field.name}"'
    )
    if operator != "between" and not isinstance(operand, (Mapping, list, tuple, set)):
        try:
            example = template.render({**properties, path: operand}, iso_dates=field.iso_dates)
        except (ValueError, TypeError):
            example = None
        if example is not None:
            message += f' ({{"{field.name}": {{"{operator}": {example!r}}}}})'
    return ValidationError(message, model=model, fields={path: message})


def _and(terms: list[str]) -> str:
    if len(terms) == 1:
        return terms[0]
    return " and ".join(f"({t})" for t in terms)


__all__ = ["Expression", "KEY_OPERATORS", "key_operator_misuse"]
