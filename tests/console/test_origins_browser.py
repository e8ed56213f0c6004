"""A web page in a real headless Chromium against ``dynabase serve`` without --credentials: a page from another
origin (another loopback port) cannot read an item or delete the table unless ``--cors-origin`` names it, and a
page whose own domain is re-pointed at 127.0.0.1 (DNS rebinding, simulated with Chromium's host resolver
rules) is refused unless ``--allow-host`` names that domain."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from .browser import launched

REBOUND = "rebound.test"
PAGE = b"<!DOCTYPE html><title>someone else's page</title><p>hello"
#: the page's script: one DynamoDB call with fetch (a fake signature: the server checks none), its answer or
#: the error fetch raised when the browser withheld the answer
CALL = """async ([url, operation, request]) => {
  try {
    const answer = await fetch(url, {method: "POST", body: JSON.stringify(request), headers: {
      "Content-Type": "application/x-amz-json-1.0",
      "X-Amz-Target": "DynamoDB_20120810." + operation,
      "Authorization": "AWS4-HMAC-SHA256 Credential=page/20240101/us-east-1/dynamodb/aws4_request, "
        + "SignedHeaders=host, Signature=00"}});
    return {status: answer.status, body: await answer.text()};
  } catch (error) {
    return {error: String(error)};
  }
}"""
GET = {"TableName": "secrets", "Key": {"pk": {"S": "k"}}}


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def page_origin() -> Iterator[str]:
    """Another origin: a plain page on another loopback port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    extra = [
        f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1",
        # Chromium's own guard (Private/Local Network Access: a public page may not call loopback) would hide
        # the server's: off, as in browsers without it
        "--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,"
        "PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks",
    ]
    with launched(extra) as instance:
        yield instance


def _serve(*args: str) -> Any:
    from dynabase.server import start_subprocess

    process = start_subprocess(":memory:", args=args)
    try:
        _make_secret_table(process.url)
    except BaseException:
        process.close()
        raise
    return process


def _make_secret_table(url: str) -> None:
    import dynabase

    client = dynabase.endpoint(
        url, region="us-east-1", aws_access_key_id="page", aws_secret_access_key="page"
    )
    client.create_table(
        TableName="secrets",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName="secrets", Item={"pk": {"S": "k"}, "secret": {"S": "hunter2"}})


def _tables(url: str) -> list[str]:
    import dynabase

    names: list[str] = dynabase.endpoint(
        url, region="us-east-1", aws_access_key_id="page", aws_secret_access_key="page"
    ).list_tables()["TableNames"]
    return names


def _read_then_delete(browser: Any, page_origin: str, *serve_args: str) -> tuple[Any, Any, list[str]]:
    """From a page of ``page_origin``: GetItem, then DeleteTable on a new server; (read, deleted, tables left)."""
    process = _serve(*serve_args)
    try:
        context = browser.new_context()
        try:
            tab = context.new_page()
            tab.goto(page_origin + "/")
            read = tab.evaluate(CALL, [process.url, "GetItem", GET])
            deleted = tab.evaluate(CALL, [process.url, "DeleteTable", {"TableName": "secrets"}])
        finally:
            context.close()
        return read, deleted, _tables(process.url)
    finally:
        process.close()


def test_a_page_from_another_origin_cannot_read_or_delete(browser: Any, page_origin: str) -> None:
    read, deleted, tables = _read_then_delete(browser, page_origin)
    assert "error" in read and "hunter2" not in str(read), read
    assert "error" in deleted, deleted
    assert tables == ["secrets"]


def test_a_page_from_an_origin_named_with_cors_origin_can(browser: Any, page_origin: str) -> None:
    read, deleted, tables = _read_then_delete(browser, page_origin, "--cors-origin", page_origin)
    assert read["status"] == 200 and "hunter2" in read["body"], read
    assert deleted["status"] == 200, deleted
    assert tables == []


@pytest.mark.parametrize("allowed", [False, True])
def test_a_rebound_domain_is_refused_unless_allowed(browser: Any, allowed: bool) -> None:
    process = _serve(*(("--allow-host", REBOUND) if allowed else ()))
    try:
        rebound = f"http://{REBOUND}:{process.port}"
        context = browser.new_context()
        try:
            tab = context.new_page()
            # the attacker's page, as first loaded from its own server (before the name pointed here)
            tab.route(f"{rebound}/page", lambda route: route.fulfill(body=PAGE, content_type="text/html"))
            tab.goto(f"{rebound}/page")
            read = tab.evaluate(CALL, [rebound + "/", "GetItem", GET])  # same origin: no CORS involved
        finally:
            context.close()
        assert "status" in read, read
        if allowed:
            assert read["status"] == 200 and "hunter2" in read["body"], read
        else:
            assert read["status"] == 403 and "hunter2" not in read["body"], read
            assert "--allow-host" in read["body"]
    finally:
        process.close()
