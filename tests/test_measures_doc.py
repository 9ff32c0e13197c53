"""docs/measures.md is generated from the registry and must match it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_measures_doc_is_up_to_date():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_measures_doc.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
