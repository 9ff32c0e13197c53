"""Flowchart structure recognition (CLEF-IP 2012/2013): the encoding and its evaluation.

* :mod:`.model` -- :class:`Flowchart`, :class:`Node`, :class:`MetaNode`, :class:`Edge`
* :mod:`.reader` -- :func:`read_flowchart` (strict), :func:`check_flowchart` (all defects)
* :mod:`.writer` -- :func:`write_flowchart`, :func:`format_flowchart`
* :mod:`.graph` -- :func:`to_networkx`, :func:`graph_size` (``|G| = |V| + |E|``)
* :mod:`.mcs` -- :func:`maximum_common_subgraph`, :func:`mcs_distance` (Bunke & Shearer 1998)
* :mod:`.scoring` -- :func:`score_flowchart`, :func:`evaluate_flowchart_dirs`
* :mod:`.generator` -- seeded flowcharts and controlled perturbations
"""

from .generator import PERTURBATIONS, generate_flowchart, perturb_flowchart
from .graph import graph_size, to_networkx
from .mcs import LEVELS, CommonSubgraph, maximum_common_subgraph, mcs_distance
from .model import EDGE_TYPES, NODE_TYPES, Edge, Flowchart, MetaNode, Node
from .reader import FlowchartCheck, check_flowchart, parse_flowchart, read_flowchart
from .scoring import FlowchartEvaluation, evaluate_flowchart_dirs, measure_names, score_flowchart
from .writer import format_flowchart, write_flowchart

__all__ = ["EDGE_TYPES", "LEVELS", "NODE_TYPES", "PERTURBATIONS", "CommonSubgraph", "Edge", "Flowchart",
           "FlowchartCheck", "FlowchartEvaluation", "MetaNode", "Node", "check_flowchart", "evaluate_flowchart_dirs",
           "format_flowchart", "generate_flowchart", "graph_size", "maximum_common_subgraph", "mcs_distance",
           "measure_names", "parse_flowchart", "perturb_flowchart", "read_flowchart", "score_flowchart",
           "to_networkx", "write_flowchart"]
