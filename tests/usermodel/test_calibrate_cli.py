"""The end-to-end path: simulate-log -> calibrate -> its measure string -> evaluate -m, and the plots."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from pateval.cli import main
from pateval.usermodel.simulation import closed_form_gain
from pateval.usermodel.time import TimeModel

QRELS = "".join(f"T{t} 0 T{t}-D{i} {int(i % 3 == 0)}\n" for t in range(3) for i in range(40))
RUN = "".join(f"T{t} Q0 T{t}-D{i} {i + 1} {100 - i} sys\n" for t in range(3) for i in range(40))
LENGTHS = "".join(f"T{t}-D{i} {100 + 37 * ((i * 7 + t) % 40)}\n" for t in range(3) for i in range(40))


@pytest.fixture
def inputs(tmp_path):
    for name, text in (("qrels.txt", QRELS), ("run.txt", RUN), ("lengths.txt", LENGTHS)):
        (tmp_path / name).write_text(text)
    return tmp_path


def test_calibrate_then_evaluate_with_its_measure_string(inputs, capsys):
    log = inputs / "log.jsonl.gz"
    assert main(["user-model", "simulate-log", "--qrels", str(inputs / "qrels.txt"), "--run", str(inputs / "run.txt"),
                 "--doc-lengths", str(inputs / "lengths.txt"), "--users", "30", "--seed", "4",
                 "--model", "TBG(halflife=300,summary_time=3)", "--out", str(log)]) == 0
    capsys.readouterr()
    assert main(["calibrate", str(log), "--qrels", str(inputs / "qrels.txt"), "--run", str(inputs / "run.txt"),
                 "--doc-lengths", str(inputs / "lengths.txt"), "--measure-only", "-B", "200"]) == 0
    measure = capsys.readouterr().out.strip()
    assert re.fullmatch(r"TBG\(halflife=[\d.]+,summary_time=[\d.]+,read_slope=[\d.]+,read_intercept=[\d.]+,"
                        r"p_click_rel=[\d.]+,p_click_nonrel=[\d.]+,p_save_rel=[\d.]+\)", measure), measure
    assert main(["evaluate", str(inputs / "qrels.txt"), str(inputs / "run.txt"), "-m", measure, "-q",
                 "--doc-lengths", str(inputs / "lengths.txt"), "--format", "json"]) == 0
    rows = {r["topic"]: r["value"] for r in json.loads(capsys.readouterr().out)}
    # TBG with those constants, computed here from the string's numbers and the closed form
    values = {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", measure)}
    model = TimeModel(**values)
    for t in range(3):
        relevant = np.array([i % 3 == 0 for i in range(40)])
        lengths = np.array([100 + 37 * ((i * 7 + t) % 40) for i in range(40)], dtype=float)
        assert rows[f"T{t}"] == pytest.approx(closed_form_gain(relevant, lengths, model=model)[0], rel=1e-12)
    # --model takes it too
    assert main(["user-model", "time", str(inputs / "qrels.txt"), str(inputs / "run.txt"), "--model", measure,
                 "--doc-lengths", str(inputs / "lengths.txt"), "--format", "csv"]) == 0


def test_calibrate_table_formats_and_plots(inputs, capsys, tmp_path):
    log = inputs / "log.csv"
    main(["user-model", "simulate-log", "--qrels", str(inputs / "qrels.txt"), "--run", str(inputs / "run.txt"),
          "--doc-lengths", str(inputs / "lengths.txt"), "--users", "12", "--out", str(log)])
    common = [str(log), "--qrels", str(inputs / "qrels.txt"), "--run", str(inputs / "run.txt"), "--doc-lengths",
              str(inputs / "lengths.txt"), "-B", "100"]
    capsys.readouterr()
    assert main(["calibrate", *common, "--by", "topic"]) == 0
    text = capsys.readouterr().out
    assert "measure: TBG(halflife=" in text and "T2: 12 users, 12 sessions" in text
    assert main(["calibrate", *common, "--format", "json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert set(document["calibrations"][0]["parameters"]["p_save_nonrel"]) == {"value", "ci_low", "ci_high",
                                                                               "user_average"}
    assert "pateval: measure (all): TBG(" in captured.err
    assert main(["calibrate", *common, "--format", "csv", "-o", str(tmp_path / "c.csv"), "--plots",
                 str(tmp_path / "fig")]) == 0
    assert (tmp_path / "c.csv").read_text().startswith("group,parameter,value,ci_low,ci_high,user_average,users\n")
    for name in ("reading_time", "stopping", "rank_over_time"):
        assert (tmp_path / "fig" / f"calibration_{name}.png").stat().st_size > 10_000
    assert "mean absolute rank error" in capsys.readouterr().err


def test_a_bad_log_exits_2_with_one_line_and_no_output(inputs, capsys, tmp_path):
    log = inputs / "bad.csv"
    log.write_text("user,list,time,event,rank,docno\nu1,T0,0,start,,\nu1,T0,3,click,2,T0-D7\n")
    out = tmp_path / "out.txt"
    assert main(["calibrate", str(log), "--qrels", str(inputs / "qrels.txt"), "--run", str(inputs / "run.txt"),
                 "--doc-lengths", str(inputs / "lengths.txt"), "-o", str(out)]) == 2
    assert capsys.readouterr().err == (f"pateval: error: {log}, line 3: the document at rank 2 of list 'T0' is 'T0-D1' "
                                       "(found 'T0-D7')\n")
    assert not out.exists()


def test_report_gets_a_calibration_section(inputs, capsys, tmp_path):
    log = inputs / "log.parquet"
    main(["user-model", "simulate-log", "--qrels", str(inputs / "qrels.txt"), "--run", str(inputs / "run.txt"),
          "--doc-lengths", str(inputs / "lengths.txt"), "--users", "10", "--out", str(log)])
    other = inputs / "run2.txt"
    other.write_text(RUN.replace(" sys\n", " sys2\n").replace("Q0 T0-D1 2", "Q0 T0-D1 2"))
    html = tmp_path / "report.html"
    assert main(["report", "--qrels", str(inputs / "qrels.txt"), str(inputs / "run.txt"), str(other), "-m", "AP",
                 "-m", "TBG", "--doc-lengths", str(inputs / "lengths.txt"), "--calibration-log", str(log),
                 "-o", str(html)]) == 0
    text = html.read_text()
    assert '<section id="calibration">' in text and "TBG(halflife=" in text
    assert text.count("<svg") >= 3


def test_api_lists_map_lists_to_runs_and_duplicates_are_set_apart(inputs):
    import pandas as pd

    import pateval.api as api
    from pateval.formats.groups import read_duplicate_groups

    (inputs / "dups.txt").write_text("T0-D0 T0-D3\nT1-D0 T1-D3\n")
    log = api.simulate_log(inputs / "qrels.txt", inputs / "run.txt", doc_lengths=inputs / "lengths.txt", n_users=20,
                           seed=3,
                           model="TBG(duplicates=groups)",
                           options=api.EvaluationOptions(resources={"duplicate_groups": read_duplicate_groups(
                               inputs / "dups.txt")}))
    log["list"] = log["list"].map({"T0": "A", "T1": "B", "T2": "C"})
    (inputs / "lists.txt").write_text("A T0 sys\nB T1 sys\nC T2 sys\n")
    result = api.calibrate(log, qrels=inputs / "qrels.txt", runs=[inputs / "run.txt"],
                           doc_lengths=inputs / "lengths.txt",
                           duplicates=inputs / "dups.txt", lists=inputs / "lists.txt", B=50)
    calibration = result.calibrations[0]
    assert calibration.fit["duplicates"]["n"] > 0
    # a duplicate is read in T_D(0) = b on average: its mean is near the fit's intercept
    assert abs(calibration.fit["duplicates"]["mean"] - calibration.value("read_intercept")) < 4
    assert set(result.sessions["list"]) == {"A", "B", "C"}
    assert isinstance(result.frame(), pd.DataFrame)
    with pytest.raises(Exception, match="no run named 'other'"):
        (inputs / "bad_lists.txt").write_text("A T0 other\n")
        api.calibrate(log, qrels=inputs / "qrels.txt", runs=[inputs / "run.txt"], doc_lengths=inputs / "lengths.txt",
                      lists=inputs / "bad_lists.txt", B=10)


def test_users_simulated_on_a_real_trec_run_are_recovered(test_data, tmp_path):
    """trec_eval's real TREC qrels and run (lengths made up, seeded): 40 simulated users with the
    paper's constants; every estimate within two interval half-widths of the truth."""
    import pandas as pd

    import pateval.api as api

    run = test_data / "trec" / "results.test"
    documents = sorted({line.split()[2] for line in run.read_text().splitlines() if line.strip()})
    rng = np.random.default_rng(0)
    lengths = dict(zip(documents, rng.integers(100, 3000, len(documents)).tolist(), strict=False))
    qrels = test_data / "trec" / "qrels.test"
    log = api.simulate_log(qrels, run, doc_lengths=lengths, n_users=40, seed=7, out=tmp_path / "log.parquet")
    assert set(pd.read_parquet(tmp_path / "log.parquet")["event"]) == {"start", "serp", "click", "save", "back",
                                                                       "next", "end"}
    result = api.calibrate(tmp_path / "log.parquet", qrels=qrels, runs=run, doc_lengths=lengths, B=300)
    table = result.calibrations[0].table.set_index("parameter")
    truth = {"halflife": 224.0, "summary_time": 4.4, "read_slope": 0.018, "read_intercept": 7.8, "p_click_rel": 0.64,
             "p_click_nonrel": 0.39, "p_save_rel": 0.77, "p_save_nonrel": 0.27}
    for parameter, value in truth.items():
        half = (table.at[parameter, "ci_high"] - table.at[parameter, "ci_low"]) / 2
        assert abs(table.at[parameter, "value"] - value) < 2 * half, (parameter, table.loc[parameter].to_dict())
    assert len(log) > 2_000
