"""``dynabase serve --workers N``: N server processes on one database file and one port.

The supervisor (the process the command started) claims the port, forks the workers and then only watches
them. Each worker opens its own engine on the file: SQLite's WAL lets them read side by side, writes take
turns through SQLite's lock, and a table one worker creates or deletes is seen by every other at its next
request (the catalog version lives in the file). On Linux each worker accepts from a listening socket of its
own on the port (``SO_REUSEPORT``: the kernel shares connections out); elsewhere all accept from one socket.
The supervisor keeps every listening socket open, so a worker started in place of a dead one takes over the
connections waiting in its predecessor's queue.

The supervisor relays the workers' stderr to its own, whole lines only (one request log, never two lines
cut into each other), prints the ready line once every worker accepts, and on SIGTERM/SIGINT sends SIGTERM
to every worker: each answers its requests in flight (``--shutdown-timeout``) and exits; a second signal
stops them at once. A worker that dies is reported and started again; one that dies before the server is
ready, or more than :data:`RESTARTS` deaths within :data:`RESTART_WINDOW` seconds, stop the server (exit status 1).
Workers watch a pipe only the supervisor holds open: when the supervisor is gone (killed with SIGKILL) they
stop as on SIGTERM, so no worker outlives it.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from .app import RequestLog
from .httpd import listen

#: deaths of started workers within :data:`RESTART_WINDOW` seconds that stop the server (a crash loop)
RESTARTS = 5
RESTART_WINDOW = 60.0
#: seconds the supervisor waits past ``--shutdown-timeout`` before it kills a worker that does not stop
STOP_GRACE = 10.0


def default_workers() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def in_memory(db: str) -> bool:
    return db == ":memory:" or db.startswith("file::memory:")


def worker_count(options: Any) -> int:
    """The workers ``options`` ask for (``workers`` None: the default); ValueError naming the option when
    they cannot be had."""
    asked: int | None = getattr(options, "workers", None)
    memory = in_memory(options.db)
    console = bool(getattr(options, "ui", False))
    if asked is None:
        return 1 if memory or console or not hasattr(os, "fork") else default_workers()
    if asked > 1:
        if memory:
            raise ValueError(
                f"--workers {asked}: a :memory: database lives inside one process and cannot be shared by "
                "several; serve a file (--db FILE) to have more workers, or use --workers 1"
            )
        if console:
            raise ValueError(
                f"--workers {asked}: the web console (--ui) keeps its sign-in in one process; use --workers 1"
            )
        if not hasattr(os, "fork"):
            raise ValueError(f"--workers {asked}: more workers need fork(), which this system does not have")
    return asked


def listeners(host: str, port: int, count: int, backlog: int = 512) -> list[socket.socket]:
    """The listening sockets of ``count`` workers on ``host:port`` (port 0: a free one): one each with
    ``SO_REUSEPORT`` on Linux, else one shared by all. OSError when the port is taken."""
    if count == 1 or not sys.platform.startswith("linux") or not hasattr(socket, "SO_REUSEPORT"):
        return [listen(host, port, backlog)] * count
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    if port:
        # a plain bind first: another server's group of SO_REUSEPORT sockets would otherwise let us in, and
        # share its clients with us
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.create_server((host, port), family=family, backlog=backlog, reuse_port=True)
            sockets.append(sock)
            port = sock.getsockname()[1]
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class _Worker:
    __slots__ = ("index", "sock", "pid", "log", "control", "pending", "said", "ready", "cut", "alive")

    def __init__(self, index: int, sock: socket.socket) -> None:
        self.index = index
        self.sock = sock
        self.pid = 0
        self.log = -1  # the read end of its stderr
        self.control = -1  # the read end of its messages to the supervisor ("ready", "stopped N")
        self.pending = b""  # the start of a stderr line not yet ended
        self.said = b""  # the same for the control pipe
        self.ready = False
        self.cut = 0
        self.alive = False


# a worker's body: (index, listening socket) -> a server with serve_forever(), stop(timeout) -> connections
# cut, and http.request_stop()
MakeServer = Callable[[int, socket.socket], Any]
StopSignals = Callable[[Callable[[], None]], contextlib.AbstractContextManager[threading.Event]]


class Supervisor:
    """Runs ``count`` workers, each serving ``make(index, sock)``, until SIGTERM/SIGINT (see the module)."""

    def __init__(
        self,
        sockets: list[socket.socket],
        make: MakeServer,
        stop_signals: StopSignals,
        *,
        log: RequestLog,
        ready_line: Callable[[], None],
        shutdown_timeout: float = 30.0,
    ) -> None:
        self.workers = [_Worker(index, sock) for index, sock in enumerate(sockets)]
        self.make = make
        self.stop_signals = stop_signals
        self.log = log
        self.ready_line = ready_line
        self.shutdown_timeout = shutdown_timeout
        self.selector = selectors.DefaultSelector()
        self._watch_r, self._watch_w = os.pipe()  # workers read; EOF once the supervisor is gone
        self._wake_r, self._wake_w = socket.socketpair()
        self._signals: list[int] = []
        self._deaths: list[float] = []
        self.stopping = 0.0  # when the stop began
        self.failed = ""
        self.forced = 0  # the second stop signal, when one came
        self.announced = False

    # -- the supervisor --------------------------------------------------------------------------------------

    def run(self) -> int:
        """Start the workers and watch them until they have all stopped: the exit status."""
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self.selector.register(self._wake_r, selectors.EVENT_READ)
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        previous[signal.SIGCHLD] = signal.signal(signal.SIGCHLD, self._on_signal)
        old_wakeup = signal.set_wakeup_fd(self._wake_w.fileno())
        try:
            for worker in self.workers:
                self._spawn(worker)
            while any(w.alive or w.log >= 0 for w in self.workers):
                self._step()
        finally:
            signal.set_wakeup_fd(old_wakeup)
            for sig, handler in previous.items():
                with contextlib.suppress(ValueError, TypeError):
                    signal.signal(sig, handler)
            for worker in self.workers:
                if worker.alive:  # only on an error of the supervisor itself: never leave a worker behind
                    with contextlib.suppress(OSError):
                        os.kill(worker.pid, signal.SIGKILL)
                        os.waitpid(worker.pid, 0)
            self._close_listeners()
            for fd in (self._watch_r, self._watch_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._wake_r.close()
            self._wake_w.close()
            self.selector.close()
        if self.failed:
            self.log.error(self.failed)
            return 1
        return 128 + self.forced if self.forced else 0  # as one process stopped at once exits

    def cut(self) -> int:
        """Connections the workers had to cut when they stopped."""
        return sum(w.cut for w in self.workers)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self._signals.append(signum)  # the loop acts on it (the wake-up socket ends its wait)

    def _step(self) -> None:
        timeout = 1.0
        if self.stopping:
            timeout = max(
                0.0, min(timeout, self.stopping + self.shutdown_timeout + STOP_GRACE - time.monotonic())
            )
        for key, _ in self.selector.select(timeout):
            if key.fileobj is self._wake_r:
                with contextlib.suppress(OSError):
                    self._wake_r.recv(4096)
            elif key.data[1] == "log":
                self._relay(key.data[0])
            else:
                self._hear(key.data[0])
        signals, self._signals = self._signals, []
        for signum in signals:
            if signum != signal.SIGCHLD:
                if self.stopping:  # a second signal: the workers' own second SIGTERM stops them at once
                    self.forced = signum
                self._stop()
        self._reap()
        if not self.announced and all(w.ready for w in self.workers) and not self.stopping:
            self.announced = True
            self.ready_line()
        if self.stopping and time.monotonic() > self.stopping + self.shutdown_timeout + STOP_GRACE:
            for worker in self.workers:
                if worker.alive:
                    self.log.error(f"worker {worker.index} (pid {worker.pid}) did not stop: killed")
                    with contextlib.suppress(OSError):
                        os.kill(worker.pid, signal.SIGKILL)

    def _stop(self) -> None:
        """Ask every worker to stop (a second time: at once)."""
        if not self.stopping:
            self.stopping = time.monotonic()
        self._close_listeners()
        for worker in self.workers:
            if worker.alive:
                with contextlib.suppress(OSError):
                    os.kill(worker.pid, signal.SIGTERM)

    def _fail(self, message: str) -> None:
        if not self.failed:
            self.failed = message
        self._stop()

    def _close_listeners(self) -> None:
        for worker in self.workers:
            with contextlib.suppress(OSError):
                worker.sock.close()

    def _reap(self) -> None:
        for worker in self.workers:
            if not worker.alive:
                continue
            try:
                pid, status = os.waitpid(worker.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status = worker.pid, 0
            if pid == 0:
                continue
            worker.alive = False
            self._drain(worker)
            if self.stopping:
                continue
            how = _exit_description(status)
            if not self.announced:  # the server never started: restarting would fail the same way
                self._fail(
                    f"worker {worker.index} (pid {worker.pid}) {how} before the server was ready: stopping"
                )
                continue
            now = time.monotonic()
            self._deaths = [t for t in self._deaths if now - t < RESTART_WINDOW] + [now]
            if len(self._deaths) > RESTARTS:
                self._fail(
                    f"worker {worker.index} (pid {worker.pid}) {how}: {len(self._deaths)} workers died within "
                    f"{RESTART_WINDOW:g}s, stopping"
                )
                continue
            old = worker.pid
            self._spawn(worker)
            self.log.error(f"worker {worker.index} (pid {old}) {how}: started pid {worker.pid} in its place")

    # -- the pipes from a worker

    def _relay(self, worker: _Worker) -> None:
        """Copy what ``worker`` wrote to stderr, its whole lines only, to the supervisor's stderr."""
        data = _read(worker.log)
        if not data:
            self._close_pipe(worker, "log")
            if worker.pending:
                _write(2, worker.pending + b"\n")
                worker.pending = b""
            return
        data = worker.pending + data
        end = data.rfind(b"\n") + 1
        worker.pending = data[end:]
        if len(worker.pending) > 1024 * 1024:  # a line without an end: not held in memory forever
            end, worker.pending = len(data), b""
        if end:
            _write(2, data[:end])

    def _hear(self, worker: _Worker) -> None:
        data = _read(worker.control)
        if not data:
            self._close_pipe(worker, "control")
            return
        worker.said += data
        *lines, worker.said = worker.said.split(b"\n")
        for line in lines:
            word, _, value = line.partition(b" ")
            if word == b"ready":
                worker.ready = True
            elif word == b"stopped" and value.isdigit():
                worker.cut = int(value)

    def _drain(self, worker: _Worker) -> None:
        """Everything a dead worker left in its pipes (their write ends are closed now)."""
        while worker.control >= 0:
            self._hear(worker)
        while worker.log >= 0:
            self._relay(worker)

    def _close_pipe(self, worker: _Worker, which: str) -> None:
        fd = worker.log if which == "log" else worker.control
        if fd < 0:
            return
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(fd)
        os.close(fd)
        if which == "log":
            worker.log = -1
        else:
            worker.control = -1

    # -- a worker ----------------------------------------------------------------------------------------------

    def _spawn(self, worker: _Worker) -> None:
        self._drain(worker)
        log_r, log_w = os.pipe()
        control_r, control_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child (measured through the tests' processes)
            code = 1
            try:
                os.close(log_r)
                os.close(control_r)
                self._child(worker, log_w, control_w)
                code = 0
            except BaseException:
                with contextlib.suppress(BaseException):
                    _write(2, traceback.format_exc().encode("utf-8", "replace"))
            finally:
                os._exit(code)
        os.close(log_w)
        os.close(control_w)
        worker.pid, worker.log, worker.control = pid, log_r, control_r
        worker.alive, worker.ready, worker.pending, worker.said = True, False, b"", b""
        self.selector.register(log_r, selectors.EVENT_READ, (worker, "log"))
        self.selector.register(control_r, selectors.EVENT_READ, (worker, "control"))

    def _child(self, worker: _Worker, log_w: int, control_w: int) -> None:  # pragma: no cover - the child
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # Ctrl-C reaches the whole process group: the supervisor alone acts on it, and sends one SIGTERM
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        mine = worker.sock.fileno()
        for fd in self._supervisor_fds():
            if fd != mine:
                with contextlib.suppress(OSError):
                    os.close(fd)
        os.dup2(log_w, 2)  # stderr (the request log, errors) goes to the supervisor's relay
        os.dup2(log_w, 1)  # so does anything printed: the supervisor's stdout has the ready line alone
        os.close(log_w)
        server = self.make(worker.index, worker.sock)
        with self.stop_signals(server.http.request_stop):
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            watcher = threading.Thread(
                target=_watch,
                args=(self._watch_r, server.http.request_stop),
                name="dynabase-supervisor",
                daemon=True,
            )
            watcher.start()
            _write(control_w, b"ready\n")
            try:
                server.serve_forever()
            finally:
                cut = server.stop(self.shutdown_timeout)
        _write(control_w, b"stopped %d\n" % cut)

    def _supervisor_fds(self) -> list[int]:
        """The descriptors of the supervisor a worker must not keep (its own socket aside)."""
        fds = [self._watch_w, self._wake_r.fileno(), self._wake_w.fileno()]
        if hasattr(self.selector, "fileno"):  # epoll's, kqueue's (poll has none)
            fds.append(self.selector.fileno())
        for other in self.workers:
            fds += [other.log, other.control]
            with contextlib.suppress(OSError):
                fds.append(other.sock.fileno())
        return [fd for fd in fds if fd >= 0]


def _watch(fd: int, stop: Callable[[], None]) -> None:  # pragma: no cover - in a worker
    """Block until the supervisor is gone (the pipe's write end closed), then stop."""
    with contextlib.suppress(OSError):
        while os.read(fd, 1):
            pass
    stop()


def _read(fd: int) -> bytes:
    """What a pipe has (the selector said it has something, or the writer is gone: b"")."""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""


def _write(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd`` (one write for a pipe's worth): a closed reader loses it, nothing else."""
    view = memoryview(data)
    with contextlib.suppress(OSError):
        while view:
            view = view[os.write(fd, view) :]


def _exit_description(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = str(number)
        return f"was killed by {name}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"
