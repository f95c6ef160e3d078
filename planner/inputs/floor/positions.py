"""Existing rooms: the cabinet positions a floor marks as blocked, occupied or reserved
(``hall.positions``, ``planner.inputs.floor.schema.MarkedPosition``), where the planner never
places a cabinet or a patch rack.

A mark takes one cabinet position by row and column, or every cabinet position whose footprint
(``cabinet_width_m`` x ``cabinet_depth_m`` around its centre, ``geometry.cabinet_xy``) a
rectangle overlaps by more than a touch; rectangles are in the frame of ``cabinets.csv``'s
x_m / y_m (the centre of position A01 at (0, 0), x along the rows, y across them), so a
building column or a door clearance is given where it stands. The positions a hall may have
are its ``rows`` x ``cabinets_per_row`` (for "auto" sizes, ``max_rows`` x
``max_cabinets_per_row``). Positions stay where they are: a marked position only leaves a gap,
so every other position keeps its tray routes and lengths (``planner.inputs.floor.routes``).

Electrical groups take ``width`` adjacent cabinets of a row at columns ``0, width, 2 width,
..`` (``planner.inputs.floor.halls.slot_layout``); a group slot with a marked position in it is
not used (``slot_is_marked``, ``free_slots``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from planner.inputs.floor.geometry import cabinet_name, cabinet_xy
from planner.inputs.floor.schema import Floor
from planner.run.errors import InputError

COLUMNS = ["hall", "row", "col", "kind", "note", "entry"]
"""``marked_positions``' columns: 0-based hall, row and column, the kind, the note, and the
index of the ``hall.positions`` entry that marks it."""
_EPS = 1e-9


def hall_limits(floor: Floor) -> tuple[int, int]:
    """(rows, cabinets per row) a hall of the floor may have: its sizes, or the bounds of
    "auto" sizes."""
    hall = floor.hall
    return (hall.rows if hall.rows != "auto" else hall.max_rows,
            hall.cabinets_per_row if hall.cabinets_per_row != "auto"
            else hall.max_cabinets_per_row)


def has_marks(floor: Floor) -> bool:
    """True when the floor has halls with marked positions."""
    return floor.hall is not None and bool(floor.hall.positions)


def marked_positions(floor: Floor) -> pd.DataFrame:
    """One row per marked cabinet position (``COLUMNS``), sorted by hall, row, column; empty
    on a floor without marks. InputError (naming the ``hall.positions`` entry and the fix) for a
    rectangle that overlaps no cabinet position and for a position marked with two kinds."""
    if not has_marks(floor):
        return pd.DataFrame({c: pd.Series(dtype=object if c in ("kind", "note") else np.int64)
                             for c in COLUMNS})
    max_rows, max_cols = hall_limits(floor)
    parts = []
    for i, mark in enumerate(floor.hall.positions):
        if mark.row is not None:
            rows, cols = np.array([mark.row_index]), np.array([mark.column - 1])
        else:
            rows, cols = _covered(floor, mark, max_rows, max_cols)
            if not rows.size:
                raise InputError(
                    f"floor '{floor.source}': field 'hall.positions[{i}]' (the "
                    f"{mark.width_m:g} x {mark.depth_m:g} m rectangle at x_m {mark.x_m:g}, y_m "
                    f"{mark.y_m:g}) overlaps no cabinet position of the hall; move it over the "
                    "positions it takes (x_m, y_m as in cabinets.csv: A01's centre at 0, 0) or "
                    "remove it")
        halls = np.asarray(mark.hall_numbers(floor.hall.count), dtype=np.int64) - 1
        parts.append(pd.DataFrame({
            "hall": np.repeat(halls, rows.size), "row": np.tile(rows, halls.size),
            "col": np.tile(cols, halls.size), "kind": mark.kind, "note": mark.note,
            "entry": i}))
    table = pd.concat(parts, ignore_index=True).astype({"hall": np.int64, "row": np.int64,
                                                         "col": np.int64, "entry": np.int64})
    _one_kind(floor, table)
    table = table.drop_duplicates(["hall", "row", "col"])
    return table.sort_values(["hall", "row", "col"], kind="stable").reset_index(drop=True)


def _covered(floor: Floor, mark, max_rows: int, max_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of the cabinet positions a rectangle overlaps by more than a touch."""
    x, _ = cabinet_xy(floor, 0, np.arange(max_cols))
    _, y = cabinet_xy(floor, np.arange(max_rows), 0)
    cols = np.flatnonzero(np.abs(x - mark.x_m)
                          < (floor.cabinet_width_m + mark.width_m) / 2 - _EPS)
    rows = np.flatnonzero(np.abs(y - mark.y_m)
                          < (floor.cabinet_depth_m + mark.depth_m) / 2 - _EPS)
    r, c = np.meshgrid(rows, cols, indexing="ij")
    return r.ravel(), c.ravel()


def _one_kind(floor: Floor, table: pd.DataFrame) -> None:
    """InputError for a position two entries mark with different kinds."""
    kinds = table.groupby(["hall", "row", "col"])["kind"].nunique()
    if not (kinds > 1).any():
        return
    hall, row, col = kinds[kinds > 1].index[0]
    here = table[(table["hall"] == hall) & (table["row"] == row) & (table["col"] == col)]
    here = here.drop_duplicates("kind")
    (k0, e0), (k1, e1) = list(zip(here["kind"], here["entry"]))[:2]
    raise InputError(f"floor '{floor.source}': position {cabinet_name(row, col)} of hall "
                     f"{hall + 1} is marked {k0} (field 'hall.positions[{e0}]') and {k1} "
                     f"(field 'hall.positions[{e1}]'); give it one kind")


