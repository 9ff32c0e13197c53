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
from .core.run import Run
from .errors import ParameterError
from .executor import PATENT_HEAD, BlockScorer, Matches, measure_values, row_matches
from .formats.resources import prepare_resources, resource_options
from .formats.runblocks import RunFile, merge_counted_notes
from .measures import EvaluationContext, Measure, parse_measures
from .options import EvaluationOptions
from .trec_eval_rules import judged_rows_only, nan_on_empty_rankings, stand_in_run, top_rows_only, zeroed_on_stand_in

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")  # the frames are built when asked for: `pateval evaluate` prints without pandas

__all__ = ["DocKeyNote", "Evaluation", "Ranking", "ScoredRun", "TopicsLeftOut", "evaluate_runs", "aggregate", "rank",
           "topics_to_evaluate", "judged_rows_only", "top_rows_only"]


class TopicsLeftOut(str):
    """A note saying that topics were left out of the means (the API also warns with it)."""

    __slots__ = ()


class DocKeyNote(str):
    """A note saying that a run's documents match the qrels by patent and not by id, or not at
    all (the API also warns with it: :class:`~pateval.errors.DocKeyWarning`)."""

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
    """The ``all`` value of one (run, measure): the sum (counts), the mean, or the geometric
    mean (trec_eval's: exp of the mean of log(max(value, 0.00001))), all exactly rounded
    sums (``math.fsum``), so that every path to a mean gives the same bits."""
    if how == "gmean":
        return math.exp(math.fsum(np.log(np.maximum(values, 0.00001)).tolist()) / len(values))
    total = math.fsum(values.tolist())
    return float(total) if how == "sum" else total / len(values)


@dataclass(frozen=True)
class RunTopics:
    """What the choice of topics needs of a run: its name and its topics (a run file's, from its blocks)."""

    name: str
    topic_ids: np.ndarray


def topics_to_evaluate(qrels_topics: np.ndarray, run: Run | RunTopics, *,
                       complete: bool) -> tuple[np.ndarray, list[str]]:
    """The topics a run is scored on, and notes on the topics left out."""
    # hash lookups: np.isin on object arrays is quadratic in NumPy 2
    run_topics = np.asarray(run.topic_ids, dtype=object)
    in_run = positions_in(run_topics, qrels_topics) >= 0
    run_only = np.asarray(sorted(run_topics[positions_in(qrels_topics, run_topics) < 0]), dtype=object)
    notes: list[str] = []
    if len(run_only):
        notes.append(TopicsLeftOut(f"run {run.name!r}: {len(run_only)} topic(s) not in the qrels, not evaluated: "
                                   f"{_few(run_only)}"))
    missing = qrels_topics[~in_run]
    if complete:
        if len(missing):
            notes.append(f"run {run.name!r}: {len(missing)} qrels topic(s) without results score 0 (complete "
                         f"averaging): {_few(missing)}")
        return qrels_topics, notes
    if len(missing):
        notes.append(TopicsLeftOut(f"run {run.name!r}: {len(missing)} qrels topic(s) without results left out of the "
                                   f"mean (use -c / complete=True to count them as 0): {_few(missing)}"))
    return qrels_topics[in_run], notes


def _few(values: Iterable, limit: int = 5) -> str:
    values = list(values)
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f", ... ({len(values) - limit} more)" if len(values) > limit else "")


@dataclass
class Ranking:
    """One run ranked for an evaluation (:func:`rank`), with what the user must know about it."""

    ranked: RankedTopics
    topics: np.ndarray  # the topics evaluated (complete: every qrels topic)
    missing: np.ndarray  # those of them the run has no line for
    order: str  # the order the run was ranked in (a TREC DD run's session: "rank")
    notes: list[str]  # the topics left out, the session order, the ranking's notes, unmatched ids
    judgements: JudgementIndex


