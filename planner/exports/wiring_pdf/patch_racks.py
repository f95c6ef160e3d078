"""One section per patch rack of structured cabling: what an installer patching a row holds.

Each sheet gives where the rack stands, its panels from U1 up (part number, rear ports, links),
then every used port of every panel (``planner.cabling.pieces``): a row panel's front port with
its patch cord (id, part number, ordered length), the device port it reaches in its cabinet,
the trunk leg the link continues on (trunk and rear port) and the device at the link's far end;
a rear port, or an entry panel's front port, with its trunk and the far panel and port. Rows are
by panel from U1 up, then front ports before rear ports, in port order.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from planner.cabling import unit_text
from planner.exports._csv import column_text
from planner.exports.wiring_pdf.cabinets import (ChunkedRows, chunks_of, far_end, link_far_ends,
                                                 place_ends)
from planner.exports.wiring_pdf.content_stream import text_column
from planner.exports.wiring_pdf.layout import DeferredTable, Figure, Section, Table
from planner.exports.wiring_pdf.style import FONT, SCHEDULE_LEADING, SCHEDULE_SIZE

FACTS_SIZE = 8.0
"""The sheet's facts above its tables, in the schedules' type size."""

PORT_HEADERS = ["panel", "port", "side", "piece", "part number", "order m",
                "far end of the piece", "trunk leg", "link to"]
PORT_ALIGN = ["l", "r", "l", "l", "l", "r", "l", "l", "l"]
PANEL_HEADERS = ["U", "panel", "kind", "part number", "ports", "trunks", "links"]
PANEL_ALIGN = ["r", "l", "l", "l", "l", "r", "r"]


def _side(port: np.ndarray) -> np.ndarray:
    """``front`` or ``rear``: rear ports are ``R<n>``; a row panel's front ports are numbers, an
    entry panel's ``F<n>`` (a hall trunk on its front)."""
    rear = np.char.startswith(port.astype(str), "R")
    return np.where(rear, "rear", "front").astype(object)


def trunk_legs(plan, rows=None) -> np.ndarray:
    """Per piece (the pieces at ``rows`` of the table, default all): for a patch cord, the
    trunk its link continues on at the cord's panel and that trunk's port there
    (``T0003 R4``); '' for any other piece."""
    pieces = plan.pieces
    t, legs = pieces.table, pieces.legs
    rows = np.arange(len(t)) if rows is None else np.asarray(rows, dtype=np.int64)
    out = np.full(len(t), "", dtype=object)
    role = t["role"].to_numpy(object)
    piece = legs["piece"].to_numpy(np.int64)
    wanted = np.zeros(len(t), dtype=bool)
    wanted[rows] = True
    cord = np.flatnonzero((role[piece] == "cord") & wanted[piece])
    if not cord.size:
        return out[rows]
    first = legs["step"].to_numpy(np.int64)[cord] == 0
    trunk = piece[np.where(first, cord + 1, cord - 1)]
    panel = t["b_device"].to_numpy(object)[piece[cord]]
    at_a = t["a_device"].to_numpy(object)[trunk] == panel
    port = np.where(at_a, t["a_port"].to_numpy(object)[trunk], t["b_port"].to_numpy(object)[trunk])
    out[piece[cord]] = t["piece_id"].to_numpy(object)[trunk] + " " + port.astype(object)
    return out[rows]


def port_rows(plan, places=None) -> pd.DataFrame:
    """One row per used panel port (each end of a piece at a panel; of the patch racks
    ``places``, default all), sorted by rack, panel unit, side (front first) and port; the
    cells as text."""
    pieces = plan.pieces
    t = pieces.table
    ends = place_ends(plan, places)
    ends = ends[ends["this_at_panel"].to_numpy(bool)]
    piece = ends["piece"].to_numpy(np.int64)
    port = np.asarray(column_text(ends["this_port"]), dtype=object)
    number = pd.to_numeric(pd.Series(port).str.replace(r"^[RF]", "", regex=True),
                           errors="coerce").to_numpy(float)
    side = _side(port)
    rows = pd.DataFrame({
        "rack": np.asarray(column_text(ends["this_place"]), dtype=object),
        "ru": ends["this_ru"].to_numpy(float), "panel": ends["this_device"].to_numpy(object),
        "port": port, "side": side, "number": number,
        "piece": t["piece_id"].to_numpy(object)[piece], "sku": t["sku"].to_numpy(object)[piece],
        "order": unit_text(t["order_length_m"].to_numpy(float)[piece], 1),
        "far": far_end(ends["peer_device"].to_numpy(object),
                       np.asarray(column_text(ends["peer_port"]), dtype=object),
                       np.asarray(column_text(ends["peer_place"]), dtype=object),
                       ends["peer_ru"].to_numpy(float), ends["peer_at_panel"].to_numpy(bool)),
        "leg": trunk_legs(plan, piece), "link": link_far_ends(plan, t, piece)})
    return rows.sort_values(["rack", "ru", "side", "number", "piece"],
                            kind="stable").reset_index(drop=True)


