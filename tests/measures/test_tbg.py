"""Time-biased gain: the spec's example, every parameter, near-duplicates, normalisations, properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval.api as api
from pateval.cli import main
from pateval.errors import InputFormatError, MeasureNameError, ParameterError
from pateval.formats.groups import group_codes, read_duplicate_groups, read_patent_families
from pateval.measures import parse_measure
from pateval.measures.tbg import _shortest_first, ideal_gain
from pateval.usermodel.time import TimeModel

DEFAULTS = dict(summary_time=4.4, read_slope=0.018, read_intercept=7.8, p_click_rel=0.64, p_click_nonrel=0.39,
                p_save_rel=0.77, halflife=224.0)


def _reference_tbg(ranking, relevant, lengths, *, groups=None, duplicate_gain=True, **params):
    """Smucker & Clarke's definition, one document at a time (near-duplicates: same group ranked above)."""
    p = {**DEFAULTS, **params}
    gain = p["p_click_rel"] * p["p_save_rel"]
    elapsed, total, seen = 0.0, 0.0, set()
    for docno in ranking:
        group = ("group", groups[docno]) if groups and docno in groups else ("doc", docno)
        duplicate = group in seen
        seen.add(group)
        is_relevant = docno in relevant
        if is_relevant and (duplicate_gain or not duplicate):
            total += gain * 0.5 ** (elapsed / p["halflife"])
        length = 0.0 if duplicate else lengths[docno]
        click = p["p_click_rel"] if is_relevant else p["p_click_nonrel"]
        elapsed += p["summary_time"] + (p["read_slope"] * length + p["read_intercept"]) * click
    return total


def _tbg(qrels, run, name="TBG", lengths=None, **resources):
    frame = api.evaluate(qrels, run, [name], resources={"doc_lengths": lengths, **resources})
    return frame.set_index("topic")["value"]


SPEC_QRELS = {"q": {"d1": 1, "d2": 0, "d3": 1}}
SPEC_RUN = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
SPEC_LENGTHS = {"d1": 500, "d2": 1000, "d3": 200}


def test_spec_example():
    assert _tbg(SPEC_QRELS, SPEC_RUN, lengths=SPEC_LENGTHS)["q"] == pytest.approx(0.942448, abs=5e-7)
    frame = api.time_to_rank(SPEC_QRELS, SPEC_RUN, doc_lengths=SPEC_LENGTHS)
    assert frame["time"].tolist() == pytest.approx([0.0, 15.152, 29.614], abs=1e-9)
    assert frame["cumulative_gain"].iloc[-1] == pytest.approx(0.942448, abs=5e-7)


def test_spec_example_by_hand():
    g = 0.64 * 0.77
    t3 = 4.4 + (0.018 * 500 + 7.8) * 0.64 + 4.4 + (0.018 * 1000 + 7.8) * 0.39
    expected = g * (1 + math.exp(-t3 * math.log(2) / 224))
    assert _tbg(SPEC_QRELS, SPEC_RUN, lengths=SPEC_LENGTHS)["q"] == pytest.approx(expected, rel=1e-14)


def test_bound_normalisation_from_the_parameters():
    assert TimeModel().bound() == pytest.approx(0.4928 / (1 - 2 ** (-9.392 / 224)), rel=1e-14)
    assert round(TimeModel().bound(), 2) == 17.20
    raw = _tbg(SPEC_QRELS, SPEC_RUN, lengths=SPEC_LENGTHS)["q"]
    assert _tbg(SPEC_QRELS, SPEC_RUN, "TBG(norm=bound)", SPEC_LENGTHS)["q"] == pytest.approx(raw / 17.2037, rel=1e-4)
    custom = TimeModel(summary_time=2.0, read_intercept=10.0, p_click_rel=0.5, p_save_rel=0.9, halflife=600.0)
    assert custom.bound() == pytest.approx(0.45 / (1 - 2 ** (-(2.0 + 10.0 * 0.5) / 600)), rel=1e-14)
    name = "TBG(norm=bound,summary_time=2.0,read_intercept=10.0,p_click_rel=0.5,p_save_rel=0.9,halflife=600.0)"
    plain = name.replace("norm=bound,", "")
    assert _tbg(SPEC_QRELS, SPEC_RUN, name, SPEC_LENGTHS)["q"] == pytest.approx(
        _tbg(SPEC_QRELS, SPEC_RUN, plain, SPEC_LENGTHS)["q"] / custom.bound(), rel=1e-14)


