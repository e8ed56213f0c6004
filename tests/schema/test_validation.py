"""Bad schemas: every error names the path of the offending property, and all errors are reported."""

from __future__ import annotations

import pytest

from dynabase.schema import SchemaError, SchemaIssue, load_schema, validate_schema

from .helpers import base, errors, warnings_of, with_fields

# (description, document, expected error lines). Each document has exactly these errors.
CASES = [
    # -- top level ---------------------------------------------------------------------------------------
    ("not an object", ["a"], ["a schema must be an object, not list"]),
    ("wrong format", base(format="onetable:1.0.0"), ["format: must be 'onetable:1.1.0'"]),
    ("format not a string", base(format=1), ["format: must be 'onetable:1.1.0'"]),
    ("bad semver", base(version="1.x"), ["version: not a SemVer version: '1.x'"]),
    ("semver with leading zero", base(version="01.0.0"), ["version: not a SemVer version: '01.0.0'"]),
    ("version not a string", base(version=1), ["version: must be a SemVer version string, not number"]),
    ("unknown top-level property", base(modles={}), ["modles: unknown property (did you mean 'models'?)"]),
    ("description not a string", base(description=5), ["description: must be a string"]),
    ("queries not an object", base(queries=[]), ["queries: must be an object"]),
    ("query not an object", base(queries={"q": 1}), ["queries.q: must be an object"]),
    ("items not a list", base(items={}), ["items: must be a list"]),
    ("item not an object", base(items=[1]), ["items[0]: must be an object (a data item)"]),
    ("extensions not an object", base(extensions="x"), ["extensions: must be an object"]),
    # -- params ------------------------------------------------------------------------------------------
    ("params not an object", base(params=[]), ["params: must be an object"]),
    (
        "unknown param",
        base(params={"isoDate": True}),
        ["params.isoDate: unknown property (did you mean 'isoDates'?)"],
    ),
    ("param not a boolean", base(params={"nulls": "yes"}), ["params.nulls: must be a boolean"]),
    (
        "bad timestamps",
        base(params={"timestamps": "both"}),
        ["params.timestamps: must be true, false, 'create' or 'update'"],
    ),
    ("empty separator", base(params={"separator": ""}), ["params.separator: must not be empty"]),
    ("bad typeField", base(params={"typeField": "a.b"}), ["params.typeField: not a valid field name: 'a.b'"]),
    (
        "created equals updated",
        base(params={"createdField": "at", "updatedField": "at"}),
        ["params.updatedField: must differ from createdField"],
    ),
    (
        "crypto without password",
        base(params={"crypto": {"primary": {"cipher": "aes-256-gcm"}}}),
        ["params.crypto.primary.password: required"],
    ),
    (
        "crypto bad cipher",
        base(params={"crypto": {"primary": {"cipher": "rot13", "password": "x"}}}),
        ["params.crypto.primary.cipher: must be one of aes-256-gcm"],
    ),
    # -- indexes -----------------------------------------------------------------------------------------
    ("no indexes", {"version": "1.0.0", "format": "onetable:1.1.0"}, ["indexes: required"]),
    ("indexes not an object", base(indexes=[]), ["indexes: must be an object"]),
    ("no primary", base(indexes={"gs1": {"hash": "a"}}), ["indexes.primary: required"]),
    ("primary without hash", base(indexes={"primary": {"sort": "sk"}}), ["indexes.primary.hash: required"]),
    (
        "gsi without hash",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"sort": "gs1sk"}}),
        ["indexes.gs1.hash: required"],
    ),
    (
        "unknown index property",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "a", "projection": "all"}}),
        ["indexes.gs1.projection: unknown property (did you mean 'project'?)"],
    ),
    (
        "bad project",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "a", "project": "some"}}),
        ["indexes.gs1.project: must be 'all', 'keys' or a list of attribute names"],
    ),
    (
        "project list with non-strings",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "a", "project": ["x", 3]}}),
        ["indexes.gs1.project: must be 'all', 'keys' or a list of attribute names"],
    ),
    (
        "project list with a repeat",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "a", "project": ["x", "x"]}}),
        ["indexes.gs1.project: lists 'x' more than once"],
    ),
    (
        "project on primary",
        base(indexes={"primary": {"hash": "pk", "sort": "sk", "project": "all"}}),
        ["indexes.primary.project: not valid for the primary index"],
    ),
    (
        "bad index type",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "ls1": {"sort": "x", "type": "lsi"}}),
        ["indexes.ls1.type: must be one of global, local", "indexes.ls1.hash: required"],
    ),
    (
        "local index with another hash",
        base(
            indexes={
                "primary": {"hash": "pk", "sort": "sk"},
                "ls1": {"hash": "x", "sort": "y", "type": "local"},
            }
        ),
        ["indexes.ls1.hash: a local index must use the primary hash key 'pk'"],
    ),
    (
        "local index without sort",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "ls1": {"type": "local"}}),
        ["indexes.ls1.sort: required"],
    ),
    (
        "local index on a hash-only table",
        {
            "format": "onetable:1.1.0",
            "version": "1.0.0",
            "indexes": {"primary": {"hash": "pk"}, "ls1": {"sort": "x", "type": "local"}},
        },
        ["indexes.ls1: a local index needs a primary index with a sort key"],
    ),
    (
        "hash equals sort",
        base(indexes={"primary": {"hash": "pk", "sort": "pk"}}),
        ["indexes.primary.sort: must differ from the hash key"],
    ),
    (
        "index name too short",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "g1": {"hash": "a"}}),
        ["indexes.g1: an index name must be 3 to 255 characters of A-Z, a-z, 0-9, '_', '-' and '.'"],
    ),
    (
        "follow not a boolean",
        base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "a", "follow": "yes"}}),
        ["indexes.gs1.follow: must be a boolean"],
    ),
    (
        "six local indexes",
        base(
            indexes={
                "primary": {"hash": "pk", "sort": "sk"},
                **{f"ls{i}": {"sort": f"s{i}", "type": "local"} for i in range(1, 7)},
            }
        ),
        ["indexes: DynamoDB allows at most 5 local secondary indexes per table"],
    ),
    # -- models ------------------------------------------------------------------------------------------
    ("models not an object", base(models=[]), ["models: must be an object"]),
    (
        "bad model name",
        base(models={"1User": {"pk": {"type": "string"}, "sk": {"type": "string"}}}),
        [
            "models.1User: invalid model name (must start with a letter or '_' and use only letters, digits and '_')"
        ],
    ),
    (
        "model not an object",
        base(models={"User": []}),
        ["models.User: must be an object (the model's fields)"],
    ),
    (
        "model without the primary hash",
        base(models={"User": {"sk": {"type": "string"}}}),
        ["models.User: missing the primary hash key field 'pk'"],
    ),
    (
        "model without the primary sort",
        base(models={"User": {"pk": {"type": "string"}}}),
        ["models.User: missing the primary sort key field 'sk'"],
    ),
    (
        "field not an object",
        with_fields(name="string"),
        ["models.User.name: must be an object (a field definition), not string"],
    ),
    (
        "bad field name",
        with_fields(**{"a.b": {"type": "string"}}),
        ["models.User[\"a.b\"]: invalid field name (must be non-empty without '.', ':', '{' or '}')"],
    ),
    # -- field properties --------------------------------------------------------------------------------
    (
        "misspelt property",
        with_fields(severity={"type": "string", "requird": True}),
        ["models.User.severity.requird: unknown property (did you mean 'required'?)"],
    ),
    (
        "unknown property, no suggestion",
        with_fields(severity={"type": "string", "zzz": True}),
        ["models.User.severity.zzz: unknown property"],
    ),
    (
        "bad type",
        with_fields(n={"type": "integer"}),
        ["models.User.n.type: must be one of array, binary, boolean, date, number, object, set, string"],
    ),
    (
        "required not a boolean",
        with_fields(n={"type": "string", "required": "yes"}),
        ["models.User.n.required: must be a boolean"],
    ),
    (
        "hidden not a boolean",
        with_fields(n={"type": "string", "hidden": 1}),
        ["models.User.n.hidden: must be a boolean"],
    ),
    (
        "enum not a list of strings",
        with_fields(severity={"type": "string", "enum": "info"}),
        ["models.User.severity.enum: must be a list of strings"],
    ),
    (
        "enum with a number",
        with_fields(severity={"type": "string", "enum": ["info", 3]}),
        ["models.User.severity.enum: must be a list of strings"],
    ),
    (
        "empty enum",
        with_fields(severity={"type": "string", "enum": []}),
        ["models.User.severity.enum: must not be empty"],
    ),
    (
        "enum on a number",
        with_fields(level={"type": "number", "enum": ["1", "2"]}),
        ["models.User.level.enum: only valid for string fields (this field is 'number')"],
    ),
    (
        "default of the wrong type",
        with_fields(count={"type": "number", "default": "0"}),
        ["models.User.count.default: '0' does not match the field type 'number'"],
    ),
    (
        "default outside the enum",
        with_fields(role={"type": "string", "enum": ["user", "admin"], "default": "root"}),
        ["models.User.role.default: 'root' is not one of the enum values"],
    ),
    (
        "bad generate",
        with_fields(code={"type": "string", "generate": "guid"}),
        ["models.User.code.generate: must be 'ulid', 'uuid', 'uid', 'uid(N)' or true"],
    ),
    (
        "uid(0)",
        with_fields(code={"type": "string", "generate": "uid(0)"}),
        ["models.User.code.generate: uid length must be between 1 and 1024"],
    ),
    (
        "generate on a number",
        with_fields(code={"type": "number", "generate": "ulid"}),
        ["models.User.code.generate: only valid for string fields (this field is 'number')"],
    ),
    (
        "generate with value",
        with_fields(code={"type": "string", "generate": "ulid", "value": "x"}),
        ["models.User.code.generate: cannot be combined with value"],
    ),
    (
        "uuid and generate",
        with_fields(code={"type": "string", "generate": "ulid", "uuid": "ulid"}),
        ["models.User.code.uuid: cannot be combined with generate"],
    ),
    (
        "bad uuid",
        with_fields(code={"type": "string", "uuid": "guid"}),
        ["models.User.code.uuid: must be 'uuid' or 'ulid' (deprecated: use generate)"],
    ),
    (
        "bad regex",
        with_fields(email={"type": "string", "validate": "/[z-a]/"}),
        ["models.User.email.validate: invalid regular expression: bad character range z-a at position 1"],
    ),
    (
        "bad regex flag",
        with_fields(email={"type": "string", "validate": "/a/q"}),
        ["models.User.email.validate: unknown regular expression flag 'q'"],
    ),
    (
        "validate not a string",
        with_fields(email={"type": "string", "validate": 5}),
        [
            "models.User.email.validate: must be a regular expression string ('/pattern/flags' or a plain pattern)"
        ],
    ),
    (
        "validate on an object",
        with_fields(data={"type": "object", "validate": "/x/"}),
        [
            "models.User.data.validate: only valid for string, number, boolean or date fields (this field is 'object')"
        ],
    ),
    (
        "ttl on a string",
        with_fields(expires={"type": "string", "ttl": True}),
        ["models.User.expires.ttl: only valid for date or number fields (this field is 'string')"],
    ),
    (
        "ttl nested",
        with_fields(meta={"type": "object", "schema": {"expires": {"type": "date", "ttl": True}}}),
        [
            "models.User.meta.schema.expires.ttl: only valid on top-level fields (DynamoDB's TTL attribute is top-level)"
        ],
    ),
    (
        "crypt without crypto params",
        with_fields(secret={"type": "string", "crypt": True}),
        ["models.User.secret.crypt: needs a params.crypto configuration (cipher and password)"],
    ),
    (
        "crypt on a number",
        {
            **with_fields(pin={"type": "number", "crypt": True}),
            "params": {"crypto": {"primary": {"cipher": "aes-256-gcm", "password": "pw"}}},
        },
        ["models.User.pin.crypt: only valid for string fields (this field is 'number')"],
    ),
    (
        "crypto without a primary entry",
        {
            **with_fields(secret={"type": "string", "crypt": True}),
            "params": {"crypto": {"other": {"cipher": "aes-256-gcm", "password": "pw"}}},
        },
        ["models.User.secret.crypt: needs a 'primary' entry in params.crypto"],
    ),
    (
        "schema on a string",
        with_fields(name={"type": "string", "schema": {"a": {"type": "string"}}}),
        ["models.User.name.schema: only valid for object or array fields (this field is 'string')"],
    ),
    (
        "schema not an object",
        with_fields(address={"type": "object", "schema": ["street"]}),
        ["models.User.address.schema: must be an object (the nested fields)"],
    ),
    (
        "nested field error",
        with_fields(address={"type": "object", "schema": {"zip": {"type": "zipcode"}}}),
        [
            "models.User.address.schema.zip.type: must be one of array, binary, boolean, date, number, object, set, string"
        ],
    ),
    (
        "items on an object",
        with_fields(tags={"type": "object", "items": {"type": "string"}}),
        ["models.User.tags.items: only valid for array fields (this field is 'object')"],
    ),
    (
        "bad items type",
        with_fields(tags={"type": "array", "items": {"type": "strin"}}),
        [
            "models.User.tags.items.type: must be one of array, binary, boolean, date, number, object, set, string"
        ],
    ),
    (
        "partial without schema",
        with_fields(data={"type": "object", "partial": True}),
        ["models.User.data.partial: only valid for fields with a nested schema"],
    ),
    (
        "value on an object",
        with_fields(data={"type": "object", "value": "x"}),
        ["models.User.data.value: value templates make strings; not valid for object fields"],
    ),
    (
        "value not a string",
        with_fields(data={"type": "string", "value": 5}),
        ["models.User.data.value: must be a template string (or true for a computed value)"],
    ),
    # -- templates ---------------------------------------------------------------------------------------
    (
        "unknown template field",
        with_fields(pk={"type": "string", "value": "${nme}"}),
        ["models.User.pk.value: unknown field 'nme' in template '${nme}'"],
    ),
    (
        "unknown nested template field",
        with_fields(
            address={"type": "object", "schema": {"city": {"type": "string"}}},
            pk={"type": "string", "value": "${address.cty}"},
        ),
        ["models.User.pk.value: unknown field 'address.cty' in template '${address.cty}'"],
    ),
    (
        "template path into a scalar",
        with_fields(pk={"type": "string", "value": "${name.first}"}),
        ["models.User.pk.value: unknown field 'name.first' in template '${name.first}'"],
    ),
    (
        "unterminated template",
        with_fields(pk={"type": "string", "value": "user#${id"}),
        ["models.User.pk.value: invalid template 'user#${id': unterminated '${' at position 5"],
    ),
    (
        "bad padding",
        with_fields(pk={"type": "string", "value": "${id:x}"}),
        [
            "models.User.pk.value: invalid template '${id:x}': padding size in '${id:x}' must be a whole number"
        ],
    ),
    (
        "empty reference",
        with_fields(pk={"type": "string", "value": "a${}"}),
        ["models.User.pk.value: invalid template 'a${}': empty reference '${}'"],
    ),
    (
        "self reference",
        with_fields(pk={"type": "string", "value": "x${pk}"}),
        ["models.User.pk.value: template refers to its own field 'pk'"],
    ),
    (
        "template cycle",
        with_fields(
            pk={"type": "string", "value": "${a}"},
            a={"type": "string", "value": "${b}"},
            b={"type": "string", "value": "${a}"},
        ),
        ["models.User: value template cycle: a -> b -> a"],
    ),
    (
        "unknown scope field",
        with_fields(email={"type": "string", "unique": True, "scope": "${acct}"}),
        ["models.User.email.scope: unknown field 'acct' in template '${acct}'"],
    ),
    (
        "type field not known in nested templates",
        with_fields(meta={"type": "object", "schema": {"k": {"type": "string", "value": "${_type}"}}}),
        ["models.User.meta.schema.k.value: unknown field '_type' in template '${_type}'"],
    ),
    (
        "type field of another type",
        with_fields(_type={"type": "number"}),
        ["models.User._type.type: the type field '_type' must be a string"],
    ),
    (
        "packed type field",
        base(
            params={"typeField": "kind"},
            models={"User": {"pk": {}, "sk": {}, "kind": {"type": "string", "map": "m.k"}}},
        ),
        ["models.User.kind.map: the type field 'kind' cannot be packed"],
    ),
    # -- map ---------------------------------------------------------------------------------------------
    (
        "map to the same attribute",
        with_fields(a={"type": "string", "map": "data"}, b={"type": "string", "map": "data"}),
        ["models.User.b.map: attribute 'data' is already used by field 'a'"],
    ),
    (
        "map onto another field's attribute",
        with_fields(data={"type": "string"}, b={"type": "string", "map": "data"}),
        ["models.User.b.map: attribute 'data' is already used by field 'data'"],
    ),
    (
        "packed and plain in one attribute",
        with_fields(a={"type": "string", "map": "data"}, b={"type": "string", "map": "data.b"}),
        ["models.User.b.map: attribute 'data' is already used, unpacked, by field 'a'"],
    ),
    (
        "plain after packed",
        with_fields(a={"type": "string", "map": "data.a"}, b={"type": "string", "map": "data"}),
        ["models.User.b.map: attribute 'data' is already used by field 'a' (packed as data.a)"],
    ),
    (
        "same packed property",
        with_fields(a={"type": "string", "map": "data.x"}, b={"type": "string", "map": "data.x"}),
        ["models.User.b.map: 'data.x' is already used by field 'a'"],
    ),
    (
        "bad map",
        with_fields(a={"type": "string", "map": "a.b.c"}),
        ["models.User.a.map: must be 'attribute' or 'attribute.property'"],
    ),
    (
        "packed key",
        with_fields(pk={"type": "string", "map": "keys.pk"}),
        [
            "models.User: missing the primary hash key field 'pk'",
        ],
    ),
    (
        "packed secondary key",
        {
            **with_fields(gkey={"type": "string", "map": "gs1pk.x"}),
            "indexes": {"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "gs1pk"}},
        },
        ["models.User.gkey.map: cannot pack key attribute 'gs1pk' of index 'gs1' into an object"],
    ),
    (
        "key of an object type",
        with_fields(sk={"type": "object"}),
        [
            "models.User.sk.type: 'object' cannot be a key of index 'primary' (use string, number, binary or date)"
        ],
    ),
    (
        "encrypted key",
        {
            **with_fields(sk={"type": "string", "crypt": True}),
            "params": {"crypto": {"primary": {"cipher": "aes-256-gcm", "password": "pw"}}},
        },
        ["models.User.sk.crypt: cannot encrypt key attribute 'sk' of index 'primary'"],
    ),
    # -- encode / reference ------------------------------------------------------------------------------
    (
        "encode unknown field",
        with_fields(x={"type": "string", "encode": "nope"}),
        ["models.User.x.encode: unknown field 'nope'"],
    ),
    (
        "encode without the reference in the template",
        with_fields(name={"type": "string", "encode": "sk"}),
        [
            "models.User.name.encode: cannot resolve: the value template of 'sk' has no '#'-separated '${name}'"
        ],
    ),
    (
        "bad encode shape",
        with_fields(name={"type": "string", "encode": ["pk", "#"]}),
        ["models.User.name.encode: must be a field name or [field, separator, index]"],
    ),
    (
        "bad reference",
        with_fields(owner={"type": "string", "reference": "User"}),
        ["models.User.owner.reference: must be 'Model:index:attribute=source,...'"],
    ),
    (
        "reference to an unknown model",
        with_fields(owner={"type": "string", "reference": "Usr:primary:id=owner"}),
        ["models.User.owner.reference: unknown model 'Usr' (did you mean 'User'?)"],
    ),
    (
        "reference to an unknown index",
        with_fields(owner={"type": "string", "reference": "User:gs9:id=owner"}),
        ["models.User.owner.reference: unknown index 'gs9'"],
    ),
    (
        "reference with unknown attributes",
        with_fields(owner={"type": "string", "reference": "User:primary:ident=ownr"}),
        [
            "models.User.owner.reference: model 'User' has no field 'ident'",
            "models.User.owner.reference: model 'User' has no field 'ownr'",
        ],
    ),
    # -- process -----------------------------------------------------------------------------------------
    ("process not an object", base(process=[]), ["process: must be an object (model name -> processing)"]),
    (
        "process for an unknown model",
        base(process={"Usr": {}}),
        ["process.Usr: unknown model 'Usr' (did you mean 'User'?)"],
    ),
    (
        "bad sync",
        base(process={"User": {"sync": "sideways"}}),
        ["process.User.sync: must be one of up, down, both, none"],
    ),
    (
        "bad enable",
        base(process={"User": {"enable": "edge"}}),
        ["process.User.enable: must be one of cloud, device, both"],
    ),
    (
        "unknown process property",
        base(process={"User": {"snyc": "up"}}),
        ["process.User.snyc: unknown property (did you mean 'sync'?)"],
    ),
    (
        "metrics not a list",
        base(process={"User": {"metrics": {}}}),
        ["process.User.metrics: must be a list of metric definitions"],
    ),
    (
        "metric without namespace and fields",
        base(process={"User": {"metrics": [{}]}}),
        ["process.User.metrics[0].namespace: required", "process.User.metrics[0].fields: required"],
    ),
    (
        "bad metric field entry",
        base(process={"User": {"metrics": [{"namespace": "N", "fields": [3]}]}}),
        ["process.User.metrics[0].fields[0]: must be an attribute name or a {metric: attribute} object"],
    ),
    (
        "a metric and a dimension sharing a name (EMF: one root member each, a string or a number)",
        base(
            process={
                "User": {
                    "metrics": [
                        {"namespace": "N", "fields": ["age"], "dimensions": ["name", "age"]},
                        {
                            "namespace": "N",
                            "fields": [{"Load": "age"}],
                            "dimensions": [{"Site": "name", "Load": "x"}],
                        },
                    ]
                }
            }
        ),
        [
            "process.User.metrics[0].dimensions[1]: dimension 'age' is also a metric of this definition: an EMF "
            "document holds both in one member named after them, and a dimension's value must be a string where "
            "a metric's is a number; rename one",
            "process.User.metrics[1].dimensions[0]: dimension 'Load' is also a metric of this definition: an EMF "
            "document holds both in one member named after them, and a dimension's value must be a string where "
            "a metric's is a number; rename one",
        ],
    ),
    # -- cross-model -------------------------------------------------------------------------------------
    (
        "two TTL attributes",
        base(
            models={
                "A": {
                    "pk": {"type": "string"},
                    "sk": {"type": "string"},
                    "exp": {"type": "date", "ttl": True},
                },
                "B": {
                    "pk": {"type": "string"},
                    "sk": {"type": "string"},
                    "ttl": {"type": "number", "ttl": True},
                },
            }
        ),
        [
            "models.B.ttl.ttl: DynamoDB allows one TTL attribute per table; 'exp' (models.A.exp) is already the TTL attribute"
        ],
    ),
    (
        "key stored as two types",
        base(
            models={
                "A": {"pk": {"type": "string"}, "sk": {"type": "string"}},
                "B": {"pk": {"type": "number"}, "sk": {"type": "string"}},
            }
        ),
        ["models.B.pk.type: key attribute 'pk' is stored as N here but as S by models.A.pk"],
    ),
]


