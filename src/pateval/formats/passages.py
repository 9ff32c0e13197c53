"""CLEF-IP passage retrieval files (2012/2013): passage topics, passage qrels, passage runs.

Formats (Piroi et al., CLEF-IP 2012 and 2013 overviews):

passage topics
    Blocks ``<tid>PSG-2</tid> <tfile>EP-1445439-A1.xml</tfile> <tfam-docs>a.xml,b.xml</tfam-docs>
    <tclaims>/patent-document/claims/claim[1] ...</tclaims>``; ``tfam-docs`` only in 2013;
    lists separated by commas or white space; an element may span lines.
passage qrels
    ``PSG-5 EP-1078736-A1 /patent-document/description/p[20]``: 3 or 4 fields separated by
    spaces or commas; the first is the topic, the last the XPath, the one before it the
    document (a 4-field line has a column between topic and document, as TREC's ``0``).
passage runs
    ``topic_id Q0 doc_id xpath psg_rank psg_score`` (6 columns, no run tag); the run id is
    in the file name ``participantID-runID-PSG.ext``.

XPath normalisation
    XPaths are compared in one canonical form (:func:`normalise_xpath`): white space
    removed, a position on every step of the CLEF-IP element paths made explicit where it
    identifies the passage -- the last step always carries its position
    (``/patent-document/abstract/p`` = ``/patent-document/abstract/p[1]``) and position 1
    is dropped from the steps before it (``/patent-document/claims[1]/claim[2]`` =
    ``/patent-document/claims/claim[2]``), leading zeros dropped, a trailing ``/`` or
    ``/text()`` removed. This keeps the forms CLEF-IP published (``.../description/p[20]``,
    ``.../claims/claim[1]``, ``.../claims[2]/claim[1]``) unchanged.

Heading passages are the ``heading`` elements of a description (the organisers left them
out of the judgements and removed them from the runs): an XPath whose last step is
``heading``.

How a passage run is evaluated: :class:`PassageRun` holds one row per (topic, document,
XPath); :meth:`PassageRun.document_run` is the document-level :class:`~pateval.core.run.Run`
(headings removed, each document at its first occurrence in passage-rank order) that the
document-level measures (PRES, recall, AP, ...) read through the normal path, and the
passage measures (:mod:`pateval.measures.passage`) read the passage rows themselves
from the evaluation context (``passage_runs``, ``passage_qrels``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._lazy import lazy_module
from ..core.fields import fields_columns, first_record, plain_tuple_columns, rank_values, record_fields, score_values
from ..core.qrels import Qrels, is_heading_xpath, vectorised_heading
from ..core.run import Run
from ..core.segments import place_in_runs
from ..errors import ParameterError, malformed
from ..validation import check_choice
from .atomic import atomic_output
from .source import INTEGER, NUMBER, decode_text, first_line, iter_fields, read_bytes

pd = lazy_module("pandas")  # the passage readers build frames; scoring document runs never needs pandas

__all__ = [
    "normalise_xpath",
    "is_heading_xpath",
    "PassageTopic",
    "read_passage_topics",
    "topic_languages",
    "read_passage_qrels",
    "PassageRun",
    "read_passage_run",
    "write_passage_run",
    "run_id_from_file_name",
    "parse_run_line",
    "looks_like_passage_run",
    "looks_like_passage_qrels",
    "RUN_LAYOUT",
    "claim_qrels_for_passage_topics",
]

RUN_LAYOUT = "6 columns: topic_id Q0 doc_id xpath psg_rank psg_score"
QRELS_LAYOUT = "3 or 4 fields (spaces or commas): topic [0] doc_id xpath"
ROOT = "patent-document"

_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]*)(?:\[0*([0-9]+)\])?")
_RUN_FILE = re.compile(r"^(?P<participant>[^-]+)-(?P<run>.+)-PSG$", re.IGNORECASE)


def normalise_xpath(text: str) -> str | None:
    """The canonical form of a passage XPath, or None when ``text`` is not one.

    Parameters
    ----------
    text : str
        An XPath as written in a run, qrels or topic file.

    Returns
    -------
    str or None
        See the module notes for the rules. None for anything that is not an absolute
        path of named steps under ``/patent-document`` with positive positions.

    Examples
    --------
    >>> normalise_xpath("/patent-document/abstract/p")
    '/patent-document/abstract/p[1]'
    >>> normalise_xpath("/patent-document/claims[1]/claim[ 02 ]")
    '/patent-document/claims/claim[2]'
    >>> normalise_xpath("claim[1]") is None
    True
    """
    compact = re.sub(r"\s+", "", text).removesuffix("/text()").rstrip("/")
    if not compact.startswith("/"):
        return None
    steps = compact[1:].split("/")
    out = []
    for index, step in enumerate(steps):
        match = _STEP.fullmatch(step)
        if match is None:
            return None  # empty step ('//'), attribute, function or predicate other than a position
        name, position = match.group(1), match.group(2)
        number = int(position) if position is not None else 1
        if number < 1:
            return None
        last = index == len(steps) - 1
        out.append(f"{name}[{number}]" if last or number != 1 else name)
    if not out or steps[0].split("[")[0] != ROOT or len(out) < 2:
        return None
    return "/" + "/".join(out)


# ---- topics -------------------------------------------------------------------------------

_TOPIC_ELEMENT = re.compile(r"<(tid|tfile|tfam-docs|tclaims)>(.*?)</\1\s*>", re.DOTALL)


@dataclass(frozen=True)
class PassageTopic:
    """One CLEF-IP passage topic: a set of claims of a patent application.

    Attributes
    ----------
    tid : str or None
        Topic id (``PSG-2``); None only in a fragment read with ``partial=True``.
    tfile : str or None
        The topic patent's file name (``EP-1445439-A1.xml``).
    tfam_docs : tuple of str
        Family members' file names (2013 topics; empty in 2012).
    tclaims : tuple of str
        The claims' XPaths, normalised.
    line : int
        The 1-based line where the topic starts.
    """

    tid: str | None
    tfile: str | None
    tfam_docs: tuple[str, ...]
    tclaims: tuple[str, ...]
    line: int

    @property
    def ucid(self) -> str | None:
        """The topic patent's id (the file name without ``.xml``)."""
        if self.tfile is None:
            return None
        return self.tfile[:-4] if self.tfile.lower().endswith(".xml") else self.tfile

    @property
    def claim_numbers(self) -> tuple[int, ...]:
        """The positions of the topic's claims (``claim[n]`` -> n): the claim-level subtopics."""
        return tuple(int(x.rsplit("[", 1)[1][:-1]) for x in self.tclaims)


