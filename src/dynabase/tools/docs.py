"""``dynabase docs``: data-model documentation of a OneTable schema, as Markdown or self-contained HTML.

The page follows the style of hand-written DynamoDB data-model pages: a title and description, the table's
indexes, the entities per partition (a Mermaid flowchart in Markdown, a nested list in HTML), then for each
model (entity) its key schema (PK/SK and each secondary index key with its format, e.g. ``device#<deviceId>``),
its attributes and the indexes it appears in; then the ``process`` map when there is one.

Both formats are rendered from one :class:`SchemaDoc` (:func:`build`), so they always say the same thing.
Output is deterministic: models, fields and indexes in schema order, everything else sorted.

Fields have no ``description`` property in the OneTable format; descriptions can be given in the schema's
``extensions.docs``::

    extensions: {docs: {models: {Fault: {description: 'A device fault', fields: {severity: 'How bad'}}}}}
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..schema import Field, ModelDef, Schema
from .common import KeyFormat, entity_indexes, key_formats, load, schema_title, template_format

__all__ = ["FORMATS", "SchemaDoc", "build", "mermaid", "render", "render_html", "render_markdown"]

FORMATS = ("md", "html")
KIND_LABELS = {"primary": "primary", "global": "GSI", "local": "LSI"}
PROJECTION_LABELS = {"all": "ALL", "keys": "KEYS_ONLY"}
#: joins the attributes of a multi-attribute key (and their formats) in the pages
KEY_JOIN = " + "
_TIMESTAMPS = {True: "created and updated", False: "none", "create": "created only", "update": "updated only"}


# -- the document model --------------------------------------------------------------------------------------


@dataclass
class IndexDoc:
    name: str
    kind: str  # primary / GSI / LSI
    hash: str
    sort: str
    projection: str
    description: str


@dataclass
class AttributeDoc:
    name: str
    attribute: str  # stored attribute name when it differs (map / packed), else ""
    type: str
    required: bool
    value: str  # value template, default or generate
    enum: str
    validate: str
    unique: bool
    hidden: bool
    crypt: bool
    ttl: bool
    description: str


@dataclass
class EntityDoc:
    name: str
    description: str
    keys: list[KeyFormat]
    attributes: list[AttributeDoc]
    indexes: list[str]  # indexes the entity appears in
    absent: list[str]  # indexes it does not appear in
    sync: str = ""


@dataclass
class PartitionDoc:
    """Entities whose partition keys (of one index) have the same shape: they share item collections."""

    index: str
    attribute: str
    shape: str
    members: list[tuple[str, str, str]]  # (entity, partition key format, sort key format or "")


@dataclass
class ProcessDoc:
    model: str
    enable: str
    sync: str
    notify: bool
    metrics: list[str]


@dataclass
class SchemaDoc:
    title: str
    description: str
    facts: list[tuple[str, str]]
    indexes: list[IndexDoc]
    entities: list[EntityDoc]
    partitions: list[PartitionDoc]
    process: list[ProcessDoc] = field(default_factory=list)


def _yes(flag: bool) -> str:
    return "yes" if flag else ""


#: the columns of an entity's attribute table, in the Markdown and the HTML page alike
ATTRIBUTE_COLUMNS = [
    "Field",
    "Attribute",
    "Type",
    "Required",
    "Value / default",
    "Enum",
    "Validate",
    "Unique",
    "Hidden",
    "Crypt",
    "TTL",
    "Description",
]


def _attribute_row(a: AttributeDoc, code: Callable[[str], str], text: Callable[[str], str]) -> list[str]:
    """A row of the attribute table: ``code`` formats names and expressions, ``text`` the rest."""
    return [
        code(a.name),
        code(a.attribute),
        text(a.type),
        _yes(a.required),
        code(a.value),
        text(a.enum),
        code(a.validate),
        _yes(a.unique),
        _yes(a.hidden),
        _yes(a.crypt),
        _yes(a.ttl),
        text(a.description),
    ]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "), default=str)


def _descriptions(schema: Schema) -> Mapping[str, Any]:
    docs = schema.extensions.get("docs") if isinstance(schema.extensions, Mapping) else None
    models = docs.get("models") if isinstance(docs, Mapping) else None
    return models if isinstance(models, Mapping) else {}


def _type_label(f: Field) -> str:
    if f.type == "array" and f.items is not None:
        return f"array of {f.items.type}"
    if f.type == "date":
        return "date (ISO 8601 string)" if (f.iso_dates and not f.ttl) else "date (epoch number)"
    return f.type


def _value_label(model: ModelDef, f: Field) -> str:
    parts: list[str] = []
    if f.value is not None:
        parts.append("value: " + template_format(f.value, {model.params.type_field: model.name}))
    elif f.value_function:
        parts.append("value: computed")
    if f.name == model.params.type_field and not f.raw:
        parts.append(f"= {model.name}")
    if f.has_default:
        parts.append("default: " + _json(f.default))
    if f.generate is not None:
        kind = f.generate.kind
        if kind == "uid" and f.generate.length:
            kind = f"uid({f.generate.length})"
        parts.append("generate: " + kind)
    if f.timestamp and not f.raw:
        parts.append("set on create" if f.name == model.params.created_field else "set on write")
    return "; ".join(parts)


def _auto_description(model: ModelDef, f: Field) -> list[str]:
    notes: list[str] = []
    if f.name == model.params.type_field and not f.raw:
        notes.append("entity type (the model name)")
    if f.timestamp and not f.raw:
        notes.append("creation time" if f.name == model.params.created_field else "last update time")
    if f.packed:
        notes.append(f"packed in map attribute {f.attribute}")
    if f.encode is not None:
        notes.append(f"encoded in {f.encode.field} (part {f.encode.index}, split on {f.encode.separator!r})")
    if f.reference is not None:
        notes.append(f"refers to {f.reference.model} via {f.reference.index}")
    if f.scope is not None:
        notes.append(f"unique within scope {f.scope.text}")
    return notes


def _attributes(
    model: ModelDef, fields: Mapping[str, Field], prefix: str, described: Mapping[str, Any]
) -> list[AttributeDoc]:
    rows: list[AttributeDoc] = []
    for f in fields.values():
        name = prefix + f.name
        stored = ""
        if f.map is not None:
            stored = f.attribute + (f".{f.sub}" if f.sub else "")
        validate = ""
        if f.validate is not None:
            raw = f.raw.get("validate")
            validate = raw if isinstance(raw, str) else f"/{f.validate.pattern}/"
        notes = []
        text = described.get(name)
        if isinstance(text, str) and text:
            notes.append(text)
        notes.extend(_auto_description(model, f))
        rows.append(
            AttributeDoc(
                name=name,
                attribute=stored if stored != name else "",
                type=_type_label(f),
                required=f.required,
                value=_value_label(model, f),
                enum=", ".join(str(v) for v in f.enum) if f.enum else "",
                validate=validate,
                unique=f.unique,
                hidden=f.hidden,
                crypt=f.crypt,
                ttl=f.ttl,
                description="; ".join(notes),
            )
        )
        nested = f.nested
        if nested:
            rows.extend(_attributes(model, nested, name + ("[]." if f.items is not None else "."), described))
    return rows


def _metric(metric: Any) -> str:
    fields = ", ".join(name if name == att else f"{name}={att}" for name, att in metric.fields)
    text = f"{metric.namespace}: {fields or '(no fields)'}"
    if metric.dimensions:
        text += " by " + _json(list(metric.dimensions))
    if metric.where:
        text += f" where {metric.where}"
    return text


def build(schema: Schema, *, title: str | None = None) -> SchemaDoc:
    """The documentation model of ``schema``."""
    descriptions = _descriptions(schema)
    params = schema.params
    facts = [
        ("format", schema.format),
        ("version", schema.version),
        ("type attribute", params.type_field),
        (
            "timestamps",
            _TIMESTAMPS.get(params.timestamps, str(params.timestamps)),
        ),
    ]
    stamps = [params.created_field] if params.create_timestamp else []
    stamps += [params.updated_field] if params.update_timestamp else []
    if stamps:
        facts.append(("timestamp attributes", ", ".join(stamps)))
    facts.append(("dates", "ISO 8601 strings" if params.iso_dates else "epoch numbers"))
    facts.append(("separator", params.separator))
    for flag in ("nulls", "hidden", "partial"):
        if getattr(params, flag):
            facts.append((flag, "true"))

    indexes = []
    for index in schema.indexes.values():
        if index.kind == "primary":
            projection = "—"
        elif isinstance(index.project, tuple):
            projection = "INCLUDE " + ", ".join(index.project)
        else:
            projection = PROJECTION_LABELS[index.project]
        indexes.append(
            IndexDoc(
                index.name,
                KIND_LABELS[index.kind],
                KEY_JOIN.join(index.hashes),
                KEY_JOIN.join(index.sorts) or "—",
                projection,
                index.description or "",
            )
        )

    entities = []
    for model in schema.models.values():
        described = descriptions.get(model.name)
        described = described if isinstance(described, Mapping) else {}
        field_text = described.get("fields")
        keys: list[KeyFormat] = []
        member = entity_indexes(schema, model)
        for index in member:
            for role in ("hash", "sort"):
                if not (index.kind == "local" and role == "hash"):
                    keys += key_formats(model, index, role)
        process = schema.process.get(model.name)
        entities.append(
            EntityDoc(
                name=model.name,
                description=str(described.get("description") or ""),
                keys=keys,
                attributes=_attributes(
                    model, model.fields, "", field_text if isinstance(field_text, Mapping) else {}
                ),
                indexes=[i.name for i in member],
                absent=[i for i in schema.indexes if i not in {m.name for m in member}],
                sync=process.sync if process else "",
            )
        )

    partitions: list[PartitionDoc] = []
    for index in schema.indexes.values():
        groups: dict[str, list[tuple[str, str, str]]] = {}
        for model in schema.models.values():
            if index not in entity_indexes(schema, model):
                continue
            hash_fmts = key_formats(model, index, "hash")
            sort_fmts = key_formats(model, index, "sort")
            assert hash_fmts
            groups.setdefault(KEY_JOIN.join(f.shape for f in hash_fmts), []).append(
                (
                    model.name,
                    KEY_JOIN.join(f.format for f in hash_fmts),
                    KEY_JOIN.join(f.format for f in sort_fmts),
                )
            )
        for shape in sorted(groups):
            partitions.append(
                PartitionDoc(index.name, KEY_JOIN.join(index.hashes), shape, sorted(groups[shape]))
            )

    process_docs = [
        ProcessDoc(name, p.enable, p.sync, p.notify, [_metric(m) for m in p.metrics])
        for name, p in sorted(schema.process.items())
    ]
    return SchemaDoc(
        title=title or schema_title(schema),
        description=schema.description or "",
        facts=facts,
        indexes=indexes,
        entities=entities,
        partitions=partitions,
        process=process_docs,
    )


# -- Markdown ----------------------------------------------------------------------------------------------


def _codes(names: str) -> str:
    """A key's attribute names (several joined for a multi-attribute key), each as a code span."""
    return KEY_JOIN.join(_code(n) for n in names.split(KEY_JOIN))