@pytest.mark.parametrize(("doc", "expected"), [pytest.param(c[1], c[2], id=c[0]) for c in CASES])
def test_bad_schema(doc, expected):
    assert errors(doc) == expected
    with pytest.raises(SchemaError) as info:
        load_schema(doc)
    assert [str(e) for e in info.value.errors] == expected
    assert str(info.value) == "\n".join(expected)


def test_all_errors_are_reported_together():
    doc = base(format="x", version="1.x")
    doc["models"]["User"]["severity"] = {"type": "string", "requird": True, "enum": "info"}
    doc["models"]["User"]["pk"] = {"type": "string", "value": "${nme}"}
    doc["process"] = {"User": {"sync": "sideways"}}
    doc["indexes"]["gs1"] = {"sort": "x"}
    with pytest.raises(SchemaError) as info:
        load_schema(doc)
    lines = str(info.value).splitlines()
    assert lines == [
        "format: must be 'onetable:1.1.0'",
        "version: not a SemVer version: '1.x'",
        "indexes.gs1.hash: required",
        "models.User.severity.requird: unknown property (did you mean 'required'?)",
        "models.User.severity.enum: must be a list of strings",
        "models.User.pk.value: unknown field 'nme' in template '${nme}'",
        "process.User.sync: must be one of up, down, both, none",
    ]
    assert all(isinstance(e, SchemaIssue) and e.severity == "error" for e in info.value.errors)


