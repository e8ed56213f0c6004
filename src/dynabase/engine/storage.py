"""SQLite storage: one connection, the catalog of tables, and the physical layout of items and indexes.

Layout (keys as order-preserving byte strings from :func:`dynabase.types.encode_key`):

- ``dynabase_tables(name, id, description)``: the catalog, one row per DynamoDB table (description is JSON).
- ``dynabase_meta(name, value)``: ``format``, the storage format (:data:`FORMAT`; a newer file is refused).
- ``t<id>``: the items of a table, a view joining its three tables (every statement that reads names it):

  - ``"t<id> keys"(h, pk, sk, id)``, WITHOUT ROWID, primary key ``(h, pk, sk)``: ``h`` is a 32-bit hash of the
    partition key, so a scan walks partitions in hash order as DynamoDB does and a parallel scan segment is a
    range of ``h``; ``sk`` is ``b""`` for tables without a sort key; ``id`` is the item's row.
  - ``"t<id> items"(id, item, size, bin, first_part, parts)``, a rowid table: ``item`` is the item's JSON (wire
    shape) without the S and B key attributes (:func:`body_of`: the keys table holds them exactly, and
    :func:`row_loader` puts them back); ``bin`` is the text's form (:data:`BINARY`: base64 binary values;
    :data:`SHORT`: a short body's frequent JSON fragments as single characters, :func:`dump_body`); ``size`` is
    DynamoDB's size.
  - ``"t<id> parts"(id, part)``: a body longer than a quarter page (and up to 32 KB) keeps only its head in
    ``item``; the rest is in quarter-page rows ``first_part .. first_part + parts - 1`` (:func:`store_body`,
    read back whole by :func:`item_sql`).

  Triggers delete an item's row with its key and its parts with its row (or with its old body); an insert
  into the view stores the row and then the key pointing at it.
- ``t<id>_<index>(ih, ik, isk, h, pk, sk)``: one per secondary index (WITHOUT ROWID), pointing back at the item.

Why this layout (``bench/storage_bench.py`` has the disk figures, ``bench/engine_bench.py`` the speed): a
WITHOUT ROWID table is an index b-tree, whose rows spill to overflow pages past ~1 KB (on 4 KB pages) and leave
most of each overflow page empty, so any item of 1-4 KB took ~4.7 KB, and random inserts (keys in hash order)
leave its pages ~85% full. So only keys live in one (rows of ~30-60 bytes); bodies are appended to a rowid
table, whose pages fill. A rowid row over half a page gets a page to itself (items of 2-2.8 KB took up to 2.1x
their size): parts of a quarter page pack four to a page, and the rows left are at most ~1 KB. Keys are
stored once (a rowid table with a unique key index held them in the row, the index and the body: 100 B items
took 2.8x). Reading an item is a step in each b-tree, as with an index.

A 100 B item's rows cost ~60 bytes beside its body (its keys row ~44 with its page's slack, its items row's
header ~17), and its wire JSON (``{"status":{"S":"shipped"},...``) is 1.3-1.7x its DynamoDB bytes, so bodies
shorter than :data:`SHORT_BELOW` have their three most frequent fragments stored as single characters: a
pass of ``str.replace`` per fragment each way, ~0.5 us per 100 B item read (orjson parses it in ~1 us). zlib
with a preset dictionary of those fragments saved less (the same item's body 170 -> 115 bytes, against 124)
at ~1 us per read and ~7 us per write. Files written before are brought to this layout when opened, in the
transaction that opens them (:func:`upgrade_item_tables`); a row's form says how to read its text, so rows
of every form live side by side.

``PRAGMA user_version`` counts catalog changes, so every connection (and process) sees DDL made by another.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import zlib
from binascii import a2b_base64, b2a_base64
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StorageError
from .turns import Gate
from .writelock import WriteLock

SCHEMA = """
CREATE TABLE IF NOT EXISTS dynabase_tables (
    name TEXT PRIMARY KEY,
    id INTEGER NOT NULL UNIQUE,
    description TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dynabase_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

#: the storage format this version writes (and the newest it reads), kept in ``dynabase_meta`` as ``format``:
#: 3 added short bodies (:data:`SHORT`), which earlier versions cannot read. Files without the row are of an
#: earlier format and are brought to this one on open; a file of a newer format is refused, never misread.
FORMAT = 3


def create_item_table(conn: Any, name: str) -> None:
    """Create the item view ``name`` over its keys, items and parts tables, with the triggers that drop an
    item's row and parts with its key (the layout above). The names have a space: no secondary index table
    (t<id>_<letters, digits, _>) can take them."""
    conn.execute(
        f'CREATE TABLE "{name} keys" (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, id INTEGER NOT NULL, '
        "PRIMARY KEY (h, pk, sk)) WITHOUT ROWID"
    )
    conn.execute(
        f'CREATE TABLE "{name} items" (id INTEGER PRIMARY KEY, item TEXT NOT NULL, size INTEGER NOT NULL, '
        "bin INTEGER NOT NULL, first_part INTEGER, parts INTEGER)"
    )
    conn.execute(f'CREATE TABLE "{name} parts" (id INTEGER PRIMARY KEY, part BLOB NOT NULL)')
    conn.execute(
        f'CREATE TRIGGER "{name} item of a deleted key" AFTER DELETE ON "{name} keys" '
        f'BEGIN DELETE FROM "{name} items" WHERE id = old.id; END'
    )
    gone = f'DELETE FROM "{name} parts" WHERE id >= old.first_part AND id < old.first_part + old.parts; END'
    conn.execute(
        f'CREATE TRIGGER "{name} parts of a deleted item" AFTER DELETE ON "{name} items" '
        f"WHEN old.parts IS NOT NULL BEGIN {gone}"
    )
    conn.execute(
        f'CREATE TRIGGER "{name} parts of a rewritten item" AFTER UPDATE OF item ON "{name} items" '
        f"WHEN old.parts IS NOT NULL BEGIN {gone}"
    )
    conn.execute(
        f"CREATE VIEW {name} AS SELECT k.h AS h, k.pk AS pk, k.sk AS sk, i.item AS item, i.size AS size, "
        "i.bin AS bin, i.first_part AS first_part, i.parts AS parts "
        f'FROM "{name} keys" AS k JOIN "{name} items" AS i ON i.id = k.id'
    )
    create_insert_trigger(conn, name)


def create_insert_trigger(conn: Any, name: str) -> None:
    """The trigger that stores an item inserted into the view ``name``: its row, then its key pointing at the
    row (:func:`insert_row`). One statement from Python instead of two: ~1.2 us less per new item (~25 us)."""
    conn.execute(
        f'CREATE TRIGGER IF NOT EXISTS "{name} insert" INSTEAD OF INSERT ON {name} BEGIN '
        f'INSERT INTO "{name} items" (item, size, bin, first_part, parts) '
        "VALUES (new.item, new.size, new.bin, new.first_part, new.parts); "
        f'INSERT OR REPLACE INTO "{name} keys" (h, pk, sk, id) VALUES (new.h, new.pk, new.sk, last_insert_rowid()); '
        "END"
    )


def drop_item_table(conn: Any, name: str) -> None:
    """Drop the item view ``name`` and its tables (their triggers go with them)."""
    conn.execute(f"DROP VIEW IF EXISTS {name}")
    for table in ("keys", "items", "parts"):
        conn.execute(f'DROP TABLE IF EXISTS "{name} {table}"')


def insert_row(
    conn: Any, name: str, key: tuple[int, bytes, bytes], text: str, size: int, binary: int, part: int
) -> None:
    """Store a new item (``key``: its ``h, pk, sk``; ``text``: its body): its parts, then its row and key (by the
    view's insert trigger)."""
    body, first, parts = store_body(conn, name, text, part)
    conn.execute(
        f"INSERT INTO {name} (h, pk, sk, item, size, bin, first_part, parts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (*key, body, size, binary, first, parts),
    )


def rewrite_row(
    conn: Any, name: str, key: tuple[int, bytes, bytes], text: str, size: int, binary: int, part: int
) -> None:
    """Store a stored item's new body in place (its old parts are dropped by a trigger)."""
    body, first, parts = store_body(conn, name, text, part)
    conn.execute(
        f'UPDATE "{name} items" SET item = ?, size = ?, bin = ?, first_part = ?, parts = ? '
        f'WHERE id = (SELECT id FROM "{name} keys" WHERE h = ? AND pk = ? AND sk = ?)',
        (body, size, binary, first, parts, *key),
    )


def delete_row(conn: Any, name: str, key: tuple[int, bytes, bytes]) -> None:
    """Delete a stored item: its key (its row and parts go by triggers)."""
    conn.execute(f'DELETE FROM "{name} keys" WHERE h = ? AND pk = ? AND sk = ?', key)


def item_sql(name: str, alias: str = "") -> str:
    """The SQL expression that reads a row's stored item text whole: the ``item`` column, or for a long body
    its head there followed by its parts in order (the ORDER BY subquery fixes group_concat's order)."""
    a = f"{alias}." if alias else ""
    parts = (
        f'SELECT part FROM "{name} parts" WHERE id >= {a}first_part AND id < {a}first_part + {a}parts '
        "ORDER BY id"
    )
    return f"CASE WHEN {a}parts IS NULL THEN {a}item ELSE {a}item || (SELECT group_concat(part, '') FROM ({parts})) END"


def part_size(page_size: int) -> int:
    """Bytes per part: four part rows (with their cell and record headers) fill a page of the file."""
    return (page_size - 8) // 4 - 24


#: bodies longer than this (bytes) are stored whole (:func:`store_body`)
WHOLE_ABOVE = 32 * 1024


def store_body(
    conn: Any, name: str, text: str | bytes, size: int
) -> tuple[str | bytes, int | None, int | None]:
    """Where an item's text goes: ``(item, first_part, parts)`` for its row, after writing its parts.

    A body of at most ``size`` bytes stays whole in the row. A longer one keeps its head (``len % size``
    bytes) in the row and the rest goes to the parts table in ``size``-byte rows with consecutive ids past the
    largest (appended, so parts pack pages full): rows over half a page would each take a page of their own.
    A body over :data:`WHOLE_ABOVE` stays whole too: SQLite's overflow pages are full, and what is left on its
    leaf page wastes at most half a page, a few percent of such a body; parts would cost 1.7x the time to
    write and read it (``bench/storage_bench.py --layouts``, 100 KB).
    """
    data = text if isinstance(text, bytes) or text.isascii() else text.encode("utf-8")  # isascii: O(1)
    if len(data) <= size or len(data) > WHOLE_ABOVE:
        return text, None, None
    if isinstance(data, str):
        data = data.encode("ascii")
    head = len(data) % size
    (first,) = conn.execute(f'SELECT coalesce(max(id), 0) + 1 FROM "{name} parts"').fetchone()
    count = len(data) // size
    conn.executemany(
        f'INSERT INTO "{name} parts" (id, part) VALUES (?, ?)',
        [(first + n, data[head + n * size : head + (n + 1) * size]) for n in range(count)],
    )
    return data[:head], first, count


#: the item tables of earlier layouts, which :func:`upgrade_item_tables` rewrites: WITHOUT ROWID, then a rowid
#: table with a unique key index on ``(h, pk, sk)`` (rows of 2-4 KB took a page each; keys stored twice)
WITHOUT_ROWID_ITEM_TABLE = (
    "CREATE TABLE {name} (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, item TEXT NOT NULL, "
    "size INTEGER NOT NULL, bin INTEGER NOT NULL, PRIMARY KEY (h, pk, sk)) WITHOUT ROWID"
)
ROWID_ITEM_TABLE = (
    "CREATE TABLE {name} (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, item TEXT NOT NULL, "
    "size INTEGER NOT NULL, bin INTEGER NOT NULL)"
)


def upgrade_item_tables(conn: Any) -> list[str]:
    """Rewrite item tables of earlier layouts into the current one, and give item views made before it their
    insert trigger; call in a write transaction. Returns the names of the rewritten tables.

    Rows are copied as they are (nothing is decoded: bodies keep their key attributes, and long ones stay
    whole until the item is next written), then the old table is dropped: its pages go to SQLite's free list
    and are reused by later writes (``VACUUM`` returns them to the file system).
    """
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'view' AND name IN (SELECT 't' || id FROM dynabase_tables) "
        "AND name || ' insert' NOT IN (SELECT name FROM sqlite_master WHERE type = 'trigger')"
    ).fetchall():
        create_insert_trigger(conn, name)
    old = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (SELECT 't' || id FROM dynabase_tables)"
        )
    ]
    for name in old:
        conn.execute(f'ALTER TABLE {name} RENAME TO "{name} old"')
        create_item_table(conn, name)
        number = "row_number() OVER (ORDER BY h, pk, sk)"
        conn.execute(
            f'INSERT INTO "{name} items" (id, item, size, bin) SELECT {number}, item, size, bin FROM "{name} old"'
        )
        conn.execute(
            f'INSERT INTO "{name} keys" (h, pk, sk, id) SELECT h, pk, sk, {number} FROM "{name} old"'
        )
        conn.execute(f'DROP TABLE "{name} old"')
    return old


