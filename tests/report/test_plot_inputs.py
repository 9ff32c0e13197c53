"""`report --gain-over-time` draws G(t) only from one cumulative curve per run; what it cannot
draw is refused in one line naming the file, the line and what is wrong."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from pateval.errors import InputFormatError, ParameterError
from pateval.report import plots
from pateval.report.inputs import read_ct_gamma, read_gain_over_time

# what `pateval user-model time --format csv` writes: per topic and rank, each rank's share of TBG
USER_MODEL_TIME = """run,topic,rank,docno,relevant,length,duplicate,time,decay,gain,cumulative_gain
bm25,T1,1,D1,True,2498,False,0,1,0.4,0.4
bm25,T1,2,D2,False,1602,False,24.9,0.92,0,0.4
bm25,T2,1,D7,True,800,False,0,1,0.5,0.5
"""


def write(tmp_path, text: str, name: str = "g.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_one_cumulative_curve_per_run_is_read(tmp_path):
    frame = read_gain_over_time(write(tmp_path, "run,time,gain\na,10,0.5\na,20,1.0\n\nb,60,0.4\nb,5,0.3\n"))
    assert frame.to_dict("list") == {"run": ["a", "a", "b", "b"], "time": [10.0, 20.0, 60.0, 5.0],
                                     "gain": [0.5, 1.0, 0.4, 0.3]}
    assert len(plots.plot_gain_over_time(frame).axes[0].get_lines()) == 2


def test_user_model_time_output_is_refused(tmp_path):
    path = write(tmp_path, USER_MODEL_TIME)
    with pytest.raises(InputFormatError) as error:
        read_gain_over_time(path)
    message = str(error.value)
    assert message.startswith(f"{path}, line 1: a topic column")
    assert "user-model time" in message and "\n" not in message


def test_a_gain_that_falls_is_refused_with_its_line(tmp_path):
    path = write(tmp_path, "run,time,gain\na,10,0.5\na,20,1.0\n\nb,5,0.3\nb,50,0.2\n")
    with pytest.raises(InputFormatError, match=r", line 6: run b's gain falls from 0.3 to 0.2 at time 50"):
        read_gain_over_time(path)


@pytest.mark.parametrize("text, found", [
    ("run,time,gain\na,x,0.5\n", "line 2: time must be a number of at least 0, not 'x'"),
    ("run,time,gain\na,-1,0.5\n", "line 2: time must be a number"),
    ("run,time\na,1\n", "line 1: missing columns"),
    ("run,topic,mean,std,ci_low,ci_high,expected,tbg,n_users\na,T1,0.4,0.7,0.3,0.5,0.47,0.45,200\n",
     "line 1: missing columns (expected run,time,gain"),
])
def test_what_is_not_a_gain_curve_is_named(tmp_path, text, found):
    with pytest.raises(InputFormatError, match=found.replace("(", r"\(")):
        read_gain_over_time(write(tmp_path, text))


def test_the_api_refuses_the_same_frames():
    with pytest.raises(ParameterError, match="a topic column"):
        plots.plot_gain_over_time(pd.read_csv(io.StringIO(USER_MODEL_TIME)))
    with pytest.raises(ParameterError, match="row 1: run a's gain falls"):
        plots.plot_gain_over_time(pd.DataFrame({"run": ["a", "a"], "time": [1.0, 2.0], "gain": [0.5, 0.4]}))


def test_ct_gamma_is_read_and_checked(tmp_path):
    frame = read_ct_gamma(write(tmp_path, "run,gamma,score\na,0.1,0.3\na,0.9,0.2\n"))
    assert frame["gamma"].tolist() == [0.1, 0.9]
    with pytest.raises(InputFormatError, match=r"line 3: column score must hold numbers"):
        read_ct_gamma(write(tmp_path, "run,gamma,score\na,0.1,0.3\na,0.9,high\n"))
    with pytest.raises(InputFormatError, match="line 1: missing columns"):
        read_ct_gamma(write(tmp_path, "run,gamma\nx,0.5\n"))


def test_the_report_command_refuses_user_model_time_output(tmp_path, capsys):
    from pateval.cli import main
    from pateval.testing import write_synthetic_files

    qrels, runs = write_synthetic_files(tmp_path, n_topics=5, depth=20, n_runs=2, collection_size=200,
                                        relevant_per_topic=4, judged_nonrelevant_per_topic=8, seed=1)
    out = tmp_path / "report.html"
    code = main(["report", "--qrels", str(qrels), *map(str, runs), "-m", "AP", "-B", "100",
                 "--gain-over-time", str(write(tmp_path, USER_MODEL_TIME)), "-o", str(out)])
    error = capsys.readouterr().err
    assert code == 2 and "a topic column" in error and len(error.strip().splitlines()) == 1
    assert not out.exists()
