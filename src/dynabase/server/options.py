"""The options of ``dynabase serve`` (shared by the ``dynabase`` command and ``python -m dynabase.server``).

Kept free of heavy imports: ``python -m dynabase.server`` reads them without importing the rest of the CLI.
"""

from __future__ import annotations

import argparse
import errno
from typing import Any

from .access import host_argument, origin_argument
from .budget import DEFAULT_BODY_MEMORY_MIB

#: connections served at once; at the cap the longest-idle (then the longest-stalled) one makes room
DEFAULT_MAX_CONNECTIONS = 512
#: seconds a keep-alive connection may wait for its next request: longer than the gaps between one client's
#: requests (a test file, an interactive session), no shorter than the SDKs' own pool idle limits (Java 60 s),
#: so a client normally closes first; botocore reconnects when it finds a pooled connection closed
DEFAULT_IDLE_TIMEOUT = 60.0
#: seconds a whole request (head and body) may take to arrive once it has started: trickled bytes do not
#: extend it; 16 MiB at ~1 MB/s fits
DEFAULT_REQUEST_TIMEOUT = 30.0

SHARED_HELP = (
    "one database for every access key and region (the default: the file --db names is the one every client, "
    "NoSQL Workbench, dynamodb-admin and dynabase.connect(FILE) see; DynamoDB Local calls this -sharedDb)"
)
PER_KEY_HELP = (
    "a separate database per access key and region, as DynamoDB Local does without -sharedDb "
    "(--db app.db -> app-<KEY>_<region>.db; --db DIR/ -> DIR/<KEY>_<region>.db; :memory: -> one in-memory "
    "database each)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        default="dynabase.db",
        help="database file, or ':memory:' (default: %(default)s in the current directory, as "
        "DynamoDB Local keeps its file in the current directory)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s, this machine only; 0.0.0.0 for all)",
    )
    p.add_argument(
        "--port", type=port_number, default=8000, help="TCP port (default: %(default)s; 0 picks a free one)"
    )
    p.add_argument(
        "--region",
        default="us-east-1",
        help="region in the ARNs of the shared database (default: %(default)s)",
    )
    sharing = p.add_mutually_exclusive_group()
    sharing.add_argument("--shared-db", dest="shared_db", action="store_true", default=True, help=SHARED_HELP)
    sharing.add_argument("--per-key-db", dest="shared_db", action="store_false", help=PER_KEY_HELP)
    p.add_argument(
        "--credentials",
        metavar="FILE",
        help="verify SigV4 signatures against the access keys in FILE (AWS credentials INI format, "
        "or 'ACCESS_KEY SECRET' lines); unsigned or badly signed requests are refused",
    )
    p.add_argument("--access-key", help="verify signatures against this access key (with --secret-key)")
    p.add_argument("--secret-key", help="the secret of --access-key")
    p.add_argument(
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        type=origin_argument,
        help="let web pages from ORIGIN (scheme://host[:port], e.g. http://localhost:3000; repeatable; '*' for "
        "any) use the server from a browser. Without --credentials no other origin is served: any page you "
        "visit could otherwise read and delete your tables. With --credentials every origin is, as on AWS, "
        "unless this option names some",
    )
    add_allow_host(p, "dynabase serve")
    add_adopt(p)
    p.add_argument(
        "--workers",
        type=_positive(int),
        metavar="N",
        help="server processes on the one --db file and the one port, each answering its own connections "
        "(default: the number of CPUs for a file; 1 for :memory:, which lives in one process, and with --ui). "
        "A worker that dies is restarted; --max-connections is per worker, --max-body-memory is shared out",
    )
    p.add_argument(
        "--shutdown-timeout",
        type=float,
        default=30.0,
        help="seconds in-flight requests get to finish on SIGTERM/SIGINT (default: %(default)s)",
    )
    add_limit_arguments(p)
    loudness = p.add_mutually_exclusive_group()
    loudness.add_argument(
        "-v",
        "--verbose",
        dest="verbosity",
        action="store_const",
        const=1,
        default=0,
        help="also log request and response bodies",
    )
    loudness.add_argument(
        "-q",
        "--quiet",
        dest="verbosity",
        action="store_const",
        const=-1,
        help="log only server errors (no line per request)",
    )


def add_limit_arguments(p: argparse.ArgumentParser) -> None:
    """What a slow or idle client may hold: ``dynabase serve``'s and ``dynabase ui``'s."""
    p.add_argument(
        "--max-connections",
        type=_positive(int),
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="connections served at once (default: %(default)s); at the cap the longest-idle connection is "
        "closed for a new client, then the one stalled longest inside a request; 503 only when all are busy",
    )
    p.add_argument(
        "--idle-timeout",
        type=_positive(float),
        default=DEFAULT_IDLE_TIMEOUT,
        metavar="SECONDS",
        help="close a keep-alive connection idle this long between requests (default: %(default)s)",
    )
    p.add_argument(
        "--request-timeout",
        type=_positive(float),
        default=DEFAULT_REQUEST_TIMEOUT,
        metavar="SECONDS",
        help="a request's head and body must arrive within this many seconds of its first byte, else 408 "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--max-body-memory",
        type=_mebibytes,
        default=DEFAULT_BODY_MEMORY_MIB * 1024 * 1024,
        metavar="MIB",
        help="MiB of request bodies held at once across connections, and as much again for what they parse "
        "to: a body over what is left is answered 503 with Retry-After, a parse waits up to --request-timeout "
        f"(bodies up to 64 KiB are not counted; default: {DEFAULT_BODY_MEMORY_MIB})",
    )


def add_adopt(p: argparse.ArgumentParser) -> None:
    """``--adopt`` (every command that opens a --db file shares it)."""
    p.add_argument(
        "--adopt",
        action="store_true",
        help="use a --db file that another application's SQLite database is all the same: dynabase adds its "
        "tables and switches it to WAL journaling (without this, such a file is refused)",
    )


def add_allow_host(p: argparse.ArgumentParser, command: str) -> None:
    """``--allow-host`` (``dynabase serve`` and ``dynabase ui`` share it)."""
    p.add_argument(
        "--allow-host",
        action="append",
        metavar="NAME",
        type=host_argument,
        help=f"also answer requests addressed to host NAME (repeatable; '*' for any), e.g. a docker-compose "
        f"service name. {command} answers only to localhost, IP addresses and the --host name otherwise: a web "
        "page could re-point its own domain at this machine (DNS rebinding)",
    )


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not 0 < value < float("inf"):  # NaN fails too
            raise argparse.ArgumentTypeError(f"must be a positive finite number, not {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _mebibytes(text: str) -> int:
    """A positive whole number of MiB, in bytes."""
    return int(_positive(int)(text)) * 1024 * 1024


def port_number(text: str) -> int:
    """``--port``: a TCP port, 0-65535 (0: the system picks a free one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0-65535 (0 picks a free port), not {value}")
    return value


#: "address already in use" (POSIX, and Windows sockets)
_IN_USE = {errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", errno.EADDRINUSE)}


def cannot_serve(host: str, port: int, error: OSError) -> str:
    """What to say when ``host:port`` cannot be listened on: for a port in use, how to pick another."""
    if error.errno in _IN_USE:
        return (
            f"cannot serve on {host}:{port}: the port is in use (another dynabase serve or DynamoDB Local?); "
            "choose another with --port N, or --port 0 for a free one"
        )
    return f"cannot serve on {host}:{port}: {error.strerror or error}"
