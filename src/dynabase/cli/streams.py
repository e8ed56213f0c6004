"""``dynabase streams tail`` / ``dynabase streams run``: read a table's change stream, or run a Lambda handler
on it with checkpoints.

    dynabase streams tail orders --db app.db --from trim-horizon --format pretty
    dynabase streams run handlers:on_order orders --db app.db --batch-size 50 --bisect --on-failure bad.jsonl

``run`` and ``tail --follow`` print a line on stderr once they are reading, and stop on SIGINT (Ctrl-C) or
SIGTERM after the batch in flight: checkpoints saved, exit status 0 (``run`` resumes from them when started
again). Exit status: 0 done or stopped, 1 error, 130 interrupted before it started reading.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .signals import stop_on_signals
from .transfer import _add_connection, _client

EXIT_OK, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 130
FROM = {"trim-horizon": "TRIM_HORIZON", "latest": "LATEST", "at-timestamp": "AT_TIMESTAMP"}
EVENT_NAMES = ("INSERT", "MODIFY", "REMOVE")


def register(commands: Any) -> None:
    streams = commands.add_parser(
        "streams",
        help="tail a table's change stream, or run a Lambda-style handler on it",
        description="Read DynamoDB Streams of an embedded database (--db) or of any endpoint (AWS, DynamoDB "
        "Local, `dynabase serve`).",
    )
    sub = streams.add_subparsers(
        dest="streams_command",
        required=True,
        metavar="{tail,run}",
        help="tail: print records; run: a handler",
    )

    tail = sub.add_parser(
        "tail",
        help="print a table's stream records",
        description="Print a table's stream records as Lambda event records: one JSON object a line "
        "(jsonl), or a readable block each (pretty). Without --follow it stops once it has caught up.",
    )
    tail.add_argument("table", metavar="TABLE", help="the table whose stream to read")
    _add_connection(tail)
    tail.add_argument(
        "--from",
        dest="start",
        choices=("trim-horizon", "latest"),
        default="trim-horizon",
        help="start at the oldest retained record or at the end (default: %(default)s)",
    )
    tail.add_argument("--format", choices=("jsonl", "pretty"), default="jsonl", help="default: %(default)s")
    tail.add_argument("--follow", "-f", action="store_true", help="keep waiting for new records")
    tail.add_argument("--poll", type=float, default=0.5, metavar="S", help="seconds between polls (0.5)")
    tail.set_defaults(run=run_tail)

    run = sub.add_parser(
        "run",
        help="run a Lambda handler (MODULE:FUNCTION) on a table's stream, at least once, with checkpoints",
        description="Call FUNCTION(event, context) of MODULE (a module name or a .py path) with batches of "
        "the table's stream records in Lambda's event shape. Checkpoints per shard are saved after the "
        "handler returns (at-least-once: after a crash, the unfinished batch is handed over again): in the "
        "--db database itself, or in --checkpoints. It keeps running until interrupted (or --until-idle).",
    )
    run.add_argument(
        "handler", metavar="MODULE:FUNCTION", help="the handler: a module (or .py file) and function"
    )
    run.add_argument("table", metavar="TABLE", help="the table whose stream to consume")
    _add_connection(run)
    run.add_argument("--name", help="consumer name the checkpoints are kept under (default: MODULE:FUNCTION)")
    run.add_argument("--batch-size", type=int, default=100, metavar="N", help="records per call (100)")
    run.add_argument(
        "--batching-window", type=float, default=0.0, metavar="S", help="seconds to wait to fill a batch (0)"
    )
    run.add_argument(
        "--from",
        dest="start",
        choices=tuple(FROM),
        default="trim-horizon",
        help="where a shard without a checkpoint starts (default: %(default)s)",
    )
    run.add_argument("--timestamp", metavar="WHEN", help="for --from at-timestamp: ISO 8601 or epoch seconds")
    run.add_argument(
        "--event-name",
        action="append",
        choices=EVENT_NAMES,
        help="handle only these events (repeatable)",
    )
    run.add_argument(
        "--filter",
        action="append",
        metavar="PATTERN",
        help="a Lambda filter criteria pattern (JSON); a record is handled when any pattern matches",
    )
    run.add_argument(
        "--max-retries", type=int, default=-1, metavar="N", help="retries of a failing batch (-1: no limit)"
    )
    run.add_argument("--bisect", action="store_true", help="split a failing batch to isolate the bad record")
    run.add_argument(
        "--report-batch-item-failures",
        action="store_true",
        help='honour the handler\'s partial batch response ({"batchItemFailures": [{"itemIdentifier": '
        "SEQ}]}), as Lambda's ReportBatchItemFailures does; without it the return value is ignored",
    )
    run.add_argument(
        "--on-failure",
        metavar="DEST",
        help="where exhausted batches go: a .jsonl file, or table:NAME (a DynamoDB table)",
    )
    run.add_argument(
        "--checkpoints",
        metavar="STORE",
        help="a SQLite file, or table:NAME (default: the --db file; with --endpoint-url: "
        "dynabase-checkpoints.db)",
    )
    run.add_argument("--parallel", type=int, default=1, metavar="N", help="shards read at once (1)")
    run.add_argument("--poll", type=float, default=1.0, metavar="S", help="seconds between polls (1)")
    run.add_argument(
        "--schema", metavar="FILE", help="a OneTable schema: context.entities holds the decoded batch"
    )
    run.add_argument(
        "--until-idle", action="store_true", help="stop once every shard is caught up (for scripts)"
    )
    run.set_defaults(run=run_run)


def _error(message: str) -> int:
    print(f"dynabase streams: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _guarded(args: argparse.Namespace, work: Any) -> int:
    """Run ``work(client, streams_client)``; user errors become one message and exit status 1."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    from ..endpoints import missing_credentials_hint
    from ..streams import FilterError, NoStreamError
    from ..transfer import TransferError

    client = None
    try:
        client = _client(args, may_create=False)
        streams = client.streams() if args.db is not None else _aws_streams(args, client)
        return work(client, streams)
    except NoStreamError as error:
        return _error(f"{error}; for instance: {enable_stream_command(args, error.table)}")
    except (TransferError, FilterError, ValueError, ImportError) as error:
        return _error(str(error))
    except ClientError as error:
        return _error(f"{error.response['Error'].get('Code')}: {error.response['Error'].get('Message')}")
    except NoCredentialsError:
        return _error(f"no AWS credentials found: {missing_credentials_hint(args.endpoint_url)}")
    except BotoCoreError as error:
        return _error(str(error))
    except KeyboardInterrupt:
        if args.streams_command == "run":
            print(
                "\ndynabase streams: interrupted; run the same command again to carry on from the checkpoints",
                file=sys.stderr,
            )
        return EXIT_INTERRUPTED
    finally:
        if client is not None and hasattr(client, "close"):
            client.close()


