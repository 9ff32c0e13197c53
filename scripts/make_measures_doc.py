"""Write docs/measures.md from the measure registry (the one place measures are declared).

    python scripts/make_measures_doc.py          # rewrite docs/measures.md
    python scripts/make_measures_doc.py --check  # exit 1 if it is out of date (a test runs this)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pateval.api import measures_document

DOC = Path(__file__).resolve().parents[1] / "docs" / "measures.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = measures_document()
    if args.check:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC} is out of date: run python scripts/make_measures_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
