"""Step 6: topic files in the CLEF-IP formats.

PAC (prior-art candidate) topics
    One virtual patent file per topic, named as in CLEF-IP 2010 (``PAC-1_EP-1221372-B1.xml``):
    the highest B publication with the abstract of the highest A publication and no
    citations (Roda et al.); and a topics file in the 2011 style, one block per topic::

        <topic>
        <num>PAC-1</num>
        <narr>Find all patents in the collection that potentially invalidate patent EP-1221372.</narr>
        <file>PAC-1_EP-1221372-B1.xml</file>
        </topic>

PSG (passage) topics, CLEF-IP 2012/2013
    Blocks ``<tid>PSG-2</tid> <tfile>EP-1445439-A1.xml</tfile> <tfam-docs>...</tfam-docs>
    <tclaims>/patent-document/claims/claim[1] ...</tclaims>`` and the topic files (the
    application, citations removed).

The files are written from the corpus store's tables, never by re-reading the XML.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from ..formats.atomic import atomic_output

__all__ = ["TopicDocument", "load_topic_documents", "render_patent_xml", "write_pac_topics", "write_psg_topics",
           "earlier_family_files"]

_DOCTYPE = ('<!DOCTYPE patent-document PUBLIC "-//MXW//DTD patent-document XML//EN" '
            '"http://www.ir-facility.org/dtds/patents/v1.4/patent-document.dtd">')


@dataclass
class TopicDocument:
    """The parts of one publication needed to write it as a topic file."""

    ucid: str
    country: str
    doc_number: str
    kind: str
    lang: str | None
    date: str | None
    family_id: str | None
    ipc: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    abstracts: dict[str, str] = field(default_factory=dict)
    description: list[tuple[str, str, bool]] = field(default_factory=list)  # (xpath, text, is_heading)
    claims: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # lang -> (number, text)


def load_topic_documents(con, ucids: Iterable[str]) -> dict[str, TopicDocument]:
    """Read the publications ``ucids`` from the store's tables (one query per table)."""
    wanted = sorted(set(u for u in ucids if u))
    if not wanted:
        return {}
    import pandas as pd

    con.register("_wanted_frame", pd.DataFrame({"ucid": wanted}))
    con.execute("CREATE OR REPLACE TEMP TABLE _wanted AS SELECT ucid FROM _wanted_frame")
    con.unregister("_wanted_frame")
    docs: dict[str, TopicDocument] = {}
    for ucid, country, number, kind, lang, date, family_id, ipc in con.execute(
        """SELECT d.ucid, d.country, d.doc_number, d.kind, d.lang, d.date, d.family_id, d.ipc
           FROM documents d JOIN _wanted USING (ucid)"""
    ).fetchall():
        docs[ucid] = TopicDocument(ucid, country, number, kind, lang, date, family_id, list(ipc or []))
    for table in ("titles", "abstracts"):  # each a table and a TopicDocument field
        for ucid, lang, text in con.execute(
            f"SELECT t.ucid, t.lang, t.text FROM {table} t JOIN _wanted USING (ucid) ORDER BY t.ucid, t.lang"
        ).fetchall():
            getattr(docs[ucid], table)[lang] = text
    for ucid, xpath, text, is_heading in con.execute(
        """SELECT p.ucid, p.xpath, p.text, p.is_heading FROM passages p JOIN _wanted USING (ucid)
           ORDER BY p.ucid, p.position"""
    ).fetchall():
        docs[ucid].description.append((xpath, text, bool(is_heading)))
    for ucid, lang, number, text in con.execute(
        """SELECT c.ucid, c.lang, c.number, c.text FROM claims c JOIN _wanted USING (ucid)
           ORDER BY c.ucid, c.position"""
    ).fetchall():
        docs[ucid].claims.setdefault(lang, []).append((int(number), text))
    return docs


