"""``dynabase sync-hub``: the cloud side of sync over MQTT (see docs/sync.md).

    dynabase sync-hub schema.json5 --table app --endpoint-url https://dynamodb.eu-west-1.amazonaws.com \\
        --mqtt mqtts://broker:8883 --username hub --password-file hub.pw --ca ca.pem
    dynabase sync-hub schema.json5 --table app --db cloud.db --mqtt mqtt://127.0.0.1:1883 --username hub \\
        --password-file hub.pw

Prints ``sync-hub: ready ...`` on stderr once it is connected and reading the table's stream; Ctrl-C or SIGTERM
stops it (the messages in hand are answered, the stream's checkpoint is saved), exit status 0.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..server.options import add_adopt
from .arguments import usage_error
from .mqttopts import add_broker_arguments, broker_options
from .sync import add_table_arguments

EXIT_OK, EXIT_ERROR = 0, 1


def register(commands: Any) -> None:
    p = commands.add_parser(
        "sync-hub",
        usage="%(prog)s SCHEMA --table TABLE (--endpoint-url URL [--region R] | --db FILE) --mqtt URL [options]",
        help="the hub of sync over MQTT: applies devices' pushes to the table, fans its stream out to them",
        description="Receive the pushes of devices (`dynabase sync --mqtt`) through an MQTT broker, apply them "
        "to the cloud table with sync's conditional writes and answer each change (landed, lost to a newer "
        "version, refused with the reason); answer the devices' pulls of their own scopes; and fan the "
        "table's changes out to the devices of their scope from the table's stream. What a device may push "
        "and read is decided from its client id, which the broker authenticated. Several hubs run side by "
        "side (an MQTT 5 shared subscription).",
    )
    p.add_argument("schema", metavar="SCHEMA", help="the schema file (the devices' own)")
    p.add_argument("--table", required=True, metavar="TABLE", help="the cloud table (with its stream on)")
    p.add_argument("--endpoint-url", metavar="URL", help="the DynamoDB endpoint of the table")
    p.add_argument("--db", metavar="FILE", help="the table is in this embedded database file instead")
    add_adopt(p)
    p.add_argument(
        "--mqtt", required=True, metavar="URL", help="the broker: mqtt://HOST:PORT or mqtts://HOST:PORT"
    )
    add_broker_arguments(p, "the hub")
    p.add_argument(
        "--client-id", metavar="ID", help="the hub's MQTT client id (default: dynabase-hub-HOST-PID)"
    )
    p.add_argument(
        "--checkpoints",
        metavar="STORE",
        help="where the stream's checkpoints are kept: a SQLite file, or table:NAME (default: the --db file; "
        "with --endpoint-url: table:TABLE-sync-hub, shared by hubs side by side)",
    )
    add_table_arguments(p)
    p.add_argument("--workers", type=int, default=4, metavar="N", help="device messages handled at once (4)")
    p.add_argument(
        "--poll", type=float, default=0.2, metavar="S", help="seconds between polls of an idle stream"
    )
    p.set_defaults(run=run, hub_parser=p)


def _fail(message: str) -> int:
    print(f"dynabase sync-hub: {message}", file=sys.stderr)
    return EXIT_ERROR


def run(args: argparse.Namespace) -> int:
    from ..schema import SchemaError

    if bool(args.db) == bool(args.endpoint_url):
        return usage_error(args.hub_parser, "say where the table is: --endpoint-url URL or --db FILE (one)")
    if args.db and args.region:
        return usage_error(args.hub_parser, "--region goes with --endpoint-url")
    if args.db and not os.path.exists(args.db):
        return _fail(f"{args.db}: no such database")
    if args.workers < 1 or args.poll <= 0:
        return usage_error(args.hub_parser, "--workers is at least 1 and --poll above 0")
    try:
        return _serve(args)
    except SchemaError as error:
        for issue in error.errors:
            print(str(issue), file=sys.stderr)
        return _fail(f"{args.schema}: invalid schema")
    except (ValueError, OSError) as error:
        return _fail(str(error))


def _serve(args: argparse.Namespace) -> int:
    from ..hub import HubCore
    from ..hub.mqtt import MqttHub
    from ..model import Table
    from ..tools.common import load
    from .signals import stop_on_signals
    from .streams import _store
    from .sync import _cloud_client, _context

    credentials = broker_options(args)
    schema = load(args.schema)
    if args.db:
        import dynabase

        client: Any = dynabase.connect(args.db, adopt=args.adopt)
        streams = client.streams()
        default_store = args.db
    else:
        import boto3

        region = (
            args.region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        )
        client = _cloud_client(args.endpoint_url, region)
        streams = boto3.client("dynamodbstreams", endpoint_url=args.endpoint_url, region_name=region)
        default_store = f"table:{args.table}-sync-hub"
    table = Table(args.table, client, schema, side="cloud", context=_context(args.context))
    if not table.exists():
        raise ValueError(
            f"the table {args.table} does not exist: create it with its stream (NEW_AND_OLD_IMAGES)"
        )
    core = HubCore(table, max_payload=args.max_payload, tombstone_ttl=args.tombstone_ttl)
    hub = MqttHub(
        core,
        args.mqtt,
        streams=streams,
        checkpoints=_store(args.checkpoints, client, default_store),
        client_id=args.client_id,
        workers=args.workers,
        poll_interval=args.poll,
        **credentials,
    )

    def ready() -> None:
        print(
            f"sync-hub: ready (table {args.table}, broker {args.mqtt}); Ctrl-C to stop",
            file=sys.stderr,
            flush=True,
        )

    with stop_on_signals(hub.consumer.wake.set) as stop:
        hub.run(stop, ready)
    print(f"sync-hub: stopped ({hub.handled} device messages, {hub.fanned_out} fanned out)", file=sys.stderr)
    return EXIT_OK
