"""From runs to the documents to judge: fusion and pools (:mod:`pateval.pooling`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, cast

from ..core.qrels import Qrels
from ..core.run import Run
from ..errors import ParameterError
from ..formats.inputs import as_qrels, as_runs
from ..formats.pools import Pool, Sample, read_pool, read_sampled_qrels, write_pool, write_sample
from ..options import EvaluationOptions
from ..pooling.fusion import fuse_stack
from ..pooling.pools import PoolStatistics, build_pool, judged_flags, pool_statistics
from ..pooling.stack import RunStack, stack_runs
from ..pooling.strategies import JudgingOrder, make_order

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["estimate_from_sample", "fuse", "leave_out", "make_pool", "pool_stats", "read_pool", "sample_pool",
           "simulate_budgets", "write_pool"]


def _stack(runs: object, *, order: str, on_duplicate: str, at_least: int = 1, ties: str = "descending",
           depth: int | None = None) -> RunStack:
    whole = cast("list[Run]", list(as_runs(runs, on_duplicate=on_duplicate)))  # whole runs, never blocks
    if len(whole) < at_least:
        raise ParameterError(f"give at least {at_least} runs (got {len(whole)})")
    return stack_runs(whole, order=order, ties=ties, depth=depth)


def fuse(runs: object, method: str = "rrf", *, norm: str | None = None, k: float = 60.0, order: str = "score",
         on_duplicate: str = "error", name: str | None = None, output: str | os.PathLike[str] | None = None) -> Run:
    """Fuse runs (any form :func:`pateval.evaluate` takes; at least two) into one run.

    Parameters
    ----------
    method : {"combsum", "combmnz", "rrf", "borda"}
    norm : {"min-max", "z-score", "sum", "none"}, optional
        Score normalisation of CombSUM / CombMNZ (default ``"min-max"``, as ranx).
    k : float
        RRF's constant (default 60).
    order : {"score", "rank", "file"}
        How each run is ranked before fusing (the ranking step; default trec_eval's).
    name : str, optional
        The fused run's name (default: the method).
    output : path, optional
        Also write the fused run there (TREC format, atomically).

    Notes
    -----
    :mod:`pateval.pooling.fusion` gives the formulas and conventions (equal to ranx's ``fuse``).
    """
    stack = _stack(runs, order=order, on_duplicate=on_duplicate, at_least=2)
    run = fuse_stack(stack, method, norm=norm, k=k).to_run(name or method)
    if output is not None:
        from ..formats.trec import write_run

        write_run(run, output)
    return run


def make_pool(runs: object, method: str = "depth", *, depth: int | None = 10, size: int | None = None,
              qrels: object = None, relevance_level: int = 1, p: float = 0.8, aggregate: str = "sum",
              k: float = 60.0, fusion: str = "rrf", norm: str | None = None, discount: float = 0.9,
              order: str = "score", ties: str = "ascending", on_duplicate: str = "error",
              qrels_format: str = "auto", output: str | os.PathLike[str] | None = None) -> Pool:
    """A pool of ``runs``: per topic, the documents to judge in judging order, each with the
    runs that contributed it (:mod:`pateval.pooling.strategies` for the methods).

    Parameters
    ----------
    method : {"depth", "rbp", "rrf", "fused", "mtf", "mm-ns", "ap-prior"}
    depth : int, optional
        depth-k's k; for the adaptive orders, how deep each run is read (None: whole runs).
    size : int, optional
        Documents per topic (trectools' ``topX``; required by rbp, rrf, fused; for depth and
        the adaptive orders and ap-prior, a budget cutting the judging order).
    qrels : optional
        The judgements the adaptive orders (mtf, mm-ns) use as they arrive (a document the
        qrels lack is judged non-relevant); grade >= ``relevance_level`` is relevant.
    p, aggregate : RBP's persistence and how a document's weights combine ("sum", "max").
    k : RRF's constant. fusion, norm : the fusion of ``fused``. discount : MM-NS's.
    ties : {"ascending", "descending"}
        How equal scores of a run are ranked (``order="score"``): by docno ascending, as
        trectools (the default), or descending, as trec_eval and the ranking step.
    output : path, optional
        Also write the pool there (:mod:`pateval.formats.pools`, atomically).
    """
    if method in ("rbp", "rrf", "fused") and size is None:
        raise ParameterError(f"a {method} pool takes the N heaviest documents per topic: give size (--size N)")
    # depth-k and the adaptive orders read each run to its depth only: the rest never counts
    run_depth = depth if method in ("depth", "mtf", "mm-ns") else None
    strategy = make_order(method, depth=run_depth, p=p, aggregate=aggregate, k=k, fusion=fusion, norm=norm,
                          discount=discount)
    if strategy.adaptive and qrels is None:
        raise ParameterError(f"the {method} order uses judgements as they arrive: give qrels (--qrels)")
    if not strategy.adaptive and qrels is not None:
        raise ParameterError(f"a {method} pool does not use judgements: leave out qrels")
    stack = _stack(runs, order=order, on_duplicate=on_duplicate, ties=ties, depth=run_depth)
    relevant = None
    if qrels is not None:
        read = as_qrels(qrels, qrels_format=qrels_format, on_duplicate=on_duplicate)
        relevant, _ = judged_flags(stack, cast(Qrels, read), level=relevance_level)
    pool = build_pool(stack, strategy, budget=size, relevant=relevant, description=_describe(
        method, depth=depth, size=size, p=p, aggregate=aggregate, k=k, fusion=fusion, norm=norm, discount=discount))
    if output is not None:
        write_pool(pool, output)
    return pool


def _describe(method: str, **given: object) -> str:
    used = {"depth": ("depth", "size"), "rbp": ("size", "p", "aggregate"), "rrf": ("size", "k"),
            "fused": ("size", "fusion", "norm", "k"), "mtf": ("depth", "size"), "mm-ns": ("depth", "size", "discount"),
            "ap-prior": ("size",)}
    return " ".join([method, *(f"{name}={given[name]}" for name in used[method] if given[name] is not None)])


def pool_stats(pool: Pool | str | os.PathLike[str]) -> PoolStatistics:
    """Pool size per topic, documents each run contributed and alone contributed, and the
    overlap between runs, of a pool or a pool file."""
    return pool_statistics(pool if isinstance(pool, Pool) else read_pool(pool))


def _orders(names: str | list[str], **parameters: object) -> dict[str, JudgingOrder]:
    listed = names.split(",") if isinstance(names, str) else list(names)
    if not listed:
        raise ParameterError("give at least one judging order")
    depth = parameters.pop("depth")
    return {name: make_order(name, depth=depth if name == "depth" else None, **parameters)  # type: ignore[arg-type]
            for name in (n.strip() for n in listed)}


def simulate_budgets(qrels: object, runs: object, budgets: list[int], *, orders: str | list[str] = "depth,mtf,mm-ns",
                     measure: str = "AP", relevance_level: int = 1, p: float = 0.8, aggregate: str = "sum",
                     k: float = 60.0, fusion: str = "rrf", norm: str | None = None, discount: float = 0.9,
                     options: EvaluationOptions | None = None, ties: str = "ascending") -> pd.DataFrame:
    """Replay judging orders at budgets (judgements per topic) against complete qrels: per
    (order, budget) the judgements made, relevant documents found, and Kendall's tau, tau_ap
    and the largest rank change of the system ranking by ``measure``
    (:mod:`pateval.stats.budgets`). ``orders``: names of :data:`~pateval.pooling.names.POOL_METHODS`
    (``depth`` judges every retrieved document in depth order)."""
    from ..stats.budgets import simulate_budgets as simulate

    options = options or EvaluationOptions()
    whole = cast("list[Run]", list(as_runs(runs, on_duplicate=options.on_duplicate)))
    read = as_qrels(qrels, qrels_format=options.qrels_format, on_duplicate=options.on_duplicate)
    chosen = _orders(orders, depth=None, p=p, aggregate=aggregate, k=k, fusion=fusion, norm=norm, discount=discount)
    return simulate(whole, read, chosen, budgets, measure=measure, level=relevance_level, options=options, ties=ties)


def leave_out(qrels: object, runs: object, *, depth: int = 100, groups: dict[str, str] | None = None,
              measure: str = "AP", options: EvaluationOptions | None = None, ties: str = "ascending") -> pd.DataFrame:
    """Leave-one-run-out (or, with ``groups`` run -> group, leave-one-group-out) reusability of
    the depth-``depth`` pool: each left-out run's score and rank on the qrels without the
    documents only it (its group) contributed, against the complete qrels
    (:mod:`pateval.stats.budgets`)."""
    from ..stats.budgets import leave_out as reuse

    options = options or EvaluationOptions()
    whole = cast("list[Run]", list(as_runs(runs, on_duplicate=options.on_duplicate)))
    read = as_qrels(qrels, qrels_format=options.qrels_format, on_duplicate=options.on_duplicate)
    return reuse(whole, read, depth=depth, groups=groups, measure=measure, options=options, ties=ties)


def sample_pool(pool: Pool | str | os.PathLike[str], strata: str, *, seed: int = 0, qrels: object = None,
                qrels_format: str = "auto", output: str | os.PathLike[str] | None = None) -> Sample:
    """A stratified random sample of a pool (or pool file): strata by place in the judging order
    with rates, ``"1-10:1,11-100:0.2,101-:0.05"`` (:mod:`pateval.pooling.sampling`). With
    ``qrels`` (judgements at hand), the sample's grades: written as sample_eval.pl's sampled
    qrels; without, the documents to judge with their inclusion probabilities."""
    from ..pooling.sampling import sample_pool as draw

    read = None if qrels is None else as_qrels(qrels, qrels_format=qrels_format, on_duplicate="error")
    sample = draw(pool if isinstance(pool, Pool) else read_pool(pool), strata, seed=seed, qrels=read)
    if output is not None:
        write_sample(sample, output)
    return sample


def estimate_from_sample(sample: Sample | str | os.PathLike[str], runs: object, *,
                         estimates: list[str] | tuple[str, ...] | None = None,
                         on_duplicate: str = "error") -> pd.DataFrame:
    """Estimates per run and topic from sampled qrels (:mod:`pateval.pooling.sampling`):
    by default xinfAP, infNDCG and the estimated numbers of relevant documents (retrieved), as
    NIST's sample_eval.pl; ``estimates`` names them, among
    :data:`~pateval.pooling.names.ESTIMATES` and ``"statAP"`` (Aslam, Pavlu and Yilmaz 2006,
    as the Million Query track's statAP_MQ_eval). Columns ``run, topic, measure, value``."""
    from ..pooling.sampling import estimate

    read = sample if isinstance(sample, Sample) else read_sampled_qrels(sample)
    whole = cast("list[Run]", list(as_runs(runs, on_duplicate=on_duplicate)))
    return estimate(read, whole, estimates)
