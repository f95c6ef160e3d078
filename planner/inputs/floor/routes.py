"""Cable routes: where a cable runs between two cabinet positions, and how long it is.

In a hall (a floor with a ``hall`` block, ``planner.inputs.floor``) every cable runs in overhead
trays: up from the device to the tray over its row (``overhead_per_end_m``), along the row to a
cross tray (at both row ends, and every ``hall.cross_tray_every`` cabinets), across the rows
in the cross tray, along the target row, and down (``overhead_per_end_m`` again). The cross tray
is the one that makes the run along the rows shortest: when one lies between the two cabinets
the rows are walked only once (``|x_a - x_b|``), otherwise the cable detours to the nearer
tray beyond them and back. Between halls the cable runs along its row to the first cross tray,
along it to the hall entry, through the hall connection (``Hall.link_between``) and the same way
into the other hall. This is the estimate cabling tools make (vertical run to the tray, tray
run along rows and aisles, vertical drop, then a service-loop slack), with the trays where
overhead containment runs in a hot/cold-aisle hall.

Route kinds (the ``route_kind`` column of ``cables.csv``):

- ``cabinet``: both ends in one cabinet, ``intra_cabinet_m``;
- ``row``: one row of one hall, straight along the row tray;
- ``cross-row``: two rows of one hall, through a cross tray;
- ``cross-hall``: two halls, through both hall entries and the hall connection.

Length = (route + ``overhead_per_cable_m``) × (1 + ``slack_pct``/100), where the route includes
the rise and drop of ``overhead_per_end_m`` at each end; inside a cabinet it is
``intra_cabinet_m`` × (1 + ``slack_pct``/100). On the papers' abstract grid (no ``hall``) the
horizontal part is the Manhattan distance of the cabinet centres (``floor.cable_length_m``),
which reproduces the published lengths exactly.

``route_length_m`` takes whole arrays (10^5-10^6 cables in milliseconds) and fractional columns
(the centre of a slot of several cabinets), so placement scores slots with it;
``route_segments`` gives the polyline of one cable for drawings, ``cross_tray`` the cross tray
a cable between rows takes (where structured cabling puts its panels,
``planner.inputs.parts.structured``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.inputs.floor.geometry import cabinet_xy, cable_length_m
from planner.inputs.floor.halls import Room

KINDS = ("cabinet", "row", "cross-row", "cross-hall")
"""Route kinds, in the order of the codes ``route_kind`` returns."""
_EPS = 1e-9


def millimetres(lengths) -> np.ndarray:
    """Lengths rounded to the millimetre, as ``cables.csv`` states them and parts are chosen."""
    return np.round(np.asarray(lengths, dtype=float), 3)


def route_kind(hall_a, row_a, hall_b, row_b, same_cabinet) -> np.ndarray:
    """Index into ``KINDS`` of each cable (int8): cabinet, row, cross-row or cross-hall."""
    hall_a, hall_b = np.asarray(hall_a), np.asarray(hall_b)
    same_hall = hall_a == hall_b
    same_row = same_hall & (np.asarray(row_a) == np.asarray(row_b))
    kind = np.where(same_hall, np.where(same_row, 1, 2), 3)
    return np.where(np.asarray(same_cabinet, dtype=bool), 0, kind).astype(np.int8)


def _first_tray(trays: np.ndarray, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """Index of the first cross tray at or after ``lo`` (never the first tray of all, so one
    lies before it too) and whether it lies within [lo, hi]."""
    nxt = np.clip(np.searchsorted(trays, lo - _EPS, side="left"), 1, len(trays) - 1)
    return nxt, trays[nxt] <= hi + _EPS


def cross_tray(room: Room, x_a, x_b) -> np.ndarray:
    """Index into ``room.cross_x`` of the cross tray a cable between two rows of a hall takes
    (module doc): the first tray between ``x_a`` and ``x_b`` (metres along the rows), else the
    nearer one beyond them, the lower one on a tie. Arrays broadcast."""
    trays = room.cross_x
    x_a, x_b = np.asarray(x_a, dtype=float), np.asarray(x_b, dtype=float)
    lo, hi = np.minimum(x_a, x_b), np.maximum(x_a, x_b)
    nxt, crossing = _first_tray(trays, lo, hi)
    nearer_low = lo - trays[nxt - 1] <= trays[nxt] - hi
    return np.where(crossing, nxt, np.where(nearer_low, nxt - 1, nxt))


def tray_run_m(room: Room, hall_a, row_a, col_a, hall_b, row_b, col_b,
               tray=None) -> np.ndarray:
    """Horizontal run in the trays between two positions of a hall floor (module doc).
    ``tray`` (per cable, -1: the shortest as above) gives the cross tray a cable between two
    rows takes instead: a kept cable of a grown plan stays on its standing panels
    (``planner.cabling.structured.StandingSeats.trays``)."""
    floor = room.floor
    hall_a, hall_b = np.asarray(hall_a), np.asarray(hall_b)
    xa, ya = cabinet_xy(floor, row_a, col_a)
    xb, yb = cabinet_xy(floor, row_b, col_b)
    lo, hi = np.minimum(xa, xb), np.maximum(xa, xb)
    trays = room.cross_x
    nxt, crossing = _first_tray(trays, lo, hi)
    detour = np.minimum(lo - trays[nxt - 1], trays[nxt] - hi)
    along = (hi - lo) + np.where(crossing, 0.0, 2.0 * detour)
    if tray is not None:
        tray = np.asarray(tray, dtype=np.int64)
        given = trays[np.clip(tray, 0, len(trays) - 1)]
        along = np.where(tray >= 0, np.abs(xa - given) + np.abs(xb - given), along)
    same_row = np.asarray(row_a) == np.asarray(row_b)
    inside = np.where(same_row, hi - lo, along + np.abs(ya - yb))
    ex, ey = room.entry_xy
    between = (xa - ex) + (ya - ey) + room.link_m(hall_a, hall_b) + (xb - ex) + (yb - ey)
    return np.where(hall_a == hall_b, inside, between)


def route_length_m(room: Room, hall_a, row_a, col_a, hall_b, row_b, col_b,
                   same_cabinet=False, tray=None) -> np.ndarray:
    """Cable length between cabinet positions (hall, row, column; columns may be fractional),
    overheads and slack included (module doc). Arrays broadcast; this is the "route length
    between two cabinet slots" that placement calls in bulk. ``tray``: as ``tray_run_m``."""
    floor = room.floor
    same = np.asarray(same_cabinet, dtype=bool)
    if not room.is_hall:
        return cable_length_m(floor, row_a, col_a, row_b, col_b, same)
    run = tray_run_m(room, hall_a, row_a, col_a, hall_b, row_b, col_b, tray)
    raw = run + floor.overhead_per_cable_m + 2.0 * floor.overhead_per_end_m
    raw = np.where(same, floor.intra_cabinet_m, raw)
    return raw * (1.0 + floor.slack_pct / 100.0)


