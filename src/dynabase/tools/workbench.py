"""NoSQL Workbench data models: export a OneTable schema to one, and read one back into a OneTable schema.

The Workbench format (what its data modeler imports and exports, format ``Version`` 3.0)::

    {"ModelName": ..., "ModelMetadata": {"Author", "DateCreated", "DateLastModified", "Description",
                                         "AWSService": "Amazon DynamoDB", "Version": "3.0"},
     "DataModel": [{"TableName": ...,
                    "KeyAttributes": {"PartitionKey": {"AttributeName", "AttributeType"}, "SortKey": {...}},
                    "NonKeyAttributes": [{"AttributeName", "AttributeType"}, ...],
                    "TableFacets": [{"FacetName", "KeyAttributeAlias": {"PartitionKeyAlias", "SortKeyAlias"},
                                     "TableData": [], "NonKeyAttributes": ["name", ...]}, ...],
                    "GlobalSecondaryIndexes": [{"IndexName", "KeyAttributes": {...},
                                                "Projection": {"ProjectionType", "NonKeyAttributes"?}}],
                    "TableData": [{"pk": {"S": ...}, ...}, ...],
                    "DataAccess": {"MySql": {}},
                    "BillingMode": "PAY_PER_REQUEST" | "PROVISIONED",
                    "ProvisionedCapacitySettings": {...}}]}

Export: one facet per model (entity), its aliases the key formats (``device#<deviceId>``), its non-key
attributes the model's stored attributes. ``TableData`` holds one sample item per model: key and templated
attributes show their format with ``<placeholders>``, the type attribute the model name, other attributes a
placeholder or a typed example. Local secondary indexes, which the Workbench modeler does not draw, are
written as ``LocalSecondaryIndexes`` in the same shape as the global ones.

Import (:func:`import_workbench`) reverses this: the indexes; one model per facet with the key attributes
and the facet's non-key attributes as fields (types from the DynamoDB attribute types); value templates from
``<placeholder>`` formats in the facet's sample items (the table's items whose type attribute names the
facet) or, for the table keys, in the key aliases; a key value shared by all the facet's sample items
becomes a literal template. Attributes named like the params' ``created``/``updated`` on every facet turn on
``params.timestamps``. The result is validated.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Mapping
from typing import Any

from ..schema import (
    Field,
    ModelDef,
    Schema,
    SchemaError,
    SchemaIssue,
    Template,
    TemplateError,
    validate_schema,
)
from .common import attribute_type, dynamo_projection, key_format, template_format
from .iac import IacOptions

__all__ = ["WORKBENCH_VERSION", "export_workbench", "import_workbench"]

WORKBENCH_VERSION = "3.0"
_FIELD_TYPES = {
    "S": "string",
    "N": "number",
    "B": "binary",
    "BOOL": "boolean",
    "M": "object",
    "L": "array",
    "SS": "set",
    "NS": "set",
    "BS": "set",
    "NULL": "string",
}
_TYPE_OF_FIELD = {
    "string": "S",
    "number": "N",
    "binary": "B",
    "boolean": "BOOL",
    "object": "M",
    "array": "L",
    "set": "SS",
    "date": "S",
}
_PLACEHOLDER = re.compile(r"<([^<>\s]+)>")
_MODEL_NAME = re.compile(r"^[A-Za-z_]\w*$", re.ASCII)


# -- export ------------------------------------------------------------------------------------------------


def _date_text(now: _dt.datetime | None) -> str:
    if now is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        if epoch and epoch.isdigit():
            now = _dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc)
        else:
            now = _dt.datetime.now(_dt.timezone.utc)
    return now.strftime("%b %d, %Y, %I:%M %p")


def _key(attribute: str, kind: str) -> dict[str, str]:
    return {"AttributeName": attribute, "AttributeType": kind}


def _key_attributes(hash_: str, sort: str | None, types: Mapping[str, str]) -> dict[str, Any]:
    keys = {"PartitionKey": _key(hash_, types.get(hash_, "S"))}
    if sort:
        keys["SortKey"] = _key(sort, types.get(sort, "S"))
    return keys


def _sample(model: ModelDef, f: Field) -> dict[str, Any]:
    """A DynamoDB-typed sample value for field ``f``: formats for templated fields, else a placeholder."""
    if f.value is not None:
        return {"S": template_format(f.value, {model.params.type_field: model.name})}
    if f.name == model.params.type_field:
        return {"S": model.name}
    placeholder = f"<{f.attribute if not f.packed else f.name}>"
    kind = attribute_type(f) if not f.packed else _TYPE_OF_FIELD.get(f.type, "S")
    if f.has_default and isinstance(f.default, (str, bool, int, float)):
        if kind == "S" and isinstance(f.default, str):
            return {"S": f.default}
        if kind == "BOOL" and isinstance(f.default, bool):
            return {"BOOL": f.default}
        if kind == "N" and isinstance(f.default, (int, float)) and not isinstance(f.default, bool):
            return {"N": str(f.default)}
    if kind == "S":
        return {"S": placeholder}
    if kind == "N":
        return {"N": "0"}
    if kind == "BOOL":
        return {"BOOL": False}
    if kind == "B":
        return {"B": ""}
    if kind == "M":
        return {"M": {}}
    if kind == "L":
        return {"L": []}
    return {"SS": [placeholder]}


def _sample_item(model: ModelDef) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for f in model.fields.values():
        if f.packed:
            packed = item.setdefault(f.attribute, {"M": {}})
            packed["M"][f.sub] = _sample(model, f)
        elif f.attribute not in item:
            item[f.attribute] = _sample(model, f)
    return item


def export_workbench(
    schema: Schema, options: IacOptions | str, *, now: _dt.datetime | None = None
) -> dict[str, Any]:
    """A NoSQL Workbench data model of ``schema``'s table (``options`` or just the table name)."""
    if isinstance(options, str):
        options = IacOptions(table=options)
    options.check()
    primary = schema.primary
    types = schema.key_attribute_types()
    key_names = set(primary.keys)
    non_key: dict[str, str] = {}
    for model in schema.models.values():
        for f in model.fields.values():
            if f.attribute in key_names:
                continue
            kind = types[f.attribute] if f.attribute in types else attribute_type(f)
            non_key.setdefault(f.attribute, kind)
    for attribute, kind in types.items():
        if attribute not in key_names:
            non_key.setdefault(attribute, kind)

    facets = []
    data = []
    for model in schema.models.values():
        hash_fmt = key_format(model, primary, "hash")
        sort_fmt = key_format(model, primary, "sort")
        alias = {"PartitionKeyAlias": hash_fmt.format if hash_fmt else primary.hash}
        if primary.sort:
            alias["SortKeyAlias"] = sort_fmt.format if sort_fmt else primary.sort
        attributes: list[str] = []
        for f in model.fields.values():
            if f.attribute not in key_names and f.attribute not in attributes:
                attributes.append(f.attribute)
        facets.append(
            {
                "FacetName": model.name,
                "KeyAttributeAlias": alias,
                "TableData": [],
                "NonKeyAttributes": attributes,
            }
        )
        data.append(_sample_item(model))

    table: dict[str, Any] = {
        "TableName": options.table,
        "KeyAttributes": _key_attributes(primary.hash, primary.sort, types),
        "NonKeyAttributes": [_key(name, kind) for name, kind in non_key.items()],
        "TableFacets": facets,
    }
    gsis: list[dict[str, Any]] = []
    lsis: list[dict[str, Any]] = []
    for index in schema.indexes.values():
        if index.kind == "primary":
            continue
        if index.multi:  # its KeyAttributes have one PartitionKey and one SortKey
            raise ValueError(
                f"index {index.name}: NoSQL Workbench's data model has no multi-attribute keys; use --format "
                "cloudformation, terraform or create-table for this schema"
            )
        entry = {
            "IndexName": index.name,
            "KeyAttributes": _key_attributes(index.hash, index.sort, types),
            "Projection": dynamo_projection(index, primary),
        }
        (lsis if index.kind == "local" else gsis).append(entry)
    if gsis:
        table["GlobalSecondaryIndexes"] = gsis
    if lsis:
        table["LocalSecondaryIndexes"] = lsis
    table["TableData"] = data
    table["DataAccess"] = {"MySql": {}}
    table["BillingMode"] = options.billing
    if options.provisioned:
        scaling = {
            "ScalableTargetRequest": {
                "MinCapacity": 1,
                "MaxCapacity": max(10, options.read_capacity, options.write_capacity),
                "ServiceRole": "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable",
            },
            "ScalingPolicyConfiguration": {"TargetValue": 70},
        }
        table["ProvisionedCapacitySettings"] = {
            "ProvisionedThroughput": options.throughput,
            "AutoScalingRead": scaling,
            "AutoScalingWrite": scaling,
        }
    date = _date_text(now)
    return {
        "ModelName": schema.name or options.table,
        "ModelMetadata": {
            "Author": "dynabase",
            "DateCreated": date,
            "DateLastModified": date,
            "Description": schema.description or f"OneTable schema version {schema.version}",
            "AWSService": "Amazon DynamoDB",
            "Version": WORKBENCH_VERSION,
        },
        "DataModel": [table],
    }


