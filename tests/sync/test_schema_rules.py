"""The process map's sync rules: synced models need timestamps; ``scope`` is a template."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "schema"))

from helpers import base, errors  # noqa: E402

from dynabase.schema import load_schema  # noqa: E402


def test_synced_model_without_timestamps_is_an_error_at_its_sync() -> None:
    found = errors(base(process={"User": {"sync": "up"}}))
    assert any(issue.startswith("process.User.sync:") and "timestamps" in issue for issue in found)
    assert errors(base(process={"User": {"sync": "none"}})) == []
    assert errors(base(params={"timestamps": True}, process={"User": {"sync": "up"}})) == []


def test_scope_is_a_template_and_is_kept() -> None:
    doc = base(params={"timestamps": True}, process={"User": {"sync": "down", "scope": "${name}"}})
    assert errors(doc) == []
    assert load_schema(doc).process_for("User").scope == "${name}"
    literal = errors(base(params={"timestamps": True}, process={"User": {"sync": "down", "scope": "all"}}))
    assert any(issue.startswith("process.User.scope:") for issue in literal)
    broken = errors(base(params={"timestamps": True}, process={"User": {"sync": "down", "scope": "${name"}}))
    assert any(issue.startswith("process.User.scope:") for issue in broken)
