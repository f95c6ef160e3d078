"""The cover section: title, the totals in plain language (routers, cabinets, cables by kind
and media, cables to order by SKU and stock length, cost, power, performance), then every
``summary.json`` value."""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from planner.exports.wiring_pdf.formatting import flatten, money, num
from planner.exports.wiring_pdf.layout import Figure, Section, Table
from planner.exports.wiring_pdf.style import BOLD, FONT


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
    order = plan.cables.groupby(["sku", "order_length_m"], sort=True).size()
    rows += [("Cables to order" if i == 0 else "", f"{k:,} x {sku}, {length:g} m")
             for i, ((sku, length), k) in enumerate(order.items())]
    cost, power = s.get("cost", {}), s.get("power", {})
    if cost:
        rows.append(("Cost", f"${money(cost['total'])} total, ${money(cost['per_endpoint'])} per "
                             f"endpoint (routers ${money(cost['routers'])}, cables "
                             f"${money(cost['cables'])})"))
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

    totals = totals_rows(plan)
    blocks = [Figure(92.0, draw),
              Table(["Totals", ""], [[k for k, _ in totals], [v for _, v in totals]], ["l", "l"],
                    size=9.0, leading=12.0, shade=False).fit(),
              Table(["summary.json", "value"], [[k for k, _ in lines], [v for _, v in lines]],
                    ["l", "l"], size=8.0, leading=10.5).fit()]
    return Section("Summary", blocks, "summary")
