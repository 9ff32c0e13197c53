"""Checking and repairing CLEF-IP passage-run submissions, as the organisers did.

Before scoring the 2012/2013 passage runs the CLEF-IP organisers cleaned every submission:
"we did a clean-up of the submissions by checking that the data follows the required
format, that no duplicates occur, and that the retrieval results for one topic were not
scattered in the submission file [...]. We also removed all XPaths referring to headings"
(Piroi et al., CLEF-IP 2013 overview). :func:`check_passage_run` finds, with the line of
each, every defect of these classes:

=====================  ==========================================================  ==============
kind                   what                                                        ``--fix``
=====================  ==========================================================  ==============
format                 not 6 columns, 2nd column not Q0, XPath, rank or score       line removed
                       malformed
duplicate              a passage (topic, document, normalised XPath) seen before    line removed
heading                an XPath to a description heading (by its element name, or   line removed
                       by the store's ``is_heading``)
unknown-topic          a topic not in the topics file (``--topics``)                line removed
unknown-xpath          an XPath the document does not have (``--store``)            line removed
too-many-documents     a document beyond the 100th of its topic (first occurrence   line removed
                       in passage-rank order, as the evaluation ranks documents)
scattered              a topic's lines resume after another topic's                 lines moved
unknown-document       a document not in the corpus store (XPaths not checkable)    note only
missing-topic          a topic of the topics file without any line                  note only
file-name              the file is not named ``participantID-runID-PSG.ext``         note only
=====================  ==========================================================  ==============

:func:`fix_passage_run` writes the cleaned run (each topic's lines together, at the
place of its first line, in their original order) and a log with one line per change.
Abstract XPaths are checked against the number of abstracts of a document only: the
store keeps one text per abstract, not its paragraphs.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from .errors import ParameterError
from .formats.atomic import atomic_output
from .formats.passages import (
    RUN_LAYOUT,
    is_heading_xpath,
    normalise_xpath,
    parse_run_line,
    read_passage_topics,
    run_id_from_file_name,
)
from .formats.source import read_bytes

__all__ = ["Finding", "CheckReport", "check_passage_run", "fix_passage_run", "FIXED_BY_REMOVAL", "NOTES"]

FIXED_BY_REMOVAL = ("format", "duplicate", "heading", "unknown-topic", "unknown-xpath", "too-many-documents")
NOTES = ("unknown-document", "missing-topic", "file-name")


@dataclass(frozen=True)
class Finding:
    """One defect: its 1-based line (None for the whole file), kind and explanation."""

    line: int | None
    kind: str
    message: str

    @property
    def fixable(self) -> bool:
        return self.kind not in NOTES

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else "file"
        return f"{where}\t{self.kind}\t{self.message}"


@dataclass
class CheckReport:
    """What :func:`check_passage_run` found, and what a fix keeps.

    Attributes
    ----------
    path : Path
    run_id : str or None
        ``participantID-runID`` from the file name.
    findings : list of Finding
        In line order (file-level findings last).
    lines : int
        Non-blank lines read.
    kept : list of (int, str)
        The lines a fix keeps, as (line number, text), in the fixed order.
    removed : dict of int to str
        Line number -> the kind that removes it.
    moved : dict of int to int
        Line number -> the line of the topic's first block it joins.
    checked : list of str
        What was checked.
    skipped : list of str
        What was not checked, and why (an input not given).
    """

    path: Path
    run_id: str | None
    findings: list[Finding] = field(default_factory=list)
    lines: int = 0
    kept: list[tuple[int, str]] = field(default_factory=list)
    removed: dict[int, str] = field(default_factory=dict)
    moved: dict[int, int] = field(default_factory=dict)
    checked: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing needs fixing (notes alone do not count)."""
        return not any(f.fixable for f in self.findings)

    def counts(self) -> dict[str, int]:
        return dict(Counter(finding.kind for finding in self.findings))

    def format(self) -> str:
        """The findings, one per line (``line N<TAB>kind<TAB>message``), what was checked and
        what was not (and why), and a summary line."""
        out = [str(f) for f in self.findings]
        summary = ", ".join(f"{n} {kind}" for kind, n in sorted(self.counts().items())) or "no problem found"
        if self.checked:
            out.append(f"checked: {'; '.join(self.checked)}")
        if self.skipped:
            out.append(f"not checked: {'; '.join(self.skipped)}")
        out.append(f"{self.path}: {self.lines} line(s) checked: {summary}")  # last: the summary
        return "\n".join(out) + "\n"


