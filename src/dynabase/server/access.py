"""Who may reach a server from a browser: the Host check against DNS rebinding, and the origins granted CORS.

A web page the developer visits is the threat: without signatures (no ``--credentials``) anything that can
send a request can read and delete every table. Browsers let a page do that in two ways, both closed here:

* CORS: a page on another origin needs the server's ``Access-Control-Allow-Origin`` to send DynamoDB's custom
  headers and read the answer. Only origins the user names (``--cors-origin``) get it; a request carrying any
  other ``Origin`` is refused outright, except the server's own (same-origin: the page came from this
  very host name and port, which passed the Host check).
* DNS rebinding: a page's own domain re-pointed at 127.0.0.1 is same-origin to the browser, so CORS never
  applies. Its requests still carry that domain in ``Host``: only ``localhost``, IP literals, the bound host
  name and names the user allows (``--allow-host``) are answered.

The console (:mod:`dynabase.console.security`) uses the same Host check.
"""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

#: ``--allow-host`` value that turns the Host check off, and ``--cors-origin`` value granting every origin
ANY = "*"


def split_host(value: str) -> tuple[str, str]:
    """``host[:port]`` (with ``[v6]`` literals) -> (host, port), lower-cased."""
    value = value.strip().lower()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        return host, rest[1:] if rest.startswith(":") else ""
    host, _, port = value.partition(":")
    return host, port


def is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def host_name_allowed(host: str, names: Iterable[str]) -> bool:
    """Whether a ``Host`` header's name (no port) may be answered: ``localhost``, an IP literal (a rebound
    name is never one), or one of ``names`` (``*`` among them allows any)."""
    if not host:
        return False
    if host == "localhost" or is_ip_literal(host):
        return True
    allowed = {name.strip("[]").lower() for name in names}
    return host.rstrip(".") in allowed or ANY in allowed


def normalize_origin(text: str) -> str:
    """An origin as browsers send it (``scheme://host[:port]``, lower-case, no default port); ``*`` stays.
    Raises ``ValueError`` naming what is wrong."""
    value = text.strip()
    if value == ANY:
        return ANY
    parts = urlsplit(value)
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{text!r} has a bad port") from None
    if not parts.scheme or not parts.hostname or parts.netloc.rpartition("@")[0]:
        raise ValueError(
            f"{text!r} is not an origin: expected scheme://host[:port], e.g. http://localhost:3000"
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"{text!r} is not an origin: an origin has no path, query or fragment")
    scheme = parts.scheme.lower()
    host = parts.hostname
    host = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


def origin_argument(text: str) -> str:
    """``--cors-origin``'s argparse type."""
    try:
        return normalize_origin(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def host_argument(text: str) -> str:
    """``--allow-host``'s argparse type: a host name (no scheme, port or path), or ``*``."""
    value = text.strip().lower()
    if value == ANY:
        return ANY
    name = value.strip("[]")
    if is_ip_literal(name):  # always answered; harmless to name
        return name
    if not name or any(c in name for c in "/@?#: \t"):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a host name: give the name alone (no scheme, port or path), e.g. dynabase"
        )
    return name.rstrip(".")


#: Host values whose answer :class:`Access` keeps
HOSTS_KEPT = 256


class Access:
    """What a server answers to, from browsers and by name.

    ``cors_origins``: the origins granted CORS (``*``: any). Empty and ``open_by_default`` (the server checks
    signatures: a page cannot sign) grants any origin too, as AWS does. ``allowed_hosts``: names accepted in
    ``Host`` besides ``localhost`` and IP literals; ``check_host=False`` accepts any (signatures protect, or
    nothing comes over a network: ``mock_dynamodb``).
    """

    def __init__(
        self,
        cors_origins: Iterable[str] = (),
        allowed_hosts: Iterable[str] = (),
        *,
        open_by_default: bool = False,
        check_host: bool = True,
    ) -> None:
        self.origins = frozenset(normalize_origin(origin) for origin in cors_origins)
        self.any_origin = ANY in self.origins or (open_by_default and not self.origins)
        self.allowed_hosts = frozenset(host_argument(name) for name in allowed_hosts)
        self.check_host = check_host
        #: the answer for each Host value seen (a client sends the same one every time; parsing it as an IP
        #: address cost more than the rest of a GetItem's header handling), at most HOSTS_KEPT of them
        self._hosts: dict[str, str | None] = {}

    def host_refused(self, headers: dict[str, str]) -> str | None:
        """Why the request's ``Host`` is refused (``None``: accepted). A request without one (HTTP/1.0) has no
        name a page could have rebound."""
        value = headers.get("host")
        if not self.check_host or value is None:
            return None
        try:
            return self._hosts[value]
        except KeyError:
            pass
        refused = self._host_refused(value)
        if len(self._hosts) >= HOSTS_KEPT:  # a client sending ever new names gets no memory of them
            self._hosts.clear()
        self._hosts[value] = refused
        return refused

    def _host_refused(self, value: str) -> str | None:
        host = split_host(value)[0]
        if host_name_allowed(host, self.allowed_hosts):
            return None
        shown = host or value
        return (
            f"Host {shown!r} refused: without --credentials, dynabase serve answers only to localhost, IP "
            f"addresses and names given with --allow-host (a web page could otherwise reach it by "
            f"re-pointing its own domain at this machine). Start it with --allow-host {shown} if that name "
            "is yours."
        )

    def origin_allowed(self, origin: str, host: str = "") -> bool:
        """Whether a request from ``origin`` is served: a named origin, or the request's own ``host`` (a
        same-origin request, as browsers send ``Origin`` on their POSTs: its Host passed the Host check)."""
        if self.any_origin:
            return True
        try:
            normal = normalize_origin(origin)
        except ValueError:  # "null" (sandboxed frames, file: pages) and other non-origins
            return False
        scheme, _, netloc = normal.partition("://")
        return normal in self.origins or (scheme in ("http", "https") and netloc == host.strip().lower())

    def origin_refused(self, origin: str) -> str:
        return (
            f"Origin {origin!r} refused: without --credentials, dynabase serve grants cross-origin access only "
            f"to origins named with --cors-origin (any web page could otherwise read and delete the tables). "
            f"Start it with --cors-origin {origin} to let that page in."
        )

    def cors_headers(self, origin: str) -> list[tuple[str, str]]:
        """The headers granting ``origin`` (already allowed) access to a response."""
        return [
            ("Access-Control-Allow-Origin", ANY if self.any_origin else origin),
            ("Access-Control-Expose-Headers", "x-amzn-RequestId,x-amz-crc32,x-amz-id-2"),
            *(() if self.any_origin else (("Vary", "Origin"),)),
        ]
