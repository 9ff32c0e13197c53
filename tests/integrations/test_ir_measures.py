"""pateval's measures through ir_measures: registered, and equal to `pateval evaluate`."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

ir_measures = pytest.importorskip("ir_measures")

import pateval  # noqa: E402
import pateval.ir_measures as pim  # noqa: E402
from pateval.core.qrels import Qrels  # noqa: E402
from pateval.formats.passages import PassageRun  # noqa: E402

MEASURES = ["PRES@100", "PRES@10", "Rnorm(collection=5000)@50", "TBG", "TBG(norm='ideal',halflife=300)",
            "CT(gamma=0.5)@10", "ACT@10",
            "CT(time='tbg')@20", "CT_pgc@100", "D_nDCG@10", "Dsharp_nDCG(gamma=0.5)@10", "Dsharp_nDCG", "I_rec@10"]


def _ir_qrels(data) -> pd.DataFrame:
    return pd.DataFrame(data["qrels_rows"], columns=["query_id", "iteration", "doc_id", "relevance"])


def _pateval_names(names):
    return [str(ir_measures.parse_measure(n).pateval_measure()) if n != "I_rec@10" else n for n in names]


@pytest.fixture()
def resources(files):
    pim.set_resources(doc_lengths=files["lengths"], subtopic_weights=files["weights"])
    yield {"doc_lengths": files["lengths"], "subtopic_weights": files["weights"]}
    pim.clear_resources()


def test_registers_what_ir_measures_lacks_and_nothing_it_has():
    for name in ["PRES", "Rnorm", "TBG", "CT", "ACT", "CT_pgc", "CT_ltcbar", "D_nDCG", "Dsharp_nDCG", "P_psg",
                 "MAP_psg"]:
        assert isinstance(ir_measures.parse_measure(name), pim._PatevalIrMeasure), name
    for name in ["AP", "nDCG", "P", "alpha_nDCG", "ERR_IA", "nERR_IA", "P_IA", "MAP_IA", "StRecall", "Bpref"]:
        assert not isinstance(ir_measures.measures.registry[name], pim._PatevalIrMeasure), name
    assert "I_rec" not in ir_measures.measures.registry  # ir_measures' StRecall


def test_calc_aggregate_and_iter_calc_equal_pateval_evaluate(data, files, resources):
    names = [n for n in MEASURES if n != "I_rec@10"]
    measures = [ir_measures.parse_measure(n) for n in names]
    qrels = _ir_qrels(data)
    for run_name, frame in data["runs"].items():
        run = frame.rename(columns={"qid": "query_id", "docno": "doc_id"})
        got = ir_measures.calc_aggregate(measures, qrels, run)
        per_topic = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
        expected = pateval.evaluate(files["qrels"], files["runs"][run_name], _pateval_names(names),
                                    qrels_format="subtopic",
                                    resources={"doc_lengths": _lengths(files), "subtopic_weights": _weights(files)})
        means = expected.groupby("measure", sort=False)["value"].mean()
        assert len(expected["topic"].unique()) == len(data["topics"])
        for name, measure in zip(names, measures, strict=False):
            pname = str(measure.pateval_measure())
            assert got[measure] == pytest.approx(means[pname], abs=1e-12, rel=0), name
            rows = expected[expected["measure"] == pname]
            for topic, value in zip(rows["topic"], rows["value"], strict=False):
                assert per_topic[(topic, str(measure))] == pytest.approx(value, abs=1e-12, rel=0), (name, topic)
        assert got[measures[0]] > 0 and got[measures[5]] > 0  # the data make non-trivial values


def _lengths(files):
    from pateval.formats.doclengths import read_doc_lengths

    return read_doc_lengths(files["lengths"])


def _weights(files):
    from pateval.formats.weights import read_subtopic_weights

    return read_subtopic_weights(files["weights"])


def test_cli_json_of_pateval_evaluate_agrees(data, files, resources):
    """`pateval evaluate` itself (the command), full precision, against ir_measures."""
    names = ["PRES@100", "TBG", "CT(gamma=0.5)@10", "ACT@10", "Dsharp_nDCG(gamma=0.5)@10"]
    out = subprocess.run([sys.executable, "-m", "pateval.cli", "evaluate", str(files["qrels"]),
                          str(files["runs"]["bm25"]),
                          "--qrels-format", "subtopic", "--doc-lengths", str(files["lengths"]), "--format", "json",
                          *[a for n in _pateval_names(names) for a in ("-m", n)]],
                         capture_output=True, text=True, check=True).stdout
    cli = {r["measure"]: r["value"] for r in json.loads(out) if r["topic"] == "all"}
    run = data["runs"]["bm25"].rename(columns={"qid": "query_id", "docno": "doc_id"})
    measures = [ir_measures.parse_measure(n) for n in names]
    got = ir_measures.calc_aggregate(measures, _ir_qrels(data), run)
    for measure in measures:
        assert got[measure] == pytest.approx(cli[str(measure.pateval_measure())], abs=1e-12, rel=0)


def test_side_inputs_as_measure_parameters(data, files):
    pim.clear_resources()
    run = data["runs"]["lm"].rename(columns={"qid": "query_id", "docno": "doc_id"})
    with_file = ir_measures.parse_measure(f"TBG(doc_lengths='{files['lengths']}')")
    got = ir_measures.calc_aggregate([with_file], _ir_qrels(data), run)[with_file]
    pim.set_resources(doc_lengths=data["lengths"])  # the loaded mapping works too
    try:
        shared = ir_measures.calc_aggregate([ir_measures.parse_measure("TBG")], _ir_qrels(data), run)
    finally:
        pim.clear_resources()
    assert got == pytest.approx(list(shared.values())[0], abs=1e-12, rel=0)
    with pytest.raises(pateval.errors.ParameterError, match="TBG needs doc lengths; none was given"):
        ir_measures.calc_aggregate([ir_measures.parse_measure("TBG")], _ir_qrels(data), run)
    with pytest.raises(pateval.errors.ParameterError, match="unknown resource 'lengths'"):
        pim.set_resources(lengths="x")


def test_passage_measures_through_ir_measures(data):
    rng = np.random.default_rng(3)
    rows = []
    for topic in data["topics"]:
        docs = data["runs"]["bm25"].query("qid == @topic")["docno"].tolist()[:10]
        score = 100.0
        for doc in docs:
            for rank, xpath in enumerate(rng.choice(data["xpaths"], size=3, replace=False), start=1):
                score -= rng.random() + 0.01
                rows.append((topic, doc, str(xpath), rank, score))
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "passage", "rank", "score"])
    qrels = pd.DataFrame([(t, d, x, 1) for t, d, x in data["passage_rows"]],
                         columns=["query_id", "doc_id", "passage", "relevance"])
    measures = [ir_measures.parse_measure("P_psg"), ir_measures.parse_measure("MAP_psg"),
                ir_measures.parse_measure("PRES@100")]
    got = ir_measures.calc_aggregate(measures, qrels, run)
    passage_qrels = Qrels(topic=qrels["query_id"].to_numpy(object), docno=qrels["doc_id"].to_numpy(object),
                          passage=qrels["passage"].to_numpy(object), rel=np.ones(len(qrels), dtype=np.int64),
                          format="clefip-psg")
    # the frame's own rows, read by their field names (query_id, doc_id, passage, rank, score)
    expected = pateval.evaluate(passage_qrels, PassageRun.from_records(run.itertuples(index=False), name="psg"),
                                ["P_psg", "MAP_psg", "PRES@100"], complete=True)
    means = expected.groupby("measure")["value"].mean()
    for measure in measures:
        assert got[measure] == pytest.approx(means[str(measure.pateval_measure())], abs=1e-12, rel=0)
    assert got[measures[0]] > 0


def test_ir_measures_command_line(tmp_path, files):
    """ir_measures' command with pateval's measures: `python -m pateval.ir_measures QRELS RUN PRES@100 AP`."""
    trec_qrels = tmp_path / "doc.qrels"
    trec_qrels.write_text(pd.read_csv(files["qrels"], sep=" ", header=None, names=["q", "s", "d", "r"])
                          .groupby(["q", "d"], as_index=False)["r"].max()
                          .assign(i=0)[["q", "i", "d", "r"]].to_csv(sep=" ", header=False, index=False))
    out = subprocess.run([sys.executable, "-m", "pateval.ir_measures", str(trec_qrels), str(files["runs"]["bm25"]),
                          "PRES@100", "AP"],
                         capture_output=True, text=True, check=True).stdout
    values = dict(line.split("\t") for line in out.strip().splitlines())
    expected = pateval.evaluate(trec_qrels, files["runs"]["bm25"], ["PRES@100",
                                                                    "AP"]).groupby("measure")["value"].mean()
    assert float(values["PRES@100"]) == pytest.approx(expected["PRES@100"], abs=1e-4)
    assert float(values["AP"]) == pytest.approx(expected["AP"], abs=1e-4)


def test_pt_experiment_equals_pateval_evaluate(data, files, resources):
    """PRES, TBG, CT, ACT, D#-nDCG through pt.Experiment (on DataFrames, no Java)."""
    pt = pytest.importorskip("pyterrier")
    import pateval.pyterrier as ppt

    names = ["PRES@100", "TBG", "CT(gamma=0.5)@10", "ACT@10", "Dsharp_nDCG(gamma=0.5)@10", "D_nDCG@10"]
    qrels = pd.DataFrame(data["qrels_rows"], columns=["qid", "iteration", "docno", "label"])
    topics = pd.DataFrame({"qid": data["topics"], "query": "x"})
    table = pt.Experiment([data["runs"]["bm25"], data["runs"]["lm"]], topics, qrels, ppt.measures(*names),
                          names=["bm25", "lm"], perquery=True)
    expected = pateval.evaluate(files["qrels"], files["runs"], _pateval_names(names), qrels_format="subtopic",
                                resources={"doc_lengths": _lengths(files), "subtopic_weights": _weights(files)})
    table["measure"] = [str(ir_measures.parse_measure(m).pateval_measure()) for m in table["measure"]]
    merged = expected.merge(table, left_on=["run", "topic", "measure"], right_on=["name", "qid", "measure"])
    assert len(merged) == len(expected) == 2 * len(names) * len(data["topics"])
    assert np.max(np.abs(merged["value_x"] - merged["value_y"])) <= 1e-12
    assert (merged.groupby("measure")["value_x"].max() > 0).all()  # every measure non-trivial on these data
    assert not pt.java.started()


