"""The evaluation core: runs x measures -> one value per (run, topic, measure).

Both the command line and :func:`pateval.api.evaluate` call :func:`evaluate_runs`. Topics
are chosen per run (trec_eval's rule: the topics in both the qrels and the run; with
``complete=True`` every qrels topic, a missing topic scoring 0 as with ``trec_eval -c``),
each run is ranked once (:func:`pateval.core.ranking.rank_run`) and every measure's kernel
runs over all its topics at once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa

from ._lazy import lazy_module

from .core.names import DOC_KEYS, ORDERS
from .core.order import positions_in
from .core.qrels import Qrels
from .core.ranking import JudgementIndex, RankedTopics, rank_run
from .core.run import Run
from .errors import ParameterError
from .measures import EvaluationContext, Measure, parse_measures
from .validation import check_choice

pd = lazy_module("pandas")  # the frames are built when asked for: `pateval evaluate` prints without pandas

__all__ = ["Evaluation", "ScoredRun", "TopicsLeftOut", "evaluate_runs", "aggregate", "topics_to_evaluate"]


class TopicsLeftOut(str):
    """A note saying that topics were left out of the means (the API also warns with it)."""

    __slots__ = ()


@dataclass(frozen=True)
class ScoredRun:
    """One run's values: ``values[j * len(topics) + i]`` is measure j on topic i."""

    run: str
    topics: Sequence[str]
    measures: Sequence[str]
    values: np.ndarray


@dataclass
class Evaluation:
    """Per-topic values of every (run, measure), with what the user must know about them.

    Attributes
    ----------
    frame : DataFrame
        Columns ``run, topic, measure, value``; one row per evaluated topic (built when
        first asked for).
    measures : list of Measure
    notes : list of str
        Topics present on one side only, how the mean was taken, lines dropped on request.
    scored : list of ScoredRun
        The same values, run by run, as arrays.
    """

    scored: list[ScoredRun]
    measures: list[Measure]
    notes: list[str] = field(default_factory=list)

    @cached_property
    def frame(self) -> "pd.DataFrame":
        if not self.scored:
            return pd.DataFrame({"run": [], "topic": [], "measure": [], "value": np.zeros(0)})
        return pd.concat([_scored_frame(piece) for piece in self.scored], ignore_index=True)

    def summary(self) -> "pd.DataFrame":
        """The ``all`` values: columns ``run, measure, value, topics`` (mean, or sum for counts)."""
        return pd.DataFrame(self.summary_rows(), columns=["run", "measure", "value", "topics"])

    def summary_rows(self) -> list[tuple[str, str, float, int]]:
        """:meth:`summary` as ``(run, measure, value, topics)`` tuples (without pandas)."""
        how = {str(m): m.spec.aggregate for m in self.measures}
        rows = []
        for piece in self.scored:
            n = len(piece.topics)
            for j, name in enumerate(piece.measures):
                if n:
                    rows.append((piece.run, name, _aggregate_values(piece.values[j * n:(j + 1) * n], how[name]), n))
        return rows

    def result_rows(self, *, per_query: bool) -> dict[str, list]:
        """The rows ``pateval evaluate`` prints, as columns ``run, measure, topic, value``:
        per run and measure, the per-topic rows (if asked) and then the ``all`` row (the
        rows of :func:`pateval.formats.results.result_rows`, without pandas)."""
        columns: dict[str, list] = {"run": [], "measure": [], "topic": [], "value": []}
        means = {(run, measure): value for run, measure, value, _ in self.summary_rows()}
        for piece in self.scored:
            n = len(piece.topics)
            for j, name in enumerate(piece.measures):
                if (piece.run, name) not in means:
                    continue
                if per_query:
                    columns["run"].extend([piece.run] * n)
                    columns["measure"].extend([name] * n)
                    columns["topic"].extend(piece.topics)
                    columns["value"].extend(piece.values[j * n:(j + 1) * n].tolist())
                columns["run"].append(piece.run)
                columns["measure"].append(name)
                columns["topic"].append("all")
                columns["value"].append(means[piece.run, name])
        return columns


