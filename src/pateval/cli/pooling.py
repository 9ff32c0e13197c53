"""``pateval fuse`` and ``pateval pool build|stats``: from runs to the documents to judge."""

from __future__ import annotations

import sys

from ..pooling.names import ESTIMATES, FUSION_METHODS, NORMALISATIONS, POOL_METHODS, RBP_AGGREGATES, STAT_ESTIMATES
from .shared import (
    add_command,
    add_flags,
    add_group,
    add_output,
    add_qrels_and_runs,
    add_ranking_options,
    examples,
    save_figures,
    write_text_or_print,
)


def _add_run_reading(p) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files (TREC format)")
    add_flags(p, "order", "on_duplicate")


def _add_fuse(commands) -> None:
    p = add_command(
        commands, "fuse", _run_fuse, help="fuse runs into one run (CombSUM, CombMNZ, RRF, Borda)",
        description="Fuse runs into one TREC run, as ranx's fuse: CombSUM and CombMNZ of min-max, z-score or sum "
        "normalised scores, reciprocal rank fusion (k=60), Borda count. Each run is ranked first (score "
        "descending, ties by docno descending, as trec_eval); the fused run is ranked the same way.",
        epilog=examples("pateval fuse run1.txt run2.txt run3.txt --method rrf -o fused.txt",
                        "pateval fuse run1.txt run2.txt --method combmnz --norm z-score --name mnz"))
    _add_run_reading(p)
    p.add_argument("--method", choices=FUSION_METHODS, default="rrf", help="fusion method (default rrf)")
    p.add_argument("--norm", choices=NORMALISATIONS,
                   help="score normalisation of combsum and combmnz (default min-max, as ranx)")
    p.add_argument("--k", type=float, default=60.0, help="RRF's constant (default 60)")
    p.add_argument("--name", help="the fused run's tag (default: the method)")
    add_output(p, "-o", "--output", metavar="FILE", help="write the run to FILE (atomically) instead of stdout")


def _run_fuse(*, runs: list[str], method: str, output: str | None, **settings) -> None:
    """``settings``: the other options (norm, k, name, order, ...), keywords of :func:`pateval.api.fuse`."""
    from .. import api
    from ..formats.trec import run_lines

    to_file = output is not None and output != "-"
    run = api.fuse(runs, method, output=output if to_file else None, **settings)
    if not to_file:
        sys.stdout.writelines(run_lines(run))


