"""What every part of a :class:`~dynabase.model.Model` stands on: the attributes ``Model.__init__`` sets.

The parts (:mod:`.prepare`, :mod:`.write`, :mod:`.read`, :mod:`.request`, :mod:`.unique`, :mod:`.keys`,
:mod:`.compiled`) are classes ``Model`` composes; each may use these attributes and the others' methods
through ``self``, and reaches the table only through its public methods. The methods one part calls on
another are declared here for the type checker (only: ``Model``'s parts define them), so that mypy checks
each part on its own and checks every definition against its declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from datetime import datetime

    from .blocks import Block, ModelSpec
    from .expression import Expression
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
    _reader: Callable[[Mapping[str, Any]], dict[str, Any]] | None
    _read_written: Callable[[Mapping[str, Any]], dict[str, Any]] | None
    _read_own: Callable[[dict[str, Any]], Any] | None

    if TYPE_CHECKING:  # pragma: no cover
        # model.Model

        def get(self, properties: Mapping[str, Any], **params: Any) -> Any: ...
        def update(self, properties: Mapping[str, Any], **params: Any) -> Any: ...
        def _put_item(self, properties: dict[str, Any], p: dict[str, Any]) -> Any: ...
        def _update_item(self, properties: dict[str, Any], p: dict[str, Any]) -> Any: ...
        def _delete_item(self, properties: dict[str, Any], p: dict[str, Any]) -> Any: ...
        def _timestamp(self, p: dict[str, Any]) -> datetime: ...
        def _refuse_device_write(self, op: str) -> None: ...
        def _strip_hidden(self, item: dict[str, Any]) -> dict[str, Any]: ...

        # prepare.PreparePath
        def _prepare(self, op: str, properties: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]: ...
        def _projection(self, index: IndexSpec) -> list[str] | None: ...
        @staticmethod
        def _path(path: str, name: str) -> str: ...

        # keys.KeyPath
        def _run_templates(
            self,
            op: str,
            path: str,
            index: IndexSpec,
            deps: list[FieldSpec],
            properties: dict[str, Any],
            p: Mapping[str, Any],
        ) -> None: ...
        def _render(self, field: FieldSpec, text_or_template: Any, properties: Mapping[str, Any]) -> Any: ...

        # write.WritePath
        def _transform_properties(
            self,
            op: str,
            path: str,
            fields: dict[str, FieldSpec],
            properties: dict[str, Any],
            p: Mapping[str, Any],
            rec: dict[str, Any],
        ) -> None: ...
        def _write_value(
            self,
            op: str,
            path: str,
            field: FieldSpec,
            value: Any,
            properties: Mapping[str, Any],
            p: Mapping[str, Any],
        ) -> Any: ...
        def _nested_write(self, field: FieldSpec, value: Any) -> Any: ...

        # read.ReadPath
        def _fast_read_ok(self, p: Mapping[str, Any]) -> bool: ...
        def _read_raw_items(self, op: str, raws: list[dict[str, Any]], p: Mapping[str, Any]) -> list[Any]: ...
        def _parse_response(
            self, op: str, expr: Expression | None, items: list[dict[str, Any]]
        ) -> list[Any]: ...
        def _transform_read(
            self, op: str, raw: Any, properties: Mapping[str, Any], p: Mapping[str, Any]
        ) -> Any: ...


__all__ = ["ModelBase"]