def test_pt_experiment_passage_measures(data):
    pt = pytest.importorskip("pyterrier")
    import pateval.pyterrier as ppt

    rows = []
    for topic in data["topics"]:
        score = 100.0
        for doc in data["runs"]["bm25"].query("qid == @topic")["docno"].tolist()[:10]:
            for rank, xpath in enumerate(data["xpaths"][:3], start=1):
                score -= 1.0
                rows.append((topic, doc, xpath, rank, score))
    res = pd.DataFrame(rows, columns=["qid", "docno", "passage", "rank", "score"])
    qrels = pd.DataFrame([(t, d, x, 1) for t, d, x in data["passage_rows"]], columns=["qid", "docno", "passage",
                                                                                      "label"])
    table = pt.Experiment([res], pd.DataFrame({"qid": data["topics"], "query": "x"}), qrels,
                          ppt.measures("P_psg", "MAP_psg"), names=["psg"])
    passage_qrels = Qrels(topic=qrels["qid"].to_numpy(object), docno=qrels["docno"].to_numpy(object),
                          passage=qrels["passage"].to_numpy(object), rel=np.ones(len(qrels), dtype=np.int64),
                          format="clefip-psg")
    expected = pateval.aggregate(pateval.evaluate(passage_qrels, PassageRun.from_records(res.itertuples(index=False),
                                                                                         name="psg"),
                                                  ["P_psg", "MAP_psg"], complete=True))
    for measure in ("P_psg", "MAP_psg"):
        value = expected.loc[expected["measure"] == measure, "value"].iloc[0]
        assert table[measure].iloc[0] == pytest.approx(value, abs=1e-12, rel=0) and value > 0


