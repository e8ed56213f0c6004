"""BatchWriteItem's UnprocessedItems and throttling errors are retried with exponential backoff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynabase.transfer import Backoff, TransferError, export_table, import_table

from .helpers import Recorder, dump, embedded, item_json, put_all, simple_table, write_lines


def partially(keep: int) -> Any:
    """A scripted BatchWriteItem answer: write the first ``keep`` requests, hand the rest back unprocessed."""

    def answer(client: Any, params: dict[str, Any]) -> dict[str, Any]:
        (table, requests), *_ = params["RequestItems"].items()
        if keep:
            client.batch_write_item(RequestItems={table: requests[:keep]})
        rest = requests[keep:]
        return {"UnprocessedItems": {table: rest} if rest else {}}

    return answer


def throttled() -> ClientError:
    return ClientError(
        {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}},
        "BatchWriteItem",
    )


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Recorder, list[float]]:
    path = tmp_path / "in.jsonl"
    write_lines(path, [item_json(f"k{n:02d}") for n in range(30)])
    client = Recorder(embedded())
    simple_table(client, "tab")
    return path, client, []


def test_unprocessed_items_are_retried_with_growing_delays(setup: Any) -> None:
    path, client, sleeps = setup
    client.scripted = [partially(0), partially(0), partially(10), partially(0)]
    backoff = Backoff(base=0.1, cap=100, sleep=sleeps.append)
    summary = import_table(client, path, table="tab", backoff=backoff)
    assert summary.ok and summary.imported == 30
    assert client.scan(TableName="tab", Select="COUNT")["Count"] == 30
    sizes = [len(c["RequestItems"]["tab"]) for c in client.batch_calls]
    assert sizes == [25, 25, 25, 15, 15, 5]  # the unprocessed ones only, then the last batch
    assert len(sleeps) == 4
    assert 0.05 <= sleeps[0] <= 0.1 and 0.1 <= sleeps[1] <= 0.2  # exponential, with jitter
    assert 0.05 <= sleeps[2] <= 0.1  # progress was made: the backoff starts over


def test_throttling_errors_are_retried(setup: Any) -> None:
    path, client, sleeps = setup
    client.scripted = [throttled(), throttled()]
    summary = import_table(client, path, table="tab", backoff=Backoff(sleep=sleeps.append))
    assert summary.imported == 30 and len(sleeps) == 2
    assert len(client.batch_calls) == 4


def test_gives_up_after_too_many_retries_and_can_resume(setup: Any) -> None:
    path, client, sleeps = setup
    client.scripted = [partially(25)] + [partially(0)] * 4  # the first batch goes in, the second never does
    with pytest.raises(TransferError, match="5 item.s. still unprocessed.*re-run to resume"):
        import_table(client, path, table="tab", backoff=Backoff(attempts=3, sleep=sleeps.append))
    assert len(sleeps) == 3
    summary = import_table(client, path, table="tab")
    assert summary.resumed and summary.imported == 30
    assert [len(c["RequestItems"]["tab"]) for c in client.batch_calls] == [25, 5, 5, 5, 5, 5]


def test_other_errors_are_fatal(setup: Any) -> None:
    path, client, _ = setup
    client.scripted = [
        ClientError({"Error": {"Code": "AccessDeniedException", "Message": "no"}}, "BatchWriteItem")
    ]
    with pytest.raises(TransferError, match="AccessDeniedException: no"):
        import_table(client, path, table="tab")


def test_export_scan_retries_throttling(tmp_path: Path) -> None:
    client = embedded()
    simple_table(client, "tab")
    put_all(client, "tab", [{"pk": {"S": f"k{n}"}} for n in range(10)])
    calls = []

    class Flaky:
        def scan(self, **params: Any) -> Any:
            calls.append(params)
            if len(calls) == 1:
                raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "x"}}, "Scan")
            return client.scan(**params)

        def __getattr__(self, name: str) -> Any:
            return getattr(client, name)

    sleeps: list[float] = []
    summary = export_table(Flaky(), "tab", tmp_path / "o.jsonl", backoff=Backoff(sleep=sleeps.append))
    assert summary.items == 10 and len(sleeps) == 1
    target = embedded()
    import_table(target, tmp_path / "o.jsonl", create=True)
    assert dump(target, "tab") == dump(client, "tab")
