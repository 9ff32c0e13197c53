"""``pateval flowchart eval``: recognised flowcharts scored against ground truth."""

from __future__ import annotations

import sys

from .shared import add_command, add_group, add_table_output, examples, write_text_or_print


def _add_flowchart(commands) -> None:
    from ..formats.names import RESULT_FORMATS

    sub = add_group(commands, "flowchart", help="evaluate flowchart structure recognition (CLEF-IP 2012/2013)",
                    dest="flowchart_command", description="Work with flowcharts in the CLEF-IP encoding: `pateval "
                    "flowchart eval TRUTH_DIR SUBMISSION_DIR`.")
    evaluate = add_command(
        sub, "eval", _run_flowchart_eval, extra="flowchart",
        help="score recognised flowcharts against ground truth",
        description="Score every flowchart of SUBMISSION_DIR against the file of the same name (extension "
        "aside) in TRUTH_DIR: the MCS distance d = 1 - |mcs(G1,G2)| / max(|G1|,|G2|) (Bunke & Shearer 1998; "
        "|G| = nodes + edges) at the levels structure, types, texts, and node/edge/text precision, recall, F1. "
        "Output: MEASURE<TAB>IMAGE<TAB>VALUE, IMAGE 'all' for the mean. Bad or missing files are reported on "
        "stderr and the rest is scored. Exit status: 0 if every file was good, 1 if any file was bad or "
        "missing, 2 on an error that stops the evaluation (e.g. a directory that does not exist).",
        epilog=examples("pateval flowchart eval truth/ submission/",
                        "pateval flowchart eval truth/ submission/ --level structure --format csv -o scores.csv"),
    )
    evaluate.add_argument("truth_dir", metavar="TRUTH_DIR", help="directory of ground-truth flowchart files")
    evaluate.add_argument("submission_dir", metavar="SUBMISSION_DIR", help="directory of recognised flowchart files")
    evaluate.add_argument("--level", choices=("all", "structure", "types", "texts"), default="all",
                          help="which MCS distances to report (default: all three)")
    evaluate.add_argument("--text-threshold", type=float, default=0.2, metavar="T",
                          help="relative edit distance (0-1) up to which normalised texts match (default 0.2)")
    evaluate.add_argument("--time-budget", type=float, default=2.0, metavar="SECONDS",
                          help="exact search time per pair and level before an approximation is used (default 2)")
    add_table_output(evaluate, formats=RESULT_FORMATS, default="trec", precision="decimals in trec output (default 4)")


def _run_flowchart_eval(*, truth_dir, submission_dir, level: str, text_threshold: float, time_budget: float,
                        format: str, precision: int, output) -> int:
    from .. import api
    from ..results.writers import format_table

    scores, bad_files = api.evaluate_flowcharts(truth_dir, submission_dir, level=level, text_threshold=text_threshold,
                                                time_budget=time_budget)
    text = format_table(scores, ["measure", "image"], format=format, precision=precision)
    for problem in bad_files:
        print(f"pateval: bad file: {problem}", file=sys.stderr)
    approximate = scores[(scores["measure"] == "mcs_approximate") & (scores["image"] != "all")]
    if approximate["value"].sum() > 0:
        print(f"pateval: note: {int(approximate['value'].sum())} of {len(approximate)} images fell back to an "
              "approximate MCS (time budget); their distances are upper bounds", file=sys.stderr)
    write_text_or_print(text, output)
    return 1 if bad_files else 0