def _add_pool(commands) -> None:
    sub = add_group(commands, "pool", help="pool runs: the documents to judge, in judging order", dest="pool_command")
    p = add_command(
        sub, "build", _run_pool_build, help="pool runs (depth-k, RBP, RRF, Take@N of a fusion, adaptive orders)",
        description="Pool runs per topic and write each pooled document with its place in the judging order and "
        "the runs that contributed it. depth: every document some run ranks in its first --depth; rbp, rrf: the "
        "--size heaviest documents by RBP or RRF weight (as trectools' TrecPoolMaker); fused: the first --size of "
        "a fused ranking (Take@N); mtf, mm-ns: adaptive orders (move-to-front, the MM-NS bandit) that use the "
        "judgements (--qrels) as they arrive; ap-prior: every retrieved document by AP-prior, heaviest first (statAP's "
        "sampling distribution: stratify it with pool sample, estimate with pool estimate -e statAP).",
        epilog=examples("pateval pool build run1.txt run2.txt --method depth --depth 100 -o pool.txt",
                        "pateval pool build run*.txt --method rbp --size 100 --p 0.8 --aggregate max -o pool.txt",
                        "pateval pool build run*.txt --method mtf --qrels qrels.txt --size 200 -o pool.txt"))
    _add_run_reading(p)
    p.add_argument("--method", choices=POOL_METHODS, default="depth", help="how to pool (default depth)")
    p.add_argument("--depth", type=int, default=None, metavar="K",
                   help="depth-k's k (default 10); adaptive orders: how deep each run is read (default: all)")
    p.add_argument("--size", type=int, metavar="N",
                   help="documents per topic (required by rbp, rrf, fused; a budget for the others)")
    p.add_argument("--p", type=float, default=0.8, help="RBP's persistence (default 0.8)")
    p.add_argument("--aggregate", choices=RBP_AGGREGATES, default="sum",
                   help="how RBP weights of one document combine (default sum)")
    p.add_argument("--k", type=float, default=60.0, help="RRF's constant (default 60)")
    p.add_argument("--fusion", choices=FUSION_METHODS, default="rrf", help="the fusion of --method fused")
    p.add_argument("--norm", choices=NORMALISATIONS, help="its normalisation (combsum, combmnz; default min-max)")
    p.add_argument("--discount", type=float, default=0.9, help="MM-NS's discount of past judgements (default 0.9)")
    p.add_argument("--ties", choices=("ascending", "descending"), default="ascending",
                   help="equal scores of a run ranked by docno ascending (trectools, default) or descending "
                   "(trec_eval)")
    p.add_argument("--qrels", metavar="QRELS", help="judgements the adaptive orders use as they arrive")
    p.add_argument("-l", "--relevance-level", type=int, default=1, metavar="N",
                   help="grade counted as relevant by the adaptive orders (default 1)")
    p.add_argument("--stats", action="store_true", help="print the pool's statistics on stderr")
    add_output(p, "-o", "--output", metavar="FILE", required=True, help="the pool file to write")
    st = add_command(sub, "stats", _run_pool_stats,
                     help="a pool's size per topic, and the documents each run contributed and alone contributed",
                     epilog=examples("pateval pool stats pool.txt", "pateval pool stats pool.txt -o stats.txt"))
    st.add_argument("pool", metavar="POOL", help="pool file (pateval pool build)")
    add_output(st, "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    sim = add_command(
        sub, "simulate", _run_pool_simulate, extra="stats",
        help="replay judging orders at budgets against complete qrels: relevant found, Kendall's tau, tau_ap",
        description="Given complete qrels and runs, judge each topic's first B documents of each judging order "
        "(depth, rbp, rrf, fused, mtf, mm-ns) for every budget B, and report the judgements made, the relevant "
        "documents found and found per judgement, and how the system ranking by the measure moves against the "
        "complete qrels' (Kendall's tau, tau_ap, the largest rank change). The qrels' documents no run retrieved "
        "stay judged; at the full budget tau is 1.",
        epilog=examples("pateval pool simulate qrels.txt run*.txt --budgets 10,20,50,100 --orders depth,mtf,mm-ns",
                        "pateval pool simulate qrels.txt run*.txt --budgets 50,100 -m nDCG@10 --plots figures"))
    add_qrels_and_runs(sim)
    sim.add_argument("--budgets", required=True, type=_budgets, metavar="B1,B2,...",
                     help="judgements per topic, comma-separated")
    sim.add_argument("--orders", default="depth,mtf,mm-ns", metavar="LIST",
                     help=f"judging orders, comma-separated, of {', '.join(POOL_METHODS)} (default depth,mtf,mm-ns)")
    sim.add_argument("-m", "--measure", default="AP", help="the measure that ranks the runs (default AP)")
    sim.add_argument("-l", "--relevance-level", type=int, metavar="N",
                     help="grade counted as relevant, by the orders and the measure (default 1)")
    add_ranking_options(sim)
    _add_simulation_output(sim)
    reuse = add_command(
        sub, "reuse", _run_pool_reuse, extra="stats",
        help="leave-one-run-out / leave-one-group-out reusability of a depth-k pool",
        description="For each run (or group of runs), remove from the qrels the documents of the depth-k pool only "
        "it contributed, score it on what is left, and report its score and rank change against the complete "
        "qrels (Zobel 1998; Buettcher et al. 2007).",
        epilog=examples("pateval pool reuse qrels.txt run*.txt --depth 100",
                        "pateval pool reuse qrels.txt run*.txt --depth 100 --groups teams.txt"))
    add_qrels_and_runs(reuse)
    reuse.add_argument("--depth", type=int, default=100, metavar="K", help="the pool's depth (default 100)")
    reuse.add_argument("--groups", metavar="FILE", help="`run group` lines: leave each group out at once")
    reuse.add_argument("-m", "--measure", default="AP", help="the measure (default AP)")
    add_ranking_options(reuse)
    _add_simulation_output(reuse, plots=False)
    sample = add_command(
        sub, "sample", _run_pool_sample,
        help="a stratified random sample of a pool (sample_eval.pl's sampled qrels with --qrels)",
        description="Stratify each topic's pool by place in the judging order and draw each stratum at its rate "
        "(at least one document of a stratum that has any). Without --qrels, writes the documents to judge: "
        "`topic docno stratum probability sampled` lines; with --qrels (judgements at hand), sample_eval.pl's "
        "sampled qrels: `topic 0 docno stratum grade`, grade -1 for a pooled document not drawn.",
        epilog=examples("pateval pool sample pool.txt --strata 1-10:1,11-100:0.2,101-:0.05 -o sample.txt",
                        "pateval pool sample pool.txt --strata 1-10:1,11-:0.1 --qrels qrels.txt -o sampled_qrels.txt"))
    sample.add_argument("pool", metavar="POOL", help="pool file (pateval pool build)")
    sample.add_argument("--strata", required=True, metavar="FIRST-LAST:RATE,...",
                        help="strata by place, each with its rate in (0, 1]; the last open (e.g. 101-:0.05)")
    add_flags(sample, "seed")
    sample.add_argument("--qrels", metavar="QRELS", help="grades of the drawn documents (absent: 0)")
    add_output(sample, "-o", "--output", metavar="FILE", required=True, help="the sample file to write")
    est = add_command(
        sub, "estimate", _run_pool_estimate,
        help="xinfAP, infNDCG, statAP and estimated relevant counts from sampled qrels (as sample_eval.pl, "
        "statAP_MQ_eval)",
        epilog=examples("pateval pool estimate sampled_qrels.txt run1.txt run2.txt",
                        "pateval pool estimate sampled_qrels.txt run*.txt -q -o estimates.txt",
                        "pateval pool estimate sampled_qrels.txt run*.txt -e statAP,inum_rel"))
    est.add_argument("sample", metavar="SAMPLED_QRELS", help="sampled qrels (sample_eval.pl's format)")
    est.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    est.add_argument("-e", "--estimates", type=_names, metavar="LIST",
                     help=f"the estimates, comma-separated, of {', '.join(ESTIMATES + STAT_ESTIMATES)} (default "
                     f"sample_eval.pl's: {','.join(ESTIMATES)})")
    est.add_argument("-q", "--per-topic", action="store_true", help="every topic's values, not only the means")
    add_flags(est, "on_duplicate")
    add_output(est, "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")


