"""Ioto's ``process.<Model>.metrics`` and ``notify``, computed from a table's change stream.

For every INSERT or MODIFY of a model with ``process.<Model>.metrics``, each metric definition whose ``where``
holds for the new item gives one CloudWatch Embedded Metric Format (EMF) document::

    {"_aws": {"Timestamp": 1764064800000,
              "CloudWatchMetrics": [{"Namespace": "Embedthis/Device",
                                      "Dimensions": [["Device"]],
                                      "Metrics": [{"Name": "temperature", "Unit": "None"}]}]},
     "Device": "d1", "temperature": 21.5}

* ``fields``: ``'temp'`` (metric ``temp`` from property ``temp``) or ``{Temperature: 'temp'}``; a field whose
  value is not a number (or is missing) gives no metric.
* ``dimensions``: each entry is one dimension set: ``'deviceId'`` (dimension ``deviceId``) or
  ``{Device: 'deviceId'}`` (dimension ``Device`` with the item's ``deviceId``; several keys, several
  dimensions). A set whose values the item lacks is left out; no dimensions: one empty set (the namespace's
  aggregate).
* ``where``: a OneTable where clause (``${temperature} > {30}``) tested on the new item.
* ``buffer``: ``{count: N, elapsed: S}`` (dynabase's reading: the Ioto page names ``buffer`` without its
  keys): values are gathered per metric and dimension values, and emitted as one document holding a list of
  values once ``count`` (at most 100, EMF's limit) are buffered or ``elapsed`` seconds have passed since the
  first; :meth:`Metrics.flush` emits the rest. Buffered values are in memory, so :meth:`Metrics.held` names
  the records they came from: a :class:`~.consumer.Consumer` moves no checkpoint past them, and after a crash
  they are read again (``dynabase streams run`` flushes on exit, then saves the checkpoints).

``enable`` places a model on the device, in the cloud or both: ``Metrics(table, place="device")`` computes
only the device's. ``process.<Model>.notify: true`` calls ``notify(model, change)`` for each change of the
model (``change`` is ``{"type", "new", "old"}`` with entity properties).

A :class:`Metrics` is a Lambda-style handler: pass it to a :class:`~.consumer.Consumer` or :func:`on_change`.
:func:`emf` is a ready one for the command line, printing EMF lines on stdout::

    dynabase streams run dynabase.streams.metrics:emf device --db app.db --schema schema.json5
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import IO, Any

from ..expressions.condition import compile_condition
from ..expressions.placeholders import Placeholders as ExpressionPlaceholders
from ..model.codec import encode_item
from ..model.where import Placeholders
from ..schema import load_schema
from .events import created_at, wire_record

MAX_VALUES = 100  # EMF: values of one metric in one document
BUFFER_KEYS = ("count", "elapsed")


def emitter(target: Callable[[dict], Any] | str | os.PathLike | IO[str] | None) -> Callable[[dict], Any]:
    """Where documents go: a callable, a file path (JSON lines, appended), a text stream, or stdout."""
    if callable(target):
        return target
    if isinstance(target, (str, os.PathLike)):
        path = os.fspath(target)

        def to_file(doc: dict) -> None:
            with open(path, "a", encoding="utf-8") as out:
                out.write(json.dumps(doc, separators=(",", ":")) + "\n")

        return to_file
    stream = target if target is not None else sys.stdout

    def to_stream(doc: dict) -> None:
        stream.write(json.dumps(doc, separators=(",", ":")) + "\n")
        stream.flush()

    return to_stream


class _Definition:
    """One compiled ``process.<Model>.metrics`` entry."""

    def __init__(self, model: Any, metric: Any, path: str) -> None:
        self.namespace: str = metric.namespace
        self.fields = list(metric.fields)
        self.dimension_sets: list[list[tuple[str, str]]] = []
        for entry in metric.dimensions:
            pairs = [(entry, entry)] if isinstance(entry, str) else list(entry.items())
            self.dimension_sets.append(pairs)
        self.where = None
        if metric.where:
            ph = Placeholders()
            text = ph.expand(metric.where, model.fields, None)
            values = encode_item(ph.values) if ph.values else None
            self.where = compile_condition(text, "ConditionExpression").bind(
                ExpressionPlaceholders(ph.names or None, values)
            )
        buffer = metric.buffer or {}
        unknown = sorted(set(buffer) - set(BUFFER_KEYS))
        if unknown:
            raise ValueError(f"{path}.buffer: unknown key(s) {unknown}; dynabase reads {list(BUFFER_KEYS)}")
        self.count = min(int(buffer.get("count", 1)), MAX_VALUES) if buffer else 1
        self.elapsed = float(buffer.get("elapsed", 0)) if buffer else 0.0
        if self.count < 1 or self.elapsed < 0:
            raise ValueError(f"{path}.buffer: count must be at least 1 and elapsed not negative")

    def documents(self, item: Mapping[str, Any], raw: Mapping[str, Any]) -> list[tuple[tuple, dict, dict]]:
        """``(buffer key, dimension values, {metric: value})`` per dimension set, for one new item."""
        if self.where is not None and not self.where.evaluate(dict(raw)):
            return []
        values = {}
        for name, attribute in self.fields:
            value = item.get(attribute, raw.get(attribute))
            if isinstance(value, Mapping) and len(value) == 1 and "N" in value:
                value = value["N"]
            number = _number(value)
            if number is not None:
                values[name] = number
        if not values:
            return []
        out = []
        for pairs in self.dimension_sets or [[]]:
            dims = {}
            for dimension, attribute in pairs:
                value = item.get(attribute)
                if value is None or isinstance(value, (dict, list)):
                    break
                dims[dimension] = str(value).lower() if isinstance(value, bool) else str(value)
            else:
                key = (self.namespace, tuple(sorted(dims.items())), tuple(sorted(values)))
                out.append((key, dims, values))
        return out


@dataclass
class _Buffer:
    """Values gathered for one document: since when, its dimensions and definition, the sequence number of
    the record that started it, and ``{metric: values}``."""

    started: float
    dimensions: dict
    definition: _Definition
    sequence: str | None
    values: dict[str, list] = field(default_factory=dict)


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        number = Decimal(str(value))
    except Exception:
        return None
    if not number.is_finite():
        return None
    return int(number) if number == number.to_integral_value() else float(number)


class Metrics:
    """A handler computing ``process.<Model>.metrics`` (EMF documents to ``emit``) and calling ``notify``."""

    def __init__(
        self,
        table: Any,
        emit: Callable[[dict], Any] | str | os.PathLike | IO[str] | None = None,
        *,
        notify: Callable[[str, dict], Any] | None = None,
        place: str = "both",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if place not in ("device", "cloud", "both"):
            raise ValueError("place must be 'device', 'cloud' or 'both'")
        self.table = table
        self.emit = emitter(emit)
        self.notify = notify
        self.clock = clock
        self.definitions: dict[str, list[_Definition]] = {}
        self.notified: set[str] = set()
        for name, process in load_schema(table.schema.raw).process.items():
            here = place == "both" or (process.on_device if place == "device" else process.on_cloud)
            if not here:
                continue
            model = table.model(name)
            self.definitions[name] = [
                _Definition(model, metric, f"process.{name}.metrics[{i}]")
                for i, metric in enumerate(process.metrics)
            ]
            if process.notify:
                self.notified.add(name)
        self._buffers: dict[tuple, _Buffer] = {}
        self._lock = threading.Lock()

    def __call__(self, event: Mapping[str, Any], context: Any = None) -> None:
        self.handle(event["Records"])

    def handle(self, records: list[Mapping[str, Any]]) -> None:
        for record in records:
            for model, changes in self.table.stream([wire_record(record)]).items():
                for change in changes:
                    if model in self.notified and self.notify is not None:
                        self.notify(model, change)
                    new = change.get("new")
                    if new is None:
                        continue
                    raw = record["dynamodb"].get("NewImage") or {}
                    for definition in self.definitions.get(model, ()):
                        for key, dims, values in definition.documents(new, raw):
                            self._add(definition, key, dims, values, record)
        self._expire()

    def _add(self, definition: _Definition, key: tuple, dims: dict, values: dict, record: Mapping) -> None:
        if definition.count == 1 and not definition.elapsed:
            self.emit(document(definition.namespace, dims, values, created_at(record)))
            return
        sequence = (record.get("dynamodb") or {}).get("SequenceNumber")
        with self._lock:
            gathered = self._buffers.setdefault(key, _Buffer(self.clock(), dims, definition, sequence)).values
            for name, value in values.items():
                gathered.setdefault(name, []).append(value)
            full = max(len(v) for v in gathered.values()) >= definition.count
        if full:
            self._emit_buffer(key)

    def _expire(self) -> None:
        now = self.clock()
        for key, buffer in list(self._buffers.items()):
            if buffer.definition.elapsed and now - buffer.started >= buffer.definition.elapsed:
                self._emit_buffer(key)

    def _emit_buffer(self, key: tuple) -> None:
        with self._lock:
            buffer = self._buffers.pop(key, None)
        if buffer is not None:
            self.emit(document(buffer.definition.namespace, buffer.dimensions, buffer.values, self.clock()))

    def flush(self) -> None:
        """Emit every buffered value now."""
        for key in list(self._buffers):
            self._emit_buffer(key)

    def held(self) -> set[str]:
        """The sequence numbers of the records that started the buffers not emitted yet."""
        with self._lock:
            return {buffer.sequence for buffer in self._buffers.values() if buffer.sequence is not None}


_EMF_HANDLERS: dict[int, Metrics] = {}


def emf(event: Mapping[str, Any], context: Any) -> None:
    """A handler computing the schema's metrics (EMF on stdout); the consumer must have the schema's table
    (``dynabase streams run ... --schema FILE``)."""
    table = getattr(context, "table", None)
    if table is None:
        raise ValueError("dynabase.streams.metrics:emf needs the schema: run it with --schema FILE")
    metrics = _EMF_HANDLERS.get(id(table))
    if metrics is None or metrics.table is not table:  # (an id is reused once its table is gone)
        metrics = _EMF_HANDLERS[id(table)] = Metrics(table)
    metrics(event, context)


def _held_by_emf() -> set[str]:
    return set().union(*(metrics.held() for metrics in list(_EMF_HANDLERS.values())))


def _flush_emf() -> None:
    for metrics in list(_EMF_HANDLERS.values()):
        metrics.flush()


emf.needs_schema = True  # type: ignore[attr-defined]
emf.held = _held_by_emf  # type: ignore[attr-defined]
emf.flush = _flush_emf  # type: ignore[attr-defined]


def document(namespace: str, dimensions: dict[str, str], values: dict[str, Any], when: float) -> dict:
    """One EMF document: the ``_aws`` metadata, the dimension members and the metric members."""
    return {
        "_aws": {
            "Timestamp": int(when * 1000),
            "CloudWatchMetrics": [
                {
                    "Namespace": namespace,
                    "Dimensions": [sorted(dimensions)],
                    "Metrics": [{"Name": name, "Unit": "None"} for name in values],
                }
            ],
        },
        **dimensions,
        **values,
    }


__all__ = ["Metrics", "document", "emf", "emitter"]
