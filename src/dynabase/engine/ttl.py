"""Time to live: UpdateTimeToLive / DescribeTimeToLive and the sweeper that deletes expired items.

As in DynamoDB, an expired item stays readable until the sweeper deletes it. The sweeper deletes as the
service principal: stream records of those deletes carry the ``userIdentity``
``{"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}``. Items whose TTL attribute is not a number, or
lies more than five years in the past, are never deleted (DynamoDB ignores them too).
"""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..errors import ValidationException
from .items import Row, write_row
from .schema import check_key_name
from .storage import item_sql
from .streams import SERVICE_IDENTITY

if TYPE_CHECKING:
    from .engine import Engine

FIVE_YEARS = 5 * 365 * 24 * 3600
_BATCH = 500


def describe_time_to_live(engine: Engine, req: dict) -> dict:
    table = engine.catalog.get(req.get("TableName"))
    ttl = table.description.get("_ttl")
    if not ttl:
        return {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}
    return {"TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED", "AttributeName": ttl}}


def update_time_to_live(engine: Engine, req: dict) -> dict:
    table = engine.catalog.get(req.get("TableName"))
    spec = req.get("TimeToLiveSpecification") or {}
    enabled, name = spec.get("Enabled"), spec.get("AttributeName")
    if not isinstance(name, str) or not name:
        raise ValidationException(
            "1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy "
            "constraint: Member must not be null"
        )
    current = table.description.get("_ttl")
    if enabled:
        check_key_name(name)
    if enabled:
        if current == name:
            raise ValidationException("TimeToLive is already enabled")
        if current:
            raise ValidationException("TimeToLive is active on a different AttributeName")
    else:
        if not current:
            raise ValidationException("TimeToLive is already disabled")
        if current != name:
            raise ValidationException("TimeToLive is active on a different AttributeName")
    desc = dict(table.description)
    if enabled:
        desc["_ttl"] = name
    else:
        desc.pop("_ttl", None)
    with engine.storage.write() as conn:
        conn.execute(
            "UPDATE dynabase_tables SET description = ? WHERE name = ?", (json.dumps(desc), table.name)
        )
        engine.storage.bump_catalog_version()
    engine.ensure_sweeper()
    return {"TimeToLiveSpecification": {"Enabled": bool(enabled), "AttributeName": name}}


def expired(item: dict, attribute: str, now: float) -> bool:
    value = item.get(attribute)
    if value is None or "N" not in value:
        return False
    when = Decimal(value["N"])
    return now - FIVE_YEARS <= when <= now


def sweep(engine: Engine, now: float | None = None) -> int:
    """Delete every expired item of every table with TTL enabled; return how many were deleted."""
    now = time.time() if now is None else now
    deleted = 0
    for name in engine.catalog.names():
        try:
            table = engine.catalog.get(name)
        except Exception:
            continue  # dropped meanwhile
        attribute = table.description.get("_ttl")
        if not attribute:
            continue
        last = None
        while True:
            with engine.storage.lock:
                sql = f"SELECT h, pk, sk, {item_sql(table.sql)}, bin FROM {table.sql}"
                args: tuple = ()
                if last is not None:
                    sql += " WHERE (h, pk, sk) > (?, ?, ?)"
                    args = last
                rows = engine.storage.conn.execute(
                    sql + " ORDER BY h, pk, sk LIMIT ?", (*args, _BATCH)
                ).fetchall()
            if not rows:
                break
            last = rows[-1][:3]
            victims = [table.load_row(text, binary, pk, sk) for _, pk, sk, text, binary in rows]
            victims = [item for item in victims if expired(item, attribute, now)]
            if victims:
                deleted += _delete(engine, table, attribute, victims, now)
    return deleted


def _delete(engine: Engine, table: Any, attribute: str, victims: list[dict], now: float) -> int:
    count = 0
    with engine.storage.write() as conn:
        for item in victims:
            row = Row(table, table.key_of(item))
            found = conn.execute(
                f"SELECT {item_sql(table.sql)}, bin FROM {table.sql} WHERE h = ? AND pk = ? AND sk = ?",
                (row.h, row.pk, row.sk),
            ).fetchone()
            if found is None:
                continue
            current = table.load_row(*found, row.pk, row.sk)
            if not expired(current, attribute, now):
                continue  # rewritten since it was read
            write_row(engine, conn, table, row, current, None, identity=SERVICE_IDENTITY)
            count += 1
    return count


class Sweeper:
    """A daemon thread that runs :func:`sweep` every ``interval`` seconds."""

    def __init__(self, engine: Engine, interval: float) -> None:
        self.engine = engine
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dynabase-ttl", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                sweep(self.engine)
            except Exception:  # a closed database at shutdown, or a transient lock: try again next round
                if self._stop.is_set():
                    return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
