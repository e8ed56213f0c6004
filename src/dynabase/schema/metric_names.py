"""What CloudWatch Embedded Metric Format (EMF) asks of the names in ``process.<Model>.metrics``.

A check of its own (``compile_metrics`` in :mod:`.validate` calls it), as the other parts of the compilation
have theirs. An EMF document carries each dimension and each metric as a member of its root named after it
(CloudWatch's "Specification: Embedded metric format", target members): a dimension's value must be a string
and a metric's a number or a list of numbers. One definition's metric and dimension sharing a name would be
one member holding both, so CloudWatch would refuse the document (or the metric): such a name is an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any


def shared_names(fields: Iterable[tuple[str, str]], dimensions: Any) -> Iterator[tuple[int, str]]:
    """``(index in dimensions, message)`` for each dimension entry naming a dimension that is also one of the
    ``(metric, attribute)`` fields' metrics; entries that are neither a name nor an object are passed over
    (the caller reports those)."""
    metrics = {metric for metric, _attribute in fields}
    if not isinstance(dimensions, (list, tuple)):
        return
    for index, entry in enumerate(dimensions):
        names = [entry] if isinstance(entry, str) else list(entry) if isinstance(entry, Mapping) else []
        for name in names:
            if name in metrics:
                yield (
                    index,
                    f"dimension {name!r} is also a metric of this definition: an EMF document holds both in "
                    "one member named after them, and a dimension's value must be a string where a metric's "
                    "is a number; rename one",
                )


__all__ = ["shared_names"]
