"""``python -m pateval``: the same as the ``pateval`` command."""

import sys

from .cli import main

sys.exit(main())
