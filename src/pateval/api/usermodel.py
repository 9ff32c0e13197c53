"""Time-biased gain's user, rank by rank (T(k)) and simulated."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..formats.inputs import as_qrels, as_runs
from ..measures import EvaluationContext, Measure
from ..options import EvaluationOptions

if TYPE_CHECKING:  # pandas is imported by the functions that build frames (the command line starts without it)
    import pandas as pd


def _user_model_inputs(qrels, runs, model, doc_lengths, options):
    """The runs ranked against the qrels (as ``options`` read and rank them), the TBG measure, and its side inputs."""
    from ..calibration.frames import ranked_runs, tbg_measure
    from ..formats.doclengths import DocLengths, read_doc_lengths
    from ..formats.resources import prepare_resources, resource_options

    options = options or EvaluationOptions()
    measure = tbg_measure(model)
    side = dict(options.resources)
    if doc_lengths is not None:
        side["doc_lengths"] = (read_doc_lengths(doc_lengths) if isinstance(doc_lengths, (str, os.PathLike))
                               else doc_lengths if isinstance(doc_lengths, DocLengths) else dict(doc_lengths))
    ranked = ranked_runs(as_qrels(qrels, qrels_format=options.qrels_format, on_duplicate=options.on_duplicate),
                         as_runs(runs, on_duplicate=options.on_duplicate, run_format=options.run_format),
                         order=options.order, doc_key=options.doc_key)
    return ranked, measure, EvaluationContext(prepare_resources(side), options=resource_options())


def time_to_rank(qrels, runs, *, model: str | Measure = "TBG", doc_lengths: str | os.PathLike | Mapping | None = None,
                 options: EvaluationOptions | None = None) -> pd.DataFrame:
    """The time-biased gain user model rank by rank: when the user reaches each document (T(k)).

    Parameters
    ----------
    qrels, runs
        As for :func:`evaluate`.
    model : str or Measure, default "TBG"
        The calibration, as a TBG measure name, e.g. ``"TBG(halflife=600,read_slope=0.03)"``.
    doc_lengths : path or dict, optional
        Document lengths in words (a ``docno length`` file or ``{docno: length}``); or give
        them in ``options.resources``, with ``duplicate_groups`` / ``patent_families`` for
        ``duplicates=groups|families``.
    options : EvaluationOptions, optional
        How the qrels and runs are read and ranked (its ``qrels_format``, ``order``,
        ``doc_key``, ``on_duplicate``) and the side inputs (``resources``).

    Returns
    -------
    DataFrame
        One row per retrieved document: ``run, topic, rank, docno, relevant, length,
        duplicate, time`` (T(k), seconds), ``decay`` (D(T(k))), ``gain`` (its share of the
        TBG value) and ``cumulative_gain`` (TBG at that depth). Plot ``time`` against ``rank``.

    Examples
    --------
    >>> frame = time_to_rank({"q": {"d1": 1, "d3": 1}}, {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    ...                      doc_lengths={"d1": 500, "d2": 1000, "d3": 200})
    >>> frame["time"].round(3).tolist()
    [0.0, 15.152, 29.614]
    """
    from ..calibration.frames import time_to_rank_frame

    return time_to_rank_frame(*_user_model_inputs(qrels, runs, model, doc_lengths, options))


def simulate_users(qrels, runs, *, model: str | Measure = "TBG", n_users: int = 10_000, seed: int = 0,
                   confidence: float = 0.95, doc_lengths: str | os.PathLike | Mapping | None = None,
                   options: EvaluationOptions | None = None) -> pd.DataFrame:
    """Simulate stochastic users of the TBG model on each topic: expected gain and its spread.

    Each user clicks with P(C|R), saves with P(S|R=1), and stops after an exponential time of
    half-life h (see :mod:`pateval.usermodel.simulation`). Seeded: the same seed gives the
    same numbers.

    Parameters
    ----------
    qrels, runs, model, doc_lengths, options
        As for :func:`time_to_rank`.
    n_users : int, default 10000
    seed : int, default 0
        Seed of the first run (the next runs use seed+1, seed+2, ...).
    confidence : float, default 0.95

    Returns
    -------
    DataFrame
        One row per (run, topic): ``mean``, ``std``, ``ci_low``, ``ci_high`` of the simulated
        gain, ``expected`` (the exact expectation, the limit of ``mean``), ``tbg`` (the
        measure's closed form, at most ``expected``), ``n_users``; all divided by the
        model's normalisation N.
    """
    from ..calibration.frames import simulation_frame

    return simulation_frame(*_user_model_inputs(qrels, runs, model, doc_lengths, options), n_users=n_users, seed=seed,
                            confidence=confidence)
