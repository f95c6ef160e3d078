"""Observed links from a CSV with a header holding ``device,port,peer_device,peer_port`` (more
columns are ignored). Rows may list each link once or once per end; the two directions are
merged (``planner.verify.observed.resolve``)."""

from __future__ import annotations

import csv

from planner.run.errors import InputError
from planner.verify.values import CSV_COLUMNS, RawLink


def parse_csv(text: str, source: str) -> list[RawLink]:
    """Rows of ``device,port,peer_device,peer_port`` (header required; extra columns ignored)."""
    rows = csv.reader(text.splitlines())
    header = next(rows, None)
    cols = [h.strip().lower() for h in header or []]
    missing = [c for c in CSV_COLUMNS if c not in cols]
    if missing:
        raise InputError(f"observed '{source}': CSV header must name the columns "
                         f"{','.join(CSV_COLUMNS)}; missing {', '.join(missing)}")
    idx = [cols.index(c) for c in CSV_COLUMNS]
    links = []
    for n, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(idx):
            raise InputError(f"observed '{source}' line {n}: expected {len(cols)} fields, got "
                             f"{len(row)}")
        dev, port, peer, peer_port = (row[i].strip() for i in idx)
        if not (dev and port and peer and peer_port):
            raise InputError(f"observed '{source}' line {n}: fields {','.join(CSV_COLUMNS)} "
                             f"must all be set, got {','.join(row[i] for i in idx)!r}")
        links.append(RawLink(dev, port, peer, peer_port, f"'{source}' line {n}"))
    return links
