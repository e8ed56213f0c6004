"""The control plane: CreateTable, DescribeTable, UpdateTable, DeleteTable, ListTables, and the table cache."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, cast

from ..errors import (
    LimitExceededException,
    ResourceInUseException,
    ResourceNotFoundException,
    ValidationException,
)
from .definitions import check_definitions
from .extras import merge_tags
from .schema import Index, KeySchema, Table, check_key_name, index_key_fits
from .storage import Storage, create_item_table, drop_item_table, item_sql, partition_hash

_NAME = re.compile(r"^[a-zA-Z0-9_.\-]{3,255}$")
_BAD_NAME = (
    "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain "
    "only the characters a-z, A-Z, 0-9, '_', '-', and '.'"
)
#: a missing table, as DynamoDB Local words it (data-plane calls answer AWS's words: see ``Engine.call``)
TABLE_NOT_FOUND = "Cannot do operations on a non-existent table"
MAX_GSI = 20
MAX_LSI = 5
MAX_KEY_ATTRIBUTES = 4  # partition (and sort) attributes of a GSI's multi-attribute key
MAX_PROJECTED = 20  # DynamoDB Local's limit (the service allows 100)
_MILLISECOND = timedelta(milliseconds=1)
_EPOCH_THROUGHPUT = {"LastIncreaseDateTime": 0.0, "LastDecreaseDateTime": 0.0, "NumberOfDecreasesToday": 0}


class CatalogChanged(Exception):
    """The cached catalog is stale: another connection changed it. The engine reloads it and retries."""


class Catalog:
    """Tables by name, cached per connection and reloaded when another connection changes the catalog."""

    def __init__(self, storage: Storage, region: str = "us-east-1", account: str = "000000000000") -> None:
        self.storage = storage
        self.region = region
        self.account = account
        self._tables: dict[str, Table] = {}
        self._version = -1

    # -- lookups -------------------------------------------------------------------------------------------

    def get(self, name: Any, *, fresh: bool = True) -> Table:
        """A table by name. ``fresh=False`` trusts the cache without asking SQLite whether another connection
        changed the catalog: the caller then checks ``table.version`` itself (see ``items.read_row``)."""
        if not fresh and type(name) is str:
            table = self._tables.get(name)
            if table is not None:  # a cached table's name was checked when it was first asked for
                return table
        check_table_name(name)
        with self.storage.lock:  # the connection is shared: no other thread's statement may run in between
            if fresh or self._version < 0:
                self._sync(self.storage.catalog_version())
            table = self._tables.get(name)
            if table is None:
                table = self._load(name)
        return table

    def _load(self, name: str) -> Table:
        """Read a table into the cache (under the storage lock), tagged with the catalog version it was read at:
        one statement reads both, so the two agree even while another connection changes the catalog."""
        version, table_id, description = self.storage.conn.execute(
            "SELECT v.user_version, t.id, t.description FROM pragma_user_version AS v "
            "LEFT JOIN dynabase_tables AS t ON t.name = ?",
            (name,),
        ).fetchone()
        self._sync(version)
        if table_id is None:
            raise ResourceNotFoundException(TABLE_NOT_FOUND)
        table = table_from_description(table_id, json.loads(description))
        table.version = version
        self._tables[name] = table
        return table

    def _sync(self, version: int) -> None:
        """Drop cached tables when another connection (or process) changed the catalog since they were read: the
        cache holds tables read at catalog ``version`` (call under the storage lock)."""
        if version != self._version:
            self._tables.clear()
            self._version = version

    def forget(self) -> None:
        with self.storage.lock:
            self._tables.clear()
            self._version = -1

    def names(self) -> list[str]:
        with self.storage.lock:
            rows = self.storage.conn.execute("SELECT name FROM dynabase_tables").fetchall()
        return sorted((r[0] for r in rows), key=lambda n: n.encode("utf-8"))

    def arn(self, name: str) -> str:
        return f"arn:aws:dynamodb:{self.region}:{self.account}:table/{name}"

    # -- CreateTable ---------------------------------------------------------------------------------------

    def create_table(self, req: dict) -> dict:
        name = check_table_name(req.get("TableName"))
        if not req.get(
            "KeySchema"
        ):  # Local's words and order: the key schema before the attribute definitions
            raise ValidationException(
                "No defined key schema.  A key schema containing at least a hash key must be defined for all tables"
            )
        check_definitions(req)  # AWS's checks of the keys and indexes, in its order (then the engine's own)
        attr_types = _attribute_definitions(req.get("AttributeDefinitions"))
        keys = _key_schema(req.get("KeySchema"), attr_types, table_keys=None)
        billing = req.get("BillingMode") or "PROVISIONED"
        if billing not in ("PROVISIONED", "PAY_PER_REQUEST"):
            raise ValidationException("Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]")
        now = time.time()
        desc: dict[str, Any] = {
            "AttributeDefinitions": req["AttributeDefinitions"],
            "TableName": name,
            "KeySchema": _key_schema_list(keys),
            "TableStatus": "ACTIVE",
            "CreationDateTime": now,
            "ProvisionedThroughput": _throughput(req.get("ProvisionedThroughput"), billing, "table"),
            "TableArn": self.arn(name),
            "TableId": str(uuid.uuid4()),
        }
        if billing == "PAY_PER_REQUEST":
            desc["BillingModeSummary"] = {
                "BillingMode": "PAY_PER_REQUEST",
                "LastUpdateToPayPerRequestDateTime": now,
            }
        used = set(keys.names)
        lsis = req.get("LocalSecondaryIndexes")
        gsis = req.get("GlobalSecondaryIndexes")
        seen: set[str] = set()
        if lsis is not None:
            if not keys.range_name:
                raise ValidationException(
                    "Local Secondary indices are not allowed on hash tables, only hash and range tables"
                )
            if not lsis:
                raise ValidationException(
                    "One or more parameter values were invalid: List of LocalSecondaryIndexes is empty"
                )
            if len(lsis) > MAX_LSI:
                raise ValidationException("Cannot have more than 5 local secondary indexes per table")
            desc["LocalSecondaryIndexes"] = []
            for spec in lsis:
                lsi_keys = (spec or {}).get("KeySchema") or []
                _key_schema_shape(lsi_keys)  # before the LSI's own rules, as Local orders them
                if len(lsi_keys) < 2:
                    raise ValidationException("Local secondary indices must have a range key")
                _check_key_elements(lsi_keys)
                if len(lsi_keys) == 2 and lsi_keys[1].get("AttributeName") not in attr_types:
                    raise ValidationException(
                        "Local Secondary Index range key not specified in Attribute Definitions.Type unknown."
                    )
                described = _index_description(spec, attr_types, keys, "LSI", billing, seen)
                if described["KeySchema"][0]["AttributeName"] != keys.hash_name:
                    raise ValidationException(
                        "Local Secondary indices must have the same hash key as the main table"
                    )
                used.update(k["AttributeName"] for k in described["KeySchema"])
                desc["LocalSecondaryIndexes"].append(described)
        if gsis is not None:
            if not gsis:
                raise ValidationException(
                    "One or more parameter values were invalid: List of GlobalSecondaryIndexes is empty"
                )
            if len(gsis) > MAX_GSI:
                raise ValidationException("GlobalSecondaryIndex count exceeds the per-table limit")
            desc["GlobalSecondaryIndexes"] = []
            for spec in _members(gsis, "globalSecondaryIndexes"):
                described = _index_description(spec, attr_types, keys, "GSI", billing, seen)
                used.update(k["AttributeName"] for k in described["KeySchema"])
                desc["GlobalSecondaryIndexes"].append(described)
        if set(attr_types) != used:
            raise ValidationException(
                "The number of attributes in key schema must match the number of attributes defined in attribute definitions."
            )
        projected = sum(
            len(i["Projection"].get("NonKeyAttributes", []))
            for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes")
            for i in desc.get(kind, [])
        )
        if projected > MAX_PROJECTED:
            raise ValidationException(
                "No more than 20 attributes per table can be projected into Local Secondary Indices"
            )
        _apply_stream_spec(desc, req.get("StreamSpecification"), self.arn(name), creating=True)
        if req.get("DeletionProtectionEnabled") is not None:
            desc["DeletionProtectionEnabled"] = bool(req["DeletionProtectionEnabled"])
        else:
            desc["DeletionProtectionEnabled"] = False
        if req.get("SSESpecification") and req["SSESpecification"].get("Enabled"):
            desc["SSEDescription"] = {
                "Status": "ENABLED",
                "SSEType": req["SSESpecification"].get("SSEType", "KMS"),
            }
        if req.get("TableClass"):
            desc["TableClassSummary"] = {"TableClass": req["TableClass"]}
        if req.get("Tags"):
            desc["_tags"] = merge_tags([], req["Tags"])
        with self.storage.write() as conn:
            if conn.execute("SELECT 1 FROM dynabase_tables WHERE name = ?", (name,)).fetchone():
                raise ResourceInUseException("Cannot create preexisting table")
            # ids only grow (past every catalog version, which each change bumps), so an id is never reused
            # and a connection holding a deleted table's id cannot read another table through it
            table_id = conn.execute(
                "SELECT max((SELECT coalesce(max(id), 0) FROM dynabase_tables), (SELECT user_version FROM pragma_user_version)) + 1"
            ).fetchone()[0]
            table = table_from_description(table_id, desc)
            create_item_table(conn, table.sql)
            for index in table.indexes.values():
                _create_index_table(conn, index)
            conn.execute(
                "INSERT INTO dynabase_tables (name, id, description) VALUES (?, ?, ?)",
                (name, table_id, json.dumps(desc)),
            )
            self.storage.bump_catalog_version()
            self.on_table_changed(conn, name, desc)
            return {"TableDescription": self.describe(table, creating=True)}

    # -- DescribeTable / ListTables / DeleteTable ----------------------------------------------------------

    def describe_table(self, req: dict) -> dict:
        with self.storage.read():  # the table and its counts from one snapshot
            return {"Table": self.describe(self.get(req.get("TableName")))}

    def describe(self, table: Table, creating: bool = False) -> dict:
        """The table's description with its item counts and sizes (call inside a read or write transaction)."""
        desc = {k: v for k, v in table.description.items() if not k.startswith("_")}
        conn = self.storage.conn
        # the items table alone: one row per item, without the view's join to the keys
        count, size = conn.execute(
            f'SELECT count(*), coalesce(sum(size), 0) FROM "{table.sql} items"'
        ).fetchone()
        desc["TableSizeBytes"] = size
        desc["ItemCount"] = count
        for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
            if kind not in desc:
                continue
            described = []
            for spec in desc[kind]:
                spec = dict(spec)
                index = table.indexes[spec["IndexName"]]
                icount, isize = conn.execute(
                    f"SELECT count(*), coalesce(sum(t.size), 0) FROM {index.sql} i JOIN {table.sql} t "
                    "ON t.h = i.h AND t.pk = i.pk AND t.sk = i.sk"
                ).fetchone()
                spec["IndexSizeBytes"] = isize
                spec["ItemCount"] = icount
                spec["IndexArn"] = f"{self.arn(table.name)}/index/{index.name}"
                described.append(spec)
            desc[kind] = described
        # keep DynamoDB Local's key order: counts come after ProvisionedThroughput
        order = [
            "AttributeDefinitions",
            "TableName",
            "KeySchema",
            "TableStatus",
            "CreationDateTime",
            "ProvisionedThroughput",
            "TableSizeBytes",
            "ItemCount",
            "TableArn",
            "TableId",
        ]
        return {
            **{k: desc[k] for k in order if k in desc},
            **{k: v for k, v in desc.items() if k not in order},
        }

    def list_tables(self, req: dict) -> dict:
        limit = req.get("Limit")
        if limit is not None and not (isinstance(limit, int) and 1 <= limit <= 100):
            raise ValidationException("Limit in ListTables must be <= 100")
        limit = limit or 100
        names = self.names()
        start = req.get("ExclusiveStartTableName")
        if start is not None:
            names = [n for n in names if n.encode("utf-8") > start.encode("utf-8")]
        out: dict[str, Any] = {"TableNames": names[:limit]}
        if len(names) > limit:
            out["LastEvaluatedTableName"] = names[limit - 1]
        return out

    def delete_table(self, req: dict) -> dict:
        # the table is looked up inside the write transaction: a table deleted (and created again under the same
        # name) by another thread or process after an earlier look-up is never half-deleted by this one
        with self.storage.write() as conn:
            table = self.get(req.get("TableName"))
            if table.description.get("DeletionProtectionEnabled"):
                raise ValidationException(
                    "Resource cannot be deleted as it is currently protected against deletion. Disable deletion "
                    "protection first."
                )
            description = self.describe(table)
            description["TableStatus"] = "DELETING"
            for index in table.indexes.values():
                conn.execute(f"DROP TABLE IF EXISTS {index.sql}")
            drop_item_table(conn, table.sql)
            conn.execute("DELETE FROM dynabase_tables WHERE name = ?", (table.name,))
            self.storage.bump_catalog_version()
            self.on_table_changed(conn, table.name, {})
        return {"TableDescription": description}

    def on_table_changed(self, conn: Any, table_name: str, desc: dict[str, Any]) -> None:
        """Hook, inside the DDL transaction, for parts of the engine that follow table settings (streams)."""

    # -- UpdateTable ---------------------------------------------------------------------------------------

    def update_table(self, req: dict) -> dict:
        # one write transaction from look-up to write: a concurrent UpdateTable's change is never overwritten
        with self.storage.write():
            return self._update_table(self.get(req.get("TableName")), req)

    def _update_table(self, table: Table, req: dict) -> dict:
        desc = json.loads(json.dumps(table.description))
        attr_types = dict(table.attribute_types)
        if req.get("AttributeDefinitions") is not None:
            for name, typ in _attribute_definitions(req["AttributeDefinitions"]).items():
                if attr_types.get(name, typ) != typ:
                    # DynamoDB Local's words: AWS's answer to a new index's key redefining an attribute's type
                    # could not be established (and paritysuite/dynamodb-conformance#78 reports the service
                    # accepting a table key attribute restated with another type, keeping the first)
                    raise ValidationException(
                        "invalid attribute, SchemaElement redefined should be of same type as previously defined"
                    )
                attr_types[name] = typ
        changed = False
        billing = req.get("BillingMode")
        current_billing = desc.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED")
        now = time.time()
        _check_billing_update(billing, current_billing, req.get("ProvisionedThroughput"), desc)
        if billing == current_billing == "PAY_PER_REQUEST":
            changed = True  # AWS accepts restating on-demand billing as a no-op
        elif billing and billing != current_billing:
            changed = True
            if billing == "PAY_PER_REQUEST":
                desc["BillingModeSummary"] = {
                    "BillingMode": billing,
                    "LastUpdateToPayPerRequestDateTime": now,
                }
                desc["ProvisionedThroughput"] = _throughput(None, billing, "table")
                for gsi in desc.get("GlobalSecondaryIndexes", []):
                    gsi["ProvisionedThroughput"] = _throughput(None, billing, "index")
            else:
                desc["BillingModeSummary"] = {
                    "BillingMode": billing,
                    "LastUpdateToPayPerRequestDateTime": now,
                }
                desc["ProvisionedThroughput"] = _throughput(
                    req.get("ProvisionedThroughput"), billing, "table"
                )
                current_billing = billing
        elif req.get("ProvisionedThroughput") is not None:
            if current_billing == "PAY_PER_REQUEST":
                raise ValidationException(
                    "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can "
                    "be specified when BillingMode is PAY_PER_REQUEST"
                )
            changed = True
            desc["ProvisionedThroughput"] = _throughput(req["ProvisionedThroughput"], "PROVISIONED", "table")
        if req.get("StreamSpecification") is not None:
            changed = True
            _apply_stream_spec(desc, req["StreamSpecification"], self.arn(table.name), creating=False)
        if req.get("DeletionProtectionEnabled") is not None:
            changed = True
            desc["DeletionProtectionEnabled"] = bool(req["DeletionProtectionEnabled"])
        if req.get("TableClass"):
            changed = True
            desc["TableClassSummary"] = {"TableClass": req["TableClass"]}
        created: list[str] = []
        deleted: list[Index] = []
        updates = _index_updates(req.get("GlobalSecondaryIndexUpdates") or [])
        if len(updates) > 1 and any("Create" in u or "Delete" in u for u in updates):
            if len({_update_index_name(u) for u in updates}) < len(updates):
                raise ValidationException(
                    "One or more parameter values were invalid: Only one global secondary index update per index is "
                    "allowed simultaneously"
                )
            raise LimitExceededException(  # a quota, not a bad parameter: AWS and Local answer LimitExceeded
                "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
            )
        for update in updates:
            changed = True
            if "Create" in update:
                spec = update["Create"]
                names = {i["IndexName"] for i in desc.get("GlobalSecondaryIndexes", [])}
                names |= {i["IndexName"] for i in desc.get("LocalSecondaryIndexes", [])}
                if spec.get("IndexName") in names:
                    raise ValidationException("Attempting to create an index which already exists")
                if req.get("AttributeDefinitions") is None:
                    raise ValidationException("No Attribute Schema Defined")
                if len(desc.get("GlobalSecondaryIndexes", [])) >= MAX_GSI:
                    raise LimitExceededException(
                        "Subscriber limit exceeded: Number of GlobalSecondaryIndexes exceeds per-table limit of 20"
                    )
                for k in spec.get("KeySchema") or []:
                    if k.get("AttributeName") not in attr_types:
                        raise ValidationException(
                            "One or more parameter values were invalid: Global Secondary Index hash key not specified in Attribute Definitions."
                            if k.get("KeyType") == "HASH"
                            else "One or more parameter values were invalid: Global Secondary Index range key not specified in Attribute Definitions."
                        )
                described = _index_description(spec, attr_types, table.keys, "GSI", current_billing, set())
                desc.setdefault("GlobalSecondaryIndexes", []).append(described)
                created.append(described["IndexName"])
            elif "Delete" in update:
                iname = update["Delete"].get("IndexName")
                gsis = desc.get("GlobalSecondaryIndexes", [])
                if not any(g["IndexName"] == iname for g in gsis):
                    raise ResourceNotFoundException("Requested resource not found")
                desc["GlobalSecondaryIndexes"] = [g for g in gsis if g["IndexName"] != iname]
                if not desc["GlobalSecondaryIndexes"]:
                    del desc["GlobalSecondaryIndexes"]
                deleted.append(table.indexes[iname])
            elif "Update" in update:
                spec = update["Update"]
                iname = spec.get("IndexName")
                for gsi in desc.get("GlobalSecondaryIndexes", []):
                    if gsi["IndexName"] == iname:
                        if "ProvisionedThroughput" in spec:
                            gsi["ProvisionedThroughput"] = _throughput(
                                spec["ProvisionedThroughput"], current_billing, "index"
                            )
                        break
                else:
                    raise ResourceNotFoundException(f"Requested resource not found: Index: {iname} not found")
        if not changed:
            raise ValidationException("Nothing to update")
        used = set(table.keys.names)
        for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
            for i in desc.get(kind, []):
                used.update(k["AttributeName"] for k in i["KeySchema"])
        desc["AttributeDefinitions"] = [
            {"AttributeName": n, "AttributeType": t} for n, t in attr_types.items() if n in used
        ]
        with self.storage.write() as conn:
            new_table = table_from_description(table.id, desc)
            for index in deleted:
                conn.execute(f"DROP TABLE IF EXISTS {index.sql}")
            for iname in created:
                index = new_table.indexes[iname]
                _create_index_table(conn, index)
                _backfill(conn, new_table, index)
            conn.execute(
                "UPDATE dynabase_tables SET description = ? WHERE name = ?", (json.dumps(desc), table.name)
            )
            self.storage.bump_catalog_version()
            self.on_table_changed(conn, table.name, desc)
        description = self.describe(new_table)
        if deleted:  # the response still shows the dropped indexes, on their way out
            gone = [
                dict(g, IndexStatus="DELETING")
                for g in table.description.get("GlobalSecondaryIndexes", [])
                if g["IndexName"] in {i.name for i in deleted}
            ]
            description["GlobalSecondaryIndexes"] = description.get("GlobalSecondaryIndexes", []) + gone
        return {"TableDescription": description}


