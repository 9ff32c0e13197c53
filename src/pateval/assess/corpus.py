"""What the assessment tool reads from pateval's corpus store and a built collection.

Topic sources are the patents of a collection built by ``pateval collection build``
(``topics.tsv``); their search-report citations, the cited documents' passages and the
topic claims come from the corpus store (:class:`pateval.collection.store.CorpusStore`).
The collection's passage topics (``topics_PSG.tsv``) are offered as the first topic
definitions of a source, so that a tool session started on a collection reproduces its
topic ids.

DuckDB connections are not shared between threads, and the web server answers requests
from a thread pool: every query holds one lock; documents are cached once read.
"""

from __future__ import annotations

import csv
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from pathlib import Path

from ..errors import InputFormatError, ParameterError
from .indications import Indication, parse_indication

__all__ = ["AssessCorpus", "Citation", "CitedDocument", "Passage", "Source"]

#: How many patent keys unknown to the store a corpus remembers (the oldest forgotten first).
UNKNOWN_KEYS = 1024


@dataclass(frozen=True)
class Passage:
    """One passage of a document: ``section`` is abstract, description or claims."""

    xpath: str
    section: str
    text: str
    is_heading: bool = False
    label: str = ""


@dataclass(frozen=True)
class CitedDocument:
    ucid: str
    title: str
    lang: str
    passages: tuple[Passage, ...]

    @property
    def selectable(self) -> frozenset[str]:
        return frozenset(p.xpath for p in self.passages if not p.is_heading)

    def suggest(self, indication: Indication) -> tuple[list[str], list[str]]:
        """XPaths the indication names in this document, and what it names that is missing."""
        paragraphs: dict[int, str] = {}
        claims: dict[int, str] = {}
        abstract: list[str] = []
        for passage in self.passages:
            if passage.is_heading:
                continue
            if passage.section == "description":
                paragraphs[int(passage.xpath[passage.xpath.rindex("[") + 1:-1])] = passage.xpath
            elif passage.section == "claims":
                claims[int(passage.label.split()[-1])] = passage.xpath
            else:
                abstract.append(passage.xpath)
        return indication.suggest(paragraph_xpaths=paragraphs, claim_xpaths=claims, abstract_xpaths=abstract)


@dataclass(frozen=True)
class Citation:
    """A search-report citation of a topic source."""

    position: int
    citing_ucid: str
    cited_ucid: str
    category: str
    relevant_claims: tuple[int, ...]
    indication: str
    report_xpaths: tuple[str, ...]
    in_corpus: bool

    @property
    def parsed(self) -> Indication:
        return parse_indication(self.indication)


@dataclass(frozen=True)
class Source:
    """A topic source: a patent of the collection, shown by its application publication."""

    patent_key: str
    ucid: str
    title: str
    claims: tuple[tuple[int, str, tuple[int, ...]], ...]  # number, text, depends_on
    suggested_topics: tuple[tuple[str, tuple[int, ...]], ...]  # from topics_PSG.tsv


def _read_tsv(path: Path) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle, delimiter="\t"))
    except OSError as error:
        raise ParameterError(f"{path}: cannot read ({error.strerror})") from None


