"""From a run and qrels to the arrays every measure reads: :class:`RankedTopics`.

A run is put in evaluation order (per topic; ``order="score"``: score descending, ties by
docno descending, trec_eval's rule), restricted to the topics evaluated, and each row is
given its judgement. Everything is a flat array with CSR offsets per topic, so a measure
is a handful of vectorised operations over all topics at once, and any subset of topics
can be evaluated on its own (the unit of partitioning when a job is spread over workers).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._lazy import lazy_module
from ..validation import check_choice
from .docids import DOC_KEYS, document_keys, patent_keys
from .keys import PairIndex, StringKeys, take
from .order import positions_in, score_order, stable_order, string_ranks
from .qrels import Qrels
from .run import DocumentIds, NestedRun, Run
from .segments import expand, offsets, place_in_segments, run_starts, starts_of

__all__ = [
    "ORDERS",
    "NONPOOL",
    "UNJUDGED",
    "JUDGED",
    "evaluation_order",
    "JudgementIndex",
    "RankedTopics",
    "SubtopicView",
    "rank_run",
    "rank_nested",
]

from .names import ORDERS  # noqa: E402 (declared where the command line reads it)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")  # only doc_keys builds a pandas Index

# What a retrieved document is, relative to the qrels (trec_eval's RELVALUE_* distinction).
NONPOOL = 0  # not in the qrels: unjudged, counted as non-relevant
UNJUDGED = 1  # in the qrels with a negative grade: pooled but not judged
JUDGED = 2  # judged, grade >= 0


def evaluation_order(run: Run, *, order: str = "score") -> np.ndarray:
    """The permutation of ``run``'s rows that groups topics (sorted by id) and ranks each.

    Parameters
    ----------
    run : Run
    order : {"score", "rank", "file"}
        ``"score"``: score descending, ties broken by docno descending (trec_eval);
        ``"rank"``: the rank column ascending, ties in file order (ndeval, CLEF-IP);
        ``"file"``: the order of the lines (the order a user examined the documents).
    """
    perm, places, moved = _evaluation_order(run, order=order)
    perm = np.arange(len(run), dtype=np.int64) if perm is None else perm.astype(np.int64)
    if places is not None:
        perm[places] = moved
    return perm


def _evaluation_order(run: Run, *, order: str) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """As :func:`evaluation_order`, as ``perm, places, moved``: ranking place ``k`` holds
    row ``perm[k]`` (``k`` when ``perm`` is None: the file is in order, the usual case),
    except that places ``places`` hold rows ``moved`` (equal scores put in docno order
    without a permutation of every row). Made once per run and order (kept in the run's
    cache: a budget simulation ranks each run once per budget); each call gets copies."""
    cache = getattr(run, "_cache", None)
    if cache is None:
        return _make_evaluation_order(run, order=order)
    key = ("evaluation_order", order)
    if key not in cache:
        cache[key] = _make_evaluation_order(run, order=order)
    perm, places, moved = cache[key]
    return (None if perm is None else perm.copy(), None if places is None else places.copy(),
            None if moved is None else moved.copy())


def _make_evaluation_order(run: Run, *, order: str) -> tuple[np.ndarray | None, np.ndarray | None,
                                                              np.ndarray | None]:
    check_choice("order", order, ORDERS)
    n = len(run)
    if n == 0:
        return None, None, None
    rank_of_topic = string_ranks(run.topic_ids)
    if order == "score":
        perm = _score_blocks(run, rank_of_topic)
        if perm is False:
            perm = score_order(rank_of_topic[run.topic], run.score)
        return _ties_by_docno(run, perm)
    topic_rank = rank_of_topic[run.topic]
    if order == "rank":
        rank = np.asarray(run.rank, dtype=np.int64)
        low = int(rank.min())
        span = int(rank.max()) - low + 1
        if span >= (1 << 62) // max(len(rank_of_topic), 1):  # (topic, rank) does not fit one integer
            return np.lexsort((np.arange(n), rank, topic_rank)), None, None
        key = topic_rank * span + (rank - low)
    else:
        key = topic_rank
    if np.all(key[1:] >= key[:-1]):
        return None, None, None  # the file is in that order already
    return stable_order(key), None, None


def _row_type(n: int):
    return np.int32 if n < 2**31 else np.int64


def _score_blocks(run: Run, rank_of_topic: np.ndarray) -> np.ndarray | None | Literal[False]:
    """Fast path for runs written as engines write them: topics contiguous, scores falling.

    Returns the permutation that puts the topic blocks in order (rows within a block stay
    as they are; None when they are in order already), or False when the file is not in
    that shape.
    """
    topic = run.topic
    score = run.score
    boundary = topic[1:] != topic[:-1]
    starts = np.r_[0, np.flatnonzero(boundary) + 1]
    block_topics = np.sort(topic[starts])  # (np.unique hashes: slower than a sort in NumPy 2.4)
    if np.any(block_topics[1:] == block_topics[:-1]):
        return False  # a topic's lines are scattered
    if not np.all((score[1:] <= score[:-1]) | boundary):
        return False
    n = len(topic)
    block_rank = rank_of_topic[topic[starts]]
    if np.all(block_rank[1:] > block_rank[:-1]):
        return None
    lengths = np.diff(np.r_[starts, n])
    block_order = np.argsort(block_rank, kind="stable")
    new_starts = starts[block_order]
    new_lengths = lengths[block_order]
    shift = np.repeat(new_starts - starts_of(new_lengths), new_lengths)
    return np.arange(n, dtype=_row_type(n)) + shift.astype(_row_type(n))


def _ties_by_docno(run: Run, perm: np.ndarray | None):
    """``perm`` (topics grouped, scores descending; None: the identity) with equal scores
    put in docno descending order, as ``perm, places, moved`` (see :func:`_evaluation_order`);
    only the tied rows' ids are compared."""
    topic = run.topic if perm is None else run.topic[perm]
    score = run.score if perm is None else run.score[perm]
    tie = (score[1:] == score[:-1]) & (topic[1:] == topic[:-1])
    if not tie.any():
        return perm, None, None
    i = np.flatnonzero(tie)
    ids = run.row_doc_ids()
    row = (lambda k: k) if perm is None else (lambda k: perm[k])
    if pc.all(pc.greater(take(ids, row(i)), take(ids, row(i + 1)))).as_py():
        return perm, None, None  # already docno descending
    places = np.sort(np.r_[i, i + 1])  # i ascending: the places of the ties, each once
    places = places[np.r_[True, places[1:] != places[:-1]]]
    group = places - np.searchsorted(i, places)  # tie-group of each involved place
    doc_rank = string_ranks(take(ids, row(places)))
    moved = row(places)[np.lexsort((-doc_rank, group))]
    return perm, places, moved.astype(np.int64)


