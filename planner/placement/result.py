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
    strategy: "hint" | "partition" | "optimize"; method: the candidate that won.
    optical: links leaving electrical groups in the final layout.
    candidates: optical links per candidate tried (name -> count); ``method`` is the cheapest.
    lower_bound, lower_bound_kind: best proven lower bound on optical links and which bound.
    stage_seconds: wall time per stage (name -> seconds).
    time_capped: True when the hard wall-clock cap (``budget.HARD_CAP_FACTOR`` x the time
        limit) cut a stage short; every budget is otherwise counted in deterministic units, so
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
    def gap(self) -> float:
        """optical / lower_bound - 1 (0 = proven optimal)."""
        return self.optical / self.lower_bound - 1.0 if self.lower_bound > 0 else 0.0
