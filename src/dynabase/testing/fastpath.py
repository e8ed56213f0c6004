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
"""

from __future__ import annotations

import functools
import threading
import weakref
from typing import Any

import botocore.client
import botocore.endpoint
import botocore.hooks
import botocore.loaders
import botocore.regions
from botocore.model import ServiceModel

_lock = threading.Lock()
_engaged = 0
_originals: dict[tuple[Any, str], Any] = {}
#: (loader class, search paths, extras types, method, arguments) -> loaded data
_loaded: dict[tuple, Any] = {}
#: (id(rule set), id(partitions)) -> (rule set, partitions, provider): the documents are held so ids stay valid
_providers: dict[tuple[int, int], tuple[Any, Any, Any]] = {}
#: (id(service JSON), service name) -> (service JSON, ServiceModel)
_models: dict[tuple[int, str], tuple[Any, Any]] = {}


def _cached_loader_method(name: str) -> Any:
    original = getattr(botocore.loaders.Loader, name)

    def cached(self: Any, *args: Any, **kwargs: Any) -> Any:
        key = (
            type(self),
            tuple(self.search_paths),
            tuple(self.extras_types),
            name,
            args,
            tuple(sorted(kwargs.items())),
        )
        try:
            return _loaded[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable argument: not ours to cache
            return original(self, *args, **kwargs)
        data = original(self, *args, **kwargs)
        _loaded[key] = data
        return data

    cached.__wrapped__ = original  # type: ignore[attr-defined]
    return cached


def _shared_provider(ruleset_data: Any, partition_data: Any) -> Any:
    key = (id(ruleset_data), id(partition_data))
    entry = _providers.get(key)
    if entry is None or entry[0] is not ruleset_data or entry[1] is not partition_data:
        provider = _ORIGINAL_PROVIDER(ruleset_data=ruleset_data, partition_data=partition_data)
        entry = _providers[key] = (ruleset_data, partition_data, provider)
    return entry[2]


def _emitter_copy(self: Any) -> Any:
    copied = _ORIGINAL_EMITTER_COPY(self)
    if copied._event_aliases == self._event_aliases:
        copied._alias_name_cache = self._alias_name_cache  # the same aliases give the same names
    return copied


def _service_model(self: Any, service_name: str, api_version: Any = None) -> Any:
    json_model = self._loader.load_service_model(service_name, "service-2", api_version=api_version)
    key = (id(json_model), service_name)
    entry = _models.get(key)
    if entry is None or entry[0] is not json_model:
        entry = _models[key] = (json_model, ServiceModel(json_model, service_name=service_name))
    return entry[1]


_NODE_KEYS = {"chunk", "values", "children"}


def _copy_node(node: dict) -> dict | None:
    """One node of botocore's event trie and everything under it: new dicts and handler lists holding the same
    handlers, as ``_PrefixTrie._recursive_copy`` makes them; None for a node of another shape."""
    if node.keys() != _NODE_KEYS:
        return None
    children = {}
    for part, child in node["children"].items():
        copied = _copy_node(child)
        if copied is None:
            return None
        children[part] = copied
    values = node["values"]
    if values is not None:
        values = _NodeList(values.first.copy(), values.middle.copy(), values.last.copy())
    return {"chunk": node["chunk"], "values": values, "children": children}


def _copy_trie(self: Any) -> Any:
    """``_PrefixTrie.__copy__`` without ``copy.copy``'s generic dispatch (botocore's own for a trie of a shape
    it does not know)."""
    root = _copy_node(self._root) if self.__dict__.keys() == {"_root"} else None
    if root is None:
        return _ORIGINAL_TRIE_COPY(self)
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
    if service_model.endpoint_prefix in _ANSWERED_PREFIXES:
        session_class = kwargs.get("http_session_cls", botocore.endpoint.URLLib3Session)
        kwargs["http_session_cls"] = functools.partial(LazyHTTPSession, session_class)
    return _ORIGINAL_CREATE_ENDPOINT(self, service_model, *args, **kwargs)


_ORIGINAL_CREATE_ENDPOINT = botocore.endpoint.EndpointCreator.create_endpoint

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
    answer = _ORIGINAL_ACCEPTS_KWARGS(func)
    try:
        _takes_kwargs[target] = answer
    except TypeError:  # not weakly referenceable or not hashable: asked again next time
        pass
    return answer


_ORIGINAL_ACCEPTS_KWARGS = botocore.hooks.accepts_kwargs
_NodeList = botocore.hooks.NodeList
_ORIGINAL_TRIE_COPY = botocore.hooks._PrefixTrie.__copy__
_ORIGINAL_PROVIDER = botocore.regions.EndpointProvider
_ORIGINAL_EMITTER_COPY = botocore.hooks.EventAliaser.__copy__
_PATCHES: list[tuple[Any, str, Any]] = [
    (botocore.loaders.Loader, "load_service_model", _cached_loader_method("load_service_model")),
    (botocore.loaders.Loader, "load_data_with_path", _cached_loader_method("load_data_with_path")),
    (botocore.regions, "EndpointProvider", _shared_provider),
    (botocore.hooks.EventAliaser, "__copy__", _emitter_copy),
    (botocore.hooks._PrefixTrie, "__copy__", _copy_trie),
    (botocore.client.ClientCreator, "_load_service_model", _service_model),
    (botocore.hooks, "accepts_kwargs", _accepts_kwargs),
    (botocore.endpoint.EndpointCreator, "create_endpoint", _create_endpoint),
]


def engage() -> None:
    """One more active mock: the shared caches are in place while any is."""
    global _engaged
    with _lock:
        _engaged += 1
        if _engaged == 1:
            for owner, name, replacement in _PATCHES:
                _originals[(owner, name)] = owner.__dict__[name]
                setattr(owner, name, replacement)


def release() -> None:
    """One active mock fewer: after the last, botocore's own functions and no cached data."""
    global _engaged
    with _lock:
        if _engaged == 0:
            return
        _engaged -= 1
        if _engaged == 0:
            for owner, name, _ in _PATCHES:
                setattr(owner, name, _originals.pop((owner, name)))


def engaged() -> bool:
    return _engaged > 0
