"""Every kind of bad line goes to the rejects file with a reason and the rest of the input is imported: random
bad lines mixed into good ones, an import cut short and resumed, and a re-run that has nothing left to do."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynabase.cli.main import main
from dynabase.transfer import InvalidItem, import_table, parse_line

from .helpers import embedded, item_json, simple_table

SURROGATE = st.integers(0xD800, 0xDFFF).map(lambda n: f"\\u{n:04x}")
#: a lone surrogate in the key, an attribute name, a map key, a set and a list
SURROGATE_LINES = [
    '{"Item":{"pk":{"S":"%s"}}}',
    '{"Item":{"pk":{"S":"x"},"%s":{"N":"1"}}}',
    '{"Item":{"pk":{"S":"x"},"m":{"M":{"%s":{"NULL":true}}}}}',
    '{"Item":{"pk":{"S":"x"},"ss":{"SS":["a","b%s"]}}}',
    '{"Item":{"pk":{"S":"x"},"l":{"L":[{"S":"%s"}]}}}',
]

#: (kind, line) pairs of lines no import may take
BAD: dict[str, Any] = {
    "not JSON": st.text(alphabet="{}[]:,\"' abcNSM0123456789", max_size=30).filter(lambda t: t.strip()),
    "truncated": st.integers(1, 20).map(lambda n: item_json("cut")[:-n]),
    "not UTF-8": st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80"]).map(
        lambda junk: b'{"Item":{"pk":{"S":"' + junk + b'"}}}'
    ),
    "lone surrogate": st.tuples(st.sampled_from(SURROGATE_LINES), SURROGATE).map(lambda t: t[0] % t[1]),
    "wrong shape": st.sampled_from(
        [
            "[]",
            "5",
            "null",
            '"text"',
            '{"Item": 5}',
            "{}",
            '{"Item": {"pk": {"S": 1}}}',
            '{"Item": {"pk": {"S": "x", "N": "1"}}}',
            '{"Item": {"pk": {"Q": "x"}}}',
            '{"Item": {"other": {"S": "no key"}}}',
            '{"Item": {"pk": {"N": "5"}}}',
            '{"Item": {"pk": {"S": "x"}, "ss": {"SS": []}}}',
            '{"Item": {"pk": {"S": "x"}, "b": {"B": "not base64!"}}}',
        ]
    ),
    "nested too deep": st.sampled_from([32, 200, 400, 5000]).map(
        lambda depth: '{"Item":{"pk":{"S":"x"},"d":' + '{"L":[' * depth + '{"S":"x"}' + "]}" * depth + "}}"
    ),
    "refused by the table": st.sampled_from(
        [
            item_json("x", n={"N": "1" * 39}),
            item_json("x", n={"N": "not a number"}),
            item_json("x", ss={"SS": ["dup", "dup"]}),
            item_json("x", huge={"S": "x" * 410_000}),
        ]
    ),
}

LINES = st.lists(
    st.one_of(
        st.tuples(st.text(max_size=12), st.booleans()),  # a good line: any text, escaped or not
        st.sampled_from(sorted(BAD)).flatmap(lambda kind: BAD[kind].map(lambda line: (kind, line))),
    ),
    max_size=60,
)


def _bytes(line: str | bytes) -> bytes:
    return line if isinstance(line, bytes) else line.encode("utf-8")


class Counting:
    """A client that counts the items of each BatchWriteItem the table took."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.written: Counter[str] = Counter()

    def batch_write_item(self, **params: Any) -> Any:
        answer = self.client.batch_write_item(**params)
        for requests in params["RequestItems"].values():
            self.written.update(r["PutRequest"]["Item"]["pk"]["S"] for r in requests)
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


class Stop(Exception):
    pass


