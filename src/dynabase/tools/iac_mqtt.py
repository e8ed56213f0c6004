"""``dynabase iac --sync mqtt``: the table plus the AWS deployment of the MQTT sync hub.

Protocol ``dynabase-sync/1`` over MQTT, QoS 1 (T the table, D the device id, which is its MQTT client id):
``dynabase/v1/T/up/D`` device -> hub, ``dynabase/v1/T/down/D`` hub -> one device, ``dynabase/v1/T/shared/M``
hub -> every device (model M). On AWS:

- an IoT topic rule ``SELECT *, topic(5) AS deviceId FROM 'dynabase/v1/T/up/+'`` invokes a function running
  :data:`DEVICE_HANDLER`;
- the table's stream (``NEW_AND_OLD_IMAGES``) invokes a function running :data:`STREAM_HANDLER` through an
  event source mapping whose failed batches go to an SQS queue;
- both functions publish through the IoT data plane (``iot:Publish`` on the down/shared topics only) and use
  the table with the actions the hub needs (the device-message function also reads in batches and deletes
  the parts of the payloads it joins, under the joiner's reserved partition keys); the environment names the schema file inside the deployment
  package (``DYNABASE_SCHEMA``), the table (``DYNABASE_TABLE``) and the data endpoint
  (``DYNABASE_IOT_ENDPOINT``);
- an IoT policy for the devices' certificates: each device connects, publishes, subscribes and receives on
  its own topics only.

:func:`cloudformation` and :func:`terraform` build the documents, :func:`render` their text. The
deployment package (the ``dynabase`` wheel, its dependencies and the schema file, built for Linux x86_64) is
a parameter: ``CodeS3Bucket``/``CodeS3Key`` in CloudFormation, ``lambda_s3_bucket``/``lambda_s3_key`` in
Terraform.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..hub.parts import PREFIX as PARTS_PREFIX
from ..model.syncmeta import SYNC_INDEX
from ..schema import Schema
from . import iac

__all__ = [
    "DEVICE_HANDLER",
    "FORMATS",
    "IOT_IDENTITIES",
    "STREAM_HANDLER",
    "MqttOptions",
    "cloudformation",
    "render",
    "terraform",
    "topic_rule_sql",
]

FORMATS = ("cloudformation", "cloudformation-yaml", "terraform")
IOT_IDENTITIES = ("thing", "client-id")
DEVICE_HANDLER = "dynabase.hub.aws.on_device_message"
STREAM_HANDLER = "dynabase.hub.aws.on_stream"
PROTOCOL_PREFIX = "dynabase/v1"
RUNTIME = "python3.12"
STREAM_VIEW = "NEW_AND_OLD_IMAGES"
SQL_VERSION = "2016-03-23"
# Lambda's managed policy for writing the functions' logs to CloudWatch Logs
LOGS_POLICY = "iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
BUCKET_NAME = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"  # S3's bucket naming rules, less the dotted-IP form
HOST_NAME = r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$"
SCHEMA_PATH = re.compile(r"^(?!/)(?!.*(^|/)\.\.(/|$))[A-Za-z0-9._/-]{1,255}$")

# The stream's event source mapping. TRIM_HORIZON: a mapping created after the table (or re-created) starts at
# the oldest record the stream still holds (24 hours), so changes written before it was enabled still reach
# the devices; LATEST would skip them for good. Replaying is harmless: a device applies a change by version,
# and a duplicate delivery changes nothing. Failed batches are split (bisect) to isolate the record that
# fails, retried, and then recorded in the SQS queue (the record's shard and sequence numbers) rather than
# dropped; a device that missed a change catches up from its checkpoint when it next connects.
STREAM_MAPPING = {
    "StartingPosition": "TRIM_HORIZON",
    "BatchSize": 100,
    "MaximumBatchingWindowInSeconds": 0,  # fan-out latency: invoke as soon as records arrive
    "BisectBatchOnFunctionError": True,
    "MaximumRetryAttempts": 10,
    "MaximumRecordAgeInSeconds": -1,  # never discard by age: retries bound a failing batch
}
FUNCTION = {"Timeout": 30, "MemorySize": 256}
FAILURE_RETENTION = 1_209_600  # 14 days, SQS's longest


@dataclass
class MqttOptions:
    """What the hub's deployment needs besides the table.

    ``schema_path``: the schema file's path inside the deployment package. ``iot_identity``: ``thing`` (a
    device connects only with the client id of the IoT thing its certificate is attached to) or
    ``client-id`` (any client id, refused when it holds ``/``, ``+`` or ``#``)."""

    schema_path: str = "schema.json"
    iot_identity: str = "thing"

    def check(self) -> None:
        if not SCHEMA_PATH.fullmatch(self.schema_path):
            raise ValueError(
                f"--schema-path {self.schema_path!r}: the schema file's path inside the deployment package is "
                "relative, of A-Z, a-z, 0-9, '.', '_', '-' and '/', without '..'"
            )
        if self.iot_identity not in IOT_IDENTITIES:
            raise ValueError(f"--iot-identity {self.iot_identity!r}: use {' or '.join(IOT_IDENTITIES)}")


def topic_rule_sql(table: str) -> str:
    """The topic rule's query: every push, with the device id taken from the topic's fifth level."""
    return f"SELECT *, topic(5) AS deviceId FROM '{PROTOCOL_PREFIX}/{table}/up/+'"


def _checked(schema: Schema, options: iac.IacOptions, mqtt: MqttOptions) -> iac.IacOptions:
    """``options`` with the stream the hub reads; refuses what cannot be deployed."""
    options.check()
    mqtt.check()
    if not iac.synced_models(schema):
        raise ValueError(
            "--sync mqtt: the schema has no synced models (process.<Model>.sync up, down or both, enabled on "
            "both sides): a device would have nothing to sync"
        )
    if options.stream not in (None, STREAM_VIEW):
        raise ValueError(
            f"--sync mqtt: the hub's stream function reads {STREAM_VIEW} records; --stream {options.stream} "
            "would not carry them"
        )
    return replace(options, stream=STREAM_VIEW)


def _name(table: str, suffix: str, limit: int, fill: str = "-") -> str:
    """A resource name from the table's: characters other than letters, digits, ``_`` and ``fill`` become
    ``fill`` (``-``; ``_`` for topic rules, which refuse ``-``), cut so that ``suffix`` fits in ``limit``."""
    return re.sub(rf"[^A-Za-z0-9_{re.escape(fill)}]", fill, table)[: limit - len(suffix)] + suffix


# -- what both formats say: policies over format-specific references --------------------------------------


@dataclass
class _Refs:
    """How one format writes an ARN (``arn(service, resource)`` with the partition, region and account), a
    policy variable left for AWS IoT to resolve, and references to the resources it declares."""

    arn: Callable[[str, str], Any]
    variable: Callable[[str], str]
    table_arn: Any
    sync_index_arn: Any
    streams_arn: Any
    queue_arn: Any


def _statement(sid: str, action: str | list[str], resource: Any, effect: str = "Allow") -> dict[str, Any]:
    return {"Sid": sid, "Effect": effect, "Action": action, "Resource": resource}


def _document(statements: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": statements}


def _table_statements(schema: Schema, refs: _Refs, joins: bool = False) -> list[dict[str, Any]]:
    """The hub's table access: single-item reads and conditional writes on the table, Query on the table and
    its sync index. There is no ``dynamodb:TransactWriteItems`` action: a transaction's Put/Update/Delete
    are authorized as PutItem/UpdateItem/DeleteItem (DynamoDB developer guide, "Using IAM with DynamoDB
    transactions"); DeleteItem is granted only when a synced model has unique fields (the hub releases the
    ``_unique#`` sentinels of changed values in the same transaction). ``joins``: the device-message
    function's, which also reads items in batches (a device's ``get``, the parts of a payload it joins) and
    deletes the parts it joined: items whose partition key begins with the joiner's prefix only (the
    ``dynamodb:LeadingKeys`` condition key, developer guide "Using IAM policy conditions for fine-grained
    access control"), unless DeleteItem is granted on the whole table already."""
    writes = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"]
    deletes = any(schema.models[m].unique_fields for m in iac.synced_models(schema) if m in schema.models)
    if deletes:
        writes.append("dynamodb:DeleteItem")
    statements = [
        _statement("SyncItems", sorted(writes), refs.table_arn),
        _statement("SyncQueries", "dynamodb:Query", [refs.table_arn, refs.sync_index_arn]),
    ]
    if joins:
        statements.append(_statement("ReadItemsInBatches", "dynamodb:BatchGetItem", refs.table_arn))
    if joins and not deletes:
        parts = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": [PARTS_PREFIX + "*"]}}
        statements.append(
            {**_statement("DeleteJoinedParts", "dynamodb:DeleteItem", refs.table_arn), "Condition": parts}
        )
    return statements


def _publish_statement(refs: _Refs, table: str, topics: tuple[str, ...]) -> dict[str, Any]:
    arns = [refs.arn("iot", f"topic/{PROTOCOL_PREFIX}/{table}/{t}/*") for t in topics]
    return _statement("PublishToDevices", "iot:Publish", arns)


def _function_policies(schema: Schema, refs: _Refs, table: str) -> dict[str, dict[str, Any]]:
    """Inline policy documents of the two functions' roles. The device-message function answers one device
    and replays its scopes (``down``); the stream function fans out to one device or to every device
    (``down``, ``shared``), reads the table's stream and records failed batches in the queue (an
    on-failure destination is written with the function's role: ``sqs:SendMessage``)."""
    # the actions and the stream/* resource of the DynamoDB developer guide's example policy for a function
    # reading a table's stream
    reads = [
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:ListStreams",
    ]
    device = _table_statements(schema, refs, joins=True) + [_publish_statement(refs, table, ("down",))]
    stream = _table_statements(schema, refs) + [
        _publish_statement(refs, table, ("down", "shared")),
        _statement("ReadTableStream", reads, refs.streams_arn),
        _statement("RecordFailedBatches", "sqs:SendMessage", refs.queue_arn),
    ]
    return {"device": _document(device), "stream": _document(stream)}


def _device_policy(refs: _Refs, table: str, identity: str) -> dict[str, Any]:
    """The IoT policy for the devices' certificates (AWS IoT Core developer guide, "AWS IoT Core policy
    variables", "Connect and publish policy examples", "AWS IoT Core action resources"):

    - iot:Connect takes ``client/<client id>``; iot:Publish and iot:Receive take ``topic/<topic>``;
      iot:Subscribe takes ``topicfilter/<filter>``. ``*`` is the policy's wildcard; MQTT's ``+`` and ``#``
      are literal characters in a policy.
    - ``${iot:ClientId}`` resolves to the connection's client id in any resource. Alone it authenticates
      nothing: any certificate holding the policy could connect as any client id, so as another device.
      ``thing`` (the default) lets a device connect only as ``${iot:Connection.Thing.ThingName}``: the thing
      its certificate is attached to (AttachThingPrincipal), which the guide recommends for registered
      devices; the variable does not resolve for a certificate attached to no thing, and the connection is
      refused. Thing names are ``[a-zA-Z0-9:_-]+``, so the client id holds no ``/``, ``+`` or ``#``.
    - ``client-id`` allows any client id except those holding ``/`` (``up/a/b`` would be read as device
      ``a`` by the topic rule's ``topic(5)``), ``+`` or ``#`` (the guide's warning: a client id ``+`` would
      subscribe to ``down/+``, every device's answers). Use it only when certificates are not attached to
      things and every certificate holder may act as any device.
    """
    me = refs.variable("iot:ClientId")
    prefix = f"{PROTOCOL_PREFIX}/{table}"
    if identity == "thing":
        thing = refs.variable("iot:Connection.Thing.ThingName")
        connect = [_statement("ConnectAsOwnThing", "iot:Connect", refs.arn("iot", "client/" + thing))]
    else:
        refused = [refs.arn("iot", f"client/*{c}*") for c in ("/", "+", "#")]
        connect = [
            _statement("ConnectAsClientId", "iot:Connect", refs.arn("iot", "client/" + me)),
            _statement("NoTopicCharactersInClientId", "iot:Connect", refused, effect="Deny"),
        ]
    push = _statement("PushChanges", "iot:Publish", refs.arn("iot", f"topic/{prefix}/up/{me}"))
    listen = [
        _statement(
            f"{action}OwnAndShared",
            f"iot:{action}",
            [refs.arn("iot", f"{kind}/{prefix}/down/{me}"), refs.arn("iot", f"{kind}/{prefix}/shared/*")],
        )
        for action, kind in (("Subscribe", "topicfilter"), ("Receive", "topic"))
    ]
    return _document([*connect, push, *listen])


def _assume(service: str) -> dict[str, Any]:
    return _document([{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}])


# -- CloudFormation --------------------------------------------------------------------------------------------


def _cfn_refs() -> _Refs:
    def arn(service: str, resource: str) -> Any:
        return {
            "Fn::Sub": f"arn:${{AWS::Partition}}:{service}:${{AWS::Region}}:${{AWS::AccountId}}:{resource}"
        }

    return _Refs(
        arn=arn,
        # Fn::Sub writes ${!Literal} as ${Literal} (CloudFormation user guide, Fn::Sub)
        variable=lambda name: "${!" + name + "}",
        table_arn={"Fn::GetAtt": [iac.RESOURCE, "Arn"]},
        sync_index_arn={"Fn::Sub": f"${{{iac.RESOURCE}.Arn}}/index/{SYNC_INDEX}"},
        streams_arn={"Fn::Sub": f"${{{iac.RESOURCE}.Arn}}/stream/*"},
        queue_arn={"Fn::GetAtt": ["SyncFailureQueue", "Arn"]},
    )


def _cfn_function(handler: str, role: str) -> dict[str, Any]:
    return {
        "Type": "AWS::Lambda::Function",
        "Properties": {
            "Handler": handler,
            "Runtime": RUNTIME,
            "Architectures": ["x86_64"],
            "Code": {"S3Bucket": {"Ref": "CodeS3Bucket"}, "S3Key": {"Ref": "CodeS3Key"}},
            "Role": {"Fn::GetAtt": [role, "Arn"]},
            **FUNCTION,
            "Environment": {
                "Variables": {
                    "DYNABASE_SCHEMA": {"Ref": "SchemaPath"},
                    "DYNABASE_TABLE": {"Ref": iac.RESOURCE},
                    "DYNABASE_IOT_ENDPOINT": {"Ref": "IotEndpoint"},
                }
            },
        },
    }


def _cfn_role(policy: dict[str, Any]) -> dict[str, Any]:
    return {
        "Type": "AWS::IAM::Role",
        "Properties": {
            "AssumeRolePolicyDocument": _assume("lambda.amazonaws.com"),
            "ManagedPolicyArns": [{"Fn::Sub": f"arn:${{AWS::Partition}}:{LOGS_POLICY}"}],
            "Policies": [{"PolicyName": "dynabase-sync-hub", "PolicyDocument": policy}],
        },
    }


def cloudformation(
    schema: Schema, options: iac.IacOptions, mqtt: MqttOptions | None = None
) -> dict[str, Any]:
    """The table's template (:func:`dynabase.tools.iac.cloudformation`) with the hub's deployment."""
    mqtt = mqtt or MqttOptions()
    options = _checked(schema, options, mqtt)
    template = iac.cloudformation(schema, options)
    table = options.table
    refs = _cfn_refs()
    policies = _function_policies(schema, refs, table)
    template["Description"] = (
        template["Description"] + ", with its MQTT sync hub on AWS IoT Core and Lambda"
    )[:1024]
    template["Parameters"].update(
        {
            "CodeS3Bucket": {
                "Type": "String",
                "AllowedPattern": BUCKET_NAME,
                "Description": "S3 bucket of the hub's deployment package (dynabase, its dependencies, the schema)",
            },
            "CodeS3Key": {
                "Type": "String",
                "MinLength": 1,
                "MaxLength": 1024,
                "Description": "S3 key of the deployment package (.zip)",
            },
            "IotEndpoint": {
                "Type": "String",
                "AllowedPattern": HOST_NAME,
                "Description": "The account's IoT data endpoint: aws iot describe-endpoint --endpoint-type iot:Data-ATS",
            },
            "SchemaPath": {
                "Type": "String",
                "Default": mqtt.schema_path,
                "AllowedPattern": SCHEMA_PATH.pattern,
                "Description": "The schema file's path inside the deployment package",
            },
        }
    )
    resources = template["Resources"]
    resources.update(
        {
            "SyncFailureQueue": {
                "Type": "AWS::SQS::Queue",
                "Properties": {"MessageRetentionPeriod": FAILURE_RETENTION, "SqsManagedSseEnabled": True},
            },
            "DeviceMessageRole": _cfn_role(policies["device"]),
            "StreamRole": _cfn_role(policies["stream"]),
            "DeviceMessageFunction": _cfn_function(DEVICE_HANDLER, "DeviceMessageRole"),
            "StreamFunction": _cfn_function(STREAM_HANDLER, "StreamRole"),
            "DeviceMessageRule": {
                "Type": "AWS::IoT::TopicRule",
                "Properties": {
                    "RuleName": _name(table, "_sync_up", 128, "_"),
                    "TopicRulePayload": {
                        "Sql": topic_rule_sql(table),
                        "AwsIotSqlVersion": SQL_VERSION,
                        "RuleDisabled": False,
                        "Actions": [
                            {"Lambda": {"FunctionArn": {"Fn::GetAtt": ["DeviceMessageFunction", "Arn"]}}}
                        ],
                    },
                },
            },
            "DeviceMessagePermission": {
                "Type": "AWS::Lambda::Permission",
                "Properties": {
                    "Action": "lambda:InvokeFunction",
                    "FunctionName": {"Fn::GetAtt": ["DeviceMessageFunction", "Arn"]},
                    "Principal": "iot.amazonaws.com",
                    "SourceArn": {"Fn::GetAtt": ["DeviceMessageRule", "Arn"]},
                    "SourceAccount": {"Ref": "AWS::AccountId"},
                },
            },
            "StreamMapping": {
                "Type": "AWS::Lambda::EventSourceMapping",
                "Properties": {
                    "EventSourceArn": {"Fn::GetAtt": [iac.RESOURCE, "StreamArn"]},
                    "FunctionName": {"Ref": "StreamFunction"},
                    **STREAM_MAPPING,
                    "DestinationConfig": {
                        "OnFailure": {"Destination": {"Fn::GetAtt": ["SyncFailureQueue", "Arn"]}}
                    },
                },
            },
            "DevicePolicy": {
                "Type": "AWS::IoT::Policy",
                "Properties": {
                    "PolicyName": _name(table, "-sync-device", 128),
                    "PolicyDocument": _device_policy(refs, table, mqtt.iot_identity),
                },
            },
        }
    )
    template["Outputs"].update(
        {
            "DevicePolicyName": {
                "Description": "The IoT policy to attach to each device's certificate",
                "Value": {"Ref": "DevicePolicy"},
            },
            "SyncFailureQueueUrl": {
                "Description": "Where stream batches the hub could not fan out are recorded",
                "Value": {"Ref": "SyncFailureQueue"},
            },
        }
    )
    return template


# -- Terraform -------------------------------------------------------------------------------------------------

_PARTITION = "${data.aws_partition.current.partition}"


def _tf_refs(table_ref: str) -> _Refs:
    def arn(service: str, resource: str) -> str:
        region = "${data.aws_region.current.region}"
        return (
            f"arn:{_PARTITION}:{service}:{region}:${{data.aws_caller_identity.current.account_id}}:{resource}"
        )

    return _Refs(
        arn=arn,
        # a Terraform string is a template: $${ is a literal ${ (Terraform language, "String Templates")
        variable=lambda name: "$${" + name + "}",
        table_arn=f"${{{table_ref}.arn}}",
        sync_index_arn=f"${{{table_ref}.arn}}/index/{SYNC_INDEX}",
        streams_arn=f"${{{table_ref}.arn}}/stream/*",
        queue_arn="${aws_sqs_queue.sync_failures.arn}",
    )


def _tf_function(table: str, suffix: str, handler: str, role: str) -> dict[str, Any]:
    return {
        "function_name": _name(table, suffix, 64),
        "handler": handler,
        "runtime": RUNTIME,
        "architectures": ["x86_64"],
        "s3_bucket": "${var.lambda_s3_bucket}",
        "s3_key": "${var.lambda_s3_key}",
        "role": f"${{aws_iam_role.{role}.arn}}",
        "timeout": FUNCTION["Timeout"],
        "memory_size": FUNCTION["MemorySize"],
        "environment": {
            "variables": {
                "DYNABASE_SCHEMA": "${var.schema_path}",
                "DYNABASE_TABLE": table,
                "DYNABASE_IOT_ENDPOINT": "${data.aws_iot_endpoint.data.endpoint_address}",
            }
        },
    }


def terraform(schema: Schema, options: iac.IacOptions, mqtt: MqttOptions | None = None) -> dict[str, Any]:
    """The table's Terraform JSON (:func:`dynabase.tools.iac.terraform`) with the hub's deployment (AWS
    provider 6 or newer: ``data.aws_region``'s ``region`` attribute)."""
    mqtt = mqtt or MqttOptions()
    options = _checked(schema, options, mqtt)
    config = iac.terraform(schema, options)
    table = options.table
    table_ref = "aws_dynamodb_table." + next(iter(config["resource"]["aws_dynamodb_table"]))
    refs = _tf_refs(table_ref)
    policies = _function_policies(schema, refs, table)
    config = {
        "terraform": {"required_providers": {"aws": {"source": "hashicorp/aws", "version": ">= 6.0"}}},
        **config,
    }
    config["variable"].update(
        {
            "lambda_s3_bucket": {
                "type": "string",
                "description": "S3 bucket of the hub's deployment package (dynabase, its dependencies, the schema)",
            },
            "lambda_s3_key": {"type": "string", "description": "S3 key of the deployment package (.zip)"},
            "schema_path": {
                "type": "string",
                "default": mqtt.schema_path,
                "description": "The schema file's path inside the deployment package",
                # Terraform's regex (RE2) has no lookahead: SCHEMA_PATH's '..' and leading '/' rules apart
                "validation": {
                    "condition": (
                        '${can(regex("^[A-Za-z0-9._/-]{1,255}$", var.schema_path)) && '
                        '!can(regex("^/", var.schema_path)) && !contains(split("/", var.schema_path), "..")}'
                    ),
                    "error_message": "The schema_path is a relative path of A-Z, a-z, 0-9, '.', '_', '-' and '/', "
                    "without '..'.",
                },
            },
        }
    )
    config["data"] = {
        "aws_caller_identity": {"current": {}},
        "aws_partition": {"current": {}},
        "aws_region": {"current": {}},
        "aws_iot_endpoint": {"data": {"endpoint_type": "iot:Data-ATS"}},
    }
    roles = {"sync_device": "-sync-device", "sync_stream": "-sync-stream"}
    resources = config["resource"]
    resources["aws_sqs_queue"] = {
        "sync_failures": {
            "name": _name(table, "-sync-failures", 80),
            "message_retention_seconds": FAILURE_RETENTION,
            "sqs_managed_sse_enabled": True,
        }
    }
    resources["aws_iam_role"] = {
        label: {
            "name": _name(table, suffix, 64),
            "assume_role_policy": json.dumps(_assume("lambda.amazonaws.com")),
        }
        for label, suffix in roles.items()
    }
    resources["aws_iam_role_policy"] = {
        label: {
            "name": "dynabase-sync-hub",
            "role": f"${{aws_iam_role.{label}.id}}",
            "policy": json.dumps(policies[label.removeprefix("sync_")]),
        }
        for label in roles
    }
    resources["aws_iam_role_policy_attachment"] = {
        label: {"role": f"${{aws_iam_role.{label}.name}}", "policy_arn": f"arn:{_PARTITION}:{LOGS_POLICY}"}
        for label in roles
    }
    resources["aws_lambda_function"] = {
        "sync_device": _tf_function(table, "-sync-device", DEVICE_HANDLER, "sync_device"),
        "sync_stream": _tf_function(table, "-sync-stream", STREAM_HANDLER, "sync_stream"),
    }
    resources["aws_iot_topic_rule"] = {
        "sync_up": {
            "name": _name(table, "_sync_up", 128, "_"),
            "enabled": True,
            "sql": topic_rule_sql(table),
            "sql_version": SQL_VERSION,
            "lambda": {"function_arn": "${aws_lambda_function.sync_device.arn}"},
        }
    }
    resources["aws_lambda_permission"] = {
        "sync_up": {
            "statement_id": "AllowIotTopicRule",
            "action": "lambda:InvokeFunction",
            "function_name": "${aws_lambda_function.sync_device.function_name}",
            "principal": "iot.amazonaws.com",
            "source_arn": "${aws_iot_topic_rule.sync_up.arn}",
            "source_account": "${data.aws_caller_identity.current.account_id}",
        }
    }
    mapping = {re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower(): v for k, v in STREAM_MAPPING.items()}
    resources["aws_lambda_event_source_mapping"] = {
        "sync_stream": {
            "event_source_arn": f"${{{table_ref}.stream_arn}}",
            "function_name": "${aws_lambda_function.sync_stream.arn}",
            **mapping,
            "destination_config": {"on_failure": {"destination_arn": "${aws_sqs_queue.sync_failures.arn}"}},
            # Lambda checks at creation that the function's role may read the stream and write the queue;
            # the role's policy is a resource of its own, so make it exist first
            "depends_on": ["aws_iam_role_policy.sync_stream"],
        }
    }
    resources["aws_iot_policy"] = {
        "sync_device": {
            "name": _name(table, "-sync-device", 128),
            "policy": json.dumps(_device_policy(refs, table, mqtt.iot_identity)),
        }
    }
    config["output"].update(
        {
            "device_policy_name": {"value": "${aws_iot_policy.sync_device.name}"},
            "sync_failure_queue_url": {"value": "${aws_sqs_queue.sync_failures.url}"},
        }
    )
    return config


def render(schema: Schema, format: str, options: iac.IacOptions, mqtt: MqttOptions | None = None) -> str:
    """The text of ``format`` (:data:`FORMATS`) for the table and the hub's deployment."""
    if format not in FORMATS:
        raise ValueError(
            f"--sync mqtt deploys functions, an IoT policy and a topic rule besides the table: use --format "
            f"{', '.join(FORMATS[:-1])} or {FORMATS[-1]} (not {format})"
        )
    if format == "terraform":
        return json.dumps(terraform(schema, options, mqtt), indent=2, ensure_ascii=False) + "\n"
    template = cloudformation(schema, options, mqtt)
    if format == "cloudformation-yaml":
        return iac.to_yaml(template)
    return json.dumps(template, indent=2, ensure_ascii=False) + "\n"
