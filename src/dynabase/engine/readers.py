"""The engine's seam for an entity layer that reads each item as the engine makes it.

While :data:`ITEM_READER` is set (by :meth:`dynabase.client.embedded.EmbeddedClient.read_query`), the
``Items`` of a Query or Scan hold ``reader(item)`` instead of the item: each item is read while it is still in
the CPU's caches, and no page of AttributeValue items is kept. Everything else about the response is
unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

#: What :data:`ITEM_READER` holds: ``(reader, whole)``, a plain tuple (it is made on every call).
#:
#: With ``whole``, a Query of the table itself (no index, no projection) leaves the table's key attributes out
#: of the items it hands ``reader``, which costs less for an entity layer that does not show them (a filter
#: never needs them: a Query's may not name them). ``reader`` returns None for an item it must see with its keys
#: (an item of another entity), and that item goes to ``whole`` with them.
ItemReader = tuple[Callable[[dict[str, Any]], Any], Callable[[dict[str, Any]], Any] | None]


#: the reader of the current call, if any
ITEM_READER: ContextVar[ItemReader | None] = ContextVar("ITEM_READER", default=None)


class ReaderError(Exception):
    """What the reader raised (``error``): :meth:`Engine.call` passes it on as it is, not as a failure of
    the engine's own, and the client raises ``error`` itself."""

    def __init__(self, error: Exception) -> None:
        super().__init__(error)
        self.error = error


__all__ = ["ITEM_READER", "ItemReader", "ReaderError"]
