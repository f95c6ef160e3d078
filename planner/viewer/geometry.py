"""What the viewer draws: the floor (halls, rows, aisles, trays, cabinets) and every cable's route.

Two functions of the plan, each the one place its picture comes from:

- ``floor_geometry(plan)``: halls, rows, aisles (hot / cold), overhead trays and hall
  connections as rectangles and segments, and every cabinet's centre and front, in metres in
  one frame for the whole floor (x along the rows, y across them; screen y grows downwards).
- ``cable_routes(plan)``: the polyline of every cable in that frame (empty inside a cabinet)
  and its route kind (cabinet / row / cross-row / cross-hall).

Fallback for a floor without halls or trays (the papers' abstract racks, a plain grid): one
hall around the cabinet grid; on a physical floor with aisles the rows face alternately (row
A towards the aisle in front of it, row B towards row C, ...), so the aisles alternate cold
(fronts) and hot (backs), the first one cold;
the route is the Manhattan path the length model measures (``planner.floor.cable_length_m``):
along the row of the A end, then across the rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

ROUTE_KINDS = ("cabinet", "row", "cross-row", "cross-hall")
"""Route kinds in the order of their codes (the ``route_kind`` column of ``cables.csv``)."""

FRONT_UP, FRONT_NONE, FRONT_DOWN = -1, 0, 1
"""Which way a cabinet's front faces: towards smaller y, not drawn, towards larger y."""


@dataclass(frozen=True)
class Routes:
    """Every cable's route: ``points[offsets[i]:offsets[i + 1]]`` (x, y in metres) is cable
    i's polyline, each point reached by a step of kind ``step_kinds[step[p]]`` (-1 at the first
    point) and ``step_m[p]`` metres (a rise or drop, or a hall link, moves little or nothing on
    the plan but has its length); ``kind`` indexes ``ROUTE_KINDS``. A cable's steps add up to
    its length before the per-cable overhead and the slack; a cable inside one cabinet has no
    steps."""

    offsets: np.ndarray   # int64 (cables + 1,)
    points: np.ndarray    # float64 (P, 2)
    step: np.ndarray      # int8 (P,)
    step_m: np.ndarray    # float64 (P,)
    step_kinds: tuple[str, ...]
    kind: np.ndarray      # int8 (cables,)


def _row_names(names, rows) -> dict[int, str]:
    """Row letters of each row, from its cabinets' names (``B07`` -> ``B``)."""
    out: dict[int, str] = {}
    for name, row in zip(names, rows):
        if int(row) not in out:
            match = re.match(r"^(.*?)\d+$", str(name))
            out[int(row)] = match.group(1) if match and match.group(1) else str(row + 1)
    return out


def floor_geometry(plan) -> dict:
    """Halls, rows, aisles, trays, hall links and cabinet centres/fronts of ``plan``'s floor
    (module doc). Lists of plain numbers (JSON-ready) except ``cabinets``, whose arrays are
    numpy arrays with one entry per row of ``plan.cabinets``."""
    return _grid_geometry(plan)


