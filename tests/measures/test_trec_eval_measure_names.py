"""trec_eval's names of the measures added for issue 22: each parses to a pateval measure whose
trec_eval name (``--names trec``) is the name trec_eval prints."""

from __future__ import annotations

import pytest

from pateval.measures import parse_measure
from pateval.measures.registry import trec_eval_name

# trec_eval's printed name -> pateval's canonical name
PRINTED = {
    "gm_map": "GMAP", "gm_bpref": "GM_Bpref", "infAP": "infAP", "iprec_at_recall_0.00": "IPrec",
    "iprec_at_recall_0.10": "IPrec(recall=0.1)", "iprec_at_recall_1.00": "IPrec(recall=1.0)",
    "11pt_avg": "IPrec_11pt", "Rprec_mult_0.20": "Rprec_mult(mult=0.2)", "Rprec_mult_1.00": "Rprec_mult",
    "relative_P_5": "RelP@5", "utility": "Utility", "binG": "binG", "G": "G", "ndcg_rel": "nDCG_rel",
    "Rndcg": "RnDCG", "set_P": "SetP", "set_relative_P": "SetRelP", "set_recall": "SetR", "set_map": "SetAP",
    "set_F": "SetF", "num_nonrel_judged_ret": "NumNonrelJudgedRet", "unj_10": "Unj@10", "num_q": "NumQ",
}


@pytest.mark.parametrize("printed, canonical", sorted(PRINTED.items()))
def test_trec_eval_names_round_trip(printed, canonical):
    measure = parse_measure(printed)
    assert str(measure) == canonical
    assert parse_measure(canonical) == measure
    assert trec_eval_name(measure) == printed


def test_rbp_is_trec_evals_with_its_default_persistence():
    # trec_eval's rbp has p = 0.9; pateval's RBP follows ir_measures (p = 0.8)
    assert trec_eval_name("RBP(p=0.9)") == "rbp"
    assert trec_eval_name("RBP_resid(p=0.9)") == "rbp_resid"
    assert trec_eval_name("RBP") is None
    assert trec_eval_name("RBP(p=0.9,rel=1)") is None


def test_parameters_trec_eval_does_not_print_give_no_trec_eval_name():
    assert trec_eval_name("SetF(beta=2.0)") is None
    assert trec_eval_name("IPrec(recall=0.5,rounding=trec_eval9)") is None
    assert trec_eval_name("nDCG(gains='1=3')") is None
    assert trec_eval_name("GMAP(rel=2)", relevance_level=2) == "gm_map"


def test_every_trec_eval_measure_is_declared_once_and_named_back():
    """Each of trec_eval's measures (its measure table, trec_eval 10.0) is declared by one
    measure (MeasureSpec.trec_eval), and the measures its -m gives by default are printed under
    the names trec_eval prints (P_5, iprec_at_recall_0.00, map, rbp)."""
    from pateval.measures.registry import TREC_EVAL_MEASURES
    from pateval.trec_eval_rules import TREC_EVAL_ORDER, expand_measure

    assert set(TREC_EVAL_MEASURES) == set(TREC_EVAL_ORDER) - {"runid", "relstring"}
    for base in TREC_EVAL_MEASURES:
        for ours, printed in expand_measure(base, None, num_docs=None).items():
            assert trec_eval_name(ours) == printed, (base, ours)