def partition_hash(pk: bytes) -> int:
    """The 32-bit hash that orders partitions (and splits parallel scan segments)."""
    return zlib.crc32(pk)


# -- item serialisation --------------------------------------------------------------------------------------


def _encode_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return b2a_base64(value, newline=False).decode("ascii")  # base64.b64encode without its checks
    raise TypeError(f"cannot store {type(value).__name__}")


def _decoded(value: dict) -> dict:
    """An attribute value as parsed, with the base64 text of its B and BS values (and of those inside its M and
    L values) decoded. An attribute value has one key, its type. (``a2b_base64`` is what ``base64.b64decode``
    calls, after checks the engine's own text does not need.)"""
    if "B" in value:
        return {"B": a2b_base64(value["B"])}
    if "M" in value:
        members = value["M"]
        for name, member in members.items():
            members[name] = _decoded(member)
    elif "L" in value:
        value["L"] = [_decoded(member) for member in value["L"]]
    elif "BS" in value:
        return {"BS": [a2b_base64(v) for v in value["BS"]]}
    return value


_stdlib_dumps: Callable[[dict[str, Any]], str] = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":")
).encode
_stdlib_dumps_binary: Callable[[dict[str, Any]], str] = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), default=_encode_default
).encode
# our own compact JSON: no surrounding whitespace to skip (scan_once is set by JSONDecoder.__init__, which
# typeshed does not declare)
_stdlib_scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _stdlib_loads(text: str) -> Any:
    return _stdlib_scan(text, 0)[0]


