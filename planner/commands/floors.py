"""``planner floors``: list the built-in floor layouts; ``show NAME|PATH`` prints one."""

from __future__ import annotations

from planner.commands._builtins import list_or_show, table
from planner.inputs.floor import Floor, hall_footprint_m, list_floors, load_floor

NAME = "floors"
HELP = "list the built-in floor layouts, or show one (floors show NAME|PATH)"
ORDER = 61


def add_arguments(parser) -> None:
    parser.add_argument("action", nargs="?", choices=["show"], help="show one floor")
    parser.add_argument("floor", nargs="?", metavar="NAME|PATH",
                        help="built-in floor name or a floor YAML file")
    parser.add_argument("--yaml", action="store_true",
                        help="with show: print the YAML file itself (with its source comments)")


def _hall_rows(floor: Floor) -> list[list[str]]:
    """Rows of the table for the ``hall`` block (or the abstract grid)."""
    hall = floor.hall
    if hall is None:
        return [["room", "abstract grid (no hall block): unbounded rows, Manhattan lengths"],
                ["cabinets per row", floor.cabinets_per_row
                 or f"near-square x*y+z grid, rows of {floor.row_rounding}(sqrt(n))"]]
    rows = hall.rows if hall.rows != "auto" else f"auto <= {hall.max_rows}"
    per_row = (hall.cabinets_per_row if hall.cabinets_per_row != "auto"
               else f"auto <= {hall.max_cabinets_per_row}")
    width, depth = hall_footprint_m(floor, hall.max_rows if hall.rows == "auto" else hall.rows,
                                    hall.max_cabinets_per_row if hall.cabinets_per_row == "auto"
                                    else hall.cabinets_per_row)
    link = ("" if hall.count == 1 else f", {hall.links} link {hall.link_m:g} m between hall "
            "entries" + (" per step" if hall.links == "corridor" else ""))
    if hall.links == "grid" and hall.count > 1:
        link = (f", grid of {hall.grid_columns} x {hall.grid_rows} halls per storey: "
                f"{hall.link_m:g} m per hall along a corridor, {hall.row_link_m:g} m per row of "
                f"halls, {hall.storey_link_m:g} m per storey between hall entries")
    trays = "at both row ends" + (f" and every {hall.cross_tray_every} cabinets"
                                  if hall.cross_tray_every else "")
    return [["halls", f"up to {hall.count}{link}"],
            ["hall size", f"{rows} rows x {per_row} cabinets; largest {float(width):g} x "
                          f"{float(depth):g} m" + ("; auto: near-square (aspect 1:2..2:1), sized to the system"
                                                   if "auto" in (hall.rows, hall.cabinets_per_row)
                                                   else "")],
            ["end aisles", f"{hall.end_aisle_m:g} m at both row ends"],
            ["cross trays", trays],
            ["aisles", "cold in front of row A, then hot/cold alternating; rows face cold "
                       "aisles"]]


def describe(floor: Floor) -> str:
    """Human-readable summary of a floor layout."""
    group = (f"{floor.group_cabinets} adjacent cabinet(s)" if floor.group_cabinets
             else f"about {floor.group_endpoints} endpoints")
    route = ("up to the tray, along the rows and cross trays (between halls through the "
             "entries and the hall link), down" if floor.hall is not None else "Manhattan")
    rows = [
        ["cabinet", f"{floor.cabinet_width_m:g} x {floor.cabinet_depth_m:g} m, "
                    f"{floor.cabinet_height_ru}U" + (" (abstract)" if floor.abstract else "")],
        ["pitch along row", f"{floor.pitch_m:g} m"],
        ["row pitch", f"{floor.row_pitch_m:g} m (aisle {floor.aisle_m:g} m)"],
        *_hall_rows(floor),
        ["max cabinets", floor.max_cabinets or "no limit"],
        ["router slots", f"{floor.router_slots} from RU {floor.first_router_ru}"],
        ["endpoint slots", "no limit" if floor.endpoint_slots is None
         else f"{floor.endpoint_slots} x {floor.endpoint_ru:g}U from RU {floor.first_endpoint_ru}"],
        ["power budget", "none" if floor.cabinet_kw_budget is None
         else f"{floor.cabinet_kw_budget:g} kW per cabinet"],
        ["electrical group", group],
        ["intra-cabinet cable", f"{floor.intra_cabinet_m:g} m"],
        ["inter-cabinet cable", f"{route} + {floor.overhead_per_cable_m:g} m per cable + "
                                f"{floor.overhead_per_end_m:g} m per end, "
                                f"+{floor.slack_pct:g} % slack"],
        ["media rule", floor.media_rule],
    ]
    lines = [f"floor {floor.name}: {floor.description}".rstrip(), ""]
    return "\n".join(lines + table(["field", "value"], rows))


def run(args) -> int:
    return list_or_show(args.action, args.floor, args.yaml, command=NAME, kind="floor",
                        folder="layouts", names=list_floors, load=load_floor, describe=describe)
