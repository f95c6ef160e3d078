"""``planner size --endpoints N --max-radix R``: per family, the configurations nearest N on
R-port switches, with endpoints per router from the family's balance rule and the switch ports
each option uses and leaves free (``planner.topologies.sizing``). With ``--catalog`` (and
``--floor``) only configurations that pass every check ``planner plan`` makes before placement
on them are listed (``planner.compare.sizing.nearest_checked``)."""

from __future__ import annotations

import json

from planner.compare.sizing import nearest_checked
from planner.inputs import spec as specs
from planner.run.errors import InputError
from planner.run.terminal import printable
from planner.topologies.sizing import OPTIONS, nearest
from planner.topologies.tuning import SIZE_TOLERANCE

NAME = "size"
HELP = ("list, per family, the configurations nearest N endpoints on R-port routers, with the "
        "ports each uses and leaves free")
ORDER = 30


def add_arguments(parser) -> None:
    parser.add_argument("--endpoints", type=int, required=True, metavar="N",
                        help="target number of endpoints (compute nodes)")
    parser.add_argument("--max-radix", type=int, metavar="R",
                        help="ports of the switch (network + endpoint ports per router; "
                             "default with --catalog: its largest router model)")
    parser.add_argument("--catalog", metavar="NAME|PATH",
                        help="list only configurations that pass, on this catalog and --floor, "
                             "every check planner plan makes before placement (router model, "
                             "cages and breakout, cabinets, halls, kW, memory)")
    parser.add_argument("--floor", metavar="NAME|PATH",
                        help=f"floor for --catalog's checks (default {specs.DEFAULT_FLOOR})")
    parser.add_argument("--no-endpoint-cables", dest="endpoint_cables", action="store_false",
                        help="check as planner plan --no-endpoint-cables would")
    parser.add_argument("--families", nargs="+", metavar="FAMILY",
                        help=f"families to size (default: {' '.join(OPTIONS)}); "
                             "commas also separate")
    parser.add_argument("--count", type=int, default=3, metavar="K",
                        help="configurations per family (default 3)")
    parser.add_argument("--json", action="store_true", help="print a JSON list")


def run(args) -> int:
    families = [f for word in args.families or [] for f in word.split(",") if f.strip()]
    catalog, floor = _inputs(args)
    refused = []
    if catalog is None:
        found = nearest(args.endpoints, args.max_radix, families or None, args.count)
    else:
        found, refused = nearest_checked(args.endpoints, args.max_radix, families or None,
                                         args.count, catalog, floor, args.endpoint_cables)
    rows = [o for options in found.values() for o in options]
    if args.json:
        print(json.dumps([o.as_dict() for o in rows], indent=2))
        return 0
    header = ["family", "configuration", "endpoints", "vs N", "routers", "ports used",
              "free", "ports/ep", "links/ep"]
    table = [[o.family, o.spec(), f"{o.endpoints:,}", f"{o.endpoints - args.endpoints:+,}",
              f"{o.routers:,}", f"{o.radix}/{args.max_radix}", str(o.ports_free),
              f"{o.ports_per_endpoint:.2f}", f"{o.links_per_endpoint:.2f}"] for o in rows]
    widths = [max(len(r[i]) for r in [header, *table]) for i in range(len(header))]
    right = {2, 3, 4, 5, 6, 7, 8}
    print(f"nearest {args.endpoints:,} endpoints on {args.max_radix}-port routers, endpoints "
          f"per router by each family's balance rule; within {SIZE_TOLERANCE:.0%} of the "
          f"target, the option leaving the fewest ports free first:")
    for r in [header, *table]:
        print("  ".join(c.rjust(w) if i in right else c.ljust(w)
                        for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    if catalog is not None:
        print(f"checked on catalog '{printable(catalog.name)}' and floor "
              f"'{printable(floor.name)}': {len(refused)} better-ranked configuration(s) left "
              "out, as planner plan would refuse them before placement")
        for option, why in refused[:args.count * 4]:
            print(f"  left out {option.spec()}: {printable(why)}")
    empty = [f for f, options in found.items() if not options]
    if empty:
        where = " that passes those checks" if catalog is not None else ""
        print(f"no buildable configuration{where} within radix {args.max_radix}: "
              f"{', '.join(empty)}")
    return 0


def _inputs(args):
    """(catalog, floor) of --catalog / --floor, (None, None) without --catalog; --max-radix
    from the catalog's largest router model when not given."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.floor import load_floor

    if args.catalog is None:
        if args.floor is not None:
            raise InputError("--floor needs --catalog: give the catalog to check against")
        if args.max_radix is None:
            raise InputError("--max-radix is required without --catalog; give the switch's "
                             "port count, or --catalog NAME to take its largest router model")
        return None, None
    catalog = load_catalog(args.catalog)
    floor = load_floor(args.floor or specs.DEFAULT_FLOOR)
    if args.max_radix is None:
        args.max_radix = max(m.radix for m in catalog.routers)
    return catalog, floor
