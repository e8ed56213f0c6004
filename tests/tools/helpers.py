"""Fixture schemas and a CLI runner shared by the schema-tool tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dynabase.cli.main import main
from dynabase.schema import Schema, load_schema
from dynabase.tools.common import key_format

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
# Ioto's device schema (the seed's OneTable example), shared with the schema-layer tests
IOTO = HERE.parent / "schema" / "fixtures" / "ioto_device.json5"
FORMKIQ = FIXTURES / "formkiq.json5"
VAMS = FIXTURES / "vams.json5"
SCHEMAS = {"ioto": IOTO, "formkiq": FORMKIQ, "vams": VAMS}


@dataclass
class Result:
    code: int
    out: str
    err: str


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> Result:
    """Run ``dynabase ARGV`` in-process."""
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


def signature(schema: Schema) -> dict[str, Any]:
    """What a Workbench round trip must keep: the indexes (kind, keys, projection), the models, each model's
    key templates per index, and the attributes each model stores."""
    indexes = {
        name: (i.kind, i.hash, i.sort, i.project if isinstance(i.project, str) else tuple(sorted(i.project)))
        for name, i in schema.indexes.items()
    }
    models = {}
    for model in schema.models.values():
        keys = {}
        for index in schema.indexes.values():
            for role in ("hash", "sort"):
                fmt = key_format(model, index, role)
                if fmt is not None:
                    keys[(index.name, role)] = (fmt.attribute, fmt.template)
        attributes = sorted({f.attribute for f in model.fields.values()})
        models[model.name] = {"keys": keys, "attributes": attributes}
    return {"indexes": indexes, "models": models}


def load(name: str) -> Schema:
    return load_schema(SCHEMAS[name])
