"""``mock_dynamodb()``: boto3's (and aiobotocore's) DynamoDB and DynamoDB Streams clients answered in process.

The patch sits at botocore's HTTP layer (:mod:`.hook`): each DynamoDB request goes to the same request handling
``dynabase serve`` uses (:class:`dynabase.server.app.DynamoDBApp`), whose answer becomes the HTTP response.
Everything above the HTTP send -- parameter validation, signing, retries, response parsing, exceptions,
paginators, waiters, ``boto3.resource`` -- runs as in production; other services' requests go on untouched.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import tempfile
import threading
import unittest
import zlib
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from botocore.awsrequest import AWSResponse

from ..server import jsonio
from ..server.access import Access
from ..server.app import DynamoDBApp
from ..server.shapes import Models
from . import fastpath
from .hook import ANSWERED_URL, activate, deactivate, install, patch_client, register, require_installed
from .state import DEFAULT_ACCOUNT, Databases, account_of, default_region

__all__ = ["MockDynamoDB", "install", "mock_dynamodb", "patch_client", "seed_engine"]

F = TypeVar("F")

#: what the environment gets for credentials while a mock is active and none are set (as moto does)
FAKE_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}

_models = Models()  # the service models, loaded once per process for every mock
install()


def _forget_fake_credentials() -> None:
    """boto3's default session keeps the credentials it first resolved: if that happened inside the mock, they
    are the fake ones the mock put in the environment, and every later ``boto3.client(...)`` would sign with
    them (DynamoDB Local, for one, keeps a database per access key). Let it resolve them again."""
    boto3 = sys.modules.get("boto3")
    core: Any = getattr(getattr(boto3, "DEFAULT_SESSION", None), "_session", None)
    credentials = getattr(core, "_credentials", None)  # botocore's private cache: left alone if it moved
    if getattr(credentials, "access_key", None) == FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"]:
        core._credentials = None


class _Raw:
    """The body of a response, as botocore reads it from urllib3."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Any:
        if self._body:
            yield self._body

    def read(self, *_: Any) -> bytes:
        body, self._body = self._body, b""
        return body


class _AwaitableBytes(bytes):
    """A response body botocore reads and aiobotocore awaits (``await http_response.content``)."""

    def __await__(self) -> Any:
        yield from ()
        return self


class _AwaitableStr(str):
    def __await__(self) -> Any:
        yield from ()
        return self


class _Response(AWSResponse):  # type: ignore[misc]  # botocore has no type hints: AWSResponse is Any
    """The HTTP response of a request answered in process, for botocore and aiobotocore alike: aiobotocore's
    endpoint awaits ``content`` and ``text`` where botocore's reads them."""

    @property
    def content(self) -> _AwaitableBytes:
        return _AwaitableBytes(super().content)

    @property
    def text(self) -> _AwaitableStr:
        return _AwaitableStr(super().text)


class _Activation:
    """One start of a mock: its databases, the app answering requests, and what it changed in the process."""

    def __init__(self, mock: MockDynamoDB) -> None:
        self.mock = mock
        self.databases = Databases(mock.db, base=mock.template())
        accounts, default = mock.accounts, mock.account_id

        def engine_for(access_key: str, region: str) -> Any:
            return self.databases.engine(account_of(access_key, accounts, default), region)

        self.app = DynamoDBApp(
            engine_factory=engine_for,
            region=default_region(),
            max_namespaces=1 << 16,
            access=Access(check_host=False),  # in-process: Host is the AWS endpoint's, no browser is involved
        )
        self.app.models = _models
        self._saved_env: dict[str, str | None] = {}

    def answer(self, request: Any) -> AWSResponse:
        url = request.url
        parts = urlsplit(url)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        headers = {
            name.lower(): value.decode("latin-1") if isinstance(value, bytes) else str(value)
            for name, value in request.headers.items()
        }
        body = request.body
        if body is None:
            body = b""
        elif isinstance(body, str):
            body = body.encode("utf-8")
        elif not isinstance(body, (bytes, bytearray)):
            body = body.read()
        response = self.app.handle(request.method, target, headers, bytes(body), client="mock")
        request.url = ANSWERED_URL
        out = {
            "x-amzn-RequestId": response.request_id,
            "Content-Type": response.content_type,
            "x-amz-crc32": str(zlib.crc32(response.body)),
            "Content-Length": str(len(response.body)),
        }
        out.update(response.headers or ())
        return _Response(url, response.status, out, _Raw(response.body))

    def enter(self) -> None:
        require_installed()
        if self.mock.fake_credentials and not os.environ.get("AWS_ACCESS_KEY_ID"):
            for name, value in FAKE_CREDENTIALS.items():
                self._saved_env[name] = os.environ.get(name)
                os.environ[name] = value
        boto3 = sys.modules.get("boto3")
        if boto3 is not None and boto3.DEFAULT_SESSION is not None:  # made before the hook was installed?
            register(boto3.DEFAULT_SESSION.events)
        jsonio.upgrade()  # the handler's JSON round trip on orjson, as `dynabase serve` has it
        fastpath.engage()
        activate(self)

    def exit(self) -> None:
        deactivate(self)
        fastpath.release()
        if self._saved_env:
            _forget_fake_credentials()
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self.app.close()
        self.databases.close()


