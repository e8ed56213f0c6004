"""A boto3-compatible low-level DynamoDB client over the embedded engine.

Method names, parameters, responses, paginators, waiters and exceptions are boto3's, so code written for
``boto3.client("dynamodb")`` runs unchanged against a local file or memory database.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from functools import cache
from typing import Any, TypeVar

import botocore.session
from botocore.exceptions import ParamValidationError
from botocore.paginate import Paginator
from botocore.validate import ParamValidator

from ..engine import Engine, capture, quarantine
from ..engine.readers import ITEM_READER, ReaderError
from ..engine.validation import DATA_PLANE
from ..errors import DynamoDBError, client_exceptions, to_client_error

# Data-plane operations get a fast top-level check; when the engine then rejects the request, botocore's full
# validator runs so that malformed parameters still raise ParamValidationError exactly as boto3 would.
# Every other operation goes through botocore's full validator up front.
_T = TypeVar("_T")
_HOT = DATA_PLANE
_TIMESTAMP_SUFFIXES = ("DateTime", "Timestamp")
_PY_TYPES = {
    "string": str,
    "integer": int,
    "long": int,
    "boolean": bool,
    "list": list,
    "map": dict,
    "structure": dict,
    "blob": (bytes, bytearray, str),
    "double": (int, float),
}


#: one thread at a time in the shared botocore session: its components are made on first use, and in older
#: botocore two threads making one at once fail (``KeyError: 'data_loader'`` with 1.31, our floor: clients
#: opened from a thread pool)
_SESSION_LOCK = threading.Lock()


@cache
def _session() -> Any:
    return botocore.session.get_session()


@cache
def service_model(service: str = "dynamodb") -> Any:
    with _SESSION_LOCK:
        return _session().get_service_model(service)


@cache
def _paginator_model(service: str) -> Any:
    with _SESSION_LOCK:
        return _session().get_paginator_model(service)


@cache
def _waiter_model(service: str) -> Any:
    with _SESSION_LOCK:
        return _session().get_waiter_model(service)


def _snake(name: str) -> str:
    from botocore import xform_name

    snake: str = xform_name(name)
    return snake


class _Meta:
    def __init__(self, service: str, region: str) -> None:
        self.service_model = service_model(service)
        self.region_name = region
        self.endpoint_url = "embedded"
        self.method_to_api_mapping = {_snake(n): n for n in self.service_model.operation_names}
        from botocore.hooks import HierarchicalEmitter

        self.events = HierarchicalEmitter()  # botocore's waiters document themselves through it


class BotoConveniences:
    """boto3's paginators and waiters, for a client with ``meta``, ``_service`` and boto3's methods."""

    meta: Any
    _service: str
    _operations: dict[str, str]
    #: the paginator class ``get_paginator`` returns (the asyncio client's awaits its calls)
    _paginator_class: type[Paginator] = Paginator

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._operations))

    def can_paginate(self, operation_name: str) -> bool:
        name = self.meta.method_to_api_mapping.get(operation_name, operation_name)
        return _paginator_model(self._service)._paginator_config.get(name) is not None

    def get_paginator(self, operation_name: str) -> Paginator:
        name = self.meta.method_to_api_mapping.get(operation_name, operation_name)
        if not self.can_paginate(operation_name):
            from botocore.exceptions import OperationNotPageableError

            raise OperationNotPageableError(operation_name=operation_name)
        config = _paginator_model(self._service).get_paginator(name)
        method, model = getattr(self, _snake(name)), self.meta.service_model.operation_model(name)
        return self._paginator_class(method, config, model)

    def get_waiter(self, waiter_name: str) -> Any:
        from botocore.waiter import create_waiter_with_client

        model = _waiter_model(self._service)
        names = {_snake(name): name for name in model.waiter_names}  # boto3 takes "table_exists"
        if waiter_name not in names:
            raise ValueError(f"Waiter does not exist: {waiter_name}")
        return create_waiter_with_client(names[waiter_name], model, self)


def validate_params(service: str, operation: str, params: dict[str, Any]) -> None:
    """botocore's validation of the parameters (ParamValidationError as boto3 raises it)."""
    report = _validator().validate(params, service_model(service).operation_model(operation).input_shape)
    if report.has_errors():
        raise ParamValidationError(report=report.generate_report())


@cache
def _validator() -> ParamValidator:
    return ParamValidator()


