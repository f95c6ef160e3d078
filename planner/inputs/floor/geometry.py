"""Cabinet geometry: the abstract grid's shape and cable lengths, cabinet positions, names,
aisles and rack units.

Abstract grid (no ``hall`` block; the papers' floors ``sc14``, ``pn-500``, ``galaxyfly``,
``cascade``): cabinet ``i`` (row-major) sits in row ``i // cols`` and column ``i % cols`` of
one unbounded grid. Without ``cabinets_per_row`` the grid is near-square (``grid_shape``):
rows of ceil(sqrt(n)) cabinets (the Fujiwara/Koibuchi layout-conscious random topology
floors) or, with ``row_rounding: floor``, of floor(sqrt(n)) as in the Galaxyfly x×y+z grids
(Lei et al., ICS'16, §6.2), in both cases rounded up to whole electrical groups. Cable length
between cabinets = Manhattan distance of the centres + ``overhead_per_cable_m`` + 2 ×
``overhead_per_end_m``, × (1 + ``slack_pct``/100) (Slim Fly, Besta & Hoefler SC14, and
Projective Networks, Camarero et al., §5.3: 1 m grid, 1 m inside a rack, +2 m per inter-rack
cable; Galaxyfly: 1.5 m inside, +2 m per cabinet end). In halls cables follow the trays
(``planner.inputs.floor.routes``).

Positions: in every hall (or the grid) the centre of the cabinet in row ``r``, column ``c`` is at
``x = (c + g) * pitch_m`` along the row and ``y = r * row_pitch_m`` across rows (``row_pitch_m =
cabinet_depth_m + aisle_m``), where ``g`` counts the patch-rack positions a structured floor
reserves in the row left of ``c`` (``rack_gaps``; 0 elsewhere); the hall around them:
``planner.inputs.floor.halls``; where each patch rack stands:
``planner.inputs.floor.rack_positions``. ``position_numbers`` is the one numbering (hall, row,
column from 1 and A) every output prints. Aisles
alternate cold (aisle 0, in front of row A, and every even aisle) and hot; row ``r`` faces its
cold aisle (``front_aisle``), so fronts face fronts and backs face backs. Rows are named A..Z,
AA.., columns 01.. (``A01``, TIA-606 / vendor install-guide style); with several halls a hall
prefix is added (``H2-A01``).

Rack units (``router_ru``, ``endpoint_ru_of``): router slot ``s`` starts at
``first_router_ru + s * rack_units``; endpoint slot ``j`` at ``first_endpoint_ru + j *
endpoint_ru``. With ``abstract: true`` (the papers' racks) slots are only counted; RU numbers are
then slot positions and are not checked against the cabinet height.
"""

from __future__ import annotations

import math

import numpy as np

from planner.inputs.floor.schema import Floor


