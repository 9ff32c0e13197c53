"""``pateval compare``, ``analyse-measures``, ``stability`` and ``report``: comparing systems
and measures over a set of runs (or per-topic score files)."""

from __future__ import annotations

import argparse
import sys

from ..errors import PatevalError
from .shared import (
    add_evaluation_options,
    add_output,
    add_qrels_and_runs,
    add_table_output,
    evaluation_options,
    examples,
    figure_name,
    given_flags,
    print_notes,
    resolve_qrels_and_runs,
    save_figures,
    test_name,
    write_text_or_print,
)

COMPARE_MEASURES = ("AP", "P@10", "nDCG@10")


def _add_run_set_inputs(p, *, qrels_required: bool = True) -> None:
    """Options of every command that evaluates a set of runs to compare them: qrels, runs, and
    the evaluation flags of `pateval evaluate`."""
    add_qrels_and_runs(p, qrels_help="qrels file (as `pateval evaluate QRELS RUN...`)"
                       + ("" if qrels_required else "; with --scores, the first score file"),
                       runs_help="run files" + ("" if qrels_required else " (score files with --scores)"))
    add_evaluation_options(p, default_measures=COMPARE_MEASURES)


def _resolve_qrels_and_runs(args) -> None:
    """``QRELS RUN...``, or ``--qrels QRELS RUN...`` (the older spelling), as args.qrels and
    args.runs; with ``--scores`` every positional argument is a score file (args.qrels: the
    --qrels given, which _comparison_sources refuses)."""
    if getattr(args, "scores", False):
        args.qrels, args.runs = args.qrels_option, [args.qrels, *args.runs]
        return
    resolve_qrels_and_runs(args)


def _add_comparison_inputs(p, *, default_test: str, repeatable_test: bool = False) -> None:
    """Options that compare, analyse-measures and report share."""
    from ..stats.names import TESTS

    _add_run_set_inputs(p, qrels_required=False)
    _add_score_inputs(p)
    if repeatable_test:  # the test of discriminative power: --analysis-test, as in `pateval report`
        p.add_argument("--analysis-test", choices=TESTS, type=test_name, action="append", dest="tests",
                       help=f"significance test of discriminative power (repeatable: one table column per test; the "
                       f"first draws the ASL curves; default: {default_test})")
        p.add_argument("--test", choices=TESTS, type=test_name, action="append", dest="tests",
                       help=argparse.SUPPRESS)  # the older spelling
    else:
        p.add_argument("--test", choices=TESTS, type=test_name, default=default_test,
                       help=f"significance test (default: {default_test})")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of the resampling tests (default 0; reported)")
    p.add_argument("-B", "--resamples", type=int, dest="B", metavar="B",
                   help="resamples of the resampling tests (default: randomisation 10000, bootstrap 1000, tukey 5000)")


def _add_score_inputs(p) -> None:
    """--scores: compare per-topic score files (trec_eval -q, ir_measures, pateval) instead of runs (issue 15)."""
    p.add_argument("--scores", action="store_true",
                   help="the RUN files are per-topic score files (trec_eval -q, ir_measures -q, pateval evaluate -q "
                   "text/CSV/JSON), compared without qrels; -m picks measures (default: those every run has)")
    p.add_argument("--scores-format", choices=SCORE_FORMATS, default="auto",
                   help="format of the --scores files (default: detect)")


#: results.readers.SCORE_FORMATS, written out so that building the parser imports no reader (a test keeps them equal)
SCORE_FORMATS = ("auto", "trec_eval", "ir_measures", "pateval-csv", "pateval-json")


