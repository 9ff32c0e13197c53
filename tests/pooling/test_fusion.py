"""Fusion: equal to ranx's ``fuse`` on the same runs, values worked out by hand, refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pateval.core.run import Run
from pateval.errors import ParameterError
from pateval.pooling.fusion import fuse_runs, fuse_stack
from pateval.pooling.stack import stack_runs
from pateval.testing import synthetic_qrels_and_runs


def _runs(seed: int, *, n_runs: int = 4, depth: int = 40) -> list[Run]:
    _, rows = synthetic_qrels_and_runs(n_topics=5, depth=depth, n_runs=n_runs, collection_size=300,
                                       relevant_per_topic=10, judged_nonrelevant_per_topic=30, tie_share=0.0,
                                       seed=seed)
    out = []
    for name, records in rows.items():
        t, d, r, s = zip(*records, strict=True)
        out.append(Run.from_columns(t, d, s, r, name=name))
    return out


def _as_dict(run: Run) -> dict[str, dict[str, float]]:
    return run.to_dict()


CASES = [("combsum", "min-max"), ("combsum", "zmuv"), ("combsum", "sum"), ("combmnz", "min-max"),
         ("combmnz", "zmuv"), ("combmnz", "sum"), ("combsum", None), ("rrf", None), ("borda", None)]
OURS = {"combsum": "combsum", "combmnz": "combmnz", "rrf": "rrf", "borda": "borda"}
RANX = {"combsum": "sum", "combmnz": "mnz", "rrf": "rrf", "borda": "bordafuse"}
NORM = {"min-max": "min-max", "zmuv": "z-score", "sum": "sum", None: "none"}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("method, norm", CASES)
def test_fusion_equals_ranx_fuse(method, norm, seed):
    ranx = pytest.importorskip("ranx")
    runs = _runs(seed)
    expected = ranx.fuse([ranx.Run(_as_dict(r), name=r.name) for r in runs], norm=norm, method=RANX[method]).to_dict()
    ours_norm = None if method in ("rrf", "borda") else NORM[norm]
    got = fuse_runs(runs, OURS[method], norm=ours_norm).to_dict()
    assert got.keys() == expected.keys()
    for topic, docs in expected.items():
        assert got[topic].keys() == docs.keys()
        for doc, value in docs.items():
            assert math.isclose(got[topic][doc], value, rel_tol=1e-9, abs_tol=1e-12), (topic, doc)


def test_rrf_with_another_k_equals_ranx():
    ranx = pytest.importorskip("ranx")
    runs = _runs(3)
    expected = ranx.fuse([ranx.Run(_as_dict(r)) for r in runs], method="rrf", params={"k": 10}).to_dict()
    got = fuse_runs(runs, "rrf", k=10).to_dict()
    assert all(math.isclose(got[t][d], v, rel_tol=1e-12) for t, docs in expected.items() for d, v in docs.items())


def _two_runs() -> list[Run]:
    a = Run.from_dict({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, name="a")
    b = Run.from_dict({"q": {"d2": 10.0, "d4": 0.0}}, name="b")
    return [a, b]


def test_values_worked_out_by_hand():
    a, b = _two_runs()
    # min-max: a -> d1 1, d2 0.5, d3 0; b -> d2 1, d4 0
    assert fuse_runs([a, b], "combsum").to_dict() == {"q": {"d1": 1.0, "d2": 1.5, "d3": 0.0, "d4": 0.0}}
    assert fuse_runs([a, b], "combmnz").to_dict() == {"q": {"d1": 1.0, "d2": 3.0, "d3": 0.0, "d4": 0.0}}
    rrf = fuse_runs([a, b], "rrf", k=0).to_dict()["q"]
    assert rrf == {"d1": 1.0, "d2": 1 / 2 + 1, "d3": 1 / 3, "d4": 1 / 2}
    # Borda: M = 4 candidates; a gives 4, 3, 2 and (4 - 3 + 1) / 2 = 1 to d4; b gives 4, 3 and 1.5 to d1, d3
    assert fuse_runs([a, b], "borda").to_dict() == {"q": {"d1": 5.5, "d2": 7.0, "d3": 3.5, "d4": 4.0}}


def test_fused_ranking_is_by_score_then_docno_descending():
    a = Run.from_dict({"q": {"x": 1.0, "y": 0.0}}, name="a")
    b = Run.from_dict({"q": {"y": 1.0, "x": 0.0}}, name="b")
    fused = fuse_stack(stack_runs([a, b]), "rrf")
    assert fused.stack.docnos(fused.doc).tolist() == ["y", "x"]  # equal scores: docno descending, as trec_eval
    run = fused.to_run("f")
    assert run.rank.tolist() == [1, 2] and run.name == "f"


def test_a_topic_one_run_lacks_is_fused_from_the_others():
    a = Run.from_dict({"q1": {"d1": 1.0}, "q2": {"d2": 2.0, "d3": 1.0}}, name="a")
    b = Run.from_dict({"q1": {"d1": 5.0, "d5": 1.0}}, name="b")
    fused = fuse_runs([a, b], "borda").to_dict()
    assert fused["q2"] == {"d2": 2.0 + 1.5, "d3": 1.0 + 1.5}  # b gives each of M = 2 documents (2 + 1) / 2


def test_z_score_is_population_standard_deviation():
    a = Run.from_dict({"q": {"d1": 3.0, "d2": 1.0}}, name="a")
    b = Run.from_dict({"q": {"d3": 1.0}}, name="b")
    got = fuse_runs([a, b], "combsum", norm="z-score").to_dict()["q"]
    assert got == {"d1": 1.0, "d2": -1.0, "d3": 0.0}  # std of (3, 1) is 1; one score: (1 - 1) / 1e-9 = 0
    assert np.isfinite(list(got.values())).all()


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "combsom"}, "fusion method"),
    ({"method": "rrf", "norm": "min-max"}, "rrf fuses ranks"),
    ({"method": "combsum", "norm": "minmax"}, "normalisation"),
    ({"method": "rrf", "k": -1.0}, "k must be at least 0"),
])
def test_bad_parameters_are_one_clear_line(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        fuse_runs(_two_runs(), **kwargs)


def test_two_runs_of_one_name_are_refused():
    a, _ = _two_runs()
    with pytest.raises(ParameterError, match="two runs are named 'a'"):
        fuse_runs([a, a], "rrf")