_dumps_plain: Callable[[dict[str, Any]], str]
_dumps_binary: Callable[[dict[str, Any]], str]
_loads_plain: Callable[[str], Any]
try:  # orjson writes exactly the same compact text, 3-6x faster; the standard library's codec otherwise
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency, but the engine does not need it
    _dumps_plain, _dumps_binary, _loads_plain = _stdlib_dumps, _stdlib_dumps_binary, _stdlib_loads
else:
    _orjson_dumps = orjson.dumps

    def _orjson_plain(item: dict[str, Any]) -> str:
        return _orjson_dumps(item).decode("utf-8")

    def _orjson_binary(item: dict[str, Any]) -> str:
        return _orjson_dumps(item, default=_encode_default).decode("utf-8")

    _dumps_plain, _dumps_binary, _loads_plain = _orjson_plain, _orjson_binary, orjson.loads

#: what an item text's form (the ``bin`` column of its row, and of a stream record) says: ``BINARY``, its B and
#: BS values are base64 text; ``SHORT``, its most frequent JSON fragments are single control characters
#: (:func:`dump_body`). A form of 0 is plain JSON, the fast path.
BINARY = 1
SHORT = 2
#: ``(fragment, character)``: JSON text never holds a control character (each is escaped in a string), so one
#: stands for a fragment without ambiguity. These are most of the text that is not names and values: an S or N
#: attribute (``"name":{"S":"value"},``) shrinks by 10 characters
_FRAGMENTS = (('":{"S":"', "\x01"), ('":{"N":"', "\x02"), ('"},"', "\x03"))
#: bodies at least this long (characters) stay plain: the fragments are a smaller share of a larger item's
#: bytes, and each costs a pass over the text to put back on every read (the short items whose rows' fixed
#: cost doubled their size go from ~2.4x to ~1.9x; ``bench/storage_bench.py``)
SHORT_BELOW = 256


