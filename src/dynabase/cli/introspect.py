"""The ``dynabase`` parser as data: its commands, their options and choices.

Shell completion (``dynabase completion``) and the documentation's CLI reference are both generated from it,
so neither can fall behind the parser.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Option:
    """One optional argument: its spellings, whether it takes a value, and the values it accepts."""

    strings: tuple[str, ...]
    takes_value: bool
    choices: tuple[str, ...] = ()
    help: str = ""
    metavar: str = ""


@dataclass(frozen=True)
class Command:
    """A command (``path`` is ``()`` for ``dynabase`` itself, ``("streams", "tail")`` for a sub-command)."""

    path: tuple[str, ...]
    parser: argparse.ArgumentParser
    summary: str = ""
    options: tuple[Option, ...] = ()
    positional_choices: tuple[str, ...] = ()
    subcommands: dict[str, Command] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``dynabase streams tail``."""
        return " ".join(("dynabase", *self.path))

    def walk(self) -> Iterator[Command]:
        """This command, then every sub-command, depth first in the order ``--help`` lists them."""
        yield self
        for sub in self.subcommands.values():
            yield from sub.walk()


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _text(value: object) -> str:
    return "" if value is None or value == argparse.SUPPRESS else str(value)


def command(parser: argparse.ArgumentParser, path: tuple[str, ...] = (), summary: str = "") -> Command:
    """``parser`` and its sub-commands as a :class:`Command` tree."""
    formatter = argparse.HelpFormatter(parser.prog)
    options: list[Option] = []
    positional_choices: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        choices = tuple(str(c) for c in action.choices) if action.choices else ()
        if action.option_strings:
            options.append(
                Option(
                    tuple(action.option_strings),
                    takes_value=action.nargs != 0,
                    choices=choices,
                    help=formatter._expand_help(action) if action.help else "",
                    metavar=_text(action.metavar),
                )
            )
        elif choices and not positional_choices:
            positional_choices.extend(choices)
    subcommands: dict[str, Command] = {}
    sub = _subparsers(parser)
    if sub is not None:
        summaries = {choice.dest: _text(choice.help) for choice in sub._choices_actions}
        for name, child in sub.choices.items():
            subcommands[name] = command(child, (*path, name), summaries.get(name, ""))
    return Command(path, parser, summary, tuple(options), tuple(positional_choices), subcommands)
