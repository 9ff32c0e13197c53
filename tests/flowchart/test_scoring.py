"""Scores per flowchart, set evaluation with bad files, output formats and the command line."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from flowchart_example import EDGES, NODES, TRUTH

from pateval import api
from pateval.cli import main
from pateval.errors import ParameterError
from pateval.flowchart import (
    Flowchart,
    MetaNode,
    Node,
    measure_names,
    score_flowchart,
    write_flowchart,
)
from pateval.results.writers import format_table


def test_measure_names_and_order():
    assert measure_names() == [
        "mcs_distance_structure",
        "mcs_distance_types",
        "mcs_distance_texts",
        "node_precision",
        "node_recall",
        "node_f1",
        "edge_precision",
        "edge_recall",
        "edge_f1",
        "text_precision",
        "text_recall",
        "text_f1",
        "mcs_approximate",
    ]
    assert list(score_flowchart(TRUTH, TRUTH, levels=("texts",))) == measure_names(("texts",))


def test_perfect_recognition_scores_one_and_distance_zero():
    scores = score_flowchart(TRUTH, TRUTH)
    assert all(scores[f"mcs_distance_{level}"] == 0.0 for level in ("structure", "types", "texts"))
    assert all(scores[name] == 1.0 for name in measure_names() if name.endswith(("precision", "recall", "f1")))
    assert scores["mcs_approximate"] == 0.0


def test_missing_edge():
    scores = score_flowchart(TRUTH, Flowchart(None, NODES, (), EDGES[:-1]))
    assert scores["mcs_distance_types"] == pytest.approx(0.1)
    assert (scores["node_precision"], scores["node_recall"]) == (1.0, 1.0)
    assert (scores["edge_precision"], scores["edge_recall"]) == (1.0, 0.8)
    assert scores["edge_f1"] == pytest.approx(2 * 0.8 / 1.8)
    assert scores["text_f1"] == 1.0  # 5 node texts and 2 edge labels, all still matched


def test_wrong_shape_loses_the_node_its_edges_and_their_texts():
    nodes = NODES[:3] + (Node("4", "parallelogram", "PRINT X"),) + NODES[4:]
    scores = score_flowchart(TRUTH, Flowchart(None, nodes, (), EDGES))
    assert scores["mcs_distance_structure"] == 0.0
    assert scores["mcs_distance_types"] == pytest.approx(0.3)
    assert scores["node_precision"] == scores["node_recall"] == pytest.approx(4 / 5)
    assert scores["edge_precision"] == scores["edge_recall"] == pytest.approx(3 / 5)
    # Texts of node 4 and of the edge 3 -> 4 ("yes") are not matched: 5 of 7.
    assert scores["text_precision"] == scores["text_recall"] == pytest.approx(5 / 7)


def test_wrong_text_only_costs_text_measures_and_the_texts_distance():
    nodes = NODES[:3] + (Node("4", "rectangle", "STOP"),) + NODES[4:]
    scores = score_flowchart(TRUTH, Flowchart(None, nodes, (), EDGES))
    assert scores["mcs_distance_types"] == 0.0 and scores["mcs_distance_texts"] == pytest.approx(0.3)
    assert scores["node_f1"] == 1.0 and scores["edge_f1"] == 1.0
    assert scores["text_precision"] == scores["text_recall"] == pytest.approx(6 / 7)


def test_empty_sides():
    empty = score_flowchart(TRUTH, Flowchart())
    assert empty["mcs_distance_structure"] == 1.0
    assert empty["node_precision"] == 0.0 and empty["node_recall"] == 0.0 and empty["node_f1"] == 0.0
    both = score_flowchart(Flowchart(), Flowchart())
    assert both["mcs_distance_texts"] == 0.0 and both["text_f1"] == 1.0


def test_membership_links_count_in_the_distance_not_in_edge_measures():
    grouped = Flowchart(None, NODES, (MetaNode("M", ("2", "3"), ""),), EDGES)
    scores = score_flowchart(grouped, TRUTH)
    assert scores["edge_precision"] == scores["edge_recall"] == 1.0
    assert scores["node_recall"] == pytest.approx(5 / 6) and scores["node_precision"] == 1.0
    assert scores["mcs_distance_structure"] == pytest.approx(3 / 13)


def test_parameters_are_checked():
    with pytest.raises(ParameterError, match="level must be 'all' or one of structure, types, texts, not 'x'"):
        score_flowchart(TRUTH, TRUTH, levels=("x",))
    with pytest.raises(ParameterError, match="text_threshold must be a number from 0 to 1"):
        score_flowchart(TRUTH, TRUTH, text_threshold=-0.1)
    with pytest.raises(ParameterError, match="time_budget must be a positive number"):
        score_flowchart(TRUTH, TRUTH, time_budget=-1)
    with pytest.raises(ParameterError, match="level must be 'all' or one of"):
        api.evaluate_flowcharts(".", ".", level="everything")
    with pytest.raises(ParameterError,
                       match=re.escape("format must be one of 'trec', 'json', 'jsonl', 'csv', 'prototext'; got 'xml'")):
        format_table(pd.DataFrame(columns=["measure", "image", "value"]), ["measure", "image"], format="xml")


@pytest.fixture()
def directories(tmp_path: Path) -> tuple[Path, Path]:
    truth, submission = tmp_path / "truth", tmp_path / "run"
    truth.mkdir()
    submission.mkdir()
    write_flowchart(TRUTH, truth / "fig1.txt")
    write_flowchart(TRUTH, truth / "fig2.txt")
    write_flowchart(TRUTH, truth / "fig3.txt")
    (truth / "fig4.txt").write_text("MT NO 1\nMT DE 0\nMT UE 0\nNO 1 hexagon\n")
    write_flowchart(TRUTH, submission / "fig1.txt")
    # fig2: one edge line is broken; the rest of the file is scored.
    text = (truth / "fig2.txt").read_text().replace("DE 4 5 plain", "DE 4 5 bold")
    (submission / "fig2.txt").write_text(text)
    # fig3: no submission. extra: no ground truth.
    write_flowchart(TRUTH, submission / "extra.txt")
    (submission / ".hidden").write_text("ignored")
    return truth, submission


def test_set_evaluation_scores_the_rest_and_reports_every_bad_file(directories):
    truth, submission = directories
    scores, bad = api.evaluate_flowcharts(truth, submission, level="types")
    assert [str(problem) for problem in bad] == [
        f"{submission / 'extra.txt'}: no ground-truth file for this image; ignored",
        f"{submission / 'fig2.txt'}, line 14: unknown edge type (expected one of plain, dotted, wiggly, unknown, found "
                                                 f"'bold')",
        f"{submission / 'fig3.txt'}: no submission file for this image; scored as an empty flowchart",
        f"{truth / 'fig4.txt'}, line 4: unknown node type (expected one of oval, rectangle, double-rectangle, "
                                                 f"parallelogram, diamond, circle, point, no-box, cylinder, unknown, "
                                                 f"found 'hexagon')",
    ]
    assert list(scores.columns) == ["measure", "image", "value"]
    assert list(scores["image"].unique()) == ["fig1", "fig2", "fig3", "all"]
    value = scores.set_index(["measure", "image"])["value"]
    assert value["mcs_distance_types", "fig1"] == 0.0
    # fig2 reads with 4 of its 5 edges, and MT DE 5 now disagrees with the readable lines: it
    # is still the count of DE lines written, so only the broken line is reported.
    assert value["mcs_distance_types", "fig2"] == pytest.approx(0.1)
    assert value["mcs_distance_types", "fig3"] == 1.0
    assert value["mcs_distance_types", "all"] == pytest.approx(1.1 / 3)
    assert "mcs_distance_structure" not in set(scores["measure"])


def test_command_line_trec_output_and_exit_status(directories, capsys):
    truth, submission = directories
    assert main(["flowchart", "eval", str(truth), str(submission), "--level", "texts"]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == "mcs_distance_texts\tfig1\t0.0000"
    assert "mcs_distance_texts\tall\t0.3667" in lines
    assert len(lines) == 4 * len(measure_names(("texts",)))
    assert captured.err.splitlines()[0] == (f"pateval: bad file: {submission / 'extra.txt'}: "
                                            "no ground-truth file for this image; ignored")
    assert len(captured.err.splitlines()) == 4


def test_command_line_formats_output_file_and_good_exit(tmp_path: Path, capsys):
    truth, submission = tmp_path / "t", tmp_path / "s"
    write_flowchart(TRUTH, truth / "a.txt")
    write_flowchart(Flowchart(None, NODES, (), EDGES[:-1]), submission / "a.txt")
    assert main(["flowchart", "eval", str(truth), str(submission), "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {"measure": "edge_recall", "image": "a", "value": 0.8} in records
    out = tmp_path / "out" / "scores.csv"
    assert main(["flowchart", "eval", str(truth), str(submission), "--format", "csv", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    table = pd.read_csv(io.StringIO(out.read_text()))
    assert table.shape == (2 * len(measure_names()), 3)


def test_command_line_output_is_the_result_writers(tmp_path: Path, capsys):
    # pateval flowchart eval writes its table with results.writers.format_table, as pateval
    # evaluate does: trec text with --precision decimals, JSON and CSV at full precision.
    truth, submission = tmp_path / "t", tmp_path / "s"
    write_flowchart(TRUTH, truth / "a.txt")
    write_flowchart(Flowchart(None, NODES, (), EDGES[:-1]), submission / "a.txt")
    scores, bad = api.evaluate_flowcharts(truth, submission)
    assert bad == []
    for fmt in ("trec", "json", "csv"):
        assert main(["flowchart", "eval", str(truth), str(submission), "--format", fmt, "--precision", "3"]) == 0
        assert capsys.readouterr().out == format_table(scores, ["measure", "image"], format=fmt, precision=3)
    assert main(["flowchart", "eval", str(truth), str(submission), "--precision", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["mcs_distance_structure\ta\t0.100",
                                                        "mcs_distance_types\ta\t0.100"]
    distance = 1 - 9 / 10  # 5 nodes + 5 edges, one edge missing: 0.09999999999999998, not 0.1
    assert main(["flowchart", "eval", str(truth), str(submission), "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[1] == {"measure": "mcs_distance_types", "image": "a", "value": distance}
    assert main(["flowchart", "eval", str(truth), str(submission), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["measure,image,value", "mcs_distance_structure,a,0.099999999999999978",
                         "mcs_distance_types,a,0.099999999999999978"]
    assert float(lines[1].split(",")[2]) == distance


def test_command_line_bad_precision_exits_2_and_writes_nothing(directories, tmp_path: Path, capsys):
    truth, submission = directories
    out = tmp_path / "scores.txt"
    assert main(["flowchart", "eval", str(truth), str(submission), "--precision", "-1", "-o", str(out)]) == 2
    assert (capsys.readouterr().err.splitlines()[-1]
            == "pateval: error: precision must be an integer from 0 to 17, not -1")
    assert not out.exists()


def test_command_line_stops_on_a_missing_directory(tmp_path: Path, capsys):
    missing = tmp_path / "nowhere"
    assert main(["flowchart", "eval", str(missing), str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"pateval: error: {missing}: not a directory\n"