def grid_shape(floor: Floor, n_cabinets: int) -> tuple[int, int]:
    """(rows, cols) of the abstract grid. ``cabinets_per_row`` fixes cols; otherwise a
    near-square x×y+z grid (x full rows of y cabinets + a row of z): y = ceil(sqrt(n)) (the
    ⌈√R⌉ × ⌈R/⌈√R⌉⌉ room of Fujiwara/Koibuchi's layout-conscious topologies) or, with
    ``row_rounding: floor``, y = floor(sqrt(n)) (Galaxyfly §6.2: 172 -> 13×13+3, 162 -> 13×12+6,
    43 -> 7×6+1, 27 -> 5×5+2); y is then rounded up to whole electrical groups."""
    n = int(n_cabinets)
    if n <= 0:
        return 0, 0
    if floor.cabinets_per_row is not None:
        cols = floor.cabinets_per_row
    else:
        cols = math.isqrt(n) if floor.row_rounding == "floor" else math.isqrt(n - 1) + 1
        k = floor.group_cabinets or 1
        cols = -(-cols // k) * k
    return -(-n // cols), cols


def cabinet_positions(floor: Floor, n_cabinets: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) int64 arrays of cabinets 0..n-1 of the abstract grid in row-major order."""
    _, cols = grid_shape(floor, n_cabinets)
    idx = np.arange(int(n_cabinets), dtype=np.int64)
    return (idx // cols, idx % cols) if cols else (idx, idx)


def padded(prefix: str, ids, width: int | None = None) -> np.ndarray:
    """``prefix`` + ids zero-padded to ``width`` (default: the width of the largest id)."""
    ids = np.asarray(ids, dtype=np.int64)
    if not ids.size:
        return np.empty(0, dtype=object)
    if width is None:
        width = len(str(int(ids.max())))
    return prefix + np.char.zfill(ids.astype(str), width).astype(object)


def row_letters(row) -> str:
    """The letters of a row as in the cabinet names: 0 -> A, 25 -> Z, 26 -> AA (bijective base
    26, as spreadsheet columns)."""
    text, n = "", int(row) + 1
    while n:
        n, rem = divmod(n - 1, 26)
        text = chr(ord("A") + rem) + text
    return text


def cabinet_name(row, col):
    """``A01``: row letters + column number from 01 (3 digits past 99); arrays give arrays."""
    if np.ndim(row) == 0 and np.ndim(col) == 0:
        if int(row) < 0 or int(col) < 0:
            raise ValueError("cabinet row and column must be >= 0")
        return f"{row_letters(row)}{int(col) + 1:02d}"
    rows, cols = np.broadcast_arrays(np.asarray(row), np.asarray(col))
    return np.array([cabinet_name(r, c) for r, c in zip(rows.ravel(), cols.ravel())],
                    dtype=object).reshape(rows.shape)


def cabinet_names(hall, row, col) -> tuple[str, ...]:
    """Names of cabinets: ``A01``, or ``H2-A01`` (halls numbered from 1) when they fill more
    than one hall, so names stay unique across halls."""
    hall = np.asarray(hall, dtype=np.int64)
    names = [str(n) for n in np.asarray(cabinet_name(np.asarray(row), np.asarray(col))).ravel()]
    if hall.size and int(hall.max()) > 0:
        names = [f"H{h + 1}-{n}" for h, n in zip(hall.tolist(), names)]
    return tuple(names)


def rack_gaps(floor: Floor, cols) -> np.ndarray:
    """Patch-rack positions reserved in a row left of cabinet column ``cols`` (0-based, may be
    fractional): on a floor with structured cabling every cross tray between cabinets
    (``hall.cross_tray_every`` = N) stands over a rack position of its own, so column c has
    ``c // N`` of them to its left; 0 on every other floor."""
    cols = np.asarray(cols, dtype=float)
    every = floor.hall.cross_tray_every if floor.hall is not None else 0
    if not (floor.structured_cabling and every):
        return np.zeros(cols.shape)
    return np.floor(np.maximum(cols, 0.0) / every)


def cabinet_xy(floor: Floor, rows, cols) -> tuple[np.ndarray, np.ndarray]:
    """Cabinet centres in metres in their hall (or the grid): x along the row (past the
    patch-rack positions reserved in the row, ``rack_gaps``), y across rows."""
    cols = np.asarray(cols, dtype=float)
    return ((cols + rack_gaps(floor, cols)) * floor.pitch_m,
            np.asarray(rows, dtype=float) * floor.row_pitch_m)


def position_numbers(hall, row, col) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The one numbering of floor positions that every output prints (``cabinets.csv``,
    ``wiring.pdf``, the viewer, ``bom.xlsx``): (hall from 1, row letters ``A``.., column from 1)
    of 0-based (hall, row, column) arrays, as the cabinet names ``H2-E06`` spell them."""
    hall = np.asarray(hall, dtype=np.int64) + 1
    letters = [row_letters(r) for r in np.asarray(row, dtype=np.int64).ravel().tolist()]
    return hall, letters, np.asarray(col, dtype=np.int64) + 1


def front_aisle(row):
    """The aisle a row's cabinets face: aisle ``i`` runs in front of row ``i`` (aisle 0 along the
    hall's front wall), even aisles are cold, odd ones hot; row r faces its cold aisle (r or
    r + 1), so the fronts of two rows face each other across a cold aisle and their backs share
    a hot one."""
    row = np.asarray(row, dtype=np.int64)
    return row + row % 2


def aisle_is_cold(aisle) -> np.ndarray:
    """True for cold aisles (even numbers: in front of row A, between rows B/C, D/E, ...)."""
    return np.asarray(aisle, dtype=np.int64) % 2 == 0


def cable_length_m(floor: Floor, row_a, col_a, row_b, col_b, same_cabinet) -> np.ndarray:
    """Cable lengths on the abstract grid: intra_cabinet_m inside a cabinet, else Manhattan +
    overheads; × slack (module doc). Halls route along trays instead:
    ``planner.inputs.floor.routes``."""
    if floor.hall is not None:
        raise ValueError(f"floor '{floor.name}' has halls; cables follow the trays "
                         "(planner.inputs.floor.routes.route_length_m)")
    xa, ya = cabinet_xy(floor, row_a, col_a)
    xb, yb = cabinet_xy(floor, row_b, col_b)
    between = (np.abs(xa - xb) + np.abs(ya - yb) + floor.overhead_per_cable_m
               + 2.0 * floor.overhead_per_end_m)
    raw = np.where(np.asarray(same_cabinet, dtype=bool), floor.intra_cabinet_m, between)
    return raw * (1.0 + floor.slack_pct / 100.0)


def mean_manhattan_m(floor: Floor, n_cabinets: int) -> float:
    """Mean Manhattan distance over all pairs of the first n grid cabinets (20 cabinets on a
    1 m grid -> 3.0 m, so +2 m per cable gives about Projective Networks' 5.1 m average)."""
    rows, cols = cabinet_positions(floor, n_cabinets)
    x, y = cabinet_xy(floor, rows, cols)
    iu = np.triu_indices(len(x), k=1)
    d = np.abs(x[:, None] - x[None, :]) + np.abs(y[:, None] - y[None, :])
    return float(d[iu].mean()) if len(iu[0]) else 0.0


def router_ru(floor: Floor, slot, rack_units: float = 1.0):
    """Lowest rack unit of router slot ``slot`` (0-based) in its cabinet."""
    return floor.first_router_ru + np.asarray(slot) * rack_units


def endpoint_ru_of(floor: Floor, slot):
    """Lowest rack unit of endpoint slot ``slot`` (0-based); the slot number + first RU when
    endpoints take no rack units (``endpoint_ru == 0``, the papers' abstract racks)."""
    step = floor.endpoint_ru if floor.endpoint_ru > 0 else 1.0
    return floor.first_endpoint_ru + np.asarray(slot) * step
