"""``python -m pateval.cli``: the same as the ``pateval`` command."""

from . import run

run()
