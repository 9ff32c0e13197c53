"""TBG calibration from interaction logs: every formula on a hand-made log, recovery of known
constants from simulated logs, the weighted-against-unweighted contrast, the end-to-end path."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.calibration.tbg import ListRanking, calibrate_log, measure_string
from pateval.formats.interactions import log_from_frame
from pateval.usermodel.logsim import SimulatedList, simulate_log
from pateval.usermodel.time import TimeModel

# ---- a hand-made log: every estimator by hand ------------------------------------------------

RANKING = {"L1": ListRanking("T1", np.array(["d1", "d2", "d3", "d4", "d5"], dtype=object),
                             np.array([True, False, True, False, True]))}
LENGTHS = {"d1": 100, "d2": 200, "d3": 300, "d4": 400, "d5": 500}
GROUPS = {"d1": "d1", "d5": "d1"}  # d5 is a near-duplicate of d1
HAND = [  # user, list, time, event, rank, docno
    ("A", "L1", 0, "start", 0, None),
    ("A", "L1", 0, "serp", 1, None),
    ("A", "L1", 4, "click", 1, "d1"),
    ("B", "L1", 0, "start", 0, None),
    ("A", "L1", 12, "save", 0, None),    # reading ends at the save: d1 read 8 s, not 10
    ("A", "L1", 14, "back", 0, None),
    ("B", "L1", 5, "click", 2, "d2"),
    ("A", "L1", 24, "click", 3, "d3"),
    ("A", "L1", 40, "save", 0, None),
    ("A", "L1", 40, "back", 0, None),
    ("B", "L1", 22, "save", 0, None),    # d2 read 17 s; 22-25 s counts nowhere
    ("B", "L1", 25, "back", 0, None),
    ("A", "L1", 60, "click", 5, None),   # docno left out: the list's d5
    ("B", "L1", 35, "click", 4, "d4"),
    ("A", "L1", 66, "back", 0, None),
    ("A", "L1", 70, "end", 0, None),
    ("B", "L1", 55, "back", 0, None),
    ("B", "L1", 60, "next", 0, None),    # B never ends: censored at 60 s
]


def _hand_log():
    frame = pd.DataFrame(HAND, columns=["user", "list", "time", "event", "rank", "docno"])
    return log_from_frame(frame)


def test_every_formula_on_a_hand_made_log():
    result = calibrate_log(_hand_log(), RANKING, lengths=LENGTHS, groups=GROUPS, B=50, seed=0)
    table = result.calibrations[0].table.set_index("parameter")
    value, average = table["value"], table["user_average"]
    # T_S = sum S / sum M: A on results pages 4 + 10 + 20 s (intervals ended by clicks) over its
    # deepest click 5; B 5 + 10 (clicks) + 5 (ended by next) over 4
    assert value["summary_time"] == pytest.approx((34 + 20) / (5 + 4), abs=1e-12)
    assert average["summary_time"] == pytest.approx((34 / 5 + 20 / 4) / 2, abs=1e-12)
    # P(C=1|R) weighted by the deepest click: A clicked 3 of its 3 relevant and 0 of 2 non-relevant
    # summaries up to rank 5; B 0 of 2 relevant and 2 of 2 non-relevant up to rank 4
    assert value["p_click_rel"] == pytest.approx((5 * 3 / 3 + 4 * 0 / 2) / 9, abs=1e-12)
    assert value["p_click_nonrel"] == pytest.approx((5 * 0 / 2 + 4 * 2 / 2) / 9, abs=1e-12)
    assert average["p_click_rel"] == pytest.approx(0.5, abs=1e-12)
    # P(S=1|R) weighted by the views: A saved 2 of 3 relevant views; B 1 of 2 non-relevant ones
    assert value["p_save_rel"] == pytest.approx(2 / 3, abs=1e-12)
    assert value["p_save_nonrel"] == pytest.approx(1 / 2, abs=1e-12)
    # the regression over first views (d5 is a duplicate of d1, set apart)
    x = np.array([100.0, 300.0, 200.0, 400.0])
    # reading times end at a save (seed 002, s3.2): d1 12 - 4, d3 40 - 24, d2 22 - 5, d4 55 - 35
    y = np.array([8.0, 16.0, 17.0, 20.0])
    design = np.column_stack([x, np.ones(4)])
    (a, b), rss, *_ = np.linalg.lstsq(design, y, rcond=None)
    assert value["read_slope"] == pytest.approx(a, abs=1e-12)
    assert value["read_intercept"] == pytest.approx(b, abs=1e-10)
    s2 = rss[0] / 2
    sxx = ((x - x.mean()) ** 2).sum()
    fit = result.calibrations[0].fit
    assert fit["reading"]["read_slope_se"] == pytest.approx(math.sqrt(s2 / sxx), rel=1e-10)
    assert fit["reading"]["read_intercept_se"] == pytest.approx(math.sqrt(s2 * (1 / 4 + x.mean() ** 2 / sxx)),
                                                                rel=1e-10)
    r2 = 1 - rss[0] / ((y - y.mean()) ** 2).sum()
    assert fit["reading"]["adjusted_r2"] == pytest.approx(1 - (1 - r2) * 3 / 2, rel=1e-10)
    assert value["document_time"] == pytest.approx(y.mean(), abs=1e-12)
    # the duplicate view of d5: 6 s
    assert value["duplicate_time"] == pytest.approx(6.0, abs=1e-12)
    assert fit["duplicates"]["n"] == 1
    # time on results pages against documents read: (34 + 20) s against A's 8 + 16 + 6 and B's 17 + 20
    # (the 2 s and 3 s from a save to its back are in neither)
    assert value["summary_share"] == pytest.approx(54 / (54 + 30 + 37), abs=1e-12)
    # h = ln 2 * (70 + 60) / 1 stop (B censored)
    assert value["halflife"] == pytest.approx(math.log(2) * 130, rel=1e-12)
    assert fit["stopping"] == pytest.approx({"sessions": 2, "stopped": 1, "censored": 1,
                                             "km_max_gap": fit["stopping"]["km_max_gap"]})


def test_reading_time_ends_at_the_save():
    """The paper's reading time: viewing a document "before saving it as relevant or clicking
    the back button" -- a view saved at 14 s and left at 20 s read for 10 s, not 16; the six
    seconds between are neither reading nor the results page."""
    rows = [("A", "L1", 0, "start", 0, None), ("A", "L1", 0, "serp", 1, None),
            ("A", "L1", 4, "click", 1, "d1"), ("A", "L1", 14, "save", 0, None), ("A", "L1", 20, "back", 0, None),
            ("A", "L1", 24, "click", 3, "d3"), ("A", "L1", 40, "back", 0, None), ("A", "L1", 50, "end", 0, None)]
    log = log_from_frame(pd.DataFrame(rows, columns=["user", "list", "time", "event", "rank", "docno"]))
    value = calibrate_log(log, RANKING, lengths=LENGTHS, B=10,
                          seed=0).calibrations[0].table.set_index("parameter")["value"]
    assert value["document_time"] == pytest.approx((10 + 16) / 2, abs=1e-12)
    assert value["read_slope"] == pytest.approx((16 - 10) / (300 - 100), abs=1e-12)
    assert value["summary_share"] == pytest.approx((4 + 4) / (4 + 4 + 10 + 16), abs=1e-12)


def test_statsmodels_agrees_on_the_regression():
    sm = pytest.importorskip("statsmodels.api")
    x = np.array([100.0, 300.0, 200.0, 400.0])
    # reading times end at a save (seed 002, s3.2): d1 12 - 4, d3 40 - 24, d2 22 - 5, d4 55 - 35
    y = np.array([8.0, 16.0, 17.0, 20.0])
    ols = sm.OLS(y, sm.add_constant(x)).fit()
    result = calibrate_log(_hand_log(), RANKING, lengths=LENGTHS, groups=GROUPS, B=10, seed=0)
    fit = result.calibrations[0].fit["reading"]
    assert result.calibrations[0].value("read_slope") == pytest.approx(ols.params[1], rel=1e-10)
    assert fit["read_slope_se"] == pytest.approx(ols.bse[1], rel=1e-10)
    assert fit["read_intercept_se"] == pytest.approx(ols.bse[0], rel=1e-10)
    assert fit["adjusted_r2"] == pytest.approx(ols.rsquared_adj, rel=1e-10)


def test_a_click_on_another_document_than_the_list_ranks_is_an_error_with_its_line():
    rows = [("A", "L1", 0, "start", 0, None), ("A", "L1", 3, "click", 2, "d9")]
    log = log_from_frame(pd.DataFrame(rows, columns=["user", "list", "time", "event", "rank", "docno"]),
                         source="log.csv")
    # (a frame's rows are its lines)
    with pytest.raises(Exception) as error:
        calibrate_log(log, RANKING, lengths=LENGTHS)
    assert str(error.value) == "log.csv, line 2: the document at rank 2 of list 'L1' is 'd2' (found 'd9')"


def test_measure_string_rounds_and_leaves_out_what_is_undefined():
    values = {"halflife": 231.4371, "summary_time": 4.5238, "read_slope": 0.017612, "read_intercept": -0.5,
              "p_click_rel": 0.65, "p_click_nonrel": float("nan"), "p_save_rel": 0.78}
    measure, notes = measure_string(values)
    assert measure == ("TBG(halflife=231.4,summary_time=4.524,read_slope=0.01761,read_intercept=0,p_click_rel=0.65,"
                       "p_save_rel=0.78)")
    assert any("p_click_nonrel" in n for n in notes) and any("read_intercept" in n for n in notes)


# ---- simulated logs ----------------------------------------------------------------------------

def _lists(seed: int, n_lists: int = 4, depth: int = 150):
    rng = np.random.default_rng(seed)
    lists: list[SimulatedList] = []
    rankings: dict[str, ListRanking] = {}
    lengths: dict[str, int] = {}
    for j in range(n_lists):
        docs = [f"L{j}-D{i}" for i in range(depth)]
        relevant = rng.random(depth) < 0.4
        words = rng.integers(50, 2000, depth)
        lists.append(SimulatedList(f"L{j}", docs, relevant, words))
        rankings[f"L{j}"] = ListRanking(f"T{j}", np.array(docs, dtype=object), relevant)
        lengths.update(zip(docs, words.tolist(), strict=False))
    return lists, rankings, lengths


TABLE_1 = {"halflife": 224.0, "summary_time": 4.4, "read_slope": 0.018, "read_intercept": 7.8, "p_click_rel": 0.64,
           "p_click_nonrel": 0.39, "p_save_rel": 0.77}
EXAMINERS = {"halflife": 600.0, "summary_time": 2.5, "read_slope": 0.03, "read_intercept": 5.0, "p_click_rel": 0.8,
             "p_click_nonrel": 0.2, "p_save_rel": 0.6}


@pytest.mark.parametrize("truth, p_save_nonrel, seeds", [(TABLE_1, 0.27, 40), (EXAMINERS, 0.1, 20)], ids=["table1",
                                                                                                          "examiners"])
def test_intervals_cover_known_constants_at_their_rate(truth, p_save_nonrel, seeds):
    """95% intervals over repeated seeds: each parameter covered in at least the share a
    Binomial(seeds, 0.95) reaches with probability 0.999 (32 of 40, 16 of 20)."""
    lists, rankings, lengths = _lists(5)
    model = TimeModel(**truth)
    everything = {**truth, "p_save_nonrel": p_save_nonrel}
    covered = {p: 0 for p in everything}
    for seed in range(seeds):
        frame = simulate_log(lists, model=model, n_users=48, seed=1000 + seed, read_noise=0.25,
                             p_save_nonrel=p_save_nonrel)
        table = calibrate_log(log_from_frame(frame), rankings, lengths=lengths, B=400, seed=seed).calibrations[0].table
        table = table.set_index("parameter")
        for p, v in everything.items():
            covered[p] += bool(table.at[p, "ci_low"] <= v <= table.at[p, "ci_high"])
    need = 32 if seeds == 40 else 16
    assert all(c >= need for c in covered.values()), covered


def test_without_noise_the_reading_fit_is_exact():
    lists, rankings, lengths = _lists(2, n_lists=2, depth=60)
    frame = simulate_log(lists, model=TimeModel(), n_users=10, seed=3, read_noise=0.0, summary_noise=0.0)
    calibration = calibrate_log(log_from_frame(frame), rankings, lengths=lengths, B=20).calibrations[0]
    assert calibration.value("read_slope") == pytest.approx(0.018, abs=1e-12)
    assert calibration.value("read_intercept") == pytest.approx(7.8, abs=1e-9)
    assert calibration.value("summary_time") == pytest.approx(4.4, abs=1e-9)


def test_fast_users_who_view_more_pull_the_weighted_times_below_the_user_average():
    """The paper's contrast (T_S 4.4 s weighted against 5.3 s; 18.9 s against 26.5 s per document):
    users differ in speed, fast ones get further in the same time and weigh more."""
    lists, rankings, lengths = _lists(7)
    frame = simulate_log(lists, model=TimeModel(), n_users=60, seed=11, speed_spread=0.6)
    table = calibrate_log(log_from_frame(frame), rankings, lengths=lengths, B=200, seed=1).calibrations[0].table
    table = table.set_index("parameter")
    for parameter in ("summary_time", "document_time"):
        assert table.at[parameter, "value"] < table.at[parameter, "user_average"]
        assert table.at[parameter, "ci_high"] < table.at[parameter, "user_average"]
    # with users alike the two agree within the interval
    alike = calibrate_log(log_from_frame(simulate_log(lists, model=TimeModel(), n_users=60, seed=11)), rankings,
                          lengths=lengths, B=200, seed=1).calibrations[0].table.set_index("parameter")
    assert alike.at["summary_time", "ci_low"] <= alike.at["summary_time", "user_average"] <= alike.at["summary_time",
                                                                                                      "ci_high"]


def test_by_topic_and_by_user_class():
    lists, rankings, lengths = _lists(3, n_lists=3, depth=80)
    log = log_from_frame(simulate_log(lists, model=TimeModel(), n_users=12, seed=2, speed_spread=0.5))
    by_topic = calibrate_log(log, rankings, lengths=lengths, by="topic", B=50)
    assert [c.group for c in by_topic.calibrations] == ["all", "T0", "T1", "T2"]
    assert all(c.sessions == 12 for c in by_topic.calibrations[1:])
    by_class = calibrate_log(log, rankings, lengths=lengths, by="user-class", n_classes=3, B=50)
    assert [c.group for c in by_class.calibrations] == ["all", "slow", "medium", "fast"]
    assert [c.users for c in by_class.calibrations] == [12, 4, 4, 4]
    slow, fast = by_class.calibrations[1], by_class.calibrations[3]
    assert slow.value("summary_time") > fast.value("summary_time")
    import json

    document = json.loads(by_class.to_json())
    keys = set(document["calibrations"][0]["parameters"])
    assert {"halflife", "summary_time", "read_slope", "read_intercept", "p_click_rel", "p_click_nonrel", "p_save_rel",
            "p_save_nonrel"} <= keys
    assert set(document["calibrations"][0]["parameters"]["halflife"]) == {"value", "ci_low", "ci_high", "user_average"}


def test_the_bootstrap_is_seeded():
    lists, rankings, lengths = _lists(3, n_lists=2, depth=50)
    log = log_from_frame(simulate_log(lists, model=TimeModel(), n_users=8, seed=2))
    a = calibrate_log(log, rankings, lengths=lengths, B=100, seed=4).frame()
    b = calibrate_log(log, rankings, lengths=lengths, B=100, seed=4).frame()
    c = calibrate_log(log, rankings, lengths=lengths, B=100, seed=5).frame()
    pd.testing.assert_frame_equal(a, b)
    assert not a["ci_low"].equals(c["ci_low"])


@settings(max_examples=25, deadline=None)
@given(shift=st.floats(-1e6, 1e6, allow_nan=False), seed=st.integers(0, 10_000))
def test_estimates_do_not_depend_on_time_origins_or_user_names(shift, seed):
    """Invariants: each session's clock origin and the users' names change no estimate (the
    bootstrap draws users in sorted order, so renaming keeps the order here)."""
    lists, rankings, lengths = _lists(seed % 7, n_lists=2, depth=40)
    frame = simulate_log(lists, model=TimeModel(), n_users=6, seed=seed)
    moved = frame.assign(time=frame["time"] + shift + (frame["list"] == "L1") * 17.0, user="x" + frame["user"])
    a = calibrate_log(log_from_frame(frame), rankings, lengths=lengths, B=30, seed=1).frame()
    b = calibrate_log(log_from_frame(moved), rankings, lengths=lengths, B=30, seed=1).frame()
    pd.testing.assert_frame_equal(a.drop(columns=["ci_low", "ci_high"]), b.drop(columns=["ci_low", "ci_high"]),
                                  rtol=1e-6, atol=1e-9)


def test_a_list_no_run_ranks_is_an_error_with_its_line():
    rows = [("A", "L9", 0, "start", 0, None)]
    log = log_from_frame(pd.DataFrame(rows, columns=["user", "list", "time", "event", "rank", "docno"]),
                         source="log.csv")
    with pytest.raises(Exception) as error:
        calibrate_log(log, RANKING, lengths=LENGTHS)
    assert str(error.value) == ("log.csv, line 1: list 'L9' is not a ranked list given (no topic 'L9' in both the "
                                "qrels and the run, and no lists file maps it)")


def test_a_topic_calibrated_on_its_own_predicts_its_users_better():
    """The paper's Figure 2, right: users of a topic of long, hard documents work more slowly
    than the pooled T(k) says; the topic's own ("custom") calibration follows them."""
    from pateval.report.calibration import calibration_figures

    lists, rankings, lengths = _lists(4, n_lists=2, depth=150)
    slow = simulate_log([lists[0]], model=TimeModel(summary_time=8.0, read_slope=0.04, read_intercept=12.0),
                        n_users=40, seed=1)
    fast = simulate_log([lists[1]], model=TimeModel(summary_time=3.0, read_slope=0.01, read_intercept=5.0), n_users=40,
                        seed=2)
    log = log_from_frame(pd.concat([slow, fast], ignore_index=True))
    result = calibrate_log(log, rankings, lengths=lengths, by="topic", B=100)
    assert result.calibrations[1].value("summary_time") == pytest.approx(8.0, rel=0.1)
    assert result.calibrations[2].value("summary_time") == pytest.approx(3.0, rel=0.1)
    validation = calibration_figures(result, rankings, lengths)["validation"]
    at_300 = validation[validation["time"] == 300.0]
    assert at_300["error_custom"].mean() < 0.5 * at_300["error"].mean()


