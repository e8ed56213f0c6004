"""``dynabase ui``: a web console for tables, items and (given a OneTable schema) entities.

:class:`ConsoleApp` is transport-free (``handle(method, target, headers, body) -> Reply``): ``dynabase ui``
serves it with the standard library's HTTP server (:mod:`.server`), ``dynabase serve --ui`` on the DynamoDB
server's own port under :data:`PREFIX`. The page is plain ES modules and CSS shipped in ``static/``.
"""

from __future__ import annotations

from .app import PREFIX, ConsoleApp, Reply

__all__ = ["PREFIX", "ConsoleApp", "Reply"]
