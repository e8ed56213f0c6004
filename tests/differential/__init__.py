"""Differential tests: the embedded engine against DynamoDB Local, on generated operation sequences.

See ``test_differential.py`` for how to run them and the environment knobs.
"""
