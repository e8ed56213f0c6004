"""Change capture for device ↔ cloud sync: a per-table change log written in the same transaction as the write.

A table with capture enabled (``_capture`` in its catalog description, so every connection and process writing
the file captures: the entity layer, the raw client, ``dynabase serve``) gets one row per changed item key in
``dynabase_changes``: a monotonic ``seq``, ``at`` (the engine clock's epoch ms of the latest change), ``base``
(the newest sync version the item had before its local changes) and, for a delete, the item as it was.
Pending changes to one key coalesce; rows stay until acknowledged (no retention: a month offline loses
nothing). Capture may be limited to items whose type attribute names one of a set of models.

The sync library reads the log (:func:`read_changes`), acknowledges pushed changes (:func:`ack_changes`: a row goes
only if its seq is unchanged, so a newer write is never lost), and applies pulled changes (:func:`apply_changes`)
without capturing them (no echo), comparing versions with the pending change and the stored item in the same
transaction, and storing the pull checkpoint with them. ``dynabase_sync_state`` holds named values (checkpoints,
the device id, the clock offset); ``dynabase_sync_tombstones`` the versions of deleted keys, so that an older
re-delivery is refused; ``dynabase_sync_quarantine`` the changes the cloud refused (:func:`quarantine_changes`:
set aside at their seq until released or written again). :func:`discard_changes` undoes device writes sync must
not push (a model the cloud owns), and a ``reserve`` refuses writes that leave no room for sync's metadata.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

from ..clock import SYNC_ATTRS, VERSION_ATTR, next_version, version_parts
from ..errors import ResourceNotFoundException, ValidationException
from ..types import MAX_ITEM_SIZE, item_size, validate_item
from .items import Row, read_row, write_row
from .schema import Table
from .storage import dump_item, item_sql, load_dumped
from .streams import _unchanged

if TYPE_CHECKING:
    from .engine import Engine

SCHEMA = """
CREATE TABLE IF NOT EXISTS dynabase_changes (
    tbl TEXT NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL,
    seq INTEGER NOT NULL, at INTEGER NOT NULL, key TEXT NOT NULL, base TEXT, gone TEXT, fields TEXT, ver TEXT,
    PRIMARY KEY (tbl, pk, sk)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS dynabase_changes_seq ON dynabase_changes (tbl, seq);
CREATE TABLE IF NOT EXISTS dynabase_sync_state (
    tbl TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (tbl, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dynabase_sync_tombstones (
    tbl TEXT NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, ver TEXT NOT NULL, expires REAL NOT NULL,
    PRIMARY KEY (tbl, pk, sk)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dynabase_sync_quarantine (
    tbl TEXT NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, seq INTEGER NOT NULL, reason TEXT NOT NULL,
    at INTEGER NOT NULL, PRIMARY KEY (tbl, pk, sk)
) WITHOUT ROWID;
"""
#: a pending change is set aside while the quarantine holds its key at its seq (a newer write of the key is a
#: new change: it is pushed again)
_LIVE = (
    "NOT EXISTS (SELECT 1 FROM dynabase_sync_quarantine q WHERE q.tbl = c.tbl AND q.pk = c.pk AND q.sk = c.sk "
    "AND q.seq = c.seq)"
)
_SEQ_NAME = "captureSeq"
MAX_READ = 1000


def _type_of(item: dict | None, attribute: str) -> Any:
    if item is None:
        return None
    value = item.get(attribute)
    return value.get("S") if isinstance(value, dict) else None


def _version_of(item: dict | None) -> str | None:
    if item is None:
        return None
    value = item.get(VERSION_ATTR)
    return value.get("S") if isinstance(value, dict) else None


def _newest(*versions: str | None) -> str | None:
    present = [v for v in versions if v]
    return max(present) if present else None


def _next_seq(conn: Any) -> int:
    row = conn.execute(
        "SELECT value FROM dynabase_sync_state WHERE tbl = '' AND name = ?", (_SEQ_NAME,)
    ).fetchone()
    seq = int(row[0]) + 1 if row else 1
    conn.execute(
        "INSERT OR REPLACE INTO dynabase_sync_state (tbl, name, value) VALUES ('', ?, ?)",
        (_SEQ_NAME, str(seq)),
    )
    return seq


def _check_room(item: dict, reserve: int) -> None:
    """The cloud would refuse an item that the metadata sync adds takes past 400 KB: refuse the write itself."""
    if item_size(item) + reserve > MAX_ITEM_SIZE:
        raise ValidationException(
            f"Item size has exceeded the maximum allowed size with the {reserve} bytes of sync metadata it "
            "needs in the cloud (dynabase sync)"
        )


class Captured(NamedTuple):
    """In the storage journal: the write transaction captured a change of ``table`` (for the engine's capture
    listeners, told once it commits)."""

    table: str


def record(conn: Any, engine: Engine, table: Table, old: dict | None, new: dict | None) -> None:
    """Queue the change of one item (called inside the write transaction; nothing when capture is
    suppressed, the item's model is not captured, or the write changed nothing)."""
    if engine.capture_suppressed:
        return
    config = table.description["_capture"]
    types = config.get("types")
    if types is not None:
        attribute = config["typeAttribute"]
        if _type_of(old, attribute) not in types and _type_of(new, attribute) not in types:
            return
    if _unchanged(old, new):
        return
    reserve = config.get("reserve", 0)
    if (
        reserve
        and new is not None
        and _type_of(new, config.get("typeAttribute", "")) not in config.get("guarded", ())
    ):
        _check_room(new, reserve)
    some = new if new is not None else old
    assert some is not None  # _unchanged(None, None) returned above
    key = table.key_of(some)
    pk, sk = table.key_values(key)
    base = _version_of(old)
    if old is None:
        found = conn.execute(
            "SELECT ver FROM dynabase_sync_tombstones WHERE tbl = ? AND pk = ? AND sk = ?",
            (table.name, pk, sk),
        ).fetchone()
        base = found[0] if found else None
    gone = dump_item(some)[0] if new is None else None  # (some is old)
    fields = None
    if (
        old is not None and new is not None
    ):  # the attributes changed since the last push (for per-field merge)
        changed = {n for n in old.keys() | new.keys() if n not in SYNC_ATTRS and old.get(n) != new.get(n)}
        found = conn.execute(
            "SELECT fields FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ?", (table.name, pk, sk)
        ).fetchone()
        if found is None or found[0] is not None:
            fields = json.dumps(sorted(changed | set(json.loads(found[0]) if found else ())))
    conn.execute(
        "INSERT INTO dynabase_changes (tbl, pk, sk, seq, at, key, base, gone, fields) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (tbl, pk, sk) DO UPDATE SET seq = excluded.seq, at = excluded.at, gone = excluded.gone, "
        "fields = excluded.fields, ver = NULL, "
        # the newest of the row's base, the write's, and the version the overwritten change was pinned to: that
        # one may have landed in the cloud with its answer lost, so the new change must be versioned above it
        # (versions are fixed-width text: the greatest sorts last; '' stands for none)
        "base = NULLIF(max(coalesce(base, ''), coalesce(excluded.base, ''), coalesce(ver, '')), '')",
        (
            table.name,
            pk,
            sk,
            _next_seq(conn),
            int(engine.clock() * 1000),
            dump_item(key)[0],
            base,
            gone,
            fields,
        ),
    )
    journal = engine.storage.journal
    if journal is not None and engine.capture_listeners:
        journal.append(Captured(table.name))


# -- the extension API (the embedded client's methods call these) -------------------------------------------


def enable_change_capture(
    engine: Engine,
    table_name: str,
    type_attribute: str | None = None,
    types: list[str] | None = None,
    guarded: list[str] | None = None,
    reserve: int = 0,
) -> dict:
    """Capture changes of ``table_name`` (only items whose ``type_attribute`` is one of ``types``, when given).
    Items already stored that become captured are queued (``Queued``). Idempotent; calling again with other
    types replaces them. ``guarded``: types also captured, but only so that sync can undo the device's writes
    (models the cloud owns; never backfilled). ``reserve``: bytes of metadata sync adds to a pushed item: a
    write whose item would then pass 400 KB is refused."""
    table = engine.catalog.get(table_name)
    if (type_attribute is None) != (types is None) or (guarded and types is None):
        raise ValidationException("TypeAttribute and Types go together (and Guarded needs them)")
    if not isinstance(reserve, int) or isinstance(reserve, bool) or not 0 <= reserve < MAX_ITEM_SIZE:
        raise ValidationException(f"Reserve must be a whole number of bytes below {MAX_ITEM_SIZE}")
    config: dict[str, Any] = {}
    if types is not None:
        every = [*types, *(guarded or ())]
        if not isinstance(type_attribute, str) or not all(isinstance(t, str) for t in every):
            raise ValidationException("TypeAttribute must be a string and Types and Guarded lists of strings")
        config = {"typeAttribute": type_attribute, "types": sorted(set(every))}
        if guarded:
            config["guarded"] = sorted(set(guarded))
    if reserve:
        config["reserve"] = reserve
    previous = table.description.get("_capture")
    queued = 0
    if previous != config:
        desc = dict(table.description, _capture=config)
        with engine.storage.write() as conn:
            conn.execute(
                "UPDATE dynabase_tables SET description = ? WHERE name = ?", (json.dumps(desc), table.name)
            )
            engine.storage.bump_catalog_version()
            queued = _backfill(conn, engine, table, previous, config)
    return {"TableName": table.name, "ChangeCapture": config or {"all": True}, "Queued": queued}


def _captures(config: dict | None, item: dict) -> bool:
    if config is None:
        return False
    types = config.get("types")
    return types is None or _type_of(item, config["typeAttribute"]) in types


def _backfill(conn: Any, engine: Engine, table: Table, previous: dict | None, config: dict) -> int:
    """Queue the items already stored that capture did not cover before (written before sync was set up),
    so that they are pushed rather than lost (a full resync removes local items the cloud does not have)."""
    queued = 0
    at = int(engine.clock() * 1000)
    for text, binary, pk, sk in conn.execute(f"SELECT {item_sql(table.sql)}, bin, pk, sk FROM {table.sql}"):
        item = table.load_row(text, binary, pk, sk)
        if not _captures(config, item) or _captures(previous, item):
            continue
        if _type_of(item, config.get("typeAttribute", "")) in config.get("guarded", ()):
            continue  # the cloud's: stored by pulls, nothing to push
        key = table.key_of(item)
        pk, sk = table.key_values(key)
        conn.execute(
            "INSERT OR IGNORE INTO dynabase_changes (tbl, pk, sk, seq, at, key, base) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (table.name, pk, sk, _next_seq(conn), at, dump_item(key)[0], _version_of(item)),
        )
        queued += 1
    return queued


def _captured_table(engine: Engine, table_name: str) -> Table:
    table = engine.catalog.get(table_name)
    if "_capture" not in table.description:
        raise ResourceNotFoundException(f"Table {table_name} has no change capture (enable_change_capture)")
    return table


def read_changes(engine: Engine, table_name: str, limit: int = 100, after_seq: int = 0) -> dict:
    """Pending changes in seq order: ``{"Changes": [{"Key", "Seq", "At", "Base", "Fields", "Version",
    "Item" | "OldItem"}],
    "Pending"}`` (``Item`` is the item now; a deleted item has ``OldItem``, as it was before the delete;
    ``Fields`` the attributes changed since the last push, absent when the pending change created or
    deleted the item)."""
    table = _captured_table(engine, table_name)
    limit = max(1, min(int(limit), MAX_READ))
    with engine.storage.read() as conn:
        rows = conn.execute(
            "SELECT key, seq, at, base, gone, fields, ver FROM dynabase_changes c WHERE tbl = ? AND seq > ? "
            f"AND {_LIVE} ORDER BY seq LIMIT ?",
            (table.name, after_seq, limit),
        ).fetchall()
        pending = conn.execute(
            f"SELECT count(*) FROM dynabase_changes c WHERE tbl = ? AND {_LIVE}", (table.name,)
        ).fetchone()[0]
        refused = conn.execute(
            f"SELECT count(*) FROM dynabase_changes c WHERE tbl = ? AND NOT {_LIVE}", (table.name,)
        ).fetchone()[0]
        changes = [_change(conn, table, *row) for row in rows]
    return {"Changes": changes, "Pending": pending, "Quarantined": refused}


def _change(
    conn: Any,
    table: Table,
    key_text: str,
    seq: int,
    at: int,
    base: str | None,
    gone: str | None,
    fields: str | None,
    version: str | None,
) -> dict[str, Any]:
    """A change log row as :func:`read_changes` gives it."""
    key = load_dumped(key_text)
    change: dict[str, Any] = {"Key": key, "Seq": seq, "At": at}
    if version:
        change["Version"] = version
    if base:
        change["Base"] = base
    if fields is not None:
        change["Fields"] = json.loads(fields)
    item, _ = read_row(conn, table, Row(table, key))
    if item is not None:
        change["Item"] = item
    elif gone:
        change["OldItem"] = load_dumped(gone)
    return change


def discard_changes(engine: Engine, table_name: str, discards: list[dict]) -> dict:
    """Undo device writes sync must not push (``{"Key", "Seq", "Item"?}``), while their seq is unchanged: the
    change goes and the item becomes ``Item`` (the cloud's; absent: no item), without capture.
    ``{"Discarded": n}``."""
    table = _captured_table(engine, table_name)
    done = 0
    with engine.storage.write() as conn:
        for discard in discards:
            row = Row(table, discard["Key"])
            if not conn.execute(
                "DELETE FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ? AND seq = ?",
                (table.name, row.pk, row.sk, discard["Seq"]),
            ).rowcount:
                continue  # written again since: the next push sees the newer change
            current, _ = read_row(conn, table, row)
            wanted = discard.get("Item")
            _write_quietly(engine, conn, table, row, current, validate_item(wanted) if wanted else None)
            done += 1
    return {"Discarded": done}


def pin_versions(engine: Engine, table_name: str, pins: list[dict]) -> None:
    """Fix the version each change (``{"Key", "Seq", "Version"}``) is pushed with, so that a retry after a lost
    answer sends the same version (a newer write of the key unpins it)."""
    table = _captured_table(engine, table_name)
    with engine.storage.write() as conn:
        for pin in pins:
            row = Row(table, pin["Key"])
            conn.execute(
                "UPDATE dynabase_changes SET ver = ? WHERE tbl = ? AND pk = ? AND sk = ? AND seq = ?",
                (pin["Version"], table.name, row.pk, row.sk, pin["Seq"]),
            )


def ack_changes(engine: Engine, table_name: str, acks: list[dict], tombstone_seconds: float) -> dict:
    """Acknowledge pushed changes: each ``{"Key", "Seq", "Version"}`` goes when its seq is unchanged, and the
    item (or the key's tombstone) is stamped with the version the cloud holds; when a newer write came since,
    the row stays and remembers the version as its base. ``{"Acknowledged": n}``."""
    table = _captured_table(engine, table_name)
    done = 0
    with engine.storage.write() as conn:
        now = engine.clock()
        for ack in acks:
            key, seq, version = ack["Key"], ack["Seq"], ack.get("Version")
            row = Row(table, key)
            found = conn.execute(
                "SELECT seq FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ?",
                (table.name, row.pk, row.sk),
            ).fetchone()
            if found is None:
                continue
            if found[0] != seq:
                if version:
                    conn.execute(
                        "UPDATE dynabase_changes SET base = ? WHERE tbl = ? AND pk = ? AND sk = ? "
                        "AND (base IS NULL OR base < ?)",
                        (version, table.name, row.pk, row.sk, version),
                    )
                continue
            conn.execute(
                "DELETE FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ?",
                (table.name, row.pk, row.sk),
            )
            done += 1
            if not version:
                continue
            item, _ = read_row(conn, table, row)
            if item is None:
                _tombstone(conn, table, row, version, now + tombstone_seconds)
            elif _version_of(item) != version:
                _write_quietly(engine, conn, table, row, item, dict(item, **{VERSION_ATTR: {"S": version}}))
    return {"Acknowledged": done}


def _tombstone(conn: Any, table: Table, row: Row, version: str, expires: float) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO dynabase_sync_tombstones (tbl, pk, sk, ver, expires) VALUES (?, ?, ?, ?, ?)",
        (table.name, row.pk, row.sk, version, expires),
    )


def _write_quietly(
    engine: Engine, conn: Any, table: Table, row: Row, old: dict | None, new: dict | None
) -> None:
    """Write without capturing the change (pulled changes must not be pushed back)."""
    engine.capture_suppressed = True
    try:
        size = item_size(new) if new is not None else 0
        write_row(engine, conn, table, row, old, new, size)
    finally:
        engine.capture_suppressed = False


def pending_version(at_ms: int, base: str | None, offset_ms: int, node: str) -> str:
    """The version a pending change is pushed with: its capture time corrected by the clock offset, above its
    base."""
    return next_version(at_ms - offset_ms, node, base)


def apply_changes(
    engine: Engine,
    table_name: str,
    changes: list[dict],
    *,
    state: dict[str, str | None] | None = None,
    offset_ms: int = 0,
    node: str = "",
    tombstone_seconds: float = 30 * 86400,
) -> dict:
    """Apply pulled changes, each ``{"Item": item}`` (an item with its ``_syncVer``) or ``{"Key": key,
    "Version": v, "Delete": True}``, without capturing them; store ``state`` (checkpoints) in the same
    transaction.

    A change is applied when its version is newer than the key's: the pending local change's version (which
    then is dropped: a conflict the local change lost), else the stored item's or the key's tombstone's. A
    change marked ``"Resync"`` (from a full resync: the cloud is the reference) replaces any other version of a
    key without a pending change: the cloud may have lost a newer one (a swept tombstone). Returns ``{"Applied", "Skipped", "Conflicts", "Deletes"}``.
    """
    table = engine.catalog.get(table_name)
    counts = {"Applied": 0, "Skipped": 0, "Conflicts": 0, "Deletes": 0}
    with engine.storage.write() as conn:
        now = engine.clock()
        conn.execute("DELETE FROM dynabase_sync_tombstones WHERE tbl = ? AND expires < ?", (table.name, now))
        # most pulls meet no pending change and no tombstone: skip those look-ups when the table has none
        any_pending = _has_rows(conn, "dynabase_changes", table.name)
        any_tombstone = _has_rows(conn, "dynabase_sync_tombstones", table.name)
        for change in changes:
            if change.get("Purge"):  # a full resync found the item gone from the cloud (tombstone expired)
                counts[
                    "Deletes"
                    if _purge(engine, conn, table, validate_item(change.get("Key") or {}))
                    else "Skipped"
                ] += 1
                continue
            item = change.get("Item")
            deleting = bool(change.get("Delete"))
            if item is not None:
                item = validate_item(item)
                version = _version_of(item)
                key = table.key_of(item)
            else:
                key, version = validate_item(change.get("Key") or {}), change.get("Version")
            if not isinstance(version, str) or not version:
                raise ValidationException("A pulled change needs its version (_syncVer)")
            version_parts(version)
            row = Row(table, key)
            pending = (
                any_pending
                and conn.execute(
                    "SELECT at, base, ver FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ?",
                    (table.name, row.pk, row.sk),
                ).fetchone()
            )
            current, _ = read_row(conn, table, row)
            if pending:
                if version <= (pending[2] or pending_version(pending[0], pending[1], offset_ms, node)):
                    counts["Skipped"] += 1
                    continue
                conn.execute(
                    "DELETE FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ?",
                    (table.name, row.pk, row.sk),
                )
                counts["Conflicts"] += 1
            else:
                tomb = (
                    any_tombstone
                    and conn.execute(
                        "SELECT ver FROM dynabase_sync_tombstones WHERE tbl = ? AND pk = ? AND sk = ?",
                        (table.name, row.pk, row.sk),
                    ).fetchone()
                )
                known = _newest(_version_of(current), tomb[0] if tomb else None)
                if known is not None and version <= known and (version == known or not change.get("Resync")):
                    counts["Skipped"] += 1
                    continue
            if deleting:
                _write_quietly(engine, conn, table, row, current, None)
                _tombstone(conn, table, row, version, now + tombstone_seconds)
                any_tombstone = True
                counts["Deletes"] += 1
            else:
                # a change without "Delete" carries its "Item" (the two forms of the docstring); a change with
                # neither is outside that contract and not checked for here
                table.check_index_keys(item)  # type: ignore[arg-type]
                _write_quietly(engine, conn, table, row, current, item)
                if any_tombstone:
                    conn.execute(
                        "DELETE FROM dynabase_sync_tombstones WHERE tbl = ? AND pk = ? AND sk = ?",
                        (table.name, row.pk, row.sk),
                    )
            counts["Applied"] += 1
        for name, value in (state or {}).items():
            _put_state(conn, table.name, name, value)
    return counts


def _has_rows(conn: Any, sql_table: str, table_name: str) -> bool:
    return (
        conn.execute(f"SELECT 1 FROM {sql_table} WHERE tbl = ? LIMIT 1", (table_name,)).fetchone() is not None
    )


def _purge(engine: Engine, conn: Any, table: Table, key: dict) -> bool:
    """Delete an item (not captured) unless it has a pending change."""
    row = Row(table, key)
    if conn.execute(
        "SELECT 1 FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ?", (table.name, row.pk, row.sk)
    ).fetchone():
        return False
    current, _ = read_row(conn, table, row)
    if current is None:
        return False
    _write_quietly(engine, conn, table, row, current, None)
    return True


def _put_state(conn: Any, table_name: str, name: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM dynabase_sync_state WHERE tbl = ? AND name = ?", (table_name, name))
    else:
        conn.execute(
            "INSERT OR REPLACE INTO dynabase_sync_state (tbl, name, value) VALUES (?, ?, ?)",
            (table_name, name, str(value)),
        )


def get_sync_state(engine: Engine, table_name: str) -> dict[str, str]:
    with engine.storage.read() as conn:
        rows = conn.execute(
            "SELECT name, value FROM dynabase_sync_state WHERE tbl = ?", (table_name,)
        ).fetchall()
    return dict(rows)


def put_sync_state(engine: Engine, table_name: str, state: dict[str, str | None]) -> None:
    with engine.storage.write() as conn:
        for name, value in state.items():
            _put_state(conn, table_name, name, value)