@dataclass(frozen=True, eq=False)
class JudgementIndex:
    """Qrels restricted to the evaluated topics and indexed for lookups.

    Built once per (qrels, topics, doc_key) and shared by all runs evaluated against it.
    Judgements are grouped by topic position; documents are kept as strings and coded
    (:attr:`doc_code`) only when a measure asks.
    """

    topic_ids: np.ndarray  # (T,) evaluated topics, sorted
    topic_position: np.ndarray  # (Q,) each judgement's topic (a position in topic_ids), ascending
    grade: np.ndarray  # (Q,) grades aligned with ``topic_position``
    doc_source: pa.Array  # the judgements' document keys, at ``doc_rows`` (see :attr:`doc_strings`)
    qrels: Qrels
    doc_key: str
    # (len(qrels.document_level()),) each row's judgement, -1: dropped; None: the row itself
    level_entry: np.ndarray | None = None
    parent: tuple | None = field(default=None, repr=False)  # (index, rows): made by restrict() from these rows of index
    # (Q,) each judgement's row of ``doc_source`` (None: the same row): qrels whose topics are not
    # in the evaluation's order are put in it without copying millions of ids (a block takes its own)
    doc_rows: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def build(cls, qrels: Qrels, topic_ids: np.ndarray, *, doc_key: str = "publication") -> JudgementIndex:
        check_choice("doc_key", doc_key, DOC_KEYS)
        level = qrels.document_level()
        topic_codes, topic_names = level.codes("topic")
        position_of_topic = positions_in(topic_ids, topic_names.to_numpy(zero_copy_only=False))
        position = position_of_topic[topic_codes] if len(level) else np.zeros(0, np.int64)
        keep = position >= 0
        docnos = level.arrow("docno")
        rel = level.rel
        source: np.ndarray | None = None  # the document-level row of each judgement (None: the same row)
        if not keep.all():
            source = np.flatnonzero(keep)
            docnos, position, rel = docnos.filter(pa.array(keep)), position[keep], rel[keep]
        docnos = document_keys(docnos, doc_key)
        position = position.astype(np.int64)
        doc_rows: np.ndarray | None = None
        if len(position) and not np.all(position[1:] >= position[:-1]):
            order = np.argsort(position, kind="stable")
            position, rel = position[order], rel[order]
            doc_rows = order
            source = order if source is None else source[order]
        level_entry = None
        if source is not None:
            level_entry = np.full(len(level), -1, dtype=np.int64)
            level_entry[source] = np.arange(len(source), dtype=np.int64)
        if doc_key == "patent" and len(position):
            if doc_rows is not None:  # (the pair index reads the ids in the judgements' order)
                docnos, doc_rows = take(docnos, doc_rows), None
            # several publications of one patent judged: the patent takes the best grade
            index = PairIndex.build(position, StringKeys.of(docnos), n_groups=len(topic_ids))
            if index.repeated.any():
                rel = rel.copy()
                repeats = np.flatnonzero(index.repeated)
                np.maximum.at(rel, index.first[repeats], rel[repeats])
                single = ~index.repeated
                merged = np.cumsum(single, dtype=np.int64) - 1
                merged[repeats] = merged[index.first[repeats]]
                level_entry = merged if level_entry is None else np.where(level_entry >= 0, merged[level_entry], -1)
                position, rel, docnos = position[single], rel[single], docnos.filter(pa.array(single))
        grade = rel if rel.dtype == np.float64 else rel.astype(np.int64)  # float64: fractional grades (core.qrels)
        return cls(topic_ids=topic_ids, topic_position=position, grade=grade, doc_source=docnos, qrels=qrels,
                   doc_key=doc_key, level_entry=level_entry, doc_rows=doc_rows)

    def restrict(self, topic_ids: np.ndarray) -> JudgementIndex:
        """The index of some of these topics (``topic_ids``: a subset of :attr:`topic_ids`, in
        the same order): what :meth:`build` gives for them, taken from these arrays (a block
        of a large run needs the judgements of its few topics, not a pass over the qrels)."""
        topic_ids = np.asarray(topic_ids, dtype=object)
        positions = positions_in(self.position_of_topic, topic_ids) if len(topic_ids) else np.zeros(0, np.int64)
        if (positions < 0).any() or np.any(positions[1:] <= positions[:-1]):
            raise ValueError("restrict() takes some of the index's topics, in its order")
        lengths = np.diff(self.ptr)[positions]
        rows = expand(self.ptr[:-1][positions], lengths)
        return JudgementIndex(topic_ids=topic_ids, topic_position=np.repeat(np.arange(len(positions), dtype=np.int64),
                                                                            lengths),
                              grade=self.grade[rows], doc_source=self.doc_source, qrels=self.qrels,
                              doc_key=self.doc_key, parent=(self, rows),
                              doc_rows=rows if self.doc_rows is None else self.doc_rows[rows])

    @cached_property
    def doc_strings(self) -> pa.Array:
        """(Q,) each judgement's document key (taken from :attr:`doc_source` when first asked)."""
        return self.doc_source if self.doc_rows is None else take(self.doc_source, self.doc_rows)

    @cached_property
    def position_of_topic(self) -> dict:
        """Each topic's position in :attr:`topic_ids` (made once: every block of a run looks its topics up)."""
        return {topic: i for i, topic in enumerate(np.asarray(self.topic_ids, dtype=object).tolist())}

    @cached_property
    def line_entry(self) -> np.ndarray:
        """The judgement (an index into these arrays) of each line of :attr:`qrels`, or -1 for
        lines of topics not evaluated: how subtopic and passage lines find their document."""
        if self.parent is not None:
            index, rows = self.parent
            entries = index.line_entry
            renumbered = np.full(len(index.grade) + 1, -1, dtype=np.int64)  # the last: for -1
            renumbered[rows] = np.arange(len(rows), dtype=np.int64)
            return renumbered[entries]
        rows = self.qrels.document_rows()
        return rows if self.level_entry is None else self.level_entry[rows]

    @cached_property
    def judged_patent_keys(self) -> pa.Array | None:
        """``topic<TAB>patent key`` of every judgement, when documents are matched by id and
        most judged ids are patent publications (two letters, then digits); None otherwise:
        what finds the documents a run retrieved under another publication of a judged
        patent (:func:`pateval.executor.patent_matches`)."""
        docs = self.doc_strings
        if self.doc_key == "patent" or not len(docs):
            return None
        patents = pc.sum(pc.match_substring_regex(docs, r"^\s*[A-Za-z]{2}[-\s]?\d{4}")).as_py() or 0
        if 2 * patents < len(docs):
            return None
        topics = pa.array(np.asarray(self.topic_ids, dtype=object)[self.topic_position], type=pa.string())
        return pc.binary_join_element_wise(topics, patent_keys(docs, invalid="keep"), "\t")

    @cached_property
    def _distinct(self) -> pa.DictionaryArray:
        return pc.dictionary_encode(self.doc_strings)

    @property
    def doc_keys_arrow(self) -> pa.Array:
        """The distinct judged document keys (``doc_code`` indexes them), made on demand."""
        return self._distinct.dictionary

    @cached_property
    def doc_keys(self) -> pd.Index:
        """:attr:`doc_keys_arrow` as a pandas Index."""
        return pd.Index(self.doc_keys_arrow.to_numpy(zero_copy_only=False).astype(object, copy=False))

    @cached_property
    def doc_code(self) -> np.ndarray:
        """Each judgement's document, as a code into :attr:`doc_keys`."""
        return self._distinct.indices.to_numpy(zero_copy_only=False).astype(np.int64)

    @cached_property
    def key(self) -> np.ndarray:
        """``topic_position * len(doc_keys) + doc_code``: one integer per (topic, document)."""
        return self.topic_position * max(len(self.doc_keys_arrow), 1) + self.doc_code

    @cached_property
    def string_keys(self) -> StringKeys:
        """Fingerprints of each judgement's document key (for :class:`PairIndex` lookups)."""
        return StringKeys.of(self.doc_strings)

    @cached_property
    def ptr(self) -> np.ndarray:
        """CSR offsets of each topic's judgements in ``key``/``grade``."""
        return offsets(np.bincount(self.topic_position, minlength=len(self.topic_ids)))

    @cached_property
    def grades_descending(self) -> np.ndarray:
        """Each topic's grades sorted from best to worst (for ideal rankings)."""
        order = np.lexsort((-self.grade, self.topic_position))
        return self.grade[order]

    def count(self, mask: np.ndarray) -> np.ndarray:
        """Per topic, the number of judgements where ``mask`` holds."""
        return np.bincount(self.topic_position[mask], minlength=len(self.topic_ids)).astype(np.int64)


