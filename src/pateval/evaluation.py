"""The evaluation core: runs x measures -> one value per (run, topic, measure).

Both the command line and :func:`pateval.api.evaluate` call :func:`evaluate_runs`. Topics
are chosen per run (trec_eval's rule: the topics in both the qrels and the run; with
``complete=True`` every qrels topic, a missing topic scoring 0 as with ``trec_eval -c``),
each run is ranked once (:func:`pateval.core.ranking.rank_run`) and every measure's kernel
runs over all its topics at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from .core.docids import DOC_KEYS
from .core.qrels import Qrels
from .core.ranking import ORDERS, JudgementIndex, RankedTopics, rank_run
from .core.run import Run
from .errors import ParameterError
from .measures import EvaluationContext, Measure, parse_measures
from .validation import check_choice

__all__ = ["Evaluation", "TopicsLeftOut", "evaluate_runs", "aggregate", "topics_to_evaluate"]


class TopicsLeftOut(str):
    """A note saying that topics were left out of the means (the API also warns with it)."""

    __slots__ = ()


@dataclass
class Evaluation:
    """Per-topic values of every (run, measure), with what the user must know about them.

    Attributes
    ----------
    frame : DataFrame
        Columns ``run, topic, measure, value``; one row per evaluated topic.
    measures : list of Measure
    notes : list of str
        Topics present on one side only, how the mean was taken, lines dropped on request.
    """

    frame: pd.DataFrame
    measures: list[Measure]
    notes: list[str] = field(default_factory=list)

    def summary(self) -> pd.DataFrame:
        """The ``all`` values: columns ``run, measure, value`` (mean, or sum for counts)."""
        return aggregate(self.frame, self.measures)


def topics_to_evaluate(qrels_topics: np.ndarray, run: Run, *, complete: bool) -> tuple[np.ndarray, list[str]]:
    """The topics a run is scored on, and notes on the topics left out."""
    # hash lookups: np.isin on object arrays is quadratic in NumPy 2
    run_topics = pd.Index(np.asarray(run.topic_ids, dtype=object))
    in_run = run_topics.get_indexer(qrels_topics) >= 0
    run_only = np.asarray(sorted(run_topics.difference(pd.Index(qrels_topics))), dtype=object)
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
        pieces.append(score_ranked(ranked, parsed, context))
    if not names:
        raise ParameterError("no run was given")
    frame = pd.concat(pieces, ignore_index=True)
    averaging = "all qrels topics (complete: missing ones score 0)" if complete else "topics in both the qrels and the run"
    summed = [str(m) for m in parsed if m.spec.aggregate == "sum"]
    notes.append(f"means are over {averaging}" + (f"; counts ({', '.join(summed)}) are summed" if summed else ""))
    return Evaluation(frame=frame, measures=parsed, notes=notes)


def score_ranked(ranked: RankedTopics, measures: Sequence[Measure], context: EvaluationContext) -> pd.DataFrame:
    """Every measure over every topic of one ranked run, as a long frame."""
    n, m = ranked.n_topics, len(measures)
    values = np.concatenate([measure.compute(ranked, context) for measure in measures]) if n else np.zeros(0)
    return pd.DataFrame({
        "run": _strings([ranked.run_name], np.zeros(n * m, dtype=np.int32)),
        "topic": _strings(ranked.topic_ids, np.tile(np.arange(n, dtype=np.int32), m)),
        "measure": _strings([str(measure) for measure in measures], np.repeat(np.arange(m, dtype=np.int32), n)),
        "value": values,
    }, copy=False)


_STRING_DTYPE = pd.Series(["topic"]).dtype  # what pandas makes of strings: str (pandas 3) or object


def _strings(distinct, codes: np.ndarray) -> pd.Series:
    """``distinct[codes]`` as the column pandas makes of strings, gathered by Arrow where
    that column is Arrow's (a tenth of the time of going through Python strings)."""
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
    grouped = frame.groupby(["run", "measure"], sort=False)["value"]
    sums, means, counts = grouped.sum(), grouped.mean(), grouped.size()
    for run in pd.unique(frame["run"]):
        for measure in parsed:
            key = (run, str(measure))
            if key not in counts.index:
                continue
            value = sums[key] if measure.spec.aggregate == "sum" else means[key]
            rows.append((run, str(measure), float(value), int(counts[key])))
    return pd.DataFrame(rows, columns=["run", "measure", "value", "topics"])