def test_bound_with_instant_documents_is_an_error():
    with pytest.raises(ParameterError, match="infinite"):
        _tbg(SPEC_QRELS, SPEC_RUN, "TBG(norm=bound,summary_time=0,read_intercept=0)", SPEC_LENGTHS)


def test_ideal_normalisation_shortest_first():
    g = 0.4928
    first = 4.4 + (0.018 * 200 + 7.8) * 0.64  # d3 (200 words) first, then d1
    ideal = g * (1 + 2 ** (-first / 224))
    raw = _tbg(SPEC_QRELS, SPEC_RUN, lengths=SPEC_LENGTHS)["q"]
    assert _tbg(SPEC_QRELS, SPEC_RUN, "TBG(norm=ideal)", SPEC_LENGTHS)["q"] == pytest.approx(raw / ideal, rel=1e-13)


def test_ideal_counts_relevant_documents_not_retrieved():
    qrels = {"q": {"d1": 1, "d9": 1}}
    run = {"q": {"d1": 1.0}}
    lengths = {"d1": 100, "d9": 50}
    ideal = 0.4928 * (1 + 2 ** (-(4.4 + (0.9 + 7.8) * 0.64) / 224))
    assert _tbg(qrels, run, "TBG(norm=ideal)", lengths)["q"] == pytest.approx(0.4928 / ideal, rel=1e-13)
    with pytest.raises(ParameterError, match=r"'d9'.*topic 'q'.*norm=ideal"):
        _tbg(qrels, run, "TBG(norm=ideal)", {"d1": 100})


def test_no_relevant_document_scores_zero_for_every_normalisation():
    qrels = {"q": {"d1": 0}}
    run = {"q": {"d1": 1.0, "d2": 0.5}}
    for norm in ("none", "ideal", "bound"):
        assert _tbg(qrels, run, f"TBG(norm={norm})", {"d1": 5, "d2": 9})["q"] == 0.0


@pytest.mark.parametrize("param, value", [
    ("halflife", 600.0), ("summary_time", 9.0), ("read_slope", 0.05), ("read_intercept", 2.5),
    ("p_click_rel", 0.9), ("p_click_nonrel", 0.1), ("p_save_rel", 0.5),
])
def test_every_calibration_value_is_a_parameter(param, value):
    name = f"TBG({param}={value})"
    measure = parse_measure(name)
    assert measure[param] == value and parse_measure(str(measure)) == measure
    expected = _reference_tbg(["d1", "d2", "d3"], {"d1", "d3"}, SPEC_LENGTHS, **{param: value})
    got = _tbg(SPEC_QRELS, SPEC_RUN, name, SPEC_LENGTHS)["q"]
    assert got == pytest.approx(expected, rel=1e-13)
    assert got != pytest.approx(0.942448, abs=1e-4)  # the parameter was used


def test_parameters_are_validated_and_listed():
    for bad in ("TBG(halflife=0)", "TBG(p_click_rel=1.5)", "TBG(read_slope=-1)", "TBG(norm=max)",
                "TBG(duplicates=maybe)", "TBG(default_length=-2)"):
        with pytest.raises(MeasureNameError if "=" not in bad else ParameterError):
            parse_measure(bad)
    with pytest.raises(ParameterError, match="default_length"):
        _tbg(SPEC_QRELS, SPEC_RUN, "TBG(default_length=-0.5)", SPEC_LENGTHS)
    listed = api.list_measures().set_index("name").loc["TBG", "parameters"]
    listed = listed if isinstance(listed, str) else " ".join(listed)
    for name in ("halflife", "summary_time", "read_slope", "read_intercept", "p_click_rel", "p_click_nonrel",
                 "p_save_rel", "norm", "duplicates", "duplicate_gain", "default_length", "rel"):
        assert name in listed


