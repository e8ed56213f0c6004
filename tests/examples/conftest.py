"""Shared set-up for the example systems' tests (``examples/<system>/``, one test module per system).

The examples are not installed packages: ``examples/`` is put on ``sys.path`` so that each one imports as a
top-level package (``import vams``, ...). The backend fixtures (``client``, ``streams_client``, ``backend``)
come from ``tests/conftest.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"

if str(EXAMPLES_DIR) not in sys.path:
    sys.path.insert(0, str(EXAMPLES_DIR))
