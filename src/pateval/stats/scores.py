"""Score matrices: the one input of every statistic in :mod:`pateval.stats`.

A score matrix holds one measure's per-topic scores, topics as rows and runs as columns
(a :class:`pandas.DataFrame` with run names as column labels, or a plain 2-D array). The
statistics never ask how the scores were computed, so they work as well on scores read
from trec_eval output as on those :func:`pateval.api.evaluate` returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ParameterError

__all__ = ["RunScores", "SeedLike", "as_generator", "as_run_scores", "check_level", "check_matrices", "describe_seed",
           "resample_counts", "run_pairs", "score_matrices", "score_matrix"]

SeedLike = int | np.random.Generator


def as_generator(seed: SeedLike) -> np.random.Generator:
    """Return the generator a test draws from: ``seed`` itself, or a fresh PCG64 seeded with it.

    ``None`` is refused on purpose: a test whose p-value cannot be reproduced is not reported.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ParameterError(f"seed must be a non-negative int or a numpy.random.Generator, not {seed!r}")
    if seed < 0:
        raise ParameterError(f"seed must be a non-negative int, not {seed}")
    return np.random.default_rng(int(seed))


def check_level(name: str, value) -> float:
    """``value`` (a significance or confidence level) as a float strictly between 0 and 1."""
    if not isinstance(value, (int, float, np.floating)) or not 0.0 < float(value) < 1.0:
        raise ParameterError(f"{name} must lie strictly between 0 and 1, not {value!r}")
    return float(value)


def describe_seed(seed: SeedLike) -> int | str:
    """What to report as the seed: the int, or ``"generator"`` when a Generator was passed."""
    return "generator" if isinstance(seed, np.random.Generator) else int(seed)


def score_matrix(frame: pd.DataFrame, measure: str | None = None, *, topics: str = "shared") -> pd.DataFrame:
    """Pivot a long score frame (columns ``run, topic, measure, value``) to topics x runs.

    Parameters
    ----------
    frame : pandas.DataFrame
        Per-topic scores as :func:`pateval.api.evaluate` returns them. Rows whose topic is
        ``"all"`` (a mean row, as in trec_eval output) are ignored.
    measure : str, optional
        The measure to take; may be omitted when the frame holds a single measure.
    topics : {"shared", "strict"}
        Paired tests need every run scored on the same topics. ``"shared"`` keeps the topics
        that every run has a score for; ``"strict"`` raises when a run lacks a topic
        (evaluate with trec_eval's ``-c`` to score a missing topic as 0 instead).

    Returns
    -------
    pandas.DataFrame
        Index: topic (sorted), columns: run (in order of first appearance), values: float.
    """
    required = {"run", "topic", "measure", "value"}
    if not isinstance(frame, pd.DataFrame) or not required <= set(frame.columns):
        raise ParameterError("a score frame needs the columns run, topic, measure and value")
    if topics not in ("shared", "strict"):
        raise ParameterError(f"topics must be 'shared' or 'strict', not {topics!r}")
    data = frame[frame["topic"].astype(str) != "all"]
    measures = list(dict.fromkeys(data["measure"]))
    if measure is None:
        if len(measures) != 1:
            raise ParameterError(f"the score frame holds {len(measures)} measures; name one of {measures}")
        measure = measures[0]
    elif measure not in measures:
        raise ParameterError(f"the score frame has no measure {measure!r}; it has {measures}")
    data = data[data["measure"] == measure]
    if data.duplicated(["run", "topic"]).any():
        first = data[data.duplicated(["run", "topic"])].iloc[0]
        raise ParameterError(f"run {first['run']!r} has two {measure} scores for topic {first['topic']!r}")
    runs = list(dict.fromkeys(data["run"]))
    matrix = data.pivot(index="topic", columns="run", values="value").reindex(columns=runs).astype(float)
    missing = matrix.isna()
    if missing.any().any():
        if topics == "strict":
            run = missing.any().idxmax()
            topic = missing[run].idxmax()
            raise ParameterError(f"run {run!r} has no {measure} score for topic {topic!r}; paired tests need every run "
                                 "scored on the same topics (evaluate with complete topics to score it as 0)")
        matrix = matrix.dropna(axis=0, how="any")
    return matrix.sort_index().rename_axis(index="topic", columns="run")


def score_matrices(frame: pd.DataFrame, measures: Sequence[str] | None = None, *,
                   topics: str = "shared") -> dict[str, pd.DataFrame]:
    """One :func:`score_matrix` per measure, in the frame's order (or the order given)."""
    if measures is None:
        if not isinstance(frame, pd.DataFrame) or "measure" not in frame.columns:
            raise ParameterError("a score frame needs the columns run, topic, measure and value")
        measures = list(dict.fromkeys(frame.loc[frame["topic"].astype(str) != "all", "measure"]))
    return {name: score_matrix(frame, name, topics=topics) for name in measures}


