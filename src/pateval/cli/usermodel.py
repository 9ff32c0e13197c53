"""``pateval user-model`` (time, simulate, simulate-log) and ``pateval calibrate``: time-biased
gain's user, rank by rank, simulated, and calibrated from interaction logs."""

from __future__ import annotations

import argparse
import sys

from ..errors import PatevalError
from .shared import (
    add_command,
    add_flags,
    add_group,
    add_output,
    add_qrels_and_runs,
    add_ranking_options,
    add_table_output,
    examples,
    save_figures,
    write_text_or_print,
)

_USER_MODEL_EXAMPLES = {
    "time": ("pateval user-model time qrels.txt bm25.run --doc-lengths lengths.txt",
             "pateval user-model time qrels.txt bm25.run --doc-lengths lengths.txt --model 'TBG(halflife=600)' "
             "--format csv -o tk.csv"),
    "simulate": ("pateval user-model simulate qrels.txt bm25.run --doc-lengths lengths.txt",
                 "pateval user-model simulate qrels.txt bm25.run lm.run --doc-lengths lengths.txt --users 1000 "
                 "--seed 1"),
}


def _add_user_model(commands) -> None:
    sub = add_group(commands, "user-model", dest="user_model_command",
                    help="time-biased gain's user: when each document is reached, and simulated users",
                    description="The TBG user model over runs and qrels: `pateval user-model time` gives T(k), the "
                    "time at which the user reaches each rank, with the gain earned (plot time against rank); "
                    "`pateval user-model simulate` draws stochastic users and reports their mean gain, spread and "
                    "confidence interval beside the closed form.")
    for name, help in (
        ("time", "T(k) and the gain earned at every rank of every topic (one row per retrieved document)"),
        ("simulate", "simulated users per topic: mean gain, spread, confidence interval, exact expectation"),
    ):
        p = add_command(sub, name, _run_user_model, help=help, description=help,
                        epilog=examples(*_USER_MODEL_EXAMPLES[name], glossary=(f"user-model {name}",)))
        add_qrels_and_runs(p)
        add_flags(p, "model")
        add_ranking_options(p)
        if name == "simulate":
            p.add_argument("--users", type=int, default=10_000, help="simulated users per topic (default 10000)")
            add_flags(p, "seed", help="seed (default 0; the same seed, the same numbers)")
            p.add_argument("--confidence", type=float, default=0.95,
                           help="confidence level of the interval (default 0.95)")
        add_table_output(p)
    _add_simulate_log(sub)


def _run_user_model(*, qrels, runs, model: str, options, format: str, precision: int, output,
                    users: int | None = None, seed: int = 0, confidence: float = 0.95) -> None:
    """``user-model time``, or ``user-model simulate`` (which alone has --users, --seed, --confidence)."""
    from .. import api
    from ..report.tables import render_frame

    settings: dict = {"model": model, "order": options.order}
    if users is None:
        frame = api.time_to_rank(qrels, runs, model=model, options=options)
    else:
        frame = api.simulate_users(qrels, runs, model=model, n_users=users, seed=seed, confidence=confidence,
                                   options=options)
        settings.update(users=users, seed=seed, confidence=confidence)
    write_text_or_print(render_frame(frame, format=format, precision=precision, settings=settings), output)


# ---- calibrate, user-model simulate-log (TBG calibrated from interaction logs) ----------------

