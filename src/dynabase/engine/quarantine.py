"""The quarantine of change capture: pending changes the cloud refused, set aside at their seq (later reads of
the change log skip them; a newer write of the key is a new change), listed with their reason, and released
to the next push or dropped by an explicit call (see docs/sync.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..types import validate_item
from .capture import _captured_table, _change
from .items import Row

if TYPE_CHECKING:
    from .engine import Engine


def quarantine_changes(engine: Engine, table_name: str, entries: list[dict]) -> dict:
    """Set pending changes aside (``{"Key", "Seq", "Reason"}``: the cloud refused them), while their seq is
    unchanged: later reads skip them; a newer write of the key is a new change. ``{"Quarantined": n}``."""
    table = _captured_table(engine, table_name)
    done = 0
    with engine.storage.write() as conn:
        at = int(engine.clock() * 1000)
        for entry in entries:
            row = Row(table, entry["Key"])
            done += conn.execute(
                "INSERT OR REPLACE INTO dynabase_sync_quarantine (tbl, pk, sk, seq, reason, at) "
                "SELECT tbl, pk, sk, seq, ?, ? FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ? AND seq = ?",
                (str(entry["Reason"]), at, table.name, row.pk, row.sk, entry["Seq"]),
            ).rowcount
            # the version it was pinned to never landed: a later write of the key need not go above it
            conn.execute(
                "UPDATE dynabase_changes SET ver = NULL WHERE tbl = ? AND pk = ? AND sk = ? AND seq = ?",
                (table.name, row.pk, row.sk, entry["Seq"]),
            )
    return {"Quarantined": done}


def list_quarantine(engine: Engine, table_name: str) -> dict:
    """The quarantined changes, oldest refusal first: each a :func:`read_changes` change with its ``Reason``
    and ``RefusedAt`` (epoch ms)."""
    table = _captured_table(engine, table_name)
    with engine.storage.read() as conn:
        rows = conn.execute(
            "SELECT c.key, c.seq, c.at, c.base, c.gone, c.fields, c.ver, q.reason, q.at FROM dynabase_changes c "
            "JOIN dynabase_sync_quarantine q ON q.tbl = c.tbl AND q.pk = c.pk AND q.sk = c.sk AND q.seq = c.seq "
            "WHERE c.tbl = ? ORDER BY q.at, c.seq",
            (table.name,),
        ).fetchall()
        changes = [{**_change(conn, table, *row[:7]), "Reason": row[7], "RefusedAt": row[8]} for row in rows]
    return {"Changes": changes}


def release_quarantine(engine: Engine, table_name: str, keys: list[dict] | None, drop: bool) -> dict:
    """Take changes out of the quarantine (``keys``; None: all): pushed again by the next sync, or, with
    ``drop``, never pushed (the device keeps its item as it is). ``{"Released": n}``."""
    table = _captured_table(engine, table_name)
    done = 0
    with engine.storage.write() as conn:
        if keys is None:
            found = conn.execute(
                "SELECT pk, sk, seq FROM dynabase_sync_quarantine WHERE tbl = ?", (table.name,)
            ).fetchall()
        else:
            found = []
            for key in keys:
                row = Row(table, validate_item(key))
                found += conn.execute(
                    "SELECT pk, sk, seq FROM dynabase_sync_quarantine WHERE tbl = ? AND pk = ? AND sk = ?",
                    (table.name, row.pk, row.sk),
                ).fetchall()
        for pk, sk, seq in found:
            conn.execute(
                "DELETE FROM dynabase_sync_quarantine WHERE tbl = ? AND pk = ? AND sk = ?",
                (table.name, pk, sk),
            )
            if drop:
                done += conn.execute(
                    "DELETE FROM dynabase_changes WHERE tbl = ? AND pk = ? AND sk = ? AND seq = ?",
                    (table.name, pk, sk, seq),
                ).rowcount
            else:
                done += 1
    return {"Released": done}