def dump_item(item: dict) -> tuple[str, int]:
    """An item as stored: JSON text, and its form (:data:`BINARY` when it holds binary values)."""
    try:
        return _dumps_plain(item), 0
    except TypeError:  # bytes somewhere in the item (orjson's JSONEncodeError is a TypeError too)
        return _dumps_binary(item), BINARY


def dump_body(body: dict) -> tuple[str, int]:
    """A row's body as stored: :func:`dump_item`, with a short text's fragments shortened (:data:`SHORT`)."""
    text, form = dump_item(body)
    if len(text) >= SHORT_BELOW:
        return text, form
    short = text
    for fragment, character in _FRAGMENTS:
        short = short.replace(fragment, character)
    return (short, form | SHORT) if len(short) < len(text) else (text, form)


def load_item(text: str, form: int) -> dict:
    """An item from its stored text and form (:func:`dump_item`, :func:`dump_body`)."""
    if not form:
        return _loads_plain(text)
    if form & SHORT:
        for fragment, character in _FRAGMENTS:
            text = text.replace(character, fragment)
    item = _loads_plain(text)
    return binary_decoded(item) if form & BINARY else item


def load_dumped(text: str) -> dict:
    """An item from :func:`dump_item`'s text when its form was not kept (change-log keys and old images): the
    BINARY form's base64 is decoded when the text holds a B or BS value (an S value holding ``{"B`` only costs
    the walk, which decodes B and BS values alone)."""
    return load_item(text, BINARY if '{"B' in text else 0)