def read_passage_topics(path: str | os.PathLike[str], *, partial: bool = False) -> list[PassageTopic]:
    """Read a CLEF-IP passage topics file (2012 or 2013).

    Parameters
    ----------
    path : path-like
    partial : bool, default False
        Accept blocks without ``<tid>`` or ``<tfile>`` (a fragment such as the 2013
        overview's example); by default each topic needs ``tid``, ``tfile`` and ``tclaims``.

    Returns
    -------
    list of PassageTopic

    Raises
    ------
    pateval.errors.InputFormatError
        For a topic missing a required element, an element given twice in one topic, a
        repeated topic id, or a claim that is not an XPath (each with its 1-based line).
    """
    path = Path(path)
    text = decode_text(path, read_bytes(path))
    blocks: list[dict] = []
    for match in _TOPIC_ELEMENT.finditer(text):
        tag, content = match.group(1), match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        if tag == "tid" or not blocks or (partial and tag in blocks[-1]):
            blocks.append({"line": line})
        current = blocks[-1]
        if tag in current:
            malformed(path, line, f"<{tag}> given twice in the topic starting at line {current['line']}",
                      expected="one <tid> before each topic's other elements", found=tag)
        current[tag] = (content, line)
    if not blocks:
        malformed(path, None, "no passage topic found", expected="<tid>, <tfile>, <tclaims> elements")
    topics: list[PassageTopic] = []
    seen: dict[str, int] = {}
    for block in blocks:
        if not partial:
            for needed in ("tid", "tfile", "tclaims"):
                if needed not in block:
                    malformed(path, block["line"], f"a passage topic without <{needed}>",
                              expected="<tid>, <tfile>, <tclaims> (and <tfam-docs> in 2013) for every topic")
        tid = block["tid"][0].strip() if "tid" in block else None
        if tid is not None:
            if not tid:
                malformed(path, block["tid"][1], "an empty <tid>", expected="a topic id")
            if tid in seen:
                malformed(path, block["tid"][1], f"topic {tid!r} given twice (first at line {seen[tid]})")
            seen[tid] = block["tid"][1]
        tfile = block["tfile"][0].strip() if "tfile" in block else None
        family = tuple(re.split(r"[,\s]+", block["tfam-docs"][0].strip())) if "tfam-docs" in block else ()
        claims: list[str] = []
        if "tclaims" in block:
            content, line = block["tclaims"]
            for token_match in re.finditer(r"[^,\s]+", content):
                token = token_match.group(0)
                xpath = normalise_xpath(token)
                if xpath is None:
                    malformed(path, line + content.count("\n", 0, token_match.start()), "a claim that is not an XPath",
                              expected="/patent-document/claims/claim[n]", found=token)
                claims.append(xpath)
        topics.append(PassageTopic(tid, tfile or None, tuple(f for f in family if f), tuple(claims), block["line"]))
    return topics


