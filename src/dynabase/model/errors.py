"""Errors of the entity layer.

Every error raised by :mod:`dynabase.model` is a :class:`OneTableError`; its ``code`` is OneTable's error code
(``ValidationError``, ``UniqueError``, ``NonUniqueError``, ``NotFoundError``, ``MissingError``, ...) or, for a
failed DynamoDB call, DynamoDB's own error code (``ConditionalCheckFailedException``, ...).  The original
``botocore`` ``ClientError`` is kept as ``error`` (and as ``__cause__``).
"""

from __future__ import annotations

from typing import Any


class OneTableError(Exception):
    """Base class: ``code`` names the kind of failure, ``context`` carries details."""

    default_code = "OneTableError"

    def __init__(self, message: str, *, code: str | None = None, error: Any = None, **context: Any) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.error = error
        self.context = context

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r})"


class OneTableArgError(OneTableError, TypeError):
    """The API was called wrongly (bad parameter combination, unknown index, ...)."""

    default_code = "ArgumentError"


class ParameterError(OneTableArgError):
    """A method got a parameter it does not take, or a value of the wrong kind for one (see
    :mod:`dynabase.model.params`); ``method`` and ``param`` name them, ``suggestion`` is the likely intended name."""

    def __init__(
        self,
        message: str,
        *,
        method: str | None = None,
        param: str | None = None,
        suggestion: str | None = None,
        **context: Any,
    ) -> None:
        super().__init__(message, **context)
        self.method = method
        self.param = param
        self.suggestion = suggestion


class ValidationError(OneTableError, ValueError):
    """Properties failed the schema: wrong type, missing required, enum or regex miss, unknown model.

    ``model`` is the model name and ``fields`` maps each failing field (dotted path for nested schemas) to a
    message.
    """

    default_code = "ValidationError"

    def __init__(
        self,
        message: str | None = None,
        *,
        model: str | None = None,
        fields: dict[str, str] | None = None,
        code: str | None = None,
        **context: Any,
    ) -> None:
        fields = dict(fields or {})
        if message is None:
            message = f'Validation Error in "{model}" for "{", ".join(fields)}"'
            details = "; ".join(fields.values())
            if details:
                message = f"{message}: {details}"
        super().__init__(message, code=code, **context)
        self.model = model
        self.fields = fields
        # OneTable's name for the same map
        self.validation = fields


class MissingKeyError(ValidationError):
    """A key could not be built from the properties (empty hash key, missing sort key for remove)."""

    default_code = "MissingError"


class UniqueError(OneTableError):
    """A unique field's value is already taken (the ``_unique#`` sentinel item exists)."""

    default_code = "UniqueError"


class NonUniqueError(OneTableError):
    """A get/remove that must match one item matched several."""

    default_code = "NonUniqueError"


class NotFoundError(OneTableError):
    """The item to update/remove does not exist."""

    default_code = "NotFoundError"


class ConditionFailedError(OneTableError):
    """DynamoDB's ConditionalCheckFailedException (``exists`` or ``where`` condition did not hold)."""

    default_code = "ConditionalCheckFailedException"


class TransactionError(OneTableError):
    """DynamoDB's TransactionCanceledException; ``reasons`` lists the CancellationReasons codes."""

    default_code = "TransactionCanceledException"

    def __init__(self, message: str, *, reasons: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.reasons = reasons or []


class ModelDisabledError(OneTableError, LookupError):
    """The model exists in the schema but its ``process.<Model>.enable`` excludes this table's side."""

    default_code = "ModelDisabled"


class CryptoError(OneTableError):
    """Encryption misconfigured (no crypto key of that name) or a value could not be decrypted."""

    default_code = "CryptoError"


__all__ = [
    "ConditionFailedError",
    "CryptoError",
    "MissingKeyError",
    "ModelDisabledError",
    "NonUniqueError",
    "NotFoundError",
    "OneTableArgError",
    "OneTableError",
    "ParameterError",
    "TransactionError",
    "UniqueError",
    "ValidationError",
]
