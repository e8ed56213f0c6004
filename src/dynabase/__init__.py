"""dynabase: one schema, the same entities on AWS DynamoDB and on an embedded DynamoDB engine.

- :func:`connect` -- an embedded database (a file or ``":memory:"``) behind boto3's low-level DynamoDB client
- :func:`aws` -- a real boto3 DynamoDB client (AWS, DynamoDB Local, any compatible endpoint)
- :class:`Engine` -- the embedded engine itself (``engine.call("PutItem", {...})``)

Names are imported on first use, so commands such as ``dynabase serve`` start fast.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["EmbeddedClient", "Engine", "aws", "connect"]

_WHERE = {
    "connect": ".client",
    "aws": ".client",
    "EmbeddedClient": ".client",
    "Engine": ".engine",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'dynabase' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
