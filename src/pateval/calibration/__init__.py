"""The user model fitted and applied: TBG calibrated from interaction logs (:mod:`.tbg`), and
T(k) and simulated users over runs and qrels as tables (:mod:`.frames`).

Above the measures and the evaluation, which these use to read a TBG measure name and rank
runs; the T(k) kernels they build on stay in :mod:`pateval.usermodel`, below the measures.
"""
