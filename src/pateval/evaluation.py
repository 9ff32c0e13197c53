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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

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

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")  # the frames are built when asked for: `pateval evaluate` prints without pandas

__all__ = ["DocKeyNote", "Evaluation", "ScoredRun", "TopicsLeftOut", "evaluate_runs", "aggregate", "topics_to_evaluate"]


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
    """

    scored: list[ScoredRun]
    measures: list[Measure]
    notes: list[str] = field(default_factory=list)
    # what each run's file says about it (Run.metadata: its ir_metadata block), by run name
    run_metadata: dict = field(default_factory=dict)

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
    if options.relevance_level is not None:
        parsed = _with_relevance_level(parsed, options.relevance_level)
    if options.max_documents is not None or options.judged_only:
        runs = _cut_runs(runs, qrels, max_documents=options.max_documents, judged_only=options.judged_only,
                         order=options.order, doc_key=options.doc_key)
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
        return _evaluate_runs(qrels, runs, parsed, complete=options.complete, order=options.order,
                              doc_key=options.doc_key, context=context, blocks=blocks)
    finally:
        blocks.close()


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


def _evaluate_runs(qrels: Qrels, runs: Iterable[Run | RunFile], parsed: list[Measure], *, complete: bool, order: str,
                   doc_key: str, context: EvaluationContext, blocks: BlockScorer) -> Evaluation:
    qrels_topics = np.asarray(qrels.topic_ids, dtype=object)
    notes: list[str] = list(qrels.notes)
    indexes: dict[tuple, JudgementIndex] = {}
    pieces = []
    run_metadata: dict = {}
    names: set[str] = set()
    runs = blocks.submit_all(runs)
    for run in runs:  # one at a time: a generator of runs keeps one run in memory
        if isinstance(run, RunFile):
            piece, run_notes = _evaluate_file(blocks, run, qrels_topics, complete=complete)
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
        topics, run_notes = topics_to_evaluate(qrels_topics, run, complete=complete)
        notes.extend(run_notes)
        index_key = tuple(topics)
        if index_key not in indexes:
            indexes[index_key] = JudgementIndex.build(qrels, topics, doc_key=doc_key)
        if run.metadata:
            run_metadata[run.name] = {"source": run.source, **run.metadata}
        run_context, run_order = context, order
        if run.resources:
            # side inputs read with the run (a TREC DD run's iterations); the caller's own win
            run_context = EvaluationContext(prepare_resources({**run.resources, **context.resources}), context.memo,
                                            context.options)
            if "iterations" in run.resources and order == "score":
                run_order = "rank"  # a DD run's rank is its place in the session
                notes.append(f"run {run.name!r}: a TREC DD run, ranked in the order of its session "
                             "(iteration by iteration, by score within one)")
        judged = [m for m in parsed if m.judged_only]
        if not judged:
            ranked = rank_run(run, indexes[index_key], order=run_order)
            notes.extend(n for n in ranked.notes if n not in notes)
            notes.extend(unmatched_note(run.name, row_matches(ranked), indexes[index_key]))
            pieces.append(score_run(ranked, parsed, run_context))
            continue
        # judged_only measures: scored on the ranking without unjudged documents (trec_eval -J)
        plain = [m for m in parsed if not m.judged_only]
        values: dict = {}
        if plain:
            ranked = rank_run(run, indexes[index_key], order=run_order)
            notes.extend(n for n in ranked.notes if n not in notes)
            notes.extend(unmatched_note(run.name, row_matches(ranked), indexes[index_key]))
            values.update(zip(plain, measure_values(ranked, plain, run_context), strict=True))
            del ranked
        ranked = rank_run(judged_rows_only(run, qrels, doc_key=doc_key), indexes[index_key], order=run_order)
        values.update(zip(judged, measure_values(ranked, judged, run_context), strict=True))
        pieces.append(ScoredRun(ranked.run_name, list(ranked.topic_ids), [str(m) for m in parsed],
                                np.concatenate([values[m] for m in parsed]) if parsed else np.zeros(0)))
    if not names:
        raise ParameterError("no run was given")
    averaging = ("all qrels topics (complete: missing ones score 0)" if complete
                 else "topics in both the qrels and the run")
    summed = [str(m) for m in parsed if m.spec.aggregate == "sum"]
    notes.append(f"means are over {averaging}" + (f"; counts ({', '.join(summed)}) are summed" if summed else ""))
    return Evaluation(scored=pieces, measures=parsed, notes=notes, run_metadata=run_metadata)


def _evaluate_file(blocks: BlockScorer, run_file: RunFile, qrels_topics: np.ndarray, *,
                   complete: bool) -> tuple[ScoredRun, list[str]]:
    """(values, notes) of one run file scored in blocks, as if it were evaluated whole."""
    scores = blocks.blocks(run_file)
    name = run_file.name or scores[-1].tag  # the last line's (every block's, unless mixed tags take the last)
    run_topics = np.concatenate([b.run_topics for b in scores])
    topics, notes = topics_to_evaluate(qrels_topics, RunTopics(name, run_topics),
                                       complete=complete)
    scored = [(b.topics, b.values) for b in scores]
    missing = topics[positions_in(run_topics, topics) < 0]
    if len(missing):  # complete: the qrels topics the run misses score as an empty ranking
        empty = Run(name=name, topic_ids=np.zeros(0, dtype=object), topic=np.zeros(0, dtype=np.int32),
                    doc_ids=pa.array([], type=pa.string()), doc=np.zeros(0, dtype=np.int32),
                    score=np.zeros(0), rank=np.zeros(0, dtype=np.int64))
        ranked = rank_run(empty, blocks.judgements.restrict(missing), order=blocks.order)
        scored.append((missing, measure_values(ranked, blocks.measures, blocks.context)))
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


def _subset(run: Run, keep: np.ndarray) -> Run:
    """The run's rows where ``keep`` (topics kept even when left without rows)."""
    return Run(run.name, run.topic_ids, run.topic[keep], run.doc_ids, run.doc[keep], run.score[keep],
               run.rank[keep], source=run.source, notes=run.notes, metadata=run.metadata, resources=run.resources)


