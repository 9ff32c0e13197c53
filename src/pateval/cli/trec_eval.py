"""``pateval trec_eval``: trec_eval 10.0's own command line, so that a script can replace
``trec_eval`` with ``pateval trec_eval`` and change nothing else.

``pateval trec_eval [-q] [-c] [-n] [-l N] [-M N] [-J] [-N N] [-R FORMAT] [-Z FILE] [-m MEASURE]... QRELS RESULTS``
reads trec_eval's measure syntax (nicknames ``official``, ``all_trec``, ``set``, ``all_prefs``,
``prefs``, ``qrels_jg``; parameters
such as ``P.5,7,3``, ``iprec_at_recall..10,.20``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``),
scores with pateval's measures (:mod:`pateval.measures.registry`) and prints what trec_eval
prints, byte for byte (:func:`pateval.results.writers.format_trec_eval`; ``relstring`` from
:mod:`pateval.measures.relstring`). ``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg`` read
the judgements as a side input of the preference and judgement-group measures
(:mod:`pateval.formats.prefs`). ``-Z FILE`` prints z-scores (:mod:`pateval.results.zscores`, the
reference read by :mod:`pateval.formats.zscores`). What pateval does not read (``-T`` formats
other than trec_results, ``-D``) is refused with one line naming it.
"""

from __future__ import annotations

import dataclasses
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import PatevalError
from .shared import examples

if TYPE_CHECKING:
    from ..formats.runblocks import RunFile

#: The trec_eval release whose command line this is.
TREC_EVAL_VERSION = "10.0"

# trec_eval's nicknames of measure sets (measures.c): each marks the measures it names
_NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
                  "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
              "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
# -R: the judgements' formats; each but qrels is a side input of its own measures
_REL_INFO_FORMATS = {"qrels": None, "prefs": "preferences", "qrels_prefs": "preferences",
                     "qrels_jg": "judgement_groups"}
# trec_eval's measures and how each reads its parameters (the part of -m after the first '.'):
# one pateval measure without parameters: the registry's, by its trec_eval name (map is AP)
_PLAIN = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "infAP", "gm_bpref",
          "binG", "set_P", "set_relative_P", "set_recall", "set_map", "num_nonrel_judged_ret", "yaap",
          "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
          "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
          "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg")
# cutoffs (whole numbers, trec_eval's defaults): one measure per cutoff, named BASE_k
_STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_CUTOFFS = {"P": _STANDARD_CUTOFFS, "recall": _STANDARD_CUTOFFS, "ndcg_cut": _STANDARD_CUTOFFS,
            "map_cut": _STANDARD_CUTOFFS, "relative_P": _STANDARD_CUTOFFS, "success": (1, 5, 10), "unj": (5, 10, 20),
            "P_avgjg": _STANDARD_CUTOFFS}
# real-valued cutoffs: one measure per value, named BASE_%.2f
_LEVELS = {"iprec_at_recall": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
           "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
           "Rprec_mult_avgjg": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)}
# a list of numbers as the pateval measure's parameters; named BASE_PARAMETERS when given
_VALUES = {"utility": ("Utility", ("a", "b", "c", "d")), "set_F": ("SetF", ("beta",))}
# name=value pairs: a gain map (ndcg.1=3,2=9) or named parameters (rbp.p=0.8)
_GAIN_MAPS = {"ndcg": "nDCG", "ndcg_rel": "nDCG_rel", "Rndcg": "RnDCG", "G": "G", "dcg": "DCG", "ideal_dcg": "IDCG"}
# trec_eval's rbp and rbp_resid: persistence 0.9 unless p=... is given; for rbp, every judged grade >= 0 gains
_PERSISTENCE = {"rbp": "RBP(p={p!r},rel=0)", "rbp_resid": "RBP_resid(p={p!r})"}
_TREC_MEASURES = ("runid", "num_q", "relstring", *_PLAIN, *_CUTOFFS, *_LEVELS, *_VALUES, *_GAIN_MAPS, *_PERSISTENCE,
                  "11pt_avg")

_USAGE = "pateval trec_eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>] [-M <num>] [-J] [-N <num>] " \
         "[-R <format>] [-Z <file>] trec_rel_file trec_top_file"


