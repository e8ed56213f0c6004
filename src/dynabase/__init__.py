"""dynabase: one schema, the same entities on AWS DynamoDB and on an embedded DynamoDB engine."""

from .client import EmbeddedClient, aws, connect
from .engine import Engine

__version__ = "0.1.0"
__all__ = ["EmbeddedClient", "Engine", "aws", "connect"]
