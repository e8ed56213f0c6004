"""``dynabase iac --sync mqtt``: the MQTT sync hub's AWS deployment beside the table.

CloudFormation is checked by cfn-lint; Terraform JSON against the AWS provider's argument names
(fixtures/terraform_aws_schema.json, made by dev/terraform_schema.py), because ``terraform validate`` needs
the provider plugin from the Terraform registry, which these machines cannot reach (docs/aws.md).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from dynabase.schema import load_schema
from dynabase.tools import iac, iac_mqtt
from dynabase.tools.iac import IacOptions
from dynabase.tools.iac_mqtt import MqttOptions

from .helpers import FIXTURES, FORMKIQ, IOTO, load, run

TF_SCHEMA = json.loads((FIXTURES / "terraform_aws_schema.json").read_text())

# a fleet schema beside Ioto's: items pushed both ways and scoped to their device, settings pushed down,
# a unique field (the hub releases the old value's sentinel in the same transaction: DeleteItem)
FLEET = {
    "format": "onetable:1.1.0",
    "version": "1.0.0",
    "params": {"timestamps": True},
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "process": {
        "Reading": {"sync": "both", "scope": "${deviceId}"},
        "Setting": {"sync": "down"},
        "Audit": {"enable": "cloud"},
    },
    "models": {
        "Reading": {
            "pk": {"type": "string", "value": "device#${deviceId}"},
            "sk": {"type": "string", "value": "reading#${id}"},
            "deviceId": {"type": "string", "required": True},
            "id": {"type": "string", "generate": "ulid"},
            "serial": {"type": "string", "unique": True},
            "value": {"type": "number"},
        },
        "Setting": {
            "pk": {"type": "string", "value": "setting#"},
            "sk": {"type": "string", "value": "setting#${name}"},
            "name": {"type": "string", "required": True},
            "value": {"type": "string"},
        },
        "Audit": {
            "pk": {"type": "string", "value": "audit#"},
            "sk": {"type": "string", "value": "audit#${id}"},
            "id": {"type": "string", "generate": "ulid"},
        },
    },
}


def fleet():
    return load_schema(FLEET)


def resources_of(template: dict, kind: str) -> dict[str, dict]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def statements(document: dict) -> list[dict]:
    return document["Statement"]


def listed(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def sub(value: Any) -> str:
    """The text of an ``{"Fn::Sub": text}`` (or a plain string)."""
    return value["Fn::Sub"] if isinstance(value, dict) else value


# -- CloudFormation structure ---------------------------------------------------------------------------------


def test_cloudformation_ioto_deploys_the_hub():
    template = iac_mqtt.cloudformation(load("ioto"), IacOptions("ioto-devices"), MqttOptions("ioto.json5"))
    table = template["Resources"]["Table"]["Properties"]
    assert table["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}  # the hub reads it
    assert table["GlobalSecondaryIndexes"][0]["IndexName"] == "syncIndex"
    assert {r["Type"] for r in template["Resources"].values()} == {
        "AWS::DynamoDB::Table",
        "AWS::SQS::Queue",
        "AWS::IAM::Role",
        "AWS::Lambda::Function",
        "AWS::IoT::TopicRule",
        "AWS::Lambda::Permission",
        "AWS::Lambda::EventSourceMapping",
        "AWS::IoT::Policy",
    }
    (rule,) = resources_of(template, "AWS::IoT::TopicRule").values()
    payload = rule["Properties"]["TopicRulePayload"]
    assert payload["Sql"] == "SELECT *, topic(5) AS deviceId FROM 'dynabase/v1/ioto-devices/up/+'"
    assert payload["AwsIotSqlVersion"] == "2016-03-23" and payload["RuleDisabled"] is False
    assert payload["Actions"] == [
        {"Lambda": {"FunctionArn": {"Fn::GetAtt": ["DeviceMessageFunction", "Arn"]}}}
    ]
    assert re.fullmatch(r"[A-Za-z0-9_]+", rule["Properties"]["RuleName"])

    functions = resources_of(template, "AWS::Lambda::Function")
    assert {f["Properties"]["Handler"] for f in functions.values()} == {
        "dynabase.hub.aws.on_device_message",
        "dynabase.hub.aws.on_stream",
    }
    for function in functions.values():
        p = function["Properties"]
        assert re.fullmatch(r"python3\.(1[2-9]|[2-9]\d)", p["Runtime"])
        assert p["Code"] == {"S3Bucket": {"Ref": "CodeS3Bucket"}, "S3Key": {"Ref": "CodeS3Key"}}
        assert p["Environment"]["Variables"] == {
            "DYNABASE_SCHEMA": {"Ref": "SchemaPath"},
            "DYNABASE_TABLE": {"Ref": "Table"},
            "DYNABASE_IOT_ENDPOINT": {"Ref": "IotEndpoint"},
        }
    assert template["Parameters"]["SchemaPath"]["Default"] == "ioto.json5"
    # what the deployment reads from its parameters is held to the same rules (cfn-lint checks the default)
    assert template["Parameters"]["SchemaPath"]["AllowedPattern"] == iac_mqtt.SCHEMA_PATH.pattern
    bucket = template["Parameters"]["CodeS3Bucket"]["AllowedPattern"]
    assert re.fullmatch(bucket, "my-bucket.eu") and not re.fullmatch(bucket, "My_Bucket")
    endpoint = template["Parameters"]["IotEndpoint"]["AllowedPattern"]
    assert re.fullmatch(endpoint, "a1b2c3d4e5f6g7-ats.iot.us-east-1.amazonaws.com")
    assert not re.fullmatch(endpoint, "evil.example/x") and not re.fullmatch(endpoint, "-a")
    assert "Default" not in template["Parameters"]["CodeS3Bucket"]  # no invented bucket

    (permission,) = resources_of(template, "AWS::Lambda::Permission").values()
    assert permission["Properties"]["Principal"] == "iot.amazonaws.com"
    assert permission["Properties"]["SourceArn"] == {"Fn::GetAtt": ["DeviceMessageRule", "Arn"]}

    (mapping,) = resources_of(template, "AWS::Lambda::EventSourceMapping").values()
    m = mapping["Properties"]
    assert m["EventSourceArn"] == {"Fn::GetAtt": ["Table", "StreamArn"]}
    assert m["FunctionName"] == {"Ref": "StreamFunction"}
    assert m["StartingPosition"] == "TRIM_HORIZON"
    assert m["BisectBatchOnFunctionError"] is True and m["MaximumRetryAttempts"] > 0 and m["BatchSize"] > 0
    assert m["DestinationConfig"] == {
        "OnFailure": {"Destination": {"Fn::GetAtt": ["SyncFailureQueue", "Arn"]}}
    }
    assert template["Outputs"]["DevicePolicyName"]["Value"] == {"Ref": "DevicePolicy"}


def device_statements(template: dict) -> dict[str, list[dict]]:
    (policy,) = resources_of(template, "AWS::IoT::Policy").values()
    by_action: dict[str, list[dict]] = {}
    for s in statements(policy["Properties"]["PolicyDocument"]):
        by_action.setdefault(s["Action"], []).append(s)
    return by_action


def test_device_policy_keeps_each_device_to_its_own_topics():
    template = iac_mqtt.cloudformation(load("ioto"), IacOptions("ioto-devices"))
    by_action = device_statements(template)
    assert set(by_action) == {"iot:Connect", "iot:Publish", "iot:Subscribe", "iot:Receive"}
    assert all(s["Effect"] == "Allow" for group in by_action.values() for s in group)
    arn = "arn:${AWS::Partition}:iot:${AWS::Region}:${AWS::AccountId}:"
    # ${!x} is Fn::Sub's literal ${x}: AWS IoT resolves the policy variable when a device connects
    (connect,) = by_action["iot:Connect"]
    assert sub(connect["Resource"]) == arn + "client/${!iot:Connection.Thing.ThingName}"
    (publish,) = by_action["iot:Publish"]
    assert sub(publish["Resource"]) == arn + "topic/dynabase/v1/ioto-devices/up/${!iot:ClientId}"
    (subscribe,) = by_action["iot:Subscribe"]
    assert [sub(r) for r in subscribe["Resource"]] == [
        arn + "topicfilter/dynabase/v1/ioto-devices/down/${!iot:ClientId}",
        arn + "topicfilter/dynabase/v1/ioto-devices/shared/*",
    ]
    (receive,) = by_action["iot:Receive"]
    assert [sub(r) for r in receive["Resource"]] == [
        arn + "topic/dynabase/v1/ioto-devices/down/${!iot:ClientId}",
        arn + "topic/dynabase/v1/ioto-devices/shared/*",
    ]


def test_client_id_identity_refuses_topic_characters_in_client_ids():
    template = iac_mqtt.cloudformation(
        load("ioto"), IacOptions("ioto-devices"), MqttOptions(iot_identity="client-id")
    )
    allow, deny = device_statements(template)["iot:Connect"]
    assert sub(allow["Resource"]).endswith(":client/${!iot:ClientId}") and allow["Effect"] == "Allow"
    assert deny["Effect"] == "Deny"
    assert [sub(r).rsplit(":", 1)[1] for r in deny["Resource"]] == ["client/*/*", "client/*+*", "client/*#*"]


def role_actions(template: dict, role: str) -> dict[str, set[str]]:
    """Each action of a role's inline policy and the resources (as text) it is allowed on; a statement's
    condition follows its resource's text, after " if "."""
    (policy,) = template["Resources"][role]["Properties"]["Policies"]
    out: dict[str, set[str]] = {}
    for s in statements(policy["PolicyDocument"]):
        assert s["Effect"] == "Allow"
        condition = f" if {json.dumps(s['Condition'], sort_keys=True)}" if "Condition" in s else ""
        for action in listed(s["Action"]):
            out.setdefault(action, set()).update(
                json.dumps(r, sort_keys=True) + condition for r in listed(s["Resource"])
            )
    return out


