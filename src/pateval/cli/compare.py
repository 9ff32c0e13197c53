"""``pateval compare``, ``analyse-measures``, ``stability`` and ``report``: comparing systems
and measures over a set of runs (or per-topic score files)."""

from __future__ import annotations

import argparse
import sys

from ..errors import PatevalError
from ..report.names import IMAGE_FORMATS
from ..stats.names import TESTS
from .pooling import _budgets
from .shared import (
    add_command,
    add_evaluation_options,
    add_flags,
    add_output,
    add_qrels_and_runs,
    add_run_names,
    add_table_output,
    examples,
    figure_name,
    print_notes,
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
    add_run_names(p, "--names")
    add_evaluation_options(p, default_measures=COMPARE_MEASURES)


def _add_comparison_inputs(p, *, default_test: str, repeatable_test: bool = False) -> None:
    """Options that compare, analyse-measures and report share."""
    _add_run_set_inputs(p, qrels_required=False)
    # --scores: compare per-topic score files (trec_eval -q, ir_measures, pateval) instead of runs (issue 15)
    p.add_argument("--scores", action="store_true",
                   help="the RUN files are per-topic score files (trec_eval -q, ir_measures -q, pateval evaluate -q "
                   "text/CSV/JSON), compared without qrels; -m picks measures (default: those every run has)")
    p.add_argument("--scores-format", choices=SCORE_FORMATS, default="auto",
                   help="format of the --scores files (default: detect)")
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
    add_flags(p, "seed", help="seed of the resampling tests (default 0; reported)")
    p.add_argument("-B", "--resamples", type=int, dest="B", metavar="B",
                   help="resamples of the resampling tests (default: randomisation 10000, bootstrap 1000, tukey 5000)")


#: results.readers.SCORE_FORMATS, written out so that building the parser imports no reader (a test keeps them equal)
SCORE_FORMATS = ("auto", "trec_eval", "ir_measures", "pateval-csv", "pateval-json")


def _measures(measures, options):
    """The measures asked for: with --scores (no options), those every file has unless -m names some."""
    return measures if options is None else measures or list(COMPARE_MEASURES)


def _add_compare(commands) -> None:
    p = add_command(
        commands, "compare", _run_compare, extra="stats",
        help="mean scores of runs with significance markers (against a baseline or all pairs)",
        description="Evaluate the runs and test them over topics, per measure: against --baseline, or every pair. "
        "Prints a table of means with significance markers; --format csv/json gives every test.",
        epilog=examples("pateval compare qrels.txt bm25.run lm.run tfidf.run -m AP -m PRES@100",
                        "pateval compare qrels.txt run*.txt --baseline bm25 --test randomisation --format csv -o "
                        "tests.csv",
                        "pateval compare --scores bm25.scores lm.scores -m map", glossary=("tests",)),
    )
    _add_comparison_inputs(p, default_test="t")
    add_flags(p, "baseline", "correction", "plots")
    add_table_output(p)


def _run_compare(*, qrels, runs, measures, options, scores: bool, scores_format: str, baseline, test: str,
                 correction: str, alpha: float, seed: int, B, plots, format: str, precision: int, output) -> None:
    from .. import api
    from ..report.tables import render_comparison

    comparison = api.compare(qrels, runs, _measures(measures, options), baseline=baseline, test=test,
                             correction=None if correction == "none" else correction, alpha=alpha, seed=seed, B=B,
                             options=options, scores_format=scores_format)
    print_notes(comparison.notes)
    write_text_or_print(render_comparison(comparison, format=format, precision=precision), output)
    if plots:
        from ..report.html import difference_pairs
        from ..report.plots import plot_topic_differences

        pairs = difference_pairs(comparison, limit=len(comparison.runs))
        save_figures({figure_name("differences", measure, run_a, "minus", run_b): plot_topic_differences(
            matrix[run_a], matrix[run_b], run_a=run_a, run_b=run_b, measure=measure)
            for measure, matrix in comparison.scores.items() for run_a, run_b in pairs}, plots)


def _add_analyse_measures(commands) -> None:
    p = add_command(
        commands, "analyse-measures", _run_analyse_measures, extra="stats",
        help="discriminative power, rank correlation and agreement of measures over a run set",
        description="Evaluate the runs under each measure and compare the measures: discriminative power (share of run "
        "pairs significant at alpha, difference needed; Sakai 2006), Kendall's tau and tau_ap between the run "
        "rankings, and the agreement of the measures' verdicts on each run pair (Magdy & Jones 2010).",
        epilog=examples("pateval analyse-measures qrels.txt run*.txt -m AP -m PRES@100 -m nDCG@10",
                        "pateval analyse-measures qrels.txt run*.txt -m AP -m TBG --doc-lengths lengths.txt --plots "
                        "figures/", glossary=("discriminative power", "rank correlation", "agreement",
                                              "agreement chart")),
    )
    _add_comparison_inputs(p, default_test="bootstrap", repeatable_test=True)
    add_flags(p, "agreement_test", "plots")
    add_table_output(p)


def _run_analyse_measures(*, qrels, runs, measures, options, scores: bool, scores_format: str, tests, alpha: float,
                          seed: int, B, agreement_test: str, plots, format: str, precision: int, output) -> None:
    from .. import api
    from ..report.tables import render_analysis

    analysis = api.analyse_measures(qrels, runs, _measures(measures, options), test=tests or ["bootstrap"],
                                    agreement_test=agreement_test, alpha=alpha, seed=seed, B=B, options=options,
                                    scores_format=scores_format)
    print_notes(analysis.notes)
    write_text_or_print(render_analysis(analysis, format=format, precision=precision), output)
    if plots:
        from ..report import plots as figure  # matplotlib: only when figures are asked for

        figures = {"asl_curves": figure.plot_asl_curves(analysis.power.curves, alpha=alpha)}
        means = analysis.means
        for i, first in enumerate(means.columns):
            for second in means.columns[i + 1 :]:
                if means[first].nunique() > 1 and means[second].nunique() > 1:
                    figures[figure_name("scatter", first, second)] = figure.plot_measure_scatter(
                        means[first], means[second], measure_x=first, measure_y=second, labels=list(means.index))
        if analysis.chart is not None:
            figures["agreement_chart"] = figure.plot_agreement_chart(analysis.chart)
            figures["rank_changes"] = figure.plot_rank_changes(means)
            figures["measures_by_run"] = figure.plot_measures_by_run(means)
        save_figures(figures, plots)


def _add_stability(commands) -> None:
    p = add_command(
        commands, "stability", _run_stability, extra="stats",
        help="how stable the ranking of runs is on random topic subsets of growing size",
        description="Evaluate the runs, then for each topic-set size draw --trials random subsets of the topics "
        "(seeded) and compare the ranking of the runs by their mean on each subset with their ranking on all topics "
        "by Kendall's tau (Roda et al. 2010). Prints mean, min and max tau per measure and size.",
        epilog=examples("pateval stability qrels.txt run*.txt -m AP --sizes 10,25,50",
                        "pateval stability qrels.txt run*.txt -m AP -m PRES@100 --trials 50 --format csv -o "
                        "stability.csv"),
    )
    _add_run_set_inputs(p)
    p.add_argument("--sizes", default="10,25,50,100,S,M,L,XL", metavar="LIST",
                   help="comma-separated topic-set sizes: numbers or S, M, L, XL (500, 1000, 5000, 10000); sizes "
                   "above the number of topics are left out (default: 10,25,50,100,S,M,L,XL)")
    p.add_argument("--trials", type=int, default=20, help="random subsets per size (default 20)")
    add_flags(p, "seed", help="seed of the subsets (default 0)")
    add_table_output(p)


def _run_stability(*, qrels, runs, measures, options, sizes: str, trials: int, seed: int, format: str, precision: int,
                   output) -> None:
    from .. import api
    from ..report.tables import render_frame

    frame = api.ranking_stability(qrels, runs, measures or list(COMPARE_MEASURES), sizes=sizes, trials=trials,
                                  seed=seed, options=options)
    print_notes(frame.attrs["notes"])
    write_text_or_print(render_frame(frame, format=format, precision=precision, settings=frame.attrs["settings"]),
                        output)


def _add_report(commands) -> None:
    p = add_command(
        commands, "report", _run_report, extra="report",
        help="one self-contained HTML report comparing runs and measures",
        description="Evaluate the runs and write a single HTML file with the comparison table, the tests, per-topic "
        "differences, discriminative power with ASL curves, rank correlation and the agreement chart; figures "
        "embedded.",
        epilog=examples("pateval report qrels.txt run*.txt -m AP -m PRES@100 --baseline bm25 -o report.html",
                        "pateval report qrels.txt bm25.run lm.run -m AP -m TBG --doc-lengths lengths.txt "
                        "--calibration-log log.csv.gz -o report.html",
                        glossary=("tests", "discriminative power", "rank correlation", "agreement", "calibration",
                                  "rank over time", "budgets", "reusability")),
    )
    _add_comparison_inputs(p, default_test="t")
    add_flags(p, "baseline", "correction")
    p.add_argument("--analysis-test", choices=TESTS, type=test_name, default="bootstrap",
                   help="test for discriminative power (default: bootstrap)")
    add_flags(p, "agreement_test")
    p.add_argument("--title", default="pateval report", help="the report's title")
    p.add_argument("--image-format", choices=IMAGE_FORMATS, default="svg",
                   help="embed figures as inline SVG or base64 PNG (default: svg)")
    p.add_argument("--gain-over-time", metavar="CSV",
                   help="CSV run,time,gain: one cumulative G(t) curve per run (seconds; gain collected by then); "
                   "not `user-model time` output")
    p.add_argument("--ct-gamma", metavar="CSV",
                   help="CSV with columns run,gamma,score for the Cube-Test-against-gamma plot")
    add_output(p, "-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    # the calibration section: a log calibrated against the report's qrels and runs
    p.add_argument("--calibration-log", metavar="LOG", help="an interaction log: add a section calibrating TBG from it "
                   "(the lists are topics of the runs; needs --doc-lengths)")
    p.add_argument("--calibration-run", metavar="RUN", help="the run the log's users searched (default: the first run)")
    p.add_argument("--lists", metavar="FILE", help="`list topic [run]` lines for --calibration-log")
    # the judging-budgets section: the runs' pool replayed at budgets against the report's qrels
    p.add_argument("--budgets", metavar="B1,B2,...", type=_budgets,
                   help="add a section replaying judging orders (depth, mtf, mm-ns) at these budgets per topic")
    p.add_argument("--reuse-depth", type=int, metavar="K",
                   help="add leave-one-run-out reusability of the depth-K pool to that section")


def _run_report(*, qrels, runs, measures, options, scores: bool, scores_format: str, baseline, test: str,
                correction: str, analysis_test: str, agreement_test: str, alpha: float, seed: int, B, title: str,
                image_format: str, gain_over_time, ct_gamma, output, calibration_log, calibration_run, lists,
                budgets=None, reuse_depth=None) -> None:
    from .. import api
    from ..report.inputs import read_ct_gamma, read_gain_over_time

    calibration = None
    if calibration_log:  # a section calibrating TBG from the log, on the report's qrels, runs and side inputs
        if options is None or "doc_lengths" not in options.resources:  # --scores refuses --doc-lengths
            raise PatevalError("--calibration-log needs --doc-lengths")
        lengths, groups = options.resources["doc_lengths"], options.resources.get("duplicate_groups")
        first = next(iter(runs.values() if isinstance(runs, dict) else runs))
        result = api.calibrate(calibration_log, qrels=qrels, runs=runs if lists else [calibration_run or first],
                               doc_lengths=lengths, duplicates=groups, lists=lists, seed=seed, options=options)
        calibration = result, api.calibration_figures(result, doc_lengths=lengths, duplicates=groups)
    collection = None
    if budgets or reuse_depth:
        if options is None:
            raise PatevalError("--budgets and --reuse-depth need qrels and runs, not --scores")
        from ..api.evaluate import read_inputs

        measure = str(_measures(measures, options)[0])
        qrels, runs, options = read_inputs(qrels, runs, options)  # each file once, for every step
        table = api.simulate_budgets(qrels, runs, budgets, measure=measure, options=options) if budgets else None
        reuse = api.leave_out(qrels, runs, depth=reuse_depth, measure=measure, options=options) if reuse_depth else None
        collection = table, reuse, measure
    path = api.write_report(
        qrels, runs, _measures(measures, options), out=output, baseline=baseline, test=test,
        correction=None if correction == "none" else correction, analysis_test=analysis_test,
        agreement_test=agreement_test, alpha=alpha, seed=seed, B=B, title=title, image_format=image_format,
        gain_over_time=read_gain_over_time(gain_over_time) if gain_over_time else None,
        ct_by_gamma=read_ct_gamma(ct_gamma) if ct_gamma else None, options=options, scores_format=scores_format,
        calibration=calibration, collection=collection)
    print_notes([])  # how the runs were named, if the command line named them
    print(f"pateval: wrote {path}", file=sys.stderr)
