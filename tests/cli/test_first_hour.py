"""The first hour with the CLI (issue 26): each mistake a new user makes gets a message that says what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynabase.cli.main import main

#: the smallest schema ``dynabase sync`` accepts
SYNC_SCHEMA = """{
  format: 'onetable:1.1.0', version: '0.0.1', params: {timestamps: true},
  indexes: {primary: {hash: 'pk', sort: 'sk'}},
  models: {Thing: {pk: {type: 'string', value: 'thing#${id}'}, sk: {type: 'string', value: 'thing#'},
                   id: {type: 'string', required: true}}},
  process: {Thing: {sync: 'both'}},
}"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``dynabase ARGV`` in this process: (exit status, stdout, stderr); argparse's exits count too."""
    capsys.readouterr()
    try:
        code = main(list(argv))
    except SystemExit as stopped:
        code = int(stopped.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# -- no AWS credentials for a local endpoint ---------------------------------------------------------------------


@pytest.fixture
def no_aws_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh machine: no AWS variables, no ~/.aws files, no instance metadata to ask."""
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


LOCAL_HINT = "set AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x; any values do for a local endpoint"


def _command(kind: str, url: str, tmp_path: Path) -> list[str]:
    """A command that signs a request to ``url`` before it connects (nothing listens there)."""
    if kind == "sync":
        schema = tmp_path / "schema.json5"
        schema.write_text(SYNC_SCHEMA, encoding="utf-8")
        return ["sync", str(schema), "--db", str(tmp_path / "device.db"), "--table", "app", "--once"]
    if kind == "streams":
        return ["streams", "tail", "orders"]
    return ["export", "orders", "--out", str(tmp_path / "out.jsonl")]


@pytest.mark.usefixtures("no_aws_credentials")
@pytest.mark.parametrize("kind", ["sync", "streams", "export"])
@pytest.mark.parametrize("url", ["http://localhost:9", "http://127.0.0.2:9", "http://[::1]:9"])
def test_no_credentials_for_a_local_endpoint_says_any_dummy_keys_do(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str, url: str
) -> None:
    code, _, err = run(capsys, *_command(kind, url, tmp_path), "--endpoint-url", url)
    assert code == 1
    assert "credentials" in err and LOCAL_HINT in err, err


@pytest.mark.usefixtures("no_aws_credentials")
@pytest.mark.parametrize("kind", ["sync", "streams"])
def test_no_credentials_for_aws_does_not_call_it_local(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
) -> None:
    url = "https://dynamodb.eu-west-1.amazonaws.com"
    code, _, err = run(capsys, *_command(kind, url, tmp_path), "--endpoint-url", url)
    assert code == 1
    assert "credentials" in err and "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in err
    assert "local endpoint" not in err
