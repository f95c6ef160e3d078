"""Observed links from a CSV with a header holding ``device,port,peer_device,peer_port`` (more
columns are ignored). Rows may list each link once or once per end; the two directions are
merged (``planner.verify.observed.resolve``). Read by the csv module from the text as one
stream, so a quoted field may hold a line break and line numbers are the file's."""

from __future__ import annotations

import csv
import io

from planner.run.errors import InputError
from planner.verify.fields import raw_link
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
