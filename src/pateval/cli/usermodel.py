"""``pateval user-model`` (time, simulate, simulate-log) and ``pateval calibrate``: time-biased
gain's user, rank by rank, simulated, and calibrated from interaction logs."""

from __future__ import annotations

import argparse
import sys

from ..errors import PatevalError
from .shared import (
    add_group,
    add_output,
    add_qrels_and_runs,
    add_ranking_options,
    add_table_output,
    evaluation_options,
    examples,
    ranking_resources,
    resolve_qrels_and_runs,
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
    for name, help, run in (
        ("time", "T(k) and the gain earned at every rank of every topic (one row per retrieved document)",
         _run_user_time),
        ("simulate", "simulated users per topic: mean gain, spread, confidence interval, exact expectation",
         _run_user_simulate),
    ):
        p = sub.add_parser(name, help=help, description=help)
        add_qrels_and_runs(p)
        p.add_argument("--model", default="TBG", metavar="TBG(...)",
                       help="the calibration as a TBG measure name, e.g. 'TBG(halflife=600,read_slope=0.03)' (default: "
                       "TBG)")
        add_ranking_options(p)
        if name == "simulate":
            p.add_argument("--users", type=int, default=10_000, help="simulated users per topic (default 10000)")
            p.add_argument("--seed", type=int, default=0, help="seed (default 0; the same seed, the same numbers)")
            p.add_argument("--confidence", type=float, default=0.95,
                           help="confidence level of the interval (default 0.95)")
        add_table_output(p)
        p.epilog = examples(*_USER_MODEL_EXAMPLES[name], glossary=(f"user-model {name}",))
        p.set_defaults(run=run)
    _add_simulate_log(sub)


def _user_model_options(args) -> dict:
    return {"model": args.model, "qrels_format": args.qrels_format, "order": args.order, "doc_key": args.doc_key,
            "on_duplicate": args.on_duplicate, "resources": ranking_resources(args)}


def _write_user_model_frame(frame, args, settings: dict) -> None:
    from ..report.tables import render_frame

    write_text_or_print(render_frame(frame, format=args.format, precision=args.precision, settings=settings),
                         args.output)


def _run_user_time(args) -> int:
    from .. import api

    options = _user_model_options(args)
    resolve_qrels_and_runs(args)
    frame = api.time_to_rank(args.qrels, list(args.runs), **options)
    _write_user_model_frame(frame, args, {"model": args.model, "order": args.order})
    return 0


def _run_user_simulate(args) -> int:
    from .. import api

    options = _user_model_options(args)
    resolve_qrels_and_runs(args)
    frame = api.simulate_users(args.qrels, list(args.runs), n_users=args.users, seed=args.seed,
                               confidence=args.confidence, **options)
    _write_user_model_frame(frame, args, {"model": args.model, "order": args.order, "users": args.users,
                                          "seed": args.seed, "confidence": args.confidence})
    return 0


# ---- calibrate, user-model simulate-log (TBG calibrated from interaction logs) ----------------

def _add_calibrate(commands) -> None:
    p = commands.add_parser(
        "calibrate",
        help="time-biased gain's constants estimated from an interaction log (Smucker & Clarke 2012)",
        description="Estimate T_S, T_D(l) = a l + b, P(C|R), P(S|R) and the half-life h from what users did on ranked "
        "lists, as the TBG paper defines the estimators, each with a bootstrap interval over users and the unweighted "
        "user average; print the table and the TBG measure name with these constants.",
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
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
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
    p.epilog = examples("pateval calibrate log.csv.gz --qrels qrels.txt --run bm25.run --doc-lengths lengths.txt",
                        "pateval calibrate log.csv.gz --qrels qrels.txt --run bm25.run --doc-lengths lengths.txt --by "
                        "user-class --plots figures/",
                        "pateval calibrate log.csv.gz --qrels qrels.txt --run bm25.run --doc-lengths lengths.txt "
                        "--measure-only", glossary=("calibration",))
    p.set_defaults(run=_run_calibrate)


def _calibration_text(result, args) -> str:
    from ..report.tables import render_frame

    if args.format == "json":
        return result.to_json()
    text = render_frame(result.frame(), format=args.format, precision=args.precision, settings=result.settings)
    if args.format != "text":
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
                         f"read_intercept "
                         f"p = {dup['p_value']:.3g}; one-se bars overlap: {'yes' if dup['se_bars_overlap'] else 'no'}")
        lines.append(f"  stopping: {stop['stopped']} stopped, {stop['censored']} censored; largest gap between "
                     f"Kaplan-Meier "
                     f"and 2^(-t/h): {stop['km_max_gap']:.4f}")
        for note in c.notes:
            lines.append(f"  note: {note}")
        lines.append(f"  measure: {c.measure}")
    return "\n".join(lines) + "\n"


def _run_calibrate(args) -> int:
    from .. import api
    from ..calibration import tbg  # noqa: F401 -- a missing extra (scipy) is named before any input is read

    if args.resource_doc_lengths is None:
        raise PatevalError("calibrate needs --doc-lengths (the document lengths file, `docno length` lines)")
    options = evaluation_options(args)
    lengths, groups = options.resources["doc_lengths"], options.resources.get("duplicate_groups")
    result = api.calibrate(args.log, qrels=args.qrels, runs=list(args.runs), doc_lengths=lengths, duplicates=groups,
                           lists=args.lists, by=args.by, n_classes=args.classes, B=args.B, seed=args.seed,
                           confidence=args.confidence, rel=args.rel, qrels_format=options.qrels_format,
                           order=options.order, doc_key=options.doc_key, on_duplicate=options.on_duplicate)
    if args.measure_only:
        write_text_or_print(result.calibrations[0].measure + "\n", args.output)
    else:
        write_text_or_print(_calibration_text(result, args), args.output)
        if args.format != "text":
            for c in result.calibrations:
                print(f"pateval: measure ({c.group}): {c.measure}", file=sys.stderr)
    if args.plots:
        figures = api.calibration_figures(result, doc_lengths=lengths, duplicates=groups)
        validation = figures.pop("validation")
        save_figures({f"calibration_{name}": figure for name, figure in figures.items()}, args.plots)
        summary = validation.groupby("time")["error"].mean().dropna() if not validation.empty else validation
        if len(summary):
            print("pateval: T(k) against users: mean absolute rank error "
                  + ", ".join(f"{v:.2f} at {t:g} s" for t, v in summary.items()), file=sys.stderr)
        if "error_custom" in validation.columns:
            own = validation.groupby("time")["error_custom"].mean().dropna()
            print("pateval: each topic's own T(k) against users: mean absolute rank error "
                  + ", ".join(f"{v:.2f} at {t:g} s" for t, v in own.items()), file=sys.stderr)
    return 0


def _add_simulate_log(sub) -> None:
    from ..core.names import ORDERS

    help = "simulate users who behave as a TBG calibration says, writing an interaction log"
    p = sub.add_parser("simulate-log", help=help, description=help + " (one session per user and topic of the run; the "
                       "noise is described in the README). Calibrating the log recovers the constants.")
    p.add_argument("--qrels", required=True, metavar="QRELS", help="qrels file")
    p.add_argument("--run", required=True, dest="run_file", metavar="RUN",
                   help="the run whose rankings the users work through")
    p.add_argument("--doc-lengths", required=True, metavar="FILE", help="document lengths file (`docno length` lines)")
    p.add_argument("--duplicates", metavar="FILE", help="near-duplicate groups, for a model with duplicates=groups")
    p.add_argument("--model", default="TBG", metavar="TBG(...)",
                   help="the calibration the users follow (default: TBG, the paper's)")
    p.add_argument("--users", type=int, default=48, help="simulated users (default 48, as the paper's study)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--page-size", type=int, default=10, help="summaries per results page (default 10)")
    p.add_argument("--p-save-nonrel", type=float, default=0.27,
                   help="P(S=1|R=0), not a TBG parameter (default 0.27, the paper's)")
    p.add_argument("--summary-noise", type=float, default=0.5,
                   help="coefficient of variation of a summary's time (gamma; default 0.5)")
    p.add_argument("--read-noise", type=float, default=0.5,
                   help="log-scale sd of the reading time's factor (log-normal, mean 1; default 0.5)")
    p.add_argument("--speed-spread", type=float, default=0.0,
                   help="log-scale sd of each user's speed factor (default 0: all alike)")
    p.add_argument("--order", choices=ORDERS, default="score",
                   help="rank by score (trec_eval), the rank column, or file order")
    add_output(p, "--out", required=True, metavar="LOG",
               help="the log to write (.csv, .tsv, .jsonl, .parquet, optionally .gz)")
    p.epilog = examples("pateval user-model simulate-log --qrels qrels.txt --run bm25.run --doc-lengths lengths.txt "
                        "--out log.csv.gz",
                        "pateval user-model simulate-log --qrels qrels.txt --run bm25.run --doc-lengths lengths.txt "
                        "--model 'TBG(halflife=300,summary_time=3)' --users 48 --seed 1 --out log.csv.gz")
    p.set_defaults(run=_run_simulate_log)


def _run_simulate_log(args) -> int:
    from .. import api
    from ..formats.groups import read_duplicate_groups

    resources = {"duplicate_groups": read_duplicate_groups(args.duplicates)} if args.duplicates else None
    log = api.simulate_log(args.qrels, args.run_file, doc_lengths=args.doc_lengths, model=args.model,
                           n_users=args.users,
                           seed=args.seed, out=args.out, resources=resources, page_size=args.page_size,
                           p_save_nonrel=args.p_save_nonrel, summary_noise=args.summary_noise,
                           read_noise=args.read_noise,
                           speed_spread=args.speed_spread, order=args.order)
    print(f"pateval: wrote {len(log)} events of {log['user'].nunique()} users on {log['list'].nunique()} lists to "
          f"{args.out}",
          file=sys.stderr)
    return 0
