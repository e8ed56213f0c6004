"""Run one scenario through OneTable (Node, ``runner.mjs``) and through dynabase, and compare what they stored.

OneTable is installed on demand, pinned, like the harness installs DynamoDB Local::

    npm install --no-save --prefix <repo>/.cache/onetable dynamodb-onetable@2.7.7 \\
        @aws-sdk/client-dynamodb@3.1164.0 @aws-sdk/util-dynamodb@3.996.9

(:func:`ensure_onetable`; the tests skip, saying so, only when ``node`` or ``npm`` is not on the PATH).

Comparison is of JSON documents after :class:`Normaliser`: generated ids (ULIDs, UUIDs, and any extra patterns
a scenario names) become ``<ULID#1>``, ``<UUID#2>``... in order of first appearance, and the values of the
timestamp attributes (``created`` / ``updated`` or the schema's renamed fields) become a marker that keeps the
stored type and format: ``{"S": "<TS:ISO>"}`` for a ``Date.toISOString()`` string, ``{"N": "<TS:EPOCH_MS>"}``
for epoch milliseconds.  Anything else in another format is left as it is, so it shows up as a difference.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

from installs import file_lock

REPO_ROOT = Path(__file__).resolve().parents[2]
ONETABLE_PREFIX = REPO_ROOT / ".cache" / "onetable"
RUNNER = Path(__file__).resolve().parent / "runner.mjs"

#: pinned so every machine compares against the same OneTable (the newest at the time of writing)
NPM_PACKAGES = {
    "dynamodb-onetable": "2.7.7",
    "@aws-sdk/client-dynamodb": "3.1164.0",
    "@aws-sdk/util-dynamodb": "3.996.9",
}


class OneTableUnavailable(RuntimeError):
    """node or npm is missing: the comparison cannot run here."""


# -- installing OneTable ------------------------------------------------------------------------------------------


def _installed_version(prefix: Path, package: str) -> str | None:
    try:
        return json.loads((prefix / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def ensure_onetable(prefix: Path = ONETABLE_PREFIX) -> Path:
    """The npm prefix holding the pinned OneTable and AWS SDK, installing them first if needed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise OneTableUnavailable(
            "node and npm are not on the PATH: cannot install and run dynamodb-onetable to compare with"
        )
    with file_lock(prefix / ".install.lock"):
        if all(_installed_version(prefix, name) == version for name, version in NPM_PACKAGES.items()):
            return prefix
        command = [
            npm,
            "install",
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(prefix),
            *(f"{name}@{version}" for name, version in NPM_PACKAGES.items()),
        ]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        missing = [n for n, v in NPM_PACKAGES.items() if _installed_version(prefix, n) != v]
        if result.returncode != 0 or missing:
            raise RuntimeError(
                f"installing OneTable failed (exit {result.returncode}, missing {missing}): {' '.join(command)}\n"
                f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
            )
        return prefix