def test_function_roles_have_least_privilege():
    for schema, deletes in ((load("ioto"), False), (fleet(), True)):
        template = iac_mqtt.cloudformation(schema, IacOptions("fleet-items"))
        table = json.dumps({"Fn::GetAtt": ["Table", "Arn"]}, sort_keys=True)
        index = json.dumps({"Fn::Sub": "${Table.Arn}/index/syncIndex"}, sort_keys=True)
        streams = json.dumps({"Fn::Sub": "${Table.Arn}/stream/*"}, sort_keys=True)
        queue = json.dumps({"Fn::GetAtt": ["SyncFailureQueue", "Arn"]}, sort_keys=True)

        def topics(*kinds: str) -> set[str]:
            arn = "arn:${AWS::Partition}:iot:${AWS::Region}:${AWS::AccountId}:topic/dynabase/v1/fleet-items/"
            return {json.dumps({"Fn::Sub": arn + k + "/*"}, sort_keys=True) for k in kinds}

        items = {"dynamodb:GetItem": {table}, "dynamodb:PutItem": {table}, "dynamodb:UpdateItem": {table}}
        if deletes:  # a synced model with a unique field
            items["dynamodb:DeleteItem"] = {table}
        common = {**items, "dynamodb:Query": {table, index}}
        # the device-message function joins payloads in parts: it reads them in batches (as a device's get)
        # and deletes them, under the joiner's partition keys only where DeleteItem is not granted already
        leading = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["_dynabase#parts#*"]}}
        parts = {table if deletes else f"{table} if {json.dumps(leading, sort_keys=True)}"}
        assert role_actions(template, "DeviceMessageRole") == {
            **common,
            "dynamodb:BatchGetItem": {table},
            "dynamodb:DeleteItem": parts,
            "iot:Publish": topics("down"),
        }
        stream_reads = ("DescribeStream", "GetRecords", "GetShardIterator", "ListStreams")
        assert role_actions(template, "StreamRole") == {
            **common,
            "iot:Publish": topics("down", "shared"),
            **{f"dynamodb:{a}": {streams} for a in stream_reads},
            "sqs:SendMessage": {queue},
        }
        for role in ("DeviceMessageRole", "StreamRole"):
            p = template["Resources"][role]["Properties"]
            assert p["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
                "Service": "lambda.amazonaws.com"
            }
            assert p["ManagedPolicyArns"] == [
                {"Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"}
            ]


