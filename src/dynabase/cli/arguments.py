"""Argument types shared by the commands' parsers (argparse reports their errors as usage errors), and the
parser class every command uses."""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence


def positive_int(text: str) -> int:
    """A whole number of at least 1 (capacities, segment counts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports arguments it does not know itself, with its own usage and the options
    they may be typos of. Sub-command parsers are of this class too (argparse makes them of their parent's),
    so ``dynabase serve --prot 8000`` shows ``serve``'s usage and "did you mean --port?", where argparse
    hands the leftovers up to the top-level parser, whose usage lists only the commands."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(unrecognized(self, extras))
        return parsed, extras


def unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """argparse's "unrecognized arguments" message, with the closest known option of each unknown one."""
    known = [name for action in parser._actions for name in action.option_strings]
    guesses = []
    for extra in extras:
        name = extra.split("=", 1)[0]
        close = difflib.get_close_matches(name, known, n=1) if name.startswith("-") else []
        if close:
            guesses.append((name, close[0]))
    message = f"unrecognized arguments: {' '.join(extras)}"
    if len(guesses) == 1:
        return f"{message} (did you mean {guesses[0][1]}?)"
    if guesses:
        return f"{message} (did you mean {', '.join(f'{right} for {wrong}' for wrong, right in guesses)}?)"
    return message


def usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    """What ``parser.error`` prints (the usage, then ``PROG: error: MESSAGE``), as exit status 2 returned
    rather than raised: for the checks a command makes after parsing."""
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    return 2
