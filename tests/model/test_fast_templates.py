"""The generated template code of the hot paths (:mod:`dynabase.model.templates`) against the schema
package's :class:`~dynabase.schema.template.Template`, which has OneTable's rules."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from dynabase.model.templates import FastTemplate, inline_prefix
from dynabase.schema.template import Template

TEMPLATES = ["reading#${seq:8}", "${a}", "x#${a}#${b:3}", "${a}${b}y", "lit", "t#${a:4:-}#${b}#${c}"]
#: values of every kind the fast path takes or hands on: str, int, missing, None, and others
VALUES = ["v", "", 7, 12345, None, "missing", 2.5, True]


def _prefix_fn(template: Template) -> Any:
    """``find_key(values) -> (text, prefix)`` made of :func:`inline_prefix`'s lines, ``general`` the template's
    full renderer (as the generated fill code uses them)."""
    parts = FastTemplate(template).parts
    lines = [
        "def find_key(values):",
        *inline_prefix(parts, "values", "v", "prefix", "general(values)", "    "),
        "    return v, prefix",
    ]
    namespace: dict[str, Any] = {"general": lambda values: template.render(values)}
    exec("\n".join(lines), namespace)  # noqa: S102
    return namespace["find_key"]


@pytest.mark.parametrize("text", TEMPLATES)
def test_inline_prefix_gives_the_text_or_the_prefix_of_the_general_rules(text: str) -> None:
    template = Template(text)
    find_key = _prefix_fn(template)
    names = [ref.path for ref in template.refs]
    for combo in itertools.product(VALUES, repeat=len(names)):
        values = {name: value for name, value in zip(names, combo, strict=True) if value != "missing"}
        text_, prefix = find_key(values)
        assert text_ == template.render(values), values
        if text_ is None and prefix is not None:
            assert prefix == template.prefix(values), values
        fast_kinds = all(type(v) in (str, int) or v is None for v in values.values())
        if text_ is None and fast_kinds:  # the fast path made the prefix itself
            assert prefix is not None, values
