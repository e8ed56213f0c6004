"""``dynabase iac``: infrastructure as code for the table a OneTable schema describes.

Formats (:data:`FORMATS`):

``cloudformation`` / ``cloudformation-yaml``
    A CloudFormation template with one ``AWS::DynamoDB::Table``: AttributeDefinitions (from
    :meth:`Schema.key_attribute_types`), KeySchema, GlobalSecondaryIndexes / LocalSecondaryIndexes with their
    projections (``project: 'keys' | 'all' | [...]`` -> ``KEYS_ONLY`` / ``ALL`` / ``INCLUDE``), BillingMode
    (and ProvisionedThroughput), StreamSpecification, TimeToLiveSpecification (the schema's ``ttl`` field),
    PointInTimeRecoverySpecification, DeletionProtectionEnabled from a ``DeletionProtection`` parameter, and
    tags; outputs the table's name and ARN (and stream ARN). YAML needs PyYAML (``pip install dynabase[yaml]``).
``terraform``
    Terraform JSON (``*.tf.json``): ``resource.aws_dynamodb_table.<name>`` with a ``deletion_protection``
    variable and outputs.
``workbench``
    A NoSQL Workbench data model (see :mod:`dynabase.tools.workbench`).
``create-table``
    The DynamoDB CreateTable request itself (``aws dynamodb create-table --cli-input-json``), as
    :func:`create_table_request` derives it from the CloudFormation properties.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..clock import TTL_ATTR
from ..model.syncmeta import sync_index_definition
from ..schema import Index, Schema
from .common import dynamo_projection

__all__ = [
    "BILLING_MODES",
    "FORMATS",
    "STREAM_VIEW_TYPES",
    "IacOptions",
    "apply_table_extras",
    "table_extras",
    "table_extras_commands",
    "cloudformation",
    "create_table_request",
    "render",
    "synced_models",
    "terraform",
    "to_yaml",
    "ttl_attribute",
]

FORMATS = ("cloudformation", "cloudformation-yaml", "terraform", "workbench", "create-table")
BILLING_MODES = ("PAY_PER_REQUEST", "PROVISIONED")
STREAM_VIEW_TYPES = ("NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY")
TABLE_NAME = re.compile(r"^[A-Za-z0-9_.\-]{3,255}$")
RESOURCE = "Table"


@dataclass
class IacOptions:
    """What to put around the schema's keys and indexes.

    ``ttl``: ``None`` uses the schema's ``ttl`` field when it has one; ``False`` leaves TTL off; a string
    names the TTL attribute (it must be the schema's when the schema has one)."""

    table: str
    billing: str = "PAY_PER_REQUEST"
    read_capacity: int = 5
    write_capacity: int = 5
    stream: str | None = None
    ttl: str | bool | None = None
    pitr: bool = True
    deletion_protection: bool = True
    tags: dict[str, str] = field(default_factory=dict)
    description: str | None = None

    def check(self) -> None:
        if not TABLE_NAME.match(self.table):
            raise ValueError(
                f"invalid table name {self.table!r}: 3 to 255 characters of A-Z, a-z, 0-9, '_', '-' and '.'"
            )
        if self.billing not in BILLING_MODES:
            raise ValueError(f"unknown billing mode {self.billing!r}; use {' or '.join(BILLING_MODES)}")
        if self.stream is not None and self.stream not in STREAM_VIEW_TYPES:
            raise ValueError(
                f"unknown stream view type {self.stream!r}; use one of {', '.join(STREAM_VIEW_TYPES)}"
            )
        if self.read_capacity < 1 or self.write_capacity < 1:
            raise ValueError("read and write capacity must be at least 1")

    @property
    def provisioned(self) -> bool:
        return self.billing == "PROVISIONED"

    @property
    def throughput(self) -> dict[str, int]:
        return {"ReadCapacityUnits": self.read_capacity, "WriteCapacityUnits": self.write_capacity}


def ttl_attribute(schema: Schema) -> str | None:
    """The attribute of the schema's ``ttl: true`` field (validation allows one per table), if any."""
    for model in schema.models.values():
        for f in model.fields.values():
            if f.ttl:
                return f.attribute
    return None


def synced_models(schema: Schema) -> list[str]:
    """The models that sync between device and cloud (``process.<Model>.sync``, enabled on both sides)."""
    return [name for name, p in schema.process.items() if p.sync != "none" and p.enable == "both"]


def _ttl(schema: Schema, options: IacOptions) -> str | None:
    declared = ttl_attribute(schema)
    if options.ttl is False:
        return None
    if options.ttl is None or options.ttl is True:
        if options.ttl is True and declared is None:
            raise ValueError("--ttl: the schema has no ttl field; name the attribute: --ttl ATTRIBUTE")
        return declared
    if declared is not None and options.ttl != declared:
        raise ValueError(f"--ttl {options.ttl}: the schema's ttl field is stored in {declared!r}")
    return options.ttl


# -- the table definition (CreateTable / CloudFormation share these property names) --------------------------


def _key_schema(index: Index) -> list[dict[str, str]]:
    """An index's KeySchema: every partition attribute, then every sort attribute (several each for a
    multi-attribute key)."""
    return [{"AttributeName": a, "KeyType": "HASH"} for a in index.hashes] + [
        {"AttributeName": a, "KeyType": "RANGE"} for a in index.sorts
    ]


def table_properties(schema: Schema, options: IacOptions) -> dict[str, Any]:
    """``AWS::DynamoDB::Table`` properties for ``schema`` (without intrinsic functions)."""
    options.check()
    primary = schema.primary
    types = schema.key_attribute_types()
    props: dict[str, Any] = {
        "TableName": options.table,
        "AttributeDefinitions": [
            {"AttributeName": name, "AttributeType": kind} for name, kind in types.items()
        ],
        "KeySchema": _key_schema(primary),
        "BillingMode": options.billing,
    }
    if options.provisioned:
        props["ProvisionedThroughput"] = options.throughput
    gsis: list[dict[str, Any]] = []
    lsis: list[dict[str, Any]] = []
    for index in schema.indexes.values():
        if index.kind == "primary":
            continue
        entry: dict[str, Any] = {
            "IndexName": index.name,
            "KeySchema": _key_schema(index),
            "Projection": dynamo_projection(index, primary),
        }
        if index.kind == "local":
            lsis.append(entry)
        else:
            if options.provisioned:
                entry["ProvisionedThroughput"] = options.throughput
            gsis.append(entry)
    synced = bool(synced_models(schema))
    if synced:  # devices pull from the sync index (see dynabase.sync)
        sync_index, attributes = sync_index_definition()
        if options.provisioned:
            sync_index["ProvisionedThroughput"] = options.throughput
        gsis.append(sync_index)
        props["AttributeDefinitions"] += [a for a in attributes if a["AttributeName"] not in types]
    if gsis:
        props["GlobalSecondaryIndexes"] = gsis
    if lsis:
        props["LocalSecondaryIndexes"] = lsis
    if options.stream:
        props["StreamSpecification"] = {"StreamViewType": options.stream}
    ttl = _ttl(schema, options)
    if synced and ttl is None and options.ttl is not False:
        ttl = TTL_ATTR  # sync's tombstones expire
    if ttl:
        props["TimeToLiveSpecification"] = {"AttributeName": ttl, "Enabled": True}
    if options.pitr:
        props["PointInTimeRecoverySpecification"] = {"PointInTimeRecoveryEnabled": True}
    if options.tags:
        props["Tags"] = [{"Key": k, "Value": v} for k, v in sorted(options.tags.items())]
    return props


def cloudformation(schema: Schema, options: IacOptions) -> dict[str, Any]:
    """A CloudFormation template (as a dict) creating the schema's table."""
    props = table_properties(schema, options)
    props["DeletionProtectionEnabled"] = {"Ref": "DeletionProtection"}
    ordered = {k: props[k] for k in props if k != "Tags"}
    if "Tags" in props:
        ordered["Tags"] = props["Tags"]
    description = options.description or (
        f"DynamoDB table {options.table}"
        + (f" for {schema.name}" if schema.name else "")
        + f" (OneTable schema, version {schema.version}), made by dynabase iac"
    )
    outputs: dict[str, Any] = {
        "TableName": {"Description": "The table's name", "Value": {"Ref": RESOURCE}},
        "TableArn": {"Description": "The table's ARN", "Value": {"Fn::GetAtt": [RESOURCE, "Arn"]}},
    }
    if options.stream:
        outputs["StreamArn"] = {
            "Description": "The table's stream ARN",
            "Value": {"Fn::GetAtt": [RESOURCE, "StreamArn"]},
        }
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": description[:1024],
        "Parameters": {
            "DeletionProtection": {
                "Type": "String",
                "AllowedValues": ["true", "false"],
                "Default": "true" if options.deletion_protection else "false",
                "Description": "Refuse to delete the table (DeletionProtectionEnabled)",
            }
        },
        "Resources": {
            RESOURCE: {
                "Type": "AWS::DynamoDB::Table",
                "DeletionPolicy": "Retain",
                "UpdateReplacePolicy": "Retain",
                "Properties": ordered,
            }
        },
        "Outputs": outputs,
    }