def _comparison_sources(args) -> tuple:
    """(qrels, measures, evaluate options) of compare / analyse-measures / report: runs and
    qrels, or per-topic score files with --scores."""
    from ..errors import ParameterError

    _resolve_qrels_and_runs(args)
    if args.scores:
        if args.qrels is not None:
            raise ParameterError("--scores compares score files without qrels; leave out --qrels")
        given = given_flags(args)
        if given:
            named = "-c and --qrels-format" if set(given) <= {"-c", "--qrels-format"} else ", ".join(given)
            raise ParameterError(f"{named} act on runs and qrels; with --scores the files' topics are used as they "
                                 "are")
        return None, args.measures, {"scores_format": args.scores_format}
    if args.qrels is None:
        raise ParameterError("the following arguments are required: --qrels (or give per-topic score files with "
                             "--scores)")
    return args.qrels, args.measures or list(COMPARE_MEASURES), evaluation_options(args)


def _add_compare(commands) -> None:
    from ..stats.names import CORRECTION_NAMES

    p = commands.add_parser(
        "compare",
        help="mean scores of runs with significance markers (against a baseline or all pairs)",
        description="Evaluate the runs and test them over topics, per measure: against --baseline, or every pair. "
        "Prints a table of means with significance markers; --format csv/json gives every test.",
    )
    _add_comparison_inputs(p, default_test="t")
    p.add_argument("--baseline", metavar="RUN", help="name of the run to test the others against (default: all pairs)")
    p.add_argument("--correction", choices=CORRECTION_NAMES, default="holm",
                   help="multiple-comparison correction (default: holm)")
    p.add_argument("--plots", metavar="DIR", help="also write per-topic difference plots (PNG and SVG) to DIR")
    add_table_output(p)
    p.epilog = examples("pateval compare qrels.txt bm25.run lm.run tfidf.run -m AP -m PRES@100",
                        "pateval compare qrels.txt run*.txt --baseline bm25 --test randomisation --format csv -o "
                        "tests.csv",
                        "pateval compare --scores bm25.scores lm.scores -m map", glossary=("tests",))
    p.set_defaults(run=_run_compare)


def _run_compare(args) -> int:
    from .. import api
    from ..report.tables import render_comparison

    qrels, measures, options = _comparison_sources(args)
    comparison = api.compare(
        qrels, list(args.runs), measures, baseline=args.baseline, test=args.test,
        correction=None if args.correction == "none" else args.correction, alpha=args.alpha, seed=args.seed, B=args.B,
        evaluate_options=options,
    )
    print_notes(comparison.notes)
    write_text_or_print(render_comparison(comparison, format=args.format, precision=args.precision), args.output)
    if args.plots:
        from ..report.html import difference_pairs
        from ..report.plots import plot_topic_differences

        figures = {}
        for measure, matrix in comparison.scores.items():
            for run_a, run_b in difference_pairs(comparison, limit=len(comparison.runs)):
                figures[figure_name("differences", measure, run_a, "minus", run_b)] = plot_topic_differences(
                    matrix[run_a], matrix[run_b], run_a=run_a, run_b=run_b, measure=measure)
        save_figures(figures, args.plots)
    return 0


def _add_analyse_measures(commands) -> None:
    from ..stats.names import TESTS

    p = commands.add_parser(
        "analyse-measures",
        help="discriminative power, rank correlation and agreement of measures over a run set",
        description="Evaluate the runs under each measure and compare the measures: discriminative power (share of run "
        "pairs significant at alpha, difference needed; Sakai 2006), Kendall's tau and tau_ap between the run "
        "rankings, and the agreement of the measures' verdicts on each run pair (Magdy & Jones 2010).",
    )
    _add_comparison_inputs(p, default_test="bootstrap", repeatable_test=True)
    p.add_argument("--agreement-test", choices=TESTS, type=test_name, default="wilcoxon",
                   help="test behind the agreement verdicts (default: wilcoxon)")
    p.add_argument("--plots", metavar="DIR",
                   help="also write ASL curves, scatter plots, rank changes and the agreement chart to DIR")
    add_table_output(p)
    p.epilog = examples("pateval analyse-measures qrels.txt run*.txt -m AP -m PRES@100 -m nDCG@10",
                        "pateval analyse-measures qrels.txt run*.txt -m AP -m TBG --doc-lengths lengths.txt --plots "
                        "figures/", glossary=("discriminative power", "rank correlation", "agreement",
                                              "agreement chart"))
    p.set_defaults(run=_run_analyse_measures)


