"""Endpoints: whether one is on this machine, and what to tell a user who has no AWS credentials for it.

Shared by the console (loopback checks), sync and the commands that reach an ``--endpoint-url``.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or an IP literal) means this machine."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_local_endpoint(endpoint_url: str | None) -> bool:
    """Whether ``endpoint_url`` (``http://localhost:8000``, ``http://127.0.0.1``, ``http://[::1]``) is on this
    machine; None (AWS itself) and unparsable URLs are not."""
    try:
        host = urlsplit(endpoint_url or "").hostname
    except ValueError:
        return False
    return bool(host) and is_loopback_host(host or "")


def missing_credentials_hint(endpoint_url: str | None) -> str:
    """What to do when boto3 finds no credentials for ``endpoint_url``: a local endpoint (DynamoDB Local,
    ``dynabase serve``) takes any keys, so say which variables to set with dummy values."""
    if is_local_endpoint(endpoint_url):
        return "set AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x; any values do for a local endpoint"
    return (
        "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE); any values do for DynamoDB Local"
    )
