"""Floor layouts: schema, built-ins (``layouts/*.yaml``), geometry and capacities.

Two kinds of floor (``docs/floors.md`` describes every field):

* **Abstract grid** (no ``hall`` block; the papers' floors ``sc14``, ``pn-500``, ``galaxyfly``,
  ``cascade``): cabinet ``i`` (row-major) sits in row ``i // cols`` and column ``i % cols`` of
  one unbounded grid. Without ``cabinets_per_row`` the grid is near-square (``grid_shape``):
  rows of ceil(sqrt(n)) cabinets (the Fujiwara/Koibuchi layout-conscious random topology
  floors) or, with ``row_rounding: floor``, of floor(sqrt(n)) as in the Galaxyfly x×y+z grids
  (Lei et al., ICS'16, §6.2), in both cases rounded up to whole electrical groups. Cable length
  between cabinets = Manhattan distance of the centres + ``overhead_per_cable_m`` + 2 ×
  ``overhead_per_end_m``, × (1 + ``slack_pct``/100) (Slim Fly, Besta & Hoefler SC14, and
  Projective Networks, Camarero et al., §5.3: 1 m grid, 1 m inside a rack, +2 m per inter-rack
  cable; Galaxyfly: 1.5 m inside, +2 m per cabinet end).
* **Halls** (a ``hall`` block; the built-in ``hot-aisle``): one or more identical halls of
  ``rows`` × ``cabinets_per_row`` positions, each bounded, or sized to the system ("auto":
  the smallest near-square hall, footprint aspect within 1:2..2:1). A system that does not fit
  one hall fills several (at most ``hall.count``), split evenly; in each hall it takes a compact
  block of rows from the entry corner, not a strip (``slot_layout``). Cables run along
  overhead trays (``planner.inputs.floor.routes``).

Positions: in every hall (or the grid) the centre of the cabinet in row ``r``, column ``c`` is at
``x = c * pitch_m`` along the row and ``y = r * row_pitch_m`` across rows (``row_pitch_m =
cabinet_depth_m + aisle_m``). A hall's footprint is ``cols * pitch_m + 2 * end_aisle_m`` by
``rows * cabinet_depth_m + (rows + 1) * aisle_m`` (an aisle in front of the first row, between
rows and behind the last); its entry point, where cables to other halls leave, is the front end
of the cross tray at the start of the rows (``Room.entry_xy``). Aisles alternate cold (aisle 0,
in front of row A, and every even aisle) and hot; row ``r`` faces its cold aisle
(``front_aisle``), so fronts face fronts and backs face backs. Rows are named A..Z, AA..,
columns 01.. (``A01``, TIA-606 / vendor install-guide style); with several halls a hall prefix
is added (``H2-A01``).

Electrical groups (how capacities are defined; ``group_capacity``):
- ``group_cabinets = k``: a group is k adjacent cabinets of one row. It holds at most
  ``k * router_slots`` routers and ``k * endpoint_slots`` endpoints (no endpoint limit when
  ``endpoint_slots`` is None).
- ``group_endpoints = N`` ("about N endpoints per group", Projective Networks §5.3): with
  ``e`` = mean endpoints per router over all routers (spines count, so indirect networks give
  spines their share), a group holds at most ``max(1, round(N / e))`` routers and at most
  ``max(N, ceil(routers * e), largest endpoints on one router)`` endpoints (so 36 routers × 14 =
  504 fits "about 500", as in Table 4). It spans ``ceil(max_routers / router_slots)`` cabinets
  (also enough ``endpoint_slots`` when those are limited): one abstract cabinet on ``pn-500``.
Placement packs routers into groups under these limits and into cabinets under
``router_slots`` / ``endpoint_slots`` (and ``cabinet_kw_budget``, ``planner.costing.power``).

Structured cabling (``structured_cabling: true``, halls only): a cable that leaves its row runs
through patch panels where the rows meet the cross trays and at the hall entries, as patch cords,
trunks and panels (``planner.inputs.parts.structured``, ``planner.cabling.structured``).

Rack units (``router_ru``, ``endpoint_ru_of``): router slot ``s`` starts at
``first_router_ru + s * rack_units``; endpoint slot ``j`` at ``first_endpoint_ru + j * endpoint_ru``.
With ``abstract: true`` (the papers' racks) slots are only counted; RU numbers are then slot
positions and are not checked against the cabinet height.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import (BaseModel, ConfigDict, Field, NonNegativeFloat, NonNegativeInt,
                      PositiveFloat, PositiveInt, PrivateAttr, field_validator, model_validator)

from planner.inputs import schema
from planner.run.errors import InputError

FOLDER = "layouts"
COPPER_NS_PER_M = 4.5
FIBRE_NS_PER_M = 4.9


MIN_ASPECT = 0.5
"""An "auto" hall's footprint stays within MIN_ASPECT..1/MIN_ASPECT (width / depth)."""
MAX_HALL_SIDE = 1000
"""Most rows, cabinets per row and halls a floor may give (hall sizing tries every shape)."""


