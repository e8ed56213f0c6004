"""``dynabase serve``: the embedded engine over DynamoDB's HTTP API, a drop-in for DynamoDB Local.

Tables are shared by every access key and region unless ``--per-key-db`` (see the help for why); signatures
are only checked when credentials are given. Imports stay lazy: the server must answer within 0.3 s of start.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..server.options import add_arguments
from .ui import add_console_arguments


def register(commands: Any) -> None:
    p = commands.add_parser(
        "serve",
        help="serve the engine over DynamoDB's HTTP API (a drop-in for DynamoDB Local)",
        description="Serve a dynabase database over DynamoDB's HTTP JSON API: boto3, the AWS CLI and SDKs, "
        "NoSQL Workbench and dynamodb-admin work against it unchanged (endpoint URL = the URL printed "
        "on start). One log line per request on stderr.",
    )
    add_arguments(p)
    p.add_argument(
        "--ui",
        action="store_true",
        help="also serve the web console (dynabase ui) on this port under /console/; prints its address "
        "with a random token",
    )
    add_console_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..server.runner import serve
    from .signals import stop_on_signals

    if args.schema and not args.ui:
        print("dynabase serve: --schema is for the web console: add --ui", file=sys.stderr)
        return 2
    return serve(args, stop_on_signals)