def marked_keys(floor: Floor) -> np.ndarray:
    """The marked positions as sorted int64 keys ``(hall * rows + row) * cols + col`` over the
    floor's ``hall_limits`` (for ``slot_is_marked``)."""
    table = marked_positions(floor)
    rows, cols = hall_limits(floor)
    return np.unique((table["hall"].to_numpy() * rows + table["row"].to_numpy()) * cols
                     + table["col"].to_numpy())


def slot_is_marked(floor: Floor, keys: np.ndarray, hall, row, col, width: int) -> np.ndarray:
    """For group slots of ``width`` cabinets starting at (hall, row, col): True where one of
    its cabinets stands on a marked position (``keys``: ``marked_keys``)."""
    rows, cols = hall_limits(floor)
    base = ((np.asarray(hall, dtype=np.int64) * rows + np.asarray(row, dtype=np.int64)) * cols
            + np.asarray(col, dtype=np.int64))
    return np.isin(base[..., None] + np.arange(int(width)), keys).any(axis=-1)


def free_slots(floor: Floor, width: int) -> np.ndarray:
    """Free group slots of ``width`` cabinets in each hall (``hall.count`` entries): the slots
    of the largest hall the bounds allow (``hall_limits``) less those with a marked position."""
    rows, cols = hall_limits(floor)
    per_row = cols // int(width)
    table = marked_positions(floor)
    inside = table[table["col"] < per_row * int(width)]
    taken = inside.assign(slot=inside["col"] // int(width)).drop_duplicates(
        ["hall", "row", "slot"])
    lost = np.bincount(taken["hall"].to_numpy(np.int64), minlength=floor.hall.count)
    return rows * per_row - lost


def describe(floor: Floor) -> str:
    """``"3 marked positions (field 'hall.positions')"`` for messages; empty without marks."""
    n = len(marked_positions(floor))
    return f"{n} marked position{'s' if n != 1 else ''} (field 'hall.positions')" if n else ""


def rack_conflicts(room, hall, x, y) -> None:
    """InputError when a patch rack centred at (x, y) of hall ``hall`` (its hall's frame) would
    stand on a marked position: on a marked rectangle, or on a marked cabinet position (a row
    end of an "auto" hall may stop just before one). Racks stand where the structured plant
    puts them (``planner.inputs.floor.rack_positions``), so such a mark must move."""
    floor = room.floor
    if not has_marks(floor):
        return
    hall, x, y = (np.asarray(v, dtype=float) for v in (hall, x, y))
    cw, cd = floor.cabinet_width_m, floor.cabinet_depth_m
    table = marked_positions(floor)
    mx, my = cabinet_xy(floor, table["row"].to_numpy(), table["col"].to_numpy())
    boxes = [(table["hall"].to_numpy(float), mx, my, np.full(len(table), cw),
              np.full(len(table), cd), table["entry"].to_numpy())]
    for i, mark in enumerate(floor.hall.positions):
        if mark.row is None:
            halls = np.asarray(mark.hall_numbers(floor.hall.count), dtype=float) - 1
            boxes.append((halls, np.full(len(halls), mark.x_m), np.full(len(halls), mark.y_m),
                          np.full(len(halls), mark.width_m), np.full(len(halls), mark.depth_m),
                          np.full(len(halls), i)))
    bh, bx, by, bw, bd, entry = (np.concatenate(v) for v in zip(*boxes))
    hit = ((hall[:, None] == bh[None, :])
           & (np.abs(x[:, None] - bx[None, :]) < (cw + bw[None, :]) / 2 - _EPS)
           & (np.abs(y[:, None] - by[None, :]) < (cd + bd[None, :]) / 2 - _EPS))
    if not hit.any():
        return
    k, m = (int(v[0]) for v in np.nonzero(hit))
    mark = floor.hall.positions[int(entry[m])]
    raise InputError(
        f"floor '{floor.source}': field 'hall.positions[{int(entry[m])}]' ({mark.kind}"
        f"{', ' + mark.note if mark.note else ''}) covers the floor position a patch rack of "
        f"structured cabling needs in hall {int(hall[k]) + 1} (x_m {float(x[k]):.2f}, y_m "
        f"{float(y[k]):.2f}: a row end, a cross tray's gap or the entry row); move the mark off "
        "it, give the hall a fixed size (hall.rows, hall.cabinets_per_row) so the rows end at "
        "its walls, or set structured_cabling: false")


def marks_in_room(room) -> pd.DataFrame:
    """The marked positions inside the halls, rows and columns a plan's ``room`` occupies
    (``halls.room_of``), as the outputs show them: ``marked_positions``' columns and their
    ``name`` (``A17``, ``H2-A17`` when the room has several halls, as cabinets are named) and
    centre ``x_m``, ``y_m`` in their hall's frame."""
    table = marked_positions(room.floor)
    table = table[(table["hall"] < room.halls) & (table["row"] < room.rows)
                  & (table["col"] < room.cols)].reset_index(drop=True)
    names = np.asarray(cabinet_name(table["row"].to_numpy(), table["col"].to_numpy()),
                       dtype=object).reshape(-1)
    if room.halls > 1:
        names = np.array([f"H{h + 1}-{n}" for h, n in zip(table["hall"].tolist(), names)],
                         dtype=object)
    x, y = cabinet_xy(room.floor, table["row"].to_numpy(), table["col"].to_numpy())
    return table.assign(name=names, x_m=np.asarray(x, dtype=float).reshape(-1),
                        y_m=np.asarray(y, dtype=float).reshape(-1))
