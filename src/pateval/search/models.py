"""Ranking models: BM25 from the engine, and exact re-scoring of its candidates.

tantivy ranks with BM25 only, with k1 = 1.2 and b = 0.75 fixed. The other models of the
seed papers' Lemur runs are computed here, exactly, over a *candidate set*: the engine's
top N documents (N = ``candidates``, 2,000 by default) for the disjunction of all query
terms, which holds every document the model could rank high unless it matches the query
very weakly. Scores come from the statistics written beside the index
(:mod:`pateval.search.index`): exact term frequencies and field lengths per document,
document and collection frequencies per term.

Models
------
``bm25`` (k1, b)
    Sum over fields of field-weighted BM25, as tantivy computes it: idf = ln(1 + (N - df +
    0.5) / (df + 0.5)) with df per field, tf part (k1 + 1) tf / (tf + k1 (1 - b + b dl /
    avgdl)) with avgdl per field over all documents, query terms weighted by their count.
    With the engine's own k1 = 1.2, b = 0.75 the engine's scores are used as they are;
    other values re-score the candidates (exact lengths, where tantivy rounds lengths
    above 40 tokens to one byte -- the two agree to a few per cent).
``lm`` (mu)
    Query likelihood with Dirichlet smoothing (Zhai & Lafferty 2001), in its rank-equivalent
    form sum_t qtf ln(1 + tf / (mu P(t|C))) + |q| ln(mu / (|d| + mu)). Per language, the
    fields are concatenated with their weights (tf = sum_f w_f tf_f, |d| = sum_f w_f |d_f|);
    P(t|C) is the term's share of all tokens of the language.
``tfidf`` (k1, b)
    Lemur's TF-IDF: document term weight k1 tf / (tf + k1 (1 - b + b |d| / avgdl)) with
    Lemur's defaults k1 = 1, b = 0.3, query term weight 1000 qtf / (qtf + 1000), both
    multiplied by idf = ln((N + 1) / (df + 0.5)), scores the dot product. Fields concatenated
    with their weights as for ``lm``.

Query terms of several languages add up: a query holds terms per analyzer language, each
scored against the fields of that language.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .analyzers import TEXT_FIELDS

__all__ = ["BM25", "LMDirichlet", "TFIDF", "MODELS", "parse_model", "rescore", "ENGINE_K1", "ENGINE_B"]

#: tantivy's BM25 parameters (fixed in the engine).
ENGINE_K1 = 1.2
ENGINE_B = 0.75


@dataclass(frozen=True)
class BM25:
    """Okapi BM25 (Robertson et al.), per field, field scores added with their weights."""

    k1: float = ENGINE_K1
    b: float = ENGINE_B

    def __post_init__(self) -> None:
        if not self.k1 > 0 or not 0 <= self.b <= 1:
            raise ParameterError(f"bm25 needs k1 > 0 and 0 <= b <= 1; got k1={self.k1}, b={self.b}")

    @property
    def native(self) -> bool:
        """True when the engine computes this model itself."""
        return math.isclose(self.k1, ENGINE_K1) and math.isclose(self.b, ENGINE_B)

    @property
    def tag(self) -> str:
        return "bm25" if self.native else f"bm25-k1={self.k1:g}-b={self.b:g}"


@dataclass(frozen=True)
class LMDirichlet:
    """Query likelihood with Dirichlet-prior smoothing."""

    mu: float = 2000.0

    def __post_init__(self) -> None:
        if not self.mu > 0:
            raise ParameterError(f"lm needs mu > 0; got mu={self.mu}")

    native = False

    @property
    def tag(self) -> str:
        return "lm" if self.mu == 2000.0 else f"lm-mu={self.mu:g}"


@dataclass(frozen=True)
class TFIDF:
    """Lemur's TF-IDF with Okapi-style tf normalisation."""

    k1: float = 1.0
    b: float = 0.3

    def __post_init__(self) -> None:
        if not self.k1 > 0 or not 0 <= self.b <= 1:
            raise ParameterError(f"tfidf needs k1 > 0 and 0 <= b <= 1; got k1={self.k1}, b={self.b}")

    native = False

    @property
    def tag(self) -> str:
        return "tfidf" if (self.k1, self.b) == (1.0, 0.3) else f"tfidf-k1={self.k1:g}-b={self.b:g}"


MODELS = {"bm25": (BM25, ("k1", "b")), "lm": (LMDirichlet, ("mu",)), "tfidf": (TFIDF, ("k1", "b"))}
_QUERY_K1 = 1000.0  # Lemur's query-side tf saturation for TF-IDF


