"""Judgements in groups: trec_eval's preference files (``-R prefs``, ``-R qrels_prefs``) and
qrels with judgement groups (``-R qrels_jg``).

A judgement group (JG) is one user's judgements of a topic at one time; different groups may
disagree. Three layouts, whitespace-separated, ``#`` comments skipped:

``prefs``
    ``qid jg jsg docno rel_level`` -- within a judgement sub-group (JSG), a document with a
    higher ``rel_level`` is preferred to one with a lower level; the sub-groups of a group
    state a partial order, closed under transitivity by the measures. ``rel_level`` is a
    number >= 0; 0 means non-relevant, and a document is never 0 in one sub-group of a
    group and above 0 in another.
``qrels_prefs``
    a qrels file read as preferences: ``qid jg docno rel_level``, the ``iter`` column being
    the group, every group one sub-group. Levels may be negative (trec_eval orders them
    below 0).
``qrels_jg``
    a qrels file whose ``iter`` column names the group: ``qid jg docno rel``, ``rel`` an
    integer (negative: pooled but unjudged), a document judged once per group.

A document listed twice in one sub-group (once per group in the qrels layouts) is refused:
trec_eval would count its preferences twice or stop.

Reference: trec_eval 10.0, get_prefs.c, get_qrels_prefs.c, get_qrels_jg.c.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..core.qrels import Qrels
from ..core.segments import run_starts
from ..errors import malformed
from .resources import column_lines
from .source import parse_float, parse_int

__all__ = ["GroupJudgements", "read_prefs", "read_qrels_prefs", "read_qrels_jg"]


@dataclass(frozen=True, eq=False)
class GroupJudgements:
    """Judgements in groups as aligned arrays, one row per line read.

    Attributes
    ----------
    topic, group, subgroup, docno : ndarray of str
        The qrels layouts have one sub-group per group (``"0"``).
    level : ndarray of float64
        The relevance level (the grade for ``qrels_jg``).
    source : str
    """

    topic: np.ndarray
    group: np.ndarray
    subgroup: np.ndarray
    docno: np.ndarray
    level: np.ndarray
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.topic)

    def qrels(self) -> Qrels:
        """The topics and documents judged, one row per (topic, document): the highest level
        in any group, as an integer grade (negative: in no group judged). What decides which
        topics are evaluated, and which documents are judged (trec_eval -J)."""
        order = np.lexsort((self.docno.astype(str), self.topic.astype(str)))
        topic, docno, level = self.topic[order], self.docno[order], self.level[order]
        starts = run_starts(topic, docno)
        best = np.maximum.reduceat(level, starts) if len(starts) else level
        grade = np.where(best >= 0, np.floor(best), -1).astype(np.int64)
        return Qrels(topic=topic[starts], docno=docno[starts], rel=grade, format="memory", source=self.source)


def read_prefs(path: str | os.PathLike[str]) -> GroupJudgements:
    """Read a trec_eval preferences file (``qid jg jsg docno rel_level`` lines).

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", delete=False)
    >>> _ = f.write("q1 user1 a d1 2\\nq1 user1 a d2 0\\n"); f.close()
    >>> prefs = read_prefs(f.name)
    >>> prefs.group.tolist(), prefs.level.tolist()
    (['user1', 'user1'], [2.0, 0.0])
    >>> os.unlink(f.name)
    """
    return _read(path, layout="prefs")


def read_qrels_prefs(path: str | os.PathLike[str]) -> GroupJudgements:
    """Read a qrels file as preferences (``qid jg docno rel_level``; trec_eval -R qrels_prefs)."""
    return _read(path, layout="qrels_prefs")


def read_qrels_jg(path: str | os.PathLike[str]) -> GroupJudgements:
    """Read qrels with judgement groups (``qid jg docno rel``; trec_eval -R qrels_jg)."""
    return _read(path, layout="qrels_jg")


_COLUMNS = {"prefs": "qid jg jsg docno rel_level", "qrels_prefs": "qid jg docno rel_level",
            "qrels_jg": "qid jg docno rel"}


def _read(path: str | os.PathLike[str], *, layout: str) -> GroupJudgements:
    width = 5 if layout == "prefs" else 4
    rows: list[tuple[str, str, str, str, float]] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    zero_or_not: dict[tuple[str, str, str], tuple[bool, int]] = {}  # prefs: (topic, jg, docno) -> (level > 0, line)
    for line, fields in column_lines(path, _COLUMNS[layout]):
        if layout == "prefs":
            topic, group, subgroup, docno, text = fields
        else:
            (topic, group, docno, text), subgroup = fields, "0"
        if layout == "qrels_jg":
            level = float(parse_int(path, line, text, "the relevance (4th column)"))
        else:
            level = parse_float(path, line, text, f"the relevance level ({width}th column)")
        if layout == "prefs" and level < 0:
            malformed(path, line, "a negative relevance level", expected="a number >= 0", found=text)
        key = (topic, group, subgroup, docno)
        if key in seen:
            where = f"sub-group {subgroup!r} of " if layout == "prefs" else ""
            malformed(path, line, f"document {docno!r} is judged twice in {where}judgement group {group!r} of "
                      f"topic {topic!r} (first on line {seen[key]})")
        seen[key] = line
        if layout == "prefs":
            relevant = level > 0
            other = zero_or_not.setdefault((topic, group, docno), (relevant, line))
            if other[0] != relevant:
                malformed(path, line, f"document {docno!r} is non-relevant (0) in one sub-group of judgement group "
                          f"{group!r} of topic {topic!r} and relevant in another (line {other[1]})")
        rows.append((topic, group, subgroup, docno, level))
    topics, groups, subgroups, docnos, levels = zip(*rows, strict=True) if rows else ((),) * 5
    return GroupJudgements(topic=np.asarray(topics, dtype=object), group=np.asarray(groups, dtype=object),
                           subgroup=np.asarray(subgroups, dtype=object), docno=np.asarray(docnos, dtype=object),
                           level=np.asarray(levels, dtype=np.float64), source=str(path))
