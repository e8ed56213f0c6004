"""The one line a migration from moto changes.

A suite written for moto imports ``from moto import mock_aws``; moving it to dynabase is
``from dynabase import mock_dynamodb as mock_aws``. This module makes that choice from
``SAMPLE_SUITE_BACKEND`` so the benchmark (``bench/testing_bench.py``) runs the very same test files under
``dynabase`` (the default), ``moto``, and ``local`` (a running DynamoDB Local named by
``AWS_ENDPOINT_URL_DYNAMODB``; its tables are deleted after each test, as a mock would forget them).
"""

from __future__ import annotations

import functools
import inspect
import os
from typing import Any

BACKEND = os.environ.get("SAMPLE_SUITE_BACKEND", "dynabase")


class _DynamoDBLocal:
    """``mock_aws``'s shape over a real DynamoDB Local: nothing patched, tables deleted on the way out."""

    def __enter__(self) -> _DynamoDBLocal:
        return self

    def __exit__(self, *exc: Any) -> None:
        import boto3

        client = boto3.client("dynamodb")
        for name in client.list_tables()["TableNames"]:
            client.delete_table(TableName=name)

    def __call__(self, target: Any) -> Any:
        if isinstance(target, type):
            for name, value in list(vars(target).items()):
                if name.startswith("test") and callable(value):
                    setattr(target, name, self(value))
            return target
        assert not inspect.iscoroutinefunction(target)

        @functools.wraps(target)
        def run(*args: Any, **kwargs: Any) -> Any:
            with _DynamoDBLocal():
                return target(*args, **kwargs)

        return run


if BACKEND == "moto":
    from moto import mock_aws
elif BACKEND == "local":

    def mock_aws(target: Any = None) -> Any:
        return _DynamoDBLocal() if target is None else _DynamoDBLocal()(target)

elif BACKEND == "dynabase":
    from dynabase import mock_dynamodb as mock_aws
else:
    raise RuntimeError(f"SAMPLE_SUITE_BACKEND={BACKEND!r}: use dynabase, moto or local")

__all__ = ["BACKEND", "mock_aws"]