def binary_decoded(item: dict) -> dict:
    """``item`` (parsed from text of the :data:`BINARY` form) with its binary values decoded in place (S and N
    values, most of them, without a call)."""
    for name, value in item.items():
        if "B" in value:
            item[name] = {"B": a2b_base64(value["B"])}
        elif "S" not in value and "N" not in value:
            item[name] = _decoded(value)
    return item


#: the key attributes a table's row holds exactly in its ``pk``/``sk`` columns, so not again in its body:
#: ``(name, type, column)`` for each S or B key attribute (column 0: ``pk``, 1: ``sk``). An N key stays in
#: the body: its encoding normalises the number (``1.50`` and ``1.5`` encode alike), so it does not give the
#: stored text back.
RowKeys = tuple[tuple[str, str, int], ...]


def body_of(item: dict, keys: RowKeys) -> dict:
    """What is stored of an item in its row's ``item`` column: the item without the keys its row holds."""
    if not keys:
        return item
    body = dict(item)
    for name, _, _ in keys:
        del body[name]
    return body


#: ``(text, form, pk, sk) -> item``: an item from its row's columns (see :func:`row_loader`)
RowLoader = Callable[[str, int, bytes, bytes], dict]


def row_loader(keys: RowKeys) -> RowLoader:
    """How a table's items are read from their rows: the stored body with the key attributes its row holds put
    back, after the other attributes (DynamoDB gives attributes in no set order; putting them first would cost
    a copy of the dict). A body written before keys were left out still has them, and gets the same values.

    Tables with S keys (most) get a loader without a loop: this runs for every item read."""
    load, parse = load_item, _loads_plain  # plain text (form 0, most rows) is parsed without a call between
    if not keys:
        return lambda text, form, pk, sk: load(text, form) if form else parse(text)
    if [(typ, column) for _, typ, column in keys] in ([("S", 0)], [("S", 0), ("S", 1)]):
        if len(keys) == 1:
            ((hash_name, _, _),) = keys

            def load_s(text: str, form: int, pk: bytes, sk: bytes) -> dict:
                item = load(text, form) if form else parse(text)
                item[hash_name] = {"S": pk.decode()}
                return item

            return load_s
        (hash_name, _, _), (range_name, _, _) = keys

        def load_s_s(text: str, form: int, pk: bytes, sk: bytes) -> dict:
            item = load(text, form) if form else parse(text)
            item[hash_name] = {"S": pk.decode()}
            item[range_name] = {"S": sk.decode()}
            return item

        return load_s_s

    def load_any(text: str, form: int, pk: bytes, sk: bytes) -> dict:
        item = load(text, form)
        for name, typ, column in keys:
            raw = sk if column else pk
            item[name] = {"S": raw.decode()} if typ == "S" else {"B": raw}
        return item

    return load_any


