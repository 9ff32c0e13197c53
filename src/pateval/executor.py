"""The ranking step of an evaluation (:func:`rank`: the topics evaluated, trec_eval's cuts,
the run ranked, the notes on all of it), and run files ranked and scored with it in blocks
of whole topics, here or on a Dask cluster.

A run given as a :class:`pateval.formats.runblocks.RunFile` is read block by block (byte
ranges of whole topics of a text run, row ranges of a Parquet run); a run whose topics are
scattered over the file is partitioned on disk first. Each block is ranked and scored on
its own (:func:`score_block`, the unit of work a Dask worker is given), so memory holds one
block, not the run. The evaluation core (:mod:`pateval.evaluation`) puts the blocks'
values together as if the run had been evaluated whole.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from .cluster import DEFAULT_SCHEDULER_TIMEOUT, cluster_failures, connect
from .core.order import positions_in
from .core.qrels import Qrels
from .core.ranking import JudgementIndex, RankedTopics, rank_nested, rank_run
from .core.run import NestedRun, Run
from .core.segments import expand
from .errors import InputFormatError, malformed
from .formats.runblocks import RunFile, mixed_tag_error, partition_run, read_block, read_part, topic_block_ranges
from .measures import EvaluationContext, Measure
from .trec_eval_rules import judged_rows_only, top_rows_only
from .tuning import BLOCK_THREADS

__all__ = ["BlockScorer", "BlockScores", "DocKeyNote", "Ranking", "RunTopics", "TopicsLeftOut", "measure_values",
           "patent_match_note", "rank", "row_matches", "score_block", "topics_to_evaluate", "unmatched_note"]


def measure_values(ranked: RankedTopics, measures: Sequence[Measure], context: EvaluationContext) -> np.ndarray:
    """Every measure's value on every topic, shape (measures, topics)."""
    if not ranked.n_topics:
        return np.zeros((len(measures), 0))
    return np.concatenate([measure.compute(ranked, context) for measure in measures]).reshape(len(measures), -1)


@dataclass
class BlockScores:
    """What one block of a run file gives: its tag, its topics and every measure's values."""

    tag: str
    run_topics: np.ndarray  # every topic of the block
    topics: np.ndarray  # those evaluated (in the qrels), in the qrels' order
    values: np.ndarray  # (measures, topics)
    notes: list[str]
    matches: Matches  # row_matches of the block


#: (rows retrieved, rows judged, a sample of ids when none is judged, (rows of the topics' heads
#: judged, rows of the heads judged only by patent, judged documents of the topics)): see row_matches
Matches = tuple[int, int, list[str], tuple[int, int, int]]
#: How many rows at the head of each topic are looked at for documents the qrels judge only
#: under another publication of the patent (:func:`patent_matches`).
PATENT_HEAD = 100


def row_matches(ranked: RankedTopics, per_topic: int = 3) -> Matches:
    """(rows retrieved for the topics, rows whose document the qrels list for the topic, and
    when there is none, the ids of each topic's first ``per_topic`` rows: the same sample
    however the run is cut into blocks; :func:`patent_matches`): what finds a run whose ids
    do not match the qrels' (the note of :func:`unmatched_note`)."""
    matched = len(ranked.judged_row)
    if matched:
        return ranked.n_rows, matched, [], patent_matches(ranked)
    starts, ends = ranked.ptr[:-1], ranked.ptr[1:]
    rows = np.concatenate([np.arange(start, min(end, start + per_topic)) for start, end in zip(starts, ends,
                                                                                              strict=True)]
                          + [np.zeros(0, dtype=np.int64)])
    # a block without a match still counts its heads' patent matches: the run's totals are summed over blocks
    return ranked.n_rows, matched, ranked.doc_ids.take(pa.array(ranked.doc[rows])).to_pylist(), patent_matches(ranked)


def patent_matches(ranked: RankedTopics, head: int = PATENT_HEAD) -> tuple[int, int, int]:
    """(rows of the first ``head`` of each topic whose document the qrels judge, rows among
    the others whose patent the qrels judge under another id: ``EP1234567B1`` retrieved,
    ``EP-1234567-A1`` judged, and the judged documents of the topics), when documents are
    matched by id and the qrels' ids are patent publications; else (0, 0, 0). The heads
    only: the patent keys of every row would cost more than the evaluation, and the same
    rows are looked at however the run is cut into blocks."""
    judged = ranked.judgements.judged_patent_keys
    if judged is None or not ranked.n_rows:
        return 0, 0, 0
    import pyarrow.compute as pc

    from .core.docids import patent_keys

    rows = expand(ranked.ptr[:-1], np.minimum(np.diff(ranked.ptr), head))
    is_judged = np.zeros(ranked.n_rows, dtype=bool)
    is_judged[ranked.judged_row] = True
    exact = is_judged[rows]
    others = rows[~exact]
    # the judged documents of the topics the run retrieved for (as with -c, read whole or in blocks)
    n_judged = int(np.diff(ranked.judgements.ptr)[np.diff(ranked.ptr) > 0].sum())
    if not len(others):
        return int(exact.sum()), 0, n_judged
    topic_ids = pa.array(np.asarray(ranked.topic_ids, dtype=object), type=pa.string())
    topics = topic_ids.take(pa.array(ranked.topic_of(others)))
    keys = pc.binary_join_element_wise(topics, patent_keys(ranked.doc_ids.take(pa.array(ranked.doc[others])),
                                                           invalid="keep"), "\t")
    return int(exact.sum()), int(pc.sum(pc.is_in(keys, value_set=judged)).as_py() or 0), n_judged