def test_noise_free_users_with_near_duplicates_give_the_constants_exactly():
    """Simulated users read a near-duplicate of a document they opened as length 0 (T_D(0) = b);
    the calibration sets those views apart, so the fit and the duplicates' mean are exact."""
    rng = np.random.default_rng(8)
    docs = [f"D{i}" for i in range(60)]
    groups = {d: docs[i - 3] if i % 4 == 3 else d for i, d in enumerate(docs)}
    words = rng.integers(10, 1500, 60)
    relevant = rng.random(60) < 0.5
    item = SimulatedList("L", docs, relevant, words, [groups[d] for d in docs])
    frame = simulate_log([item], model=TimeModel(halflife=900), n_users=30, seed=5, read_noise=0.0, summary_noise=0.0)
    calibration = calibrate_log(log_from_frame(frame), {"L": ListRanking("T", np.array(docs, dtype=object), relevant)},
                                lengths=dict(zip(docs, words.tolist(), strict=False)), groups=groups,
                                B=20).calibrations[0]
    assert calibration.fit["duplicates"]["n"] > 20
    assert calibration.value("read_slope") == pytest.approx(0.018, abs=1e-12)
    assert calibration.value("duplicate_time") == pytest.approx(7.8, abs=1e-9)
    assert calibration.fit["duplicates"]["differs_from_intercept"] is False


