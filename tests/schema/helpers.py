"""Small builders shared by the schema tests."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from dynabase.schema import validate_schema

FIXTURES = Path(__file__).parent / "fixtures"

BASE: dict[str, Any] = {
    "format": "onetable:1.1.0",
    "version": "1.0.0",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        "User": {
            "pk": {"type": "string", "value": "user#${id}"},
            "sk": {"type": "string", "value": "user#"},
            "id": {"type": "string", "generate": "ulid"},
            "name": {"type": "string"},
        }
    },
}


def base(**top: Any) -> dict[str, Any]:
    """A fresh copy of a small valid schema, with top-level properties replaced."""
    doc = copy.deepcopy(BASE)
    doc.update(copy.deepcopy(top))
    return doc


def with_fields(**fields: Any) -> dict[str, Any]:
    """The base schema with fields added to (or replaced in) the User model."""
    doc = base()
    doc["models"]["User"].update(copy.deepcopy(fields))
    return doc


def errors(doc: Any, **kwargs: Any) -> list[str]:
    return [str(issue) for issue in validate_schema(doc, **kwargs)]


def warnings_of(doc: Any) -> list[str]:
    return [str(i) for i in validate_schema(doc, warnings=True) if i.severity == "warning"]
