"""Table export and import: JSON lines and DynamoDB's S3 export format (DYNAMODB_JSON), for any client with
boto3's low-level DynamoDB interface (the embedded engine, DynamoDB Local, AWS).

    from dynabase.transfer import export_table, import_table

    export_table(client, "orders", "orders.jsonl")                       # + orders.table.json
    export_table(client, "orders", "orders-export", format="s3", segments=4)
    import_table(other, "orders-export", create=True)                    # recreate from table.json, then load

Imports are resumable (a checkpoint file beside the input, with progress per destination: database file, or
endpoint and region, and table) and lose no line: a bad one is reported with its
file and line number and written to ``<input>.rejects.jsonl`` while the rest goes in. The ``dynabase export``
and ``dynabase import`` commands wrap these.
"""

from .codec import InvalidItem, decode_item, encode_item, item_line, parse_line
from .destination import Destination
from .errors import TransferError
from .exporter import FORMATS, ExportSummary, export_table
from .importer import ImportSummary, import_table
from .progress import Progress
from .retry import Backoff

__all__ = [
    "FORMATS",
    "Backoff",
    "Destination",
    "ExportSummary",
    "ImportSummary",
    "InvalidItem",
    "Progress",
    "TransferError",
    "decode_item",
    "encode_item",
    "export_table",
    "import_table",
    "item_line",
    "parse_line",
]