# -- import ------------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """The Python value of a DynamoDB-typed value (only what the import looks at: S, N, BOOL)."""
    if isinstance(value, Mapping) and len(value) == 1:
        ((kind, inner),) = value.items()
        if kind in ("S", "N", "BOOL"):
            return inner
    return None


def _to_template(text: str, own: set[str]) -> str | None:
    """``device#${deviceId}`` for ``device#<deviceId>``; ``None`` when ``text`` has no placeholders or is just
    the attribute's own placeholder (a plain field)."""
    if not isinstance(text, str):
        return None
    if "${" in text:
        candidate = text
    elif _PLACEHOLDER.search(text):
        candidate = _PLACEHOLDER.sub(lambda m: "${" + m.group(1) + "}", text)
    else:
        return None
    try:
        template = Template(candidate)
    except TemplateError:
        return None
    if not template.refs:
        return None
    if len(template.parts) == 1 and template.refs[0].path in own:
        return None
    return candidate


def _field_name(attribute: str, taken: set[str]) -> str:
    name = re.sub(r"[.:{}]", "_", attribute) or "_"
    base, n = name, 2
    while name in taken:
        name = f"{base}_{n}"
        n += 1
    return name


def _model_name(facet: str, taken: set[str]) -> str:
    name = facet if _MODEL_NAME.match(facet) else re.sub(r"\W", "_", facet, flags=re.ASCII)
    if not _MODEL_NAME.match(name):
        name = "M_" + name
    base, n = name, 2
    while name in taken:
        name = f"{base}_{n}"
        n += 1
    return name


