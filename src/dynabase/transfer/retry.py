"""Exponential backoff for throttling and transient server errors (and for BatchWriteItem's UnprocessedItems)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from .errors import TransferError
from .tabledef import error_code, error_message

T = TypeVar("T")

RETRYABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "LimitExceededException",
    }
)


class Backoff:
    """Delays of ``base * 2**n`` (capped, with jitter) for up to ``attempts`` retries in a row."""

    def __init__(
        self,
        base: float = 0.05,
        cap: float = 10.0,
        attempts: int = 12,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base, self.cap, self.attempts, self.sleep = base, cap, attempts, sleep

    def delay(self, attempt: int) -> float:
        ceiling: float = min(self.cap, self.base * (2**attempt))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def call(self, what: str, function: Callable[..., T], **kwargs: Any) -> T:
        """``function(**kwargs)``, retried on throttling/transient errors."""
        attempt = 0
        while True:
            try:
                return function(**kwargs)
            except ClientError as error:
                if error_code(error) not in RETRYABLE_CODES:
                    raise
                if attempt >= self.attempts:
                    raise TransferError(
                        f"{what} kept failing after {attempt} retries: {error_message(error)}"
                    )
                self.sleep(self.delay(attempt))
                attempt += 1
