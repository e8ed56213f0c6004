"""The conformance suite: DynamoDB's low-level API, asserted exactly as DynamoDB Local behaves.

Every test takes the backend-parametrised ``client`` fixture (``tests/conftest.py``) and must pass on DynamoDB
Local, the oracle; the embedded engine (and any other backend) must then pass the same tests::

    DYNABASE_BACKENDS=dynamodb-local python -m pytest tests/conformance    # the oracle alone
    DYNABASE_BACKENDS=embedded python -m pytest tests/conformance          # the engine alone
    python -m pytest tests/conformance                                     # both (the default)

Where Local is known to differ from AWS, the engine follows AWS: wording differences are listed in
``tests/aws_differences.py``, behaviour differences are tests marked ``aws_only`` (skipped on Local); see
``README.md``.  Tests marked ``local_quirk`` assert a Local behaviour believed to differ from AWS DynamoDB;
deselect them with ``-m "not local_quirk"``.  Across partitions, Scan/Query order is unspecified and compared sorted; within a
partition the sort-key order is asserted.
"""
