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
from .source import read_bytes

__all__ = ["Pool", "read_pool", "read_run_groups", "write_pool"]


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
        out.write(f"# pateval pool: {pool.description or 'pool'}, {len(names)} runs\n# topic docno place runs\n")
        for t, d, p, who in zip(pool.topic.tolist(), pool.docno.tolist(), pool.place.tolist(), pool.contributors,
                                strict=True):
            out.write(f"{t} {d} {p} {','.join(names[r] for r in who) or '-'}\n")


def read_pool(path: str | os.PathLike[str]) -> Pool:
    """Read a pool file (see the module); topics sorted, each topic's documents by place.

    Raises
    ------
    InputFormatError
        A line without four fields, a place that is not a positive integer, a document or a
        place twice for a topic; an empty file.
    """
    text = read_bytes(path).decode("utf-8", errors="strict")
    topics: list[str] = []
    docnos: list[str] = []
    places: list[int] = []
    named: list[list[str]] = []
    seen: dict[tuple[str, str], int] = {}
    taken: dict[tuple[str, int], int] = {}
    description = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#") or not line.strip():
            if number == 1 and line.startswith("# pateval pool: "):
                description = line[len("# pateval pool: "):].rsplit(", ", 1)[0]
            continue
        fields = line.split()
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
        topics.append(topic)
        docnos.append(docno)
        places.append(place)
        named.append([] if who == "-" else who.split(","))
    if not topics:
        malformed(path, None, "the pool file has no document")
    runs = tuple(dict.fromkeys(name for names in named for name in names))
    code = {name: i for i, name in enumerate(runs)}
    order = sorted(range(len(topics)), key=lambda i: (topics[i], places[i]))
    return Pool(topic=np.asarray([topics[i] for i in order], dtype=object),
                docno=np.asarray([docnos[i] for i in order], dtype=object),
                place=np.asarray([places[i] for i in order], dtype=np.int64), runs=runs,
                contributors=tuple(tuple(code[n] for n in named[i]) for i in order), description=description,
                source=str(path))


def read_run_groups(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read ``run group`` lines (a run's team, for leave-one-group-out): ``{run: group}``.

    Raises
    ------
    InputFormatError
        A line without two fields, a run listed twice; an empty file.
    """
    text = read_bytes(path).decode("utf-8", errors="strict")
    groups: dict[str, str] = {}
    where: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2:
            malformed(path, number, "a run-groups line is: run group", expected="2 fields", found=len(fields))
        run, group = fields
        if run in groups:
            malformed(path, number, f"run {run!r} listed twice (first on line {where[run]})")
        groups[run], where[run] = group, number
    if not groups:
        malformed(path, None, "the run-groups file lists no run")
    return groups
