"""Testing with dynabase: DynamoDB in process for code written against boto3.

- :func:`mock_dynamodb` -- a drop-in for moto's ``mock_aws`` for DynamoDB and DynamoDB Streams
- :class:`MockDynamoDB` -- what it returns (``start``/``stop``, ``engine()``)
- :func:`patch_client` -- route a client made before dynabase's mock was imported
- :class:`FaultProxy` -- a fault-injecting TCP proxy (drop, delay, reset, close after the request, blackhole)
- the pytest plugin (:mod:`dynabase.testing.plugin`, loaded through the ``pytest11`` entry point): fixtures
  ``dynamodb``, ``dynamodb_resource``, ``dynamodb_streams``, ``dynabase_table`` and ``dynabase_mock``

Names are imported on first use.
"""

from __future__ import annotations

from .._lazy import lazy_exports

__all__ = ["FaultProxy", "MockDynamoDB", "mock_dynamodb", "patch_client"]

_WHERE = {
    "FaultProxy": ".faultproxy",
    "MockDynamoDB": ".mock",
    "mock_dynamodb": ".mock",
    "patch_client": ".hook",
}

__getattr__ = lazy_exports(__name__, _WHERE, globals())
