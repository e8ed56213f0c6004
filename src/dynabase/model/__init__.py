"""dynabase's entity layer: OneTable's Table/Model API in Python.

Items written here and items written by OneTable (``dynamodb-onetable``) with the same schema are the same
items: same keys, same attribute names and stored forms (type attribute, dates, ``_unique#`` sentinels,
encrypted values, the ``_schema`` and ``_migration`` items).

::

    import dynabase
    from dynabase.model import Table

    table = Table("app", dynabase.connect(":memory:"), schema)
    table.create_table()
    User = table.model("User")
    user = User.create({"name": "Ann", "email": "ann@example.com"})
    users = User.find({"accountId": "acme"}, limit=20)      # a Page: list + .next / .prev cursors
"""

from .aio import AsyncModel, AsyncTable
from .errors import (
    ConditionFailedError,
    CryptoError,
    MissingKeyError,
    ModelDisabledError,
    NonUniqueError,
    NotFoundError,
    OneTableArgError,
    OneTableError,
    ParameterError,
    TransactionError,
    UniqueError,
    ValidationError,
)
from .migrations import Migration, Migrations
from .model import Model
from .paging import Page
from .table import Table
from .typegen import typegen

__all__ = [
    "AsyncModel",
    "AsyncTable",
    "ConditionFailedError",
    "CryptoError",
    "Migration",
    "Migrations",
    "MissingKeyError",
    "Model",
    "ModelDisabledError",
    "NonUniqueError",
    "NotFoundError",
    "OneTableArgError",
    "OneTableError",
    "Page",
    "ParameterError",
    "Table",
    "TransactionError",
    "UniqueError",
    "ValidationError",
    "typegen",
]
