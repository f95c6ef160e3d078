"""Floor layouts: schema, built-ins (``layouts/*.yaml``), geometry and capacities.

A floor is a grid of cabinets. Cabinet ``i`` (row-major) sits in row ``i // cols`` and column
``i % cols``; its centre is at ``x = col * pitch_m`` along the row and ``y = row * row_pitch_m``
across rows (``row_pitch_m = cabinet_depth_m + aisle_m``). Rows are named A..Z, AA.., columns
01.. (TIA-606 / vendor install-guide style ``A01``; shared/reference/ecosystem.md §7).

Without ``cabinets_per_row`` the cabinets fill a near-square grid (``grid_shape``): rows of
ceil(sqrt(n)) cabinets (FUJ) or, with ``row_rounding: floor``, of floor(sqrt(n)) as in the
Galaxyfly x×y+z grids (S001 §6.2), in both cases rounded up to whole electrical groups.

Cable length (cost_models.md A1, A3, C6): inside one cabinet ``intra_cabinet_m``; between two
cabinets the Manhattan distance of their centres + ``overhead_per_cable_m`` +
2 × ``overhead_per_end_m``; then × (1 + ``slack_pct``/100). SF14 / Projective Networks: 1 m grid,
1 m intra-rack, +2 m per inter-rack cable. Galaxyfly: 1.5 m intra, +2 m per cabinet end.

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
``router_slots`` / ``endpoint_slots``.

Rack units (``router_ru``, ``endpoint_ru_of``): router slot ``s`` starts at
``first_router_ru + s * rack_units``; endpoint slot ``j`` at ``first_endpoint_ru + j * endpoint_ru``.
With ``abstract: true`` (the papers' racks) slots are only counted; RU numbers are then slot
positions and are not checked against the cabinet height.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import (BaseModel, ConfigDict, Field, NonNegativeFloat, PositiveFloat, PositiveInt,
                      PrivateAttr, model_validator)

from planner import schema
from planner.errors import InputError

FOLDER = "layouts"
COPPER_NS_PER_M = 4.5
FIBRE_NS_PER_M = 4.9


class Floor(BaseModel):
    """A machine room: cabinets on a grid, their capacity, electrical groups, cable rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")
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


# ----------------------------------------------------------------------------- geometry

def grid_shape(floor: Floor, n_cabinets: int) -> tuple[int, int]:
    """(rows, cols). ``cabinets_per_row`` fixes cols; otherwise a near-square x×y+z grid (x full
    rows of y cabinets + a row of z): y = ceil(sqrt(n)) (FUJ's ⌈√R⌉ × ⌈R/⌈√R⌉⌉ room,
    cost_models A8) or, with ``row_rounding: floor``, y = floor(sqrt(n)) (Galaxyfly §6.2:
    172 -> 13×13+3, 162 -> 13×12+6, 43 -> 7×6+1, 27 -> 5×5+2); y is then rounded up to whole
    electrical groups."""
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
    """(rows, cols) int64 arrays of cabinets 0..n-1 in row-major order."""
    _, cols = grid_shape(floor, n_cabinets)
    idx = np.arange(int(n_cabinets), dtype=np.int64)
    return (idx // cols, idx % cols) if cols else (idx, idx)


def _row_letters(row: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA (bijective base 26, as spreadsheet columns)."""
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
        return f"{_row_letters(row)}{int(col) + 1:02d}"
    rows, cols = np.broadcast_arrays(np.asarray(row), np.asarray(col))
    return np.array([cabinet_name(r, c) for r, c in zip(rows.ravel(), cols.ravel())],
                    dtype=object).reshape(rows.shape)


def cabinet_xy(floor: Floor, rows, cols) -> tuple[np.ndarray, np.ndarray]:
    """Cabinet centres in metres: x along the row, y across rows."""
    return (np.asarray(cols, dtype=float) * floor.pitch_m,
            np.asarray(rows, dtype=float) * floor.row_pitch_m)


def cable_length_m(floor: Floor, row_a, col_a, row_b, col_b, same_cabinet) -> np.ndarray:
    """Cable lengths: intra_cabinet_m inside a cabinet, else Manhattan + overheads; × slack."""
    xa, ya = cabinet_xy(floor, row_a, col_a)
    xb, yb = cabinet_xy(floor, row_b, col_b)
    between = (np.abs(xa - xb) + np.abs(ya - yb) + floor.overhead_per_cable_m
               + 2.0 * floor.overhead_per_end_m)
    raw = np.where(np.asarray(same_cabinet, dtype=bool), floor.intra_cabinet_m, between)
    return raw * (1.0 + floor.slack_pct / 100.0)


def mean_manhattan_m(floor: Floor, n_cabinets: int) -> float:
    """Mean Manhattan distance over all pairs of the first n cabinets (cost_models A1:
    20 cabinets on a 1 m grid -> 3.0 m, so +2 m gives Projective Networks' 5.1 m-ish)."""
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
