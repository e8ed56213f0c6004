"""Table extras: tags, point-in-time recovery settings, limits and endpoints.

DynamoDB Local does not implement tagging, continuous backups or DescribeEndpoints; these follow the service's
documented behaviour. Point-in-time recovery is a stored setting (the embedded engine keeps no restorable
history); deletion protection is honoured by DeleteTable in the catalog.
"""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any

from ..errors import AccessDeniedException, ResourceNotFoundException, ValidationException, error_class
from .schema import Table

if TYPE_CHECKING:
    from .engine import Engine

MAX_TAGS = 50
_ARN = re.compile(r"^arn:aws[a-zA-Z-]*:dynamodb:[^:]*:[^:]*:table/([^/]+)$")
TableNotFoundException = error_class("TableNotFoundException")
#: AWS answers AccessDeniedException naming the caller's principal, which an engine without identities does not
#: have; this text is the engine's own
_NOT_THIS_ACCOUNT = "Not authorized: the resource is not one of this account's DynamoDB tables"


def _table_of(engine: Engine, arn: Any) -> Table:
    """The table a tagging call's ``ResourceArn`` names, checked as AWS checks it: an ARN of another service or
    account is denied (before its region is looked at), one of another region or resource type is invalid, and
    a table this account does not have is not found."""
    parts = arn.split(":", 5) if isinstance(arn, str) and arn.startswith("arn:") else []
    if (len(parts) > 2 and parts[2] != "dynamodb") or (
        len(parts) == 6 and parts[4] != engine.catalog.account
    ):
        raise AccessDeniedException(f"{_NOT_THIS_ACCOUNT}: {arn}")
    match = _ARN.match(arn) if len(parts) == 6 and parts[3] == engine.catalog.region else None
    if match is None:
        raise ValidationException(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}")
    try:
        table = engine.catalog.get(match.group(1))
    except ResourceNotFoundException:
        table = None
    if table is None:
        raise ResourceNotFoundException(f"Requested resource not found: ResourcArn: {arn} not found")
    return table


def _save(engine: Engine, table: Table, desc: dict) -> None:
    with engine.storage.write() as conn:
        conn.execute(
            "UPDATE dynabase_tables SET description = ? WHERE name = ?", (json.dumps(desc), table.name)
        )
        engine.storage.bump_catalog_version()


def merge_tags(current: list[dict], tags: Any) -> list[dict]:
    """``current`` with ``tags`` set (a key given again takes its last value), checked as TagResource and
    CreateTable check them: no ``aws:`` keys, at most 50 tags on a table."""
    merged = {t["Key"]: t["Value"] for t in current}
    for position, tag in enumerate(tags or [], 1):
        if not isinstance(tag, dict):
            raise ValidationException(
                f"1 validation error detected: Value null at 'tags.{position}.member' failed to satisfy "
                "constraint: Member must not be null"
            )
        key, value = tag.get("Key"), tag.get("Value")
        if not isinstance(key, str) or not 1 <= len(key) <= 128 or key.startswith("aws:"):
            raise ValidationException("One or more parameter values were invalid: Invalid tag key")
        if not isinstance(value, str) or len(value) > 256:
            raise ValidationException("One or more parameter values were invalid: Invalid tag value")
        merged[key] = value
    if len(merged) > MAX_TAGS:
        raise ValidationException(
            "One or more parameter values were invalid: The number of tags exceeds the limit of 50"
        )
    return [{"Key": k, "Value": v} for k, v in merged.items()]


def tag_resource(engine: Engine, req: dict) -> dict:
    table = _table_of(engine, req.get("ResourceArn"))
    tags = merge_tags(table.description.get("_tags", []), req.get("Tags"))
    _save(engine, table, dict(table.description, _tags=tags))
    return {}


def untag_resource(engine: Engine, req: dict) -> dict:
    table = _table_of(engine, req.get("ResourceArn"))
    drop = set(req.get("TagKeys") or [])
    kept = [t for t in table.description.get("_tags", []) if t["Key"] not in drop]
    _save(engine, table, dict(table.description, _tags=kept))
    return {}


def list_tags_of_resource(engine: Engine, req: dict) -> dict:
    table = _table_of(engine, req.get("ResourceArn"))
    tags = table.description.get("_tags", [])
    return {"Tags": tags} if tags else {}


def describe_limits(engine: Engine, req: dict) -> dict:
    return {
        "AccountMaxReadCapacityUnits": 80000,
        "AccountMaxWriteCapacityUnits": 80000,
        "TableMaxReadCapacityUnits": 40000,
        "TableMaxWriteCapacityUnits": 40000,
    }


def describe_endpoints(engine: Engine, req: dict) -> dict:
    return {"Endpoints": [{"Address": engine.endpoint_address, "CachePeriodInMinutes": 1440}]}


def _table_or_not_found(engine: Engine, name: Any) -> Table:
    try:
        return engine.catalog.get(name)
    except ResourceNotFoundException:
        raise TableNotFoundException(f"Table not found: {name}")


def describe_continuous_backups(engine: Engine, req: dict) -> dict:
    table = _table_or_not_found(engine, req.get("TableName"))
    pitr = table.description.get("_pitr")
    description: dict[str, Any] = {"PointInTimeRecoveryStatus": "ENABLED" if pitr else "DISABLED"}
    if pitr:
        description.update(
            {
                "RecoveryPeriodInDays": pitr["days"],
                "EarliestRestorableDateTime": pitr["since"],
                "LatestRestorableDateTime": time.time(),
            }
        )
    return {
        "ContinuousBackupsDescription": {
            "ContinuousBackupsStatus": "ENABLED",
            "PointInTimeRecoveryDescription": description,
        }
    }


def update_continuous_backups(engine: Engine, req: dict) -> dict:
    table = _table_or_not_found(engine, req.get("TableName"))
    spec = req.get("PointInTimeRecoverySpecification") or {}
    enabled = spec.get("PointInTimeRecoveryEnabled")
    if not isinstance(enabled, bool):
        raise ValidationException(
            "1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' "
            "failed to satisfy constraint: Member must not be null"
        )
    days = spec.get("RecoveryPeriodInDays", 35)
    if not isinstance(days, int) or not 1 <= days <= 35:
        raise ValidationException("RecoveryPeriodInDays must be between 1 and 35")
    desc = dict(table.description)
    if enabled:
        desc["_pitr"] = {"days": days, "since": desc.get("_pitr", {}).get("since", time.time())}
    else:
        desc.pop("_pitr", None)
    _save(engine, table, desc)
    return describe_continuous_backups(engine, {"TableName": table.name})