def _aggregate_values(values: np.ndarray, how: str) -> float:
    """The ``all`` value of one (run, measure): the sum (counts) or the mean, both exactly
    rounded (``math.fsum``), so that every path to a mean gives the same bits."""
    total = math.fsum(values.tolist())
    return float(total) if how == "sum" else total / len(values)


def topics_to_evaluate(qrels_topics: np.ndarray, run: Run, *, complete: bool) -> tuple[np.ndarray, list[str]]:
    """The topics a run is scored on, and notes on the topics left out."""
    # hash lookups: np.isin on object arrays is quadratic in NumPy 2
    run_topics = np.asarray(run.topic_ids, dtype=object)
    in_run = positions_in(run_topics, qrels_topics) >= 0
    run_only = np.asarray(sorted(run_topics[positions_in(qrels_topics, run_topics) < 0]), dtype=object)
    notes = []
    if len(run_only):
        notes.append(TopicsLeftOut(f"run {run.name!r}: {len(run_only)} topic(s) not in the qrels, not evaluated: "
                                   f"{_few(run_only)}"))
    missing = qrels_topics[~in_run]
    if complete:
        if len(missing):
            notes.append(f"run {run.name!r}: {len(missing)} qrels topic(s) without results score 0 (complete averaging): {_few(missing)}")
        return qrels_topics, notes
    if len(missing):
        notes.append(TopicsLeftOut(f"run {run.name!r}: {len(missing)} qrels topic(s) without results left out of the "
                                   f"mean (use complete=True / -c to count them as 0): {_few(missing)}"))
    return qrels_topics[in_run], notes


def _few(values: Iterable, limit: int = 5) -> str:
    values = list(values)
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f", ... ({len(values) - limit} more)" if len(values) > limit else "")


def evaluate_runs(
    qrels: Qrels,
    runs: Iterable[Run],
    measures: Sequence[str | Measure],
    *,
    complete: bool = False,
    order: str = "score",
    doc_key: str = "publication",
    context: EvaluationContext | None = None,
) -> Evaluation:
    """Score runs against qrels with the given measures.

    Parameters
    ----------
    qrels : Qrels
    runs : iterable of Run
        Run names must differ (they label the results). Runs are evaluated one at a time,
        so a generator that reads each run when asked keeps one run in memory.
    measures : sequence of str or Measure
    complete : bool, default False
        Average over every qrels topic, a topic the run misses scoring 0 (trec_eval -c).
    order : {"score", "rank", "file"}, default "score"
        How each topic's documents are ordered (see :func:`pateval.core.ranking.evaluation_order`).
    doc_key : {"publication", "patent"}, default "publication"
        Match documents by id, or by patent (CLEF-IP judged patents).
    context : EvaluationContext, optional
        Side inputs some measures need (document lengths, subtopic weights, ...).

    Returns
    -------
    Evaluation
    """
    check_choice("order", order, ORDERS)
    check_choice("doc_key", doc_key, DOC_KEYS)
    parsed = parse_measures(measures)
    if not parsed:
        raise ParameterError("no measure was asked for")
    needs_subtopics = [m for m in parsed if "subtopics" in m.spec.requires]
    if needs_subtopics and not qrels.has_subtopics:
        raise ParameterError(f"{needs_subtopics[0]} needs subtopic qrels (format 'subtopic' or 'dd'); "
                             f"{qrels.source} was read as {qrels.format!r}")
    return _evaluate_runs(qrels, runs, parsed, complete=complete, order=order, doc_key=doc_key,
                          context=context or EvaluationContext())


