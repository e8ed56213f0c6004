"""``python -m dynabase``: the same as the ``dynabase`` command."""

import sys

from .cli.main import main

sys.exit(main())
