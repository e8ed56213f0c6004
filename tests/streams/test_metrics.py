"""``process.<Model>.metrics`` as CloudWatch Embedded Metric Format, and ``notify``: one test per option.

Every document is validated against :data:`EMF_SCHEMA`, a JSON Schema written from the EMF specification
(https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html),
plus the references JSON Schema cannot express (each dimension and metric named in a directive is a member of
the root with a value of the right type).
"""

from __future__ import annotations

import io
import json
from typing import Any

import jsonschema
import pytest

import dynabase
from dynabase.model import Table
from dynabase.streams import Consumer, MemoryCheckpoints, Options
from dynabase.streams.metrics import Metrics

UNITS = [
    "Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes", "Gigabytes", "Terabytes",
    "Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count", "Bytes/Second",
    "Kilobytes/Second", "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second", "Bits/Second",
    "Kilobits/Second", "Megabits/Second", "Gigabits/Second", "Terabits/Second", "Count/Second", "None",
]  # fmt: skip

EMF_SCHEMA = {
    "type": "object",
    "required": ["_aws"],
    "properties": {
        "_aws": {
            "type": "object",
            "required": ["Timestamp", "CloudWatchMetrics"],
            "properties": {
                "Timestamp": {"type": "integer", "minimum": 0},
                "CloudWatchMetrics": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["Namespace", "Dimensions", "Metrics"],
                        "additionalProperties": False,
                        "properties": {
                            "Namespace": {"type": "string", "minLength": 1, "maxLength": 1024},
                            "Dimensions": {
                                "type": "array",
                                "items": {
                                    "type": "array",
                                    "maxItems": 30,
                                    "uniqueItems": True,
                                    "items": {"type": "string", "minLength": 1, "maxLength": 250},
                                },
                            },
                            "Metrics": {
                                "type": "array",
                                "maxItems": 100,
                                "items": {
                                    "type": "object",
                                    "required": ["Name"],
                                    "additionalProperties": False,
                                    "properties": {
                                        "Name": {"type": "string", "minLength": 1, "maxLength": 1024},
                                        "Unit": {"enum": UNITS},
                                        "StorageResolution": {"enum": [1, 60]},
                                    },
                                },
                            },
                        },
                    },
                },
            },
        }
    },
}


def check_emf(doc: dict) -> None:
    jsonschema.validate(doc, EMF_SCHEMA)
    json.dumps(doc)  # a JSON object, nothing else
    for directive in doc["_aws"]["CloudWatchMetrics"]:
        for dimension_set in directive["Dimensions"]:
            for name in dimension_set:
                assert isinstance(doc.get(name), str), f"dimension {name} is not a string member"
        for metric in directive["Metrics"]:
            value = doc.get(metric["Name"])
            values = value if isinstance(value, list) else [value]
            assert 1 <= len(values) <= 100
            assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values), metric


def schema(process: dict) -> dict:
    return {
        "format": "onetable:1.1.0",
        "version": "0.0.1",
        "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
        "models": {
            "Reading": {
                "pk": {"type": "string", "value": "device#${deviceId}"},
                "sk": {"type": "string", "value": "reading#${id}"},
                "deviceId": {"type": "string", "required": True},
                "id": {"type": "string", "generate": "ulid"},
                "temperature": {"type": "number"},
                "humidity": {"type": "number"},
                "site": {"type": "string"},
            },
            "Status": {
                "pk": {"type": "string", "value": "status#${deviceId}"},
                "sk": {"type": "string", "value": "status#"},
                "deviceId": {"type": "string", "required": True},
                "load": {"type": "number"},
            },
        },
        "params": {"isoDates": True, "timestamps": True},
        "process": process,
    }


class Harness:
    def __init__(self, process: dict, checkpoints: Any = None, **metrics: Any) -> None:
        self.client = dynabase.connect(":memory:")
        self.table = Table("device", self.client, schema(process))
        self.table.create_table(stream="NEW_AND_OLD_IMAGES")
        self.docs: list[dict] = []
        self.metrics = Metrics(self.table, metrics.pop("emit", self.docs.append), **metrics)
        self.consumer = self.restart(checkpoints)

    def restart(self, checkpoints: Any = None) -> Consumer:
        """A consumer (new, as after a crash) of the table's stream for :attr:`metrics`."""
        options = Options(poll_interval=0.01)
        return Consumer.for_table(
            self.client, "device", self.metrics, options=options, checkpoints=checkpoints
        )

    def run(self) -> list[dict]:
        self.consumer.run(until_idle=True)
        for doc in self.docs:
            check_emf(doc)
        return self.docs


def test_namespace_fields_and_dimensions_as_on_the_ioto_page():
    h = Harness({"Reading": {"metrics": [{"namespace": "Embedthis/Device", "fields": ["temperature"],
                                          "dimensions": [{"Device": "deviceId"}]}]}})  # fmt: skip
    h.table.model("Reading").create({"deviceId": "d1", "temperature": 21.5})
    (doc,) = h.run()
    directive = doc["_aws"]["CloudWatchMetrics"][0]
    assert directive == {
        "Namespace": "Embedthis/Device",
        "Dimensions": [["Device"]],
        "Metrics": [{"Name": "temperature", "Unit": "None"}],
    }
    assert (doc["Device"], doc["temperature"]) == ("d1", 21.5)
    assert abs(doc["_aws"]["Timestamp"] / 1000 - __import__("time").time()) < 120