class EmbeddedClient(BotoConveniences):
    """``boto3.client("dynamodb")``'s interface, served in process by :class:`dynabase.engine.Engine`."""

    _service = "dynamodb"

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.meta = _Meta(self._service, engine.region)
        self.exceptions = client_exceptions(self._service)
        self._request_ids = itertools.count(1)
        # every operation of botocore's model is a method, as on boto3's client: the engine answers those it
        # does not implement with UnknownOperationException, as the server and DynamoDB Local do
        names = set(self.meta.service_model.operation_names) | set(self._supported())
        self._operations = {_snake(name): name for name in names}

    def _supported(self) -> list[str]:
        """The operations the engine implements."""
        return list(self.engine.operations)

    def streams(self) -> EmbeddedStreamsClient:
        """A ``boto3.client("dynamodbstreams")`` look-alike on the same database."""
        return EmbeddedStreamsClient(self.engine)

    def __getattr__(self, attr: str) -> Any:
        operation = self.__dict__.get("_operations", {}).get(attr)
        if operation is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

        if operation in _HOT:  # the data plane: the same steps as _make_api_call, one call fewer
            spec = _top_level_types(self._service, operation)
            engine_call, service, metadata = self.engine.call, self._service, self._metadata

            def call(**kwargs: Any) -> dict[str, Any]:
                if not _fast_check(spec, kwargs):
                    self._validate(operation, kwargs)
                try:
                    response = engine_call(operation, kwargs, service)
                except DynamoDBError as error:
                    raise self._client_error(operation, kwargs, error) from None
                response["ResponseMetadata"] = metadata()
                return response
        else:

            def call(**kwargs: Any) -> dict[str, Any]:
                return self._make_api_call(operation, kwargs)

        call.__name__ = attr
        call.__doc__ = f"DynamoDB {operation} (see boto3's documentation)."
        setattr(self, attr, call)
        return call

    def _make_api_call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        self._validate(operation, params)
        try:
            response = self.engine.call(operation, params, self._service)
        except DynamoDBError as error:
            raise self._client_error(operation, params, error) from None
        if operation not in _HOT:
            response = _parse_timestamps(response)
        response["ResponseMetadata"] = self._metadata()
        return response

    def _metadata(self) -> dict[str, Any]:
        return {
            "RequestId": f"dynabase-{next(self._request_ids):012d}",
            "HTTPStatusCode": 200,
            "HTTPHeaders": {},
            "RetryAttempts": 0,
        }

    def _client_error(self, operation: str, params: dict[str, Any], error: DynamoDBError) -> Exception:
        if error.code == "ValidationException" and operation in _HOT:
            # the fast check let it through: botocore's full validator names the bad parameter, as boto3 would
            self._validate(operation, params)
        return to_client_error(error, operation, self._service)

    def _validate(self, operation: str, params: dict[str, Any]) -> None:
        validate_params(self._service, operation, params)

    def read_query(
        self,
        reader: Callable[[dict[str, Any]], Any],
        whole: Callable[[dict[str, Any]], Any] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """``query(**kwargs)`` whose ``Items`` are ``reader(item)`` of each item, called as the engine makes the
        item (an internal, optional capability: the entity layer's compiled readers use it when a client has it;
        the response is otherwise ``query``'s own, without ``ResponseMetadata``).

        With ``whole``, a Query of the table itself (no index, no projection) hands ``reader`` its items without
        the table's key attributes; ``reader`` returns None for an item it must see with them, and that item
        goes to ``whole`` whole (see :data:`dynabase.engine.readers.ItemReader`)."""
        if not _fast_check(_top_level_types(self._service, "Query"), kwargs):
            self._validate("Query", kwargs)
        token = ITEM_READER.set((reader, whole))
        try:
            response: dict[str, Any] = self.engine.call("Query", kwargs, self._service)
            return response
        except DynamoDBError as error:
            raise self._client_error("Query", kwargs, error) from None
        except ReaderError as error:  # what the reader raised, as it raised it
            raise error.error from None
        finally:
            ITEM_READER.reset(token)

    # -- dynabase extensions: change capture for sync (see dynabase.engine.capture and docs/sync.md) -----------

    def _extension(self, function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        try:
            return function(self.engine, *args, **kwargs)
        except DynamoDBError as error:
            raise to_client_error(error, function.__name__, self._service) from None

    def clock(self) -> float:
        """The engine clock (epoch seconds) that stamps captured changes."""
        return self.engine.clock()

    def enable_change_capture(
        self,
        *,
        TableName: str,
        TypeAttribute: str | None = None,
        Types: list[str] | None = None,
        Guarded: list[str] | None = None,
        Reserve: int = 0,
    ) -> dict[str, Any]:
        """Queue every change of the table's items (of the models ``Types`` names, when given) for sync, in the
        write's own transaction. ``Guarded``: models captured only to be undone; ``Reserve``: bytes of sync
        metadata a pushed item needs (a write that leaves no room for them is refused). Idempotent."""
        return self._extension(
            capture.enable_change_capture, TableName, TypeAttribute, Types, Guarded, Reserve
        )

    def read_changes(self, *, TableName: str, Limit: int = 100, AfterSeq: int = 0) -> dict[str, Any]:
        """Pending changes in order: ``{"Changes": [{"Key", "Seq", "At", "Base"?, "Item" | "OldItem"}], "Pending"}``."""
        return self._extension(capture.read_changes, TableName, Limit, AfterSeq)

    def pin_versions(self, *, TableName: str, Pins: list[dict[str, Any]]) -> None:
        """Fix the version each pending change (``{"Key", "Seq", "Version"}``) is pushed with."""
        self._extension(capture.pin_versions, TableName, Pins)

    def ack_changes(
        self, *, TableName: str, Acks: list[dict[str, Any]], TombstoneSeconds: float = 30 * 86400
    ) -> dict[str, Any]:
        """Drop pushed changes whose seq is unchanged and stamp their items with the version pushed."""
        return self._extension(capture.ack_changes, TableName, Acks, TombstoneSeconds)

    def quarantine_changes(self, *, TableName: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        """Set aside pending changes the cloud refused (``{"Key", "Seq", "Reason"}``)."""
        return self._extension(quarantine.quarantine_changes, TableName, Entries)

    def list_quarantine(self, *, TableName: str) -> dict[str, Any]:
        """The changes set aside, with their ``Reason``: ``{"Changes": [...]}``."""
        return self._extension(quarantine.list_quarantine, TableName)

    def release_quarantine(
        self, *, TableName: str, Keys: list[dict[str, Any]] | None = None, Drop: bool = False
    ) -> dict[str, Any]:
        """Give quarantined changes (``Keys``; None: all) back to the next push, or drop them (``Drop``)."""
        return self._extension(quarantine.release_quarantine, TableName, Keys, Drop)

    def discard_changes(self, *, TableName: str, Discards: list[dict[str, Any]]) -> dict[str, Any]:
        """Undo device changes sync must not push: each item becomes the cloud's (``{"Key", "Seq", "Item"?}``)."""
        return self._extension(capture.discard_changes, TableName, Discards)

    def apply_changes(
        self,
        *,
        TableName: str,
        Changes: list[dict[str, Any]],
        State: dict[str, str | None] | None = None,
        ClockOffsetMs: int = 0,
        Node: str = "",
        TombstoneSeconds: float = 30 * 86400,
    ) -> dict[str, Any]:
        """Apply pulled changes (newer versions win; not captured) and store ``State`` in one transaction."""
        return self._extension(
            capture.apply_changes,
            TableName,
            Changes,
            state=State,
            offset_ms=ClockOffsetMs,
            node=Node,
            tombstone_seconds=TombstoneSeconds,
        )

    def get_sync_state(self, *, TableName: str) -> dict[str, str]:
        return self._extension(capture.get_sync_state, TableName)

    def put_sync_state(self, *, TableName: str, State: dict[str, str | None]) -> None:
        self._extension(capture.put_sync_state, TableName, State)

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> EmbeddedClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class EmbeddedStreamsClient(EmbeddedClient):
    """``boto3.client("dynamodbstreams")``'s interface on the embedded engine."""

    _service = "dynamodbstreams"

    def _supported(self) -> list[str]:
        return list(self.engine.stream_operations)


#: an operation's top-level parameters: each one's usual exact class, the Python types it may have, and the
#: required ones
_Spec = tuple[dict[str, type], dict[str, Any], frozenset[str]]


@cache
def _top_level_types(service: str, operation: str) -> _Spec:
    """An operation's top-level parameters with their Python types, and the required ones."""
    shape = service_model(service).operation_model(operation).input_shape
    types = {}
    for name, member in shape.members.items():
        expected = _PY_TYPES.get(member.type_name, object)
        types[name] = int if member.type_name in ("integer", "long") else expected
    exact = {name: t for name, t in types.items() if isinstance(t, type) and t is not object}
    return exact, types, frozenset(shape.required_members)


def _fast_check(spec: _Spec, params: dict[str, Any]) -> bool:
    """True when the top-level parameters are known, present when required and of the right Python types."""
    exact, types, required = spec
    for name, value in params.items():
        if exact.get(name) is value.__class__:
            continue
        expected = types.get(name)
        if expected is None or not isinstance(value, expected) or (expected is int and type(value) is bool):
            return False
    return params.keys() >= required


def _parse_timestamps(value: Any, key: str = "") -> Any:
    """Epoch-second timestamps in control-plane responses become aware datetimes, as boto3 returns them."""
    if isinstance(value, dict):
        return {k: _parse_timestamps(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_parse_timestamps(v, key) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key.endswith(_TIMESTAMP_SUFFIXES):
        return datetime.fromtimestamp(value, tz=timezone.utc)
    return value
