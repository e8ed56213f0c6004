"""botocore's repeated pure work, shared across sessions and clients while a mock is active.

A test suite makes hundreds of sessions and clients; each one re-reads and re-parses the same service model,
endpoints and rule-set JSON files, rebuilds the same endpoint rule set, and re-derives the same event-name
aliases. Those are pure functions of immutable inputs, so while a mock is active (:func:`engage`, counted, one
per activation) they are computed once per process:

- ``Loader.load_service_model`` / ``Loader.load_data_with_path``: one result per loader class, search paths,
  extras types and arguments (what botocore already caches per loader, i.e. per session)
- ``EndpointProvider``: one per rule-set and partitions document (the same objects, given the loader cache),
  with its resolution cache
- ``ServiceModel``: one per service JSON document (botocore makes one per client; it is read-only)
- a DynamoDB client's HTTP session (connection pool, TLS context): made at its first use, which under the
  mock does not come
- whether an event handler takes ``**kwargs`` (botocore inspects each handler's signature at each registration)
- the event-name alias cache of a client's event emitter: shared with the emitter it was copied from, and the
  emitter's copy itself done without ``copy.copy``'s generic dispatch (same structure, same handlers)

Nothing above changes what botocore computes: validation, signing, retries, parsing and every event handler run
as before. When the last mock stops (:func:`release`) botocore's own functions are back: a session made then
reads the files again. What was loaded is kept for the next activation (the files are botocore's own and the
user's model paths, which a test run does not rewrite).

Each of these reaches into botocore's private internals, so each is a :class:`Patch` that names the shape it
was written for (the attribute, and the parameters of botocore's function). A patch whose target is missing or
has another shape is left out and botocore's own code runs there (:func:`fallbacks` says which and why); a
replacement called with arguments it does not know calls botocore's own function. A botocore that changed
its internals gives a slower mock, never a broken one. The public extension point the mock itself rests on is
botocore's ``before-send`` event (:mod:`.hook`); none of botocore's public hooks can share what a new session
or client loads, which is why these remain.
"""

from __future__ import annotations

import functools
import inspect
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import botocore.client
import botocore.endpoint
import botocore.hooks
import botocore.loaders
import botocore.regions
from botocore.model import ServiceModel

_lock = threading.Lock()
_engaged = 0
#: (owner, name) -> botocore's own attribute, while the patch is in place
_originals: dict[tuple[Any, str], Any] = {}
#: patch name -> why it was left out at the last activation
_fallbacks: dict[str, str] = {}
#: (loader class, search paths, extras types, method, arguments) -> loaded data
_loaded: dict[tuple[Any, ...], Any] = {}
#: the ids of a provider's arguments -> (the arguments, provider): the arguments are held so ids stay valid
_providers: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}
#: (id(service JSON), service name) -> (service JSON, ServiceModel)
_models: dict[tuple[int, str], tuple[Any, Any]] = {}


def _original(owner: Any, name: str) -> Any:
    """botocore's own attribute: the one saved while the patch is in place, else the owner's."""
    try:
        return _originals[(owner, name)]
    except KeyError:
        return getattr(owner, name)