_LANG_ATTRIBUTE = re.compile(rb"<patent-document\b[^>]*?\blang=\"([A-Za-z]+)\"")


def topic_languages(path: str | os.PathLike[str], topics: list[PassageTopic] | None = None) -> dict[str, str]:
    """Each passage topic's language: the ``lang`` of its topic patent document.

    The topic documents are looked for beside the topics file, in ``topics/PSG/`` (as
    ``pateval collection build`` writes them) or in the same folder. A topic whose
    document is not found is an error naming it.

    Returns
    -------
    dict
        topic id -> upper-case language code (``EN``, ``DE``, ``FR``).
    """
    path = Path(path)
    topics = read_passage_topics(path) if topics is None else topics
    languages: dict[str, str] = {}
    found: dict[str, str] = {}
    for topic in topics:
        if topic.tid is None or topic.tfile is None:  # (read_passage_topics refuses such a topic)
            malformed(path, topic.line, "a topic without its <tid> and <tfile>")
        if topic.tfile not in found:
            candidates = [path.parent / "topics" / "PSG" / topic.tfile, path.parent / topic.tfile]
            document = next((c for c in candidates if c.is_file()), None)
            if document is None:
                malformed(path, topic.line,
                          f"topic {topic.tid}: its document {topic.tfile} is not beside the topics file",
                          expected=" or ".join(str(c) for c in candidates))
            head = document.read_bytes()[:4096]
            lang = _LANG_ATTRIBUTE.search(head)
            if lang is None:
                malformed(document, 1, "the topic document has no lang attribute on <patent-document>",
                          expected='<patent-document ... lang="EN">')
            found[topic.tfile] = lang.group(1).decode().upper()
        languages[topic.tid] = found[topic.tfile]
    return languages


def claim_qrels_for_passage_topics(topics: list[PassageTopic], claim_qrels: Qrels,
                                   topic_patents: Mapping[str, str] | str | os.PathLike[str]) -> Qrels:
    """Claim-level (subtopic) qrels of passage topics, for the Cube Test and subtopic measures.

    A passage topic is a set of claims of a topic patent; the prior-art (PAC) topic of the
    same patent has claim-level judgements (``qid subtopic docno rel``: document relevant
    to claim ``subtopic``, from the search report's "relevant to claims" column). Each
    passage topic gets those judgements of its own claims: subtopics are its claims'
    numbers (``claim[n]`` -> ``n``), judgements of other claims are left out.

    Parameters
    ----------
    topics : list of PassageTopic
    claim_qrels : Qrels
        Claim-level qrels with subtopics (``qrels_PAC_claims.txt`` read with format ``subtopic``).
    topic_patents : mapping or path-like
        Claim-qrels topic id -> its patent (a publication id or patent key); or a TSV file
        with columns ``qid`` and ``patent_key`` (``topics.tsv`` of ``pateval collection build``).

    Returns
    -------
    Qrels
        ``topic`` = passage topic id, ``subtopic`` = claim number, format ``subtopic``.
    """
    from ..core.docids import patent_key

    if claim_qrels.subtopic is None:
        raise ParameterError(f"claim-level qrels need subtopics (claims); {claim_qrels.source} has none")
    if not isinstance(topic_patents, Mapping):
        table = pd.read_csv(topic_patents, sep="\t", dtype=str)
        missing = {"qid", "patent_key"} - set(table.columns)
        if missing:
            malformed(topic_patents, 1, "missing column(s) " + ", ".join(sorted(missing)), expected="qid, patent_key")
        topic_patents = dict(zip(table["qid"], table["patent_key"], strict=True))
    qid_of_patent = {patent_key(str(v), invalid="keep"): str(k) for k, v in topic_patents.items()}
    frame = claim_qrels.to_frame()
    pieces = []
    for topic in topics:
        if topic.ucid is None or topic.tid is None:
            raise ParameterError("passage topics need <tid> and <tfile> to be mapped to claims")
        source = qid_of_patent.get(patent_key(topic.ucid, invalid="keep"))
        if source is None:
            continue
        claims = {str(n) for n in topic.claim_numbers}
        rows = frame[(frame["topic"] == source) & frame["subtopic"].astype(str).isin(claims)]
        pieces.append(rows.assign(topic=topic.tid))
    joined = pd.concat(pieces, ignore_index=True) if pieces else frame.iloc[0:0]
    return Qrels(topic=joined["topic"].to_numpy(dtype=object), docno=joined["docno"].to_numpy(dtype=object),
                 rel=joined["rel"].to_numpy(dtype=np.int64),
                 subtopic=joined["subtopic"].astype(str).to_numpy(dtype=object),
                 format="subtopic", source=f"{claim_qrels.source} (claims of passage topics)")