# -- the connection ------------------------------------------------------------------------------------------


class Storage:
    """A SQLite database file (or memory) holding DynamoDB tables; safe to share between threads."""

    def __init__(self, path: str = ":memory:", *, timeout: float = 30.0, adopt: bool = False) -> None:
        """``adopt``: use a SQLite file another application made (its tables, no dynabase ones) all the same:
        dynabase adds its tables and switches it to WAL journaling. Otherwise such a file is refused."""
        self.path = path
        self.lock = threading.RLock()
        #: an in-memory database has no other connection, so its catalog cannot change behind our back
        self.private = path == ":memory:"
        self._version = 0
        #: while not None (an engine has change listeners), what the current write transaction recorded for
        #: them: cut back by a rolled-back savepoint, dropped on rollback, handed to ``on_commit`` after COMMIT
        self.journal: list | None = None
        self.on_commit: Callable[[list], None] | None = None
        self.timeout = timeout
        #: whether reads get connections of their own (:meth:`reading`): only a file in WAL journaling, whose
        #: readers never wait for the writer nor for each other; an in-memory database has one connection
        self.pooled = False
        #: the file readers open (only when pooled): the same one after the process changes its directory
        self._reader_path = os.path.abspath(path)
        #: the thread inside a transaction of the shared connection (:meth:`write`, :meth:`read`), if any
        self.owner: int | None = None
        self._idle: list[sqlite3.Connection] = []
        self._pool_lock = threading.Lock()
        self._closed = False
        #: long reads take turns with it (:mod:`dynabase.engine.turns`)
        self.turns = Gate()
        #: the turn between processes writing this file (None: SQLite's lock alone)
        self.write_lock = WriteLock.open(path)
        try:
            self.conn = sqlite3.connect(
                path, timeout=timeout, isolation_level=None, check_same_thread=False, cached_statements=512
            )
        except sqlite3.Error as error:
            raise StorageError(path, _open_failure(path, error)) from error
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            if not adopt:
                _refuse_foreign(path, self.conn)
            if path != ":memory:" and not path.startswith("file::memory:"):
                mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                self.pooled = str(mode).lower() == "wal"
            # NORMAL in WAL mode: a committed write survives a crash of the process (not of the OS before a
            # checkpoint).
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = OFF")
            # a REPLACE that deletes a row runs its delete trigger (which drops the row's parts) only so
            self.conn.execute("PRAGMA recursive_triggers = ON")
            #: bytes per part of a long item body (:func:`store_body`)
            self.part_size = part_size(self.conn.execute("PRAGMA page_size").fetchone()[0])
            with self.write():
                for statement in SCHEMA.split(";")[:-1]:  # in this transaction (executescript commits)
                    self.conn.execute(statement)
                _check_format(path, self.conn)
                upgrade_item_tables(self.conn)
        except StorageError:
            self._close_files()
            raise
        except sqlite3.Error as error:  # not a database, read-only, ...
            self._close_files()
            raise StorageError(path, _open_failure(path, error)) from error

    # Transactions: writes take the database's write lock up front (BEGIN IMMEDIATE), so a read-check-write
    # sequence (conditions, updates) is atomic across threads and processes.
    def write(self) -> _WriteTransaction:
        """``with storage.write() as conn:`` -- one write transaction (nested uses join the outer one)."""
        return _WriteTransaction(self)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for multi-statement reads on the shared connection, under the lock (no write of
        this engine commits meanwhile). Reads that need not stop writes use :meth:`reading`."""
        with self.lock:
            conn = self.conn
            if conn.in_transaction:
                yield conn
                return
            conn.execute("BEGIN")
            self.owner = threading.get_ident()
            try:
                yield conn
            finally:
                self.owner = None
                conn.execute("COMMIT")

    def reading(self, snapshot: bool = False) -> _Reading:
        """``with storage.reading() as conn:`` -- a connection for reads that do not wait for other reads.

        For a file (WAL) it is a reader connection of its own (``PRAGMA query_only``), taken from a pool and
        opened on first need: each statement reads the last committed state, or with ``snapshot`` the whole
        block reads one. A thread inside a transaction of the shared connection (a write's conditions, a retry
        under the write lock) reads on that connection, which sees what it wrote; so does an in-memory
        database, whose one connection is the database. The caller closes its cursors inside the block."""
        return _Reading(self, snapshot)

    def _take(self) -> sqlite3.Connection:
        """An idle reader connection, or a new one with the shared connection's settings."""
        with self._pool_lock:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            if self._idle:
                return self._idle.pop()
        conn = sqlite3.connect(
            self._reader_path,
            timeout=self.timeout,
            isolation_level=None,
            check_same_thread=False,
            cached_statements=512,
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA query_only = ON")
        except BaseException:
            conn.close()
            raise
        return conn

    def _give(self, conn: sqlite3.Connection) -> None:
        """Put a reader connection back (closed when the storage is, or past :data:`IDLE_READERS` idle ones)."""
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            conn.close()
            return
        with self._pool_lock:
            if not self._closed and len(self._idle) < IDLE_READERS:
                self._idle.append(conn)
                return
        conn.close()

    def catalog_version(self) -> int:
        if self.private:
            return self._version
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def reload_catalog_version(self) -> None:
        """Re-read the catalog version after the database was replaced underneath (SQLite's backup API)."""
        self._version = self.conn.execute("PRAGMA user_version").fetchone()[0]

    def bump_catalog_version(self) -> None:
        """Call inside a write transaction that changed the catalog."""
        version = self.conn.execute("PRAGMA user_version").fetchone()[0] + 1
        self.conn.execute(f"PRAGMA user_version = {version}")
        self._version = version

    def close(self) -> None:
        with self.lock:
            with self._pool_lock:
                self._closed = True
                idle, self._idle = self._idle, []
            for conn in idle:  # readers in use are closed when they come back
                conn.close()
            self._close_files()

    def _close_files(self) -> None:
        self.conn.close()
        if self.write_lock is not None:
            self.write_lock.close()


#: reader connections kept open between reads (more are opened while more reads run at once, then closed)
IDLE_READERS = 8


class _Reading:
    """The context manager behind :meth:`Storage.reading` (a class: cheaper than a generator on the hot path)."""

    __slots__ = ("storage", "snapshot", "conn", "shared")

    def __init__(self, storage: Storage, snapshot: bool) -> None:
        self.storage = storage
        self.snapshot = snapshot
        self.conn: sqlite3.Connection | None = None
        self.shared: Any = None

    def __enter__(self) -> sqlite3.Connection:
        storage = self.storage
        if storage.pooled and storage.owner != threading.get_ident():
            conn = self.conn = storage._take()
            if self.snapshot:
                try:
                    conn.execute("BEGIN")
                except BaseException:
                    storage._give(conn)
                    raise
            return conn
        if self.snapshot:
            self.shared = storage.read()
            return self.shared.__enter__()
        storage.lock.acquire()
        return storage.conn

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        storage = self.storage
        if self.conn is not None:
            storage._give(self.conn)  # a snapshot's read transaction ends there (it wrote nothing)
        elif self.shared is not None:
            self.shared.__exit__(kind, error, trace)
        else:
            storage.lock.release()


def _refuse_foreign(path: str, conn: sqlite3.Connection) -> None:
    """Refuse another application's SQLite file (tables, none of them dynabase's): opening it would add
    dynabase's tables and switch its journal to WAL behind that application's back."""
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        )
    ]
    if names and not any(name.startswith("dynabase_") for name in names):
        shown = ", ".join(names[:5]) + (f", ... ({len(names)} tables)" if len(names) > 5 else "")
        raise StorageError(
            path,
            f"it is another application's SQLite database (tables: {shown}), not a dynabase one; using it "
            "would add dynabase's tables and switch it to WAL journaling. Pass --adopt (adopt=True in "
            "Python) to use it anyway",
        )


