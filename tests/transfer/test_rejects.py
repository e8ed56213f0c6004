"""No loss on bad lines: each is reported with file and line number, saved to the rejects file, and the rest
of the input goes in."""

from __future__ import annotations

import base64
import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from dynabase.transfer import export_table, import_table

from .helpers import Recorder, embedded, item_json, put_all, simple_table, small_s3_export, write_lines

BAD_INPUT = [
    item_json("a", n={"N": "1"}),  # 1
    "this is not json",  # 2
    json.dumps({"Item": {"pk": {"S": "b"}, "x": {"Q": "?"}}}),  # 3: unknown type
    "",  # 4: blank lines are skipped, not rejected
    json.dumps({"Item": {"other": {"S": "no key"}}}),  # 5: missing key
    json.dumps({"Item": {"pk": {"N": "5"}}}),  # 6: key of the wrong type
    item_json("c", big={"N": "1" * 39}),  # 7: refused by the table (more than 38 digits)
    item_json("d"),  # 8
    '{"Item": {"pk": {"S": "e"}',  # 9: truncated
    item_json("f", b={"B": "AAEC"}),  # 10
]
GOOD = {"a", "d", "f"}
REJECTED_LINES = [2, 3, 5, 6, 7, 9]


def keys(client: Any, table: str) -> set[str]:
    return {item["pk"]["S"] for item in client.scan(TableName=table)["Items"]}


def test_bad_lines_are_reported_and_the_rest_imported(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    write_lines(path, BAD_INPUT)
    client = embedded()
    simple_table(client, "tab")
    messages: list[str] = []
    summary = import_table(client, path, table="tab", log=messages.append)

    assert keys(client, "tab") == GOOD
    assert (summary.lines, summary.imported, summary.rejected) == (9, 3, 6)
    assert not summary.ok
    # lines refused by the table are found when their batch is written, so after later lines' parse errors
    by_line = {int(m.split(":")[1]): m for m in messages}
    assert sorted(by_line) == REJECTED_LINES and len(messages) == len(REJECTED_LINES)
    assert all(m.startswith(f"in.jsonl:{n}: ") for n, m in by_line.items())
    assert "invalid JSON" in by_line[2] and "invalid JSON" in by_line[9]
    assert "unknown AttributeValue type 'Q'" in by_line[3]
    assert "missing key attribute 'pk'" in by_line[5]
    assert "key attribute 'pk' must be of type S, got N" in by_line[6]
    assert "rejected by the table" in by_line[7] and "38 digits" in by_line[7]

    assert summary.rejects == tmp_path / "in.jsonl.rejects.jsonl"
    records = [json.loads(line) for line in summary.rejects.read_text().splitlines()]
    records.sort(key=lambda r: r["line"])
    assert [r["line"] for r in records] == REJECTED_LINES
    assert all(r["file"] == "in.jsonl" for r in records)
    assert [r["text"] for r in records] == [BAD_INPUT[n - 1] for n in REJECTED_LINES]
    assert all(r["error"] for r in records)


def test_no_rejects_file_when_all_is_well(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    write_lines(path, [item_json(str(n)) for n in range(30)])
    client = embedded()
    simple_table(client, "tab")
    summary = import_table(client, path, table="tab")
    assert summary.ok and summary.imported == 30
    assert not summary.rejects.exists()


def test_rejects_by_the_table_in_a_full_batch_only_cost_that_line(tmp_path: Path) -> None:
    """The table refuses a whole BatchWriteItem for one bad item; the importer finds it and sends the rest."""
    lines = [item_json(f"k{n:02d}") for n in range(25)]
    lines[11] = item_json("k11", huge={"S": "x" * 410_000})  # over 400 KB
    path = tmp_path / "in.jsonl"
    write_lines(path, lines)
    client = Recorder(embedded())
    simple_table(client, "tab")
    summary = import_table(client, path, table="tab", log=lambda _: None)
    assert (summary.imported, summary.rejected) == (24, 1)
    assert keys(client, "tab") == {f"k{n:02d}" for n in range(25)} - {"k11"}
    record = json.loads(summary.rejects.read_text())
    assert record["line"] == 12 and "size" in record["error"].lower()


def test_duplicate_keys_in_the_input_do_not_break_a_batch(tmp_path: Path) -> None:
    """BatchWriteItem refuses one key twice in a batch; the import splits there, and the later line wins."""
    path = tmp_path / "in.jsonl"
    write_lines(path, [item_json("same", v={"N": str(n)}) for n in range(5)] + [item_json("other")])
    client = embedded()
    simple_table(client, "tab")
    summary = import_table(client, path, table="tab")
    assert summary.ok and summary.imported == 6
    item = client.get_item(TableName="tab", Key={"pk": {"S": "same"}})["Item"]
    assert item["v"] == {"N": "4"}


def test_rejects_in_an_s3_export_name_the_data_file(tmp_path: Path) -> None:
    out = small_s3_export(tmp_path)
    data = next((out / "data").iterdir())
    lines = gzip.decompress(data.read_bytes()).decode().splitlines()
    lines.insert(3, "garbage")
    data.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))

    target = embedded()
    messages: list[str] = []
    summary = import_table(target, out, create=True, log=messages.append)
    assert (summary.imported, summary.rejected) == (10, 1)
    assert messages == [f"data/{data.name}:4: invalid JSON: Expecting value (column 1)"]
    record = json.loads(summary.rejects.read_text())
    assert record["file"] == f"data/{data.name}" and record["line"] == 4
    assert summary.rejects == tmp_path / "export.rejects.jsonl"
    assert keys(target, "tab") == {f"k{n}" for n in range(10)}