def _evaluate_runs(qrels: Qrels, runs: Iterable[Run], parsed: list[Measure], *, complete: bool, order: str,
                   doc_key: str, context: EvaluationContext) -> Evaluation:
    qrels_topics = np.asarray(qrels.topic_ids, dtype=object)
    notes: list[str] = list(qrels.notes)
    indexes: dict[tuple, JudgementIndex] = {}
    pieces = []
    names: set[str] = set()
    for run in runs:  # one at a time: a generator of runs keeps one run in memory
        if run.name in names:
            raise ParameterError(f"two runs are named {run.name!r}; give them distinct names")
        names.add(run.name)
        topics, run_notes = topics_to_evaluate(qrels_topics, run, complete=complete)
        notes.extend(run_notes)
        index_key = tuple(topics)
        if index_key not in indexes:
            indexes[index_key] = JudgementIndex.build(qrels, topics, doc_key=doc_key)
        ranked = rank_run(run, indexes[index_key], order=order)
        notes.extend(n for n in ranked.notes if n not in notes)
        pieces.append(score_run(ranked, parsed, context))
    if not names:
        raise ParameterError("no run was given")
    averaging = "all qrels topics (complete: missing ones score 0)" if complete else "topics in both the qrels and the run"
    summed = [str(m) for m in parsed if m.spec.aggregate == "sum"]
    notes.append(f"means are over {averaging}" + (f"; counts ({', '.join(summed)}) are summed" if summed else ""))
    return Evaluation(scored=pieces, measures=parsed, notes=notes)


def score_run(ranked: RankedTopics, measures: Sequence[Measure], context: EvaluationContext) -> ScoredRun:
    """Every measure over every topic of one ranked run, as arrays."""
    n = ranked.n_topics
    values = np.concatenate([measure.compute(ranked, context) for measure in measures]) if n else np.zeros(0)
    return ScoredRun(ranked.run_name, list(ranked.topic_ids), [str(m) for m in measures], values)


def score_ranked(ranked: RankedTopics, measures: Sequence[Measure], context: EvaluationContext) -> "pd.DataFrame":
    """Every measure over every topic of one ranked run, as a long frame."""
    return _scored_frame(score_run(ranked, measures, context))


def _scored_frame(piece: ScoredRun) -> "pd.DataFrame":
    n, m = len(piece.topics), len(piece.measures)
    return pd.DataFrame({
        "run": _strings([piece.run], np.zeros(n * m, dtype=np.int32)),
        "topic": _strings(piece.topics, np.tile(np.arange(n, dtype=np.int32), m)),
        "measure": _strings(piece.measures, np.repeat(np.arange(m, dtype=np.int32), n)),
        "value": piece.values,
    }, copy=False)


def _strings(distinct, codes: np.ndarray) -> "pd.Series":
    """``distinct[codes]`` as the column pandas makes of strings, gathered by Arrow where
    that column is Arrow's (a tenth of the time of going through Python strings)."""
    _STRING_DTYPE = pd.Series(["topic"]).dtype  # what pandas makes of strings: str (pandas 3) or object
    if _STRING_DTYPE == object:
        return pd.Series(np.asarray(distinct, dtype=object)[codes], dtype=object, copy=False)
    gathered = pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(list(distinct), type=pa.string()))
    return pd.Series(gathered.dictionary_decode(), dtype=_STRING_DTYPE, copy=False)


def aggregate(frame: pd.DataFrame, measures: Sequence[str | Measure] | None = None) -> pd.DataFrame:
    """The ``all`` value of each (run, measure): the mean over topics, or the sum for counts.

    Parameters
    ----------
    frame : DataFrame
        Per-topic values (columns ``run, topic, measure, value``), as :func:`pateval.evaluate` returns.
    measures : sequence, optional
        The measures, to keep their order; by default those in ``frame``, in order of appearance.
    """
    if measures is None:
        measures = list(pd.unique(frame["measure"]))
    parsed = parse_measures(measures)
    rows = []
    groups = frame.groupby(["run", "measure"], sort=False).indices  # positions of each group, in frame order
    values = frame["value"].to_numpy(dtype=np.float64)
    for run in pd.unique(frame["run"]):
        for measure in parsed:
            positions = groups.get((run, str(measure)))
            if positions is None:
                continue
            rows.append((run, str(measure), _aggregate_values(values[positions], measure.spec.aggregate), len(positions)))
    return pd.DataFrame(rows, columns=["run", "measure", "value", "topics"])
