"""Record ``recorded.py`` again from DynamoDB Local: every case's expression is run against Local and the file
is rewritten with Local's answers, in the committed format (``pprint`` at width 110, then ``ruff format``).

    python tests/expressions/record.py            # starts DynamoDB Local as the test harness does, rewrites
    python tests/expressions/record.py --check    # prints the differences, writes nothing (exit 1 if any)
    DYNAMODB_LOCAL_ENDPOINT=http://127.0.0.1:8000 python tests/expressions/record.py   # a running Local

The expressions are the ones in the committed file (its cases are the list to record), as are ITEM, VALUES and
NAMES; each case gets only the placeholders it mentions, as ``test_recorded.py`` gives them. Needs Java (the
harness installs Local with npm into ``.cache/dynamodb-local``) and ruff (in the test extra). ``record`` takes
any client: ``test_record.py`` runs it on the embedded engine, which must answer exactly as recorded.
"""

from __future__ import annotations

import argparse
import difflib
import os
import pprint
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TARGET = HERE / "recorded.py"
SECTIONS = ("ITEM", "VALUES", "NAMES", "CONDITION_CASES", "UPDATE_CASES", "PROJECTION_CASES", "KEY_CASES")
HEADER = '''"""Expressions and DynamoDB Local's answers to them, recorded from DynamoDB Local {version} ({released}).

Each case ran against ITEM (put afresh) with the placeholders it mentions taken from NAMES and VALUES:
conditions through DeleteItem's ConditionExpression (True/False or the error), updates through UpdateItem
with ReturnValues ALL_NEW, projections through GetItem, key conditions through Query on a table whose key is
pk (S, hash) and sk (N, range). Regenerate rather than edit by hand.
"""

# ruff: noqa: E501

'''
HEADER_PATTERN = re.compile(r"recorded from DynamoDB Local (\S+) \((\d{4}-\d\d-\d\d)\)\.")


def render(version: str, released: str, sections: dict[str, Any]) -> str:
    """The text of ``recorded.py`` for these sections (``SECTIONS``, in that order)."""
    body = "\n\n".join(f"{name} = {pprint.pformat(sections[name], width=110)}" for name in SECTIONS)
    text = HEADER.format(version=version, released=released) + body + "\n"
    command = [sys.executable, "-m", "ruff", "format", "--isolated", "--line-length", "110", "-"]
    formatted = subprocess.run(command, input=text, capture_output=True, text=True, encoding="utf-8")
    if formatted.returncode != 0:
        raise RuntimeError(f"ruff format failed (pip install ruff): {formatted.stderr.strip()}")
    return formatted.stdout


def committed() -> tuple[str, str, dict[str, Any]]:
    """The committed file's Local version, its date and its sections."""
    text = TARGET.read_text(encoding="utf-8")
    found = HEADER_PATTERN.search(text)
    if found is None:
        raise ValueError(f"{TARGET}: no 'recorded from DynamoDB Local VERSION (DATE).' in its docstring")
    namespace: dict[str, Any] = {}
    exec(compile(text, str(TARGET), "exec"), namespace)  # our own file, as the tests import it
    return found.group(1), found.group(2), {name: namespace[name] for name in SECTIONS}


# -- asking DynamoDB Local -------------------------------------------------------------------------------------

TABLE, KEY_TABLE = "recorded-expressions", "recorded-key-conditions"


def placeholders(expression: str, sections: dict[str, Any], with_values: bool = True) -> dict[str, Any]:
    """ExpressionAttributeNames / Values for the placeholders ``expression`` mentions (as the replay binds)."""
    out: dict[str, Any] = {}
    names = {
        k: sections["NAMES"][k]
        for k in sorted(set(re.findall(r"#\w+", expression)))
        if k in sections["NAMES"]
    }
    values = {
        k: sections["VALUES"][k]
        for k in sorted(set(re.findall(r":\w+", expression)))
        if k in sections["VALUES"]
    }
    if names:
        out["ExpressionAttributeNames"] = names
    if values and with_values:
        out["ExpressionAttributeValues"] = values
    return out


def _answer(call: Callable[[], Any]) -> Any:
    """``call()``'s answer, or ``{"error": message}`` for a ValidationException (other errors propagate)."""
    from botocore.exceptions import ClientError

    try:
        return call()
    except ClientError as error:
        if error.response["Error"]["Code"] != "ValidationException":
            raise
        return {"error": error.response["Error"]["Message"]}


SET_LISTING = re.compile(r"\{([A-Z]+(?:,[A-Z]+)+)\}")


