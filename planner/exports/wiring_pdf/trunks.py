"""The trunks section of structured cabling: the trunk schedule of ``exports.trunks_csv``."""

from __future__ import annotations

from planner.exports import trunks_csv
from planner.exports.wiring_pdf.layout import Section, Table


def trunks_section(plan) -> Section | None:
    """Structured cabling: the trunk schedule (``exports.trunks_csv``), one row per trunk from
    panel port to panel port with its part, ordered length, links and label."""
    if plan.structured is None:
        return None
    trunks = trunks_csv.table(plan.structured)
    ends = {end: (trunks[f"{end}_panel"] + ":" + trunks[f"{end}_port"]).tolist() for end in "ab"}
    data = [trunks["trunk_id"].tolist(), trunks["kind"].tolist(), ends["a"], ends["b"],
            trunks["sku"].tolist(), [f"{v:g}" for v in trunks["order_length_m"]],
            [f"{int(v):,}" for v in trunks["links"]], trunks["label"].tolist()]
    heads = ["trunk", "kind", "from (panel:port)", "to (panel:port)", "SKU", "order m", "links",
             "label"]
    align = ["l", "l", "l", "l", "l", "r", "r", "l"]
    return Section("Trunks", [Table(heads, data, align, size=7.0, leading=9.0).fit()], "trunks")