def to_yaml(document: Mapping[str, Any]) -> str:
    """``document`` as YAML (block style, keys in order). Needs PyYAML."""
    try:
        import yaml
    except ImportError:
        raise RuntimeError(
            "YAML output needs PyYAML: pip install 'dynabase[yaml]' (or pip install pyyaml)"
        ) from None

    class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # PyYAML has no type hints: SafeDumper is Any
        def ignore_aliases(self, data: Any) -> bool:  # no &id001 anchors for repeated dicts
            return True

    text: str = yaml.dump(
        document, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=110
    )
    return text


# -- Terraform ---------------------------------------------------------------------------------------------


def _tf_name(table: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", table)
    return name if re.match(r"^[A-Za-z_]", name) else "t_" + name


def _tf_projection(projection: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"projection_type": projection["ProjectionType"]}
    if projection.get("NonKeyAttributes"):
        out["non_key_attributes"] = list(projection["NonKeyAttributes"])
    return out


def terraform(schema: Schema, options: IacOptions) -> dict[str, Any]:
    """Terraform JSON configuration (``main.tf.json``) creating the schema's table."""
    props = table_properties(schema, options)
    primary = schema.primary
    label = _tf_name(options.table)
    table: dict[str, Any] = {
        "name": options.table,
        "billing_mode": options.billing,
        "hash_key": primary.hash,
    }
    if primary.sort:
        table["range_key"] = primary.sort
    if options.provisioned:
        table["read_capacity"] = options.read_capacity
        table["write_capacity"] = options.write_capacity
    table["attribute"] = [
        {"name": a["AttributeName"], "type": a["AttributeType"]} for a in props["AttributeDefinitions"]
    ]
    gsis = []
    for gsi in props.get("GlobalSecondaryIndexes", []):
        entry: dict[str, Any] = {"name": gsi["IndexName"]}
        kinds = [k["KeyType"] for k in gsi["KeySchema"]]
        if kinds.count("HASH") > 1 or kinds.count("RANGE") > 1:
            # a multi-attribute key: the provider's key_schema blocks (hash_key/range_key hold one attribute)
            entry["key_schema"] = [
                {"attribute_name": k["AttributeName"], "key_type": k["KeyType"]} for k in gsi["KeySchema"]
            ]
        else:
            entry["hash_key"] = gsi["KeySchema"][0]["AttributeName"]
            if len(gsi["KeySchema"]) > 1:
                entry["range_key"] = gsi["KeySchema"][1]["AttributeName"]
        entry.update(_tf_projection(gsi["Projection"]))
        if options.provisioned:
            entry["read_capacity"] = options.read_capacity
            entry["write_capacity"] = options.write_capacity
        gsis.append(entry)
    if gsis:
        table["global_secondary_index"] = gsis
    lsis = []
    for lsi in props.get("LocalSecondaryIndexes", []):
        entry = {"name": lsi["IndexName"], "range_key": lsi["KeySchema"][1]["AttributeName"]}
        entry.update(_tf_projection(lsi["Projection"]))
        lsis.append(entry)
    if lsis:
        table["local_secondary_index"] = lsis
    if options.stream:
        table["stream_enabled"] = True
        table["stream_view_type"] = options.stream
    if "TimeToLiveSpecification" in props:
        table["ttl"] = {"attribute_name": props["TimeToLiveSpecification"]["AttributeName"], "enabled": True}
    if options.pitr:
        table["point_in_time_recovery"] = {"enabled": True}
    table["deletion_protection_enabled"] = "${var.deletion_protection}"
    if options.tags:
        table["tags"] = dict(sorted(options.tags.items()))
    ref = f"aws_dynamodb_table.{label}"
    outputs: dict[str, Any] = {
        "table_name": {"value": f"${{{ref}.name}}"},
        "table_arn": {"value": f"${{{ref}.arn}}"},
    }
    if options.stream:
        outputs["stream_arn"] = {"value": f"${{{ref}.stream_arn}}"}
    return {
        "variable": {
            "deletion_protection": {
                "type": "bool",
                "default": options.deletion_protection,
                "description": "Refuse to delete the table",
            }
        },
        "resource": {"aws_dynamodb_table": {label: table}},
        "output": outputs,
    }


# -- CloudFormation properties -> CreateTable --------------------------------------------------------------


def _resolve(value: Any, parameters: Mapping[str, Any]) -> Any:
    if isinstance(value, Mapping) and set(value) == {"Ref"}:
        name = value["Ref"]
        if name not in parameters:
            raise ValueError(f"unresolved Ref {name!r}")
        return parameters[name]
    return value


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


def create_table_request(
    template_or_properties: Mapping[str, Any], parameters: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The CreateTable request matching an ``AWS::DynamoDB::Table`` (a whole template, whose first table
    resource is used, or its Properties). ``Ref`` to a template parameter resolves to ``parameters`` or the
    parameter's Default. TTL and point-in-time recovery are not part of CreateTable: see
    :func:`apply_table_extras`."""
    props: Mapping[str, Any] = template_or_properties
    params: dict[str, Any] = {}
    if "Resources" in template_or_properties:
        for name, spec in (template_or_properties.get("Parameters") or {}).items():
            if "Default" in spec:
                params[name] = spec["Default"]
        tables = [
            r for r in template_or_properties["Resources"].values() if r.get("Type") == "AWS::DynamoDB::Table"
        ]
        if not tables:
            raise ValueError("the template has no AWS::DynamoDB::Table resource")
        props = tables[0].get("Properties") or {}
    params.update(parameters or {})
    request: dict[str, Any] = {}
    for key in (
        "TableName",
        "AttributeDefinitions",
        "KeySchema",
        "BillingMode",
        "ProvisionedThroughput",
        "GlobalSecondaryIndexes",
        "LocalSecondaryIndexes",
        "Tags",
        "TableClass",
    ):
        if key in props:
            request[key] = json.loads(json.dumps(_resolve(props[key], params)))
    stream = props.get("StreamSpecification")
    if stream:
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
    if "DeletionProtectionEnabled" in props:
        request["DeletionProtectionEnabled"] = _bool(_resolve(props["DeletionProtectionEnabled"], params))
    sse = props.get("SSESpecification")
    if sse:
        spec = {"Enabled": _bool(sse.get("SSEEnabled"))}
        for src, dst in (("SSEType", "SSEType"), ("KMSMasterKeyId", "KMSMasterKeyId")):
            if src in sse:
                spec[dst] = sse[src]
        request["SSESpecification"] = spec
    return request


def table_extras(template_or_properties: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """What CloudFormation and Terraform set besides CreateTable (TTL, point-in-time recovery), as the
    ``(operation, request)`` calls that enable them on a created table: CreateTable cannot carry them."""
    props: Mapping[str, Any] = template_or_properties
    if "Resources" in template_or_properties:
        props = next(
            r["Properties"]
            for r in template_or_properties["Resources"].values()
            if r.get("Type") == "AWS::DynamoDB::Table"
        )
    name = props["TableName"]
    calls: list[tuple[str, dict[str, Any]]] = []
    ttl = props.get("TimeToLiveSpecification")
    if ttl and _bool(ttl.get("Enabled")):
        spec = {"AttributeName": ttl["AttributeName"], "Enabled": True}
        calls.append(("update_time_to_live", {"TableName": name, "TimeToLiveSpecification": spec}))
    pitr = props.get("PointInTimeRecoverySpecification")
    if pitr and _bool(pitr.get("PointInTimeRecoveryEnabled")):
        spec = {"PointInTimeRecoveryEnabled": True}
        calls.append(
            ("update_continuous_backups", {"TableName": name, "PointInTimeRecoverySpecification": spec})
        )
    return calls


def apply_table_extras(client: Any, template_or_properties: Mapping[str, Any]) -> None:
    """Enable what CloudFormation sets besides CreateTable (TTL, point-in-time recovery) on a created table,
    through a boto3-style ``client``."""
    for operation, request in table_extras(template_or_properties):
        getattr(client, operation)(**request)


def table_extras_commands(template_or_properties: Mapping[str, Any]) -> list[str]:
    """The AWS CLI commands that enable :func:`table_extras` once the table exists (``aws dynamodb
    create-table --cli-input-json`` creates the table without them)."""
    commands = []
    for operation, request in table_extras(template_or_properties):
        args = [f"aws dynamodb {operation.replace('_', '-')}", f"--table-name {request['TableName']}"]
        for name, spec in request.items():
            if name != "TableName":
                flag = re.sub(r"(?<!^)([A-Z])", r"-\1", name).lower()
                shorthand = ",".join(
                    f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in spec.items()
                )
                args.append(f"--{flag} {shorthand}")
        commands.append(" ".join(args))
    return commands


# -- entry point -------------------------------------------------------------------------------------------


def render(schema: Schema, format: str, options: IacOptions, *, now: Any = None) -> str:
    """The text of ``format`` for ``schema``."""
    if format not in FORMATS:
        raise ValueError(f"unknown iac format {format!r}; use one of {', '.join(FORMATS)}")
    if format == "cloudformation":
        return json.dumps(cloudformation(schema, options), indent=2, ensure_ascii=False) + "\n"
    if format == "cloudformation-yaml":
        return to_yaml(cloudformation(schema, options))
    if format == "terraform":
        return json.dumps(terraform(schema, options), indent=2, ensure_ascii=False) + "\n"
    if format == "create-table":
        return (
            json.dumps(create_table_request(cloudformation(schema, options)), indent=2, ensure_ascii=False)
            + "\n"
        )
    from .workbench import export_workbench

    return json.dumps(export_workbench(schema, options, now=now), indent=2, ensure_ascii=False) + "\n"
