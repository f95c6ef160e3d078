"""The work order section of a grown plan (``planner expand``): a table of the drain steps
(θ share kept while each is down, fabric cables moved, removed, added, its verification list),
then every cable and management cord to remove, move or add and every patch cord of a kept
cable to swap, drain step by drain step, in
walking order within a step, as ``work_order.csv`` lists it (``planner.cabling.work_order``)."""

from __future__ import annotations

from planner.exports.wiring_pdf.layout import Section, Table


def work_order_section(plan) -> Section | None:
    """The steps table, then per drain step one row per cable: step, action, cable, label,
    standing ends, grown ends (device:port at each end), part, cabinet; None for a plan that
    did not grow."""
    order = getattr(plan, "work_order", None)
    if order is None:
        return None
    blocks = []
    drain = (plan.summary.get("growth") or {}).get("drain")
    if drain and drain["steps"]:
        steps = drain["steps"]
        blocks.append(Table(
            ["drain step", f"θ kept (asked {drain['keep_theta']:g})", "moved", "removed",
             "added", "verify after it with"],
            [[str(s["step"]) for s in steps],
             [f"{s['theta_share']:.3f}" + ("" if s["meets"] else " (below)") for s in steps],
             [str(s["moved"]) for s in steps], [str(s["removed"]) for s in steps],
             [str(s["added"]) for s in steps], [s["verify_list"] for s in steps]],
            ["r", "r", "r", "r", "r", "l"], size=7.0, leading=9.0).fit())
    if not len(order):
        order = order.reindex([0]).astype(object).fillna("")
        order.loc[0, "action"] = "nothing to do"
    for _, rows in order.groupby("drain_step", sort=True):
        blocks.append(_rows_table(rows))
    return Section("Work order", blocks, "work-order")


def _rows_table(order) -> Table:
    plugs = {side: [_plugs(a, b) for a, b in zip(order[f"{side}_a"], order[f"{side}_b"])]
             for side in ("old", "new")}
    data = [[str(v) for v in order["drain_step"]], [str(v) for v in order["step"]],
            [str(v) for v in order["action"]], [str(v) for v in order["cable_id"]],
            [str(v) for v in order["label"]], plugs["old"], plugs["new"],
            [_part(a, o, n) for a, o, n in zip(order["action"], order["old_sku"],
                                               order["new_sku"])],
            [str(v) for v in order["cabinet"]]]
    heads = ["drain", "step", "action", "cable", "label", "standing ends", "grown ends", "part",
             "cabinet"]
    align = ["r", "r"] + ["l"] * 7
    return Table(heads, data, align, size=7.0, leading=9.0).fit()


def _part(action: str, old: str, new: str) -> str:
    """The part to fit: a cord swap's standing and grown cord (``OM4-MPO12_5m ->
    OM4-MPO12_7m``), else the grown part."""
    return f"{old} -> {new}" if action == "swap-cord" else str(new)


def _plugs(a: str, b: str) -> str:
    """``r063:15 - r131:08``: the two ends of ``work_order.csv`` without their cabinets."""
    ends = [str(e).split("@")[0] for e in (a, b) if str(e)]
    return " - ".join(ends)