def _code(text: str) -> str:
    """``text`` as a Markdown code span (safe inside a table cell)."""
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", "\\|")


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    return lines


def _role_label(fmt: KeyFormat) -> str:
    if fmt.index == "primary":
        return "PK" if fmt.role == "hash" else "SK"
    return f"{fmt.index} {'PK' if fmt.role == 'hash' else 'SK'}"


_MERMAID_ID = re.compile(r"[^A-Za-z0-9_]")


def _mermaid_text(text: str) -> str:
    """Text for a quoted Mermaid label: quotes and angle brackets as Mermaid entity codes, and a ``#`` that
    would read as the start of one escaped too."""
    text = re.sub(r"#(?=\w+;)", "#35;", text)
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def mermaid(doc: SchemaDoc) -> list[str]:
    """A Mermaid flowchart: per index, each partition shape and the entities stored under it."""
    lines = ["```mermaid", "flowchart LR"]
    by_index: dict[str, list[PartitionDoc]] = {}
    for part in doc.partitions:
        by_index.setdefault(part.index, []).append(part)
    for i, (index, parts) in enumerate(by_index.items()):
        lines.append(f'    subgraph I{i}["{_mermaid_text(index)}"]')
        for j, part in enumerate(parts):
            pid = f"I{i}P{j}"
            lines.append(f'        {pid}(["{_mermaid_text(part.attribute + " = " + part.shape)}"])')
            for k, (entity, _pk, sk) in enumerate(part.members):
                label = entity + (f"<br/>{_mermaid_text(sk)}" if sk else "")
                eid = f"{pid}E{k}_{_MERMAID_ID.sub('_', entity)}"
                lines.append(f'        {pid} --- {eid}["{label}"]')
        lines.append("    end")
    lines.append("```")
    return lines


