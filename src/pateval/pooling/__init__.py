"""From runs to the documents to judge: fusion, pools, judging orders.

:mod:`~pateval.pooling.stack` puts any number of runs into one set of flat arrays (each run
ranked by the ranking step, topics and documents coded alike across runs), which
:mod:`~pateval.pooling.fusion` fuses (CombSUM, CombMNZ, RRF, Borda, as ranx) and
:mod:`~pateval.pooling.pools` pools (depth-k, RBP- and RRF-weighted as trectools, Take@N over
a fusion, and the adaptive judging orders of :mod:`~pateval.pooling.strategies`).
"""
