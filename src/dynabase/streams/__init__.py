"""Consuming change streams: Lambda-style handlers, checkpoints, retries, triggers, metrics, search.

* :class:`Consumer` (:mod:`.consumer`) reads a stream through any ``dynamodbstreams`` client (embedded,
  ``dynabase serve``, DynamoDB Local, AWS) and calls ``handler(event, context)`` with Lambda's event shape,
  at least once, checkpointing per shard (:mod:`.checkpoints`), with retries, bisect-on-error and an
  on-failure destination (:mod:`.destinations`).
* :func:`on_change` (:mod:`.triggers`): in-process triggers on the embedded engine, after commit.
* :mod:`.metrics`: ``process.<Model>.metrics`` as CloudWatch Embedded Metric Format, and ``notify``.
* :mod:`.search`: a declared projection of items into documents, kept in a SQLite FTS5 index.

See ``docs/streams.md``.
"""

from __future__ import annotations

from .checkpoints import Checkpoint, MemoryCheckpoints, SqliteCheckpoints, TableCheckpoints
from .consumer import Consumer, NoStreamError, Options, iter_records, stream_arn
from .destinations import JsonLinesDestination, TableDestination
from .events import LambdaContext, lambda_record
from .filters import FilterError
from .triggers import Trigger, on_change

__all__ = [
    "Checkpoint",
    "Consumer",
    "FilterError",
    "JsonLinesDestination",
    "LambdaContext",
    "MemoryCheckpoints",
    "NoStreamError",
    "Options",
    "SqliteCheckpoints",
    "TableCheckpoints",
    "TableDestination",
    "Trigger",
    "iter_records",
    "lambda_record",
    "on_change",
    "stream_arn",
]
