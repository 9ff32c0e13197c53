"""The Cube Test (CT, ACT, the paper's Table 2 variants, compat=trec-dd).

- the spec's worked example and its trec-dd numbers;
- hand-computed cases for every parameter (time models, importance, cap, maxgrade);
- a plain per-document loop written from the spec's formula, against the vectorised kernel
  on random cases (hypothesis);
- the TREC DD jig's numbers on 300 random cases (tests/measures/fixtures/cubetest_jig_cases.json,
  made by tests/measures/fixtures/cubetest_make_jig_fixtures.py, which records its command), and
  the jig itself on hypothesis cases when ``PATEVAL_TREC_DD_JIG`` names its scorer/ directory;
- the invariants the issue lists, as property tests.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval.api as api
from pateval.cli import main as cli_main
from pateval.core.qrels import Qrels
from pateval.core.ranking import JudgementIndex, rank_run
from pateval.core.run import Run
from pateval.errors import InputFormatError, MeasureNameError, ParameterError
from pateval.formats.dd import read_dd_run
from pateval.formats.qrels import read_qrels
from pateval.formats.weights import read_subtopic_weights
from pateval.measures import parse_measure
from pateval.measures.cubetest import VARIANTS, cube_gain_table

FIXTURES = Path(__file__).parent / "fixtures"
JIG_CASES = FIXTURES / "cubetest_jig_cases.json"

# plain tuples in their column order (pateval reads 4-tuples only with fields= naming it)
SUBTOPIC_QRELS = ("topic", "subtopic", "docno", "rel")
RANKED_RUN = ("topic", "docno", "rank", "score")

# The spec's worked example: theta uniform over s1, s2; grades out of 4; dC unjudged.
EXAMPLE_QRELS = [("q", "s1", "dA", 2), ("q", "s2", "dA", 1), ("q", "s1", "dB", 3), ("q", "s2", "dD", 4)]
EXAMPLE_RUN = {"q": {"dA": 4.0, "dC": 3.0, "dB": 2.0, "dD": 1.0}}  # examined dA, dC, dB, dD


def values(qrels, run, measures, **options):
    frame = api.evaluate(qrels, run, measures, **options)
    return {m: frame.loc[frame["measure"] == str(parse_measure(m)), "value"].tolist() for m in measures}


def one(qrels, run, measure, **options):
    (got,) = values(qrels, run, [measure], **options)[measure]
    return got


# ---- the spec's test values -------------------------------------------------------------------

def test_spec_worked_example():
    qrels = Qrels.from_records(EXAMPLE_QRELS, fields=SUBTOPIC_QRELS)
    got = values(qrels, EXAMPLE_RUN, ["CT@4", "ACT@4", "CT(maxgrade=4)@4", "CT", "ACT"])
    assert got["CT@4"] == [0.203125]
    assert got["ACT@4"] == [0.23828125]
    assert got["CT(maxgrade=4)@4"] == [0.203125]
    assert got["CT"] == [0.203125] and got["ACT"] == [0.23828125]  # no cutoff: all 4 examined


def test_spec_worked_example_as_an_unranked_set_in_file_order():
    qrels = Qrels.from_records(EXAMPLE_QRELS, fields=SUBTOPIC_QRELS)
    run = Run.from_records([("q", "dA", 1, 0.0), ("q", "dC", 2, 0.0), ("q", "dB", 3, 0.0), ("q", "dD", 4, 0.0)],
                           fields=RANKED_RUN)
    assert one(qrels, run, "CT@4", order="file") == 0.203125
    assert one(qrels, run, "ACT@4", order="file") == 0.23828125


def test_spec_trec_dd_example():
    qrels = Qrels.from_records(EXAMPLE_QRELS, fields=SUBTOPIC_QRELS)
    got = values(qrels, EXAMPLE_RUN, ["CT(compat=trec-dd,iteration=2)", "ACT(compat=trec-dd,iteration=2)"])
    assert got["CT(compat=trec-dd,iteration=2)"] == [pytest.approx(0.1625, abs=1e-15)]
    assert got["ACT(compat=trec-dd,iteration=2)"] == [pytest.approx(0.14375, abs=1e-15)]
    # the same iterations given as a resource, as a DD run file gives them
    iterations = {"q": {"dA": 0, "dC": 0, "dB": 1, "dD": 1}}
    got = values(qrels, EXAMPLE_RUN, ["CT(compat=trec-dd)", "ACT(compat=trec-dd)"],
                 resources={"iterations": iterations})
    assert got["CT(compat=trec-dd)"] == [pytest.approx(0.1625, abs=1e-15)]
    assert got["ACT(compat=trec-dd)"] == [pytest.approx(0.14375, abs=1e-15)]


def test_spec_trec_dd_example_from_dd_files(tmp_path):
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text("".join(f"{t}\t{s}\t{d}\tp{i}\t{g}\n" for i, (t, s, d, g) in enumerate(EXAMPLE_QRELS)))
    run_file = tmp_path / "run.txt"
    run_file.write_text("q\t0\tdA\t9.0\t1\ts1:2|s2:1\nq\t0\tdC\t1.0\t0\nq\t1\tdD\t1.0\t1\ts2:4\nq\t1\tdB\t5.0\t1\ts1:3\n")
    dd = read_dd_run(run_file)
    assert list(dd.run.docnos[np.argsort(dd.run.rank)]) == ["dA", "dC", "dB", "dD"]  # by score within iterations
    qrels = read_qrels(qrels_file, format="dd")
    got = values(qrels, dd.run, ["CT(compat=trec-dd)@2", "ACT(compat=trec-dd)@2", "CT(compat=trec-dd)@1"],
                 order="rank", resources={"iterations": dd.iterations})
    assert got["CT(compat=trec-dd)@2"] == [pytest.approx(0.1625, abs=1e-15)]
    assert got["ACT(compat=trec-dd)@2"] == [pytest.approx(0.14375, abs=1e-15)]
    assert got["CT(compat=trec-dd)@1"] == [pytest.approx(0.15, abs=1e-15)]  # 0.75 / 5 / 1 iteration


def test_trec_dd_sums_passage_ratings_and_counts_rating_zero_as_one():
    # dA has two passages for s1 (ratings 0 -> 1, and 2): rel = 3; s2 has no document
    qrels = Qrels(topic=np.array(["q"] * 3, dtype=object), docno=np.array(["dA", "dA", "dB"], dtype=object),
                  rel=np.array([0, 2, 4]), subtopic=np.array(["s1", "s1", "s2"], dtype=object),
                  passage=np.array(["p1", "p2", "p3"], dtype=object), format="dd")
    run = {"q": {"dA": 2.0, "dB": 1.0}}
    # dA: 1/2 * 0.5 * 3 = 0.75; dB: 1/2 * 0.5 * 4 = 1.0 -> total 1.75 / 5 / 1 iteration
    assert one(qrels, run, "CT(compat=trec-dd,iteration=5)") == pytest.approx(1.75 / 5, abs=1e-15)


def test_trec_dd_clips_at_max_height_five():
    qrels = Qrels.from_records([("q", "s1", "d1", 4), ("q", "s1", "d2", 4), ("q", "s1", "d3", 4), ("q", "s1", "d4",
                                                                                                   4)],
                               fields=SUBTOPIC_QRELS)
    run = {"q": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}
    # gamma = 1: heights 4, then 4 clipped to 1, then nothing; gain 5 / 5 / one iteration
    assert one(qrels, run, "CT(gamma=1.0,compat=trec-dd,iteration=5)") == pytest.approx(1.0, abs=1e-15)
    # ACT: after each document 4/5, 5/5, 5/5, 5/5
    assert one(qrels, run, "ACT(gamma=1.0,compat=trec-dd,iteration=5)") == pytest.approx((0.8 + 3) / 4, abs=1e-15)


def test_trec_dd_iterations_take_precedence_over_the_ranking():
    qrels = Qrels.from_records(EXAMPLE_QRELS, fields=SUBTOPIC_QRELS)
    iterations = {"q": {"dB": 0, "dD": 0, "dA": 1, "dC": 1}}  # examined dB, dD, then dA, dC
    names = ["CT(compat=trec-dd)", "ACT(compat=trec-dd)"]
    got = values(qrels, EXAMPLE_RUN, names, resources={"iterations": iterations})
    reordered = {"q": {"dB": 4.0, "dD": 3.0, "dA": 2.0, "dC": 1.0}}
    expected = values(qrels, reordered, ["CT(compat=trec-dd,iteration=2)", "ACT(compat=trec-dd,iteration=2)"])
    assert list(got.values()) == list(expected.values())


def test_trec_dd_iteration_without_documents_is_one_nonrelevant_document():
    qrels = Qrels.from_records([("q", "s1", "d1", 2)], fields=SUBTOPIC_QRELS)
    run = {"q": {"d1": 1.0}}
    iterations = {"q": {"d1": 1}}  # iteration 0 missing: the jig walks a filler document first
    got = values(qrels, run, ["CT(compat=trec-dd)", "ACT(compat=trec-dd)"], resources={"iterations": iterations})
    assert got["CT(compat=trec-dd)"] == [pytest.approx(0.5 * 2 / 5 / 2, abs=1e-15)]
    assert got["ACT(compat=trec-dd)"] == [pytest.approx((0.0 + 0.5 * 2 / 5 / 2) / 2, abs=1e-15)]


# ---- hand-computed cases for each parameter ----------------------------------------------------

def test_time_tbg_and_words150():
    qrels = Qrels.from_records([("q", "s1", "d1", 1), ("q", "s1", "d2", 0)], fields=SUBTOPIC_QRELS)
    run = {"q": {"d1": 2.0, "d2": 1.0}}
    lengths = {"d1": 500, "d2": 1000}
    first = 4.4 + 0.64 * (0.018 * 500 + 7.8)  # 15.152 s, relevant
    second = 4.4 + 0.39 * (0.018 * 1000 + 7.8)  # 14.462 s, not relevant
    got = values(qrels, run, ["CT(time=tbg)@2", "ACT(time=tbg)@2", "CT(time=tbg)@1"],
                 resources={"doc_lengths": lengths})
    assert got["CT(time=tbg)@2"] == [pytest.approx(1 / (first + second), rel=1e-14)]
    assert got["ACT(time=tbg)@2"] == [pytest.approx((1 / first + 1 / (first + second)) / 2, rel=1e-14)]
    assert got["CT(time=tbg)@1"] == [pytest.approx(1 / first, rel=1e-14)]
    assert first + second == pytest.approx(29.614)  # T(3) of the spec's TBG example
    words = 4.4 + 0.64 * (0.018 * 150 + 7.8), 4.4 + 0.39 * (0.018 * 150 + 7.8)
    assert one(qrels, run, "CT(time=words150)@2") == pytest.approx(1 / sum(words), rel=1e-14)
    # calibration values are parameters
    assert one(qrels, run,
               "CT(time=words150,summary_time=0.0,read_slope=0.0,read_intercept=1.0,p_click_nonrel=1.0)@2") \
        == pytest.approx(1 / (0.64 + 1.0), rel=1e-14)


def test_time_tbg_missing_length():
    qrels = Qrels.from_records([("q", "s1", "d1", 1)], fields=SUBTOPIC_QRELS)
    run = {"q": {"d1": 2.0, "d2": 1.0}}
    with pytest.raises(ParameterError, match="no length for document 'd2'"):
        api.evaluate(qrels, run, ["CT(time=tbg)"], resources={"doc_lengths": {"d1": 10}})
    with pytest.raises(ParameterError, match="needs doc lengths"):
        api.evaluate(qrels, run, ["CT(time=tbg)"])
    step1 = 4.4 + 0.64 * (0.018 * 10 + 7.8)
    # a document beyond the cutoff is never examined: its length is not needed
    assert one(qrels, run, "CT(time=tbg)@1", resources={"doc_lengths": {"d1": 10}}) == pytest.approx(1 / step1,
                                                                                                     rel=1e-14)
    step2 = 4.4 + 0.39 * 7.8
    got = one(qrels, run, "CT(time=tbg,default_length=0.0)", resources={"doc_lengths": {"d1": 10}})
    assert got == pytest.approx(1 / (step1 + step2), rel=1e-14)


def test_importance_log_in_natural_order_of_ids():
    # subtopics "2" and "10": claim 2 is the 1st (theta ~ 1), claim 10 the 2nd (theta ~ 1/log2(3))
    qrels = Qrels.from_records([("q", "2", "d1", 1), ("q", "10", "d2", 1)], fields=SUBTOPIC_QRELS)
    w1, w2 = 1.0, 1.0 / math.log2(3.0)
    got = values(qrels, {"q": {"d1": 2.0, "d2": 1.0}}, ["CT(importance=log)@1", "CT_ltc"])
    assert got["CT(importance=log)@1"] == [pytest.approx(w1 / (w1 + w2), rel=1e-14)]
    assert got["CT_ltc"] == [pytest.approx(1.0 / 2, rel=1e-14)]  # both found: the whole cube in 2 units


def test_importance_weights_normalised_over_every_listed_subtopic():
    qrels = Qrels.from_records([("q", "1", "d1", 1), ("q", "2", "d2", 1)], fields=SUBTOPIC_QRELS)
    weights = {"q": {"1": 1.0, "2": 0.5, "3": 0.5}}  # claim 3 has no relevant document, still part of the cube
    run = {"q": {"d1": 2.0, "d2": 1.0}}
    got = values(qrels, run, ["CT(importance=weights)@1", "CT(importance=weights)@2", "CT_ptc"],
                 resources={"subtopic_weights": weights})
    assert got["CT(importance=weights)@1"] == [0.5]
    assert got["CT(importance=weights)@2"] == [0.75 / 2]
    assert got["CT_ptc"] == [0.75 / 2]
    with pytest.raises(ParameterError, match="no weight to subtopic '2'"):
        api.evaluate(qrels, run, ["CT(importance=weights)"], resources={"subtopic_weights": {"q": {"1": 1.0}}})
    with pytest.raises(ParameterError, match="needs subtopic weights"):
        api.evaluate(qrels, run, ["CT_pgc"], resources={"doc_lengths": {"d1": 1, "d2": 1}})


def test_cap_and_uncapped_position_decay():
    qrels = Qrels.from_records([("q", "s1", "d1", 2), ("q", "s1", "d2", 2), ("q", "s1", "d3", 1)],
                               fields=SUBTOPIC_QRELS)
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    # capped: d1 fills s1 (rel 1 = MaxHeight), d2 and d3 gain nothing
    assert one(qrels, run, "CT@3") == pytest.approx(1 / 3, rel=1e-14)
    # maxheight 2: d2 adds 0.5 * 1; d3 (raw height 2 reached) nothing
    assert one(qrels, run, "CT(maxheight=2.0)@3") == pytest.approx(1.5 / 3, rel=1e-14)
    # uncapped: gamma^n * rel * e^(-j + 1)
    expected = 1.0 + 0.5 * math.exp(-1) + 0.25 * 0.5 * math.exp(-2)
    assert one(qrels, run, "CT(cap=false)@3") == pytest.approx(expected / 3, rel=1e-14)
    expected_ab = sum(g * math.exp(-0.5 * j + 2.0) for j, g in ((1, 1.0), (2, 0.5), (3, 0.125)))
    assert one(qrels, run, "CT(cap=false,decay_a=0.5,decay_b=2.0)@3") == pytest.approx(expected_ab / 3, rel=1e-14)


def test_maxgrade_scales_relevance():
    qrels = Qrels.from_records([("q", "s1", "d1", 2)], fields=SUBTOPIC_QRELS)
    run = {"q": {"d1": 1.0}}
    assert one(qrels, run, "CT") == 1.0  # highest grade in the qrels is 2
    assert one(qrels, run, "CT(maxgrade=4)") == 0.5
    with pytest.raises(ParameterError, match="above maxgrade=1"):
        api.evaluate(qrels, run, ["CT(maxgrade=1)"])


def test_negative_and_zero_grades_gain_nothing_and_count_no_novelty():
    qrels = Qrels.from_records([("q", "s1", "d1", 0), ("q", "s1", "d2", -1), ("q", "s1", "d3", 1)],
                               fields=SUBTOPIC_QRELS)
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    assert one(qrels, run, "CT@3") == pytest.approx(1 / 3, rel=1e-14)  # d3 undiscounted (gamma^0)


def test_session_of_several_queries_in_file_order():
    # two queries of one session, results concatenated in the order viewed; scores are per query
    qrels = Qrels.from_records([("s", "a", "d1", 1), ("s", "b", "d3", 2), ("s", "a", "d4", 2)], fields=SUBTOPIC_QRELS)
    rows = [("s", "d1", 1, 10.0), ("s", "d2", 2, 9.0), ("s", "d3", 1, 50.0), ("s", "d4", 2, 40.0)]
    run = Run.from_records(rows, fields=RANKED_RUN)
    # viewed d1, d2, d3, d4: gains 0.25, 0, 0.5, 0.25 (a: height 0.5 < 1, discounted by gamma)
    assert one(qrels, run, "CT", order="file") == pytest.approx(1.0 / 4, rel=1e-14)
    assert one(qrels, run, "ACT", order="file") == pytest.approx((0.25 + 0.125 + 0.25 + 0.25) / 4, rel=1e-14)
    # by score the order differs (d3, d4, d1, d2), and so does CT's path
    assert one(qrels, run, "ACT") != one(qrels, run, "ACT", order="file")


def test_a_document_seen_again_in_a_session_is_an_error_or_its_first_viewing(tmp_path):
    """A session whose second query shows d1 again: an error naming the line, or, with
    on_duplicate="first", the first viewing only (the second earns nothing and takes no time)."""
    qrels = Qrels.from_records([("s", "a", "d1", 1), ("s", "b", "d3", 2), ("s", "a", "d4", 2)], fields=SUBTOPIC_QRELS)
    run = tmp_path / "session.txt"
    run.write_text("s Q0 d1 1 10.0 r\ns Q0 d2 2 9.0 r\ns Q0 d3 1 50.0 r\ns Q0 d1 2 45.0 r\ns Q0 d4 3 40.0 r\n")
    with pytest.raises(InputFormatError) as error:
        api.evaluate(qrels, str(run), ["CT"], order="file")
    assert str(error.value) == (f"{run}, line 4: document 'd1' retrieved twice for topic 's' (first on line 1); "
                                "use on_duplicate='first' (--on-duplicate first) to keep the first")
    kept = api.evaluate(qrels, str(run), ["CT", "ACT"], order="file", on_duplicate="first")
    # as the session without the repeat: viewed d1, d2, d3, d4
    assert kept["value"].tolist() == pytest.approx([1.0 / 4, (0.25 + 0.125 + 0.25 + 0.25) / 4], rel=1e-14)


def test_fewer_documents_than_the_cutoff_scored_at_their_length():
    qrels = Qrels.from_records(EXAMPLE_QRELS, fields=SUBTOPIC_QRELS)
    assert one(qrels, EXAMPLE_RUN, "CT@100") == one(qrels, EXAMPLE_RUN, "CT@4")
    assert one(qrels, EXAMPLE_RUN, "ACT@100") == one(qrels, EXAMPLE_RUN, "ACT@4")


def test_topic_without_results_scores_zero_with_complete():
    qrels = Qrels.from_records(EXAMPLE_QRELS + [("q2", "s1", "x", 1)], fields=SUBTOPIC_QRELS)
    frame = api.evaluate(qrels, EXAMPLE_RUN, ["CT", "ACT", "CT(compat=trec-dd,iteration=5)"], complete=True)
    assert frame.loc[frame["topic"] == "q2", "value"].tolist() == [0.0, 0.0, 0.0]


def test_document_level_measures_in_the_same_call_use_the_highest_grade(tmp_path):
    qrels_file = tmp_path / "qrels"
    qrels_file.write_text("q s1 dA 2\nq s2 dA 1\nq s1 dB 3\nq s2 dD 4\n")
    run_file = tmp_path / "run"
    run_file.write_text("q Q0 dA 1 4 r\nq Q0 dC 2 3 r\nq Q0 dB 3 2 r\nq Q0 dD 4 1 r\n")
    got = values(str(qrels_file), str(run_file), ["CT@4", "nDCG@2", "P@2"], qrels_format="subtopic")
    assert got["CT@4"] == [0.203125]
    assert got["P@2"] == [0.5]
    assert got["nDCG@2"] == [pytest.approx(2 / (4 + 3 / math.log2(3)), rel=1e-14)]


def test_command_line_with_resources(tmp_path, capsys):
    qrels_file = tmp_path / "qrels"
    qrels_file.write_text("q 1 dA 2\nq 2 dA 1\nq 1 dB 3\nq 2 dD 4\n")
    run_file = tmp_path / "run"
    run_file.write_text("q Q0 dA 1 4 r\nq Q0 dC 2 3 r\nq Q0 dB 3 2 r\nq Q0 dD 4 1 r\n")
    weights = tmp_path / "theta"
    weights.write_text("q 1 1\nq 2 1\n")
    dd_run = tmp_path / "ddrun"
    dd_run.write_text("q\t0\tdA\t4\nq\t0\tdC\t3\nq\t1\tdB\t2\nq\t1\tdD\t1\n")
    status = cli_main(["evaluate", str(qrels_file), str(run_file), "--qrels-format", "subtopic", "--order", "rank",
                       "--subtopic-weights", str(weights), "--iterations", str(dd_run), "--precision", "8",
                       "-m", "CT(importance=weights)@4", "-m", "CT(compat=trec-dd)", "-m", "ACT@4"])
    assert status == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    printed = {m.strip(): float(v) for m, t, v in lines if t.strip() == "all"}
    assert printed == {"CT(importance=weights)@4": 0.203125, "CT(compat=trec-dd)": 0.1625, "ACT@4": 0.23828125}


# ---- names, parameters, variants --------------------------------------------------------------

@pytest.mark.parametrize("name", ["CT", "ACT@10", "CT(gamma=0.3,time=tbg)@10", "CT(compat=trec-dd,iteration=5)@10",
                                  "CT(cap=false,decay_a=0.5,importance=log)", "CT_lgc(gamma=0.3)@5", "CT_ptcbar",
                                  "CT_lacbar(decay_b=2.0)@20", "ACT(maxheight=2.0,maxgrade=4)"])
def test_names_round_trip(name):
    measure = parse_measure(name)
    assert str(measure) == name
    assert parse_measure(str(measure)) == measure


@pytest.mark.parametrize("name, problem", [
    ("CT(gamma=1.5)", ParameterError), ("CT(gamma=-0.1)", ParameterError), ("CT(time=seconds)", ParameterError),
    ("CT(maxheight=0)", ParameterError), ("CT(importance=claims)", ParameterError), ("CT_ltc@5", MeasureNameError),
    ("CT_lgc(maxheight=2.0,decay_a=1.0)", MeasureNameError), ("CT_lgcbar(maxheight=2.0)", MeasureNameError),
    ("CT_xgc", MeasureNameError),
])
def test_bad_names_and_parameters(name, problem):
    with pytest.raises(problem):
        parse_measure(name)


@pytest.mark.parametrize("name", ["CT(compat=trec-dd,time=tbg)", "CT(compat=trec-dd,maxheight=2.0)",
                                  "CT(compat=trec-dd,importance=log)", "CT(iteration=5)", "CT(decay_a=2.0)"])
def test_combinations_that_mean_nothing_are_refused(name):
    qrels = Qrels.from_records(EXAMPLE_QRELS, fields=SUBTOPIC_QRELS)
    with pytest.raises(ParameterError):
        api.evaluate(qrels, EXAMPLE_RUN, [name], resources={"doc_lengths": {}})


def test_trec_dd_needs_iterations():
    qrels = Qrels.from_records(EXAMPLE_QRELS, fields=SUBTOPIC_QRELS)
    with pytest.raises(ParameterError, match="needs iterations"):
        api.evaluate(qrels, EXAMPLE_RUN, ["CT(compat=trec-dd)"])
    with pytest.raises(ParameterError, match="do not list document 'dC'"):
        api.evaluate(qrels, EXAMPLE_RUN, ["CT(compat=trec-dd)"], resources={"iterations": {"q": {"dA": 0}}})


def test_twelve_table2_variants():
    assert sorted(VARIANTS) == sorted(f"CT_{i}{t}{c}" for i in "lp" for t in "tag" for c in ("c", "cbar"))


def _variant_equivalent(name: str, gamma: float) -> str:
    fixed = VARIANTS[name]
    params = [f"gamma={gamma!r}", f"importance={fixed['importance']}", f"time={fixed['time']}"]
    if not fixed["cap"]:
        params.append("cap=false")
    return "CT(" + ",".join(params) + ")" + ("@10" if "cutoff" in fixed else "@6")


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_variant_is_ct_with_its_letters(name):
    qrels, run, _ = _random_case(11, n_topics=3)
    resources = _resources_for(qrels, run)
    variant = name + "(gamma=0.3)" + ("" if "cutoff" in VARIANTS[name] else "@6")
    got = values(qrels, run, [variant, _variant_equivalent(name, 0.3)], resources=resources)
    assert got[variant] == got[_variant_equivalent(name, 0.3)]
    assert any(v > 0 for v in got[variant])


# ---- readers ----------------------------------------------------------------------------------

def test_subtopic_weights_reader(tmp_path):
    path = tmp_path / "theta"
    path.write_text("PAC-1 1 1\nPAC-1 2 0.5\nPAC-1 2 0.5\nPAC-2 1 0\n")
    weights = read_subtopic_weights(path)
    assert weights.to_dict() == {"PAC-1": {"1": 1.0, "2": 0.5}, "PAC-2": {"1": 0.0}}
    with pytest.raises(ParameterError, match="topic 'PAC-2' sum to 0"):
        weights.normalised(np.array(["PAC-2"]), np.array(["1"]))
    for text, problem in [("q 1 1\nq 1 2\n", "line 2.*two weights"), ("q 1 -1\n", "line 1.*negative"),
                          ("q 1\n", "line 1.*wrong number of columns"), ("q 1 x\n", "line 1.*not a number")]:
        path.write_text(text)
        with pytest.raises(InputFormatError, match=problem):
            read_subtopic_weights(path)


def test_dd_run_reader_errors(tmp_path):
    path = tmp_path / "run"
    for text, problem in [("q\t0\td1\t1.0\nq\t1\td1\t2.0\n", "line 2.*returned twice"),
                          ("q\t-1\td1\t1.0\n", "line 1.*negative iteration"),
                          ("q\tx\td1\t1.0\n", "line 1.*iteration.*not an integer"),
                          ("q\t0\td1\n", "line 1.*not a TREC DD run line")]:
        path.write_text(text)
        with pytest.raises(InputFormatError, match=problem):
            read_dd_run(path)
    path.write_text("q\t0\td1\t1.0\nq\t1\td1\t2.0\nq\t1\td2\t2.0\n")
    dd = read_dd_run(path, on_duplicate="first")
    assert list(dd.run.docnos) == ["d1", "d2"] and dd.run.notes


def test_dd_iterations_matched_by_codes_and_by_strings_agree(tmp_path):
    case = json.loads(JIG_CASES.read_text())["cases"][7]
    qrels_file, run_file = _write_dd_inputs(case, tmp_path)
    dd = read_dd_run(run_file)
    ranked = _ranked(read_qrels(qrels_file, format="dd"), dd.run, order="rank")
    by_codes = dd.iterations.lookup_ranked(ranked)
    by_strings = dd.iterations.lookup(ranked.topic_ids[ranked.row_topic], ranked.docno)
    assert (by_codes >= 0).all() and by_codes.tolist() == by_strings.tolist()


def test_dd_run_reader_on_the_2015_harness_file(test_data):
    dd = read_dd_run(test_data / "trecdd" / "trecdd2015_harness_demo_runfile.txt")
    assert dd.run.name == "toy_system_1"
    assert len(dd.run) == 15 and sorted(set(dd.iterations.iteration.tolist())) == [0, 1, 2]
    assert dd.run.rank.tolist() == list(range(1, 16))


def test_real_dd_qrels(test_data):
    qrels = read_qrels(test_data / "trecdd" / "qrels.txt.gz", format="dd")
    frame = qrels.to_frame()
    topic = "DD16-1"
    docs = frame.loc[frame["topic"] == topic, "docno"].drop_duplicates().tolist()[:10] + ["not-judged"]
    run = {topic: {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    got = values(qrels, run, ["CT(compat=trec-dd,iteration=5)@2", "CT@10", "P@10"])
    expected = _jig_loop(frame[frame["topic"] == topic], [docs[:5], docs[5:10]], gamma=0.5, cutoff=2)[0]
    assert got["CT(compat=trec-dd,iteration=5)@2"][0] == pytest.approx(expected, abs=1e-12)
    assert 0 < got["CT@10"][0] <= 1 and 0 < got["P@10"][0] <= 1


# ---- reference loops (written from the spec, one document at a time) ---------------------------

def _paper_loop(docs, judgement, theta, *, gamma, maxheight, cap, time_of, decay=(1.0, 1.0), maxgrade):
    """CT and ACT of one ranking, straight from the spec's formula."""
    height = {c: 0.0 for c in theta}
    nrel = {c: 0 for c in theta}
    gain = elapsed = speed_sum = 0.0
    for j, doc in enumerate(docs, start=1):
        for c, grade in judgement.get(doc, {}).items():
            rel = max(grade, 0) / maxgrade
            if rel <= 0:
                continue
            if cap:
                if height[c] < maxheight - 1e-12:
                    gain += gamma ** nrel[c] * theta[c] * rel
            else:
                gain += gamma ** nrel[c] * theta[c] * rel * math.exp(-decay[0] * j + decay[1])
            height[c] += rel
            nrel[c] += 1
        elapsed += time_of(doc)
        speed_sum += gain / elapsed
    if not docs:
        return 0.0, 0.0
    return gain / elapsed, speed_sum / len(docs)


