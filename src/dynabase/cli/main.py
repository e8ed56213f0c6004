"""``dynabase``: command-line entry point (argparse; each command module registers its sub-commands).

A command is added by writing a module with ``register(commands)`` (which adds sub-parsers whose defaults set
``run``) and listing it in :func:`commands`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import StorageError
from .arguments import Parser

if TYPE_CHECKING:
    from .introspect import Command


def commands() -> tuple[Any, ...]:
    """The modules that register sub-commands, in the order ``dynabase --help`` lists them. Imported here,
    not with this module: ``python -m dynabase.server`` imports :mod:`dynabase.cli.signals`, which loads
    this package, and must not pay for every command."""
    from . import completion, demo, hub, schema_tools, serve, streams, sync, transfer, ui

    return (demo, serve, ui, sync, hub, transfer, streams, schema_tools, completion)


#: the exit status when the reader of our output went away (``dynabase validate --json f | head``): 128 +
#: SIGPIPE, what a shell reports for ``cat`` or ``yes`` in the same place, so a ``set -o pipefail`` script
#: treats dynabase like any other Unix tool (the output was cut short, so 0 would claim too much)
EXIT_BROKEN_PIPE = 141


def version() -> str:
    """The installed distribution's version, else the package's own ``__version__``."""
    from importlib import metadata

    try:
        return metadata.version("dynabase")
    except metadata.PackageNotFoundError:
        from .. import __version__

        return __version__


class _VersionAction(argparse.Action):
    """``--version``: looked up only when asked for, so other commands start without reading metadata."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"dynabase {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="dynabase", description="DynamoDB-compatible embedded database tools.")
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in commands():
        module.register(subparsers)
    parser.set_defaults(root=parser)  # the completion command renders the whole tree
    return parser


def tree() -> Command:
    """The whole ``dynabase`` command, for the CLI reference, completion scripts and tests."""
    from .introspect import command

    return command(build_parser())


def _reader_gone() -> int:
    """Python's recipe for SIGPIPE: point stdout (and stderr) at /dev/null so that flushing what is still
    buffered at exit cannot fail again, then exit quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):  # replaced by a stream without a descriptor (tests)
            pass
    os.close(devnull)
    return EXIT_BROKEN_PIPE


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        code = int(args.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here when the output was small enough to be buffered
        return code
    except BrokenPipeError:
        return _reader_gone()
    except StorageError as error:  # a database path the user gave cannot be used: say so, no traceback
        print(f"dynabase: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
