"""``planner plan``: topology + catalog + floor -> placement, cables, BOM and every export."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from planner import exports
from planner.inputs import schema
from planner.inputs import spec as specs
from planner.inputs.tuning import DEFAULT_TIME_LIMIT_S
from planner.performance import simulators
from planner.performance.simulators import BOOKSIM_DEFAULTS, BOOKSIM_TRAFFIC
from planner.run import guards, output, progress
from planner.run.errors import InputError
from planner.run.terminal import printable
from planner.topologies import defaults, importers, sizing

NAME = "plan"
HELP = ("plan a system: placement, every cable with ports and labels, the priced BOM and the "
        "exports (summary.json, cables.csv, bom.xlsx, ...)")
ORDER = 20
def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", nargs="?", metavar="SPEC.yaml",
                   help="spec file with the same fields as the options (topology, catalog, "
                        "floor, out, strategy, time_limit, seed, group_endpoints, "
                        "endpoint_cables, spares, spares_optics, spares_switches, writers); options "
                        "override it. Without it (and "
                        f"without options): {specs.DEFAULT_TOPOLOGY} on "
                        f"{specs.DEFAULT_CATALOG} in {specs.DEFAULT_FLOOR}")
    p.add_argument("--topology", metavar="FAMILY:k=v,...|file:PATH",
                   help=f"topology (default {specs.DEFAULT_TOPOLOGY}); file: imports GraphML "
                        "(.graphml), edge-list CSV (.csv) or BookSim anynet (.anynet)")
    p.add_argument("--catalog", metavar="NAME|PATH",
                   help=f"router/cable catalog (default {specs.DEFAULT_CATALOG}; "
                        "see 'planner catalogs')")
    p.add_argument("--floor", metavar="NAME|PATH",
                   help=f"floor layout (default {specs.DEFAULT_FLOOR}; see 'planner floors')")
    p.add_argument("--out", metavar="DIR",
                   help=f"output folder, replaced atomically (default ./{specs.DEFAULT_OUT})")
    p.add_argument("--strategy", choices=("hint", "partition", "optimize"),
                   help="placement: the topology's natural groups, a graph partition, or the "
                        "best of several candidates improved by OR-Tools (default optimize)")
    p.add_argument("--time-limit", dest="time_limit", type=float, metavar="S",
                   help=f"placement time limit in seconds (default {DEFAULT_TIME_LIMIT_S:g}); "
                        "the placement's work budgets grow with it")
    p.add_argument("--seed", type=int, metavar="N", help="random seed (default 0)")
    p.add_argument("--group-endpoints", dest="group_endpoints", type=int, metavar="N",
                   help="about N endpoints per electrical group (overrides the floor)")
    p.add_argument("--no-endpoint-cables", dest="endpoint_cables", action="store_const",
                   const=False, default=None,
                   help="router-router cables only (as the papers' cost tables)")
    p.add_argument("--spares", type=float, metavar="PCT",
                   help="spare cables and fibre per BOM line, in percent (default 0)")
    p.add_argument("--spares-optics", dest="spares_optics", type=float, metavar="PCT",
                   help="spare transceivers per BOM line, in percent (default 0)")
    p.add_argument("--spares-switches", dest="spares_switches", type=float, metavar="PCT",
                   help="spare switches, in percent of the switch line (default 0)")
    p.add_argument("--writers", type=int, metavar="N",
                   help="at most N export writers at once, each past the first in a forked "
                        "process (default: up to 4, as many as the CPUs and the memory "
                        "available once the plan is built allow; 1 writes one file after "
                        "the other in the planner's own process, the least memory); the "
                        "files are the same")
    p.add_argument("--router-latency-ns", dest="router_latency_ns", type=float, metavar="NS",
                   help="router (switch) delay for the latency figures, overriding the "
                        "catalog's latency_ns")
    p.add_argument("--booksim-cycle-ns", dest="booksim_cycle_ns", type=float, metavar="NS",
                   help="router clock period of booksim.cfg: channel latencies are cable "
                        f"delays in these cycles (default {BOOKSIM_DEFAULTS['cycle_ns']:g})")
    p.add_argument("--booksim-rate", dest="booksim_rate", type=float, metavar="R",
                   help="injection rate of the BookSim cfgs, flits per cycle per node (default "
                        "half the plan's saturation estimate, docs/performance.md)")
    p.add_argument("--booksim-traffic", dest="booksim_traffic", metavar="NAME",
                   help=f"traffic pattern of booksim.cfg (default "
                        f"{BOOKSIM_DEFAULTS['traffic']}; {', '.join(BOOKSIM_TRAFFIC)})")
    p.add_argument("--prices", action="append", default=[], metavar="FILE",
                   help="filled-in rfq sheets (CSV/XLSX) whose quoted prices replace the "
                        "catalog's before placement; repeat for several (docs/procurement.md)")
    p.add_argument("--optics", choices=("genuine", "compatible", "cheapest"),
                   default="genuine",
                   help="which of a part's equivalent offers to buy and price the placement "
                        "with: the switch vendor's own (default), third-party compatible ones "
                        "where the catalog lists them, or the cheapest (docs/procurement.md)")
    p.add_argument("--resilience", default="all",
                   choices=("all", "cabinet", "trunk", "panel", "tray", "row", "off"),
                   help="failure groups whose single failures are measured (θ, hops, pairs "
                        "cut off; summary.json 'resilience', docs/performance.md "
                        "\"Resilience\"): every kind the floor has data for (default), one "
                        "kind, or none")
    p.add_argument("--resilience-exact", dest="resilience_exact", action="store_true",
                   help="θ after every failure from the exact max concurrent flow LP whatever "
                        "its size (default: the LP where it fits the budget, else labelled "
                        "bounds); warns of the expected time first")
    p.add_argument("--fail-links", dest="fail_links", type=_cable_count, metavar="K",
                   help="cables failed at random in each of the seeded draws (default: "
                        "10, fewer on a plan with fewer network cables; 0: no draws)")
    p.add_argument("--spread-risk", dest="spread_risk", nargs="?", const="min", type=_share,
                   metavar="SHARE",
                   help="place routers so that no cabinet holds more than SHARE (0..1] of any "
                        "other router's network cables (default without SHARE: the smallest "
                        "share the routers allow); summary.json 'spread_risk' compares it with "
                        "the plain placement (docs/performance.md \"Spreading risk\")")
    p.add_argument("--rate", action="append", default=[], metavar="CUR=RATE",
                   help="exchange rate of a --prices currency: one CUR costs RATE of the "
                        "catalog's currency (e.g. EUR=1.08)")


def _cable_count(text: str) -> int:
    """``--fail-links``: a whole number, 0 or more (argparse prints the one-line error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of cables, got {text!r}") \
            from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more cables (0: no random failures), "
                                         f"got {value}")
    return value


