"""The ``Placement`` value: where every router sits, and how that layout was found."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class Placement:
    """Router -> cabinet, cabinet -> (row, column, electrical group), plus provenance.

    router_cabinet: int64 (R,), cabinet index of each router.
    cabinet_row, cabinet_col: int64 (C,), position of each cabinet in its hall (row 0 = "A",
        col 0 = "01").
    cabinet_group: int64 (C,), electrical group of each cabinet.
    cabinet_names: tuple of C names, row letter(s) + zero-padded column ("A01", "B12"), with a
        hall prefix when the cabinets fill several halls ("H2-A01").
    cabinet_hall: int64 (C,), hall of each cabinet (0 = the first; None given = all in hall 0).
    strategy: "hint" | "partition" | "optimize"; method: the candidate that won (and the
        stages after it, e.g. "+price" for the router search of reach floors).
    objective: what the placement minimised (``objective``): "optical links" (membership
        floors: links leaving electrical groups) or "cable dollars" (reach floors).
    optical: optical network cables of the final layout (membership floors: links leaving
        electrical groups; reach floors: cables no copper part reaches).
    candidates: optical links per grouping tried (name -> count); ``method`` starts with the
        cheapest.
    lower_bound, lower_bound_kind: proven lower bound on the optical cables of any placement
        (cables that are optical whatever the placement) and which bound.
    copper, copper_upper_bound, copper_bound_kind: copper network cables, and the most any
        placement can have (reach floors: in the room the layout occupies; network cables -
        ``lower_bound``).
    cable_cost, cable_cost_lower_bound, cable_cost_bound_kind: dollars of the network cables
        and their optics as the cabling stage prices them (``objective``; None without a
        catalog) and a proven lower bound over all placements.
    server_cabinet: int64 (S,), cabinet of every server when the endpoints are NICs of servers
        of a catalog server model (``planner.placement.rails``); None: every endpoint sits in
        its router's cabinet.
    stage_seconds: wall time per stage (name -> seconds).
    spread_risk: under ``--spread-risk`` (``spread.SpreadRisk``): the share asked, the largest
        share reached with and without it and the plain layout it started from; else None.
    time_capped: True when the hard cap (``budget.HardCap``: ``tuning.HARD_CAP_FACTOR`` x
        what the reference machine needs, in the planner's own CPU time) cut a stage short; every budget is otherwise counted in deterministic units, so
        only then can the same seed give another placement on a slower or busier machine.
    """

    router_cabinet: np.ndarray
    cabinet_row: np.ndarray
    cabinet_col: np.ndarray
    cabinet_group: np.ndarray
    cabinet_names: tuple[str, ...]
    strategy: str
    method: str
    optical: int
    lower_bound: float
    lower_bound_kind: str
    candidates: dict[str, int] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    time_capped: bool = False
    cabinet_hall: np.ndarray | None = None
    objective: str = "optical links"
    copper: int | None = None
    copper_upper_bound: int | None = None
    copper_bound_kind: str = ""
    cable_cost: float | None = None
    cable_cost_lower_bound: float | None = None
    cable_cost_bound_kind: str = ""
    spread_risk: object | None = None   # ``spread.SpreadRisk`` under ``--spread-risk``
    server_cabinet: np.ndarray | None = None

    def __post_init__(self):
        if self.cabinet_hall is None:
            object.__setattr__(self, "cabinet_hall", np.zeros(len(self.cabinet_names), np.int64))

    @property
    def num_cabinets(self) -> int:
        return len(self.cabinet_names)

    @property
    def num_groups(self) -> int:
        return int(self.cabinet_group.max()) + 1 if len(self.cabinet_group) else 0

    @property
    def router_group(self) -> np.ndarray:
        return self.cabinet_group[self.router_cabinet]

    @property
    def optical_gap(self) -> float:
        """optical / lower_bound - 1 (0 = proven optimal)."""
        return self.optical / self.lower_bound - 1.0 if self.lower_bound > 0 else 0.0

    @property
    def cost_gap(self) -> float | None:
        """cable_cost / cable_cost_lower_bound - 1 (None without both)."""
        if not self.cable_cost_lower_bound or self.cable_cost is None:
            return None
        return self.cable_cost / self.cable_cost_lower_bound - 1.0

    @property
    def gap(self) -> float:
        """The gap of what the placement minimised: optical links on membership floors, cable
        dollars on reach floors (0 = proven optimal)."""
        if self.objective == "cable dollars" and self.cost_gap is not None:
            return self.cost_gap
        return self.optical_gap
