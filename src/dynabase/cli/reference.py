"""The CLI reference as Markdown, rendered from the parser (the documentation site's ``cli.md`` is built from
it at build time by ``docs/hooks/cli_reference.py``)."""

from __future__ import annotations

import argparse

from .introspect import Command

#: usage lines are wrapped at this width, whatever the terminal
WIDTH = 80


def _prose(text: str) -> str:
    """Help text as one Markdown paragraph: no HTML tags from ``<KEY>``, no emphasis from ``*.json`` (code
    spans in backticks are left as they are)."""
    parts = " ".join(text.split()).split("`")
    for i in range(0, len(parts), 2):
        for char, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("*", "\\*")):
            parts[i] = parts[i].replace(char, escaped)
    return "`".join(parts)


def _cell(text: str) -> str:
    return _prose(text).replace("|", "\\|")


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    formatter = argparse.HelpFormatter(parser.prog, width=WIDTH)
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            metavar = "" if action.nargs == 0 else " " + formatter._format_args(action, action.dest.upper())
            name = ", ".join(f"`{s}{metavar}`" for s in action.option_strings)
        else:
            name = f"`{formatter._metavar_formatter(action, action.dest)(1)[0]}`"
        rows.append(f"| {name} | {_cell(formatter._expand_help(action) if action.help else '')} |")
    return ["| argument | meaning |", "|---|---|", *rows] if rows else []


def section(cmd: Command) -> str:
    """One command's section: heading, summary, description, usage, and a table of its arguments."""
    level = "#" * min(2 + max(len(cmd.path) - 1, 0), 4)
    lines = [f"{level} `{cmd.name}`", ""]
    if cmd.summary:
        lines += [_prose(cmd.summary[0].upper() + cmd.summary[1:]) + ".", ""]
    if cmd.parser.description:
        lines += [_prose(cmd.parser.description), ""]
    lines += ["```text", _usage(cmd.parser), "```", ""]
    table = _arguments(cmd.parser)
    if table:
        lines += [*table, ""]
    if cmd.subcommands:
        lines += ["Sub-commands: " + ", ".join(f"`{s.name}`" for s in cmd.subcommands.values()) + ".", ""]
    return "\n".join(lines)


def markdown(root: Command) -> str:
    """Every command's section of the tree ``root``, in the order ``dynabase --help`` lists them."""
    return "\n".join(section(cmd) for cmd in root.walk())
