"""Reproduce section 5.3 of the Cube Test paper: gamma trades coverage against relevance.

Luo, Wing, Yang & Hearst (CIKM 2013) build two ideal runs from the judgements of a topic and
score them with CT_lgc (log-decay subtopic importance, TBG time, capped) for gamma from 0.1
to 0.9 (their Figures 5 and 6):

- the coverage run takes the subtopics in order of importance, round robin: the best
  document of each subtopic, then the second best of each, ...;
- the relevance run takes all of the most important subtopic's documents, most relevant
  first, then those of the next subtopic, ...

A small gamma discounts a second document on the same subtopic heavily, so the coverage run
scores higher; a large gamma barely discounts it, and the relevance run, which spends its
first documents on the most important subtopic, scores higher.

The topics here are synthetic (seeded): 10-15 claims as subtopics, each with two relevant
documents graded 2 on a 1-4 scale (each fills half of its claim's column, so the two fill
it exactly), documents of 300-3000 words. Under the log decay the first claims weigh more,
so at depth 10 the relevance run has filled claims 1-5 while the coverage run has half
filled claims 1-10: with gamma near 1 the former is worth more, with gamma near 0 (the
second document of a claim nearly worthless) the latter. Run::

    python scripts/cubetest_gamma_sweep.py --out cubetest_gamma_sweep.png

It prints the mean CT_lgc of both runs per gamma and writes the plot.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

import pateval.api as api
from pateval.core.qrels import Qrels
from pateval.core.run import Run
from pateval.measures import parse_measure

__all__ = ["ideal_runs", "gamma_sweep", "plot_sweep", "main"]


def ideal_runs(*, n_topics: int = 20, seed: int = 53):
    """Synthetic claim-level qrels, the two ideal runs and document lengths.

    Returns
    -------
    qrels : Qrels
        ``topic subtopic docno grade`` (grade 2 of 4).
    runs : dict of name -> Run
        ``coverage`` and ``relevance``, both in the order to be examined (rank column).
    lengths : dict of docno -> words
    """
    rng = np.random.default_rng(seed)
    qrels_rows = []
    coverage_rows, relevance_rows = [], []
    lengths = {}
    for t in range(n_topics):
        topic = f"T{t + 1}"
        n_claims = int(rng.integers(10, 16))
        by_claim = []
        for claim in range(1, n_claims + 1):
            docs = [f"{topic}-c{claim}-d{i}" for i in range(2)]
            grades = np.full(len(docs), 2)
            qrels_rows += [(topic, str(claim), d, int(g)) for d, g in zip(docs, grades, strict=False)]
            lengths.update({d: int(rng.integers(300, 3001)) for d in docs})
            # most relevant first (ties in id order: lengths play no part in either run)
            by_claim.append(sorted(zip(docs, grades, strict=False), key=lambda dg: -dg[1]))
        # claim 1 is the most important under the log decay (theta_k ~ 1/log2(1+k))
        relevance = [d for docs in by_claim for d, _ in docs]
        deepest = max(len(docs) for docs in by_claim)
        coverage = [docs[i][0] for i in range(deepest) for docs in by_claim if i < len(docs)]
        coverage_rows += [(topic, d, k, float(len(coverage) - k)) for k, d in enumerate(coverage, start=1)]
        relevance_rows += [(topic, d, k, float(len(relevance) - k)) for k, d in enumerate(relevance, start=1)]
    qrels = Qrels.from_records(qrels_rows, fields=("topic", "subtopic", "docno", "rel"))
    runs = {"coverage": Run.from_records(coverage_rows, name="coverage", fields=("topic", "docno", "rank", "score")),
            "relevance": Run.from_records(relevance_rows, name="relevance", fields=("topic", "docno", "rank", "score"))}
    return qrels, runs, lengths


def gamma_sweep(gammas=None, *, depth: int = 10, n_topics: int = 20, seed: int = 53) -> pd.DataFrame:
    """Mean CT_lgc@depth of the two ideal runs for each gamma (columns gamma, coverage, relevance)."""
    gammas = np.round(np.arange(0.1, 0.91, 0.1), 1) if gammas is None else np.asarray(gammas, dtype=float)
    qrels, runs, lengths = ideal_runs(n_topics=n_topics, seed=seed)
    names = [str(parse_measure(f"CT_lgc(gamma={float(g)!r},maxgrade=4)@{depth}")) for g in gammas]
    result = api.evaluation(qrels, runs, names, order="rank", resources={"doc_lengths": lengths}).summary()
    table = result.pivot(index="measure", columns="run", values="value").reindex(names)
    return pd.DataFrame({"gamma": gammas, "coverage": table["coverage"].to_numpy(),
                         "relevance": table["relevance"].to_numpy()})


def plot_sweep(sweep: pd.DataFrame, path: str, *, depth: int = 10) -> None:
    """Both runs' CT_lgc against gamma, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(sweep["gamma"], sweep["coverage"], marker="o", label="coverage run (round robin over subtopics)")
    axes.plot(sweep["gamma"], sweep["relevance"], marker="s", label="relevance run (subtopic by subtopic)")
    axes.set_xlabel("gamma (novelty discount)")
    axes.set_ylabel(f"mean CT_lgc@{depth}")
    axes.set_title("Cube Test: coverage vs relevance (Luo et al. 2013, sec. 5.3)")
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Cube Test gamma sweep (Luo et al. 2013, section 5.3)")
    parser.add_argument("--out", default="cubetest_gamma_sweep.png", help="the PNG to write")
    parser.add_argument("--depth", type=int, default=10, help="documents examined (CT_lgc@depth)")
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--seed", type=int, default=53)
    options = parser.parse_args(argv)
    sweep = gamma_sweep(depth=options.depth, n_topics=options.topics, seed=options.seed)
    print(sweep.to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    plot_sweep(sweep, options.out, depth=options.depth)
    print(f"plot written to {options.out}")


if __name__ == "__main__":
    main()
