"""``cabinets.csv``: one row per cabinet and per patch rack, where it stands and what it holds
and draws.

Columns, in order: name (as on the labels: ``A01``, or ``H2-A01`` when the plan fills several
halls; a patch rack's name, ``A-P1``, ``H2-ENTRY``), hall (numbered from 1), row (letters, as in
the name; ``entry`` for the entry racks' row along the hall's front wall), column (from 1;
empty for a patch rack, which stands at a reserved position of its own), x_m / y_m (the centre
in its hall, metres: x along the row, y across rows, ``planner.inputs.floor``; racks:
``planner.inputs.floor.rack_positions``), group (electrical group; empty for a rack), routers,
endpoints, kw (routers with their plugged cable ends, servers and NICs,
``planner.costing.power``, plus the fabric's boxes below; empty for a rack), ru_used (rack units
taken by devices, or by a rack's panels), kind (``cabinet``, ``patch rack`` or ``entry rack``),
fabric_devices (the subnet-manager boxes, management switches and PDUs standing in the cabinet,
``planner.costing.fabric_devices``: ``name@U<ru>`` top first, ``name@U<ru>-<top>`` for a box of
several units, ``name@0U`` for a zero-U PDU,
separated by ``;``; empty for a rack). Hall, row and column are
``planner.inputs.floor.position_numbers``, the numbering the PDF, the viewer and ``bom.xlsx``
print. Cabinets first, in the plan's cabinet order (hall, row, column for a planned layout), then
the patch racks in the order of the structured plant. On a floor of an existing room
(``hall.positions``, ``planner.inputs.floor.positions``) the positions it marks in the halls the
plan occupies follow, by hall, row and column: their position's name, hall, row, column, centre,
kind ``blocked``, ``occupied`` or ``reserved``, nothing else, and a last column ``note`` (the
floor's note; this column only on such floors). UTF-8, LF line ends.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from planner.costing.fabric_devices import unit_span
from planner.exports._csv import write_csv
from planner.inputs.floor import position_numbers, positions, room_of
from planner.inputs.floor.rack_positions import ENTRY_ROW

FILENAME = "cabinets.csv"
COLUMNS = ["name", "hall", "row", "column", "x_m", "y_m", "group", "routers", "endpoints", "kw",
           "ru_used", "kind", "fabric_devices"]
KINDS = {"row": "patch rack", "entry": "entry rack"}
"""The ``kind`` of a patch rack by its kind in the structured plant."""


def cabinet_rows(plan) -> pd.DataFrame:
    """The cabinets' rows of cabinets.csv, from ``plan.cabinets``: the numbering every output
    prints (the viewer's and ``bom.xlsx``'s Cabinets sheet take these rows)."""
    cab = plan.cabinets
    hall, row, column = position_numbers(cab["hall"], cab["row"], cab["col"])
    return pd.DataFrame({
        "name": cab["name"].astype(str).to_numpy(), "hall": hall, "row": row,
        "column": column, "x_m": cab["x_m"].to_numpy(), "y_m": cab["y_m"].to_numpy(),
        "group": cab["group"].to_numpy(), "routers": cab["routers"].to_numpy(),
        "endpoints": cab["endpoints"].to_numpy(), "kw": cab["kw"].to_numpy(),
        "ru_used": cab["ru_used"].to_numpy(), "kind": "cabinet",
        "fabric_devices": fabric_devices(plan)})[COLUMNS]


def fabric_devices(plan) -> list[str]:
    """The ``fabric_devices`` cell of every cabinet (module doc)."""
    names = plan.cabinets["name"].astype(str).tolist()
    boxes = getattr(plan, "fabric", None)
    if boxes is None:
        return [""] * len(names)
    ordered = boxes.ordered            # one pass over the boxes, not a table per cabinet
    placed: dict[str, list[str]] = {}
    for cabinet, n, ru, h in zip(ordered["cabinet"].tolist(), ordered["name"].tolist(),
                                 ordered["ru"].astype(float).tolist(),
                                 ordered["height_ru"].astype(float).tolist()):
        placed.setdefault(cabinet, []).append(f"{n}@0U" if np.isnan(ru) else
                                              f"{n}@{unit_span(ru, h)}")
    return [";".join(placed.get(name, ())) for name in names]


def rack_rows(plan) -> pd.DataFrame:
    """The patch racks' rows of cabinets.csv (none without structured cabling)."""
    plant = getattr(plan, "structured", None)
    if plant is None or plant.racks.empty:
        return pd.DataFrame(columns=COLUMNS)
    racks = plant.racks
    entry = (racks["kind"] == "entry").to_numpy()
    hall, letters, _ = position_numbers(racks["hall"], np.maximum(racks["row"], 0), 0)
    return pd.DataFrame({
        "name": racks["name"].astype(str).to_numpy(), "hall": hall,
        "row": np.where(entry, ENTRY_ROW, np.asarray(letters, dtype=object)),
        "column": "", "x_m": np.round(racks["x_m"].to_numpy(float), 3),
        "y_m": np.round(racks["y_m"].to_numpy(float), 3), "group": "", "routers": 0,
        "endpoints": 0, "kw": "", "ru_used": racks["ru_used"].to_numpy(),
        "kind": racks["kind"].map(KINDS).to_numpy(), "fabric_devices": ""})[COLUMNS]


def marked_rows(plan) -> pd.DataFrame:
    """The marked positions' rows of cabinets.csv, with their ``note`` (none on most floors)."""
    if not positions.has_marks(plan.floor):
        return pd.DataFrame(columns=COLUMNS)
    cab = plan.cabinets
    marks = positions.marks_in_room(room_of(plan.floor, cab["hall"], cab["row"], cab["col"]))
    hall, row, column = position_numbers(marks["hall"], marks["row"], marks["col"])
    return pd.DataFrame({
        "name": marks["name"].to_numpy(), "hall": hall, "row": row, "column": column,
        "x_m": np.round(marks["x_m"].to_numpy(float), 3),
        "y_m": np.round(marks["y_m"].to_numpy(float), 3), "group": "", "routers": 0,
        "endpoints": 0, "kw": "", "ru_used": 0, "kind": marks["kind"].to_numpy(),
        "fabric_devices": "", "note": marks["note"].to_numpy()})


def table(plan) -> pd.DataFrame:
    """The rows of cabinets.csv: the cabinets, then the patch racks, then the marked positions
    (and their ``note`` column) of an existing room."""
    racks, marked = rack_rows(plan), marked_rows(plan)
    if racks.empty and marked.empty:
        return cabinet_rows(plan)
    parts = [cabinet_rows(plan).astype(object), racks.astype(object), marked.astype(object)]
    out = pd.concat([p for p in parts if not p.empty], ignore_index=True)
    return out if marked.empty else out.fillna({"note": ""})


def write(plan, out_dir: Path) -> None:
    """Write ``cabinets.csv``."""
    write_csv(table(plan), Path(out_dir) / FILENAME)
