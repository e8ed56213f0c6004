"""The recorder of ``recorded.py`` (``record.py``): its rendering reproduces the committed file byte for byte,
and its questions, asked of the embedded engine instead of DynamoDB Local, give back exactly that file."""

from __future__ import annotations

import dynabase

from . import record


def test_rendering_the_committed_cases_reproduces_the_file_byte_for_byte() -> None:
    version, released, sections = record.committed()
    assert record.render(version, released, sections) == record.TARGET.read_text(encoding="utf-8")


def test_recording_from_the_embedded_engine_writes_the_committed_file() -> None:
    """Every case asked through the API calls the recorder makes (DeleteItem, UpdateItem, GetItem, Query)."""
    version, released, sections = record.committed()
    client = dynabase.connect(":memory:")
    try:
        record.create_tables(client)
        recorded = record.record(client, sections)
    finally:
        client.close()
    assert recorded == sections
    assert record.render(version, released, recorded) == record.TARGET.read_text(encoding="utf-8")


def test_a_set_listing_in_another_order_keeps_the_recorded_order() -> None:
    before = {"error": "operand type: {BS,M,B}"}
    assert record.keep_listing_order(before, {"error": "operand type: {M,B,BS}"}) is before
    assert record.keep_listing_order(before, {"error": "operand type: {M,B,S}"}) == {
        "error": "operand type: {M,B,S}"
    }
    assert record.keep_listing_order(True, False) is False
