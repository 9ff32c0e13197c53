"""Whole analyses over a run set: comparing runs on several measures, and comparing measures.

:func:`compare_runs` tests every pair of runs (or every run against a baseline) under each
measure; :func:`analyse_measures` asks how the measures behave on the run set --
discriminative power and ASL curves (Sakai 2006), Kendall's tau and tau_ap between their run
rankings, and the PRES paper's agreement of verdicts. Both take score matrices (one per
measure) and return plain frames ready for :mod:`pateval.report`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ..errors import ParameterError
from .agreement import agreement_chart, agreement_counts, pair_verdicts
from .correlation import ranking_correlations
from .power import DiscriminativePower, discriminative_power
from .scores import SeedLike, check_matrices, describe_seed
from .significance import DEFAULT_B, TESTS, pairwise_tests

__all__ = ["Comparison", "MeasureAnalysis", "analyse_measures", "compare_runs", "mean_scores"]


def mean_scores(matrices: Mapping[str, object]) -> pd.DataFrame:
    """Each run's mean under each measure over the topics of its matrix: runs x measures."""
    checked = check_matrices(matrices, purpose="mean scores", min_topics=1)
    return pd.DataFrame({measure: frame.mean(axis=0) for measure, frame in checked.items()})


@dataclass(frozen=True)
class Comparison:
    """Runs compared under several measures (what :func:`compare_runs` returns).

    Attributes
    ----------
    means : pandas.DataFrame
        Runs x measures: mean scores over each measure's topics.
    tests : pandas.DataFrame
        Every tested pair under every measure: ``measure`` followed by the columns of
        :func:`pateval.stats.pairwise_tests`.
    topics : dict
        Number of topics each measure's tests used.
    baseline, test, correction, alpha, B, seed
        The settings, reported with the results (B is None for the t and Wilcoxon tests).
    notes : tuple of str
        What the caller should know about the input (e.g. topics left out).
    scores : dict
        The topics x runs matrix of each measure that the tests used.
    """

    means: pd.DataFrame
    tests: pd.DataFrame
    topics: dict[str, int]
    baseline: str | None
    test: str
    correction: str
    alpha: float
    B: int | None
    seed: int | str | None
    notes: tuple[str, ...] = ()
    scores: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def runs(self) -> list[str]:
        return list(self.means.index)

    @property
    def measures(self) -> list[str]:
        return list(self.means.columns)

    def better_than(self) -> pd.DataFrame:
        """Runs x measures: the runs each run is significantly better than (a list per cell)."""
        table = pd.DataFrame([[[] for _ in self.measures] for _ in self.runs], index=self.runs, columns=self.measures)
        for row in self.tests[self.tests["significant"]].itertuples(index=False):
            winner, loser = (row.run_a, row.run_b) if row.difference > 0 else (row.run_b, row.run_a)
            table.at[winner, row.measure].append(loser)
        return table

    def against_baseline(self) -> pd.DataFrame:
        """Runs x measures: +1 significantly better than the baseline, -1 worse, 0 neither.

        The baseline's own row holds 0. Needs a comparison made with a baseline.
        """
        if self.baseline is None:
            raise ParameterError("this comparison tested all pairs; compare with a baseline for this view")
        table = pd.DataFrame(0, index=self.runs, columns=self.measures)
        for row in self.tests[self.tests["significant"]].itertuples(index=False):
            table.at[row.run_a, row.measure] = 1 if row.difference > 0 else -1
        return table


def compare_runs(matrices: Mapping[str, object], *, baseline: str | None = None, test: str = "t",
                 correction: str | None = "holm", alpha: float = 0.05, seed: SeedLike = 0,
                 B: int | None = None) -> Comparison:
    """Test the runs against a baseline, or all pairs, under each measure.

    Parameters
    ----------
    matrices : mapping measure -> topics x runs scores
    baseline : str, optional
        Run to test the others against; default all pairs.
    test : {"t", "wilcoxon", "randomisation", "bootstrap", "tukey"}
    correction : {"holm", "bonferroni", "bh", None}
        Applied over the pairs of one measure (each measure is its own family).
    alpha, seed, B
        See :func:`pateval.stats.pairwise_tests`.
    """
    checked = check_matrices(matrices, purpose="comparing runs")
    if test not in TESTS:
        raise ParameterError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    # each measure's tests, a measure column first
    tests = pd.concat({measure: pairwise_tests(frame, test=test, baseline=baseline, correction=correction, alpha=alpha,
                                               seed=seed, B=B) for measure, frame in checked.items()},
                      names=["measure"]).reset_index(level="measure").reset_index(drop=True)
    resampling = test in DEFAULT_B
    used_B = int(tests["B"].iloc[0]) if resampling else None
    exact = resampling and tests["seed"].isna().all()
    return Comparison(means=mean_scores(checked), tests=tests,
                      topics={measure: len(frame) for measure, frame in checked.items()}, baseline=baseline,
                      test=test, correction=str(tests["correction"].iloc[0]), alpha=float(alpha), B=used_B,
                      seed=describe_seed(seed) if resampling and not exact else None, scores=checked)