@dataclass(frozen=True)
class RunScores:
    """A validated score matrix: ``values[topic, run]`` as float64, with names."""

    values: np.ndarray
    runs: tuple[str, ...]
    topics: tuple[str, ...]

    @property
    def n_topics(self) -> int:
        return self.values.shape[0]


def as_run_scores(scores, *, min_runs: int = 2, min_topics: int = 2) -> RunScores:
    """Validate a score matrix (DataFrame topics x runs, or 2-D array) and name its runs.

    An array's runs are named ``"0", "1", ...`` and its topics likewise. ``min_topics`` is 2
    for a paired test; means alone need 1.
    """
    if isinstance(scores, RunScores):
        return scores
    if isinstance(scores, pd.DataFrame):
        if {"run", "topic", "measure", "value"} <= set(scores.columns):
            raise ParameterError("this is a long score frame; pivot it with pateval.stats.score_matrix first")
        values = scores.to_numpy(dtype=float, na_value=np.nan)
        runs = tuple(str(name) for name in scores.columns)
        topics = tuple(str(name) for name in scores.index)
    else:
        try:
            values = np.asarray(scores, dtype=float)
        except (TypeError, ValueError) as error:
            raise ParameterError(f"scores must be a numeric topics x runs matrix ({error})") from None
        if values.ndim != 2:
            raise ParameterError(f"scores must be a 2-D topics x runs matrix, not {values.ndim}-D")
        runs = tuple(str(i) for i in range(values.shape[1]))
        topics = tuple(str(i) for i in range(values.shape[0]))
    if len(set(runs)) != len(runs):
        raise ParameterError("two runs in the score matrix have the same name")
    if values.shape[1] < min_runs:
        raise ParameterError(f"comparing runs needs at least {min_runs} runs, got {values.shape[1]}")
    if values.shape[0] < min_topics:
        needs = "paired tests need" if min_topics >= 2 else "means need"
        raise ParameterError(f"{needs} at least {min_topics} topic{'s' if min_topics > 1 else ''}, got "
                             f"{values.shape[0]}")
    if not np.isfinite(values).all():
        row, col = np.argwhere(~np.isfinite(values))[0]
        raise ParameterError(f"run {runs[col]!r} has no finite score for topic {topics[row]!r}; paired tests need "
                             "every run scored on the same topics")
    return RunScores(np.ascontiguousarray(values), runs, topics)


def check_matrices(matrices: Mapping[str, object], *, purpose: str, min_topics: int = 2) -> dict[str, pd.DataFrame]:
    """Validate one score matrix per measure, all scoring the same runs.

    Returns measure name -> topics x runs DataFrame, the runs in the first measure's order;
    ``purpose`` names the analysis in the error raised when ``matrices`` is no mapping.
    """
    if not isinstance(matrices, Mapping) or not matrices:
        raise ParameterError(f"{purpose} needs a mapping of measure name -> score matrix (topics x runs)")
    checked = {}
    runs = None
    for measure, scores in matrices.items():
        matrix = as_run_scores(scores, min_topics=min_topics)
        if runs is None:
            runs = matrix.runs
        elif set(matrix.runs) != set(runs):
            raise ParameterError(f"measure {measure!r} scores other runs than {next(iter(matrices))!r}")
        frame = pd.DataFrame(matrix.values, index=list(matrix.topics), columns=list(matrix.runs))
        checked[str(measure)] = frame[list(runs)]
    return checked


def run_pairs(runs: Sequence[str], baseline: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The column indices (a, b) of the pairs to test.

    Without a baseline every unordered pair a < b in run order; with one, (other, baseline)
    for every other run, so that differences read "run minus baseline" (an improvement is
    positive).
    """
    n = len(runs)
    if baseline is None:
        first, second = np.triu_indices(n, k=1)
        return first.astype(np.intp), second.astype(np.intp)
    if baseline not in runs:
        raise ParameterError(f"the baseline {baseline!r} is not among the runs {list(runs)}")
    base = list(runs).index(baseline)
    others = np.array([i for i in range(n) if i != base], dtype=np.intp)
    return others, np.full(len(others), base, dtype=np.intp)


def resample_counts(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """How often each topic is drawn in each of ``rows`` bootstrap samples of n topics.

    Topic indices are floor(u n) with u from ``rng.random`` (one double per draw, so a chunk
    draws the same numbers as the same rows of a larger draw).
    """
    picks = np.minimum((rng.random((rows, n)) * n).astype(np.intp), n - 1)
    offsets = picks + (np.arange(rows, dtype=np.intp) * n)[:, None]
    return np.bincount(offsets.ravel(), minlength=rows * n).reshape(rows, n).astype(float)
