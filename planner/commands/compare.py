"""``planner compare``: plan several topologies for one target and compare them side by side."""

from __future__ import annotations

import argparse
from pathlib import Path

from planner.inputs.tuning import DEFAULT_TIME_LIMIT_S
from planner.run import progress
from planner.run.errors import InputError
from planner.run.terminal import printable

NAME = "compare"
HELP = ("plan several topology families like for like (same endpoints, balanced endpoints per "
        "router for the switch), or listed configurations, and compare cost, power, "
        "throughput, latency and cables")
ORDER = 40

DEFAULTS = {"catalog": "modern-100g", "floor": "hot-aisle", "strategy": "optimize",
            "time_limit": DEFAULT_TIME_LIMIT_S, "seed": 0, "endpoint_cables": True,
            "out": "compare"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", nargs="?", metavar="SPEC.yaml",
                   help="compare spec file (fields: endpoints, families, max_radix, "
                        "configurations, catalog, floor, strategy, time_limit, seed, "
                        "group_endpoints, endpoint_cables, title); options override it")
    p.add_argument("--endpoints", type=int, metavar="N",
                   help="target endpoint count: each family at its balanced endpoints per "
                        "router on --max-radix-port routers, near N (families that cannot be "
                        "sized so are listed with the reason)")
    p.add_argument("--families", metavar="F[,F...]", nargs="+",
                   help="families to size (default: every family 'planner size' knows)")
    p.add_argument("--max-radix", type=int, metavar="R",
                   help="ports of the switch the families are sized for (default: the "
                        "catalog's largest router)")
    p.add_argument("--topology", action="append", metavar="FAMILY:k=v,...", default=None,
                   help="an explicit configuration to compare (repeatable)")
    p.add_argument("--catalog", metavar="NAME|PATH", help="router/cable catalog (default "
                   f"{DEFAULTS['catalog']})")
    p.add_argument("--floor", metavar="NAME|PATH", help=f"floor layout (default "
                   f"{DEFAULTS['floor']})")
    p.add_argument("--out", metavar="DIR", help="output folder for compare.xlsx, compare.pdf "
                   f"and one plan folder per configuration (default ./{DEFAULTS['out']})")
    p.add_argument("--strategy", choices=("hint", "partition", "optimize"),
                   help="placement strategy for every plan (default optimize)")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="placement time limit per plan in seconds (default "
                        f"{DEFAULT_TIME_LIMIT_S:g})")
    p.add_argument("--seed", type=int, metavar="N", help="random seed (default 0)")
    p.add_argument("--group-endpoints", type=int, metavar="N",
                   help="about N endpoints per electrical group (overrides the floor)")
    p.add_argument("--no-endpoint-cables", dest="endpoint_cables", action="store_const",
                   const=False, default=None, help="leave router-endpoint cables out")
    p.add_argument("--jobs", type=int, metavar="J",
                   help="plans in parallel on this machine (default: CPU count; 1 = serial)")
    p.add_argument("--dask-scheduler", metavar="ADDRESS",
                   help="run the plans on an existing Dask cluster (e.g. tcp://host:8786)")
    p.add_argument("--outputs", choices=("all", "summary"), default="all",
                   help="what each plan folder holds: every file of 'planner plan' (all, the "
                        "default) or only summary.json and bom.xlsx (summary: a large sweep "
                        "in about half the time; plan the chosen design for the rest)")


def _pick(args_value, spec_value, default):
    if args_value is not None:
        return args_value
    return spec_value if spec_value is not None else default


def resolve(args: argparse.Namespace):
    """Spec file + options -> (configurations, catalog, floor, keyword options, out, title,
    excluded), ``excluded`` = (family, reason) of the families not sized like for like."""
    from planner import compare as cmp  # pandas: imported when the command runs, not for --help
    from planner.inputs.catalog import load_catalog
    from planner.inputs.floor import load_floor

    spec = cmp.load_spec(args.spec) if args.spec else cmp.CompareSpec()
    catalog = load_catalog(_pick(args.catalog, spec.catalog, DEFAULTS["catalog"]))
    floor = load_floor(_pick(args.floor, spec.floor, DEFAULTS["floor"]))
    for flag, value in (("--endpoints", args.endpoints), ("--max-radix", args.max_radix),
                        ("--jobs", args.jobs), ("--group-endpoints", args.group_endpoints)):
        if value is not None and value <= 0:
            raise InputError(f"{flag} must be a positive integer, got {value}")
    if args.time_limit is not None and not args.time_limit > 0:
        raise InputError(f"--time-limit must be a positive number of seconds, "
                         f"got {args.time_limit}")
    explicit = [cmp.Configuration.parse(t, "--topology") for t in (args.topology or [])]
    if not explicit:
        explicit = [cmp.Configuration.parse(t, f"compare spec '{args.spec}': configurations")
                    for t in spec.configurations]
    endpoints = _pick(args.endpoints, spec.endpoints, None)
    families = _families(args.families) if args.families else spec.families
    configs = list(explicit)
    excluded: list[tuple[str, str]] = []
    radix = None
    if endpoints is not None:
        radix = _pick(args.max_radix, spec.max_radix, max(m.radix for m in catalog.routers))
        sized, excluded = cmp.nearest_configurations(endpoints, radix, families)
        configs += [c for c in sized if c not in explicit]
    elif families or args.max_radix:
        raise InputError("--families/--max-radix size configurations for a target: "
                         "give --endpoints N as well")
    options = dict(strategy=_pick(args.strategy, spec.strategy, DEFAULTS["strategy"]),
                   time_limit_s=float(_pick(args.time_limit, spec.time_limit,
                                            DEFAULTS["time_limit"])),
                   seed=int(_pick(args.seed, spec.seed, DEFAULTS["seed"])),
                   group_endpoints=_pick(args.group_endpoints, spec.group_endpoints, None),
                   endpoint_cables=bool(_pick(args.endpoint_cables, spec.endpoint_cables,
                                              DEFAULTS["endpoint_cables"])))
    out = Path(args.out or DEFAULTS["out"])
    title = spec.title or ((f"{endpoints:,}-endpoint comparison on {radix}-port routers: "
                            if endpoints else "Comparison: ")
                           + f"catalog {catalog.name}, floor {floor.name}")
    return configs, catalog, floor, options, out, title, excluded


def _families(values: list[str]) -> list[str]:
    return [f.strip() for v in values for f in v.split(",") if f.strip()]


def run(args: argparse.Namespace) -> int:
    from planner import compare as cmp

    configs, catalog, floor, options, out, title, excluded = resolve(args)
    outcomes = cmp.compare(configs, catalog, floor, out_dir=out, workers=args.jobs,
                           scheduler=args.dask_scheduler, title=title,
                           progress=progress.auto(), excluded=excluded,
                           outputs=args.outputs, **options)
    print(printable(title, None))
    print(printable(cmp.format_table(outcomes, excluded), None, keep="\n"))
    print(printable(f"\nwrote {out / 'compare.xlsx'}, {out / 'compare.pdf'} and "
                    f"{len(outcomes)} plan folder(s) under {out}/", None, keep="\n"))
    return 0
