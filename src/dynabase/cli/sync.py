"""``dynabase sync``: keep a device database and a cloud table in step (see docs/sync.md).

    dynabase sync schema.json5 --db device.db --table app --endpoint-url https://dynamodb.eu-west-1.amazonaws.com --once
    dynabase sync schema.json5 --db device.db --table app --endpoint-url http://127.0.0.1:8000 --watch
    dynabase sync schema.json5 --db device.db --table app --mqtt mqtts://broker:8883 --device-id dev-1 \
        --cert dev-1.pem --key dev-1.key --ca ca.pem --watch
    dynabase sync status schema.json5 --db device.db --table app
    dynabase sync quarantine schema.json5 --db device.db --table app [--retry KEY | --drop KEY | --retry-all | --drop-all]

``--once`` pushes and pulls everything pending and exits 0 when both sides are in step, 1 with a message on
stderr when it could not finish. ``--watch`` keeps them in step until interrupted: Ctrl-C (or SIGTERM) lets
the batch in flight finish, then exits 0. AWS credentials come from the usual environment variables or
profile; with ``--mqtt`` the device has none: it talks to a hub (``dynabase sync-hub``) through the broker. The cloud table is ``--table``; the device table in DEVICE_DB has the same name (created on first use).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from ..server.options import add_adopt
from .arguments import usage_error
from .mqttopts import add_broker_arguments, broker_options

EXIT_OK, EXIT_ERROR = 0, 1
ONCE_ROUNDS = 5  # --once: rounds to reach a state where both sides are in step (writes may race it)


def register(commands: Any) -> None:
    p = commands.add_parser(
        "sync",
        usage="%(prog)s [status | quarantine] SCHEMA --db DEVICE_DB --table TABLE [options]",
        help="sync a device database with a cloud table (the schema's process map)",
        description="Push the device's captured changes to the cloud table and pull the changes meant for it, "
        "as the schema's process map says (process.<Model>.sync: up, down, both). `dynabase sync status "
        "SCHEMA ...` prints pending changes, checkpoints, lag, clock offset, the last error and the changes the "
        "cloud refused; `dynabase sync quarantine SCHEMA ...` lists those, or retries or drops them.",
    )
    p.add_argument(
        "target",
        nargs="+",
        metavar="SCHEMA",
        help="the schema file; after `status` to print the sync state, after `quarantine` for refused changes",
    )
    p.add_argument("--db", required=True, metavar="DEVICE_DB", help="the device's embedded database file")
    add_adopt(p)
    p.add_argument("--table", required=True, metavar="TABLE", help="the cloud table (and the device table)")
    p.add_argument("--endpoint-url", metavar="URL", help="the cloud endpoint (default: AWS for --region)")
    add_table_arguments(p)
    p.add_argument(
        "--mqtt",
        metavar="URL",
        help="sync through a hub over this MQTT broker (mqtt://HOST:PORT or mqtts://HOST:PORT) instead of "
        "writing the table: no AWS credentials on the device (needs --device-id)",
    )
    p.add_argument(
        "--device-id",
        metavar="ID",
        help="this device's id (default: the one stored in DEVICE_DB); with --mqtt its MQTT client id",
    )
    add_broker_arguments(p, "this device (--mqtt)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--once",
        action="store_true",
        help="push and pull everything pending, then exit (status 0 when both sides are in step)",
    )
    mode.add_argument(
        "--watch", action="store_true", help="keep both sides in step until interrupted (Ctrl-C, SIGTERM)"
    )
    p.add_argument(
        "--interval",
        type=float,
        default=0.5,
        metavar="S",
        help="--watch: seconds between pulls (default 0.5; with --mqtt the hub sends changes as they happen "
        "and the device pulls after each connect only)",
    )
    p.add_argument("--batch-size", type=int, default=100, metavar="N", help="changes per batch (default 100)")
    p.add_argument(
        "--retries",
        type=int,
        default=3,
        metavar="N",
        help="--once: attempts when the endpoint is busy or unreachable (default 3, with backoff)",
    )
    refused = p.add_mutually_exclusive_group()
    refused.add_argument(
        "--retry",
        action="append",
        type=_key,
        metavar="KEY",
        help='quarantine: push this change again (KEY as `sync status` shows it: {"pk": ..., "sk": ...}; repeatable)',
    )
    refused.add_argument(
        "--drop",
        action="append",
        type=_key,
        metavar="KEY",
        help="quarantine: never push this change (repeatable)",
    )
    refused.add_argument(
        "--retry-all", action="store_true", help="quarantine: push every refused change again"
    )
    refused.add_argument("--drop-all", action="store_true", help="quarantine: never push any refused change")
    p.add_argument("--json", action="store_true", help="status, quarantine: print JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=run, sync_parser=p)


def add_table_arguments(p: argparse.ArgumentParser) -> None:
    """The options ``sync`` and ``sync-hub`` share about the cloud table."""
    p.add_argument(
        "--region", metavar="R", help="region (default: AWS_REGION, AWS_DEFAULT_REGION, us-east-1)"
    )
    p.add_argument(
        "--context",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a table context value for scope templates (repeatable; deviceId is always there)",
    )
    p.add_argument(
        "--tombstone-ttl",
        type=float,
        default=30 * 86400,
        metavar="S",
        help="tombstone lifetime (default 30 days)",
    )


def _modes(parser: argparse.ArgumentParser) -> str:
    """``--once`` and ``--watch``, each with its help, one a line (for the error that asks for one)."""
    return "\n".join(
        f"  {action.option_strings[0]:<8} {action.help}"
        for action in parser._actions
        if action.dest in ("once", "watch")
    )


def _key(text: str) -> dict[str, Any]:
    """A primary key given on the command line, as JSON."""
    try:
        key = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not JSON: {error.msg} ({text!r})") from None
    if not isinstance(key, dict) or not key:
        raise argparse.ArgumentTypeError(
            f'a primary key as a JSON object, e.g. {{"pk": "a", "sk": "b"}}: {text!r}'
        )
    return key


def _fail(message: str) -> int:
    print(f"dynabase sync: {message}", file=sys.stderr)
    return EXIT_ERROR


class _Progress:
    """Counts on stderr, at most once a second (long first syncs)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet, self.last, self.counts = quiet, 0.0, {"push": 0, "pull": 0}

    def __call__(self, phase: str, done: int) -> None:
        self.counts[phase] = done
        now = time.monotonic()
        if not self.quiet and now - self.last >= 1.0:
            self.last = now
            print(f"sync: pushed {self.counts['push']}, pulled {self.counts['pull']}...", file=sys.stderr)


