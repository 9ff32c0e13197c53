"""Pool files: the documents to judge per topic, in judging order, with the runs that gave them.

One line per pooled document, white-space separated::

    # pateval pool: depth k=10, 3 runs
    # topic docno place runs
    401 FT911-3 1 runA,runB
    401 LA0101-7 2 runC

``place`` is the document's 1-based place in its topic's judging order; ``runs`` the
comma-separated names of the runs that contributed it (``-``: none, a document added by
hand). Lines starting with ``#`` are comments. A document twice for a topic, or a place
twice, is refused with its line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import malformed
from .atomic import atomic_output
from .source import iter_fields, read_bytes

__all__ = ["Pool", "Sample", "is_sample_data", "read_pool", "read_run_groups", "read_sampled_qrels", "write_pool",
           "write_sample"]


_POOL_HEADER = "# pateval pool: "  # the first line of a pool file: how it was made

@dataclass(frozen=True, eq=False)
class Pool:
    """A pool: per topic, documents in judging order.

    Attributes
    ----------
    topic, docno : ndarray of str, shape (P,)
        Each pooled document and its topic; topics sorted, each topic's documents by place.
    place : ndarray of int64, shape (P,)
        The 1-based place in its topic's judging order.
    runs : tuple of str
        The names of the runs the pool was made from.
    contributors : tuple of tuple of int, length P
        For each document, the runs (indexes into ``runs``) that contributed it.
    description : str
        How the pool was made (written in the file's first line).
    """

    topic: np.ndarray
    docno: np.ndarray
    place: np.ndarray
    runs: tuple[str, ...]
    contributors: tuple[tuple[int, ...], ...]
    description: str = ""
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.docno)

    def topic_ids(self) -> np.ndarray:
        """The pool's topics, sorted."""
        return np.asarray(sorted(set(self.topic.tolist())), dtype=object)

    def sizes(self) -> dict[str, int]:
        """Pooled documents per topic."""
        topics, counts = np.unique(self.topic.astype(str), return_counts=True)
        return dict(zip(topics.tolist(), counts.tolist(), strict=True))


def write_pool(pool: Pool, path: str | os.PathLike[str]) -> None:
    """Write ``pool`` (see the module for the format), whole or not at all."""
    names = pool.runs
    with atomic_output(path) as out:
        out.write(f"{_POOL_HEADER}{pool.description or 'pool'}, {len(names)} runs\n# topic docno place runs\n")
        for t, d, p, who in zip(pool.topic.tolist(), pool.docno.tolist(), pool.place.tolist(), pool.contributors,
                                strict=True):
            out.write(f"{t} {d} {p} {','.join(names[r] for r in who) or '-'}\n")


def read_pool(path: str | os.PathLike[str], data: bytes | None = None) -> Pool:
    """Read a pool file (see the module); topics sorted, each topic's documents by place
    (``data``: its content, when already read).

    Raises
    ------
    InputFormatError
        A line without four fields, a place that is not a positive integer, a document or a
        place twice for a topic; an empty file.
    """
    data = read_bytes(path) if data is None else data
    rows: list[tuple[str, int, str, list[str]]] = []  # topic, place, docno, the runs named
    seen: dict[tuple[str, str], int] = {}
    taken: dict[tuple[str, int], int] = {}
    head = data.split(b"\n", 1)[0].decode("utf-8", errors="replace")  # iter_fields skips it as a comment
    description = head[len(_POOL_HEADER):].rsplit(", ", 1)[0] if head.startswith(_POOL_HEADER) else ""
    for number, fields in iter_fields(path, data):
        if len(fields) != 4:
            malformed(path, number, "a pool line is: topic docno place runs", expected="4 fields", found=len(fields))
        topic, docno, place_text, who = fields
        if not place_text.isdigit() or int(place_text) < 1:
            malformed(path, number, "the place (3rd field) must be a positive integer", found=place_text)
        place = int(place_text)
        if (topic, docno) in seen:
            malformed(path, number, f"document {docno!r} pooled twice for topic {topic!r} "
                      f"(first on line {seen[topic, docno]})")
        if (topic, place) in taken:
            malformed(path, number, f"place {place} taken twice for topic {topic!r} "
                      f"(first on line {taken[topic, place]})")
        seen[topic, docno] = taken[topic, place] = number
        rows.append((topic, place, docno, [] if who == "-" else who.split(",")))
    if not rows:
        malformed(path, None, "the pool file has no document")
    runs = tuple(dict.fromkeys(name for *_, names in rows for name in names))  # in file order
    code = {name: i for i, name in enumerate(runs)}
    rows.sort(key=lambda row: row[:2])  # (topic, place) is never twice
    topics, places, docnos, named = zip(*rows, strict=True)
    return Pool(topic=np.asarray(topics, dtype=object), docno=np.asarray(docnos, dtype=object),
                place=np.asarray(places, dtype=np.int64), runs=runs,
                contributors=tuple(tuple(code[n] for n in names) for names in named), description=description,
                source=str(path))


def read_run_groups(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read ``run group`` lines (a run's team, for leave-one-group-out): ``{run: group}``.

    Raises
    ------
    InputFormatError
        A line without two fields, a run listed twice; an empty file.
    """
    groups: dict[str, str] = {}
    where: dict[str, int] = {}
    for number, fields in iter_fields(path):
        if len(fields) != 2:
            malformed(path, number, "a run-groups line is: run group", expected="2 fields", found=len(fields))
        run, group = fields
        if run in groups:
            malformed(path, number, f"run {run!r} listed twice (first on line {where[run]})")
        groups[run], where[run] = group, number
    if not groups:
        malformed(path, None, "the run-groups file lists no run")
    return groups


@dataclass(frozen=True, eq=False)
class Sample:
    """A stratified sample of a pool: every pooled document with its stratum, its inclusion
    probability (the stratum's sampling rate as drawn: sampled / pooled) and whether it was
    drawn; with ``grade`` (judgements, -1 where not drawn) it is a set of sampled qrels."""

    topic: np.ndarray
    docno: np.ndarray
    stratum: np.ndarray
    probability: np.ndarray
    sampled: np.ndarray
    grade: np.ndarray | None = None
    source: str = "<memory>"


def write_sample(sample: Sample, path: str | os.PathLike[str]) -> None:
    """Write ``sample``: with grades, as sample_eval.pl's qrels (``topic 0 docno stratum grade``,
    grade -1 for a pooled document not drawn); without, as ``topic docno stratum probability
    sampled`` lines (the documents to judge are those with sampled 1). Whole or not at all."""
    with atomic_output(path) as out:
        if sample.grade is not None:
            out.writelines(f"{t} 0 {d} {s} {g}\n" for t, d, s, g in zip(
                sample.topic.tolist(), sample.docno.tolist(), sample.stratum.tolist(), sample.grade.tolist(),
                strict=True))
            return
        out.write(SAMPLE_HEADER + "\n")
        out.writelines(f"{t} {d} {s} {p!r} {int(x)}\n" for t, d, s, p, x in zip(
            sample.topic.tolist(), sample.docno.tolist(), sample.stratum.tolist(), sample.probability.tolist(),
            sample.sampled.tolist(), strict=True))


SAMPLE_HEADER = "# topic docno stratum probability sampled"


def is_sample_data(data: bytes) -> bool:
    """Whether a file's content is a sample (:func:`write_sample` without grades: its first
    line is :data:`SAMPLE_HEADER`)."""
    return data.split(b"\n", 1)[0].strip() == SAMPLE_HEADER.encode()


def read_sampled_qrels(path: str | os.PathLike[str], data: bytes | None = None) -> Sample:
    """Read sample_eval.pl's sampled qrels (``topic iteration docno stratum grade``; grade -1:
    pooled but not drawn), or a sample (first line :data:`SAMPLE_HEADER`, then ``topic docno
    stratum probability sampled`` lines, see :func:`write_sample`).

    In sampled qrels, a stratum's inclusion probability is what was drawn of it (grade >= 0)
    over its documents; a sample's own probabilities must lie in (0, 1]. ``data``: the
    file's content, when already read.

    Raises
    ------
    InputFormatError
        A line without five fields (a sample's probability missing), a grade or flag that is
        not an integer, a probability outside (0, 1], a document twice for a topic, no document.
    """
    data = read_bytes(path) if data is None else data
    is_sample = is_sample_data(data)  # a comment to iter_fields
    what = ("a sample line is: topic docno stratum probability sampled" if is_sample
            else "a sampled qrels line is: topic iteration docno stratum grade")
    rows: list[tuple[str, str, str, float, int, int]] = []
    seen: dict[tuple[str, str], int] = {}
    for number, fields in iter_fields(path, data):
        if len(fields) != 5:
            malformed(path, number, what + ("; the inclusion probability is missing" if is_sample and len(fields) == 4
                                            else ""), expected="5 fields", found=len(fields))
        if is_sample:
            topic, docno, stratum, p_text, flag = fields
            try:
                probability = float(p_text)
            except ValueError:
                malformed(path, number, "the inclusion probability (4th field) is not a number", found=p_text)
            if not 0 < probability <= 1:
                malformed(path, number, "the inclusion probability (4th field) must lie in (0, 1]", found=p_text)
            if flag not in ("0", "1"):
                malformed(path, number, "the sampled flag (5th field) must be 0 or 1", found=flag)
            grade, drawn = -1, int(flag)
        else:
            topic, _, docno, stratum, grade_text = fields
            if not grade_text.lstrip("+-").isdigit():
                malformed(path, number, "the grade (5th field) is not an integer", found=grade_text)
            grade, probability = int(grade_text), float("nan")
            drawn = int(grade >= 0)
        if (topic, docno) in seen:
            malformed(path, number, f"document {docno!r} twice for topic {topic!r} "
                      f"(first on line {seen[topic, docno]})")
        seen[topic, docno] = number
        rows.append((topic, docno, stratum, probability, drawn, grade))
    if not rows:
        malformed(path, None, "the file lists no document")
    columns = list(zip(*rows, strict=True))
    topics = np.asarray(columns[0], dtype=object)
    docnos = np.asarray(columns[1], dtype=object)
    strata = np.asarray(columns[2], dtype=object)
    chances = np.asarray(columns[3], dtype=np.float64)
    sampled = np.asarray(columns[4], dtype=bool)
    grades = np.asarray(columns[5], dtype=np.int64)
    if not is_sample:  # a stratum's probability: what was drawn of it
        key = np.char.add(np.char.add(topics.astype(str), "\x00"), strata.astype(str))
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        chances = (np.bincount(inverse, weights=sampled) / counts)[inverse]
    return Sample(topic=topics, docno=docnos, stratum=strata, probability=chances, sampled=sampled,
                  grade=None if is_sample else grades, source=str(path))
