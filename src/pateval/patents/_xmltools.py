"""Small helpers the CLEF-IP and USPTO readers share: XPaths, dates, IPC symbols, names."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from lxml import etree

from .claims import resolve_dependencies
from .records import Claim, Passage
from .safexml import element_text

# Elements that CLEF-IP XPaths always index, even when they are the only one of their
# name (the passage qrels write /patent-document/description/p[1]); containers such as
# description or claims are indexed only when several share a parent (claims[2]).
LEAF_TAGS = frozenset({"p", "heading", "claim"})


def indexed_children(
    parent: etree._Element, parent_path: str, *, leaf_tags: frozenset[str] = LEAF_TAGS
) -> Iterator[tuple[etree._Element, str]]:
    """The element children of ``parent`` with their XPaths in the CLEF-IP convention
    (``leaf_tags`` are always indexed; other formats name their paragraphs otherwise)."""
    children = list(parent.iterchildren(etree.Element))  # elements only, filtered in C
    tags = [child.tag for child in children]
    if len(set(tags)) == len(tags):
        # No tag repeats (most containers): only leaf tags get an index, always [1].
        for child, tag in zip(children, tags, strict=False):
            yield child, (f"{parent_path}/{tag}[1]" if tag in leaf_tags else f"{parent_path}/{tag}")
        return
    totals = Counter(tags)
    seen: dict[str, int] = {}
    for child, tag in zip(children, tags, strict=False):
        count = seen.get(tag, 0) + 1
        seen[tag] = count
        if tag in leaf_tags or totals[tag] > 1:
            yield child, f"{parent_path}/{tag}[{count}]"
        else:
            yield child, f"{parent_path}/{tag}"


_SKIPPED = frozenset({"tables", "maths", "chemistry", "img", "figure"})


def description_passages(description: etree._Element, path: str, lang: str | None, *,
                         paragraph_tags: frozenset[str] = frozenset({"p"}),
                         heading_tags: frozenset[str] = frozenset({"heading"}), skipped_tags: frozenset[str] = _SKIPPED,
                         text_of=element_text) -> list[Passage]:
    """Paragraphs and headings of one description element, at any depth, in order.

    The tag sets default to ICE / CLEF-IP (``p``, ``heading``; tables, formulas,
    chemistry and images skipped); the older USPTO formats pass their own, and
    ``text_of`` when a paragraph carries parts that are not its text (a number).
    """
    passages: list[Passage] = []
    leaf_tags = paragraph_tags | heading_tags | LEAF_TAGS

    def walk(element: etree._Element, element_path: str) -> None:
        for child, child_path in indexed_children(element, element_path, leaf_tags=leaf_tags):
            tag = child.tag
            if tag in paragraph_tags or tag in heading_tags:
                if text := text_of(child):
                    passages.append(Passage(child_path, text, tag in heading_tags, lang))
            elif tag not in skipped_tags:
                walk(child, child_path)

    walk(description, path)
    return passages


def iso_date(text: str | None) -> str | None:
    """``20020206`` -> ``2002-02-06``; None for a missing or non-date value.

    Some files give only year and month (day ``00``); those come out as ``YYYY-MM-00``
    so that they still sort correctly as strings.
    """
    if not text:
        return None
    digits = text.strip().replace("-", "")
    if len(digits) != 8 or not digits.isdigit():
        return None
    return f"{digits[:4]}-{digits[4:6]}-{digits[6:]}"


_IPC_SYMBOL = re.compile(r"([A-H])\s*(\d{2})\s*([A-Z])\s*0*(\d{1,4})\s*/\s*(\d{1,6})")


def ipc_symbol(text: str | None) -> str | None:
    """An IPC symbol from the ways files write it, as ``"G11C 16/04"``.

    Reads CLEF-IP ``classification-ipcr`` text (``"G11C  16/04  20060101CFI..."``), old
    ``main-classification`` values (``"G06F015/00"``, ``"7H01L 21/00"``) and the like.
    Returns None when the text holds no symbol.
    """
    match = _IPC_SYMBOL.search(text.upper()) if text else None
    if match is None:
        return None
    section, klass, subclass, group, subgroup = match.groups()
    return f"{section}{klass}{subclass} {int(group)}/{subgroup}"


def ipc_fields(parent: etree._Element, path: str) -> list[str | None]:
    """The symbols of the old IPC fields (``main-classification``, ``further-classification``) at ``path``."""
    return [ipc_symbol(e.text) for e in parent.iterfind(f"{path}/*")
            if e.tag in ("main-classification", "further-classification")]


def unique(values) -> list:
    """Drop repeats and empty values, keeping the first occurrence's order."""
    return list(dict.fromkeys(value for value in values if value))


def party_name(party: etree._Element) -> str | None:
    """The name of an applicant or inventor: ``name``, ``orgname`` or last, first."""
    book = party.find("addressbook")
    holder = book if book is not None else party
    for tag in ("name", "orgname"):
        if text := child_text(holder, tag):
            return text
    return last_first(child_text(holder, "last-name"), child_text(holder, "first-name"))


def last_first(last: str | None, first: str | None) -> str | None:
    """``last, first`` (the form every reader gives a person's name), else the one part given."""
    if last and first:
        return f"{last}, {first}"
    return last or first or None


