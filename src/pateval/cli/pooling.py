"""``pateval fuse`` and ``pateval pool build|stats``: from runs to the documents to judge."""

from __future__ import annotations

import sys

from ..pooling.names import FUSION_METHODS, NORMALISATIONS, POOL_METHODS, RBP_AGGREGATES
from .shared import add_command, add_flags, add_group, add_output, examples, write_text_or_print

__all__ = ["_add_fuse", "_add_pool"]


def _add_run_reading(p) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files (TREC format)")
    add_flags(p, "order")
    p.add_argument("--on-duplicate", choices=("error", "first"), default="error",
                   help="a document twice for a topic: error, or keep the first")


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


def _run_fuse(*, runs: list[str], order: str, on_duplicate: str, method: str, norm: str | None, k: float,
              name: str | None, output: str | None) -> int:
    from .. import api
    from ..formats.trec import run_lines

    to_file = output is not None and output != "-"
    run = api.fuse(runs, method, norm=norm, k=k, order=order, on_duplicate=on_duplicate, name=name,
                   output=output if to_file else None)
    if not to_file:
        sys.stdout.writelines(run_lines(run))
    return 0


def _add_pool(commands) -> None:
    sub = add_group(commands, "pool", help="pool runs: the documents to judge, in judging order",
                    dest="pool_command")
    p = add_command(
        sub, "build", _run_pool_build, help="pool runs (depth-k, RBP, RRF, Take@N of a fusion, adaptive orders)",
        description="Pool runs per topic and write each pooled document with its place in the judging order and "
        "the runs that contributed it. depth: every document some run ranks in its first --depth; rbp, rrf: the "
        "--size heaviest documents by RBP or RRF weight (as trectools' TrecPoolMaker); fused: the first --size of "
        "a fused ranking (Take@N); mtf, mm-ns: adaptive orders (move-to-front, the MM-NS bandit) that use the "
        "judgements (--qrels) as they arrive.",
        epilog=examples("pateval pool build run1.txt run2.txt --method depth --depth 100 -o pool.txt",
                        "pateval pool build run*.txt --method rbp --size 100 --p 0.8 --aggregate max -o pool.txt",
                        "pateval pool build run*.txt --method fused --fusion combmnz --size 50 -o pool.txt",
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
                     epilog=examples("pateval pool stats pool.txt"))
    st.add_argument("pool", metavar="POOL", help="pool file (pateval pool build)")
    add_output(st, "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")


def _run_pool_build(*, runs: list[str], order: str, on_duplicate: str, method: str, depth: int | None,
                    size: int | None, p: float, aggregate: str, k: float, fusion: str, norm: str | None,
                    discount: float, ties: str, qrels: str | None, relevance_level: int, stats: bool,
                    output: str) -> int:
    from .. import api

    if depth is None and method == "depth":
        depth = 10
    pool = api.make_pool(runs, method, depth=depth, size=size, qrels=qrels, relevance_level=relevance_level, p=p,
                         aggregate=aggregate, k=k, fusion=fusion, norm=norm, discount=discount, order=order,
                         ties=ties, on_duplicate=on_duplicate, output=output)
    print(f"pateval: pooled {len(pool)} documents over {len(pool.sizes())} topics from {len(pool.runs)} runs "
          f"({pool.description}) into {output}", file=sys.stderr)
    if stats:
        sys.stderr.write(api.pool_stats(pool).text())
    return 0


def _run_pool_stats(*, pool: str, output: str | None) -> int:
    from .. import api

    write_text_or_print(api.pool_stats(pool).text(), output)
    return 0

