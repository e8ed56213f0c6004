"""``dynabase serve``: the embedded engine over DynamoDB's HTTP JSON 1.0 protocol.

- :func:`run_in_thread` -- serve an engine from a background thread: ``url, stop = run_in_thread(engine)``
- :func:`start_subprocess` -- a ``dynabase serve`` child process, ready when it returns
- :class:`Server`, :class:`DynamoDBApp` -- the pieces, for embedding

Attributes are imported on first use so ``dynabase serve`` starts fast.
"""

from __future__ import annotations

from .._lazy import lazy_exports

__all__ = ["DynamoDBApp", "Server", "ServerProcess", "run_in_thread", "start_subprocess"]

_WHERE = {
    "DynamoDBApp": ".app",
    "Server": ".runner",
    "ServerProcess": ".runner",
    "run_in_thread": ".runner",
    "start_subprocess": ".runner",
}


__getattr__ = lazy_exports(__name__, _WHERE, globals())
