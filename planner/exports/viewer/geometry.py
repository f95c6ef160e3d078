"""What the viewer draws: the floor (halls, rows, aisles, trays, cabinets) and every cable's route.

Two functions of the plan, each the one place its picture comes from:

- ``floor_geometry(plan)``: halls, rows, aisles (hot / cold), overhead trays and hall
  connections as rectangles and segments, the patch racks of structured cabling as points, the
  marked positions of an existing room (``marked``, only on such floors),
  and every cabinet's centre and front, in metres in
  one frame for the whole floor (x along the rows, y across them; screen y grows downwards).
- ``cable_routes(plan)``: the polyline of every cable in that frame (empty inside a cabinet),
  step by step with the metres of each step, and its route kind (cabinet / row / cross-row /
  cross-hall). A cable between rows through panels runs in the cross tray of its panels
  (``planner.cabling.structured.segment_trays``: a kept cable of a grown plan in its
  standing one), the others in the nearest.

On a floor with halls (``planner.inputs.floor``'s ``hall`` block) these are the planner's own room
and tray routes (``planner.inputs.floor.room_of``, ``planner.inputs.floor.routes.route_segments``),
the halls drawn side by side with their connections through the gaps between them. Fallback for a
floor without halls (the papers' abstract racks, a plain grid): one hall around the cabinet grid; on
a physical grid with aisles the rows face as in a hall (``planner.inputs.floor.front_aisle``: row A
towards the cold aisle in front of it, then backs to backs, fronts to fronts); the route is the
Manhattan path the grid's length model measures (``planner.inputs.floor.cable_length_m``): up, along
the row of the A end, across the rows, down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.cabling.structured import segment_trays
from planner.inputs import floor as floors
from planner.exports.tuning import HALL_GAP_M
from planner.inputs.floor import positions
from planner.inputs.floor.rack_positions import hall_bounds
from planner.inputs.floor.routes import cross_tray

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


def floor_geometry(plan) -> dict:
    """Halls, rows, aisles, trays, hall links and cabinet centres/fronts of ``plan``'s floor
    (module doc). Lists of plain numbers (JSON-ready) except ``cabinets``, whose arrays are
    numpy arrays with one entry per row of ``plan.cabinets``."""
    if plan.floor.hall is not None:
        return _hall_geometry(plan)
    return _grid_geometry(plan)


def _room(plan):
    cab = plan.cabinets
    return floors.room_of(plan.floor, cab["hall"], cab["row"], cab["col"])


def hall_origins(room) -> np.ndarray:
    """(halls, 2) offsets of each hall's frame in the drawing: halls on a near-square grid of
    ceil(sqrt(halls)) columns, HALL_GAP_M apart."""
    per_row = math.isqrt(room.halls - 1) + 1
    h = np.arange(room.halls)
    return np.c_[(h % per_row) * (room.width_m + HALL_GAP_M),
                 (h // per_row) * (room.depth_m + HALL_GAP_M)]


def _hall_geometry(plan) -> dict:
    """Halls of ``planner.inputs.floor`` (``geometry`` and ``halls`` module docs): in each hall's
    frame the cabinet of row r, column c sits at (c × pitch, r × row pitch); aisle i runs in
    front of row i (cold when i is even, ``floor.aisle_is_cold``), row r faces
    ``floor.front_aisle(r)``; trays run over every row between the outer cross trays and across
    the rows at ``room.cross_x``, the first one on to the entry point where cables leave for
    other halls."""
    floor, cab = plan.floor, plan.cabinets
    room = _room(plan)
    origin = hall_origins(room)
    w, d, aisle = floor.cabinet_width_m, floor.cabinet_depth_m, floor.aisle_m
    ex, ey = room.entry_xy
    racks = plan.structured.racks if plan.structured is not None else None
    halls, rows, aisles, trays = [], [], [], []
    for h, (ox, oy) in enumerate(origin.tolist()):
        mine = None if racks is None else racks[racks["hall"] == h]
        x0, y0, x1, y1 = hall_bounds(room, mine)
        # rows and aisles run between the end aisles, over every rack at the row ends
        row_x0, row_x1 = x0 + floor.hall.end_aisle_m, x1 - floor.hall.end_aisle_m
        halls.append({"name": f"H{h + 1}" if room.halls > 1 else floor.name,
                      "x0": ox + x0, "y0": oy + y0, "x1": ox + x1, "y1": oy + y1})
        for i in range(room.rows + 1):
            top = oy + ey + i * floor.row_pitch_m
            aisles.append({"hall": h, "kind": "cold" if floors.aisle_is_cold(i) else "hot",
                           "x0": ox + row_x0, "x1": ox + row_x1, "y0": top, "y1": top + aisle})
        last_y = oy + (room.rows - 1) * floor.row_pitch_m
        for r in range(room.rows):
            y = oy + r * floor.row_pitch_m
            rows.append({"hall": h, "name": floors.row_letters(r), "x0": ox + row_x0,
                         "x1": ox + row_x1, "y0": y - d / 2, "y1": y + d / 2,
                         "front": FRONT_UP if floors.front_aisle(r) == r else FRONT_DOWN})
            trays.append({"hall": h, "kind": "row", "x0": ox + room.cross_x[0], "y0": y,
                          "x1": ox + room.cross_x[-1], "y1": y})
        for k, x in enumerate(room.cross_x.tolist()):
            trays.append({"hall": h, "kind": "cross", "x0": ox + x, "x1": ox + x,
                          "y0": oy + (ey if k == 0 else 0.0), "y1": last_y})
    hall = cab["hall"].to_numpy(dtype=np.int64)
    x, y = floors.cabinet_xy(floor, cab["row"], cab["col"])
    front = np.where(floors.front_aisle(cab["row"]) == cab["row"].to_numpy(), FRONT_UP,
                     FRONT_DOWN)
    marked = _marked(room, origin)
    return {"halls": halls, "rows": rows, "aisles": aisles, "trays": trays,
            **({"marked": marked} if marked else {}),
            **_hall_links(floor, room, origin), "patch_racks": _patch_racks(plan, room, origin),
            "cabinet_width_m": w,
            "cabinet_depth_m": d,
            "cabinets": {"x": x + origin[hall, 0], "y": y + origin[hall, 1], "hall": hall,
                         "front": front.astype(np.int64)}}


def _marked(room, origin) -> list[dict]:
    """The marked positions of an existing room (``planner.inputs.floor.positions``) in the
    drawing's frame: name, kind, note and centre, for the viewer's grey hatched boxes."""
    marks = positions.marks_in_room(room)
    return [{"name": str(m.name), "kind": str(m.kind), "note": str(m.note),
             "x": float(origin[m.hall, 0] + m.x_m), "y": float(origin[m.hall, 1] + m.y_m)}
            for m in marks.itertuples(index=False)]


def patch_rack_marks(plan, room) -> pd.DataFrame:
    """Where drawings show the patch racks of structured cabling (``planner.cabling.structured``):
    at the floor position each stands on in its hall's frame
    (``planner.inputs.floor.rack_positions``: in its row under its cross tray, or in the entry row
    along the hall's front wall), never in an aisle. Columns: name, kind, where (in words), hall,
    row (-1 in the entry row), x_m, y_m, size_m (the side of the square the viewer marks it
    with: the rack's width, so the mark stays on its footprint)."""
    columns = ["name", "kind", "where", "hall", "row", "x_m", "y_m", "size_m"]
    plant = plan.structured
    if plant is None or plant.racks.empty:
        return pd.DataFrame(columns=columns)
    floor = plan.floor
    size = float(min(floor.cabinet_width_m, floor.cabinet_depth_m))
    last = len(room.cross_x) - 1
    rows = []
    for rack in plant.racks.itertuples(index=False):
        if rack.kind == "entry":
            where = "the entry row along the front wall"
        else:
            end = " (row end)" if rack.tray in (0, last) else ""
            where = f"row {floors.row_letters(rack.row)}, cross tray {rack.tray}{end}"
        if room.halls > 1:
            where += f", hall H{rack.hall + 1}"
        rows.append((rack.name, rack.kind, where, int(rack.hall), int(rack.row),
                     float(rack.x_m), float(rack.y_m), size))
    return pd.DataFrame(rows, columns=columns)


def _patch_racks(plan, room, origin) -> list[dict]:
    """``patch_rack_marks`` in the drawing's frame (``hall_origins``), with each rack's panels
    from U1 up as [name, U, part number, trunks, links], for the viewer."""
    marks = patch_rack_marks(plan, room)
    if marks.empty:
        return []
    panels = {rack: rows for rack, rows in plan.structured.panels.sort_values(["rack", "ru"])
              .groupby("rack", sort=False)}
    ru_used = dict(zip(plan.structured.racks["name"], plan.structured.racks["ru_used"]))
    out = []
    for m in marks.itertuples(index=False):
        mine = panels[m.name]
        out.append({"name": m.name, "kind": m.kind, "where": m.where, "size_m": m.size_m,
                    "x": float(origin[m.hall, 0] + m.x_m), "y": float(origin[m.hall, 1] + m.y_m),
                    "ru_used": int(ru_used[m.name]),
                    "height_ru": int(plan.floor.cabinet_height_ru),
                    "panels": [[str(n), int(u), str(sku), int(t), int(k)] for n, u, sku, t, k in
                               zip(mine["name"], mine["ru"], mine["sku"], mine["trunks"],
                                   mine["links"])]})
    return out


def _bus(room, origin) -> tuple[float, float]:
    """(x of the gap left of all halls, y of the gap above the top halls): the hall
    connections run there; a meet-me room sits where the two meet."""
    ex, ey = room.entry_xy
    return (float(origin[:, 0].min()) + ex - room.floor.hall.end_aisle_m - HALL_GAP_M / 2,
            float(origin[:, 1].min()) + ey - HALL_GAP_M / 2)


def _to_bus(room, origin, h: int) -> list[tuple[float, float]]:
    """From hall h's entry up into the gap above it and along that gap to the bus column."""
    bus_x, _ = _bus(room, origin)
    x, y = (origin[h] + room.entry_xy).tolist()
    return [(x, y), (x, y - HALL_GAP_M / 2), (bus_x, y - HALL_GAP_M / 2)]


def link_path(room, origin, a: int, b: int) -> list[tuple[float, float]]:
    """How the connection from hall a's entry to hall b's is drawn, through the gaps between
    the halls only (never across one): up into the gap above hall a, along it to the bus
    column left of all halls, along that (past the meet-me room at its top, on a meet-me
    floor) to the gap above hall b, along it and down to b's entry."""
    path = _to_bus(room, origin, a)
    if room.floor.hall.links == "meet-me":
        path.append(_bus(room, origin))
    path += _to_bus(room, origin, b)[::-1]
    return [p for i, p in enumerate(path) if i == 0 or p != path[i - 1]]


def _hall_links(floor, room, origin) -> dict:
    """The hall connections as drawn: along a corridor (and on a grid of halls, in hall
    order), hall to next hall (``link_path``); through a meet-me room, every hall's spoke to
    the room, every pair of halls ``link_m`` apart through it."""
    if room.halls < 2:
        return {"links": [], "meet_me": None}
    if floor.hall.links in ("corridor", "grid"):      # a grid: each hall to the next in order
        links = [{"a": h - 1, "b": h,
                  "points": [list(p) for p in link_path(room, origin, h - 1, h)],
                  "length_m": float(room.link_m(h - 1, h))} for h in range(1, room.halls)]
        return {"links": links, "meet_me": None}
    room_xy = _bus(room, origin)
    links = []
    for h in range(room.halls):
        spoke = _to_bus(room, origin, h) + [room_xy]
        spoke = [p for i, p in enumerate(spoke) if i == 0 or p != spoke[i - 1]]
        links.append({"a": h, "b": None, "points": [list(p) for p in spoke], "length_m": None})
    return {"links": links, "meet_me": {"x": room_xy[0], "y": room_xy[1],
                                        "link_m": float(floor.hall.link_m)}}


def _grid_geometry(plan) -> dict:
    """One hall around the abstract grid's cabinets; rows, aisles and fronts as in a hall
    when the floor is physical and has aisles (module doc)."""
    floor, cabinets = plan.floor, plan.cabinets
    w, d = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    x = cabinets["x_m"].to_numpy(dtype=float)
    y = cabinets["y_m"].to_numpy(dtype=float)
    row = cabinets["row"].to_numpy(dtype=np.int64)
    aisle = float(floor.aisle_m)
    faced = not floor.abstract and aisle > 0
    front = (np.where(floors.front_aisle(row) == row, FRONT_UP, FRONT_DOWN) if faced
             else np.full(len(row), FRONT_NONE))
    if not len(x):
        hall = {"name": floor.name, "x0": 0.0, "y0": 0.0, "x1": 1.0, "y1": 1.0}
        return {"halls": [hall], "rows": [], "aisles": [], "trays": [], "links": [],
                "patch_racks": [], "meet_me": None, "cabinet_width_m": w, "cabinet_depth_m": d,
                "cabinets": {"x": x, "y": y, "hall": np.zeros(0, dtype=np.int64),
                             "front": front.astype(np.int64)}}
    margin = aisle if faced else 0.25 * min(w, d)
    x0, x1 = float(x.min() - w / 2), float(x.max() + w / 2)
    hall = {"name": floor.name, "x0": x0 - margin, "y0": float(y.min() - d / 2) - margin,
            "x1": x1 + margin, "y1": float(y.max() + d / 2) + margin}
    rows, aisles = [], []
    for r in np.unique(row).tolist():
        on = row == r
        centre = float(y[on][0])
        rows.append({"hall": 0, "name": floors.row_letters(r), "x0": float(x[on].min() - w / 2),
                     "x1": float(x[on].max() + w / 2), "y0": centre - d / 2,
                     "y1": centre + d / 2, "front": int(front[on][0])})
    if faced:
        # aisle i runs in front of row i (the last one behind the last row)
        for i in range(len(rows) + 1):
            top = rows[i]["y0"] - aisle if i < len(rows) else rows[-1]["y1"]
            aisles.append({"hall": 0, "kind": "cold" if floors.aisle_is_cold(i) else "hot",
                           "x0": x0, "x1": x1, "y0": top, "y1": top + aisle})
    return {"halls": [hall], "rows": rows, "aisles": aisles, "trays": [], "links": [],
            "patch_racks": [], "meet_me": None, "cabinet_width_m": w, "cabinet_depth_m": d,
            "cabinets": {"x": x, "y": y, "hall": np.zeros(len(x), dtype=np.int64),
                         "front": front.astype(np.int64)}}


def cable_routes(plan, geometry: dict | None = None, cables: slice = slice(None)) -> Routes:
    """Route of every cable of ``plan`` (module doc), in the frame of ``floor_geometry``; of
    the rows ``cables`` of ``plan.cables`` only when given (each cable's route is its own)."""
    geometry = floor_geometry(plan) if geometry is None else geometry
    if plan.floor.hall is not None:
        return _tray_routes(plan, cables)
    return _manhattan_routes(plan, geometry, cables)


TRAY_STEPS = ("rise", "row tray", "cross tray", "hall link", "drop")


def _tray_routes(plan, cables: slice) -> Routes:
    """``planner.inputs.floor.routes.route_segments`` for every cable at once (its polylines, step
    by step: rise, row tray, cross tray, hall link, cross tray, row tray, drop; pieces of no length
    left out but the hall link), in the drawing's frame (``hall_origins``)."""
    floor, cab = plan.floor, plan.cabinets
    room = _room(plan)
    origin = hall_origins(room)
    a, b = _cabinet_index(plan, "a_cabinet", cables), _cabinet_index(plan, "b_cabinet", cables)
    hall = cab["hall"].to_numpy(dtype=np.int64)
    row = cab["row"].to_numpy(dtype=np.int64)
    x, y = floors.cabinet_xy(floor, row, cab["col"].to_numpy(dtype=np.int64))
    ha, hb, xa, ya, xb, yb = hall[a], hall[b], x[a], y[a], x[b], y[b]
    same_cab, across = a == b, ha != hb
    same_row = ~across & (row[a] == row[b])
    rows_apart = ~across & ~same_row
    tray = cross_tray(room, xa, xb)
    if "segments" in plan.cables:       # through panels: the cross tray of its panels
        given = segment_trays(room, plan.cables["segments"].iloc[cables])
        tray = np.where(given >= 0, given, tray)
    tray = np.asarray(room.cross_x, dtype=float)[tray]
    ex, ey = room.entry_xy
    n, rise = len(a), float(floor.overhead_per_end_m)
    # eight slots: start, rise, row tray, cross tray, hall link, cross tray, row tray, drop
    px = np.empty((n, 8))
    py = np.empty((n, 8))
    px[:, :2], py[:, :2] = xa[:, None], ya[:, None]
    px[:, 2] = np.where(across, ex, np.where(same_row, xb, tray))
    py[:, 2] = ya
    px[:, 3] = np.where(across, ex, tray)
    py[:, 3] = np.where(across, ey, yb)
    px[:, 4], py[:, 4] = ex, ey
    px[:, 5], py[:, 5] = np.where(across, ex, tray), yb      # between rows: at slot 3 again
    px[:, 6:], py[:, 6:] = xb[:, None], yb[:, None]
    in_hall = np.c_[np.repeat(ha[:, None], 4, axis=1), np.repeat(hb[:, None], 4, axis=1)]
    metres = np.abs(np.diff(px, axis=1)) + np.abs(np.diff(py, axis=1))
    metres = np.c_[np.zeros(n), metres]
    metres[:, 1] = metres[:, 7] = rise
    metres[:, 4] = room.link_m(ha, hb)
    keep = metres > 1e-9
    keep[:, 0] = True
    keep[:, 3] &= across | rows_apart
    keep[:, 4] = across
    keep[:, 5] &= across
    keep[:, 6] &= across | rows_apart
    keep[same_cab] = False
    step = np.tile(np.array([-1, 0, 1, 2, 3, 2, 1, 4], dtype=np.int8), (n, 1))
    wx, wy = px + origin[in_hall, 0], py + origin[in_hall, 1]
    # a hall link is drawn through the gaps between halls (link_path): its inner points are
    # reached by "hall link" steps of 0 m, the far hall's entry by the link's length
    via_x, via_y, via = _link_points(room, origin, ha, hb, across)
    wx = np.c_[wx[:, :4], via_x, wx[:, 4:]]
    wy = np.c_[wy[:, :4], via_y, wy[:, 4:]]
    keep = np.c_[keep[:, :4], via, keep[:, 4:]]
    metres = np.c_[metres[:, :4], np.zeros(via.shape), metres[:, 4:]]
    step = np.c_[step[:, :4], np.full(via.shape, 3, dtype=np.int8), step[:, 4:]]
    count = keep.sum(axis=1)
    kind = np.where(same_cab, 0, np.where(same_row, 1, np.where(across, 3, 2))).astype(np.int8)
    return Routes(offsets=np.r_[0, np.cumsum(count)].astype(np.int64),
                  points=np.c_[wx[keep], wy[keep]], step=step[keep], step_m=metres[keep],
                  step_kinds=TRAY_STEPS, kind=kind)


def _link_points(room, origin, ha, hb, across):
    """(x, y, kept) of the inner points of ``link_path`` for every cable between halls (one
    column per point, as many as the longest path has)."""
    n = len(ha)
    if not across.any():
        return np.zeros((n, 0)), np.zeros((n, 0)), np.zeros((n, 0), dtype=bool)
    pairs, which = np.unique(np.c_[ha[across], hb[across]], axis=0, return_inverse=True)
    inner = [link_path(room, origin, int(a), int(b))[1:-1] for a, b in pairs]
    width = max(len(p) for p in inner)
    table = np.zeros((len(pairs), width, 2))
    kept = np.zeros((len(pairs), width), dtype=bool)
    for k, points in enumerate(inner):
        table[k, :len(points)] = points
        kept[k, :len(points)] = True
    x, y, via = np.zeros((n, width)), np.zeros((n, width)), np.zeros((n, width), dtype=bool)
    rows = np.flatnonzero(across)
    which = np.asarray(which).reshape(-1)
    x[rows], y[rows], via[rows] = table[which, :, 0], table[which, :, 1], kept[which]
    return x, y, via


def _cabinet_index(plan, column: str, cables: slice) -> np.ndarray:
    """Index into ``plan.cabinets`` of the cabinet in ``column`` of the rows ``cables``."""
    found = pd.Index(plan.cabinets["name"]).get_indexer(plan.cables[column].iloc[cables])
    if (found < 0).any():
        raise ValueError(f"a cable's {column} is not a cabinet of the plan")
    return found.astype(np.int64)


MANHATTAN_STEPS = ("rise", "along the row", "across the rows", "drop")


def _manhattan_routes(plan, geometry: dict, cables: slice) -> Routes:
    """Up from the A end (``overhead_per_end_m``), along its row to the B end's column, across
    the rows, down at the B end (module doc): ``planner.inputs.floor.cable_length_m``'s path."""
    a, b = _cabinet_index(plan, "a_cabinet", cables), _cabinet_index(plan, "b_cabinet", cables)
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