def child_text(element: etree._Element | None, path: str) -> str | None:
    """The collapsed text of the first element at ``path`` under ``element``, or None."""
    found = element.find(path) if element is not None else None
    return (element_text(found) or None) if found is not None else None


_LEADING_NUMBER = re.compile(r"\s*(\d+)")


def claim_number(raw: str | None, position: int) -> int:
    """A claim's number from ``@num`` (``"1"``, ``"00001"``, ``"1a"``), else its position."""
    if raw and raw.isdigit():
        return int(raw)
    digits = _LEADING_NUMBER.match(raw or "")
    return int(digits.group(1)) if digits else position


def lang_code(text: str | None) -> str | None:
    """Upper-case language code, or None."""
    return (text.strip().upper() or None) if text else None


_CLAIM_ID = re.compile(r"CLM-0*(\d+)$")


def read_claims(claims_element: etree._Element, claims_path: str, *, claim_tag: str = "claim",
                ref_tag: str = "claim-ref", ref_attribute: str = "idref", id_attribute: str = "id",
                number_from_id: bool = False) -> list[Claim]:
    """The ``claim`` children of a claims element, numbered, with XPaths and dependencies.

    Dependencies come from ``claim-ref`` (an idref naming a claim id, or a range of claims
    ``CLM-00001-00005`` as some USPTO years write) and from the claim text
    (:func:`pateval.patents.claims.resolve_dependencies`). Shared by the CLEF-IP and USPTO readers;
    the older USPTO formats name the elements otherwise (``CLM``/``CLREF ID=``,
    ``dependent-claim-reference depends_on=``) and number claims by their id
    (``number_from_id``: ``CLM-00003`` -> 3, the claim's position when the id is missing or odd).
    """
    numbers: list[int] = []
    paths: list[str] = []
    texts: list[str] = []
    ids: dict[str, int] = {}
    refs: list[list[str]] = []
    # Most claim sets mark no reference (CLEF-IP says them in words): one look for any.
    has_refs = next(claims_element.iter(ref_tag), None) is not None
    children = indexed_children(claims_element, claims_path, leaf_tags=LEAF_TAGS | {claim_tag})
    claim_elements = [(child, path) for child, path in children if child.tag == claim_tag]
    for position, (child, path) in enumerate(claim_elements, start=1):
        if number_from_id:
            match = _CLAIM_ID.search(child.get(id_attribute) or "")
            number = int(match.group(1)) if match else position
        else:
            number = claim_number(child.get("num"), position)
        numbers.append(number)
        paths.append(path)
        texts.append(element_text(child))
        if child.get(id_attribute):
            ids[child.get(id_attribute)] = number
        refs.append([r.get(ref_attribute, "") for r in child.iter(ref_tag)] if has_refs else [])
    targets = []
    for claim_refs in refs:
        resolved = []
        for idref in claim_refs:
            head, _, tail = idref.rpartition("-")
            if idref in ids:
                resolved.append(ids[idref])
            elif idref.count("-") == 2 and head in ids:
                first = ids[head]
                if tail.isdigit() and int(tail) >= first:
                    resolved.extend(range(first, int(tail) + 1))
        targets.append(resolved)
    dependencies = resolve_dependencies(numbers, texts, targets)
    return [Claim(n, p, t, d) for n, p, t, d in zip(numbers, paths, texts, dependencies, strict=False)]


def texts_by_language(root: etree._Element, lang_of: Callable[[etree._Element], str | None], *,
                      description_tag: str = "description", claims_tag: str = "claims", claims_of=read_claims,
                      **passage_tags: Any) -> tuple[list[Passage], dict[str, list[Claim]]]:
    """The passages of every ``description_tag`` child of ``root`` (:func:`description_passages`
    with ``passage_tags``) and the claims of its first ``claims_tag`` child in each language
    (``claims_of(element, path)``), ``lang_of(element)`` giving an element's language: the
    formats differ only in these names."""
    description: list[Passage] = []
    claims: dict[str, list[Claim]] = {}
    for child, path in indexed_children(root, f"/{root.tag}"):
        if child.tag == description_tag:
            description.extend(description_passages(child, path, lang_of(child), **passage_tags))
        elif child.tag == claims_tag and (lang := lang_of(child) or "") not in claims:
            claims[lang] = claims_of(child, path)
    return description, claims


_IPC_FIXED_WIDTH = re.compile(r"([A-H]\d{2}[A-Z])([ \d]{3})(\d{2,6})")


def ipc_fixed_width(text: str | None) -> str | None:
    """An IPC symbol as the USPTO wrote it before 2005, in fixed-width fields without a
    slash: four characters of subclass, the main group right-aligned in three, the
    subgroup after (``"G06F 1516"`` -> ``"G06F 15/16"``, ``"B60R  900"`` -> ``"B60R 9/00"``).
    A symbol written with a slash is read by :func:`ipc_symbol`. None when neither fits.
    """
    if not text:
        return None
    if "/" in text:
        return ipc_symbol(text)
    match = _IPC_FIXED_WIDTH.fullmatch(text.strip().upper())
    if match is None or not match.group(2).strip().isdigit():
        return None
    subclass, group, subgroup = match.groups()
    return f"{subclass} {int(group)}/{subgroup}"