def _add_calibrate(commands) -> None:
    p = add_command(
        commands, "calibrate", _run_calibrate, extra="stats", needs="pateval.calibration.tbg",
        help="time-biased gain's constants estimated from an interaction log (Smucker & Clarke 2012)",
        description="Estimate T_S, T_D(l) = a l + b, P(C|R), P(S|R) and the half-life h from what users did on ranked "
        "lists, as the TBG paper defines the estimators, each with a bootstrap interval over users and the unweighted "
        "user average; print the table and the TBG measure name with these constants.",
        epilog=examples("pateval calibrate log.csv.gz --qrels qrels.txt --run bm25.run --doc-lengths lengths.txt",
                        "pateval calibrate log.csv.gz --qrels qrels.txt --run bm25.run --doc-lengths lengths.txt --by "
                        "user-class --plots figures/",
                        "pateval calibrate log.csv.gz --qrels qrels.txt --run bm25.run --doc-lengths lengths.txt "
                        "--measure-only", glossary=("calibration",)),
    )
    p.add_argument("log", metavar="LOG", help="interaction log: .csv, .tsv, .jsonl or .parquet, optionally .gz "
                   "(columns user, list, time, event[, rank, docno]; see the README)")
    p.add_argument("--qrels", required=True, metavar="QRELS", help="qrels file (a list's topic is a qrels topic)")
    p.add_argument("--run", action="append", dest="runs", required=True, metavar="RUN",
                   help="the run whose rankings the users searched (repeatable; with several, --lists says which is "
                   "which)")
    p.add_argument("--lists", metavar="FILE",
                   help="`list topic [run]` lines: the topic and run of each list of the log "
                   "(default: a list is a topic of the one run)")
    p.add_argument("--by", choices=("topic", "user-class"),
                   help="also one calibration per topic, or per class of users by speed")
    p.add_argument("--classes", type=int, default=2, help="user classes for --by user-class (default 2: slow, fast)")
    p.add_argument("-B", "--resamples", type=int, default=1000, dest="B", metavar="B",
                   help="bootstrap resamples of users (default 1000)")
    add_flags(p, "seed", help="bootstrap seed (default 0)")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (default 0.95)")
    p.add_argument("-l", "--relevance-level", type=int, default=1, dest="rel", metavar="N",
                   help="minimum grade counted as relevant (trec_eval -l; default 1)")
    p.add_argument("--rel", type=int, dest="rel", default=argparse.SUPPRESS, help=argparse.SUPPRESS)  # older spelling
    p.add_argument("--plots", metavar="DIR",
                   help="write the figures (reading time, stopping, rank over time) as PNG and SVG")
    p.add_argument("--measure-only", action="store_true", help="print only the measure name (of all sessions)")
    add_table_output(p)
    add_ranking_options(p.add_argument_group("ranking", "how the qrels and runs are read and ranked, and the side "
                                             "inputs (--doc-lengths is needed; --duplicates: near-duplicate groups, "
                                             "later views of a group are duplicate views)"))


def _calibration_text(result, format: str, precision: int) -> str:
    from ..report.tables import render_frame

    if format == "json":
        return result.to_json()
    text = render_frame(result.frame(), format=format, precision=precision, settings=result.settings)
    if format != "text":
        return text
    lines = [text]
    for c in result.calibrations:
        reading, dup, stop = c.fit["reading"], c.fit["duplicates"], c.fit["stopping"]
        lines.append(f"{c.group}: {c.users} users, {c.sessions} sessions")
        lines.append(f"  reading fit: {reading['n']} first views, adjusted R^2 {reading['adjusted_r2']:.4f}, "
                     f"se(read_slope) {reading['read_slope_se']:.4g}, se(read_intercept) "
                     f"{reading['read_intercept_se']:.4g}")
        if dup["n"]:
            lines.append(f"  duplicate views: {dup['n']}, mean {dup['mean']:.4g} s +- {dup['se']:.3g} (se); against "
                         f"read_intercept p = {dup['p_value']:.3g}; one-se bars overlap: "
                         f"{'yes' if dup['se_bars_overlap'] else 'no'}")
        lines.append(f"  stopping: {stop['stopped']} stopped, {stop['censored']} censored; largest gap between "
                     f"Kaplan-Meier and 2^(-t/h): {stop['km_max_gap']:.4f}")
        lines += [f"  note: {note}" for note in c.notes] + [f"  measure: {c.measure}"]
    return "\n".join(lines) + "\n"