def top_rows_only(run: Run, max_documents: int, *, order: str = "score") -> Run:
    """trec_eval -M: each topic's first ``max_documents`` rows in evaluation order."""
    from .core.ranking import evaluation_order

    perm = evaluation_order(run, order=order)
    topic = run.topic[perm]
    starts = np.r_[0, np.flatnonzero(topic[1:] != topic[:-1]) + 1] if len(perm) else np.zeros(0, dtype=np.int64)
    place = np.arange(len(perm)) - np.repeat(starts, np.diff(np.r_[starts, len(perm)]))
    keep = np.zeros(len(run), dtype=bool)
    keep[perm[place < max_documents]] = True
    return run if keep.all() else _subset(run, keep)


def judged_rows_only(run: Run, qrels: Qrels, *, doc_key: str = "publication") -> Run:
    """trec_eval -J: the rows whose document the qrels judge for the topic (a grade >= 0)."""
    import pyarrow.compute as pc

    from .core.docids import document_keys

    judged = pa.array(np.asarray(qrels.rel) >= 0)
    qrels_keys = pc.binary_join_element_wise(pc.filter(qrels.arrow("topic"), judged),
                                             document_keys(pc.filter(qrels.arrow("docno"), judged), doc_key), "\t")
    topics = pa.array(np.asarray(run.topic_ids, dtype=object), type=pa.string()).take(pa.array(run.topic))
    docs = run.row_doc_ids()
    if isinstance(docs, pa.ChunkedArray):
        docs = docs.combine_chunks()
    run_keys = pc.binary_join_element_wise(topics, document_keys(docs, doc_key), "\t")
    keep = pc.is_in(run_keys, value_set=qrels_keys).to_numpy(zero_copy_only=False)
    return run if keep.all() else _subset(run, keep)


def _cut_runs(runs: Iterable[Any], qrels: Qrels, *, max_documents: int | None, judged_only: bool, order: str,
              doc_key: str):
    for run in runs:
        if max_documents is not None:
            # a TREC DD run's documents are cut in the order of its session (see _evaluate_runs)
            session = "iterations" in run.resources and order == "score"
            run = top_rows_only(run, max_documents, order="rank" if session else order)
        if judged_only:
            run = judged_rows_only(run, qrels, doc_key=doc_key)
        yield run


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