def enable_stream_command(args: argparse.Namespace, table: str) -> str:
    """A shell command that enables ``table``'s stream where ``args`` reads it (a --db file, an endpoint)."""
    if args.db is not None:
        spec = '{"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}'
        code = (
            f"import dynabase; dynabase.connect({json.dumps(args.db)}).update_table("
            f"TableName={json.dumps(table)}, StreamSpecification={spec})"
        )
        return f"python -c {shlex.quote(code)}"
    region = f" --region {shlex.quote(args.region)}" if args.region else ""
    return (
        f"aws dynamodb update-table --table-name {shlex.quote(table)} "
        "--stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES "
        f"--endpoint-url {shlex.quote(args.endpoint_url)}{region}"
    )


def _aws_streams(args: argparse.Namespace, client: Any) -> Any:
    import boto3

    return boto3.client(
        "dynamodbstreams", endpoint_url=args.endpoint_url, region_name=client.meta.region_name
    )


# -- tail -------------------------------------------------------------------------------------------------------


def run_tail(args: argparse.Namespace) -> int:
    from ..streams import Consumer, Options, iter_records, stream_arn

    def work(client: Any, streams: Any) -> int:
        options = Options(starting_position=FROM[args.start], poll_interval=args.poll, batch_size=1000)
        consumer = Consumer(
            streams, stream_arn(client, args.table), lambda event, context: None, options=options
        )
        consumer.prime()
        with stop_on_signals(consumer.wake.set) as stop:
            if args.follow:
                _reading(f"following the stream of {args.table}")
            records = iter_records(consumer, stop) if args.follow else _caught_up(consumer, stop)
            for record in records:
                print(
                    _pretty(record) if args.format == "pretty" else json.dumps(record, default=str),
                    flush=True,
                )
        return EXIT_OK

    return _guarded(args, work)


def _caught_up(consumer: Any, stop: Any) -> list[dict]:
    out: list[dict] = []
    consumer.handler = lambda event, context: out.extend(event["Records"])
    consumer.run(stop, until_idle=True)
    return out


def _reading(what: str) -> None:
    """The line a long-running command prints once it is reading (scripts and tests wait for it)."""
    print(f"dynabase streams: {what}; Ctrl-C or SIGTERM stops", file=sys.stderr, flush=True)


