"""pateval in PyTerrier: patent baselines as transformers, topics as a frame, paired tests.

PyTerrier's ``pt.Experiment`` runs on DataFrames without starting Java, and scores with
ir_measures; importing this module imports :mod:`pateval.ir_measures`, so pateval's
measures (``"PRES@100"``, ``"TBG"``, ``"CT(gamma=0.5)@10"``) go into ``eval_metrics``.

- :func:`topics` -- a built collection's prior-art topics as PyTerrier's ``(qid, query)``
  frame; a ``patent`` column carries each topic document, from which pateval's query
  strategies formulate queries.
- :class:`TantivyRetriever` -- pateval's tantivy baselines (``bm25``, ``lm:mu=2000``,
  ``tfidf`` ..., with any query strategy such as ``claims`` or ``title+claims,top=100``) as a
  ``pt.Transformer`` from that frame to PyTerrier results (``qid, docno, score, rank``).
- :class:`PairedTest` (and :func:`randomisation`, :func:`bootstrap`) -- pateval's paired
  tests as ``pt.Experiment(test=...)``: seeded, with the number of resamples B.
- :func:`qrels` -- a collection's document-level qrels as PyTerrier's ``(qid, docno, label)``.

Example (a PISA or Terrier run frame can stand beside the baselines in the same list)::

    import pyterrier as pt
    import pateval.pyterrier as ppt

    topics = ppt.topics("collection")
    bm25 = ppt.TantivyRetriever("index", model="bm25", query="claims")
    lm = ppt.TantivyRetriever("index", model="lm", query="claims")
    pt.Experiment([bm25, lm], topics, ppt.qrels("collection"), ["AP", "PRES@100"],
                  names=["bm25", "lm"], baseline=0, test=ppt.randomisation(B=10000, seed=1))
"""

from __future__ import annotations

import inspect
import os
from collections import namedtuple

import numpy as np
import pandas as pd
import pyterrier as pt

from . import ir_measures as _register_measures  # noqa: F401  (pateval's measures in ir_measures)
from .errors import ParameterError

__all__ = ["topics", "qrels", "measures", "TantivyRetriever", "PairedTest", "randomisation", "bootstrap"]

#: What a PyTerrier test function returns: ``result[1]`` is the p-value (as scipy's tests).
PairedTestOutcome = namedtuple("PairedTestOutcome", ["statistic", "pvalue"])


def _query_text(document) -> str:
    titles = document.title or {}
    for lang in ("EN", document.lang, *titles):
        if lang in titles and titles[lang]:
            return " ".join(titles[lang].split())
    return ""


def measures(*names: str) -> list:
    """ir_measures measure objects for ``pt.Experiment(eval_metrics=...)``.

    PyTerrier reads strings in ``eval_metrics`` as trec_eval names only (``map``,
    ``ndcg_cut_10``); pass measure objects for anything else. Names are read in
    ir_measures' syntax (``"AP"``, ``"nDCG@10"``, ``"CT(time='tbg')@10"``) or pateval's
    (``"CT(gamma=0.3,time=tbg)@10"``, ``"ndcg_cut_10"``); pateval's measures are those of
    :mod:`pateval.ir_measures`, the others ir_measures' own.

    Examples
    --------
    >>> measures("AP", "PRES@100", "CT(gamma=0.3,time=tbg)@10")
    [AP, PRES@100, CT(gamma=0.3,time='tbg')@10]
    """
    import ir_measures

    from .ir_measures import MEASURES
    from .measures import parse_measure

    out = []
    for name in names:
        try:
            out.append(ir_measures.parse_measure(name))
            continue
        except (ValueError, NameError, SyntaxError):
            pass
        measure = parse_measure(name)  # pateval's syntax; its MeasureNameError says what is wrong
        changed = {k: v for (k, v), p in zip(measure.values, measure.spec.params, strict=False) if v != p.default}
        if measure.spec.name in MEASURES:
            params = dict(changed, **({"cutoff": measure.cutoff} if measure.cutoff is not None else {}))
            out.append(MEASURES[measure.spec.name](**params))
        else:
            written = "(" + ",".join(f"{k}={v!r}" for k, v in changed.items()) + ")" if changed else ""
            written += f"@{measure.cutoff}" if measure.cutoff is not None else ""
            out.append(ir_measures.parse_measure(measure.spec.name + written))  # in ir_measures' syntax
    return out


