"""The console's HTTP application: security checks, the page and its static files, and the JSON API.

Paths are under :data:`PREFIX` (``/console/``) for ``dynabase ui`` and ``dynabase serve --ui`` alike:

* ``GET /`` and ``GET /console`` redirect to ``/console/``;
* ``GET /console/?token=T`` sets the cookie and redirects to ``/console/`` (the token leaves the address bar);
* ``GET /console/`` and ``/console/static/*``: the page (token cookie required);
* ``POST /console/api/<operation>``: JSON in, JSON out (token cookie, CSRF header and same origin required);
  errors are ``{"error": {"type", "message", "fields"?}}`` with a 4xx status;
* ``GET /console/api/docs``: the schema's documentation page (``dynabase docs``' HTML).
"""

from __future__ import annotations

import json
import sys
import traceback
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from .. import jsonlimits
from .api import ApiError, ConsoleAPI
from .security import Guard

PREFIX = "/console/"
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css"}
_PAGE_CSP = "default-src 'self'; img-src 'self' data:; frame-src 'self'; frame-ancestors 'none'"
_DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'"
_REFUSED_PAGE = (
    "<!DOCTYPE html><title>dynabase console</title><link rel='icon' href='data:,'>"
    "<p>This console needs the address with the token that "
    "<code>dynabase ui</code> (or <code>dynabase serve --ui</code>) printed when it started.</p>"
)


@dataclass
class Reply:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: list[tuple[str, str]] = field(default_factory=list)


def _json_reply(status: int, document: Any) -> Reply:
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    return Reply(status, body, "application/json", [("Cache-Control", "no-store")])


def _error(status: int, type_: str, message: str) -> Reply:
    return _json_reply(status, {"error": {"type": type_, "message": message}})


def _static(name: str) -> bytes | None:
    if "/" in name or name.startswith(".") or not name:
        return None
    try:
        return resources.files(__package__).joinpath("static", name).read_bytes()
    except (FileNotFoundError, IsADirectoryError, OSError):
        return None


class ConsoleApp:
    """Answers the console's requests for ``api`` behind ``guard``. Call :meth:`bind` once the port is known."""

    def __init__(self, api: ConsoleAPI, guard: Guard | None = None) -> None:
        self.api = api
        self.guard = guard or Guard()

    def bind(self, host: str, port: int) -> None:
        self.guard.bound_host = host.strip("[]").lower()
        self.guard.port = port

    def url(self, base: str) -> str:
        """The address to open: ``base`` (``http://host:port``) + the prefix + the token."""
        return f"{base.rstrip('/')}{PREFIX}?token={self.guard.token}"

    def handle(self, method: str, target: str, headers: dict[str, str], body: bytes | bytearray) -> Reply:
        """One request; ``headers`` with lower-case names, ``target`` the request line's path and query."""
        reply = self._route(method, target, headers, body)
        reply.headers += [
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "SAMEORIGIN"),
        ]
        return reply

    def _route(self, method: str, target: str, headers: dict[str, str], body: bytes | bytearray) -> Reply:
        guard = self.guard
        path, _, query = target.partition("?")
        if not guard.host_allowed(headers.get("host", "")):
            return _error(403, "Forbidden", "This console answers only to its own address (Host refused).")
        if path in ("", "/", PREFIX.rstrip("/")):
            return Reply(303, b"", "text/plain", [("Location", PREFIX)])
        if not path.startswith(PREFIX):
            return _error(404, "NotFound", f"No such page: {path}")
        rest = path[len(PREFIX) :]
        offered = parse_qs(query).get("token", [None])[0]
        if rest == "" and method == "GET" and offered is not None:
            if not guard.token_ok(offered):
                return Reply(401, _REFUSED_PAGE.encode(), _TYPES[".html"])
            return Reply(
                303, b"", "text/plain", [("Location", PREFIX), ("Set-Cookie", guard.set_cookie(PREFIX))]
            )
        if not guard.token_ok(guard.cookie_token(headers.get("cookie", ""))):
            if rest.startswith("api/"):
                return _error(401, "Unauthorized", "The console token is missing or wrong.")
            return Reply(401, _REFUSED_PAGE.encode(), _TYPES[".html"])
        if method in ("GET", "HEAD"):
            return self._get(rest)
        if method != "POST":
            return _error(405, "MethodNotAllowed", f"{method} is not allowed here")
        refused = guard.cross_site(headers)
        if refused:
            return _error(403, "Forbidden", f"Refused: {refused}.")
        if not rest.startswith("api/"):
            return _error(404, "NotFound", f"No such operation: {path}")
        return self._call(rest[4:], body)

    def _get(self, rest: str) -> Reply:
        if rest == "":
            page = _static("index.html") or b""
            return Reply(200, page, _TYPES[".html"], [("Content-Security-Policy", _PAGE_CSP)])
        if rest == "api/docs":
            try:
                html = self.api.docs_html()
            except ApiError as error:
                return _error(error.status, error.type, error.message)
            return Reply(200, html.encode(), _TYPES[".html"], [("Content-Security-Policy", _DOCS_CSP)])
        if rest.startswith("static/"):
            name = rest[len("static/") :]
            data = _static(name)
            if data is not None:
                kind = _TYPES.get(name[name.rfind(".") :], "application/octet-stream")
                return Reply(200, data, kind, [("Cache-Control", "no-cache")])
        return _error(404, "NotFound", f"No such page: {PREFIX}{rest}")

    def _call(self, operation: str, body: bytes | bytearray) -> Reply:
        try:
            request = jsonlimits.loads(body or b"{}")
        except ValueError as error:
            return _error(400, "SerializationException", f"The request body is not JSON: {error}")
        if not isinstance(request, dict):
            return _error(400, "SerializationException", "The request body must be a JSON object")
        try:
            return _json_reply(200, self.api.call(operation, request))
        except ApiError as error:
            return _json_reply(error.status, {"error": error.document()})
        except Exception:  # a bug: report it without taking the console down
            traceback.print_exc(file=sys.stderr)
            return _error(500, "InternalError", "The console failed on this request (see its log).")
