"""statAP (Aslam, Pavlu and Yilmaz 2006) from sampled qrels: equal to the Million Query track's
statAP_MQ_eval_v3.pl on TREC 2003 Robust runs, to the paper's estimator on hand-made cases and
by an independent loop, unbiased over seeded samples of complete qrels; the AP-prior pool."""

from __future__ import annotations

import re

import numpy as np
import pytest

from pateval import api
from pateval.errors import ParameterError
from pateval.formats.pools import Sample, read_sampled_qrels
from pateval.pooling.sampling import estimate, sample_pool, statap_precisions
from pateval.pooling.stack import stack_runs
from pateval.pooling.strategies import WeightedOrder

RUNS = ("InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "uic0301")


def _statap_mq(path) -> tuple[dict[str, tuple[float, float]], float]:
    """statAP_MQ_eval_v3.pl -q output: {topic: (Relevant, AP)} and statMAP_on_valid_topics."""
    text = path.read_text()
    per_topic = {m[0]: (float(m[1]), float(m[2])) for m in re.findall(
        r"topic=(\S+).*?Relevant=(\S+).*?AP=(\S+)", text, flags=re.S)}
    return per_topic, float(re.search(r"statMAP_on_valid_topics=(\S+)", text)[1])


@pytest.mark.parametrize("sample_name, suffix", [("robust03_sampled_qrels.txt", ""),
                                                 ("robust03_ap_prior_sampled_qrels.txt", ".ap_prior")])
def test_statap_equals_statap_mq_eval(test_data, sample_name, suffix):
    sample = read_sampled_qrels(test_data / "sampling" / sample_name)
    runs = [api.read_run(test_data / "pooling" / f"{name}.txt") for name in RUNS]
    table = estimate(sample, runs, ["statAP", "inum_rel"])
    for run in RUNS:
        expected, statmap = _statap_mq(test_data / "sampling" / f"{run}{suffix}.statAP_MQ")
        got = {(r.measure, r.topic): r.value for r in table[table["run"] == run].itertuples()}
        assert {t for m, t in got if m == "statAP" and t != "all"} == set(expected)
        for topic, (relevant, ap) in expected.items():
            assert abs(got["statAP", topic] - ap) <= 0.5e-6 + 1e-12, (run, topic)  # printed with 6 decimals
            assert abs(got["inum_rel", topic] - relevant) <= 0.5e-6 + 1e-12, (run, topic)
        assert got["statAP", "all"] == pytest.approx(statmap, abs=1e-12)


def _sampled(rows: list[tuple[str, str, str, int]]) -> Sample:
    """Sampled qrels from ``(topic, docno, stratum, grade)`` rows, probabilities as the reader derives them."""
    topic, docno, stratum, grade = (np.asarray(c, dtype=object) for c in zip(*rows, strict=True))
    grade = grade.astype(np.int64)
    key = [f"{t}\x00{s}" for t, s in zip(topic, stratum, strict=True)]
    drawn = {k: sum(1 for k2, g in zip(key, grade, strict=True) if k2 == k and g >= 0) for k in key}
    pooled = {k: key.count(k) for k in key}
    probability = np.asarray([drawn[k] / pooled[k] for k in key])
    return Sample(topic=topic, docno=docno, stratum=stratum, probability=probability, sampled=grade >= 0, grade=grade)


def _run(ranking: dict[str, list[str]], name: str = "r") -> api.Run:
    topics, docs, scores = [], [], []
    for t, ranked in ranking.items():
        topics += [t] * len(ranked)
        docs += ranked
        scores += list(range(len(ranked), 0, -1))
    return api.Run.from_columns(np.asarray(topics), np.asarray(docs), np.asarray(scores, dtype=float), name=name)


HAND = [("q", "d1", "A", 1), ("q", "d2", "A", 0),                                      # stratum A: all drawn
        ("q", "d3", "B", 2), ("q", "d4", "B", 0), ("q", "d5", "B", -1), ("q", "d6", "B", -1)]  # B: half


def test_a_hand_made_case():
    """pi_A = 1, pi_B = 2/4: R^ = 1/1 + 1/0.5 = 3. Ranking d1 d4 d3: PC^(1) = 1 at d1,
    PC^(3) = (1 + 1/1) / 3 at d3; statAP = (1/1 + (2/3)/0.5) / 3 = 7/9."""
    sample = _sampled(HAND)
    run = _run({"q": ["d1", "d4", "d3", "x"]})
    table = estimate(sample, [run], ["statAP", "inum_rel"])
    values = {(r.measure, r.topic): r.value for r in table.itertuples()}
    assert values["statAP", "q"] == pytest.approx(7 / 9, abs=1e-15)
    assert values["inum_rel", "q"] == pytest.approx(3.0)
    precisions = statap_precisions(sample, run)
    assert precisions["docno"].tolist() == ["d1", "d3"] and precisions["rank"].tolist() == [1, 3]
    assert precisions["precision"].tolist() == pytest.approx([1.0, 2 / 3])
    assert precisions["probability"].tolist() == pytest.approx([1.0, 0.5])


def test_a_topic_without_a_drawn_relevant_document_has_no_statap():
    """As statAP_MQ_eval: no statAP for it, and statMAP is the mean over the others."""
    sample = _sampled([*HAND, ("z", "e1", "A", 0), ("z", "e2", "A", -1)])
    run = _run({"q": ["d1", "d4", "d3"], "z": ["e1", "e2"]})
    table = estimate(sample, [run], ["statAP"])
    assert table[["topic", "value"]].values.tolist() == [["q", pytest.approx(7 / 9)], ["all", pytest.approx(7 / 9)]]
    assert table.attrs["statAP_left_out"] == ["z"]


def _loop_statap(sample: Sample, ranking: dict[str, list[str]]) -> dict[str, float]:
    """The paper's estimator written as a plain loop over each ranking."""
    relevant = {(t, d): p for t, d, g, p in zip(sample.topic, sample.docno, sample.grade, sample.probability,
                                                strict=True) if g > 0}
    out = {}
    for topic, ranked in ranking.items():
        r_hat = sum(1 / p for (t, _), p in relevant.items() if t == topic)
        if r_hat == 0 or topic not in set(sample.topic):
            continue
        total, above = 0.0, 0.0
        for rank, docno in enumerate(ranked, start=1):
            p = relevant.get((topic, docno))
            if p is not None:
                total += (1 + above) / rank / p
                above += 1 / p
        out[topic] = total / r_hat
    return out


@pytest.mark.parametrize("seed", range(8))
def test_statap_equals_an_independent_loop(seed):
    rng = np.random.default_rng(seed)
    rows, ranking = [], {}
    for t in ("t1", "t2", "t3"):
        docs = [f"{t}d{i}" for i in range(40)]
        strata = rng.integers(0, 3, size=40)
        for c in range(3):
            members = [i for i in range(40) if strata[i] == c]
            chosen = set(rng.choice(members, size=max(1, len(members) // (c + 1)), replace=False).tolist()) \
                if members else set()
            rows += [(t, docs[i], f"s{c}", int(rng.integers(0, 3)) if i in chosen else -1) for i in members]
        ranking[t] = list(rng.permutation(docs[:30] + [f"{t}x{i}" for i in range(10)]))
    sample = _sampled(rows)
    got = estimate(sample, [_run(ranking)], ["statAP"])
    values = {r.topic: r.value for r in got.itertuples() if r.topic != "all"}
    expected = _loop_statap(sample, ranking)
    assert values.keys() == expected.keys()
    for topic, value in expected.items():
        assert values[topic] == pytest.approx(value, rel=1e-12)


def test_statap_is_unbiased_over_seeded_samples(test_data):
    """The property the paper proves: statAP's parts are unbiased. Over 300 stratified samples
    of an AP-prior pool judged by complete qrels, R^ averages to the relevant pooled documents
    and R^ * statAP (the Horvitz-Thompson sum of the precisions at the relevant documents) to
    R * AP over the pool, each within four standard errors. statAP itself is their ratio:
    nearly unbiased, its bias largest where R^ varies most against R (few relevant documents);
    where R >= 20 its mean is within 0.03 of AP."""
    runs = [api.read_run(test_data / "pooling" / f"{name}.txt") for name in RUNS]
    qrels = api.read_qrels(test_data / "pooling" / "robust03_qrels.txt")
    pool = api.make_pool(runs, "ap-prior")
    full = sample_pool(pool, "1-:1", qrels=qrels)  # every pooled document with its grade
    truth = api.evaluate(api.Qrels(topic=full.topic, docno=full.docno, rel=full.grade), runs, ["AP", "NumRel"])
    true = {(r.run, r.topic, r.measure): r.value for r in truth.itertuples() if r.topic != "all"}
    n = 300
    draws: dict[tuple[str, str, str], list[float]] = {}
    for seed in range(n):
        drawn = sample_pool(pool, "1-10:1,11-60:0.5,61-:0.25", seed=seed)
        sample = Sample(topic=drawn.topic, docno=drawn.docno, stratum=drawn.stratum, probability=drawn.probability,
                        sampled=drawn.sampled, grade=np.where(drawn.sampled, full.grade, -1))
        for r in estimate(sample, runs, ["statAP", "inum_rel"]).itertuples():
            if r.topic != "all":
                draws.setdefault((r.run, r.topic, r.measure), []).append(r.value)
    checked = 0
    for (run, topic, measure), values in draws.items():
        if measure != "statAP":
            continue
        assert len(values) == n  # every sample drew a relevant document of every topic
        ap, r_hat = np.asarray(values), np.asarray(draws[run, topic, "inum_rel"])
        big_r, big_ap = true[run, topic, "NumRel"], true[run, topic, "AP"]
        assert abs(r_hat.mean() - big_r) <= 4 * r_hat.std() / np.sqrt(n) + 1e-9, (run, topic)
        numerator = ap * r_hat
        assert abs(numerator.mean() - big_ap * big_r) <= 4 * numerator.std() / np.sqrt(n) + 1e-9, (run, topic)
        if big_r >= 20:
            assert abs(ap.mean() - big_ap) <= 0.03, (run, topic)
            checked += 1
    assert checked >= 12


def test_the_ap_prior_weights(test_data):
    """Aslam, Pavlu and Savell's AP-prior: a run of Z documents weighs rank r by
    (1 + 1/r + ... + 1/Z) / (2Z); each run's weights sum to 1 per topic."""
    a = _run({"q": ["d1", "d2", "d3"]}, "a")
    b = _run({"q": ["d3", "d4"]}, "b")
    stack = stack_runs([a, b])
    weight = WeightedOrder("ap").weights(stack)
    topic, doc, _ = stack.pairs()
    got = dict(zip(stack.docnos(doc).tolist(), weight.tolist(), strict=True))
    w3 = [(1 + 1 + 1 / 2 + 1 / 3) / 6, (1 + 1 / 2 + 1 / 3) / 6, (1 + 1 / 3) / 6]
    w2 = [(1 + 1 + 1 / 2) / 4, (1 + 1 / 2) / 4]
    assert got == pytest.approx({"d1": w3[0], "d2": w3[1], "d3": w3[2] + w2[0], "d4": w2[1]})
    assert sum(w3) == pytest.approx(1) and sum(w2) == pytest.approx(1)
    pool = api.make_pool([a, b], "ap-prior")
    assert pool.docno.tolist() == ["d3", "d1", "d4", "d2"] and pool.description == "ap-prior"
    assert api.make_pool([a, b], "ap-prior", size=2).docno.tolist() == ["d3", "d1"]


def test_unknown_estimates_are_refused(test_data):
    sample = read_sampled_qrels(test_data / "sampling" / "robust03_sampled_qrels.txt")
    with pytest.raises(ParameterError, match="unknown estimate 'statMAP': choose among .*statAP"):
        estimate(sample, [], ["statMAP"])


def test_the_command_estimates_statap(test_data, tmp_path, capsys):
    from pateval.cli import main

    out = tmp_path / "est.txt"
    status = main(["pool", "estimate", str(test_data / "sampling" / "robust03_sampled_qrels.txt"),
                   str(test_data / "pooling" / "InexpC2.txt"), "-e", "statAP,inum_rel", "-o", str(out)])
    assert status == 0
    assert out.read_text() == "InexpC2\tstatAP\tall\t0.1596\nInexpC2\tinum_rel\tall\t107.7632\n"
    status = main(["pool", "estimate", str(test_data / "sampling" / "robust03_sampled_qrels.txt"),
                   str(test_data / "pooling" / "InexpC2.txt"), "-e", "statAPx"])
    assert status == 2
    assert "unknown estimate 'statAPx'" in capsys.readouterr().err


def test_the_command_says_which_topics_have_no_statap(tmp_path, capsys):
    """Never silent: a topic left out of statAP's mean is named on stderr, with the rule."""
    from pateval.cli import main

    (tmp_path / "s.txt").write_text("q 0 d1 A 1\nq 0 d2 A 0\nz 0 e1 A 0\nz 0 e2 A -1\n")
    (tmp_path / "r.txt").write_text("q Q0 d1 1 2.0 r\nq Q0 d2 2 1.0 r\nz Q0 e1 1 1.0 r\n")
    assert main(["pool", "estimate", str(tmp_path / "s.txt"), str(tmp_path / "r.txt"), "-e", "statAP", "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "r\tstatAP\tq\t1.0000\nr\tstatAP\tall\t1.0000\n"
    assert "1 topic(s) without a drawn relevant document (z) have no statAP" in captured.err