def _pick_table(model: Mapping[str, Any], table: str | None) -> Mapping[str, Any]:
    tables = model.get("DataModel")
    if not isinstance(tables, list) or not tables:
        raise SchemaError(
            [SchemaIssue("DataModel", "a NoSQL Workbench model needs a DataModel list of tables")]
        )
    names = [t.get("TableName") for t in tables if isinstance(t, Mapping)]
    if table is None:
        if len(tables) > 1:
            raise SchemaError(
                [
                    SchemaIssue(
                        "DataModel",
                        f"the model has {len(tables)} tables ({', '.join(map(str, names))}); "
                        "choose one with --table",
                    )
                ]
            )
        only: Mapping[str, Any] = tables[0]
        return only
    for t in tables:
        if isinstance(t, Mapping) and t.get("TableName") == table:
            return t
    raise SchemaError(
        [SchemaIssue("DataModel", f"no table {table!r}; the model has {', '.join(map(str, names))}")]
    )


def _index_from(entry: Mapping[str, Any], local: bool) -> dict[str, Any]:
    keys = entry.get("KeyAttributes") or {}
    spec: dict[str, Any] = {}
    if local:
        spec["type"] = "local"
    else:
        spec["hash"] = keys["PartitionKey"]["AttributeName"]
    if keys.get("SortKey"):
        spec["sort"] = keys["SortKey"]["AttributeName"]
    projection = entry.get("Projection") or {}
    kind = projection.get("ProjectionType", "ALL")
    if kind == "KEYS_ONLY":
        spec["project"] = "keys"
    elif kind == "INCLUDE":
        spec["project"] = list(projection.get("NonKeyAttributes") or [])
    return spec


