"""``planner catalogs``: list the built-in router/cable catalogs; ``show NAME|PATH`` prints one."""

from __future__ import annotations

import math

from planner.commands._builtins import list_or_show, table
from planner.inputs.catalog import Catalog, list_catalogs, load_catalog

NAME = "catalogs"
HELP = "list the built-in router/link-part catalogs, or show one (catalogs show NAME|PATH)"
ORDER = 60


def add_arguments(parser) -> None:
    parser.add_argument("action", nargs="?", choices=["show"], help="show one catalog")
    parser.add_argument("catalog", nargs="?", metavar="NAME|PATH",
                        help="built-in catalog name or a catalog YAML file")
    parser.add_argument("--yaml", action="store_true",
                        help="with show: print the YAML file itself (with its source comments)")


def _router_rule(model) -> str:
    """``350.4*k - 892.3`` (k = ports) or the fixed price."""
    rule = model.price_rule
    if not rule.per_port:
        return f"{rule.fixed:,.2f}"
    if not rule.fixed:
        return f"{rule.per_port:g}*k"
    return f"{rule.per_port:g}*k {'-' if rule.fixed < 0 else '+'} {abs(rule.fixed):g}"


def _cable_rule(model) -> str:
    """``23.084 + 16.316/m``, ``0.5m:95 1m:105 ...`` (price per stock length) or ``800.00``
    (a transceiver module)."""
    rule = model.price_rule
    if rule.table is not None:
        return " ".join(f"{k:g}m:{v:,.2f}" for k, v in sorted(rule.table.items()))
    if model.kind == "transceiver":
        return f"{rule.fixed:,.2f}"
    return f"{rule.fixed:g} + {rule.per_m:g}/m"


def _part_numbers(model) -> str:
    """The part-number rule: a template, the first and last of a table, or the SKU itself."""
    numbers = model.part_numbers
    if numbers is None:
        return model.sku
    if isinstance(numbers, str):
        return numbers
    first, last = min(numbers), max(numbers)
    return f"{numbers[first]} .. {numbers[last]}"


def _fits(model) -> str:
    """What one part serves: ``2 links``, ``splitter 1:2``, ``2 ports``, ``fibre om4``."""
    if model.kind == "fibre":
        return f"fibre {model.fibre}"
    if model.kind == "transceiver":
        end = f", NIC end {model.nic_end}" if model.nic_end else ""
        return f"{model.ports} port{'s' if model.ports > 1 else ''} on {model.fibre}{end}"
    if model.split:
        return f"splitter 1:{model.links}"
    return f"{model.links} link{'s' if model.links > 1 else ''}"


def describe(cat: Catalog) -> str:
    """Human-readable summary of a catalog: settings, routers, link parts."""
    lines = [f"catalog {cat.name}: {cat.description}".rstrip(), ""]
    avg = cat.optical_average_length_m
    if avg:
        at = [(m, m.price(m.order_length(avg))) for m in cat.cables if m.kind == "aoc"]
        prices = ", ".join(f"{m.sku} {p:,.2f} $ = {p / m.rate_gbps:.4f} $/Gb/s"
                           for m, p in at if math.isfinite(p))
        lines.append(f"paper mode: every optical cable priced at {avg:g} m ({prices})")
    else:
        lines.append("paper mode: off")
    nic = (f"{cat.nic.sku}, {cat.nic.price:,.2f} $ and {cat.nic.watts:g} W per endpoint"
           if cat.nic is not None else "none")
    lines.append(f"NIC: {nic}; endpoint cables costed: "
                 f"{'yes' if cat.count_endpoint_cables else 'no'}")
    lines += ["", "routers:"]
    lines += table(["sku", "vendor", "Gb/s", "radix", "cages x split", "lanes", "W/lane",
                     "W/port", "base W", "RU", "price rule $ (k = ports)", "at radix $"],
                    [[m.sku, m.vendor, f"{m.rate_gbps:g}", m.radix,
                      f"{m.cage_count} x {m.breakout}", m.lanes_per_port,
                      f"{m.watts_per_lane:g}", f"{m.power_w(1):g}", f"{m.base_watts:g}",
                      f"{m.rack_units:g}", _router_rule(m), f"{m.price(m.radix):,.2f}"]
                     for m in cat.routers])
    lines += ["", "link parts:"]
    rows = []
    for m in cat.cables:
        stock = ",".join(f"{x:g}" for x in m.stock_lengths) or (
            "-" if m.kind == "transceiver" else "cut to length")
        rows.append([m.sku, m.media, m.kind, _fits(m), f"{m.max_reach_m:g}", stock,
                     f"{m.watts_per_end:g}", m.netbox_type or "-", m.color or "-",
                     _part_numbers(m), _cable_rule(m)])
    lines += table(["sku", "media", "kind", "serves", "reach m", "stock m", "W/end", "netbox",
                     "colour", "part numbers", "price $"], rows)
    extras = [(r.licence.sku, f"licence per {r.sku}", r.licence.price)
              for r in cat.routers if r.licence] + \
        [(x.sku, f"rack hardware per {x.per}", x.price) for x in cat.rack_hardware]
    if extras:
        lines += ["", "other lines:"]
        lines += table(["sku", "what", "price $"], [[s, w, f"{p:,.2f}"] for s, w, p in extras])
    return "\n".join(lines)


def run(args) -> int:
    return list_or_show(args.action, args.catalog, args.yaml, command=NAME, kind="catalog",
                        folder="catalogs", names=list_catalogs, load=load_catalog,
                        describe=describe)
