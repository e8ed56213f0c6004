"""MkDocs hook: ``cli.md``'s ``<!-- cli-reference -->`` marker becomes the reference rendered from dynabase's
argparse parser (``dynabase.cli.reference``), so the page cannot fall behind the commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

MARKER = "<!-- cli-reference -->"


def on_config(config: Any) -> Any:
    # the source tree this site documents, before any installed copy of dynabase
    src = str(Path(config.config_file_path).resolve().parent / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    return config


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER not in markdown:
        return markdown
    from dynabase.cli.main import tree
    from dynabase.cli.reference import markdown as cli_reference

    return markdown.replace(MARKER, cli_reference(tree()))