def _subset_keys(keys: StringKeys, rows: np.ndarray) -> StringKeys:
    return StringKeys(strings=take(keys.strings, rows), fingerprint=keys.fingerprint[rows],
                      length=keys.length[rows], exact=keys.exact)


@dataclass(frozen=True, eq=False)
class RankedTopics(DocumentIds):
    """One run, ranked per topic, with each row's judgement: the input of every measure.

    The judgements are held sparsely (a run of millions of rows has a few judged ones);
    the per-row arrays ``row_topic``, ``position``, ``status``, ``grade`` and
    ``judged_doc`` are made from them when a measure first asks (and kept). Measures that
    need only the judged rows use :meth:`relevant_rows` / :meth:`judged_rows` and
    :meth:`topic_of` / :meth:`position_of` and never make them.

    Attributes
    ----------
    run_name : str
    topic_ids : ndarray of str, shape (T,)
        The topics evaluated, sorted (some may have no rows: ``complete`` evaluation).
    ptr : ndarray of int64, shape (T+1,)
        Rows of topic ``t`` are ``ptr[t]:ptr[t+1]``, in evaluation order.
    documents : (doc, doc_ids), or a function that makes them
        ``doc`` (ndarray of int, shape (N,)): each row's document as an index into
        ``doc_ids`` (pyarrow.StringArray or ChunkedArray), the run's document ids; made when
        first asked for a run of nested dicts (:func:`rank_nested`), which most measures never
        do. :attr:`doc`, :attr:`doc_ids` and :attr:`docno` (each row's id as str) read them.
    score : ndarray of float64, shape (N,)
    judged_row : ndarray of int64, shape (J,)
        The rows (ascending) whose document the qrels judge for the row's topic.
    judged_grade : ndarray of int64, shape (J,)
        Their grades as written (negative: pooled but not judged).
    judged_entry : ndarray of int64, shape (J,)
        Their judgements, as indexes into the arrays of ``judgements``
        (:attr:`judged_code` gives their documents' codes).
    judgements : JudgementIndex
    notes : tuple of str
    """

    run_name: str
    topic_ids: np.ndarray
    ptr: np.ndarray
    documents: tuple[np.ndarray, pa.Array] | Callable[[], tuple[np.ndarray, pa.Array]]
    score: np.ndarray
    judged_row: np.ndarray
    judged_grade: np.ndarray
    judged_entry: np.ndarray
    judgements: JudgementIndex
    notes: tuple[str, ...] = field(default=())
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_topics(self) -> int:
        return len(self.topic_ids)

    @property
    def n_rows(self) -> int:
        return int(self.ptr[-1])

    @property
    def docno(self) -> np.ndarray:
        """Each row's document id as str (made once, on demand)."""
        return self._row_docnos()

    @property
    def doc(self) -> np.ndarray:  # type: ignore[override]
        """Each row's document, as an index into :attr:`doc_ids`."""
        return self._documents()[0]

    @property
    def doc_ids(self) -> pa.Array:
        """The run's document ids (Arrow)."""
        return self._documents()[1]

    def _documents(self) -> tuple[np.ndarray, pa.Array]:
        if "documents" not in self._cache:
            self._cache["documents"] = self.documents() if callable(self.documents) else self.documents
        return self._cache["documents"]

    def _dense(self, name: str, make) -> np.ndarray:
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    @property
    def row_topic(self) -> np.ndarray:
        """Each row's topic position, ndarray of int64 (N,)."""
        return self._dense("row_topic", lambda: np.repeat(np.arange(self.n_topics, dtype=np.int64), np.diff(self.ptr)))

    @property
    def judged_topic(self) -> np.ndarray:
        """Each judged row's topic position (of :attr:`judged_row`), made once: most measures read it."""
        return self._dense("judged_topic", lambda: self.topic_of(self.judged_row))

    @property
    def position(self) -> np.ndarray:
        """Each row's 1-based rank within its topic, ndarray of int64 (N,)."""
        return self._dense("position", lambda: place_in_segments(np.diff(self.ptr), first=1))

    @property
    def status(self) -> np.ndarray:
        """Each row's :data:`NONPOOL`, :data:`UNJUDGED` or :data:`JUDGED`, ndarray of int8 (N,)."""
        def make():
            status = np.full(self.n_rows, NONPOOL, dtype=np.int8)
            status[self.judged_row] = np.where(self.judged_grade >= 0, JUDGED, UNJUDGED)
            return status
        return self._dense("status", make)

    @property
    def grade(self) -> np.ndarray:
        """Each row's judged grade (0 unless judged with a grade >= 0), ndarray of int64 (N,)."""
        def make():
            grade = np.zeros(self.n_rows, dtype=self.judged_grade.dtype)  # int64, or float64 (fractional)
            grade[self.judged_row] = np.maximum(self.judged_grade, 0)
            return grade
        return self._dense("grade", make)

    @property
    def judged_code(self) -> np.ndarray:
        """The judged rows' documents as codes into ``judgements.doc_keys``, shape (J,)."""
        return self.judgements.doc_code[self.judged_entry]

    @property
    def judged_doc(self) -> np.ndarray:
        """Each row's code in ``judgements.doc_keys``, or -1; ndarray of int64 (N,)."""
        def make():
            codes = np.full(self.n_rows, -1, dtype=np.int64)
            codes[self.judged_row] = self.judged_code
            return codes
        return self._dense("judged_doc", make)

    def topic_of(self, rows: np.ndarray) -> np.ndarray:
        """The topic position of some rows (without making :attr:`row_topic`)."""
        return np.searchsorted(self.ptr, rows, side="right") - 1

    def position_of(self, rows: np.ndarray) -> np.ndarray:
        """The 1-based rank of some rows within their topics."""
        return rows - self.ptr[self.topic_of(rows)] + 1

    def per_topic_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum ``values`` (one per row) over each topic's rows."""
        return np.bincount(self.row_topic, weights=values, minlength=self.n_topics)

    def cumulative(self, values: np.ndarray) -> np.ndarray:
        """Running sum of ``values`` down each topic's ranking (inclusive)."""
        total = np.cumsum(values, dtype=np.float64)
        before = np.r_[0.0, total][self.ptr[:-1]]
        return total - np.repeat(before, np.diff(self.ptr))

    def relevant(self, level: int = 1) -> np.ndarray:
        """Rows judged with grade >= ``level`` (a mask over all rows)."""
        mask = np.zeros(self.n_rows, dtype=bool)
        mask[self.relevant_rows(level)] = True
        return mask

    def relevant_rows(self, level: int = 1) -> np.ndarray:
        """The rows judged with grade >= ``level`` (>= 1), in ranking order.

        Most measures only look at these few rows, not at every retrieved one.
        """
        # positions, then take: faster than a boolean mask over a million judged rows
        return np.take(self.judged_row, np.flatnonzero(self.judged_grade >= max(level, 1)))

    def judged_rows(self) -> np.ndarray:
        """The judged rows (grade >= 0), in ranking order."""
        return np.take(self.judged_row, np.flatnonzero(self.judged_grade >= 0))

    def num_rel(self, level: int = 1) -> np.ndarray:
        """Per topic, the judged documents with grade >= ``level`` (retrieved or not); made
        once per level (most measures divide by it)."""
        key = ("num_rel", level)
        if key not in self._cache:
            counts = self.judgements.count(self.judgements.grade >= level)
            counts.flags.writeable = False  # shared by the measures
            self._cache[key] = counts
        return self._cache[key]

    def num_ret(self) -> np.ndarray:
        return np.diff(self.ptr)

    def subset(self, topics: np.ndarray) -> RankedTopics:
        """The same run restricted to some topics (positions into ``topic_ids``)."""
        topics = np.asarray(topics, dtype=np.int64)
        lengths = np.diff(self.ptr)[topics]
        starts = self.ptr[:-1][topics]
        rows = expand(starts, lengths)
        new_row = np.full(self.n_rows, -1, dtype=np.int64)
        new_row[rows] = np.arange(len(rows), dtype=np.int64)
        kept = new_row[self.judged_row] >= 0
        judgements = JudgementIndex.build(self.judgements.qrels, self.topic_ids[topics],
                                          doc_key=self.judgements.doc_key)
        # each kept judgement found again among the subset's judgements
        index = PairIndex.build(judgements.topic_position, judgements.string_keys, n_groups=len(topics))
        remap = np.full(self.n_topics, -1, dtype=np.int64)
        remap[topics] = np.arange(len(topics))
        old = self.judged_entry[kept]
        entry = index.find(remap[self.judgements.topic_position[old]], _subset_keys(self.judgements.string_keys, old))
        order = np.argsort(new_row[self.judged_row[kept]], kind="stable")
        return RankedTopics(
            run_name=self.run_name,
            topic_ids=self.topic_ids[topics],
            ptr=offsets(lengths),
            documents=lambda: (self.doc[rows], self.doc_ids),  # made when asked, as this ranking's
            score=self.score[rows],
            judged_row=new_row[self.judged_row[kept]][order],
            judged_grade=self.judged_grade[kept][order],
            judged_entry=entry[order],
            judgements=judgements,
            notes=self.notes,
        )

    def subtopic_view(self, *, aggregate: str = "max", grades: np.ndarray | None = None) -> SubtopicView:
        """The subtopic judgements of the retrieved rows and of each topic (see :class:`SubtopicView`)."""
        return SubtopicView.build(self, aggregate=aggregate, grades=grades)


