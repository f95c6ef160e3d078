"""The comparison table: its columns and the fixed-width text table ``planner compare`` prints.

``COLUMNS`` are the table's columns (terminal, compare.xlsx, compare.pdf); ``DETAIL_COLUMNS``
the further columns only compare.xlsx keeps. Every value is a key of the row
``planner.compare.running.row_from_summary`` reads from a plan's ``summary.json``.
"""

from __future__ import annotations

from typing import Any, Sequence

from planner.compare.running import Outcome

#: Table columns: (key, header, format) in display order.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("family", "family", "{}"),
    ("params", "parameters", "{}"),
    ("endpoints", "endpoints", "{:,}"),
    ("routers", "routers", "{:,}"),
    ("ports", "ports used", "{}"),
    ("cost_per_endpoint", "$/endpoint", "{:,.2f}"),
    ("power_per_endpoint_w", "W/endpoint", "{:.3f}"),
    ("theta_text", "uniform θ", "{}"),
    ("latency_ns", "latency ns", "{:,.0f}"),
    ("cost_per_tbps", "$ per Tb/s", "{:,.0f}"),
    ("theta_after_cabinet_text", "θ after worst cabinet", "{}"),
    ("cost_per_tbps_after_cabinet", "$ per Tb/s after worst cabinet", "{:,.0f}"),
    ("electrical", "electrical", "{:,}"),
    ("optical", "optical", "{:,}"),
    ("cable_length_m", "cable m", "{:,.0f}"),
    ("diameter", "diameter", "{}"),
    ("avg_distance", "avg dist", "{:.4f}"),
)
"""``uniform θ``: saturation throughput under uniform traffic as a fraction of injection bandwidth
(``<= x`` when only an upper bound is known); ``latency ns``: average zero-load latency between
endpoints; ``$ per Tb/s``: total cost / (θ x endpoints x port rate), at least this when θ is a
bound. All from the plan's ``summary.json`` ``performance`` block. ``θ after worst cabinet``:
uniform θ among the surviving endpoints after the single-cabinet failure that hurts most, and
``$ per Tb/s after worst cabinet``: total cost / (that θ x surviving endpoints x port rate),
from summary.json ``resilience`` (``planner.compare.running.RESILIENCE``)."""

#: Extra columns kept in compare.xlsx (not in the terminal table).
DETAIL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("radix", "radix"),
    ("router_sku", "router"),
    ("router_radix", "router ports"),
    ("ports_free", "ports free"),
    ("theta", "uniform θ (number)"),
    ("theta_kind", "uniform θ kind"),
    ("theta_ecmp", "uniform θ, ECMP minimal routing"),
    ("worst_case_ecmp", "worst-case θ, ECMP minimal routing"),
    ("worst_case_optimal", "worst-case θ, optimal routing"),
    ("worst_case_pattern", "worst-case pattern"),
    ("latency_max_ns", "worst-pair latency ns"),
    ("router_latency_ns", "router delay ns"),
    ("bisection_links", "bisection cables"),
    ("bisection_kind", "bisection kind"),
    ("delivered_tbps", "delivered Tb/s"),
    ("theta_after_cabinet", "θ after worst cabinet (number)"),
    ("theta_ratio_after_cabinet", "θ after worst cabinet / intact θ"),
    ("theta_after_cabinet_kind", "θ after worst cabinet kind"),
    ("worst_cabinet", "worst cabinet"),
    ("delivered_tbps_after_cabinet", "delivered Tb/s after worst cabinet"),
    ("network_electrical", "network electrical"),
    ("network_optical", "network optical"),
    ("endpoint_electrical", "endpoint electrical"),
    ("endpoint_optical", "endpoint optical"),
    ("links", "router links"),
    ("cabinets", "cabinets"),
    ("groups", "electrical groups"),
    ("strategy", "strategy"),
    ("method", "method"),
    ("optical_lower_bound", "optical lower bound"),
    ("cost_routers", "routers $"),
    ("cost_cables", "cables $"),
    ("cost_total", "total $"),
    ("power_total_w", "total W"),
    ("folder", "plan folder"),
)


def cell_text(value: Any, fmt: str) -> str:
    """``fmt`` applied to a value, ``n/a`` for a missing one."""
    return "n/a" if value is None else fmt.format(value)


def format_table(outcomes: Sequence[Outcome],
                 excluded: Sequence[tuple[str, str]] = ()) -> str:
    """Fixed-width text table for the terminal; numbers right-aligned; then the families left
    out of a like-for-like comparison and why."""
    headers = [h for _, h, _ in COLUMNS]
    cells = [[cell_text(o.row.get(k), fmt) for k, _, fmt in COLUMNS] for o in outcomes]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    left = {0, 1}

    def line(values):
        return "  ".join(v.ljust(w) if i in left else v.rjust(w)
                         for i, (v, w) in enumerate(zip(values, widths))).rstrip()

    text = [line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells]
    if excluded:
        text += ["", "not compared (cannot be sized like for like for this switch):"]
        text += [f"  {family}: {reason}" for family, reason in excluded]
    return "\n".join(text)