def render_markdown(doc: SchemaDoc) -> str:
    out: list[str] = [f"# {doc.title}", ""]
    if doc.description:
        out += [doc.description, ""]
    out += _table(["Property", "Value"], [[k, _code(str(v))] for k, v in doc.facts]) + [""]

    out += ["## Table indexes", ""]
    out += _table(
        ["Index", "Type", "Partition key", "Sort key", "Projection", "Description"],
        [
            [
                _cell(i.name),
                i.kind,
                _codes(i.hash),
                _codes(i.sort) if i.sort != "—" else "—",
                _cell(i.projection),
                _cell(i.description),
            ]
            for i in doc.indexes
        ],
    ) + [""]

    out += ["## Entities per partition", ""]
    out += [
        "Entities whose partition keys have the same format (the same literal text around the `<…>` "
        "values) share partitions: one query on the partition key can return all of them.",
        "",
    ]
    out += mermaid(doc) + [""]
    out += _table(
        ["Index", "Partition key", "Entity", "Partition key format", "Sort key format"],
        [
            [_cell(p.index), _code(p.attribute + " = " + p.shape), _cell(e), _code(pk), _code(sk)]
            for p in doc.partitions
            for e, pk, sk in p.members
        ],
    ) + [""]

    out += ["## Entities", ""]
    for entity in doc.entities:
        out += [f"### {entity.name}", ""]
        if entity.description:
            out += [entity.description, ""]
        out += ["#### Entity key schema", ""]
        out += _table(
            ["Key", "Index", "Attribute", "Format"],
            [[_role_label(k), _cell(k.index), _code(k.attribute), _code(k.format)] for k in entity.keys],
        ) + [""]
        out += ["#### Entity attributes", ""]
        out += _table(
            ATTRIBUTE_COLUMNS,
            [_attribute_row(a, _code, _cell) for a in entity.attributes],
        ) + [""]
        out += ["#### Indexes", ""]
        out += ["Appears in: " + ", ".join(f"`{name}`" for name in entity.indexes) + "."]
        if entity.absent:
            out += [
                "",
                "Not in: "
                + ", ".join(f"`{name}`" for name in entity.absent)
                + " (sparse: the entity defines no key for them).",
            ]
        out += [""]

    if doc.process:
        out += ["## Process", ""]
        out += _table(
            ["Model", "Enable", "Sync", "Notify", "Metrics"],
            [
                [_cell(p.model), p.enable, p.sync, _yes(p.notify), "<br>".join(_cell(m) for m in p.metrics)]
                for p in doc.process
            ],
        ) + [""]
    return "\n".join(out).rstrip("\n") + "\n"


