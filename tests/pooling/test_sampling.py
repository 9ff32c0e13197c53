"""Stratified samples of a pool and the xinfAP / infNDCG estimates: equal to NIST's
sample_eval.pl on TREC 2003 Robust runs; the sampler's rates; the readers' refusals."""

from __future__ import annotations

import numpy as np
import pytest

from pateval import api
from pateval.errors import InputFormatError, ParameterError
from pateval.formats.pools import read_sampled_qrels, write_sample
from pateval.pooling.sampling import estimate, parse_strata, sample_pool

RUNS = ("InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "uic0301")
NAMES = {"infAP": "xinfAP", "infNDCG": "infNDCG", "inum_rel": "inum_rel", "inum_rel_ret": "inum_rel_ret"}


def _sample_eval(path) -> dict[tuple[str, str], float]:
    out = {}
    for line in path.read_text().splitlines():
        measure, topic, value = line.split()
        if measure in NAMES:
            out[NAMES[measure], topic] = float(value)
    return out


def test_estimates_equal_sample_eval(test_data):
    sample = read_sampled_qrels(test_data / "sampling" / "robust03_sampled_qrels.txt")
    runs = [api.read_run(test_data / "pooling" / f"{name}.txt") for name in RUNS]
    table = estimate(sample, runs)
    for run in RUNS:
        expected = _sample_eval(test_data / "sampling" / f"{run}.sample_eval")
        got = {(r.measure, r.topic): r.value for r in table[table["run"] == run].itertuples()}
        assert got.keys() == expected.keys()
        for key, value in expected.items():
            assert abs(got[key] - value) <= 0.5e-4 + 1e-12, (run, key)  # sample_eval prints 4 decimals


def test_with_every_pooled_document_judged_xinfap_is_ap(test_data):
    runs = [api.read_run(test_data / "pooling" / f"{name}.txt") for name in RUNS[:2]]
    qrels = api.read_qrels(test_data / "pooling" / "robust03_qrels.txt")
    pool = api.make_pool(runs, "depth", depth=10_000)
    sample = sample_pool(pool, "1-:1", qrels=qrels)
    assert sample.sampled.all() and (sample.probability == 1).all()
    table = estimate(sample, runs)
    # AP against the judged pool (what the sample knows), up to sample_eval's smoothing
    pooled = {"topic": sample.topic, "docno": sample.docno, "rel": sample.grade}
    ap = api.evaluate(api.Qrels(**pooled), {r.name: r for r in runs}, ["AP"])
    for row in ap[ap["topic"] != "all"].itertuples():
        got = table[(table["run"] == row.run) & (table["topic"] == row.topic) & (table["measure"] == "xinfAP")]
        assert abs(float(got["value"].iloc[0]) - row.value) < 1e-4, (row.run, row.topic)


def test_the_sampler_draws_each_stratum_at_its_rate(test_data):
    runs = [api.read_run(test_data / "pooling" / f"{name}.txt") for name in RUNS]
    pool = api.make_pool(runs, "depth", depth=100)
    sample = sample_pool(pool, "1-20:1,21-100:0.5,101-:0.2", seed=3)
    for stratum, rate in (("1-20", 1.0), ("21-100", 0.5), ("101-", 0.2)):
        within = sample.stratum == stratum
        for topic in set(sample.topic[within].tolist()):
            members = within & (sample.topic == topic)
            drawn = int(sample.sampled[members].sum())
            assert drawn == max(1, round(rate * int(members.sum())))
            assert np.allclose(sample.probability[members], drawn / members.sum())
    again = sample_pool(pool, "1-20:1,21-100:0.5,101-:0.2", seed=3)
    assert (again.sampled == sample.sampled).all()


def test_sample_file_round_trip(tmp_path):
    pool = api.make_pool([api.read_run(p) for p in api.example_files()[1]], "depth", depth=5)
    sample = sample_pool(pool, "1-3:1,4-:0.5", seed=1)
    write_sample(sample, tmp_path / "s.txt")
    back = read_sampled_qrels(tmp_path / "s.txt")
    assert back.grade is None and (back.sampled == sample.sampled).all()
    assert np.allclose(back.probability, sample.probability)
    with pytest.raises(ParameterError, match="without grades"):
        estimate(back, [])


@pytest.mark.parametrize("text", ["1-10:0", "1-10:1.5", "2-10:1", "1-10:1,12-:1", "1-:1,5-:1", "1-10"])
def test_bad_strata_are_refused(text):
    with pytest.raises(ParameterError):
        parse_strata(text)


def test_a_place_beyond_the_strata_is_refused():
    pool = api.make_pool([api.read_run(p) for p in api.example_files()[1]], "depth", depth=5)
    with pytest.raises(ParameterError, match="is in no stratum"):
        sample_pool(pool, "1-3:1")


@pytest.mark.parametrize("text, message", [
    ("# topic docno stratum probability sampled\nq d1 1-10 0.5\n", "line 2: .*the inclusion probability is missing"),
    ("# topic docno stratum probability sampled\nq d1 1-10 1.5 1\n", r"line 2: the inclusion probability .* \(0, 1\]"),
    ("# topic docno stratum probability sampled\nq d1 1-10 0 1\n", r"line 2: the inclusion probability .* \(0, 1\]"),
    ("# topic docno stratum probability sampled\nq d1 1-10 0.5 2\n", "line 2: the sampled flag"),
    ("q 0 d1 s1 1\nq 0 d1 s1 0\n", "line 2: document 'd1' twice for topic 'q'"),
    ("q 0 d1 s1 x\n", "line 1: the grade"),
    ("q 0 d1 1\n", "line 1: a sampled qrels line is"),
])
def test_a_bad_sample_is_one_line_naming_the_line(tmp_path, text, message):
    path = tmp_path / "sample.txt"
    path.write_text(text)
    with pytest.raises(InputFormatError, match=message):
        read_sampled_qrels(path)


def test_a_sample_that_is_not_utf8_is_one_line_naming_the_line(tmp_path):
    """It was an internal error (the reader decoded the whole file at once)."""
    path = tmp_path / "sample.txt"
    path.write_bytes(b"q 0 d1 s1 1\nq 0 d\xff2 s1 0\n")
    with pytest.raises(InputFormatError, match=r"sample.txt, line 2: not valid UTF-8 text"):
        read_sampled_qrels(path)
