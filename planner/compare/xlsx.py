"""compare.xlsx: every column of every plan, native Excel charts over those cells, the families
not compared and why, and one bill of materials per plan."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from planner.compare.running import Outcome
from planner.compare.table import COLUMNS, DETAIL_COLUMNS
from planner.compare.tuning import XLSX_CHART_CM


def write_xlsx(outcomes: Sequence[Outcome], path: Path, title: str,
               excluded: Sequence[tuple[str, str]] = ()) -> None:
    """Sheet "Comparison" (every column, one row per plan), "Charts" (native Excel charts of
    cost and power per endpoint, cable mix and cost against θ, drawn from the Comparison
    cells), "Not compared" (families left out and why) and one BOM sheet per plan."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    wb = Workbook()
    ws = wb.active
    ws.title = "Comparison"
    ws.append([title])
    ws["A1"].font = Font(bold=True, size=12)
    heads = [h for _, h, _ in COLUMNS] + [h for _, h in DETAIL_COLUMNS]
    keys = [k for k, _, _ in COLUMNS] + [k for k, _ in DETAIL_COLUMNS]
    ws.append(heads)
    for cell in ws[2]:
        cell.font = Font(bold=True)
    for o in outcomes:
        ws.append([_plain(o.row.get(k)) for k in keys])
    formats = {"cost_per_endpoint": "#,##0.00", "power_per_endpoint_w": "0.000",
               "avg_distance": "0.0000", "cable_length_m": "#,##0.0", "cost_routers": "#,##0.00",
               "cost_cables": "#,##0.00", "cost_total": "#,##0.00", "power_total_w": "#,##0.0",
               "latency_ns": "#,##0", "cost_per_tbps": "#,##0", "theta": "0.000",
               "latency_max_ns": "#,##0", "delivered_tbps": "#,##0.000",
               "cost_per_tbps_after_cabinet": "#,##0", "theta_after_cabinet": "0.000",
               "theta_ratio_after_cabinet": "0.000", "delivered_tbps_after_cabinet": "#,##0.000"}
    for j, key in enumerate(keys, start=1):
        letter = get_column_letter(j)
        width = max(len(str(heads[j - 1])), *(len(str(o.row.get(key))) for o in outcomes)) + 2
        ws.column_dimensions[letter].width = min(width, 40)
        for r in range(3, 3 + len(outcomes)):
            ws[f"{letter}{r}"].number_format = formats.get(key, "#,##0" if key in
                                                           _INT_KEYS else "General")
    ws.freeze_panes = "C3"
    if outcomes:
        _xlsx_charts(wb, ws, keys, len(outcomes))
    if excluded:
        sheet = wb.create_sheet("Not compared")
        sheet.append(["family", "why it is not in the comparison"])
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for family, reason in excluded:
            sheet.append([family, reason])
        sheet.column_dimensions["A"].width = 14
        sheet.column_dimensions["B"].width = 120
    used: set[str] = set()
    for n, o in enumerate(outcomes, start=1):
        name = _sheet_name(f"BOM {n} {o.configuration.slug}", used)
        sheet = wb.create_sheet(name)
        sheet.append([f"{o.configuration.spec}: bill of materials"])
        sheet["A1"].font = Font(bold=True)
        bom = o.bom
        sheet.append(list(bom.columns))
        for cell in sheet[2]:
            cell.font = Font(bold=True)
        for rec in bom.itertuples(index=False):
            sheet.append([_plain(v) for v in rec])
        if "extended_price" in bom.columns and len(bom):
            col = get_column_letter(list(bom.columns).index("extended_price") + 1)
            total = [None] * len(bom.columns)
            total[0] = "total"
            total[list(bom.columns).index("extended_price")] = f"=SUM({col}3:{col}{2 + len(bom)})"
            sheet.append(total)
            sheet.cell(sheet.max_row, 1).font = Font(bold=True)
        for j, col in enumerate(bom.columns, start=1):
            letter = get_column_letter(j)
            sheet.column_dimensions[letter].width = min(
                max(len(str(col)), *(len(str(v)) for v in bom[col].tolist()), 8) + 2, 60)
            if col in ("unit_price", "extended_price"):
                for r in range(3, 4 + len(bom)):
                    sheet[f"{letter}{r}"].number_format = "#,##0.00"
        sheet.freeze_panes = "A3"
    wb.save(path)


