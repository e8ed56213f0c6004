"""The command documents itself: every command has a summary and a description, every option a help text."""

from __future__ import annotations

import argparse

import pytest

from dynabase.cli.main import build_parser


def commands() -> dict[str, tuple[str | None, argparse.ArgumentParser]]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    summaries = {choice.dest: choice.help for choice in sub._choices_actions}
    return {name: (summaries.get(name), command) for name, command in sub.choices.items()}


def test_the_top_level_help_lists_every_command() -> None:
    text = build_parser().format_help()
    for name, (summary, _) in commands().items():
        assert summary, f"dynabase {name} has no one-line summary in dynabase --help"
        assert name in text


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_option_is_described(name: str) -> None:
    summary, command = commands()[name]
    assert command.description, f"dynabase {name} --help has no description"
    undocumented = [
        "/".join(action.option_strings) or action.dest
        for action in command._actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert undocumented == [], f"dynabase {name}: options without help: {undocumented}"
    command.format_help()  # renders: no broken %(default)s and the like
