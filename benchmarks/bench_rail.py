"""End to end ``planner plan`` of a rail-optimised GPU fabric (issue 27): placement, cables,
BOM and every export, with wall time and peak memory of the command.

Runs the real command in a subprocess under ``/usr/bin/time -v`` (maximum resident set of the
largest process as GNU time reports it), samples the proportional set size (``Pss`` of
``/proc/PID/smaps_rollup``) summed over the command and every process below it (the export
writers run in parallel), takes the CPU seconds of the whole tree, and prints one row per case:
NICs, routers per tier, cables, cable and total dollars, uniform and collective θ, and the
outputs written. Usage::

    python benchmarks/bench_rail.py rail-4u          # SuperPOD 4-unit shape, seconds
    python benchmarks/bench_rail.py rail-20k-eth     # 20,480 GPUs on eth-51t, minutes
    flock /tmp/locks/big.lock python benchmarks/bench_rail.py rail-100k-eth   # ~100K GPUs
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_writer_memory import pss_kib, tree  # noqa: E402

CASES = {
    # name: (topology, catalog[, floor])
    "rail-4u": ("railfattree:units=4,servers=32,nics=8,radix=64", "ndr-400g"),
    # 100,352 GPUs. On eth-51t (64 twin-port cages) the cage check refuses it: a spine's 56
    # single-link leaf peers may each take a cage on twin-port DACs (67 of 64); the sc14-40g
    # 128-port model has a cage per port.
    "rail-100k": ("railfattree:units=392,servers=32,nics=8,radix=128", "sc14-40g"),
    # The same 100,352 GPUs on the 51.2T Ethernet GPU fabric (SN5600, 64 twin-port 800G cages
    # split into 128 x 400GbE): a spine's 112 single-link peers fit 57 cages once the odd
    # links of near peers go on twin-port optics (planner.inputs.catalog.cages.odd_links).
    "rail-20k-eth": ("railfattree:units=80,servers=32,nics=8,radix=128", "eth-51t"),
    "rail-100k-eth": ("railfattree:units=392,servers=32,nics=8,radix=128", "eth-51t"),
    # Since plans stand whole GPU servers in compute cabinets (2 DGX-class 10.2 kW servers per
    # 30 kW cabinet), the 12,544 servers of 100K GPUs need 28 hot-aisle halls: the campus floor.
    "rail-100k-eth-campus": ("railfattree:units=392,servers=32,nics=8,radix=128", "eth-51t",
                             "campus"),
}
SAMPLE_S = 0.5


def run(name: str) -> dict:
    spec, catalog, *floor = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "plan"
        cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "planner.cli", "plan", "--topology",
               spec, "--catalog", catalog, "--out", str(out)]
        cmd += ["--floor", *floor] if floor else []
        code = "import sys; from planner.cli import main; sys.exit(main(sys.argv[1:]))"
        cmd[3:5] = ["-c", code]
        before = os.times()
        start = time.perf_counter()
        with tempfile.TemporaryFile("w+") as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, text=True,
                                    env=os.environ.copy())
            peak_pss = 0
            while proc.poll() is None:
                peak_pss = max(peak_pss, sum(pss_kib(p) for p in tree(proc.pid)))
                time.sleep(SAMPLE_S)
            wall = time.perf_counter() - start
            after = os.times()
            err.seek(0)
            stderr = err.read()
        if proc.returncode != 0:
            raise SystemExit(f"{name}: exit {proc.returncode}: {stderr.strip()[-2000:]}")
        rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                               stderr).group(1))
        summary = json.loads((out / "summary.json").read_text())
        outputs = [p for p in out.rglob("*") if p.is_file()]
        top = sorted({p.relative_to(out).parts[0] for p in outputs})
        size_mb = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1e6
    perf = summary["performance"]
    cpu = (after.children_user - before.children_user) + (after.children_system
                                                          - before.children_system)
    return {"case": name, "topology": spec, "catalog": catalog, "floor": summary.get("floor"),
            "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1), "peak_tree_pss_gb": round(peak_pss / 2**20, 2),
            "max_rss_gb": round(rss_kb / 2**20, 2),
            "outputs": len(outputs), "output_mb": round(size_mb, 1), "top_level": top,
            "devices": summary.get("devices"), "cost": summary.get("cost"),
            "servers": summary.get("servers"),
            "uniform_theta": perf.get("uniform", {}).get("theta"),
            "collectives": perf.get("collectives")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["rail-4u"], choices=sorted(CASES))
    for name in parser.parse_args().cases:
        print(json.dumps(run(name), indent=1, default=str), flush=True)


if __name__ == "__main__":
    main()