def test_fields_map_a_metric_name_to_an_attribute_and_skip_non_numbers():
    h = Harness(
        {"Reading": {"metrics": [{"namespace": "N", "fields": [{"Temperature": "temperature"}, "humidity"]}]}}
    )
    Reading = h.table.model("Reading")
    Reading.create({"deviceId": "d1", "temperature": 30, "humidity": 55})
    Reading.create({"deviceId": "d1", "temperature": 31})  # no humidity: only Temperature
    Reading.create({"deviceId": "d1"})  # no numbers at all: no document
    first, second = h.run()
    assert [m["Name"] for m in first["_aws"]["CloudWatchMetrics"][0]["Metrics"]] == [
        "Temperature",
        "humidity",
    ]
    assert (first["Temperature"], first["humidity"]) == (30, 55)
    assert [m["Name"] for m in second["_aws"]["CloudWatchMetrics"][0]["Metrics"]] == ["Temperature"]
    assert first["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [[]]  # no dimensions: the aggregate


def test_dimension_sets_names_maps_and_missing_values():
    dims = ["site", {"Device": "deviceId", "Site": "site"}, {"Device": "deviceId"}]
    h = Harness({"Reading": {"metrics": [{"namespace": "N", "fields": ["temperature"], "dimensions": dims}]}})
    Reading = h.table.model("Reading")
    Reading.create({"deviceId": "d1", "site": "lab", "temperature": 20})
    Reading.create({"deviceId": "d2", "temperature": 22})  # no site: only the Device set
    docs = h.run()
    assert [(d["_aws"]["CloudWatchMetrics"][0]["Dimensions"], d["temperature"]) for d in docs] == [
        ([["site"]], 20),
        ([["Device", "Site"]], 20),
        ([["Device"]], 20),
        ([["Device"]], 22),
    ]
    assert docs[1]["Device"] == "d1" and docs[1]["Site"] == "lab"


def test_where_selects_the_items():
    metric = {
        "namespace": "N",
        "fields": ["temperature"],
        "where": "${temperature} > {30} and ${site} = {lab}",
    }
    h = Harness({"Reading": {"metrics": [metric]}})
    Reading = h.table.model("Reading")
    for temperature, site in [(25, "lab"), (35, "lab"), (40, "yard")]:
        Reading.create({"deviceId": "d1", "site": site, "temperature": temperature})
    assert [d["temperature"] for d in h.run()] == [35]


def test_buffer_count_gathers_values_into_one_document():
    metric = {"namespace": "N", "fields": ["temperature"], "dimensions": ["deviceId"], "buffer": {"count": 3}}
    h = Harness({"Reading": {"metrics": [metric]}})
    Reading = h.table.model("Reading")
    for t in (1, 2, 3, 4):
        Reading.create({"deviceId": "d1", "temperature": t})
    Reading.create({"deviceId": "d2", "temperature": 9})
    docs = h.run()
    assert [(d["deviceId"], d["temperature"]) for d in docs] == [("d1", [1, 2, 3])]
    h.metrics.flush()
    assert sorted((d["deviceId"], d["temperature"]) for d in h.docs[1:]) == [("d1", [4]), ("d2", [9])]
    for doc in h.docs:
        check_emf(doc)


def test_the_checkpoint_never_moves_past_a_buffered_reading():
    """A buffered value is in memory only: the consumer's checkpoint stays before the first record whose
    value is not written yet, so a crash hands it over again; ``drain`` writes it and moves the checkpoint."""
    metric = {"namespace": "N", "fields": ["temperature"], "dimensions": ["deviceId"], "buffer": {"count": 3}}
    store = MemoryCheckpoints()
    h = Harness({"Reading": {"metrics": [metric]}}, checkpoints=store)
    Reading = h.table.model("Reading")
    for t in range(1, 8):
        Reading.create({"deviceId": "d1", "temperature": t})
    sequences = [r["dynamodb"]["SequenceNumber"] for r in stream_records(h)]
    assert [d["temperature"] for d in h.run()] == [[1, 2, 3], [4, 5, 6]]
    (saved,) = store.saved.values()
    assert saved.sequence == sequences[5]  # after reading 6: reading 7 is still buffered

    # the process dies: its buffer is lost, the store is not; a new run hands reading 7 over again
    docs: list[dict] = []
    metrics = Metrics(h.table, docs.append)
    restarted = Consumer.for_table(
        h.client, "device", metrics, options=Options(poll_interval=0.01), checkpoints=store
    )
    restarted.run(until_idle=True)
    assert docs == [] and metrics.held() == {sequences[6]}
    assert next(iter(store.saved.values())).sequence == sequences[5]
    restarted.drain()  # as `dynabase streams run` does on its way out: written, then the checkpoint moves
    assert [d["temperature"] for d in docs] == [[7]]
    assert next(iter(store.saved.values())).sequence == sequences[6]
    Reading.create({"deviceId": "d1", "temperature": 8})
    restarted.run(until_idle=True)
    assert next(iter(store.saved.values())).sequence == sequences[6]  # reading 8 is buffered


def stream_records(h: Harness) -> list[dict]:
    arn = h.consumer.stream_arn
    streams = h.client.streams()
    (shard,) = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
    )
    return streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]


