"""The planned fabric: the cables of a plan's ``cables.csv`` (a plan folder or the file)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from planner.run import guards
from planner.run.errors import InputError
from planner.verify.files import MAX_FIELD_CHARS, MAX_PORT_NUMBER, read_text
from planner.verify.values import PLAN_COLUMNS, PlannedCable, PlannedFabric

if TYPE_CHECKING:
    import pandas as pd


def _plan_path(path: Path) -> Path:
    path = Path(path)
    if path.is_dir():
        path = path / "cables.csv"
    if not path.exists():
        raise InputError(f"plan '{path}': file not found; --plan must be a plan folder "
                         f"written by 'planner plan' (holding cables.csv) or a cables.csv file")
    return guards.regular_file(path, f"plan '{path}'")


def planned_fabric(table: pd.DataFrame, source: str) -> PlannedFabric:
    """Build the planned fabric from a cables table (PLAN_COLUMNS, as strings or numbers);
    InputError naming the line for an empty device, a non-integer port or a reused port."""
    import pandas as pd

    t = table[list(PLAN_COLUMNS)].astype(str).apply(lambda col: col.str.strip())
    line = np.arange(len(t)) + 2
    for side in ("a", "b"):
        dev, port = t[f"{side}_device"], t[f"{side}_port"]
        bad = np.flatnonzero((dev == "").to_numpy())
        if bad.size:
            raise InputError(f"plan '{source}' line {line[bad[0]]}: field '{side}_device' is "
                             f"empty; every cable needs two devices")
        bad = np.flatnonzero((dev.str.len() > MAX_FIELD_CHARS).to_numpy())
        if bad.size:
            raise InputError(f"plan '{source}' line {line[bad[0]]}: field '{side}_device' is "
                             f"{len(dev.iloc[bad[0]]):,} characters long; a device name has at "
                             f"most {MAX_FIELD_CHARS}")
        digits = port.str.lstrip("0").str.len()
        bad = np.flatnonzero((~port.str.fullmatch(r"[0-9]+") | (digits > 5)).to_numpy())
        if not bad.size:
            bad = np.flatnonzero((port.astype(int) > MAX_PORT_NUMBER).to_numpy())
        if bad.size:
            raise InputError(f"plan '{source}' line {line[bad[0]]}: field '{side}_port' must be "
                             f"a non-negative integer port number up to {MAX_PORT_NUMBER:,}, got "
                             f"{port.iloc[bad[0]][:40]!r}")
    ends = pd.DataFrame({"dev": pd.concat([t.a_device, t.b_device], ignore_index=True),
                         "port": pd.concat([t.a_port, t.b_port], ignore_index=True).astype(int)})
    dup = np.flatnonzero(ends.duplicated().to_numpy())
    if dup.size:
        k = dup[0]
        first = np.flatnonzero((ends.dev == ends.dev[k]).to_numpy()
                               & (ends.port == ends.port[k]).to_numpy())[0]
        raise InputError(f"plan '{source}' line {line[k % len(t)]}: port "
                         f"{ends.dev[k]}:{ends.port[k]} is also used by cable "
                         f"{t.cable_id.iloc[first % len(t)]}; a port holds one cable")
    col = {c: t[c].tolist() for c in PLAN_COLUMNS}
    a_port, b_port = t.a_port.astype(int).tolist(), t.b_port.astype(int).tolist()
    cables = tuple(PlannedCable(cid, label, kind, (ad, ap), (bd, bp), ac, bc)
                   for cid, label, kind, ad, ap, ac, bd, bp, bc in zip(
                       col["cable_id"], col["label"], col["kind"], col["a_device"], a_port,
                       col["a_cabinet"], col["b_device"], b_port, col["b_cabinet"]))
    cabinet_of = dict(zip(col["b_device"] + col["a_device"], col["b_cabinet"] + col["a_cabinet"]))
    return PlannedFabric(cables, cabinet_of)


def load_plan(path) -> PlannedFabric:
    """Read ``DIR/cables.csv`` (or a cables.csv path) of a plan written by ``planner plan``."""
    import pandas as pd

    path = _plan_path(path)
    text = read_text(path, "plan")
    try:
        table = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as err:
        raise InputError(f"plan '{path}': not a readable CSV "
                         f"({str(err).splitlines()[0]})") from None
    missing = [c for c in PLAN_COLUMNS if c not in table.columns]
    if missing:
        raise InputError(f"plan '{path}': missing column(s) {', '.join(missing)}; cables.csv "
                         f"needs {', '.join(PLAN_COLUMNS)}")
    short = np.flatnonzero(table[list(PLAN_COLUMNS)].isna().any(axis=1).to_numpy())
    if short.size:
        raise InputError(f"plan '{path}' line {short[0] + 2}: too few fields; cables.csv rows "
                         f"need {', '.join(PLAN_COLUMNS)}")
    return planned_fabric(table, str(path))