def render_patent_xml(document: TopicDocument, *, abstract_from: TopicDocument | None = None,
                      claim_langs: Sequence[str] | None = None) -> str:
    """A CLEF-IP ``patent-document`` for a topic: bibliographic data without citations,
    abstract (from ``abstract_from`` when the document has none: Roda et al.'s virtual
    file), description, claims.

    Parameters
    ----------
    document : TopicDocument
    abstract_from : TopicDocument, optional
        The publication whose abstract to use when ``document`` has none.
    claim_langs : sequence of str, optional
        Claims elements to write, in order (default: all, DE/EN/FR order as in B files).
    """
    country, number, kind = document.country, document.doc_number, document.kind
    date = (document.date or "").replace("-", "")
    attributes = {"ucid": document.ucid, "country": country, "doc-number": number, "kind": kind}
    optional = {"lang": document.lang, "date": date, "family-id": document.family_id}
    attributes.update({name: value for name, value in optional.items() if value})
    head = " ".join(f"{name}={quoteattr(value)}" for name, value in attributes.items())
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n', _DOCTYPE, "\n", f'<patent-document {head} status="new">',
        f'<bibliographic-data><publication-reference ucid={quoteattr(document.ucid)} status="new" fvid="0">'
        f'<document-id status="new" format="original"><country>{escape(country)}</country>'
        f"<doc-number>{escape(number)}</doc-number><kind>{escape(kind)}</kind>"
        + (f"<date>{date}</date>" if date else "")
        + '</document-id></publication-reference><technical-data status="new">',
    ]
    if document.ipc:
        parts.extend(["<classifications-ipcr>",
                      *(f'<classification-ipcr status="new">{escape(s)}</classification-ipcr>' for s in document.ipc),
                      "</classifications-ipcr>"])
    for lang, title in sorted(document.titles.items()):
        parts.append(f'<invention-title lang="{escape(lang)}" status="new">{escape(title)}</invention-title>')
    parts.append("</technical-data></bibliographic-data>")
    abstracts = document.abstracts or (abstract_from.abstracts if abstract_from is not None else {})
    for lang, text in sorted(abstracts.items()):
        parts.append(f'<abstract lang="{escape(lang)}" status="new"><p>{escape(text)}</p></abstract>')
    if document.description:
        lang_attr = f' lang="{escape(document.lang)}"' if document.lang else ""
        parts.append(f'<description{lang_attr} status="new">')
        paragraph = 0
        for _xpath, text, is_heading in document.description:
            if is_heading:
                parts.append(f"<heading>{escape(text)}</heading>")
            else:
                paragraph += 1
                parts.append(f'<p num="{paragraph:04d}">{escape(text)}</p>')
        parts.append("</description>")
    langs = list(claim_langs) if claim_langs is not None else sorted(document.claims)
    for lang in langs:
        claims = document.claims.get(lang)
        if not claims:
            continue
        parts.append(f'<claims lang="{escape(lang)}" status="new">')
        parts.extend(f'<claim num="{n}"><claim-text>{escape(text)}</claim-text></claim>' for n, text in claims)
        parts.append("</claims>")
    parts.append("</patent-document>\n")
    return "".join(parts)


def pac_file_name(qid: str, ucid: str) -> str:
    """``PAC-1_EP-1221372-B1.xml`` (the CLEF-IP 2010 topic file name)."""
    return f"{qid}_{ucid}.xml"


