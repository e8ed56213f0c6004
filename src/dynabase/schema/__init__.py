"""dynabase's schema layer: the OneTable schema format 1.1.0 (``format: 'onetable:1.1.0'``).

One schema describes the table's indexes and the application's entities (models); the same schema drives
AWS DynamoDB and the embedded engine. This package reads, validates and normalises it; it does no I/O
against a database.

Loading
-------
``load_schema(source, *, format=None, crypto=None) -> Schema``
    ``source`` is a dict, a path (``str`` or ``os.PathLike``) to a ``.json``, ``.json5``, ``.yaml`` or
    ``.yml`` file, JSON/JSON5/YAML text (``str`` or ``bytes``), or an already loaded :class:`Schema`
    (returned as is). ``format`` (``"json"``, ``"json5"``, ``"yaml"``) forces the parser. ``crypto`` merges
    crypto configuration (``{"primary": {"cipher": "aes-256-gcm", "password": ...}}``) over
    ``params.crypto`` so that secrets need not live in the schema file. JSON5 is read by our own reader
    (:mod:`dynabase.schema.json5`); YAML needs PyYAML. Duplicate keys are errors in every format.

``validate_schema(data, *, warnings=False, crypto=None) -> list[SchemaIssue]``
    Every error in a document (already parsed); with ``warnings=True`` the warnings follow.

``SchemaError(ValueError)``: ``.errors`` (and ``.warnings``) are lists of :class:`SchemaIssue`; ``str()``
lists the errors one per line as ``path: message``. ``SchemaIssue(path, message, severity)``: ``path``
names the offending property (``models.Fault.severity.enum``; ``""`` for the document), ``severity`` is
``"error"`` or ``"warning"``.

``JSON_SCHEMA``: a JSON Schema (draft 2020-12) of the document structure, also shipped as
``onetable-1.1.0.schema.json`` beside this file. It checks shapes only; cross-references (template
fields, index keys, map collisions, template cycles, ...) need :func:`validate_schema`.

The loaded schema
-----------------
``Schema``: ``format``, ``version``, ``description``, ``name``, ``indexes: dict[str, Index]`` (primary
first), ``models: dict[str, ModelDef]``, ``params: Params``, ``process: dict[str, Process]``,
``queries: dict``, ``items``, ``extensions``, ``raw`` (the document), ``warnings``. Methods:
``.primary``, ``.model(name)`` / ``.index(name)`` (``KeyError`` naming what exists), ``.process_for(name)``
(defaults when absent), ``.model_of(item)`` (by the type attribute), ``.key_attribute_types()``
(``{"pk": "S", ...}`` for CreateTable's AttributeDefinitions).

``Index``: ``name``, ``hash``, ``sort``, ``kind`` (``"primary"``, ``"global"``, ``"local"``), ``project``
(``"all"``, ``"keys"`` or a tuple of attribute names), ``follow``, ``description``; ``.keys``,
``.projected(primary)`` (attribute names present in the index, ``None`` for all). Index ``hash``/``sort``
are attribute names, i.e. after a field's ``map``. Secondary indexes are global unless
``type: 'local'``; a local index always has the primary hash.

Multi-attribute keys (dynabase's extension of the format, for DynamoDB's multi-attribute GSI keys): a
global index's ``hash`` and ``sort`` may each be a list of 1 to 4 attribute names, in key order
(``gs3: {hash: ['tenant', 'region'], sort: ['status', 'created']}``). ``Index.hash``/``.sort`` are then the
first of each, ``.hashes``/``.sorts`` all of them, ``.multi`` says so, and ``.keys`` lists every key
attribute. A one-element list is a plain name; OneTable-only schemas load unchanged.

``Params``: ``type_field="_type"``, ``created_field="created"``, ``updated_field="updated"``,
``timestamps`` (``True``, ``False``, ``"create"``, ``"update"``), ``iso_dates=False``, ``nulls=False``,
``separator="#"``, ``warn=False``, ``hidden=False``, ``partial=False``, ``legacy_empties=False``,
``crypto`` (``dict[str, Crypto]`` or ``None``); ``.create_timestamp``, ``.update_timestamp``.
``hidden`` is OneTable's: when true, fields marked hidden are still returned by reads.

``Process`` (Ioto's ``process.<Model>``): ``enable`` (``cloud``/``device``/``both``, default both),
``sync`` (``up``/``down``/``both``/``none``, default none), ``notify``, ``metrics: tuple[Metric]``
(``namespace``, ``fields`` as (metric, attribute) pairs, ``dimensions``, ``where``, ``buffer``).

``ModelDef``: ``name``, ``fields: dict[str, Field]`` in declaration order followed by the fields OneTable
adds (the type field ``{type: string, required, hidden}`` unless declared, then the created/updated
``date`` fields when ``params.timestamps`` asks for them). ``.field(name)``, ``.keys(index="primary")``
-> (hash Field, sort Field) or ``None`` where the model has none, ``.key_fields(index)``,
``.has_index(index)``, ``.hash_field``, ``.sort_field``, ``.type_field``, ``.field_for_attribute(att)``,
``.attribute_fields(att)`` (packed fields share one), ``.unique_fields``, ``.templated``,
``.dependency_order()``.

``Field``: ``name``, ``type`` (array, binary, boolean, date, number, object, set, string; ``buffer`` and
``arraybuffer`` read as binary, any case, Python types allowed in dicts), ``value: Template | None``,
``value_function`` (``value: true``: computed by an application callback), ``default`` + ``has_default``,
``generate: Generate(kind, length) | None`` (kind ulid/uuid/uid/custom; uid length 10 unless
``uid(N)``; the deprecated ``uuid:`` property is read as ``generate`` with a warning), ``required``
(true for primary key fields, as in OneTable), ``enum: tuple | None``, ``validate: re.Pattern | None``
(from ``'/re/flags'`` or a plain pattern, JavaScript semantics; use ``.search``), ``unique``, ``scope:
Template | None``, ``crypt``, ``hidden`` (default: true for templated fields), ``map: FieldMap(attribute,
sub) | None`` (``'data.x'`` -> ``('data', 'x')``), ``.attribute`` / ``.sub`` / ``.packed``, ``schema:
dict[str, Field] | None`` (nested object), ``items: Field | None`` (typed array elements; ``.nested``
gives either nested field dict), ``partial`` (resolved: field, parent, params), ``nulls`` and
``iso_dates`` (resolved from params), ``ttl``, ``encode: Encode(field, separator, index) | None``,
``filter`` (default true), ``reference: Reference(model, index, pairs) | None``, ``timestamp``, ``raw``,
``path``.

``Template(text)``: ``.text``, ``.refs`` (``Ref(path, length, pad)``), ``.fields`` (referenced paths, e.g.
``("_type", "address.zip")``), ``.roots``, ``.is_literal``, ``.render(values, *, iso_dates=False)`` -> str
or ``None`` when a referenced value is missing (OneTable then omits the attribute), ``.prefix(values)``
-> the text up to the first unresolved reference (OneTable queries ``begins_with`` that prefix for an
unresolved sort key, when it is not empty), ``.missing(values)``. ``${n:6}`` pads on the left with
``'0'`` to 6 characters, ``${n:6:x}`` with ``'x'``; values print as JavaScript's ``String()`` would.

``dependency_order(model) -> list[str]``: field names ordered so that every templated field follows
the templated fields its template uses; a cycle raises :class:`SchemaError` (``a -> b -> a``).

Identifiers: ``generate_id(kind, length=None)`` (``"ulid"``, ``"uuid"``, ``"uid"``, ``"uid(N)"``),
``new_ulid()`` (spec ULID, monotonic within the process; ``UlidGenerator`` for a private sequence), ``new_uuid()``, ``new_uid(n=10)``
(Crockford base 32: ``0-9A-Z`` without I, L, O, U), ``ulid_timestamp(ulid)``.

Validation covers every property of the 1.1.0 format and OneTable's field properties: unknown
properties (with a did-you-mean), wrong types, required values, SemVer versions, index shapes (primary
hash, local vs global, projections, names, counts), model and field names, templates (syntax, unknown
fields including nested paths, self references, cycles), key fields (present in every model, scalar,
not packed, not encrypted, one DynamoDB type per key attribute), map collisions, enum/default/generate/
validate/ttl/crypt/scope/encode/reference/items/schema/partial consistency, one TTL attribute per
table, and Ioto's process entries. Warnings (the schema still loads) cover what OneTable tolerates:
missing ``format`` or field ``type``, the deprecated ``uuid``, index attributes no model defines,
metrics on attributes no model defines, no-op ``unique``/``scope``/``sync``, reserved model names.
"""