def _check_format(path: str, conn: sqlite3.Connection) -> None:
    """Refuse a file written by a newer dynabase (its items could be misread); stamp older ones as current."""
    row = conn.execute("SELECT value FROM dynabase_meta WHERE name = 'format'").fetchone()
    found = int(row[0]) if row and str(row[0]).isdigit() else None
    if found is not None and found > FORMAT:
        raise StorageError(
            path,
            f"it was written by a newer dynabase (storage format {found}; this version reads formats up to "
            f"{FORMAT}): upgrade dynabase to open it",
        )
    if found != FORMAT:
        conn.execute(
            "INSERT OR REPLACE INTO dynabase_meta (name, value) VALUES ('format', ?)", (str(FORMAT),)
        )


#: SQLite's primary result codes that are about the database itself, in the user's words
_FAULTS = {
    13: "the database's disk is full",  # SQLITE_FULL
    11: "the database file is damaged",  # SQLITE_CORRUPT
    26: "the database file is damaged",  # SQLITE_NOTADB
    10: "the database file could not be read or written",  # SQLITE_IOERR
    8: "the database file is read-only",  # SQLITE_READONLY
}


def storage_fault(error: BaseException) -> str | None:
    """What a SQLite error says about the database (full disk, damaged file, ...) in words, SQLite's own message
    after them; ``None`` for any other error (a bug)."""
    code = getattr(error, "sqlite_errorcode", None) if isinstance(error, sqlite3.Error) else None
    cause = _FAULTS.get(code & 0xFF) if isinstance(code, int) else None
    return f"{cause} (SQLite: {error})" if cause else None


