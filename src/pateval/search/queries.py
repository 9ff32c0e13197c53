"""Query formulation from a topic patent: the strategies of the seed papers, each named.

A strategy is written as parts of the topic joined with ``+``, then options, separated by
commas -- the same string is the strategy's name in run tags::

    title                     the title only
    claims                    the claims only (seed 000, section 5.1)
    title+claims              claims with the title added
    full                      the whole application: title, abstract, claims, description
    claims,top=50             the 50 terms of the claims with the highest tf-idf (per language)
    full,mindf=2,maxdf=0.05   terms in fewer than 2 documents or more than 5 % of them dropped
    claims,ipc=filter         only documents sharing an IPC subclass with the topic
    claims,ipc=boost,ipcw=0.2 documents sharing a subclass get 0.2 times the score range of
                              the ranked candidates added (default 0.1), whatever the model
    claims,split=claims,merge=rrf
                              one query per independent claim, rankings merged by
                              reciprocal rank fusion (``sum`` and ``max`` of max-normalised
                              scores are the other merges)
    full,w.claims=2,w.title=3 field weights (default 1 each) for the documents' fields

Each part is taken in every language the topic has it in (a granted topic has claims in
English, German and French) and analysed by that language's analyzer; query terms are
weighted by their count. Terms that the index does not know are dropped (they match
nothing).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import ParameterError
from ..patents.records import PatentDocument
from .analyzers import TEXT_FIELDS, analyze, language_of

__all__ = ["QuerySpec", "Query", "parse_query_spec", "formulate", "topic_texts", "SEED_QUERY_GRID"]

_IPC_MODES = ("none", "filter", "boost")
_SPLITS = ("none", "claims")
_MERGES = ("sum", "max", "rrf")
# option name in a strategy -> (QuerySpec field, parser)
_OPTIONS = {"top": ("top", int), "mindf": ("min_df", int), "maxdf": ("max_df", float), "ipc": ("ipc", str),
            "ipcw": ("ipc_weight", float), "split": ("split", str), "merge": ("merge", str)}


@dataclass(frozen=True)
class QuerySpec:
    """A query formulation strategy (see the module text for the names).

    Attributes
    ----------
    parts : tuple of str
        Which parts of the topic make the query: ``title``, ``abstract``, ``claims``,
        ``description`` (``full`` is all four).
    top : int or None
        Keep only the ``top`` terms by tf-idf (query count times ln(N / df)), per language.
    min_df : int
        Drop terms found in fewer documents (too rare to help; typos, numbers).
    max_df : float
        Drop terms found in more than this share of the documents (too common).
    ipc : {"none", "filter", "boost"}
        Use the topic's IPC subclasses to filter or to boost documents.
    ipc_weight : float
        ``boost`` adds this share of the candidates' score range (best minus worst) to the
        score of each document sharing a subclass: a boost in the same proportion for
        every model, whose scores have different scales.
    split : {"none", "claims"}
        ``claims``: one query per independent claim (with the other parts), merged.
    merge : {"sum", "max", "rrf"}
        How the rankings of several queries merge.
    field_weights : tuple of (field, weight)
        Weights of the documents' fields (default 1 each).
    """

    parts: tuple[str, ...] = ("claims",)
    top: int | None = None
    min_df: int = 1
    max_df: float = 1.0
    ipc: str = "none"
    ipc_weight: float = 0.1
    split: str = "none"
    merge: str = "sum"
    field_weights: tuple[tuple[str, float], ...] = tuple((f, 1.0) for f in TEXT_FIELDS)

    def __post_init__(self) -> None:
        if not self.parts or any(p not in TEXT_FIELDS for p in self.parts):
            raise ParameterError(f"query parts must be among {', '.join(TEXT_FIELDS)} (or 'full'); got {self.parts!r}")
        if self.top is not None and self.top < 1:
            raise ParameterError(f"query option top must be >= 1; got {self.top}")
        if not self.ipc_weight >= 0:
            raise ParameterError(f"query option ipcw must be >= 0; got {self.ipc_weight}")
        if self.min_df < 0 or not 0 < self.max_df <= 1:
            raise ParameterError(f"query options need mindf >= 0 and 0 < maxdf <= 1; got {self.min_df}, {self.max_df}")
        for name, value, allowed in (("ipc", self.ipc, _IPC_MODES), ("split", self.split, _SPLITS),
                                     ("merge", self.merge, _MERGES)):
            if value not in allowed:
                raise ParameterError(f"query option {name} must be one of {', '.join(allowed)}; got {value!r}")
        if any(w < 0 for _, w in self.field_weights) or not any(w > 0 for _, w in self.field_weights):
            raise ParameterError("field weights must be >= 0, at least one > 0")

    @property
    def weights(self) -> dict[str, float]:
        return dict(self.field_weights)

    @property
    def name(self) -> str:
        """The canonical name (parses back to the same strategy)."""
        parts = "full" if set(self.parts) == set(TEXT_FIELDS) else "+".join(p for p in TEXT_FIELDS if p in self.parts)
        # each option only where it differs from its default
        optional = ((self.top is not None, f"top={self.top}"), (self.min_df != 1, f"mindf={self.min_df}"),
                    (self.max_df != 1.0, f"maxdf={self.max_df:g}"), (self.ipc != "none", f"ipc={self.ipc}"),
                    (self.ipc == "boost" and self.ipc_weight != 0.1, f"ipcw={self.ipc_weight:g}"),
                    (self.split != "none", f"split={self.split}"), (self.split != "none", f"merge={self.merge}"),
                    *((w != 1.0, f"w.{f}={w:g}") for f, w in self.field_weights))
        return ",".join([parts, *(text for wanted, text in optional if wanted)])


def parse_query_spec(text) -> QuerySpec:
    """A :class:`QuerySpec` from its name (or a QuerySpec, returned as it is).

    Examples
    --------
    >>> parse_query_spec("title+claims,top=100").name
    'title+claims,top=100'
    >>> parse_query_spec("full").parts
    ('title', 'abstract', 'claims', 'description')
    """
    if isinstance(text, QuerySpec):
        return text
    items = [item.strip() for item in str(text).strip().lower().split(",")]
    if not items or not items[0]:
        raise ParameterError("a query strategy needs its parts, e.g. 'claims' or 'title+claims'")
    head = items[0]
    parts = TEXT_FIELDS if head == "full" else tuple(p.strip() for p in head.split("+"))
    if len(set(parts)) != len(parts):
        raise ParameterError(f"query parts repeat: {head!r}")
    values: dict = {"parts": tuple(p for p in TEXT_FIELDS if p in parts) if set(parts) <= set(TEXT_FIELDS) else parts}
    weights = dict(QuerySpec().field_weights)
    for item in items[1:]:
        key, sep, value = item.partition("=")
        if not sep:
            raise ParameterError(f"query option {item!r} is not KEY=VALUE")
        if key in _OPTIONS:
            name, parse, target = *_OPTIONS[key], values
        elif key.startswith("w.") and key[2:] in TEXT_FIELDS:
            name, parse, target = key[2:], float, weights
        else:
            raise ParameterError(f"unknown query option {key!r} (top, mindf, maxdf, ipc, ipcw, split, merge, w.FIELD)")
        try:
            target[name] = parse(value)
        except ValueError:
            raise ParameterError(f"query option {key}: not a number: {value!r}") from None
    values["field_weights"] = tuple((f, weights[f]) for f in TEXT_FIELDS)
    return QuerySpec(**values)


#: The seeds' grid of query strategies (with the three models, 33 runs as in the Cube Test paper).
SEED_QUERY_GRID = (
    "title", "claims", "title+claims", "full", "claims,top=50", "full,top=100",
    "claims,mindf=2,maxdf=0.05", "claims,ipc=filter", "claims,ipc=boost", "claims,split=claims,merge=rrf",
    "title+claims,w.claims=2,w.title=2",
)


@dataclass
class Query:
    """One formulated query: terms per analyzer language, weighted by count."""

    terms: dict[str, dict[str, float]]
    ipc: tuple[str, ...] = ()
    label: str = ""

    def __len__(self) -> int:
        return sum(len(t) for t in self.terms.values())


def topic_texts(topic: PatentDocument, part: str, *,
                claim_numbers: Iterable[int] | None = None) -> dict[str, list[str]]:
    """The texts of one part of a topic, by analyzer language.

    ``claim_numbers`` restricts the claims part to those claims.
    """
    if part in ("title", "abstract"):
        pairs = list(getattr(topic, part).items())  # (language, text)
    elif part == "claims":
        wanted = set(claim_numbers) if claim_numbers is not None else None
        pairs = [(lang, claim.text) for lang, claims in topic.claims.items() for claim in claims
                 if wanted is None or claim.number in wanted]
    elif part == "description":
        pairs = [(passage.lang, passage.text) for passage in topic.description]
    else:
        raise ParameterError(f"unknown topic part {part!r}")
    texts: dict[str, list[str]] = {}
    for lang, text in pairs:
        if text:
            texts.setdefault(language_of(lang or topic.lang), []).append(text)
    return texts


def _counts(topic: PatentDocument, parts: Iterable[str], claim_numbers=None) -> dict[str, Counter]:
    counts: dict[str, Counter] = {}
    for part in parts:
        for lang, texts in topic_texts(topic, part, claim_numbers=claim_numbers).items():
            bag = counts.setdefault(lang, Counter())
            for text in texts:
                bag.update(analyze(text, lang))
    return counts


def _select(index, counts: dict[str, Counter], spec: QuerySpec) -> dict[str, dict[str, float]]:
    n_docs = index.num_docs
    selected: dict[str, dict[str, float]] = {}
    for lang, bag in counts.items():
        vocab = index.vocab(lang)
        df_all, _ = index.language_stats(lang)
        kept = []
        for term, count in bag.items():
            term_id = vocab.get(term)
            df = int(df_all[term_id]) if term_id is not None else 0
            if df == 0 or df < spec.min_df or df > spec.max_df * n_docs:
                continue
            kept.append((term, float(count), count * math.log(n_docs / df)))
        if spec.top is not None:
            # highest tf-idf first; ties broken by the term so that the choice is deterministic
            kept.sort(key=lambda item: (-item[2], item[0]))
            kept = kept[: spec.top]
        if kept:
            selected[lang] = {term: count for term, count, _ in kept}
    return selected


def formulate(topic: PatentDocument, spec, index) -> list[Query]:
    """The queries of a topic under a strategy (one, or one per independent claim).

    Parameters
    ----------
    topic : PatentDocument
    spec : QuerySpec or str
    index : SearchIndex
        For document frequencies (tf-idf term selection, df filters) and the vocabulary.

    Returns
    -------
    list of Query
        Empty queries are left out; the list is empty when nothing of the topic is usable.
    """
    spec = parse_query_spec(spec)
    ipc = tuple(topic.ipc_prefixes("subclass")) if spec.ipc != "none" else ()
    if spec.split == "claims" and "claims" in spec.parts:
        others = [p for p in spec.parts if p != "claims"]
        numbers = sorted({c.number for claims in topic.claims.values() for c in claims if c.is_independent})
        queries = []
        for number in numbers:  # claim_numbers restricts the claims part only
            if terms := _select(index, _counts(topic, [*others, "claims"], claim_numbers=[number]), spec):
                queries.append(Query(terms, ipc, label=f"claim {number}"))
        if queries:
            return queries
    terms = _select(index, _counts(topic, spec.parts), spec)
    return [Query(terms, ipc, label=spec.name)] if terms else []