def _panel_table(plan, rack: str) -> Table:
    panels = plan.structured.panels
    mine = panels[panels["rack"] == rack].sort_values("ru")
    data = [[f"{int(u)}" for u in mine["ru"]], mine["name"].tolist(), mine["kind"].tolist(),
            mine["sku"].tolist(),
            mine["layout"].astype(str).tolist(),
            [f"{int(v):,}" for v in mine["trunks"]], [f"{int(v):,}" for v in mine["links"]]]
    return Table(PANEL_HEADERS, data, PANEL_ALIGN, size=SCHEDULE_SIZE,
                 leading=SCHEDULE_LEADING).fit()


def rack_facts(plan, rack) -> list[str]:
    """Where the rack stands and what it holds, in words."""
    from planner.inputs.floor import row_letters

    hall = f"hall H{int(rack.hall) + 1}, " if plan.summary["floor"].get("halls", 1) > 1 else ""
    if rack.kind == "entry":
        where = f"{hall}at the hall entry (hall trunks to the other halls)"
    else:
        where = f"{hall}row {row_letters(int(rack.row))}, cross tray {int(rack.tray)}"
    return [f"Patch rack {rack.name}: {where}; {int(rack.panels)} panels, "
            f"{int(rack.ru_used)} of {int(rack.height_ru)} U used"]


def _facts_figure(lines: list[str]) -> Figure:
    def draw(canvas, x: float, y: float, width: float) -> None:
        text_column(canvas, FONT, FACTS_SIZE, x, y - FACTS_SIZE - 2.0, FACTS_SIZE * 1.35, lines)
    return Figure(len(lines) * FACTS_SIZE * 1.35 + 6.0, draw)


def port_table(plan, places=None) -> tuple[Table, dict[str, tuple[int, int]]]:
    """The used ports of the patch racks ``places`` (default all; ``port_rows``) as one table,
    unfitted, and each rack's rows of it ``(lo, hi)``."""
    rows = port_rows(plan, places)
    columns = [rows[k].to_numpy(object) for k in ("panel", "port", "side", "piece", "sku",
                                                  "order", "far", "leg", "link")]
    spans = {str(rack): (int(at.min()), int(at.max()) + 1)
             for rack, at in rows.groupby("rack", sort=False).indices.items()}
    return (Table(PORT_HEADERS, columns, PORT_ALIGN, size=SCHEDULE_SIZE,
                  leading=SCHEDULE_LEADING), spans)


def port_source(plan, places: list[str]) -> ChunkedRows:
    """The used ports of the patch racks ``places`` made ``tuning.WIRING_CHUNK_SHEETS`` racks
    at a time."""
    return ChunkedRows(lambda names: port_table(plan, names), chunks_of(places))


def patch_rack_sections(plan, places: list[str] | None = None, layout=None) -> list[Section]:
    """One section per patch rack (of ``places``, default all, in ``StructuredPlan.racks``
    order): facts, panels, ports (made a chunk of racks at a time as their pages are drawn;
    ``layout``: the whole plan's ``ChunkedRows.survey``, as in
    ``cabinets.cabinet_sections``)."""
    if plan.structured is None or plan.structured.racks.empty:
        return []
    names = plan.structured.racks["name"].astype(str).tolist()
    mine = None if places is None else set(places)
    source = port_source(plan, [n for n in names if mine is None or n in mine])
    natural, rows = source.survey() if layout is None else layout
    template = Table(PORT_HEADERS, [[] for _ in PORT_HEADERS], PORT_ALIGN, size=SCHEDULE_SIZE,
                     leading=SCHEDULE_LEADING).fit(natural=natural)
    sections = []
    for rack in plan.structured.racks.itertuples(index=False):
        if mine is not None and rack.name not in mine:
            continue
        count = rows.get(str(rack.name), 0)
        lines = rack_facts(plan, rack) + [
            f"{count:,} used ports: a front port takes a patch cord to a device (at an entry "
            "panel, a hall trunk); a rear port a trunk."]
        blocks: list = [_facts_figure(lines), _panel_table(plan, rack.name)]
        if count:
            blocks.append(DeferredTable(template, count, partial(source.cells, str(rack.name))))
        sections.append(Section(f"Patch rack {rack.name}", blocks, f"rack-{rack.name}",
                                level=1))
    return sections
