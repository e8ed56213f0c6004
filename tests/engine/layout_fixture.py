"""A database file as an earlier version of dynabase wrote it, for the test that later versions read it.

``data/layout-2.db.gz`` is the keys/items/parts layout with every body plain JSON (``bin`` 0 or 1), written by
the version before short bodies were shortened (commit 02294a3), with::

    PYTHONPATH=<that version's src> python tests/engine/layout_fixture.py tests/engine/data/layout-2.db.gz
"""

from __future__ import annotations

import gzip
import os
import sqlite3
import sys
import tempfile

TABLE = {
    "TableName": "kept",
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "N"},
        {"AttributeName": "g", "AttributeType": "S"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "by-g",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def items() -> list[dict]:
    """Short and long bodies, binary values at every depth, every type, non-ASCII text."""
    out = []
    for n in range(40):
        item = {
            "pk": {"S": f"p{n % 4}"},
            "sk": {"N": f"{n}.5"},
            "g": {"S": f"g{n % 3}"},
            "status": {"S": "shipped" if n % 2 else "new é€"},
            "total": {"N": str(n * 7)},
            "flag": {"BOOL": n % 2 == 0},
            "none": {"NULL": True},
            "tags": {"SS": ["a", f"t{n}"]},
            "nums": {"NS": ["1", str(n + 2)]},
        }
        if n % 3 == 0:
            item["blob"] = {"B": bytes([n, 255 - n]) * 4}
            item["nested"] = {"M": {"inner": {"L": [{"B": b"\x00\x01"}, {"BS": [b"x", bytes([n])]}]}}}
        if n % 5 == 0:
            item["body"] = {"S": "words of text " * (100 + 40 * n)}  # past a quarter page: parts
        out.append(item)
    return out


def main(target: str) -> None:
    import dynabase

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "layout.db")
        client = dynabase.connect(path)
        client.create_table(**TABLE)
        for item in items():
            client.put_item(TableName=TABLE["TableName"], Item=item)
        client.close()
        raw = sqlite3.connect(path)
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        raw.execute("PRAGMA journal_mode = DELETE")
        raw.close()
        with open(path, "rb") as source, open(target, "wb") as out:
            out.write(gzip.compress(source.read(), 9, mtime=0))


if __name__ == "__main__":
    main(sys.argv[1])
