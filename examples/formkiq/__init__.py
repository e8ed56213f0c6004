"""FormKiQ's document table on dynabase (seed 001): ``schema.json5`` (every entity of the page), the access
patterns in :mod:`.formkiq`, and ``python examples/formkiq/run.py`` to run them end to end on the embedded
engine."""