def _share(text: str):
    """``--spread-risk``: a share in (0, 1] or ``min`` (argparse prints the one-line error)."""
    if text == "min":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a share of a router's cables in (0, 1], "
                                         f"e.g. 0.25, got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a share in (0, 1] (1: no limit), e.g. "
                                         f"0.25, got {text!r}")
    return value


def _floor_given(args: argparse.Namespace) -> bool:
    """Whether ``--floor`` or the spec file names a floor; otherwise the catalog's
    ``default_floor`` (a built-in floor its switches fit) replaces the default one."""
    if args.floor is not None:
        return True
    return bool(args.spec) and "floor" in schema.read_yaml(Path(args.spec), "spec")


def resolve_spec(args: argparse.Namespace) -> specs.Spec:
    """The spec file (or the built-in default) with the command-line options applied."""
    base = specs.load_spec(args.spec) if args.spec else specs.Spec()
    return specs.merge(base, {"topology": args.topology, "catalog": args.catalog,
                              "floor": args.floor, "out": args.out, "strategy": args.strategy,
                              "time_limit": args.time_limit, "seed": args.seed,
                              "group_endpoints": args.group_endpoints,
                              "endpoint_cables": args.endpoint_cables,
                              "spares": args.spares, "spares_optics": args.spares_optics,
                              "spares_switches": args.spares_switches,
                              "writers": args.writers})


