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


def install() -> bool:
    """Register the handler on every botocore session created from now on (idempotent), through the list of
    handlers botocore gives each new session (``botocore.handlers.BUILTIN_HANDLERS``, as moto's catch-all
    handler is registered). False when this botocore has no such list: then no client can be answered in
    process, and :func:`require_installed` says so before a mock starts."""
    import botocore.handlers

    handlers = getattr(botocore.handlers, "BUILTIN_HANDLERS", None)
    first = getattr(botocore.handlers, "REGISTER_FIRST", None)
    if not isinstance(handlers, list) or first is None:
        return False
    for event in EVENTS:
        spec = (event, before_send, first)
        if spec not in handlers:
            handlers.append(spec)
    return True


def require_installed() -> None:
    """Raise a RuntimeError naming botocore's version when :func:`install` could not register the handler: a
    mock that answered nothing would send the code under test's requests to AWS."""
    if not install():
        import botocore

        raise RuntimeError(
            f"mock_dynamodb cannot intercept requests with botocore {botocore.__version__}: "
            "botocore.handlers has no BUILTIN_HANDLERS list or REGISTER_FIRST; install a botocore this dynabase was tested with "
            "(pyproject.toml's range)"
        )


def register(emitter: Any) -> None:
    """Register the handler on one session's or client's event emitter."""
    for event in EVENTS:
        emitter.register_first(event, before_send, unique_id=f"dynabase-mock-{event}")


def patch_client(client: Any) -> Any:
    """Route a client (or ``boto3.resource``) made before the hook was installed through the mock; clients
    made afterwards need nothing. Returns its argument."""
    register(getattr(getattr(client, "meta", None), "client", client).meta.events)
    return client
