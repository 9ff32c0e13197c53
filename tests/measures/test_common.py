"""Checks every registered measure must pass, grouped by property (as scikit-learn's
metrics/tests/test_common.py does). A measure that is not listed in ``PROPERTIES`` fails
``test_every_measure_is_grouped``: when you add a measure, say what it promises here.

Groups
------
bounded01       every value lies in [0, 1]
nonnegative     every value is >= 0
empty_defined   a topic with no retrieved document gets a finite value (complete averaging)
order_invariant the value depends on the ranking only, not on the order of the run's lines
                (with order=score ties are broken by docno, so shuffling lines changes nothing)
counts          integer counts, summed over topics in the ``all`` line
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval.api as api
from pateval.core.qrels import Qrels
from pateval.core.run import Run
from pateval.measures import REGISTRY, parse_measure

PROPERTIES: dict[str, set[str]] = {
    "AP": {"bounded01", "empty_defined", "order_invariant"},
    "P": {"bounded01", "empty_defined", "order_invariant"},
    "R": {"bounded01", "empty_defined", "order_invariant"},
    "Rprec": {"bounded01", "empty_defined", "order_invariant"},
    "RR": {"bounded01", "empty_defined", "order_invariant"},
    "nDCG": {"bounded01", "empty_defined", "order_invariant"},
    "Bpref": {"bounded01", "empty_defined", "order_invariant"},
    "NumRet": {"nonnegative", "empty_defined", "order_invariant", "counts"},
    "NumRel": {"nonnegative", "empty_defined", "order_invariant", "counts"},
    "NumRelRet": {"nonnegative", "empty_defined", "order_invariant", "counts"},
    # trec_eval's dcg and ideal_dcg (unnormalised) and yaap (a log odds: negative when AP is low)
    "DCG": {"nonnegative", "empty_defined", "order_invariant"},
    "IDCG": {"nonnegative", "empty_defined", "order_invariant"},
    "YAAP": {"empty_defined", "order_invariant"},
    # ir_measures' Judged@k and ranx's hits@k (a count of the top k, averaged: not "counts")
    "Judged": {"bounded01", "empty_defined", "order_invariant"},
    "Hits": {"nonnegative", "empty_defined", "order_invariant"},
    "Success": {"bounded01", "empty_defined", "order_invariant"},
    # subtopic family: alpha-nDCG and nERR-IA are divided by ndeval's greedy ideal, which a
    # run can beat (values slightly above 1, as ndeval gives): not bounded01
    "alpha_nDCG": {"nonnegative", "empty_defined", "order_invariant"},
    "nERR_IA": {"nonnegative", "empty_defined", "order_invariant"},
    "ERR_IA": {"bounded01", "empty_defined", "order_invariant"},
    "P_IA": {"bounded01", "empty_defined", "order_invariant"},
    "MAP_IA": {"bounded01", "empty_defined", "order_invariant"},
    "I_rec": {"bounded01", "empty_defined", "order_invariant"},
    "D_nDCG": {"bounded01", "empty_defined", "order_invariant"},
    "Dsharp_nDCG": {"bounded01", "empty_defined", "order_invariant"},
    # TAR (tar_eval): WSS@95 subtracts 0.05 (down to -0.05), total_cost credits relevant documents (-19)
    "recall_pct": {"bounded01", "empty_defined", "order_invariant"},
    "WSS": {"empty_defined", "order_invariant"},
    "last_rel": {"nonnegative", "empty_defined", "order_invariant"},
    "norm_last_rel": {"bounded01", "empty_defined", "order_invariant"},
    "norm_area": {"bounded01", "empty_defined", "order_invariant"},
    "loss_r": {"bounded01", "empty_defined", "order_invariant"},
    "loss_e": {"nonnegative", "empty_defined", "order_invariant"},
    "loss_er": {"nonnegative", "empty_defined", "order_invariant"},
    "total_cost": {"empty_defined", "order_invariant"},
    "num_shown": {"nonnegative", "empty_defined", "order_invariant", "counts"},
    "PRES": {"bounded01", "empty_defined", "order_invariant"},
    # Rnorm has no usable default (the collection size N must be given): its bounds are
    # tested with N in tests/measures/test_pres.py
    "Rnorm": set(),
    "TBG": {"nonnegative", "empty_defined", "order_invariant"},
    # Cube Test: gain per document <= 1 and Time >= 1 per document (rank) or >= 4.4 s (tbg, words150)
    "CT": {"bounded01", "empty_defined", "order_invariant"},
    "ACT": {"bounded01", "empty_defined", "order_invariant"},
    **{f"CT_{i}{t}{c}": {"bounded01", "empty_defined", "order_invariant"}
       for i in "lp" for t in "tag" for c in ("c", "cbar")},
    # passage family (CLEF-IP Precision(D), MAP(D)): means of per-document precisions / APs
    "P_psg": {"bounded01", "empty_defined", "order_invariant"},
    "MAP_psg": {"bounded01", "empty_defined", "order_invariant"},
    # trec_eval's other measures (issue 22): sets, interpolated, geometric, gains, inference
    **{name: {"bounded01", "empty_defined", "order_invariant"}
       for name in ("SetP", "SetR", "SetRelP", "SetAP", "SetF", "Unj", "IPrec", "IPrec_11pt", "Rprec_mult", "RelP",
                    "GMAP", "GM_Bpref", "nDCG_rel", "RnDCG", "G", "binG", "RBP", "RBP_resid", "infAP",
                    # ir_measures' catalogue: C/W/L measures (expected gain per document), ERR, Compat
                    "INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "ERR", "Compat",
                    "Accuracy")},
    # ndeval's alpha-DCG (over the ideal-ideal) and NRBP; nNRBP is over the greedy ideal, which a run can beat
    "alpha_DCG": {"bounded01", "empty_defined", "order_invariant"},
    "NRBP": {"bounded01", "empty_defined", "order_invariant"},
    "nNRBP": {"nonnegative", "empty_defined", "order_invariant"},
    "Utility": {"empty_defined", "order_invariant"},  # a linear utility: negative when non-relevant dominate
    "NumNonrelJudgedRet": {"nonnegative", "empty_defined", "order_invariant", "counts"},
    "NumQ": {"nonnegative", "empty_defined", "order_invariant", "counts"},
    # trec_eval's preference and judgement-group measures (side inputs made below); the counts need
    # their side input, which test_counts_are_summed does not give: summed as trec_eval, see test_prefs.py
    **{name: {"nonnegative", "empty_defined", "order_invariant"}
       for name in ("NumPrefs", "NumPrefsFul", "NumPrefsFulRet")},
    **{name: {"bounded01", "empty_defined", "order_invariant"}
       for name in ("PrefSimp", "PrefSimpRet", "PrefSimpImp", "PrefPair", "PrefPairRet", "PrefPairImp", "PrefAvgJG",
                    "PrefAvgJGRet", "PrefAvgJGImp", "PrefAvgJG_Rnonrel", "PrefAvgJG_RnonrelRet", "AP_avgJG",
                    "P_avgJG", "Rprec_mult_avgJG")},
}

# Side inputs, made up for the random cases below: name -> f(docnos, topics, subtopics) -> resource
def _doc_lengths(docnos, topics, subtopics):
    return {d: 50 + (sum(map(ord, d)) * 37) % 900 for d in docnos}  # stable across processes


# plain tuples in their column order (pateval reads 4-tuples only with fields= naming it)
SUBTOPIC_QRELS = ("topic", "subtopic", "docno", "rel")
RANKED_RUN = ("topic", "docno", "rank", "score")


def _subtopic_weights(docnos, topics, subtopics):
    # claim-like weights (theta_ind = 1 for s1, theta_dep = 0.5 for the others)
    names = sorted(set(subtopics)) if subtopics is not None else []
    return {t: {s: 1.0 if s == "s1" else 0.5 for s in names} for t in topics}


def _passage_runs(docnos, topics, subtopics):
    # every (topic, document) gets passages p[1..4], ranked in an order fixed by the names
    from pateval.formats.passages import PassageRun

    rows = []
    for t in topics:
        for d in docnos:
            order = sorted(range(1, 5), key=lambda k: (sum(map(ord, t + d)) * k) % 7)
            rows.extend((t, d, f"/patent-document/description/p[{k}]", rank, 1.0 / rank)
                        for rank, k in enumerate(order, start=1))
    return {"r": PassageRun.from_records(rows, fields=("topic", "docno", "xpath", "rank", "score"), name="r")}


def _passage_qrels(docnos, topics, subtopics):
    # passages p[1..4] judged relevant where a stable hash of the names is odd
    rows = [(t, d, f"/patent-document/description/p[{k}]") for t in topics for d in docnos for k in range(1, 5)
            if sum(map(ord, t + d)) * (k + 3) % 2]
    return Qrels(topic=np.asarray([r[0] for r in rows], dtype=object), docno=np.asarray([r[1] for r in rows],
                                                                                        dtype=object),
                 rel=np.ones(len(rows), dtype=np.int64), passage=np.asarray([r[2] for r in rows], dtype=object))


def _group_judgements(docnos, topics, subtopics, *, subgroups: bool):
    # two users per topic grading the documents by a stable hash; user u1 states its levels in
    # two sub-groups (the same level for a document in both, so they agree)
    from pateval.formats.prefs import GroupJudgements

    rows = []
    for t in topics:
        for user in ("u1", "u2"):
            for i, d in enumerate(docnos):
                grade = (sum(map(ord, t + d + user)) * 7) % 5 - 1  # -1 to 3
                if grade >= 0 or not subgroups:
                    rows.append((t, user, "a" if subgroups and user == "u1" and i % 2 else "b", d, float(grade)))
    columns = list(zip(*rows, strict=True))
    return GroupJudgements(*(np.asarray(c, dtype=object) for c in columns[:4]),
                           level=np.asarray(columns[4], dtype=np.float64))


RESOURCE_FACTORIES = {
    "preferences": lambda docnos, topics, subtopics: _group_judgements(docnos, topics, subtopics, subgroups=True),
    "judgement_groups": lambda docnos, topics, subtopics: _group_judgements(docnos, topics, subtopics,
                                                                             subgroups=False),
    "doc_lengths": _doc_lengths,
    "subtopic_weights": _subtopic_weights,
    "passage_runs": _passage_runs,
    "passage_qrels": _passage_qrels,
}


def _measure_for(name: str):
    spec = REGISTRY[name]
    cutoff = 5 if spec.cutoff == "required" else None
    return spec(cutoff=cutoff)


def _random_case(seed: int, n_topics: int = 4, n_docs: int = 12, with_empty_topic: bool = False):
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = [], []
    for t in range(n_topics):
        topic = f"t{t}"
        docs = [f"d{i}" for i in range(n_docs)]
        for d in rng.choice(docs, size=6, replace=False):
            for s in rng.choice(["s1", "s2", "s3"], size=rng.integers(1, 3), replace=False):
                qrels_rows.append((topic, s, d, int(rng.integers(0, 4))))
        if with_empty_topic and t == n_topics - 1:
            continue
        for i, d in enumerate(rng.choice(docs, size=rng.integers(1, n_docs), replace=False)):
            score = float(rng.integers(0, 4))  # many ties
            run_rows.append((topic, d, i + 1, score))
    qrels = Qrels.from_records(qrels_rows, fields=SUBTOPIC_QRELS)
    run = Run.from_records(run_rows, name="r", fields=RANKED_RUN)
    return qrels, run, run_rows


def _resources(names, qrels: Qrels, run: Run):
    docnos = sorted(set(qrels.docno) | set(run.vocabulary))
    made = {}
    for name in names:
        if name in RESOURCE_FACTORIES:
            made[name] = RESOURCE_FACTORIES[name](docnos, sorted(set(qrels.topic)), qrels.subtopic)
    return made


def _evaluate(name, qrels, run, **options):
    measure = _measure_for(name)
    needed = set(measure.spec.requires) - {"subtopics"}
    resources = _resources(needed, qrels, run)
    frame = api.evaluate(qrels, run, [measure], resources=resources, **options)
    return frame.sort_values("topic")["value"].to_numpy()


def test_every_measure_is_grouped():
    assert set(REGISTRY) == set(PROPERTIES), (
        "measures without declared properties: " + ", ".join(sorted(set(REGISTRY) - set(PROPERTIES)))
        + "; properties of unknown measures: " + ", ".join(sorted(set(PROPERTIES) - set(REGISTRY)))
    )


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_canonical_name_round_trips(name):
    measure = _measure_for(name)
    assert parse_measure(str(measure)) == measure
    assert repr(measure) == str(measure)
    for alias in measure.spec.aliases:
        assert parse_measure(alias + ("@5" if measure.cutoff else "")).spec is measure.spec


@pytest.mark.parametrize("name", sorted(n for n, p in PROPERTIES.items() if "bounded01" in p or "nonnegative" in p))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_bounds(name, seed):
    qrels, run, _ = _random_case(seed)
    values = _evaluate(name, qrels, run)
    assert np.all(np.isfinite(values))
    assert np.all(values >= 0)
    if "bounded01" in PROPERTIES[name]:
        assert np.all(values <= 1 + 1e-12)


@pytest.mark.parametrize("name", sorted(n for n, p in PROPERTIES.items() if "empty_defined" in p))
def test_defined_on_topics_without_results(name):
    qrels, run, _ = _random_case(3, with_empty_topic=True)
    values = _evaluate(name, qrels, run, complete=True)
    assert len(values) == 4
    assert np.all(np.isfinite(values))


@pytest.mark.parametrize("name", sorted(n for n, p in PROPERTIES.items() if "order_invariant" in p))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_invariant_to_line_order(name, seed):
    qrels, run, rows = _random_case(seed)
    shuffled = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]
    again = Run.from_records(shuffled, name="r", fields=RANKED_RUN)
    np.testing.assert_allclose(_evaluate(name, qrels, run), _evaluate(name, qrels, again), rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", sorted(n for n, p in PROPERTIES.items() if "counts" in p))
def test_counts_are_summed(name):
    qrels, run, _ = _random_case(5)
    measure = _measure_for(name)
    result = api.evaluation(qrels, run, [measure])
    summary = result.summary()
    assert summary["value"].iloc[0] == result.frame["value"].sum()
    assert measure.spec.integer