def _jig_loop(topic_frame, iterations, *, gamma, cutoff):
    """The jig's definition restated per document (rating sums, 0 counts 1, MaxHeight 5)."""
    ratings = topic_frame.assign(rel=np.where(topic_frame["rel"] == 0, 1, topic_frame["rel"]))
    rel = ratings.groupby(["docno", "subtopic"])["rel"].sum()
    weight = 1.0 / topic_frame["subtopic"].nunique()
    height, count = {}, {}
    total = accumulated = 0.0
    documents = walked = 0
    for docs in iterations[:cutoff]:
        walked += 1
        for doc in docs:
            if doc in rel.index.get_level_values(0):
                for subtopic, r in rel.loc[doc].items():
                    h = height.get(subtopic, 0.0)
                    if h < 5:
                        add = min(gamma ** (count.get(subtopic, 0) + 1) * r, 5 - h)
                        total += weight * add
                        height[subtopic] = h + add
                        count[subtopic] = count.get(subtopic, 0) + 1
            accumulated += total / 5 / walked
            documents += 1
    return total / 5 / walked, accumulated / documents


def _random_case(seed: int, n_topics: int = 3, n_docs: int = 14, max_grade: int = 4):
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = [], []
    for t in range(n_topics):
        topic = f"t{t}"
        docs = [f"{topic}d{i}" for i in range(n_docs)]
        subtopics = [str(s) for s in range(1, int(rng.integers(2, 6)))]
        for d in rng.choice(docs, size=n_docs // 2, replace=False):
            for s in rng.choice(subtopics, size=int(rng.integers(1, len(subtopics) + 1)), replace=False):
                qrels_rows.append((topic, str(s), str(d), int(rng.integers(0, max_grade + 1))))
        for i, d in enumerate(rng.choice(docs, size=int(rng.integers(1, n_docs)), replace=False)):
            run_rows.append((topic, str(d), i + 1, float(rng.integers(0, 5))))
    return Qrels.from_records(qrels_rows, fields=SUBTOPIC_QRELS), Run.from_records(run_rows, name="r",
                                                                                   fields=RANKED_RUN), run_rows


def _resources_for(qrels: Qrels, run: Run):
    lengths = {d: 20 + (sum(map(ord, d)) * 31) % 700 for d in set(run.vocabulary) | set(qrels.docno)}
    weights = {}
    for t, s in zip(qrels.topic, qrels.subtopic, strict=False):
        weights.setdefault(t, {})[s] = 1.0 if s == "1" else 0.5
    return {"doc_lengths": lengths, "subtopic_weights": weights}


def _ranked(qrels, run, order="score"):
    topics = np.intersect1d(qrels.topic_ids.astype(str), run.topic_ids.astype(str)).astype(object)
    return rank_run(run, JudgementIndex.build(qrels, topics), order=order)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 100_000), gamma=st.sampled_from([0.1, 0.5, 0.9, 1.0]),
       maxheight=st.sampled_from([0.5, 1.0, 2.5]), cap=st.booleans(), importance=st.sampled_from(["uniform", "log"]),
       time=st.sampled_from(["rank", "tbg", "words150"]), cutoff=st.sampled_from([None, 1, 3, 8]))
