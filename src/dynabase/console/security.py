"""Who may drive the console: a random token (in the printed URL, then an HttpOnly SameSite=Strict cookie),
a custom header and a same-origin check on every state-changing request, and a Host check.

Why each: the token stops other local users and web pages (they cannot read it); the custom header cannot be
sent cross-origin without a CORS preflight, which the console never answers; ``Origin`` (and
``Sec-Fetch-Site``) refuse cross-site posts outright; the Host check refuses DNS rebinding (a hostile name
pointed at 127.0.0.1: only IP literals, ``localhost``, the bound host name and ``--allow-host`` names are
accepted; the check is :func:`dynabase.server.access.host_name_allowed`, as ``dynabase serve``'s).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from http.cookies import SimpleCookie

from ..server.access import host_name_allowed, split_host

#: the header every state-changing request must carry (any cross-origin sender would need a preflight)
CSRF_HEADER = "x-dynabase-console"
_SAFE_SITES = ("same-origin", "none")


def new_token() -> str:
    return secrets.token_urlsafe(32)


class Guard:
    """The checks for one console: its token, cookie name and the host names it answers to."""

    def __init__(
        self,
        token: str | None = None,
        bound_host: str = "127.0.0.1",
        port: int = 0,
        allowed_hosts: Iterable[str] = (),
    ) -> None:
        self.token = token or new_token()
        self.bound_host = bound_host.strip("[]").lower()
        self.port = port
        #: host names answered besides localhost, IP literals and the bound name (``--allow-host``)
        self.allowed_hosts = frozenset(allowed_hosts)

    @property
    def cookie_name(self) -> str:
        # cookies are shared by every port of a host: one name per console, so two consoles do not collide
        return f"dynabase_console_{self.port}"

    def host_allowed(self, host_header: str) -> bool:
        host, port = split_host(host_header)
        if port and port != str(self.port):
            return False
        return host_name_allowed(host, (self.bound_host, *self.allowed_hosts))

    def token_ok(self, candidate: str | None) -> bool:
        if not candidate:
            return False
        return hmac.compare_digest(candidate.encode(), self.token.encode())

    def cookie_token(self, cookie_header: str) -> str | None:
        try:
            morsel = SimpleCookie(cookie_header).get(self.cookie_name)
        except Exception:  # a malformed Cookie header: no token
            return None
        return morsel.value if morsel is not None else None

    def set_cookie(self, path: str) -> str:
        return f"{self.cookie_name}={self.token}; Path={path}; HttpOnly; SameSite=Strict"

    def cross_site(self, headers: dict[str, str]) -> str | None:
        """Why a state-changing request is refused (``None``: it is same-origin and carries the header)."""
        if headers.get(CSRF_HEADER) != "1":
            return f"the {CSRF_HEADER} header is missing"
        site = headers.get("sec-fetch-site")
        if site is not None and site not in _SAFE_SITES:
            return f"a {site} request"
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"http://{headers.get('host', '')}".lower():
            return f"Origin {origin} is not this console"
        return None
