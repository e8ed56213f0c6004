"""Where DynamoDB Local is known to answer differently from AWS DynamoDB, and the engine follows AWS.

The rule (see ``tests/conformance/README.md``): DynamoDB Local is the oracle where it agrees with the service;
where it is known to differ, the engine follows the service's documented behaviour, the case is pinned as
AWS-only with a reference, and this list names each difference explicitly.  Two places read it:

* ``ddb_helpers.assert_client_error`` on DynamoDB Local accepts Local's answer where the test expects AWS's
  answer and a listed difference says Local answers that case in its own words;
* the differential harness (``tests/differential/harness.py``), where DynamoDB Local answers one side and the
  engine the other with the two messages of a listed difference, replaces both by the difference's name.

Behaviour differences that are not a matter of wording (UpdateTable's billing rules, stream ARN validation...)
are tests marked ``@pytest.mark.aws_only(reason=..., ref=...)``: they run on the embedded engine and the
server and are skipped on DynamoDB Local.  ``BEHAVIOURS`` lists those of issue 25 (items 4 and 6), and their tests
take their reason and reference from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_VALIDATION_PREFIX = r"\d+ validation errors? detected: "


@dataclass(frozen=True)
class Difference:
    """One known case where Local's answer differs from AWS's in wording."""

    name: str
    code: str
    #: Local's message (fullmatch)
    local: re.Pattern[str]
    #: AWS's message, as the engine gives it (fullmatch)
    aws: re.Pattern[str]
    #: where AWS's answer is established
    ref: str


KEY_SIZE_REF = (
    "https://github.com/amazon-archives/dynamodb-janusgraph-storage-backend/issues/296 and "
    "https://github.com/nextauthjs/next-auth/issues/5827 (hashkey, 'of2048' as AWS spells it); "
    "https://github.com/praetorian-inc/chariot-ui/issues/241 and https://github.com/formkiq/formkiq-core/issues/271 "
    "(range keys); https://github.com/ExtendDB/extenddb/pull/194 (both, on GetItem/BatchGetItem/DeleteItem/"
    "UpdateItem, captured with the AWS CLI)"
)
INDEX_KEY_SIZE_REF = (
    "https://github.com/architect/dynalite/issues/35 and https://github.com/wellcomecollection/platform/issues/2285 "
    "(AWS's answer to a global secondary index partition key over 2048 bytes)"
)

#: Local's (and the engine's, inside transactions) answers to a key that does not fit the key schema
_KEY_SHAPE = (
    r"The number of conditions on the keys is invalid|One of the required keys was not given a value|"
    r"One or more parameter values were invalid: Type mismatch for key|Invalid attribute value type"
)

DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        name="PartiQL statement over the model's 8192-character limit",
        code="ValidationException",
        local=re.compile(re.escape("Member must have length less than or equal to 8192")),
        aws=re.compile(
            _VALIDATION_PREFIX
            + r"Value '.*' at '[\w.]*statement' failed to satisfy constraint: Member must have "
            r"length less than or equal to 8192",
            re.S,
        ),
        ref="botocore's dynamodb model (PartiQLStatement: max 8192), in the validator's format as for every "
        "model constraint (see the other entries' references)",
    ),
    Difference(
        name="missing table in a data-plane call",
        code="ResourceNotFoundException",
        local=re.compile(re.escape("Cannot do operations on a non-existent table")),
        aws=re.compile(re.escape("Requested resource not found")),
        ref="DynamoDB API reference, ResourceNotFoundException; issue 12 (the service's answer)",
    ),
    Difference(
        name="table or index name against the model's constraints",
        code="ValidationException",
        local=re.compile(
            re.escape(
                "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may "
                "contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"
            )
        ),
        aws=re.compile(
            _VALIDATION_PREFIX
            + r"Value .* at '[\w.]*(tableName|indexName|requestItems)' failed to satisfy .*",
            re.S,
        ),
        ref="https://github.com/aws/aws-cli/issues/790 (tableName pattern); "
        "https://github.com/nubo-db/dynoxide/issues/11 (PutItem: length >= 1); paritysuite/dynamodb-conformance "
        "tests/tier3/error-messages/putItem.test.ts (a name over 255 characters, a name off the pattern, captured "
        "in four regions) and batchGetItem.test.ts (a RequestItems key off the pattern: 'Map keys must satisfy "
        "constraint', the map quoted as JSON); validation-ordering/createTable.test.ts (a GSI's name before an "
        "LSI's). A name of 1 or 2 characters answering the TableName shape's 'length greater than or equal to 3' "
        "is the model's constraint in the same words: that case's answer was not captured",
    ),
    Difference(
        name="attribute type outside the model's enum",
        code="ValidationException",
        local=re.compile(re.escape("Member must satisfy enum value set: [B, N, S]")),
        aws=re.compile(
            _VALIDATION_PREFIX
            + r"Value '.*' at '[\w.]*attributeType' failed to satisfy constraint: Member must "
            r"satisfy enum value set: \[B, N, S\]"
        ),
        ref="botocore's dynamodb model (ScalarAttributeType); the validator's format: "
        "https://github.com/ExtendDB/extenddb/pull/9 (enum members, from the service's answers)",
    ),
    Difference(
        name="enum members checked by the model before the semantic checks",
        code="ValidationException",
        local=re.compile(
            r"Return values set to invalid value|Comparison type does not exist in DynamoDB|"
            r"Select must be ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, COUNT, or SPECIFIC_ATTRIBUTES|"
            r"Invalid FilterExpression: .*"
        ),
        aws=re.compile(
            _VALIDATION_PREFIX
            + r"Value '.*' at '[\w.]*(returnValues|comparisonOperator|select)' failed to satisfy "
            r"constraint: Member must satisfy enum value set: \[.*\]"
        ),
        ref="https://github.com/ExtendDB/extenddb/pull/9 (ReturnValues, Select: the service's answers)",
    ),
    Difference(
        name="Select's enum values in the service's order",
        code="ValidationException",
        local=re.compile(
            _VALIDATION_PREFIX
            + r"(Value '[^']*' at '[\w.]*' failed to satisfy constraint: Member must satisfy enum value set: \[.*\]"
            r"(; )?)+",
            re.S,
        ),
        aws=re.compile(
            _VALIDATION_PREFIX
            + r".*at 'select' failed to satisfy constraint: Member must satisfy enum value set: \[SPECIFIC_ATTRIBUTES, "
            r"COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES\].*",
            re.S,
        ),
        ref="paritysuite/dynamodb-conformance tier 3 query error messages (the service's answer: [SPECIFIC_ATTRIBUTES, "
        "COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]); architect/dynalite test/scan.js (the same order); Local "
        "lists botocore's",
    ),
    Difference(
        name="lengths and ranges of the model checked before the semantic checks",
        code="ValidationException",
        local=re.compile(
            r"Limit in ListTables must be <= 100|"
            r"Names of key attributes and attributes projected into an index must be between 1 and 255 "
            r"characters, inclusive|"
            r"No more than 20 attributes per table can be projected into Local Secondary Indices|"
            r"Value [^']* at 'clientRequestToken' failed to satisfy constraint: Member must have length less than "
            r"or equal to 36|"
            r"Limit must be greater than or equal to 1"
        ),
        aws=re.compile(
            _VALIDATION_PREFIX
            + r"(Value '.*' at '[\w.]*(limit|attributeName|nonKeyAttributes(\.\d+\.member)?|clientRequestToken)'|"
            r"Value at 'Limit') failed to satisfy constraint: Member must have (value|length) .*"
        ),
        ref="botocore's dynamodb model (ListTablesInputLimit, TimeToLiveAttributeName, KeySchemaAttributeName, "
        "NonKeyAttributeNameList, ClientRequestToken); DynamoDB API reference, Projection: NonKeyAttributes "
        "'Maximum number of 20 items', 'Maximum length of 255'; the validator's format: "
        "https://github.com/nubo-db/dynoxide/issues/11; Query's Limit named as 'Limit' with no value quoted, "
        "Scan's quoted at 'limit': paritysuite/dynamodb-conformance tests/tier3/error-messages query.test.ts and "
        "scan.test.ts (the service's answers)",
    ),
    Difference(
        name="batch and transaction request lists against the model's lengths",
        code="ValidationException",
        local=re.compile(
            r"BatchWriteItem cannot have a null or no requests set|"
            r"BatchGetItem must have some requests set|"
            r"The batch write request list for a table cannot be null or empty: .+|"
            r"The list of keys in RequestItems for BatchGetItem is required: .+ has empty list|"
            r"Too many items requested for the (BatchWriteItem|BatchGetItem) call|"
            r"Member must have length less than or equal to 100|"
            r"Value (null|\[\]) at 'transactItems' failed to satisfy constraint: Member must (not be null|have "
            r"length greater than or equal to 1)",
            re.S,
        ),
        aws=re.compile(
            _VALIDATION_PREFIX
            + r"(Value at '(RequestItems(\..+\.member(\.Keys)?)?|TransactItems)' failed to satisfy constraint: "
            r"Member must have length (greater|less) than or equal to \d+|"
            r"Value '\[\]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or "
            r"equal to 1|"
            r"Value '\{.*\}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: "
            r"\[Member must have length less than or equal to 25, Member must have length greater than or equal to "
            r"1\])",
            re.S,
        ),
        ref="paritysuite/dynamodb-conformance tests/tier3/error-messages batchGetItem.test.ts, "
        "batchWriteItem.test.ts and transactWriteItems.test.ts (the service's answers, 2026: an empty "
        "RequestItems, a table's empty or over-long list, over 100 transaction actions; where the regions answer "
        "either the older form quoting the request in Java's rendering or the newer one naming the member, the "
        "engine gives the newer)",
    ),
    Difference(
        name="parallel scan's Segment and TotalSegments",
        code="ValidationException",
        local=re.compile(
            r"If segment is specified, total segment must also be specified|"
            r"If total segments is specified, a particular segment must also be specified for this request|"
            + _VALIDATION_PREFIX
            + r"Value '-?\d+' at 'segment' failed to satisfy constraint: Member must have value less than or equal "
            r"to -?\d+"
        ),
        aws=re.compile(
            r"The TotalSegments parameter is required but was not present in the request when Segment parameter is "
            r"present|"
            r"The Segment parameter is required but was not present in the request when parameter TotalSegments is "
            r"present|"
            r"The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: \d+ is "
            r"not less than TotalSegments: \d+|"
            + _VALIDATION_PREFIX
            + r"Value '-?\d+' at '(segment|totalSegments)' failed to satisfy constraint: Member must have value "
            r"greater than or equal to \d"
        ),
        ref="paritysuite/dynamodb-conformance tests/tier3/error-messages/scan.test.ts (the service's answers); "
        "architect/dynalite test/scan.js, its suite run against the service (a negative Segment, a TotalSegments "
        "below 1: the model's constraints)",
    ),
    Difference(
        name="Query key condition without the partition key",
        code="ValidationException",
        local=re.compile(re.escape("Query condition missed key schema element")),
        aws=re.compile(re.escape("Query condition missed key schema element: ") + r".+"),
        ref="paritysuite/dynamodb-conformance tests/tier3/error-messages/query.test.ts (the service's answers: "
        "'sk = :v' and 'attr1 = :v' name the partition key)",
    ),
    Difference(
        name="duplicate members of a string or binary set",
        code="ValidationException",
        local=re.compile(
            re.escape("One or more parameter values were invalid: Input collection ")
            + r"(\[.*\] contains duplicates|of type BS contains duplicates\.)",
            re.S,
        ),
        aws=re.compile(
            re.escape("One or more parameter values were invalid: Input collection ")
            + r"\[.*\]( contains duplicates|of type BS contains duplicates)\.",
            re.S,
        ),
        ref="architect/dynalite test/scan.js, its suite run against the service ('Input collection [a, a] "
        "contains duplicates.', 'Input collection [Yg==, Yg==]of type BS contains duplicates.'); "
        "paritysuite/dynamodb-conformance tests/tier3/error-messages/putItem.test.ts ('...]of type BS contains "
        "duplicates', 2026; newer regions quote SS members in double quotes, not reproduced)",
    ),
    Difference(
        name="table key schema of more than two elements",
        code="ValidationException",
        local=re.compile(
            re.escape(
                "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table"
            )
        ),
        aws=re.compile(
            _VALIDATION_PREFIX
            + r"Value '\[.*\]' at 'keySchema' failed to satisfy constraint: Member must have length less than or "
            r"equal to 2(; .*)?",
            re.S,
        ),
        ref="paritysuite/dynamodb-conformance tests/tier3/validation-ordering/createTable.test.ts (the service's "
        "answer); architect/dynalite test/createTable.js (its KeySchemaElement rendering)",
    ),
    Difference(
        name="a Key that does not fit the key schema",
        code="ValidationException",
        local=re.compile(_KEY_SHAPE),
        aws=re.compile(re.escape("The provided key element does not match the schema")),
        ref="boto/boto3#1270 (the service's answer to DeleteItem with a key attribute missing); "
        "paritysuite/dynamodb-conformance tests/tier3/error-messages deleteItem.test.ts (the sort key missing) and "
        "batchWriteItem.test.ts (BatchWriteItem's items and keys of another type, not scalar or missing the "
        "partition key: four regions)",
    ),
    Difference(
        name="a PutItem item missing its key or with a key of another type",
        code="ValidationException",
        local=re.compile(_KEY_SHAPE),
        aws=re.compile(
            re.escape("One or more parameter values were invalid: ")
            + r"(Missing the key .+ in the item|Type mismatch for key .+ expected: [SNB] actual: [A-Z]+)",
            re.S,
        ),
        ref="aws/aws-sdk-js#4057 (the service's 'Missing the key conversationId in the item', with the AWS CLI); "
        "paritysuite/dynamodb-conformance tests/tier3/error-messages/transactWriteItems.test.ts ('Type mismatch "
        "for key pk expected: S actual: N' and '... actual: L', a Put's reason); tecRacer's blog 'How to "
        "accidentally create read-only DynamoDB items' (PutItem, September 2024)",
    ),
    Difference(
        name="CreateTable's key schema and index definitions",
        code="ValidationException",
        local=re.compile(
            r"No Attribute Schema Defined|Two keys can not have the same name|"
            r"Too many (hash|range) keys specified\.  All Dynamo DB tables must have exactly one (hash|range) key|"
            r"No Hash Key specified in schema\.  All Dynamo DB tables must have exactly one hash key|"
            r"Invalid key order\. Hash Key must be specified first in key schema, Range Key must be specifed second|"
            r"(Hash|Range) Key not specified in Attribute Definitions\.  Type unknown\.|"
            r"The number of attributes in key schema must match the number of attributes defined in attribute "
            r"definitions\.|"
            r"Local Secondary indices are not allowed on hash tables, only hash and range tables|"
            r"Local secondary indices must have a range key|"
            r"Local Secondary Index range key not specified in Attribute Definitions\.Type unknown\.|"
            r"Local Secondary indices must have the same hash key as the main table|"
            r"Attribute .+ is not defined in AttributeDefinitions|Indexes must have a projection specified|"
            r"No attributes should be specified to be projected unless projection type is INCLUDE|"
            r"Two (local|global) secondary indices have the same name|"
            r"Local Secondary Indices AND Global Secondary Indices must have different names|"
            r"Cannot have more than 5 local secondary indexes per table|GSI list is empty/invalid|"
            r"GlobalSecondaryIndex count exceeds the per-table limit"
        ),
        aws=re.compile(
            r"Invalid KeySchema: (Some index key attribute have no definition|The first KeySchemaElement is not a "
            r"HASH key type|The second KeySchemaElement is not a RANGE key type)|"
            r"Both the Hash Key and the Range Key element in the KeySchema have the same name|"
            + re.escape("One or more parameter values were invalid: ")
            + r"(Some index key attributes are not defined in AttributeDefinitions\. Keys: \[.*\], "
            r"AttributeDefinitions: \[.*\]|"
            r"Number of attributes in KeySchema does not exactly match number of attributes defined in "
            r"AttributeDefinitions|List of (Local|Global)SecondaryIndexes is empty|"
            r"Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex|"
            r"Index KeySchema does not have a range key for index: .+|"
            r"Index KeySchema does not have the same leading hash key as table KeySchema for index: .+|"
            r"Unknown ProjectionType: null|ProjectionType is \w+, but NonKeyAttributes is specified|"
            r"ProvisionedThroughput should not be specified for index: .+ when BillingMode is PAY_PER_REQUEST|"
            r"Duplicate index name: .+|Number of LocalSecondaryIndexes exceeds per-table limit of 5|"
            r"GlobalSecondaryIndex count exceeds the per-table limit of 20)"
        ),
        ref="architect/dynalite test/createTable.js and validations/createTable.js (its suite run against the "
        "service: the texts and their order); paritysuite/dynamodb-conformance tests/tier3/validation-ordering/"
        "createTable.test.ts (2026: a key schema naming one attribute twice answers 'Invalid KeySchema: ...')",
    ),
    Difference(
        name="primary key value over its size limit",
        code="ValidationException",
        local=re.compile(
            re.escape(
                "Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 "
                "bytes"
            )
        ),
        aws=re.compile(
            re.escape("One or more parameter values were invalid: ")
            + r"(Size of hashkey has exceeded the maximum size limit of2048 bytes|"
            r"Aggregated size of all range keys has exceeded the size limit of 1024 bytes)"
        ),
        ref=KEY_SIZE_REF,
    ),
    Difference(
        name="index partition key value over 2048 bytes",
        code="ValidationException",
        local=re.compile(re.escape("One or more parameter values were invalid: Size limit exceeded")),
        aws=re.compile(
            re.escape("One or more parameter values were invalid: Size limit exceeded for Index Key ")
            + r".+ Actual Size: \d+ bytes Max Size: 2048 bytes IndexName: [\w.-]+",
            re.S,
        ),
        ref=INDEX_KEY_SIZE_REF,
    ),
)


@dataclass(frozen=True)
class Behaviour:
    """One known case where Local's answer differs from AWS's in outcome (its tests are ``aws_only``)."""

    name: str
    #: what DynamoDB Local does instead
    local: str
    #: where AWS's answer is established
    ref: str
    #: for the differential harness: whether Local's error view and the engine's differ by this alone
    explains: Callable[[dict[str, Any], dict[str, Any]], bool] | None = None


_GET_KEY_SHAPE = (
    "The number of conditions on the keys is invalid",
    "One of the required keys was not given a value",
)


def _get_key_shape(local: dict[str, Any], aws: dict[str, Any]) -> bool:
    """Local's reason-less cancellation against AWS's cancellation with a ValidationError reason."""
    code = "TransactionCanceledException"
    reasons = aws.get("CancellationReasons") or []
    return (
        local.get("Code") == aws.get("Code") == code
        and local.get("Message") in _GET_KEY_SHAPE
        and "CancellationReasons" not in local
        and [r.get("Message") for r in reasons if r.get("Code") == "ValidationError"] == [local["Message"]]
    )


BEHAVIOURS: tuple[Behaviour, ...] = (
    Behaviour(
        name="PartiQL INSERT of an existing primary key",
        local="answers the error code 'DuplicateItem' (the modelled type is DuplicateItemException)",
        ref="DynamoDB developer guide, 'PartiQL insert statements for DynamoDB' (an existing primary key: "
        "'DuplicateItemException is returned'); botocore's dynamodb model (ExecuteStatement's errors)",
    ),
    Behaviour(
        name="TransactGetItems with a key missing an attribute",
        local="answers TransactionCanceledException with the key check's message and no CancellationReasons",
        ref="https://github.com/paritysuite/dynamodb-conformance/pull/10 (tests/tier3/error-messages/"
        "transactGetItems.test.ts, run against AWS: an empty Key answers 'Transaction cancelled, please refer "
        "cancellation reasons for specific reasons [ValidationError]' with one ValidationError reason); "
        "https://github.com/nubo-db/dynoxide/issues/19; the reason's Message is not established (Local's text)",
        explains=_get_key_shape,
    ),
    Behaviour(
        name="tagging calls on an ARN that is not one of this account's tables",
        local="does not implement tagging (UnknownOperationException 'Tagging is not currently supported')",
        ref="https://github.com/ExtendDB/extenddb/pull/227 (verified against DynamoDB: another service's or "
        "account's ARN AccessDeniedException, checked before the region; another region or a non-table "
        "DynamoDB ARN ValidationException; a missing table ResourceNotFoundException); "
        "https://github.com/scylladb/scylladb/pull/26179 (a missing table: ResourceNotFoundException, passing on "
        "DynamoDB); https://github.com/turbot/steampipe-plugin-aws/issues/1516 (AWS's not-found message). "
        "AWS's AccessDeniedException text names the caller's principal: the engine's is its own",
    ),
    Behaviour(
        name="tags given to CreateTable",
        local="accepts and drops them (no tags are kept, so none are checked)",
        ref="botocore's dynamodb model (Tag: 'You can add up to 50 tags to a single DynamoDB table', 'aws:' "
        "prefixed names 'the user cannot assign', 'Each DynamoDB table can only have up to one tag with the same "
        "key'); DynamoDB developer guide, 'Tagging restrictions in DynamoDB'. The messages are the engine's "
        "TagResource messages: AWS's could not be established",
    ),
    Behaviour(
        name="BatchWriteItem and BatchGetItem capacity of missing items",
        local="bills a batch delete of a missing item 2 write units and a batch get of one 0 read units",
        ref="https://github.com/awslabs/amazon-dynamodb-local-samples/issues/7 (verified against DynamoDB: 1.0 "
        "for the delete, as DeleteItem; 0.5 eventually consistent or 1.0 strongly consistent for the get, as "
        "GetItem)",
    ),
    Behaviour(
        name="TransactGetItems capacity split as read units",
        local="gives CapacityUnits alone",
        ref="https://github.com/ExtendDB/extenddb/issues/77 (DynamoDB's answer under INDEXES: 'CapacityUnits':4.0, "
        "'ReadCapacityUnits':4.0, 'Table': {'ReadCapacityUnits':4.0, 'CapacityUnits':4.0}); "
        "https://github.com/paritysuite/dynamodb-conformance/issues/69 (run against AWS: the split is given by "
        "transactional operations only). Under TOTAL the top-level split is inferred from those, not captured",
    ),
    Behaviour(
        name="dynabase serve's answer to an unsigned GET /",
        local="answers 400 MissingAuthenticationToken",
        ref="architect/dynalite test/connection.js (its suite runs against AWS): 200 'healthy: "
        "dynamodb.<region>.amazonaws.com ', the trailing space included (a server test: tests/server)",
    ),
    Behaviour(
        name="dynabase serve's compressed answers",
        local="never compresses",
        ref="scylladb/scylladb test/alternator/test_compressed_response.py (run against AWS): answers of 4096 "
        "bytes or more, gzip or deflate as Accept-Encoding prefers (a server test: tests/server)",
    ),
    Behaviour(
        name="stream record eventID",
        local="gives a dashed UUID (8fabd528-6bb4-4821-b090-c2d881057927)",
        ref="https://pastebin.com/Anu9nCzN (GetRecords answered by AWS in ap-southeast-1: "
        "'a14537b9b153d5e7dece6e5587d71b75'); the Lambda events AWS delivered in "
        "https://app.unpkg.com/@incdevco/framework@1.4.3/files/lambda/dynamodb-stream/example-event.json and "
        "aws_lambda_events' fixture example-dynamodb-event.json (docs.rs): 32 lowercase hex digits",
    ),
    Behaviour(
        name="TTL deletes in the stream",
        local="records them with eventName UNKNOWN_TO_SDK_VERSION and no userIdentity, on a schedule of its own",
        ref="DynamoDB Streams API reference, Record (userIdentity of TTL deletes: type 'Service', principalId "
        "'dynamodb.amazonaws.com') and Identity (the GetRecords members PrincipalId, Type); Lambda's event "
        "spells them principalId and type: Powertools for AWS Lambda's DynamoDBStreamEvent schema "
        "(userIdentity?: {principalId: 'dynamodb.amazonaws.com'; type: 'Service'}) and aws_lambda_events' "
        "fixture example-dynamodb-event.json",
    ),
)


def behaviour(name: str) -> Behaviour:
    """The listed behaviour difference called ``name``."""
    return next(known for known in BEHAVIOURS if known.name == name)


def explained_behaviour(local: dict[str, Any], aws: dict[str, Any]) -> Behaviour | None:
    """The listed behaviour difference that explains Local's error view ``local`` where AWS answers ``aws``."""
    return next((known for known in BEHAVIOURS if known.explains and known.explains(local, aws)), None)


def difference(code: str, local_message: str | None, aws_message: str | None) -> Difference | None:
    """The listed difference that explains Local answering ``local_message`` where AWS answers ``aws_message``."""
    if local_message is None or aws_message is None:
        return None
    for known in DIFFERENCES:
        if known.code == code and known.local.fullmatch(local_message) and known.aws.fullmatch(aws_message):
            return known
    return None