def _parameters(func: Any) -> tuple[str, ...] | None:
    """The names of a callable's parameters (a class's: its ``__init__``'s, without ``self``), None when they
    cannot be read."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    return tuple(signature.parameters)


def _cached_loader_method(name: str) -> Callable[..., Any]:
    def cached(self: Any, *args: Any, **kwargs: Any) -> Any:
        original = _original(botocore.loaders.Loader, name)
        try:
            key = (
                type(self),
                tuple(self.search_paths),
                tuple(self.extras_types),
                name,
                args,
                tuple(sorted(kwargs.items())),
            )
            return _loaded[key]
        except KeyError:
            pass
        except (TypeError, AttributeError):  # unhashable arguments, or a loader of another shape: not ours
            return original(self, *args, **kwargs)
        data = original(self, *args, **kwargs)
        _loaded[key] = data
        return data

    return cached


def _shared_provider(*args: Any, **kwargs: Any) -> Any:
    """One ``EndpointProvider`` per set of argument objects (the rule set and partitions documents come from
    the loader cache, so they are the same objects each time; a rule set is compiled once)."""
    original = _original(botocore.regions, "EndpointProvider")
    try:
        bound = inspect.signature(original).bind(*args, **kwargs)
    except TypeError:  # arguments this botocore's provider does not take: its own error, from its own code
        return original(*args, **kwargs)
    values = tuple(bound.arguments.values())
    key = tuple(id(value) for value in values)
    entry = _providers.get(key)
    if entry is None or any(held is not value for held, value in zip(entry[0], values, strict=True)):
        entry = _providers[key] = (values, original(*args, **kwargs))
    return entry[1]


def _emitter_copy(self: Any) -> Any:
    copied = _original(botocore.hooks.EventAliaser, "__copy__")(self)
    aliases = getattr(self, "_event_aliases", None)
    if aliases is not None and getattr(copied, "_event_aliases", None) == aliases:
        cache = getattr(self, "_alias_name_cache", None)
        if cache is not None and hasattr(copied, "_alias_name_cache"):
            copied._alias_name_cache = cache  # the same aliases give the same names
    return copied


def _service_model(self: Any, service_name: str, api_version: Any = None) -> Any:
    loader = getattr(self, "_loader", None)
    if loader is None:  # a ClientCreator of another shape
        return _original(botocore.client.ClientCreator, "_load_service_model")(
            self, service_name, api_version
        )
    json_model = loader.load_service_model(service_name, "service-2", api_version=api_version)
    key = (id(json_model), service_name)
    entry = _models.get(key)
    if entry is None or entry[0] is not json_model:
        entry = _models[key] = (json_model, ServiceModel(json_model, service_name=service_name))
    return entry[1]


_NODE_KEYS = {"chunk", "values", "children"}


def _copy_node(node: Any, node_list: Any) -> dict[str, Any] | None:
    """One node of botocore's event trie and everything under it: new dicts and handler lists holding the same
    handlers, as ``_PrefixTrie._recursive_copy`` makes them; None for a node of another shape."""
    if not isinstance(node, dict) or node.keys() != _NODE_KEYS:
        return None
    children = {}
    for part, child in node["children"].items():
        copied = _copy_node(child, node_list)
        if copied is None:
            return None
        children[part] = copied
    values = node["values"]
    if values is not None:
        if not isinstance(values, node_list):
            return None
        values = node_list(values.first.copy(), values.middle.copy(), values.last.copy())
    return {"chunk": node["chunk"], "values": values, "children": children}


def _copy_trie(self: Any) -> Any:
    """``_PrefixTrie.__copy__`` without ``copy.copy``'s generic dispatch (botocore's own for a trie of a shape
    it does not know)."""
    node_list = getattr(botocore.hooks, "NodeList", None)
    root = None
    if isinstance(node_list, type) and self.__dict__.keys() == {"_root"}:
        root = _copy_node(self._root, node_list)
    if root is None:
        return _original(botocore.hooks._PrefixTrie, "__copy__")(self)
    copied = self.__class__()
    copied.__dict__ = {"_root": root}
    return copied


#: the endpoints the mock answers (``dynamodb`` and ``dynamodbstreams``): their HTTP sessions wait for a first use
_ANSWERED_PREFIXES = frozenset({"dynamodb", "streams.dynamodb"})


class LazyHTTPSession:
    """botocore's HTTP session for a DynamoDB endpoint, made on first use: while a mock is active no request
    reaches it, so the connection pool and TLS context are not made for nothing (a client kept past the mock
    gets its real session at its first request)."""

    def __init__(self, session_class: Any, **options: Any) -> None:
        self._session_class = session_class
        self._options = options
        self._session: Any = None

    def _real(self) -> Any:
        if self._session is None:
            self._session = self._session_class(**self._options)
        return self._session

    def send(self, request: Any) -> Any:
        return self._real().send(request)

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real(), name)


def _create_endpoint(self: Any, service_model: Any, *args: Any, **kwargs: Any) -> Any:
    if getattr(service_model, "endpoint_prefix", None) in _ANSWERED_PREFIXES:
        session_class = kwargs.get("http_session_cls", botocore.endpoint.URLLib3Session)
        kwargs["http_session_cls"] = functools.partial(LazyHTTPSession, session_class)
    return _original(botocore.endpoint.EndpointCreator, "create_endpoint")(
        self, service_model, *args, **kwargs
    )


#: handler function (a bound method's function) -> whether it takes **kwargs
_takes_kwargs: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def _accepts_kwargs(func: Any) -> bool:
    """botocore's check that an event handler takes ``**kwargs``, remembered per function: it inspects the
    signature of every handler each client registers (a bound method's answer is its function's)."""
    target = getattr(func, "__func__", func)
    try:
        return _takes_kwargs[target]
    except (KeyError, TypeError):
        pass
    answer: bool = _original(botocore.hooks, "accepts_kwargs")(func)
    try:
        _takes_kwargs[target] = answer
    except TypeError:  # not weakly referenceable or not hashable: asked again next time
        pass
    return answer


@dataclass(frozen=True)
class Patch:
    """One of botocore's internals replaced while a mock is active, and the shapes it was written for."""

    #: the dotted name of botocore's attribute, for :func:`fallbacks`
    name: str
    #: where the attribute is looked up (a module or a class), at each activation
    owner: Callable[[], Any]
    attribute: str
    replacement: Callable[..., Any]
    #: the parameter lists of botocore's own function (a class's ``__init__``, without ``self``) the
    #: replacement handles; None: any (it passes every argument through)
    shapes: tuple[tuple[str, ...], ...] | None

    def check(self) -> tuple[Any, Any] | str:
        """(owner, botocore's own attribute) when the patch fits this botocore, else why it does not."""
        try:
            owner = self.owner()
        except AttributeError as error:
            return f"not found ({error})"
        original = (owner.__dict__ if isinstance(owner, type) else vars(owner)).get(self.attribute)
        if original is None:
            return "not found"
        if not callable(original):
            return "not callable"
        if self.shapes is not None and _parameters(original) not in self.shapes:
            return f"parameters {_parameters(original)} are none of {list(self.shapes)}"
        return owner, original


