"""dynabase: one schema, the same entities on AWS DynamoDB and on an embedded DynamoDB engine.

- :func:`connect` -- an embedded database (a file or ``":memory:"``) behind boto3's low-level DynamoDB client
- :func:`aws` -- a real boto3 DynamoDB client (AWS, DynamoDB Local, any compatible endpoint)
- :func:`endpoint` -- a lean client with boto3's interface for AWS or any endpoint, cheapest per call
- :func:`endpoint_async` -- the same over asyncio: ``await client.get_item(...)``
- :class:`Engine` -- the embedded engine itself (``engine.call("PutItem", {...})``)
- :func:`mock_dynamodb` -- boto3's DynamoDB answered in process, for tests (a drop-in for moto's ``mock_aws``)

Names are imported on first use, so commands such as ``dynabase serve`` start fast.
"""

from __future__ import annotations

from ._lazy import lazy_exports

__version__ = "0.1.0"
__all__ = ["EmbeddedClient", "Engine", "aws", "connect", "endpoint", "endpoint_async", "mock_dynamodb"]

_WHERE = {
    "connect": ".client",
    "aws": ".client",
    "EmbeddedClient": ".client",
    "endpoint": ".client.http",
    "endpoint_async": ".client.aio",
    "Engine": ".engine",
    "mock_dynamodb": ".testing.mock",
}


__getattr__ = lazy_exports(__name__, _WHERE, globals())
