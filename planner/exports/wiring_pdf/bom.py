"""The bill of materials section: one row per line of ``plan.bom``, then the total."""

from __future__ import annotations

import pandas as pd

from planner.exports.wiring_pdf.formatting import money
from planner.exports.wiring_pdf.layout import Section, Table


def bom_section(plan) -> Section:
    bom = plan.bom
    cols = [c for c in ["item", "sku", "description", "length_m", "quantity", "spares",
                        "unit_price", "extended_price"] if c in bom.columns]
    heads = {"length_m": "length (m)", "unit_price": "unit price",
             "extended_price": "extended price"}
    data = []
    for c in cols:
        series = bom[c]
        if c in ("unit_price", "extended_price"):
            data.append([money(v) for v in series])
        elif c == "length_m":
            data.append(["" if pd.isna(v) else f"{v:g}" for v in series])
        elif c in ("quantity", "spares"):
            data.append([f"{int(v):,}" for v in series])
        else:
            data.append(["" if pd.isna(v) else str(v) for v in series])
    if "extended_price" in cols:
        for j, c in enumerate(cols):
            data[j].append("TOTAL" if j == 0 else
                           money(float(bom["extended_price"].sum())) if c == "extended_price"
                           else "")
    align = ["r" if c in ("length_m", "quantity", "spares", "unit_price", "extended_price")
             else "l" for c in cols]
    return Section("Bill of materials",
                   [Table([heads.get(c, c) for c in cols], data, align, size=7.0,
                          leading=9.0).fit()], "bom")
