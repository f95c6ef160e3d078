"""Observed links from a CSV with a header holding ``device,port,peer_device,peer_port`` (more
columns are ignored). Rows may list each link once or once per end; the two directions are
merged (``planner.verify.observed.resolve``). Read by the csv module from the text as one
stream, so a quoted field may hold a line break and line numbers are the file's.

``csv_columns`` reads the same file with pandas' C parser and checks the four columns whole
(a million rows in about a second); it hands the file back (None) at the first thing it does
not take as is, and ``parse_csv`` then reads it row by row and names the line and field."""

from __future__ import annotations

import csv
import io

import numpy as np

from planner.run.errors import InputError
from planner.verify.fields import checked_columns, raw_link
from planner.verify.values import CSV_COLUMNS, RawLink


def csv_rows(text: str, source: str):
    """(line number, row) of a CSV text; InputError naming the line for what the csv module
    refuses (a field over its 131,072-character limit)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    line = 1
    try:
        for row in reader:
            yield line, row
            line = reader.line_num + 1
    except csv.Error as err:
        raise InputError(f"observed '{source}' line {reader.line_num or 1}: not readable as CSV "
                         f"({err}); fields are device and port names of a few characters") \
            from None


def parse_csv(text: str, source: str) -> list[RawLink]:
    """Rows of ``device,port,peer_device,peer_port`` (header required; extra columns ignored)."""
    rows = csv_rows(text, source)
    _, header = next(rows, (1, []))
    cols = [h.strip().lower() for h in header]
    missing = [c for c in CSV_COLUMNS if c not in cols]
    if missing:
        raise InputError(f"observed '{source}': CSV header must name the columns "
                         f"{','.join(CSV_COLUMNS)}; missing {', '.join(missing)}")
    idx = [cols.index(c) for c in CSV_COLUMNS]
    links = []
    for n, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(idx):
            raise InputError(f"observed '{source}' line {n}: expected {len(cols)} fields, got "
                             f"{len(row)}")
        links.append(raw_link(*(row[i] for i in idx), f"'{source}' line {n}"))
    return links


def csv_columns(text: str) -> list[np.ndarray] | None:
    """The device, port, peer_device and peer_port columns, blank rows dropped, checked by
    ``checked_columns``; None when the text has quotes or NULs, does not parse, lacks a column,
    or holds a bad field (``parse_csv`` names the line and field)."""
    import pandas as pd

    if '"' in text or "\0" in text:
        return None
    try:
        frame = pd.read_csv(io.StringIO(text), header=None, dtype=str, na_filter=False,
                            keep_default_na=False, skip_blank_lines=True, engine="c")
    except (ValueError, pd.errors.ParserError):
        return None
    if not len(frame):
        return None
    rows = frame.to_numpy(dtype=object)
    cols = [str(h).strip().lower() for h in rows[0]]
    if any(c not in cols for c in CSV_COLUMNS):
        return None
    rows = rows[1:]
    columns = [rows[:, cols.index(c)] for c in CSV_COLUMNS]
    return checked_columns(columns, lambda holed: not any(
        any(str(cell).strip() for cell in rows[r]) for r in holed))
