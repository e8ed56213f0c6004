"""Schema tools: ``dynabase validate``, ``docs``, ``iac`` and ``import-workbench``.

    dynabase validate schema.json5 [--json]
    dynabase docs schema.json5 [--out DIR] [--format md|html] [--title TEXT]
    dynabase iac schema.json5 --table NAME [--format cloudformation|cloudformation-yaml|terraform|workbench|
                 create-table] [--billing PAY_PER_REQUEST|PROVISIONED] [--stream VIEW] [--ttl [ATTR]] ...
                 [--sync mqtt [--iot-identity thing|client-id] [--schema-path PATH]]
    dynabase import-workbench model.json --out schema.json [--table NAME]
    dynabase typegen schema.json5 [-o models.py] [--numbers auto|int|float|decimal]

SCHEMA is a .json, .json5, .yaml or .yml file, or ``-`` for standard input. Exit status: 0 done, 1 the
schema (or model) is invalid or another error, 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .arguments import positive_int

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
# kept here (not imported from dynabase.tools) so that building the parser stays cheap
DOC_FORMATS = ("md", "html")
IAC_FORMATS = ("cloudformation", "cloudformation-yaml", "terraform", "workbench", "create-table")
BILLING_MODES = ("PAY_PER_REQUEST", "PROVISIONED")
STREAM_VIEW_TYPES = ("NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY")
NUMBER_MODES = ("auto", "int", "float", "decimal")  # dynabase.model.typegen.NUMBER_MODES
SYNC_DEPLOYMENTS = ("mqtt",)
IOT_IDENTITIES = ("thing", "client-id")  # dynabase.tools.iac_mqtt.IOT_IDENTITIES


def _tag(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def register(commands: Any) -> None:
    p = commands.add_parser(
        "validate",
        help="check a OneTable schema file",
        description="Validate a OneTable 1.1.0 schema. Errors go to stderr as 'path: message' lines "
        "(exit 1); warnings as 'warning: path: message' (the schema is still valid, exit 0).",
    )
    p.add_argument("schema", metavar="SCHEMA", help="schema file (.json, .json5, .yaml, .yml) or '-'")
    p.add_argument("--json", action="store_true", help="print the result and every issue as JSON on stdout")
    p.set_defaults(run=run_validate)

    p = commands.add_parser(
        "docs",
        help="write data-model documentation of a schema (Markdown or HTML)",
        description="Document a schema in the style of a data-model page: indexes, entities per partition "
        "(Mermaid), and per entity its key formats, attributes and indexes. Prints to stdout unless --out.",
    )
    p.add_argument("schema", metavar="SCHEMA", help="schema file or '-'")
    p.add_argument("--out", "-o", metavar="DIR", help="write DIR/<schema name>.<format> instead of printing")
    p.add_argument("--format", "-f", choices=DOC_FORMATS, default="md", help="default: %(default)s")
    p.add_argument("--title", help="page title (default: the schema's name, else the file name)")
    p.set_defaults(run=run_docs)

    p = commands.add_parser(
        "iac",
        help="infrastructure as code for a schema's table (CloudFormation, Terraform, NoSQL Workbench)",
        description="Generate the table definition from the schema's indexes: a CloudFormation template "
        "(JSON or YAML), Terraform JSON, a NoSQL Workbench data model or a CreateTable request. With --sync mqtt, "
        "the CloudFormation or Terraform also deploys the MQTT sync hub on AWS IoT Core and Lambda (docs/aws.md).",
    )
    p.add_argument("schema", metavar="SCHEMA", help="schema file or '-'")
    p.add_argument("--table", "-t", required=True, metavar="NAME", help="the DynamoDB table name")
    p.add_argument(
        "--format", "-f", choices=IAC_FORMATS, default="cloudformation", help="default: %(default)s"
    )
    p.add_argument("--billing", choices=BILLING_MODES, default="PAY_PER_REQUEST", help="default: %(default)s")
    p.add_argument(
        "--read-capacity", type=positive_int, default=5, metavar="N", help="PROVISIONED (default 5)"
    )
    p.add_argument(
        "--write-capacity", type=positive_int, default=5, metavar="N", help="PROVISIONED (default 5)"
    )
    p.add_argument(
        "--stream",
        choices=STREAM_VIEW_TYPES,
        metavar="VIEW",
        help="enable a stream: " + ", ".join(STREAM_VIEW_TYPES),
    )
    ttl = p.add_mutually_exclusive_group()
    ttl.add_argument(
        "--ttl",
        nargs="?",
        const=True,
        metavar="ATTR",
        help="enable TTL (on the schema's ttl field, which is the default when it has one, or ATTR)",
    )
    ttl.add_argument("--no-ttl", dest="ttl", action="store_false", default=None, help="leave TTL off")
    p.add_argument("--no-pitr", dest="pitr", action="store_false", help="no point-in-time recovery")
    p.add_argument(
        "--no-deletion-protection",
        dest="deletion_protection",
        action="store_false",
        help="default the DeletionProtection parameter to false",
    )
    p.add_argument("--tag", type=_tag, action="append", default=[], metavar="KEY=VALUE", help="a table tag")
    p.add_argument(
        "--sync",
        choices=SYNC_DEPLOYMENTS,
        help="also deploy the sync hub: mqtt = device policy, topic rule, functions and roles on AWS IoT Core and "
        "Lambda, and the table's NEW_AND_OLD_IMAGES stream (cloudformation, cloudformation-yaml, terraform)",
    )
    p.add_argument(
        "--iot-identity",
        choices=IOT_IDENTITIES,
        help="--sync mqtt: a device connects as the IoT thing its certificate is attached to (thing, the "
        "default) or as any client id without '/', '+', '#' (client-id)",
    )
    p.add_argument(
        "--schema-path",
        metavar="PATH",
        help="--sync mqtt: the schema file's path inside the functions' deployment package (default: the "
        "SCHEMA file's name)",
    )
    p.add_argument("--out", "-o", metavar="FILE", help="write to FILE instead of stdout")
    p.set_defaults(run=run_iac)

    p = commands.add_parser(
        "import-workbench",
        help="read a NoSQL Workbench data model into a OneTable schema",
        description="Convert a NoSQL Workbench model (JSON) into a OneTable schema: its indexes, one model "
        "per facet with key templates from the key aliases and sample items, non-key attributes as fields.",
    )
    p.add_argument("model", metavar="MODEL.json", help="the Workbench model file")
    p.add_argument(
        "--out",
        "-o",
        required=True,
        metavar="SCHEMA.json",
        help="the schema file to write (.json; .yaml/.yml needs PyYAML)",
    )
    p.add_argument("--table", "-t", metavar="NAME", help="which table of the model (when it has several)")
    p.add_argument("--version", default="1.0.0", help="the schema's version (default %(default)s)")
    p.set_defaults(run=run_import_workbench)

    p = commands.add_parser(
        "typegen",
        help="write typed models (entity classes and accessors) for a schema",
        description="Generate a Python module of typed models from a schema: an entity class per model (what "
        "reads return), TypedDicts of the arguments, and an accessor whose create/get/find/update/remove a "
        "type checker understands. See docs/typed.md.",
    )
    p.add_argument("schema", metavar="SCHEMA", help="schema file or '-'")
    p.add_argument("-o", "--out", metavar="FILE", help="write FILE (.py) instead of printing ('-' prints)")
    p.add_argument(
        "--numbers",
        choices=NUMBER_MODES,
        default="auto",
        help="the type of number fields: auto is what reads return, int | Decimal (default: %(default)s)",
    )
    p.set_defaults(run=run_typegen)


def _issues_json(path: str, issues: list) -> dict:
    errors = [i for i in issues if i.severity == "error"]
    return {
        "schema": path,
        "valid": not errors,
        "errors": len(errors),
        "warnings": len(issues) - len(errors),
        "issues": [{"path": i.path, "message": i.message, "severity": i.severity} for i in issues],
    }


def run_validate(args: argparse.Namespace) -> int:
    from ..tools.common import validate

    issues = validate(args.schema)
    errors = [i for i in issues if i.severity == "error"]
    if args.json:
        print(json.dumps(_issues_json(args.schema, issues), indent=2, ensure_ascii=False))
        return EXIT_ERROR if errors else EXIT_OK
    for issue in issues:
        print(("warning: " if issue.severity == "warning" else "") + str(issue), file=sys.stderr)
    if errors:
        print(
            f"{args.schema}: invalid ({len(errors)} error{'s' if len(errors) != 1 else ''})", file=sys.stderr
        )
        return EXIT_ERROR
    warnings = len(issues)
    note = f" ({warnings} warning{'s' if warnings != 1 else ''})" if warnings else ""
    print(f"{args.schema}: valid{note}")
    return EXIT_OK


def _load(path: str) -> Any:
    """The schema, or ``None`` after printing its errors."""
    from ..schema import SchemaError
    from ..tools.common import load

    try:
        return load(path)
    except SchemaError as exc:
        _print_issues(exc, f"{path}: invalid schema")
        return None


def _print_issues(error: Any, summary: str) -> None:
    """A SchemaError's issues, one per line, then what they mean for the command."""
    for issue in error.errors:
        print(str(issue), file=sys.stderr)
    print(summary, file=sys.stderr)


