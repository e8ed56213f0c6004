"""The embedded DynamoDB engine on SQLite."""

from .engine import Engine

__all__ = ["Engine"]
