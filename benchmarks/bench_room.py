#!/usr/bin/env python3
"""The machine room at about 1K, 10K, 40K and 100K endpoints on the default catalog and floor.

For Slim Fly (the default topology family) and Dragonfly the configuration nearest each target
(``planner size`` with the catalog's largest radix, 64 for ``modern-100g``) is planned on the
``hot-aisle`` halls with placement strategy ``optimize`` and the default time limit; a family
whose nearest configuration is far from the target (Slim Fly tops out near 35K endpoints at
radix 64) is left out of that size. Each run happens in its own subprocess (peak memory sampled
as in ``bench.py``) and reports:

- halls, their rows x cabinets per row, width x depth and the total footprint;
- the longest cable and the share of cable cost in cross-hall runs (and their count);
- runtime (placement, cabling + costing + summary, writing cabinets.csv / cables.csv /
  summary.json) and peak memory;
- checks, read back from the written files: every hall within its row / cabinet bounds and
  with a footprint aspect within 1:2..2:1; ``cabinets.csv`` agrees with ``cables.csv`` (every
  cabinet named there exists) and with the devices (routers and endpoints per cabinet, total
  routers and endpoints); total kW = ``summary.json`` power; every cabinet within its kW budget;
- a digest of ``cables.csv`` and of ``summary.json`` without run times: a run on a busy machine
  (``--busy 2`` starts two busy-loop processes for the whole benchmark) must give the same
  digests, only other times, unless the placement's wall-clock safety net fired ("capped").

    python benchmarks/bench_room.py                       # writes benchmarks/RESULTS_room.md
    python benchmarks/bench_room.py --sizes 1k,10k        # a subset
    python benchmarks/bench_room.py --sizes 1k,10k --busy 2 \
        --results benchmarks/RESULTS_room_busy.md --against benchmarks/RESULTS_room.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench import RssSampler, machine  # noqa: E402  (benchmarks/ is not a package)

SIZES = {"1k": 1_000, "10k": 10_000, "40k": 40_000, "100k": 100_000}
FAMILIES = ("slimfly", "dragonfly")
NEAR = 0.6
"""A configuration counts for a target when it has at least NEAR x target endpoints."""
CATALOG, FLOOR = "modern-100g", "hot-aisle"


# --------------------------------------------------------------------------- one run (child)

def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def checks(plan, out: Path) -> dict[str, bool]:
    """The issue's checks on the written files (module doc)."""
    import pandas as pd

    from planner.inputs.floor import MIN_ASPECT

    floor = plan.floor
    summary = json.loads((out / "summary.json").read_text())
    cab = pd.read_csv(out / "cabinets.csv", keep_default_na=False)
    cables = pd.read_csv(out / "cables.csv", keep_default_na=False)
    room = summary["floor"]
    hall = floor.hall
    max_rows = hall.max_rows if hall.rows == "auto" else hall.rows
    max_cols = hall.max_cabinets_per_row if hall.cabinets_per_row == "auto" \
        else hall.cabinets_per_row
    aspect = room["hall_width_m"] / room["hall_depth_m"]
    dev = plan.devices
    counts = dev.groupby(["cabinet", "kind"]).size().unstack(fill_value=0)
    counts = counts.reindex(cab["name"], fill_value=0)
    return {
        "halls within bounds": bool(room["halls"] <= hall.count and room["hall_rows"] <= max_rows
                                    and room["hall_cabinets_per_row"] <= max_cols
                                    and cab["hall"].max() == room["halls"]),
        "aspect 1:2..2:1": bool(MIN_ASPECT - 1e-9 <= aspect <= 1 / MIN_ASPECT + 1e-9),
        "cabinets.csv = cables.csv": bool(
            set(cables["a_cabinet"]) | set(cables["b_cabinet"]) <= set(cab["name"])),
        "cabinets.csv = devices": bool(
            (cab["routers"].to_numpy() == counts["router"].to_numpy()).all()
            and (cab["endpoints"].to_numpy() == counts["endpoint"].to_numpy()).all()
            and cab["routers"].sum() == plan.topology.num_routers
            and cab["endpoints"].sum() == plan.topology.num_endpoints),
        "total kW = summary power": bool(
            abs(1000 * cab["kw"].sum() - summary["power"]["total_w"]) <= 1e-3 * len(cab) + 1e-3),
        "within kW budget": bool(floor.cabinet_kw_budget is None
                                 or cab["kw"].max() <= floor.cabinet_kw_budget + 1e-9),
    }


