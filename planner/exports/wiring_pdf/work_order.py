"""The work order section of a grown plan (``planner expand``): every cable to remove, move or
add, in walking order, as ``work_order.csv`` lists it (``planner.cabling.work_order``)."""

from __future__ import annotations

from planner.exports.wiring_pdf.layout import Section, Table


def work_order_section(plan) -> Section | None:
    """One row per step: action, cable, label, standing ends, grown ends (device:port at
    each end), part, cabinet; None for a plan that did not grow."""
    order = getattr(plan, "work_order", None)
    if order is None:
        return None
    if not len(order):
        order = order.reindex([0]).fillna("")
        order.loc[0, "action"] = "nothing to do"
    plugs = {side: [_plugs(a, b) for a, b in zip(order[f"{side}_a"], order[f"{side}_b"])]
             for side in ("old", "new")}
    data = [[str(v) for v in order["step"]], [str(v) for v in order["action"]],
            [str(v) for v in order["cable_id"]], [str(v) for v in order["label"]],
            plugs["old"], plugs["new"], [str(v) for v in order["new_sku"]],
            [str(v) for v in order["cabinet"]]]
    heads = ["step", "action", "cable", "label", "standing ends", "grown ends", "part",
             "cabinet"]
    align = ["r"] + ["l"] * 7
    return Section("Work order", [Table(heads, data, align, size=7.0, leading=9.0).fit()],
                   "work-order")


def _plugs(a: str, b: str) -> str:
    """``r063:15 - r131:08``: the two ends of ``work_order.csv`` without their cabinets."""
    ends = [str(e).split("@")[0] for e in (a, b) if str(e)]
    return " - ".join(ends)
