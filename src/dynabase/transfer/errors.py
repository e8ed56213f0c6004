"""The one exception the transfer code raises for user errors (bad input, missing table, ...)."""

from __future__ import annotations


class TransferError(Exception):
    """A problem the user can fix: the CLI prints the message (no traceback) and exits with status 1."""
