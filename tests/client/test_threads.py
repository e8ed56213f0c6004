"""Embedded clients opened from many threads at once (a thread pool opening device databases)."""

from __future__ import annotations

import threading

import dynabase
from dynabase.client import embedded


def test_clients_opened_by_many_threads_at_once_all_open() -> None:
    """The first clients of a process load botocore's models through one shared session; botocore 1.31 (our
    floor) made that session's components unsafely when two threads asked at once (KeyError 'data_loader')."""
    for cached in (
        embedded._session,
        embedded.service_model,
        embedded._paginator_model,
        embedded._waiter_model,
    ):
        cached.cache_clear()
    start = threading.Barrier(16)
    failures: list[BaseException] = []

    def open_one() -> None:
        start.wait()
        try:
            client = dynabase.connect(":memory:")
            client.list_tables()
            client.close()
        except BaseException as error:  # noqa: BLE001 - any failure is the finding
            failures.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
