"""AppLens graph metadata on dynabase (seed 002): ``schema.json5``, the access patterns in :mod:`.applens`,
and ``python examples/applens/run.py`` to run them end to end on the embedded engine."""
