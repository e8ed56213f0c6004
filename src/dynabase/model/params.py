"""The catalogue of the entity layer's parameters: one entry per parameter, checked at each public method's entry.

Every keyword parameter of :class:`~dynabase.model.Model` / :class:`~dynabase.model.Table` methods is listed
here once (:data:`CATALOGUE`): the Python name, OneTable's spelling (accepted as well), the methods that take it,
its kind, its default and what it does.  From it come

* :func:`check_params` -- called first thing by each public method: an unknown name raises
  :class:`~dynabase.model.errors.ParameterError` with a "did you mean", a value of the wrong kind raises it
  naming the parameter, the kind wanted and the value given (``None`` always passes: it means "not given");
* :data:`ALIASES` -- OneTable's camelCase spellings -> the Python names (used by ``normalize_params``);
* :func:`render_reference` -- ``docs/reference/parameters.md`` (``python -m dynabase.model.params`` rewrites it).

The check is a dict lookup per method, a set membership test and a kind test per parameter given.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .errors import ParameterError

# == kinds ==============================================================================================================


@dataclass(frozen=True)
class Kind:
    """What values a parameter takes: ``text`` reads after "must be" in an error message; a value whose type is
    ``usual`` passes without calling ``accepts`` (the fast path)."""

    name: str
    text: str
    accepts: Callable[[Any], bool]
    usual: type | None = None


def _names(value: Any) -> bool:
    return isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(v, str) for v in value)


KINDS = {
    kind.name: kind
    for kind in (
        Kind("bool", "True or False", lambda v: isinstance(v, bool), bool),
        Kind("true", "True (dynabase always does this; False is not supported)", lambda v: v is True),
        Kind("int>0", "a positive integer", lambda v: type(v) is int and v > 0),
        Kind("int>=0", "an integer >= 0", lambda v: type(v) is int and v >= 0),
        Kind(
            "number>=0",
            "a number >= 0",
            lambda v: isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) and v >= 0,
        ),
        Kind("str", "a string", lambda v: isinstance(v, str), str),
        Kind("str|bool", "a string or True/False", lambda v: isinstance(v, (str, bool))),
        Kind("str|list", "a name or a list of names", lambda v: isinstance(v, str) or _names(v)),
        Kind("list", "a list of names", _names),
        Kind("dict", "a dict", lambda v: isinstance(v, Mapping), dict),
        Kind("str|dict", "a string or a dict", lambda v: isinstance(v, (str, Mapping))),
        Kind("callable", "a function", callable, types.FunctionType),
        Kind("bool|callable", "True/False or a function", lambda v: isinstance(v, bool) or callable(v)),
        Kind("any", "any value", lambda v: True),
    )
}


# == the catalogue =====================================================================================================


@dataclass(frozen=True)
class Param:
    """One parameter: ``name`` is the Python spelling, ``onetable`` OneTable's ("" when OneTable has none),
    ``aliases`` further accepted spellings."""

    name: str
    kind: str
    methods: tuple[str, ...]
    default: str
    doc: str
    onetable: str = ""
    aliases: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[str, ...]:
        extra = (self.onetable,) if self.onetable and self.onetable != self.name else ()
        return (self.name, *extra, *(a for a in self.aliases if a not in extra))


_GENERIC = ("get_item", "put_item", "update_item", "delete_item", "query_items", "scan_items")
#: the methods, in the order of the reference (Model's, then Table's)
MODEL_METHODS = ("create", "get", "find", "scan", "update", "upsert", "remove", "check", "init")
TABLE_METHODS = (
    "Table",
    *_GENERIC,
    "fetch",
    "batch_get",
    "batch_write",
    "transact",
    "stream",
    "create_table",
    "get_table_definition",
)
METHODS = MODEL_METHODS + TABLE_METHODS

_OPS = ("create", "get", "find", "scan", "update", "upsert", "remove", "check", *_GENERIC)  # one request each
_REQUESTS = (*_OPS, "fetch")
_QUERIES = ("find", "scan", "query_items", "scan_items", "fetch")
_FORWARD = ("find", "query_items", "fetch")
_WRITES = ("create", "update", "upsert", "remove", "put_item", "update_item", "delete_item")
_CONDITIONS = (*_WRITES, "check")
_UPDATES = ("update", "upsert", "update_item")
_PUTS = ("create", "update", "upsert", "put_item", "update_item")
_COLLECT = (
    "create",
    "get",
    "update",
    "upsert",
    "remove",
    "put_item",
    "get_item",
    "update_item",
    "delete_item",
)
_READS = (*_OPS, "batch_get", "transact", "stream")
_RUNS = (*_REQUESTS, "batch_get", "batch_write", "transact")

CATALOGUE: tuple[Param, ...] = (
    # -- what the call does ---------------------------------------------------------------------------------------
    Param("exists", "bool", ("create", "put_item"), "False",
          "False: fail (ConditionalCheckFailed) if the item exists; True: only if it exists; None: either",
          "exists"),
    Param("exists", "bool", ("update", "update_item"), "True",
          "True: fail if the item does not exist; False: only create; None: either (what upsert does)",
          "exists"),
    Param("exists", "bool", ("remove", "delete_item", "check"), "None",
          "True: fail if the item does not exist; False: only if it does not; None: no condition", "exists"),
    Param("where", "str", (*_CONDITIONS, *_QUERIES),
          "None", "a condition (writes) or filter (queries): `${field}`, `@{var}` and `{value}` tokens", "where"),
    Param("substitutions", "dict", (*_CONDITIONS, *_QUERIES), "None",
          "values for the `@{var}` tokens of `where` and of `set` expressions", "substitutions"),
    Param("type", "str", _CONDITIONS, "None",
          "adds `attribute_type(<sort key>, type)` to the condition", "type"),
    Param("set", "dict", _UPDATES, "None",
          "SET clauses: property -> value or expression (`'${n} + {1}'`)", "set"),
    Param("add", "dict", _UPDATES, "None", "ADD clauses: property -> number, or items to add to a set", "add"),
    Param("delete", "dict", _UPDATES, "None", "DELETE clauses: property -> items to take out of a set",
          "delete"),
    Param("remove", "str|list", _UPDATES, "None", "REMOVE clauses: the properties to remove", "remove"),
    Param("push", "dict", _UPDATES, "None", "property -> items appended to a list (created if missing)", "push"),
    Param("partial", "bool", _UPDATES, "the Table's (True)",
          "update nested schema objects field by field (False: replace them whole)", "partial"),
    Param("update_indexes", "true", _UPDATES, "True",
          "index keys whose template inputs an update gives are always rewritten (OneTable's updateIndexes)",
          "updateIndexes"),
    Param("timestamps", "bool", _PUTS, "True",
          "False: leave the created/updated timestamps of a model with `timestamps` alone", "timestamps"),
    Param("validate", "callable", _PUTS, "None",
          "`validate(model, field, value)` -> error text (or (error, new value)) run on each property"),
    Param("many", "bool", ("remove",), "False", "remove every item the properties match (a query)", "many"),
    Param("return_", "str|bool", _WRITES, "create: NONE (the item as written); update: ALL_NEW; remove: ALL_OLD",
          "ReturnValues: `ALL_NEW`, `ALL_OLD`, `UPDATED_NEW`, `UPDATED_OLD`, `NONE`, True, False or `get`",
          "return", ("returns", "returnValues")),
    # -- reads and queries ----------------------------------------------------------------------------------------
    Param("index", "str", ("get", "find", "scan", "remove", "query_items", "scan_items", "fetch"), "primary",
          "the index to use; get/remove on a secondary index query it first", "index"),
    Param("consistent", "bool", ("get", "find", "scan", "get_item", "query_items", "scan_items", "fetch",
                                 "batch_get"), "False", "a strongly consistent read", "consistent"),
    Param("fields", "list", ("get", "find", "scan", "get_item", "query_items", "scan_items", "batch_get"),
          "None", "the properties to return (a projection)", "fields"),
    Param("limit", "int>0", (*_QUERIES, "remove"), "None", "the most items to read (DynamoDB's Limit)", "limit"),
    Param("max_pages", "int>0", _QUERIES, "1000", "the most pages to read", "maxPages"),
    Param("next", "dict", _QUERIES, "None", "start after this key (a Page's `.next`)", "next"),
    Param("prev", "dict", _FORWARD, "None", "read backwards from this key (a Page's `.prev`)", "prev"),
    Param("reverse", "bool", _FORWARD, "False", "sort key descending", "reverse"),
    Param("count", "bool", _QUERIES, "False", "only count the items (`Page.count`)", "count"),
    Param("select", "str", _QUERIES, "None", "DynamoDB's Select", "select",
          choices=("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT")),
    Param("segment", "int>=0", ("scan", "scan_items"), "None", "this scan segment (parallel scans)", "segment"),
    Param("segments", "int>0", ("scan", "scan_items"), "None", "the number of scan segments", "segments"),
    Param("follow", "bool", ("get", "find"), "the index's `follow`",
          "get the full items of a keys-only index with a GetItem each", "follow"),
    Param("progress", "callable", _QUERIES, "None",
          "`progress({items, pages, stats, params, cmd})` called after each page"),
    # -- results ----------------------------------------------------------------------------------------------------
    Param("parse", "bool", (*_OPS, "batch_get", "transact"), "True",
          "False: return DynamoDB's items decoded but not mapped to properties", "parse"),
    Param("hidden", "bool", (*_READS, "fetch"), "the Table's (False)",
          "return hidden fields (value-template keys, the type field)", "hidden"),
    Param("decrypt", "bool", _READS, "True", "False: return `crypt` fields as stored (encrypted)"),
    Param("transform", "callable", _READS, "None",
          "`transform(model, 'read'|'write', name, value, properties)` -> value, for each property", "transform"),
    # -- collecting instead of running ------------------------------------------------------------------------
    Param("batch", "dict", _COLLECT, "None",
          "add the request to this batch (run it with `table.batch_get` / `table.batch_write`)", "batch"),
    Param("transaction", "dict", (*_COLLECT, "check"), "None",
          "add the request to this transaction (run it with `table.transact`)", "transaction"),
    Param("execute", "bool", (*_OPS, "transact"), "True", "False: return the DynamoDB request, unrun",
          "execute"),
    Param("reprocess", "bool", ("batch_get", "batch_write"), "True",
          "False: leave unprocessed keys/items in the batch and return False instead of retrying", "reprocess"),
    Param("retries", "int>=0", ("batch_get", "batch_write"), "12",
          "retries of unprocessed keys/items (backoff 10 ms, 20 ms, ...)"),
    Param("token", "str", ("transact",), "None", "ClientRequestToken of TransactWriteItems (idempotency)"),
    # -- running ------------------------------------------------------------------------------------------------
    Param("context", "dict", (*_OPS, "fetch"), "the Table's context",
          "properties blended into this call instead of the Table's context", "context"),
    Param("log", "bool", _RUNS, "False", "log the request and result at info level", "log"),
    Param("throw", "bool", _RUNS, "True", "False: return None instead of raising a DynamoDB error", "throw"),
    Param("client", "any", _RUNS, "the Table's client", "the DynamoDB client for this call"),
    Param("stats", "dict", _REQUESTS, "None", "gets `count`, `scanned` and `capacity` added up", "stats"),
    Param("capacity", "str", _REQUESTS, "TOTAL with `stats`",
          "ReturnConsumedCapacity", "capacity", choices=("INDEXES", "TOTAL", "NONE")),
    Param("post_format", "callable", _REQUESTS, "None",
          "`post_format(model, cmd)` -> cmd: change the request before it runs", "postFormat"),
    # -- the Table ----------------------------------------------------------------------------------------------
    Param("context", "dict", ("Table",), "{}", "properties blended into every call (tenant keys)"),
    Param("partial", "bool", ("Table",), "True", "update nested schema objects field by field", "partial"),
    Param("hidden", "bool", ("Table",), "False", "return hidden fields by default", "hidden"),
    Param("logger", "any", ("Table",), "None",
          "None: the `dynabase.model` logging logger; a function `(level, message, context)`; False: silence",
          "logger"),
    Param("crypto", "dict", ("Table",), "None",
          "`{'primary': {'cipher': 'aes-256-gcm', 'password': ...}}` for `crypt` fields", "crypto"),
    Param("side", "str", ("Table",), "None",
          "`cloud` or `device`: models `process` keeps on the other side are unavailable",
          choices=("cloud", "device")),
    Param("numbers", "str", ("Table",), "auto",
          "stored numbers come back as int/Decimal (`auto`), Decimal (`decimal`) or int/float (`float`)",
          choices=("auto", "decimal", "float")),
    Param("generate", "callable", ("Table",), "uuid", "the id function for fields with `generate: true`",
          "generate"),
    Param("transform", "callable", ("Table",), "None",
          "`transform(model, 'read'|'write', item, properties, params[, raw])` -> item"),
    Param("validate", "callable", ("Table",), "None",
          "`validate(model, properties, params)` -> {field: message}, run on writes"),
    Param("value", "callable", ("Table",), "None",
          "`value(model, field_name, properties, params)` for fields with `value: true`"),
    Param("follow_workers", "int>0", ("Table",), "10", "threads fetching the items of a `follow` query"),
    Param("sleep", "callable", ("Table",), "time.sleep", "the sleep function of waits and batch retries"),
    Param("sync_tombstone_ttl", "number>=0", ("Table",), "2592000 (30 days)",
          "seconds a tombstone left by a cloud-side remove of a synced model lives"),
    # -- table administration ---------------------------------------------------------------------------------
    Param("wait", "number>=0", ("create_table",), "60", "seconds to wait for the table to become ACTIVE"),
    Param("ttl", "str", ("create_table",), "None", "enable TTL on this attribute"),
    Param("provisioned", "dict", ("create_table", "get_table_definition"), "None",
          "`{'ReadCapacityUnits': .., 'WriteCapacityUnits': ..}`: provisioned billing", "provisioned",
          ("ProvisionedThroughput",)),
    Param("stream", "str|dict", ("create_table", "get_table_definition"), "None",
          "a StreamViewType (`NEW_AND_OLD_IMAGES`, ...) or a StreamSpecification", "StreamSpecification",
          ("StreamSpecification",)),
)  # fmt: skip

#: OneTable parameters dynabase does not take (named as such when given)
ONETABLE_ONLY = frozenset(("preFormat", "tunnel", "warn", "profile", "noerror"))
#: names the layer passes between its own calls (never documented; accepted so internal calls are not refused)
INTERNAL = frozenset(("checked", "prepared", "fallback", "high", "low", "expression", "generic"))


def _build() -> tuple[dict[str, frozenset[str]], dict[str, Param], dict[str, str]]:
    accepted: dict[str, set[str]] = {m: set() for m in METHODS}
    by_name: dict[str, Param] = {}
    aliases: dict[str, str] = {}
    for param in CATALOGUE:
        for spelling in param.spellings:
            first = by_name.setdefault(spelling, param)
            if (first.kind, first.choices) != (param.kind, param.choices):
                raise AssertionError(f"parameter {spelling!r} has two kinds in the catalogue")
            if spelling != param.name:
                aliases[spelling] = param.name
        for method in param.methods:
            accepted[method].update(param.spellings)
    internal = {
        m: INTERNAL if m in MODEL_METHODS or m in _GENERIC or m == "fetch" else frozenset() for m in METHODS
    }
    return {m: frozenset(names | internal[m]) for m, names in accepted.items()}, by_name, aliases


ACCEPTED, _BY_NAME, ALIASES = _build()
_MISSING = object()


def _acceptor(param: Param) -> Callable[[Any], bool]:
    accepts, choices = KINDS[param.kind].accepts, param.choices
    return (lambda v: accepts(v) and v in choices) if choices else accepts


#: name -> whether a value is of its kind (choices included)
_ACCEPTS = {name: _acceptor(param) for name, param in _BY_NAME.items()}
#: method -> {accepted name: the type that passes at once (None: ask the kind)}
_USUAL = {
    m: {
        n: (KINDS[_BY_NAME[n].kind].usual if n in _BY_NAME and not _BY_NAME[n].choices else None)
        for n in names
    }
    for m, names in ACCEPTED.items()
}
_SPELLINGS = {m: sorted(names - INTERNAL) for m, names in ACCEPTED.items()}
_NAMES = {m: sorted({p.name for p in CATALOGUE if m in p.methods}) for m in METHODS}
_EVERY = sorted(_BY_NAME)


def check_params(method: str, params: Mapping[str, Any]) -> None:
    """Raise :class:`ParameterError` when ``params`` has a name ``method`` does not take or a value of the wrong
    kind (``None`` is always accepted: it means "not given").  Params the layer forwards between its own calls
    carry the internal ``high`` mark: they were checked where they came in."""
    if not params or "high" in params:
        return
    usual = _USUAL[method]
    for name, value in params.items():
        kind = usual.get(name, _MISSING)
        if type(value) is kind or value is None:
            continue
        if kind is _MISSING:
            raise unknown_parameter(method, name)
        accepts = _ACCEPTS.get(name)
        if accepts is not None and not accepts(value):
            raise wrong_kind(method, name, value)


def require(method: str, name: str, value: Any, kind: str) -> None:
    """Check a positional argument of ``method`` (``kind`` as in :data:`KINDS`; None is refused too)."""
    if value is None or not KINDS[kind].accepts(value):
        raise ParameterError(
            f"{_call(method)}: {name!r} must be {KINDS[kind].text}, got {_shown(value)}",
            method=method,
            param=name,
        )


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _call(method: str) -> str:
    return f"{method}()"


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """The closest of ``candidates`` to ``name`` (difflib, case-insensitive), or None."""
    lowered = {c.lower(): c for c in candidates}
    found = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.65)
    return lowered[found[0]] if found else None


def unknown_parameter(method: str, name: Any) -> ParameterError:
    """The error for a parameter ``method`` does not take: a did-you-mean among its parameters, else where the
    name (or the closest name) is a parameter, and what ``method`` takes."""
    name = str(name)
    message = f"{_call(method)} got an unknown parameter {name!r}"
    if name in ONETABLE_ONLY:
        return ParameterError(
            f"{message}: OneTable's {name!r} is not supported by dynabase", method=method, param=name
        )
    best = suggest(name, _SPELLINGS[method])
    if best is not None:
        return ParameterError(
            f"{message}; did you mean {best!r}?", method=method, param=name, suggestion=best
        )
    other = name if name in _BY_NAME else suggest(name, _EVERY)
    if other is not None:
        owners = ", ".join(_call(m) for m in METHODS if other in ACCEPTED[m] and other not in INTERNAL)
        if other != name:
            message += f"; did you mean {other!r}?"
        message += f" ({other!r} is a parameter of {owners}, not of {_call(method)})"
    takes = ", ".join(_NAMES[method])
    message += f"; {_call(method)} takes {takes}" if takes else f"; {_call(method)} takes no parameters"
    return ParameterError(message, method=method, param=name)


def wrong_kind(method: str, name: str, value: Any) -> ParameterError:
    param = _BY_NAME[name]
    wanted = KINDS[param.kind].text
    if param.choices and KINDS[param.kind].accepts(value):
        wanted = "one of " + ", ".join(map(repr, param.choices))
    return ParameterError(
        f"{_call(method)}: parameter {name!r} must be {wanted}, got {_shown(value)}",
        method=method,
        param=name,
    )


# == the reference =====================================================================================================


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_reference() -> str:
    """``docs/reference/parameters.md``: one section per method, a table of its parameters."""
    lines = [
        "# Parameters of the entity layer",
        "",
        "Generated from `src/dynabase/model/params.py` (`python -m dynabase.model.params` rewrites this file).",
        "",
        "Every method checks its keyword parameters on entry: a name it does not take, or a value of the wrong",
        "kind, raises `dynabase.model.ParameterError` (an `OneTableArgError`, so a `TypeError`) naming the",
        'parameter, with a "did you mean". `None` always passes (it means "not given"). OneTable\'s spelling of',
        "a parameter (`maxPages`, `postFormat`, `return`, ...) is accepted as well as the Python one. The",
        "`Table` methods `create`, `get`, `find`, ... take the parameters of the `Model` method of that name,",
        "and `save_schema` those of `create`.",
        "",
    ]
    for method in METHODS:
        params = [p for p in CATALOGUE if method in p.methods]
        title = "Table(name, client, schema, ...)" if method == "Table" else f"{method}()"
        owner = "Table" if method in TABLE_METHODS else "Model"
        lines += [f"## {owner}.{title}" if method != "Table" else f"## {title}", ""]
        lines += ["| name | kind | OneTable name | default | description |", "|---|---|---|---|---|"]
        for p in sorted(params, key=lambda p: p.name):
            names = ", ".join(f"`{a}`" for a in (p.name, *(a for a in p.aliases if a != p.onetable)))
            kind = " / ".join(f"`{c}`" for c in p.choices) if p.choices else KINDS[p.kind].text
            onetable = f"`{p.onetable}`" if p.onetable else "—"
            lines.append(f"| {names} | {_cell(kind)} | {onetable} | {_cell(p.default)} | {_cell(p.doc)} |")
        lines.append("")
    return "\n".join(lines)


REFERENCE_PATH = "docs/reference/parameters.md"

__all__ = [
    "ACCEPTED",
    "ALIASES",
    "CATALOGUE",
    "INTERNAL",
    "KINDS",
    "METHODS",
    "Param",
    "check_params",
    "render_reference",
    "require",
    "suggest",
    "unknown_parameter",
    "wrong_kind",
]

if __name__ == "__main__":  # pragma: no cover
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[3]
    (root / REFERENCE_PATH).write_text(render_reference(), encoding="utf-8")
