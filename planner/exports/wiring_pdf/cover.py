"""The cover section: title, the totals in plain language (routers, cabinets, cables by kind
and media, the pieces to install, the parts to order: the bill of materials' lines, cost by
every class of the bill of materials, power, performance), then every ``summary.json`` value.
Long values wrap onto continuation lines, so no text is set below ``style.MIN_TEXT_PT``."""

from __future__ import annotations

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from planner.costing.bom import cost_lines
from planner.exports.wiring_pdf.formatting import flatten, money, num, wrap
from planner.exports.wiring_pdf.layout import Figure, Section, Table
from planner.exports.wiring_pdf.style import BOLD, CONTENT_W, FONT

TOTALS_SIZE, SUMMARY_SIZE = 9.0, 8.0
"""Type of the totals and of the ``summary.json`` table (set in the writer's first version)."""


def totals_rows(plan) -> list[tuple[str, str]]:
    """The cover's plain-language totals (from ``plan.summary`` and the cable table)."""
    s = plan.summary
    top, cab, model = plan.topology, plan.cabinets, plan.router_model
    dev = s.get("devices", {})
    rows = [("System", f"{top.family} ({', '.join(f'{k}={v}' for k, v in top.params.items())})"),
            ("Routers", f"{top.num_routers:,} x {model.sku} ({int(model.radix)} ports; "
                        f"{num(dev.get('router_ports_used', 0))} of "
                        f"{num(dev.get('router_ports', 0))} ports cabled)"),
            ("Endpoints", f"{top.num_endpoints:,}"),
            ("Cabinets", f"{len(cab):,} in {cab['row'].nunique():,} rows, "
                         f"{cab['group'].nunique():,} electrical groups (floor {plan.floor.name})")]
    for kind in ("network", "endpoint"):
        c = s["cables"].get(kind, {})
        if c.get("count"):
            rows.append((f"{kind.capitalize()} cables",
                         f"{num(c['count'])}: {num(c['electrical'])} electrical, "
                         f"{num(c['optical'])} optical; {num(c['length_m'])} m estimated, "
                         f"{num(c['order_length_m'])} m ordered, "
                         f"longest {num(c['max_length_m'])} m"))
    if plan.pieces is not None:
        roles = plan.pieces.table["role"].value_counts()
        words = {"cable": "cables between devices", "cord": "patch cords",
                 "trunk": "trunks"}
        rows.append(("Pieces to install", "; ".join(
            f"{int(roles[r]):,} {w}" for r, w in words.items() if roles.get(r, 0))
            + " (labels.pdf: one label per end)"))
    bom = plan.bom
    rows.append(("Parts to order", f"{len(bom):,} lines, {int(bom['quantity'].sum()):,} parts "
                 f"+ {int(bom['spares'].sum()):,} spares: the Bill of materials section, "
                 "the same lines as bom.xlsx"))
    cost, power = s.get("cost", {}), s.get("power", {})
    if cost:
        code = (cost.get("price_basis") or {}).get("currency") or "USD"   # ISO 4217
        rows.append(("Cost", f"{code} {money(cost['total'])} total, {code} "
                             f"{money(cost['per_endpoint'])} per endpoint:"))
        total = float(cost["total"]) or 1.0
        rows += [("", f"{words} {code} {money(value)} ({100 * value / total:.1f} %)")
                 for _, words, value in cost_lines(cost)]
        if cost.get("price_basis"):
            from planner.costing.basis import sentence
            rows.append(("Price basis", sentence(cost["price_basis"])))
    if power:
        rows.append(("Power", f"{num(power['total_w'])} W total, "
                              f"{num(power['per_endpoint_w'])} W per endpoint"))
    if s.get("performance"):
        from planner.performance import summary_lines
        rows += [(name[:1].upper() + name[1:], text)
                 for name, text in summary_lines(s["performance"])]
    if s.get("resilience"):
        from planner.performance.resilience import text_lines
        rows += [(name[:1].upper() + name[1:], text) for name, text in
                 text_lines(s["resilience"])]
    return rows


def cover_section(plan) -> Section:
    """Title, the totals in plain language, then every ``summary.json`` value."""
    top = plan.topology
    params = ", ".join(f"{k}={v}" for k, v in top.params.items())
    lines: list[tuple[str, str]] = []
    flatten("", plan.summary, lines)

    def draw(canvas: Canvas, x: float, y: float, width: float) -> None:
        canvas.setFont(BOLD, 22)
        canvas.drawString(x, y - 22, "Wiring plan")
        canvas.setFont(FONT, 12)
        canvas.drawString(x, y - 44, f"{top.family} ({params})"[:90])
        canvas.drawString(x, y - 62, f"{top.num_routers:,} routers, {top.num_endpoints:,} "
                                     f"endpoints, {len(plan.cabinets):,} cabinets, "
                                     f"{len(plan.cables):,} cables")
        canvas.setFont(FONT, 9)
        canvas.drawString(x, y - 80, f"catalog {plan.catalog.name}, floor {plan.floor.name}, "
                                     f"router {plan.router_model.sku}")

    blocks = [Figure(92.0, draw),
              _two_columns(["Totals", ""], totals_rows(plan), TOTALS_SIZE, 12.0, False),
              _two_columns(["summary.json", "value"], lines, SUMMARY_SIZE, 10.5, True)]
    return Section("Summary", blocks, "summary")


def _two_columns(headers: list[str], rows: list[tuple[str, str]], size: float,
                 leading: float, shade: bool) -> Table:
    """A key / value table whose long values wrap onto continuation rows at ``size``."""
    key_w = max([stringWidth(k, FONT, size) for k, _ in rows]
                + [stringWidth(headers[0], BOLD, size)]) + 5.0
    keys, values = [], []
    for key, value in rows:
        lines = wrap(value, CONTENT_W - key_w - 5.0, FONT, size)
        keys += [key] + [""] * (len(lines) - 1)
        values += lines
    return Table(headers, [keys, values], ["l", "l"], size=size, leading=leading,
                 shade=shade).fit()