def _store_passages(store, docnos: list[str]) -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, int]]:
    """XPaths (normalised) of each document in the store, its heading XPaths, its abstract count."""
    con = store.connection
    wanted = pa.table({"ucid": pa.array(sorted(set(docnos)), type=pa.string())})
    con.register("_check_wanted", wanted)
    try:
        xpaths: dict[str, set[str]] = defaultdict(set)
        headings: dict[str, set[str]] = defaultdict(set)
        for ucid, xpath, heading in con.execute(
            "SELECT p.ucid, p.xpath, p.is_heading FROM passages p JOIN _check_wanted USING (ucid)"
        ).fetchall():
            normal = normalise_xpath(xpath) or xpath
            xpaths[ucid].add(normal)
            if heading:
                headings[ucid].add(normal)
        claims = con.execute("SELECT c.ucid, c.xpath FROM claims c JOIN _check_wanted USING (ucid)").fetchall()
        for ucid, xpath in claims:
            xpaths[ucid].add(normalise_xpath(xpath) or xpath)
        abstracts = {ucid: int(n or 0) for ucid, n in con.execute(
            "SELECT d.ucid, cardinality(d.abstract) FROM documents d JOIN _check_wanted USING (ucid)").fetchall()}
    finally:
        con.unregister("_check_wanted")
    return xpaths, headings, abstracts


def _abstract_index(xpath: str) -> int | None:
    """k of ``/patent-document/abstract[k]/p[j]`` (normalised), else None."""
    steps = xpath.split("/")
    if len(steps) != 4 or not steps[2].startswith("abstract") or not steps[3].startswith("p["):
        return None
    step = steps[2]
    if step == "abstract":
        return 1
    return int(step[len("abstract["):-1]) if step.startswith("abstract[") else None


def check_passage_run(path: str | os.PathLike[str], *, topics: str | os.PathLike[str] | None = None, store=None,
                      max_documents: int = 100) -> CheckReport:
    """Check a passage-run submission and plan its repair (see the module notes).

    Parameters
    ----------
    path : path-like
        The run (``topic_id Q0 doc_id xpath psg_rank psg_score``).
    topics : path-like, optional
        The passage topics file: lines of other topics are defects, topics without lines
        are noted.
    store : CorpusStore or path-like, optional
        The corpus store: XPaths a document does not have are defects (and the store's
        headings are recognised too).
    max_documents : int, default 100
        Documents allowed per topic (CLEF-IP: 100).

    Returns
    -------
    CheckReport
    """
    if isinstance(max_documents, bool) or not isinstance(max_documents, int) or max_documents < 1:
        raise ParameterError(f"max_documents must be a positive integer; got {max_documents!r}")
    path = Path(path)
    report = CheckReport(path=path, run_id=run_id_from_file_name(path))
    data = read_bytes(path).removeprefix(b"\xef\xbb\xbf")
    findings: list[Finding] = []

    def flag(line: int | None, kind: str, message: str) -> None:
        findings.append(Finding(line, kind, message))
        if kind in FIXED_BY_REMOVAL and line is not None:  # (a removal is always of a line)
            report.removed.setdefault(line, kind)

    rows: list[tuple[int, str, str, str, int, str]] = []  # line, topic, docno, xpath, rank, text
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            report.lines += 1
            flag(number, "format", "not valid UTF-8 text")
            continue
        if not text:
            continue
        report.lines += 1
        parsed, problem, found = parse_run_line(text.split())
        if parsed is None:
            shown = found if isinstance(found, int) else repr(found)
            flag(number, "format", f"{problem} (found {shown}); expected {RUN_LAYOUT}")
            continue
        topic, docno, xpath, rank, _score = parsed
        rows.append((number, topic, docno, xpath, rank, " ".join(text.split())))

    topic_set = {t.tid for t in read_passage_topics(topics) if t.tid is not None} if topics is not None else None
    store_xpaths = store_headings = store_abstracts = None
    if store is not None:
        from .collection.store import CorpusStore

        opening = CorpusStore(store) if isinstance(store, (str, os.PathLike)) else contextlib.nullcontext(store)
        with opening as opened:
            store_xpaths, store_headings, store_abstracts = _store_passages(opened, [r[2] for r in rows])

    seen: dict[tuple[str, str, str], int] = {}
    unknown_documents: dict[str, int] = {}
    for number, topic, docno, xpath, _rank, _text in rows:
        key = (topic, docno, xpath)
        if key in seen:
            flag(number, "duplicate", f"topic {topic}: {docno} {xpath} already at line {seen[key]}")
            continue
        seen[key] = number
        if topic_set is not None and topic not in topic_set:
            flag(number, "unknown-topic", f"topic {topic} is not in {topics}")
            continue
        heading = is_heading_xpath(xpath) or (store_headings is not None and xpath in store_headings.get(docno, ()))
        if heading:
            flag(number, "heading", f"topic {topic}: {docno} {xpath} is a heading (headings are not judged)")
            continue
        if store_xpaths is not None and store_abstracts is not None:
            if docno not in store_abstracts:
                unknown_documents.setdefault(docno, number)
            else:
                k = _abstract_index(xpath)
                exists = (k <= store_abstracts[docno]) if k is not None else xpath in store_xpaths.get(docno, ())
                if not exists:
                    flag(number, "unknown-xpath", f"topic {topic}: {docno} has no passage {xpath}")

    # documents per topic, over the lines kept so far, in passage-rank order (ties: file order)
    kept_rows = [r for r in rows if r[0] not in report.removed]
    by_topic: dict[str, list[tuple]] = defaultdict(list)
    for row in kept_rows:
        by_topic[row[1]].append(row)
    for topic, topic_rows in by_topic.items():
        order: dict[str, int] = {}
        for row in sorted(topic_rows, key=lambda r: (r[4], r[0])):
            order.setdefault(row[2], len(order) + 1)
        if len(order) > max_documents:
            for row in topic_rows:
                if order[row[2]] > max_documents:
                    flag(row[0], "too-many-documents",
                         f"topic {topic}: {row[2]} is document {order[row[2]]} of {len(order)} (at most "
                         f"{max_documents})")

    # scattered topics: blocks of consecutive lines of one topic, over the lines kept
    kept_rows = [r for r in rows if r[0] not in report.removed]
    first_block_line: dict[str, int] = {}
    previous_topic = previous_line = None
    for number, topic, *_rest in kept_rows:
        if topic != previous_topic:
            if topic in first_block_line:
                flag(number, "scattered", f"topic {topic} resumes here after topic {previous_topic} (line "
                                          f"{previous_line}); its lines began at line {first_block_line[topic]}")
            else:
                first_block_line[topic] = number
        previous_topic, previous_line = topic, number

    # the fixed order: each topic's kept lines together, at its first appearance
    grouped: dict[str, list[int]] = {}
    for index, row in enumerate(kept_rows):
        grouped.setdefault(row[1], []).append(index)
    for indexes in grouped.values():
        block_start = kept_rows[indexes[0]][0]
        report.kept.extend((kept_rows[i][0], kept_rows[i][5]) for i in indexes)
        # from the first gap on, the topic's lines are moved up to join its first block
        gaps = np.flatnonzero(np.diff(indexes) != 1)
        if len(gaps):
            for i in indexes[gaps[0] + 1:]:
                report.moved[kept_rows[i][0]] = block_start

    if store_xpaths is not None:
        for docno, number in unknown_documents.items():
            flag(number, "unknown-document", f"{docno} is not in the corpus store; its XPaths were not checked")
    if topic_set is not None:
        for topic in sorted(topic_set - {r[1] for r in kept_rows}):
            flag(None, "missing-topic", f"topic {topic} of {topics} has no line")
    if report.run_id is None:
        flag(None, "file-name", f"{path.name} is not named participantID-runID-PSG.ext")
    findings.sort(key=lambda f: (f.line is None, f.line or 0))
    report.findings = findings
    report.checked = ["the format of each line", "repeated passages", "headings (by their XPath"
                      + (" and the store)" if store_xpaths is not None else ")"),
                      f"at most {max_documents} documents per topic", "topics scattered through the file",
                      "the file name (participantID-runID-PSG.ext)"]
    if topic_set is not None:
        report.checked.append(f"topic ids against {topics}, and topics without a line")
    else:
        report.skipped.append("topic ids (no topics file: --topics, topics=)")
    if store_xpaths is not None:
        report.checked.append("that each document is in the corpus store and has each XPath")
    else:
        report.skipped.append("XPaths against the documents (no corpus store: --store, store=)")
    return report


