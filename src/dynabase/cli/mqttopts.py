"""The broker options ``dynabase sync --mqtt`` and ``dynabase sync-hub`` share: credentials by password file or
client certificate (never a password on the command line, where ``ps`` shows it)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_broker_arguments(p: argparse.ArgumentParser, who: str) -> None:
    p.add_argument("--username", metavar="NAME", help=f"the broker user name of {who}")
    p.add_argument(
        "--password-file",
        metavar="FILE",
        help="a file holding the broker password (its first line; never give a password on the command line)",
    )
    p.add_argument("--cert", metavar="PEM", help=f"the client certificate of {who} (mqtts; with --key)")
    p.add_argument("--key", metavar="PEM", help="the client certificate's private key")
    p.add_argument(
        "--ca", metavar="PEM", help="the CA that signed the broker's certificate (default: the system's)"
    )
    p.add_argument(
        "--max-payload",
        type=int,
        default=128 * 1024,
        metavar="BYTES",
        help="the broker's largest message: longer ones go in parts (default 131072, AWS IoT Core's limit)",
    )


def broker_options(args: argparse.Namespace) -> dict[str, Any]:
    """The credentials the options name, read and checked (ValueError naming the option)."""
    password = None
    if args.password_file:
        try:
            lines = Path(args.password_file).read_text().splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"--password-file {args.password_file}: cannot read it ({error})") from None
        if not lines or not lines[0]:
            raise ValueError(f"--password-file {args.password_file}: the first line is empty")
        password = lines[0]
        if args.username is None:
            raise ValueError("--password-file needs --username")
    for option in ("cert", "key", "ca"):
        path = getattr(args, option)
        if path is not None and not Path(path).is_file():
            raise ValueError(f"--{option} {path}: no such file")
    if (args.cert is None) != (args.key is None):
        raise ValueError("a client certificate needs both --cert and --key")
    if args.max_payload < 4096:
        raise ValueError(f"--max-payload {args.max_payload}: at least 4096 bytes")
    return {
        "username": args.username,
        "password": password,
        "cert": args.cert,
        "key": args.key,
        "ca": args.ca,
    }
