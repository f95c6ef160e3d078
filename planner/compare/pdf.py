"""compare.pdf: the table, cost against uniform θ, cost and power per endpoint, θ and $ per
delivered Tb/s intact and after the worst cabinet fails, cables by media, cable lengths, and
the families not compared with the reason."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np

from planner.compare.running import Outcome
from planner.compare.table import COLUMNS, cell_text
from planner.compare.tuning import LENGTH_EDGES_M, PDF_BAR_CHART_PT, PDF_SCATTER_PT


def length_histogram(outcomes: Sequence[Outcome]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Bin edges (m) from ``LENGTH_EDGES_M`` covering every cable of every plan, with empty bins
    at the short and long ends dropped, and the cable count per bin for each plan."""
    lengths = [o.lengths_m for o in outcomes]
    every = np.concatenate([x for x in lengths if len(x)]) if any(len(x) for x in lengths) \
        else np.zeros(0)
    ladder = np.asarray(LENGTH_EDGES_M, float)
    top = float(every.max()) if len(every) else 1.0
    if top >= ladder[-1]:
        ladder = np.append(ladder, 10 ** math.ceil(math.log10(top + 1)))
    counts = np.histogram(every, bins=ladder)[0] if len(every) else np.ones(len(ladder) - 1)
    used = np.flatnonzero(counts)
    lo, hi = (int(used[0]), int(used[-1]) + 1) if len(used) else (0, 1)
    edges = ladder[lo:hi + 1]
    return edges, [np.histogram(x, bins=edges)[0] for x in lengths]


