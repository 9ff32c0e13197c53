"""What the commands tell their users (issue 23, section 3): a word when nothing matches,
sizes that cannot be drawn, flags named as flags, the names the user wrote, examples in every
--help, one markdown document of the measures, full precision in CSV, demo output ignored by git."""

from __future__ import annotations

from pathlib import Path

from pateval import cli
from pateval.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def _leaf(*path: str):
    parser = build_parser()
    for name in path:
        parser = parser.subcommands.choices[name]
    return parser


def test_gitignore_covers_the_default_output_folders_of_the_demos():
    ignored = set((ROOT / ".gitignore").read_text().split())
    for path, dest in ((("demo",), "out"), (("assess", "serve"), "demo_dir")):
        default = _leaf(*path).get_default(dest)
        assert f"/{default}/" in ignored, f"pateval {' '.join(path)} writes {default}/, not in .gitignore"
    assert "/assess.db" in ignored  # the README's `--db sqlite:///assess.db`