def topics(collection: str | os.PathLike[str]) -> pd.DataFrame:
    """A collection's prior-art topics as PyTerrier's topics frame.

    Parameters
    ----------
    collection : path-like
        A collection directory built by ``pateval collection build`` (its ``topics_PAC.xml``),
        a CLEF-IP topics file, or a directory of topic XML files.

    Returns
    -------
    DataFrame
        ``qid, query, patent``: the topic id, the topic's title (English where it has one) as
        the query text, and the topic document (a
        :class:`~pateval.patents.records.PatentDocument`) that :class:`TantivyRetriever`
        formulates its queries from.
    """
    from .search.run import load_topics

    loaded = load_topics(collection)
    return pd.DataFrame({"qid": [t.qid for t in loaded], "query": [_query_text(t.document) for t in loaded],
                         "patent": [t.document for t in loaded]})


def qrels(collection: str | os.PathLike[str], *, level: str = "document") -> pd.DataFrame:
    """A collection's qrels as PyTerrier's frame ``qid, docno, label``.

    ``level="claims"`` keeps one row per (topic, claim, document) with the claim in
    ``iteration`` (ir_measures' convention for subtopics), for pateval's Cube Test and
    subtopic measures; ir_measures' own providers would read such a frame as repeated
    judgements of a document, so use the document level for AP, nDCG and the like.
    """
    from .collection.dataset import open_dataset

    dataset = open_dataset(collection)
    if level == "claims":
        frame = dataset.qrels(level=level).to_frame(style="ir_measures")
        return frame.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    return dataset.qrels_frame(level=level, style="pyterrier")


class TantivyRetriever(pt.Transformer):
    """One of pateval's tantivy baselines as a PyTerrier transformer.

    Parameters
    ----------
    index : path-like or SearchIndex
        An index built by ``pateval index``.
    model : str
        ``bm25``, ``bm25:k1=0.9,b=0.4``, ``lm``, ``lm:mu=500``, ``tfidf`` (see
        :mod:`pateval.search.models`).
    query : str
        A query strategy (``claims``, ``title``, ``title+claims,top=100``, ``full`` ...; see
        :mod:`pateval.search.queries`).
    depth : int
        Documents per topic.
    **options
        Further :class:`~pateval.search.run.SearchConfig` fields (``candidates``,
        ``date_filter``, ``exclude_family``, ``unit``).

    The input frame needs ``qid`` and ``patent`` (the topic document, as :func:`topics`
    gives it); the output is PyTerrier's results frame ``qid, docno, score, rank`` (ranks
    from 0) with the input's other columns.
    """

    def __init__(self, index, *, model: str = "bm25", query: str = "claims", depth: int = 1000, **options) -> None:
        from .search.index import SearchIndex
        from .search.run import SearchConfig

        self.index = index if isinstance(index, SearchIndex) else SearchIndex(index)
        self.config = SearchConfig(model=model, query=query, depth=depth, **options)

    def __repr__(self) -> str:
        return f"TantivyRetriever({self.config.tag})"

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        from .search.run import search_topic

        missing = [c for c in ("qid", "patent") if c not in inp.columns]
        if missing:
            raise ParameterError(f"TantivyRetriever needs the columns qid and patent (the topic document); the frame "
                                 f"has no {', '.join(missing)} (columns: {', '.join(map(str, inp.columns))}). "
                                 "pateval.pyterrier.topics(COLLECTION) gives such a frame")
        pieces = []
        carried = [c for c in inp.columns if c not in ("qid", "docno", "score", "rank")]
        for row in inp.itertuples(index=False):
            ranking = search_topic(self.index, row.patent, self.config)
            frame = pd.DataFrame(ranking, columns=["docno", "score"])
            frame.insert(0, "qid", str(row.qid))
            frame["rank"] = range(len(frame))
            for column in carried:
                frame[column] = [getattr(row, column)] * len(frame)
            pieces.append(frame)
        columns = ["qid", "docno", "score", "rank", *carried]
        return pd.concat(pieces, ignore_index=True) if pieces else pd.DataFrame(columns=columns)