def _check_key_elements(schema: list) -> None:
    if not all(isinstance(k, dict) for k in schema):
        raise ValidationException("Key schema element is invalid.")  # DynamoDB Local's words for a null


def _members(values: list, path: str) -> list[dict]:
    """The structures of a list member; a null (or non-structure) element is refused as the service's
    validator refuses it (``path`` is the member's wire name, lower camel case)."""
    for position, value in enumerate(values, 1):
        if not isinstance(value, dict):
            raise ValidationException(
                f"1 validation error detected: Value null at '{path}.{position}.member' failed to satisfy "
                "constraint: Member must not be null"
            )
    return values


def _index_updates(updates: list) -> list[dict]:
    """GlobalSecondaryIndexUpdates with their null actions dropped, each left with an action (as Local)."""
    kept = []
    for update in _members(updates, "globalSecondaryIndexUpdates"):
        update = {action: spec for action, spec in update.items() if spec is not None}
        if not any(isinstance(update.get(action), dict) for action in ("Create", "Update", "Delete")):
            raise ValidationException("Update global secondary index action is null")
        kept.append(update)
    return kept


def _update_index_name(update: dict) -> str:
    for action in update.values():
        return action.get("IndexName", "")
    return ""


# -- helpers -------------------------------------------------------------------------------------------------