def rank(run: Run, qrels: Qrels, *, complete: bool = False, order: str = "score", doc_key: str = "publication",
         max_documents: int | None = None, judged_only: bool = False,
         judgements: Callable[[np.ndarray], JudgementIndex] | None = None) -> Ranking:
    """The one ranking step of an evaluation: the topics evaluated (those in both the qrels
    and the run; ``complete``: every qrels topic), a TREC DD run in the order of its session,
    trec_eval's -M cut (in that order) and -J cut, the run ranked per topic, and the notes
    on all of it. ``judgements``: the judgement index of some topics (default: built here)."""
    topics, notes = topics_to_evaluate(np.asarray(qrels.topic_ids, dtype=object), run, complete=complete)
    index = (judgements or (lambda chosen: JudgementIndex.build(qrels, chosen, doc_key=doc_key)))(topics)
    if "iterations" in run.resources and order == "score":
        order = "rank"  # a DD run's rank is its place in the session
        notes.append(f"run {run.name!r}: a TREC DD run, ranked in the order of its session "
                     "(iteration by iteration, by score within one)")
    missing = topics[positions_in(np.asarray(run.topic_ids, dtype=object), topics) < 0]
    if max_documents is not None:
        run = top_rows_only(run, max_documents, order=order)
    if judged_only:
        run = judged_rows_only(run, qrels, doc_key=doc_key)
    ranked = rank_run(run, index, order=order)
    notes.extend(n for n in ranked.notes if n not in notes)
    notes.extend(unmatched_note(run.name, row_matches(ranked), index))
    return Ranking(ranked, topics, missing, order, notes, index)


def evaluate_runs(qrels: Qrels, runs: Iterable[Run | RunFile], options: EvaluationOptions) -> Evaluation:
    """Score runs against qrels with the measures and settings of ``options``.

    Parameters
    ----------
    qrels : Qrels
    runs : iterable of Run or RunFile
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
    cleared = {str(m) for m, name in zip(parsed, printed, strict=True) if options.compat == "trec_eval"
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
    "AP": "relevant: grade >= rel", "P": "relevant: grade >= rel", "R": "relevant: grade >= rel",
    "Rprec": "relevant: grade >= rel", "RR": "relevant: grade >= rel", "Success": "relevant: grade >= rel",
    "NumRel": "relevant: grade >= rel", "NumRelRet": "relevant: grade >= rel", "NumRet": "no grade",
    "NumQ": "no grade", "PRES": "relevant: grade >= rel",
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
                  options: EvaluationOptions, scored_on: Ranking | BlockScorer, run_name: str,
                  context: EvaluationContext, cleared: set[str]) -> np.ndarray:
    """``values`` of ``measures`` (a row each, a column per topic of ``ranked``) as trec_eval gives
    them where its rules differ from pateval's (``compat="trec_eval"``): iprec_at_recall and
    11pt_avg NaN on an empty ranking; with -c, a qrels topic without results (``missing``) scored
    on trec_eval's stand-in ranking of one unjudged document, some values then cleared by name."""
    values = np.array(values, dtype=np.float64).reshape(len(measures), -1)
    nan_on_empty_rankings(ranked, measures, values)
    if options.complete and len(missing):
        stand_in = stand_in_run(missing, run_name)
        if options.judged_only or measures[0].judged_only:
            stand_in = judged_rows_only(stand_in, scored_on.judgements.qrels, doc_key=options.doc_key)
        standing = rank_run(stand_in, scored_on.judgements.restrict(missing), order=scored_on.order)
        theirs = measure_values(standing, measures, context).reshape(len(measures), -1)
        nan_on_empty_rankings(standing, measures, theirs)
        for j, measure in enumerate(measures):
            if str(measure) in cleared:
                theirs[j] = 0.0
        values[:, positions_in(np.asarray(ranked.topic_ids, dtype=object), np.asarray(standing.topic_ids,
                                                                                      dtype=object))] = theirs
    return values