def test_vectorised_kernel_equals_the_per_document_loop(seed, gamma, maxheight, cap, importance, time, cutoff):
    qrels, run, _ = _random_case(seed)
    resources = _resources_for(qrels, run)
    params = [f"gamma={gamma!r}", f"importance={importance}", f"time={time}"]
    params += [f"maxheight={maxheight!r}"] if cap else ["cap=false"]
    ct_name, act_name = (f"{m}({','.join(params)})" + (f"@{cutoff}" if cutoff else "") for m in ("CT", "ACT"))
    got = values(qrels, run, [ct_name, act_name], resources=resources)
    ranked = _ranked(qrels, run)
    frame = qrels.to_frame()
    maxgrade = max(int(qrels.rel.max()), 1)
    for t, topic in enumerate(ranked.topic_ids):
        part = frame[frame["topic"] == topic]
        judgement = {d: dict(zip(g["subtopic"], g["rel"], strict=False)) for d, g in part.groupby("docno")}
        ids = sorted(part["subtopic"].unique(), key=int)
        raw = {c: (1.0 if importance == "uniform" else 1 / math.log2(1 + k)) for k, c in enumerate(ids, start=1)}
        theta = {c: w / sum(raw.values()) for c, w in raw.items()}
        docs = list(ranked.docno[ranked.ptr[t]:ranked.ptr[t + 1]])[:cutoff]

        def time_of(doc, judgement=judgement):
            if time == "rank":
                return 1.0
            relevant = max(judgement.get(doc, {0: 0}).values()) > 0
            length = 150 if time == "words150" else resources["doc_lengths"][doc]
            return 4.4 + (0.64 if relevant else 0.39) * (0.018 * length + 7.8)

        ct, act = _paper_loop(docs, judgement, theta, gamma=gamma, maxheight=maxheight, cap=cap, time_of=time_of,
                              maxgrade=maxgrade)
        assert got[ct_name][t] == pytest.approx(ct, rel=1e-12, abs=1e-15)
        assert got[act_name][t] == pytest.approx(act, rel=1e-12, abs=1e-15)


