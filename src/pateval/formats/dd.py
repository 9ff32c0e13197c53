"""TREC Dynamic Domain run files: a session of iterations per topic.

Two layouts are read (``format="auto"`` tells them apart by the first line):

``jig`` (TREC DD 2016-2017, written by the track's jig ``jig/jig.py``), tab-separated::

    topic  iteration  docno  score  [on_topic  [subtopic:rating|subtopic:rating...]]

    DD16-1  0  ebola-45b78e...  833.00  1  DD16-1.1:2|DD16-1.2:3

Iterations count from 0; the jig's scorer (``scorer/reader.py``) orders the documents of
an iteration by score, descending, ties in file order.

``harness2015`` (TREC DD 2015 harness), tab-separated, a ``#`` header line::

    team_id  system_id  batch_num  rank  topic_id  stream_id  confidence  on_topic  subtopics

Batches count from 1 and are read as iterations ``batch_num - 1``; documents of a batch
are ordered by the rank column.

:func:`read_dd_run` gives a :class:`pateval.core.run.Run` whose rank column is the order of
examination (iteration by iteration), so ``order="rank"`` evaluates the session as the jig
does, together with the iteration of every (topic, document) as a :class:`DDIterations`,
the ``iterations`` resource of ``CT(compat=trec-dd)`` and ``ACT(compat=trec-dd)``. On the
command line, ``--iterations RUNFILE`` reads that resource from the same DD run file.

A document returned twice for one topic (in two iterations) is an error, or with
``on_duplicate="first"`` its later lines are dropped. (The jig instead keeps a repeat as an
examined non-relevant document, which changes ACT's number of documents; such runs are
reproduced only when they have no repeats.)
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.run import Run
from ..errors import ParameterError, malformed
from ..validation import check_choice
from .lines import iter_fields, parse_float, parse_int, read_bytes

__all__ = ["DD_RUN_FORMATS", "DDIterations", "DDRun", "read_dd_run", "read_dd_iterations", "as_dd_iterations"]

DD_RUN_FORMATS = ("auto", "jig", "harness2015")

_LAYOUT = {
    "jig": "4 to 6 tab-separated columns: topic iteration docno score [on_topic [subtopic:rating|...]]",
    "harness2015": "9 tab-separated columns: team_id system_id batch_num rank topic_id stream_id confidence on_topic subtopics",
}


@dataclass(frozen=True, eq=False)
class DDIterations:
    """The iteration (0-based) in which each (topic, document) was returned.

    Attributes
    ----------
    topic, docno : ndarray of str
    iteration : ndarray of int64
    source : str
    """

    topic: np.ndarray
    docno: np.ndarray
    iteration: np.ndarray
    source: str = "<memory>"
    # set by read_dd_run: the run's own document ids and codes, so that rankings of that
    # run are matched by integers instead of by strings
    run_doc_ids: object = None
    doc_code: np.ndarray | None = None
    topic_code: np.ndarray | None = None
    topic_values: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.topic)

    def lookup_ranked(self, ranked) -> np.ndarray:
        """The iteration of every row of a :class:`pateval.core.ranking.RankedTopics` (-1: none)."""
        if self.topic_code is None or getattr(ranked, "doc_ids", None) is not self.run_doc_ids:
            return self.lookup(ranked.topic_ids[ranked.row_topic], ranked.docno)
        if len(ranked.row_topic) == 0 or len(self.iteration) == 0:
            return np.full(len(ranked.row_topic), -1, dtype=np.int64)
        topic_codes, topic_values = self.topic_code, self.topic_values
        ranked_topic_code = pd.Index(topic_values).get_indexer(np.asarray(ranked.topic_ids, dtype=object))
        width = int(self.doc_code.max()) + 1
        listed, first = np.unique(topic_codes.astype(np.int64) * width + self.doc_code, return_index=True)
        row_code = ranked_topic_code[ranked.row_topic]
        key = row_code * width + np.asarray(ranked.doc, dtype=np.int64)
        at = np.minimum(np.searchsorted(listed, key), len(listed) - 1)
        return np.where((row_code >= 0) & (listed[at] == key), self.iteration[first[at]], -1).astype(np.int64)

    def lookup(self, topics: np.ndarray, docnos: np.ndarray) -> np.ndarray:
        """The iteration of each (topic, docno) pair given, or -1 where none is listed."""
        n = len(topics)
        if n == 0 or len(self.iteration) == 0:
            return np.full(n, -1, dtype=np.int64)
        # code both sides' ids together, then match integer pairs
        topic_codes, topic_values = pd.factorize(np.concatenate([np.asarray(topics, dtype=object), self.topic]))
        doc_codes, doc_values = pd.factorize(np.concatenate([np.asarray(docnos, dtype=object), self.docno]))
        key = topic_codes.astype(np.int64) * len(doc_values) + doc_codes
        listed, first = np.unique(key[n:], return_index=True)  # a pair listed twice: its first line
        at = np.minimum(np.searchsorted(listed, key[:n]), len(listed) - 1)
        return np.where(listed[at] == key[:n], self.iteration[first[at]], -1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class DDRun:
    """A DD run read: the documents in order of examination, and their iterations."""

    run: Run
    iterations: DDIterations


def _detect(path, rows) -> str:
    line, fields = rows[0]
    if fields[0].startswith("#") or len(fields) == 9:
        return "harness2015"
    if 4 <= len(fields) <= 6:
        return "jig"
    malformed(path, line, "not a TREC DD run line", expected=_LAYOUT["jig"] + "; or " + _LAYOUT["harness2015"], found=len(fields))


def read_dd_run(path: str | os.PathLike[str], *, format: str = "auto", on_duplicate: str = "error",
                name: str | None = None) -> DDRun:
    """Read a TREC DD run file (see the module notes for the layouts).

    Parameters
    ----------
    path : path-like
    format : {"auto", "jig", "harness2015"}
    on_duplicate : {"error", "first"}
        A document returned twice for a topic is an error, or its later lines are dropped.
    name : str, optional
        The run's name; by default the system id (2015) or the file name without extension.

    Returns
    -------
    DDRun
        ``run.rank`` is each document's place in the session (iteration, then score
        descending with ties in file order, or the 2015 rank column); evaluate with
        ``order="rank"``.

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    >>> _ = f.write("DD17-1\\t0\\tdA\\t2.0\\t1\\tDD17-1.1:2\\nDD17-1\\t0\\tdC\\t1.0\\t0\\n"
    ...             "DD17-1\\t1\\tdB\\t9.0\\t1\\tDD17-1.1:3\\n"); f.close()
    >>> dd = read_dd_run(f.name)
    >>> list(dd.run.docnos), dd.run.rank.tolist(), dd.iterations.iteration.tolist()
    (['dA', 'dC', 'dB'], [1, 2, 3], [0, 0, 1])
    >>> os.unlink(f.name)
    """
    check_choice("format", format, DD_RUN_FORMATS)
    check_choice("on_duplicate", on_duplicate, ("error", "first"))
    path = Path(path)
    data = read_bytes(path)
    if format in ("auto", "jig") and not data.lstrip().startswith(b"#"):
        fast = _read_jig_fast(path, data, on_duplicate, name)
        if fast is not None:
            return fast
    rows = list(iter_fields(path, data, separator="\t"))
    if not rows:
        malformed(path, None, "the file is empty")
    if format == "auto":
        format = _detect(path, rows)
    topics: list[str] = []
    docnos: list[str] = []
    iterations: list[int] = []
    scores: list[float] = []
    given_ranks: list[int] = []
    seen: dict[tuple[str, str], int] = {}
    system = None
    dropped = 0
    for line, fields in rows:
        fields = [f.strip() for f in fields]
        if format == "harness2015":
            if fields[0].startswith("#"):
                continue
            if len(fields) < 7:
                malformed(path, line, "wrong number of columns for a DD 2015 run", expected=_LAYOUT[format], found=len(fields))
            system = system or fields[1]
            batch = parse_int(path, line, fields[2], "the batch number (3rd column)")
            if batch < 1:
                malformed(path, line, "a batch number below 1", expected="batches numbered from 1", found=fields[2])
            iteration = batch - 1
            rank = parse_int(path, line, fields[3], "the rank (4th column)")
            topic, docno = fields[4], fields[5]
            score = parse_float(path, line, fields[6], "the confidence (7th column)")
        else:
            if not 4 <= len(fields) <= 6:
                malformed(path, line, "wrong number of columns for a DD run", expected=_LAYOUT[format], found=len(fields))
            topic, docno = fields[0], fields[2]
            iteration = parse_int(path, line, fields[1], "the iteration (2nd column)")
            if iteration < 0:
                malformed(path, line, "a negative iteration", expected="iterations numbered from 0", found=fields[1])
            score = parse_float(path, line, fields[3], "the score (4th column)")
            if score != score:
                malformed(path, line, "the score is NaN", expected="a number", found=fields[3])
            rank = 0
        if not topic or not docno:
            malformed(path, line, "an empty topic or document id", expected=_LAYOUT[format], found="\t".join(fields))
        first = seen.setdefault((topic, docno), line)
        if first != line:
            if on_duplicate == "error":
                malformed(path, line, f"document {docno!r} returned twice for topic {topic!r} (first on line {first}); "
                          "use on_duplicate='first' to keep the first")
            dropped += 1
            continue
        topics.append(topic)
        docnos.append(docno)
        iterations.append(iteration)
        scores.append(score)
        given_ranks.append(rank)
    if not topics:
        malformed(path, None, "no run lines")
    # the order of examination: the jig sorts an iteration by score (stable); 2015 has ranks
    within = np.asarray(given_ranks, dtype=np.float64) if format == "harness2015" else -np.asarray(scores, dtype=np.float64)
    notes = (f"{path}: {dropped} repeated document line(s) dropped (kept the first)",) if dropped else ()
    return _assemble(path, np.asarray(topics, dtype=object), np.asarray(docnos, dtype=object),
                     np.asarray(iterations, dtype=np.int64), np.asarray(scores, dtype=np.float64), within,
                     name or system or path.stem, notes)


def _assemble(path: Path, topics: np.ndarray, docnos: np.ndarray, iterations: np.ndarray, scores: np.ndarray,
              within: np.ndarray, run_name: str, notes: tuple[str, ...]) -> DDRun:
    """The Run (rank = place in the session) and the iterations, from the kept lines in file order."""
    topic_codes, topic_ids = pd.factorize(topics, sort=True)
    doc_codes, vocabulary = pd.factorize(docnos)
    n = len(topics)
    order = np.lexsort((np.arange(n), within, iterations, topic_codes))
    counts = np.bincount(topic_codes, minlength=len(topic_ids))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(n, dtype=np.int64) - np.repeat(starts, counts) + 1
    # name, topic ids, topic codes, document ids, document codes, scores, ranks
    run = Run(run_name, np.asarray(topic_ids, dtype=object), topic_codes.astype(np.int32),
              np.asarray(vocabulary, dtype=object), doc_codes.astype(np.int32), scores, place,
              source=str(path), notes=notes)
    return DDRun(run=run, iterations=DDIterations(topic=topics, docno=docnos, iteration=iterations, source=str(path),
                                                  run_doc_ids=run.doc_ids, doc_code=doc_codes.astype(np.int64),
                                                  topic_code=topic_codes.astype(np.int64),
                                                  topic_values=np.asarray(topic_ids, dtype=object)))


def _read_jig_fast(path: Path, data: bytes, on_duplicate: str, name: str | None) -> DDRun | None:
    """Vectorised reading of a regular jig run file; None sends it to the careful reader,
    which finds and words any problem."""
    if b"\r" in data or b" " in data:
        return None
    try:
        frame = pd.read_csv(io.BytesIO(data), sep="\t", header=None, names=range(7),
                            dtype={0: object, 1: np.int64, 2: object, 3: np.float64, 4: object, 5: object, 6: object},
                            keep_default_na=False, na_values=[""], quoting=csv.QUOTE_NONE, engine="c")
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError, UnicodeDecodeError):
        return None
    if frame.empty or frame[6].notna().any() or frame[[0, 2]].isna().to_numpy().any():
        return None
    scores = frame[3].to_numpy(dtype=np.float64)
    iterations = frame[1].to_numpy(dtype=np.int64)
    if np.isnan(scores).any() or (iterations < 0).any():
        return None
    topics = frame[0].to_numpy(dtype=object)
    docnos = frame[2].to_numpy(dtype=object)
    topic_codes = pd.factorize(topics)[0].astype(np.int64)
    doc_codes, vocabulary = pd.factorize(docnos)
    repeated = pd.Series(topic_codes * max(len(vocabulary), 1) + doc_codes, copy=False).duplicated().to_numpy()
    notes: tuple[str, ...] = ()
    if repeated.any():
        if on_duplicate == "error":
            return None
        keep = ~repeated
        topics, docnos, iterations, scores = topics[keep], docnos[keep], iterations[keep], scores[keep]
        notes = (f"{path}: {int(repeated.sum())} repeated document line(s) dropped (kept the first)",)
    return _assemble(path, topics, docnos, iterations, scores, -scores, name or path.stem, notes)


def read_dd_iterations(path: str | os.PathLike[str]) -> DDIterations:
    """The ``iterations`` resource: each document's iteration, from a DD run file."""
    return read_dd_run(path, on_duplicate="first").iterations


def as_dd_iterations(value) -> DDIterations:
    """Accept a :class:`DDIterations`, a :class:`DDRun`, a path, or ``{topic: {docno: iteration}}``."""
    if isinstance(value, DDIterations):
        return value
    if isinstance(value, DDRun):
        return value.iterations
    if isinstance(value, (str, os.PathLike)):
        return read_dd_iterations(value)
    if isinstance(value, Mapping):
        rows = [(str(t), str(d), i) for t, docs in value.items() for d, i in docs.items()]
        its = np.asarray([r[2] for r in rows], dtype=np.int64)
        if len(its) and its.min() < 0:
            raise ParameterError("iterations are numbered from 0")
        return DDIterations(np.asarray([r[0] for r in rows], dtype=object),
                            np.asarray([r[1] for r in rows], dtype=object), its)
    raise ParameterError(f"iterations must be a DD run file, a DDIterations or {{topic: {{docno: iteration}}}}; "
                         f"got {type(value).__name__}")
