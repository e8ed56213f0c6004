"""The botocore hook behind ``mock_dynamodb``: a ``before-send`` handler for DynamoDB and DynamoDB Streams.

Registered on every botocore session made after :func:`install` (moto does the same with its catch-all
handler), it does nothing until a mock is active; then the innermost active mock answers each request. It is
registered for the DynamoDB services only, so it runs before a catch-all ``before-send`` handler such as
moto's, and it leaves each request it answered marked (:data:`ANSWERED_URL`) so that such a handler, and a
second registration of this one, let it pass. Kept free of the engine so the pytest plugin can install it
cheaply when pytest starts.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

EVENTS = ("before-send.dynamodb", "before-send.dynamodb-streams")
#: the URL a request answered in process is left with
ANSWERED_URL = "http://dynabase.invalid/answered"


class Answering(Protocol):
    def answer(self, request: Any) -> Any: ...


_active: list[Answering] = []
_lock = threading.Lock()


def before_send(request: Any, **_: Any) -> Any:
    """botocore's ``before-send`` handler: the innermost active mock's response, or None."""
    if not _active or request.url == ANSWERED_URL:
        return None
    return _active[-1].answer(request)


def activate(mock: Answering) -> None:
    with _lock:
        _active.append(mock)


def deactivate(mock: Answering) -> None:
    with _lock:
        if mock in _active:
            _active.remove(mock)


def install() -> None:
    """Register the handler on every botocore session created from now on (idempotent)."""
    from botocore.handlers import BUILTIN_HANDLERS, REGISTER_FIRST

    for event in EVENTS:
        spec = (event, before_send, REGISTER_FIRST)
        if spec not in BUILTIN_HANDLERS:
            BUILTIN_HANDLERS.append(spec)


def register(emitter: Any) -> None:
    """Register the handler on one session's or client's event emitter."""
    for event in EVENTS:
        emitter.register_first(event, before_send, unique_id=f"dynabase-mock-{event}")


def patch_client(client: Any) -> Any:
    """Route a client (or ``boto3.resource``) made before the hook was installed through the mock; clients
    made afterwards need nothing. Returns its argument."""
    register(getattr(getattr(client, "meta", None), "client", client).meta.events)
    return client
