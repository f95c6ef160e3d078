"""``planner size --endpoints N --max-radix R``: per family, the configurations nearest N on
R-port switches, with endpoints per router from the family's balance rule and the switch ports
each option uses and leaves free (``planner.topologies.sizing``)."""

from __future__ import annotations

import json

from planner.topologies.sizing import OPTIONS, nearest
from planner.topologies.tuning import SIZE_TOLERANCE

NAME = "size"
HELP = ("list, per family, the configurations nearest N endpoints on R-port routers, with the "
        "ports each uses and leaves free")
ORDER = 30


def add_arguments(parser) -> None:
    parser.add_argument("--endpoints", type=int, required=True, metavar="N",
                        help="target number of endpoints (compute nodes)")
    parser.add_argument("--max-radix", type=int, required=True, metavar="R",
                        help="ports of the switch (network + endpoint ports per router)")
    parser.add_argument("--families", nargs="+", metavar="FAMILY",
                        help=f"families to size (default: {' '.join(OPTIONS)}); "
                             "commas also separate")
    parser.add_argument("--count", type=int, default=3, metavar="K",
                        help="configurations per family (default 3)")
    parser.add_argument("--json", action="store_true", help="print a JSON list")


def run(args) -> int:
    families = [f for word in args.families or [] for f in word.split(",") if f.strip()]
    found = nearest(args.endpoints, args.max_radix, families or None, args.count)
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
    empty = [f for f, options in found.items() if not options]
    if empty:
        print(f"no buildable configuration within radix {args.max_radix}: {', '.join(empty)}")
    return 0