def _open_failure(path: str, error: sqlite3.Error) -> str:
    """Why SQLite could not open or set up ``path``, in the user's terms where the file system tells."""
    target = Path(path).expanduser().absolute()
    if not target.parent.is_dir():
        return f"directory {target.parent} does not exist"
    if target.is_dir():
        return "it is a directory"
    if not os.access(target if target.exists() else target.parent, os.W_OK):
        return f"permission denied ({error})"
    return str(error)


class _WriteTransaction:
    """The context manager behind :meth:`Storage.write` (a class: cheaper than a generator on the hot path).

    Inside another transaction it is a savepoint: an error rolls back this part alone, as if it had run alone
    (the caller may catch the error and go on, as a batch does for each of its statements)."""

    __slots__ = ("storage", "nested", "mark")

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.nested = False
        self.mark = 0

    def __enter__(self) -> sqlite3.Connection:
        storage = self.storage
        storage.lock.acquire()
        conn = storage.conn
        try:
            if conn.in_transaction:
                self.nested = True
                conn.execute("SAVEPOINT dynabase_nested")
                if storage.journal is not None:
                    self.mark = len(storage.journal)
            else:
                if storage.write_lock is not None:
                    storage.write_lock.acquire(storage.timeout)
                conn.execute("BEGIN IMMEDIATE")
                storage.owner = threading.get_ident()
        except BaseException:
            if not self.nested and storage.write_lock is not None:
                storage.write_lock.release()
            storage.lock.release()
            raise
        return conn

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        storage = self.storage
        conn = storage.conn
        if not self.nested:
            storage.owner = None
        try:
            if self.nested:
                if kind is not None:
                    conn.execute("ROLLBACK TO dynabase_nested")
                    if storage.journal:
                        del storage.journal[self.mark :]
                conn.execute("RELEASE dynabase_nested")
            elif storage.journal:
                self._end_journaled(kind is None)
            else:
                conn.execute("ROLLBACK" if kind is not None else "COMMIT")
        finally:
            if not self.nested and storage.write_lock is not None:
                storage.write_lock.release()
            storage.lock.release()

    def _end_journaled(self, commit: bool) -> None:
        """End a transaction that journaled entries: they go to ``on_commit`` once COMMIT succeeded (still
        under the lock, so in commit order), and are dropped otherwise."""
        storage = self.storage
        entries, storage.journal = storage.journal, []
        storage.conn.execute("COMMIT" if commit else "ROLLBACK")
        if commit and storage.on_commit is not None and entries is not None:
            storage.on_commit(entries)
