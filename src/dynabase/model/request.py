"""Running requests: a built request runs on the client (paging find/scan, retrying synced writes), or joins a
``transaction`` / ``batch`` collector, or is returned unexecuted (``execute=False``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..clock import DELETED_ATTR
from .base import ModelBase
from .errors import (
    ConditionFailedError,
    ModelDisabledError,
    OneTableArgError,
)
from .expression import Expression
from .paging import Page
from .syncmeta import after_failed_write, cloud_command

TRANSACT_OPS = {"delete": "Delete", "get": "Get", "put": "Put", "update": "Update", "check": "ConditionCheck"}
BATCH_OPS = {"delete": "DeleteRequest", "put": "PutRequest", "update": "PutRequest"}
CLIENT_METHODS = {
    "delete": "delete_item",
    "get": "get_item",
    "find": "query",
    "put": "put_item",
    "scan": "scan",
    "update": "update_item",
}
#: what each transaction item may carry (TransactWriteItems / TransactGetItems reject the rest)
_TRANSACT_KEYS = {
    "Put": (
        "TableName",
        "Item",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    ),
    "Update": (
        "TableName",
        "Key",
        "UpdateExpression",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    ),
    "Delete": (
        "TableName",
        "Key",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    ),
    "ConditionCheck": (
        "TableName",
        "Key",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    ),
    "Get": ("TableName", "Key", "ProjectionExpression", "ExpressionAttributeNames"),
}
SANITY_PAGES = 1000
FOLLOW_THREADS = 10


class RequestPath(ModelBase):
    """How a Model runs the request it built and returns its results."""

    def _refuse_device_write(self, op: str) -> None:
        """A device table does not write a model the cloud owns (``sync: down``): the next sync would undo it."""
        table = self.table
        if (
            table.side == "device"
            and op in ("put", "update", "delete")
            and self.name in table.sync_plan.guarded
        ):
            raise ModelDisabledError(
                f"Model \"{self.name}\" is written by the cloud only (process.{self.name}.sync is 'down'), and "
                "this table is the device side: the next sync would undo the write; write it on the cloud side",
                model=self.name,
            )

    def _run(self, op: str, expr: Expression) -> Any:
        p = expr.params
        cmd = expr.command()
        table = self.table
        wire = op  # the operation sent: a cloud-side remove of a synced model writes a tombstone
        synced = table.side == "cloud" and self.name in table.sync_plan.models
        self._refuse_device_write(op)
        if synced:
            had_condition = bool(cmd.get("ConditionExpression"))
            wire, cmd = cloud_command(
                table.sync_plan,
                self.name,
                op,
                cmd,
                expr.properties,
                p.get("exists"),
                in_transaction=p.get("transaction") is not None or p.get("batch") is not None,
            )
        if p.get("execute") is False:
            table.log(
                "info" if p.get("log") else "data",
                f'OneTable command for "{op}" "{self.name}" (not executed)',
                cmd=cmd,
            )
            return cmd
        transaction = p.get("transaction")
        if transaction is not None:
            if p.get("batch") is not None:
                raise OneTableArgError("Cannot have batched transactions")
            top = TRANSACT_OPS.get(wire)
            if top is None:
                raise OneTableArgError(f"Unknown transaction operation {op}")
            p["expression"] = expr
            allowed = _TRANSACT_KEYS[top]
            item: dict[str, Any] | None = {k: v for k, v in cmd.items() if k in allowed}
            transaction.setdefault("TransactItems", []).append({top: item})
            transaction.setdefault("_models", []).append(self.name)
            return self._transform_read(op, expr.properties, expr.properties, p)
        batch = p.get("batch")
        if batch is not None:
            p["expression"] = expr
            requests = batch.setdefault("RequestItems", {})
            if op == "get":
                entry = requests.setdefault(table.name, {"Keys": []})
                entry["Keys"].append(cmd["Keys"])
            else:
                bop = BATCH_OPS.get(wire)
                if bop is None:
                    raise OneTableArgError(f'Unsupported batch operation "{op}"')
                requests.setdefault(table.name, []).append({bop: cmd})
            return self._transform_read(op, expr.properties, expr.properties, p)

        method = CLIENT_METHODS[wire]
        stats = p.get("stats")
        if stats is not None:
            stats.setdefault("count", 0)
            stats.setdefault("scanned", 0)
            stats.setdefault("capacity", 0)
        raw: list[dict[str, Any]] = []
        count = 0
        pages = 0
        bumps = 0
        max_pages = p.get("max_pages") or SANITY_PAGES
        counting = bool(p.get("count")) or p.get("select") == "COUNT"
        progress = p.get("progress")
        while True:
            try:
                result = table.execute(self.name, op, method, cmd, p)
            except ConditionFailedError as error:
                verdict = after_failed_write(op, cmd, error, had_condition) if synced else "raise"
                if verdict == "none":
                    return None
                if verdict == "retry" and bumps < 10:  # another writer's clock is ahead: go above it
                    bumps += 1
                    continue
                raise
            if result is None:  # throw=False swallowed an error
                return Page() if op in ("find", "scan") else None
            last_key = result.get("LastEvaluatedKey")
            if last_key:
                cmd["ExclusiveStartKey"] = last_key
            if "Items" in result:
                raw.extend(result["Items"])
            elif "Item" in result:
                raw = [result["Item"]]
                break
            elif "Attributes" in result:
                raw = [result["Attributes"]]
                break
            if counting:
                count += result.get("Count", 0)
            if stats is not None:
                stats["count"] += result.get("Count", 0)
                stats["scanned"] += result.get("ScannedCount", 0)
                consumed = result.get("ConsumedCapacity")
                if consumed:
                    stats["capacity"] += consumed.get("CapacityUnits", 0)
            if callable(progress):
                progress({"items": raw, "pages": pages, "stats": stats, "params": p, "cmd": cmd})
            if raw and cmd.get("Limit"):
                cmd["Limit"] -= result.get("Count", 0)
                if cmd["Limit"] <= 0:
                    break
            pages += 1
            if not last_key or pages >= max_pages:
                break

        if synced:  # a tombstone is no item
            raw = [item for item in raw if DELETED_ATTR not in item]
        decoder = table.decoder
        if op not in ("find", "scan"):
            if op == "put":
                items = self._parse_response(op, expr, raw) if p.get("parse") else [expr.properties]
            elif p.get("parse") and self._fast_read_ok(p):
                items = self._read_raw_items(op, raw, p)
            elif p.get("parse"):
                items = self._parse_response(op, expr, decoder.decode_items(raw))
            else:
                items = decoder.decode_items(raw)
            item = items[0] if items else None
            if item is not None and self._follows(expr, p):
                if op == "get":
                    return self.get(item)
                if op == "update":
                    return self.update({**expr.properties, **item})
            return item

        prev = None
        index = expr.index
        if raw and (p.get("next") is not None or p.get("prev") is not None):
            first = raw[0]
            cursor = {}
            for att in (*index.keys, self.primary.hash, self.primary.sort):
                if att and att in first:
                    cursor[att] = first[att]
            prev = decoder.decode_item(cursor) if cursor else None
        following = op == "find" and self._follows(expr, p)
        if following:
            p["follow"] = True  # keep hidden key fields: the follow-up gets need them
        if p.get("parse") and self._fast_read_ok(p):
            items = self._read_raw_items(op, raw, p)
        elif p.get("parse"):
            items = self._parse_response(op, expr, decoder.decode_items(raw))
        else:
            items = decoder.decode_items(raw)
        page = Page(items)
        last_key = result.get("LastEvaluatedKey")
        if last_key:
            page.next = decoder.decode_item(last_key)
        if counting:
            page.count = count
        page.prev = prev
        if p.get("prev") is not None and p.get("next") is None and op != "scan":
            page.reverse()
            page.prev, page.next = page.next, page.prev
        table.log("info" if p.get("log") else "data", f'OneTable result for "{op}" "{self.name}"', items=page)

        if following:
            follow_params = {
                k: v
                for k, v in p.items()
                if k
                not in (
                    "follow",
                    "index",
                    "fallback",
                    "checked",
                    "limit",
                    "next",
                    "prev",
                    "where",
                    "expression",
                )
                and k not in ("count", "select", "fields", "reverse", "max_pages", "stats", "progress")
            }
            results = Page(
                self._follow_all(
                    [(self.table.model_for(it.get(self.type_field)) or self, it) for it in page],
                    follow_params,
                )
            )
            results.next, results.prev, results.count = page.next, page.prev, page.count
            return results
        return page

    def _follows(self, expr: Expression, p: Mapping[str, Any]) -> bool:
        follow = p.get("follow")
        return bool(follow) or (expr.index.follow and follow is not False and expr.index is not self.primary)

    def _follow_all(self, pairs: list[tuple[ModelBase, dict[str, Any]]], params: dict[str, Any]) -> list[Any]:
        if len(pairs) <= 1 or self.table.follow_workers <= 1:
            return [model.get(item, **params) for model, item in pairs]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(
            max_workers=min(FOLLOW_THREADS, self.table.follow_workers, len(pairs))
        ) as pool:
            return list(pool.map(lambda pair: pair[0].get(pair[1], **params), pairs))