class Hall(BaseModel):
    """The size of the halls of a floor, their trays and how they connect (module doc)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    rows: int | Literal["auto"] = "auto"
    cabinets_per_row: int | Literal["auto"] = "auto"
    max_rows: PositiveInt = Field(20, le=MAX_HALL_SIDE)
    max_cabinets_per_row: PositiveInt = Field(30, le=MAX_HALL_SIDE)
    end_aisle_m: NonNegativeFloat = 1.2
    cross_tray_every: NonNegativeInt = 0
    count: PositiveInt = Field(1, le=MAX_HALL_SIDE)
    link_m: float | None = None
    links: Literal["meet-me", "corridor"] = "meet-me"

    @field_validator("rows", "cabinets_per_row", mode="before")
    @classmethod
    def _whole_or_auto(cls, value, info):
        if value == "auto":
            return value
        if (isinstance(value, bool) or not isinstance(value, int) or value < 1
                or value > MAX_HALL_SIDE):
            what = "rows" if info.field_name == "rows" else "cabinets"
            raise ValueError(f"must be a whole number of {what} from 1 to {MAX_HALL_SIDE} or "
                             f"'auto' (sized to the system), got {value!r}")
        return value

    @field_validator("link_m", mode="before")
    @classmethod
    def _link_length(cls, value):
        if value is None:
            return value
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or value < 0):
            raise ValueError("must be a finite number of metres >= 0 (the cable path between "
                             f"the entry points of two halls), got {value!r}")
        return float(value)

    @model_validator(mode="after")
    def _linked(self) -> "Hall":
        if self.count > 1 and self.link_m is None:
            raise ValueError("field 'link_m' is missing; with count > 1 give the cable path "
                             "between the entry points of two halls in metres")
        return self

    def link_between(self, hall_a, hall_b) -> np.ndarray:
        """Cable path between the entry points of halls ``a`` and ``b`` (0 within a hall):
        ``link_m`` for every pair through a meet-me room, ``|a - b| × link_m`` along a
        corridor of halls."""
        a, b = np.asarray(hall_a), np.asarray(hall_b)
        step = self.link_m or 0.0
        if self.links == "corridor":
            return np.abs(a - b) * step
        return np.where(a == b, 0.0, step)


class Floor(BaseModel):
    """A machine room: halls (or the papers' abstract grid) of cabinets, their capacity and
    power budget, electrical groups, cable rules."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    name: str = Field(min_length=1)
    description: str = ""
    cabinet_width_m: PositiveFloat
    cabinet_depth_m: PositiveFloat
    cabinet_height_ru: PositiveInt
    pitch_m: PositiveFloat
    aisle_m: NonNegativeFloat
    cabinets_per_row: PositiveInt | None = None
    row_rounding: Literal["ceil", "floor"] = "ceil"
    max_cabinets: PositiveInt | None = None
    router_slots: PositiveInt
    endpoint_slots: PositiveInt | None = None
    group_cabinets: PositiveInt | None = None
    group_endpoints: PositiveInt | None = None
    intra_cabinet_m: PositiveFloat
    overhead_per_cable_m: NonNegativeFloat = 0.0
    overhead_per_end_m: NonNegativeFloat = 0.0
    slack_pct: NonNegativeFloat = 0.0
    first_router_ru: PositiveInt = 1
    first_endpoint_ru: PositiveInt = 1
    endpoint_ru: NonNegativeFloat = 0.0
    abstract: bool = False
    media_rule: Literal["membership", "reach"]
    hall: Hall | None = None
    cabinet_kw_budget: PositiveFloat | None = None
    structured_cabling: bool = False
    _source: str | None = PrivateAttr(None)

    @property
    def source(self) -> str:
        """The file it was loaded from (built-ins: their name), for error messages."""
        return self._source or self.name

    @model_validator(mode="after")
    def _consistent(self) -> "Floor":
        if (self.group_cabinets is None) == (self.group_endpoints is None):
            raise ValueError("fields 'group_cabinets' and 'group_endpoints': set exactly one "
                             "(k adjacent cabinets per electrical group, or about N endpoints)")
        if self.cabinet_width_m > self.pitch_m + 1e-9:
            raise ValueError(f"field 'pitch_m' {self.pitch_m} m is smaller than "
                             f"cabinet_width_m {self.cabinet_width_m} m; cabinets would overlap")
        if (self.cabinets_per_row and self.group_cabinets
                and self.cabinets_per_row % self.group_cabinets):
            raise ValueError(f"field 'cabinets_per_row' must be a multiple of group_cabinets "
                             f"({self.group_cabinets}), got {self.cabinets_per_row}")
        if self.hall is not None:
            self._consistent_hall(self.hall)
        elif self.structured_cabling:
            raise ValueError("field 'structured_cabling' needs a 'hall' block: patch panels sit "
                             "where rows meet the cross trays and at hall entries; add a hall "
                             "or set structured_cabling: false")
        if not self.abstract:
            top = self.first_router_ru + self.router_slots - 1
            if top > self.cabinet_height_ru:
                raise ValueError(f"field 'router_slots' {self.router_slots} from RU "
                                 f"{self.first_router_ru} ends at RU {top}, above the "
                                 f"{self.cabinet_height_ru}U cabinet; lower one of them")
            if self.endpoint_slots and self.endpoint_ru > 0:
                end = self.first_endpoint_ru - 1 + self.endpoint_slots * self.endpoint_ru
                routers = range(self.first_router_ru, top + 1)
                if end > self.cabinet_height_ru or (
                        self.first_endpoint_ru <= top and end >= self.first_router_ru):
                    raise ValueError(f"field 'endpoint_slots' {self.endpoint_slots} × "
                                     f"{self.endpoint_ru}U from RU {self.first_endpoint_ru} "
                                     f"ends at RU {end:g}, which overlaps the router slots "
                                     f"(RU {routers.start}-{routers.stop - 1}) or the "
                                     f"{self.cabinet_height_ru}U cabinet top; lower "
                                     "endpoint_slots or move first_router_ru")
        return self

    def _consistent_hall(self, hall: Hall) -> None:
        if self.cabinets_per_row is not None:
            raise ValueError("field 'cabinets_per_row' belongs to the abstract grid; with a "
                             "'hall' block give hall.cabinets_per_row instead")
        k = self.group_cabinets or 1
        per_row = hall.cabinets_per_row
        if per_row != "auto" and per_row % k:
            raise ValueError(f"field 'hall.cabinets_per_row' must be a multiple of "
                             f"group_cabinets ({k}), got {per_row}")
        if per_row == "auto" and hall.max_cabinets_per_row < k:
            raise ValueError(f"field 'hall.max_cabinets_per_row' {hall.max_cabinets_per_row} "
                             f"is below group_cabinets ({k}); an electrical group sits in one "
                             f"row, so raise it to at least {k}")

    @property
    def row_pitch_m(self) -> float:
        """Centre-to-centre distance between rows: cabinet depth + aisle."""
        return self.cabinet_depth_m + self.aisle_m

    def with_group_endpoints(self, n: int) -> "Floor":
        """The ``--group-endpoints N`` override: electrical groups of about N endpoints."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
            raise InputError(f"--group-endpoints must be a positive integer, got {n!r}")
        return self.model_copy(update={"group_endpoints": int(n), "group_cabinets": None})


def list_floors() -> list[str]:
    """Names of the built-in floors."""
    return schema.builtin_names(FOLDER)


def load_floor(name_or_path: str | Path) -> Floor:
    """A built-in floor by name, or a floor YAML file; InputError with file + field."""
    return schema.load(Floor, name_or_path, FOLDER, "floor")


# ----------------------------------------------------------------------------- capacities

def group_capacity(floor: Floor, endpoints_per_router) -> tuple[int, int, int]:
    """(cabinets_per_group, max_endpoints_per_group, max_routers_per_group); see module doc."""
    ep = np.asarray(endpoints_per_router, dtype=np.int64)
    largest = int(ep.max()) if ep.size else 0
    if floor.group_cabinets is not None:
        k = floor.group_cabinets
        routers = k * floor.router_slots
        if floor.endpoint_slots is not None:
            endpoints = k * floor.endpoint_slots
        else:
            endpoints = int(np.sort(ep)[::-1][:routers].sum())
        return k, endpoints, routers
    target = floor.group_endpoints
    mean = float(ep.mean()) if ep.size else 0.0
    routers = max(1, math.floor(target / mean + 0.5)) if mean > 0 else max(1, ep.size)
    endpoints = max(target, math.ceil(routers * mean - 1e-9), largest)
    cabinets = math.ceil(routers / floor.router_slots)
    if floor.endpoint_slots is not None:
        cabinets = max(cabinets, math.ceil(endpoints / floor.endpoint_slots))
    return cabinets, endpoints, routers


def cabinets_needed(floor: Floor, endpoints_per_router) -> int:
    """Fewest cabinets that can hold the routers and their endpoints by slot counts alone."""
    ep = np.asarray(endpoints_per_router, dtype=np.int64)
    need = math.ceil(ep.size / floor.router_slots)
    if floor.endpoint_slots is not None:
        need = max(need, math.ceil(int(ep.sum()) / floor.endpoint_slots))
    return need


def check_capacity(floor: Floor, topology, router_model=None) -> None:
    """InputError (with the numbers) when the floor cannot hold the topology's routers."""
    ep = np.asarray(topology.endpoints, dtype=np.int64)
    largest = int(ep.max()) if ep.size else 0
    if floor.endpoint_slots is not None and largest > floor.endpoint_slots:
        raise InputError(f"floor '{floor.source}': a router has {largest} endpoints but a "
                         f"cabinet holds {floor.endpoint_slots} (field 'endpoint_slots'); "
                         f"raise endpoint_slots to at least {largest}")
    if router_model is not None and not floor.abstract:
        top = floor.first_router_ru - 1 + floor.router_slots * router_model.rack_units
        if top > floor.cabinet_height_ru:
            fit = int((floor.cabinet_height_ru - floor.first_router_ru + 1)
                      // router_model.rack_units)
            fix = (f"set router_slots to at most {fit}" if fit else
                   f"a {router_model.rack_units:g}U router does not fit above RU "
                   f"{floor.first_router_ru}; use a floor with lower first_router_ru or a "
                   "smaller router model")
            raise InputError(f"floor '{floor.source}': {floor.router_slots} router slots × "
                             f"{router_model.rack_units:g}U ({router_model.sku}) from RU "
                             f"{floor.first_router_ru} exceed the {floor.cabinet_height_ru}U "
                             f"cabinet; {fix}")
    need = cabinets_needed(floor, ep)
    if floor.max_cabinets is not None and need > floor.max_cabinets:
        raise InputError(f"floor '{floor.source}': {ep.size} routers with {int(ep.sum())} "
                         f"endpoints need at least {need} cabinets but field 'max_cabinets' "
                         f"is {floor.max_cabinets}; raise max_cabinets or the slots per cabinet")
    if floor.hall is not None:
        width = group_capacity(floor, ep)[0]
        rows, per_row = hall_capacity(floor, width)
        if need > floor.hall.count * rows * per_row * width:
            raise InputError(hall_overflow(floor, need, width))


# ----------------------------------------------------------------------------- geometry

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


def cabinet_xy(floor: Floor, rows, cols) -> tuple[np.ndarray, np.ndarray]:
    """Cabinet centres in metres in their hall (or the grid): x along the row, y across rows."""
    return (np.asarray(cols, dtype=float) * floor.pitch_m,
            np.asarray(rows, dtype=float) * floor.row_pitch_m)


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
    overheads; × slack (module doc). Halls route along trays instead: ``planner.inputs.floor.routes``."""
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


# ----------------------------------------------------------------------------- halls

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


def hall_footprint_m(floor: Floor, rows, cols) -> tuple:
    """(width, depth) in metres of a hall of ``rows`` × ``cols`` positions (module doc)."""
    end_aisle = floor.hall.end_aisle_m if floor.hall is not None else 0.0
    rows, cols = np.asarray(rows, dtype=float), np.asarray(cols, dtype=float)
    return (cols * floor.pitch_m + 2.0 * end_aisle,
            rows * floor.cabinet_depth_m + (rows + 1.0) * floor.aisle_m)


def cross_tray_x(floor: Floor, cols: int) -> np.ndarray:
    """x of the cross trays of a hall with ``cols`` cabinets per row: at both row ends and every
    ``cross_tray_every`` cabinets (between cabinets), i.e. at ``(b - 1/2) × pitch_m`` for
    b = 0, N, 2N, ... and b = cols."""
    every = floor.hall.cross_tray_every if floor.hall is not None else 0
    bounds = set(range(0, int(cols), every)) if every else {0}
    bounds.add(int(cols))
    return (np.array(sorted(bounds), dtype=float) - 0.5) * floor.pitch_m


def _room(floor: Floor, halls: int, rows: int, cols: int) -> Room:
    if floor.hall is None:
        x, y = cabinet_xy(floor, max(rows - 1, 0), max(cols - 1, 0))
        return Room(floor, 1, rows, cols, float(x) + floor.cabinet_width_m,
                    float(y) + floor.cabinet_depth_m, None, (0.0, 0.0))
    width, depth = hall_footprint_m(floor, rows, cols)
    entry = (-0.5 * floor.pitch_m, -(0.5 * floor.cabinet_depth_m + floor.aisle_m))
    return Room(floor, halls, rows, cols, float(width), float(depth),
                cross_tray_x(floor, cols), entry)


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
    (``_block``) filled row by row from the entry corner."""
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


def room_of(floor: Floor, hall, row, col) -> Room:
    """The room that placed cabinets occupy: "auto" hall sizes (and the abstract grid) are the
    extent of the cabinets, given sizes are the floor's; InputError for a cabinet outside."""
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
    return _room(floor, halls, h.rows if h.rows != "auto" else rows,
                 h.cabinets_per_row if h.cabinets_per_row != "auto" else cols)
