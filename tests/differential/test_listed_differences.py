"""The harness's normalisation of the listed differences between DynamoDB Local and AWS (no backend needed)."""

from __future__ import annotations

from .harness import _listed_differences

LOCAL_KEY_SHAPE = {
    "Code": "TransactionCanceledException",
    "Message": "The number of conditions on the keys is invalid",
}


def _aws_cancel(reason_message: str) -> dict:
    return {
        "Code": "TransactionCanceledException",
        "Message": "Transaction cancelled, please refer cancellation reasons for specific reasons "
        "[None, ValidationError]",
        "CancellationReasons": [{"Code": "None"}, {"Code": "ValidationError", "Message": reason_message}],
    }


def test_a_listed_behaviour_difference_is_one_outcome():
    local, engine = _listed_differences(LOCAL_KEY_SHAPE, _aws_cancel(LOCAL_KEY_SHAPE["Message"]))
    assert (
        local
        == engine
        == {
            "Code": "TransactionCanceledException",
            "Behaviour": "TransactGetItems with a key missing an attribute",
        }
    )


def test_a_behaviour_difference_with_another_reason_is_still_a_divergence():
    local, engine = _listed_differences(LOCAL_KEY_SHAPE, _aws_cancel("Type mismatch"))
    assert local != engine