def test_bootstrap_blocks_do_not_change_the_numbers(monkeypatch):
    from pateval.calibration import tbg as calibration

    per_user = np.random.default_rng(1).random((50, len(calibration._STATS)))
    whole = calibration._bootstrap_sums(per_user, B=37, seed=3)
    monkeypatch.setattr(calibration, "BOOTSTRAP_BLOCK_CELLS", 120)  # blocks of 2 resamples
    # the same draws; the products differ in the last bit at most (BLAS blocks differently)
    np.testing.assert_allclose(calibration._bootstrap_sums(per_user, B=37, seed=3), whole, rtol=1e-13)
    ones = np.ones((50, 1))
    np.testing.assert_array_equal(calibration._bootstrap_sums(ones, B=5, seed=0)[:, 0], np.full(5, 50.0))


def test_ranks_users_reached_over_time_on_the_hand_made_log():
    from pateval.calibration.tbg import validate_time_model
    from pateval.usermodel.time import time_to_rank

    result = calibrate_log(_hand_log(), RANKING, lengths=LENGTHS, groups=GROUPS, B=10)
    model = TimeModel(summary_time=10.0)
    table = validate_time_model(result, RANKING, LENGTHS, model=model, groups=GROUPS, at=(10.0, 50.0, 65.0))
    # A: rank 1 from 0 s (page shown), 3 from 24 s, 5 from 60 s (ends at 70); B: 2 from 5 s, 4 from 35 s (censored
    # at 60)
    assert table["observed"].tolist() == [1.5, 3.5, 5.0]
    assert table["sessions"].tolist() == [2, 2, 1]
    times = time_to_rank(RANKING["L1"].relevant, [100, 200, 300, 400, 500], model=model,
                         duplicate=[False, False, False, False, True])
    assert table["predicted"].tolist() == [float(np.searchsorted(times, t, side="right")) for t in (10.0, 50.0, 65.0)]


def test_kaplan_meier_by_hand_and_against_lifelines():
    from pateval.calibration.tbg import kaplan_meier

    times, survival = kaplan_meier(np.array([1.0, 2, 2, 3, 4]), np.array([True, True, False, True, False]))
    assert times.tolist() == [1.0, 2.0, 3.0]
    np.testing.assert_allclose(survival, [0.8, 0.8 * 3 / 4, 0.8 * 3 / 4 * 1 / 2], rtol=1e-15)
    lifelines = pytest.importorskip("lifelines")
    rng = np.random.default_rng(2)
    duration = np.round(rng.exponential(100, 500), 1)
    ended = rng.random(500) < 0.8
    times, survival = kaplan_meier(duration, ended)
    fitted = lifelines.KaplanMeierFitter().fit(duration, event_observed=ended).survival_function_
    np.testing.assert_allclose(survival, fitted.loc[times].to_numpy().ravel(), rtol=1e-12)