def _run_pool_sample(*, pool: str, strata: str, seed: int, qrels: str | None, output: str) -> None:
    from .. import api

    sample = api.sample_pool(pool, strata, seed=seed, qrels=qrels, output=output)
    print(f"pateval: drew {int(sample.sampled.sum())} of {len(sample.sampled)} pooled documents into {output}",
          file=sys.stderr)


def _run_pool_estimate(*, sample: str, runs: list[str], estimates: list[str] | None, per_topic: bool,
                       on_duplicate: str, output: str | None) -> None:
    from .. import api

    table = api.estimate_from_sample(sample, runs, estimates=estimates, on_duplicate=on_duplicate)
    left_out = table.attrs.get("statAP_left_out", [])
    if left_out:
        print(f"pateval: note: {len(left_out)} topic(s) without a drawn relevant document ({', '.join(left_out[:5])}"
              f"{', ...' if len(left_out) > 5 else ''}) have no statAP and are left out of its mean, as "
              "statAP_MQ_eval leaves them out of statMAP", file=sys.stderr)
    if not per_topic:
        table = table[table["topic"] == "all"]
    lines = [f"{row.run}\t{row.measure}\t{row.topic}\t{row.value:.4f}\n" for row in table.itertuples()]
    write_text_or_print("".join(lines), output)


def _add_simulation_output(p, *, plots: bool = True) -> None:
    p.add_argument("--ties", choices=("ascending", "descending"), default="ascending",
                   help="equal scores of a run ranked by docno ascending (trectools, default) or descending")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="table format (default text)")
    if plots:
        add_flags(p, "plots")
    add_output(p, "-o", "--output", metavar="FILE", help="write the table to FILE (atomically) instead of stdout")


def _names(text: str) -> list[str]:
    """A comma-separated list of names (checked by the command)."""
    return [part.strip() for part in text.split(",") if part.strip()]


def _budgets(text: str) -> list[int]:
    import argparse

    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"budgets are comma-separated positive integers, not {text!r}")
    return values


def _table_text(table, format: str) -> str:
    if format == "csv":
        return table.to_csv(index=False)
    if format == "json":
        return table.to_json(orient="records", indent=1) + "\n"
    return table.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n"


def _run_pool_simulate(*, qrels: str, runs: list[str], budgets: list[int], orders: str, measure: str, options,
                       ties: str, format: str, plots: str | None, output: str | None) -> None:
    from .. import api

    table = api.simulate_budgets(qrels, runs, budgets, orders=orders, measure=measure,
                                 relevance_level=options.relevance_level or 1, options=options, ties=ties)
    if plots:
        from ..report.budgets import plot_budgets

        save_figures({"budgets": plot_budgets(table, measure=measure)}, plots)
    write_text_or_print(_table_text(table, format), output)


def _run_pool_reuse(*, qrels: str, runs: list[str], depth: int, groups: str | None, measure: str, options, ties: str,
                    format: str, output: str | None) -> None:
    from .. import api
    from ..formats.pools import read_run_groups

    mapping = None if groups is None else read_run_groups(groups)
    table = api.leave_out(qrels, runs, depth=depth, groups=mapping, measure=measure, options=options, ties=ties)
    write_text_or_print(_table_text(table, format), output)


def _run_pool_build(*, runs: list[str], method: str, depth: int | None, stats: bool, output: str, **settings) -> None:
    """``settings``: the other options, each a keyword of :func:`pateval.api.make_pool` by its name."""
    from .. import api

    if depth is None and method == "depth":
        depth = 10
    pool = api.make_pool(runs, method, depth=depth, output=output, **settings)
    print(f"pateval: pooled {len(pool)} documents over {len(pool.sizes())} topics from {len(pool.runs)} runs "
          f"({pool.description}) into {output}", file=sys.stderr)
    if stats:
        sys.stderr.write(api.pool_stats(pool).text())


def _run_pool_stats(*, pool: str, output: str | None) -> None:
    from .. import api

    write_text_or_print(api.pool_stats(pool).text(), output)