def _add_trec_eval(commands) -> None:
    p = commands.add_parser(
        "trec_eval", usage=_USAGE,
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
    p.set_defaults(run=_run_trec_eval)


@dataclasses.dataclass(frozen=True)
class _TrecEvalArgs:
    """trec_eval's flags and files, by their argparse dests (trec_eval's own long names)."""

    qrels: str | None
    results: str | None
    version: bool = False
    per_query: bool = False
    trec_measures: list[str] | None = None
    complete: bool = False
    relevance_level: int | None = None
    nosummary: bool = False
    Debug_level: str | None = None
    judged_only: bool = False
    num_docs: int | None = None
    max_documents: int | None = None
    Rel_info_format: str = "qrels"
    Results_format: str = "trec_results"
    Zscore: str | None = None


def _run_trec_eval(**inputs) -> int:
    args = _TrecEvalArgs(**inputs)  # the inputs by their dests (cli.shared.command_inputs)
    if args.version:
        from .. import __version__

        print(f"trec_eval version {TREC_EVAL_VERSION} (pateval {__version__})", file=sys.stderr)
        return 0
    if args.Rel_info_format not in _REL_INFO_FORMATS:
        raise PatevalError(f"trec_eval -R {args.Rel_info_format}: illegal rel_info format (one of "
                           f"{', '.join(_REL_INFO_FORMATS)})")
    if args.Results_format != "trec_results":
        raise PatevalError(f"trec_eval -T {args.Results_format}: pateval reads only -T trec_results")
    if args.Debug_level is not None:
        raise PatevalError("trec_eval -D: not supported by pateval")
    if args.qrels is None or args.results is None:
        raise PatevalError(f"usage: {_USAGE}")
    for flag, value in (("-M", args.max_documents), ("-N", args.num_docs)):
        if value is not None and value < 1:
            raise PatevalError(f"trec_eval {flag} {value}: must be a positive number")
    marked = _marked_measures(args.trec_measures or ["official"])
    from .._lazy import pandas_deferred
    from ..formats.runblocks import RunFile, read_ahead, readable_in_blocks

    # trec_eval looks at neither the rank nor what follows a results line's sixth column, and names
    # the run by the last line's tag. A run file is read and scored in blocks of whole topics (one
    # block per thread in memory) unless what follows needs the whole run: relstrings, -c's
    # stand-in rankings, -J's empty rankings, the preference measures' own -M order
    whole = ((args.per_query and "relstring" in marked) or _REL_INFO_FORMATS[args.Rel_info_format] is not None
             or args.complete or args.judged_only)
    run_file = (RunFile(Path(args.results), lines="trec_eval", mixed_tags="last")
                if readable_in_blocks(args.results) and not whole else None)
    # its first blocks are read while the rest of pateval is imported and the qrels are read
    with pandas_deferred(), (read_ahead(run_file) if run_file is not None and args.max_documents is None
                             else nullcontext()):
        return _evaluate(args, marked, run_file)


def _evaluate(args: _TrecEvalArgs, marked: dict[str, str | None], run_file: RunFile | None) -> int:
    assert args.qrels is not None and args.results is not None  # checked by _run_trec_eval
    names = _measure_names(marked, num_docs=args.num_docs)
    extras = [name for name in ("runid", "num_q") if name in marked]
    from .. import api
    from .._lazy import pandas_deferred
    from ..formats.inputs import as_qrels
    from ..formats.trec import read_run
    from ..measures import Measure, parse_measure
    from ..options import EvaluationOptions
    from ..results.writers import format_trec_eval, trec_eval_summary_rows

    side_input = _REL_INFO_FORMATS[args.Rel_info_format]
    if side_input and "relstring" in marked:
        raise PatevalError(f"trec_eval -m relstring: needs -R qrels, not -R {args.Rel_info_format}")
    parsed = {parse_measure(ours): theirs for ours, theirs in names.items()}
    for measure, theirs in parsed.items():
        needs = measure.spec.requires & {"preferences", "judgement_groups"}
        if needs != ({side_input} if side_input else set()):
            formats = [f for f, kind in _REL_INFO_FORMATS.items() if kind in needs or (not needs and kind is None)]
            raise PatevalError(f"trec_eval -m {theirs}: needs -R {' or -R '.join(formats)}, not -R "
                               f"{args.Rel_info_format}")
    # -J: the preference measures ignore it (as trec_eval's), the judgement groups' apply it group by group
    judged_only = args.judged_only and side_input is None
    if args.judged_only and side_input == "judgement_groups":
        parsed = {Measure.make(m.spec, {**dict(m.values), "judged_only": True}, m.cutoff): theirs
                  for m, theirs in parsed.items()}
    printed = {str(measure): theirs for measure, theirs in parsed.items()}
    # runid and num_q alone: trec_eval still reads and matches every topic
    measures = list(printed) or ["NumRet"]
    # -M: the preference measures cut each ranking in their own order (see _top_in_preference_order)
    max_documents = None if side_input == "preferences" else args.max_documents
    options = EvaluationOptions(measures=measures, qrels_format="trec", complete=args.complete,
                                relevance_level=args.relevance_level, max_documents=max_documents,
                                judged_only=judged_only)
    with pandas_deferred():
        if side_input is None:
            qrels = as_qrels(args.qrels, qrels_format=options.qrels_format, on_duplicate=options.on_duplicate)
        else:
            from ..formats.prefs import read_prefs, read_qrels_jg, read_qrels_prefs

            reader = {"prefs": read_prefs, "qrels_prefs": read_qrels_prefs, "qrels_jg": read_qrels_jg}
            groups = reader[args.Rel_info_format](args.qrels)
            qrels = groups.qrels()
            options = dataclasses.replace(options, resources={side_input: groups})
        run = None
        if run_file is not None:
            result = api.evaluation(qrels, [run_file], options=options)
        else:
            run = read_run(args.results, on_duplicate=options.on_duplicate, lines="trec_eval", mixed_tags="last")
            if side_input == "preferences" and args.max_documents is not None:
                run = _top_in_preference_order(run, args.max_documents)
            result = api.evaluation(qrels, [run], options=options)
        if not args.complete:
            _note_topics_without_results(qrels, result.scored[0].topics, args.results)
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
            texts[name] = _relevance_strings(qrels, run, options, params)
        if args.complete:
            _score_on_stand_in_rankings(result, qrels, run, options, scored_names)
        if args.judged_only:
            _interpolate_empty_rankings_as_trec_eval(result, qrels, run, options)
        scored, summary_rows = result.scored, trec_eval_summary_rows(result.scored, result.measures)
        if reference is not None and scored_names:
            from ..results.zscores import zscore_results

            scored, summary_rows = zscore_results(scored, result.measures, scored_names, reference)
        if args.complete:  # trec_eval's num_rel of every qrels topic counts the grades > 0, whatever -l says
            num_rel = float((qrels.rel > 0).sum())
            summary_rows = [(of, name, num_rel if scored_names.get(name) == "num_rel" else value, n)
                            for of, name, value, n in summary_rows]
        text = format_trec_eval(scored, summary_rows, list(scored_names), per_query=args.per_query, extras=extras,
                                names=scored_names, summary=not args.nosummary, texts=texts,
                                zscores=reference is not None)
    sys.stdout.write(text)
    return 0


def _top_in_preference_order(run, max_documents: int):
    """trec_eval -M for the preference measures: each topic's first documents by score,
    equal scores in ascending docno order (trec_eval's preference code ranks so)."""
    import numpy as np

    from ..core.ranking import evaluation_order
    from ..core.segments import place_in_runs
    from ..evaluation import _subset
    from ..measures.prefs import ascending_docno_ties

    perm = evaluation_order(run, order="score")
    topic = run.topic[perm]
    rows = perm[ascending_docno_ties(topic, run.score[perm])]
    keep = np.zeros(len(run), dtype=bool)
    keep[rows[place_in_runs(topic) < max_documents]] = True
    return run if keep.all() else _subset(run, keep)


def _note_topics_without_results(qrels, topics, path: str) -> None:
    """Without -c the means are over the topics in both files, as trec_eval 9.0.x, pytrec_eval
    and ir_measures take them (usnistgov/trec_eval#18); trec_eval 10.0 stops at a qrels topic
    without results instead (exit 4). The topics left out are named on stderr, in one line
    (``topics``: those evaluated)."""
    missing = sorted(set(map(str, qrels.topic_ids)) - set(map(str, topics)), key=str.encode)
    if missing:
        shown = ", ".join(missing[:5]) + (f", ... ({len(missing) - 5} more)" if len(missing) > 5 else "")
        print(f"pateval: note: {path}: {len(missing)} qrels topic(s) without results left out of the means "
              f"(trec_eval 10.0 stops at them; -c scores them 0): {shown}", file=sys.stderr)


def _score_on_stand_in_rankings(result, qrels, run, options, names: dict[str, str]) -> None:
    """trec_eval -c scores a qrels topic without results on a ranking of one document no qrels
    judge (trec_eval.c's bogus_ranking), then zeroes the values named exactly num_ret, utility,
    rbp_resid and those starting unj: the other values of such topics (utility_1,-1,0,2 counts
    that document) are replaced here by theirs on that ranking, in place."""
    import dataclasses

    import numpy as np

    from ..core.run import Run
    from ..evaluation import evaluate_runs

    missing = sorted(set(map(str, qrels.topic_ids)) - set(map(str, run.topic_ids)))
    kept = [j for j, measure in enumerate(result.scored[0].measures) if names.get(measure) not in
            ("num_ret", "utility", "rbp_resid") and not names.get(measure, "unj").startswith("unj")]
    if not missing or not kept:
        return
    stand_in = Run.from_columns(missing, ["ceci_nest_pas_un_docno"] * len(missing), [1.0] * len(missing),
                                name=run.name)
    scored = evaluate_runs(qrels, [stand_in], dataclasses.replace(options, complete=False)).scored[0]
    piece = result.scored[0]
    n, m = len(piece.topics), len(scored.topics)
    at = {str(topic): i for i, topic in enumerate(piece.topics)}
    rows = np.array([at[str(topic)] for topic in scored.topics], dtype=np.int64)
    for j in kept:
        piece.values[j * n + rows] = scored.values[j * m:(j + 1) * m]


def _interpolate_empty_rankings_as_trec_eval(result, qrels, run, options) -> None:
    """trec_eval's iprec_at_recall and 11pt_avg divide 0 by 0 on a topic that -J leaves without
    documents, at each recall level x with round(x R) = 0 (R: the topic's relevant documents):
    the value there is NaN, printed -nan, as is the mean over topics; 11pt_avg is NaN when its
    lowest level is. In place."""
    from collections import Counter

    import numpy as np

    from ..evaluation import judged_rows_only, top_rows_only
    from ..measures import parse_measure

    cut = run if options.max_documents is None else top_rows_only(run, options.max_documents, order=options.order)
    cut = judged_rows_only(cut, qrels, doc_key=options.doc_key)
    ranked = set(map(str, np.asarray(cut.topic_ids, dtype=object)[np.unique(cut.topic)]))
    level = options.relevance_level or 1
    num_rel = Counter(topic for topic, grade in zip(qrels.arrow("topic").to_pylist(), qrels.rel.tolist(),
                                                    strict=True) if grade >= level)
    piece = result.scored[0]
    n = len(piece.topics)
    for j, name in enumerate(piece.measures):
        measure = parse_measure(name)
        if measure.spec.name == "IPrec":
            lowest = measure["recall"]
        elif measure.spec.name == "IPrec_11pt":
            lowest = float(measure["levels"].split(",")[0]) if measure["levels"] else 0.0
        else:
            continue
        for i, topic in enumerate(map(str, piece.topics)):
            if topic not in ranked and lowest * num_rel[topic] < 0.5:
                piece.values[j * n + i] = np.nan


def _relevance_strings(qrels, run, options, params: str | None) -> dict[str, str]:
    """trec_eval's relstring of each topic evaluated (``relstring.N``: N documents, default 10),
    on the run as scored: -M and -J cut it first."""
    import numpy as np

    from ..core.ranking import JudgementIndex, rank_run
    from ..evaluation import judged_rows_only, top_rows_only, topics_to_evaluate
    from ..measures.relstring import RELSTRING_LENGTH, relevance_strings

    length = int(_numbers("relstring", params)[0]) if params else RELSTRING_LENGTH
    topics, _ = topics_to_evaluate(np.asarray(qrels.topic_ids, dtype=object), run, complete=options.complete)
    if options.max_documents is not None:
        run = top_rows_only(run, options.max_documents, order=options.order)
    if options.judged_only:
        run = judged_rows_only(run, qrels, doc_key=options.doc_key)
    ranked = rank_run(run, JudgementIndex.build(qrels, topics, doc_key=options.doc_key), order=options.order)
    strings = dict(zip(map(str, ranked.topic_ids), relevance_strings(ranked, length), strict=True))
    if params and length > 0:
        # with -c, trec_eval scores a topic without results on a ranking of one unlisted document and
        # then clears the value named "relstring" only: "relstring_N" shows that document, '-'
        missing = ranked.ptr[1:] == ranked.ptr[:-1]
        strings.update(dict.fromkeys(map(str, ranked.topic_ids[missing]), "-"))
    return strings


def _marked_measures(given: list[str]) -> dict[str, str | None]:
    """trec_eval's -m arguments as the measures they mark, each with its parameters (the first
    given for a measure, as trec_eval takes them); nicknames mark every measure they name."""
    marked: dict[str, str | None] = {}
    params: dict[str, str] = {}
    for text in given:
        name, dot, rest = text.partition(".")
        if dot and not rest:
            raise PatevalError(f"trec_eval -m {text}: improper measure parameters (nothing after '.')")
        if dot:
            params.setdefault(name, rest)
        if name in _NICKNAMES:
            marked.update(dict.fromkeys(_NICKNAMES[name]))
        elif name in _TREC_MEASURES:
            marked[name] = None
        else:
            raise PatevalError(f"trec_eval -m {text}: illegal measure (not a trec_eval measure)")
    return {name: params.get(name) for name in marked}


def _measure_names(marked: dict[str, str | None], *, num_docs: int | None) -> dict[str, str]:
    """pateval's name of each measure marked -> the name trec_eval prints for it."""
    names: dict[str, str] = {}
    for base, params in marked.items():
        if base in ("runid", "num_q"):
            continue
        if base == "relstring":
            continue  # text, not a measure: see _relevance_strings
        names.update(_expand(base, params, num_docs=num_docs))
    return names


def _numbers(base: str, params: str) -> list[float]:
    try:
        return [float(x) for x in params.split(",")]
    except ValueError:
        raise PatevalError(f"trec_eval -m {base}.{params}: the parameters must be numbers") from None


def _expand(base: str, params: str | None, *, num_docs: int | None) -> dict[str, str]:
    """The pateval measures of one trec_eval measure with its parameters (or its defaults),
    each with the name trec_eval prints."""
    if base in _CUTOFFS:
        cutoffs = sorted({int(x) for x in _numbers(base, params)}) if params else _CUTOFFS[base]
        if cutoffs[0] <= 0:
            raise PatevalError(f"trec_eval -m {base}.{params}: cutoffs must be positive")
        return {f"{base}_{k}": f"{base}_{k}" for k in cutoffs}
    if base in _LEVELS:
        levels = sorted(set(_numbers(base, params))) if params else _LEVELS[base]
        return {f"{base}_{x!r}": f"{base}_{x:3.2f}" for x in levels}
    if base == "utility" or base == "set_F":
        spec, keys = _VALUES[base]
        values = _numbers(base, params) if params else []
        if len(values) > len(keys):
            raise PatevalError(f"trec_eval -m {base}.{params}: at most {len(keys)} parameters")
        settings = [f"{key}={value!r}" for key, value in zip(keys, values, strict=False)]
        if base == "utility" and num_docs is not None:
            settings.append(f"num_docs={num_docs}")
        measure = f"{spec}({','.join(settings)})" if settings else spec
        return {measure: f"{base}_{params}" if params else base}
    if base == "11pt_avg":
        if not params:
            return {"IPrec_11pt": base}
        recalls = ",".join(repr(x) for x in _numbers(base, params))
        return {f"IPrec_11pt(levels='{recalls}')": f"{base}_{params}"}
    if base in _GAIN_MAPS:
        measure = f"{_GAIN_MAPS[base]}(gains='{params}')" if params else _GAIN_MAPS[base]
        return {measure: f"{base}_{params}" if params else base}
    if base in _PERSISTENCE:
        p = _pairs(base, params)["p"] if params else 0.9
        return {_PERSISTENCE[base].format(p=p): f"{base}_{params}" if params else base}
    if params:
        raise PatevalError(f"trec_eval -m {base}.{params}: {base} takes no parameters in pateval")
    return {base: base}


def _pairs(base: str, params: str) -> dict[str, float]:
    pairs: dict[str, float] = {}
    for pair in params.split(","):
        key, equals, value = pair.partition("=")
        if not equals or key != "p":
            raise PatevalError(f"trec_eval -m {base}.{params}: pateval's {base} takes only p=PERSISTENCE")
        pairs[key] = _numbers(base, value)[0]
    return pairs
