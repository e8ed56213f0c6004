"""``dynabase``: command-line entry point (argparse; one function per sub-command)."""

from __future__ import annotations

import argparse
import sys

from . import demo, schema_tools, serve, sync, transfer


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dynabase", description="DynamoDB-compatible embedded database tools."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo.register(commands)
    serve.register(commands)
    transfer.register(commands)
    schema_tools.register(commands)
    sync.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