def test_names_fit_the_services_rules():
    long = "a.b-" + "x" * 250
    template = iac_mqtt.cloudformation(load("ioto"), IacOptions(long))
    rule = template["Resources"]["DeviceMessageRule"]["Properties"]["RuleName"]
    assert re.fullmatch(r"[A-Za-z0-9_]{1,128}", rule) and rule.startswith("a_b_x")
    policy = template["Resources"]["DevicePolicy"]["Properties"]["PolicyName"]
    assert re.fullmatch(r"[\w+=,.@-]{1,128}", policy)
    config = iac_mqtt.terraform(load("ioto"), IacOptions(long))
    for function in config["resource"]["aws_lambda_function"].values():
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", function["function_name"])
    for role in config["resource"]["aws_iam_role"].values():
        assert len(role["name"]) <= 64
    assert len(config["resource"]["aws_sqs_queue"]["sync_failures"]["name"]) <= 80


# -- refusals ----------------------------------------------------------------------------------------------------


def test_refusals():
    with pytest.raises(ValueError, match="--sync mqtt: the schema has no synced models"):
        iac_mqtt.cloudformation(load("formkiq"), IacOptions("formkiq"))
    with pytest.raises(ValueError, match="reads NEW_AND_OLD_IMAGES records; --stream KEYS_ONLY"):
        iac_mqtt.terraform(load("ioto"), IacOptions("ioto-x", stream="KEYS_ONLY"))
    for fmt in ("workbench", "create-table"):
        with pytest.raises(ValueError, match=f"cloudformation-yaml or terraform \\(not {fmt}\\)"):
            iac_mqtt.render(load("ioto"), fmt, IacOptions("ioto-x"))
    for path in ("/etc/schema.json", "../schema.json", "a/../../b", "with space.json", "", "s.json\n"):
        with pytest.raises(ValueError, match="--schema-path"):
            iac_mqtt.cloudformation(load("ioto"), IacOptions("ioto-x"), MqttOptions(path))
    with pytest.raises(ValueError, match="--iot-identity 'cert'"):
        iac_mqtt.cloudformation(load("ioto"), IacOptions("ioto-x"), MqttOptions(iot_identity="cert"))
    # an explicit NEW_AND_OLD_IMAGES is what the hub reads
    template = iac_mqtt.cloudformation(load("ioto"), IacOptions("ioto-x", stream="NEW_AND_OLD_IMAGES"))
    assert (
        template["Resources"]["Table"]["Properties"]["StreamSpecification"]["StreamViewType"]
        == "NEW_AND_OLD_IMAGES"
    )