def _run_calibrate(*, log, qrels, runs, options, lists, by, classes: int, B: int, seed: int, confidence: float,
                   rel: int, plots, measure_only: bool, format: str, precision: int, output) -> None:
    from .. import api

    if "doc_lengths" not in options.resources:
        raise PatevalError("calibrate needs --doc-lengths (the document lengths file, `docno length` lines)")
    lengths, groups = options.resources["doc_lengths"], options.resources.get("duplicate_groups")
    result = api.calibrate(log, qrels=qrels, runs=runs, doc_lengths=lengths, duplicates=groups, lists=lists,
                           by=by, n_classes=classes, B=B, seed=seed, confidence=confidence, rel=rel, options=options)
    if measure_only:
        write_text_or_print(result.calibrations[0].measure + "\n", output)
    else:
        write_text_or_print(_calibration_text(result, format, precision), output)
        if format != "text":
            for c in result.calibrations:
                print(f"pateval: measure ({c.group}): {c.measure}", file=sys.stderr)
    if plots:
        figures = api.calibration_figures(result, doc_lengths=lengths, duplicates=groups)
        validation = figures.pop("validation")
        save_figures({f"calibration_{name}": figure for name, figure in figures.items()}, plots)
        summary = validation.groupby("time")["error"].mean().dropna() if not validation.empty else validation
        if len(summary):
            print("pateval: T(k) against users: mean absolute rank error "
                  + ", ".join(f"{v:.2f} at {t:g} s" for t, v in summary.items()), file=sys.stderr)
        if "error_custom" in validation.columns:
            own = validation.groupby("time")["error_custom"].mean().dropna()
            print("pateval: each topic's own T(k) against users: mean absolute rank error "
                  + ", ".join(f"{v:.2f} at {t:g} s" for t, v in own.items()), file=sys.stderr)


def _add_simulate_log(sub) -> None:
    help = "simulate users who behave as a TBG calibration says, writing an interaction log"
    p = add_command(sub, "simulate-log", _run_simulate_log, help=help,
                    description=help + " (one session per user and topic of the run; the noise is described in the "
                    "README). Calibrating the log recovers the constants.",
                    epilog=examples("pateval user-model simulate-log --qrels qrels.txt --run bm25.run --doc-lengths "
                                    "lengths.txt --out log.csv.gz",
                                    "pateval user-model simulate-log --qrels qrels.txt --run bm25.run --doc-lengths "
                                    "lengths.txt --model 'TBG(halflife=300,summary_time=3)' --users 48 --seed 1 --out "
                                    "log.csv.gz"))
    p.add_argument("--qrels", required=True, metavar="QRELS", help="qrels file")
    p.add_argument("--run", required=True, dest="run_file", metavar="RUN",
                   help="the run whose rankings the users work through")
    p.add_argument("--doc-lengths", required=True, metavar="FILE", help="document lengths file (`docno length` lines)")
    p.add_argument("--duplicates", metavar="FILE", help="near-duplicate groups, for a model with duplicates=groups")
    add_flags(p, "model")
    p.add_argument("--users", type=int, default=48, help="simulated users (default 48, as the paper's study)")
    add_flags(p, "seed")
    p.add_argument("--page-size", type=int, default=10, help="summaries per results page (default 10)")
    p.add_argument("--p-save-nonrel", type=float, default=0.27,
                   help="P(S=1|R=0), not a TBG parameter (default 0.27, the paper's)")
    p.add_argument("--summary-noise", type=float, default=0.5,
                   help="coefficient of variation of a summary's time (gamma; default 0.5)")
    p.add_argument("--read-noise", type=float, default=0.5,
                   help="log-scale sd of the reading time's factor (log-normal, mean 1; default 0.5)")
    p.add_argument("--speed-spread", type=float, default=0.0,
                   help="log-scale sd of each user's speed factor (default 0: all alike)")
    add_flags(p, "order")
    add_output(p, "--out", required=True, metavar="LOG",
               help="the log to write (.csv, .tsv, .jsonl, .parquet, optionally .gz)")


def _run_simulate_log(*, qrels, run_file, duplicates, users: int, order: str, out, **simulation) -> None:
    """``simulation``: the other options (model, seed, noise, ...), keywords of :func:`pateval.api.simulate_log`."""
    from .. import api
    from ..formats.groups import read_duplicate_groups
    from ..options import EvaluationOptions

    resources = {"duplicate_groups": read_duplicate_groups(duplicates)} if duplicates else {}
    log = api.simulate_log(qrels, run_file, n_users=users, out=out,
                           options=EvaluationOptions(order=order, resources=resources), **simulation)
    print(f"pateval: wrote {len(log)} events of {log['user'].nunique()} users on {log['list'].nunique()} lists to "
          f"{out}", file=sys.stderr)