def _pretty(record: dict) -> str:
    data = record["dynamodb"]
    when = datetime.fromtimestamp(data.get("ApproximateCreationDateTime", 0), timezone.utc)
    keys = " ".join(f"{k}={_plain(v)}" for k, v in data.get("Keys", {}).items())
    lines = [f"{when:%Y-%m-%dT%H:%M:%SZ} {record['eventName']:<6} {data['SequenceNumber']} {keys}"]
    for image in ("OldImage", "NewImage"):
        if image in data:
            attrs = data[image]  # the keys first, whatever order the image has them in
            names = [k for k in data.get("Keys", {}) if k in attrs] + [
                k for k in attrs if k not in data.get("Keys", {})
            ]
            body = ", ".join(f"{k}: {_plain(attrs[k])}" for k in names)
            lines.append(f"  {image[:3].lower()}: {{{body}}}")
    return "\n".join(lines)


def _plain(value: dict) -> str:
    """A string quoted, a number as DynamoDB's own text (every digit of up to 38), anything else typed."""
    ((kind, inner),) = value.items()
    if kind == "N":
        return str(inner)
    return json.dumps(inner) if kind == "S" else json.dumps({kind: inner}, default=str)


# -- run --------------------------------------------------------------------------------------------------------


def load_handler(spec: str) -> Any:
    """``module:function`` or ``path/to/file.py:function`` -> the function (ImportError / ValueError)."""
    module_name, sep, function = spec.rpartition(":")
    if not sep or not module_name or not function:
        raise ValueError(f"handler must be MODULE:FUNCTION, got {spec!r}")
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ImportError(f"no such file: {module_name}")
        loaded = importlib.util.spec_from_file_location(path.stem, path)
        assert loaded is not None and loaded.loader is not None
        module = importlib.util.module_from_spec(loaded)
        sys.modules[path.stem] = module
        loaded.loader.exec_module(module)
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        module = importlib.import_module(module_name)
    handler = getattr(module, function, None)
    if not callable(handler):
        raise ValueError(f"{module_name} has no function {function!r}")
    return handler


def _timestamp(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--timestamp must be ISO 8601 or epoch seconds, got {text!r}") from None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def _filters(args: argparse.Namespace) -> list[dict]:
    from ..streams.filters import compile_filters

    patterns = compile_filters(args.filter or [])
    if args.event_name:
        names = sorted(set(args.event_name))
        patterns = [{**p, "eventName": names} for p in patterns] or [{"eventName": names}]
    return patterns


def _store(text: str | None, client: Any, default: str) -> Any:
    from ..streams import SqliteCheckpoints, TableCheckpoints

    text = text or default
    if text.startswith("table:"):
        return TableCheckpoints(client, text[len("table:") :])
    return SqliteCheckpoints(text)


def _destination(text: str | None, client: Any) -> Any:
    from ..streams import JsonLinesDestination, TableDestination

    if text is None:
        return None
    if text.startswith("table:"):
        return TableDestination(client, text[len("table:") :])
    return JsonLinesDestination(text)


def run_run(args: argparse.Namespace) -> int:
    from ..streams import Consumer, Options

    def work(client: Any, streams: Any) -> int:
        handler = load_handler(args.handler)
        if getattr(handler, "needs_schema", False) and not args.schema:
            raise ValueError(f"{args.handler} needs the schema: add --schema FILE")
        options = Options(
            batch_size=args.batch_size,
            batching_window=args.batching_window,
            starting_position=FROM[args.start],
            starting_timestamp=_timestamp(args.timestamp),
            filters=_filters(args),
            max_retries=args.max_retries,
            bisect_on_error=args.bisect,
            report_batch_item_failures=args.report_batch_item_failures,
            parallel_shards=args.parallel,
            poll_interval=args.poll,
        )
        table = None
        if args.schema:
            from ..model import Table
            from ..schema import load_schema

            table = Table(args.table, client, load_schema(Path(args.schema)))
        consumer = Consumer.for_table(
            client,
            args.table,
            handler,
            streams=streams,
            name=args.name or args.handler,
            options=options,
            checkpoints=_store(args.checkpoints, client, args.db or "dynabase-checkpoints.db"),
            on_failure=_destination(args.on_failure, client),
            table=table,
        )
        with stop_on_signals(consumer.wake.set) as stop:
            if not args.until_idle:
                _reading(f"running {args.handler} on the stream of {args.table}")
            handled = consumer.run(stop, until_idle=args.until_idle)
            consumer.drain()  # what the handler still buffers is written before the checkpoints move
        print(
            f"dynabase streams: {handled} records read, {consumer.handled} handled, {consumer.failed} failed",
            file=sys.stderr,
        )
        if stop.is_set():
            print(
                "dynabase streams: stopped; run the same command again to carry on from the checkpoints",
                file=sys.stderr,
            )
        return EXIT_OK

    return _guarded(args, work)
