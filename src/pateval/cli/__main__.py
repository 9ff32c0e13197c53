"""``python -m pateval.cli``: the same as the ``pateval`` command."""

import sys

from . import main

sys.exit(main())