def _grid_geometry(plan) -> dict:
    floor, cabinets = plan.floor, plan.cabinets
    w, d = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    x = cabinets["x_m"].to_numpy(dtype=float)
    y = cabinets["y_m"].to_numpy(dtype=float)
    row = cabinets["row"].to_numpy(dtype=np.int64)
    aisle = float(floor.aisle_m)
    faced = not floor.abstract and aisle > 0
    front = np.where(row % 2 == 0, FRONT_UP, FRONT_DOWN) if faced else np.zeros(len(row))
    names = _row_names(cabinets["name"], row)
    rows, aisles = [], []
    margin = aisle if faced else 0.25 * min(w, d)
    if len(x):
        y_of = {}
        for r in np.unique(row).tolist():
            on = row == r
            y_of[r] = float(y[on][0])
            rows.append({"hall": 0, "name": names[r], "x0": float(x[on].min() - w / 2),
                         "x1": float(x[on].max() + w / 2), "y0": y_of[r] - d / 2,
                         "y1": y_of[r] + d / 2,
                         "front": int(front[on][0]) if faced else FRONT_NONE})
        x0, x1 = float(x.min() - w / 2), float(x.max() + w / 2)
        hall = {"name": floor.name, "x0": x0 - margin, "y0": float(y.min() - d / 2) - margin,
                "x1": x1 + margin, "y1": float(y.max() + d / 2) + margin}
        if faced:
            edges = [hall["y0"]] + [v for r in sorted(y_of) for v in (y_of[r] - d / 2,
                                                                       y_of[r] + d / 2)]
            edges.append(hall["y1"])
            fronts = [FRONT_NONE, *(int(front[row == r][0]) for r in sorted(y_of)), FRONT_NONE]
            for i in range(len(edges) // 2):
                top, bottom = edges[2 * i], edges[2 * i + 1]
                if bottom - top > 1e-9:
                    # the aisle between two rows is cold when the row above faces down into it
                    kind = "cold" if (fronts[i] == FRONT_DOWN
                                      or fronts[i + 1] == FRONT_UP) else "hot"
                    aisles.append({"hall": 0, "kind": kind, "x0": x0, "x1": x1,
                                   "y0": top, "y1": bottom})
        halls = [hall]
    else:
        halls = [{"name": floor.name, "x0": 0.0, "y0": 0.0, "x1": 1.0, "y1": 1.0}]
    return {"halls": halls, "rows": rows, "aisles": aisles, "trays": [], "links": [],
            "cabinet_width_m": w, "cabinet_depth_m": d,
            "cabinets": {"x": x, "y": y, "hall": np.zeros(len(x), dtype=np.int64),
                         "front": np.asarray(front, dtype=np.int64)}}


def cable_routes(plan, geometry: dict | None = None) -> Routes:
    """Route of every cable of ``plan`` (module doc), in the frame of ``floor_geometry``."""
    geometry = floor_geometry(plan) if geometry is None else geometry
    return _manhattan_routes(plan, geometry)


def _cabinet_index(plan, column: str) -> np.ndarray:
    """Index into ``plan.cabinets`` of every cable's cabinet in ``column``."""
    found = pd.Index(plan.cabinets["name"]).get_indexer(plan.cables[column])
    if (found < 0).any():
        raise ValueError(f"a cable's {column} is not a cabinet of the plan")
    return found.astype(np.int64)


MANHATTAN_STEPS = ("rise", "along the row", "across the rows", "drop")


def _manhattan_routes(plan, geometry: dict) -> Routes:
    """Up from the A end (``overhead_per_end_m``), along its row to the B end's column, across
    the rows, down at the B end (module doc): ``planner.floor.cable_length_m``'s path."""
    a, b = _cabinet_index(plan, "a_cabinet"), _cabinet_index(plan, "b_cabinet")
    cx, cy = geometry["cabinets"]["x"], geometry["cabinets"]["y"]
    end_m = float(plan.floor.overhead_per_end_m)
    xa, ya, xb, yb = cx[a], cy[a], cx[b], cy[b]
    row = plan.cabinets["row"].to_numpy(dtype=np.int64)
    same_cab, same_row = a == b, row[a] == row[b]
    kind = np.where(same_cab, 0, np.where(same_row, 1, 2)).astype(np.int8)
    # points: start, top of the rise, corner, bottom of the drop (then the B end)
    xs = np.c_[xa, xa, xb, xb, xb]
    ys = np.c_[ya, ya, ya, yb, yb]
    step = np.tile(np.array([-1, 0, 1, 2, 3], dtype=np.int8), (len(a), 1))
    step_m = np.c_[np.zeros(len(a)), np.full(len(a), end_m), np.abs(xb - xa), np.abs(yb - ya),
                   np.full(len(a), end_m)]
    keep = np.ones_like(step, dtype=bool)
    keep[:, 1] = keep[:, 4] = end_m > 0
    keep[:, 3] = ~same_row
    keep[same_cab] = False
    count = keep.sum(axis=1)
    return Routes(offsets=np.r_[0, np.cumsum(count)].astype(np.int64),
                  points=np.c_[xs[keep], ys[keep]], step=step[keep], step_m=step_m[keep],
                  step_kinds=MANHATTAN_STEPS, kind=kind)