# -- cfn-lint ----------------------------------------------------------------------------------------------------


def test_cfn_lint_accepts_the_deployment(cfn_lint):
    variants = [
        (load("ioto"), "cloudformation", IacOptions("ioto-devices"), MqttOptions("ioto_device.json5")),
        (
            load("ioto"),
            "cloudformation-yaml",
            IacOptions("ioto-devices"),
            MqttOptions(iot_identity="client-id"),
        ),
        (
            fleet(),
            "cloudformation",
            IacOptions("fleet.items", billing="PROVISIONED"),
            MqttOptions("s/fleet.json"),
        ),
        (fleet(), "cloudformation-yaml", IacOptions("fleet.items", tags={"team": "iot"}), MqttOptions()),
    ]
    for schema, fmt, options, mqtt in variants:
        text = iac_mqtt.render(schema, fmt, options, mqtt)
        assert cfn_lint(text) == [], (fmt, options, mqtt)


def test_cfn_lint_catches_a_broken_deployment(cfn_lint):
    # the control: cfn-lint checks these resource types, so a clean run above means something
    template = iac_mqtt.cloudformation(load("ioto"), IacOptions("ioto-devices"))
    template["Resources"]["StreamMapping"]["Properties"]["StartingPosition"] = "OLDEST"
    template["Resources"]["StreamFunction"]["Properties"]["Runtime"] = "python9"
    # cfn-lint knows IAM's actions: there is no dynamodb:TransactWriteItems (transactions are authorized as
    # the item actions they contain), so granting it would be a mistake it reports
    (policy,) = template["Resources"]["StreamRole"]["Properties"]["Policies"]
    policy["PolicyDocument"]["Statement"][0]["Action"].append("dynamodb:TransactWriteItems")
    problems = cfn_lint(json.dumps(template))
    assert any("OLDEST" in p for p in problems) and any("python9" in p for p in problems), problems
    assert any("W3037" in p and "'transactwriteitems' is not one of" in p for p in problems), problems


