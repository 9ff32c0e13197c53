"""``python -m pateval``: the same as the ``pateval`` command."""

from .cli import run

run()