def test_schema_error_is_a_value_error_and_pickles():
    import pickle

    error = SchemaError([SchemaIssue("a.b", "bad")], warnings=[SchemaIssue("c", "meh", "warning")])
    assert isinstance(error, ValueError)
    copy = pickle.loads(pickle.dumps(error))
    assert copy.errors == error.errors and copy.warnings == error.warnings and str(copy) == "a.b: bad"
    assert str(SchemaError("plain message")) == "plain message"


def test_warnings_do_not_stop_loading():
    doc = base()
    del doc["format"]
    doc["models"]["User"]["legacy"] = {"type": "string", "uuid": "ulid"}
    doc["models"]["User"]["untyped"] = {"value": "x#${name}"}
    doc["models"]["User"]["email"] = {"type": "string", "scope": "${name}"}
    doc["indexes"]["gs1"] = {"hash": "gs1pk", "sort": "gs1sk", "project": ["data"]}
    doc["process"] = {
        "User": {"enable": "cloud", "sync": "up", "metrics": [{"namespace": "N", "fields": ["temp"]}]}
    }
    doc["models"]["_Schema"] = {"pk": {"type": "string"}, "sk": {"type": "string"}}
    assert validate_schema(doc) == []
    assert warnings_of(doc) == [
        "format: missing; assuming 'onetable:1.1.0'",
        "models.User.legacy.uuid: deprecated; use generate: 'ulid'",
        "models.User.untyped.type: missing; assuming 'string'",
        "models.User.email.scope: has no effect without unique: true",
        "models._Schema: this name is reserved for OneTable's internal models",
        "process.User.sync: has no effect when the model is enabled only on the cloud",
        "process.User.metrics[0].fields: the model defines no field 'temp'",
        "indexes.gs1.hash: no model defines attribute 'gs1pk'",
        "indexes.gs1.sort: no model defines attribute 'gs1sk'",
        "indexes.gs1.project: no model defines attribute 'data'",
    ]
    schema = load_schema(doc)
    assert [str(w) for w in schema.warnings] == warnings_of(doc)
    assert schema.model("User").field("legacy").generate.kind == "ulid"