def parse_model(spec) -> BM25 | LMDirichlet | TFIDF:
    """A model from its name and optional parameters: ``bm25``, ``bm25:k1=0.9,b=0.4``,
    ``lm:mu=1000``, ``tfidf`` (also accepts a model object).

    Examples
    --------
    >>> parse_model("bm25:k1=0.9,b=0.4").tag
    'bm25-k1=0.9-b=0.4'
    >>> parse_model("lm").mu
    2000.0
    """
    if isinstance(spec, (BM25, LMDirichlet, TFIDF)):
        return spec
    text = str(spec).strip().lower()
    name, _, params = text.partition(":")
    # run tags write parameters with '-' (bm25-k1=0.9-b=0.4): accept that spelling back
    if "-" in name and not params:
        name, _, params = name.partition("-")
        params = params.replace("-", ",")
    if name not in MODELS:
        raise ParameterError(f"model must be one of {', '.join(MODELS)} (with optional :param=value,...); got {spec!r}")
    cls, allowed = MODELS[name]
    values = {}
    for item in filter(None, re.split(r"[,;]", params)):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in allowed:
            raise ParameterError(f"model {name} takes {', '.join(f'{a}=VALUE' for a in allowed)}; got {item!r}")
        try:
            values[key] = float(value)
        except ValueError:
            raise ParameterError(f"model {name}: {key} must be a number; got {value!r}") from None
    return cls(**values)


# ---- re-scoring -----------------------------------------------------------------------------


def _term_ids(index, lang: str, terms: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    vocab = index.vocab(lang)
    known = [(vocab[term], weight) for term, weight in terms.items() if term in vocab]
    return np.asarray([i for i, _ in known], dtype=np.int64), np.asarray([w for _, w in known], dtype=np.float64)


def _tf(stats, rows: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Dense term frequencies, rows x query terms."""
    return stats.matrix[rows][:, ids].toarray().astype(np.float64)


def rescore(index, model, query_terms: dict[str, dict[str, float]], rows: np.ndarray,
            field_weights: dict[str, float]) -> np.ndarray:
    """Scores of the documents ``rows`` for a query under ``model``, from the index's statistics.

    Parameters
    ----------
    index : SearchIndex
    model : BM25, LMDirichlet or TFIDF
    query_terms : dict
        analyzer language -> {term: weight (query term count)}.
    rows : ndarray of int
        The candidate documents.
    field_weights : dict
        text field -> weight (fields with weight 0 are left out).

    Returns
    -------
    ndarray of float64, one score per row.
    """
    rows = np.asarray(rows, dtype=np.int64)
    scores = np.zeros(len(rows), dtype=np.float64)
    if len(rows) == 0:
        return scores
    n_docs = index.num_docs
    fields = [(f, w) for f, w in ((f, field_weights.get(f, 0.0)) for f in TEXT_FIELDS) if w > 0]
    for lang, terms in query_terms.items():
        ids, qtf = _term_ids(index, lang, terms)
        if len(ids) == 0:
            continue
        if isinstance(model, BM25):
            for text_field, weight in fields:
                stats = index.field_stats(text_field, lang)
                df = stats.df[ids].astype(np.float64)
                if not (present := df > 0).any():
                    continue
                idf = np.log1p((n_docs - df[present] + 0.5) / (df[present] + 0.5))
                tf = _tf(stats, rows, ids[present])
                norm = model.k1 * (1 - model.b + model.b * stats.lengths[rows] / stats.average_length)
                with np.errstate(invalid="ignore", divide="ignore"):  # b = 1 and an empty field: 0 / 0
                    part = np.nan_to_num(tf * (model.k1 + 1) / (tf + norm[:, None]))
                scores += weight * part @ (idf * qtf[present])
            continue
        # lm and tfidf: the fields of a language concatenated with their weights
        tf = np.zeros((len(rows), len(ids)))
        length = np.zeros(len(rows))
        average = 0.0
        for text_field, weight in fields:
            stats = index.field_stats(text_field, lang)
            tf += weight * _tf(stats, rows, ids)
            length += weight * stats.lengths[rows]
            average += weight * stats.average_length
        df_all, ctf_all = index.language_stats(lang)
        if isinstance(model, LMDirichlet):
            total = float(ctf_all.sum())
            ctf = ctf_all[ids].astype(np.float64)
            if not (present := ctf > 0).any():
                continue
            background = ctf[present] / total
            scores += np.log1p(tf[:, present] / (model.mu * background)) @ qtf[present]
            scores += qtf[present].sum() * np.log(model.mu / (length + model.mu))
        elif isinstance(model, TFIDF):
            if average <= 0:
                continue
            idf = np.log((n_docs + 1) / (df_all[ids] + 0.5))
            with np.errstate(invalid="ignore", divide="ignore"):  # b = 1 and an empty document: 0 / 0
                doc_weight = np.nan_to_num(
                    model.k1 * tf / (tf + model.k1 * (1 - model.b + model.b * length / average)[:, None]))
            query_weight = _QUERY_K1 * qtf / (qtf + _QUERY_K1)
            scores += doc_weight @ (query_weight * idf * idf)
        else:
            raise ParameterError(f"unknown model {model!r}")
    return scores
