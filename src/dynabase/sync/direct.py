"""The ``direct`` transport: the device calls the cloud-side functions itself, with its own cloud client.

A transport is the I/O between a device's :class:`~dynabase.sync.Sync` and the cloud-side semantics of
:mod:`.cloud`. It has ``endpoint`` (for messages), ``device_id`` (None: the device's own), and:

* ``bind(sync)``: called once by ``Sync``;
* ``measure()``: one round trip that refines the device's clock offset against the cloud;
* ``push(changes) -> [Outcome]``: apply pushed changes, one outcome each, in order;
* ``read_scope(scope, after, start, limit) -> page`` and ``get_items(keys) -> items``: the reads of a pull.

Here every call is a DynamoDB request whose ``Date`` header refines the offset (see :mod:`.offset`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .answers import check_answer
from .cloud import CloudContext, Outcome, apply_change, get_items, read_scope

if TYPE_CHECKING:
    from ..model.table import Table
    from .core import Sync


class DirectCloud:
    """The device writes the cloud table itself (boto3 or an embedded client): trusted devices, servers."""

    device_id: str | None = None

    def __init__(self, table: Table) -> None:
        self.table = table
        self.endpoint = str(getattr(getattr(table.client, "meta", None), "endpoint_url", "") or "the cloud")
        self._sync: Sync | None = None
        self._ctx: CloudContext | None = None

    def bind(self, sync: Sync) -> None:
        self._sync = sync
        self._ctx = CloudContext(
            call=self.call,
            table=self.table.name,
            plan=sync.plan,
            key_names=sync.key_names,
            now_ms=sync.now_ms,
            stamp=sync._arrival_seq,
            tombstone_ttl=sync.tombstone_ttl,
            slow_ms=sync.overlap_ms // 3,
            endpoint=self.endpoint,
        )

    @property
    def ctx(self) -> CloudContext:
        if self._ctx is None:
            raise RuntimeError("the transport is not bound to a Sync")
        return self._ctx

    def call(self, method: str, **request: Any) -> dict[str, Any]:
        """One call to the cloud; its ``Date`` header refines the clock offset. An answer that is not complete
        (cut on its way) raises a retryable :class:`SyncError`: nothing is done on the strength of it."""
        sync = self._sync
        if sync is None:
            raise RuntimeError("the transport is not bound to a Sync")
        sent, started = sync.clock(), sync.monotonic()
        try:
            response: dict[str, Any] = getattr(self.table.client, method)(**request)
        except Exception as error:
            meta = getattr(error, "response", None) or {}
            self._sample(sync, sent, started, meta)
            raise
        self._sample(sync, sent, started, response)
        check_answer(method, response, self.endpoint)
        return response

    @staticmethod
    def _sample(sync: Sync, sent: float, started: float, response: Mapping[str, Any]) -> None:
        headers = (response.get("ResponseMetadata") or {}).get("HTTPHeaders") or {}
        date = headers.get("date") if isinstance(headers, Mapping) else None
        sync.offset.sample(
            sent, sync.clock(), date if isinstance(date, str) else None, (started, sync.monotonic())
        )

    def measure(self) -> None:
        """One free control-plane call: it measures the clock offset and finds the table."""
        self.call("describe_table", TableName=self.table.name)

    def push(self, changes: list[dict[str, Any]]) -> list[Outcome]:
        return [apply_change(self.ctx, change) for change in changes]

    def read_scope(
        self, scope: str, after: str | None, start: dict[str, Any] | None, limit: int
    ) -> dict[str, Any]:
        return read_scope(self.ctx, scope, after, start, limit)

    def get_items(self, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return get_items(self.ctx, keys)


__all__ = ["DirectCloud"]