def rank_run(run: Run, judgements: JudgementIndex, *, order: str = "score") -> RankedTopics:
    """Rank ``run`` per topic and attach each row's judgement from ``judgements``.

    Rows of topics that are not in ``judgements.topic_ids`` are left out (the caller
    reports them). With ``doc_key="patent"``, a later publication of a patent already
    retrieved for the topic is left out and counted in :attr:`RankedTopics.notes`.
    """
    perm, places, moved = _evaluation_order(run, order=order)
    if perm is not None and places is not None:
        perm[places] = moved
        places = moved = None
    topic_ids = judgements.topic_ids
    run_topic_position = positions_in(topic_ids, run.topic_ids) if len(run.topic_ids) else np.zeros(0, np.int64)
    if (run_topic_position < 0).any():
        if places is not None:
            perm = np.arange(len(run), dtype=_row_type(len(run)))
            perm[places] = moved
            places = moved = None
        keep = run_topic_position[run.topic if perm is None else run.topic[perm]] >= 0
        perm = np.flatnonzero(keep) if perm is None else perm[keep]
    notes: list[str] = []
    if judgements.doc_key == "patent":
        # rows keyed by (topic, patent): the first publication in ranking order stands for the patent
        if places is not None:
            perm = np.arange(len(run), dtype=_row_type(len(run)))
            perm[places] = moved
            places = moved = None
        patent_rows = StringKeys.of(document_keys(run.row_doc_ids(), "patent"))
        priority = np.full(len(run), len(run), dtype=np.int64)
        priority[perm if perm is not None else slice(None)] = np.arange(len(run) if perm is None else len(perm),
                                                                        dtype=np.int64)
        index = PairIndex.build(run.topic, patent_rows, n_groups=len(run.topic_ids), priority=priority)
        repeat = index.repeated if perm is None else index.repeated[perm]
        if repeat.any():
            notes.append(f"run {run.name!r}: {int(repeat.sum())} later publication(s) of patents already "
                         "retrieved for the same topic left out (patent-level matching)")
            perm = np.flatnonzero(~repeat) if perm is None else perm[~repeat]
    else:
        index = run.pair_index()
    # each judgement looked up among the run's rows, in its topic's hash region
    run_topic_of_position = np.full(len(topic_ids), -1, dtype=np.int64)
    present = run_topic_position >= 0
    run_topic_of_position[run_topic_position[present]] = np.flatnonzero(present)
    row_of_judgement = index.find(run_topic_of_position[judgements.topic_position], judgements.string_keys)
    hit = np.flatnonzero(row_of_judgement >= 0)
    hit_row = row_of_judgement[hit]
    if judgements.doc_key != "patent" and index.repeated.any():
        # a run built in memory may list a document twice: each listing gets its judgement
        repeated = np.flatnonzero(index.repeated)
        of_first = np.full(len(run), -1, dtype=np.int64)
        of_first[hit_row] = hit
        inherited = of_first[index.first[repeated]]
        hit = np.r_[hit, inherited[inherited >= 0]]
        hit_row = np.r_[hit_row, repeated[inherited >= 0]]
    doc, score = run.doc, run.score  # ties keep their scores: fixing them moves no score
    if perm is None:
        counts_by_run_topic = np.bincount(run.topic, minlength=len(run.topic_ids))
        ranked_row = hit_row
        if places is not None and moved is not None:  # (set together)
            doc = doc.copy()
            doc[places] = run.doc[moved]
            # rows moved within tie groups: where each went
            by_row = np.argsort(moved)
            at = np.minimum(np.searchsorted(moved[by_row], hit_row), len(moved) - 1)
            was_moved = moved[by_row][at] == hit_row
            ranked_row = np.where(was_moved, places[by_row][at], hit_row)
    else:
        doc, score = doc[perm], score[perm]
        # (a permutation of every row counts as the rows do: no gather of every row's topic)
        counts_by_run_topic = np.bincount(run.topic if len(perm) == len(run) else run.topic[perm],
                                          minlength=len(run.topic_ids))
        place = np.full(len(run), -1, dtype=_row_type(len(run)))
        place[perm] = np.arange(len(perm), dtype=place.dtype)
        ranked_row = place[hit_row]
        hit, ranked_row = hit[ranked_row >= 0], ranked_row[ranked_row >= 0]
    order_of_hits = np.argsort(ranked_row, kind="stable")
    counts = np.zeros(len(topic_ids), dtype=np.int64)
    counts[run_topic_position[present]] = counts_by_run_topic[present]
    hit = hit[order_of_hits]
    return RankedTopics(
        run_name=run.name,
        topic_ids=topic_ids,
        ptr=offsets(counts),
        documents=(doc, run.doc_ids),
        score=score,
        judged_row=ranked_row[order_of_hits].astype(np.int64),
        judged_grade=judgements.grade[hit],
        judged_entry=hit,
        judgements=judgements,
        notes=tuple(run.notes) + tuple(notes),
    )


