"""The planned fabric: the cables of a plan's ``cables.csv`` (a plan folder or the file)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from planner.run import guards
from planner.run.errors import InputError
from planner.verify.files import MAX_FIELD_CHARS, MAX_PORT_NUMBER, read_text
from planner.verify.values import PLAN_COLUMNS, PORT_SPAN, PlannedFabric

MGMT_KIND = "mgmt"
"""``kind`` of the out-of-band management cords in cables.csv: not fabric links (an as-built
neighbour list of the fabric does not hold them), so not compared."""

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


def _stripped(column) -> np.ndarray:
    values = column.to_numpy(dtype=object)
    try:
        return np.array(list(map(str.strip, values)), dtype=object)
    except TypeError:                              # numbers in a table built in memory
        return np.array([str(v).strip() for v in values], dtype=object)


def _port_values(port: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(port numbers, mask of ports that are not integers of at most 5 digits), each port text
    read once per distinct value (a fabric repeats a few hundred)."""
    import pandas as pd

    codes, distinct = pd.factorize(port)
    bad = np.array([not (u.isdigit() and u.isascii()) or len(u.lstrip("0")) > 5
                    for u in distinct], dtype=bool)
    values = np.array([-1 if b else int(u) for u, b in zip(distinct, bad)], dtype=np.int64)
    return values[codes], bad[codes]


def _check_side(t: dict, side: str, line: np.ndarray, source: str) -> np.ndarray:
    """The port numbers of one side's column; InputError for the first bad device or port."""
    dev, port = t[f"{side}_device"], t[f"{side}_port"]
    lengths = np.fromiter(map(len, dev), dtype=np.int64, count=len(dev))
    bad = np.flatnonzero(lengths == 0)
    if bad.size:
        raise InputError(f"plan '{source}' line {line[bad[0]]}: field '{side}_device' is "
                         f"empty; every cable needs two devices")
    bad = np.flatnonzero(lengths > MAX_FIELD_CHARS)
    if bad.size:
        raise InputError(f"plan '{source}' line {line[bad[0]]}: field '{side}_device' is "
                         f"{len(dev[bad[0]]):,} characters long; a device name has at "
                         f"most {MAX_FIELD_CHARS}")
    values, malformed = _port_values(port)
    bad = np.flatnonzero(malformed)
    if not bad.size:
        bad = np.flatnonzero(values > MAX_PORT_NUMBER)
    if bad.size:
        raise InputError(f"plan '{source}' line {line[bad[0]]}: field '{side}_port' must be "
                         f"a non-negative integer port number up to {MAX_PORT_NUMBER:,}, got "
                         f"{port[bad[0]][:40]!r}")
    return values


def _cabinet_of(devices: np.ndarray, codes: np.ndarray, cabinets: np.ndarray) -> dict[str, str]:
    """Each device's cabinet, as its last row names it (b ends first, then a ends)."""
    last = len(codes) - 1 - np.unique(codes[::-1], return_index=True)[1]
    return dict(zip(devices.tolist(), cabinets[last].tolist()))


def planned_fabric(table: pd.DataFrame, source: str) -> PlannedFabric:
    """Build the planned fabric from a cables table (PLAN_COLUMNS, as strings or numbers);
    InputError naming the line for an empty device, a non-integer port or a reused port.
    Column-wise: each check is one pass over a column, ports read once per distinct text."""
    import pandas as pd

    t = {c: _stripped(table[c]) for c in PLAN_COLUMNS}
    n = len(table)
    line = np.arange(n) + 2
    a_port = _check_side(t, "a", line, source)
    b_port = _check_side(t, "b", line, source)
    codes, devices = pd.factorize(np.concatenate([t["a_device"], t["b_device"]]))
    devices = np.asarray(devices, dtype=object)
    ends = codes.astype(np.int64) * PORT_SPAN + np.concatenate([a_port, b_port])
    dup = np.flatnonzero(pd.Series(ends).duplicated().to_numpy())
    if dup.size:
        k = dup[0]
        first = np.flatnonzero(ends == ends[k])[0]
        raise InputError(f"plan '{source}' line {line[k % n]}: port "
                         f"{devices[codes[k]]}:{ends[k] % PORT_SPAN} is also used by cable "
                         f"{t['cable_id'][first % n]}; a port holds one cable")
    a_dev, b_dev = codes[:n].astype(np.int64), codes[n:].astype(np.int64)
    cabinet_of = _cabinet_of(devices, np.concatenate([b_dev, a_dev]),
                             np.concatenate([t["b_cabinet"], t["a_cabinet"]]))
    return PlannedFabric(devices, a_dev, a_port, b_dev, b_port, t["cable_id"], t["label"],
                         t["kind"], t["a_cabinet"], t["b_cabinet"], cabinet_of)


def load_plan(path) -> PlannedFabric:
    """Read ``DIR/cables.csv`` (or a cables.csv path) of a plan written by ``planner plan``
    (pandas' C parser, every column text)."""
    import pandas as pd

    path = _plan_path(path)
    text = read_text(path, "plan")
    try:
        table = pd.read_csv(io.StringIO(text), dtype=object, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as err:
        raise InputError(f"plan '{path}': not a readable CSV "
                         f"({str(err).splitlines()[0]})") from None
    missing = [c for c in PLAN_COLUMNS if c not in table.columns]
    if missing:
        raise InputError(f"plan '{path}': missing column(s) {', '.join(missing)}; cables.csv "
                         f"needs {', '.join(PLAN_COLUMNS)}")
    table = table[table["kind"] != MGMT_KIND].reset_index(drop=True)   # rows follow the fabric's
    short = np.flatnonzero(table[list(PLAN_COLUMNS)].isna().any(axis=1).to_numpy())
    if short.size:
        raise InputError(f"plan '{path}' line {short[0] + 2}: too few fields; cables.csv rows "
                         f"need {', '.join(PLAN_COLUMNS)}")
    return planned_fabric(table, str(path))