def check_table_name(name: Any) -> str:
    """``name`` if it is a valid table or index name, else DynamoDB's ValidationException."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValidationException(_BAD_NAME)
    return name


def _attribute_definitions(defs: Any) -> dict[str, str]:
    if not defs:
        raise ValidationException("No Attribute Schema Defined")
    out: dict[str, str] = {}
    for d in _members(defs, "attributeDefinitions"):
        name, typ = d.get("AttributeName"), d.get("AttributeType")
        if typ not in ("S", "N", "B"):
            raise ValidationException("Member must satisfy enum value set: [B, N, S]")
        if name in out:
            raise ValidationException("Cannot have two attributes with the same name")
        # a str: Engine.call validated the request's shape first (validation.before refuses a null name)
        out[cast(str, name)] = typ
    return out


def _key_schema(
    schema: Any,
    attr_types: dict[str, str],
    table_keys: KeySchema | None,
    index: bool = False,
    multi: bool = False,
) -> KeySchema:
    """A KeySchema checked as DynamoDB Local checks it; ``multi``: a GSI's, which may name up to 4 partition and
    4 sort attributes (multi-attribute keys)."""
    schema = _key_schema_shape(schema, multi)
    types = [k.get("KeyType") for k in schema]
    names = [k.get("AttributeName") for k in schema]
    for position, name in enumerate(names):
        if name not in attr_types:
            if index:
                raise ValidationException(f"Attribute {name} is not defined in AttributeDefinitions")
            raise ValidationException(
                "Range Key not specified in Attribute Definitions.  Type unknown."
                if position
                else "Hash Key not specified in Attribute Definitions.  Type unknown."
            )
    for name in names:
        check_key_name(name)
    hashes = types.count("HASH")
    return key_schema_of(names[:hashes], names[hashes:], attr_types)


def _key_schema_shape(schema: Any, multi: bool = False) -> list:
    """A KeySchema's own checks, before its attributes are looked up in the definitions (as DynamoDB Local
    makes them: its size, its elements, a name given twice, then the key types and their order)."""
    schema = schema or []
    if not schema:
        raise ValidationException(
            "No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key"
        )
    if len(schema) > (2 * MAX_KEY_ATTRIBUTES if multi else 2):
        raise ValidationException(
            "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table"
        )
    _check_key_elements(schema)
    names = [k.get("AttributeName") for k in schema]
    if len(set(names)) != len(names):
        raise ValidationException("Two keys can not have the same name")
    types = [k.get("KeyType") for k in schema]
    if multi:
        if types.count("HASH") > MAX_KEY_ATTRIBUTES:
            raise ValidationException(
                f"Too many partition keys. GSI can have at most {MAX_KEY_ATTRIBUTES} partition keys"
            )
        if types.count("RANGE") > MAX_KEY_ATTRIBUTES:
            raise ValidationException(
                f"Too many sort keys. GSI can have at most {MAX_KEY_ATTRIBUTES} sort keys"
            )
    else:
        if types.count("HASH") > 1:
            raise ValidationException(
                "Too many hash keys specified.  All Dynamo DB tables must have exactly one hash key"
            )
        if types.count("RANGE") > 1:
            raise ValidationException(
                "Too many range keys specified.  All Dynamo DB tables must have exactly one range key"
            )
    hashes = types.count("HASH")
    if types[0] != "HASH" or any(t != "HASH" for t in types[:hashes]):
        if "HASH" not in types:
            raise ValidationException(
                "No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key"
            )
        raise ValidationException(
            "Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second"
        )
    return schema


def key_schema_of(hash_names: list[str], range_names: list[str], attr_types: dict[str, str]) -> KeySchema:
    """The KeySchema of partition and sort attribute names (their types from ``attr_types``)."""
    return KeySchema(
        hash_names[0],
        attr_types[hash_names[0]],
        range_names[0] if range_names else None,
        attr_types[range_names[0]] if range_names else None,
        tuple((n, attr_types[n]) for n in hash_names[1:]),
        tuple((n, attr_types[n]) for n in range_names[1:]),
    )


def _key_schema_list(keys: KeySchema) -> list[dict]:
    return [{"AttributeName": n, "KeyType": "HASH"} for n, _ in keys.hash_attrs] + [
        {"AttributeName": n, "KeyType": "RANGE"} for n, _ in keys.range_attrs
    ]


def _check_billing_update(billing: Any, current: str, throughput: Any, desc: dict) -> None:
    """AWS's rules for UpdateTable's billing (DynamoDB Local accepts both requests refused here)."""
    if billing == "PAY_PER_REQUEST" and throughput is not None:
        raise ValidationException(
            "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be "
            "specified when BillingMode is PAY_PER_REQUEST"
        )
    if current == "PROVISIONED" and billing in (None, "PROVISIONED") and isinstance(throughput, dict):
        now = desc.get("ProvisionedThroughput", {})
        rcu, wcu = throughput.get("ReadCapacityUnits"), throughput.get("WriteCapacityUnits")
        if (rcu, wcu) == (now.get("ReadCapacityUnits"), now.get("WriteCapacityUnits")):
            raise ValidationException(
                "The provisioned throughput for the table will not change. The requested value equals the current "
                f"value. Current ReadCapacityUnits provisioned for the table: {now['ReadCapacityUnits']}. Requested "
                f"ReadCapacityUnits: {rcu}. Current WriteCapacityUnits provisioned for the table: "
                f"{now['WriteCapacityUnits']}. Requested WriteCapacityUnits: {wcu}. Refer to the Amazon DynamoDB "
                "Developer Guide for current limits and how to request higher limits."
            )


def _throughput(spec: Any, billing: str, what: str) -> dict:
    if billing == "PAY_PER_REQUEST":
        if spec:
            # DynamoDB Local accepts and ignores throughput with on-demand billing
            pass
        return {**_EPOCH_THROUGHPUT, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    if not spec:
        if what == "table":
            raise ValidationException("No provisioned throughput specified for the table")
        raise ValidationException("No provisioned throughput specified for the global secondary index")
    rcu, wcu = spec.get("ReadCapacityUnits"), spec.get("WriteCapacityUnits")
    for value in (rcu, wcu):
        if not isinstance(value, int) or value < 1:
            raise ValidationException(
                "One or more parameter values were invalid: Provisioned throughput must be greater than zero"
            )
    return {**_EPOCH_THROUGHPUT, "ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}


def _index_description(
    spec: dict, attr_types: dict, table_keys: KeySchema, kind: str, billing: str, seen: set[str]
) -> dict:
    name = check_table_name(spec.get("IndexName"))
    if name in seen:
        if kind == "GSI" and "\0lsi:" + name in seen:
            raise ValidationException(
                "Local Secondary Indices AND Global Secondary Indices must have different names"
            )
        raise ValidationException(
            "Two local secondary indices have the same name"
            if kind == "LSI"
            else "Two global secondary indices have the same name"
        )
    seen.add(name)
    if kind == "LSI":
        seen.add("\0lsi:" + name)
    keys = _key_schema(spec.get("KeySchema"), attr_types, table_keys, index=True, multi=kind == "GSI")
    projection = spec.get("Projection") or {}
    ptype = projection.get("ProjectionType")
    non_key = projection.get("NonKeyAttributes")
    if ptype is None:
        raise ValidationException("Indexes must have a projection specified")
    if ptype not in ("ALL", "KEYS_ONLY", "INCLUDE"):
        raise ValidationException(
            f"1 validation error detected: Value '{ptype}' at 'projection.projectionType' failed to satisfy "
            "constraint: Member must satisfy enum value set: [ALL, KEYS_ONLY, INCLUDE]"
        )
    if ptype == "INCLUDE":
        if not non_key:
            raise ValidationException(
                "If Projection type INCLUDE is specified, some non-key attributes to include in the projection "
                "must be specified as well"
            )
        if len(set(non_key)) != len(non_key):
            raise ValidationException("Cannot have two attributes with the same name")
        for attribute in non_key:
            if isinstance(attribute, str):  # (another member is the model's or a later check's to refuse)
                check_key_name(attribute)
        included = {"NonKeyAttributes": list(non_key)}
    elif non_key is not None:
        raise ValidationException(
            "No attributes should be specified to be projected unless projection type is INCLUDE"
        )
    else:
        included = {}
    out: dict[str, Any] = {
        "IndexName": name,
        "KeySchema": _key_schema_list(keys),
        "Projection": {
            "ProjectionType": ptype,
            **included,
        },
    }
    if kind == "GSI":
        out["IndexStatus"] = "ACTIVE"
        out["ProvisionedThroughput"] = _throughput(spec.get("ProvisionedThroughput"), billing, "index")
        if billing == "PAY_PER_REQUEST":
            out.pop("ProvisionedThroughput")
    return out


_LABEL_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"
_label_lock = threading.Lock()
_last_label = ""


def _stream_label() -> str:
    """A new stream's label: the time to the millisecond, later than every label given before, so that a stream
    re-enabled (or a table re-created) within the same millisecond still gets a stream of its own."""
    global _last_label
    with _label_lock:
        now = datetime.now(timezone.utc)
        if _last_label:
            last = datetime.strptime(_last_label, _LABEL_FORMAT).replace(tzinfo=timezone.utc)
            now = max(now, last + _MILLISECOND)
        _last_label = now.strftime(_LABEL_FORMAT)[:-3]
        return _last_label


def _apply_stream_spec(desc: dict, spec: Any, table_arn: str, creating: bool) -> None:
    if spec is None:
        return
    enabled = spec.get("StreamEnabled")
    current = desc.get("StreamSpecification", {}).get("StreamEnabled")
    if enabled:
        view = spec.get("StreamViewType")
        if view not in ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"):
            raise ValidationException(
                "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams."
                if not view
                else f"1 validation error detected: Value '{view}' at 'streamSpecification.streamViewType' failed "
                "to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, "
                "NEW_AND_OLD_IMAGES, KEYS_ONLY]"
            )
        if current:
            raise ValidationException("Table already has an enabled stream")
        label = _stream_label()
        desc["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
        desc["LatestStreamLabel"] = label
        desc["LatestStreamArn"] = f"{table_arn}/stream/{label}"
    else:
        if spec.get("StreamViewType") is not None:
            raise ValidationException(
                "Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present."
            )
        if not creating and not current:
            raise ValidationException("Table has no stream to disable")
        desc.pop("StreamSpecification", None)  # LatestStreamArn/Label stay described, as DynamoDB does


def table_from_description(table_id: int, desc: dict) -> Table:
    attr_types = {d["AttributeName"]: d["AttributeType"] for d in desc["AttributeDefinitions"]}
    keys = _keys_from_list(desc["KeySchema"], attr_types)
    table = Table(desc["TableName"], table_id, keys, attr_types, desc)
    for kind, label in (("LocalSecondaryIndexes", "LSI"), ("GlobalSecondaryIndexes", "GSI")):
        for spec in desc.get(kind, []):
            projection = spec["Projection"]
            index = Index(
                name=spec["IndexName"],
                kind=label,
                keys=_keys_from_list(spec["KeySchema"], attr_types),
                projection=projection["ProjectionType"],
                non_key=tuple(projection.get("NonKeyAttributes", ())),
                sql=f"t{table_id}_{_sql_safe(spec['IndexName'])}",
                table_keys=keys,
            )
            table.indexes[index.name] = index
    return table


def _sql_safe(name: str) -> str:
    return name.replace("-", "_2d").replace(".", "_2e")


def _keys_from_list(schema: list[dict], attr_types: dict[str, str]) -> KeySchema:
    return key_schema_of(
        [k["AttributeName"] for k in schema if k["KeyType"] == "HASH"],
        [k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"],
        attr_types,
    )


def _create_index_table(conn: Any, index: Index) -> None:
    conn.execute(
        f"CREATE TABLE {index.sql} (ih INTEGER NOT NULL, ik BLOB NOT NULL, isk BLOB NOT NULL, h INTEGER NOT NULL, "
        "pk BLOB NOT NULL, sk BLOB NOT NULL, PRIMARY KEY (ih, ik, isk, pk, sk)) WITHOUT ROWID"
    )


def _indexable(index: Index, name: str, value: str | bytes) -> bool:
    """Whether a string or binary key value can be an index key: neither empty nor over the key's size limit."""
    return len(value) > 0 and index_key_fits(index, name, value)


def _backfill(conn: Any, table: Table, index: Index) -> None:
    """Index every existing item that has the new index's key attributes of the right types and sizes."""
    rows = conn.execute(f"SELECT h, pk, sk, {item_sql(table.sql)}, bin FROM {table.sql}").fetchall()
    for h, pk, sk, text, binary in rows:
        item = table.load_row(text, binary, pk, sk)
        key = index.key_of(item)
        if key is None:
            continue
        if not all(typ == "N" or _indexable(index, name, item[name][typ]) for name, typ in index.keys.attrs):
            continue  # an index key violation (developer guide): the item stays in the table, out of the index
        ik, isk = key
        conn.execute(
            f"INSERT INTO {index.sql} (ih, ik, isk, h, pk, sk) VALUES (?, ?, ?, ?, ?, ?)",
            (partition_hash(ik), ik, isk, h, pk, sk),
        )