class TopicsLeftOut(str):
    """A note saying that topics were left out of the means (the API also warns with it)."""

    __slots__ = ()


class DocKeyNote(str):
    """A note saying that a run's documents match the qrels by patent and not by id, or not at
    all (the API also warns with it: :class:`~pateval.errors.DocKeyWarning`)."""

    __slots__ = ()


@dataclass(frozen=True)
class RunTopics:
    """What the choice of topics needs of a run: its name and its topics (a run file's, from its blocks)."""

    name: str
    topic_ids: np.ndarray


def topics_to_evaluate(qrels_topics: np.ndarray, run: Run | NestedRun | RunTopics, *,
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
    matches: Matches  # row_matches of the ranking: what the note on unmatched ids is made from


def rank(run: Run | NestedRun, qrels: Qrels, *, complete: bool = False, order: str = "score",
         doc_key: str = "publication", max_documents: int | None = None, judged_only: bool = False,
         judgements: Callable[[np.ndarray], JudgementIndex] | None = None,
         topics: np.ndarray | None = None, topic_positions: dict | None = None) -> Ranking:
    """The one ranking step of an evaluation, for a run held whole and for each block of a
    run file (:func:`score_block`): the topics evaluated (those in both the qrels and the
    run; ``complete``: every qrels topic), a TREC DD run in the order of its session,
    trec_eval's -M cut (in that order) and -J cut, the run ranked per topic, and the notes
    on all of it. ``judgements``: the judgement index of some topics (default: built here).
    ``topics``: the topics chosen for a whole run file, of which this block holds some: then
    the notes on the topics left out and on unmatched ids are the file's, made from every
    block's (:func:`topics_to_evaluate`, :func:`unmatched_note` of the summed ``matches``);
    ``topic_positions``: the positions of ``topics`` as a dict, when the caller holds one.
    A run of nested dicts is ranked without converting its ids (:func:`rank_nested`) when
    its documents are matched by id in score order, and converted first otherwise."""
    whole = topics is None
    if topics is None:
        topics, notes = topics_to_evaluate(np.asarray(qrels.topic_ids, dtype=object), run, complete=complete)
    else:  # a block: the file's topics that it holds (its few looked up among the many)
        found = positions_in(topics if topic_positions is None else topic_positions,
                             np.asarray(run.topic_ids, dtype=object))
        held = np.zeros(len(topics), dtype=bool)
        held[found[found >= 0]] = True
        topics, notes = topics[held], []
    index = (judgements or (lambda chosen: JudgementIndex.build(qrels, chosen, doc_key=doc_key)))(topics)
    if isinstance(run, NestedRun) and (order, doc_key, max_documents, judged_only) != ("score", "publication",
                                                                                       None, False):
        run = run.to_run()
    if "iterations" in run.resources and order == "score":
        order = "rank"  # a DD run's rank is its place in the session
        notes.append(f"run {run.name!r}: a TREC DD run, ranked in the order of its session "
                     "(iteration by iteration, by score within one)")
    missing = topics[positions_in(np.asarray(run.topic_ids, dtype=object), topics) < 0]
    if isinstance(run, NestedRun):
        ranked = rank_nested(run, index)
    else:
        if max_documents is not None:
            run = top_rows_only(run, max_documents, order=order)
        if judged_only:
            run = judged_rows_only(run, qrels, doc_key=doc_key)
        ranked = rank_run(run, index, order=order)
    notes.extend(n for n in ranked.notes if n not in notes)
    matches = row_matches(ranked)
    if whole:
        notes.extend(unmatched_note(run.name, matches, qrels, index.doc_key))
    return Ranking(ranked, topics, missing, order, notes, index, matches)


def unmatched_note(run_name: str, matches: Matches, qrels: Qrels, doc_key: str) -> list[str]:
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
    if doc_key != "patent" and sample:
        from .core.docids import patent_keys

        judged_keys = set(patent_keys(qrels.codes("docno")[1], invalid="keep").to_pylist())  # any topic's
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

def score_block(judgements: JudgementIndex, source: tuple, measures: Sequence[Measure], *, name: str | None,
                order: str, context: EvaluationContext, on_duplicate: str, reader=None, lines: str = "pateval",
                mixed_tags: str = "refuse") -> BlockScores | None:
    """Read one block of a run file and score it (the unit of work given to a Dask worker).

    ``judgements``: the index of every qrels topic; the block takes its topics' judgements.
    ``source``: ``("range", path, start, end, only_block)`` (bytes of the run file holding
    whole topics), ``("part", part_path, run_path)`` (a part of a partitioned run) or
    ``("parquet", path, start, stop, run_name)`` (rows of a Parquet run holding whole topics;
    ``reader``: a :class:`~pateval.formats.parquet.ParquetBlockReader` of it, kept between
    blocks). ``lines``, ``mixed_tags``: the :class:`~pateval.formats.runblocks.RunFile`'s.
    Returns None for a block of blank lines.
    """
    run: Run | None
    if source[0] == "parquet":
        from .formats.parquet import ParquetBlockReader

        _, path, start, stop, run_name = source
        run = (reader or ParquetBlockReader(path)).read(start, stop, name=run_name, on_duplicate=on_duplicate,
                                                        mixed_tags=mixed_tags)
    elif source[0] == "range":
        _, path, start, end, only_block = source
        run = read_block(path, start, end, on_duplicate=on_duplicate, only_block=only_block, lines=lines,
                         mixed_tags=mixed_tags)
    else:
        _, part, path = source
        run = read_part(part, source=path, on_duplicate=on_duplicate)
    if run is None:
        return None
    tag = run.name
    if name is not None:
        run = _replace_name(run, name)
    ranking = rank(run, judgements.qrels, order=order, doc_key=judgements.doc_key, judgements=judgements.restrict,
                   topics=judgements.topic_ids, topic_positions=judgements.position_of_topic)
    return BlockScores(tag=tag, run_topics=np.asarray(run.topic_ids, dtype=object), topics=ranking.topics,
                       values=measure_values(ranking.ranked, measures, context), notes=ranking.notes,
                       matches=ranking.matches)


def _replace_name(run: Run, name: str) -> Run:
    renamed = dataclasses.replace(run, name=name)
    renamed._cache.update(run._cache)  # the pair index built by the reader
    return renamed


class _ScatteredTopics(Exception):
    """Two blocks of a run file hold one topic: the run must be partitioned."""


class BlockScorer:
    """Scores the blocks of run files here, one at a time, or on a Dask cluster."""

    def __init__(self, qrels: Qrels, measures: list[Measure], *, order: str, doc_key: str,
                 context: EvaluationContext, scheduler: str | None, work_dir: str | os.PathLike[str] | None,
                 timeout: float = DEFAULT_SCHEDULER_TIMEOUT) -> None:
        self.qrels, self.measures, self.order, self.doc_key, self.context = qrels, measures, order, doc_key, context
        self.scheduler, self.work_dir, self.timeout = scheduler, work_dir, timeout
        self.client: Any = None
        self.submitted: dict[int, list] = {}
        self.shared: tuple = ()
        self._judgements: JudgementIndex | None = None
        self._readers: list = []  # Parquet block readers (their decoding thread) to close
        self._pools: list[ThreadPoolExecutor] = []  # the threads scoring a file's blocks, to stop

    @property
    def judgements(self) -> JudgementIndex:
        """The index of every qrels topic, made once: each block takes its topics' part."""
        if self._judgements is None:
            topics = np.asarray(self.qrels.topic_ids, dtype=object)
            self._judgements = JudgementIndex.build(self.qrels, topics, doc_key=self.doc_key)
        return self._judgements

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def _connect(self) -> Any:
        if self.client is None:
            self.client = connect(str(self.scheduler), self.timeout, feature="evaluate --scheduler")
            with self._cluster_failures():
                self.shared = tuple(self.client.scatter([self.judgements, self.context], broadcast=True))
        return self.client

    def _cluster_failures(self) -> AbstractContextManager:
        """What happened to the cluster, said in one line (nothing to say when scoring here)."""
        if self.client is None:
            return nullcontext()
        return cluster_failures(self.client, str(self.scheduler), self.timeout)

    def submit_all(self, runs):
        """On a cluster, every run file's blocks are submitted before any is waited for."""
        if self.scheduler is None:
            return runs
        runs = list(runs)
        for run in runs:
            if isinstance(run, RunFile):
                self.submitted[id(run)] = self._submit(run, _range_sources(run))
        return runs

    def _submit(self, run_file: RunFile, sources: list[tuple]) -> list:
        client = self._connect()
        judgements, context = self.shared
        # a worker's working directory is not ours: it opens the run (or its part) by its absolute path
        sources = [(kind, os.path.abspath(path), *rest) for kind, path, *rest in sources]
        with self._cluster_failures():
            return [client.submit(score_block, judgements, source, self.measures, name=run_file.name,
                                  order=self.order, context=context, on_duplicate=run_file.on_duplicate,
                                  lines=run_file.lines, mixed_tags=run_file.mixed_tags, pure=False)
                    for source in sources]

    def _results(self, run_file: RunFile, sources: list[tuple], futures: list | None) -> list[Any]:
        """One callable per source giving its BlockScores (scored when called, or on the cluster)."""
        if futures is None and self.scheduler is not None:
            futures = self._submit(run_file, sources)
        if futures is not None:
            return [future.result for future in futures]

        reader = None
        if sources and sources[0][0] == "parquet":
            from .formats.parquet import ParquetBlockReader

            # keeps the row group two blocks share, and decodes the next while a block is scored
            reader = ParquetBlockReader(run_file.path, prefetch=True)
            self._readers.append(reader)  # closed when the file's blocks are collected

        judgements = self.judgements  # made once, before any thread needs it

        def score(source):
            return score_block(judgements, source, self.measures, name=run_file.name, order=self.order,
                               context=self.context, on_duplicate=run_file.on_duplicate, reader=reader,
                               lines=run_file.lines, mixed_tags=run_file.mixed_tags)
        threads = min(len(sources), os.cpu_count() or 1, BLOCK_THREADS)
        if reader is not None or threads < 2:
            return [functools.partial(score, source) for source in sources]
        # blocks scored by threads (Arrow's parsing and NumPy's loops release the GIL), each
        # block's values its own: the same values at any number of threads; memory holds a
        # block per thread; each block is scored in a copy of this context, which holds the
        # blocks read ahead (formats.runblocks.read_ahead)
        pool = ThreadPoolExecutor(threads, thread_name_prefix="pateval-block")
        self._pools.append(pool)
        return [pool.submit(contextvars.copy_context().run, score, source).result for source in sources]

    def blocks(self, run_file: RunFile) -> list[BlockScores]:
        """The scores of every block of one run file, in file order (partitioned first if its
        topics are scattered)."""
        sources = _range_sources(run_file)
        try:
            return self._collect(run_file, sources, self.submitted.pop(id(run_file), None))
        except _ScatteredTopics:
            if self.work_dir is not None:
                os.makedirs(self.work_dir, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=self.work_dir, prefix="pateval-parts-") as directory:
                parts = partition_run(run_file, directory)
                sources = [("part", str(part), str(run_file.path)) for part in parts]
                return self._collect(run_file, sources, None, duplicates_first=True)

    def _collect(self, run_file: RunFile, sources: list[tuple], futures, *, duplicates_first: bool = False):
        blocks: list[BlockScores] = []
        seen: set = set()
        failure: InputFormatError | None = None
        results = self._results(run_file, sources, futures)
        try:
            # in file order: the first bad block's error is the file's
            for source, result in zip(sources, results, strict=False):
                try:
                    with self._cluster_failures():
                        block = result()
                except InputFormatError as error:
                    # the parts of a partitioned run each find their own repeated documents:
                    # the error to give is the one on the earliest line
                    if not duplicates_first:
                        raise
                    if failure is None or (error.line or 0) < (failure.line or 0):
                        failure = error
                    continue
                if block is None:
                    continue
                if (blocks and block.tag != blocks[0].tag and source[0] == "range"
                        and run_file.mixed_tags == "refuse"):
                    mixed_tag_error(run_file.path, source[2], source[3], blocks[0].tag)
                if source[0] == "range" and not seen.isdisjoint(block.run_topics.tolist()):
                    raise _ScatteredTopics
                seen.update(block.run_topics.tolist())
                blocks.append(block)
        finally:
            while self._pools:  # after an error: the blocks not started are not scored
                self._pools.pop().shutdown(cancel_futures=True)
            while self._readers:
                self._readers.pop().close()
            if self.client is not None and self.client.status == "running":  # not after losing the scheduler
                self.client.cancel([r.__self__ for r in results])
        if failure is not None:
            raise failure
        if not blocks:
            malformed(run_file.path, None, "the file is empty")
        return blocks


def _range_sources(run_file: RunFile) -> list[tuple]:
    from .formats.parquet import is_parquet, parquet_run_blocks

    if is_parquet(run_file.path):  # row ranges of whole topics (a run with scattered topics: one range)
        ranges, name = parquet_run_blocks(run_file.path, run_file.block_bytes)
        return [("parquet", str(run_file.path), start, stop, name) for start, stop in ranges]
    ranges = topic_block_ranges(run_file.path, run_file.block_bytes)
    return [("range", str(run_file.path), start, end, len(ranges) == 1) for start, end in ranges]
