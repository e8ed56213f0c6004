"""Sync errors, and which endpoint failures are worth retrying."""

from __future__ import annotations

from typing import Any

#: error codes that mean the credentials (or their permissions) are wrong: retrying cannot help
CREDENTIAL_CODES = frozenset(
    {
        "UnrecognizedClientException",
        "InvalidSignatureException",
        "IncompleteSignatureException",
        "MissingAuthenticationTokenException",
        "AccessDeniedException",
        "AccessDenied",
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "SignatureDoesNotMatch",
    }
)
#: error codes of a busy or failing endpoint
RETRY_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "Throttling",
        "RequestLimitExceeded",
        "InternalServerError",
        "InternalFailure",
        "ServiceUnavailable",
        "TransactionConflictException",
        "LimitExceededException",
    }
)


class SyncError(Exception):
    """Sync could not finish. ``retryable``: the endpoint was unreachable, busy or failing (the loop backs off
    and tries again); otherwise (credentials, a missing table, a bad schema) it stops."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


def classify(error: BaseException, endpoint: str) -> SyncError:
    """A :class:`SyncError` with a clear message for an exception raised by the cloud client."""
    if isinstance(error, SyncError):
        return error
    response = getattr(error, "response", None)
    if isinstance(response, dict) and "Error" in response:
        code = (response.get("Error") or {}).get("Code") or ""
        message = (response.get("Error") or {}).get("Message") or str(error)
        status = (response.get("ResponseMetadata") or {}).get("HTTPStatusCode") or 0
        if code in CREDENTIAL_CODES or status in (401, 403):
            return SyncError(
                f"the endpoint {endpoint} rejected the credentials ({code}: {message}); check "
                "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE"
            )
        if code == "ResourceNotFoundException":
            return SyncError(f"the cloud table was not found at {endpoint} ({message}); create it first")
        if code.isdigit() or not code:
            # DynamoDB names every error (``__type``); botocore falls back to the HTTP status when the body
            # could not be parsed: the answer was cut on its way (a relay gave up), not a refusal
            return SyncError(
                f"an incomplete answer from {endpoint} (HTTP {status or code}, no DynamoDB error in it): "
                "the connection was cut; retrying",
                retryable=True,
            )
        if code in RETRY_CODES or status >= 500:
            return SyncError(
                f"the endpoint {endpoint} is busy or failing ({code}: {message})", retryable=True
            )
        return SyncError(f"the endpoint {endpoint} refused a request ({code}: {message})")
    name = type(error).__name__
    if name in ("NoCredentialsError", "PartialCredentialsError", "CredentialRetrievalError"):
        from ..endpoints import missing_credentials_hint

        return SyncError(
            f"no usable AWS credentials for {endpoint}: {error}; {missing_credentials_hint(endpoint)}"
        )
    if _is_connection_error(error):
        return SyncError(f"cannot reach {endpoint}: {error}", retryable=True)
    return SyncError(f"sync failed: {name}: {error}")


def _is_connection_error(error: BaseException) -> bool:
    from botocore.exceptions import ConnectionError as BotoConnectionError
    from botocore.exceptions import HTTPClientError

    kinds: tuple[Any, ...] = (BotoConnectionError, HTTPClientError, ConnectionError, TimeoutError)
    return isinstance(error, kinds)
