"""Plain-loop versions of the resampling tests, one pair and one resample at a time.

They are the readable statement of each test that the vectorised code in
:mod:`pateval.stats.significance` must reproduce: they draw the same random numbers from
the generator in the same order (B rows of n uniforms), so with the same seed they give the
same ASLs. Tests and ``benchmarks/bench_stats.py`` compare the two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pateval.stats.scores import SeedLike, as_generator

__all__ = ["loop_bootstrap_asl", "loop_randomisation_asl", "loop_tukey_hsd_asl"]


def _t(sample: Sequence[float]) -> float:
    n = len(sample)
    mean = sum(sample) / n
    variance = sum((value - mean) ** 2 for value in sample) / (n - 1)
    if variance <= 0.0:
        return 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return mean / math.sqrt(variance / n)


def loop_bootstrap_asl(differences: np.ndarray, *, B: int, seed: SeedLike) -> np.ndarray:
    """Sakai's bootstrap ASL for each column of ``differences`` (topics x pairs), by loops."""
    z = np.asarray(differences, dtype=float)
    n, pairs = z.shape
    rng = as_generator(seed)
    draws = rng.random((B, n))  # the same stream the vectorised test consumes
    samples = [[min(int(u * n), n - 1) for u in row] for row in draws]
    asl = np.empty(pairs)
    for pair in range(pairs):
        column = [float(v) for v in z[:, pair]]
        observed = abs(_t(column))
        mean = sum(column) / n
        shifted = [v - mean for v in column]
        hits = 0
        for indices in samples:
            if abs(_t([shifted[i] for i in indices])) >= observed * (1 - 1e-10):
                hits += 1
        asl[pair] = hits / B
    return asl


def loop_randomisation_asl(differences: np.ndarray, *, B: int, seed: SeedLike) -> np.ndarray:
    """Sign-flip randomisation ASL of the mean difference for each column, by loops."""
    z = np.asarray(differences, dtype=float)
    n, pairs = z.shape
    rng = as_generator(seed)
    draws = rng.random((B, n))
    flips = [[-1.0 if u < 0.5 else 1.0 for u in row] for row in draws]
    asl = np.empty(pairs)
    for pair in range(pairs):
        column = [float(v) for v in z[:, pair]]
        observed = abs(sum(column)) / n
        hits = 0
        for signs in flips:
            if abs(sum(s * v for s, v in zip(signs, column, strict=False))) / n >= observed * (1 - 1e-10):
                hits += 1
        asl[pair] = hits / B
    return asl


def loop_tukey_hsd_asl(scores: np.ndarray, *, B: int, seed: SeedLike) -> np.ndarray:
    """Randomised Tukey HSD ASL for every pair a < b (in ``np.triu_indices`` order), by loops."""
    x = np.asarray(scores, dtype=float)
    n, m = x.shape
    rng = as_generator(seed)
    ranges = []
    for _ in range(B):
        permutation = rng.permuted(np.broadcast_to(np.arange(m), (1, n, m)), axis=-1)[0]
        means = [sum(x[t, permutation[t, j]] for t in range(n)) / n for j in range(m)]
        ranges.append(max(means) - min(means))
    means = x.mean(axis=0)
    asl = []
    for a in range(m):
        for b in range(a + 1, m):
            observed = abs(means[a] - means[b])
            asl.append(sum(1 for r in ranges if r >= observed * (1 - 1e-10)) / B)
    return np.array(asl)
