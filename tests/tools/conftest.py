"""Fixtures shared by the schema-tool tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture(scope="session")
def cfn_lint() -> Callable[[str], list[str]]:
    """cfn-lint's ``lint(text) -> matches`` (cfn-lint is in the test extra: pip install -e '.[test]')."""
    pytest.importorskip("cfnlint.api", reason="cfn-lint is in the test extra: pip install -e '.[test]'")
    from cfnlint.api import ManualArgs, lint

    def run_lint(text: str) -> list[str]:
        return [str(m) for m in lint(text, config=ManualArgs(regions=["us-east-1"]))]

    return run_lint
