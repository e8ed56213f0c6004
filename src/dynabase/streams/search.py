"""A search projection: items -> documents by a declared spec, kept in a SQLite FTS5 index, with queries.

**Projection spec** (a dict, or JSON): how a source item becomes a document. VAMS's convention is the worked
example (``examples/vams/search/*_projection.json``)::

    {
      "id": "{databaseId}:{assetId}",            # document id, a template over the item's attributes
      "prefixes": {"string": "str_", "number": "num_", "boolean": "bool_", "date": "date_",
                   "list": "list_", "geo_point": "gp_", "geo_shape": "gs_"},
      "fields": {"assetName": {"type": "string", "name": "assetname"}, "tags": "list", ...},
      "dynamic": {"geo_points": "geo_point"},    # a map in the item: each key becomes prefix + key, lowercased
      "flat": {"metadata": "MD_"},               # a map in the item -> one flat object member
      "constants": {"_rectype": "asset"},
      "exclude": ["VAMS_*", "_*"], "keep": ["_rectype"],
      "others": "drop"                           # or "typed": unlisted attributes typed by their value
    }

A declared field's document name is its type's prefix + ``name`` (default: the attribute, lowercased); unset
values are left out; an excluded name (``*`` matches any tail) is never indexed, top level or inside a flat
object, unless ``keep`` names it.

**Index** (:class:`SearchIndex`): documents as JSON in a SQLite table plus an FTS5 table over their text (every
string, list member and flat-object value), in a file beside the database (``app.search.db``) or in memory.
:meth:`SearchIndex.search` takes free text (words, ``prefix*``), field filters (a value, a list of values, or
``{"gte"/"gt"/"lte"/"lt": x}``; a list field matches when it holds the value), a sort and paging.

**Projector**: a Lambda-style handler keeping an index up to date from a table's stream (INSERT/MODIFY put the
projected NewImage, REMOVE deletes by the keys), and :meth:`Projector.rebuild` from a full scan.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any

from ..model.codec import Decoder
from .events import wire_image

TYPES = ("string", "number", "boolean", "date", "list", "geo_point", "geo_shape")
_SPEC_KEYS = {"id", "prefixes", "fields", "dynamic", "flat", "constants", "exclude", "keep", "others"}
_WORD = re.compile(r"\w+\*?", re.UNICODE)


class ProjectionError(ValueError):
    """A projection spec that cannot be used (the message names the part)."""


class Projection:
    """A compiled projection spec; :meth:`project` turns one item (plain Python values) into a document."""

    def __init__(self, spec: Mapping[str, Any] | str) -> None:
        config: Mapping[str, Any] = json.loads(spec) if isinstance(spec, str) else spec
        unknown = sorted(set(config) - _SPEC_KEYS)
        if unknown:
            raise ProjectionError(f"unknown key(s) {unknown}; a projection has {sorted(_SPEC_KEYS)}")
        self.id_template: str = config.get("id") or ""
        if not self.id_template:
            raise ProjectionError("id: a template such as '{pk}' is required")
        self.prefixes: dict[str, str] = dict(config.get("prefixes") or {})
        self.exclude = list(config.get("exclude") or ())
        self.keep = set(config.get("keep") or ())
        self.constants = dict(config.get("constants") or {})
        self.others = config.get("others", "drop")
        if self.others not in ("drop", "typed"):
            raise ProjectionError("others: 'drop' or 'typed'")
        self.fields: dict[str, tuple[str, str]] = {}
        for attribute, declared in (config.get("fields") or {}).items():
            declared = {"type": declared} if isinstance(declared, str) else dict(declared)
            kind = declared.get("type")
            self._prefix(kind, f"fields.{attribute}")  # a type of TYPES, else ProjectionError
            self.fields[attribute] = (str(kind), declared.get("name") or attribute.lower())
        self.dynamic = {
            a: k for a, k in (config.get("dynamic") or {}).items() if self._prefix(k, f"dynamic.{a}")
        }
        self.flat: dict[str, str] = dict(config.get("flat") or {})

    def _prefix(self, kind: Any, where: str) -> str:
        if kind not in TYPES:
            raise ProjectionError(f"{where}: type must be one of {', '.join(TYPES)}")
        if kind not in self.prefixes:
            raise ProjectionError(f"{where}: no prefix declared for type {kind!r}")
        return self.prefixes[kind]

    def excluded(self, name: str) -> bool:
        return name not in self.keep and any(fnmatch.fnmatchcase(name, p) for p in self.exclude)

    def document_id(self, item: Mapping[str, Any]) -> str:
        try:
            return self.id_template.format_map(item)
        except (KeyError, IndexError, ValueError) as error:
            raise ProjectionError(f"id {self.id_template!r}: the item lacks {error}") from None

    def project(self, item: Mapping[str, Any]) -> dict[str, Any]:
        doc: dict[str, Any] = {}
        for attribute, value in item.items():
            if value is None or self.excluded(attribute):
                continue
            if attribute in self.fields:
                kind, name = self.fields[attribute]
                self._put(doc, kind, name, value)
            elif attribute in self.dynamic:
                for key, inner in (value or {}).items():
                    if inner is not None and not self.excluded(key):
                        self._put(doc, self.dynamic[attribute], key.lower(), inner)
            elif attribute in self.flat:
                flat = {
                    k: _plain(v) for k, v in (value or {}).items() if v is not None and not self.excluded(k)
                }
                doc[self.flat[attribute]] = flat
            elif self.others == "typed":
                typed = _kind_of(value)
                if typed is not None and typed in self.prefixes:
                    self._put(doc, typed, attribute.lower(), value)
        for name, value in self.constants.items():
            doc[name] = value
        return {name: value for name, value in doc.items() if not self.excluded(name)}

    def _put(self, doc: dict, kind: str, name: str, value: Any) -> None:
        doc[self.prefixes[kind] + name] = _coerce(kind, value)


def _kind_of(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float, Decimal)):
        return "number"
    if isinstance(value, (datetime, date)):
        return "date"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple, set, frozenset)):
        return "list"
    return None


def _coerce(kind: str, value: Any) -> Any:
    if kind == "list":
        items = value if isinstance(value, (list, tuple)) else sorted(value, key=str)
        return [_plain(v) for v in items]
    if kind == "boolean":
        return bool(value)
    if kind == "date" and isinstance(value, (datetime, date)):
        if isinstance(value, datetime) and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.isoformat().replace("+00:00", "Z")
    if kind == "geo_shape" and not isinstance(value, str):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return _plain(value)


def _plain(value: Any) -> Any:
    """A JSON value: Decimals become ints or floats, sets sorted lists, bytes text."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=str)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return value


