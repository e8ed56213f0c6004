"""What every part of a :class:`~dynabase.model.Model` stands on: the attributes ``Model.__init__`` sets.

The parts (:mod:`.prepare`, :mod:`.write`, :mod:`.read`, :mod:`.request`, :mod:`.unique`, :mod:`.keys`,
:mod:`.compiled`) are classes ``Model`` composes; each may use these attributes and the others' methods
through ``self``, and reaches the table only through its public methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .blocks import Block, ModelSpec
    from .spec import FieldSpec, IndexSpec
    from .table import Table


class ModelBase:
    """The state of a model (annotations only: ``Model.__init__`` sets them)."""

    table: Table
    spec: ModelSpec
    name: str
    indexes: dict[str, IndexSpec]
    primary: IndexSpec
    type_field: str
    created_field: str
    updated_field: str
    timestamps: Any
    block: Block
    fields: dict[str, FieldSpec]


__all__ = ["ModelBase"]