def test_yaml_says_what_json_says():
    options = IacOptions("ioto-devices")
    text = iac_mqtt.render(load("ioto"), "cloudformation-yaml", options)
    assert yaml.safe_load(text) == json.loads(iac_mqtt.render(load("ioto"), "cloudformation", options))


# -- Terraform ---------------------------------------------------------------------------------------------------

REFERENCE = re.compile(r"(?<!\$)\$\{([^}]*)\}")


def check_block(where: str, value: Any, arguments: dict[str, Any]) -> list[str]:
    """What in ``value`` (a resource's or a nested block's body) the provider's schema does not have."""
    problems = []
    bodies = value if isinstance(value, list) else [value]
    for body in bodies:
        if not isinstance(body, dict):
            problems.append(f"{where}: a block is an object, got {body!r}")
            continue
        for name in body:
            if name not in arguments:
                problems.append(f"{where}: no argument {name!r}")
            elif arguments[name]["block"] is not None:
                problems += check_block(f"{where}.{name}", body[name], arguments[name]["block"])
        missing = [n for n, a in arguments.items() if a["required"] and n not in body]
        problems += [f"{where}: required {n!r} missing" for n in missing]
    return problems


def check_reference(expression: str, config: dict[str, Any], where: str) -> list[str]:
    parts = expression.split(".")
    if parts[0] == "var":
        return [] if parts[1] in config.get("variable", {}) else [f"{where}: undeclared variable {parts[1]}"]
    kind, parts = ("data", parts[1:]) if parts[0] == "data" else ("resource", parts)
    if len(parts) != 3:
        return [f"{where}: cannot read reference {expression!r}"]
    rtype, label, attribute = parts
    if label not in config.get(kind, {}).get(rtype, {}):
        return [f"{where}: {kind} {rtype}.{label} is not declared"]
    if attribute not in TF_SCHEMA[kind][rtype]["attributes"]:
        return [f"{where}: {rtype} has no attribute {attribute!r}"]
    return []


def strings(value: Any, where: str):
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from strings(v, f"{where}[{i}]")


def check_terraform(config: dict[str, Any]) -> list[str]:
    problems = []
    for kind in ("resource", "data"):
        for rtype, blocks in config.get(kind, {}).items():
            if rtype not in TF_SCHEMA[kind]:
                problems.append(f"{kind} type {rtype} is not in the extract")
                continue
            for label, body in blocks.items():
                body = dict(body)
                for needed in body.pop("depends_on", []):  # a meta-argument: declared resources
                    needed_type, _, needed_label = needed.partition(".")
                    if needed_label not in config["resource"].get(needed_type, {}):
                        problems.append(f"{rtype}.{label}: depends on undeclared {needed}")
                problems += check_block(f"{rtype}.{label}", body, TF_SCHEMA[kind][rtype]["arguments"])
    for where, text in strings({k: config[k] for k in ("resource", "output", "data") if k in config}, ""):
        for expression in REFERENCE.findall(text):
            problems += check_reference(expression, config, where)
    return problems