def _open(args: argparse.Namespace, schema_path: str, progress: Any) -> Any:
    import dynabase
    from dynabase.model import Table
    from dynabase.sync import Sync

    from ..tools.common import load

    schema = load(schema_path)
    context = _context(args.context)
    device = Table(
        args.table, dynabase.connect(args.db, adopt=args.adopt), schema, side="device", context=context
    )
    if not device.exists():
        device.create_table()
    region = (
        args.region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    )
    if args.mqtt:
        from dynabase.sync.mqtt import MqttCloud

        cloud: Any = MqttCloud(
            args.mqtt,
            table=args.table,
            device_id=args.device_id,
            max_payload=args.max_payload,
            **broker_options(args),
        )
    else:
        cloud = Table(
            args.table, _cloud_client(args.endpoint_url, region), schema, side="cloud", context=context
        )
    return Sync(
        device,
        cloud,
        device_id=args.device_id,
        batch_size=args.batch_size,
        tombstone_ttl=args.tombstone_ttl,
        progress=progress,
    )


def _context(entries: list[str]) -> dict[str, str]:
    """``--context NAME=VALUE`` options as a table context."""
    context = {}
    for entry in entries:
        name, sep, value = entry.partition("=")
        if not sep or not name:
            raise ValueError(f"--context {entry!r}: expected NAME=VALUE")
        context[name] = value
    return context


def _cloud_client(endpoint_url: str | None, region: str) -> Any:
    import boto3
    from botocore.config import Config

    config = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=5, read_timeout=20)
    return boto3.client("dynamodb", endpoint_url=endpoint_url, region_name=region, config=config)


def run(args: argparse.Namespace) -> int:
    from ..schema import SchemaError
    from ..sync import SyncError

    target = list(args.target)
    command = target[0] if len(target) == 2 and target[0] in ("status", "quarantine") else None
    if len(target) != 1 and command is None:
        return usage_error(args.sync_parser, "expected SCHEMA, or: status SCHEMA, or: quarantine SCHEMA")
    releasing = args.retry or args.drop or args.retry_all or args.drop_all
    if releasing and command != "quarantine":
        return usage_error(
            args.sync_parser, "--retry, --drop, --retry-all and --drop-all go with: quarantine SCHEMA"
        )
    if command is None and not (args.once or args.watch):
        how = "say how to sync, --once or --watch (or `status SCHEMA` for the state):"
        return usage_error(args.sync_parser, f"{how}\n{_modes(args.sync_parser)}")
    if command and not os.path.exists(args.db):
        return _fail(f"{args.db}: no such device database")
    if args.mqtt and (args.endpoint_url or args.region):
        return usage_error(
            args.sync_parser, "--mqtt syncs through a hub: it goes without --endpoint-url and --region"
        )
    if args.mqtt and not args.device_id:
        return usage_error(args.sync_parser, "--mqtt needs --device-id (the MQTT client id the broker knows)")
    if not args.mqtt and (args.username or args.password_file or args.cert or args.key or args.ca):
        return usage_error(
            args.sync_parser, "--username, --password-file, --cert, --key and --ca go with --mqtt"
        )
    try:
        sync = _open(args, target[-1], _Progress(args.quiet))
        if command == "status":
            return _status(sync, args.json)
        if command == "quarantine":
            return _quarantine(sync, args)
        try:
            if args.once:
                return _once(sync, max(1, args.retries))
            return _watch(sync, args.interval)
        finally:
            close = getattr(sync.transport, "close", None)
            if close is not None:
                close()
    except SchemaError as error:
        for issue in error.errors:
            print(str(issue), file=sys.stderr)
        return _fail(f"{target[-1]}: invalid schema")
    except (SyncError, ValueError, OSError) as error:
        return _fail(str(error))


