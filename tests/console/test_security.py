"""Only a browser that opened the printed address drives the console: token, cookie, CSRF, Host, read-only."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from .helpers import ConsoleHTTP


def test_the_printed_address_sets_an_http_only_strict_cookie_and_drops_the_token(
    console_server: Any, http: ConsoleHTTP
) -> None:
    token = console_server.app.guard.token
    assert console_server.url == f"http://127.0.0.1:{console_server.port}/console/?token={token}"
    status, headers, _ = http.request("GET", f"/console/?token={token}")
    assert status == 303 and headers["location"] == "/console/"
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"{console_server.app.guard.cookie_name}={token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


def test_binds_loopback_by_default(console_server: Any) -> None:
    assert console_server.host == "127.0.0.1"


@pytest.mark.parametrize("cookie", [None, "dynabase_console_1=nope", "garbage;;=="])
def test_without_the_token_nothing_is_served(
    http: ConsoleHTTP, console_server: Any, cookie: str | None
) -> None:
    if cookie and cookie.startswith("dynabase_console_1="):
        cookie = f"{console_server.app.guard.cookie_name}=wrong-token"
    status, document = http.post("listTables", {}, Cookie=cookie)
    assert status == 401 and document["error"]["type"] == "Unauthorized"
    status, _, page = http.request("GET", "/console/", headers={"Cookie": cookie})
    assert status == 401 and b"token" in page
    status, _, _ = http.request("GET", "/console/static/app.js", headers={"Cookie": cookie})
    assert status == 401
    status, _, _ = http.request("GET", "/console/?token=wrong")
    assert status == 401


def test_a_post_without_the_csrf_header_is_refused(http: ConsoleHTTP) -> None:
    status, document = http.post("listTables", {}, X_Dynabase_Console=None)
    assert status == 403 and "x-dynabase-console" in document["error"]["message"]


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}],
)
def test_a_cross_site_post_is_refused(http: ConsoleHTTP, headers: dict[str, str]) -> None:
    status, document = http.post("deleteTable", {"table": "paged", "confirm": "paged"}, **headers)
    assert status == 403, document
    assert http.ok("describeTable", {"table": "paged"})["table"]["TableName"] == "paged"


def test_a_same_origin_post_with_origin_passes(http: ConsoleHTTP) -> None:
    status, _ = http.post(
        "listTables", {}, Origin=f"http://127.0.0.1:{http.port}", Sec_Fetch_Site="same-origin"
    )
    assert status == 200


@pytest.mark.parametrize("host", ["evil.example", "rebind.attacker.test:{port}", "127.0.0.1:1", ""])
def test_dns_rebinding_host_names_are_refused(http: ConsoleHTTP, host: str) -> None:
    status, document = http.post("listTables", {}, Host=host.format(port=http.port))
    assert status == 403 and "Host" in document["error"]["message"]


@pytest.mark.parametrize("host", ["localhost:{port}", "127.0.0.1:{port}", "[::1]:{port}"])
def test_local_addresses_are_accepted(http: ConsoleHTTP, host: str) -> None:
    status, _ = http.post("listTables", {}, Host=host.format(port=http.port))
    assert status == 200


def test_get_never_changes_anything(http: ConsoleHTTP) -> None:
    status, _, _ = http.request(
        "GET", "/console/api/deleteTable?table=paged&confirm=paged", headers={"Cookie": http.cookie}
    )
    assert status == 404
    status, _, _ = http.request("DELETE", "/console/api/deleteTable", headers={"Cookie": http.cookie})
    assert status == 405
    assert http.ok("describeTable", {"table": "paged"})


def test_the_page_is_served_with_a_strict_content_security_policy(http: ConsoleHTTP) -> None:
    status, headers, page = http.request("GET", "/console/", headers={"Cookie": http.cookie})
    assert status == 200 and b'<script type="module" src="static/app.js">' in page
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    for name in ("app.js", "api.js", "dom.js", "items.js", "entities.js", "json.js", "pager.js", "style.css"):
        status, headers, body = http.request(
            "GET", f"/console/static/{name}", headers={"Cookie": http.cookie}
        )
        assert status == 200 and body, name
        assert b"http://" not in body and b"https://" not in body, f"{name} must not fetch from elsewhere"
    status, _, _ = http.request("GET", "/console/static/../app.py", headers={"Cookie": http.cookie})
    assert status == 404


@pytest.mark.parametrize(
    ("endpoint", "allow", "read_only"),
    [
        (None, False, False),
        ("http://localhost:8000", False, False),
        ("http://127.0.0.1:8000", False, False),
        ("http://[::1]:8000", False, False),
        ("https://dynamodb.eu-west-1.amazonaws.com", False, True),
        ("http://192.168.1.20:8000", False, True),
        ("https://dynamodb.eu-west-1.amazonaws.com", True, False),
    ],
)
def test_read_only_against_endpoints_on_other_machines(
    endpoint: str | None, allow: bool, read_only: bool
) -> None:
    from dynabase.cli.ui import endpoint_read_only

    assert endpoint_read_only(endpoint, allow) is read_only


def test_a_read_only_console_refuses_every_write(console_client: Any) -> None:
    from dynabase.console.server import ConsoleServer, build

    server = ConsoleServer(build(console_client, target="https://remote.example", read_only=True)).start()
    try:
        http = ConsoleHTTP(server.port, server.app.guard.cookie_name, server.app.guard.token)
        assert http.ok("info")["readOnly"] is True
        writes = [
            ("putItem", {"table": "paged", "item": '{"pk": {"S": "x"}, "sk": {"S": "y"}}'}),
            ("deleteItem", {"table": "paged", "key": {"pk": {"S": "p"}, "sk": {"S": "00"}}}),
            ("deleteTable", {"table": "paged", "confirm": "paged"}),
            ("createTable", {"definition": {"TableName": "x"}}),
            ("partiql", {"statement": "DELETE FROM paged WHERE pk = 'p' AND sk = '00'"}),
            ("partiql", {"statement": "  insert into paged value {'pk': 'x', 'sk': 'y'}"}),
        ]
        for operation, body in writes:
            status, document = http.post(operation, body)
            assert status == 403 and document["error"]["type"] == "ReadOnly", (operation, document)
        assert http.ok("scan", {"table": "paged", "limit": 1})["count"] == 1
        rows = http.ok("partiql", {"statement": "SELECT * FROM paged WHERE pk = 'p' AND sk = '00'"})["items"]
        assert rows == [{"pk": {"S": "p"}, "sk": {"S": "00"}, "n": {"N": "0"}}]
    finally:
        server.stop()


def test_serve_ui_puts_the_console_on_the_server_port_and_dynamodb_still_answers(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys

    import boto3

    schema = tmp_path / "schema.json"
    schema.write_text(
        json.dumps(
            {
                "format": "onetable:1.1.0",
                "version": "0.0.1",
                "indexes": {"primary": {"hash": "pk"}},
                "models": {},
            }
        )
    )
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    command = [
        sys.executable,
        "-m",
        "dynabase",
        "serve",
        "--db",
        ":memory:",
        "--port",
        "0",
        "--ui",
        "--schema",
        str(schema),
        "-q",
    ]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    try:
        ready = process.stdout.readline()
        assert ready.startswith("dynabase serving on http://127.0.0.1:"), ready
        base = ready.split()[3]
        port = int(base.rsplit(":", 1)[1])
        url = process.stdout.readline().strip()
        assert url.startswith(f"dynabase console: open {base}/console/?token="), url
        http = ConsoleHTTP(port, f"dynabase_console_{port}", url.split("token=", 1)[1])
        status, headers, _ = http.request("GET", "/", headers={"Accept": "text/html"})
        assert status == 303 and headers["location"] == "/console/"
        assert http.ok("listTables") == {"tables": []}
        status, _ = http.post("listTables", {}, Cookie=None)
        assert status == 401
        ddb = boto3.client(
            "dynamodb",
            endpoint_url=base,
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
        )
        assert ddb.list_tables()["TableNames"] == []
        status, _, body = http.request("GET", "/")  # a health check's GET / keeps the service's answer
        assert status == 200 and body.startswith(b"healthy: dynamodb.")
    finally:
        process.terminate()  # this test's own process, by PID
        process.wait(15)
        process.stdout.close()


def test_serve_ui_refuses_per_key_databases() -> None:
    import argparse

    from dynabase.cli.signals import stop_on_signals
    from dynabase.server.runner import serve

    options = argparse.Namespace(
        db=":memory:",
        host="127.0.0.1",
        port=0,
        region="us-east-1",
        shared_db=False,
        verbosity=-1,
        ui=True,
        schema=None,
    )
    interval = sys.getswitchinterval()
    assert serve(options, stop_on_signals) == 1
    assert sys.getswitchinterval() == interval  # serve sets its own only while it serves


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000 + b"]" * 100_000, b'{"table": "paged", "key": ' + b"[" * 100_000 + b"}"],
    ids=["body", "member"],
)
def test_deep_json_is_a_client_error(http: ConsoleHTTP, body: bytes) -> None:
    """It raised an uncaught RecursionError and dropped the connection."""
    headers = {"Cookie": http.cookie, "X-Dynabase-Console": "1", "Content-Type": "application/json"}
    status, _, data = http.request("POST", "/console/api/info", body, headers)
    assert status == 400, data
    assert json.loads(data)["error"]["type"] == "SerializationException"
    assert http.ok("info")  # and it still answers
