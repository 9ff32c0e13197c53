"""Pools from runs, and what they say about the runs: sizes, unique documents, overlap.

:func:`build_pool` turns a :class:`~pateval.pooling.strategies.JudgingOrder` over a
:class:`~pateval.pooling.stack.RunStack` into a :class:`~pateval.formats.pools.Pool`: each
topic's documents in judging order, each with the runs that contributed it (the runs that
retrieved it within the rows the order looked at: the first ``k`` for depth-k, every row
for the weighted and fused pools, the first ``depth`` for the adaptive orders).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.qrels import Qrels
from ..core.segments import place_in_segments
from ..formats.pools import Pool
from .stack import RunStack
from .strategies import JudgingOrder, Ordered

__all__ = ["PoolStatistics", "build_pool", "judged_flags", "pool_statistics", "qrels_pairs"]


def qrels_pairs(stack: RunStack, qrels: Qrels) -> np.ndarray:
    """For each row of ``qrels``, its pair in ``stack.pairs()``, or -1 (a document no run
    retrieved). The qrels' distinct ids are matched by Arrow to the stack's documents (the
    stack's ids probe a table of the qrels' few), then each row's (topic, document) code is
    found among the pairs, which are sorted by it: never a string per pair."""
    topic, doc, _ = stack.pairs()
    width = max(len(stack.doc_ids), 1)
    docnos = pa.array(np.asarray(qrels.docno, dtype=object).astype(str).tolist(), type=pa.string())
    distinct = pc.unique(docnos)
    where = pc.index_in(stack.doc_ids, value_set=distinct).fill_null(-1).to_numpy(zero_copy_only=False)
    code_of_distinct = np.full(len(distinct), -1, dtype=np.int64)  # each distinct qrels id's document code
    known = where >= 0
    code_of_distinct[where[known]] = np.flatnonzero(known)
    doc_code = code_of_distinct[pc.index_in(docnos, value_set=distinct).to_numpy(zero_copy_only=False)]
    topic_code_of = {t: i for i, t in enumerate(stack.topic_ids.astype(str).tolist())}
    topic_code = np.asarray([topic_code_of.get(t, -1) for t in np.asarray(qrels.topic, dtype=object).astype(str)
                             .tolist()], dtype=np.int64)
    found = np.full(len(doc_code), -1, dtype=np.int64)
    ok = np.flatnonzero((topic_code >= 0) & (doc_code >= 0))
    key = topic_code[ok] * width + doc_code[ok]
    pair_key = topic * width + doc  # ascending: the pairs are sorted by topic, then document code
    at = np.minimum(np.searchsorted(pair_key, key), max(len(pair_key) - 1, 0))
    hit = (pair_key[at] == key) if len(pair_key) else np.zeros(len(key), dtype=bool)
    found[ok[hit]] = at[hit]
    return found


def judged_flags(stack: RunStack, qrels: Qrels, *, level: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """For each pair of ``stack.pairs()``: whether the qrels judge it relevant (grade >=
    ``level``), and whether they judge it at all (grade >= 0); subtopic qrels: the best grade."""
    topic, _, _ = stack.pairs()
    row_pair = qrels_pairs(stack, qrels)
    grade = np.full(len(topic), -1, dtype=np.int64)
    matched = row_pair >= 0
    np.maximum.at(grade, row_pair[matched], qrels.rel[matched])
    return grade >= level, grade >= 0


def build_pool(stack: RunStack, order: JudgingOrder, *, budget: int | None = None,
               relevant: np.ndarray | None = None, description: str = "") -> Pool:
    """The pool ``order`` gives (each topic's first ``budget`` documents; None: all)."""
    ordered: Ordered = order.order(stack, relevant, budget)
    topic, doc, inverse = stack.pairs()
    pair = ordered.pair
    counts = np.diff(ordered.ptr)
    entry_of_pair = np.full(len(topic), -1, dtype=np.int64)
    entry_of_pair[pair] = np.arange(len(pair))
    rows = np.flatnonzero(ordered.considered & (entry_of_pair[inverse] >= 0))
    entry = entry_of_pair[inverse[rows]]
    by_entry = np.lexsort((stack.run[rows], entry))
    run_sorted = stack.run[rows][by_entry].tolist()
    bounds = np.searchsorted(entry[by_entry], np.arange(len(pair) + 1)).tolist()
    contributors = tuple(tuple(run_sorted[bounds[i]:bounds[i + 1]]) for i in range(len(pair)))
    return Pool(topic=stack.topic_ids[topic[pair]], docno=stack.docnos(doc[pair]),
                place=place_in_segments(counts, first=1), runs=stack.names, contributors=contributors,
                description=description or order.name)


@dataclass(frozen=True)
class PoolStatistics:
    """What a pool says about its runs.

    ``sizes``: pooled documents per topic; ``unique``: per run, the pooled documents (over all
    topics) it alone contributed; ``contributed``: per run, the pooled documents it
    contributed; ``overlap``: ``overlap[i][j]``, the pooled documents runs ``i`` and ``j``
    both contributed (the diagonal: ``contributed``).
    """

    runs: tuple[str, ...]
    sizes: dict[str, int]
    contributed: dict[str, int]
    unique: dict[str, int]
    overlap: np.ndarray

    def text(self) -> str:
        """A plain-text summary: sizes per topic; per run the documents contributed and alone
        contributed; the overlap matrix (documents both runs contributed)."""
        sizes = ["topic\tpooled", *(f"{t}\t{n}" for t, n in self.sizes.items()), f"all\t{sum(self.sizes.values())}"]
        runs = ["run\tcontributed\tunique", *(f"{r}\t{self.contributed[r]}\t{self.unique[r]}" for r in self.runs)]
        overlap = ["overlap\t" + "\t".join(self.runs),  # pooled documents both runs contributed
                   *(f"{r}\t" + "\t".join(str(int(v)) for v in row)
                     for r, row in zip(self.runs, self.overlap, strict=True))]
        return "\n\n".join("\n".join(table) for table in (sizes, runs, overlap)) + "\n"


def pool_statistics(pool: Pool) -> PoolStatistics:
    """Pool size per topic, documents each run contributed and alone contributed, overlap."""
    n = len(pool.runs)
    member = np.zeros((len(pool), n), dtype=bool)
    for i, who in enumerate(pool.contributors):
        member[i, list(who)] = True
    alone = member.sum(axis=1) == 1
    contributed = member.sum(axis=0)
    unique = member[alone].sum(axis=0)
    m = member.astype(np.int64)
    return PoolStatistics(pool.runs, pool.sizes(), dict(zip(pool.runs, contributed.tolist(), strict=True)),
                          dict(zip(pool.runs, unique.tolist(), strict=True)), m.T @ m)
