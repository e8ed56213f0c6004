"""The first hour with the CLI (issue 26): each mistake a new user makes gets a message that says what to do."""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
from pathlib import Path

import boto3
import pytest

import dynabase
from ddb_helpers import table_request
from dynabase.cli.main import main
from dynabase.server import run_in_thread

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
    # boto3's default session keeps the credentials it found for an earlier test: start from none, as a new
    # process does
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)


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


# -- streams tail -----------------------------------------------------------------------------------------------

BIG = "12345678901234567890123456789012345678"  # 38 digits: more than a float (or JSON reader) keeps


def _table(path: Path, name: str, *, stream: bool, key_type: str = "S") -> None:
    client = dynabase.connect(str(path))
    try:
        client.create_table(
            **table_request(name, (f"id:{key_type}",), stream="NEW_AND_OLD_IMAGES" if stream else None)
        )
    finally:
        client.close()


def test_pretty_prints_numbers_as_numbers_with_every_digit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "app.db"
    _table(db, "books", stream=True, key_type="N")
    client = dynabase.connect(str(db))
    item = {"id": {"N": "7"}, "title": {"S": "2"}, "copies": {"N": "2"}, "big": {"N": BIG}}
    client.put_item(TableName="books", Item=item)
    client.close()
    code, out, err = run(capsys, "streams", "tail", "books", "--db", str(db), "--format", "pretty")
    assert code == 0, err
    header, new = out.splitlines()
    assert header.endswith(" id=7")
    assert new == f'  new: {{id: 7, title: "2", copies: 2, big: {BIG}}}'  # the string "2" stays quoted


def test_tail_without_a_stream_says_how_to_enable_one_and_the_way_works(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "it's here.db"  # a quote and a space: the command must still run as printed
    _table(db, "plain", stream=False)
    code, _, err = run(capsys, "streams", "tail", "plain", "--db", str(db))
    assert code == 1
    assert err.startswith("dynabase streams: error: table plain has no stream enabled: ")
    assert "UpdateTable's StreamSpecification" in err
    command = shlex.split(err.strip().split("for instance: ", 1)[1])
    assert command[:2] == ["python", "-c"]
    src = str(Path(__file__).resolve().parents[2] / "src")
    subprocess.run([sys.executable, *command[1:]], check=True, timeout=60, env={"PYTHONPATH": src})
    assert run(capsys, "streams", "tail", "plain", "--db", str(db))[0] == 0


def test_tail_without_a_stream_at_an_endpoint_gives_the_aws_cli_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    try:
        engine.call("CreateTable", table_request("plain", ("id:S",)))
        code, _, err = run(capsys, "streams", "tail", "plain", "--endpoint-url", url)
    finally:
        stop()
        engine.close()
    assert code == 1
    assert err.rstrip().endswith(
        "for instance: aws dynamodb update-table --table-name plain --stream-specification "
        f"StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES --endpoint-url {url}"
    ), err


# -- a --db file that is not there -------------------------------------------------------------------------------


def test_ui_refuses_a_missing_database_file_and_names_create(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    typo = tmp_path / "typo.db"
    # (an address that cannot be bound: were the file opened first, the console would not serve forever)
    code, out, err = run(capsys, "ui", "--db", str(typo), "--host", "256.0.0.1", "--port", "0")
    assert (code, out) == (1, "")
    assert err == f"dynabase ui: error: database file {typo} does not exist (add --create to create it)\n"
    assert list(tmp_path.iterdir()) == []  # no empty database left behind


def test_import_into_a_missing_database_file_suggests_create(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"Item": {"pk": {"S": "a"}}}\n', encoding="utf-8")
    missing = tmp_path / "missing.db"
    code, _, err = run(capsys, "import", str(source), "--table", "t", "--db", str(missing))
    assert code == 1
    assert (
        err == f"dynabase import: error: database file {missing} does not exist (add --create to create it)\n"
    )
    assert not missing.exists()


# -- serve's port ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["serve", "ui"])
@pytest.mark.parametrize(
    ("port", "why"), [("99999", "must be 0-65535"), ("-1", "must be 0-65535"), ("x", "not a port")]
)
def test_a_port_out_of_range_is_a_usage_error_naming_port(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, port: str, why: str
) -> None:
    db = tmp_path / "x.db"
    code, _, err = run(
        capsys, command, "--db", str(db), "--create" if command == "ui" else "-q", f"--port={port}"
    )
    assert code == 2
    assert err.startswith(f"usage: dynabase {command} ")
    assert f"dynabase {command}: error: argument --port: {why}" in err
    assert not db.exists()  # it is the port that is wrong, not the database


@pytest.mark.parametrize(
    ("argv", "prefix"), [(["serve"], "dynabase serve: "), (["ui", "--create"], "dynabase ui: error: ")]
)
def test_a_busy_port_says_so_and_creates_no_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], prefix: str
) -> None:
    db = tmp_path / "new.db"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run(capsys, *argv, "--db", str(db), "--port", str(port))
    assert (code, out) == (1, "")
    assert err == (
        f"{prefix}cannot serve on 127.0.0.1:{port}: the port is in use (another dynabase serve or "
        "DynamoDB Local?); choose another with --port N, or --port 0 for a free one\n"
    )
    assert list(tmp_path.iterdir()) == []


# -- usage errors ------------------------------------------------------------------------------------------------


def test_sync_without_a_mode_shows_its_usage_and_what_each_mode_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json5"
    schema.write_text(SYNC_SCHEMA, encoding="utf-8")
    code, out, err = run(capsys, "sync", str(schema), "--db", str(tmp_path / "d.db"), "--table", "app")
    assert (code, out) == (2, "")
    assert err == (
        "usage: dynabase sync [status | quarantine] SCHEMA --db DEVICE_DB --table TABLE [options]\n"
        "dynabase sync: error: say how to sync, --once or --watch (or `status SCHEMA` for the state):\n"
        "  --once   push and pull everything pending, then exit (status 0 when both sides are in step)\n"
        "  --watch  keep both sides in step until interrupted (Ctrl-C, SIGTERM)\n"
    )
    assert not (tmp_path / "d.db").exists()


@pytest.mark.parametrize(
    ("argv", "usage", "guess"),
    [
        (["serve", "--prot", "8000"], "dynabase serve", "--prot 8000 (did you mean --port?)"),
        (["serve", "--prot=8000"], "dynabase serve", "--prot=8000 (did you mean --port?)"),
        (
            ["sync", "s.json5", "--db", "d.db", "--table", "t", "--onse"],
            "dynabase sync",
            "(did you mean --once?)",
        ),
        (
            ["export", "T", "--db", "a.db", "-o", "o", "--segmnts", "2"],
            "dynabase export",
            "(did you mean --segments?)",
        ),
        (
            ["streams", "tail", "T", "--db", "a.db", "--folow", "--formt=pretty"],
            "dynabase streams tail",
            "--folow --formt=pretty (did you mean --follow for --folow, --format for --formt?)",
        ),
        (["ui", "--db", "a.db", "--zzzzzzzz"], "dynabase ui", "--zzzzzzzz\n"),  # nothing close: no guess
        (["serve", "stray"], "dynabase serve", "stray\n"),
    ],
)
def test_an_unknown_argument_shows_the_commands_own_usage_and_a_guess(
    capsys: pytest.CaptureFixture[str], argv: list[str], usage: str, guess: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"usage: {usage} "), err
    assert f"{usage}: error: unrecognized arguments: " in err
    assert err.endswith(guess if guess.endswith("\n") else guess + "\n"), err
