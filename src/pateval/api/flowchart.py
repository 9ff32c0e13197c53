"""Flowcharts: recognised flowcharts scored against ground truth."""

from __future__ import annotations


def evaluate_flowcharts(truth_dir, submission_dir, *, level: str = "all", text_threshold: float = 0.2,
                        time_budget: float | None = 2.0):
    """Score recognised flowcharts (CLEF-IP 2012/2013 encoding) against ground truth.

    Per image: the distance of Bunke & Shearer (1998), ``d = 1 - |mcs(G1, G2)| /
    max(|G1|, |G2|)`` with ``|G| = nodes + edges``, at the levels ``structure``, ``types``
    (node shapes, edge styles) and ``texts`` (also texts, normalised, within
    ``text_threshold`` relative edit distance); node, edge and text precision, recall and F1
    under the best node mapping of the ``types`` level; and ``mcs_approximate`` (1 when the
    exact search ran out of ``time_budget``). See :mod:`pateval.flowchart.scoring`.

    Parameters
    ----------
    truth_dir, submission_dir : path-like
        Directories of flowchart files, paired by file name without extension.
    level : {"all", "structure", "types", "texts"}
        Which distances to report.
    text_threshold : float
        Relative edit distance in [0, 1] up to which two normalised texts are equal.
    time_budget : float or None
        Seconds of exact search per pair and level (None: no limit).

    Returns
    -------
    pateval.flowchart.scoring.FlowchartEvaluation
        ``(scores, bad_files)``: a DataFrame ``measure, image, value`` (image ``all`` = the
        mean) and the list of problems found in the files (evaluation goes on without them).
    """
    from ..flowchart.scoring import evaluate_flowchart_dirs, levels_for

    return evaluate_flowchart_dirs(truth_dir, submission_dir, levels=levels_for(level), text_threshold=text_threshold,
                                   time_budget=time_budget)