def test_buffer_elapsed_emits_after_the_time():
    now = [1000.0]
    metric = {"namespace": "N", "fields": ["temperature"], "buffer": {"count": 100, "elapsed": 60}}
    h = Harness({"Reading": {"metrics": [metric]}}, clock=lambda: now[0])
    Reading = h.table.model("Reading")
    Reading.create({"deviceId": "d1", "temperature": 1})
    assert h.run() == []
    now[0] += 61
    Reading.create({"deviceId": "d1", "temperature": 2})
    (doc,) = h.run()
    assert doc["temperature"] == [1, 2] and doc["_aws"]["Timestamp"] == 1061000


def test_buffer_keys_dynabase_does_not_know_are_refused():
    with pytest.raises(ValueError, match=r"process.Reading.metrics\[0\].buffer: unknown key"):
        Harness(
            {"Reading": {"metrics": [{"namespace": "N", "fields": ["temperature"], "buffer": {"size": 3}}]}}
        )


def test_notify_calls_back_with_each_change():
    changes: list[tuple[str, dict]] = []
    h = Harness({"Reading": {"notify": True}}, notify=lambda model, change: changes.append((model, change)))
    Reading = h.table.model("Reading")
    item = Reading.create({"deviceId": "d1", "temperature": 1})
    Reading.update({"deviceId": "d1", "id": item["id"], "temperature": 2})
    Reading.remove({"deviceId": "d1", "id": item["id"]})
    h.table.model("Status").create({"deviceId": "d1", "load": 3})  # Status does not notify
    h.run()
    assert [(m, c["type"]) for m, c in changes] == [
        ("Reading", "INSERT"),
        ("Reading", "MODIFY"),
        ("Reading", "REMOVE"),
    ]
    assert changes[1][1]["old"]["temperature"] == 1 and changes[1][1]["new"]["temperature"] == 2


def test_enable_places_metrics_on_the_device_or_in_the_cloud():
    process = {
        "Reading": {"enable": "device", "metrics": [{"namespace": "Device", "fields": ["temperature"]}]},
        "Status": {"enable": "cloud", "metrics": [{"namespace": "Cloud", "fields": ["load"]}]},
    }
    namespaces = {}
    for place in ("device", "cloud", "both"):
        h = Harness(process, place=place)
        h.table.model("Reading").create({"deviceId": "d1", "temperature": 1})
        h.table.model("Status").create({"deviceId": "d1", "load": 2})
        namespaces[place] = [d["_aws"]["CloudWatchMetrics"][0]["Namespace"] for d in h.run()]
    assert namespaces == {"device": ["Device"], "cloud": ["Cloud"], "both": ["Device", "Cloud"]}


def test_emit_to_a_file_or_a_stream(tmp_path):
    process = {"Reading": {"metrics": [{"namespace": "N", "fields": ["temperature"]}]}}
    out = io.StringIO()
    path = tmp_path / "metrics.jsonl"
    for target in (out, str(path)):
        h = Harness(process, emit=target)
        h.table.model("Reading").create({"deviceId": "d1", "temperature": 7})
        h.run()
    for text in (out.getvalue(), path.read_text()):
        (line,) = text.splitlines()
        doc = json.loads(line)
        check_emf(doc)
        assert doc["temperature"] == 7


def test_the_schema_catches_what_emf_would_refuse():
    """A JSON Schema that cannot fail proves nothing: documents breaking the spec are refused."""
    good = {"_aws": {"Timestamp": 1, "CloudWatchMetrics": [{"Namespace": "N", "Dimensions": [[]], "Metrics": [{"Name": "m"}]}]}, "m": 1}  # fmt: skip
    check_emf(good)
    for broken in (
        {"m": 1},
        {"_aws": {"CloudWatchMetrics": []}},
        {**good, "_aws": {**good["_aws"], "Timestamp": "1"}},
        {
            **good,
            "_aws": {
                "Timestamp": 1,
                "CloudWatchMetrics": [{"Namespace": "", "Dimensions": [], "Metrics": []}],
            },
        },
        {
            **good,
            "_aws": {
                "Timestamp": 1,
                "CloudWatchMetrics": [
                    {"Namespace": "N", "Dimensions": [[]], "Metrics": [{"Name": "m", "Unit": "Parsecs"}]}
                ],
            },
        },  # fmt: skip
        {**good, "m": "one"},
        {
            **good,
            "_aws": {
                "Timestamp": 1,
                "CloudWatchMetrics": [{"Namespace": "N", "Dimensions": [["d"]], "Metrics": [{"Name": "m"}]}],
            },
        },  # fmt: skip
    ):
        with pytest.raises((jsonschema.ValidationError, AssertionError)):
            check_emf(broken)