def fix_passage_run(report: CheckReport, out: str | os.PathLike[str], *, log: str | os.PathLike[str] | None = None
                    ) -> tuple[Path, Path]:
    """Write the cleaned run planned by ``report`` and a log of every change.

    Parameters
    ----------
    report : CheckReport
        From :func:`check_passage_run`.
    out : path-like
        The cleaned run (written atomically).
    log : path-like, optional
        The change log; default ``OUT.log``. One line per change:
        ``line N<TAB>removed<TAB>kind<TAB>the line`` or ``line N<TAB>moved<TAB>after line M``.

    Returns
    -------
    (Path, Path)
        The run and the log written.
    """
    out = Path(out)
    if out.resolve() == report.path.resolve():
        raise ParameterError(f"--fix would overwrite the run it checks ({out}); give another file")
    log_path = Path(log) if log is not None else out.with_name(out.name + ".log")
    data = read_bytes(report.path)  # decompressed, as the check read it
    texts = {n: raw.decode("utf-8", errors="replace").strip() for n, raw in enumerate(data.split(b"\n"), start=1)}
    changes = [f"line {number}\tremoved\t{report.removed[number]}\t{texts.get(number, '')}\n"
               if number in report.removed
               else f"line {number}\tmoved\tjoins its topic's lines, which begin at line {report.moved[number]}\n"
               for number in sorted(set(report.removed) | set(report.moved))]
    with atomic_output(out) as handle:
        handle.write("".join(text + "\n" for _number, text in report.kept))
    with atomic_output(log_path) as handle:
        handle.write(f"# {report.path} -> {out}: {len(report.removed)} line(s) removed, "
                     f"{len(report.moved)} moved, {len(report.kept)} kept\n" + "".join(changes))
    return out, log_path
