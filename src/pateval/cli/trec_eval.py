"""``pateval trec_eval``: trec_eval 10.0's own command line, so that a script can replace
``trec_eval`` with ``pateval trec_eval`` and change nothing else: trec_eval's measure syntax
and rules (:mod:`pateval.trec_eval_rules`), an evaluation with ``compat="trec_eval"``, and
trec_eval's output byte for byte (:func:`pateval.results.writers.format_trec_eval`). ``-R
prefs``, ``qrels_prefs`` and ``qrels_jg`` read side inputs (:mod:`pateval.formats.prefs`), ``-Z
FILE`` prints z-scores (:mod:`pateval.results.zscores`); ``-T`` other than trec_results and
``-D`` are refused with one line.
"""

from __future__ import annotations

import dataclasses
import sys
from contextlib import nullcontext
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from ..errors import PatevalError
from ..trec_eval_rules import REL_INFO_FORMATS, TREC_EVAL_VERSION, marked_measures, measure_names
from .shared import add_command, examples

if TYPE_CHECKING:
    from ..formats.runblocks import RunFile

_USAGE = "pateval trec_eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>] [-M <num>] [-J] [-N <num>] " \
         "[-R <format>] [-Z <file>] trec_rel_file trec_top_file"


def _add_trec_eval(commands) -> None:
    p = add_command(
        commands, "trec_eval", _run_trec_eval, usage=_USAGE,
        help="trec_eval 10.0's own command line and output (replace `trec_eval` with `pateval trec_eval`)",
        description="trec_eval's command line: scores the run TREC_TOP_FILE against the qrels TREC_REL_FILE "
        "and prints what trec_eval 10.0 prints, byte for byte, with pateval's measures. -m takes trec_eval's "
        "measure names and nicknames (official, all_trec, set, all_prefs, prefs, qrels_jg) with their "
        "parameters (P.5,10, iprec_at_recall..10,.20, ndcg.1=3,2=9, utility.2,-1,0,0); -R prefs, qrels_prefs "
        "and qrels_jg read preferences and judgement groups for their measures; -Z FILE prints z-scores. Not in "
        "pateval, refused with one line: -T other than trec_results, -D. Exit status: 0 done, 2 bad input "
        "or usage.",
        epilog=examples("pateval trec_eval -q -m all_trec qrels.test results.test",
                        "pateval trec_eval -m official -m ndcg_cut.10,20 -c -M1000 qrels.txt run.txt",
                        "pateval trec_eval -l2 -mrelstring.20 -q qrels.rel_level results.test"))
    p.add_argument("-v", "--version", action="store_true", help="print the trec_eval version this follows")
    p.add_argument("-q", "--query_eval_wanted", action="store_true", dest="per_query",
                   help="also print each measure for each topic")
    p.add_argument("-m", "--measure", action="append", dest="trec_measures", metavar="measure[.params]",
                   help="a trec_eval measure or nickname (repeatable; default: official)")
    p.add_argument("-c", "--complete_rel_info_wanted", action="store_true", dest="complete",
                   help="average over every topic of the qrels; a topic without results scores 0")
    p.add_argument("-l", "--level_for_rel", type=int, dest="relevance_level", metavar="<num>",
                   help="the least grade counted as relevant (default 1)")
    p.add_argument("-n", "--nosummary", action="store_true", help="no summary (the 'all' lines)")
    p.add_argument("-D", "--Debug_level", metavar="<num>", help="(refused: trec_eval's debugging output)")
    p.add_argument("-J", "--Judged_docs_only", action="store_true", dest="judged_only",
                   help="remove the documents without a judgement from the rankings first")
    p.add_argument("-N", "--Number_docs_in_coll", type=int, dest="num_docs", metavar="<num>",
                   help="documents in the collection (utility)")
    p.add_argument("-M", "--Max_retrieved_per_topic", type=int, dest="max_documents", metavar="<num>",
                   help="only the first <num> documents of each topic count")
    p.add_argument("-R", "--Rel_info_format", default="qrels", metavar="<format>",
                   help="the judgements' format: qrels, prefs, qrels_prefs (qrels read as preferences) or "
                   "qrels_jg (qrels with a judgement group in the iter column)")
    p.add_argument("-T", "--Results_format", default="trec_results", metavar="<format>",
                   help="the results format: trec_results (the only one)")
    p.add_argument("-Z", "--Zscore", metavar="<file>",
                   help="print z-scores: each value's deviation from the mean given for its topic and measure "
                   "in <file> (lines: qid measure mean stddev), in standard deviations")
    p.add_argument("qrels", nargs="?", metavar="trec_rel_file")
    p.add_argument("results", nargs="?", metavar="trec_top_file")


