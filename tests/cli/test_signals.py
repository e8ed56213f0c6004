"""``dynabase.cli.signals.stop_on_signals``: the one place long-running commands get their SIGINT/SIGTERM
handlers (the commands themselves, as processes, are tested beside each: streams, sync, serve, ui)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from dynabase.cli.signals import stop_on_signals
from processes import SRC


def _run(program: str) -> subprocess.CompletedProcess[str]:
    """``program`` in a Python process of its own (signals are process-wide)."""
    return subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_sets_the_stop_and_calls_on_stop_even_when_sigint_was_ignored(signum: int) -> None:
    calls: list[str] = []
    before = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with stop_on_signals(lambda: calls.append("stop")) as stop:
            assert not stop.is_set()
            os.kill(os.getpid(), signum)  # the handler runs before the next bytecode of this thread
            assert stop.wait(10) and calls == ["stop"]
        # the ignored dispositions it found are back
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def test_a_second_signal_ends_the_process_at_once_with_128_plus_its_number() -> None:
    program = textwrap.dedent(
        """
        import os, signal
        from dynabase.cli.signals import stop_on_signals

        with stop_on_signals() as stop:
            os.kill(os.getpid(), signal.SIGTERM)
            assert stop.wait(10)
            os.kill(os.getpid(), signal.SIGINT)
        print("not reached")
        """
    )
    result = _run(program)
    assert result.returncode == 128 + signal.SIGINT, result.stderr
    assert "not reached" not in result.stdout


def test_a_signal_arriving_while_the_main_thread_is_inside_event_wait_does_not_deadlock() -> None:
    """The handler runs in the main thread between two bytecodes; if those are inside ``Event.wait``'s
    ``with self._cond`` (a plain lock), a handler that sets that event itself waits for itself forever
    (``streams tail --follow`` hung so, 60 s after SIGTERM, in CI). Reproduced exactly: the signal is raised
    while the main thread holds the event's lock."""
    program = textwrap.dedent(
        """
        import signal, threading
        from dynabase.cli.signals import stop_on_signals

        wake = threading.Event()
        with stop_on_signals(wake.set) as stop:
            with wake._cond:  # where Event.wait is when the signal comes
                signal.raise_signal(signal.SIGTERM)
            assert wake.wait(10) and stop.wait(10)
        print("stopped")
        """
    )
    result = _run(program)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "stopped"