def test_missing_length_is_an_error_naming_document_and_topic():
    with pytest.raises(ParameterError, match=r"TBG: no length for document 'd2' \(topic 'q', rank 2\)"):
        _tbg(SPEC_QRELS, SPEC_RUN, "TBG", {"d1": 500, "d3": 200})
    with pytest.raises(ParameterError, match="needs doc lengths"):
        api.evaluate(SPEC_QRELS, SPEC_RUN, "TBG")
    value = _tbg(SPEC_QRELS, SPEC_RUN, "TBG(default_length=1000)", {"d1": 500, "d3": 200})["q"]
    assert value == pytest.approx(0.942448, abs=5e-7)


def test_graded_qrels_are_binary_at_rel():
    qrels = {"q": {"d1": 2, "d2": 1, "d3": 2}}
    both = _reference_tbg(["d1", "d2", "d3"], {"d1", "d2", "d3"}, SPEC_LENGTHS)
    high = _reference_tbg(["d1", "d2", "d3"], {"d1", "d3"}, SPEC_LENGTHS)
    assert _tbg(qrels, SPEC_RUN, "TBG", SPEC_LENGTHS)["q"] == pytest.approx(both, rel=1e-14)
    assert _tbg(qrels, SPEC_RUN, "TBG(rel=2)", SPEC_LENGTHS)["q"] == pytest.approx(high, rel=1e-14)
    assert high == pytest.approx(0.942448, abs=5e-7)


# ---- near-duplicates -------------------------------------------------------------------------

DUP_QRELS = {"q": {"EP-100-A1": 1, "EP-100-B1": 1, "US-7-B2": 1, "X": 0}}
DUP_RUN = {"q": {"EP-100-A1": 4.0, "X": 3.0, "EP-100-B1": 2.0, "US-7-B2": 1.0}}
DUP_LENGTHS = {"EP-100-A1": 800, "EP-100-B1": 900, "US-7-B2": 300, "X": 100}
RANKING = ["EP-100-A1", "X", "EP-100-B1", "US-7-B2"]


def test_patent_key_groups_publications_of_one_patent():
    groups = {"EP-100-A1": "EP100", "EP-100-B1": "EP100"}
    for gain in (True, False):
        name = "TBG(duplicates=patent)" if gain else "TBG(duplicates=patent,duplicate_gain=false)"
        expected = _reference_tbg(RANKING, {"EP-100-A1", "EP-100-B1", "US-7-B2"}, DUP_LENGTHS, groups=groups,
                                  duplicate_gain=gain)
        assert _tbg(DUP_QRELS, DUP_RUN, name, DUP_LENGTHS)["q"] == pytest.approx(expected, rel=1e-14)
    plain = _reference_tbg(RANKING, {"EP-100-A1", "EP-100-B1", "US-7-B2"}, DUP_LENGTHS)
    assert _tbg(DUP_QRELS, DUP_RUN, "TBG", DUP_LENGTHS)["q"] == pytest.approx(plain, rel=1e-14)
    frame = api.time_to_rank(DUP_QRELS, DUP_RUN, model="TBG(duplicates=patent)", doc_lengths=DUP_LENGTHS)
    assert frame["duplicate"].tolist() == [False, False, True, False]


