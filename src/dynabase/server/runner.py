"""Running the server: ``dynabase serve``'s main loop, a background-thread helper and a subprocess helper.

``run_in_thread(engine, port=0) -> (url, stop)`` serves an engine you already have (tests, notebooks);
``start_subprocess(db=":memory:") -> ServerProcess`` runs ``python -m dynabase.server`` and waits for its
readiness line; ``serve(options)`` is the command's body (signals, readiness line, graceful stop).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import subprocess

from ..errors import StorageError
from .app import DynamoDBApp, RequestLog
from .budget import DEFAULT_BODY_MEMORY_MIB
from .httpd import HTTPServer, listen, url_of
from .options import DEFAULT_MAX_CONNECTIONS, cannot_serve

READY_PATTERN = re.compile(r"dynabase serving on (http://\S+)")
DEFAULT_REGION = "us-east-1"


def per_key_path(db: str, access_key: str, region: str) -> str:
    """The database of one access key and region when tables are not shared: ``app.db`` ->
    ``app-<KEY>_<region>.db``; a directory -> ``<dir>/<KEY>_<region>.db`` (DynamoDB Local's file names);
    ``:memory:`` stays in memory (a separate database each)."""
    if db == ":memory:" or db.startswith("file::memory:"):
        return ":memory:"
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{access_key or 'anonymous'}_{region or DEFAULT_REGION}")[:160]
    if os.path.isdir(db) or db.endswith(("/", os.sep)):
        os.makedirs(db, exist_ok=True)
        return os.path.join(db, name + ".db")
    root, ext = os.path.splitext(db)
    return f"{root}-{name}{ext or '.db'}"


def _open_engine(path: str, region: str, adopt: bool = False, **engine_options: Any) -> Any:
    from ..engine import Engine

    return Engine(path, region=region, adopt=adopt, **engine_options)


class Server:
    """An app on an HTTP server, plus the engine(s) it owns."""

    def __init__(
        self,
        engine: Any = None,
        *,
        db: str = ":memory:",
        host: str = "127.0.0.1",
        port: int = 0,
        region: str = DEFAULT_REGION,
        shared_db: bool = True,
        credentials: dict[str, str] | None = None,
        log_level: int = 0,
        log_stream: TextIO | None = None,
        cors_origins: Iterable[str] = (),
        allowed_hosts: Iterable[str] = (),
        adopt: bool = False,
        sock: socket.socket | None = None,
        **http_options: Any,
    ) -> None:
        from .access import Access
        from .sigv4 import Verifier

        self.db = db
        self.shared_db = shared_db
        self._owned: list[Any] = []
        log = RequestLog(log_stream, log_level)
        verifier = Verifier(credentials) if credentials else None
        if not shared_db and engine is not None:
            raise ValueError("per-key databases are opened by the server: pass db=, not engine=")
        # with signatures checked a page cannot sign: AWS's open CORS and any Host name are safe
        access = Access(
            cors_origins,
            [*allowed_hosts, host],
            open_by_default=verifier is not None,
            check_host=verifier is None,
        )
        # the port first: a port that is taken (or a bad address) must not leave a new database file behind
        if sock is None:
            sock = listen(host, port, http_options.get("backlog", 512))
        try:
            if not shared_db:

                def factory(access_key: str, key_region: str) -> Any:
                    return _open_engine(per_key_path(db, access_key, key_region), key_region or region, adopt)

                self.app = DynamoDBApp(
                    engine_factory=factory, verifier=verifier, log=log, region=region, access=access
                )
            else:
                if engine is None:
                    engine = _open_engine(db, region, adopt)
                    self._owned.append(engine)
                self.app = DynamoDBApp(engine, verifier=verifier, log=log, region=region, access=access)
            self.http = HTTPServer(self.app, host, port, sock=sock, **http_options)
        except BaseException:
            sock.close()
            self.close_engines()
            raise
        self._thread: threading.Thread | None = None
        self._closed = False
        threading.Thread(target=self.app.warm_up, name="dynabase-warm-up", daemon=True).start()

    @property
    def url(self) -> str:
        return self.http.url

    @property
    def port(self) -> int:
        port: int = self.http.port
        return port

    def start(self) -> Server:
        """Serve from a background thread."""
        self._thread = threading.Thread(target=self.http.serve_forever, name="dynabase-server", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.http.serve_forever()

    def stop(self, timeout: float = 30.0) -> int:
        """Graceful stop (see :meth:`HTTPServer.stop`), then close the engines this server opened.
        Returns how many connections were still busy when ``timeout`` ran out."""
        if self._closed:
            return 0
        self._closed = True
        cut = self.http.stop(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
        self.close_engines()
        return cut

    def close_engines(self) -> None:
        if hasattr(self, "app"):  # not when the database could not be opened
            self.app.close()
        owned, self._owned = self._owned, []
        for engine in owned:
            with contextlib.suppress(Exception):
                engine.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def run_in_thread(
    engine: Any = None, *, port: int = 0, host: str = "127.0.0.1", **options: Any
) -> tuple[str, Callable[..., int]]:
    """Serve ``engine`` (or a new in-memory one) from a daemon thread: ``(url, stop)``.

    ``stop()`` stops gracefully and closes the engine only if this call created it. Options are
    :class:`Server`'s: ``db``, ``region``, ``shared_db``, ``credentials`` ({access key: secret} to require
    SigV4 signatures), ``log_level`` (0 quiet, 1 every request, 2 bodies too), ``log_stream``,
    ``cors_origins`` (browser origins granted access), ``allowed_hosts`` (``Host`` names answered besides
    localhost and IP addresses; both only matter without ``credentials``), ``adopt`` (use another
    application's SQLite file all the same), and the HTTP limits ``max_connections``, ``idle_timeout``,
    ``request_timeout``, ``max_body_memory`` (bytes).
    """
    server = Server(engine, host=host, port=port, **options).start()
    return server.url, server.stop


# -- the command -----------------------------------------------------------------------------------------------


def _secrets(options: Any) -> dict[str, str]:
    from .sigv4 import load_credentials

    secrets: dict[str, str] = {}
    if getattr(options, "credentials", None):
        secrets.update(load_credentials(options.credentials))
    access_key = getattr(options, "access_key", None)
    secret_key = getattr(options, "secret_key", None)
    if bool(access_key) != bool(secret_key):
        raise ValueError("--access-key and --secret-key go together")
    if access_key and secret_key:  # (both or neither)
        secrets[access_key] = secret_key
    return secrets


def _make_room_for_descriptors(connections: int) -> None:
    """Raise this process's soft descriptor limit (up to the hard one) so ``connections`` sockets, the
    databases and the backlog fit: a full table of descriptors would make accept() fail instead of letting the
    connection cap close an idle connection."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _announce(server: Server, secrets: dict[str, str], err: TextIO, workers: int = 1) -> None:
    """The start-up lines of ``serve -v``'s default verbosity: limits, signature checks, how to stop."""
    auth = (
        f"SigV4 verified ({len(secrets)} access key{'s' if len(secrets) != 1 else ''})"
        if secrets
        else "not verified"
    )
    each = f" of each of {workers} workers" if workers > 1 else ""
    server.app.log.event(
        f"limits{each}: {server.http.max_connections} connections (--max-connections), idle "
        f"{server.http.idle_timeout:g}s (--idle-timeout), request {server.http.request_timeout:g}s "
        f"(--request-timeout), {server.http.budget.limit // (1024 * 1024)} MiB of bodies in flight "
        "(--max-body-memory)",
        "info",
        verbose=True,
    )
    tables = "shared by all access keys" if server.shared_db else "per access key and region"
    access = server.app.access
    pages = "any origin" if access.any_origin else ", ".join(sorted(access.origins)) or "none (--cors-origin)"
    print(
        f"dynabase: signatures {auth}; tables {tables}; web pages let in: {pages}; Ctrl-C or SIGTERM stops",
        file=err,
        flush=True,
    )


#: seconds between the interpreter's GIL hand-overs in ``dynabase serve`` (Python's default: 0.005)
SWITCH_INTERVAL = 0.001


def serve(
    options: Any,
    stop_signals: Callable[[Callable[[], None]], contextlib.AbstractContextManager[threading.Event]],
) -> int:
    """``dynabase serve``: run until SIGTERM/SIGINT, then stop gracefully. ``options`` has the command's
    arguments (``db``, ``host``, ``port``, ``region``, ``shared_db``, ``credentials``, ``access_key``,
    ``secret_key``, ``verbosity``, ``shutdown_timeout``, ``max_connections``, ``idle_timeout``,
    ``request_timeout``, ``max_body_memory``, ``workers``); ``stop_signals(on_stop)`` installs the signal
    handlers for the run (the CLI's ``dynabase.cli.signals.stop_on_signals``) and yields the event they set.
    More than one worker: :mod:`.workers`."""
    from .workers import worker_count

    err = sys.stderr
    try:
        secrets = _secrets(options)
        workers = worker_count(options)
    except (OSError, ValueError) as error:
        print(f"dynabase serve: {error}", file=err)
        return 2
    level = max(0, min(2, 1 + int(getattr(options, "verbosity", 0))))
    limits = {
        name: getattr(options, name)
        for name in ("max_connections", "idle_timeout", "request_timeout", "max_body_memory")
        if getattr(options, name, None) is not None
    }
    _make_room_for_descriptors(limits.get("max_connections", DEFAULT_MAX_CONNECTIONS))
    # a thread waiting for the GIL (a GetItem while a heavy Scan computes) gets it within 1 ms, not 5, while the
    # server runs (a caller's own interval comes back when it returns)
    previous = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        if workers > 1:
            return _serve_workers(options, stop_signals, workers, secrets, level, limits)
        return _serve_one(options, stop_signals, secrets, level, limits)
    finally:
        sys.setswitchinterval(previous)


def _make_server(
    options: Any,
    secrets: dict[str, str],
    level: int,
    limits: dict[str, Any],
    sock: socket.socket | None = None,
) -> Server:
    return Server(
        db=options.db,
        host=options.host,
        port=options.port,
        region=options.region,
        shared_db=options.shared_db,
        credentials=secrets or None,
        log_level=level,
        cors_origins=getattr(options, "cors_origin", None) or (),
        allowed_hosts=getattr(options, "allow_host", None) or (),
        adopt=bool(getattr(options, "adopt", False)),
        sock=sock,
        **limits,
    )


def _cannot_start(options: Any, error: Exception) -> str:
    """What to say when the server cannot start: the port, or the database."""
    if isinstance(error, OSError):
        return cannot_serve(options.host, options.port, error)
    if isinstance(error, StorageError):  # its message names the path and the reason
        return str(error)
    return f"cannot open the database {options.db!r}: {error}"  # locked, ...


def _where(options: Any) -> str:
    return options.db if options.shared_db else f"{options.db}, one database per access key and region"


def _stopped(level: int, cut: int) -> None:
    if level >= 1 or cut:
        print(f"dynabase: stopped{f' ({cut} connections cut)' if cut else ''}", file=sys.stderr, flush=True)


def _serve_one(
    options: Any, stop_signals: Any, secrets: dict[str, str], level: int, limits: dict[str, Any]
) -> int:
    err = sys.stderr
    try:
        server = _make_server(options, secrets, level, limits)
    except Exception as error:
        print(f"dynabase serve: {_cannot_start(options, error)}", file=err)
        return 1

    console = None
    if getattr(options, "ui", False):  # the web console on this port (dynabase.console)
        from ..console.server import attach

        try:
            console = attach(server, schema=getattr(options, "schema", None))
        except Exception as error:  # --per-key-db, or a schema that does not load
            server.stop(0)
            print(f"dynabase serve: --ui: {error}", file=err)
            return 1

    with stop_signals(server.http.request_stop) as stopping:
        print(f"dynabase serving on {server.url} (db: {_where(options)})", flush=True)
        if console is not None:
            print(f"dynabase console: open {console.url(server.url)}", flush=True)
        if level >= 1:
            _announce(server, secrets, err)
        try:
            server.serve_forever()
        finally:
            busy = server.http.in_flight()
            if stopping.is_set() and level >= 1:
                print(
                    f"dynabase: stopping ({busy} request{'s' if busy != 1 else ''} in flight)",
                    file=err,
                    flush=True,
                )
            _stopped(level, server.stop(float(getattr(options, "shutdown_timeout", 30.0))))
    return 0


def _serve_workers(
    options: Any, stop_signals: Any, count: int, secrets: dict[str, str], level: int, limits: dict[str, Any]
) -> int:
    """``--workers N`` (N > 1): the port claimed, the database made or checked once (not by N workers at
    once), then a :class:`.workers.Supervisor`. ``--max-body-memory`` is shared out among the workers; the
    other limits hold in each."""
    from .workers import Supervisor, listeners

    err = sys.stderr
    try:
        sockets = listeners(options.host, options.port, count)
    except OSError as error:
        print(f"dynabase serve: {_cannot_start(options, error)}", file=err)
        return 1
    try:
        if options.shared_db:
            _open_engine(
                options.db, options.region, bool(getattr(options, "adopt", False)), ttl_sweep_seconds=None
            ).close()
    except Exception as error:
        for sock in sockets:
            sock.close()
        print(f"dynabase serve: {_cannot_start(options, error)}", file=err)
        return 1
    memory = limits.get("max_body_memory", DEFAULT_BODY_MEMORY_MIB * 1024 * 1024)
    limits = {**limits, "max_body_memory": max(1, memory // count)}
    url = url_of(sockets[0])
    started: list[
        bool
    ] = []  # set once every worker is ready: a worker started in place of a dead one announces nothing

    def make(index: int, sock: socket.socket) -> Server:
        server = _make_server(options, secrets, level, limits, sock)
        if index == 0 and level >= 1 and not started:
            _announce(server, secrets, sys.stderr, count)
        return server

    def ready() -> None:
        started.append(True)
        print(f"dynabase serving on {url} (db: {_where(options)})", flush=True)
        if level >= 1:
            pids = ", ".join(str(w.pid) for w in supervisor.workers)
            print(f"dynabase: {count} workers (--workers), pids {pids}", file=err, flush=True)

    supervisor = Supervisor(
        sockets,
        make,
        stop_signals,
        log=RequestLog(err, level),
        ready_line=ready,
        shutdown_timeout=float(getattr(options, "shutdown_timeout", 30.0)),
    )
    status = supervisor.run()
    _stopped(level, supervisor.cut())
    return status


# -- a server in a child process ------------------------------------------------------------------------------


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class ServerProcess:
    """A ``dynabase serve`` child process; :meth:`stop` sends SIGTERM to exactly that process and waits."""

    def __init__(
        self, process: subprocess.Popen[bytes], url: str, log_path: str, started: float, ready: float
    ) -> None:
        self.process = process
        self.url = url
        self.port = int(url.rsplit(":", 1)[1])
        self.log_path = log_path
        #: seconds from spawning the process to its readiness line
        self.startup_seconds = ready - started
        self.started = started

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self) -> str:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError:
            return ""

    def stop(self, timeout: float = 15.0) -> int | None:
        import subprocess

        process = self.process
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        with contextlib.suppress(OSError):
            if process.stdout:
                process.stdout.close()
        return process.returncode

    def close(self) -> None:
        self.stop()
        with contextlib.suppress(OSError):
            os.unlink(self.log_path)

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def server_command(
    db: str = ":memory:", *, port: int = 0, host: str = "127.0.0.1", args: Iterable[str] = ()
) -> list[str]:
    return [sys.executable, "-m", "dynabase.server", "--db", db, "--host", host, "--port", str(port), *args]


def start_subprocess(
    db: str = ":memory:",
    *,
    port: int = 0,
    host: str = "127.0.0.1",
    args: Iterable[str] = (),
    env: dict[str, str] | None = None,
    timeout: float = 30.0,
    cwd: str | None = None,
) -> ServerProcess:
    """Start ``python -m dynabase.server`` and wait for its readiness line (its stderr goes to a temp file:
    :meth:`ServerProcess.output`)."""
    import selectors
    import subprocess
    import tempfile

    log = tempfile.NamedTemporaryFile(prefix="dynabase-serve-", suffix=".log", delete=False)  # noqa: SIM115
    command = server_command(db, port=port, host=host, args=args)
    child_env = dict(os.environ if env is None else env)
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this very package
    child_env["PYTHONPATH"] = src + (
        os.pathsep + child_env["PYTHONPATH"] if child_env.get("PYTHONPATH") else ""
    )
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=log,
        stdin=subprocess.DEVNULL,
        env=child_env,
        cwd=cwd,
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
    )
    log.close()
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    pending = b""
    deadline = started + timeout
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                break
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            pending += chunk
            match = READY_PATTERN.search(pending.decode("utf-8", "replace"))
            if match and b"\n" in pending[match.end() :] + b"\n" and pending.endswith(b"\n"):
                return ServerProcess(process, match.group(1), log.name, started, time.monotonic())
    finally:
        selector.close()
    if process.poll() is None:
        process.kill()
    process.wait(5)
    with open(log.name, encoding="utf-8", errors="replace") as handle:
        output = handle.read()
    raise RuntimeError(
        f"dynabase serve did not become ready within {timeout:.0f}s (exit {process.returncode}).\n"
        f"command: {' '.join(command)}\nstdout: {pending.decode(errors='replace')}\nstderr:\n{output}"
    )