def rank_nested(run: NestedRun, judgements: JudgementIndex) -> RankedTopics:
    """:func:`rank_run` of a run of nested dicts, in score order, documents matched by id:
    the same ranking, made without converting the run's ids.

    Each topic's dict is already a hash index of its documents, so each judged document is
    looked up in it (a dict lookup per judgement, not a hash per retrieved id); its place is
    the number of documents scored higher, plus, among equal scores, those whose id comes
    after it (trec_eval's docno descending: str order is the order of UTF-8 bytes). The
    scores are sorted per topic. The rows' document ids (:attr:`RankedTopics.doc_ids`) are
    made by :func:`rank_run` of :meth:`NestedRun.to_run` when a measure or a note asks.
    """
    topic_ids = judgements.topic_ids
    judged_ptr = judgements.ptr.tolist()
    judged_docs = judgements.doc_strings.to_pylist()
    counts = np.zeros(len(topic_ids), dtype=np.int64)
    scores: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    entries: list[np.ndarray] = []
    start = 0
    missing = np.nan  # a run's score is never NaN (NestedRun.topic_scores)
    read = set()
    for t, topic in enumerate(topic_ids.tolist()):
        if topic not in run.documents:
            continue
        read.add(topic)
        ascending = run.topic_scores(topic, ascending=True)  # checked here: its dict is read once, while in cache
        docs = run.documents[topic]
        n = len(ascending)
        counts[t] = n
        scores.append(ascending[::-1])
        first, last = judged_ptr[t], judged_ptr[t + 1]
        if first == last:
            start += n
            continue
        found = np.fromiter(map(docs.get, judged_docs[first:last], repeat(missing)), dtype=np.float64,
                            count=last - first)
        absent = np.isnan(found)
        if absent.any():
            entry = np.flatnonzero(~absent)
            value = found[entry]
        else:
            entry, value = np.arange(last - first), found
        after = ascending.searchsorted(value, side="right")
        place = n - after  # documents scored higher
        if n > 1 and (ascending[1:] == ascending[:-1]).any():
            tied = np.flatnonzero(after - ascending.searchsorted(value, side="left") > 1)
            if len(tied):
                place[tied] += _ids_after_among_equal(docs, value[tied], [judged_docs[first + e] for e in entry[tied]])
        rows.append(start + place)
        entries.append(first + entry)
        start += n
    run.check(set(run.documents).difference(read))
    judged_row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    judged_entry = np.concatenate(entries) if entries else np.zeros(0, dtype=np.int64)
    by_row = np.argsort(judged_row, kind="stable")
    judged_row, judged_entry = judged_row[by_row], judged_entry[by_row]

    def documents() -> tuple[np.ndarray, pa.Array]:
        whole = rank_run(run.to_run(), judgements)
        return whole.doc, whole.doc_ids

    return RankedTopics(
        run_name=run.name,
        topic_ids=topic_ids,
        ptr=offsets(counts),
        documents=documents,
        score=np.concatenate(scores) if scores else np.zeros(0),
        judged_row=judged_row.astype(np.int64),
        judged_grade=judgements.grade[judged_entry],
        judged_entry=judged_entry,
        judgements=judgements,
        notes=run.notes,
    )


