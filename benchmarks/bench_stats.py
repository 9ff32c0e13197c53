"""Benchmark: vectorised paired tests against plain loops and against scipy.stats.

All pairs of R runs x T topics (default 50 x 500, 1,225 pairs), B resamples (default 1,000).
For the bootstrap and randomisation tests three implementations are timed:

* ``vectorised`` -- :mod:`pateval.stats.significance` (all pairs and a chunk of resamples per
  matrix product);
* ``numpy loop`` -- a loop over pairs and resamples with numpy on each topic vector, drawing
  the same random numbers, so its ASLs must equal the vectorised ones (checked);
* ``python loop`` -- ``tests/stats/reference_significance.py``, pure Python, timed on a few pairs and
  scaled to all pairs (it is linear in the number of pairs).

The t-test, Wilcoxon and randomisation tests are also compared with scipy.stats looped over
pairs (``ttest_rel``, ``wilcoxon``, ``permutation_test``). Run:

    .venv/bin/python benchmarks/bench_stats.py [--runs 50 --topics 500 --B 1000]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as sps

from pateval.stats.significance import bootstrap_asl, paired_t, randomisation_asl, tukey_hsd_asl, wilcoxon_signed_rank

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "stats"))
import reference_significance as _reference  # noqa: E402  (the tests' plain loops)


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def best_of(repeats: int, function, *args, **kwargs):
    """Shortest of ``repeats`` timings (the machine may be shared; the minimum is the cost)."""
    results = [timed(function, *args, **kwargs) for _ in range(repeats)]
    return min(seconds for seconds, _ in results), results[0][1]


def numpy_loop_bootstrap(z: np.ndarray, *, B: int, seed: int) -> np.ndarray:
    """Per pair, per resample: the same indices as the vectorised test, numpy on n topics."""
    n, pairs = z.shape
    indices = np.minimum((np.random.default_rng(seed).random((B, n)) * n).astype(np.intp), n - 1)
    asl = np.empty(pairs)
    for pair in range(pairs):
        column = z[:, pair]
        sd = column.std(ddof=1)
        observed = abs(column.mean() / (sd / math.sqrt(n))) if sd > 0 else (0.0 if column.mean() == 0 else math.inf)
        shifted = column - column.mean()
        hits = 0
        for b in range(B):
            sample = shifted[indices[b]]
            sample_sd = sample.std(ddof=1)
            if sample_sd > 0:
                t = abs(sample.mean() / (sample_sd / math.sqrt(n)))
            else:
                t = 0.0 if sample.mean() == 0 else math.inf
            hits += t >= observed * (1 - 1e-10)
        asl[pair] = hits / B
    return asl


def numpy_loop_randomisation(z: np.ndarray, *, B: int, seed: int) -> np.ndarray:
    n, pairs = z.shape
    signs = np.where(np.random.default_rng(seed).random((B, n)) < 0.5, -1.0, 1.0)
    asl = np.empty(pairs)
    for pair in range(pairs):
        column = z[:, pair]
        observed = abs(column.sum()) / n
        hits = 0
        for b in range(B):
            hits += abs(signs[b] @ column) / n >= observed * (1 - 1e-10)
        asl[pair] = hits / B
    return asl


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--topics", type=int, default=500)
    parser.add_argument("--B", type=int, default=1000)
    parser.add_argument("--python-loop-pairs", type=int, default=5, help="pairs the pure-Python loop is timed on")
    parser.add_argument("--seed", type=int, default=2026)
    options = parser.parse_args()

    rng = np.random.default_rng(options.seed)
    # Scores with a topic effect and a run effect, like real runs: most pairs are close.
    scores = np.clip(rng.beta(2, 5, (options.topics, 1)) + rng.normal(0, 0.1, (options.topics, options.runs))
                     + np.linspace(0, 0.05, options.runs), 0, 1)
    first, second = np.triu_indices(options.runs, k=1)
    z = scores[:, first] - scores[:, second]
    pairs = z.shape[1]
    B = options.B
    print(f"{options.runs} runs x {options.topics} topics = {pairs} pairs, B = {B}, "
          f"{os.cpu_count()} CPUs, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"load average {os.getloadavg()[0]:.1f} (wall-clock timings; a loaded machine slows both sides)")
    print(f"{'test':<15} {'implementation':<34} {'seconds':>9} {'vectorised is x faster':>24}")

    # One call first so that BLAS and numpy start-up costs are not charged to the first test.
    bootstrap_asl(z[:, :10], B=10, seed=0)
    randomisation_asl(z[:, :10], B=10, seed=0, exact=False)

    def row(test: str, name: str, seconds: float, reference: float | None) -> None:
        ratio = "" if reference is None else f"{seconds / reference:,.1f}"
        print(f"{test:<15} {name:<34} {seconds:>9.3f} {ratio:>24}")

    for test, vectorised, numpy_loop, python_loop in (
        ("bootstrap", lambda: bootstrap_asl(z, B=B, seed=1)["p_value"], numpy_loop_bootstrap,
         _reference.loop_bootstrap_asl),
        ("randomisation", lambda: randomisation_asl(z, B=B, seed=1, exact=False)["p_value"], numpy_loop_randomisation,
         _reference.loop_randomisation_asl),
    ):
        fast_seconds, fast = best_of(3, vectorised)
        row(test, "vectorised (pateval), best of 3", fast_seconds, None)
        loop_seconds, slow = timed(numpy_loop, z, B=B, seed=1)
        if not np.array_equal(fast, slow):
            raise SystemExit(f"{test}: the numpy loop's ASLs differ from the vectorised ones")
        row(test, "numpy loop over pairs x resamples", loop_seconds, fast_seconds)
        k = min(options.python_loop_pairs, pairs)
        subset_seconds, subset = timed(python_loop, z[:, :k], B=B, seed=1)
        if not np.array_equal(subset, fast[:k]):
            raise SystemExit(f"{test}: the pure-Python loop's ASLs differ from the vectorised ones")
        row(test, f"python loop ({k} pairs, scaled)", subset_seconds * pairs / k, fast_seconds)

    fast_seconds, fast = best_of(3, lambda: paired_t(z)["p_value"])
    row("t", "vectorised (pateval)", fast_seconds, None)
    scipy_seconds, reference = timed(lambda: np.array([sps.ttest_rel(scores[:, a], scores[:, b]).pvalue for a,
                                                       b in zip(first, second, strict=False)]))
    np.testing.assert_allclose(fast, reference, rtol=1e-9)
    row("t", "scipy ttest_rel looped over pairs", scipy_seconds, fast_seconds)

    fast_seconds, fast = best_of(3, lambda: wilcoxon_signed_rank(z)["p_value"])
    row("wilcoxon", "vectorised (pateval)", fast_seconds, None)
    rounded = np.round(z, 12)  # pateval rounds differences before ranking (ties)
    scipy_seconds, reference = timed(lambda: np.array([sps.wilcoxon(rounded[:, i]).pvalue for i in range(pairs)]))
    np.testing.assert_allclose(fast, reference, rtol=1e-9)
    row("wilcoxon", "scipy wilcoxon looped over pairs", scipy_seconds, fast_seconds)

    fast_seconds, _ = best_of(3, lambda: randomisation_asl(z, B=B, seed=1, exact=False))
    row("randomisation", "vectorised (pateval)", fast_seconds, None)
    scipy_seconds, _ = timed(
        lambda: [
            sps.permutation_test((z[:, i],), lambda d, axis: np.mean(d, axis=axis), permutation_type="samples",
                                 n_resamples=B, vectorized=True, rng=1)
            for i in range(pairs)
        ]
    )
    row("randomisation", "scipy permutation_test looped", scipy_seconds, fast_seconds)

    for tukey_B in (1000, 5000):
        seconds, _ = best_of(2, tukey_hsd_asl, scores, B=tukey_B, seed=1)
        row("tukey HSD", f"vectorised (pateval), B = {tukey_B}", seconds, None)
        if tukey_B == 1000:
            fast_seconds = seconds
    # The loop costs B x topics x runs for the resamples (plus pairs x B to count); timed on
    # 10 runs and 20 resamples and scaled by runs and B only, which understates it.
    loop_runs, loop_B = min(10, options.runs), 20
    seconds, _ = timed(_reference.loop_tukey_hsd_asl, scores[:, :loop_runs], B=loop_B, seed=1)
    row("tukey HSD", f"python loop ({loop_runs} runs, B={loop_B}, scaled)",
        seconds * (options.runs / loop_runs) * (1000 / loop_B), fast_seconds)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
