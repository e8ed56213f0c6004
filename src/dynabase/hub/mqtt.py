"""The long-running hub over an MQTT broker: pushes from a shared subscription, fan-out from the table's stream.

Stateless apart from the stream consumer's durable checkpoints: two hubs run side by side (the broker gives
each push to one of them; both fan out, and a device applies a version it holds once). The hub's reads grow
with the stream's shards, not with the devices.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from ..streams.checkpoints import CheckpointStore
from ..streams.consumer import Consumer, NoStreamError, Options, stream_arn
from ..sync import wire
from ..sync.loop import Backoff
from ..sync.mqtt import Link
from .core import HubCore, Message

log = logging.getLogger("dynabase.hub")
#: seconds to wait for the broker to acknowledge a fan-out message before the batch is retried
PUBLISH_WAIT = 30.0
#: seconds at least between two reads of a busy stream (a write after a quiet spell is read at once): while
#: devices push, each read takes what landed meanwhile, not a record or two (575 reads and as many checkpoint
#: saves for 4,000 pushed changes without it; a quarter of the hub's work)
POLL_GAP = 0.05
#: seconds between attempts to read a stream whose reads fail: the first wait, and the longest
STREAM_RETRY = (0.5, 30.0)


class MqttHub:
    """Runs a :class:`HubCore` against a broker (``url``, credentials as :class:`~dynabase.sync.mqtt.Link`)
    and the table's stream (``streams``: a ``dynamodbstreams`` client; ``checkpoints``: where the consumer's
    checkpoints are kept, durable for a hub that restarts; ``poll_interval``: seconds between reads of an idle
    stream, which a push the hub wrote cuts short; ``poll_gap``: :data:`POLL_GAP`). When the table's stream is
    disabled, the hub reads it to its end, then the table's next stream (enabled again: a new ARN) from its
    start."""

    def __init__(
        self,
        core: HubCore,
        url: str,
        *,
        streams: Any,
        checkpoints: CheckpointStore | None = None,
        username: str | None = None,
        password: str | None = None,
        cert: str | None = None,
        key: str | None = None,
        ca: str | None = None,
        client_id: str | None = None,
        workers: int = 4,
        poll_interval: float = 0.2,
        poll_gap: float = POLL_GAP,
    ) -> None:
        self.core = core
        self.client_id = wire.check_id(
            client_id or f"dynabase-hub-{socket.gethostname()}-{os.getpid()}", "hub id"
        )
        self.link = Link(
            url,
            self.client_id,
            username=username,
            password=password,
            cert=cert,
            key=key,
            ca=ca,
            persistent=False,
        )
        self.link.on_connect = lambda: self.link.subscribe(wire.hub_subscription(core.name))
        self.link.on_message = self._on_message
        self.pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="dynabase-hub")
        self.consumer = Consumer.for_table(
            core.table.client,
            core.name,
            self._on_records,
            streams=streams,
            name="dynabase-sync-hub",
            checkpoints=checkpoints,
            options=Options(
                batch_size=1000, starting_position="LATEST", poll_interval=poll_interval, poll_gap=poll_gap
            ),
        )
        if core.on_write is None:  # a landed push is in the stream: fan it out now, not at the next poll
            core.on_write = self.consumer.wake.set
        self.handled = 0
        self.fanned_out = 0
        #: reads of the stream that failed and were retried (see :meth:`_read_stream`)
        self.stream_failures = 0

    def _on_message(self, topic: str, payload: bytes) -> None:
        device = wire.device_of(topic, self.core.name)
        if device is None:
            log.warning("hub: a message on %s, which is no device's up topic: ignored", topic)
            return
        self.pool.submit(self._handle, device, payload)

    def _handle(self, device: str, payload: bytes) -> None:
        try:
            self._publish(self.core.handle(device, payload), wait=None)
            self.handled += 1
        except Exception:  # a worker must not die of one message: the device asks again
            log.exception("hub: a message from %s could not be handled", device)

    def _on_records(self, event: dict[str, Any], context: Any) -> None:
        messages = self.core.fan_out(event)
        self._publish(messages, wait=PUBLISH_WAIT)  # acknowledged before the checkpoint moves
        self.fanned_out += len(messages)

    def _publish(self, messages: list[Message], wait: float | None) -> None:
        for topic, payload in messages:
            self.link.publish(topic, payload, wait=wait)

    def _read_stream(self, stop: threading.Event) -> None:
        """Read the stream until ``stop``. A failed read (the endpoint unreachable or throttling, the checkpoint
        table gone) is logged and tried again with backoff from where the reader got to, while the hub goes on
        answering devices: a reader that died would leave a hub that never fans out again."""
        backoff = Backoff(*STREAM_RETRY)
        while not stop.is_set():
            handled = self.consumer.handled
            try:
                self.consumer.run(stop, until_disabled=True)
                self._follow(stop)
            except Exception as error:
                if self.consumer.handled != handled:
                    backoff.reset()  # it read again before this failure: a new outage
                self.stream_failures += 1
                delay = backoff.next()
                log.warning(
                    "hub: reading the stream of %s failed (again in %.1f s): %r", self.core.name, delay, error
                )
                stop.wait(delay)

    def _follow(self, stop: threading.Event) -> None:
        """The stream is disabled and read to its end: wait for the table's next stream, then read it from its
        start (none of it was fanned out yet)."""
        # AWS closes a disabled stream's open shards, and enabling the stream again creates a new stream with
        # another ARN, found as the table's LatestStreamArn (the DynamoDB Developer Guide, "Change data capture
        # for DynamoDB Streams", Enabling a stream); DynamoDB Local and the embedded engine do the same
        old = self.consumer
        warned = False
        while not stop.is_set():
            try:
                arn = stream_arn(self.core.table.client, self.core.name)
            except NoStreamError:
                arn = old.stream_arn
            if arn != old.stream_arn:
                follower = Consumer(
                    old.streams,
                    arn,
                    self._on_records,
                    name=old.name,
                    checkpoints=old.checkpoints,
                    options=replace(old.options, starting_position="TRIM_HORIZON"),
                )
                follower.wake = old.wake  # the same event: pushes and signals wake whichever reads
                self.consumer = follower
                log.warning("hub: the stream of %s was enabled again: reading %s", self.core.name, arn)
                return
            if not warned:
                log.warning(
                    "hub: the stream of %s is disabled: nothing is fanned out until it is enabled",
                    self.core.name,
                )
                warned = True
            stop.wait(old.options.shard_refresh)

    def run(
        self, stop: threading.Event, ready: Callable[[], None] | None = None, timeout: float = 30.0
    ) -> None:
        """Serve until ``stop`` is set; ``ready()`` once connected and reading the stream."""
        self.link.start()
        try:
            if not self.link.connected.wait(timeout):
                why = self.link.last_error or "no answer"
                raise ConnectionError(f"cannot connect to the broker at {self.link.url}: {why}")
            self.consumer.prime()
            reader = threading.Thread(
                target=self._read_stream, args=(stop,), name="dynabase-hub-stream", daemon=True
            )
            reader.start()
            if ready is not None:
                ready()
            stop.wait()
            self.consumer.wake.set()
            reader.join(timeout)
        finally:
            self.pool.shutdown(wait=True)
            self.link.stop()


__all__ = ["MqttHub"]
