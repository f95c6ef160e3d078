"""What placement minimises: the cost model every stage asks to price a grouping.

Stages compare groupings only through ``Objective.cost``, and the lower bound and the gap are
in the same unit, so a cost model that prices cables by routed length and media can replace
the one here without touching the stages' bookkeeping.

``OpticalLinks`` is the objective of the papers' membership floors (Besta & Hoefler SC14 §6;
Camarero et al., Projective Networks §5.3): a link is copper inside its electrical group and
optical between groups, and optical cables dominate the price, so the cost is the number of
links whose ends lie in different groups (parallel cables counted each). The move, swap,
annealing and CP-SAT stages optimise exactly this count through link-weight gains.
"""

from __future__ import annotations

import numpy as np

from planner.placement.graph import Graph


class OpticalLinks:
    """Links leaving electrical groups (one optical cable each)."""

    unit = "optical links"

    def __init__(self, graph: Graph):
        self.graph = graph

    def cost(self, part: np.ndarray) -> int:
        return self.graph.cut(part)
