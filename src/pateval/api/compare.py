"""Comparing systems and measures: paired tests, discriminative power, ranking stability, the
HTML report; from runs and qrels, or from per-topic score files."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ParameterError
from ..formats.inputs import is_frame
from ..measures import parse_measure, parse_measures
from ..options import EvaluationOptions
from .evaluate import evaluate, tell, written_names

if TYPE_CHECKING:  # pandas is imported by the functions that build frames (the command line starts without it)
    import pandas as pd


def _comparison_matrices(qrels, runs, measures, options: EvaluationOptions | None, scores_format: str, *,
                         also: Sequence[str] = ()) -> tuple[dict[str, pd.DataFrame], list[str], pd.DataFrame]:
    """Per-topic scores of every run as one topics x runs matrix per measure, plus notes and the
    per-topic frame they came from.

    Paired tests need every run scored on the same topics: a topic some run has no score
    for is left out of that measure's tests (evaluate with ``complete=True`` to score it 0).
    ``also``: measures scored in the same pass over the runs (or read from the same score
    files, where every run has them) for the frame only, with no matrix of their own.
    """
    import pandas as pd

    from ..executor import TopicsLeftOut
    from ..stats import score_matrices

    given = EvaluationOptions(measures=measures).measures if measures is not None else ()
    # measures=None (score files: every measure they share) gets a matrix for each, these too
    extra = {str(m) for m in parse_measures(also)} - {str(m) for m in parse_measures(given)} if given else set()
    if qrels is None:  # per-topic scores instead of runs (issue 15): see read_scores
        frame = read_scores(runs, measures=measures, format=scores_format)
        notes = list(frame.attrs.get("notes", []))
        if extra:  # those of them every file has
            shared = read_scores(runs, format=scores_format)
            frame = pd.concat([frame, shared[shared["measure"].isin(extra)]], ignore_index=True)
    else:
        frame = evaluate(qrels, runs, [*given, *also] if given else measures, options=options)
        written = written_names(measures)  # `-m map` is shown as map, not AP
        if written:
            frame["measure"] = frame["measure"].map(lambda name: written.get(name, name))
        notes = list(frame.attrs.get("notes", []))
    names = [name for name in dict.fromkeys(frame["measure"]) if name not in extra]
    matrices = score_matrices(frame, names)
    for name, matrix in matrices.items():
        scored = frame.loc[frame["measure"] == name, "topic"].nunique()
        if len(matrix) < scored:
            left_out = TopicsLeftOut(f"{name}: {scored - len(matrix)} of {scored} topics left out of the tests because "
                                     "some run has no score for them (use -c / complete=True to score them as 0)")
            notes.append(left_out)
            tell([left_out])
    return matrices, notes, frame


def read_scores(sources, *, measures: Sequence[str] | str | None = None, format: str = "auto") -> pd.DataFrame:
    """Per-topic scores of several runs from score files, for comparing without the runs.

    ``compare``, ``analyse_measures`` and ``write_report`` take such scores in place of
    runs when ``qrels`` is None: ``pateval.api.compare(None, ["a.eval", "b.eval"], ["AP"])``.

    Parameters
    ----------
    sources : path, list of paths, or DataFrame
        Files written by ``trec_eval -q``, ``ir_measures -q`` (TSV or jsonl) or
        ``pateval evaluate -q`` (text, CSV, JSON) -- see :mod:`pateval.results.readers` --
        or a frame ``run, topic, measure, value``.
    measures : str or sequence of str, optional
        The measures to keep (``AP`` matches trec_eval's ``map``); default: those every run has.
    format : {"auto", "trec_eval", "ir_measures", "pateval-csv", "pateval-json"}

    Returns
    -------
    DataFrame
        ``run, topic, measure, value``, measure names as pateval writes them where it knows them.
    """
    from ..results.readers import read_score_files

    if isinstance(measures, str):
        measures = [measures]
    if is_frame(sources):
        frame = sources[sources["topic"].astype(str) != "all"]
        return frame if not measures else frame[frame["measure"].isin([str(parse_measure(m)) for m in measures])]
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    return read_score_files(list(sources), measures=list(measures) if measures else None, format=format)


def compare(qrels, runs, measures: Sequence[str] | str, *, baseline: str | None = None, test: str = "t",
            correction: str | None = "holm", alpha: float = 0.05, seed: int = 0, B: int | None = None,
            options: EvaluationOptions | None = None, scores_format: str = "auto"):
    """Evaluate runs and test them against a baseline, or all pairs, under each measure.

    Parameters
    ----------
    qrels, runs, measures
        As for :func:`evaluate`; or ``qrels=None`` and per-topic score files (or a frame
        ``run, topic, measure, value``) as ``runs``, see :func:`read_scores`.
    baseline : str, optional
        Name of the run to test the others against; default all pairs.
    test : {"t", "wilcoxon", "randomisation", "bootstrap", "tukey"}
    correction : {"holm", "bonferroni", "bh", None}
    alpha : float
    seed : int
        Seed of the resampling tests (reported with the results).
    B : int, optional
        Resamples (default 10,000 randomisation, 1,000 bootstrap, 5,000 Tukey HSD).
    options : EvaluationOptions, optional
        How the runs are read, ranked and scored, as for :func:`evaluate`
        (e.g. ``EvaluationOptions(complete=True)``).
    scores_format : str, default "auto"
        The format of score files given as ``runs`` (``qrels=None``), see :func:`read_scores`.

    Returns
    -------
    pateval.stats.Comparison
        Means, every test, the settings and notes (e.g. topics left out);
        :func:`pateval.report.render_comparison` prints it as a table.
    """
    from ..stats import compare_runs

    matrices, notes, _ = _comparison_matrices(qrels, runs, measures, options, scores_format)
    shared = min(len(matrix) for matrix in matrices.values())
    if shared < 2:  # a paired test needs two topics: the means alone, and why
        return _untested_comparison(matrices, notes, shared, baseline=baseline, test=test, correction=correction,
                                    alpha=alpha)
    result = compare_runs(matrices, baseline=baseline, test=test, correction=correction, alpha=alpha, seed=seed, B=B)
    return dataclasses.replace(result, notes=tuple(notes))


_TEST_COLUMNS = ("measure", "run_a", "run_b", "n_topics", "mean_a", "mean_b", "difference", "statistic", "p_value",
                 "p_adjusted", "significant", "effect_size", "ci_low", "ci_high", "critical_difference", "test",
                 "correction", "alpha", "B", "seed")


def _untested_comparison(matrices, notes, shared: int, *, baseline, test, correction, alpha):
    """A :class:`~pateval.stats.Comparison` of the means only, with a note saying why no test was run."""
    import pandas as pd

    from ..stats import Comparison, mean_scores

    means = mean_scores(matrices)
    if baseline is not None and baseline not in means.index:
        raise ParameterError(f"the baseline {baseline!r} is not among the runs {list(means.index)}")
    tests = pd.DataFrame({column: pd.Series([], dtype=bool if column == "significant" else object)
                           for column in _TEST_COLUMNS})
    untested = (f"no significance test was run: the runs share {shared} topic{'' if shared == 1 else 's'} "
                "and a paired test needs at least 2; the table gives the means only")
    tell([untested])
    return Comparison(means=means, tests=tests, topics={m: len(x) for m, x in matrices.items()}, baseline=baseline,
                      test=test, correction=correction or "none", alpha=float(alpha), B=None, seed=None,
                      notes=(*notes, untested), scores=dict(matrices))


def analyse_measures(qrels, runs, measures: Sequence[str] | str, *, test: str | Sequence[str] = "bootstrap",
                     agreement_test: str = "wilcoxon", alpha: float = 0.05, seed: int = 0, B: int | None = None,
                     options: EvaluationOptions | None = None, scores_format: str = "auto"):
    """Evaluate runs and compare the measures: discriminative power, rank correlation, agreement.

    ``test`` may name several tests (e.g. ``["t", "randomisation", "bootstrap"]``, as
    Smucker & Clarke's table 2). See :func:`pateval.stats.analyse_measures`; returns its
    :class:`~pateval.stats.MeasureAnalysis`.
    """
    from ..stats import analyse_measures as analyse

    matrices, notes, _ = _comparison_matrices(qrels, runs, measures, options, scores_format)
    result = analyse(matrices, test=test, agreement_test=agreement_test, alpha=alpha, seed=seed, B=B)
    return dataclasses.replace(result, notes=tuple(notes))


def ranking_stability(qrels, runs, measures: Sequence[str] | str, *,
                      sizes: Sequence[int | str] | str = (10, 25, 50, 100, "S", "M", "L", "XL"), trials: int = 20,
                      seed: int = 0, options: EvaluationOptions | None = None,
                      scores_format: str = "auto") -> pd.DataFrame:
    """How stable the ranking of the runs is on random topic subsets of growing size.

    Evaluates the runs, then per measure :func:`pateval.collection.sampling.ranking_stability`:
    for each size, ``trials`` random topic subsets (seeded), each ranking of the runs by
    their mean on the subset compared with their ranking on all topics by Kendall's tau.

    Parameters
    ----------
    qrels, runs, measures
        As for :func:`evaluate` (at least two runs).
    sizes : sequence of int or {"S", "M", "L", "XL"}, or str
        Topic-set sizes (S, M, L, XL: CLEF-IP's 500, 1000, 5000, 10000); a string is a
        comma-separated list (``"10,25,S"``).
    trials : int
        Random subsets per size.
    seed : int
        Seed of the subsets: the same seed gives the same subsets.
    options, scores_format
        As for :func:`compare`.

    Returns
    -------
    pandas.DataFrame
        ``measure, size, topics, trials, mean_tau, min_tau, max_tau``; sizes above the
        number of topics are left out (a note names them; none left is a ParameterError).
        ``frame.attrs["notes"]`` says which sizes and topics were left out (a run without a
        score for them), ``frame.attrs["settings"]`` holds the sizes
        (as text), trials and seed.
    """
    import pandas as pd

    from ..collection.sampling import ranking_stability as stability
    from ..collection.sampling import resolve_size

    if isinstance(sizes, str):
        sizes = [part.strip() for part in sizes.split(",") if part.strip()]
    sizes = list(sizes)
    if not sizes:
        raise ParameterError("sizes must name at least one topic-set size (a number, or S, M, L, XL)")
    for size in sizes:  # checked before the runs are evaluated; None (all topics) is no subset size
        if resolve_size(size) is None:
            raise ParameterError("topic-set size must be S, M, L, XL or a positive integer, not None")
    matrices, notes, _ = _comparison_matrices(qrels, runs, measures, options, scores_format)
    notes += _sizes_left_out(sizes, {measure: len(matrix) for measure, matrix in matrices.items()})
    pieces = []
    for measure, matrix in matrices.items():
        scores = matrix.rename_axis(index="qid", columns="system").stack().rename("score").reset_index()
        pieces.append(stability(scores, sizes=sizes, trials=trials, seed=seed).assign(measure=measure))
    columns = ["measure", "size", "topics", "trials", "mean_tau", "min_tau", "max_tau"]
    frame = pd.concat(pieces, ignore_index=True)[columns] if pieces else pd.DataFrame(columns=columns)
    frame.attrs["notes"] = notes
    frame.attrs["settings"] = {"sizes": [str(size) for size in sizes], "trials": trials, "seed": seed}
    return frame


def _sizes_left_out(sizes: Sequence[int | str], topics: Mapping[str, int]) -> list[str]:
    """Notes on the topic-set sizes above a measure's number of topics (left out of its rows);
    an error when no size is left for some measure."""
    from ..collection.sampling import resolve_size

    def named(size: int | str) -> str:
        number = resolve_size(size)
        return str(size) if str(size).strip() == str(number) else f"{size} ({number})"

    by_count: dict[int, list[str]] = {}
    for measure, count in topics.items():
        by_count.setdefault(count, []).append(measure)
    notes = []
    for count, measures in sorted(by_count.items()):
        too_large = [named(size) for size in sizes if (resolve_size(size) or 0) > count]
        if not too_large:
            continue
        of = "" if len(by_count) == 1 else f" of {', '.join(measures)}"
        if len(too_large) == len(sizes):
            raise ParameterError(f"no topic-set size fits the {count} topics{of}: {', '.join(too_large)} "
                                 f"{'exceeds' if len(too_large) == 1 else 'exceed'} them; give sizes (--sizes) of "
                                 f"at most {count}")
        note = (f"topic-set size{'s' if len(too_large) > 1 else ''} {', '.join(too_large)} "
                f"{'exceed' if len(too_large) > 1 else 'exceeds'} the {count} topics{of}: left out")
        tell([note])
        notes.append(note)
    return notes


#: trec_eval's measure list of the recall-precision curve: IPrec at recall 0, 0.1, ..., 1
_RECALL_LEVELS = "iprec_at_recall"


def _recall_precision(frame: pd.DataFrame, runs: Sequence[str]) -> pd.DataFrame | None:
    """Each run's mean interpolated precision at the 11 recall levels (runs x levels), as
    trec_eval's iprec_at_recall lines; None when some run lacks a level (score files)."""
    from ..evaluation import aggregate

    levels = parse_measures([_RECALL_LEVELS])
    names = [str(level) for level in levels]
    means = aggregate(frame[frame["measure"].isin(names)], levels)
    curves = means.pivot(index="run", columns="measure", values="value").reindex(index=list(runs), columns=names)
    if curves.isna().to_numpy().any():
        return None
    curves.columns = [level["recall"] for level in levels]
    return curves


def write_report(qrels, runs, measures: Sequence[str] | str, *, out: str | os.PathLike, baseline: str | None = None,
                 test: str = "t", correction: str | None = "holm", analysis_test: str = "bootstrap",
                 agreement_test: str = "wilcoxon", alpha: float = 0.05, seed: int = 0, B: int | None = None,
                 title: str = "pateval report", image_format: str = "svg", gain_over_time=None,
                 ct_by_gamma: pd.DataFrame | None = None, options: EvaluationOptions | None = None,
                 scores_format: str = "auto", calibration=None, collection=None) -> Path:
    """Evaluate runs and write one self-contained HTML report comparing runs and measures.

    The report holds the comparison table (``test``, ``correction`` against ``baseline`` or
    over all pairs), per-topic differences, and -- with two or more measures --
    discriminative power (``analysis_test``), rank correlation and the agreement chart.
    ``gain_over_time`` (frame ``run, time, gain``: one cumulative curve per run, checked by
    :func:`pateval.report.inputs.check_gain_curves`) and ``ct_by_gamma`` (frame ``run, gamma,
    score``) add the G(t) and Cube-Test-against-gamma plots; no pateval command writes the
    G(t) curves, which come from a time-stamped simulation or log. ``calibration``: a ``(result, figures)``
    pair from :func:`calibrate` and :func:`calibration_figures` adds a section with the TBG
    calibration. ``collection``: a ``(budgets, reusability, measure)`` triple of tables from
    :func:`simulate_budgets` and :func:`leave_out` (either None) adds a section on judging
    budgets and reusability. The report opens with the recall-precision curves (the runs' mean IPrec at
    recall 0, 0.1, ..., 1, scored in the same pass as ``measures``; from score files, where
    every file has them). Returns the path written.
    """
    from ..report import render_report, report_sections, write_html
    from ..stats import analyse_measures as analyse
    from ..stats import compare_runs

    matrices, notes, frame = _comparison_matrices(qrels, runs, measures, options, scores_format, also=[_RECALL_LEVELS])
    comparison = compare_runs(matrices, baseline=baseline, test=test, correction=correction, alpha=alpha, seed=seed,
                              B=B)
    analysis = analyse(matrices, test=analysis_test, agreement_test=agreement_test, alpha=alpha, seed=seed, B=B)
    curves = _recall_precision(frame, comparison.runs)
    if curves is None:
        notes.append("no recall-precision curves: the score files do not hold every run's iprec_at_recall scores "
                     "at the 11 recall levels (trec_eval -q writes them)")
    sections = report_sections(comparison=comparison, analysis=analysis, matrices=matrices,
                               gain_over_time=gain_over_time,
                               ct_by_gamma=ct_by_gamma, recall_precision=curves, image_format=image_format)
    if calibration is not None:
        from ..report.calibration import calibration_section

        sections.append(calibration_section(*calibration, image_format=image_format))
    if collection is not None:
        from ..report.budgets import budgets_section

        budgets, reuse, measure = collection
        sections.append(budgets_section(budgets, reuse, measure=measure, image_format=image_format))
    write_html(render_report(sections, title=title, runs=comparison.runs, measures=comparison.measures, notes=notes),
               out)
    return Path(out)
