"""Shared data for the ecosystem tests: seeded random qrels (with subtopics and passages),
two runs without score ties, document lengths, subtopic weights."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

XPATHS = [f"/patent-document/description/p[{i}]" for i in range(1, 7)]


@pytest.fixture(scope="session")
def data():
    """Qrels (qid, subtopic, docno, rel, passage), runs as PyTerrier frames, resources."""
    rng = np.random.default_rng(15)
    topics = [f"PAC-{i}" for i in range(1, 13)]
    docs = [f"EP-{i:05d}" for i in range(60)]
    qrels_rows, passage_rows = [], []
    for topic in topics:
        judged = rng.choice(docs, size=12, replace=False)
        for doc in judged:
            for subtopic in rng.choice(["c1", "c2", "c3"], size=int(rng.integers(1, 3)), replace=False):
                qrels_rows.append((topic, subtopic, str(doc), int(rng.integers(0, 4))))
            if rng.random() < 0.5:
                for xpath in rng.choice(XPATHS, size=2, replace=False):
                    passage_rows.append((topic, str(doc), str(xpath)))
    runs = {}
    for name in ("bm25", "lm"):
        rows = []
        for topic in topics:
            ranked = rng.choice(docs, size=30, replace=False)
            scores = np.sort(rng.random(30))[::-1] * 20 + 1  # distinct: no ties to break
            rows += [(topic, str(d), float(s)) for d, s in zip(ranked, scores, strict=False)]
        runs[name] = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    lengths = {d: int(rng.integers(50, 3000)) for d in docs}
    weights = [(t, s, w) for t in topics for s, w in (("c1", 1.0), ("c2", 0.5), ("c3", 0.5))]
    return {"topics": topics, "xpaths": XPATHS, "qrels_rows": qrels_rows, "passage_rows": passage_rows, "runs": runs,
            "lengths": lengths, "weights": weights}


@pytest.fixture()
def files(tmp_path, data):
    """The same data as files for `pateval evaluate` and for measure parameters."""
    lengths = tmp_path / "lengths.txt"
    lengths.write_text("".join(f"{d} {n}\n" for d, n in data["lengths"].items()))
    weights = tmp_path / "theta.txt"
    weights.write_text("".join(f"{t} {s} {w}\n" for t, s, w in data["weights"]))
    qrels = tmp_path / "claims.qrels"
    qrels.write_text("".join(f"{t} {s} {d} {r}\n" for t, s, d, r in data["qrels_rows"]))
    runs = {}
    for name, frame in data["runs"].items():
        path = tmp_path / f"{name}.run"
        ranked = frame.assign(rank=frame.groupby("qid").cumcount() + 1)
        path.write_text("".join(f"{q} Q0 {d} {k} {s!r} {name}\n" for q, d, s, k in
                                ranked[["qid", "docno", "score", "rank"]].itertuples(index=False)))
        runs[name] = path
    return {"lengths": lengths, "weights": weights, "qrels": qrels, "runs": runs}
