"""Smoke tests with real SDKs against ``dynabase serve``: the AWS SDK for JavaScript v3 and the AWS CLI v1.

Both install what they need on a fresh machine:

* the JS SDK with ``npm install --no-save --prefix <repo>/.cache/js-sdk @aws-sdk/client-dynamodb@3`` (skipped,
  saying so, only when node or npm is not on the PATH);
* the AWS CLI v1: the ``awscli`` of this environment when it is importable, else ``pip install --target
  <repo>/.cache/awscli awscli`` (a separate directory, because awscli pins an exact botocore and must not
  replace the one the project runs on).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from installs import file_lock

from .helpers import boto_client

REPO = Path(__file__).resolve().parents[2]
JS_PREFIX = REPO / ".cache" / "js-sdk"
AWSCLI_TARGET = REPO / ".cache" / "awscli"
JS_SDK = "@aws-sdk/client-dynamodb@3"


@pytest.fixture(scope="module")
def sdk_server() -> Iterator[str]:
    from dynabase.server.runner import start_subprocess

    with start_subprocess(":memory:", args=["-q"]) as process:
        yield process.url


# -- AWS SDK for JavaScript v3 -----------------------------------------------------------------------------------

JS_SCRIPT = r"""
const {
  DynamoDBClient, CreateTableCommand, PutItemCommand, GetItemCommand, QueryCommand, ListTablesCommand,
  UpdateItemCommand, DeleteTableCommand,
} = require("@aws-sdk/client-dynamodb");

async function main() {
  const client = new DynamoDBClient({
    endpoint: process.env.ENDPOINT, region: "us-east-1",
    credentials: { accessKeyId: "fake", secretAccessKey: "fake" }, maxAttempts: 1,
  });
  const out = {};
  await client.send(new CreateTableCommand({
    TableName: "js-table", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "B" }, { AttributeName: "sk", AttributeType: "N" }],
  }));
  out.tables = (await client.send(new ListTablesCommand({}))).TableNames;
  const pk = Uint8Array.from([0, 1, 254, 255]);
  for (let n = 1; n <= 3; n++) {
    await client.send(new PutItemCommand({
      TableName: "js-table",
      Item: { pk: { B: pk }, sk: { N: String(n) }, data: { B: Uint8Array.from([n, 0, n]) },
              set: { BS: [Uint8Array.from([n]), Uint8Array.from([9, 9])] }, text: { S: "héllo" } },
    }));
  }
  const got = await client.send(new GetItemCommand({ TableName: "js-table", Key: { pk: { B: pk }, sk: { N: "2" } } }));
  out.get = { data: Array.from(got.Item.data.B), set: got.Item.set.BS.map((b) => Array.from(b)).sort(),
              text: got.Item.text.S, isBytes: got.Item.data.B instanceof Uint8Array };
  const page = await client.send(new QueryCommand({
    TableName: "js-table", KeyConditionExpression: "pk = :p AND sk >= :s",
    ExpressionAttributeValues: { ":p": { B: pk }, ":s": { N: "2" } },
  }));
  out.query = page.Items.map((i) => i.sk.N);
  out.count = page.Count;
  const updated = await client.send(new UpdateItemCommand({
    TableName: "js-table", Key: { pk: { B: pk }, sk: { N: "1" } }, ReturnValues: "ALL_NEW",
    UpdateExpression: "SET extra = :e", ExpressionAttributeValues: { ":e": { B: Uint8Array.from([7]) } },
  }));
  out.updated = Array.from(updated.Attributes.extra.B);
  try {
    await client.send(new GetItemCommand({ TableName: "missing-table", Key: { pk: { B: pk } } }));
  } catch (error) {
    out.error = { name: error.name, status: error.$metadata.httpStatusCode };
  }
  await client.send(new DeleteTableCommand({ TableName: "js-table" }));
  console.log(JSON.stringify(out));
}