def test_cube_test_on_plain_qrels_is_refused_as_the_command_line_refuses_it(tmp_path, capsys):
    """Plain TREC qrels (iteration 0 everywhere: no subtopics) through ir_measures: CT is refused
    with the command line's message, not scored as one subtopic "0"; document measures still score."""
    from pateval.cli import main
    from pateval.errors import ParameterError

    qrels = [ir_measures.Qrel("q1", "d1", 1), ir_measures.Qrel("q1", "d2", 0), ir_measures.Qrel("q2", "d4", 2)]
    run = [ir_measures.ScoredDoc("q1", "d1", 2.0), ir_measures.ScoredDoc("q1", "d3", 1.0),
           ir_measures.ScoredDoc("q2", "d4", 1.0)]
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d4 2\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d3 2 1.0 r\nq2 Q0 d4 1 1.0 r\n")
    assert main(["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "CT@10"]) == 2
    message = capsys.readouterr().err
    assert "CT@10 needs subtopic qrels (format 'subtopic' or 'dd')" in message
    for given in (qrels, pd.DataFrame(qrels).assign(iteration="0")):
        with pytest.raises(ParameterError, match=r"CT@10 needs subtopic qrels \(format 'subtopic' or 'dd'\)"):
            ir_measures.calc_aggregate([ir_measures.parse_measure("CT@10")], given, run)
    assert ir_measures.calc_aggregate([pim.MEASURES["PRES"] @ 10], qrels, run)[pim.MEASURES["PRES"] @ 10] == 1.0