def test_many_rejects_are_capped_on_stderr_but_all_saved(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    write_lines(path, ["bad"] * 120 + [item_json("ok")])
    client = embedded()
    simple_table(client, "tab")
    messages: list[str] = []
    summary = import_table(client, path, table="tab", log=messages.append)
    assert summary.rejected == 120 and summary.imported == 1
    assert len(messages) == 51 and "more rejected lines" in messages[-1]
    assert len(summary.rejects.read_text().splitlines()) == 120


def test_rejects_file_is_fresh_for_a_new_import(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    write_lines(path, ["bad", item_json("ok")])
    client = embedded()
    simple_table(client, "tab")
    first = import_table(client, path, table="tab", log=lambda _: None)
    assert first.rejected == 1
    first.checkpoint.unlink()  # start over
    write_lines(path, [item_json("ok"), "bad", "bad"])
    second = import_table(client, path, table="tab", log=lambda _: None)
    assert [json.loads(r)["line"] for r in second.rejects.read_text().splitlines()] == [2, 3]


@pytest.mark.parametrize("name", ["with space.jsonl", "ünï.jsonl"])
def test_odd_file_names(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    write_lines(path, ["{", item_json("x")])
    client = embedded()
    simple_table(client, "tab")
    messages: list[str] = []
    import_table(client, path, table="tab", log=messages.append)
    assert messages[0].startswith(f"{name}:1: ")
    shutil.rmtree(tmp_path)


def test_importing_into_a_table_with_other_keys_warns_and_rejects(tmp_path: Path) -> None:
    source = embedded()
    simple_table(source, "tab")
    put_all(source, "tab", [{"pk": {"S": f"k{n}"}} for n in range(3)])
    export_table(source, "tab", tmp_path / "t.jsonl")
    target = embedded()
    simple_table(target, "tab", keys=("id:S",))
    messages: list[str] = []
    summary = import_table(target, tmp_path / "t.jsonl", create=True, log=messages.append)
    assert (
        messages[0] == "warning: table 'tab' has a different key schema (id HASH) from the exported table's"
    )
    assert summary.rejected == 3 and all("missing key attribute 'id'" in m for m in messages[1:])


def test_non_utf8_lines_keep_their_bytes(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"Item": {"pk": {"S": "\xff"}}}\n' + item_json("ok").encode() + b"\n")
    client = embedded()
    simple_table(client, "tab")
    messages: list[str] = []
    summary = import_table(client, path, table="tab", log=messages.append)
    assert summary.imported == 1 and messages == [
        "in.jsonl:1: not UTF-8 text (invalid start byte at byte 24)"
    ]
    record = json.loads(summary.rejects.read_text(encoding="utf-8"))
    assert base64.b64decode(record["base64"]) == b'{"Item": {"pk": {"S": "\xff"}}}'