def _evaluate_runs(qrels: Qrels, runs: Iterable[Run | RunFile], parsed: list[Measure], options: EvaluationOptions, *,
                   context: EvaluationContext, blocks: BlockScorer, cleared: set[str]) -> Evaluation:
    complete = options.complete
    qrels_topics = np.asarray(qrels.topic_ids, dtype=object)
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

    for run in runs:  # one at a time: a generator of runs keeps one run in memory
        if isinstance(run, RunFile):
            piece, run_notes = _evaluate_file(blocks, run, qrels_topics, options, cleared)
            if piece.run in names:
                raise ParameterError(f"two runs are named {piece.run!r}; give them distinct names: a dict "
                                     "{name: run} (--run-names A,B,... on the command line)")
            names.add(piece.run)
            notes.extend(n for n in run_notes if n not in notes)
            pieces.append(piece)
            from .formats.parquet import is_parquet
            from .formats.source import ir_metadata  # the file's head only

            metadata = None if is_parquet(run.path) else ir_metadata(run.path)
            if metadata is not None:
                run_metadata[piece.run] = {"source": str(run.path), "ir_metadata": metadata}
            continue
        if run.name in names:
            raise ParameterError(f"two runs are named {run.name!r}; give them distinct names: a dict "
                                 "{name: run} (--run-names A,B,... on the command line)")
        names.add(run.name)
        if run.metadata:
            run_metadata[run.name] = {"source": run.source, **run.metadata}
        # side inputs read with the run (a TREC DD run's iterations); the caller's own win
        run_context = EvaluationContext(prepare_resources({**run.resources, **context.resources}), context.memo,
                                        context.options) if run.resources else context
        values: dict = {}
        # judged_only measures: scored on the ranking without unjudged documents (trec_eval -J)
        plain, judged = [m for m in parsed if not m.judged_only], [m for m in parsed if m.judged_only]
        for group in (plain, judged):
            if not group:
                continue
            ranking = rank(run, qrels, complete=complete, order=options.order, doc_key=options.doc_key,
                           max_documents=options.max_documents, judged_only=options.judged_only or group is judged,
                           judgements=index_of)
            if group is plain or not plain:  # the notes of the ranking of every measure, or of the judged one
                notes.extend(n for n in ranking.notes if n not in notes)
            ranked = ranking.ranked
            scored = measure_values(ranked, group, run_context)
            if options.compat == "trec_eval":
                scored = _as_trec_eval(scored, ranked, group, ranking.missing, options, ranking, ranked.run_name,
                                       run_context, cleared)
            values.update(zip(group, scored, strict=True))
        pieces.append(ScoredRun(ranked.run_name, list(ranked.topic_ids), [str(m) for m in parsed],
                                np.concatenate([values[m] for m in parsed])))
    if not names:
        raise ParameterError("no run was given")
    averaging = ("all qrels topics (complete: missing ones score 0)" if complete
                 else "topics in both the qrels and the run")
    summed = [str(m) for m in parsed if m.spec.aggregate == "sum"]
    notes.append(f"means are over {averaging}" + (f"; counts ({', '.join(summed)}) are summed" if summed else ""))
    return Evaluation(scored=pieces, measures=parsed, notes=notes, run_metadata=run_metadata)


def _evaluate_file(blocks: BlockScorer, run_file: RunFile, qrels_topics: np.ndarray, options: EvaluationOptions,
                   cleared: set[str]) -> tuple[ScoredRun, list[str]]:
    """(values, notes) of one run file scored in blocks, as if it were evaluated whole."""
    scores = blocks.blocks(run_file)
    name = run_file.name or scores[-1].tag  # the last line's (every block's, unless mixed tags take the last)
    run_topics = np.concatenate([b.run_topics for b in scores])
    topics, notes = topics_to_evaluate(qrels_topics, RunTopics(name, run_topics), complete=options.complete)
    scored = [(b.topics, b.values) for b in scores]
    missing = topics[positions_in(run_topics, topics) < 0]
    if len(missing):  # complete: the qrels topics the run misses score as an empty ranking
        ranked = rank_run(Run.from_columns([], [], [], name=name), blocks.judgements.restrict(missing),
                          order=blocks.order)
        values = measure_values(ranked, blocks.measures, blocks.context)
        if options.compat == "trec_eval":
            values = _as_trec_eval(values, ranked, list(blocks.measures), missing, options, blocks, name,
                                   blocks.context, cleared)
        scored.append((missing, values))
    all_topics = np.concatenate([t for t, _ in scored])
    values = np.concatenate([v for _, v in scored], axis=1)
    values = values[:, positions_in(all_topics, topics)]
    notes += merge_counted_notes(n for b in scores for n in b.notes)
    notes += unmatched_note(name, (sum(b.matches[0] for b in scores), sum(b.matches[1] for b in scores),
                                   [docno for b in scores for docno in b.matches[2]],
                                   (sum(b.matches[3][0] for b in scores), sum(b.matches[3][1] for b in scores),
                                    sum(b.matches[3][2] for b in scores))),
                            blocks.judgements)
    return ScoredRun(name, list(topics), [str(m) for m in blocks.measures], values.reshape(-1)), notes


