"""Seeded synthetic qrels and runs, for tests, benchmarks and the bundled examples.

Runs are written the way engines write them: topic by topic, scores descending, with a
controllable share of tied scores; relevant documents are ranked higher than chance by a
``quality`` knob, so that different runs score differently.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .formats.atomic import atomic_output

__all__ = ["synthetic_qrels_and_runs", "write_synthetic_files"]


def synthetic_qrels_and_runs(
    *,
    n_topics: int,
    depth: int,
    n_runs: int = 1,
    collection_size: int = 1_000_000,
    relevant_per_topic: int = 20,
    judged_nonrelevant_per_topic: int = 60,
    max_grade: int = 2,
    tie_share: float = 0.05,
    seed: int = 0,
    topic_prefix: str = "T",
    doc_prefix: str = "DOC",
):
    """Make qrels rows and run rows (lists of tuples) with a fixed seed.

    Returns
    -------
    qrels : list of (topic, docno, rel)
    runs : dict of run name -> list of (topic, docno, rank, score)
    """
    rng = np.random.default_rng(seed)
    topics = [f"{topic_prefix}{i + 1}" for i in range(n_topics)]
    width = len(str(collection_size))
    qrels: list[tuple[str, str, int]] = []
    relevant_ids = {}
    judged_ids = {}
    for topic in topics:
        docs = rng.choice(collection_size, size=relevant_per_topic + judged_nonrelevant_per_topic, replace=False)
        grades = np.r_[rng.integers(1, max_grade + 1, relevant_per_topic), np.zeros(judged_nonrelevant_per_topic,
                                                                                    dtype=int)]
        relevant_ids[topic] = docs[:relevant_per_topic]
        judged_ids[topic] = docs
        qrels.extend((topic, f"{doc_prefix}{d:0{width}d}", int(g)) for d, g in zip(docs, grades, strict=False))
    runs = {}
    for r in range(n_runs):
        quality = 0.2 + 0.6 * (r / max(n_runs - 1, 1))
        rows = []
        for topic in topics:
            pool = np.unique(np.r_[rng.choice(collection_size, size=depth, replace=False), judged_ids[topic]])
            chosen = rng.choice(pool, size=min(depth, len(pool)), replace=False)
            is_relevant = np.isin(chosen, relevant_ids[topic])
            scores = rng.normal(10.0, 2.0, len(chosen)) + quality * 6.0 * is_relevant
            scores = np.round(scores, 4)
            ties = rng.random(len(chosen)) < tie_share
            scores[ties] = np.round(scores[ties], 1)
            order = np.argsort(-scores, kind="stable")
            for rank, i in enumerate(order, start=1):
                rows.append((topic, f"{doc_prefix}{chosen[i]:0{width}d}", rank, float(scores[i])))
        runs[f"run{r + 1}"] = rows
    return qrels, runs


def write_synthetic_files(directory: str | os.PathLike[str], **options) -> tuple[Path, list[Path]]:
    """Write synthetic qrels and runs (TREC formats) into ``directory``; return their paths."""
    directory = Path(directory)
    qrels, runs = synthetic_qrels_and_runs(**options)
    qrels_path = directory / "qrels.txt"
    with atomic_output(qrels_path) as out:
        out.writelines(f"{t} 0 {d} {g}\n" for t, d, g in qrels)
    run_paths = []
    for name, rows in runs.items():
        path = directory / f"{name}.txt"
        with atomic_output(path) as out:
            out.writelines(f"{t} Q0 {d} {k} {s!r} {name}\n" for t, d, k, s in rows)
        run_paths.append(path)
    return qrels_path, run_paths
