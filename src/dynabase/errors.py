"""One exception hierarchy for the whole package.

The engine raises :class:`DynamoDBError` subclasses, which carry DynamoDB's error code, message and HTTP status.
Clients turn them into ``botocore.exceptions.ClientError`` (the exact class boto3 would raise, so
``client.exceptions.ConditionalCheckFailedException`` catches them) and the server turns them into the wire
protocol's JSON error body.
"""

from __future__ import annotations

from typing import Any


class DynamoDBError(Exception):
    """An error answered by the DynamoDB API: code, message, HTTP status and optional extra response fields."""

    code = "InternalServerError"
    status = 400
    #: the namespace of ``__type`` in the wire protocol's error body
    namespace = "com.amazonaws.dynamodb.v20120810"

    def __init__(self, message: str = "", **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra

    def response(self) -> dict[str, Any]:
        """The error as boto3's parsed error response dict."""
        body: dict[str, Any] = {
            "Error": {"Message": self.message, "Code": self.code},
            "ResponseMetadata": {"HTTPStatusCode": self.status, "HTTPHeaders": {}, "RetryAttempts": 0},
        }
        body.update(self.extra)
        return body

    def wire_body(self) -> dict[str, Any]:
        """The error as DynamoDB's JSON 1.0 error body."""
        body: dict[str, Any] = {"__type": f"{self.namespace}#{self.code}", "Message": self.message}
        body.update(self.extra)
        return body

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


def _error(code: str, status: int = 400, namespace: str | None = None) -> type[DynamoDBError]:
    attrs: dict[str, Any] = {"code": code, "status": status}
    if namespace:
        attrs["namespace"] = namespace
    return type(code, (DynamoDBError,), attrs)


_CORAL = "com.amazon.coral.validate"
_SERVICE = "com.amazon.coral.service"

ValidationException = _error("ValidationException", namespace=_CORAL)
SerializationException = _error("SerializationException", namespace=_SERVICE)
UnknownOperationException = _error("UnknownOperationException")
MissingAuthenticationTokenException = _error("MissingAuthenticationTokenException", namespace=_SERVICE)
UnrecognizedClientException = _error("UnrecognizedClientException")
InvalidSignatureException = _error("InvalidSignatureException")
ResourceNotFoundException = _error("ResourceNotFoundException")
ResourceInUseException = _error("ResourceInUseException")
ConditionalCheckFailedException = _error("ConditionalCheckFailedException")
TransactionCanceledException = _error("TransactionCanceledException")
TransactionConflictException = _error("TransactionConflictException")
TransactionInProgressException = _error("TransactionInProgressException")
IdempotentParameterMismatchException = _error("IdempotentParameterMismatchException")
ItemCollectionSizeLimitExceededException = _error("ItemCollectionSizeLimitExceededException")
LimitExceededException = _error("LimitExceededException")
ProvisionedThroughputExceededException = _error("ProvisionedThroughputExceededException")
DuplicateItemException = _error("DuplicateItemException")
ExpiredIteratorException = _error("ExpiredIteratorException", namespace="com.amazonaws.dynamodb.v20120810")
TrimmedDataAccessException = _error("TrimmedDataAccessException")
InternalServerError = _error("InternalServerError", status=500)
InternalFailure = _error("InternalFailure", status=500)

_BY_CODE = {
    cls.code: cls
    for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, DynamoDBError) and cls is not DynamoDBError
}


def error_class(code: str) -> type[DynamoDBError]:
    """The exception class for a DynamoDB error code (a generic one for codes this module does not name)."""
    return _BY_CODE.get(code) or _error(code)


class ClosedError(Exception):
    """A call on an embedded client (or engine) after ``close()``: the database is no longer open."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"the database {path} is closed (close() was called on its client); open it again with dynabase.connect()"
        )
        self.path = path


class StorageError(Exception):
    """The embedded database file cannot be opened or used (not DynamoDB's error: no call was made).

    The message names the path and the reason: a missing directory, no permission, not a database, ..."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot open database {path}: {reason}")
        self.path = path
        self.reason = reason


# -- botocore ClientError -------------------------------------------------------------------------------------

_client_exceptions: dict[str, Any] = {}


def client_exceptions(service: str = "dynamodb") -> Any:
    """boto3's ``client.exceptions`` object for a service, built from botocore's own service model."""
    if service not in _client_exceptions:
        import botocore.session
        from botocore.errorfactory import ClientExceptionsFactory

        model = botocore.session.get_session().get_service_model(service)
        _client_exceptions[service] = ClientExceptionsFactory().create_client_exceptions(model)
    return _client_exceptions[service]


def to_client_error(error: DynamoDBError, operation_name: str, service: str = "dynamodb") -> Exception:
    """The ``botocore.exceptions.ClientError`` (subclass) boto3 would raise for this error."""
    cls: type[Exception] = client_exceptions(service).from_code(error.code)
    return cls(error.response(), operation_name)