def test_duplicate_groups_and_families_files(tmp_path):
    groups_file = tmp_path / "groups.txt"
    groups_file.write_text("EP-100-A1 US-7-B2\n\nX\n")
    families_file = tmp_path / "families.txt"
    families_file.write_text("EP-100-A1 F1\nUS-7-B2 F1\nEP-100-B1 F2\n")
    groups = read_duplicate_groups(groups_file)
    assert groups == {"EP-100-A1": "EP-100-A1", "US-7-B2": "EP-100-A1", "X": "X"}
    families = read_patent_families(families_file)
    relevant = {"EP-100-A1", "EP-100-B1", "US-7-B2"}
    expected = _reference_tbg(RANKING, relevant, DUP_LENGTHS, groups={"EP-100-A1": 1, "US-7-B2": 1})
    assert _tbg(DUP_QRELS, DUP_RUN, "TBG(duplicates=groups)", DUP_LENGTHS, duplicate_groups=groups)["q"] == \
        pytest.approx(expected, rel=1e-14)
    assert _tbg(DUP_QRELS, DUP_RUN, "TBG(duplicates=families)", DUP_LENGTHS, patent_families=families)["q"] == \
        pytest.approx(expected, rel=1e-14)
    with pytest.raises(ParameterError, match="needs duplicate groups"):
        _tbg(DUP_QRELS, DUP_RUN, "TBG(duplicates=groups)", DUP_LENGTHS)


def test_groups_reader_errors(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("a b\nc d\nb e\n")
    with pytest.raises(InputFormatError, match=r"line 3: document 'b' is in two groups: on line 1 and here"):
        read_duplicate_groups(path)
    path.write_text("a b a\n")
    with pytest.raises(InputFormatError, match=r"line 1: document 'a' is listed twice"):
        read_duplicate_groups(path)
    path.write_text("a F1\nb\n")
    with pytest.raises(InputFormatError, match=r"line 2: wrong number of columns"):
        read_patent_families(path)
    path.write_text("a F1\na F2\n")
    with pytest.raises(InputFormatError, match=r"line 2: document 'a' is in two families"):
        read_patent_families(path)
    path.write_text("")
    with pytest.raises(InputFormatError, match="empty"):
        read_duplicate_groups(path)


def test_group_codes_never_merge_ungrouped_documents_with_groups():
    codes = group_codes(np.array(["a", "b", "g1", "c"], dtype=object), {"a": "g1", "c": "g1"})
    assert codes[0] == codes[3] and len({codes[0], codes[1], codes[2]}) == 3


def test_command_line_options(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q 0 EP-100-A1 1\nq 0 EP-100-B1 1\nq 0 US-7-B2 1\nq 0 X 0\n")
    (tmp_path / "run").write_text("".join(f"q Q0 {d} {i + 1} {4 - i} r\n" for i, d in enumerate(RANKING)))
    (tmp_path / "lengths").write_text("".join(f"{d} {n}\n" for d, n in DUP_LENGTHS.items()))
    (tmp_path / "groups").write_text("EP-100-A1 EP-100-B1\n")
    argv = ["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "TBG(duplicates=groups)",
            "--doc-lengths", str(tmp_path / "lengths"), "--duplicates", str(tmp_path / "groups")]
    assert main(argv) == 0
    expected = _reference_tbg(RANKING, {"EP-100-A1", "EP-100-B1", "US-7-B2"}, DUP_LENGTHS,
                              groups={"EP-100-A1": 1, "EP-100-B1": 1})
    out = capsys.readouterr().out
    assert "TBG(duplicates=groups)" in out and f"{expected:.4f}" in out


# ---- the ideal ordering, against every permutation ---------------------------------------------

@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 4000), min_size=1, max_size=6),
    group_of=st.lists(st.integers(0, 3), min_size=6, max_size=6),
    grouped=st.booleans(),
    duplicate_gain=st.booleans(),
    halflife=st.sampled_from([30.0, 224.0, 2000.0]),
    summary_time=st.sampled_from([0.0, 4.4, 20.0]),
)
def test_ideal_is_the_best_permutation(lengths, group_of, grouped, duplicate_gain, halflife, summary_time):
    docs = [f"d{i}" for i in range(len(lengths))]
    length_of = dict(zip(docs, lengths, strict=False))
    groups = {d: group_of[i] for i, d in enumerate(docs)} if grouped else None
    params = dict(halflife=halflife, summary_time=summary_time)
    best = max(_reference_tbg(list(p), set(docs), length_of, groups=groups, duplicate_gain=duplicate_gain, **params)
               for p in itertools.permutations(docs))
    model = TimeModel(**{**DEFAULTS, **params})
    codes = np.array([group_of[i] if grouped else 10 + i for i in range(len(docs))])
    ideal = ideal_gain(np.zeros(len(docs), dtype=np.int64), np.array(lengths, dtype=float), codes, 1, model=model,
                       duplicate_gain=duplicate_gain)
    assert ideal[0] == pytest.approx(best, rel=1e-12)
    if not grouped:  # the no-duplicates fast path
        plain = ideal_gain(np.zeros(len(docs), dtype=np.int64), np.array(lengths, dtype=float), None, 1, model=model)
        assert plain[0] == pytest.approx(best, rel=1e-12)