def write_pdf(outcomes: Sequence[Outcome], path: Path, title: str,
              excluded: Sequence[tuple[str, str]] = ()) -> None:
    """The table, cost against uniform θ, cost and power per endpoint, cables by media, cable
    lengths, and the families left out with the reason."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import cm
    from reportlab.platypus import (KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table,
                                    TableStyle)

    styles = getSampleStyleSheet()
    doc = SimpleDocTemplate(str(path), pagesize=landscape(A4), title=title,
                            leftMargin=1.2 * cm, rightMargin=1.2 * cm,
                            topMargin=1.2 * cm, bottomMargin=1.2 * cm)
    names = [o.configuration.slug for o in outcomes]
    data = [[h.replace(" after ", "\nafter ") for _, h, _ in COLUMNS]] + [
        [cell_text(o.row.get(k), fmt) for k, _, fmt in COLUMNS] for o in outcomes]
    table = Table(data, repeatRows=1)
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), "Helvetica", 6.5),
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 6.5),
        ("ALIGN", (2, 0), (-1, -1), "RIGHT"),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#eef2f7")]),
    ]))
    width = landscape(A4)[0] - 2.4 * cm
    edges, counts = length_histogram(outcomes)
    half = width / 2 - 6
    cost = _bar_chart("Cost per endpoint ($)", names,
                      [[o.row["cost_per_endpoint"] for o in outcomes]], None, half, "%.0f")
    power = _bar_chart("Power per endpoint (W)", names,
                       [[o.row["power_per_endpoint_w"] for o in outcomes]], None, half, "%.2f")
    media = _bar_chart("Cables by media", names,
                       [[o.row["electrical"] for o in outcomes],
                        [o.row["optical"] for o in outcomes]],
                       ["electrical", "optical"], width, None, stacked=True)
    after = ["intact", "after the worst cabinet fails"]
    theta = _bar_chart("Uniform θ: intact and after the worst cabinet fails", names,
                       [[o.row.get("theta") for o in outcomes],
                        [o.row.get("theta_after_cabinet") for o in outcomes]], after, half,
                       "%.3f")
    per_tbps = _bar_chart("$ per delivered Tb/s: intact and after the worst cabinet fails",
                          names, [[o.row.get("cost_per_tbps") for o in outcomes],
                                  [o.row.get("cost_per_tbps_after_cabinet") for o in outcomes]],
                          after, half, "%.0f")
    hist = _bar_chart("Cable length distribution (cables per length bin, m)",
                      [f"{a:g}-{b:g}" for a, b in zip(edges[:-1], edges[1:])],
                      [c.tolist() for c in counts], names, width, None)
    note = Paragraph(
        "Uniform θ: the fraction of its injection bandwidth every endpoint can send at once "
        "under all-to-all traffic (max concurrent flow; exact where marked, otherwise an upper "
        "bound, drawn hollow). $ per Tb/s = total cost / (θ x endpoints x port rate). Latency: "
        "average zero-load latency between endpoints (cables and router delays). After the "
        "worst cabinet: the single cabinet whose failure (its routers, their endpoints and "
        "cables) leaves the lowest θ among the surviving endpoints; $ per Tb/s after it = total "
        "cost / (that θ x surviving endpoints x port rate); no bar where it cuts endpoints off.",
        styles["BodyText"])
    story = [Paragraph(title, styles["Title"]), table, Spacer(1, 0.3 * cm), note,
             Spacer(1, 0.3 * cm), KeepTogether([_cost_theta_chart(outcomes, width)]),
             Table([[cost, power]], colWidths=[width / 2, width / 2]),
             KeepTogether([Table([[theta, per_tbps]], colWidths=[width / 2, width / 2])]),
             KeepTogether([media]), KeepTogether([hist])]
    if excluded:
        story.append(Paragraph("Not compared: these families cannot be sized like for like "
                               "for this switch", styles["Heading3"]))
        story += [Paragraph(f"<b>{family}</b>: {_xml(reason)}", styles["BodyText"])
                  for family, reason in excluded]
    doc.build(story)


def _xml(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")


def _legend(names: Sequence[str], width: float, font_size: float = 7.0):
    """A reportlab Legend that wraps into as many rows as ``width`` needs; (legend, height)."""
    from reportlab.graphics.charts.legends import Legend
    from reportlab.lib import colors
    from reportlab.pdfbase.pdfmetrics import stringWidth

    item = max(stringWidth(str(n), "Helvetica", font_size) for n in names) + 22
    per_row = max(1, int((width - 60) // item))
    rows = math.ceil(len(names) / per_row)
    leg = Legend()
    leg.alignment = "right"
    leg.fontSize = font_size
    leg.dx = leg.dy = 7
    leg.deltay = font_size + 4
    leg.deltax = item
    leg.columnMaximum = rows
    leg.autoXPadding = 0
    leg.colorNamePairs = [(colors.HexColor(_PALETTE[i % len(_PALETTE)]), str(n))
                          for i, n in enumerate(names)]
    return leg, rows * (font_size + 4) + 6


def _bar_chart(title: str, categories: Sequence[str], series: Sequence[Sequence[float]],
               legend: Sequence[str] | None, width: float, label_fmt: str | None,
               stacked: bool = False):
    """A reportlab ``VerticalBarChart`` drawing with a title and an optional legend that wraps
    to fit the width."""
    from reportlab.graphics.charts.barcharts import VerticalBarChart
    from reportlab.graphics.shapes import Drawing, String
    from reportlab.lib import colors

    height = PDF_BAR_CHART_PT
    leg, leg_h = _legend(legend, width) if legend else (None, 0)
    d = Drawing(width, height + leg_h + (8 if legend else 0))
    d.add(String(width / 2, d.height - 12, title, fontName="Helvetica-Bold", fontSize=10,
                 textAnchor="middle"))
    chart = VerticalBarChart()
    chart.x, chart.y = 50, 55
    chart.width, chart.height = width - 70, height - 90
    chart.data = [[None if v is None else float(v) for v in s] for s in series]
    chart.categoryAxis.categoryNames = list(categories)
    chart.categoryAxis.labels.fontSize = 6.5
    chart.categoryAxis.labels.angle = 30 if len(categories) > 4 else 0
    chart.categoryAxis.labels.boxAnchor = "ne" if len(categories) > 4 else "n"
    chart.valueAxis.valueMin = 0
    peak = max((sum(col) for col in zip(*chart.data)) if stacked else
               (v for s in chart.data for v in s if v is not None), default=0.0)
    chart.valueAxis.valueMax = peak * 1.12 if peak > 0 else 1.0
    chart.valueAxis.labels.fontSize = 7
    chart.valueAxis.forceZero = 1
    if stacked:
        chart.categoryAxis.style = "stacked"
    for i in range(len(series)):
        chart.bars[i].fillColor = colors.HexColor(_PALETTE[i % len(_PALETTE)])
        chart.bars[i].strokeColor = None
    if label_fmt and not stacked:
        chart.barLabelFormat = label_fmt
        chart.barLabels.fontSize = 6.5
        chart.barLabels.nudge = 6
    d.add(chart)
    if leg is not None:
        leg.x, leg.y = 50, d.height - 24
        d.add(leg)
    return d


def _cost_theta_chart(outcomes: Sequence[Outcome], width: float):
    """Scatter of cost per endpoint (y) against uniform θ (x), one labelled point per plan;
    filled for an exact θ, hollow for an upper bound."""
    from reportlab.graphics.shapes import Circle, Drawing, Line, String
    from reportlab.lib import colors

    height = PDF_SCATTER_PT
    d = Drawing(width, height)
    d.add(String(width / 2, height - 12, "Cost per endpoint against uniform throughput θ",
                 fontName="Helvetica-Bold", fontSize=10, textAnchor="middle"))
    left, bottom, right, top = 60, 35, width - 160, height - 30
    points = [(o.row.get("theta"), o.row["cost_per_endpoint"], o) for o in outcomes]
    points = [(x, y, o) for x, y, o in points if x is not None]
    xs = [x for x, _, _ in points] or [1.0]
    ys = [y for _, y, _ in points] or [1.0]
    x_lo = max(0.0, math.floor(10 * min(xs) - 1) / 10)
    x_hi = 1.0
    y_hi = max(ys) * 1.15 if max(ys) > 0 else 1.0

    def px(x):
        return left + (x - x_lo) / (x_hi - x_lo) * (right - left)

    def py(y):
        return bottom + y / y_hi * (top - bottom)

    grey = colors.HexColor("#999999")
    d.add(Line(left, bottom, right, bottom, strokeColor=colors.black, strokeWidth=0.6))
    d.add(Line(left, bottom, left, top, strokeColor=colors.black, strokeWidth=0.6))
    for i in range(6):
        x = x_lo + (x_hi - x_lo) * i / 5
        d.add(Line(px(x), bottom, px(x), bottom - 3, strokeColor=colors.black))
        d.add(String(px(x), bottom - 12, f"{x:.2f}", fontSize=7, textAnchor="middle"))
        y = y_hi * i / 5
        d.add(Line(left, py(y), left - 3, py(y), strokeColor=colors.black))
        d.add(Line(left, py(y), right, py(y), strokeColor=grey, strokeWidth=0.2))
        d.add(String(left - 5, py(y) - 2, f"{y:,.0f}", fontSize=7, textAnchor="end"))
    d.add(String((left + right) / 2, 6, "uniform θ (fraction of injection bandwidth)",
                 fontSize=8, textAnchor="middle"))
    d.add(String(12, (bottom + top) / 2, "$/endpoint", fontSize=8, textAnchor="middle"))
    for i, (x, y, o) in enumerate(points):
        colour = colors.HexColor(_PALETTE[i % len(_PALETTE)])
        exact = o.row.get("theta_kind") == "exact"
        d.add(Circle(px(x), py(y), 4, fillColor=colour if exact else colors.white,
                     strokeColor=colour, strokeWidth=1.2))
        d.add(String(px(x) + 6, py(y) + 3, o.configuration.slug, fontSize=6.5,
                     fillColor=colour))
    return d
