"""Halls: the ``Room`` a plan occupies, hall sizes, cross trays and where the electrical groups
sit.

Halls (a ``hall`` block; the built-in ``hot-aisle``): one or more identical halls of ``rows`` ×
``cabinets_per_row`` positions, each bounded, or sized to the system ("auto": the smallest
near-square hall, footprint aspect within 1:2..2:1). A system that does not fit one hall fills
several (at most ``hall.count``), split evenly; in each hall it takes a compact block of rows
from the entry corner, not a strip (``slot_layout``). Cables run along overhead trays
(``planner.inputs.floor.routes``).

A hall's footprint is ``cols * pitch_m + 2 * end_aisle_m`` by ``rows * cabinet_depth_m +
(rows + 1) * aisle_m`` (an aisle in front of the first row, between rows and behind the last);
with structured cabling every row also holds its patch-rack positions (``rack_slots``: both row
ends and a gap at every cross tray between cabinets, each cross tray over its position) and the
hall an entry row of racks along its front wall, ``cabinet_depth_m`` deep. Its entry point, where
cables to other halls leave, is the front end of the cross tray at the start of the rows
(``Room.entry_xy``). Cabinet positions in a hall, and on the abstract grid (one "hall" of the
cabinets' bounding rows and columns): ``planner.inputs.floor.geometry``; where each patch rack
stands: ``planner.inputs.floor.rack_positions``. Positions of an existing room marked blocked,
occupied or reserved (``hall.positions``, ``planner.inputs.floor.positions``) stay empty: the
slots skip them and ``room_of`` refuses a cabinet on one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.inputs.floor import positions
from planner.inputs.floor.geometry import cabinet_name, cabinet_xy, grid_shape, rack_gaps
from planner.inputs.floor.schema import Floor
from planner.inputs.tuning import MIN_ASPECT
from planner.run.errors import InputError


@dataclass(frozen=True, eq=False)
class Room:
    """The halls a plan occupies: ``halls`` identical halls of ``rows`` × ``cols`` cabinet
    positions (the abstract grid: one "hall" of its bounding rows and columns).

    width_m, depth_m: footprint of one hall (module doc; the grid: its cabinets' extent).
    cross_x: x of the cross trays in every hall, increasing (both row ends, and every
        ``hall.cross_tray_every`` cabinets), or None on the abstract grid (Manhattan lengths).
    entry_xy: the hall entry point (front end of the first cross tray), where cables between
        halls leave and enter.
    """

    floor: Floor
    halls: int
    rows: int
    cols: int
    width_m: float
    depth_m: float
    cross_x: np.ndarray | None
    entry_xy: tuple[float, float]

    @property
    def is_hall(self) -> bool:
        return self.cross_x is not None

    @property
    def row_x(self) -> tuple[float, float]:
        """(first, last) x of a row's positions, edge to edge: its cabinets and, on a floor with
        structured cabling, the patch-rack positions at its ends and cross trays."""
        pitch = self.floor.pitch_m
        if self.cross_x is None or not self.floor.structured_cabling:
            return -pitch / 2, (self.cols - 0.5) * pitch
        return float(self.cross_x[0]) - pitch / 2, float(self.cross_x[-1]) + pitch / 2

    @property
    def wall_xy(self) -> tuple[float, float]:
        """The hall's front-left corner (its walls at x and y): an end aisle left of the rows,
        and in front of row A its aisle and, with structured cabling, the entry racks' row."""
        floor = self.floor
        if self.cross_x is None:
            return -floor.cabinet_width_m / 2, -floor.cabinet_depth_m / 2
        entry_row = floor.cabinet_depth_m if floor.structured_cabling else 0.0
        return (self.row_x[0] - floor.hall.end_aisle_m,
                -(0.5 * floor.cabinet_depth_m + floor.aisle_m) - entry_row)

    @property
    def aspect(self) -> float:
        """Footprint width / depth of one hall (1 = square)."""
        return self.width_m / self.depth_m if self.depth_m > 0 else 1.0

    @property
    def footprint_m2(self) -> float:
        """Floor area of all halls."""
        return self.halls * self.width_m * self.depth_m

    def link_m(self, hall_a, hall_b) -> np.ndarray:
        """Cable path between the entry points of the halls (0 inside one hall)."""
        if self.floor.hall is None:
            return np.zeros(np.broadcast(np.asarray(hall_a), np.asarray(hall_b)).shape)
        return self.floor.hall.link_between(hall_a, hall_b)


def rack_slots(floor: Floor, cols) -> np.ndarray:
    """Patch-rack positions a row of ``cols`` cabinets reserves: on a floor with structured
    cabling one at each row end and one at every cross tray between cabinets
    (``geometry.rack_gaps``); none elsewhere."""
    cols = np.asarray(cols, dtype=float)
    if not (floor.structured_cabling and floor.hall is not None):
        return np.zeros(cols.shape)
    return 2.0 + rack_gaps(floor, np.maximum(cols - 1.0, 0.0))


def hall_footprint_m(floor: Floor, rows, cols) -> tuple:
    """(width, depth) in metres of a hall of ``rows`` × ``cols`` cabinet positions (module doc),
    the patch-rack positions of structured cabling included."""
    end_aisle = floor.hall.end_aisle_m if floor.hall is not None else 0.0
    entry_row = floor.cabinet_depth_m if floor.structured_cabling else 0.0
    rows, cols = np.asarray(rows, dtype=float), np.asarray(cols, dtype=float)
    return ((cols + rack_slots(floor, cols)) * floor.pitch_m + 2.0 * end_aisle,
            rows * floor.cabinet_depth_m + (rows + 1.0) * floor.aisle_m + entry_row)


def cross_tray_x(floor: Floor, cols: int) -> np.ndarray:
    """x of the cross trays of a hall with ``cols`` cabinets per row: at both row ends and every
    ``cross_tray_every`` cabinets (between cabinets), i.e. at ``(b - 1/2) × pitch_m`` for
    b = 0, N, 2N, ... and b = cols."""
    every = floor.hall.cross_tray_every if floor.hall is not None else 0
    bounds = set(range(0, int(cols), every)) if every else {0}
    bounds.add(int(cols))
    if floor.structured_cabling:
        return _rack_tray_x(floor, np.array(sorted(bounds), dtype=float), int(cols))
    return (np.array(sorted(bounds), dtype=float) - 0.5) * floor.pitch_m


def _rack_tray_x(floor: Floor, bounds: np.ndarray, cols: int) -> np.ndarray:
    """With structured cabling a cross tray runs over the patch-rack position it serves: one
    pitch before the first cabinet, in the gap left at every tray between cabinets, one pitch
    past the last cabinet."""
    x_of = cabinet_xy(floor, 0, np.maximum(bounds - 1.0, 0.0))[0]
    x = x_of + floor.pitch_m
    x[bounds == 0] = -floor.pitch_m
    last = cabinet_xy(floor, 0, max(cols - 1, 0))[0]
    x[bounds == cols] = float(last) + floor.pitch_m
    return x


def _room(floor: Floor, halls: int, rows: int, cols: int) -> Room:
    if floor.hall is None:
        x, y = cabinet_xy(floor, max(rows - 1, 0), max(cols - 1, 0))
        return Room(floor, 1, rows, cols, float(x) + floor.cabinet_width_m,
                    float(y) + floor.cabinet_depth_m, None, (0.0, 0.0))
    width, depth = hall_footprint_m(floor, rows, cols)
    cross_x = cross_tray_x(floor, cols)
    entry = (float(cross_x[0]), -(0.5 * floor.cabinet_depth_m + floor.aisle_m))
    return Room(floor, halls, rows, cols, float(width), float(depth), cross_x, entry)


def _shapes(floor: Floor, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Candidate hall shapes (rows, group slots per row) within the hall's bounds."""
    hall = floor.hall
    rows = ([hall.rows] if hall.rows != "auto" else range(1, hall.max_rows + 1))
    per_row_max = (hall.cabinets_per_row if hall.cabinets_per_row != "auto"
                   else hall.max_cabinets_per_row) // width
    per_row = ([per_row_max] if hall.cabinets_per_row != "auto"
               else range(1, per_row_max + 1))
    r, p = np.meshgrid(np.asarray(list(rows), dtype=np.int64),
                       np.asarray(list(per_row), dtype=np.int64), indexing="ij")
    return r.ravel(), p.ravel()


def _aspect_ok(floor: Floor, rows, cols) -> np.ndarray:
    w, d = hall_footprint_m(floor, rows, cols)
    ratio = w / d
    return (ratio >= MIN_ASPECT - 1e-9) & (ratio <= 1.0 / MIN_ASPECT + 1e-9)


def hall_capacity(floor: Floor, width: int = 1) -> tuple[int, int]:
    """(rows, group slots per row) of the largest hall the floor allows for electrical groups
    ``width`` cabinets wide: the given size, or for "auto" sizes the largest within the bounds
    whose footprint aspect is within 1:2..2:1 (the largest of all when none is)."""
    _check_group_width(floor, width)
    rows, per_row = _shapes(floor, width)
    ok = _aspect_ok(floor, rows, per_row * width)
    if ok.any():
        rows, per_row = rows[ok], per_row[ok]
    w, d = hall_footprint_m(floor, rows, per_row * width)
    best = np.lexsort((np.maximum(w, d), -(rows * per_row)))[0]
    return int(rows[best]), int(per_row[best])


def _block(floor: Floor, slots: int, width: int) -> tuple[int, int]:
    """(rows, slots per row) of the compact block holding ``slots`` group slots in one hall:
    aspect within 1:2..2:1 where possible, then the shortest longer side, then the smallest
    area (so a small system takes a near-square block at the entry corner, not a strip)."""
    hall = floor.hall
    row_limit = hall.rows if hall.rows != "auto" else hall.max_rows
    col_limit = (hall.cabinets_per_row if hall.cabinets_per_row != "auto"
                 else hall.max_cabinets_per_row)
    rows = np.arange(1, row_limit + 1, dtype=np.int64)
    per_row = -(-slots // rows)
    fits = per_row * width <= col_limit
    rows, per_row = rows[fits], per_row[fits]
    rows = -(-slots // per_row)                       # rows the block really uses
    w, d = hall_footprint_m(floor, rows, per_row * width)
    best = np.lexsort((rows, w * d, np.maximum(w, d), ~_aspect_ok(floor, rows, per_row * width)))
    return int(rows[best[0]]), int(per_row[best[0]])


def _check_group_width(floor: Floor, width: int) -> None:
    hall = floor.hall
    if hall.cabinets_per_row != "auto" and width > hall.cabinets_per_row:
        raise InputError(f"floor '{floor.source}': an electrical group spans {width} cabinets "
                         f"but field 'hall.cabinets_per_row' is {hall.cabinets_per_row}; raise "
                         f"it to >= {width}")
    if hall.cabinets_per_row == "auto" and width > hall.max_cabinets_per_row:
        raise InputError(f"floor '{floor.source}': an electrical group spans {width} cabinets "
                         f"but field 'hall.max_cabinets_per_row' is {hall.max_cabinets_per_row}; "
                         f"raise it to >= {width}")


@dataclass(frozen=True, eq=False)
class SlotLayout:
    """Where the k electrical-group slots of a plan sit: a slot is ``width`` adjacent
    cabinets of one row, starting at (hall, row, col)."""

    room: Room
    hall: np.ndarray
    row: np.ndarray
    col: np.ndarray
    width: int


def slot_layout(floor: Floor, k: int, width: int) -> SlotLayout:
    """Slots for k electrical groups of ``width`` cabinets (module doc). The abstract grid:
    the first k slots in row-major order of its near-square (or ``cabinets_per_row``) rows.
    Halls: as many halls as the largest allowed hall needs (InputError beyond
    ``hall.count``), the groups split evenly over them, and in each hall a compact block
    (``_block``) filled row by row from the entry corner; on a floor with marked positions
    (``hall.positions``) the free slots of that block, grown as needed (``_marked_layout``)."""
    s = np.arange(int(k), dtype=np.int64)
    if floor.hall is None:
        if floor.cabinets_per_row is not None:
            if width > floor.cabinets_per_row:
                raise InputError(f"floor '{floor.source}': an electrical group spans {width} "
                                 f"cabinets but field 'cabinets_per_row' is "
                                 f"{floor.cabinets_per_row}; raise it to >= {width}")
            per_row = floor.cabinets_per_row // width
        else:
            _, cols = grid_shape(floor, k * width)
            per_row = max(1, -(-cols // width))
        row, col = s // per_row, (s % per_row) * width
        rows = int(row.max()) + 1 if k else 0
        cols = int(col.max()) + width if k else 0
        return SlotLayout(_room(floor, 1, rows, cols), np.zeros(k, np.int64), row, col, width)
    cap_rows, cap_per_row = hall_capacity(floor, width)
    capacity = cap_rows * cap_per_row
    halls = max(1, -(-int(k) // capacity))
    if positions.has_marks(floor):
        return _marked_layout(floor, int(k), width, halls)
    if halls > floor.hall.count:
        raise InputError(hall_overflow(floor, k * width, width))
    per_hall = -(-int(k) // halls)
    rows, per_row = _block(floor, per_hall, width)
    base, extra = divmod(int(k), halls)
    sizes = np.full(halls, base, dtype=np.int64)
    sizes[:extra] += 1
    hall = np.repeat(np.arange(halls, dtype=np.int64), sizes)
    local = s - np.repeat(np.cumsum(sizes) - sizes, sizes)
    row, col = local // per_row, (local % per_row) * width
    h = floor.hall
    room_rows = h.rows if h.rows != "auto" else rows
    room_cols = h.cabinets_per_row if h.cabinets_per_row != "auto" else per_row * width
    return SlotLayout(_room(floor, halls, room_rows, room_cols), hall, row, col, width)


def _even_sizes(k: int, halls: int) -> np.ndarray:
    """k groups split evenly over ``halls`` halls, the first ones one more."""
    base, extra = divmod(int(k), halls)
    sizes = np.full(halls, base, dtype=np.int64)
    sizes[:extra] += 1
    return sizes


def _marked_layout(floor: Floor, k: int, width: int, halls: int) -> SlotLayout:
    """``slot_layout`` on a hall floor with marked positions (``positions``): the fewest
    halls (from ``halls``, what the hall size alone needs) whose free slots take the even
    split, and in each hall the first free slots of the compact block (``_block``), row by row,
    the block grown by the slots marks take. Where no mark falls in the block this is the
    layout of the same floor without marks."""
    free = positions.free_slots(floor, width)
    sizes = None
    for count in range(halls, floor.hall.count + 1):
        if (_even_sizes(k, count) <= free[:count]).all():
            sizes = _even_sizes(k, count)
            break
    if sizes is None:
        raise InputError(marked_overflow(floor, k * width, width))
    keys = positions.marked_keys(floor)
    row_limit, col_limit = positions.hall_limits(floor)
    most = row_limit * (col_limit // width)
    shared = _block(floor, int(sizes[0]), width)
    picked, extent = [], [shared]
    for h, n in enumerate(sizes.tolist()):
        want, block = n, shared
        while True:
            r, c = np.divmod(np.arange(block[0] * block[1], dtype=np.int64), block[1])
            c = c * width
            ok = ~positions.slot_is_marked(floor, keys, h, r, c, width)
            if ok.sum() >= n or want >= most:
                break
            want = min(most, want + n - int(ok.sum()))
            block = _block(floor, want, width)
        extent.append(block)
        picked.append((np.full(n, h, dtype=np.int64), r[ok][:n], c[ok][:n]))
    hall, row, col = (np.concatenate(v) for v in zip(*picked))
    h = floor.hall
    room_rows = h.rows if h.rows != "auto" else max(b[0] for b in extent)
    room_cols = (h.cabinets_per_row if h.cabinets_per_row != "auto"
                 else max(b[1] for b in extent) * width)
    return SlotLayout(_room(floor, len(sizes), room_rows, room_cols), hall, row, col, width)


def marked_overflow(floor: Floor, cabinets: int, width: int) -> str:
    """The message for a system the free positions of a floor with marks cannot hold."""
    free = positions.free_slots(floor, width) * width
    return (f"floor '{floor.source}': the system needs {cabinets} cabinets in electrical groups "
            f"of {width} but {positions.describe(floor)} leave {int(free.sum())} free cabinet "
            f"positions in groups of {width} over {floor.hall.count} hall(s) (at most "
            f"{int(free.max())} in one); raise hall.count or the hall size, or free positions")


def hall_overflow(floor: Floor, cabinets: int, width: int = 1) -> str:
    """The message for a system that the floor's halls cannot hold."""
    rows, per_row = hall_capacity(floor, width)
    per_hall = rows * per_row * width
    h = floor.hall
    size = ("hall.rows, hall.cabinets_per_row" if h.rows != "auto"
            and h.cabinets_per_row != "auto" else "hall.max_rows, hall.max_cabinets_per_row")
    return (f"floor '{floor.source}': the system needs {cabinets} cabinets but field "
            f"'hall.count' allows {h.count} hall(s) of at most {rows} rows x "
            f"{per_row * width} cabinets ({per_hall} each); raise hall.count to at least "
            f"{-(-cabinets // per_hall)} or the hall size ({size})")


def _check_unmarked(floor: Floor, hall, row, col) -> None:
    """InputError for a cabinet on a marked position (``positions``): a layout given to the
    planner (``plan(placement=...)``, a re-priced plan) must leave them free too."""
    if not positions.has_marks(floor):
        return
    rows, cols = positions.hall_limits(floor)
    inside = (row < rows) & (col < cols)
    keys = positions.marked_keys(floor)
    on = np.flatnonzero(inside & positions.slot_is_marked(floor, keys, hall, row, col, 1))
    if on.size:
        i = int(on[0])
        table = positions.marked_positions(floor)
        mark = table[(table["hall"] == hall[i]) & (table["row"] == row[i])
                     & (table["col"] == col[i])].iloc[0]
        raise InputError(f"floor '{floor.source}': a cabinet stands at "
                         f"{cabinet_name(row[i], col[i])} of hall {int(hall[i]) + 1}, which "
                         f"field 'hall.positions[{mark['entry']}]' marks {mark['kind']}; move "
                         "the cabinet or remove the mark")


def room_of(floor: Floor, hall, row, col) -> Room:
    """The room that placed cabinets occupy: "auto" hall sizes (and the abstract grid) are the
    extent of the cabinets, given sizes are the floor's; InputError for a cabinet outside or on
    a marked position (``hall.positions``)."""
    hall, row, col = (np.asarray(v, dtype=np.int64) for v in (hall, row, col))
    halls = int(hall.max()) + 1 if hall.size else 1
    rows = int(row.max()) + 1 if row.size else 0
    cols = int(col.max()) + 1 if col.size else 0
    h = floor.hall
    if h is None:
        return _room(floor, 1, rows, cols)
    for size, used, field in ((h.rows, rows, "hall.rows"),
                              (h.cabinets_per_row, cols, "hall.cabinets_per_row")):
        if size != "auto" and used > size:
            raise InputError(f"floor '{floor.source}': a cabinet sits at position {used} but "
                             f"field '{field}' is {size}; place it inside the hall")
    if halls > h.count:
        raise InputError(f"floor '{floor.source}': cabinets fill {halls} halls but field "
                         f"'hall.count' is {h.count}; raise hall.count")
    _check_unmarked(floor, hall, row, col)
    return _room(floor, halls, h.rows if h.rows != "auto" else rows,
                 h.cabinets_per_row if h.cabinets_per_row != "auto" else cols)