# ---- qrels --------------------------------------------------------------------------------

def looks_like_passage_qrels(path: str | os.PathLike[str]) -> bool:
    """True when the first non-blank line of ``path`` ends with an XPath (a passage qrels file)."""
    fields = _first_fields(path, separators=r"[,\s]+")
    return fields is not None and 3 <= len(fields) <= 4 and fields[-1].startswith("/")


def read_passage_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read CLEF-IP passage qrels (``PSG-5 EP-1078736-A1 /patent-document/description/p[20]``).

    Lines have 3 or 4 fields separated by spaces or commas: topic, [a column ignored],
    document, XPath. Every listed passage is relevant (grade 1). XPaths are normalised;
    identical repeated judgements are merged and heading passages removed, each with a
    note (the organisers left headings out of the judgements).

    Returns
    -------
    Qrels
        ``format="clefip-psg"`` with ``passage`` set; :meth:`Qrels.document_level` gives
        the relevant documents.
    """
    path = Path(path)
    rows: list[tuple[str, str, str, int]] = []  # topic, docno, xpath, line
    normalised: dict[str, str | None] = {}  # each distinct XPath normalised once: repeats cost a lookup
    for number, spaced in iter_fields(path):  # UTF-8 checked line by line, as every reader
        fields = [f for part in spaced for f in part.split(",") if f]
        if not fields:
            continue
        if len(fields) not in (3, 4):
            malformed(path, number, "wrong number of fields", expected=QRELS_LAYOUT, found=len(fields))
        xpath = normalised.get(fields[-1], "")
        if xpath == "":
            xpath = normalised[fields[-1]] = normalise_xpath(fields[-1])
        if xpath is None:
            malformed(path, number, "the last field is not a passage XPath",
                      expected="/patent-document/...[n]", found=fields[-1])
        rows.append((fields[0], fields[-2], xpath, number))
    if not rows:
        malformed(path, None, "no judgement in the file", expected=QRELS_LAYOUT)
    topics, docnos, xpaths, lines = map(list, zip(*rows, strict=True))
    qrels = Qrels.from_columns(topics, docnos, np.ones(len(topics), dtype=np.int64), passages=xpaths,
                               format="clefip-psg", source=str(path), lines=lines, unit="line")
    heading = vectorised_heading(qrels.passage)
    if not heading.any():
        return qrels
    kept = ~heading
    return qrels.replace(topic=qrels.topic[kept], docno=qrels.docno[kept], passage=qrels.passage[kept],
                         rel=qrels.rel[kept], notes=(*qrels.notes, f"{path}: {int(heading.sum())} heading "
                                                     "passage(s) removed from the judgements"))


# ---- runs ---------------------------------------------------------------------------------

def _first_fields(path, *, separators: str = r"\s+") -> list[str] | None:
    # through the source layer: compressed files, standard input and pipes sniffed alike
    text = first_line(path)
    return None if text is None else [f for f in re.split(separators, text.strip()) if f]


def looks_like_passage_run(path: str | os.PathLike[str]) -> bool:
    """True when the first non-blank line has 6 columns and an XPath in the 4th.

    A TREC run has its rank (an integer) there, so the two never meet.
    """
    fields = _first_fields(path)
    return fields is not None and len(fields) == 6 and fields[3].startswith("/")


def run_id_from_file_name(path: str | os.PathLike[str]) -> str | None:
    """``participantID-runID`` from a file named ``participantID-runID-PSG.ext``, else None."""
    stem = Path(path).name.split(".", 1)[0]
    match = _RUN_FILE.match(stem)
    return None if match is None else f"{match.group('participant')}-{match.group('run')}"


def parse_run_line(fields: list[str]) -> tuple[tuple[str, str, str, int, float] | None, str, str | int | None]:
    """Check one passage-run line: ``(parsed, problem, found)``.

    ``parsed`` is ``(topic, docno, xpath, rank, score)`` with the XPath normalised, or None
    with ``problem`` saying what is wrong (and ``found`` what was there). Shared by the
    reader (which stops at the first problem) and the submission check (which lists them all).
    """
    if len(fields) != 6:
        return None, "wrong number of columns", len(fields)
    topic, q0, docno, xpath_text, rank_text, score_text = fields
    if q0 != "Q0":
        return None, "the 2nd column is not Q0", q0
    xpath = normalise_xpath(xpath_text)
    if xpath is None:
        return None, "the 4th column is not a passage XPath", xpath_text
    if not INTEGER.fullmatch(rank_text):
        return None, "the passage rank is not an integer", rank_text
    if not NUMBER.fullmatch(score_text) or score_text.lower() == "nan":
        return None, "the passage score is not a number", score_text
    return (topic, docno, xpath, int(rank_text), float(score_text)), "", None


@dataclass(frozen=True, eq=False)
class PassageRun:
    """A passage run: one row per (topic, document, XPath), in file order.

    Attributes
    ----------
    name : str
    topic, docno, xpath : ndarray of str, shape (N,)
        XPaths normalised (:func:`normalise_xpath`).
    rank : ndarray of int64
        The passage rank column.
    score : ndarray of float64
    line : ndarray of int64
        Each row's 1-based line in the file (0 when built in memory).
    source : str
    notes : tuple of str
    """

    name: str
    topic: np.ndarray
    docno: np.ndarray
    xpath: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    line: np.ndarray
    source: str = "<memory>"
    notes: tuple[str, ...] = field(default=())
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return int(self.topic.shape[0])

    @classmethod
    def from_records(cls, records, *, name: str = "run", source: str = "<memory>",
                     fields: tuple[str, ...] | None = None) -> PassageRun:
        """Build a passage run from records read by field name (XPaths normalised here).

        Named records are read by field name, with the names of
        :data:`pateval.core.fields.ROLE_NAMES`: namedtuples (a DataFrame's ``itertuples()``)
        or dicts with a topic (``qid``, ``query_id``, ``topic``), a document (``docno``,
        ``doc_id``), a passage (``xpath``, or ``passage`` as ir_measures names it), ``rank``
        and ``score``; other fields are left unread. Plain tuples are never read by
        position: rank and score are both numbers, in either order (integer scores, ranks
        written as floats, scores such as 1/rank that fall as the rank rises), so no value
        tells them apart and no tool writes passage records in one agreed order. A plain
        tuple is refused with one message saying what is expected, unless ``fields`` names
        its columns.

        Parameters
        ----------
        records : iterable of namedtuple, dict or tuple
        name, source : str
            As :meth:`pateval.core.run.Run.from_records`.
        fields : tuple of str, optional
            The columns of the records in order (``("topic", "docno", "xpath", "rank",
            "score")``, ``("qid", "Q0", "docno", "xpath", "rank", "score")``); unknown names
            (``"Q0"``, ``"tag"``) are columns left unread.

        Raises
        ------
        ParameterError
            A plain tuple without ``fields``; records without a topic, document, passage,
            rank or score field, or with two names for one; ``fields`` not matching the
            records; a rank that is not an integer, a score that is not a number, or a
            passage that is not an XPath.

        Examples
        --------
        >>> rows = [("t", "d", "/patent-document/abstract/p", 1, 1.0)]
        >>> run = PassageRun.from_records(rows, fields=("topic", "docno", "xpath", "rank", "score"))
        >>> run.xpath[0]
        '/patent-document/abstract/p[1]'
        >>> PassageRun.from_records([{"qid": "t", "docno": "d", "xpath": "/patent-document/claims/claim[2]",
        ...                           "score": 0.5, "rank": 1}]).rank.tolist()
        [1]
        """
        first, rows = first_record(records)
        if first is None:
            rows = []
            columns: dict[str, list] = {role: [] for role in ("topic", "docno", "passage", "rank", "score")}
        else:
            names = fields if fields is not None else record_fields(first)
            columns = (plain_tuple_columns(rows, kind="passage_run") if names is None
                       else fields_columns(rows, names, kind="passage_run"))
        scores = score_values(columns["score"], what="passage run")
        ranks = rank_values(columns["rank"], what="passage run")
        xpaths = []
        for text in columns["passage"]:
            xpath = normalise_xpath(str(text))
            if xpath is None:
                raise ParameterError(f"not a passage XPath: {text!r} (expected /patent-document/...[n])")
            xpaths.append(xpath)
        return cls(
            name=name,
            topic=np.asarray([str(t) for t in columns["topic"]], dtype=object),
            docno=np.asarray([str(d) for d in columns["docno"]], dtype=object),
            xpath=np.asarray(xpaths, dtype=object),
            rank=np.asarray([int(r) for r in ranks], dtype=np.int64),
            score=np.asarray(scores, dtype=np.float64),
            line=np.zeros(len(rows), dtype=np.int64),
            source=source,
        )

    @property
    def is_heading(self) -> np.ndarray:
        """Rows that retrieve a description heading."""
        if "is_heading" not in self._cache:
            self._cache["is_heading"] = vectorised_heading(self.xpath)
        return self._cache["is_heading"]

    def take(self, rows: np.ndarray) -> PassageRun:
        """The run restricted to (and reordered as) ``rows``."""
        return dataclasses.replace(
            self, topic=self.topic[rows], docno=self.docno[rows], xpath=self.xpath[rows], rank=self.rank[rows],
            score=self.score[rows], line=self.line[rows], _cache={},
        )

    def without_headings(self) -> PassageRun:
        """The run with heading passages removed (how CLEF-IP scored submissions)."""
        if "without_headings" not in self._cache:
            heading = self.is_heading
            kept = self if not heading.any() else dataclasses.replace(
                self.take(np.flatnonzero(~heading)),
                notes=self.notes + (f"run {self.name!r}: {int(heading.sum())} heading passage(s) removed",))
            self._cache["without_headings"] = kept
        return self._cache["without_headings"]

    def codes(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, distinct)`` of ``topic`` (distinct sorted), ``docno`` or ``xpath``.

        Computed once by hashing (runs repeat topics, documents and XPaths on every line);
        the measures match against these integers instead of the strings.
        """
        key = ("codes", column)
        if key not in self._cache:
            values = getattr(self, column)
            if len(values) == 0:
                self._cache[key] = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object))
            else:
                codes, distinct = pd.factorize(values, sort=column == "topic")
                self._cache[key] = (codes.astype(np.int64), np.asarray(distinct, dtype=object))
        return self._cache[key]

    def distinct_arrow(self, column: str):
        """The distinct values of :meth:`codes` as an Arrow string array (for hash lookups)."""
        key = ("arrow", column)
        if key not in self._cache:
            import pyarrow as pa

            self._cache[key] = pa.array(self.codes(column)[1], type=pa.string())
        return self._cache[key]

    def passage_order(self) -> np.ndarray:
        """Row permutation: topics sorted, documents in first-occurrence order, passages by rank.

        Within a topic rows are taken in passage-rank order (rank ascending, ties in file
        order); a document sits where its first passage does and its passages follow in
        the same order -- the order both document and passage measures read.
        """
        if "passage_order" not in self._cache:
            n = len(self)
            topic_index = self.codes("topic")[0]
            doc_code, doc_ids = self.codes("docno")
            by_rank = np.lexsort((np.arange(n), self.rank, topic_index))
            pair = topic_index * max(len(doc_ids), 1) + doc_code  # one (topic, document)
            pair_codes = pd.factorize(pair)[0] if n else np.zeros(0, np.int64)
            first_position = np.full(int(pair_codes.max()) + 1 if n else 0, n, dtype=np.int64)
            np.minimum.at(first_position, pair_codes[by_rank], np.arange(n, dtype=np.int64))
            within = np.empty(n, dtype=np.int64)
            within[by_rank] = np.arange(n, dtype=np.int64)
            self._cache["passage_order"] = np.lexsort((within, first_position[pair_codes], topic_index))
        return self._cache["passage_order"]

    def document_run(self) -> Run:
        """The document-level run: headings removed, each document at its first occurrence.

        Ranks are the documents' positions within their topic; scores are minus those
        positions, so ranking by score (trec_eval's order) or by rank gives the same list.
        """
        if "document_run" in self._cache:
            return self._cache["document_run"]
        source = self.without_headings()
        order = source.passage_order()
        topic_code, topic_ids = source.codes("topic")
        doc_code, doc_ids = source.codes("docno")
        topic, doc = topic_code[order], doc_code[order]
        first = ~pd.Series(topic * max(len(doc_ids), 1) + doc).duplicated().to_numpy() if len(order) else np.zeros(0,
                                                                                                                   bool)
        topic, doc = topic[first], doc[first]
        position = place_in_runs(topic) + 1  # the document's place in its topic's ranking
        run = Run(
            name=self.name,
            topic_ids=topic_ids,
            topic=topic.astype(np.int32),
            doc_ids=doc_ids,
            doc=doc.astype(np.int32),
            score=-position.astype(np.float64),
            rank=position.astype(np.int64),
            source=self.source,
            notes=source.notes,
        )
        self._cache["document_run"] = run
        return run


