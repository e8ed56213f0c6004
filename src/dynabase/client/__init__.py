"""Clients with boto3's low-level DynamoDB interface: the embedded engine, or boto3 itself for AWS."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import Engine
from .embedded import EmbeddedClient


def connect(
    path: str = ":memory:",
    *,
    region: str = "us-east-1",
    ttl_sweep_seconds: float | None = 60.0,
    clock: Callable[[], float] | None = None,
    adopt: bool = False,
) -> EmbeddedClient:
    """Open (or create) an embedded DynamoDB database: a file path, or ":memory:".

    The result behaves like ``boto3.client("dynamodb")``: same methods, responses and exceptions.
    ``client.streams()`` gives the matching ``dynamodbstreams`` client. Expired TTL items are deleted by a
    background sweeper every ``ttl_sweep_seconds`` (None: only when ``client.engine.sweep_expired()`` is called).
    A path that cannot be opened (no such directory, no permission, not a database) raises
    :class:`dynabase.errors.StorageError`, whose message names the path and the reason.
    ``clock`` (epoch seconds) stamps changes captured for sync (default: the wall clock, shifted by
    ``DYNABASE_CLOCK_SKEW``). Another application's SQLite file (tables, none of them dynabase's) is refused
    with a StorageError unless ``adopt=True``: dynabase would add its tables and switch it to WAL journaling.
    """
    engine = Engine(path, region=region, ttl_sweep_seconds=ttl_sweep_seconds, clock=clock, adopt=adopt)
    return EmbeddedClient(engine)


def aws(*, endpoint_url: str | None = None, region: str | None = None, **kwargs: Any) -> Any:
    """A real boto3 DynamoDB client (AWS, DynamoDB Local, or any compatible endpoint)."""
    import boto3

    return boto3.client("dynamodb", endpoint_url=endpoint_url, region_name=region, **kwargs)


__all__ = ["EmbeddedClient", "aws", "connect"]
