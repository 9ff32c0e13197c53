"""Data flows one way: the layers contract of pyproject.toml ([tool.importlinter]) holds.

A module imports only from the floors below its own, siblings on a floor (``|``) do not import
each other, and every module of pateval is on a floor; imports inside functions count too. The
same check as ``lint-imports`` on the command line, so that the tests fail on an upward import
or a cycle.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_imports_keep_the_layers():
    # In a child process: import-linter's command configures logging with dictConfig, which
    # disables every logger that exists already (pateval's notes among them) for the rest of
    # the test process.
    child = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         f"sys.exit(lint_imports(config_filename={str(PYPROJECT)!r}, no_cache=True, no_logo=True))"],
        capture_output=True, text=True, check=False)
    assert child.returncode == 0, child.stdout + child.stderr
    assert "1 kept, 0 broken" in child.stdout