# == the index =================================================================================================


@dataclass
class Page:
    """One page of search hits: ``hits`` are ``(id, document)`` pairs; ``next`` is the next page's offset."""

    hits: list[tuple[str, dict[str, Any]]]
    total: int
    next: int | None


def _text(doc: Mapping[str, Any]) -> str:
    words: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            words.append(value)
        elif isinstance(value, Mapping):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(dict(doc))
    return "\n".join(words)


class SearchIndex:
    """Documents and their full-text index in SQLite (FTS5): ``path`` a file (``app.search.db``) or memory.

    ``name`` lets several indexes share one file (``asset``, ``file``). Writes are committed one by one.
    """

    def __init__(self, path: str | os.PathLike = ":memory:", name: str = "documents") -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"index name must be an identifier, not {name!r}")
        self.name = name
        self._lock = threading.RLock()
        self.conn = sqlite3.connect(
            os.fspath(path), check_same_thread=False, isolation_level=None, timeout=30
        )
        if os.fspath(path) != ":memory:":
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(
            f'CREATE TABLE IF NOT EXISTS "{name}_docs" (id TEXT PRIMARY KEY, doc TEXT NOT NULL);'
            f'CREATE VIRTUAL TABLE IF NOT EXISTS "{name}_fts" USING fts5(id UNINDEXED, body);'
        )

    def put(self, doc_id: str, doc: Mapping[str, Any]) -> None:
        text = json.dumps(_plain(doc), separators=(",", ":"), sort_keys=True)
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute(f'INSERT OR REPLACE INTO "{self.name}_docs" VALUES (?, ?)', (doc_id, text))
                self.conn.execute(f'DELETE FROM "{self.name}_fts" WHERE id = ?', (doc_id,))
                self.conn.execute(f'INSERT INTO "{self.name}_fts" VALUES (?, ?)', (doc_id, _text(doc)))
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    def delete(self, doc_id: str) -> bool:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                gone = self.conn.execute(f'DELETE FROM "{self.name}_docs" WHERE id = ?', (doc_id,)).rowcount
                self.conn.execute(f'DELETE FROM "{self.name}_fts" WHERE id = ?', (doc_id,))
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return gone > 0

    def clear(self) -> None:
        with self._lock:
            self.conn.execute(f'DELETE FROM "{self.name}_docs"')
            self.conn.execute(f'DELETE FROM "{self.name}_fts"')

    def get(self, doc_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self.conn.execute(f'SELECT doc FROM "{self.name}_docs" WHERE id = ?', (doc_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def all(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            rows = self.conn.execute(f'SELECT id, doc FROM "{self.name}_docs" ORDER BY id').fetchall()
        return {doc_id: json.loads(doc) for doc_id, doc in rows}

    def search(
        self,
        text: str | None = None,
        *,
        filters: Mapping[str, Any] | None = None,
        sort: Iterable[tuple[str, str]] | str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> Page:
        """Documents matching every word of ``text`` (``pre*`` for a prefix) and every filter, sorted by
        ``sort`` (``"field"``, ``"-field"`` or ``[(field, "asc"|"desc")]``; default: relevance with text,
        else id), ``limit`` at a time from ``offset``."""
        if limit < 1 or offset < 0:
            raise ValueError("limit must be at least 1 and offset not negative")
        where, args = [], []
        source = f'"{self.name}_docs" d'
        order = "d.id"
        if text and text.strip():
            words = _WORD.findall(text)
            if not words:
                return Page([], 0, None)
            query = " AND ".join(
                f'"{w[:-1]}"*' if w.endswith("*") else f'"{w}"' for w in (x.replace('"', "") for x in words)
            )
            source += f' JOIN "{self.name}_fts" f ON f.id = d.id'
            where.append(f'"{self.name}_fts" MATCH ?')
            args.append(query)
            order = "f.rank, d.id"
        for name, wanted in (filters or {}).items():
            clause, values = _filter(name, wanted)
            where.append(clause)
            args += values
        if sort:
            order = ", ".join(_order(s) for s in _sorts(sort)) + ", d.id"
        sql_where = " WHERE " + " AND ".join(where) if where else ""
        with self._lock:
            total = self.conn.execute(f"SELECT count(*) FROM {source}{sql_where}", args).fetchone()[0]
            rows = self.conn.execute(
                f"SELECT d.id, d.doc FROM {source}{sql_where} ORDER BY {order} LIMIT ? OFFSET ?",
                [*args, limit, offset],
            ).fetchall()
        more = offset + len(rows) < total
        return Page([(i, json.loads(d)) for i, d in rows], total, offset + len(rows) if more else None)

    def close(self) -> None:
        self.conn.close()


def _path(name: str) -> str:
    return '$."' + name.replace('"', '""').replace("\\", "\\\\") + '"'


def _filter(name: str, wanted: Any) -> tuple[str, list]:
    path = _path(name)
    if isinstance(wanted, Mapping):
        ops = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
        unknown = set(wanted) - set(ops)
        if unknown:
            raise ValueError(f"filter {name}: unknown comparison(s) {sorted(unknown)}; use gt, gte, lt, lte")
        clauses = [f"json_extract(d.doc, ?) {ops[op]} ?" for op in wanted]
        values: list = []
        for op in wanted:
            values += [path, _sql(wanted[op])]
        return "(" + " AND ".join(clauses) + ")", values
    choices = wanted if isinstance(wanted, (list, tuple, set)) else [wanted]
    parts, values = [], []
    for choice in choices:
        parts.append(
            "(json_extract(d.doc, ?) = ? OR (json_type(d.doc, ?) = 'array' AND EXISTS "
            "(SELECT 1 FROM json_each(d.doc, ?) WHERE value = ?)))"
        )
        values += [path, _sql(choice), path, path, _sql(choice)]
    return "(" + (" OR ".join(parts) or "0") + ")", values


def _sql(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        return float(value)
    return value


def _sorts(sort: Iterable[tuple[str, str]] | str) -> list[tuple[str, str]]:
    if isinstance(sort, str):
        return [(sort[1:], "desc") if sort.startswith("-") else (sort, "asc")]
    out = []
    for name, direction in sort:
        if direction not in ("asc", "desc"):
            raise ValueError(f"sort {name}: direction must be 'asc' or 'desc'")
        out.append((name, direction))
    return out


def _order(entry: tuple[str, str]) -> str:
    name, direction = entry
    literal = _path(name).replace("'", "''")
    return f"json_extract(d.doc, '{literal}') {direction.upper()}"


# == keeping an index up to date from a stream =================================================================


class Projector:
    """A Lambda-style handler: the table's changes, projected, into ``index``.

    ``enrich(item) -> item | None`` may add what the document needs from elsewhere (joins); returning None
    leaves no document for the item. Items are decoded with ``numbers="auto"`` (ints and Decimals).
    """

    def __init__(
        self,
        projection: Projection | Mapping[str, Any],
        index: SearchIndex,
        *,
        enrich: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
    ) -> None:
        self.projection = projection if isinstance(projection, Projection) else Projection(projection)
        self.index = index
        self.enrich = enrich
        self.decoder = Decoder()

    def __call__(self, event: Mapping[str, Any], context: Any = None) -> None:
        for record in event["Records"]:
            self.apply(record)

    def apply(self, record: Mapping[str, Any]) -> None:
        data = record["dynamodb"]
        image = data.get("NewImage") if record.get("eventName") != "REMOVE" else None
        if image is None:
            keys = self.decoder.decode_item(wire_image(data.get("OldImage") or data["Keys"]))
            self.index.delete(self.projection.document_id(keys))
            return
        self.put(self.decoder.decode_item(wire_image(image)))

    def put(self, item: dict[str, Any]) -> None:
        doc_id = self.projection.document_id(item)
        enriched = self.enrich(item) if self.enrich is not None else item
        if enriched is None:
            self.index.delete(doc_id)
        else:
            self.index.put(doc_id, self.projection.project(enriched))

    def rebuild(self, client: Any, table_name: str) -> int:
        """Empty the index and project every item of a full (consistent) scan; the items projected."""
        self.index.clear()
        count = 0
        request: dict[str, Any] = {"TableName": table_name, "ConsistentRead": True}
        while True:
            page = client.scan(**request)
            for item in page["Items"]:
                self.put(self.decoder.decode_item(item))
                count += 1
            if "LastEvaluatedKey" not in page:
                return count
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


__all__ = ["Page", "Projection", "ProjectionError", "Projector", "SearchIndex"]