# ---- the TREC DD jig ---------------------------------------------------------------------------

def _write_dd_inputs(case, folder: Path):
    qrels_file = folder / "qrels.txt"
    qrels_file.write_text("".join(f"{t}\t{s}\t{d}\t{p}\t{g}\n" for t, s, d, p, g in case["qrels"]))
    run_file = folder / "run.txt"
    run_file.write_text("".join(f"{t}\t{it}\t{d}\t{sc!r}\n" for t, it, d, sc in case["run"]))
    return qrels_file, run_file


def _pateval_dd(case, folder: Path):
    qrels_file, run_file = _write_dd_inputs(case, folder)
    dd = read_dd_run(run_file)
    names = [f"{m}(gamma={case['gamma']!r},compat=trec-dd)@{case['cutoff']}" for m in ("CT", "ACT")]
    frame = api.evaluate(read_qrels(qrels_file, format="dd"), dd.run, names, order="rank",
                         resources={"iterations": dd.iterations})
    out = {}
    for topic, measure, value in zip(frame["topic"], frame["measure"], frame["value"], strict=False):
        out.setdefault(topic, {})["CT" if measure.startswith("CT") else "ACT"] = value
    return out


def test_trec_dd_jig_fixtures(tmp_path):
    data = json.loads(JIG_CASES.read_text())
    assert data["command"].startswith("python tests/measures/fixtures/cubetest_make_jig_fixtures.py")
    assert len(data["cases"]) >= 300
    # cases with the same gamma and cutoff are scored together, each case's topics renamed apart
    groups: dict[tuple, dict] = {}
    for case in data["cases"]:
        group = groups.setdefault((case["gamma"], case["cutoff"]), {"gamma": case["gamma"], "cutoff": case["cutoff"],
                                                                     "qrels": [], "run": [], "jig": {}})
        rename = {t: f"DD{case['case']}-{t.split('-')[1]}" for t in {row[0] for row in case["qrels"]}}
        group["qrels"] += [[rename[t], *rest] for t, *rest in case["qrels"]]
        group["run"] += [[rename[t], *rest] for t, *rest in case["run"]]
        group["jig"].update({rename[t]: v for t, v in case["jig"].items()})
    worst = 0.0
    for group in groups.values():
        got = _pateval_dd(group, tmp_path)
        assert got.keys() == group["jig"].keys()
        for topic, jig in group["jig"].items():
            for kind in ("CT", "ACT"):
                worst = max(worst, abs(got[topic][kind] - jig[kind]))
    assert worst <= 1e-15  # 5.6e-17 measured: the jig adds in the same order


