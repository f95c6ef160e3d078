"""End to end ``planner plan`` of a rail-optimised GPU fabric (issue 27): placement, cables,
BOM and every export, with wall time and peak memory of the command.

Runs the real command in a subprocess under ``/usr/bin/time -v`` (maximum resident set of the
process and its writers' children as GNU time reports it) and prints one row per case: NICs,
routers per tier, cables, cable and total dollars, uniform and collective θ. Usage::

    python benchmarks/bench_rail.py rail-4u          # SuperPOD 4-unit shape, seconds
    flock /tmp/locks/big.lock python benchmarks/bench_rail.py rail-100k    # ~100K GPUs
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

CASES = {
    # name: (topology, catalog)
    "rail-4u": ("railfattree:units=4,servers=32,nics=8,radix=64", "ndr-400g"),
    # 100,352 GPUs. On eth-51t (64 twin-port cages) the cage check refuses it: a spine's 56
    # single-link leaf peers may each take a cage on twin-port DACs (67 of 64); the sc14-40g
    # 128-port model has a cage per port.
    "rail-100k": ("railfattree:units=392,servers=32,nics=8,radix=128", "sc14-40g"),
}


def run(name: str) -> dict:
    spec, catalog = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "plan"
        cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "planner.cli", "plan", "--topology",
               spec, "--catalog", catalog, "--out", str(out)]
        code = "import sys; from planner.cli import main; sys.exit(main(sys.argv[1:]))"
        cmd[3:5] = ["-c", code]
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
        wall = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")
        rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                               done.stderr).group(1))
        summary = json.loads((out / "summary.json").read_text())
    perf = summary["performance"]
    return {"case": name, "topology": spec, "catalog": catalog, "wall_s": round(wall, 1),
            "max_rss_gb": round(rss_kb / 2**20, 2),
            "devices": summary.get("devices"), "cost": summary.get("cost"),
            "uniform_theta": perf.get("uniform", {}).get("theta"),
            "collectives": perf.get("collectives")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["rail-4u"], choices=sorted(CASES))
    for name in parser.parse_args().cases:
        print(json.dumps(run(name), indent=1, default=str), flush=True)


if __name__ == "__main__":
    main()