def keep_listing_order(before: Any, now: Any) -> Any:
    """``before`` when ``now`` differs from it only in the order of a ``{A,B,...}`` listing: DynamoDB Local lists
    the valid type names of attribute_type from a Java hash set, in another order on every run of the JVM (the
    engine answers with the order recorded first)."""

    def sorted_listings(answer: Any) -> Any:
        if not (isinstance(answer, dict) and isinstance(answer.get("error"), str)):
            return answer
        return SET_LISTING.sub(lambda m: ",".join(sorted(m.group(1).split(","))), answer["error"])

    return before if before != now and sorted_listings(before) == sorted_listings(now) else now


def keep_listed_difference(before: Any, now: Any) -> Any:
    """``before`` (Local's recorded error) when ``now`` is the engine's AWS wording of it, a difference listed in
    ``tests/aws_differences.py``; else ``now``."""
    if not (isinstance(before, dict) and isinstance(now, dict) and before != now):
        return now
    if str(HERE.parent) not in sys.path:
        sys.path.insert(0, str(HERE.parent))
    from aws_differences import difference

    known = difference("ValidationException", before.get("error"), now.get("error"))
    return before if known is not None else now


def record(client: Any, sections: dict[str, Any]) -> dict[str, Any]:
    """Every case's expression asked of ``client`` (DynamoDB Local): the sections with Local's answers."""
    item, key = sections["ITEM"], {"pk": sections["ITEM"]["pk"]}

    def fresh() -> None:
        client.put_item(TableName=TABLE, Item=item)

    def condition(expression: str) -> Any:
        fresh()
        try:
            client.delete_item(
                TableName=TABLE, Key=key, ConditionExpression=expression, **placeholders(expression, sections)
            )
        except client.exceptions.ConditionalCheckFailedException:
            return False
        return True

    def update(expression: str) -> Any:
        fresh()
        answer = client.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression=expression,
            ReturnValues="ALL_NEW",
            **placeholders(expression, sections),
        )
        return answer["Attributes"]

    def projection(expression: str) -> Any:
        fresh()
        found = client.get_item(
            TableName=TABLE,
            Key=key,
            ProjectionExpression=expression,
            **placeholders(expression, sections, False),
        )
        return found.get("Item", {})

    def key_condition(expression: str) -> Any:
        client.query(
            TableName=KEY_TABLE, KeyConditionExpression=expression, **placeholders(expression, sections)
        )
        return "OK"

    asks = {
        "CONDITION_CASES": condition,
        "UPDATE_CASES": update,
        "PROJECTION_CASES": projection,
        "KEY_CASES": key_condition,
    }
    out = dict(sections)
    for name, ask in asks.items():
        out[name] = [
            (
                expression,
                keep_listed_difference(
                    before, keep_listing_order(before, _answer(lambda e=expression, a=ask: a(e)))
                ),
            )
            for expression, before in sections[name]
        ]
    return out


def create_tables(client: Any) -> None:
    for name, keys in (
        (TABLE, [("pk", "S", "HASH")]),
        (KEY_TABLE, [("pk", "S", "HASH"), ("sk", "N", "RANGE")]),
    ):
        client.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": a, "KeyType": k} for a, _, k in keys],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t, _ in keys],
            BillingMode="PAY_PER_REQUEST",
        )


def local_version(jar_dir: Path) -> tuple[str, str]:
    """DynamoDB Local's version (``-version``) and release date (the npm package's jar directory name)."""
    jar = jar_dir / "DynamoDBLocal.jar"
    version = subprocess.run(
        ["java", "-jar", str(jar), "-version"], capture_output=True, text=True, timeout=120
    )
    released = re.search(r"\d{4}-\d\d-\d\d", jar_dir.name)
    return version.stdout.strip() or "unknown", released.group(0) if released else "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="print the differences; write nothing")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE.parent))  # the harness: tests/backends.py
    from backends import DynamoDBLocal, boto3_client, ensure_dynamodb_local

    _, _, sections = committed()
    endpoint = os.environ.get("DYNAMODB_LOCAL_ENDPOINT")
    jar_dir = ensure_dynamodb_local()
    version, released = local_version(jar_dir)
    local = None if endpoint else DynamoDBLocal(jar_dir)
    try:
        if local is not None:
            endpoint = local.start()
        client = boto3_client("dynamodb", endpoint)
        create_tables(client)
        text = render(version, released, record(client, sections))
    finally:
        if local is not None:
            local.close()
    old = TARGET.read_text(encoding="utf-8")
    diff = list(
        difflib.unified_diff(old.splitlines(), text.splitlines(), "committed", "recorded", lineterm="")
    )
    print("\n".join(diff) if diff else f"{TARGET.name}: DynamoDB Local {version} answers as recorded")
    if not args.check:
        TARGET.write_text(text, encoding="utf-8")
    return 1 if diff and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