def _load_fixture_maker():
    spec = importlib.util.spec_from_file_location("cubetest_make_jig_fixtures",
                                                  FIXTURES / "cubetest_make_jig_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


JIG_DIR = os.environ.get("PATEVAL_TREC_DD_JIG")


@pytest.mark.skipif(not JIG_DIR, reason="set PATEVAL_TREC_DD_JIG to the jig's scorer/ directory to run it live")
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_trec_dd_against_the_live_jig(seed, tmp_path_factory):
    import contextlib
    import io

    maker = _load_fixture_maker()
    sys.path.insert(0, str(Path(JIG_DIR).resolve()))
    import cubetest as jig  # the jig's module, outside pateval

    folder = tmp_path_factory.mktemp("jig")
    case = maker.make_case(np.random.default_rng(seed), 0)
    truth, params, runfile = maker.write_inputs(case, folder)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            _, ct, act = jig.cubetest(str(runfile), str(truth), str(params), gamma=case["gamma"], max_height=5,
                                      cutoff=case["cutoff"])
    except ZeroDivisionError:
        return  # the jig's normalisation fails on this case; nothing to compare
    topics = sorted({t for t, *_ in case["run"]}, key=lambda x: int(x.split("-")[1]))
    got = _pateval_dd(case, folder)
    for topic, c, a in zip(topics, ct, act, strict=False):
        assert got[topic]["CT"] == pytest.approx(c, abs=1e-12)
        assert got[topic]["ACT"] == pytest.approx(a, abs=1e-12)


# ---- invariants -------------------------------------------------------------------------------

@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 100_000), gamma=st.sampled_from([0.2, 0.5, 1.0]), maxheight=st.sampled_from([0.5, 1.0, 3.0]))
def test_cumulative_gain_never_decreases_with_depth(seed, gamma, maxheight):
    qrels, run, _ = _random_case(seed)
    ranked = _ranked(qrels, run)
    depth = int(np.diff(ranked.ptr).max())
    names = [f"CT(gamma={gamma!r},maxheight={maxheight!r})@{k}" for k in range(1, depth + 1)]
    got = values(qrels, run, names)
    lengths = np.diff(ranked.ptr)
    gains = np.array([[v * min(k, n) for v, n in zip(got[name], lengths, strict=False)] for k, name in enumerate(names,
                                                                                                                start=1)])
    assert np.all(np.diff(gains, axis=0) >= -1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 100_000), gamma=st.sampled_from([0.3, 0.5, 1.0]), maxheight=st.sampled_from([0.5, 1.0, 2.0]))
