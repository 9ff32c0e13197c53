"""``pateval check``: a CLEF-IP passage run checked as the organisers did, and repaired."""

from __future__ import annotations

import sys

from ..errors import PatevalError
from .shared import add_command, add_output, examples, write_text_or_print


def _add_check(commands) -> None:
    p = add_command(
        commands, "check", _run_check,
        help="check a CLEF-IP passage run as the organisers did (and repair it with --fix)",
        description="Check a passage run (topic_id Q0 doc_id xpath psg_rank psg_score): format, duplicates, "
        "a topic's lines scattered through the file, more than 100 documents for a topic, headings, XPaths the "
        "document does not have (with --store), topics not in --topics. Prints LINE<TAB>KIND<TAB>MESSAGE for "
        "every finding; exit status 1 when something needs fixing (0 once --fix wrote the repaired run).",
        epilog=examples("pateval check psg.run --topics collection/topics_PSG.txt --store store",
                        "pateval check psg.run --fix fixed.run"),
    )
    p.add_argument("run_file", metavar="RUN", help="passage run file (participantID-runID-PSG.ext)")
    p.add_argument("--topics", metavar="FILE", help="passage topics file (tid, tfile, tclaims)")
    p.add_argument("--store", metavar="DIR", help="corpus store (pateval corpus ingest) to check that XPaths exist")
    p.add_argument("--max-documents", type=int, default=100, metavar="N",
                   help="documents allowed per topic (default 100)")
    p.add_argument("--fix", metavar="OUT", help="write the repaired run to OUT and the changes to OUT.log")
    p.add_argument("--log", metavar="FILE", help="where --fix writes its change log (default OUT.log)")
    add_output(p, "-o", "--output", metavar="FILE", help="write the findings to FILE (atomically) instead of stdout")


def _run_check(*, run_file, topics, store, max_documents: int, fix, log, output) -> int:
    from ..check import check_passage_run, fix_passage_run

    if log and not fix:
        raise PatevalError("--log goes with --fix")
    report = check_passage_run(run_file, topics=topics, store=store, max_documents=max_documents)
    write_text_or_print(report.format(), output)
    if not fix:
        return 0 if report.ok else 1
    out, log = fix_passage_run(report, fix, log=log)
    print(f"pateval: wrote {out} ({len(report.kept)} lines) and {log} "
          f"({len(report.removed)} removed, {len(report.moved)} moved)", file=sys.stderr)
    return 0
