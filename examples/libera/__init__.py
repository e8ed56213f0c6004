"""Libera SDC metadata and provenance on dynabase (seed 003): ``schema.json5``, the access patterns in
:mod:`.libera`, and ``python examples/libera/run.py`` to run them end to end on the embedded engine."""