def test_more_warnings():
    doc = with_fields(
        code={"type": "string", "default": "x", "generate": "uid"},
        tags={"type": "string", "enum": ["a", "a"]},
        meta={"type": "object", "schema": {"k": {"type": "string", "unique": True}}},
        pk={"type": "string", "value": "user#${id}", "unique": True},
    )
    assert warnings_of(doc) == [
        "models.User.code.generate: never used: the default value is applied first",
        "models.User.tags.enum: lists a value more than once",
        "models.User.meta.schema.k.unique: has no effect on nested fields (only top-level fields are kept unique)",
        "models.User.pk.unique: has no effect on a primary key field",
    ]


def test_index_attribute_warning_is_not_an_error_like_onetable():
    doc = base(indexes={"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "gs1pk"}})
    assert errors(doc) == []
    assert "indexes.gs1.hash: no model defines attribute 'gs1pk'" in warnings_of(doc)


def test_yaml_style_non_string_keys():
    doc = base()
    doc["models"]["User"][1] = {"type": "string"}
    assert errors(doc) == ["models.User.1: names must be strings"]


def test_python_native_values_in_a_dict():
    import re

    doc = with_fields(
        n={"type": int},
        when={"type": __import__("datetime").datetime},
        code={"type": str, "validate": re.compile(r"^[A-Z]+$")},
        bad={"type": complex},
    )
    assert errors(doc) == [
        "models.User.bad.type: must be one of array, binary, boolean, date, number, object, set, string"
    ]
    del doc["models"]["User"]["bad"]
    model = load_schema(doc).model("User")
    assert (model.field("n").type, model.field("when").type, model.field("code").type) == (
        "number",
        "date",
        "string",
    )
    assert model.field("code").validate.search("ABC")


def test_external_crypto_satisfies_crypt():
    doc = with_fields(secret={"type": "string", "crypt": True})
    assert errors(doc) != []
    schema = load_schema(doc, crypto={"primary": {"cipher": "aes-256-gcm", "password": "s3cret"}})
    assert schema.model("User").field("secret").crypt
    assert schema.params.crypto["primary"].password == "s3cret"
    assert "s3cret" not in repr(schema.params)
    assert errors(doc, crypto={"primary": {"cipher": "des"}}) == [
        "crypto.primary.cipher: must be one of aes-256-gcm",
        "crypto.primary.password: required",
        "models.User.secret.crypt: needs a params.crypto configuration (cipher and password)",
    ]


def test_deep_nesting_is_refused_not_crashing():
    leaf: dict = {"type": "string"}
    for _ in range(40):
        leaf = {"type": "object", "schema": {"x": leaf}}
    doc = with_fields(deep=leaf)
    found = errors(doc)
    assert len(found) == 1 and found[0].endswith("nested deeper than 32 levels")
