"""Result pages: ``find`` and ``scan`` return a :class:`Page`, a list of items with OneTable's cursors.

``page.next`` is the key of the last item read (``LastEvaluatedKey``, decoded) when more items remain; pass it
as ``next=`` to continue.  ``page.prev`` (set when the call itself was given ``next`` or ``prev``) is the key
of the first item; pass it as ``prev=`` to get the page before.  ``page.count`` is set by ``count=True``.
The cursors are plain dicts of key attributes, the same as OneTable's ``result.next`` / ``result.prev``.
"""

from __future__ import annotations

from typing import Any


class Page(list[Any]):
    """A list of items with ``next`` / ``prev`` cursors and, for ``count=True``, ``count``."""

    __slots__ = ("next", "prev", "count", "capacity")
    count: int | None  # type: ignore[assignment]  # OneTable's name: shadows list.count

    def __init__(
        self, items: Any = (), *, next: Any = None, prev: Any = None, count: int | None = None
    ) -> None:  # noqa: A002
        super().__init__(items)
        self.next = next
        self.prev = prev
        self.count = count
        self.capacity = None

    def __repr__(self) -> str:
        extra = "".join(
            f", {name}={getattr(self, name)!r}"
            for name in ("next", "prev", "count")
            if getattr(self, name) is not None
        )
        return f"Page({list.__repr__(self)}{extra})"


__all__ = ["Page"]
