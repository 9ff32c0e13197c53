"""Scores of a recognised flowchart against its ground truth, and of a set of them.

Per flowchart (CLEF-IP 2012/2013 structure recognition; Piroi, Lupu, Hanbury, Overview of
CLEF-IP 2013, "Structure Recognition Evaluations"):

``mcs_distance_<level>``
    ``d = 1 - |mcs(G1, G2)| / max(|G1|, |G2|)`` of Bunke and Shearer (1998), with
    ``|G| = |V| + |E|``, at the levels ``structure``, ``types`` and ``texts``
    (:mod:`pateval.flowchart.mcs`). Lower is better; 0 for a perfect recognition.
``node_precision``, ``node_recall``, ``node_f1``
    Nodes (NO and MN) of the submission matched to a truth node by the best node mapping of
    the ``types`` level -- a node counts as recognised when it sits at the right place of
    the graph with the right shape.
``edge_precision``, ``edge_recall``, ``edge_f1``
    The same for the DE/UE edges (right ends, direction and line style).
``text_precision``, ``text_recall``, ``text_f1``
    Node texts and edge labels that are not empty: correct when the item is matched under
    that mapping and its text is similar (normalised, within ``text_threshold``).
``mcs_approximate``
    1 when the maximum common subgraph of some level was not proved optimal within the time
    budget (the distances of that pair are then upper bounds), else 0.

Precision is ``matched / |submission items|`` and recall ``matched / |truth items|``; when a
side has no items the ratio is 1 if the other side has none either and 0 otherwise.
F1 is their harmonic mean (0 when both are 0). The row ``all`` holds the mean over images.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from ..errors import InputFormatError, ParameterError, malformed
from .graph import graph_size, to_networkx
from .mcs import LEVELS, CommonSubgraph, check_budget, distance_from_size, maximum_common_subgraph
from .model import Flowchart
from .reader import check_flowchart, defect_error
from .text import check_threshold, normalise_text, texts_similar

__all__ = ["RATIO_MEASURES", "FlowchartEvaluation", "evaluate_flowchart_dirs", "levels_for", "measure_names",
           "score_flowchart"]

RATIO_MEASURES = tuple(f"{item}_{ratio}" for item in ("node", "edge", "text")
                       for ratio in ("precision", "recall", "f1"))


class FlowchartEvaluation(NamedTuple):
    """The result of a set evaluation: the score table and every problem with the files.

    ``scores`` has the columns ``measure``, ``image``, ``value`` -- one row per image and
    measure, then one row per measure with image ``all`` (the mean over the scored images).
    ``bad_files`` lists one :class:`pateval.errors.InputFormatError` per defect found.
    """

    scores: pd.DataFrame
    bad_files: list[InputFormatError]


def levels_for(level: str) -> tuple[str, ...]:
    """The levels of distance a ``level`` option asks for: ``"all"`` or one of :data:`LEVELS`."""
    if level == "all":
        return LEVELS
    if level not in LEVELS:
        raise ParameterError(f"level must be 'all' or one of {', '.join(LEVELS)}, not {level!r}")
    return (level,)


def measure_names(levels: tuple[str, ...] = LEVELS) -> list[str]:
    """The measures :func:`score_flowchart` returns for these levels, in output order."""
    return [f"mcs_distance_{level}" for level in LEVELS if level in levels] + list(RATIO_MEASURES) + ["mcs_approximate"]


def _ratio(matched: int, size: int, other_size: int) -> float:
    if size == 0:
        return 1.0 if other_size == 0 else 0.0
    return matched / size


def _check_options(levels: tuple[str, ...], text_threshold: float, time_budget: float | None) -> float:
    """The levels, threshold and budget checked; the threshold as a float."""
    for level in levels:
        levels_for(level)
    threshold = check_threshold(text_threshold)
    check_budget(time_budget)
    return threshold


def score_flowchart(truth: Flowchart, submission: Flowchart, *, levels: tuple[str, ...] = LEVELS,
                    text_threshold: float = 0.2, time_budget: float | None = 2.0) -> dict[str, float]:
    """Score one recognised flowchart against its ground truth (see the module notes).

    Parameters
    ----------
    truth, submission : Flowchart
        The ground truth and the recognised flowchart.
    levels : tuple of str
        Levels of ``mcs_distance_<level>`` to report (the ``types`` mapping is computed in
        any case, for the precision/recall measures).
    text_threshold : float
        Relative edit distance in [0, 1] up to which normalised texts are equal.
    time_budget : float or None
        Seconds of exact search per level before falling back to the best mapping found.

    Returns
    -------
    dict
        Measure name -> value, in the order of :func:`measure_names`.
    """
    levels = tuple(levels)
    threshold = _check_options(levels, text_threshold, time_budget)
    g1, g2 = to_networkx(truth), to_networkx(submission)
    size1, size2 = graph_size(g1), graph_size(g2)
    # Finest level first: its mapping is feasible at the coarser levels and starts their search.
    wanted: list[str] = [level for level in ("texts", "types", "structure") if level in levels or level == "types"]
    results: dict[str, CommonSubgraph] = {}
    start = None
    for level in wanted:
        results[level] = maximum_common_subgraph(g1, g2, level=level, text_threshold=threshold,
                                                 time_budget=time_budget, start=start)
        start = results[level].node_mapping
    scores = {f"mcs_distance_{level}": distance_from_size(results[level].size, size1, size2) for level in LEVELS
              if level in levels}
    common = results["types"]

    def texts(graph) -> tuple[dict, dict, int]:
        # Edges are the DE/UE lines: membership links of meta-nodes count in |G| but are no edges of the file.
        node_texts = {node: normalise_text(text or "") for node, text in graph.nodes(data="text")}
        edge_texts = {(u, v, k): normalise_text(label or "") for u, v, k, label in graph.edges(keys=True, data="label")
                      if graph.edges[u, v, k]["kind"] != "member"}
        return node_texts, edge_texts, sum(1 for text in (*node_texts.values(), *edge_texts.values()) if text)

    node_texts1, edge_texts1, texts1 = texts(g1)
    node_texts2, edge_texts2, texts2 = texts(g2)
    matched_edges = sum(1 for first, _ in common.edge_pairs if first in edge_texts1)
    correct_texts = sum(1 for node, image in common.node_mapping.items() if node_texts1[node] and node_texts2[image]
                        and texts_similar(node_texts1[node], node_texts2[image], threshold))
    correct_texts += sum(1 for first, second in common.edge_pairs if edge_texts1.get(first) and edge_texts2.get(second)
                         and texts_similar(edge_texts1[first], edge_texts2[second], threshold))
    for item, matched, size1_items, size2_items in (
        ("node", len(common.node_mapping), len(node_texts1), len(node_texts2)),
        ("edge", matched_edges, len(edge_texts1), len(edge_texts2)),
        ("text", correct_texts, texts1, texts2),
    ):
        precision, recall = _ratio(matched, size2_items, size1_items), _ratio(matched, size1_items, size2_items)
        scores.update({f"{item}_precision": precision, f"{item}_recall": recall,
                       f"{item}_f1": 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)})
    scores["mcs_approximate"] = float(not all(result.exact for result in results.values()))
    return scores


def _files_by_image(directory: Path, problems: list[InputFormatError]) -> dict[str, Path]:
    """The non-hidden files of ``directory`` by image name (file name without its extension)."""
    if not directory.is_dir():
        malformed(directory, None, "not a directory")
    files: dict[str, Path] = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or not path.is_file():
            continue
        if path.stem in files:
            problems.append(defect_error(path, None, f"a second file for image {path.stem!r} (the first is "
                                                     f"{files[path.stem].name}); ignored"))
        else:
            files[path.stem] = path
    return files


def evaluate_flowchart_dirs(truth_dir: str | os.PathLike[str], submission_dir: str | os.PathLike[str], *,
                            levels: tuple[str, ...] = LEVELS, text_threshold: float = 0.2,
                            time_budget: float | None = 2.0) -> FlowchartEvaluation:
    """Score every flowchart of a submission directory against a ground-truth directory.

    Files are paired by image name (the file name without its extension). Problems never
    stop the evaluation; each is reported in ``bad_files``:

    * a ground-truth file with defects: the image is not scored;
    * a submission file with defects: the image is scored on the lines that could be read
      (a file that cannot be read as text at all counts as an empty flowchart);
    * no submission file for a ground-truth image: scored as an empty flowchart
      (distance 1, recall 0), so that leaving images out does not raise the mean;
    * a submission file without ground truth, or two files for one image: ignored.

    Parameters
    ----------
    truth_dir, submission_dir : path-like
        Directories of flowchart files in the CLEF-IP encoding.
    levels, text_threshold, time_budget
        As for :func:`score_flowchart`.

    Returns
    -------
    FlowchartEvaluation
        ``(scores, bad_files)``.
    """
    levels = tuple(levels)
    _check_options(levels, text_threshold, time_budget)
    truth_dir, submission_dir = Path(truth_dir), Path(submission_dir)
    problems: list[InputFormatError] = []
    truth_files = _files_by_image(truth_dir, problems)
    submission_files = _files_by_image(submission_dir, problems)
    for image, path in submission_files.items():
        if image not in truth_files:
            problems.append(defect_error(path, None, "no ground-truth file for this image; ignored"))
    names = measure_names(levels)
    rows: list[tuple[str, str, float]] = []
    for image, truth_path in truth_files.items():
        try:
            truth, defects = check_flowchart(truth_path)
        except InputFormatError as error:
            problems.append(error)
            continue
        if defects:
            problems.extend(defects)
            continue
        if (submission_path := submission_files.get(image)) is None:
            problems.append(defect_error(submission_dir / truth_path.name, None,
                                         "no submission file for this image; scored as an empty flowchart"))
            submission = Flowchart()
        else:
            try:
                submission, defects = check_flowchart(submission_path)
                problems.extend(defects)
            except InputFormatError as error:
                problems.append(error)
                submission = Flowchart()
        scores = score_flowchart(truth, submission, levels=levels, text_threshold=text_threshold,
                                 time_budget=time_budget)
        rows.extend((name, image, scores[name]) for name in names)
    per_image = len(rows)
    for name in names:
        if values := [value for measure, _, value in rows[:per_image] if measure == name]:
            rows.append((name, "all", sum(values) / len(values)))
    table = pd.DataFrame(rows, columns=["measure", "image", "value"])
    return FlowchartEvaluation(table, problems)
