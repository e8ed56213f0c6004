"""Ioto's device database on dynabase (seed 004): the device schema (``schema.json5``), the page's music
example (``music.json5``), the access patterns and ``process`` handling in :mod:`.ioto`, and
``python examples/ioto/run.py`` to run them end to end: the device on the embedded engine, synced with
``dynabase serve`` as the cloud."""