def test_no_gain_once_the_raw_height_reached_max_height(seed, gamma, maxheight):
    qrels, run, _ = _random_case(seed)
    table = cube_gain_table(_ranked(qrels, run), f"CT(gamma={gamma!r},maxheight={maxheight!r})")
    height_before = table.groupby(["topic", "subtopic"])["rel"].cumsum() - table["rel"]
    full = height_before >= maxheight - 1e-12
    assert (table.loc[full, "gain"] == 0).all()
    assert (table.loc[~full, "gain"] > 0).all()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 100_000), importance=st.sampled_from(["uniform", "log"]))
def test_gamma_one_without_reaching_the_cap_is_the_weighted_graded_sum(seed, importance):
    qrels, run, _ = _random_case(seed)
    ranked = _ranked(qrels, run)
    name = f"CT(gamma=1.0,maxheight=1000000.0,importance={importance})"
    table = cube_gain_table(ranked, name)
    view = ranked.subtopic_view()
    theta = pd.Series(_theta(view, importance), index=pd.MultiIndex.from_arrays(
        [ranked.topic_ids[view.subtopic_topic], view.subtopic_ids]))
    plain = theta.reindex(pd.MultiIndex.from_frame(table[["topic", "subtopic"]])).to_numpy() * table["rel"].to_numpy()
    np.testing.assert_allclose(table["gain"].to_numpy(), plain, rtol=1e-14, atol=0)
    ct = values(qrels, run, [name])[name]
    totals = table.groupby("topic")["gain"].sum().reindex(ranked.topic_ids, fill_value=0.0).to_numpy()
    np.testing.assert_allclose(np.array(ct) * np.diff(ranked.ptr), totals, rtol=1e-12, atol=1e-15)


