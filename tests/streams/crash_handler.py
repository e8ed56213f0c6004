"""The handler the crash tests run in a ``dynabase streams run`` subprocess: it appends each record's sequence
number to ``$CRASH_LOG`` (fsynced, one a line) and takes ``$CRASH_DELAY`` seconds per record, so that a
``kill -9`` lands in the middle of a batch."""

from __future__ import annotations

import os
import time


def handle(event: dict, context: object) -> None:
    delay = float(os.environ.get("CRASH_DELAY", "0"))
    with open(os.environ["CRASH_LOG"], "a", encoding="utf-8") as log:
        for record in event["Records"]:
            log.write(record["dynamodb"]["SequenceNumber"] + "\n")
            log.flush()
            os.fsync(log.fileno())
            time.sleep(delay)
