"""``cabinets.csv``: one row per cabinet, where it stands and what it holds and draws.

Columns, in order: name (as on the labels: ``A01``, or ``H2-A01`` when the plan fills several
halls), hall (numbered from 1), row (letters, as in the name), column (from 1), x_m / y_m (the
cabinet centre in its hall, metres: x along the row, y across rows, ``planner.inputs.floor``), group
(electrical group), routers, endpoints, kw (routers with their plugged cable ends, servers and
NICs, ``planner.costing.power``), ru_used (rack units taken by devices). Rows in the plan's cabinet
order (hall, row, column for a planned layout).
UTF-8, LF line ends.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from planner.exports._csv import write_csv
from planner.inputs.floor import row_letters

FILENAME = "cabinets.csv"
COLUMNS = ["name", "hall", "row", "column", "x_m", "y_m", "group", "routers", "endpoints", "kw",
           "ru_used"]


def table(plan) -> pd.DataFrame:
    """The rows of cabinets.csv, from ``plan.cabinets``."""
    cab = plan.cabinets
    return pd.DataFrame({
        "name": cab["name"].astype(str),
        "hall": cab["hall"].astype("int64") + 1,
        "row": [row_letters(r) for r in cab["row"].tolist()],
        "column": cab["col"].astype("int64") + 1,
        "x_m": cab["x_m"], "y_m": cab["y_m"], "group": cab["group"],
        "routers": cab["routers"], "endpoints": cab["endpoints"], "kw": cab["kw"],
        "ru_used": cab["ru_used"],
    })[COLUMNS]


def write(plan, out_dir: Path) -> None:
    """Write ``cabinets.csv``."""
    write_csv(table(plan), Path(out_dir) / FILENAME)