def stop_after_first(written: int) -> None:
    raise Stop


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=LINES, stop=st.booleans())
def test_bad_lines_are_rejected_and_good_ones_imported_once(lines: list[Any], stop: bool) -> None:
    content, good, bad = [], set(), {}
    for number, entry in enumerate(lines, 1):
        if isinstance(entry[1], bool):  # astral characters escaped as surrogate pairs are no lone surrogates
            good.add(f"good{number}")
            item = {
                "pk": {"S": f"good{number}"},
                "s": {"S": entry[0]},
                "m": {"M": {"k" + entry[0]: {"N": "1"}}},
            }
            content.append(json.dumps({"Item": item}, ensure_ascii=entry[1]).encode())
        else:
            bad[number] = entry[0]
            content.append(_bytes(entry[1]))
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "in.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in content))
        client = Counting(embedded())
        simple_table(client, "tab")
        first_run = None
        if stop and good:
            try:
                import_table(client, path, table="tab", log=lambda _: None, on_batch=stop_after_first)
            except Stop:
                first_run = dict(client.written)
        summary = import_table(client, path, table="tab", log=lambda _: None)

        assert (summary.lines, summary.imported, summary.rejected) == (len(lines), len(good), len(bad))
        assert summary.ok == (not bad)  # the CLI's exit status: 0, or 2 for "done, with rejects"
        stored = {i["pk"]["S"] for i in client.scan(TableName="tab")["Items"]}
        assert stored == good
        records = [json.loads(r) for r in summary.rejects.read_text("utf-8").splitlines()] if bad else []
        assert sorted(r["line"] for r in records) == sorted(bad), records
        assert all(r["error"] and r["file"] == "in.jsonl" for r in records)
        # a batch is never written twice, except the one an interruption may have cut (25 items at most)
        twice = sum(n - 1 for n in client.written.values())
        assert twice == 0 or (first_run is not None and twice <= 25)

        client.written.clear()
        again = import_table(client, path, table="tab", log=lambda _: None)
        assert again.already_complete and not client.written


def test_a_lone_surrogate_is_rejected_and_the_rest_imported(tmp_path: Path, capsys: Any) -> None:
    """The issue's line: it used to fail its whole batch (exit 1, checkpoint at line 0, every re-run the same)."""
    target = tmp_path / "t.db"
    client = embedded(str(target))
    simple_table(client, "tab")
    path = tmp_path / "in.jsonl"
    path.write_text(item_json("a") + '\n{"Item":{"pk":{"S":"\\ud800"}}}\n' + item_json("b") + "\n")
    code = main(["import", str(path), "--table", "tab", "--db", str(target)])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert "in.jsonl:2: attribute pk: a lone surrogate" in captured.err
    assert "imported 2 of 3 lines" in captured.out
    (record,) = [json.loads(r) for r in (tmp_path / "in.jsonl.rejects.jsonl").read_text().splitlines()]
    assert record["line"] == 2 and record["text"] == '{"Item":{"pk":{"S":"\\ud800"}}}'
    assert {i["pk"]["S"] for i in client.scan(TableName="tab")["Items"]} == {"a", "b"}
    assert main(["import", str(path), "--table", "tab", "--db", str(target)]) == 2
    assert "nothing to do" in capsys.readouterr().out
    client.close()


def test_a_batch_the_table_refuses_is_halved_to_find_the_bad_item() -> None:
    """One bad item among 25 costs a few halvings (not 25 single writes), and only it is rejected."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "in.jsonl"
        lines = [item_json(f"k{n:02d}") for n in range(25)]
        lines[17] = item_json("k17", n={"N": "1" * 39})
        path.write_text("".join(line + "\n" for line in lines))
        calls: list[int] = []
        inner = embedded()
        simple_table(inner, "tab")

        class Client(Counting):
            def batch_write_item(self, **params: Any) -> Any:
                calls.append(len(params["RequestItems"]["tab"]))
                return super().batch_write_item(**params)

        summary = import_table(Client(inner), path, table="tab", log=lambda _: None)
        assert (summary.imported, summary.rejected) == (24, 1)
        assert calls == [25, 12, 13, 6, 3, 3, 1, 2, 1, 1, 7]  # 11 calls, not 1 + 25


def test_surrogate_pairs_and_escaped_backslashes_are_not_lone_surrogates() -> None:
    assert parse_line(b'{"Item":{"pk":{"S":"\\ud83d\\ude00"}}}') == {"pk": {"S": "\U0001f600"}}
    assert parse_line(b'{"Item":{"pk":{"S":"\\\\ud800"}}}') == {
        "pk": {"S": "\\ud800"}
    }  # a backslash, then text
    for line in (
        b'{"Item":{"pk":{"S":"\\ude00\\ud83d"}}}',
        b'{"Item":{"pk":{"S":"a"},"x":{"SS":["\\uDBFF"]}}}',
    ):
        with pytest.raises(InvalidItem, match="a lone surrogate"):
            parse_line(line)