class AssessCorpus:
    """The corpus store and collection behind one assessment database.

    Parameters
    ----------
    store : path-like
        A corpus store (``pateval corpus ingest``).
    collection : path-like, optional
        A collection directory (``pateval collection build``); without it every store
        document with search-report citations is a topic source.

    Notes
    -----
    ``source(patent_key)`` (the topic source, or None), ``citations(patent_key)`` (its
    search-report citations) and ``document(ucid)`` (a cited document's passages, or None)
    are cached per corpus.
    """

    def __init__(self, store, collection=None) -> None:
        from ..collection.store import CorpusStore

        self.store_path = Path(store)
        self.collection = Path(collection) if collection is not None else None
        self._store = CorpusStore(self.store_path, threads=1)
        self._lock = threading.Lock()
        # Caches of this corpus only (a cache on the class would keep every corpus alive).
        self._sources: dict[str, Source | None] = {}
        self._citations: dict[str, tuple[Citation, ...]] = {}
        # Keys the store does not know (any URL names one): remembered, but only so many.
        self._unknown: OrderedDict[str, None] = OrderedDict()
        self.document = lru_cache(maxsize=512)(self._document)
        self._psg: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
        if self.collection is not None:
            topics = self.collection / "topics.tsv"
            if not topics.is_file():
                raise ParameterError(f"{self.collection}: not a collection built by pateval collection build "
                                     "(no topics.tsv)")
            rows = _read_tsv(topics)
            for line, row in enumerate(rows, start=2):
                if not row.get("patent_key"):
                    raise InputFormatError(topics, line, "no patent_key")
            self._patent_keys = [row["patent_key"] for row in rows]
            psg = self.collection / "topics_PSG.tsv"
            if psg.is_file():
                for line, row in enumerate(_read_tsv(psg), start=2):
                    try:
                        claims = tuple(int(c) for c in row["claims"].split(","))
                    except (KeyError, ValueError, AttributeError):
                        raise InputFormatError(psg, line, "bad claims", expected="claim numbers separated by commas",
                                               found=row.get("claims")) from None
                    self._psg.setdefault(row["patent_key"], []).append((row["qid"], claims))
        else:
            keys = self._sql("SELECT DISTINCT d.patent_key FROM citations c JOIN documents d ON d.ucid = c.ucid "
                             "WHERE c.source = 'search' ORDER BY 1")
            self._patent_keys = [k for (k,) in keys]

    def close(self) -> None:
        self._store.close()

    def _sql(self, query: str, params=()) -> list[tuple]:
        with self._lock:
            return self._store.connection.execute(query, list(params)).fetchall()

    # -- sources
    @property
    def patent_keys(self) -> list[str]:
        return list(self._patent_keys)

    def source(self, patent_key: str) -> Source | None:
        """The patent's application publication with text, its title and claims (None
        when the store has no publication of it)."""
        if patent_key not in self._sources and patent_key not in self._unknown:
            self.preload([patent_key])
        return self._sources.get(patent_key)

    def citations(self, patent_key: str) -> tuple[Citation, ...]:
        """The search-report citations of every publication of the patent, in report order."""
        if patent_key not in self._citations and patent_key not in self._unknown:
            self.preload([patent_key])
        return self._citations.get(patent_key, ())

    def preload(self, patent_keys=None) -> None:
        """Read the sources and citations of many patents at once (all by default): a few
        scans of the store instead of a few per patent."""
        wanted = sorted(set(self._patent_keys if patent_keys is None else patent_keys) - set(self._sources)
                        - set(self._unknown))
        if not wanted:
            return
        with self._lock:
            con = self._store.connection
            registered = []
            try:
                con.register("_assess_keys", _key_table(wanted))
                registered.append("_assess_keys")
                documents = con.execute(
                    """SELECT d.patent_key, d.ucid, d.title, d.lang
                       FROM documents d JOIN _assess_keys k USING (patent_key)
                       QUALIFY row_number() OVER (PARTITION BY d.patent_key ORDER BY
                           (d.n_passages > 0 AND d.kind LIKE 'A%') DESC, (d.kind LIKE 'A%') DESC, d.kind DESC,
                           d.ucid) = 1
                    """).fetchall()
                chosen = {key: (ucid, title, lang) for key, ucid, title, lang in documents}
                con.register("_assess_ucids", _key_table([u for u, _t, _l in chosen.values()], "ucid"))
                registered.append("_assess_ucids")
                claims = con.execute(
                    """SELECT c.ucid, c.number, c.text, c.depends_on, c.lang FROM claims c
                       JOIN _assess_ucids u USING (ucid) ORDER BY c.ucid, c.lang, c.number""").fetchall()
                citations = con.execute(
                    """SELECT d.patent_key, c.ucid, c.cited_ucid, c.categories, c.relevant_claims, c.passages,
                              EXISTS (SELECT 1 FROM documents t WHERE t.ucid = c.cited_ucid) AS in_corpus
                       FROM citations c JOIN documents d ON d.ucid = c.ucid JOIN _assess_keys k USING (patent_key)
                       WHERE c.source = 'search'
                       ORDER BY d.patent_key, d.date, c.ucid, c.cited_ucid""").fetchall()
            finally:
                for name in registered:
                    con.unregister(name)
        claims_of: dict[str, list[tuple]] = {}
        for ucid, number, text, depends_on, lang in claims:
            claims_of.setdefault(ucid, []).append((int(number), text, tuple(int(x) for x in depends_on), lang))
        for key in wanted:
            if key not in chosen:
                self._unknown[key] = None
                while len(self._unknown) > UNKNOWN_KEYS:
                    self._unknown.popitem(last=False)
                continue
            ucid, title, lang = chosen[key]
            rows = claims_of.get(ucid, [])
            langs = sorted({row[3] for row in rows})
            pick = lang if lang in langs else ("EN" if "EN" in langs else (langs[0] if langs else None))
            self._sources[key] = Source(patent_key=key, ucid=ucid, title=_title(title, lang),
                                        claims=tuple((n, t, d) for n, t, d, lg in rows if lg == pick),
                                        suggested_topics=tuple(self._psg.get(key, ())))
            self._citations[key] = ()
        for key, group in groupby(citations, key=lambda row: row[0]):  # the query orders them by patent key
            out: list[Citation] = []
            seen: set[str] = set()
            for _key, citing, cited, categories, claim_list, passages, in_corpus in group:
                if cited in seen:  # the same document cited by the A1 and the A3 report
                    continue
                seen.add(cited)
                passages = list(passages or [])
                words = [p for p in passages if not p.startswith("/")]
                xpaths = [p for p in passages if p.startswith("/")]
                out.append(Citation(len(out) + 1, citing, cited, categories or "",
                                    tuple(int(c) for c in claim_list or ()), "\n".join(words), tuple(xpaths),
                                    bool(in_corpus)))
            self._citations[key] = tuple(out)

    def _document(self, ucid: str) -> CitedDocument | None:
        """A cited document's passages by XPath: abstract(s), description (headings
        marked), claims in the document's language (else English, else the first)."""
        head = self._sql("SELECT title, lang, abstract FROM documents WHERE ucid = ? LIMIT 1", [ucid])
        if not head:
            return None
        title, lang, abstracts = head[0]
        passages: list[Passage] = []
        for index, (abstract_lang, text) in enumerate(_items(abstracts), start=1):
            xpath = "/patent-document/abstract/p[1]" if index == 1 else f"/patent-document/abstract[{index}]/p[1]"
            passages.append(Passage(xpath, "abstract", text, False, f"abstract ({abstract_lang})"))
        for xpath, text, is_heading in self._sql(
                "SELECT xpath, text, is_heading FROM passages WHERE ucid = ? ORDER BY position", [ucid]):
            label = xpath.rsplit("/", 1)[-1]
            if not is_heading:
                label = f"[{int(label[2:-1]):04d}]"
            passages.append(Passage(xpath, "description", text, bool(is_heading), label))
        claims = self._sql("SELECT xpath, number, text, lang FROM claims WHERE ucid = ? ORDER BY lang, number", [ucid])
        langs = sorted({row[3] for row in claims})
        chosen = lang if lang in langs else ("EN" if "EN" in langs else (langs[0] if langs else None))
        for xpath, number, text, claim_lang in claims:
            if claim_lang == chosen:
                passages.append(Passage(xpath, "claims", text, False, f"claim {int(number)}"))
        return CitedDocument(ucid, _title(title, lang), lang or "", tuple(passages))

    def claim_dependencies(self, patent_key: str) -> dict[int, tuple[int, ...]]:
        source = self.source(patent_key)
        return {} if source is None else {n: deps for n, _t, deps in source.claims}


def _key_table(values, column: str = "patent_key"):
    import pyarrow as pa

    return pa.table({column: pa.array(list(values), type=pa.string())})


def _items(value) -> list[tuple[str, str]]:
    if value is None:
        return []
    if isinstance(value, dict):
        return list(value.items())
    return [tuple(item) if not isinstance(item, dict) else (item["key"], item["value"]) for item in value]


def _title(value, lang) -> str:
    items = dict(_items(value))
    return items.get(lang) or items.get("EN") or next(iter(items.values()), "")
