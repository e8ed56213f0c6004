"""Key templates: value templates run in dependency order (an unresolved sort key of a query becomes a
``begins_with`` on its resolved prefix), and the compiled key plan: a model's primary key built straight from
properties when its key fields allow (``get``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from ..clock import DELETED_ATTR
from ..schema.template import lookup
from .base import ModelBase
from .codec import encode
from .errors import OneTableArgError, ValidationError
from .expression import key_operator_misuse
from .spec import FieldSpec, IndexSpec, make_template
from .templates import inline_render

#: params a get by key takes without the general pipeline
GET_PARAMS = frozenset(("consistent",))
#: what :meth:`KeyPath._get_by_key` returns when the call needs the general path
GENERAL: Any = object()


class KeyPath(ModelBase):
    """The direct key building of a Model."""

    def _compile_keys(self) -> None:
        """The primary key fields, when every one is a plain string or number field (its template, if any, over
        untemplated fields): ``get`` then builds the key with ``_fast_key``, generated for them (see
        :func:`compile_key`), without the general pipeline."""
        keys = []
        templated = {name for name, f in self.fields.items() if f.value}
        self._key_fields: list[FieldSpec] | None = None
        for att in (self.primary.hash, self.primary.sort):
            if att is None:
                continue
            field = next((f for f in self.fields.values() if f.attribute == (att,)), None)
            if (
                field is None
                or field.crypt
                or field.encode
                or field.value is True
                or field.type not in ("string", "number")
                or (field.template is not None and any(root in templated for root in field.template.roots))
            ):
                return
            keys.append(field)
        if self.spec.generic:
            return
        self._key_fields = keys
        self._fast_key = compile_key(keys, self.type_field, self.name)

    def _get_by_key(self, properties: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        """``get`` by the primary key built from ``properties``: the item read through the compiled reader, None
        when there is none, or :data:`GENERAL` when the call needs the general path."""
        table = self.table
        if table.context or table.transform is not None or table.hidden:
            return GENERAL
        key = self._fast_key(properties)
        if key is None:
            return GENERAL
        try:  # Table.execute's call, with none of the params it reads (GET_PARAMS has none of them)
            response = table.client.get_item(
                TableName=table.name, Key=key, ConsistentRead=bool(params.get("consistent"))
            )
        except Exception as error:
            raise table.call_error(self.name, "get", error) from error
        raw = response.get("Item")
        if not raw or DELETED_ATTR in raw:  # none, or a sync tombstone
            return None
        read_own = self._read_own  # None for an item of another model (read by that model below)
        if read_own is not None:
            found = read_own(raw)
            if found is not None:
                return found
        items = self._read_raw_items("get", [raw], {"parse": True})
        return items[0] if items else None

    def _run_templates(
        self,
        op: str,
        path: str,
        index: IndexSpec,
        deps: list[FieldSpec],
        properties: dict[str, Any],
        p: Mapping[str, Any],
    ) -> None:
        for field in deps:
            if field.fields is not None or not field.value:
                continue
            att = field.attribute[0]
            if field.is_indexed and op not in ("put", "update") and att not in index.keys:
                continue  # keys of an index this call does not use
            name = field.name
            if field.value is True:
                fn = self.table.value_fn
                if fn is not None:
                    properties[name] = fn(self, f"{path}.{name}" if path else name, properties, p)
            elif name not in properties:
                value = self._run_template(op, index, field, properties, p, field.template)
                if value is not None:
                    properties[name] = value

    def _render(self, field: FieldSpec, text_or_template: Any, properties: Mapping[str, Any]) -> Any:
        template = text_or_template
        if isinstance(template, str):
            template = make_template(template)
        try:
            return template.render(properties, iso_dates=field.iso_dates)
        except ValueError as error:
            culprits = {
                path: f'Value for "{path}" is not a primitive value (used by "{field.name}")'
                for path in getattr(template, "fields", ())
                if isinstance(lookup(properties, path), (dict, list, tuple, set, frozenset))
            }
            for path in culprits:  # a sort-key operator on a template input: the layer's validation error
                misuse = key_operator_misuse(self.name, field, template, properties, path)
                if misuse is not None:
                    raise misuse from error
            if culprits:  # a map or list where the template needs a scalar: OneTable fails with a TypeError
                raise OneTableArgError(next(iter(culprits.values())), code="TypeError") from error
            raise ValidationError(
                model=self.name, fields={field.name: f'Bad value for template of "{field.name}": {error}'}
            ) from error

    def _run_template(
        self,
        op: str,
        index: IndexSpec | None,
        field: FieldSpec,
        properties: Mapping[str, Any],
        p: Mapping[str, Any],
        template: Any,
    ) -> Any:
        value = self._render(field, template, properties)
        if value is not None:
            return value
        if index is not None and op == "find" and field.attribute[0] == index.sort:
            try:
                prefix = template.prefix(properties, iso_dates=field.iso_dates)
            except ValueError:
                prefix = ""
            if prefix:
                return {"begins": prefix}
        return None


def compile_key(fields: list[FieldSpec], type_field: str, model: str) -> Callable[[Mapping[str, Any]], Any]:
    """``key(properties)``: the primary key (attribute -> AttributeValue) of the key ``fields`` (plain string or
    number fields), each given or made by its value template (simple templates inlined); None when the general
    path must build it (a value missing or of another type, a template that fails)."""
    lines = ["def key(properties):"]
    namespace: dict[str, Any] = {"encode": encode, "Decimal": Decimal}
    for i, field in enumerate(fields):
        value = f"k{i}"
        lines += [f"    {value} = properties.get({field.name!r})"]
        template = field.template
        if template is not None:
            namespace[f"render{i}"] = template.renderer
            general = f"render{i}(values, {field.iso_dates!r})"
            reads_type = type_field in template.roots
            lines += [
                f"    if {value} is None:",
                f"        values = {{**properties, {type_field!r}: {model!r}}}"
                if reads_type
                else "        values = properties",
                "        try:",
                *(
                    inline_render(template.parts, "values", value, general, "            ")
                    if getattr(template, "simple", False)
                    else [f"            {value} = {general}"]
                ),
                "        except ValueError:",
                "            return None",
            ]
        if field.type == "string":
            lines += [
                f"    if type({value}) is not str:",
                "        return None",
                f"    {value} = {{'S': {value}}}",
            ]
        else:
            lines += [
                f"    if type({value}) is int:",
                f"        {value} = {{'N': str({value})}}",
                f"    elif type({value}) is Decimal or type({value}) is float:",
                f"        {value} = encode({value})",
                "    else:",
                "        return None",
            ]
    items = ", ".join(f"{field.attribute[0]!r}: k{i}" for i, field in enumerate(fields))
    lines.append(f"    return {{{items}}}")
    exec("\n".join(lines), namespace)  # noqa: S102
    key: Callable[[Mapping[str, Any]], Any] = namespace["key"]
    return key
