"""Flowchart structure recognition (CLEF-IP 2012/2013): the encoding (:mod:`.model`, :mod:`.reader`,
:mod:`.writer`), graphs and the MCS distance of Bunke & Shearer 1998 (:mod:`.graph`, :mod:`.mcs`), its
evaluation (:mod:`.scoring`), and seeded flowcharts with controlled perturbations (:mod:`.generator`)."""

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