from __future__ import annotations

from .defs import (
    FIELD_TYPES,
    Crypto,
    Encode,
    Field,
    FieldMap,
    Generate,
    Index,
    Metric,
    ModelDef,
    Params,
    Process,
    Reference,
    Schema,
    dependency_order,
)
from .errors import SchemaError, SchemaIssue, TemplateError
from .ids import (
    CROCKFORD_ALPHABET,
    DEFAULT_UID_LENGTH,
    UlidGenerator,
    generate_id,
    new_uid,
    new_ulid,
    new_uuid,
    ulid_timestamp,
)
from .json_schema import JSON_SCHEMA, JSON_SCHEMA_FILE
from .loader import load_schema, parse_text
from .rules import FORMAT, js_regex
from .template import Ref, Template, format_value
from .validate import validate_schema

__all__ = [
    "CROCKFORD_ALPHABET",
    "DEFAULT_UID_LENGTH",
    "FIELD_TYPES",
    "FORMAT",
    "JSON_SCHEMA",
    "JSON_SCHEMA_FILE",
    "Crypto",
    "Encode",
    "Field",
    "FieldMap",
    "Generate",
    "Index",
    "Metric",
    "ModelDef",
    "Params",
    "Process",
    "Ref",
    "Reference",
    "Schema",
    "SchemaError",
    "SchemaIssue",
    "Template",
    "TemplateError",
    "UlidGenerator",
    "dependency_order",
    "format_value",
    "generate_id",
    "js_regex",
    "load_schema",
    "new_uid",
    "new_ulid",
    "new_uuid",
    "parse_text",
    "ulid_timestamp",
    "validate_schema",
]