class PairedTest:
    """A pateval paired test as a PyTerrier test function (``pt.Experiment(test=...)``).

    Parameters
    ----------
    test : {"t", "wilcoxon", "randomisation", "bootstrap"}
        See :func:`pateval.stats.paired_test`.
    B : int, optional
        Resamples of the resampling tests (default 10,000 randomisation, 1,000 bootstrap).
    seed : int
        Seed of the resampling tests: the same seed gives the same p-values.

    Calling it with two arrays of per-topic scores (the same topics in the same order)
    returns ``(statistic, pvalue)``, as scipy's tests do. The resampling tests draw per
    topic, so the order matters: ``pt.Experiment`` hands over bare arrays in its baseline's
    topic order, which puts the qrels topics a run has no results for last; called from
    ``pt.Experiment``, the scores are first put in topic-id order, as ``pateval compare``
    has them, so that the p-values are compare's.

    Examples
    --------
    >>> test = PairedTest("randomisation", B=1000, seed=3)
    >>> round(test([0.5, 0.6, 0.9, 0.4], [0.5, 0.6, 0.9, 0.4]).pvalue, 3)
    1.0
    """

    def __init__(self, test: str = "randomisation", *, B: int | None = None, seed: int = 0) -> None:
        from .stats import TESTS

        if test not in TESTS or test == "tukey":
            raise ParameterError(f"test must be one of t, wilcoxon, randomisation, bootstrap; got {test!r}")
        self.test, self.B, self.seed = test, B, seed

    def __repr__(self) -> str:
        return f"PairedTest({self.test!r}, B={self.B}, seed={self.seed})"

    def __call__(self, x, y) -> PairedTestOutcome:
        from .stats import paired_test

        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        topics = _experiment_topics()
        if topics is not None and len(topics) == len(x) == len(y):
            order = np.argsort(np.asarray(topics, dtype=str), kind="stable")
            x, y = x[order], y[order]
        result = paired_test(x, y, test=self.test, B=self.B, seed=self.seed)
        return PairedTestOutcome(result.statistic, result.p_value)


def _experiment_topics() -> list[str] | None:
    """The topic ids of the arrays pt.Experiment is testing, in their order, or None when
    the test is not called by pt.Experiment.

    PyTerrier's renderer (the caller) builds both arrays by walking its baseline's per-topic
    dict (``systemEvalDictsPerQ[baseline]``), so the ids are that dict's keys.
    """
    frame = inspect.currentframe()
    try:
        caller = frame.f_back.f_back if frame is not None and frame.f_back is not None else None
        renderer = caller.f_locals.get("self") if caller is not None else None
        per_topic = getattr(renderer, "systemEvalDictsPerQ", None)
        baseline = getattr(renderer, "baseline", None)
        if not isinstance(per_topic, dict) or baseline not in per_topic:
            return None
        return [str(topic) for topic in per_topic[baseline]]
    finally:
        del frame


def randomisation(*, B: int | None = None, seed: int = 0) -> PairedTest:
    """The paired randomisation (sign-flip) test, for ``pt.Experiment(test=...)``."""
    return PairedTest("randomisation", B=B, seed=seed)


def bootstrap(*, B: int | None = None, seed: int = 0) -> PairedTest:
    """Sakai's paired bootstrap test, for ``pt.Experiment(test=...)``."""
    return PairedTest("bootstrap", B=B, seed=seed)