def _placement_result(place: dict, gap: str) -> str:
    """What the placement minimised, against its bound: links leaving electrical groups on
    membership floors, cable dollars (and copper links) on reach floors."""
    if place.get("objective") != "cable dollars":
        return (f"{place['optical']:,} optical links, lower bound "
                f"{place['optical_lower_bound']:,} (gap {gap})")
    return (f"cables ${place['cable_cost']:,.2f}, lower bound "
            f"${place['cable_cost_lower_bound']:,.2f} (gap {gap}); {place['copper']:,} copper "
            f"links, at most {place['copper_upper_bound']:,} in any placement in this room")


def summary_table(result, out: Path, files: list[str]) -> str:
    """The short table printed at the end of ``planner plan``; its cost line names every class
    of the bill of materials that costs anything (``planner.costing.bom.COST_LINES``)."""
    from planner.costing.bom import cost_lines     # here: `plan --help` stays light

    s = result.summary
    top, cab, cables = s["topology"], s["catalog"], s["cables"]
    net, end = cables["network"], cables["endpoint"]
    cost, power, place = s["cost"], s["power"], s["placement"]
    params = ",".join(f"{k}={v}" for k, v in top["params"].items())
    bounded = place["optical_lower_bound"] or place.get("cable_cost_lower_bound")
    gap = f"{100 * place['gap']:.1f} %" if bounded else "n/a"
    rows = [
        ("topology", f"{top['family']}:{params}  diameter {top['diameter']}"),
        ("routers", f"{top['routers']:,} x {cab['router_sku']} ({cab['router_radix']} ports, "
                    f"{top['radix']} used)"),
        ("endpoints", f"{top['endpoints']:,}"),
        ("floor", f"{s['floor']['name']}: {place['cabinets']:,} cabinets, "
                  f"{place['groups']:,} electrical groups"),
        ("placement", f"{place['strategy']}/{place['method']}: {_placement_result(place, gap)}"
                      + (" - time-capped: the wall-clock safety cap cut placement short, so this "
                         "result depends on the machine's load" if place.get("time_capped") else "")),
        ("network cables", f"{net['count']:,} ({net['electrical']:,} electrical, "
                           f"{net['optical']:,} optical), {net['length_m']:,.1f} m"),
        ("endpoint cables", f"{end['count']:,} ({end['electrical']:,} electrical, "
                            f"{end['optical']:,} optical), {end['length_m']:,.1f} m"),
        ("cost", f"${cost['total']:,.2f}  (${cost['per_endpoint']:,.2f} per endpoint): "
                 + "; ".join(f"{words} ${value:,.2f}" for _, words, value in cost_lines(cost)
                             if value)),
        ("power", f"{power['total_w']:,.1f} W  ({power['per_endpoint_w']:.3f} W per endpoint)"),
    ]
    if "performance" in s:
        from planner.performance import summary_lines
        rows += summary_lines(s["performance"])
    if "resilience" in s:
        from planner.performance.resilience import text_lines
        rows += text_lines(s["resilience"])
    if "spread_risk" in s:
        from planner.performance.spread_risk import text_line
        rows.append(text_line(s["spread_risk"]))
    warning = s.get("simulators", {}).get("booksim", {}).get("warning")
    if warning:
        rows.append(("booksim", f"warning: {warning}"))
    rows.append(("output", f"{out}/  ({len(files)} files)"))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {printable(v, None)}" for k, v in rows)  # SKU, names


def input_files(args: argparse.Namespace, spec: specs.Spec) -> list[Path]:
    """The files this run reads (spec, catalog and floor paths, an imported topology), which
    ``--out`` must not hold."""
    paths = [Path(args.spec)] if args.spec else []
    if isinstance(spec.topology, str) and spec.topology.strip().startswith("file:"):
        paths.append(Path(spec.topology.strip()[len("file:"):].partition("?")[0]))
        importers.check_link_loop(paths[-1])     # before --out is compared with it
    paths += [Path(value) for value in (spec.catalog, spec.floor) if _is_file(Path(value))]
    paths += [Path(value) for value in getattr(args, "prices", None) or []]
    return paths


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; a name the file system refuses (too long) is not one (the
    catalog or floor loader then names it)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _from_spec(args: argparse.Namespace, field: str, load):
    """``load()``; an InputError about a value that came from the spec file names the file
    and the field."""
    try:
        return load()
    except InputError as err:
        if args.spec and getattr(args, field) is None and not str(err).startswith("spec "):
            raise InputError(f"spec '{args.spec}': field '{field}': {err}") from None
        raise