def _ids_after_among_equal(docs: Mapping[str, float], values: np.ndarray, ids: list[str]) -> np.ndarray:
    """For each (score, id), how many documents of ``docs`` have that score and an id that
    comes after it: the documents ranked before it among equal scores."""
    wanted = set(values.tolist())
    equal: dict[float, list[str]] = {}
    for docno, score in docs.items():
        if score in wanted:
            equal.setdefault(float(score), []).append(docno)
    for group in equal.values():
        group.sort()
    return np.fromiter((len(group) - bisect_right(group, docno) for group, docno in
                        zip((equal[v] for v in values.tolist()), ids, strict=True)), dtype=np.int64, count=len(ids))


@dataclass(frozen=True, eq=False)
class SubtopicView:
    """Subtopic-level judgements lined up with a ranking, for the subtopic measures.

    Subtopics are numbered globally, in (topic, subtopic id as bytes) order; topic ``t``
    owns ``subtopic_ptr[t]:subtopic_ptr[t+1]``. Several lines judging one (topic,
    subtopic, document) -- passages -- are merged into one judgement (their highest grade,
    or their sum).

    Attributes
    ----------
    subtopic_ids : ndarray of str, shape (S,)
        Each subtopic's name (unique within its topic).
    subtopic_topic : ndarray of int64, shape (S,)
    subtopic_ptr : ndarray of int64, shape (T+1,)
    pair_row, pair_subtopic, pair_grade : ndarray, shape (P,)
        One entry per (retrieved row, subtopic it is judged for), sorted by row, then
        subtopic.
    judged_topic, judged_doc, judged_subtopic, judged_grade : ndarray, shape (J,)
        Every (topic, document, subtopic) judgement of the evaluated topics, sorted by
        document, then subtopic. The document is its document-level judgement (an index
        into ``judged_docnos``), which is unique per (topic, document).
    judged_docnos : pyarrow.Array of str
        The document of each document-level judgement (``JudgementIndex.doc_strings``).
    """

    subtopic_ids: np.ndarray
    subtopic_topic: np.ndarray
    subtopic_ptr: np.ndarray
    pair_row: np.ndarray
    pair_subtopic: np.ndarray
    pair_grade: np.ndarray
    judged_topic: np.ndarray
    judged_doc: np.ndarray
    judged_subtopic: np.ndarray
    judged_grade: np.ndarray
    judged_docnos: pa.Array

    @classmethod
    def build(cls, ranked: RankedTopics, *, aggregate: str = "max", grades: np.ndarray | None = None) -> SubtopicView:
        """The view of ``ranked``; ``grades`` (one per qrels line) replaces the qrels' grades."""
        check_choice("aggregate", aggregate, ("max", "sum"))
        judgements = ranked.judgements
        qrels = judgements.qrels
        if not qrels.has("subtopic"):
            raise ValueError("these qrels have no subtopics; read them with format='subtopic' or 'dd'")
        rel = qrels.rel if grades is None else np.asarray(grades, dtype=np.int64)
        # each line's document-level judgement: the joins below are on integers only
        entry = judgements.line_entry
        name_code, names = qrels.codes("subtopic")
        lines = np.flatnonzero(entry >= 0)
        if len(lines) < len(entry):
            entry, rel, name_code = entry[lines], rel[lines], name_code[lines]
        n_entries = len(judgements.grade)
        # subtopics: one code per distinct (topic, name), numbered in (topic, name) order
        n_names = max(len(names), 1)
        name_rank = string_ranks(names)[name_code]
        pair = judgements.topic_position[entry] * n_names + name_rank
        order = stable_order(pair)
        pair_sorted = pair[order]
        new_pair = np.r_[True, pair_sorted[1:] != pair_sorted[:-1]] if len(pair) else np.zeros(0, bool)
        starts = np.flatnonzero(new_pair)
        distinct = pair_sorted[starts]
        code = np.empty(len(pair), dtype=np.int64)
        code[order] = np.cumsum(new_pair) - 1
        n_subtopics = len(distinct)
        subtopic_topic = distinct // n_names
        subtopic_ids = (names.take(pa.array(name_code[order[starts]])).to_numpy(zero_copy_only=False).astype(object)
                        if n_subtopics else np.zeros(0, object))
        # judgements by (document, subtopic): the lines of one merged by max or sum
        key = entry * max(n_subtopics, 1) + code
        by_key = stable_order(key)
        key_sorted = key[by_key]
        first = run_starts(key_sorted)
        rel_sorted = rel[by_key]
        merged = (np.maximum.reduceat(rel_sorted, first) if aggregate == "max" else np.add.reduceat(rel_sorted,
                                                                                                    first)) \
            if len(first) else rel[:0]
        judged_doc = key_sorted[first] // max(n_subtopics, 1)
        judged_subtopic = key_sorted[first] % max(n_subtopics, 1)
        judged_grade = merged.astype(np.int64)
        # rows x subtopics: each judged row takes the subtopic judgements of its document
        per_entry = np.bincount(judged_doc, minlength=n_entries)
        counts = per_entry[ranked.judged_entry]
        pair_row = np.repeat(ranked.judged_row, counts)
        pair_source = expand(starts_of(per_entry)[ranked.judged_entry], counts)
        return cls(
            subtopic_ids=subtopic_ids,
            subtopic_topic=subtopic_topic.astype(np.int64),
            subtopic_ptr=offsets(np.bincount(subtopic_topic, minlength=ranked.n_topics)),
            pair_row=pair_row,
            pair_subtopic=judged_subtopic[pair_source],
            pair_grade=judged_grade[pair_source],
            judged_topic=judgements.topic_position[judged_doc],
            judged_doc=judged_doc,
            judged_subtopic=judged_subtopic,
            judged_grade=judged_grade,
            judged_docnos=judgements.doc_strings,
        )
