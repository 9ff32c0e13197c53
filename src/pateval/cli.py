"""The ``pateval`` command line: a thin layer over :mod:`pateval.api`.

Each sub-command parses its options, calls one API function and prints or writes what it
returns. Errors of input (:class:`pateval.errors.PatevalError`) are printed as one line on
stderr with exit status 2; nothing else happens here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from .errors import PatevalError

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pateval",
        description="Evaluate patent prior-art search and other professional search.",
    )
    parser.add_argument("--version", action="version", version=f"pateval {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _COMMANDS:
        add(commands)
    return parser


# Each entry adds one sub-command to the parser; the handler is stored with set_defaults(run=...).
_COMMANDS: list = []


def command(add):
    """Register a function that adds a sub-command (keeps the list in one place)."""
    _COMMANDS.append(add)
    return add


# ---- sub-commands: evaluate, measures (foundation) --------------------------------------

# ---- sub-commands: corpus, collection (patents and test collections) --------------------

# ---- sub-commands: check (passage runs) --------------------------------------------------

# ---- sub-commands: compare, analyse-measures, report (comparing systems) ----------------

# ---- sub-commands: search, demo (baselines) ----------------------------------------------

# ---- sub-commands: flowchart -------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except PatevalError as error:
        print(f"pateval: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `pateval evaluate ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