def _theta(view, importance):
    counts = np.diff(view.subtopic_ptr)[view.subtopic_topic]
    if importance == "uniform":
        return 1.0 / counts
    out = np.empty(len(view.subtopic_ids))
    for t in range(len(view.subtopic_ptr) - 1):
        ids = view.subtopic_ids[view.subtopic_ptr[t]:view.subtopic_ptr[t + 1]]
        order = sorted(range(len(ids)), key=lambda i: int(ids[i]))
        raw = np.empty(len(ids))
        for k, i in enumerate(order, start=1):
            raw[i] = 1 / math.log2(1 + k)
        out[view.subtopic_ptr[t]:view.subtopic_ptr[t + 1]] = raw / raw.sum()
    return out


def test_a_relevant_document_can_lower_ct_through_the_novelty_discount():
    # not monotone: a marginally relevant document before a highly relevant one of the same
    # subtopic discounts the latter (gamma^1), so the total falls: 0.25 + 0.5 < 1
    qrels = Qrels.from_records([("q", "s1", "rA", 1), ("q", "s1", "rB", 4)], fields=SUBTOPIC_QRELS)
    with_gap = {"q": {"x": 2.0, "rB": 1.0}}
    with_relevant = {"q": {"rA": 2.0, "rB": 1.0}}
    assert one(qrels, with_gap, "CT@2") == 0.5
    assert one(qrels, with_relevant, "CT@2") == 0.375


# ---- section 5.3 of the paper: the gamma sweep --------------------------------------------------

def test_gamma_sweep_crossing():
    path = Path(__file__).resolve().parents[2] / "scripts" / "cubetest_gamma_sweep.py"
    spec = importlib.util.spec_from_file_location("cubetest_gamma_sweep", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sweep = module.gamma_sweep(np.round(np.arange(0.1, 0.91, 0.1), 1))
    assert sweep["coverage"].iloc[0] > sweep["relevance"].iloc[0]  # small gamma: coverage wins
    assert sweep["coverage"].iloc[-1] < sweep["relevance"].iloc[-1]  # large gamma: relevance wins
    difference = np.sign(sweep["coverage"] - sweep["relevance"]).to_numpy()
    assert np.count_nonzero(np.diff(difference)) >= 1