def cable_routes(room: Room, cabinet_hall, cabinet_row, cabinet_col, cab_a, cab_b, tray=None):
    """(length_m, kind code) of cables between cabinets ``cab_a`` and ``cab_b`` (indices);
    ``tray``: as ``tray_run_m``."""
    hall = np.asarray(cabinet_hall, dtype=np.int64)
    row = np.asarray(cabinet_row, dtype=np.int64)
    col = np.asarray(cabinet_col, dtype=np.int64)
    cab_a, cab_b = np.asarray(cab_a, dtype=np.int64), np.asarray(cab_b, dtype=np.int64)
    same = cab_a == cab_b
    length = route_length_m(room, hall[cab_a], row[cab_a], col[cab_a], hall[cab_b], row[cab_b],
                            col[cab_b], same, tray)
    return length, route_kind(hall[cab_a], row[cab_a], hall[cab_b], row[cab_b], same)


# ----------------------------------------------------------------------------- polylines

@dataclass(frozen=True)
class Segment:
    """One straight piece of a route. Points are (x, y, z) in metres in the hall's frame
    (``planner.inputs.floor.geometry`` module doc), z measured from the tray level (the device
    end of a rise is at z = -overhead_per_end_m). ``hall`` is None for the connection between
    two halls, whose ``length_m`` is the hall link; ``kind`` is one of rise, row tray, cross
    tray, hall link, drop, cabinet (a cable inside one cabinet: ``intra_cabinet_m`` at the
    cabinet)."""

    hall: int | None
    kind: str
    start: tuple[float, float, float]
    end: tuple[float, float, float]
    length_m: float


def _piece(hall, kind, start, end) -> Segment:
    return Segment(hall, kind, start, end, float(np.linalg.norm(np.subtract(end, start))))


def route_segments(room: Room, a: tuple[int, int, float], b: tuple[int, int, float],
                   same_cabinet: bool = False) -> list[Segment]:
    """The polyline of one cable from position ``a`` = (hall, row, column) to ``b``, without
    the per-cable overhead and slack (so ``(sum of lengths + overhead_per_cable_m) × (1 +
    slack_pct/100)`` is its ``route_length_m``). Zero-length pieces are left out."""
    floor = room.floor
    (ha, ra, ca), (hb, rb, cb) = a, b
    xa, ya = (float(v) for v in cabinet_xy(floor, ra, ca))
    xb, yb = (float(v) for v in cabinet_xy(floor, rb, cb))
    rise = floor.overhead_per_end_m
    if same_cabinet:
        return [Segment(int(ha), "cabinet", (xa, ya, -rise), (xa, ya, -rise),
                        floor.intra_cabinet_m)]
    out = [_piece(int(ha), "rise", (xa, ya, -rise), (xa, ya, 0.0))]
    if not room.is_hall:
        out += [_piece(int(ha), "row tray", (xa, ya, 0.0), (xb, ya, 0.0)),
                _piece(int(ha), "cross tray", (xb, ya, 0.0), (xb, yb, 0.0))]
    elif ha != hb:
        ex, ey = room.entry_xy
        out += [_piece(int(ha), "row tray", (xa, ya, 0.0), (ex, ya, 0.0)),
                _piece(int(ha), "cross tray", (ex, ya, 0.0), (ex, ey, 0.0)),
                Segment(None, "hall link", (ex, ey, 0.0), (ex, ey, 0.0),
                        float(room.link_m(ha, hb))),
                _piece(int(hb), "cross tray", (ex, ey, 0.0), (ex, yb, 0.0)),
                _piece(int(hb), "row tray", (ex, yb, 0.0), (xb, yb, 0.0))]
    elif ra == rb:
        out.append(_piece(int(ha), "row tray", (xa, ya, 0.0), (xb, ya, 0.0)))
    else:
        tray = float(room.cross_x[int(cross_tray(room, xa, xb))])
        out += [_piece(int(ha), "row tray", (xa, ya, 0.0), (tray, ya, 0.0)),
                _piece(int(ha), "cross tray", (tray, ya, 0.0), (tray, yb, 0.0)),
                _piece(int(ha), "row tray", (tray, yb, 0.0), (xb, yb, 0.0))]
    out.append(_piece(int(hb), "drop", (xb, yb, 0.0), (xb, yb, -rise)))
    return [s for s in out if s.length_m > _EPS or s.kind == "hall link"]