def _quoted(catalog, args: argparse.Namespace):
    """The catalog at the prices of the ``--prices`` quotes (cheapest valid offer per part)."""
    import datetime

    from planner.costing.quotes import DEFAULT_CURRENCY, parse_rates
    from planner.costing.reprice import catalog_with_quotes
    currency = getattr(catalog, "currency", None) or DEFAULT_CURRENCY
    priced, _quotes = catalog_with_quotes(catalog, args.prices, currency=currency,
                                          rates=parse_rates(args.rate),
                                          today=datetime.date.today())
    return priced


def run(args: argparse.Namespace) -> int:
    from planner.costing.bom import Spares
    from planner.costing.quotes import parse_rates
    from planner.inputs.catalog import load_catalog
    from planner.inputs.floor import load_floor
    from planner.plan import check_options, plan
    if args.booksim_traffic is not None:   # before anything is read or built
        args.booksim_traffic = simulators.check_traffic(args.booksim_traffic)
    spec = resolve_spec(args)
    check_options(spec.strategy, spec.time_limit, spec.spares, spec.seed)
    inputs = _from_spec(args, "topology", lambda: input_files(args, spec))
    _from_spec(args, "out", lambda: output.check_out(spec.out, inputs))

    def build_topology():
        estimate = sizing.check_topology_spec(spec.topology, spec.endpoint_cables)  # first
        if estimate is not None and spec.writers is not None:     # memory at that count
            guards.check(dataclasses.replace(estimate, writers=spec.writers),
                         f"--topology '{specs.describe_topology(spec)}'", spec.endpoint_cables)
        return specs.topology_of(spec)

    topology = _from_spec(args, "topology", build_topology)
    catalog = _from_spec(args, "catalog", lambda: load_catalog(spec.catalog))
    catalog = catalog.with_offers(args.optics)       # before --prices: quotes name the offers
    if args.prices:
        catalog = _quoted(catalog, args)
    if catalog.default_floor and not _floor_given(args):
        spec = spec.model_copy(update={"floor": catalog.default_floor})
    floor = _from_spec(args, "floor", lambda: load_floor(spec.floor))
    cables = topology.num_links + (topology.num_endpoints if spec.endpoint_cables else 0)
    _from_spec(args, "out", lambda: guards.check_space(spec.out, cables))
    mode = progress.auto()
    result = plan(topology, catalog, floor, strategy=spec.strategy,
                  time_limit_s=spec.time_limit, seed=spec.seed,
                  group_endpoints=spec.group_endpoints, endpoint_cables=spec.endpoint_cables,
                  spares_pct=spec.spares, progress=mode,
                  spares=Spares(switches=spec.spares_switches, optics=spec.spares_optics,
                                cables=spec.spares),
                  router_latency_ns=args.router_latency_ns,
                  booksim={"cycle_ns": args.booksim_cycle_ns,
                           "injection_rate": args.booksim_rate,
                           "traffic": args.booksim_traffic},
                  resilience=args.resilience, fail_links=args.fail_links,
                  spread_risk=args.spread_risk, resilience_exact=args.resilience_exact)
    if args.prices:       # where the prices came from; catalog.yaml holds them
        result.summary["prices"] = {"quotes": [str(p) for p in args.prices],
                                    "rates": parse_rates(args.rate)}
    files = exports.write_plan(result, spec.out, progress=mode, max_writers=spec.writers)  # --out as given, for messages
    for note in defaults.notes(result.topology):   # a size the user did not give
        print(f"note: {printable(note, None)}")
    print(summary_table(result, Path(spec.out), files), flush=True)
    return 0
