"""VAMS (Visual Asset Management System) on dynabase: its ~30 DynamoDB tables as OneTable schemas
(``schemas/``), its access patterns (:mod:`.vams`), and the search documents it projects from the table
streams (mappings in ``search/``). ``python examples/vams/run.py`` runs it end to end on the embedded engine.
"""

from .tables import SPECS, STREAMED, TABLE_NAMES, VamsTables
from .vams import (
    AssetBucket,
    ConflictError,
    NotFoundError,
    SearchIndex,
    SearchProjector,
    StreamPoller,
    Vams,
    follow_in_process,
)

__all__ = [
    "SPECS",
    "STREAMED",
    "TABLE_NAMES",
    "AssetBucket",
    "ConflictError",
    "NotFoundError",
    "SearchIndex",
    "SearchProjector",
    "StreamPoller",
    "Vams",
    "VamsTables",
    "follow_in_process",
]