def _emit(text: str, target: str | Path | None, details: str = "") -> int:
    """Write a command's output to ``target`` (standard output when None), saying where it went."""
    if not target:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    print(f"wrote {target}{details}", file=sys.stderr)
    return EXIT_OK


def run_docs(args: argparse.Namespace) -> int:
    from ..tools import docs
    from ..tools.common import schema_title

    schema = _load(args.schema)
    if schema is None:
        return EXIT_ERROR
    doc = docs.build(schema, title=args.title or schema_title(schema, args.schema))
    text = docs.render_markdown(doc) if args.format == "md" else docs.render_html(doc)
    if not args.out:
        return _emit(text, None)
    stem = Path(args.schema).stem if args.schema != "-" else "schema"
    return _emit(text, Path(args.out) / f"{stem}.{args.format}")


def run_iac(args: argparse.Namespace) -> int:
    from ..tools import iac

    if args.sync is None and (args.schema_path is not None or args.iot_identity is not None):
        print("dynabase iac: --schema-path and --iot-identity go with --sync mqtt", file=sys.stderr)
        return EXIT_USAGE
    schema = _load(args.schema)
    if schema is None:
        return EXIT_ERROR
    options = iac.IacOptions(
        table=args.table,
        billing=args.billing,
        read_capacity=args.read_capacity,
        write_capacity=args.write_capacity,
        stream=args.stream,
        ttl=args.ttl,
        pitr=args.pitr,
        deletion_protection=args.deletion_protection,
        tags=dict(args.tag),
    )
    try:
        if args.sync == "mqtt":
            text, extras = _render_mqtt(schema, args, options), []
        else:
            text = iac.render(schema, args.format, options)
            extras = (
                iac.table_extras_commands(iac.cloudformation(schema, options))
                if args.format == "create-table"
                else []
            )
    except (ValueError, RuntimeError) as exc:
        print(f"dynabase iac: {exc}", file=sys.stderr)
        return EXIT_ERROR
    code = _emit(text, args.out)
    if extras:  # CreateTable cannot carry them: a table made from the request alone would lack them
        print(
            "dynabase iac: CreateTable cannot enable TTL or point-in-time recovery; once the table is ACTIVE "
            f"(aws dynamodb wait table-exists --table-name {args.table}), run:",
            file=sys.stderr,
        )
        for command in extras:
            print(f"  {command}", file=sys.stderr)
    return code


