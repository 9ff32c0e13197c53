"""docs/measures.md is generated from the registry and must match it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_measures_doc_is_up_to_date():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_measures_doc.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_pateval_measures_markdown_is_docs_measures_md(capsysbinary):
    from pateval.cli import main

    assert main(["measures", "--format", "markdown"]) == 0
    assert capsysbinary.readouterr().out == (ROOT / "docs" / "measures.md").read_bytes()


def test_pateval_measures_markdown_of_one_family_is_its_part_of_the_document(capsys):
    from pateval.cli import main

    assert main(["measures", "--format", "markdown", "--family", "cube"]) == 0
    family = capsys.readouterr().out
    document = (ROOT / "docs" / "measures.md").read_text()
    start = document.index("## cube\n")
    part = document[start:document.index("\n## ", start)].rstrip("\n") + "\n"
    assert family == document[:document.index("## ")] + part
