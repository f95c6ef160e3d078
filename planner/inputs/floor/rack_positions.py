"""Where the patch racks of structured cabling stand: floor positions of their own, never in an
aisle.

A floor with ``structured_cabling`` reserves rack positions in its rows
(``planner.inputs.floor.halls.rack_slots``): one at each row end and one in the gap left at every
cross tray between cabinets (``geometry.rack_gaps``); each cross tray runs over its position.
The patch racks of a row's panel point stand there:

- a row point's first rack (``A-P1``) in the row's position under its cross tray;
- more racks at a row end (``A-P0.2``, when the panels outgrow one rack) continue the row
  outward, one pitch further each, and the hall's end aisle and wall move out with them
  (``hall_bounds``); more racks at a cross tray between cabinets, which has one position, stand
  at the nearer row end beyond the racks there;
- the entry racks (``ENTRY``, ``ENTRY.2``, ...) stand side by side in the entry row along the
  hall's front wall, from the first cross tray (where the hall entry is) along the row, facing
  the aisle in front of row A; a second entry row, an aisle further out, takes what one row of
  positions does not hold.

A rack never stands on a marked rectangle of an existing room (``hall.positions``): such a
floor is refused with the rack's place (``planner.inputs.floor.positions.rack_conflicts``).

Racks are cabinets' size (``cabinet_width_m`` x ``cabinet_depth_m``); x, y are their centres in
the hall's frame (``geometry.cabinet_xy``). ``hall_bounds`` is the hall's footprint around
cabinets and racks; ``ENTRY_ROW`` is the row name ``cabinets.csv`` gives the entry row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from planner.inputs.floor import positions
from planner.inputs.floor.halls import Room

ENTRY_ROW = "entry"
"""The name of the row of entry racks along a hall's front wall (``cabinets.csv`` ``row``)."""


def rack_positions(room: Room, kind, hall, row, tray, index) -> pd.DataFrame:
    """Centres (``x_m``, ``y_m``) of patch racks in their hall's frame (module doc): ``kind``
    ``row`` or ``entry``, the ``hall``, ``row`` and cross ``tray`` of a row point (ignored for
    entry racks), ``index`` the rack's number at its place from 0 (``A-P0`` 0, ``A-P0.2`` 1).
    Columns: x_m, y_m, entry_row (0 for the row along the wall, 1 an aisle further out; -1
    for row racks)."""
    floor = room.floor
    pitch, depth = float(floor.pitch_m), float(floor.cabinet_depth_m)
    kind = np.asarray(kind, dtype=object)
    row = np.asarray(row, dtype=np.int64)
    tray = np.asarray(tray, dtype=np.int64)
    index = np.asarray(index, dtype=np.int64)
    entry = kind == "entry"
    trays = np.asarray(room.cross_x, dtype=float)
    last = len(trays) - 1
    x = trays[np.clip(tray, 0, last)]
    # extra racks of a row point: outward from the row end (a cross tray between cabinets: the
    # nearer end), beyond the racks that stand there already
    extra = ~entry & (index > 0)
    if extra.any():
        end_of = np.where(tray == 0, 0, np.where(tray == last, last,
                          np.where(x - trays[0] <= trays[last] - x, 0, last)))
        mid = (tray != 0) & (tray != last)
        # a between-trays rack moving to an end stands past that end's own racks
        spill = _spill_ranks(hall, row, end_of, index, entry, mid)
        step = np.where(end_of == 0, -pitch, pitch)
        x = np.where(extra, trays[end_of] + step * spill, x)
    y = row * float(floor.row_pitch_m)
    per_row = max(1, int(round((room.row_x[1] - room.row_x[0]) / pitch)))
    entry_row = np.where(entry, index // per_row, -1)
    x = np.where(entry, trays[0] + (index % per_row) * pitch, x)
    entry_y = room.entry_xy[1] - depth / 2 - entry_row * (depth + float(floor.aisle_m))
    y = np.where(entry, entry_y, y)
    positions.rack_conflicts(room, hall, x, y)
    return pd.DataFrame({"x_m": x.astype(float), "y_m": y.astype(float),
                         "entry_row": entry_row.astype(np.int64)})


def _spill_ranks(hall, row, end_of, index, entry, mid) -> np.ndarray:
    """How many positions out from its row end each extra row rack stands: a row end's own
    racks first (rack ``k`` at ``k``), then the racks moved there from cross trays between
    cabinets, in order."""
    hall = np.asarray(hall, dtype=np.int64)
    rank = index.copy()
    frame = pd.DataFrame({"hall": hall, "row": row, "end": end_of, "index": index,
                          "move": ~entry & mid & (index > 0),
                          "own": ~entry & ~mid})
    own = frame[frame["own"]].groupby(["hall", "row", "end"])["index"].max()
    moved = frame[frame["move"]]
    if not moved.empty:
        order = moved.groupby(["hall", "row", "end"]).cumcount().to_numpy()
        base = own.reindex(pd.MultiIndex.from_frame(moved[["hall", "row", "end"]]))
        base = base.fillna(-1).to_numpy(dtype=np.int64)
        rank[moved.index.to_numpy()] = base + 1 + order
    return rank


def hall_bounds(room: Room, racks: pd.DataFrame | None = None) -> tuple[float, float, float,
                                                                         float]:
    """(x0, y0, x1, y1) of one hall's walls in its frame: the room's footprint, widened where
    patch racks (``x_m``, ``y_m`` of ``racks``, any hall) stand past it, by the end aisle
    beyond them (and an aisle in front of a second entry row)."""
    floor = room.floor
    x0, y0 = room.wall_xy
    x1, y1 = x0 + room.width_m, y0 + room.depth_m
    if racks is None or not len(racks):
        return x0, y0, x1, y1
    half_w, half_d = floor.cabinet_width_m / 2, floor.cabinet_depth_m / 2
    ends = floor.hall.end_aisle_m if floor.hall is not None else 0.0
    x = racks["x_m"].to_numpy(float)
    y = racks["y_m"].to_numpy(float)
    return (min(x0, float(x.min()) - half_w - ends), min(y0, float(y.min()) - half_d),
            max(x1, float(x.max()) + half_w + ends), y1)