def _render_mqtt(schema: Any, args: argparse.Namespace, options: Any) -> str:
    from ..tools import iac_mqtt

    path = args.schema_path or (Path(args.schema).name if args.schema != "-" else "schema.json")
    return iac_mqtt.render(
        schema, args.format, options, iac_mqtt.MqttOptions(path, args.iot_identity or "thing")
    )


def run_import_workbench(args: argparse.Namespace) -> int:
    from ..schema import SchemaError
    from ..tools.iac import to_yaml
    from ..tools.workbench import import_workbench

    try:
        model = json.loads(Path(args.model).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        print(f"cannot read {args.model}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except json.JSONDecodeError as exc:
        print(f"{args.model}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}", file=sys.stderr)
        return EXIT_ERROR
    if not isinstance(model, dict):
        print(f"{args.model}: a NoSQL Workbench model is a JSON object", file=sys.stderr)
        return EXIT_ERROR
    try:
        schema = import_workbench(model, table=args.table, version=args.version)
    except SchemaError as exc:
        _print_issues(exc, f"{args.model}: cannot import")
        return EXIT_ERROR
    try:
        if Path(args.out).suffix.lower() in (".yaml", ".yml"):
            text = to_yaml(schema)
        else:
            text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    except RuntimeError as exc:
        print(f"dynabase import-workbench: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return _emit(text, args.out, f": {len(schema['models'])} models, {len(schema['indexes'])} indexes")


def run_typegen(args: argparse.Namespace) -> int:
    from ..model.errors import OneTableError
    from ..model.typegen import typegen

    schema = _load(args.schema)
    if schema is None:
        return EXIT_ERROR
    try:
        source = typegen(schema, numbers=args.numbers)
    except OneTableError as exc:
        print(f"{args.schema}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return _emit(source, None if args.out in (None, "-") else args.out)
