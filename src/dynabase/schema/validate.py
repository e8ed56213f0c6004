"""Validate a OneTable 1.1.0 schema document and build its :class:`Schema`.

One pass walks the whole document, records every problem with the path of the offending property, and
builds the normalised objects as it goes (leniently, so that one mistake does not hide the next).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .checks import ModelChecks
from .defs import Metric, ModelDef, Process, Schema
from .errors import SchemaError, SchemaIssue, TemplateError, join_path
from .fields import FieldDraft, FieldParts
from .metric_names import shared_names
from .rules import (
    ENABLE_VALUES,
    FORMAT,
    INTERNAL_MODELS,
    METRIC_PROPS,
    MODEL_NAME,
    PROCESS_PROPS,
    SEMVER,
    SYNC_VALUES,
    TOP_LEVEL_PROPS,
    kind_of,
    suggest,
)
from .tables import TableParts
from .template import Template

__all__ = ["FORMAT", "build_schema", "validate_schema"]


class _Compiler(TableParts, FieldParts, ModelChecks):
    """One pass over the whole document: the parts are the base classes; this one walks the top level,
    the models and their ``process`` entries."""

    # -- the document ------------------------------------------------------------------------------------
    def run(self) -> Schema | None:
        data = self.data
        if not isinstance(data, Mapping):
            self.error("", f"a schema must be an object, not {kind_of(data)}")
            return None
        self.check_keys(data, TOP_LEVEL_PROPS, "")

        fmt = data.get("format")
        if "format" not in data:
            self.warn("format", f"missing; assuming {FORMAT!r}")
            fmt = FORMAT
        elif fmt != FORMAT:
            self.error("format", f"must be {FORMAT!r}")
            fmt = FORMAT

        version: Any = data.get("version")  # checked below: a SemVer string, or an error
        if "version" not in data or version is None:
            self.error("version", "required")
        elif not isinstance(version, str):
            self.error("version", f"must be a SemVer version string, not {kind_of(version)}")
        elif not SEMVER.match(version):
            self.error("version", f"not a SemVer version: {version!r}")

        description = self.get_str(data, "description", "", empty=True)
        name = self.get_str(data, "name", "", empty=True)

        self.params = self.compile_params(data.get("params"))
        self.indexes = self.compile_indexes(data.get("indexes", None), "indexes" in data)
        models = self.compile_models(data.get("models"))
        process = self.compile_process(data.get("process"), models)

        queries = data.get("queries", {})
        if queries is None:
            queries = {}
        if not isinstance(queries, Mapping):
            self.error("queries", "must be an object")
            queries = {}
        else:
            for key in self.str_keys(queries, "queries"):
                if not isinstance(queries[key], Mapping):
                    self.error(join_path("queries", key), "must be an object")

        items = data.get("items", [])
        if items is None:
            items = []
        if not isinstance(items, (list, tuple)):
            self.error("items", "must be a list")
            items = []
        else:
            for i, item in enumerate(items):
                if not isinstance(item, Mapping):
                    self.error(join_path("items", i), "must be an object (a data item)")

        extensions = data.get("extensions", {})
        if extensions is None:
            extensions = {}
        if not isinstance(extensions, Mapping):
            self.error("extensions", "must be an object")
            extensions = {}

        self.check_index_usage(models)
        self.check_key_types(models)
        self.check_ttl(models)
        self.check_references(models)

        if self.errors:
            return None
        try:
            raw = copy.deepcopy(dict(data))
        except Exception:  # pragma: no cover - exotic values that cannot be copied
            raw = dict(data)
        return Schema(
            format=fmt,
            version=version,
            description=description,
            indexes=self.indexes,
            models=models,
            params=self.params,
            process=process,
            queries=dict(queries),
            raw=raw,
            items=tuple(items),
            extensions=dict(extensions),
            name=name,
            warnings=tuple(self.warnings),
        )

    # -- models ------------------------------------------------------------------------------------------
    def compile_models(self, raw: Any) -> dict[str, ModelDef]:
        path = "models"
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            self.error(path, "must be an object")
            return {}
        models: dict[str, ModelDef] = {}
        for name in self.str_keys(raw, path):
            mpath = join_path(path, name)
            if not MODEL_NAME.match(name):
                self.error(
                    mpath,
                    "invalid model name (must start with a letter or '_' and use only letters, digits and '_')",
                )
                continue
            if name in INTERNAL_MODELS:
                self.warn(mpath, "this name is reserved for OneTable's internal models")
            spec = raw[name]
            if not isinstance(spec, Mapping):
                self.error(mpath, "must be an object (the model's fields)")
                continue
            drafts = self.compile_block(spec, mpath, level=0, parent_partial=None)
            self.model_drafts[name] = drafts
        for name, drafts in self.model_drafts.items():
            mpath = join_path(path, name)
            self.check_model_keys(name, drafts, mpath)
            fields = {fname: self.freeze(draft, top=True) for fname, draft in drafts.items()}
            models[name] = ModelDef(name, fields, self.indexes, self.params, dict(raw[name]))
        return models

    def compile_process(self, raw: Any, models: dict[str, ModelDef]) -> dict[str, Process]:
        path = "process"
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            self.error(path, "must be an object (model name -> processing)")
            return {}
        result: dict[str, Process] = {}
        for name in self.str_keys(raw, path):
            ppath = join_path(path, name)
            if name not in self.model_drafts:
                self.error(ppath, f"unknown model {name!r}" + suggest(name, self.model_drafts))
            spec = raw[name]
            if not isinstance(spec, Mapping):
                self.error(ppath, "must be an object")
                continue
            self.check_keys(spec, PROCESS_PROPS, ppath)
            enable = self.get_choice(spec, "enable", ppath, ENABLE_VALUES, "both")
            sync = self.get_choice(spec, "sync", ppath, SYNC_VALUES, "none")
            notify = bool(self.get_bool(spec, "notify", ppath, False))
            if enable != "both" and sync != "none":
                self.warn(
                    join_path(ppath, "sync"), f"has no effect when the model is enabled only on the {enable}"
                )
            if sync != "none" and enable == "both" and self.params.timestamps not in (True, "update"):
                self.error(
                    join_path(ppath, "sync"),
                    "a synced model needs params.timestamps (true or 'update'): sync keeps the newer write",
                )
            scope = self.compile_scope(spec, ppath, name)
            metrics = self.compile_metrics(
                spec.get("metrics"), join_path(ppath, "metrics"), self.model_drafts.get(name)
            )
            result[name] = Process(enable, sync, metrics, notify, scope)
        return result

    def compile_scope(self, spec: Mapping[str, Any], path: str, model: str) -> str | None:
        """``process.<Model>.scope`` (a dynabase extension): a value template over the item's fields and the
        table context; a device receives the down-synced items whose scope renders as its own."""
        scope = self.get_str(spec, "scope", path)
        if scope is None:
            return None
        spath = join_path(path, "scope")
        try:
            template = Template(scope)
        except TemplateError as exc:
            self.error(spath, str(exc))
            return None
        if template.is_literal:
            self.error(spath, "must reference a field or context value (e.g. '${deviceId}')")
        if spec.get("sync", "none") in ("none", None):
            self.warn(spath, "has no effect on a model that does not sync")
        return scope

    def compile_metrics(
        self, raw: Any, path: str, drafts: dict[str, FieldDraft] | None
    ) -> tuple[Metric, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, (list, tuple)):
            self.error(path, "must be a list of metric definitions")
            return ()
        known: set[str] = set()
        if drafts is not None:
            for draft in drafts.values():
                known.add(draft.name)
                known.add(draft.attribute)
        metrics = []
        for i, spec in enumerate(raw):
            mpath = join_path(path, i)
            if not isinstance(spec, Mapping):
                self.error(mpath, "must be an object")
                continue
            self.check_keys(spec, METRIC_PROPS, mpath)
            namespace = self.get_str(spec, "namespace", mpath, required=True)
            fields: list[tuple[str, str]] = []
            fpath = join_path(mpath, "fields")
            if "fields" not in spec or spec["fields"] is None:
                self.error(fpath, "required")
            elif not isinstance(spec["fields"], (list, tuple)):
                self.error(fpath, "must be a list of attribute names or {metric: attribute} objects")
            else:
                for j, entry in enumerate(spec["fields"]):
                    epath = join_path(fpath, j)
                    if isinstance(entry, str) and entry:
                        fields.append((entry, entry))
                    elif (
                        isinstance(entry, Mapping)
                        and entry
                        and all(isinstance(k, str) and isinstance(v, str) for k, v in entry.items())
                    ):
                        fields.extend(entry.items())
                    else:
                        self.error(epath, "must be an attribute name or a {metric: attribute} object")
                        continue
            for _metric, attribute in fields:
                if drafts is not None and attribute not in known:
                    self.warn(fpath, f"the model defines no field {attribute!r}")
            dimensions: list[Any] = []
            dpath = join_path(mpath, "dimensions")
            if spec.get("dimensions") is not None:
                if not isinstance(spec["dimensions"], (list, tuple)):
                    self.error(dpath, "must be a list")
                else:
                    for j, entry in enumerate(spec["dimensions"]):
                        if isinstance(entry, str):
                            dimensions.append(entry)
                        elif isinstance(entry, Mapping) and all(
                            isinstance(k, str) and isinstance(v, str) for k, v in entry.items()
                        ):
                            dimensions.append(dict(entry))
                            for attribute in entry.values():
                                if drafts is not None and attribute not in known:
                                    self.warn(
                                        join_path(dpath, j), f"the model defines no field {attribute!r}"
                                    )
                        else:
                            self.error(
                                join_path(dpath, j), "must be a name or a {dimension: attribute} object"
                            )
            for j, message in shared_names(fields, spec.get("dimensions")):
                self.error(join_path(dpath, j), message)
            where = self.get_str(spec, "where", mpath)
            buffer = spec.get("buffer")
            if buffer is not None and not isinstance(buffer, Mapping):
                self.error(join_path(mpath, "buffer"), "must be an object")
                buffer = None
            if namespace is not None:
                metrics.append(
                    Metric(
                        namespace, tuple(fields), tuple(dimensions), where, dict(buffer) if buffer else None
                    )
                )
        return tuple(metrics)

    # -- cross-model checks --------------------------------------------------------------------------------


def _compile(
    data: Any, crypto: Mapping[str, Any] | None = None
) -> tuple[Schema | None, list[SchemaIssue], list[SchemaIssue]]:
    compiler = _Compiler(data, crypto)
    schema = compiler.run()
    return schema, compiler.errors, compiler.warnings


def validate_schema(
    data: Any, *, warnings: bool = False, crypto: Mapping[str, Any] | None = None
) -> list[SchemaIssue]:
    """Every error in the schema document ``data`` (an empty list when it is valid).

    With ``warnings=True`` the warnings (``severity == "warning"``) follow the errors. ``crypto`` supplies
    a crypto configuration from outside the document (see :func:`load_schema`).
    """
    _schema, errors, warns = _compile(data, crypto)
    return errors + warns if warnings else errors


def build_schema(data: Any, *, crypto: Mapping[str, Any] | None = None) -> Schema:
    """Validate ``data`` and build its :class:`Schema`; raise :class:`SchemaError` listing every error."""
    schema, errors, warns = _compile(data, crypto)
    if errors or schema is None:
        raise SchemaError(errors or [SchemaIssue("", "invalid schema")], warnings=warns)
    return schema
