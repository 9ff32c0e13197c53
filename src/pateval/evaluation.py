"""The evaluation core: runs x measures -> one value per (run, topic, measure).

Both the command line and :func:`pateval.api.evaluate` call :func:`evaluate_runs`. Topics
are chosen per run (trec_eval's rule: the topics in both the qrels and the run; with
``complete=True`` every qrels topic, a missing topic scoring 0 as with ``trec_eval -c``),
each run is ranked once (:func:`pateval.core.ranking.rank_run`) and every measure's kernel
runs over all its topics at once.

A run given as a :class:`pateval.formats.runblocks.RunFile` is read and scored in blocks of
whole topics by :mod:`pateval.executor` (here, or on a Dask cluster), so memory holds one
block, not the run. Each topic's values are those of the whole run evaluated at once, and
the frame is in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from . import trec_eval_rules
from ._lazy import lazy_module
from .core.order import positions_in
from .core.qrels import Qrels
from .core.ranking import JudgementIndex, RankedTopics, rank_run
from .core.run import NestedRun, Run
from .errors import ParameterError
from .executor import (
    BlockScorer,
    BlockScores,
    Ranking,
    RunTopics,
    measure_values,
    rank,
    topics_to_evaluate,
    unmatched_note,
)
from .formats.resources import prepare_resources, resource_options
from .formats.runblocks import RunFile, merge_counted_notes
from .measures import EvaluationContext, Measure, parse_measures
from .options import EvaluationOptions
from .trec_eval_rules import judged_rows_only, nan_on_empty_rankings, stand_in_run, zeroed_on_stand_in

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")  # the frames are built when asked for: `pateval evaluate` prints without pandas

__all__ = ["Evaluation", "ScoredRun", "evaluate_runs", "aggregate"]


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
    compat : str
        ``"trec_eval"``: the ``all`` values summed as trec_eval does, but ``totals`` (by measure: its rules').
    """

    scored: list[ScoredRun]
    measures: list[Measure]
    notes: list[str] = field(default_factory=list)
    # what each run's file says about it (Run.metadata: its ir_metadata block), by run name
    run_metadata: dict = field(default_factory=dict)
    compat: str = "pateval"
    totals: dict[str, float] = field(default_factory=dict)

    @cached_property
    def frame(self) -> pd.DataFrame:
        if not self.scored:
            return pd.DataFrame({"run": [], "topic": [], "measure": [], "value": np.zeros(0)})
        return pd.concat([_scored_frame(piece) for piece in self.scored], ignore_index=True)

    def summary(self) -> pd.DataFrame:
        """The ``all`` values: columns ``run, measure, value, topics`` (mean, or sum for counts)."""
        return pd.DataFrame(self.summary_rows(), columns=["run", "measure", "value", "topics"])

    def summary_rows(self) -> list[tuple[str, str, float, int]]:
        """:meth:`summary` as ``(run, measure, value, topics)`` tuples (without pandas)."""
        if self.compat == "trec_eval":
            return trec_eval_rules.trec_eval_summary_rows(self.scored, self.measures, totals=self.totals)
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
        rows of :func:`pateval.results.writers.result_rows`, without pandas)."""
        columns: dict[str, list] = {"run": [], "measure": [], "topic": [], "value": []}
        means = {(run, measure): value for run, measure, value, _ in self.summary_rows()}
        for piece in self.scored:
            n = len(piece.topics)
            for j, name in enumerate(piece.measures):
                if (piece.run, name) not in means:
                    continue
                values = piece.values[j * n:(j + 1) * n].tolist() if per_query else []
                values.append(means[piece.run, name])
                columns["run"].extend([piece.run] * len(values))
                columns["measure"].extend([name] * len(values))
                columns["topic"].extend([*piece.topics, "all"] if per_query else ["all"])
                columns["value"].extend(values)
        return columns


def _aggregate_values(values: np.ndarray, how: str) -> float:
    """The ``all`` value of one (run, measure): the sum (counts), the mean, or the geometric
    mean (trec_eval's: exp of the mean of log(max(value, 0.00001))), all exactly rounded
    sums (``math.fsum``), so that every path to a mean gives the same bits."""
    if how == "gmean":
        return math.exp(math.fsum(np.log(np.maximum(values, 0.00001)).tolist()) / len(values))
    total = math.fsum(values.tolist())
    return float(total) if how == "sum" else total / len(values)


def evaluate_runs(qrels: Qrels, runs: Iterable[Run | NestedRun | RunFile], options: EvaluationOptions) -> Evaluation:
    """Score runs against qrels with the measures and settings of ``options``.

    Parameters
    ----------
    qrels : Qrels
    runs : iterable of Run, NestedRun or RunFile
        Run names must differ (they label the results). Runs are evaluated one at a time,
        so a generator that reads each run when asked keeps one run in memory; a
        :class:`~pateval.formats.runblocks.RunFile` is read and scored in blocks of whole
        topics, one block in memory at a time (:mod:`pateval.executor`).
    options : EvaluationOptions
        The measures, the ranking, trec_eval's -c, -l, -M, -J, the side inputs (its
        ``resources``), the Dask scheduler and work directory of the blocks.

    Returns
    -------
    Evaluation
    """
    parsed = parse_measures(options.measures)
    printed = [options.trec_eval_names.get(str(m)) for m in parsed]
    if options.relevance_level is not None:
        parsed = _with_relevance_level(parsed, options.relevance_level)
    # compat="trec_eval": the measures whose values trec_eval clears on -c's stand-in rankings
    cleared = {j for j, (m, name) in enumerate(zip(parsed, printed, strict=True)) if options.compat == "trec_eval"
               and zeroed_on_stand_in(m, relevance_level=options.relevance_level, printed=name)}
    totals = (trec_eval_rules.complete_totals(qrels, parsed, printed, relevance_level=options.relevance_level)
              if options.compat == "trec_eval" and options.complete else {})
    if not parsed:
        raise ParameterError("no measure was asked for")
    _refuse_integer_measures(qrels, parsed)
    needs_subtopics = [m for m in parsed if "subtopics" in m.spec.requires]
    if needs_subtopics and not qrels.has_subtopics:
        raise ParameterError(f"{needs_subtopics[0]} needs subtopic qrels (format 'subtopic' or 'dd'); "
                             f"{qrels.source} was read as {qrels.format!r}")
    context = EvaluationContext(prepare_resources(options.resources), options=resource_options())
    blocks = BlockScorer(qrels, parsed, order=options.order, doc_key=options.doc_key, context=context,
                         scheduler=options.scheduler, work_dir=options.work_dir, timeout=options.scheduler_timeout)
    try:
        evaluation = _evaluate_runs(qrels, runs, parsed, options, context=context, blocks=blocks, cleared=cleared)
    finally:
        blocks.close()
    evaluation.compat, evaluation.totals = options.compat, totals
    return evaluation


#: The measures that take fractional grades (qrels whose grades are not all integers: BEIR's,
#: MTEB's, cwl_eval's), and what they do with them: relevant means grade >= rel (rel stays an
#: integer), and nDCG's gains are the grades (0.5 gains 0.5). Every other measure is defined
#: on integer grade levels (ERR's and the gain maps' levels, ndeval's and the cube test's
#: grades, preferences, judgement groups, TBG's) and refuses such qrels with one line.
FRACTIONAL_GRADE_MEASURES = {
    **dict.fromkeys(("AP", "P", "R", "Rprec", "RR", "Success", "NumRel", "NumRelRet"), "relevant: grade >= rel"),
    "NumRet": "no grade", "NumQ": "no grade", "PRES": "relevant: grade >= rel",
    "nDCG": "gain = the grade (every positive grade gains, 0.5 gains 0.5); the ideal ranking by grade",
}


def _refuse_integer_measures(qrels: Qrels, measures: list[Measure]) -> None:
    """One line for a measure defined on integer grade levels, asked of qrels with fractional grades."""
    from .core.qrels import is_fractional

    if not is_fractional(qrels.rel):
        return
    refused = [m for m in measures if m.spec.name not in FRACTIONAL_GRADE_MEASURES
               or (m.spec.name == "nDCG" and m["gains"])]
    if refused:
        example = qrels.rel[np.flatnonzero(np.mod(qrels.rel, 1) != 0)[0]]
        raise ParameterError(f"{refused[0]}: defined on integer grade levels, and the qrels {qrels.source} hold "
                             f"fractional grades (such as {example:g}); measures that take them: "
                             f"{', '.join(FRACTIONAL_GRADE_MEASURES)}")


def _as_trec_eval(values: np.ndarray, ranked: RankedTopics, measures: list[Measure], missing: np.ndarray,
                  options: EvaluationOptions, judgements: JudgementIndex, run_name: str,
                  context: EvaluationContext, cleared: list[bool]) -> np.ndarray:
    """``values`` of ``measures`` (a row each, a column per topic of ``ranked``) as trec_eval gives
    them where its rules differ from pateval's (``compat="trec_eval"``): iprec_at_recall and
    11pt_avg NaN on an empty ranking; with -c, a qrels topic without results (``missing``) scored
    on trec_eval's stand-in ranking of one unjudged document, some values then cleared by name
    (``cleared``: a flag per measure; ``measures``: as scored, all judged_only or none)."""
    values = np.array(values, dtype=np.float64).reshape(len(measures), -1)
    nan_on_empty_rankings(ranked, measures, values)
    if options.complete and len(missing):
        stand_in = stand_in_run(missing, run_name)
        if measures[0].judged_only:
            stand_in = judged_rows_only(stand_in, judgements.qrels, doc_key=options.doc_key)
        standing = rank_run(stand_in, judgements.restrict(missing), order=options.order)  # one row a topic
        theirs = measure_values(standing, measures, context).reshape(len(measures), -1)
        nan_on_empty_rankings(standing, measures, theirs)
        theirs[np.asarray(cleared, dtype=bool)] = 0.0
        values[:, positions_in(np.asarray(ranked.topic_ids, dtype=object), np.asarray(standing.topic_ids,
                                                                                      dtype=object))] = theirs
    return values


def _evaluate_runs(qrels: Qrels, runs: Iterable[Run | NestedRun | RunFile], parsed: list[Measure],
                   options: EvaluationOptions, *, context: EvaluationContext, blocks: BlockScorer,
                   cleared: set[int]) -> Evaluation:
    notes: list[str] = list(qrels.notes)
    indexes: dict[tuple, JudgementIndex] = {}
    pieces = []
    run_metadata: dict = {}
    names: set[str] = set()
    runs = blocks.submit_all(runs)

    def index_of(topics: np.ndarray) -> JudgementIndex:  # one index for the runs of the same topics
        if tuple(topics) not in indexes:
            indexes[tuple(topics)] = JudgementIndex.build(qrels, topics, doc_key=options.doc_key)
        return indexes[tuple(topics)]

    def named(name: str) -> None:
        if name in names:
            raise ParameterError(f"two runs are named {name!r}; give them distinct names: a dict "
                                 "{name: run} (--run-names A,B,... on the command line)")
        names.add(name)

    for run in runs:  # one at a time: a generator of runs keeps one run in memory
        # a run file is scored in blocks of whole topics, a run held whole as one block: then put together
        if isinstance(run, RunFile):
            scores, run_context = blocks.blocks(run), blocks.context
            name = run.name or scores[-1].tag  # the last line's (every block's, unless mixed tags take the last)
            named(name)
            from .formats.parquet import is_parquet
            from .formats.source import ir_metadata  # the file's head only

            metadata = None if is_parquet(run.path) else ir_metadata(run.path)
            if metadata is not None:
                run_metadata[name] = {"source": str(run.path), "ir_metadata": metadata}
        else:
            named(name := run.name)
            if run.metadata:
                run_metadata[name] = {"source": run.source, **run.metadata}
            # side inputs read with the run (a TREC DD run's iterations); the caller's own win
            run_context = EvaluationContext(prepare_resources({**run.resources, **context.resources}), context.memo,
                                            context.options) if run.resources else context
            scores = [_score_whole(run, qrels, parsed, options, run_context, index_of)]
        piece, run_notes = _put_together(name, scores, parsed, qrels, options, index_of, run_context, cleared)
        notes.extend(n for n in run_notes if n not in notes)
        pieces.append(piece)
    if not names:
        raise ParameterError("no run was given")
    averaging = ("all qrels topics (complete: missing ones score 0)" if options.complete
                 else "topics in both the qrels and the run")
    summed = [str(m) for m in parsed if m.spec.aggregate == "sum"]
    notes.append(f"means are over {averaging}" + (f"; counts ({', '.join(summed)}) are summed" if summed else ""))
    return Evaluation(scored=pieces, measures=parsed, notes=notes, run_metadata=run_metadata)


def _rankings(measures: list[Measure], options: EvaluationOptions) -> dict[tuple[bool, bool], tuple[list, list]]:
    """The measures by the ranking they are scored on (:func:`~pateval.trec_eval_rules.as_cut`):
    (-J, -M in the preferences' order) -> their positions, the measures as scored; plain first."""
    groups: dict[tuple[bool, bool], tuple[list, list]] = {}
    for j, measure in enumerate(measures):
        scored, preferences = trec_eval_rules.as_cut(measure, judged_only=options.judged_only, compat=options.compat)
        rows, group = groups.setdefault((scored.judged_only, preferences and bool(options.max_documents)), ([], []))
        rows.append(j)
        group.append(scored)
    return dict(sorted(groups.items()))


def _score_whole(run: Run | NestedRun, qrels: Qrels, parsed: list[Measure], options: EvaluationOptions,
                 context: EvaluationContext, index_of: Callable[[np.ndarray], JudgementIndex]) -> BlockScores:
    """A run held whole, ranked and scored as the one block of itself (:func:`score_block`'s
    values, notes and matches), with trec_eval's -M and -J cuts, which need the whole run."""
    values: dict = {}
    kept: Ranking | None = None
    for (judged_only, preferences), (rows, group) in _rankings(parsed, options).items():
        cut, max_documents = run, options.max_documents
        if preferences and max_documents is not None:  # compat="trec_eval": -M in the preference measures' order
            cut, max_documents = trec_eval_rules.top_rows_only(run.to_run() if isinstance(run, NestedRun) else run,
                                                               max_documents, preferences=True), None
        ranking = rank(cut, qrels, order=options.order, doc_key=options.doc_key, max_documents=max_documents,
                       judged_only=judged_only, judgements=index_of, topics=np.asarray(qrels.topic_ids, dtype=object))
        kept = kept or ranking  # the notes of the first ranking (of every measure, unless some are cut)
        scored = np.asarray(measure_values(ranking.ranked, group, context), dtype=np.float64).reshape(len(group), -1)
        if options.compat == "trec_eval":  # (a run held whole may hold a topic without documents)
            nan_on_empty_rankings(ranking.ranked, group, scored)
        values.update(zip(rows, scored, strict=True))
    assert kept is not None  # (some measure was asked for)
    return BlockScores(tag=run.name, run_topics=np.asarray(run.topic_ids, dtype=object), topics=kept.topics,
                       values=np.vstack([values[j] for j in sorted(values)]), notes=kept.notes, matches=kept.matches)


def _put_together(name: str, scores: list[BlockScores], measures: list[Measure], qrels: Qrels,
                  options: EvaluationOptions, judgements_of: Callable[[np.ndarray], JudgementIndex],
                  context: EvaluationContext, cleared: set[int]) -> tuple[ScoredRun, list[str]]:
    """(values, notes) of one run from its blocks' (a run file's, or a run held whole), as if it
    were evaluated whole: the topics evaluated and those left out, a qrels topic without
    results (complete) scored on an empty ranking, the notes of every block, one note on
    unmatched ids."""
    run_topics = np.concatenate([b.run_topics for b in scores])
    topics, notes = topics_to_evaluate(np.asarray(qrels.topic_ids, dtype=object), RunTopics(name, run_topics),
                                       complete=options.complete)
    scored = [(b.topics, b.values) for b in scores]
    missing = topics[positions_in(run_topics, topics) < 0]
    if len(missing):  # complete: the qrels topics the run misses score as an empty ranking
        judgements = judgements_of(missing)
        ranked = rank_run(Run.from_columns([], [], [], name=name), judgements, order=options.order)
        values = np.empty((len(measures), len(missing)))
        for rows, group in _rankings(measures, options).values():  # (trec_eval's stand-in ranking is cut by -J)
            group_values = measure_values(ranked, group, context)
            if options.compat == "trec_eval":
                group_values = _as_trec_eval(group_values, ranked, group, missing, options, judgements, name,
                                             context, [j in cleared for j in rows])
            values[rows] = np.asarray(group_values, dtype=np.float64).reshape(len(rows), -1)
        scored.append((missing, values))
    all_topics = np.concatenate([t for t, _ in scored])
    values = np.concatenate([v for _, v in scored], axis=1)
    values = values[:, positions_in(all_topics, topics)]
    notes += merge_counted_notes(n for b in scores for n in b.notes)
    retrieved, matched, samples, heads = zip(*(b.matches for b in scores), strict=True)
    exact, by_patent, judged = map(sum, zip(*heads, strict=True))  # summed over the blocks, as all matches
    notes += unmatched_note(name, (sum(retrieved), sum(matched), [docno for sample in samples for docno in sample],
                                   (exact, by_patent, judged)), qrels, options.doc_key)
    return ScoredRun(name, list(topics), [str(m) for m in measures], values.reshape(-1)), notes


def _with_relevance_level(measures: list[Measure], level: int) -> list[Measure]:
    """trec_eval -l: every measure with a ``rel`` parameter left at its default gets ``level``
    (checked by :class:`~pateval.options.EvaluationOptions`); but a ``rel`` whose default is 0
    means graded gains, not a level (RBP), and stays, as trec_eval's rbp ignores -l."""
    changed = []
    for measure in measures:
        params = dict(measure.values)
        spec_rel = next((p for p in measure.spec.params if p.name == "rel"), None)
        if spec_rel is not None and spec_rel.default != 0 and params["rel"] == spec_rel.default:
            params["rel"] = level
            measure = Measure.make(measure.spec, params, measure.cutoff)
        changed.append(measure)
    return changed


def score_ranked(ranked: RankedTopics, measures: Sequence[Measure], context: EvaluationContext) -> pd.DataFrame:
    """Every measure over every topic of one ranked run, as a long frame."""
    return _scored_frame(ScoredRun(ranked.run_name, list(ranked.topic_ids), [str(m) for m in measures],
                                   measure_values(ranked, measures, context).reshape(-1)))


def _scored_frame(piece: ScoredRun) -> pd.DataFrame:
    n, m = len(piece.topics), len(piece.measures)
    return pd.DataFrame({
        "run": _strings([piece.run], np.zeros(n * m, dtype=np.int32)),
        "topic": _strings(piece.topics, np.tile(np.arange(n, dtype=np.int32), m)),
        "measure": _strings(piece.measures, np.repeat(np.arange(m, dtype=np.int32), n)),
        "value": piece.values,
    }, copy=False)


def _strings(distinct, codes: np.ndarray) -> pd.Series:
    """``distinct[codes]`` as the column pandas makes of strings, gathered by Arrow where
    that column is Arrow's (a tenth of the time of going through Python strings)."""
    _STRING_DTYPE = pd.Series(["topic"]).dtype  # what pandas makes of strings: str (pandas 3) or object
    if np.dtype(object) == _STRING_DTYPE:
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
            if positions is not None:
                rows.append((run, str(measure), _aggregate_values(values[positions], measure.spec.aggregate),
                             len(positions)))
    return pd.DataFrame(rows, columns=["run", "measure", "value", "topics"])
