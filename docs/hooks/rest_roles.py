"""MkDocs hook: docstrings are written with reST roles (``:class:`Model```); in the rendered API pages show
the name in code, without the role."""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|data|mod|exc|obj|const|ref):(<code>)")


def on_page_content(html: str, **_: Any) -> str:
    return ROLE.sub(r"\1", html)