def test_terraform_deployment_uses_the_providers_arguments():
    for schema, options, mqtt in (
        (load("ioto"), IacOptions("ioto.devices"), MqttOptions("ioto.json5")),
        (fleet(), IacOptions("fleet-items", billing="PROVISIONED"), MqttOptions(iot_identity="client-id")),
    ):
        config = json.loads(iac_mqtt.render(schema, "terraform", options, mqtt))
        assert check_terraform(config) == []
        assert config["terraform"]["required_providers"]["aws"]["source"] == "hashicorp/aws"


def test_terraform_tables_use_the_providers_arguments():
    # the table iac emitted before the hub, for every fixture schema, against the same extract
    for name in ("ioto", "formkiq", "vams"):
        config = iac.terraform(
            load(name), IacOptions("tbl-" + name, billing="PROVISIONED", stream="NEW_IMAGE")
        )
        assert check_terraform(config) == [], name


def test_terraform_checker_catches_mistakes():
    config = iac_mqtt.terraform(load("ioto"), IacOptions("ioto-devices"))
    mapping = config["resource"]["aws_lambda_event_source_mapping"]["sync_stream"]
    mapping["starting_positon"] = mapping.pop("starting_position")
    mapping["destination_config"]["on_failure"]["arn"] = mapping["destination_config"]["on_failure"].pop(
        "destination_arn"
    )
    del config["resource"]["aws_iot_topic_rule"]["sync_up"]["sql_version"]
    config["resource"]["aws_lambda_function"]["sync_device"]["role"] = "${aws_iam_role.sync_device.role_arn}"
    config["resource"]["aws_lambda_permission"]["sync_up"]["source_arn"] = "${aws_iot_topic_rule.nope.arn}"
    mapping["depends_on"] = ["aws_iam_role_policy.stream"]
    problems = check_terraform(config)
    assert len(problems) == 7, problems
    assert any("depends on undeclared aws_iam_role_policy.stream" in p for p in problems)
    assert any("no argument 'starting_positon'" in p for p in problems)
    assert any("on_failure: no argument 'arn'" in p for p in problems)
    assert any("required 'destination_arn' missing" in p for p in problems)
    assert any("required 'sql_version' missing" in p for p in problems)
    assert any("no attribute 'role_arn'" in p for p in problems)
    assert any("aws_iot_topic_rule.nope is not declared" in p for p in problems)


