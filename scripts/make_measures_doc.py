"""Write docs/measures.md from the measure registry (the one place measures are declared).

    python scripts/make_measures_doc.py          # rewrite docs/measures.md
    python scripts/make_measures_doc.py --check  # exit 1 if it is out of date (a test runs this)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pateval.measures import all_specs

DOC = Path(__file__).resolve().parents[1] / "docs" / "measures.md"


def render() -> str:
    lines = [
        "# Measures",
        "",
        "Generated from the registry by `scripts/make_measures_doc.py`; `pateval measures` prints the same.",
        "Names: `NAME[(param=value,...)][@k]`; parameters left at their default are not written.",
        "",
    ]
    family = None
    for spec in all_specs():
        if spec.family != family:
            family = spec.family
            lines += [f"## {family}", ""]
        cutoff = {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]
        lines.append(f"### `{spec.name}{cutoff}`")
        lines.append("")
        lines.append(f"{spec.summary}.")
        lines.append("")
        lines.append(f"    {spec.formula}")
        lines.append("")
        for param in spec.params:
            lines.append(f"- {param.describe()}")
        if spec.params:
            lines.append("")
        extra = []
        if spec.aggregate == "sum":
            extra.append("summed over topics in the `all` line")
        if spec.requires:
            extra.append("needs " + ", ".join(sorted(spec.requires)))
        if spec.aliases:
            extra.append("also read as " + ", ".join(f"`{a}`" for a in spec.aliases))
        if extra:
            lines.append("; ".join(extra).capitalize() + ".")
            lines.append("")
        lines.append(f"Reference: {spec.reference}")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC} is out of date: run python scripts/make_measures_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
