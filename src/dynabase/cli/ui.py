"""``dynabase ui``: the web console (tables, items, PartiQL; entities with ``--schema``) in a browser.

    dynabase ui --db app.db --schema schema.json5
    dynabase ui --endpoint-url http://localhost:8000           # DynamoDB Local, dynabase serve, AWS ...

It binds 127.0.0.1 and prints an address with a random token; only a browser that opened that address can
use the console. Against an endpoint on another machine it is read-only unless ``--allow-writes``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..server.options import add_allow_host, add_limit_arguments, cannot_serve, port_number
from .signals import stop_on_signals
from .transfer import _add_connection, _client


def add_console_arguments(p: argparse.ArgumentParser) -> None:
    """Options ``dynabase ui`` and ``dynabase serve --ui`` share."""
    p.add_argument(
        "--schema", metavar="FILE", help="a OneTable schema: adds the entity views and its documentation"
    )


def register(commands: Any) -> None:
    p = commands.add_parser(
        "ui",
        help="a web console for tables, items, PartiQL and (with --schema) entities",
        description="Serve a web console on this machine: list, describe, create and delete tables; query "
        "and scan pages of a table or index with DynamoDB expressions; view, put, edit and delete items as "
        "DynamoDB JSON or plain JSON; run PartiQL; with --schema, the entities of each model, find and "
        "create/update through the schema, and its documentation. Prints an address with a random token: "
        "open it in a browser.",
    )
    _add_connection(p)
    add_console_arguments(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    p.add_argument(
        "--port", type=port_number, default=8001, help="TCP port (default: %(default)s; 0 picks a free one)"
    )
    p.add_argument(
        "--create", action="store_true", help="create the --db file if it does not exist (else an error)"
    )
    p.add_argument(
        "--allow-writes",
        action="store_true",
        help="allow changes through an --endpoint-url on another machine (read-only by default)",
    )
    add_allow_host(p, "dynabase ui")
    add_limit_arguments(p)
    p.add_argument("-v", "--verbose", action="store_true", help="log every request on stderr")
    p.set_defaults(run=run)


def endpoint_read_only(endpoint_url: str | None, allow_writes: bool) -> bool:
    """Read-only unless the data is on this machine (a --db file, a loopback endpoint) or writes are allowed."""
    from ..endpoints import is_local_endpoint

    if endpoint_url is None or allow_writes:
        return False
    return not is_local_endpoint(endpoint_url)


def _cannot_serve(args: argparse.Namespace, error: OSError) -> int:
    print(f"dynabase ui: error: {cannot_serve(args.host, args.port, error)}", file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    from ..console.server import ConsoleServer, build
    from ..server.httpd import listen
    from ..transfer import TransferError

    try:
        if args.db is not None and args.create and not os.path.exists(args.db):
            listen(args.host.strip("[]"), args.port).close()  # a busy port must not leave a new database
        client = _client(args, may_create=args.create, create_flag="--create")
    except TransferError as error:
        print(f"dynabase ui: error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        return _cannot_serve(args, error)
    target = args.db if args.db is not None else args.endpoint_url
    read_only = endpoint_read_only(args.endpoint_url, args.allow_writes)
    try:
        app = build(client, target=target, read_only=read_only, schema=args.schema)
    except Exception as error:  # the schema does not load or is invalid
        print(f"dynabase ui: error: schema {args.schema}: {error}", file=sys.stderr)
        return 1
    app.guard.allowed_hosts = frozenset(args.allow_host or ())
    try:
        server = ConsoleServer(
            app,
            args.host,
            args.port,
            verbose=args.verbose,
            max_connections=args.max_connections,
            idle_timeout=args.idle_timeout,
            request_timeout=args.request_timeout,
            max_body_memory=args.max_body_memory,
        )
    except OSError as error:
        return _cannot_serve(args, error)
    try:
        with stop_on_signals() as stop:  # the console serves from its thread until Ctrl-C or SIGTERM
            server.start()
            print(
                f"dynabase console for {target}{' (read-only)' if read_only else ''}: open {server.url}",
                flush=True,
            )
            stop.wait()
    finally:
        server.stop()
        if hasattr(client, "close"):
            client.close()
    return 0
