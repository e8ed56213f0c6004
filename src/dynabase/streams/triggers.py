"""In-process triggers on the embedded engine: a handler called with each change soon after it commits.

A trigger is a :class:`~.consumer.Consumer` on a thread of its own, woken by the engine after every committed
write call (``Engine.write_listeners``): the handler runs outside the write transaction and never on the
writer's thread, so a slow handler does not slow writes. An engine without triggers does no extra work (one
empty-list test per call). Writes from other processes on the same file, and TTL deletes, are picked up by
the consumer's poll (``poll_interval``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .consumer import Consumer, Options


class EngineStreams:
    """The Streams calls made on the engine itself: the client layer would parse every record's timestamp into
    a ``datetime`` that the Lambda shape turns back into a number (most of a record's cost)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def _call(self, operation: str, request: dict) -> dict:
        return self.engine.call(operation, request, service="dynamodbstreams")

    def describe_stream(self, **request: Any) -> dict:
        return self._call("DescribeStream", request)

    def get_shard_iterator(self, **request: Any) -> dict:
        return self._call("GetShardIterator", request)

    def get_records(self, **request: Any) -> dict:
        return self._call("GetRecords", request)


class Trigger:
    """A running trigger; :meth:`close` stops it (the engine stops waking it)."""

    def __init__(self, engine: Any, consumer: Consumer) -> None:
        self.engine = engine
        self.consumer = consumer
        self._stop = threading.Event()
        consumer.prime()  # LATEST: what is written after on_change returns
        self._listener = lambda operation: consumer.wake.set()
        engine.write_listeners.append(self._listener)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name=f"trigger-{consumer.name}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.consumer.run(self._stop)
        except BaseException as error:  # kept for the owner to see (the thread must not die silently)
            self.error = error
            raise

    def close(self, timeout: float = 10.0) -> None:
        if self._listener in self.engine.write_listeners:
            self.engine.write_listeners.remove(self._listener)
        self._stop.set()
        self.consumer.wake.set()
        self.thread.join(timeout)

    def __enter__(self) -> Trigger:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def on_change(
    client: Any,
    table_name: str,
    handler: Callable[[dict, Any], Any],
    *,
    starting_position: str = "LATEST",
    poll_gap: float = 0.01,
    **settings: Any,
) -> Trigger:
    """Call ``handler(event, context)`` (Lambda's shape) with the table's changes, after they commit.

    ``client`` is the embedded client (``dynabase.connect``). ``settings`` are :class:`~.consumer.Options`
    fields (``batch_size``, ``filters``, ``max_retries``...) and :class:`~.consumer.Consumer` keywords
    (``name``, ``checkpoints``, ``on_failure``, ``table``). Changes from now on by default
    (``starting_position="TRIM_HORIZON"`` for the stream's retained history too). The first change after a
    quiet spell is handed over at once; under a stream of writes the trigger reads at most every ``poll_gap``
    seconds, so the records come in batches and the writer keeps its pace.
    """
    engine = getattr(client, "engine", None)
    if engine is None:
        raise TypeError("triggers need the embedded client (dynabase.connect); use a Consumer elsewhere")
    consumer_keys = {"name", "checkpoints", "on_failure", "table"}
    consumer_args = {k: settings.pop(k) for k in list(settings) if k in consumer_keys}
    consumer_args.setdefault("name", f"trigger-{table_name}")
    options = Options(starting_position=starting_position, poll_gap=poll_gap, **settings)
    consumer = Consumer.for_table(
        client, table_name, handler, streams=EngineStreams(engine), options=options, **consumer_args
    )
    return Trigger(engine, consumer)


__all__ = ["Trigger", "on_change"]