def _run_analyse_measures(args) -> int:
    from .. import api
    from ..report.tables import render_analysis

    qrels, measures, options = _comparison_sources(args)
    analysis = api.analyse_measures(
        qrels, list(args.runs), measures, test=args.tests or ["bootstrap"],
        agreement_test=args.agreement_test,
        alpha=args.alpha, seed=args.seed, B=args.B, evaluate_options=options,
    )
    print_notes(analysis.notes)
    write_text_or_print(render_analysis(analysis, format=args.format, precision=args.precision), args.output)
    if args.plots:
        from ..report import plots  # matplotlib: only when figures are asked for

        figures = {"asl_curves": plots.plot_asl_curves(analysis.power.curves, alpha=args.alpha)}
        means = analysis.means
        for i, first in enumerate(means.columns):
            for second in means.columns[i + 1 :]:
                if means[first].nunique() > 1 and means[second].nunique() > 1:
                    figures[figure_name("scatter", first, second)] = plots.plot_measure_scatter(
                        means[first], means[second], measure_x=first, measure_y=second, labels=list(means.index))
        if analysis.chart is not None:
            figures["agreement_chart"] = plots.plot_agreement_chart(analysis.chart)
            figures["rank_changes"] = plots.plot_rank_changes(means)
            figures["measures_by_run"] = plots.plot_measures_by_run(means)
        save_figures(figures, args.plots)
    return 0


def _add_stability(commands) -> None:
    p = commands.add_parser(
        "stability",
        help="how stable the ranking of runs is on random topic subsets of growing size",
        description="Evaluate the runs, then for each topic-set size draw --trials random subsets of the topics "
        "(seeded) and compare the ranking of the runs by their mean on each subset with their ranking on all topics "
        "by Kendall's tau (Roda et al. 2010). Prints mean, min and max tau per measure and size.",
    )
    _add_run_set_inputs(p)
    p.add_argument("--sizes", default="10,25,50,100,S,M,L,XL", metavar="LIST",
                   help="comma-separated topic-set sizes: numbers or S, M, L, XL (500, 1000, 5000, 10000); sizes "
                   "above the number of topics are left out (default: 10,25,50,100,S,M,L,XL)")
    p.add_argument("--trials", type=int, default=20, help="random subsets per size (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the subsets (default 0)")
    add_table_output(p)
    p.epilog = examples("pateval stability qrels.txt run*.txt -m AP --sizes 10,25,50",
                        "pateval stability qrels.txt run*.txt -m AP -m PRES@100 --trials 50 --format csv -o "
                        "stability.csv")
    p.set_defaults(run=_run_stability)


def _run_stability(args) -> int:
    from .. import api
    from ..report.tables import render_frame

    _resolve_qrels_and_runs(args)
    frame = api.ranking_stability(args.qrels, list(args.runs), args.measures or list(COMPARE_MEASURES),
                                  sizes=args.sizes, trials=args.trials, seed=args.seed,
                                  evaluate_options=evaluation_options(args))
    print_notes(frame.attrs["notes"])
    text = render_frame(frame, format=args.format, precision=args.precision, settings=frame.attrs["settings"])
    write_text_or_print(text, args.output)
    return 0