def read_passage_run(path: str | os.PathLike[str], *, on_duplicate: str = "error",
                     name: str | None = None) -> PassageRun:
    """Read a CLEF-IP passage run (``topic_id Q0 doc_id xpath psg_rank psg_score``).

    Parameters
    ----------
    path : path-like
    on_duplicate : {"error", "first"}, default "error"
        A passage listed twice for one topic (same document and XPath after
        normalisation) is an error, or its later lines are dropped with a note.
    name : str, optional
        The run's name; by default ``participantID-runID`` from the file name
        ``participantID-runID-PSG.ext``, else the file name without its extension.

    Raises
    ------
    pateval.errors.InputFormatError
        At the first malformed line (file, line, expected vs found). ``pateval check``
        lists every problem instead and can repair them.
    """
    check_choice("on_duplicate", on_duplicate, ("error", "first"))
    path = Path(path)
    rows: list[tuple] = []  # topic, docno, xpath, rank, score, line
    for number, fields in iter_fields(path):
        parsed, problem, found = parse_run_line(fields)
        if parsed is None:
            malformed(path, number, problem, expected=RUN_LAYOUT, found=found)
        rows.append((*parsed, number))
    if not rows:
        malformed(path, None, "no result line", expected=RUN_LAYOUT)
    columns = list(zip(*rows, strict=False))
    frame = pd.DataFrame({"topic": columns[0], "docno": columns[1], "xpath": columns[2]})
    repeated = frame.duplicated().to_numpy()
    notes: list[str] = []
    if repeated.any():
        first_repeat = int(np.flatnonzero(repeated)[0])
        if on_duplicate == "error":
            topic, docno, xpath, _, _, line = rows[first_repeat]
            malformed(path, line, f"topic {topic}: passage {docno} {xpath} listed twice",
                      expected="each passage once per topic (or on_duplicate='first', --on-duplicate first)",
                      found=xpath)
        notes.append(f"{path}: {int(repeated.sum())} repeated passage line(s) dropped (first kept)")
    keep = ~repeated
    run_name = name or run_id_from_file_name(path) or path.name.split(".", 1)[0]
    return PassageRun(
        name=run_name,
        topic=np.asarray(columns[0], dtype=object)[keep],
        docno=np.asarray(columns[1], dtype=object)[keep],
        xpath=np.asarray(columns[2], dtype=object)[keep],
        rank=np.asarray(columns[3], dtype=np.int64)[keep],
        score=np.asarray(columns[4], dtype=np.float64)[keep],
        line=np.asarray(columns[5], dtype=np.int64)[keep],
        source=str(path),
        notes=tuple(notes),
    )


def write_passage_run(run: PassageRun, path: str | os.PathLike[str]) -> Path:
    """Write ``run`` in file order as a 6-column passage run (atomically)."""
    with atomic_output(path) as out:
        for topic, docno, xpath, rank, score in zip(run.topic, run.docno, run.xpath, run.rank, run.score, strict=False):
            out.write(f"{topic} Q0 {docno} {xpath} {int(rank)} {float(score)!r}\n")
    return Path(path)
