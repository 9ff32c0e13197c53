"""AP and bpref averaged geometrically over topics (trec_eval's gm_map and gm_bpref).

A topic's value is its AP (or bpref), as :mod:`pateval.measures.standard` computes it; the
``all`` value is the geometric mean exp((1/T) sum_t log(max(v_t, 0.00001))), which rewards
a system that does fairly on every topic over one that does very well on some and very
badly on others (Robertson, "On GMAP", CIKM 2006; the TREC Robust track's measure). The
floor 0.00001 is trec_eval's (MIN_GEO_MEAN), so that a topic scoring 0 does not make the
mean 0. trec_eval's ``-q`` prints log(max(v, 0.00001)) for a topic; pateval prints v.

Reference: trec_eval 10.0 (NIST) ``gm_map``, ``gm_bpref``.
"""

from __future__ import annotations

from .base import MeasureSpec, TrecEval
from .registry import register
from .relevance import REL, TREC_EVAL
from .standard import average_precision, bpref

__all__: list[str] = []

register(
    MeasureSpec("GMAP", "standard", "average precision, geometric mean over topics",
                "exp((1/T) sum_t log(max(AP_t, 0.00001)))", TREC_EVAL + " gm_map; Robertson, CIKM 2006",
                average_precision, (REL,), aggregate="gmean", trec_eval=TrecEval("gm_map")),
    MeasureSpec("GM_Bpref", "standard", "bpref, geometric mean over topics",
                "exp((1/T) sum_t log(max(bpref_t, 0.00001)))", TREC_EVAL + " gm_bpref", bpref, (REL,),
                aggregate="gmean", trec_eval=TrecEval("gm_bpref")),
)
