"""Cost of the entity layer (dynabase.model) over the raw client calls it makes, and of its decoder.

1. Decoding a 1,000-item page (12 attributes per item: strings, numbers, a map, a list, a boolean):
   ``dynabase.model.codec.Decoder`` against boto3's ``TypeDeserializer`` (the usual way to unmarshall).
   Goal: >= 4x cheaper.  Also the entity layer's own page decoding: the model's compiled reader (the 1,000
   AttributeValue items straight to result dicts; hidden key and type attributes are not returned).
2. ``Model.get`` / ``Model.find`` (25 items, and a 1,000-item page) / ``Model.create`` / ``Model.update``
   against the raw client call each one makes (the very request, captured with ``execute=False``), on the
   embedded engine in memory.  Goal: entity / raw <= 1.3 for each.  Times are CPU seconds of this process
   (best of 7 rounds, the calls compared in alternation).
3. The least a find can cost over its raw query (``--floor`` runs only this part): the query run with the
   model's compiled reader turning each item into its result as the engine makes it, plus building the request,
   and nothing else of the entity layer.
4. The typed accessors (``dynabase typegen``'s models, ``dynabase.model.typed``) against the dict API calls
   they make: the cost of entity classes (``--typed`` runs only this part).

    python bench/entity_bench.py [--quick] [--json FILE] [--profile OP] [--typed] [--floor]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import dynabase  # noqa: E402
from dynabase.model import Table  # noqa: E402
from dynabase.model.codec import Decoder  # noqa: E402

SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        "Reading": {
            "pk": {"type": "string", "value": "device#${deviceId}"},
            "sk": {"type": "string", "value": "reading#${seq:8}"},
            "deviceId": {"type": "string", "required": True},
            "seq": {"type": "number", "required": True},
            "kind": {"type": "string", "enum": ["temp", "humidity", "pressure"]},
            "value": {"type": "number"},
            "unit": {"type": "string"},
            "ok": {"type": "boolean"},
            "location": {"type": "object"},
            "tags": {"type": "array"},
            "note": {"type": "string"},
        }
    },
    "params": {"isoDates": False, "timestamps": False},
}


def reading(device: str, seq: int) -> dict[str, Any]:
    return {
        "deviceId": device,
        "seq": seq,
        "kind": "temp",
        "value": 20 + seq % 7 + 0.25,
        "unit": "C",
        "ok": seq % 3 != 0,
        "location": {"site": "north", "rack": seq % 12, "slot": "a"},
        "tags": ["sensor", f"s{seq % 5}"],
        "note": "steady reading from the north rack",
    }


#: CPU time of this process: the machine is shared, and other processes' load should not count
clock = time.process_time


def compare(fns: list[Callable[[], Any]], seconds: float, rounds: int = 7) -> list[float]:
    """Best seconds per call of each function, timed in alternation (so load on the machine hits all alike)."""
    counts = []
    for fn in fns:
        fn()
        start = clock()
        n = 0
        while clock() - start < seconds / 10:
            fn()
            n += 1
        counts.append(max(3, int(seconds / 3 / ((clock() - start) / max(n, 1)))))
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            gc.collect()
            gc.disable()  # as the timeit module does: collector pauses are noise here
            try:
                start = clock()
                for _ in range(counts[i]):
                    fn()
                best[i] = min(best[i], (clock() - start) / counts[i])
            finally:
                gc.enable()
    return best


def timeit(fn: Callable[[], Any], seconds: float) -> float:
    """Best seconds per call over 5 repeats sized to last ~``seconds`` each (GC off while timing, as timeit)."""
    fn()
    start = clock()
    n = 0
    while clock() - start < seconds / 5:
        fn()
        n += 1
    per = (clock() - start) / max(n, 1)
    count = max(3, int(seconds / per))
    results = []
    for _ in range(5):
        gc.collect()
        gc.disable()  # as the timeit module does: collector pauses are noise here
        try:
            start = clock()
            for _ in range(count):
                fn()
            results.append((clock() - start) / count)
        finally:
            gc.enable()
    return min(results)


def bench_decoder(seconds: float) -> dict[str, Any]:
    from boto3.dynamodb.types import TypeDeserializer

    client = dynabase.connect(":memory:")
    table = Table("bench", client, SCHEMA)
    table.create_table()
    model = table.model("Reading")
    batch: dict[str, Any] = {}
    for seq in range(1000):
        model.create(reading("d1", seq), batch=batch)
    table.batch_write(batch)
    page = client.query(
        TableName="bench",
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "device#d1"}},
    )["Items"]
    assert len(page) == 1000
    deserializer = TypeDeserializer()

    def boto3_decode() -> Any:
        deserialize = deserializer.deserialize
        return [{k: deserialize(v) for k, v in item.items()} for item in page]

    ours = Decoder("auto")
    decimal = Decoder("decimal")
    assert decimal.decode_items(page) == boto3_decode()
    entities = model._read_raw_items("find", page, {"parse": True})
    assert entities == model.find({"deviceId": "d1"})
    t_boto3, t_ours, t_decimal, t_model = compare(
        [
            boto3_decode,
            lambda: ours.decode_items(page),
            lambda: decimal.decode_items(page),
            lambda: model._read_raw_items("find", page, {"parse": True}),
        ],
        seconds,
    )
    client.close()
    return {
        "boto3_TypeDeserializer_ms": t_boto3 * 1e3,
        "decoder_auto_ms": t_ours * 1e3,
        "decoder_decimal_ms": t_decimal * 1e3,
        "model_reader_ms": t_model * 1e3,
        "speedup_auto": t_boto3 / t_ours,
        "speedup_decimal": t_boto3 / t_decimal,
        "speedup_model_reader": t_boto3 / t_model,
    }


def seeded_table() -> tuple[Any, Table, Any]:
    """An in-memory table with 1,000 readings of device "big" and 25 of "small": client, table, model."""
    client = dynabase.connect(":memory:")
    table = Table("bench", client, SCHEMA)
    table.create_table()
    model = table.model("Reading")
    batch: dict[str, Any] = {}
    for seq in range(1000):
        model.create(reading("big", seq), batch=batch)
    for seq in range(25):
        model.create(reading("small", seq), batch=batch)
    table.batch_write(batch)
    return client, table, model


def bench_model(seconds: float) -> dict[str, Any]:
    client, table, model = seeded_table()
    out: dict[str, Any] = {}
    from boto3.dynamodb.types import TypeDeserializer

    deserialize = TypeDeserializer().deserialize

    def unmarshall(response: dict[str, Any]) -> Any:
        if "Item" in response:
            return {k: deserialize(v) for k, v in response["Item"].items()}
        return [{k: deserialize(v) for k, v in item.items()} for item in response.get("Items", [])]

    def pair(name: str, entity: Callable[[], Any], raw: Callable[[], Any], decoded: bool = False) -> None:
        fns = [raw, entity]
        if decoded:
            fns.append(lambda: unmarshall(raw()))
        times = compare(fns, seconds)
        out[name] = {
            "raw_us": times[0] * 1e6,
            "entity_us": times[1] * 1e6,
            "overhead_pct": (times[1] / times[0] - 1) * 100,
            "ratio": times[1] / times[0],
        }
        if decoded:
            out[name]["raw_boto3_unmarshall_us"] = times[2] * 1e6
            out[name]["vs_raw_unmarshall_pct"] = (times[1] / times[2] - 1) * 100

    key = {"deviceId": "small", "seq": 7}
    get_cmd = model.get(key, execute=False)
    pair("get", lambda: model.get(key), lambda: client.get_item(**get_cmd), True)

    find_cmd = model.find({"deviceId": "small"}, execute=False)
    pair("find_25", lambda: model.find({"deviceId": "small"}), lambda: client.query(**find_cmd), True)

    big_cmd = model.find({"deviceId": "big"}, execute=False)
    assert len(client.query(**big_cmd)["Items"]) == 1000
    pair("find_1000", lambda: model.find({"deviceId": "big"}), lambda: client.query(**big_cmd), True)

    # both sides get their input ready-made (the raw side its requests, the entity side its properties), so
    # that neither pays for building test data inside the timing
    count = 200_000 if seconds >= 1 else 60_000
    made = iter([reading("made", n) for n in range(count)])
    put_cmds = iter([model.create(reading("raw", n), execute=False) for n in range(count)])
    pair("create", lambda: model.create(next(made)), lambda: client.put_item(**next(put_cmds)))

    upd_props = {"deviceId": "small", "seq": 3, "value": 99, "note": "changed"}
    upd_cmd = model.update(upd_props, execute=False)
    pair("update", lambda: model.update(upd_props), lambda: client.update_item(**upd_cmd))
    client.close()
    return out


def bench_floor(seconds: float) -> dict[str, Any]:
    """The least a find can cost over its raw query: the query run through the engine's item seam with the
    model's compiled reader as the only code of the entity layer (each item turned into its result as the
    engine makes it, without its key attributes, as a find gets it), plus building the request from
    properties.  The same seam with a reader that keeps each item as it is shows what the conversion costs
    where it runs.  What a find adds beyond this floor is its own running cost (paging, the page, logging)."""
    client, table, model = seeded_table()
    small = model.find({"deviceId": "small"}, execute=False)
    big = model.find({"deviceId": "big"}, execute=False)
    read = model._read_own
    assert read is not None

    def same(item: Any) -> Any:
        return item

    def seam(cmd: dict[str, Any], reader: Callable[[Any], Any]) -> Callable[[], Any]:
        return lambda: client.read_query(reader, same, **cmd)

    assert seam(big, read)()["Items"] == model.find({"deviceId": "big"})
    properties = {"deviceId": "small"}
    raw_25, raw_1000, read_25, read_1000, kept_1000, build = compare(
        [
            lambda: client.query(**small),
            lambda: client.query(**big),
            seam(small, read),
            seam(big, read),
            seam(big, same),
            lambda: model._build_find(properties, {}),
        ],
        seconds,
    )
    client.close()
    return {
        "raw_per_item_us": raw_1000 / 1000 * 1e6,
        "convert_per_item_us": (read_1000 - kept_1000) / 1000 * 1e6,
        "build_us": build * 1e6,
        "floor_find_25": (read_25 + build) / raw_25,
        "floor_find_1000": read_1000 / raw_1000,
    }


def print_floor(row: dict[str, Any]) -> None:
    print("The least a find can cost over its raw query (the query with the model's reader, and the request")
    print("built; goal <= 1.3x)")
    print(
        f"  raw query {row['raw_per_item_us']:.2f}us per item; each item turned into its result"
        f" {row['convert_per_item_us']:.2f}us; the request built {row['build_us']:.1f}us"
    )
    print(f"  floor: find_25 {row['floor_find_25']:.2f}x, find_1000 {row['floor_find_1000']:.2f}x")


def bench_typed(seconds: float) -> dict[str, Any]:
    import importlib.util
    import tempfile

    from dynabase.model.typegen import typegen

    client, table, model = seeded_table()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench_models.py")
        with open(path, "w") as handle:
            handle.write(typegen(SCHEMA))
        spec = importlib.util.spec_from_file_location("bench_models", path)
        assert spec and spec.loader
        models = importlib.util.module_from_spec(spec)
        sys.modules["bench_models"] = models
        spec.loader.exec_module(models)
    typed = models.ReadingModel(table)
    out: dict[str, Any] = {}

    def pair(name: str, typed_call: Callable[[], Any], dict_call: Callable[[], Any]) -> None:
        t_dict, t_typed = compare([dict_call, typed_call], seconds)
        out[name] = {
            "dict_us": t_dict * 1e6,
            "typed_us": t_typed * 1e6,
            "overhead_pct": (t_typed / t_dict - 1) * 100,
        }

    assert typed.get(deviceId="small", seq=7).seq == 7
    pair(
        "get", lambda: typed.get(deviceId="small", seq=7), lambda: model.get({"deviceId": "small", "seq": 7})
    )
    pair("find_25", lambda: typed.find({"deviceId": "small"}), lambda: model.find({"deviceId": "small"}))
    pair("find_1000", lambda: typed.find({"deviceId": "big"}), lambda: model.find({"deviceId": "big"}))
    typed_counter, dict_counter = iter(range(10**9)), iter(range(10**9))
    pair(
        "create",
        lambda: typed.create(**reading("typed", next(typed_counter))),
        lambda: model.create(reading("dict", next(dict_counter))),
    )
    changes = {"deviceId": "small", "seq": 3, "value": 99, "note": "changed"}
    pair("update", lambda: typed.update(**changes), lambda: model.update(changes))
    client.close()
    return out


def print_typed(rows: dict[str, Any]) -> None:
    print("Typed accessors vs the dict API calls they make (embedded engine, :memory:)")
    print(f"  {'operation':<12}{'dict':>12}{'typed':>12}{'overhead':>11}")
    for name, row in rows.items():
        print(f"  {name:<12}{row['dict_us']:>10.1f}us{row['typed_us']:>10.1f}us{row['overhead_pct']:>10.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter repeats (~0.3 s)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--profile", choices=["get", "find", "create", "update"], help="cProfile one operation"
    )
    parser.add_argument("--typed", action="store_true", help="only the typed accessors vs the dict API")
    parser.add_argument("--floor", action="store_true", help="only the least a find can cost over its query")
    args = parser.parse_args()
    seconds = 0.3 if args.quick else 1.0
    if args.typed:
        print_typed(bench_typed(seconds))
        return
    if args.floor:
        print_floor(bench_floor(seconds))
        return

    if args.profile:
        client = dynabase.connect(":memory:")
        table = Table("bench", client, SCHEMA)
        table.create_table()
        model = table.model("Reading")
        for seq in range(25):
            model.create(reading("small", seq))
        calls = {
            "get": lambda: model.get({"deviceId": "small", "seq": 7}),
            "find": lambda: model.find({"deviceId": "small"}),
            "create": lambda: model.create(reading("p", time.perf_counter_ns())),
            "update": lambda: model.update({"deviceId": "small", "seq": 3, "value": 1}),
        }
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(2000):
            calls[args.profile]()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
        return

    results = {
        "decoder": bench_decoder(seconds),
        "model": bench_model(seconds),
        "floor": bench_floor(seconds),
        "typed": bench_typed(seconds),
    }
    d = results["decoder"]
    print("Decoding a 1,000-item page (12 attributes each)")
    print(f"  boto3 TypeDeserializer   {d['boto3_TypeDeserializer_ms']:8.2f} ms")
    print(f"  Decoder('auto')          {d['decoder_auto_ms']:8.2f} ms   {d['speedup_auto']:.1f}x faster")
    print(
        f"  Decoder('decimal')       {d['decoder_decimal_ms']:8.2f} ms   {d['speedup_decimal']:.1f}x faster"
    )
    print(
        f"  model's compiled reader  {d['model_reader_ms']:8.2f} ms   {d['speedup_model_reader']:.1f}x faster"
    )
    print()
    print("Entity layer vs the raw client call it makes (embedded engine, :memory:; CPU time)")
    print(
        f"  {'operation':<12}{'raw':>12}{'entity':>12}{'entity/raw':>12}"
        f"{'raw+boto3 unmarshall':>24}{'entity vs it':>14}"
    )
    for name, row in results["model"].items():
        line = f"  {name:<12}{row['raw_us']:>10.1f}us{row['entity_us']:>10.1f}us{row['ratio']:>11.2f}x"
        if "raw_boto3_unmarshall_us" in row:
            line += f"{row['raw_boto3_unmarshall_us']:>22.1f}us{row['vs_raw_unmarshall_pct']:>13.1f}%"
        print(line)
    print()
    print_floor(results["floor"])
    print()
    print_typed(results["typed"])
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
