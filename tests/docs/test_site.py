"""The site builds with ``--strict``, the CLI reference has every command, and every public name is documented."""

from __future__ import annotations

import html
import importlib
import inspect
import re
from pathlib import Path

import pytest

from dynabase.cli.main import tree

#: the packages whose ``__all__`` is the public API (dynabase.errors has no ``__all__``: its public classes)
PUBLIC = (
    "dynabase",
    "dynabase.client",
    "dynabase.model",
    "dynabase.schema",
    "dynabase.sync",
    "dynabase.streams",
    "dynabase.testing",
    "dynabase.tools",
    "dynabase.transfer",
    "dynabase.server",
)


@pytest.fixture(scope="module")
def api_anchors(site: Path) -> set[str]:
    """The ids of the API reference's entries (``dynabase.model.Table``, ...)."""
    ids: set[str] = set()
    for page in (site / "api").rglob("*.html"):
        ids |= {
            html.unescape(i) for i in re.findall(r'\bid="(dynabase[^"]+)"', page.read_text(encoding="utf-8"))
        }
    return ids


def _documents(anchor: str, obj: object) -> bool:
    """Whether the entry ``anchor`` (``module.name``) is ``obj``."""
    module, _, attribute = anchor.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute) is obj
    except (ImportError, AttributeError):
        return False


def public_names() -> list[tuple[str, str]]:
    names = [(package, name) for package in PUBLIC for name in importlib.import_module(package).__all__]
    errors = importlib.import_module("dynabase.errors")
    names += [
        ("dynabase.errors", name)
        for name, obj in vars(errors).items()
        if not name.startswith("_") and inspect.isclass(obj) and obj.__module__ == errors.__name__
    ]
    return names


def test_the_site_builds_strictly(site: Path) -> None:
    assert (site / "index.html").is_file()
    assert (site / "cli" / "index.html").is_file()


def test_the_cli_reference_has_every_command_and_option(site: Path) -> None:
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "cli" / "index.html").read_text(encoding="utf-8")))
    for cmd in tree().walk():
        assert cmd.name in page, f"{cmd.name} is not in the CLI reference"
        for option in cmd.options:
            for string in option.strings:
                assert string in page, f"{cmd.name} {string} is not in the CLI reference"


@pytest.mark.parametrize(("package", "name"), public_names())
def test_every_public_name_is_documented(api_anchors: set[str], package: str, name: str) -> None:
    obj = getattr(importlib.import_module(package), name)
    if f"{package}.{name}" in api_anchors:
        return
    # names imported on first use are documented where they are defined (or re-exported)
    if inspect.ismodule(obj):
        assert obj.__name__ in api_anchors, f"{package}.{name} has no entry in the API reference"
        return
    found = [a for a in api_anchors if a.endswith("." + name) and _documents(a, obj)]
    assert found, f"{package}.{name} has no entry in the API reference"


def test_api_pages_show_no_rest_roles(site: Path) -> None:
    leftovers = {
        str(page.relative_to(site)): hits
        for page in (site / "api").rglob("*.html")
        if (hits := re.findall(r":(?:class|func|meth|attr|data|mod|exc|obj):<code>", page.read_text()))
    }
    assert not leftovers


#: what a page loads by itself: stylesheets, scripts, images, frames (links to other sites are not loads)
_LOADED = re.compile(r"<(?:link|script|img|iframe|source|embed)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"")
_CSS_URL = re.compile(r"(?:@import\s+|url\()\s*[\"']?([^\"')\s]+)")


def test_the_site_loads_nothing_from_other_hosts(site: Path) -> None:
    """The site is read offline: no web fonts from Google (``theme: font: false``), no CDN scripts or styles."""
    outside = set()
    for path in site.rglob("*"):
        if path.suffix not in (".html", ".css"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        urls = _LOADED.findall(text) if path.suffix == ".html" else _CSS_URL.findall(text)
        outside |= {
            f"{path.relative_to(site)}: {url}" for url in urls if re.match(r"(?:https?:)?//", url.strip())
        }
        outside |= {
            f"{path.relative_to(site)}: {host}"
            for host in ("fonts.googleapis.com", "fonts.gstatic.com")
            if host in text
        }
    assert not outside, sorted(outside)[:20]


def test_api_pages_show_no_rest_literal_markers(site: Path) -> None:
    """reST's ``::`` before a literal block (``Example::``, or ``::`` alone) is not shown, as reST shows it."""
    leftovers = {
        str(page.relative_to(site)): hits
        for page in (site / "api").rglob("*.html")
        if (hits := re.findall(r"<p>(?:[^<]|<(?!/p>))*::</p>", page.read_text(encoding="utf-8")))
    }
    assert not leftovers
