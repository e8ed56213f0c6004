"""How the lean clients reach an endpoint: directly or through an HTTP proxy, and which certificates TLS trusts.

As botocore decides it:

- proxies: ``proxies={"http": url, "https": url}`` when given, otherwise ``HTTP_PROXY``/``HTTPS_PROXY`` (and their
  lower-case forms) unless ``NO_PROXY`` names the host. An https endpoint is reached through a ``CONNECT``
  tunnel; an http one by sending the request to the proxy with the absolute URL. A proxy URL's ``user:password``
  becomes ``Proxy-Authorization: Basic``. Proxies are plain-http URLs (an https proxy needs boto3).
- certificates: ``verify=False`` checks nothing, ``verify="path"`` trusts that bundle, otherwise the
  ``ca_bundle`` of botocore's configuration (``AWS_CA_BUNDLE`` or the profile's ``ca_bundle``), otherwise the
  system's store.
"""

from __future__ import annotations

import base64
import socket
import ssl
import urllib.request
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

_MAX_HEAD = 65536


class ProxyRefused(ConnectionRefusedError):
    """The proxy did not open the tunnel (its status line is the message)."""


@dataclass(frozen=True)
class Route:
    """Where one client's connections go and what they do before the first request."""

    host: str  # the TCP peer: the proxy, or the endpoint itself
    port: int
    tls: ssl.SSLContext | None  # TLS to the endpoint (through the tunnel when there is one)
    server_hostname: str
    tunnel: bytes = b""  # the CONNECT request to send first, when tunnelling
    proxy_url: str | None = None
    #: http through a proxy: the request line's absolute URL prefix and the proxy's header lines
    forward_prefix: str = ""
    forward_headers: str = ""


def ssl_context(verify: bool | str | None, ca_bundle: str | None = None) -> ssl.SSLContext:
    """The TLS context for ``verify`` (False, a CA bundle path, or None/True: ``ca_bundle`` or the system's)."""
    if verify is False:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    cafile = verify if isinstance(verify, str) else ca_bundle
    try:
        return ssl.create_default_context(cafile=cafile)
    except (OSError, ssl.SSLError) as error:
        raise ValueError(f"cannot use the CA bundle {cafile!r}: {error}") from None


def proxy_for(scheme: str, host: str, proxies: dict[str, str] | None) -> str | None:
    """The proxy URL for a request to ``scheme://host``: from ``proxies`` when given, else the environment."""
    if proxies is not None:
        return proxies.get(scheme) or None
    environment = urllib.request.getproxies_environment()
    if not environment.get(scheme):
        return None
    if urllib.request.proxy_bypass_environment(host, environment):  # type: ignore[attr-defined]  # stdlib, untyped
        return None
    return environment[scheme]


def plan(
    scheme: str,
    host: str,
    port: int,
    *,
    proxies: dict[str, str] | None = None,
    verify: bool | str | None = None,
    ca_bundle: str | None = None,
) -> Route:
    """The route to ``scheme://host:port``."""
    tls = ssl_context(verify, ca_bundle) if scheme == "https" else None
    proxy = proxy_for(scheme, host, proxies)
    if proxy is None:
        return Route(host, port, tls, host)
    if "://" not in proxy:
        proxy = "http://" + proxy  # as urllib3 reads "host:port"
    parts = urlsplit(proxy)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"proxy URL must be http://[user:password@]host[:port]: {proxy!r}")
    auth = ""
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        auth = f"Proxy-Authorization: Basic {base64.b64encode(pair).decode('ascii')}\r\n"
    proxy_port = parts.port or 80
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if tls is not None:
        tunnel = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n{auth}\r\n".encode()
        return Route(parts.hostname, proxy_port, tls, host, tunnel, proxy)
    default = port == 80
    prefix = f"http://{host if default else authority}"
    return Route(parts.hostname, proxy_port, None, host, proxy_url=proxy, forward_prefix=prefix,
                 forward_headers=auth)  # fmt: skip


def tunnel_reply(head: bytes) -> None:
    """Check a proxy's answer to CONNECT (its head, up to the blank line)."""
    status = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = status.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].startswith("2"):
        raise ProxyRefused(f"the proxy refused the tunnel: {status[:200]!r}")


def open_tunnel(route: Route, timeout: float) -> socket.socket:
    """A TCP connection to the endpoint through the route's proxy, tunnel open (blocking; TLS not yet on)."""
    sock = socket.create_connection((route.host, route.port), timeout=timeout)
    try:
        sock.sendall(route.tunnel)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                raise ProxyRefused("the proxy closed the connection instead of answering CONNECT")
            head += chunk
            if len(head) > _MAX_HEAD:
                raise ProxyRefused("the proxy's answer to CONNECT is too long")
        head, _, rest = head.partition(b"\r\n\r\n")
        tunnel_reply(head)
        if rest:
            raise ProxyRefused("the proxy sent data after accepting the tunnel")
    except BaseException:
        sock.close()
        raise
    return sock


__all__ = ["ProxyRefused", "Route", "open_tunnel", "plan", "proxy_for", "ssl_context", "tunnel_reply"]