XLSX_CHARTS = (("cost_per_endpoint", "Cost per endpoint ($)", "$"),
               ("power_per_endpoint_w", "Power per endpoint (W)", "W"))
"""Bar charts of the Charts sheet: (column key, title, axis title)."""

XLSX_FAILURE_CHARTS = (
    (("theta", "theta_after_cabinet"), "Uniform θ: intact and after the worst cabinet fails",
     "θ"),
    (("cost_per_tbps", "cost_per_tbps_after_cabinet"),
     "$ per delivered Tb/s: intact and after the worst cabinet fails", "$ per Tb/s"))
"""Grouped bar charts of the Charts sheet, below the others: (column keys, title, axis)."""


def _xlsx_charts(wb, ws, keys: list[str], rows: int) -> None:
    """Native charts on a "Charts" sheet, every series a reference into "Comparison" (so they
    follow edits to the cells): cost and power per endpoint, cables by media (stacked) and
    cost per endpoint against uniform θ (scatter); θ and $ per delivered Tb/s, intact and
    after the worst cabinet fails (``XLSX_FAILURE_CHARTS``)."""
    from openpyxl.chart import BarChart, Reference, ScatterChart, Series

    charts = wb.create_sheet("Charts", 1)
    col = {k: i + 1 for i, k in enumerate(keys)}
    first, last = 3, 2 + rows
    families = Reference(ws, min_col=col["family"], min_row=first, max_row=last)
    anchors = iter(("A1", "J1", "A20", "J20", "A39", "J39"))
    for key, title, axis in XLSX_CHARTS:
        chart = BarChart()
        chart.title, chart.y_axis.title = title, axis
        chart.add_data(Reference(ws, min_col=col[key], min_row=2, max_row=last),
                       titles_from_data=True)
        chart.set_categories(families)
        chart.legend = None
        chart.width, chart.height = XLSX_CHART_CM
        charts.add_chart(chart, next(anchors))
    mix = BarChart()
    mix.type, mix.grouping, mix.overlap = "col", "stacked", 100
    mix.title, mix.y_axis.title = "Cables by media", "cables"
    for key in ("electrical", "optical"):
        mix.add_data(Reference(ws, min_col=col[key], min_row=2, max_row=last),
                     titles_from_data=True)
    mix.set_categories(families)
    mix.width, mix.height = XLSX_CHART_CM
    charts.add_chart(mix, next(anchors))
    scatter = ScatterChart()
    scatter.title = "Cost per endpoint against uniform θ"
    scatter.style = 13
    scatter.x_axis.title, scatter.y_axis.title = "uniform θ (fraction of injection)", "$/endpoint"
    for r in range(first, last + 1):
        series = Series(Reference(ws, min_col=col["cost_per_endpoint"], min_row=r),
                        Reference(ws, min_col=col["theta"], min_row=r),
                        title_from_data=False, title=str(ws.cell(r, col["family"]).value))
        series.marker.symbol = "circle"
        series.marker.size = 8
        series.graphicalProperties.line.noFill = True
        scatter.series.append(series)
    scatter.width, scatter.height = XLSX_CHART_CM
    charts.add_chart(scatter, next(anchors))
    for pair, title, axis in XLSX_FAILURE_CHARTS:
        chart = BarChart()
        chart.title, chart.y_axis.title = title, axis
        for key in pair:
            chart.add_data(Reference(ws, min_col=col[key], min_row=2, max_row=last),
                           titles_from_data=True)
        chart.set_categories(families)
        chart.width, chart.height = XLSX_CHART_CM
        charts.add_chart(chart, next(anchors))


_INT_KEYS = {"endpoints", "routers", "electrical", "optical", "network_electrical",
             "network_optical", "endpoint_electrical", "endpoint_optical", "links"}


def _sheet_name(name: str, used: set[str]) -> str:
    base = re.sub(r"[\\/*?:\[\]]", "_", name)[:31]
    out, n = base, 2
    while out in used:
        out = f"{base[:28]}~{n}"
        n += 1
    used.add(out)
    return out


def _plain(v: Any) -> Any:
    """A cell value openpyxl writes as Excel expects (numpy scalars unwrapped, NaN empty)."""
    if isinstance(v, np.generic):
        v = v.item()
    return None if isinstance(v, float) and math.isnan(v) else v