def run_one(spec: str, seed: int, out: Path) -> dict:
    """Plan one configuration, write the room files, check them (module doc)."""
    from planner import topologies
    from planner.compare import Configuration
    from planner.costing.bom import costed_mask
    from planner.exports import cabinets_csv, cables_csv, summary_json
    from planner.plan import plan

    conf = Configuration.parse(spec)
    out.mkdir(parents=True, exist_ok=True)
    with RssSampler() as rss:
        t0 = time.perf_counter()
        top = topologies.build(conf.family, **dict(conf.params))
        result = plan(top, CATALOG, FLOOR, strategy="optimize", seed=seed)
        t1 = time.perf_counter()
        for writer in (cabinets_csv, cables_csv, summary_json):
            writer.write(result, out)
        t2 = time.perf_counter()
    s = result.summary
    cables = result.cables
    bought = cables[costed_mask(cables, result.catalog)]
    cross = bought["route_kind"] == "cross-hall"
    summary = json.loads((out / "summary.json").read_text())
    for key in ("runtime",):
        summary.pop(key)
    for key in ("stage_seconds", "runtime_s"):
        summary["placement"].pop(key)
    return {
        "spec": conf.spec, "endpoints": top.num_endpoints, "routers": top.num_routers,
        "cables": int(len(cables)), "halls": s["floor"]["halls"],
        "hall_rows": s["floor"]["hall_rows"], "hall_cols": s["floor"]["hall_cabinets_per_row"],
        "hall_width_m": s["floor"]["hall_width_m"], "hall_depth_m": s["floor"]["hall_depth_m"],
        "footprint_m2": s["floor"]["footprint_m2"], "cabinets": s["placement"]["cabinets"],
        "longest_m": s["cables"]["longest_m"],
        "cross_hall_cables": int(cross.sum()),
        "cross_hall_cost_share": float(bought.loc[cross, "unit_price"].sum()
                                       / max(bought["unit_price"].sum(), 1e-9)),
        "cable_cost": float(bought["unit_price"].sum()),
        "peak_cabinet_kw": s["power"]["peak_cabinet_kw"],
        "place_s": s["runtime"]["placement_s"],
        "cable_cost_summary_s": round(s["runtime"]["total_s"] - s["runtime"]["placement_s"], 3),
        "write_s": t2 - t1, "total_s": t2 - t0, "peak_mib": rss.peak(t0, t2),
        "time_capped": bool(s["placement"]["time_capped"]),
        "checks": checks(result, out),
        "digest_cables": _digest((out / "cables.csv").read_bytes()),
        "digest_summary": _digest(json.dumps(summary, sort_keys=True).encode()),
        "kinds": s["cables"]["route_kind"],
    }


# --------------------------------------------------------------------------- driver (parent)

def _busy_loop() -> None:
    while True:
        pass


def pick(target: int, families) -> list[str]:
    """Specs of the configuration nearest ``target`` per family (``planner size``) that have at
    least NEAR x target endpoints."""
    from planner.compare import Configuration
    from planner.inputs.catalog import load_catalog
    from planner.topologies import sizing

    radix = max(m.radix for m in load_catalog(CATALOG).routers)
    found = sizing.nearest(target, radix, families=list(families), count=1)
    return [Configuration.of(family, options[0].params).spec
            for family, options in found.items()
            if options and options[0].endpoints >= NEAR * target]


