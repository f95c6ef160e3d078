"""``cables.csv``: the port map, one row per physical cable (the rules: ``planner.cabling``).

Columns, in order (``planner.cabling.CSV_COLUMNS``): cable_id, label, kind (network |
endpoint), a_device, a_port, a_cabinet, a_ru, b_device, b_port, b_cabinet, b_ru, media
(electrical | optical), sku, length_m (computed, metres to the millimetre), order_length_m
(stock length ordered), latency_ns (over the ordered length), route_kind (cabinet | row |
cross-row | cross-hall), a_transceiver, b_transceiver (the transceiver part number at each end,
empty for a cable assembly), segments (a link through patch panels as its pieces from the A end:
cords, panel ports, trunks), fibre_m, connections, loss_db (its optical channel: fibre
installed, mated connections crossed, insertion loss in dB; empty for copper and AOC
assemblies), a_sku, b_sku (the part plugged in at each end: ``sku`` for a cable between two
devices, that end's own patch cord through panels; ``planner.cabling.pieces``), a_assembly,
b_assembly (the id of the piece plugged in at each end, ``Pieces.end_assemblies``: a multi-link
assembly's ``C0001+C0002`` on each link it carries, so rows group into what is installed).
``sku`` is the part at the A end. An endpoint without a rack unit has an empty ``b_ru``. Where
the endpoints are the NICs of a catalog server model, ``b_device`` is the server (``gpu-0123``),
``b_port`` its NIC number (1..N, ``nic1``.. in labels and NetBox) and ``b_ru`` the server's lowest
unit. UTF-8, LF line ends.

After the fabric's cables, one row per out-of-band management cord (``kind`` = ``mgmt``,
``planner.costing.fabric_devices``): from a device's management port (``a_port`` ``mgmt``) to
a management switch port, copper, its patch-cord part, routed and stock length; the columns
after ``order_length_m`` are empty but the assembly columns (the cord's own id at both ends),
and a zero-U PDU has an empty ``a_ru``. The fabric's rows are the same with or without them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from planner.cabling import CSV_COLUMNS
from planner.exports._csv import write_rows
from planner.exports.tuning import CSV_CHUNK_ROWS

FILENAME = "cables.csv"

ASSEMBLY_COLUMNS = ["a_assembly", "b_assembly"]
"""Written after ``planner.cabling.CSV_COLUMNS`` (``Pieces.end_assemblies``)."""


def rows(plan):
    """cables.csv as a table: ``Plan.cables``' CSV columns, then ``ASSEMBLY_COLUMNS``."""
    return plan.cables[CSV_COLUMNS].assign(**plan.pieces.end_assemblies()[ASSEMBLY_COLUMNS]
                                           .set_index(plan.cables.index))


def mgmt_rows(plan) -> pd.DataFrame:
    """The management cords as cables.csv rows (every column, the unused ones empty)."""
    boxes = getattr(plan, "fabric", None)
    columns = CSV_COLUMNS + ASSEMBLY_COLUMNS
    if boxes is None or boxes.cords.empty:
        return pd.DataFrame(columns=columns)
    cords = boxes.cords.astype(object)
    cords = cords.assign(a_assembly=cords["cable_id"], b_assembly=cords["cable_id"])
    return cords.reindex(columns=columns).astype(object)


def write(plan, out_dir: Path) -> None:
    """Write ``cables.csv``: the fabric's cables, then the management cords;
    ``tuning.CSV_CHUNK_ROWS`` rows made and written at a time."""
    assemblies = plan.pieces.end_assemblies()[ASSEMBLY_COLUMNS]
    cables = plan.cables
    with open(Path(out_dir) / FILENAME, "w", encoding="utf-8", newline="") as fh:
        for lo in range(0, max(len(cables), 1), CSV_CHUNK_ROWS):
            hi = lo + CSV_CHUNK_ROWS
            chunk = cables.iloc[lo:hi][CSV_COLUMNS].assign(
                **{c: assemblies[c].to_numpy()[lo:hi] for c in ASSEMBLY_COLUMNS})
            write_rows(fh, chunk, header=lo == 0)
        mgmt = mgmt_rows(plan)
        if len(mgmt):
            write_rows(fh, mgmt, header=False)
