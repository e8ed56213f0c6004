"""Ioto's device database on dynabase (seed 004): the device schema (``schema.json5``), the page's music
example (``music.json5``), the access patterns and ``process`` handling in :mod:`.ioto`, and
``python examples/ioto/run.py`` to run them end to end on the embedded engine (device and cloud side)."""
