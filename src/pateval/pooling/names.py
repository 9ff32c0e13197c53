"""The names the pooling commands take as choices, declared where the command line reads them
(this module imports nothing: building the parser loads no heavy library)."""

from __future__ import annotations

__all__ = ["FUSION_METHODS", "NORMALISATIONS", "POOL_METHODS", "RBP_AGGREGATES", "ADAPTIVE_ORDERS", "ESTIMATES",
           "STAT_ESTIMATES"]

#: Fusion methods (ranx's names: comb_sum, comb_mnz, rrf, bordafuse).
FUSION_METHODS = ("combsum", "combmnz", "rrf", "borda")

#: Score normalisations before CombSUM / CombMNZ (ranx's min-max, zmuv, sum).
NORMALISATIONS = ("min-max", "z-score", "sum", "none")

#: How a pool picks its documents: each run's first k (TREC), the N heaviest by RBP or RRF
#: weight (trectools), the first N of a fused ranking, an adaptive judging order, or every
#: retrieved document by AP-prior (statAP's sampling distribution), heaviest first.
POOL_METHODS = ("depth", "rbp", "rrf", "fused", "mtf", "mm-ns", "ap-prior")

#: How RBP weights of one document from several runs combine (trectools' rbp_strategy).
RBP_AGGREGATES = ("sum", "max")

#: The judging orders that use the judgements as they arrive.
ADAPTIVE_ORDERS = ("mtf", "mm-ns")

#: What ``pool estimate`` gives by default: sample_eval.pl's estimates (xinfAP family).
ESTIMATES = ("xinfAP", "infNDCG", "inum_rel", "inum_rel_ret")

#: statAP (Aslam, Pavlu and Yilmaz 2006), as the Million Query track's statAP_MQ_eval.
STAT_ESTIMATES = ("statAP",)