class MockDynamoDB:
    """DynamoDB in process for the code under test: a context manager, a decorator (functions, coroutine
    functions, classes) or ``start()``/``stop()``. See :func:`mock_dynamodb`."""

    def __init__(
        self,
        *,
        tables: Iterable[Mapping[str, Any]] = (),
        schemas: Mapping[str, Any] | None = None,
        seed: Iterable[Any] = (),
        db: str | os.PathLike[str] | None = None,
        account_id: str = DEFAULT_ACCOUNT,
        accounts: Mapping[str, str] | None = None,
        region: str | None = None,
        fake_credentials: bool = True,
        base: Databases | None = None,
    ) -> None:
        self.tables = [dict(t) for t in tables]
        self.schemas = dict(schemas or {})
        self.seed = list(seed)
        self.db = db
        self.account_id = account_id
        self.accounts = dict(accounts or {})
        self.region = region
        self.fake_credentials = fake_credentials
        self._base = base
        self._template: Databases | None = None
        self._template_lock = threading.Lock()
        self._stack: list[_Activation] = []

    # -- state

    def template(self) -> Databases | None:
        """The start state every activation copies: ``base``, or the tables and items this mock seeds,
        made once on first use (None when there is nothing to seed)."""
        if self._base is not None:
            return self._base
        if not (self.tables or self.schemas or self.seed):
            return None
        with self._template_lock:
            if self._template is None:
                template = Databases()
                try:
                    seed_engine(
                        template.engine(self.account_id, self.region or default_region()),
                        tables=self.tables,
                        schemas=self.schemas,
                        seed=self.seed,
                    )
                except BaseException:
                    template.close()
                    raise
                self._template = template
        return self._template

    @property
    def active(self) -> bool:
        return bool(self._stack)

    def engine(self, region: str | None = None, account_id: str | None = None) -> Any:
        """The engine behind the innermost activation for one region and account (to inspect or prepare
        data without going through boto3)."""
        if not self._stack:
            raise RuntimeError("the mock is not active")
        return self._stack[-1].databases.engine(account_id or self.account_id, region or default_region())

    def opened(self, region: str | None = None, account_id: str | None = None) -> bool:
        """Whether the innermost activation has opened (and so copied) the database of a region and account."""
        key = (account_id or self.account_id, region or default_region())
        return bool(self._stack) and key in self._stack[-1].databases.opened()

    # -- starting and stopping

    def start(self) -> MockDynamoDB:
        activation = _Activation(self)
        activation.enter()
        self._stack.append(activation)
        return self

    def stop(self) -> None:
        if not self._stack:
            raise RuntimeError("stop() called on a mock that is not active")
        self._stack.pop().exit()

    def __enter__(self) -> MockDynamoDB:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- decorating

    # the wrapper is returned as F: a decorator keeps what it decorates callable the same way
    def __call__(self, target: F) -> F:
        if isinstance(target, type):
            return self._decorate_class(target)  # type: ignore[return-value]
        if inspect.iscoroutinefunction(target):

            @functools.wraps(target)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with self:
                    return await target(*args, **kwargs)

            return run_async  # type: ignore[return-value]
        if not callable(target):
            raise TypeError(f"mock_dynamodb decorates functions and classes, not {type(target).__name__}")

        @functools.wraps(target)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return target(*args, **kwargs)

        return run  # type: ignore[return-value]

    def _decorate_class(self, cls: type) -> type:
        """unittest classes: the mock spans setUp, the test and tearDown (fresh per test). Other classes:
        each ``test*`` method runs in its own activation (and ``setup_method``/``teardown_method``, when the
        class has them, run inside it)."""
        if issubclass(cls, unittest.TestCase):
            original = cls.setUp
            mock = self

            @functools.wraps(original)
            def set_up(test: Any, *args: Any, **kwargs: Any) -> None:
                mock.start()
                test.addCleanup(mock.stop)
                original(test, *args, **kwargs)

            # the class's own setUp, replaced: every test of it runs in a fresh activation
            cls.setUp = set_up  # type: ignore[method-assign,assignment]
            return cls
        setup = cls.__dict__.get("setup_method")
        teardown = cls.__dict__.get("teardown_method")
        if setup is not None or teardown is not None:  # (attributes of the test class, set here)
            cls.setup_method = self._starting(setup)  # type: ignore[attr-defined]
            cls.teardown_method = self._stopping(teardown)  # type: ignore[attr-defined]
            return cls
        for name, value in list(vars(cls).items()):
            if name.startswith("test") and callable(value):
                setattr(cls, name, self(value))
        return cls

    def _starting(self, setup: Any) -> Any:
        mock = self

        def setup_method(test: Any, method: Any = None) -> None:
            mock.start()
            if setup is not None:
                setup(test, method)

        return setup_method

    def _stopping(self, teardown: Any) -> Any:
        mock = self

        def teardown_method(test: Any, method: Any = None) -> None:
            try:
                if teardown is not None:
                    teardown(test, method)
            finally:
                mock.stop()

        return teardown_method