def _add_report(commands) -> None:
    from ..report.names import IMAGE_FORMATS
    from ..stats.names import CORRECTION_NAMES, TESTS

    p = commands.add_parser(
        "report",
        help="one self-contained HTML report comparing runs and measures",
        description="Evaluate the runs and write a single HTML file with the comparison table, the tests, per-topic "
        "differences, discriminative power with ASL curves, rank correlation and the agreement chart; figures "
        "embedded.",
    )
    _add_comparison_inputs(p, default_test="t")
    p.add_argument("--baseline", metavar="RUN", help="name of the run to test the others against (default: all pairs)")
    p.add_argument("--correction", choices=CORRECTION_NAMES, default="holm",
                   help="multiple-comparison correction (default: holm)")
    p.add_argument("--analysis-test", choices=TESTS, type=test_name, default="bootstrap",
                   help="test for discriminative power (default: bootstrap)")
    p.add_argument("--agreement-test", choices=TESTS, type=test_name, default="wilcoxon",
                   help="test behind the agreement verdicts (default: wilcoxon)")
    p.add_argument("--title", default="pateval report", help="the report's title")
    p.add_argument("--image-format", choices=IMAGE_FORMATS, default="svg",
                   help="embed figures as inline SVG or base64 PNG (default: svg)")
    p.add_argument("--gain-over-time", metavar="CSV",
                   help="CSV run,time,gain: one cumulative G(t) curve per run (seconds; gain collected by then); "
                   "not `user-model time` output")
    p.add_argument("--ct-gamma", metavar="CSV",
                   help="CSV with columns run,gamma,score for the Cube-Test-against-gamma plot")
    add_output(p, "-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    _add_report_calibration(p)
    p.epilog = examples("pateval report qrels.txt run*.txt -m AP -m PRES@100 --baseline bm25 -o report.html",
                        "pateval report qrels.txt bm25.run lm.run -m AP -m TBG --doc-lengths lengths.txt "
                        "--calibration-log log.csv.gz -o report.html",
                        glossary=("tests", "discriminative power", "rank correlation", "agreement", "calibration",
                                  "rank over time"))
    p.set_defaults(run=_run_report)


def _run_report(args) -> int:
    from .. import api
    from ..report.inputs import read_ct_gamma, read_gain_over_time

    qrels, measures, options = _comparison_sources(args)
    path = api.write_report(
        qrels, list(args.runs), measures, out=args.output, baseline=args.baseline,
        test=args.test, correction=None if args.correction == "none" else args.correction,
                            analysis_test=args.analysis_test,
        agreement_test=args.agreement_test, alpha=args.alpha, seed=args.seed, B=args.B, title=args.title,
        image_format=args.image_format,
        gain_over_time=read_gain_over_time(args.gain_over_time) if args.gain_over_time else None,
        ct_by_gamma=read_ct_gamma(args.ct_gamma) if args.ct_gamma else None,
        evaluate_options=options, calibration=_report_calibration(args, options),
    )
    print(f"pateval: wrote {path}", file=sys.stderr)
    return 0


def _add_report_calibration(p) -> None:
    """`pateval report`'s calibration section: a log calibrated against the report's qrels and runs."""
    p.add_argument("--calibration-log", metavar="LOG", help="an interaction log: add a section calibrating TBG from it "
                   "(the lists are topics of the runs; needs --doc-lengths)")
    p.add_argument("--calibration-run", metavar="RUN", help="the run the log's users searched (default: the first run)")
    p.add_argument("--lists", metavar="FILE", help="`list topic [run]` lines for --calibration-log")


def _report_calibration(args, options):
    """The report's calibration section: (result, figures), from --calibration-log and the
    report's --doc-lengths and --duplicates (the evaluation's side inputs)."""
    if not args.calibration_log:
        return None
    from .. import api

    if args.resource_doc_lengths is None:
        raise PatevalError("--calibration-log needs --doc-lengths")
    if getattr(args, "scores", None) or args.qrels is None:
        raise PatevalError("--calibration-log needs --qrels and the runs the users searched (not --scores)")
    runs = list(args.runs) if args.lists else [args.calibration_run or args.runs[0]]
    lengths, groups = options.resources["doc_lengths"], options.resources.get("duplicate_groups")
    result = api.calibrate(args.calibration_log, qrels=args.qrels, runs=runs, doc_lengths=lengths,
                           duplicates=groups, lists=args.lists, seed=args.seed, qrels_format=options.qrels_format)
    return result, api.calibration_figures(result, doc_lengths=lengths, duplicates=groups)