def _once(sync: Any, retries: int) -> int:
    from ..sync import SyncError
    from ..sync.loop import Backoff

    backoff = Backoff(0.5, 8.0)
    total = None
    for _ in range(ONCE_ROUNDS):
        for attempt in range(retries):
            try:
                result = sync.sync_once()
                break
            except SyncError as error:
                if not error.retryable or attempt == retries - 1:
                    raise
                time.sleep(backoff.next())
        if total is None:
            total = result
        else:
            total.add(result)
        if result.in_step:
            print(
                f"in step: pushed {total.pushed}, pulled {total.pulled}, conflicts {total.conflicts}, "
                f"deletes {total.deletes}, discarded {total.discarded}",
                file=sys.stderr,
            )
            refused = len(sync.quarantine())
            if refused:
                print(
                    f"sync: {refused} changes the cloud refused are set aside: dynabase sync quarantine SCHEMA ...",
                    file=sys.stderr,
                )
            return EXIT_OK
    return _fail(f"not in step after {ONCE_ROUNDS} rounds: {sync.pending()} changes still pending")


def _watch(sync: Any, interval: float) -> int:
    from .signals import stop_on_signals

    def stopping() -> None:
        print("sync: stopping after the batch in flight...", file=sys.stderr)

    with stop_on_signals(stopping) as stop:
        print(f"sync: watching (device {sync.device_id}); Ctrl-C to stop", file=sys.stderr, flush=True)
        sync.run(interval=interval, stop=stop)
    return EXIT_OK


def _status(sync: Any, as_json: bool) -> int:
    status = sync.status()
    if as_json:
        print(json.dumps(status.__dict__, indent=2, default=str))
        return EXIT_OK
    offset = "unknown" if status.clock_offset is None else f"{status.clock_offset:+.3f} s"
    lag = "unknown" if status.lag_seconds is None else f"{status.lag_seconds:.1f} s"
    print(f"device id:       {status.device_id}")
    print(f"pending changes: {status.pending}")
    print(f"lag:             {lag}")
    print(f"clock offset:    {offset}")
    print(f"last sync:       {status.last_sync or 'never'}")
    print(f"last error:      {status.last_error or 'none'}")
    for scope, checkpoint in sorted(status.checkpoints.items()):
        print(f"checkpoint {scope}: {checkpoint}")
    print(f"quarantined:     {len(status.quarantined)}")
    _print_refused(status.quarantined)
    return EXIT_OK


def _print_refused(refused: list[dict[str, Any]]) -> None:
    for entry in refused:
        key = json.dumps(entry["key"], default=str, ensure_ascii=False)
        print(f"  {entry['model']} {key} (refused {entry['refused_at']}): {entry['reason']}")


def _quarantine(sync: Any, args: argparse.Namespace) -> int:
    """List the changes the cloud refused, or give them back to the next push, or drop them."""
    if args.retry or args.retry_all:
        done = sync.retry(None if args.retry_all else args.retry)
        print(f"{done} changes will be pushed again by the next sync", file=sys.stderr)
    elif args.drop or args.drop_all:
        done = sync.drop(None if args.drop_all else args.drop)
        print(f"{done} changes dropped (never pushed; the device keeps its items)", file=sys.stderr)
    else:
        refused = sync.quarantine()
        if args.json:
            print(json.dumps(refused, indent=2, default=str, ensure_ascii=False))
        else:
            print(f"{len(refused)} changes the cloud refused")
            _print_refused(refused)
        return EXIT_OK
    wanted = len(args.retry or args.drop or [])
    if wanted and done < wanted:
        return _fail(f"{wanted - done} of the keys given are not in the quarantine")
    return EXIT_OK