main().catch((error) => { console.error(error); process.exit(1); });
"""


def _install_js_sdk() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not on the PATH: cannot run the AWS SDK for JavaScript smoke test")
    with file_lock(JS_PREFIX / ".install.lock"):
        if not (JS_PREFIX / "node_modules" / "@aws-sdk" / "client-dynamodb" / "package.json").is_file():
            result = subprocess.run(
                [npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(JS_PREFIX), JS_SDK],
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert result.returncode == 0, f"npm install {JS_SDK} failed:\n{result.stdout}\n{result.stderr}"
    return JS_PREFIX


def test_aws_sdk_for_javascript_v3(sdk_server: str, tmp_path: Path) -> None:
    prefix = _install_js_sdk()
    script = tmp_path / "smoke.js"
    script.write_text(JS_SCRIPT)
    env = dict(os.environ, ENDPOINT=sdk_server, NODE_PATH=str(prefix / "node_modules"))
    result = subprocess.run(
        [shutil.which("node") or "node", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=prefix,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert "js-table" in out["tables"]
    assert out["get"] == {"data": [2, 0, 2], "set": [[2], [9, 9]], "text": "héllo", "isBytes": True}
    assert out["query"] == ["2", "3"] and out["count"] == 2
    assert out["updated"] == [7]
    assert out["error"] == {"name": "ResourceNotFoundException", "status": 400}


# -- AWS CLI v1 ------------------------------------------------------------------------------------------------


def _aws_cli() -> list[str]:
    probe = subprocess.run([sys.executable, "-c", "import awscli"], capture_output=True)
    if probe.returncode == 0:
        return [sys.executable, "-m", "awscli"]
    with file_lock(AWSCLI_TARGET.parent / ".awscli.lock"):
        if not (AWSCLI_TARGET / "awscli").is_dir():
            result = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "--target",
                    str(AWSCLI_TARGET),
                    "awscli",
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert result.returncode == 0, f"pip install awscli failed:\n{result.stdout}\n{result.stderr}"
    return [
        sys.executable,
        "-c",
        f"import sys; sys.path.insert(0, {str(AWSCLI_TARGET)!r}); "
        "from awscli.clidriver import main; sys.exit(main())",
    ]


def test_aws_cli_v1(sdk_server: str, tmp_path: Path) -> None:
    cli = _aws_cli()
    env = dict(
        os.environ,
        AWS_ACCESS_KEY_ID="fake",
        AWS_SECRET_ACCESS_KEY="fake",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=str(tmp_path / "none"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
        AWS_PAGER="",
    )

    def aws(*args: str) -> Any:
        result = subprocess.run(
            [*cli, "dynamodb", *args, "--endpoint-url", sdk_server, "--output", "json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert result.returncode == 0, f"aws dynamodb {' '.join(args)}:\n{result.stderr}"
        return json.loads(result.stdout) if result.stdout.strip() else {}

    aws(
        "create-table",
        "--table-name",
        "cli-table",
        "--billing-mode",
        "PAY_PER_REQUEST",
        "--key-schema",
        "AttributeName=pk,KeyType=HASH",
        "--attribute-definitions",
        "AttributeName=pk,AttributeType=S",
    )
    assert "cli-table" in aws("list-tables")["TableNames"]
    # AWS CLI v1 sends a blob parameter's text as the bytes themselves (base64 on the wire)
    aws(
        "put-item",
        "--table-name",
        "cli-table",
        "--item",
        json.dumps({"pk": {"S": "k1"}, "data": {"B": "raw-bytes"}, "n": {"N": "42"}}),
    )
    got = aws("get-item", "--table-name", "cli-table", "--key", json.dumps({"pk": {"S": "k1"}}))["Item"]
    assert base64.b64decode(got["data"]["B"]) == b"raw-bytes"
    assert got["n"] == {"N": "42"}
    assert aws("scan", "--table-name", "cli-table")["Count"] == 1
    assert (
        boto_client(sdk_server).get_item(TableName="cli-table", Key={"pk": {"S": "k1"}})["Item"]["data"]["B"]
        == b"raw-bytes"
    )
    aws("delete-table", "--table-name", "cli-table")