def write_pac_topics(out_dir: str | os.PathLike[str], topics, documents: Mapping[str, TopicDocument]) -> Path:
    """Write the virtual topic files under ``out_dir/topics/PAC`` and ``topics_PAC.xml``.

    Parameters
    ----------
    topics : pandas.DataFrame
        ``qid``, ``patent_key``, ``topic_ucid`` (the B, else the A), ``abstract_ucid``.
    documents : mapping
        ucid -> :class:`TopicDocument` for every topic and abstract publication.

    Returns
    -------
    pathlib.Path
        The topics file.
    """
    root = Path(out_dir)
    blocks = []
    for qid, topic_ucid, abstract_ucid in topics[["qid", "topic_ucid", "abstract_ucid"]].itertuples(index=False):
        document = documents[topic_ucid]
        abstract_doc = documents.get(abstract_ucid) if isinstance(abstract_ucid, str) else None
        name = pac_file_name(qid, topic_ucid)
        with atomic_output(root / "topics" / "PAC" / name) as handle:
            handle.write(render_patent_xml(document, abstract_from=abstract_doc))
        patent = f"{document.country}-{document.doc_number}"
        blocks.append(
            f"<topic>\n<num>{escape(qid)}</num>\n<narr>Find all patents in the collection that potentially "
            f"invalidate patent {escape(patent)}.</narr>\n<file>{escape(name)}</file>\n</topic>\n"
        )
    path = root / "topics_PAC.xml"
    with atomic_output(path) as handle:
        handle.write("<topics>\n" + "".join(blocks) + "</topics>\n")
    return path


def earlier_family_files(con, keys: str) -> dict[str, list[str]]:
    """Patent key -> the corpus documents of other patents of its family published before it
    (``tfam-docs``), for each ``patent_key`` of the relation ``keys``."""
    family_files: dict[str, list[str]] = {}
    for patent_key, ucid in con.execute(
        f"""SELECT k.patent_key, d.ucid FROM {keys} k
           JOIN patents p ON p.patent_key = k.patent_key
           JOIN doc_part d ON d.family_id = p.family_id AND d.patent_key <> k.patent_key
           WHERE d.part = 'corpus' AND d.date < p.first_date ORDER BY k.patent_key, d.date, d.ucid"""
    ).fetchall():
        family_files.setdefault(patent_key, []).append(ucid)
    return family_files


def write_psg_topics(out_dir: str | os.PathLike[str], topics, documents: Mapping[str, TopicDocument],
                     family_files: Mapping[str, Sequence[str]]) -> Path:
    """Write the passage topics file ``topics_PSG.txt`` (2013 style, with tfam-docs) and
    the topic documents under ``out_dir/topics/PSG``.

    Parameters
    ----------
    topics : pandas.DataFrame
        ``qid``, ``patent_key``, ``tfile_ucid``, ``claims`` (claim numbers).
    documents : mapping
        ucid -> :class:`TopicDocument` of every topic file.
    family_files : mapping
        patent key -> ucids of the earlier family documents (``tfam-docs``).
    """
    root = Path(out_dir)
    written: set[str] = set()
    blocks = []
    for qid, patent_key, tfile, claims in topics[["qid", "patent_key", "tfile_ucid", "claims"]].itertuples(index=False):
        document = documents[tfile]
        lang = document.lang if document.lang in document.claims else next(iter(sorted(document.claims)), None)
        if tfile not in written:
            with atomic_output(root / "topics" / "PSG" / f"{tfile}.xml") as handle:
                handle.write(render_patent_xml(document, claim_langs=[lang] if lang else []))
            written.add(tfile)
        # In the written file there is one claims element, so claim[n] is the n-th claim.
        in_file = document.claims.get(lang, []) if lang is not None else []
        positions = {number: index for index, (number, _text) in enumerate(in_file, start=1)}
        xpaths = " ".join(f"/patent-document/claims/claim[{positions[n]}]" for n in claims if n in positions)
        family = " ".join(f"{ucid}.xml" for ucid in family_files.get(patent_key, ()))
        blocks.append(f"<tid>{qid}</tid>\n<tfile>{tfile}.xml</tfile>\n<tfam-docs>{family}</tfam-docs>\n"
                      f"<tclaims>{xpaths} </tclaims>\n")
    path = root / "topics_PSG.txt"
    with atomic_output(path) as handle:
        handle.write("\n".join(blocks))
    return path
