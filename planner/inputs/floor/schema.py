"""The floor file: ``Hall`` and ``Floor`` (``docs/floors.md`` describes every field), the
built-ins (``layouts/*.yaml``) and ``load_floor``.

A floor is either the papers' abstract grid (no ``hall`` block; ``sc14``, ``pn-500``,
``galaxyfly``, ``cascade``; ``planner.inputs.floor.geometry``) or one or more halls (a ``hall``
block; the built-in ``hot-aisle``; ``planner.inputs.floor.halls``). The checks here are those of
one file: one kind of electrical group (``planner.inputs.floor.capacity``), cabinets that do not
overlap, rows of whole groups, router and endpoint slots within the cabinet height.

Structured cabling (``structured_cabling: true``, halls only): a cable that leaves its row runs
through patch panels where the rows meet the cross trays and at the hall entries, as patch cords,
trunks and panels (``planner.inputs.parts.structured``, ``planner.cabling.structured``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import (BaseModel, ConfigDict, Field, NonNegativeFloat, NonNegativeInt,
                      PositiveFloat, PositiveInt, PrivateAttr, field_validator, model_validator)

from planner.inputs import schema
from planner.inputs.tuning import MAX_HALL_SIDE
from planner.run.errors import InputError

FOLDER = "layouts"
COPPER_NS_PER_M = 4.5
FIBRE_NS_PER_M = 4.9


POSITION_KINDS = ("blocked", "occupied", "reserved")
"""What a marked position of an existing room is (``Hall.positions``): blocked (a building
column, a cooling unit, a door clearance), occupied (another tenant's or an older system's
cabinets), reserved (kept free for later); the planner places nothing in any of them."""


class MarkedPosition(BaseModel):
    """A position of an existing room the planner never places in (``docs/floors.md``
    "Existing rooms"): a cabinet position by ``row`` (letters) and ``column`` (from 1), as
    ``cabinets.csv`` numbers them, or a rectangle (centre ``x_m``, ``y_m`` in the frame of
    ``cabinets.csv``'s x_m / y_m, ``width_m`` along the rows, ``depth_m`` across them) taking
    every cabinet position it overlaps (``planner.inputs.floor.positions``); in hall ``hall``,
    the halls ``halls`` (numbered from 1) or, with neither, every hall. ``devices``: the
    switches of a system the planner did not design standing in an occupied position, for
    ``planner expand --as-built`` (docs/growth.md "Growing what is installed")."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    kind: Literal["blocked", "occupied", "reserved"]
    note: str = ""
    hall: PositiveInt | None = None
    halls: tuple[PositiveInt, ...] | None = Field(None, min_length=1)
    row: str | None = None
    column: PositiveInt | None = None
    x_m: float | None = None
    y_m: float | None = None
    width_m: PositiveFloat | None = None
    depth_m: PositiveFloat | None = None
    devices: tuple[str, ...] = ()

    @field_validator("devices")
    @classmethod
    def _device_names(cls, value):
        for name in value:
            if not name.strip() or len(name) > 64:
                raise ValueError(f"must be device names of 1 to 64 characters as the as-built "
                                 f"file names them, got {name!r}")
        if len(set(value)) != len(value):
            twice = next(n for n in value if value.count(n) > 1)
            raise ValueError(f"names device {twice!r} twice; list each switch once")
        return tuple(n.strip() for n in value)

    @field_validator("row")
    @classmethod
    def _row_letters(cls, value):
        if value is not None and (not value.isascii() or not value.isalpha()
                                  or not value.isupper()):
            raise ValueError(f"must be the row's letters as cabinets.csv prints them (A, B, .., "
                             f"Z, AA, ..), got {value!r}")
        return value

    @model_validator(mode="after")
    def _one_way(self) -> "MarkedPosition":
        cell = (self.row, self.column)
        box = (self.x_m, self.y_m, self.width_m, self.depth_m)
        if any(v is not None for v in cell) and any(v is not None for v in box):
            raise ValueError("gives both row/column and x_m/y_m/width_m/depth_m; give a "
                             "position by row and column or by a rectangle, not both")
        if any(v is not None for v in cell) and None in cell:
            missing = "row" if self.row is None else "column"
            raise ValueError(f"field '{missing}' is missing; a position by row and column "
                             "needs both (row: E, column: 6)")
        if any(v is not None for v in box) and None in box:
            names = ("x_m", "y_m", "width_m", "depth_m")
            missing = next(n for n, v in zip(names, box) if v is None)
            raise ValueError(f"field '{missing}' is missing; a rectangle needs x_m, y_m (its "
                             "centre), width_m and depth_m")
        if all(v is None for v in cell + box):
            raise ValueError("gives no place; add row and column (row: E, column: 6) or a "
                             "rectangle (x_m, y_m, width_m, depth_m)")
        if self.hall is not None and self.halls is not None:
            raise ValueError("gives both 'hall' and 'halls'; give one (halls: [1, 3] for "
                             "several)")
        if self.devices and (self.kind != "occupied" or self.row is None
                             or self.halls is not None):
            raise ValueError("field 'devices' names the switches standing in one occupied "
                             "cabinet position: give it with kind: occupied, row and column, "
                             "and at most one 'hall'")
        return self

    @property
    def row_index(self) -> int | None:
        """The 0-based row of a position given by row letters (``A`` 0, ``AA`` 26)."""
        if self.row is None:
            return None
        n = 0
        for letter in self.row:
            n = n * 26 + ord(letter) - ord("A") + 1
        return n - 1

    def hall_numbers(self, count: int) -> tuple[int, ...]:
        """The halls (numbered from 1) it applies to on a floor of ``count`` halls."""
        if self.hall is not None:
            return (self.hall,)
        return self.halls if self.halls is not None else tuple(range(1, count + 1))


class Hall(BaseModel):
    """The size of the halls of a floor, their trays and how they connect
    (``planner.inputs.floor.halls`` module doc)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    rows: int | Literal["auto"] = "auto"
    cabinets_per_row: int | Literal["auto"] = "auto"
    max_rows: PositiveInt = Field(20, le=MAX_HALL_SIDE)
    max_cabinets_per_row: PositiveInt = Field(30, le=MAX_HALL_SIDE)
    end_aisle_m: NonNegativeFloat = 1.2
    cross_tray_every: NonNegativeInt = 0
    count: PositiveInt = Field(1, le=MAX_HALL_SIDE)
    link_m: float | None = None
    links: Literal["meet-me", "corridor", "grid"] = "meet-me"
    grid_columns: PositiveInt | None = Field(None, le=MAX_HALL_SIDE)
    grid_rows: PositiveInt | None = Field(None, le=MAX_HALL_SIDE)
    row_link_m: float | None = None
    storey_link_m: float | None = None
    positions: tuple[MarkedPosition, ...] = ()

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

    @field_validator("link_m", "row_link_m", "storey_link_m", mode="before")
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
        grid = ("grid_columns", "grid_rows", "row_link_m", "storey_link_m")
        if self.links == "grid":
            missing = [f for f in grid if getattr(self, f) is None]
            if missing:
                raise ValueError(f"field '{missing[0]}' is missing; links: grid needs "
                                 "grid_columns, grid_rows, row_link_m and storey_link_m "
                                 "(docs/floors.md \"A campus of halls\")")
        else:
            given = [f for f in grid if getattr(self, f) is not None]
            if given:
                raise ValueError(f"field '{given[0]}' belongs to links: grid; set links: grid "
                                 f"or remove it (links is '{self.links}')")
        seen: dict[str, int] = {}
        for i, position in enumerate(self.positions):
            self._inside(i, position)
            if position.devices and position.hall is None and self.count > 1:
                raise ValueError(f"field 'positions[{i}]' names devices but no 'hall' on a "
                                 f"floor of {self.count} halls; give the hall they stand in")
            for name in position.devices:
                if name in seen:
                    raise ValueError(f"field 'positions[{i}]' names device {name!r}, which "
                                     f"'positions[{seen[name]}]' names too; a switch stands in "
                                     "one position")
                seen[name] = i
        return self

    def _inside(self, i: int, position: MarkedPosition) -> None:
        """A marked position names halls, a row and a column the hall has."""
        for h in position.hall_numbers(self.count):
            if h > self.count:
                raise ValueError(f"field 'positions[{i}]' is in hall {h} but field 'count' is "
                                 f"{self.count}; give a hall from 1 to {self.count} or raise "
                                 "count")
        if position.row is None:
            return
        rows = self.rows if self.rows != "auto" else self.max_rows
        cols = (self.cabinets_per_row if self.cabinets_per_row != "auto"
                else self.max_cabinets_per_row)
        if position.row_index >= rows or position.column > cols:
            limit = "rows" if self.rows != "auto" else "max_rows"
            per = "cabinets_per_row" if self.cabinets_per_row != "auto" else "max_cabinets_per_row"
            raise ValueError(f"field 'positions[{i}]' is {position.row}{position.column:02d}, "
                             f"outside the hall of {rows} rows ({limit}) x {cols} cabinets "
                             f"({per}); give a position inside it or enlarge the hall")

    def grid_position(self, hall) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(storey, row, column) of hall ``hall`` on a ``links: grid`` floor: halls are
        numbered along a row first, then row by row, then storey by storey."""
        h = np.asarray(hall, dtype=np.int64)
        per_storey = self.grid_columns * self.grid_rows
        return h // per_storey, (h % per_storey) // self.grid_columns, h % self.grid_columns

    def link_between(self, hall_a, hall_b) -> np.ndarray:
        """Cable path between the entry points of halls ``a`` and ``b`` (0 within a hall):
        ``link_m`` for every pair through a meet-me room, ``|a - b| × link_m`` along a
        corridor of halls, and on a grid of halls (``grid_position``) the Manhattan path
        ``|Δcolumn| × link_m + |Δrow| × row_link_m + |Δstorey| × storey_link_m`` along the
        corridors and risers."""
        a, b = np.asarray(hall_a), np.asarray(hall_b)
        step = self.link_m or 0.0
        if self.links == "corridor":
            return np.abs(a - b) * step
        if self.links == "grid":
            (sa, ra, ca), (sb, rb, cb) = self.grid_position(a), self.grid_position(b)
            return (np.abs(ca - cb) * step + np.abs(ra - rb) * self.row_link_m
                    + np.abs(sa - sb) * self.storey_link_m)
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
    connection_loss_db: NonNegativeFloat = 0.5         # per mated connection (docs/floors.md)
    multimode_loss_db_per_km: NonNegativeFloat = 3.5   # installed OM fibre at 850 nm
    single_mode_loss_db_per_km: NonNegativeFloat = 1.0  # installed OS fibre at 1310 nm
    patch_drop_m: NonNegativeFloat | None = None
    structured_spare_pct: NonNegativeFloat = Field(0.0, le=100)
    power_feed_rows: PositiveInt | None = None   # rows per power feed (docs/floors.md)
    touch_price: NonNegativeFloat = 30.0   # labour per moved or removed cable (docs/growth.md)
    leaf_cabinets: Literal["end-of-row", "middle-of-row", "with-servers"] = "end-of-row"
    network_rows: Literal["end", "middle"] | None = None   # GPU pods' spines (docs/floors.md)
    _source: str | None = PrivateAttr(None)

    @field_validator("connection_loss_db", "multimode_loss_db_per_km",
                     "single_mode_loss_db_per_km", mode="before")
    @classmethod
    def _loss(cls, value):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            raise ValueError(f"is {value!r}, but a loss cannot be negative (a connection or fibre "
                             "does not add light); give 0 or more dB (docs/floors.md "
                             "\"Optical loss\")")
        return value

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
