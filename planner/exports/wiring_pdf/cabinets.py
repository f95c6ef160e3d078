"""One section per cabinet: its rack elevation (devices by rack unit, U1 at the bottom) with the
cabinet's facts beside it, then its cable schedule ``device·port → device·port, label,
media, SKU, ordered length`` with peer cabinet and unit."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd
from reportlab.pdfgen.canvas import Canvas

from planner.cabling import unit_text
from planner.exports._csv import column_text
from planner.exports.wiring_pdf.content_stream import fill_rects, text_at, text_column
from planner.exports.wiring_pdf.layout import Figure, Section, Table
from planner.exports.wiring_pdf.style import FONT, SCHEDULE_LEADING, SCHEDULE_SIZE, SYMBOL

SCHEDULE_HEADERS = ["cable", "from (this cabinet)", "", "to", "peer cab-U", "label", "media",
                    "SKU", "order m"]
SCHEDULE_ALIGN = ["l", "l", "l", "l", "l", "l", "l", "l", "r"]
SCHEDULE_FONTS = [FONT, FONT, SYMBOL, FONT, FONT, FONT, FONT, FONT, FONT]


def schedule_rows(plan) -> dict[str, np.ndarray]:
    """One row per cable end inside a cabinet (a cable inside one cabinet is listed once),
    oriented from that cabinet, sorted by cabinet, local device, local port; the cells as text
    (``cab_order``: the cabinet's position in ``plan.cabinets``)."""
    c = plan.cables
    text = {k: np.asarray(column_text(c[k]), dtype=object)
            for k in ("a_cabinet", "b_cabinet", "a_device", "b_device", "a_port", "b_port",
                      "cable_id", "label", "media", "sku")}
    ru = {k: unit_text(pd.to_numeric(c[f"{k}_ru"], errors="coerce").to_numpy(float), 1)
          for k in "ab"}
    port = {k: pd.to_numeric(c[f"{k}_port"], errors="coerce").to_numpy(float) for k in "ab"}
    order = unit_text(c["order_length_m"].to_numpy(float), 1)
    ends = {k: np.array(list(map("{}\u00b7{}".format, text[f"{k}_device"], text[f"{k}_port"])),
                        dtype=object) for k in "ab"}
    both = np.flatnonzero(text["a_cabinet"] != text["b_cabinet"])

    def stack(a_side, b_side=None):
        """Rows of the A ends (every cable), then of the B ends in another cabinet."""
        return np.concatenate([a_side, (a_side if b_side is None else b_side)[both]])

    def this(field):
        return stack(text[f"a_{field}"], text[f"b_{field}"])

    def peer(values):
        return stack(values["b"], values["a"])

    peer_at = zip(peer({k: text[f"{k}_cabinet"] for k in "ab"}).tolist(), peer(ru).tolist())
    rows = {"cabinet": this("cabinet"), "device": this("device"),
            "port_key": stack(port["a"], port["b"]), "port_text": this("port"),
            "cable": stack(text["cable_id"]), "from": stack(ends["a"], ends["b"]),
            "to": peer(ends),
            "peer": np.array([f"{cab}-{unit}".rstrip("-") for cab, unit in peer_at], object),
            "label": stack(text["label"]), "media": stack(text["media"]),
            "sku": stack(text["sku"]), "order": stack(order)}
    index = {name: i for i, name in enumerate(plan.cabinets["name"].astype(str))}
    rows["cab_order"] = np.array([index.get(name, len(index)) for name in rows["cabinet"]],
                                 dtype=np.int64)
    codes = {k: pd.factorize(rows[k], sort=True)[0] for k in ("device", "port_text", "cable")}
    keys = (codes["cable"], codes["port_text"], rows["port_key"], codes["device"],
            rows["cab_order"])
    sort = np.lexsort(keys)
    return {k: v[sort] for k, v in rows.items()}


@dataclass
class Rack:
    """What a cabinet page shows above the schedule (plain values, no pandas per cabinet)."""

    name: str
    info: list[str]
    devices: list[tuple[str, str, str, float, float]]   # name, kind, model, ru, height
    unplaced: list[str]
    by_sku: dict[tuple[str, str], int]
    ends: int


def rack_records(plan, ends: dict[int, int], by_sku: dict[int, dict]) -> list[Rack]:
    """One ``Rack`` per cabinet, in ``plan.cabinets`` order."""
    from planner.inputs.floor import row_letters

    cab = plan.cabinets.reset_index(drop=True)
    names = cab["name"].astype(str).tolist()
    index = {n: i for i, n in enumerate(names)}
    placed: list[list] = [[] for _ in names]
    unplaced: list[list] = [[] for _ in names]
    dev = plan.devices
    ru = pd.to_numeric(dev["ru"], errors="coerce").to_numpy(float)
    height = np.maximum(pd.to_numeric(dev["height_ru"], errors="coerce").fillna(1.0)
                        .to_numpy(float), 1.0)
    text = [column_text(dev[k]) for k in ("name", "kind", "model", "cabinet")]
    for name, kind, model, cabinet, u, h in zip(*text, ru.tolist(), height.tolist()):
        i = index.get(cabinet)
        if i is None:
            continue
        if u != u:                                   # NaN: no rack unit
            unplaced[i].append(name)
        else:
            placed[i].append((name, kind, model, u, h))
    racks = []
    several_halls = "hall" in cab and len(cab) and int(cab["hall"].max()) > 0
    for i, rec in enumerate(cab.to_dict("records")):
        hall = f"hall H{int(rec['hall']) + 1}, " if several_halls else ""
        info = [f"{hall}row {row_letters(rec['row'])}, column {int(rec['col']) + 1}, "
                f"electrical group g{int(rec['group'])}",
                f"position x {float(rec['x_m']):.2f} m, y {float(rec['y_m']):.2f} m",
                f"{int(rec['routers'])} routers, {int(rec['endpoints'])} endpoints"
                + (f", {float(rec['kw']):.2f} kW" if "kw" in rec else ""),
                f"{ends.get(i, 0)} cable ends in this cabinet"]
        racks.append(Rack(names[i], info, placed[i], unplaced[i], by_sku.get(i, {}),
                          ends.get(i, 0)))
    return racks


def elevation_figure(rack: Rack, cabinet_height_ru: int) -> Figure:
    """Rack elevation (U1 at the bottom) with the cabinet facts to its right."""
    top_used = max([int(math.ceil(u + h - 1)) for _, _, _, u, h in rack.devices], default=0)
    height_ru = max(int(cabinet_height_ru), top_used)
    unit = min(9.0, 380.0 / height_ru)
    fig_h = unit * height_ru + 24.0

    def draw(canvas: Canvas, x: float, y: float, width: float) -> None:
        rack_w = 150.0
        rx = x + 22.0
        bottom = y - 12.0 - unit * height_ru
        fill_rects(canvas, [(rx, bottom, rack_w, unit * height_ru)], (0.97, 0.97, 0.97), True)
        step = 1 if unit >= 7 else 5
        text_at(canvas, FONT, min(6.5, unit * 0.72),
                [(x + 2.0, bottom + (u - 1) * unit + unit * 0.25, f"U{u}")
                 for u in range(1, height_ru + 1) if u % step == 0 or u == 1])
        boxes: dict[str, list] = {"router": [], "endpoint": []}
        texts = []
        size = min(7.0, unit * 0.78)
        for name, kind, model, ru, h in rack.devices:
            yy = bottom + (ru - 1) * unit
            boxes["router" if kind == "router" else "endpoint"].append(
                (rx + 2, yy + 0.4, rack_w - 4, max(h * unit - 0.8, 0.5)))
            texts.append((rx + 5, yy + (h * unit - size) / 2 + 0.8,
                          f"{name}  {model}  U{ru:g}" + (f"-{ru + h - 1:g}" if h > 1 else "")))
        fill_rects(canvas, boxes["router"], (0.60, 0.75, 0.93), True)
        fill_rects(canvas, boxes["endpoint"], (0.86, 0.86, 0.86), True)
        text_at(canvas, FONT, size, texts)
        lines = list(rack.info)
        if height_ru > cabinet_height_ru:
            lines.append(f"abstract rack: devices up to U{height_ru} "
                         f"(cabinet height {cabinet_height_ru}U)")
        if rack.unplaced:
            lines.append(f"{len(rack.unplaced)} devices without rack unit: "
                         f"{rack.unplaced[0]} .. {rack.unplaced[-1]}")
        lines += [f"{k:>5} x {sku} ({media})" for (media, sku), k in sorted(rack.by_sku.items())]
        text_column(canvas, FONT, 8.0, rx + rack_w + 24.0, y - 14.0, 11.0, lines)
    return Figure(fig_h, draw)


def cabinet_sections(plan) -> list[Section]:
    """One section per cabinet: elevation, then the cable schedule."""
    rows = schedule_rows(plan)
    n_cab = len(plan.cabinets)
    bounds = np.searchsorted(rows["cab_order"], np.arange(n_cab + 1))
    columns = [rows[k].tolist() for k in ["cable", "from", "to", "to", "peer", "label", "media",
                                           "sku", "order"]]
    columns[2] = ["\u2192"] * len(rows["cable"])
    template = Table(SCHEDULE_HEADERS, columns, SCHEDULE_ALIGN, size=SCHEDULE_SIZE,
                     leading=SCHEDULE_LEADING, fonts=SCHEDULE_FONTS).fit()
    template.prepare()
    by_sku: dict[int, dict] = {}
    for (i, media, sku), k in Counter(zip(rows["cab_order"].tolist(), rows["media"].tolist(),
                                          rows["sku"].tolist())).items():
        by_sku.setdefault(i, {})[(media, sku)] = k
    ends = {i: int(bounds[i + 1] - bounds[i]) for i in range(n_cab)}
    height = int(plan.floor.cabinet_height_ru)
    sections = []
    for i, rack in enumerate(rack_records(plan, ends, by_sku)):
        lo, hi = bounds[i], bounds[i + 1]
        blocks: list = [elevation_figure(rack, height)]
        if hi > lo:
            blocks.append(template.part(lo, hi))
        sections.append(Section(f"Cabinet {rack.name}", blocks, f"cab-{rack.name}", level=1))
    return sections