def test_terraform_structure():
    config = iac_mqtt.terraform(fleet(), IacOptions("fleet-items"), MqttOptions("fleet.json"))
    r = config["resource"]
    table = r["aws_dynamodb_table"]["fleet_items"]
    assert (table["stream_enabled"], table["stream_view_type"]) == (True, "NEW_AND_OLD_IMAGES")
    rule = r["aws_iot_topic_rule"]["sync_up"]
    assert rule["sql"] == "SELECT *, topic(5) AS deviceId FROM 'dynabase/v1/fleet-items/up/+'"
    assert rule["lambda"] == {"function_arn": "${aws_lambda_function.sync_device.arn}"}
    assert {f["handler"] for f in r["aws_lambda_function"].values()} == {
        "dynabase.hub.aws.on_device_message",
        "dynabase.hub.aws.on_stream",
    }
    device = r["aws_lambda_function"]["sync_device"]
    assert (device["s3_bucket"], device["s3_key"]) == ("${var.lambda_s3_bucket}", "${var.lambda_s3_key}")
    assert device["environment"]["variables"] == {
        "DYNABASE_SCHEMA": "${var.schema_path}",
        "DYNABASE_TABLE": "fleet-items",
        "DYNABASE_IOT_ENDPOINT": "${data.aws_iot_endpoint.data.endpoint_address}",
    }
    assert config["data"]["aws_iot_endpoint"]["data"] == {"endpoint_type": "iot:Data-ATS"}
    assert config["variable"]["schema_path"]["default"] == "fleet.json"
    assert "var.schema_path" in config["variable"]["schema_path"]["validation"]["condition"]
    assert "default" not in config["variable"]["lambda_s3_bucket"]
    mapping = r["aws_lambda_event_source_mapping"]["sync_stream"]
    assert mapping["event_source_arn"] == "${aws_dynamodb_table.fleet_items.stream_arn}"
    assert (
        mapping["starting_position"] == "TRIM_HORIZON" and mapping["bisect_batch_on_function_error"] is True
    )
    assert mapping["depends_on"] == ["aws_iam_role_policy.sync_stream"]  # Lambda checks the role at creation
    assert mapping["destination_config"] == {
        "on_failure": {"destination_arn": "${aws_sqs_queue.sync_failures.arn}"}
    }

    # policies are JSON strings, which Terraform reads as templates: $${ is a literal ${ for AWS IoT
    policy = json.loads(r["aws_iot_policy"]["sync_device"]["policy"])
    resources = [x for s in policy["Statement"] for x in listed(s["Resource"])]
    assert all("$${iot:ClientId}" in x for x in resources if "/down/" in x or "/up/" in x)
    assert any(x.endswith(":topic/dynabase/v1/fleet-items/up/$${iot:ClientId}") for x in resources)
    # the same statements as the CloudFormation roles (which cfn-lint checks), ARNs written Terraform's way
    template = iac_mqtt.cloudformation(fleet(), IacOptions("fleet-items"))
    for label, role in (("sync_device", "DeviceMessageRole"), ("sync_stream", "StreamRole")):
        (cfn,) = template["Resources"][role]["Properties"]["Policies"]
        tf = json.loads(r["aws_iam_role_policy"][label]["policy"])
        assert [(x["Sid"], x["Action"], x.get("Condition")) for x in tf["Statement"]] == [
            (x["Sid"], x["Action"], x.get("Condition")) for x in cfn["PolicyDocument"]["Statement"]
        ]
    stream_policy = json.loads(r["aws_iam_role_policy"]["sync_stream"]["policy"])
    actions = {a for s in stream_policy["Statement"] for a in listed(s["Action"])}
    assert "dynamodb:DeleteItem" in actions and "dynamodb:Scan" not in actions
    assert all("*" not in a for a in actions)
    for s in stream_policy["Statement"]:
        assert all(x != "*" for x in listed(s["Resource"]))


# -- the command -------------------------------------------------------------------------------------------------


def test_iac_sync_mqtt_command(capsys, tmp_path):
    result = run(capsys, "iac", IOTO, "-t", "ioto-devices", "--sync", "mqtt")
    assert result.code == 0, result.err
    template = json.loads(result.out)
    assert template == iac_mqtt.cloudformation(
        load("ioto"), IacOptions("ioto-devices"), MqttOptions(IOTO.name)
    )

    out = tmp_path / "main.tf.json"
    result = run(
        capsys, "iac", IOTO, "-t", "ioto-devices", "-f", "terraform", "--sync", "mqtt",
        "--schema-path", "schemas/ioto.json5", "--iot-identity", "client-id", "-o", out,
    )  # fmt: skip
    assert result.code == 0, result.err
    config = json.loads(out.read_text())
    assert config["variable"]["schema_path"]["default"] == "schemas/ioto.json5"
    assert "ConnectAsClientId" in config["resource"]["aws_iot_policy"]["sync_device"]["policy"]

    result = run(capsys, "iac", FORMKIQ, "-t", "formkiq", "--sync", "mqtt")
    assert result.code == 1 and "the schema has no synced models" in result.err and result.out == ""
    result = run(capsys, "iac", IOTO, "-t", "ioto-devices", "--sync", "mqtt", "-f", "workbench")
    assert result.code == 1 and "(not workbench)" in result.err
    result = run(capsys, "iac", IOTO, "-t", "ioto-devices", "--iot-identity", "thing")
    assert result.code == 2 and "go with --sync mqtt" in result.err
    result = run(capsys, "iac", IOTO, "-t", "ioto-devices", "--sync", "kafka")
    assert result.code == 2
