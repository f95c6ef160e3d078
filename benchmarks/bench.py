#!/usr/bin/env python3
"""Benchmark the planner stage by stage at about 1K, 10K and 100K endpoints (1M with --large).

For Slim Fly, Dragonfly, OFT and demi-PN the configuration nearest each target (the
``planner size`` answer under ``--max-radix``) is planned on the SC14 40 Gb/s catalog and the
``pn-500`` floor (electrical groups of about 500 endpoints), with placement strategy
``optimize``. Every run happens in its own subprocess so that its memory is its own: a thread
samples the resident set size (/proc/self/statm) every 5 ms and each stage reports the peak
inside its time window; ``ru_maxrss`` of the run is reported as well.

Stages (each a pure function of the previous stage's value, as ``planner.plan`` runs them):
    build   planner.topologies.build
    place   planner.placement.place (partitioning, local search, lower bounds)
    cable   planner.cabling.build (every cable, port, rack unit, label, media, length)
    perf    planner.performance.evaluate (hops, latency, bisection, throughput θ)
    cost    planner.plan.plan's costing (BOM, totals, summary with distance statistics)
    export  every writer of ``planner plan`` into its folder (the ``planner plan`` writer)
plus placement quality: optical cables, the proven lower bound and the gap between them.

    python benchmarks/bench.py                    # 1K, 10K, 100K; writes benchmarks/RESULTS.md
    python benchmarks/bench.py --sizes 1k,10k     # a subset
    python benchmarks/bench.py --large            # adds 1M endpoints
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAMILIES = ("slimfly", "dragonfly", "oft", "demipn")
LARGE_CATALOG = HERE / "sc14-40g-r256.yaml"
SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000, "1m": 1_000_000}
LIBRARIES = ("numpy", "scipy", "pandas", "networkx", "ortools", "kaminpar", "pymetis",
             "pydantic", "openpyxl", "reportlab")


# --------------------------------------------------------------------------- one run (child)

class RssSampler:
    """Samples this process's resident set size every few milliseconds in a thread, so the
    peak of each stage (a time window) can be read afterwards."""

    def __init__(self, interval_s: float = 0.005):
        self.interval_s = interval_s
        self.page_mib = os.sysconf("SC_PAGE_SIZE") / 2**20
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _rss_mib(self) -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * self.page_mib

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.perf_counter(), self._rss_mib()))
            self._stop.wait(self.interval_s)

    def __enter__(self) -> "RssSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append((time.perf_counter(), self._rss_mib()))

    def peak(self, start: float, end: float) -> float:
        """Largest sample in [start, end]; for a window shorter than the sampling interval,
        the first sample after it starts."""
        inside = [m for t, m in self.samples if start <= t <= end]
        if inside:
            return max(inside)
        return next((m for t, m in self.samples if t >= start), self.samples[-1][1])


def run_one(spec: str, catalog_name: str, floor_name: str, time_limit: float, seed: int,
            out: Path) -> dict:
    """Plan one configuration stage by stage: wall time and peak RSS of every stage.

    The placement is computed first (``planner.placement.place``) and handed to
    ``planner.plan.plan(placement=...)``, whose own per-stage runtimes split the rest into
    cabling, performance (hops, latency, bisection, θ) and costing (BOM, totals, summary with
    distance statistics)."""
    from planner import topologies
    from planner.compare import Configuration, write_plan_folder
    from planner.inputs.catalog import load_catalog
    from planner.inputs.floor import load_floor
    from planner.placement import place
    from planner.plan import plan

    conf = Configuration.parse(spec)
    catalog, floor = load_catalog(catalog_name), load_floor(floor_name)
    with RssSampler() as rss:
        t0 = time.perf_counter()
        top = topologies.build(conf.family, **dict(conf.params))
        t1 = time.perf_counter()
        placement = place(top, floor, catalog, strategy="optimize", time_limit_s=time_limit,
                          seed=seed)
        t2 = time.perf_counter()
        result = plan(top, catalog, floor, strategy="optimize", time_limit_s=time_limit,
                      seed=seed, placement=placement)
        t3 = time.perf_counter()
        write_plan_folder(result, out)
        t4 = time.perf_counter()
    run = result.summary["runtime"]
    cost_s = run["costing_s"] + run["summary_s"]
    t_perf = t3 - cost_s
    t_cable = t_perf - run.get("performance_s", 0.0)
    windows = {"build": (t0, t1), "place": (t1, t2), "cable": (t2, t_cable),
               "perf": (t_cable, t_perf), "cost": (t_perf, t3), "export": (t3, t4)}
    stages = {name: {"seconds": b - a, "peak_mib": rss.peak(a, b)}
              for name, (a, b) in windows.items()}
    files = [f for f in out.rglob("*") if f.is_file()]
    return {
        "spec": conf.spec, "family": conf.family, "endpoints": top.num_endpoints,
        "routers": top.num_routers, "radix": top.radix, "links": top.num_links,
        "cables": int(len(result.cables)), "stages": stages, "total_seconds": t4 - t0,
        "peak_mib": max(s["peak_mib"] for s in stages.values()),
        "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "optical": int(placement.optical), "lower_bound": float(placement.lower_bound),
        "lower_bound_kind": placement.lower_bound_kind, "gap": float(placement.gap),
        "method": placement.method, "time_capped": bool(placement.time_capped),
        "cost_per_endpoint": result.summary["cost"]["per_endpoint"],
        "output_mib": sum(f.stat().st_size for f in files) / 2**20,
    }


# --------------------------------------------------------------------------- driver (parent)

def pick(target: int, max_radix: int, families) -> list[str]:
    """Specs of the configuration nearest ``target`` per family, among ``planner size``'s
    options at balanced endpoints per router (nearest, not the one filling the switch best,
    so the sizes stay comparable across runs)."""
    from planner.topologies.sizing import nearest

    found = nearest(target, max_radix, list(families), count=1000)
    return [min(options, key=lambda o: (abs(o.endpoints - target), o.routers, o.radix)).spec()
            for options in found.values() if options]


def run_in_subprocess(spec: str, args) -> dict:
    with tempfile.TemporaryDirectory(prefix="planner-bench-") as tmp:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--one", spec,
               "--catalog", args.catalog, "--floor", args.floor, "--time-limit",
               str(args.time_limit), "--seed", str(args.seed), "--out", str(Path(tmp) / "plan")]
        env = dict(os.environ)
        if args.blas_threads:
            env.update({k: str(args.blas_threads) for k in
                        ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"spec": spec, "error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "unknown"
    try:
        kib = int(next(l for l in Path("/proc/meminfo").read_text().splitlines()
                       if l.startswith("MemTotal")).split()[1])
        ram = f"{kib / 2**20:.1f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    versions = []
    for lib in LIBRARIES:
        try:
            versions.append(f"{lib} {metadata.version(lib)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{lib} (not installed)")
    return {"nproc": str(os.cpu_count()), "ram": ram, "cpu": cpu,
            "python": platform.python_version(), "os": platform.platform(),
            "libraries": ", ".join(versions)}


def markdown(results: list[tuple[str, dict]], args, m: dict[str, str]) -> str:
    stage_names = ("build", "place", "cable", "perf", "cost", "export")
    out = [
        "# Planner benchmarks",
        "",
        "Generated by `" + " ".join(["python benchmarks/bench.py", *args.argv]) + "`" +
        f" on {date.today().isoformat()}.",
        "",
        "## Machine",
        "",
        f"- CPU: {m['cpu']} ({m['nproc']} logical CPUs)",
        f"- RAM: {m['ram']}",
        f"- OS: {m['os']}",
        f"- Python {m['python']}; {m['libraries']}",
        "",
        "## Setup",
        "",
        f"Catalog `{args.catalog}`, floor `{args.floor}` (electrical groups of about 500 "
        f"endpoints), placement strategy `optimize` with a {args.time_limit:g} s time limit, "
        f"seed {args.seed}, endpoint cables included, BLAS threads per run: "
        f"{args.blas_threads or 'library default (all cores)'}. Per family the configuration nearest the "
        f"target with radix <= {args.max_radix} (`planner size`); the 1M runs use "
        f"`benchmarks/{LARGE_CATALOG.name}` (same prices, routers up to 256 ports) and radix "
        "<= 256. One subprocess per run; "
        "peak memory = the largest resident set size sampled (every 5 ms) during the stage; "
        "peak MiB = the run's largest. Placement quality: optical = router-router cables leaving electrical "
        "groups in the final layout, bound = best proven lower bound, gap = optical/bound - 1; "
        "'time-capped' marks a placement whose wall-clock safety net fired (its budgets are "
        "otherwise deterministic).",
        "",
        "## Results",
        "",
        "| target | configuration | endpoints | routers | cables | "
        + " | ".join(f"{s} s" for s in stage_names)
        + " | total s | peak MiB | optical | bound | gap | output MiB |",
        "|" + "---|" * (9 + len(stage_names) + 1),
    ]
    for size, r in results:
        if "error" in r:
            out.append(f"| {size} | `{r['spec']}` | failed: {r['error']} |")
            continue
        st = r["stages"]
        out.append(
            f"| {size} | `{r['spec']}` | {r['endpoints']:,} | {r['routers']:,} | "
            f"{r['cables']:,} | "
            + " | ".join(f"{st[s]['seconds']:.2f}" for s in stage_names)
            + f" | {r['total_seconds']:.2f} | {r['peak_mib']:,.0f} | {r['optical']:,} | "
              f"{r['lower_bound']:,.0f} ({r['lower_bound_kind']}) | {100 * r['gap']:.1f} %"
              f"{' (time-capped)' if r['time_capped'] else ''} | "
              f"{r['output_mib']:.1f} |")
    out += ["", "Peak resident memory during each stage (MiB):", "",
            "| target | configuration | " + " | ".join(stage_names) + " |",
            "|" + "---|" * (2 + len(stage_names))]
    for size, r in results:
        if "error" not in r:
            out.append(f"| {size} | `{r['spec']}` | "
                       + " | ".join(f"{r['stages'][s]['peak_mib']:,.0f}" for s in stage_names)
                       + " |")
    return "\n".join(out) + "\n"


def _large(args: argparse.Namespace) -> argparse.Namespace:
    """The 1M-endpoint runs need radix 160-200: the benchmark catalog allowing 256 ports."""
    return argparse.Namespace(**{**vars(args), "catalog": str(LARGE_CATALOG),
                                 "max_radix": max(args.max_radix, 256)})


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1k,10k,100k", help="comma-separated: 1k,10k,100k,1m")
    p.add_argument("--large", action="store_true", help="add the 1M-endpoint runs")
    p.add_argument("--families", default=",".join(FAMILIES))
    p.add_argument("--max-radix", type=int, default=128)
    p.add_argument("--catalog", default="sc14-40g")
    p.add_argument("--floor", default="pn-500")
    p.add_argument("--time-limit", type=float, default=None,
                   help="placement time limit in seconds (default: planner plan's default)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--blas-threads", type=int, metavar="N",
                   help="set OMP/OPENBLAS/MKL_NUM_THREADS=N in each run (default: library "
                        "default, i.e. all cores)")
    p.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    p.add_argument("--one", metavar="SPEC", help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.time_limit is None:
        from planner.plan import DEFAULT_TIME_LIMIT_S

        args.time_limit = DEFAULT_TIME_LIMIT_S
    args.argv = [a for a in argv]
    if args.one:
        print(json.dumps(run_one(args.one, args.catalog, args.floor, args.time_limit,
                                 args.seed, args.out)))
        return 0
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    if args.large and "1m" not in sizes:
        sizes.append("1m")
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        p.error(f"--sizes: unknown {unknown}; choose from {', '.join(SIZES)}")
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    results: list[tuple[str, dict]] = []
    for size in sizes:
        run_args = _large(args) if size == "1m" else args
        for spec in pick(SIZES[size], run_args.max_radix, families):
            r = run_in_subprocess(spec, run_args) | {"catalog": run_args.catalog,
                                                     "max_radix": run_args.max_radix}
            results.append((size, r))
            brief = (f"{r['total_seconds']:.1f} s, {r['peak_mib']:.0f} MiB, gap "
                     f"{100 * r['gap']:.1f} %" if "error" not in r else r["error"])
            print(f"{size:>5} {spec:<40} {brief}", flush=True)
    args.results.write_text(markdown(results, args, machine()))
    raw = args.results.with_suffix(".json")
    raw.write_text(json.dumps([{"size": size, **r} for size, r in results], indent=1) + "\n")
    print(f"wrote {args.results} and {raw}")
    return 0 if all("error" not in r for _, r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