def _run_trec_eval(**inputs) -> None:
    args = SimpleNamespace(**inputs)  # trec_eval's flags and files by their dests (cli.shared.command_inputs)
    if args.version:
        from .. import __version__

        print(f"trec_eval version {TREC_EVAL_VERSION} (pateval {__version__})", file=sys.stderr)
        return
    if args.Rel_info_format not in REL_INFO_FORMATS:
        raise PatevalError(f"trec_eval -R {args.Rel_info_format}: illegal rel_info format (one of "
                           f"{', '.join(REL_INFO_FORMATS)})")
    if args.Results_format != "trec_results":
        raise PatevalError(f"trec_eval -T {args.Results_format}: pateval reads only -T trec_results")
    if args.Debug_level is not None:
        raise PatevalError("trec_eval -D: not supported by pateval")
    if args.qrels is None or args.results is None:
        raise PatevalError(f"usage: {_USAGE}")
    for flag, value in (("-M", args.max_documents), ("-N", args.num_docs)):
        if value is not None and value < 1:
            raise PatevalError(f"trec_eval {flag} {value}: must be a positive number")
    marked = marked_measures(args.trec_measures or ["official"])
    from .._lazy import pandas_deferred
    from ..formats.runblocks import RunFile, read_ahead, readable_in_blocks

    # trec_eval looks at neither the rank nor what follows a results line's sixth column, and names
    # the run by the last line's tag. A run file is read and scored in blocks of whole topics (one
    # block per thread in memory; -M and -J cut it whole) unless relstrings need the run itself
    whole = args.per_query and "relstring" in marked
    run_file = (RunFile(Path(args.results), lines="trec_eval", mixed_tags="last")
                if readable_in_blocks(args.results) and not whole else None)
    # its first blocks are read while the rest of pateval is imported and the qrels are read (-M, -J: whole)
    ahead = not (args.max_documents or args.judged_only)
    with pandas_deferred(), (read_ahead(run_file) if run_file is not None and ahead else nullcontext()):
        _evaluate(args, marked, run_file)


def _evaluate(args: SimpleNamespace, marked: dict[str, str | None], run_file: RunFile | None) -> None:
    assert args.qrels is not None and args.results is not None  # checked by _run_trec_eval
    names = measure_names(marked, num_docs=args.num_docs)
    extras = [name for name in ("runid", "num_q") if name in marked]
    from .. import api
    from ..executor import TopicsLeftOut, rank
    from ..formats.qrels import read_qrels
    from ..formats.trec import read_run
    from ..measures import parse_measure
    from ..options import EvaluationOptions
    from ..results.writers import format_trec_eval
    from ..trec_eval_rules import relstrings

    side_input = REL_INFO_FORMATS[args.Rel_info_format]
    if side_input and "relstring" in marked:
        raise PatevalError(f"trec_eval -m relstring: needs -R qrels, not -R {args.Rel_info_format}")
    parsed = {parse_measure(ours): theirs for ours, theirs in names.items()}
    for measure, theirs in parsed.items():
        needs = measure.spec.requires & {"preferences", "judgement_groups"}
        if needs != ({side_input} if side_input else set()):
            formats = [f for f, kind in REL_INFO_FORMATS.items() if kind in needs or (not needs and kind is None)]
            raise PatevalError(f"trec_eval -m {theirs}: needs -R {' or -R '.join(formats)}, not -R "
                               f"{args.Rel_info_format}")
    printed = {str(measure): theirs for measure, theirs in parsed.items()}
    # runid and num_q alone: trec_eval still reads and matches every topic
    measures = list(printed) or ["NumRet"]
    # -J and -M as trec_eval applies them to each measure, the side inputs' too (trec_eval_rules.as_cut)
    options = EvaluationOptions(measures=measures, qrels_format="trec", complete=args.complete,
                                relevance_level=args.relevance_level, max_documents=args.max_documents,
                                judged_only=args.judged_only, compat="trec_eval", trec_eval_names=printed)
    if side_input is None:
        # trec_eval's integer grades: a grade with a fraction is refused at its line, as before
        qrels = read_qrels(args.qrels, format="trec", on_duplicate=options.on_duplicate, integer_grades=True)
    else:
        from ..formats.prefs import read_prefs, read_qrels_jg, read_qrels_prefs

        reader = {"prefs": read_prefs, "qrels_prefs": read_qrels_prefs, "qrels_jg": read_qrels_jg}
        groups = reader[args.Rel_info_format](args.qrels)
        qrels = groups.qrels()
        options = dataclasses.replace(options, resources={side_input: groups})
    run = None if run_file is not None else read_run(args.results, on_duplicate=options.on_duplicate,
                                                     lines="trec_eval", mixed_tags="last")
    result = api.evaluation(qrels, [run_file or run], options=options)
    # without -c, the means are over the topics in both files (usnistgov/trec_eval#18), where trec_eval
    # 10.0 stops at a qrels topic without results (exit 4): the topics left out are named, as pateval names them
    for note in result.notes:
        if isinstance(note, TopicsLeftOut):
            print(f"pateval: note: {note}", file=sys.stderr)
    reference = None
    if args.Zscore is not None:  # read after the qrels and the run, as trec_eval reads them
        from ..formats.zscores import read_zscores

        reference = read_zscores(args.Zscore)
    # the measures as scored (-l gave them its rel), in the order asked for
    scored_names = dict(zip(map(str, result.measures), printed.values(), strict=True)) if printed else {}
    texts = {}
    if args.per_query and "relstring" in marked:  # trec_eval prints relstring per topic only
        params = marked["relstring"]
        name = f"relstring_{params}" if params else "relstring"
        assert run is not None  # read whole for relstrings (_run_trec_eval)
        texts[name] = relstrings(rank(run, qrels, complete=options.complete, order=options.order,
                                      doc_key=options.doc_key, max_documents=options.max_documents,
                                      judged_only=options.judged_only).ranked, params)
    scored, summary_rows = result.scored, result.summary_rows()  # summed as trec_eval sums (compat)
    if reference is not None and scored_names:
        from ..results.zscores import zscore_results

        scored, summary_rows = zscore_results(scored, result.measures, scored_names, reference, totals=result.totals)
    text = format_trec_eval(scored, summary_rows, list(scored_names), per_query=args.per_query, extras=extras,
                            names=scored_names, summary=not args.nosummary, texts=texts, zscores=reference is not None)
    sys.stdout.write(text)
