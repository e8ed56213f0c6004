"""``dynabase export`` / ``dynabase import``: a table to and from JSON lines or DynamoDB's S3 export format.

    dynabase export orders --db app.db --out orders.jsonl
    dynabase export orders --endpoint-url http://localhost:8000 --out orders-export --format s3 --segments 4
    dynabase import orders-export --table orders --db copy.db --create

Exit status: 0 done, 2 import finished but some lines were rejected (see the rejects file), 1 error,
130 interrupted (an import resumes from its checkpoint when run again).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import StorageError
from ..server.options import add_adopt
from .arguments import positive_int

EXIT_OK, EXIT_ERROR, EXIT_REJECTS, EXIT_INTERRUPTED = 0, 1, 2, 130
FORMATS = ("jsonl", "s3")  # dynabase.transfer.FORMATS, without importing it for every command


def _add_connection(parser: argparse.ArgumentParser) -> None:
    where = parser.add_argument_group("database (exactly one of --db / --endpoint-url)")
    exclusive = where.add_mutually_exclusive_group(required=True)
    exclusive.add_argument("--db", metavar="FILE", help="an embedded dynabase database file")
    exclusive.add_argument(
        "--endpoint-url", metavar="URL", help="a DynamoDB endpoint: AWS, DynamoDB Local, `dynabase serve`"
    )
    where.add_argument(
        "--region",
        metavar="R",
        help="region for --endpoint-url (default: AWS_REGION, AWS_DEFAULT_REGION, us-east-1)",
    )
    add_adopt(parser)


def register(commands: Any) -> None:
    export = commands.add_parser(
        "export",
        help="export a table to JSON lines or DynamoDB's S3 export format",
        description='Scan a table into JSON lines (one {"Item": ...} per line, DynamoDB JSON, binaries in '
        "base64; gzip'd when --out ends in .gz) or, with --format s3, a directory laid out like DynamoDB's "
        "export to S3 (manifest-summary.json, manifest-files.json, data/*.json.gz). The table's definition "
        "goes to NAME.table.json beside a JSON lines file, or table.json inside the directory.",
    )
    export.add_argument("table", metavar="TABLE", help="the table to export")
    _add_connection(export)
    export.add_argument(
        "--out", "-o", required=True, metavar="PATH", help="output file (jsonl) or directory (s3)"
    )
    export.add_argument(
        "--format", choices=FORMATS, default="jsonl", help="output format (default: %(default)s)"
    )
    export.add_argument(
        "--segments", type=positive_int, default=1, metavar="N", help="parallel scan segments (default: 1)"
    )
    export.add_argument("--force", action="store_true", help="overwrite an existing output")
    export.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    export.set_defaults(run=run_export)

    load = commands.add_parser(
        "import",
        help="import JSON lines or an S3 export into a table (resumable)",
        description="Write every item of a JSON lines file or a DynamoDB S3 export directory (detected "
        "automatically) into a table with BatchWriteItem. Resumable: a checkpoint (PATH.dynabase-progress) "
        "records progress per destination (the --db file, or --endpoint-url and region, and the table) and a "
        "re-run into the same destination carries on from it; an import into another destination starts "
        "from the beginning, with a note, and each keeps its own progress. Bad lines are reported with file "
        "and line number and saved to PATH.rejects.jsonl (PATH.<destination>.rejects.jsonl when another "
        "destination's import keeps its rejects there); the rest is imported (exit status 2 when any were "
        "rejected).",
    )
    load.add_argument("path", metavar="PATH", help="a .jsonl file (plain or gzip) or an S3 export directory")
    load.add_argument(
        "--table", metavar="NAME", help="target table (default: the name in the export's table.json)"
    )
    _add_connection(load)
    load.add_argument(
        "--create",
        action="store_true",
        help="create the table from table.json if it doesn't exist (and the --db file)",
    )
    load.add_argument(
        "--checkpoint", metavar="FILE", help="checkpoint file (default: PATH.dynabase-progress)"
    )
    load.add_argument("--rejects", metavar="FILE", help="rejected lines file (default: PATH.rejects.jsonl)")
    load.add_argument(
        "--restart",
        action="store_true",
        help="import from the start, dropping this destination's progress in the checkpoint",
    )
    load.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    load.set_defaults(run=run_import)


def _client(args: argparse.Namespace, *, may_create: bool, create_flag: str | None = None) -> Any:
    """The --db database or the --endpoint-url client. A missing --db file is created only when
    ``may_create``; otherwise the error names ``create_flag``, the option of this command that creates it."""
    from .. import aws, connect
    from ..transfer import TransferError

    if args.db is not None:
        if args.db != ":memory:" and not Path(args.db).exists() and not may_create:
            hint = f" (add {create_flag} to create it)" if create_flag else ""
            raise TransferError(f"database file {args.db} does not exist{hint}")
        try:
            options = {"region": args.region} if args.region else {}
            return connect(args.db, ttl_sweep_seconds=None, adopt=getattr(args, "adopt", False), **options)
        except StorageError as error:  # its message names the path and the reason
            raise TransferError(str(error))
        except Exception as error:  # locked, ...: a user error, not a crash
            raise TransferError(f"cannot open database {args.db}: {error}")
    region = (
        args.region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    )
    return aws(endpoint_url=args.endpoint_url, region=region)


def _error(command: str, message: str) -> int:
    print(f"dynabase {command}: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _guarded(command: str, args: argparse.Namespace, work: Any) -> int:
    """Run ``work(client)``; user errors become one message and exit status 1, not a traceback."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    from ..endpoints import missing_credentials_hint
    from ..transfer import TransferError
    from ..transfer.tabledef import error_message

    client = None
    try:
        creates = command == "import"  # --create: the table from table.json, and the database file
        client = _client(
            args, may_create=creates and args.create, create_flag="--create" if creates else None
        )
        return work(client)
    except TransferError as error:
        return _error(command, str(error))
    except ClientError as error:
        return _error(command, error_message(error))
    except NoCredentialsError:
        return _error(command, f"no AWS credentials found: {missing_credentials_hint(args.endpoint_url)}")
    except BotoCoreError as error:
        return _error(command, str(error))
    except BrokenPipeError:  # the reader of stdout/stderr went away (network errors come as botocore's)
        raise
    except OSError as error:
        where = f" {error.filename}" if getattr(error, "filename", None) else ""
        return _error(command, f"{error.strerror or error}{where}")
    except KeyboardInterrupt:
        if command == "import":
            print(
                "\ndynabase import: interrupted; progress is saved in the checkpoint: run the same command "
                "again to resume",
                file=sys.stderr,
            )
        else:
            print("\ndynabase export: interrupted; nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if client is not None and hasattr(client, "close"):
            client.close()


def run_export(args: argparse.Namespace) -> int:
    from ..transfer import export_table

    def work(client: Any) -> int:
        summary = export_table(
            client,
            args.table,
            args.out,
            format=args.format,
            segments=args.segments,
            overwrite=args.force,
            progress=not args.quiet,
        )
        print(
            f"exported {summary.items:,} items from {summary.table} to {summary.path} "
            f"({summary.format}, {summary.segments} segment{'s' if summary.segments != 1 else ''}) "
            f"in {summary.seconds:.1f}s; table definition in {summary.table_file}"
        )
        return EXIT_OK

    return _guarded("export", args, work)


def run_import(args: argparse.Namespace) -> int:
    from ..transfer import import_table

    def work(client: Any) -> int:
        summary = import_table(
            client,
            args.path,
            table=args.table,
            create=args.create,
            checkpoint=args.checkpoint,
            rejects=args.rejects,
            restart=args.restart,
            progress=not args.quiet,
        )
        if summary.already_complete:
            line = (
                f"nothing to do: {summary.path} was already imported into {summary.destination} "
                f"(checkpoint {summary.checkpoint}; pass --restart to import it again)"
            )
        else:
            created = f"created table {summary.table}; " if summary.created else ""
            resumed = " (resumed)" if summary.resumed else ""
            line = (
                f"{created}imported {summary.imported:,} of {summary.lines:,} lines into {summary.table} "
                f"from {summary.path}{resumed} in {summary.seconds:.1f}s"
            )
        if summary.rejected:
            plural = "lines were" if summary.rejected != 1 else "line was"
            line += f"; {summary.rejected:,} {plural} REJECTED: see {summary.rejects}"
        print(line)
        return EXIT_REJECTS if summary.rejected else EXIT_OK

    return _guarded("import", args, work)