@dataclass(frozen=True)
class MeasureAnalysis:
    """How measures behave on a run set (what :func:`analyse_measures` returns).

    Attributes
    ----------
    means : pandas.DataFrame
        Runs x measures.
    power : DiscriminativePower
        ``summary``, ``tests`` and ``curves`` (see :func:`pateval.stats.discriminative_power`).
    correlations : pandas.DataFrame or None
        Kendall's tau and tau_ap per pair of measures (None with a single measure).
    verdicts, agreement, chart : pandas.DataFrame or None
        Each measure's verdict per run pair, agreement counts per pair of measures, and the
        count per combination of verdicts (None with a single measure).
    agreement_test : str
        The test behind the verdicts (Wilcoxon in the PRES paper).
    settings : dict
        Test, alpha, B and seed of the discriminative-power tests.
    power_by_test : pandas.DataFrame or None
        ``measure`` and one column per test: the share of run pairs significant.
    notes : tuple of str
        What the caller should know about the input (e.g. topics left out).
    """

    means: pd.DataFrame
    power: DiscriminativePower
    correlations: pd.DataFrame | None
    verdicts: pd.DataFrame | None
    agreement: pd.DataFrame | None
    chart: pd.DataFrame | None
    agreement_test: str
    settings: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    power_by_test: pd.DataFrame | None = None


def analyse_measures(matrices: Mapping[str, object], *, test: str | Sequence[str] = "bootstrap",
                     agreement_test: str = "wilcoxon", alpha: float = 0.05, seed: SeedLike = 0,
                     B: int | None = None) -> MeasureAnalysis:
    """Discriminative power, rank correlation and agreement of the given measures.

    Parameters
    ----------
    matrices : mapping measure -> topics x runs scores
        The same runs under each measure.
    test : str or sequence of str
        Test for discriminative power (Sakai's bootstrap by default). With several, the
        first gives ``power`` (and the ASL curves) and ``power_by_test`` holds each
        measure's discriminative power under every one, as Smucker & Clarke's table 2
        (t-test, randomisation, bootstrap).
    agreement_test : str
        Test for the verdicts of the agreement chart (Wilcoxon, as Magdy & Jones 2010);
        uncorrected, as in the paper.
    alpha, seed, B
        See :func:`pateval.stats.pairwise_tests`.
    """
    checked = check_matrices(matrices, purpose="the measure analysis")
    tests = [test] if isinstance(test, str) else list(dict.fromkeys(test))
    if not tests or any(t not in TESTS for t in tests):
        raise ParameterError(f"tests must be among {', '.join(TESTS)}; got {test!r}")
    power = discriminative_power(checked, test=tests[0], alpha=alpha, B=B, seed=seed)
    summaries = [power.summary] + [discriminative_power(checked, test=t, alpha=alpha, B=B, seed=seed).summary
                                   for t in tests[1:]]
    power_by_test = (pd.concat(summaries, ignore_index=True)
                     .pivot(index="measure", columns="test", values="discriminative_power")
                     .reindex(index=list(checked), columns=tests).rename_axis(columns=None).reset_index())
    means = mean_scores(checked)
    correlations = verdicts = agreement = chart = None
    if len(checked) > 1:
        varying = [m for m in means.columns if means[m].nunique() > 1]
        if len(varying) > 1:
            correlations = ranking_correlations(means[varying])
        verdicts = pair_verdicts(checked, test=agreement_test, alpha=alpha, seed=seed, B=B)
        agreement = agreement_counts(verdicts)
        chart = agreement_chart(verdicts)
    settings = {"test": tests[0], "alpha": float(alpha), "B": power.summary["B"].iloc[0],
                "seed": power.summary["seed"].iloc[0]}
    return MeasureAnalysis(means=means, power=power, correlations=correlations, verdicts=verdicts, agreement=agreement,
                           chart=chart, agreement_test=agreement_test, settings=settings, power_by_test=power_by_test)
