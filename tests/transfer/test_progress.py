"""The progress line: count, rate and ETA redrawn with ``\\r`` on a terminal; silent otherwise or with --quiet."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

from dynabase.cli.main import main
from dynabase.transfer import Progress, export_table, import_table

from .helpers import embedded, put_all, simple_table


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_line_shows_count_percentage_rate_and_eta() -> None:
    stream = Terminal()
    meter = Progress("export t", 1000, stream=stream, interval=0)
    meter.started -= 2.0  # two seconds in
    meter.advance(250)
    text = stream.getvalue()
    assert text.startswith("\rexport t: 250 items (25%)  125 items/s  ETA 0:00:06")
    meter.close()
    assert stream.getvalue().endswith("\n")


def test_no_total_shows_elapsed_time_and_overshoot_is_capped() -> None:
    meter = Progress("x", None, stream=Terminal())
    meter.advance(5)
    assert "ETA" not in meter.line() and "%" not in meter.line()
    stale = Progress("x", 10, stream=Terminal())  # DescribeTable's ItemCount lags behind
    stale.advance(15)
    assert "(100%)" in stale.line() and "ETA" not in stale.line()


def test_silent_when_not_a_terminal_or_disabled() -> None:
    pipe = io.StringIO()
    meter = Progress("x", 10, stream=pipe, interval=0)
    meter.advance(3)
    meter.close()
    assert pipe.getvalue() == "" and not meter.enabled
    terminal = Terminal()
    off = Progress("x", 10, stream=terminal, enabled=False, interval=0)
    off.advance(3)
    off.close()
    assert terminal.getvalue() == ""


def test_messages_do_not_garble_the_line() -> None:
    stream = Terminal()
    meter = Progress("import t", 100, stream=stream, interval=0)
    meter.advance(10)
    meter.message("in.jsonl:3: invalid JSON")
    text = stream.getvalue()
    line_start = text.index("in.jsonl:3")
    assert text[line_start - 1] == "\r"  # the progress line was wiped first
    assert text[line_start:].startswith(
        "in.jsonl:3: invalid JSON\n\rimport t: 10 items (10%)"
    )  # then redrawn


def test_export_and_import_draw_progress(tmp_path: Path) -> None:
    client = embedded()
    simple_table(client, "tab")
    put_all(client, "tab", [{"pk": {"S": f"k{n}"}} for n in range(60)])
    stream = Terminal()
    export_table(
        client, "tab", tmp_path / "o.jsonl", progress=Progress("export tab", 60, stream=stream, interval=0)
    )
    assert "\rexport tab: 60 items (100%)" in stream.getvalue()

    stream = Terminal()
    target = embedded()
    meter = Progress(
        "import tab", (tmp_path / "o.jsonl").stat().st_size, unit="lines", stream=stream, interval=0
    )
    import_table(target, tmp_path / "o.jsonl", create=True, progress=meter)
    assert "\rimport tab: 25 lines (4" in stream.getvalue()
    assert "import tab: 60 lines (100%)" in stream.getvalue()


def test_cli_progress_on_a_terminal_and_quiet(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    db = tmp_path / "a.db"
    client = embedded(str(db))
    simple_table(client, "tab")
    put_all(client, "tab", [{"pk": {"S": f"k{n}"}} for n in range(30)])
    client.close()
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["export", "tab", "--db", str(db), "--out", str(tmp_path / "o.jsonl")]) == 0
    assert "\rexport tab: 30 items (100%)" in terminal.getvalue()
    terminal.seek(0)
    terminal.truncate()
    assert main(["import", str(tmp_path / "o.jsonl"), "--db", str(tmp_path / "b.db"), "--create"]) == 0
    assert "import tab: 30 lines (100%)" in terminal.getvalue()

    terminal.seek(0)
    terminal.truncate()
    assert main(["export", "tab", "--db", str(db), "--out", str(tmp_path / "q.jsonl"), "--quiet"]) == 0
    assert main(["import", str(tmp_path / "q.jsonl"), "--db", str(tmp_path / "c.db"), "--create", "-q"]) == 0
    assert terminal.getvalue() == ""
    assert "exported 30 items" in capsys.readouterr().out
