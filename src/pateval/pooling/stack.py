"""Many runs as one set of flat arrays: the input of fusion, pools and judging simulations.

Each run is read through the run door (:func:`pateval.formats.inputs.as_run`) and put in
evaluation order by the ranking step (:func:`pateval.core.ranking.evaluation_order`: score
descending, ties by docno descending, as trec_eval; or the rank column, or file order), so a
row's ``position`` is its 1-based rank in its topic. Topics and documents are coded alike
across the runs: ``topic`` indexes the sorted union of the runs' topics, ``doc`` the distinct
document ids of all runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.keys import take
from ..core.order import string_ranks, unique_inverse
from ..core.ranking import evaluation_order
from ..core.run import Run
from ..core.segments import place_in_segments, run_lengths, run_starts
from ..errors import ParameterError
from ..validation import check_choice

__all__ = ["RunStack", "TIE_RULES", "stack_runs"]

#: How equal scores of one run are ranked: by docno descending (trec_eval) or ascending (trectools).
TIE_RULES = ("descending", "ascending")


@dataclass(frozen=True, eq=False)
class RunStack:
    """Rows of ``R`` runs, run after run, each run's rows in evaluation order.

    Attributes
    ----------
    names : tuple of str
        The runs' names, in the order given.
    topic_ids : ndarray of str, shape (T,)
        The sorted union of the runs' topics.
    doc_ids : pyarrow.StringArray, shape (V,)
        The distinct document ids of all runs.
    run, topic, doc, position : ndarray of int64, shape (N,)
        Each row's run, topic, document and 1-based rank in its topic of its run.
    score : ndarray of float64, shape (N,)
        Each row's score as the run gave it.
    """

    names: tuple[str, ...]
    topic_ids: np.ndarray
    doc_ids: pa.Array
    run: np.ndarray
    topic: np.ndarray
    doc: np.ndarray
    position: np.ndarray
    score: np.ndarray
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_runs(self) -> int:
        return len(self.names)

    @property
    def n_topics(self) -> int:
        return len(self.topic_ids)

    def segment(self) -> np.ndarray:
        """Each row's (run, topic) segment, ``run * T + topic``; rows of a segment are
        contiguous and in rank order."""
        return self.run * self.n_topics + self.topic

    def segment_lengths(self) -> np.ndarray:
        """Rows of each (run, topic), shape (R, T): how many documents each run retrieved per topic."""
        if "lengths" not in self._cache:
            counts = np.bincount(self.segment(), minlength=self.n_runs * self.n_topics)
            self._cache["lengths"] = counts.reshape(self.n_runs, self.n_topics)
        return self._cache["lengths"]

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct (topic, document) pairs, sorted by topic then document code, as
        ``(topic, doc, inverse)``: ``inverse`` gives each row's pair (made once)."""
        if "pairs" not in self._cache:
            width = max(len(self.doc_ids), 1)
            keys, inverse = unique_inverse(self.topic * width + self.doc)
            self._cache["pairs"] = (keys // width, keys % width, inverse)
        return self._cache["pairs"]

    def doc_ranks(self) -> np.ndarray:
        """Each document code's place in byte order of its id (ties broken as trec_eval: by docno)."""
        if "doc_ranks" not in self._cache:
            self._cache["doc_ranks"] = string_ranks(self.doc_ids)
        return self._cache["doc_ranks"]

    def docnos(self, docs: np.ndarray) -> np.ndarray:
        """The ids of document codes ``docs``, as an array of str."""
        return np.asarray(take(self.doc_ids, np.asarray(docs, dtype=np.int64)).to_pylist(), dtype=object)


def stack_runs(runs: list[Run], *, order: str = "score", ties: str = "descending",
               depth: int | None = None) -> RunStack:
    """The rows of ``runs`` (at least one; distinct names) in one :class:`RunStack`; with
    ``depth``, only each run's first ``depth`` documents per topic.

    ``ties``: with ``order="score"``, equal scores ranked by docno ``"descending"`` (the
    ranking step's rule, trec_eval's) or ``"ascending"`` (trectools' and pandas' rule).

    Raises
    ------
    ParameterError
        No run, or two runs of one name (a pool names the runs that contributed each document).
    """
    check_choice("ties", ties, TIE_RULES)
    if not runs:
        raise ParameterError("no run given")
    names = tuple(run.name for run in runs)
    if len(set(names)) < len(names):
        twice = next(name for place, name in enumerate(names) if name in names[:place])
        raise ParameterError(f"two runs are named {twice!r}: give each run a distinct name (run tag)")
    topic_ids = np.asarray(sorted({str(t) for run in runs for t in run.topic_ids.tolist()}), dtype=object)
    topic_code = {t: i for i, t in enumerate(topic_ids.tolist())}
    topics, docs, positions, scores, run_of = [], [], [], [], []
    for r, run in enumerate(runs):
        perm = evaluation_order(run, order=order)
        if ties == "ascending" and order == "score":
            perm = _ties_reversed(run, perm)
        code = np.asarray([topic_code[str(t)] for t in run.topic_ids.tolist()], dtype=np.int64)
        topic = code[run.topic[perm]] if len(perm) else np.zeros(0, dtype=np.int64)
        lengths = np.bincount(topic, minlength=len(topic_ids))
        # evaluation order groups topics by sorted id, as topic_ids is sorted: positions are places in segments
        position = place_in_segments(lengths[lengths > 0], first=1)
        if depth is not None and len(position) and position.max() > depth:
            within = position <= depth
            perm, topic, position = perm[within], topic[within], position[within]
        positions.append(position)
        topics.append(topic)
        docs.append(take(run.doc_ids, run.doc[perm].astype(np.int64)))
        scores.append(run.score[perm])
        run_of.append(np.full(len(perm), r, dtype=np.int64))
    encoded = pc.dictionary_encode(pa.chunked_array(docs, type=pa.string())).combine_chunks()
    return RunStack(names=names, topic_ids=topic_ids, doc_ids=encoded.dictionary,
                    run=np.concatenate(run_of), topic=np.concatenate(topics),
                    doc=encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                    position=np.concatenate(positions), score=np.concatenate(scores).astype(np.float64))


def _ties_reversed(run: Run, perm: np.ndarray) -> np.ndarray:
    """``perm`` (the ranking step's order) with each group of equal scores in a topic reversed:
    docno ascending instead of descending."""
    start = run_starts(run.topic[perm], run.score[perm])
    length = run_lengths(start, len(perm))
    # a row at place i of the group [first, last] goes to place first + last - i
    return perm[np.repeat(2 * start + length - 1, length) - np.arange(len(perm))]
