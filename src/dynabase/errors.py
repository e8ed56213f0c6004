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
    #: the member of the wire body holding the message
    message_key = "Message"

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
        body: dict[str, Any] = {"__type": f"{self.namespace}#{self.code}", self.message_key: self.message}
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

# the errors DynamoDB answers (classes, not _error(...) calls, so that type checkers know them)


class ValidationException(DynamoDBError):
    code = "ValidationException"
    namespace = _CORAL


class SerializationException(DynamoDBError):
    code = "SerializationException"
    namespace = _SERVICE


class AccessDeniedException(DynamoDBError):
    code = "AccessDeniedException"
    namespace = _SERVICE


class UnknownOperationException(DynamoDBError):
    code = "UnknownOperationException"


class MissingAuthenticationTokenException(DynamoDBError):
    code = "MissingAuthenticationTokenException"
    namespace = _SERVICE


class UnrecognizedClientException(DynamoDBError):
    code = "UnrecognizedClientException"


class InvalidSignatureException(DynamoDBError):
    code = "InvalidSignatureException"


class ResourceNotFoundException(DynamoDBError):
    code = "ResourceNotFoundException"


class ResourceInUseException(DynamoDBError):
    code = "ResourceInUseException"


class ConditionalCheckFailedException(DynamoDBError):
    code = "ConditionalCheckFailedException"


class TransactionCanceledException(DynamoDBError):
    code = "TransactionCanceledException"


class TransactionConflictException(DynamoDBError):
    code = "TransactionConflictException"


class TransactionInProgressException(DynamoDBError):
    code = "TransactionInProgressException"


class IdempotentParameterMismatchException(DynamoDBError):
    code = "IdempotentParameterMismatchException"


class ItemCollectionSizeLimitExceededException(DynamoDBError):
    code = "ItemCollectionSizeLimitExceededException"


class LimitExceededException(DynamoDBError):
    code = "LimitExceededException"


class ProvisionedThroughputExceededException(DynamoDBError):
    code = "ProvisionedThroughputExceededException"


class DuplicateItemException(DynamoDBError):
    code = "DuplicateItemException"


class ExpiredIteratorException(DynamoDBError):
    code = "ExpiredIteratorException"
    namespace = "com.amazonaws.dynamodb.v20120810"


class TrimmedDataAccessException(DynamoDBError):
    code = "TrimmedDataAccessException"


class InternalServerError(DynamoDBError):
    code = "InternalServerError"
    status = 500
    message_key = "message"  # the service's own body: {"__type": "...#InternalServerError", "message": ...}


class InternalFailure(DynamoDBError):
    code = "InternalFailure"
    status = 500


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
