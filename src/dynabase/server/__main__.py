"""``python -m dynabase.server [--db FILE] [--port N] ...``: the same as ``dynabase serve``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    from ..cli.signals import stop_on_signals
    from .options import add_arguments
    from .runner import serve

    parser = argparse.ArgumentParser(prog="python -m dynabase.server", description="dynabase serve")
    add_arguments(parser)
    return serve(parser.parse_args(argv), stop_on_signals)


if __name__ == "__main__":
    sys.exit(main())