def mock_dynamodb(target: Any = None, **options: Any) -> Any:
    """DynamoDB and DynamoDB Streams in process, for boto3 and everything built on botocore (aiobotocore's
    clients included: the answer is awaited where botocore reads it).

    Use it as ``with mock_dynamodb():``, as ``@mock_dynamodb`` / ``@mock_dynamodb(...)`` on a test function
    (sync or async) or class, or ``m = mock_dynamodb(); m.start(); ...; m.stop()``. Each activation starts
    from a fresh state; every account and region is its own database.

    - ``tables``: CreateTable requests; ``schemas``: ``{table name: OneTable schema}`` (dict, text or path);
      ``seed``: JSON-lines files (with ``<name>.table.json`` beside them) or S3 export directories, or
      ``(path, table name)`` pairs -- created and loaded once, then copied into each activation
      (in ``account_id`` and ``region``, default the environment's region or us-east-1).
    - ``db``: a directory to keep the databases in (``<account>_<region>.db``, replaced at each start) so
      they can be inspected after a failing test; in memory otherwise.
    - ``account_id``: the account in ARNs; ``accounts``: ``{access key: account}`` (a 12-digit access key is
      its own account).
    - ``fake_credentials``: set ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY`` to ``testing`` while active
      when the environment has none, as moto does (no credentials are needed otherwise).

    ``options`` are :class:`MockDynamoDB`'s: ``tables``, ``schemas``, ``seed``, ``db``, ``account_id``,
    ``accounts``, ``region``, ``fake_credentials``.
    """
    mock = MockDynamoDB(**options)
    return mock if target is None else mock(target)


def seed_engine(
    engine: Any,
    *,
    tables: Iterable[Mapping[str, Any]] = (),
    schemas: Mapping[str, Any] | None = None,
    seed: Iterable[Any] = (),
) -> None:
    """Create ``tables`` (CreateTable requests) and ``schemas`` (OneTable schemas by table name) in ``engine``
    and load the ``seed`` files into it; a rejected seed line is an error."""
    from ..client import EmbeddedClient

    client = EmbeddedClient(engine)
    for request in tables:
        client.create_table(**request)
    if schemas:
        from ..model import Table
        from ..schema import load_schema

        for name, schema in schemas.items():
            Table(name, client, load_schema(schema)).create_table()
    for entry in seed:
        path, table = (entry, None) if not isinstance(entry, (tuple, list)) else entry
        _import(client, path, table)


def _import(client: Any, path: Any, table: str | None) -> None:
    from ..transfer import import_table

    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="dynabase-seed-") as scratch:
        summary = import_table(
            client,
            path,
            table,
            create=True,
            checkpoint=os.path.join(scratch, "checkpoint"),
            rejects=os.path.join(scratch, "rejects.jsonl"),
            log=problems.append,
        )
    if summary.rejected:
        detail = "; ".join(problems[:5])
        raise ValueError(f"seed {os.fspath(path)!r}: {summary.rejected} line(s) rejected: {detail}")
