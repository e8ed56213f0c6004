"""MkDocs hook: docstrings are written in reST; the rendered API pages show them as Markdown would.

- roles (``:class:`Model```): the name in code, without the role;
- literal-block markers: a paragraph that is only ``::`` goes, and a paragraph ending ``text::`` ends
  ``text:`` (``text ::``: ``text``), as reST shows them; the indented block after it is already code.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|data|mod|exc|obj|const|ref):(<code>)")
LITERAL_ALONE = re.compile(r"<p>::</p>\n?")
LITERAL_SPACED = re.compile(r"\s+::</p>")
LITERAL_END = re.compile(r"::</p>")


def on_page_content(html: str, **_: Any) -> str:
    html = ROLE.sub(r"\1", html)
    html = LITERAL_ALONE.sub("", html)
    html = LITERAL_SPACED.sub("</p>", html)
    return LITERAL_END.sub(":</p>", html)
