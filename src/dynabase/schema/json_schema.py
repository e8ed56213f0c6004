"""A JSON Schema (draft 2020-12) of the OneTable 1.1.0 document structure.

This dict is the source; ``onetable-1.1.0.schema.json`` beside it is the same document for tools that
read files (a test keeps them equal; regenerate the file with
``python -m dynabase.schema.json_schema > src/dynabase/schema/onetable-1.1.0.schema.json``).
It checks shapes only: cross-references need :func:`dynabase.schema.validate_schema`.
"""

from __future__ import annotations

import json

__all__ = ["JSON_SCHEMA", "JSON_SCHEMA_FILE", "dumps"]

JSON_SCHEMA_FILE = "onetable-1.1.0.schema.json"

JSON_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:dynabase:schema:onetable-1.1.0",
    "title": "OneTable schema, format onetable:1.1.0",
    "description": "Structure of a OneTable 1.1.0 schema document as dynabase accepts it (with Ioto's "
    "'process' extension). Cross-references (template fields, index keys, map collisions, "
    "template cycles) are checked by dynabase.schema.validate_schema, not by this JSON "
    "Schema.",
    "type": "object",
    "required": ["version", "indexes"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": "onetable:1.1.0"},
        "version": {
            "type": "string",
            "pattern": "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$",
        },
        "description": {"type": "string"},
        "name": {"type": "string"},
        "indexes": {
            "type": "object",
            "required": ["primary"],
            "properties": {"primary": {"$ref": "#/$defs/primaryIndex"}},
            "propertyNames": {"pattern": "^(primary|[A-Za-z0-9_.\\-]{3,255})$"},
            "additionalProperties": {"$ref": "#/$defs/secondaryIndex"},
        },
        "models": {
            "type": "object",
            "propertyNames": {"pattern": "^[a-zA-Z_]+[A-Za-z0-9_]*$"},
            "additionalProperties": {"$ref": "#/$defs/model"},
        },
        "params": {"$ref": "#/$defs/params"},
        "process": {"type": "object", "additionalProperties": {"$ref": "#/$defs/process"}},
        "queries": {"type": "object", "additionalProperties": {"type": "object"}},
        "items": {"type": "array", "items": {"type": "object"}},
        "extensions": {"type": "object"},
    },
    "$defs": {
        "attributeName": {"type": "string", "minLength": 1},
        "primaryIndex": {
            "type": "object",
            "required": ["hash"],
            "additionalProperties": False,
            "properties": {
                "hash": {"$ref": "#/$defs/attributeName"},
                "sort": {"$ref": "#/$defs/attributeName"},
                "description": {"type": "string"},
            },
        },
        "keyAttributes": {
            "description": "dynabase extension: a global index's multi-attribute key (1 to 4 attributes, in order)",
            "oneOf": [
                {"$ref": "#/$defs/attributeName"},
                {
                    "type": "array",
                    "items": {"$ref": "#/$defs/attributeName"},
                    "minItems": 1,
                    "maxItems": 4,
                    "uniqueItems": True,
                },
            ],
        },
        "secondaryIndex": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "hash": {"$ref": "#/$defs/keyAttributes"},
                "sort": {"$ref": "#/$defs/keyAttributes"},
                "type": {"enum": ["global", "local"]},
                "project": {
                    "oneOf": [
                        {"enum": ["all", "keys"]},
                        {"type": "array", "items": {"$ref": "#/$defs/attributeName"}, "uniqueItems": True},
                    ]
                },
                "follow": {"type": "boolean"},
                "description": {"type": "string"},
            },
            "if": {"properties": {"type": {"const": "local"}}, "required": ["type"]},
            "then": {"required": ["sort"]},
            "else": {"required": ["hash"]},
        },
        "params": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "typeField": {"type": "string", "pattern": "^[^.:{}]+$"},
                "createdField": {"type": "string", "pattern": "^[^.:{}]+$"},
                "updatedField": {"type": "string", "pattern": "^[^.:{}]+$"},
                "timestamps": {"oneOf": [{"type": "boolean"}, {"enum": ["create", "update"]}]},
                "isoDates": {"type": "boolean"},
                "nulls": {"type": "boolean"},
                "separator": {"type": "string", "minLength": 1},
                "warn": {"type": "boolean"},
                "hidden": {"type": "boolean"},
                "partial": {"type": "boolean"},
                "legacyEmpties": {"type": "boolean"},
                "crypto": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "required": ["cipher", "password"],
                        "additionalProperties": False,
                        "properties": {
                            "cipher": {"const": "aes-256-gcm"},
                            "password": {"type": "string", "minLength": 1},
                        },
                    },
                },
            },
        },
        "model": {
            "type": "object",
            "propertyNames": {"pattern": "^[^.:{}]+$"},
            "additionalProperties": {"$ref": "#/$defs/field"},
        },
        "field": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "type": {
                    "enum": [
                        "Array",
                        "ArrayBuffer",
                        "Binary",
                        "Boolean",
                        "Buffer",
                        "Date",
                        "Number",
                        "Object",
                        "Set",
                        "String",
                        "array",
                        "arraybuffer",
                        "binary",
                        "boolean",
                        "buffer",
                        "date",
                        "number",
                        "object",
                        "set",
                        "string",
                    ]
                },
                "value": {
                    "oneOf": [
                        {
                            "type": "string",
                            "description": "A value "
                            "template: "
                            "literal text "
                            "with ${field}, "
                            "${a.b}, "
                            "${field:size} "
                            "or "
                            "${field:size:pad} "
                            "references.",
                        },
                        {"type": "boolean"},
                    ]
                },
                "default": True,
                "generate": {
                    "oneOf": [
                        {"type": "boolean"},
                        {"type": "string", "pattern": "^(ulid|uuid|uid|uid\\([1-9][0-9]*\\))$"},
                    ]
                },
                "uuid": {"oneOf": [{"type": "boolean"}, {"enum": ["uuid", "ulid"]}], "deprecated": True},
                "required": {"type": "boolean"},
                "enum": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "validate": {"oneOf": [{"type": "string"}, {"const": False}]},
                "unique": {"type": "boolean"},
                "scope": {
                    "type": "string",
                    "description": "A value template: literal text "
                    "with ${field}, ${a.b}, "
                    "${field:size} or "
                    "${field:size:pad} references.",
                },
                "crypt": {"type": "boolean"},
                "hidden": {"type": "boolean"},
                "map": {"type": "string", "pattern": "^[^.]+(\\.[^.]+)?$"},
                "schema": {"$ref": "#/$defs/model"},
                "items": {"$ref": "#/$defs/field"},
                "partial": {"type": "boolean"},
                "nulls": {"type": "boolean"},
                "ttl": {"type": "boolean"},
                "encode": {
                    "oneOf": [
                        {"type": "string", "minLength": 1},
                        {
                            "type": "array",
                            "prefixItems": [
                                {"type": "string"},
                                {"type": "string", "minLength": 1},
                                {"type": "integer", "minimum": 0},
                            ],
                            "minItems": 3,
                            "maxItems": 3,
                        },
                    ]
                },
                "filter": {"type": "boolean"},
                "isoDates": {"type": "boolean"},
                "reference": {"type": "string", "pattern": "^[^:]+:[^:]+:[^:]+$"},
                "timestamp": {"type": "boolean"},
            },
        },
        "process": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enable": {"enum": ["cloud", "device", "both"]},
                "sync": {"enum": ["up", "down", "both", "none", None]},
                "notify": {"type": "boolean"},
                "metrics": {"type": "array", "items": {"$ref": "#/$defs/metric"}},
            },
        },
        "metric": {
            "type": "object",
            "required": ["namespace", "fields"],
            "additionalProperties": False,
            "properties": {
                "namespace": {"type": "string", "minLength": 1},
                "fields": {
                    "type": "array",
                    "items": {
                        "oneOf": [
                            {"type": "string", "minLength": 1},
                            {
                                "type": "object",
                                "minProperties": 1,
                                "additionalProperties": {"type": "string"},
                            },
                        ]
                    },
                },
                "dimensions": {
                    "type": "array",
                    "items": {
                        "oneOf": [
                            {"type": "string"},
                            {"type": "object", "additionalProperties": {"type": "string"}},
                        ]
                    },
                },
                "where": {"type": "string"},
                "buffer": {"type": "object"},
            },
        },
    },
}


def dumps() -> str:
    """The JSON Schema as the text of the shipped file."""
    return json.dumps(JSON_SCHEMA, indent=2) + "\n"


if __name__ == "__main__":
    print(dumps(), end="")
