"""The ``dynabase`` command."""

from .main import main

__all__ = ["main"]