def run_onetable(prefix: Path, endpoint: str, schema: Any, options: dict, phases: list[dict]) -> dict:
    """Run ``phases`` (``{"table", "create", "steps"}``) through OneTable; returns the runner's document."""
    document = {
        "prefix": str(prefix),
        "endpoint": endpoint,
        "schema": schema,
        "options": options,
        "phases": phases,
    }
    env = dict(os.environ, NODE_NO_WARNINGS="1")
    result = subprocess.run(
        [shutil.which("node") or "node", str(RUNNER)],
        input=json.dumps(document),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    if result.returncode != 0:
        raise RuntimeError(f"runner.mjs failed (exit {result.returncode}):\n{result.stderr}")
    return json.loads(result.stdout)


# -- typed values: the JSON spelling of Dates, Sets and Buffers shared with runner.mjs --------------------------------


def decode_typed(value: Any) -> Any:
    """``{"$date": iso}`` -> datetime, ``{"$set": [...]}`` -> set, ``{"$bytes": b64}`` -> bytes (recursively)."""
    if isinstance(value, list):
        return [decode_typed(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            (key, inner), *_ = value.items()
            if key == "$date":
                return datetime.fromisoformat(inner.replace("Z", "+00:00"))
            if key == "$set":
                return {decode_typed(v) for v in inner}
            if key == "$bytes":
                return base64.b64decode(inner)
        return {k: decode_typed(v) for k, v in value.items()}
    return value


def decode_steps(steps: list) -> list:
    return [
        [model, op, decode_typed(props or {}), decode_typed(params or {})]
        for model, op, props, params in steps
    ]


# -- raw items ------------------------------------------------------------------------------------------------------


def raw_json(value: Any) -> Any:
    """A boto3 / embedded AttributeValue item -> the runner's JSON form (binary as base64)."""
    if isinstance(value, dict):
        return {k: raw_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [raw_json(v) for v in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode()
    return value


def scan_raw(client: Any, table: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = client.scan(**kwargs)
        items.extend(raw_json(page["Items"]))
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _sorted_sets(value: Any) -> Any:
    """Sets are unordered: sort SS / NS / BS members (recursively)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("SS", "BS") and isinstance(v, list):
                out[k] = sorted(v)
            elif k == "NS" and isinstance(v, list):
                out[k] = sorted(v, key=lambda n: (float(n), n))
            else:
                out[k] = _sorted_sets(v)
        return out
    if isinstance(value, list):
        return [_sorted_sets(v) for v in value]
    return value


# -- normalising ----------------------------------------------------------------------------------------------------

ULID_RE = r"(?<![0-9A-Z])[0-9A-HJKMNP-TV-Z]{26}(?![0-9A-Z])"
UUID_RE = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
ISO_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
EPOCH_MS_RE = re.compile(r"^1\d{12}$")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class Normaliser:
    """Placeholders for generated ids (per document pair: one instance per side) and timestamp markers."""

    def __init__(self, timestamp_fields: tuple[str, ...], id_patterns: dict[str, str] | None = None) -> None:
        self.timestamp_fields = timestamp_fields
        patterns = {"ULID": ULID_RE, "UUID": UUID_RE, **(id_patterns or {})}
        self.pattern = re.compile("|".join(f"(?P<{kind}>{rx})" for kind, rx in patterns.items()))
        self.names: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def _id(self, match: re.Match) -> str:
        text = match.group(0)
        if text not in self.names:
            kind = match.lastgroup or "ID"
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.names[text] = f"<{kind}#{self.counts[kind]}>"
        return self.names[text]

    def ids(self, value: Any) -> Any:
        """Replace ids in every string (keys and values), walking dicts in sorted key order."""
        if isinstance(value, str):
            return self.pattern.sub(self._id, value)
        if isinstance(value, dict):
            return {self.ids(k): self.ids(value[k]) for k in sorted(value)}
        if isinstance(value, list):
            return [self.ids(v) for v in value]
        return value

    def wildcard(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.pattern.sub("<ID>", value)
        if isinstance(value, dict):
            return {self.wildcard(k): self.wildcard(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.wildcard(v) for v in value]
        return value

    # timestamps

    def _stamp(self, text: Any) -> Any:
        if isinstance(text, str) and ISO_RE.match(text):
            return "<TS:ISO>"
        if isinstance(text, str) and EPOCH_MS_RE.match(text):
            return "<TS:EPOCH_MS>"
        if isinstance(text, int) and not isinstance(text, bool) and EPOCH_MS_RE.match(str(text)):
            return "<TS:EPOCH_MS>"
        return text

    def item_stamps(self, item: dict[str, Any]) -> dict[str, Any]:
        out = dict(item)
        for name in self.timestamp_fields:
            av = out.get(name)
            if isinstance(av, dict) and len(av) == 1:
                (kind, text), *_ = av.items()
                if kind in ("S", "N"):
                    out[name] = {kind: self._stamp(text)}
        return out

    def result_stamps(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: self._stamp(v) if k in self.timestamp_fields else self.result_stamps(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.result_stamps(v) for v in value]
        return value

    # documents

    def results(self, results: list[Any]) -> list[Any]:
        return [self.ids(self.result_stamps(r)) for r in results]

    def items(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items = [_sorted_sets(self.item_stamps(i)) for i in items]
        items.sort(key=lambda i: canonical(self.wildcard(i)))
        out = [self.ids(i) for i in items]
        return sorted(out, key=canonical)


# -- reporting ------------------------------------------------------------------------------------------------------


def item_differences(label_a: str, a: list[dict], label_b: str, b: list[dict]) -> list[str]:
    """Items only on one side, paired by their (normalised) key attributes when possible."""
    if canonical(a) == canonical(b):
        return []
    ca, cb = [canonical(i) for i in a], [canonical(i) for i in b]
    only_a = [a[n] for n, c in enumerate(ca) if c not in cb]
    only_b = [b[n] for n, c in enumerate(cb) if c not in ca]
    lines = []
    for item in only_a:
        lines.append(f"item only in {label_a}: {canonical(item)}")
    for item in only_b:
        lines.append(f"item only in {label_b}: {canonical(item)}")
    if not lines:
        lines.append(f"items differ in count: {label_a} {len(a)} vs {label_b} {len(b)}")
    return lines