def run_in_subprocess(spec: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="planner-room-") as tmp:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--one", spec, "--seed", str(seed),
               "--out", str(Path(tmp) / "plan")]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"spec": spec, "error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def markdown(results: list[tuple[str, dict]], args, m: dict[str, str]) -> str:
    out = [
        "# Machine-room benchmark",
        "",
        "Generated by `" + " ".join(["python benchmarks/bench_room.py", *args.argv]) + "`"
        + f" on {date.today().isoformat()}"
        + (f", with {args.busy} busy-loop processes running" if args.busy else "") + ".",
        "",
        f"Machine: {m['cpu']} ({m['nproc']} logical CPUs), {m['ram']}, Python {m['python']}.",
        "",
        f"Catalog `{CATALOG}`, floor `{FLOOR}` (auto-sized halls of at most 16 rows x 30 "
        "cabinets, 20.4 x 39.6 m, up to 16 halls joined through a meet-me room, 40 m between "
        f"hall entries), strategy `optimize`, default time limit, seed {args.seed}. Cross-hall "
        "share = cost of the cables that run between halls / cost of all bought cables.",
        "",
        "| target | configuration | endpoints | cabinets | halls | hall (rows x cabinets, m) "
        "| footprint m2 | longest cable m | cross-hall cables | cross-hall share of cable $ "
        "| place s | cable+cost s | write s | total s | peak MiB | checks | digests |",
        "|" + "---|" * 17,
    ]
    for size, r in results:
        if "error" in r:
            out.append(f"| {size} | `{r['spec']}` | failed: {r['error']} |")
            continue
        failed = [k for k, ok in r["checks"].items() if not ok]
        out.append(
            f"| {size} | `{r['spec']}` | {r['endpoints']:,} | {r['cabinets']:,} | {r['halls']} "
            f"| {r['hall_rows']} x {r['hall_cols']} ({r['hall_width_m']:g} x "
            f"{r['hall_depth_m']:g}) | {r['footprint_m2']:,.0f} | {r['longest_m']:.1f} "
            f"| {r['cross_hall_cables']:,} | {100 * r['cross_hall_cost_share']:.1f} % "
            f"| {r['place_s']:.1f} | {r['cable_cost_summary_s']:.1f} | {r['write_s']:.1f} "
            f"| {r['total_s']:.1f} | {r['peak_mib']:,.0f} "
            f"| {'all pass' if not failed else 'FAILED: ' + ', '.join(failed)} "
            f"| {r['digest_cables']} / {r['digest_summary']}"
            f"{' (capped)' if r['time_capped'] else ''} |")
    out += ["", "Checks per run: " + "; ".join(
        next((r["checks"] for _, r in results if "checks" in r), {}).keys()) + "."]
    if args.against:
        before = {r["spec"]: r for r in json.loads(args.against.read_text()) if "error" not in r}
        out += ["", f"Against `{args.against.name}` (same inputs and seed):", "",
                "| configuration | cables.csv | summary.json | capped there / here | "
                "total s there / here |", "|---|---|---|---|---|"]
        for _, r in results:
            q = before.get(r.get("spec"))
            if q is None or "error" in r:
                continue
            same = {k: "same" if r[f"digest_{k}"] == q[f"digest_{k}"] else "differs"
                    for k in ("cables", "summary")}
            out.append(f"| `{r['spec']}` | {same['cables']} | {same['summary']} | "
                       f"{q['time_capped']} / {r['time_capped']} | "
                       f"{q['total_s']:.1f} / {r['total_s']:.1f} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1k,10k,40k,100k", help="comma-separated: 1k,10k,40k,100k")
    p.add_argument("--families", default=",".join(FAMILIES))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--busy", type=int, default=0, metavar="N",
                   help="run N busy-loop processes during the benchmark")
    p.add_argument("--results", type=Path, default=HERE / "RESULTS_room.md")
    p.add_argument("--against", type=Path, metavar="JSON",
                   help="compare the digests with an earlier run's RESULTS_room.json")
    p.add_argument("--one", metavar="SPEC", help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.argv = list(argv)
    if args.one:
        print(json.dumps(run_one(args.one, args.seed, args.out)))
        return 0
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        p.error(f"--sizes: unknown {unknown}; choose from {', '.join(SIZES)}")
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    busy = [multiprocessing.Process(target=_busy_loop, daemon=True) for _ in range(args.busy)]
    for proc in busy:
        proc.start()
    results: list[tuple[str, dict]] = []
    try:
        for size in sizes:
            for spec in pick(SIZES[size], families):
                r = run_in_subprocess(spec, args.seed)
                results.append((size, r))
                brief = (f"{r['halls']} halls, longest {r['longest_m']:.1f} m, cross-hall "
                         f"{100 * r['cross_hall_cost_share']:.1f} % of cable $, "
                         f"{r['total_s']:.1f} s, {r['peak_mib']:.0f} MiB, checks "
                         f"{'pass' if all(r['checks'].values()) else 'FAIL'}"
                         if "error" not in r else r["error"])
                print(f"{size:>5} {spec:<40} {brief}", flush=True)
    finally:
        for proc in busy:
            proc.terminate()
            proc.join()
    args.results.write_text(markdown(results, args, machine()))
    raw = args.results.with_suffix(".json")
    raw.write_text(json.dumps([{"size": size, **r} for size, r in results], indent=1) + "\n")
    print(f"wrote {args.results} and {raw}")
    ok = all("error" not in r and all(r["checks"].values()) for _, r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