# ---- against the plain loop, and the properties of the issue ----------------------------------

@st.composite
def _topics(draw, max_docs=15):
    qrels, run, rankings, lengths = {}, {}, {}, {}
    for t in range(draw(st.integers(1, 3))):
        pool = [f"t{t}d{i}" for i in range(draw(st.integers(1, max_docs)))]
        grades = draw(st.lists(st.integers(0, 2), min_size=len(pool), max_size=len(pool)))
        qrels[f"t{t}"] = dict(zip(pool, grades, strict=False))
        ranking = draw(st.permutations(pool))[: draw(st.integers(1, len(pool)))]
        rankings[f"t{t}"] = ranking
        run[f"t{t}"] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        for d in pool:
            lengths[d] = draw(st.integers(0, 3000))
    return qrels, run, rankings, lengths


@settings(max_examples=30, deadline=None)
@given(case=_topics(), halflife=st.floats(10, 2000), slope=st.floats(0, 0.1), n_groups=st.integers(1, 4),
       duplicate_gain=st.booleans(), level=st.integers(1, 2))
def test_matches_the_plain_loop(case, halflife, slope, n_groups, duplicate_gain, level):
    qrels, run, rankings, lengths = case
    groups = {d: sum(map(ord, d)) % n_groups for d in lengths}  # stable across processes
    name = str(parse_measure(f"TBG(rel={level},halflife={halflife!r},read_slope={slope!r},duplicates=groups,"
                             f"duplicate_gain={str(duplicate_gain).lower()})"))
    values = _tbg(qrels, run, name, lengths, duplicate_groups=groups)
    for topic, ranking in rankings.items():
        relevant = {d for d, g in qrels[topic].items() if g >= level}
        expected = _reference_tbg(ranking, relevant, lengths, groups=groups, duplicate_gain=duplicate_gain,
                                  halflife=halflife, read_slope=slope)
        assert values[topic] == pytest.approx(expected, rel=1e-12, abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(case=_topics(), norm=st.sampled_from(["none", "ideal", "bound"]), extra_length=st.integers(0, 5000))
def test_nonnegative_and_appending_a_relevant_document_never_lowers_it(case, norm, extra_length):
    qrels, run, rankings, lengths = case
    name = f"TBG(norm={norm})"
    before = _tbg(qrels, run, name, lengths)
    assert np.all(before.to_numpy() >= 0)
    if norm != "none":
        assert np.all(before.to_numpy() <= 1 + 1e-12)
    longer_run = {t: dict(docs) for t, docs in run.items()}
    extended_qrels = {t: dict(j) for t, j in qrels.items()}
    for topic in rankings:
        new = f"{topic}-appended"
        extended_qrels[topic][new] = 1
        longer_run[topic][new] = min(longer_run[topic].values()) - 1.0
    lengths = {**lengths, **{f"{t}-appended": extra_length for t in rankings}}
    # the appended document is judged relevant in both qrels, so the ideal does not move
    before = _tbg(extended_qrels, run, name, lengths)
    after = _tbg(extended_qrels, longer_run, name, lengths)
    assert np.all(after.to_numpy() >= before.to_numpy() - 1e-15)


def test_replacing_a_non_relevant_document_by_a_relevant_one_can_lower_it():
    # a long relevant document in place of a short non-relevant one delays the relevant ones below it
    qrels = {"q": {"long": 1, **{f"r{i}": 1 for i in range(10)}}}
    lengths = {"short": 0, "long": 20000, **{f"r{i}": 100 for i in range(10)}}
    tail = {f"r{i}": 10.0 - i for i in range(10)}
    with_short = _tbg(qrels, {"q": {"short": 20.0, **tail}}, "TBG", lengths)["q"]
    with_long = _tbg(qrels, {"q": {"long": 20.0, **tail}}, "TBG", lengths)["q"]
    assert with_long < with_short


def test_empty_topic_with_complete_averaging():
    qrels = {"a": {"d1": 1}, "b": {"d2": 1}}
    run = {"a": {"d1": 1.0}}
    frame = api.evaluate(qrels, run, ["TBG", "TBG(norm=ideal)"], complete=True, resources={"doc_lengths": {"d1": 10,
                                                                                                           "d2": 10}})
    assert frame.set_index(["measure", "topic"]).loc[("TBG", "b"), "value"] == 0.0
    assert frame.set_index(["measure", "topic"]).loc[("TBG(norm=ideal)", "a"), "value"] == pytest.approx(1.0)


def test_patent_doc_key_uses_the_shortest_publication_for_the_ideal():
    qrels = {"q": {"EP-100-A1": 1, "EP-100-B1": 1}}
    run = {"q": {"EP0000100": 1.0}}
    lengths = {"EP-100-A1": 900, "EP-100-B1": 300, "EP0000100": 300}
    frame = api.evaluate(qrels, run, "TBG(norm=ideal)", doc_key="patent", resources={"doc_lengths": lengths})
    assert frame["value"].iloc[0] == pytest.approx(1.0)


def test_distinct_documents_with_and_without_the_ranking_codes():
    from types import SimpleNamespace

    from pateval.measures.tbg import distinct_documents

    docnos = np.array(["b", "a", "b", "c", "a"], dtype=object)
    codes, ids = distinct_documents(SimpleNamespace(docno=docnos))  # a ranking without document codes
    assert np.asarray(ids.to_pylist(), dtype=object)[codes].tolist() == docnos.tolist()
    ranked = SimpleNamespace(doc=np.array([1, 0, 1]), doc_ids=pa.array(["x", "y"]))
    codes, ids = distinct_documents(ranked)
    assert codes.tolist() == [1, 0, 1] and ids.to_pylist() == ["x", "y"]


def test_the_lookup_index_of_a_lengths_table_is_made_once_per_evaluation():
    import gc
    import weakref

    import pyarrow as pa

    from pateval.formats.doclengths import DocLengths
    from pateval.measures import EvaluationContext, parse_measure
    from pateval.measures.tbg import length_table

    lengths = DocLengths(pa.array([f"d{i}" for i in range(10)]), np.arange(10) * 100)
    context = EvaluationContext({"doc_lengths": lengths})
    measure = parse_measure("TBG")
    first, second = length_table(context, measure), length_table(context, measure)
    assert first is second and first.index is second.index  # one table and index per evaluation
    other = length_table(EvaluationContext({"doc_lengths": lengths}), measure)
    assert other.index is not first.index  # nothing kept beyond the evaluation's memo
    assert np.array_equal(first.find(pa.array(["d3", "x", "d9"])), [3, -1, 9])
    index = weakref.ref(first.index)
    del context, first, second
    gc.collect()
    assert index() is None  # dropped with its evaluation


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 50), max_size=40), seed=st.integers(0, 2**32 - 1))
def test_shortest_first(values, seed):
    rng = np.random.default_rng(seed)
    topic = np.sort(rng.integers(0, 4, len(values)))
    lengths = np.array(values, dtype=np.float64)
    order = np.lexsort((lengths, topic))
    got_topic, got_lengths = _shortest_first(topic, lengths, 4)
    assert np.array_equal(got_topic, topic[order]) and np.array_equal(got_lengths, lengths[order])