def unmatched_note(run_name: str, matches: Matches, judgements: JudgementIndex) -> list[str]:
    """A note when a run retrieved documents for qrels topics and the qrels list none of them
    (``matches``: :func:`~pateval.executor.row_matches`): its ids are of another kind than the
    qrels' (publications against patents, another collection), and every value is 0. When the
    patent keys of a sample of them are judged, it says that ``--doc-key patent`` matches them.
    When some match and a notable share more of the judged documents at the heads of the
    rankings match only by patent, it says so with both counts (:func:`patent_match_note`).
    The API also warns with it (:class:`DocKeyNote`)."""
    retrieved, matched, sample, (exact, by_patent, judged) = matches
    if matched:
        return patent_match_note(run_name, exact, by_patent, judged)
    if not retrieved:
        return []
    note = (f"run {run_name!r}: none of the {retrieved} document(s) it retrieved for qrels topics is in the "
            "qrels, so every topic scores as if nothing relevant was found")
    if judgements.doc_key != "patent" and sample:
        from .core.docids import patent_keys

        judged_keys = set(patent_keys(judgements.qrels.codes("docno")[1], invalid="keep").to_pylist())  # any topic's
        if not judged_keys.isdisjoint(patent_keys(pa.array(sample, type=pa.string()), invalid="keep").to_pylist()):
            note += ("; their patents are judged: match by patent (EP-0971326-B1 ~ EP-0971326) with --doc-key patent "
                     "(doc_key='patent')")
    return [DocKeyNote(note)]


#: The share of the judged documents of the evaluated topics that, found at the heads of a
#: run's rankings under another publication of their patent only, makes the note of
#: :func:`patent_match_note` (whatever share matched by id).
PATENT_MATCH_SHARE = 0.05


def patent_match_note(run_name: str, exact: int, by_patent: int, judged: int) -> list[str]:
    """The note when, at the heads of a run's rankings, ``by_patent`` documents are judged
    only under another publication of their patent, a notable share of the ``judged``
    documents of the evaluated topics (:data:`PATENT_MATCH_SHARE`): they count as unjudged
    unless ``--doc-key patent`` is given, and nothing says which the user meant."""
    if not by_patent or by_patent < PATENT_MATCH_SHARE * judged:
        return []
    return [DocKeyNote(f"run {run_name!r}: in the first {PATENT_HEAD} documents of each topic, {exact} match judged "
                       f"documents by id and {by_patent} more match judged patents only under another publication "
                       f"(EP1234567B1 ~ EP-1234567-A1), {by_patent / judged:.0%} of the {judged} judged documents of "
                       "the evaluated topics: they count as unjudged, not relevant; match by patent with --doc-key "
                       "patent (doc_key='patent')")]


# ---- trec_eval's -l, -M and -J ----------------------------------------------------------------

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


def score_run(ranked: RankedTopics, measures: Sequence[Measure], context: EvaluationContext) -> ScoredRun:
    """Every measure over every topic of one ranked run, as arrays."""
    return ScoredRun(ranked.run_name, list(ranked.topic_ids), [str(m) for m in measures],
                     measure_values(ranked, measures, context).reshape(-1))


def score_ranked(ranked: RankedTopics, measures: Sequence[Measure], context: EvaluationContext) -> pd.DataFrame:
    """Every measure over every topic of one ranked run, as a long frame."""
    return _scored_frame(score_run(ranked, measures, context))


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
            if positions is None:
                continue
            rows.append((run, str(measure), _aggregate_values(values[positions], measure.spec.aggregate),
                         len(positions)))
    return pd.DataFrame(rows, columns=["run", "measure", "value", "topics"])
