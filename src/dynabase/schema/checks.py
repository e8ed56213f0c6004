"""The checks across models once they are compiled: index usage, key types, TTL fields, references."""

from __future__ import annotations

import dataclasses

from .compiler import CompilerBase
from .defs import Field, ModelDef, Reference, scalar_type
from .errors import join_path
from .rules import KEY_TYPES, suggest


class ModelChecks(CompilerBase):
    """What can only be checked with every model compiled."""

    def check_index_usage(self, models: dict[str, ModelDef]) -> None:
        attributes: set[str] = set()
        for model in models.values():
            for f in model.fields.values():
                attributes.add(f.attribute)
        if not models:
            return
        for index in self.indexes.values():
            if index.kind == "primary":
                continue
            ipath = join_path("indexes", index.name)
            for key, attribute in [("hash", a) for a in index.hashes] + [("sort", a) for a in index.sorts]:
                if attribute is None or (key == "hash" and index.kind == "local"):
                    continue
                if attribute not in attributes:
                    self.warn(join_path(ipath, key), f"no model defines attribute {attribute!r}")
            if isinstance(index.project, tuple):
                for attribute in index.project:
                    if attribute not in attributes:
                        self.warn(join_path(ipath, "project"), f"no model defines attribute {attribute!r}")

    def check_key_types(self, models: dict[str, ModelDef]) -> None:
        seen: dict[str, tuple[str, str]] = {}
        for index in self.indexes.values():
            for attribute in index.keys:
                for model in models.values():
                    f = model.field_for_attribute(attribute)
                    if f is None or f.type not in KEY_TYPES:
                        continue
                    kind = scalar_type(f)
                    if attribute not in seen:
                        seen[attribute] = (kind, f.path)
                    elif seen[attribute][0] != kind and seen[attribute][1] != f.path:
                        other_kind, other_path = seen[attribute]
                        self.error(
                            join_path(f.path, "type"),
                            f"key attribute {attribute!r} is stored as {kind} here but as {other_kind} by {other_path}",
                        )
                        seen[attribute] = (other_kind, f.path)

    def check_ttl(self, models: dict[str, ModelDef]) -> None:
        first: tuple[str, str] | None = None
        for model in models.values():
            for f in model.fields.values():
                if not f.ttl:
                    continue
                if first is None:
                    first = (f.attribute, f.path)
                elif first[0] != f.attribute:
                    self.error(
                        join_path(f.path, "ttl"),
                        f"DynamoDB allows one TTL attribute per table; {first[0]!r} ({first[1]}) is already the TTL attribute",
                    )

    def check_references(self, models: dict[str, ModelDef]) -> None:
        for name, model in models.items():
            updated: dict[str, Field] = {}
            for fname, f in model.fields.items():
                raw = (
                    self.model_drafts[name][fname].reference_raw if fname in self.model_drafts[name] else None
                )
                if isinstance(raw, str):
                    reference = self.compile_reference(raw, join_path(f.path, "reference"), model, models)
                    if reference is not None:
                        updated[fname] = dataclasses.replace(f, reference=reference)
            if updated:
                model.fields.update(updated)

    def compile_reference(
        self, text: str, path: str, model: ModelDef, models: dict[str, ModelDef]
    ) -> Reference | None:
        parts = text.split(":")
        if len(parts) != 3 or not all(parts):
            self.error(path, "must be 'Model:index:attribute=source,...'")
            return None
        target_name, index_name, spec = parts
        target = models.get(target_name)
        ok = True
        if target is None:
            self.error(path, f"unknown model {target_name!r}" + suggest(target_name, models))
            ok = False
        if index_name not in self.indexes:
            self.error(path, f"unknown index {index_name!r}" + suggest(index_name, self.indexes))
            ok = False
        pairs: list[tuple[str, str]] = []
        for pair in spec.split(","):
            bits = pair.split("=")
            if len(bits) != 2 or not bits[0].strip() or not bits[1].strip():
                self.error(path, f"bad attribute pair {pair!r} (expected attribute=source)")
                ok = False
                continue
            attribute, source = bits[0].strip(), bits[1].strip()
            if (
                target is not None
                and attribute not in target.fields
                and target.field_for_attribute(attribute) is None
            ):
                self.error(path, f"model {target_name!r} has no field {attribute!r}")
                ok = False
            if source not in model.fields and model.field_for_attribute(source) is None:
                self.error(path, f"model {model.name!r} has no field {source!r}")
                ok = False
            pairs.append((attribute, source))
        return Reference(target_name, index_name, tuple(pairs), text) if ok else None


__all__ = ["ModelChecks"]