def import_workbench(
    model: Mapping[str, Any], *, table: str | None = None, version: str = "1.0.0"
) -> dict[str, Any]:
    """A OneTable schema document (a dict, validated) from a NoSQL Workbench data model."""
    source = _pick_table(model, table)
    try:
        keys = source["KeyAttributes"]
        hash_ = keys["PartitionKey"]["AttributeName"]
    except (KeyError, TypeError):
        raise SchemaError(
            [SchemaIssue("DataModel.KeyAttributes", "missing PartitionKey.AttributeName")]
        ) from None
    sort = (keys.get("SortKey") or {}).get("AttributeName")

    indexes: dict[str, Any] = {"primary": {"hash": hash_, **({"sort": sort} if sort else {})}}
    for entry in source.get("GlobalSecondaryIndexes") or []:
        indexes[entry["IndexName"]] = _index_from(entry, local=False)
    for entry in source.get("LocalSecondaryIndexes") or []:
        indexes[entry["IndexName"]] = _index_from(entry, local=True)
    index_keys = {hash_, *([sort] if sort else [])}
    for index_spec in indexes.values():
        index_keys.update(v for k, v in index_spec.items() if k in ("hash", "sort"))

    types: dict[str, str] = {}
    for entry in [keys.get("PartitionKey"), keys.get("SortKey"), *(source.get("NonKeyAttributes") or [])]:
        if entry:
            types.setdefault(entry["AttributeName"], entry.get("AttributeType", "S"))
    for entry in [
        *(source.get("GlobalSecondaryIndexes") or []),
        *(source.get("LocalSecondaryIndexes") or []),
    ]:
        for key in (entry.get("KeyAttributes") or {}).values():
            types.setdefault(key["AttributeName"], key.get("AttributeType", "S"))

    facets = [f for f in source.get("TableFacets") or [] if isinstance(f, Mapping) and f.get("FacetName")]
    if not facets:
        # a model without facets: one entity with every attribute of the table
        everything = [
            e["AttributeName"] for e in source.get("NonKeyAttributes") or [] if isinstance(e, Mapping)
        ]
        facets = [{"FacetName": str(source.get("TableName") or "Item"), "NonKeyAttributes": everything}]
    items = [i for i in source.get("TableData") or [] if isinstance(i, Mapping)]
    facet_names = {f["FacetName"] for f in facets}

    # the type attribute: the one whose item values name facets (OneTable's default otherwise)
    type_field = "_type"
    best = 0
    for attribute in sorted({a for item in items for a in item}):
        hits = sum(1 for item in items if _plain(item.get(attribute)) in facet_names)
        if hits > best or (hits == best and hits and attribute == "_type"):
            type_field, best = attribute, hits

    listed = [set(f.get("NonKeyAttributes") or []) for f in facets]
    params: dict[str, Any] = {}
    if type_field != "_type":
        params["typeField"] = type_field
    stamps = [name for name in ("created", "updated") if listed and all(name in s for s in listed)]
    if stamps:
        params["timestamps"] = True if len(stamps) == 2 else ("create" if stamps == ["created"] else "update")
        params["isoDates"] = types.get(stamps[0]) == "S"

    models: dict[str, Any] = {}
    for facet in facets:
        name = _model_name(facet["FacetName"], set(models))
        mine: list[Mapping[str, Any]] = [
            dict(i) for i in facet.get("TableData") or [] if isinstance(i, Mapping)
        ]
        mine += [i for i in items if _plain(i.get(type_field)) == facet["FacetName"]]
        alias = facet.get("KeyAttributeAlias") or {}
        aliases: dict[str, Any] = {hash_: alias.get("PartitionKeyAlias")}
        if sort:
            aliases[sort] = alias.get("SortKeyAlias")
        attributes = [hash_] + ([sort] if sort else [])
        for attribute in facet.get("NonKeyAttributes") or []:
            if attribute not in attributes:
                attributes.append(attribute)
        fields: dict[str, Any] = {}
        for attribute in attributes:
            if attribute == type_field or attribute in stamps:
                continue
            fname = _field_name(attribute, set(fields))
            spec: dict[str, Any] = {"type": _FIELD_TYPES.get(types.get(attribute, "S"), "string")}
            if fname != attribute:
                spec["map"] = attribute
            own = {attribute, fname}
            values = [_plain(i.get(attribute)) for i in mine if attribute in i]
            template = None
            if values:
                template = _to_template(values[0], own) if isinstance(values[0], str) else None
                if (
                    template is None
                    and attribute in index_keys
                    and isinstance(values[0], str)
                    and len(values) == len(mine)
                    and all(v == values[0] for v in values)
                    and not _PLACEHOLDER.fullmatch(values[0])
                ):
                    template = values[0]
            elif attribute in aliases and isinstance(aliases[attribute], str):
                template = _to_template(aliases[attribute], own)
            if template is not None:
                spec = {
                    "type": "string",
                    "value": template,
                    **({"map": attribute} if fname != attribute else {}),
                }
            fields[fname] = spec
        # fields the templates refer to but the facet does not list
        for spec in list(fields.values()):
            if "value" in spec:
                for root in Template(spec["value"]).roots:
                    if root not in fields and root != type_field and root not in stamps:
                        fields[root] = {"type": "string"}
        models[name] = fields

    doc: dict[str, Any] = {"format": "onetable:1.1.0", "version": version}
    if model.get("ModelName"):
        doc["name"] = str(model["ModelName"])
    description = (model.get("ModelMetadata") or {}).get("Description")
    if description:
        doc["description"] = str(description)
    doc["indexes"] = indexes
    doc["models"] = models
    if params:
        doc["params"] = params
    errors = [i for i in validate_schema(doc) if i.severity == "error"]
    if errors:
        raise SchemaError(errors)
    return doc
