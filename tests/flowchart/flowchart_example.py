"""The hand-made flowchart several flowchart tests start from.

START -> READ X -> X > 0? -yes-> PRINT X -> END, and X > 0? -no-> END: 5 nodes, 5 edges.
"""

from pateval.flowchart import Edge, Flowchart, Node

NODES = (
    Node("1", "oval", "START"),
    Node("2", "rectangle", "READ X"),
    Node("3", "diamond", "X > 0?"),
    Node("4", "rectangle", "PRINT X"),
    Node("5", "oval", "END"),
)
EDGES = (
    Edge("1", "2", True, "plain"),
    Edge("2", "3", True, "plain"),
    Edge("3", "4", True, "plain", "yes"),
    Edge("3", "5", True, "plain", "no"),
    Edge("4", "5", True, "plain"),
)
TRUTH = Flowchart("Fig. 1", NODES, (), EDGES)