PATCHES: tuple[Patch, ...] = (
    Patch(
        "botocore.loaders.Loader.load_service_model",
        lambda: botocore.loaders.Loader,
        "load_service_model",
        _cached_loader_method("load_service_model"),
        None,
    ),
    Patch(
        "botocore.loaders.Loader.load_data_with_path",
        lambda: botocore.loaders.Loader,
        "load_data_with_path",
        _cached_loader_method("load_data_with_path"),
        None,
    ),
    Patch(
        "botocore.regions.EndpointProvider",
        lambda: botocore.regions,
        "EndpointProvider",
        _shared_provider,
        (("ruleset_data", "partition_data"), ("ruleset_data", "partition_data", "excluded_params")),
    ),
    Patch(
        "botocore.hooks.EventAliaser.__copy__",
        lambda: botocore.hooks.EventAliaser,
        "__copy__",
        _emitter_copy,
        (("self",),),
    ),
    Patch(
        "botocore.hooks._PrefixTrie.__copy__",
        lambda: botocore.hooks._PrefixTrie,
        "__copy__",
        _copy_trie,
        (("self",),),
    ),
    Patch(
        "botocore.client.ClientCreator._load_service_model",
        lambda: botocore.client.ClientCreator,
        "_load_service_model",
        _service_model,
        (("self", "service_name", "api_version"),),
    ),
    Patch(
        "botocore.hooks.accepts_kwargs",
        lambda: botocore.hooks,
        "accepts_kwargs",
        _accepts_kwargs,
        (("func",),),
    ),
    Patch(
        "botocore.endpoint.EndpointCreator.create_endpoint",
        lambda: botocore.endpoint.EndpointCreator,
        "create_endpoint",
        _create_endpoint,
        None,
    ),
)


def engage() -> None:
    """One more active mock: the shared caches are in place while any is (each patch that fits this botocore;
    :func:`fallbacks` names the others)."""
    global _engaged
    with _lock:
        _engaged += 1
        if _engaged != 1:
            return
        _fallbacks.clear()
        for patch in PATCHES:
            checked = patch.check()
            if isinstance(checked, str):
                _fallbacks[patch.name] = checked
                continue
            owner, original = checked
            _originals[(owner, patch.attribute)] = original
            setattr(owner, patch.attribute, patch.replacement)


def release() -> None:
    """One active mock fewer: after the last, botocore's own functions and no cached data."""
    global _engaged
    with _lock:
        if _engaged == 0:
            return
        _engaged -= 1
        if _engaged == 0:
            for (owner, attribute), original in list(_originals.items()):
                setattr(owner, attribute, original)
            _originals.clear()


def engaged() -> bool:
    return _engaged > 0


def fallbacks() -> dict[str, str]:
    """The patches left out at the last activation, each with why: botocore's own code runs there."""
    return dict(_fallbacks)
