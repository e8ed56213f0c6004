"""Safe by default: without --credentials, ``dynabase serve`` grants no cross-origin access except to the
origins named with --cors-origin, and answers only to local Host names (DNS rebinding) and --allow-host ones.
Over HTTP against real ``dynabase serve`` processes."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from dynabase.server import start_subprocess
from dynabase.server.access import Access, host_argument, normalize_origin

from .helpers import TARGET, boto_client, raw_request, raw_socket_exchange

EVIL = "http://evil.example"
APP = "http://localhost:3000"
ASKED = "authorization,x-amz-target,content-type"


def _preflight(url: str, origin: str) -> Any:
    return raw_request(
        url,
        None,
        None,
        method="OPTIONS",
        auth=False,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": ASKED,
        },
    )


def _make_table(url: str) -> Any:
    ddb = boto_client(url)
    ddb.create_table(
        TableName="secrets",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    ddb.put_item(TableName="secrets", Item={"pk": {"S": "k"}, "secret": {"S": "hunter2"}})
    return ddb


@pytest.fixture(scope="module")
def default_serve() -> Iterator[Any]:
    process = start_subprocess(":memory:")
    try:
        _make_table(process.url)
        yield process
    finally:
        process.close()


@pytest.fixture(scope="module")
def open_serve() -> Iterator[Any]:
    process = start_subprocess(
        ":memory:",
        args=["--cors-origin", APP, "--cors-origin", "https://Tool.Example:443/", "--allow-host", "db"],
    )
    try:
        yield process
    finally:
        process.close()


def _refused(answer: Any, word: str) -> dict[str, Any]:
    assert answer.status == 403, answer
    assert "access-control-allow-origin" not in answer.headers
    body: dict[str, Any] = answer.json()
    assert body["__type"].endswith("#AccessDeniedException")
    assert word in body["Message"]
    return body


def _start_up_line(process: Any) -> str:
    """The server's log once its start-up line about web pages is in it: written to stderr just after it
    starts answering, so a test that is quick may read the log before it (a hang guard of 30 s)."""
    deadline = time.monotonic() + 30
    while "web pages let in" not in process.output() and time.monotonic() < deadline:
        time.sleep(0.02)
    output: str = process.output()
    return output


def test_a_preflight_from_another_origin_gets_no_access(default_serve: Any) -> None:
    body = _refused(_preflight(default_serve.url, EVIL), "--cors-origin")
    assert EVIL in body["Message"]
    assert "web pages let in: none (--cors-origin)" in _start_up_line(
        default_serve
    )  # the start-up line says so


def test_the_start_up_line_names_the_origins_let_in(open_serve: Any) -> None:
    assert "web pages let in: http://localhost:3000, https://tool.example;" in _start_up_line(open_serve)


@pytest.mark.parametrize("origin", [EVIL, APP, "null", "http://127.0.0.1:1"])
def test_requests_from_other_origins_are_refused_and_change_nothing(default_serve: Any, origin: str) -> None:
    deleting = raw_request(
        default_serve.url, TARGET + "DeleteTable", b'{"TableName":"secrets"}', headers={"Origin": origin}
    )
    _refused(deleting, "--cors-origin")
    # a "simple" request (text/plain, no preflight) is refused as well
    reading = raw_request(
        default_serve.url,
        TARGET + "GetItem",
        b'{"TableName":"secrets","Key":{"pk":{"S":"k"}}}',
        headers={"Origin": origin, "Content-Type": "text/plain"},
    )
    _refused(reading, "--cors-origin")
    assert boto_client(default_serve.url).list_tables()["TableNames"] == ["secrets"]


def test_requests_without_origin_are_served(default_serve: Any) -> None:
    answer = raw_request(
        default_serve.url, TARGET + "GetItem", b'{"TableName":"secrets","Key":{"pk":{"S":"k"}}}'
    )
    assert answer.status == 200 and answer.json()["Item"]["secret"] == {"S": "hunter2"}
    assert "access-control-allow-origin" not in answer.headers


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "localhost.evil.example", "db"])
def test_other_host_names_are_refused(default_serve: Any, host: str) -> None:
    answer = raw_request(default_serve.url, headers={"Host": host.format(port=default_serve.port)})
    body = _refused(answer, "--allow-host")
    assert f"--allow-host {host.partition(':')[0]}" in body["Message"]


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:{port}", "127.0.0.1:{port}", "[::1]:{port}", "10.1.2.3"]
)
def test_local_names_and_ip_addresses_are_served(default_serve: Any, host: str) -> None:
    answer = raw_request(default_serve.url, headers={"Host": host.format(port=default_serve.port)})
    assert answer.status == 200, answer


def test_a_request_without_host_is_served(default_serve: Any) -> None:
    reply = raw_socket_exchange(
        default_serve.url,
        b"POST / HTTP/1.0\r\nAuthorization: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
        b"Content-Length: 2\r\n\r\n{}",
    )
    assert reply.startswith(b"HTTP/1.1 200 ") or reply.startswith(b"HTTP/1.0 200 "), reply[:200]


def test_named_origins_get_cors(open_serve: Any) -> None:
    for origin in (APP, "https://tool.example"):
        preflight = _preflight(open_serve.url, origin)
        assert preflight.status == 200
        assert preflight.headers["access-control-allow-origin"] == origin
        assert preflight.headers["access-control-allow-headers"] == ASKED
        assert "Origin" in preflight.headers["vary"]
        answer = raw_request(open_serve.url, headers={"Origin": origin})
        assert answer.status == 200
        assert answer.headers["access-control-allow-origin"] == origin
    _refused(_preflight(open_serve.url, EVIL), "--cors-origin")
    _refused(_preflight(open_serve.url, "http://localhost:3001"), "--cors-origin")


def test_allowed_host_names_are_served(open_serve: Any) -> None:
    assert raw_request(open_serve.url, headers={"Host": f"db:{open_serve.port}"}).status == 200
    assert raw_request(open_serve.url, headers={"Host": "DB."}).status == 200
    _refused(raw_request(open_serve.url, headers={"Host": "other"}), "--allow-host")


def test_with_credentials_every_origin_and_host_is_answered_as_on_aws(tmp_path: Any) -> None:
    keys = tmp_path / "keys"
    keys.write_text("AK SECRET\n")
    process = start_subprocess(":memory:", args=["--credentials", str(keys)])
    try:
        preflight = _preflight(process.url, EVIL)
        assert preflight.status == 200 and preflight.headers["access-control-allow-origin"] == "*"
        # a page cannot sign: an unsigned request is refused for its missing signature, not its Host or Origin
        answer = raw_request(process.url, auth=False, headers={"Origin": EVIL, "Host": "evil.example"})
        assert answer.status == 400 and answer.json()["__type"].endswith(
            "MissingAuthenticationTokenException"
        )
        signed = boto_client(process.url, key="AK", secret="SECRET")
        assert signed.list_tables()["TableNames"] == []
    finally:
        process.close()


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--cors-origin", "http://localhost:3000/app", "no path"),
        ("--cors-origin", "localhost:3000", "not an origin"),
        ("--cors-origin", "null", "not an origin"),
        ("--allow-host", "http://db", "not a host name"),
        ("--allow-host", "db:8000", "not a host name"),
    ],
)
def test_bad_flag_values_are_refused_by_name(flag: str, value: str, words: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dynabase", "serve", "--db", ":memory:", flag, value],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert flag in result.stderr and words in result.stderr


def test_origins_are_compared_as_browsers_send_them() -> None:
    assert normalize_origin("HTTP://LocalHost:80/") == "http://localhost"
    assert normalize_origin("https://x.example:8443") == "https://x.example:8443"
    assert normalize_origin("http://[::1]:3000") == "http://[::1]:3000"
    access = Access(["http://localhost:80"])
    assert access.origin_allowed("http://localhost") and not access.origin_allowed("http://localhost:81")
    assert Access(["*"]).origin_allowed(EVIL) and not Access().origin_allowed(EVIL)
    assert Access(open_by_default=True).origin_allowed(EVIL)
    assert not Access([APP], open_by_default=True).origin_allowed(EVIL)  # naming origins restricts
    assert host_argument("DB.") == "db" and host_argument("[::1]") == "::1"


def test_a_same_origin_request_is_served(default_serve: Any) -> None:
    # browsers send Origin on a same-origin POST too: a page of this very host and port (the console's)
    own = f"http://127.0.0.1:{default_serve.port}"
    answer = raw_request(
        default_serve.url, headers={"Origin": own, "Host": f"127.0.0.1:{default_serve.port}"}
    )
    assert answer.status == 200, answer
    assert Access().origin_allowed("https://app.local", "app.local")
    assert not Access().origin_allowed("http://app.local:81", "app.local")


def test_each_host_value_is_judged_once_and_the_answers_kept_are_bounded(monkeypatch: Any) -> None:
    from dynabase.server import access as module

    judged: list[str] = []
    judge = Access._host_refused

    def counting(self: Access, value: str) -> str | None:
        judged.append(value)
        return judge(self, value)

    monkeypatch.setattr(Access, "_host_refused", counting)
    checks = Access(allowed_hosts=["dynabase"])
    for _ in range(3):
        assert checks.host_refused({"host": "127.0.0.1:8000"}) is None
        assert checks.host_refused({"host": "dynabase:8000"}) is None
        assert "Host 'evil.example' refused" in (checks.host_refused({"host": "evil.example"}) or "")
    assert judged == ["127.0.0.1:8000", "dynabase:8000", "evil.example"]
    for n in range(
        module.HOSTS_KEPT * 2
    ):  # a client inventing names is answered each time, in bounded memory
        assert checks.host_refused({"host": f"n{n}.example"}) is not None
        assert len(checks._hosts) <= module.HOSTS_KEPT
    assert checks.host_refused({"host": "evil.example"}) is not None