# -- HTML --------------------------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem;
  padding: 0 1rem; color: #1f2328; line-height: 1.45; }
h1, h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .3rem; }
h3 { margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid #d0d7de; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; background: #f6f8fa; padding: 0 .2rem;
  border-radius: 3px; }
ul.partitions li { margin: .15rem 0; }
""".strip()


def _h(text: str) -> str:
    return html.escape(text, quote=True)


def _hcode(text: str) -> str:
    return f"<code>{_h(text)}</code>" if text else ""


def _hcodes(names: str) -> str:
    """A key's attribute names (several joined for a multi-attribute key), each as code."""
    return KEY_JOIN.join(_hcode(n) for n in names.split(KEY_JOIN))


def _htable(header: list[str], rows: list[list[str]]) -> list[str]:
    """A table; ``rows`` cells are HTML already."""
    lines = [
        "<table>",
        "<thead><tr>" + "".join(f"<th>{_h(h)}</th>" for h in header) + "</tr></thead>",
        "<tbody>",
    ]
    lines += ["<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows]
    lines += ["</tbody>", "</table>"]
    return lines


def _anchor(name: str) -> str:
    return "entity-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


def render_html(doc: SchemaDoc) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{_h(doc.title)}</title>",
        f"<style>\n{STYLE}\n</style>",
        "</head>",
        "<body>",
        f"<h1>{_h(doc.title)}</h1>",
    ]
    if doc.description:
        out.append(f"<p>{_h(doc.description)}</p>")
    out += _htable(["Property", "Value"], [[_h(k), _hcode(str(v))] for k, v in doc.facts])

    out.append("<h2>Table indexes</h2>")
    out += _htable(
        ["Index", "Type", "Partition key", "Sort key", "Projection", "Description"],
        [
            [
                _h(i.name),
                _h(i.kind),
                _hcodes(i.hash),
                _hcodes(i.sort) if i.sort != "—" else "—",
                _h(i.projection),
                _h(i.description),
            ]
            for i in doc.indexes
        ],
    )

    out.append("<h2>Entities per partition</h2>")
    out.append(
        "<p>Entities whose partition keys have the same format (the same literal text around the "
        "<code>&lt;…&gt;</code> values) share partitions: one query on the partition key can return all of "
        "them.</p>"
    )
    out.append('<ul class="partitions">')
    by_index: dict[str, list[PartitionDoc]] = {}
    for part in doc.partitions:
        by_index.setdefault(part.index, []).append(part)
    for index, parts in by_index.items():
        out.append(f"<li>{_h(index)}<ul>")
        for part in parts:
            out.append(f"<li>{_hcode(part.attribute + ' = ' + part.shape)}<ul>")
            for member, pk, sk in part.members:
                text = f'<a href="#{_anchor(member)}">{_h(member)}</a>: {_hcode(pk)}'
                if sk:
                    text += f", sort {_hcode(sk)}"
                out.append(f"<li>{text}</li>")
            out.append("</ul></li>")
        out.append("</ul></li>")
    out.append("</ul>")

    out.append("<h2>Entities</h2>")
    for entity in doc.entities:
        out.append(f'<h3 id="{_anchor(entity.name)}">{_h(entity.name)}</h3>')
        if entity.description:
            out.append(f"<p>{_h(entity.description)}</p>")
        out.append("<h4>Entity key schema</h4>")
        out += _htable(
            ["Key", "Index", "Attribute", "Format"],
            [[_h(_role_label(k)), _h(k.index), _hcode(k.attribute), _hcode(k.format)] for k in entity.keys],
        )
        out.append("<h4>Entity attributes</h4>")
        out += _htable(
            ATTRIBUTE_COLUMNS,
            [_attribute_row(a, _hcode, _h) for a in entity.attributes],
        )
        out.append("<h4>Indexes</h4>")
        text = "Appears in: " + ", ".join(_hcode(n) for n in entity.indexes) + "."
        if entity.absent:
            text += (
                " Not in: "
                + ", ".join(_hcode(n) for n in entity.absent)
                + " (sparse: the entity defines no key for them)."
            )
        out.append(f"<p>{text}</p>")

    if doc.process:
        out.append("<h2>Process</h2>")
        out += _htable(
            ["Model", "Enable", "Sync", "Notify", "Metrics"],
            [
                [_h(p.model), _h(p.enable), _h(p.sync), _yes(p.notify), "<br>".join(_h(m) for m in p.metrics)]
                for p in doc.process
            ],
        )
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


# -- entry points ------------------------------------------------------------------------------------------


def render(source: Any, format: str = "md", *, title: str | None = None) -> str:
    """The documentation of the schema in ``source`` (a path, a document or a Schema) as ``format``."""
    if format not in FORMATS:
        raise ValueError(f"unknown docs format {format!r}; use one of {', '.join(FORMATS)}")
    schema = load(source)
    if title is None and isinstance(source, (str, Path)):
        title = schema_title(schema, source)
    doc = build(schema, title=title)
    return render_markdown(doc) if format == "md" else render_html(doc)
