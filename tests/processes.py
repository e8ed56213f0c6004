"""Long-running ``dynabase`` commands as child processes in tests: started the way a background job of a
non-interactive shell starts them (SIGINT ignored: CI runners, init scripts, ``cmd &`` in ``sh -c``), read
line by line, awaited by their ready line (never a fixed sleep), killed by PID in a ``finally``."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

SRC = str(Path(__file__).resolve().parent.parent / "src")
#: a hang guard, not a speed: a child that has not printed its line by then never will
READY_TIMEOUT = 60.0


def _ignore_sigint() -> None:  # pragma: no cover - runs in the child between fork and exec
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Child:
    """A child process whose stdout and stderr lines are collected by two reader threads."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: queue.Queue[tuple[str, str | None]] = queue.Queue()  # None: the end of that stream
        self.ended: set[str] = set()
        self.seen: dict[str, list[str]] = {"stdout": [], "stderr": []}
        #: how many lines of each stream a wait has looked at: one waiting for the other stream reads on
        self._looked: dict[str, int] = {"stdout": 0, "stderr": 0}
        for name in ("stdout", "stderr"):
            threading.Thread(target=self._read, args=(name,), daemon=True).start()

    def _read(self, name: str) -> None:
        stream = getattr(self.process, name)
        for line in stream:
            self.lines.put((name, line.rstrip("\n")))
        self.lines.put((name, None))

    def wait_for(self, text: str, stream: str = "stderr", timeout: float = READY_TIMEOUT) -> str:
        """The first line of ``stream`` containing ``text`` not looked at by an earlier wait (lines before it are
        kept in :attr:`seen`). A wait for one stream reads the other's lines too: those are looked at first."""
        seen = self.seen[stream]
        while self._looked[stream] < len(seen):
            line = seen[self._looked[stream]]
            self._looked[stream] += 1
            if text in line:
                return line
        while True:
            try:
                name, line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(
                    f"no line with {text!r} on {stream} in {timeout:g} s: {self.seen}"
                ) from None
            if line is None:
                self.ended.add(name)
                if name == stream:
                    raise AssertionError(f"{stream} ended before a line with {text!r}: {self.seen}")
                continue
            self.seen[name].append(line)
            if name == stream:
                self._looked[name] = len(self.seen[name])
                if text in line:
                    return line

    def stop(self, signum: int, timeout: float = READY_TIMEOUT) -> int:
        """Send ``signum`` and wait for the exit status (a hang guard: it must stop by itself)."""
        self.process.send_signal(signum)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running {timeout:g} s after signal {signum}") from None

    def rest(self, stream: str = "stderr") -> str:
        """Everything ``stream`` printed, once the process has exited."""
        self.process.wait(READY_TIMEOUT)
        while len(self.ended) < 2:  # both streams end when the process has exited
            name, line = self.lines.get(timeout=READY_TIMEOUT)
            if line is None:
                self.ended.add(name)
            else:
                self.seen[name].append(line)
        return "\n".join(self.seen[stream])


@contextlib.contextmanager
def dynabase_command(
    args: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    sigint_ignored: bool = True,
    cwd: str | None = None,
) -> Iterator[Child]:
    """``python -m dynabase ARGS`` with this working tree's code; killed (by PID) if still running after."""
    child_env = {**os.environ, **(env or {})}
    child_env["PYTHONPATH"] = os.pathsep.join(p for p in (SRC, (env or {}).get("PYTHONPATH")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "dynabase", *args],
        env=child_env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ignore_sigint if sigint_ignored else None,
    )
    try:
        yield Child(process)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
