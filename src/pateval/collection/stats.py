"""``pateval collection stats``: what a built test collection holds, as text or JSON.

Roda et al. measure a patent test collection by its *judgment points* -- the mean number
of relevant documents per topic times the number of topics (equivalently, the number of
(topic, relevant document) pairs) -- and look at the distribution of relevant documents
per topic, the topics' languages and technology (IPC) classes, and where the judgements
come from (search report, examiner, applicant). The selection funnel of the build is
repeated so that one report shows how the topics were chosen.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError, malformed
from ..patents.records import ipc_prefix
from .store import read_json_object

__all__ = ["collection_stats", "format_stats"]

_BUCKETS = ((1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, 20), (21, 50), (51, None))


def _read_tsv(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    except FileNotFoundError:
        malformed(path.parent, None,
                  f"not a built collection (no {path.name}); build one with `pateval collection build`")
    except pd.errors.ParserError as error:
        malformed(path, None, f"unreadable table: {error}")


def _distribution(values: list[int]) -> dict:
    if not values:
        return {"topics": 0}
    array = np.asarray(values, dtype=float)
    histogram = {}
    for low, high in _BUCKETS:
        label = str(low) if high == low else (f"{low}-{high}" if high is not None else f"{low}+")
        histogram[label] = int(((array >= low) & (array <= (high if high is not None else np.inf))).sum())
    return {
        "topics": int(array.size), "mean": round(float(array.mean()), 3), "min": int(array.min()),
        "p25": float(np.percentile(array, 25)), "median": float(np.median(array)),
        "p75": float(np.percentile(array, 75)), "max": int(array.max()),
        "topics_with_none": int((array == 0).sum()), "histogram": histogram,
    }


def collection_stats(collection: str | os.PathLike[str], *, ipc_level: str = "class", top: int = 10) -> dict:
    """Statistics of the collection built into ``collection``.

    Parameters
    ----------
    collection : path-like
        A directory written by :func:`pateval.collection.build.build_collection`.
    ipc_level : {"section", "class", "subclass", "group"}
        Level at which IPC classes are counted.
    top : int
        How many of the most frequent IPC classes to list.

    Returns
    -------
    dict
        ``topics``, ``judgment_points``, ``relevant_per_topic`` (distribution),
        ``highly_relevant_per_topic``, ``languages``, ``ipc`` (distinct, top),
        ``citation_sources``, ``categories``, ``via``, ``selection`` (the build's funnel),
        ``passages`` (PSG topics, passages, graded levels) and the build parameters.
    """
    root = Path(collection)
    build_file = root / "build.json"
    try:
        build = read_json_object(build_file, "build report")
    except FileNotFoundError:
        malformed(root, None, "not a built collection (no build.json); build one with `pateval collection build`")
    topics = _read_tsv(root / "topics.tsv")
    judgements = _read_tsv(root / "judgements.tsv")
    rel = judgements["rel"].astype(int) if len(judgements) else pd.Series([], dtype=int)
    per_topic = judgements.groupby("qid").size() if len(judgements) else pd.Series(dtype=int)
    highly = judgements[rel == 2].groupby("qid").size() if len(judgements) else pd.Series(dtype=int)
    relevant_counts = [int(per_topic.get(q, 0)) for q in topics["qid"]]
    highly_counts = [int(highly.get(q, 0)) for q in topics["qid"]]
    mean_relevant = float(np.mean(relevant_counts)) if relevant_counts else 0.0

    def tally(column: str, empty: str = "") -> Counter[str]:
        """The comma-separated values of a judgements column, counted (an empty cell as ``empty``)."""
        return Counter(part for value in judgements.get(column, [])
                       for part in (value.split(",") if value else [empty]) if part)

    sources, categories, via = tally("sources"), tally("categories", "(none)"), tally("via")

    classes = Counter(ipc_prefix(s, level=ipc_level) for s in topics["ipc"] if s)
    languages = Counter(lang or "(unknown)" for lang in topics["lang"])

    passages: dict = {}
    psg_file = root / "qrels_PSG.txt"
    if psg_file.exists():
        psg_topics = _read_tsv(root / "topics_PSG.tsv")
        lines = [line.split() for line in psg_file.read_text(encoding="utf-8").splitlines() if line.strip()]
        psg_docs = {(parts[0], parts[1]) for parts in lines}
        grades: Counter[str] = Counter()
        graded_file = root / "qrels_PSG_graded.txt"
        if graded_file.exists():
            grades.update(line.split()[3] for line in graded_file.read_text(encoding="utf-8").splitlines()
                          if line.strip())
        per_psg = Counter(parts[0] for parts in lines)
        passages = {
            "topics": int(len(psg_topics)), "relevant_passages": len(lines), "relevant_documents": len(psg_docs),
            "passages_per_topic": _distribution([per_psg.get(q, 0) for q in psg_topics["qid"]]),
            "graded_levels": dict(sorted(grades.items())),
        }
    claim_file = root / "qrels_PAC_claims.txt"
    claim_lines = 0
    if claim_file.exists():
        with open(claim_file, encoding="utf-8") as handle:
            claim_lines = sum(1 for line in handle if line.strip())

    return {
        "collection": str(root),
        "topics": len(topics),
        "judgment_points": int(sum(relevant_counts)),
        "mean_relevant_per_topic": round(mean_relevant, 3),
        "highly_relevant_judgment_points": int(sum(highly_counts)),
        "relevant_per_topic": _distribution(relevant_counts),
        "highly_relevant_per_topic": _distribution(highly_counts),
        "languages": dict(languages.most_common()),
        "ipc": {"level": ipc_level, "distinct": len(classes), "top": dict(classes.most_common(top))},
        "citation_sources": dict(sources.most_common()),
        "categories": dict(categories.most_common()),
        "via": dict(via.most_common()),
        "claim_judgements": claim_lines,
        "passages": passages,
        **{key: build.get(key, {}) for key in ("selection", "split", "topic_set", "checks", "parameters")},
    }


def format_stats(stats: dict, *, format: str = "text") -> str:
    """The statistics as ``"text"`` (for people) or ``"json"``."""
    if format == "json":
        return json.dumps(stats, indent=2, sort_keys=False) + "\n"
    if format != "text":
        raise ParameterError(f"format must be 'text' or 'json', not {format!r}")
    lines = [f"collection {stats['collection']}"]
    if split := stats.get("split") or {}:
        lines.append(f"corpus: {split.get('corpus_documents')} documents ({split.get('corpus_patents')} patents);"
                     f" topic pool: {split.get('pool_documents')} documents ({split.get('pool_patents')} patents)")
    if selection := stats.get("selection") or {}:
        lines.append(f"topic selection: {selection.get('candidates')} candidates")
        lines.extend(f"  - {step['description']}: removed {step['removed']}, {step['after']} left"
                     for step in selection.get("steps", []))
    topic_set = stats.get("topic_set") or {}
    if topic_set.get("requested_topics"):
        short = " (fewer available)" if topic_set.get("short") else ""
        lines.append(f"topic set {topic_set.get('requested')}: {topic_set.get('drawn')} of "
                     f"{topic_set.get('requested_topics')} requested{short}")
    lines.append(f"topics: {stats['topics']}")
    lines.append(f"judgment points: {stats['judgment_points']} (mean {stats['mean_relevant_per_topic']} relevant"
                 f" documents per topic x {stats['topics']} topics); highly relevant: "
                 f"{stats['highly_relevant_judgment_points']}")
    dist = stats["relevant_per_topic"]
    if dist.get("topics"):
        lines.append(f"relevant documents per topic: min {dist['min']}, median {dist['median']:g}, "
                     f"mean {dist['mean']}, max {dist['max']}")
        lines.append("  " + "  ".join(f"{k}: {v}" for k, v in dist["histogram"].items()))
    lines.append("languages: " + ", ".join(f"{k} {v}" for k, v in stats["languages"].items()))
    ipc = stats["ipc"]
    lines.append(f"IPC {ipc['level']}es: {ipc['distinct']} distinct; most frequent: "
                 + ", ".join(f"{k} {v}" for k, v in ipc["top"].items()))
    for label, key in (("citation source", "citation_sources"), ("category", "categories"), ("origin", "via")):
        lines.append(f"judgements by {label}: " + ", ".join(f"{k} {v}" for k, v in stats[key].items()))
    lines.append(f"claim-level judgements: {stats['claim_judgements']}")
    if passages := stats.get("passages") or {}:
        lines.append(f"passage topics: {passages['topics']}, relevant passages {passages['relevant_passages']} in "
                     f"{passages['relevant_documents']} (topic, document) pairs; graded levels "
                     + ", ".join(f"{k}: {v}" for k, v in passages["graded_levels"].items()))
    if checks := stats.get("checks") or {}:
        lines.append("checks: " + ", ".join(f"{k} = {v}" for k, v in checks.items()))
    return "\n".join(lines) + "\n"
