#!/usr/bin/env python3
"""Benchmark ``bom.xlsx``: write time, peak memory, size, and LibreOffice's recalculation.

For each size a Slim Fly near the target is planned on the 51.2T Ethernet catalog (``eth-51t``:
twin-port cages, splitters, transceivers and fibre, so every BOM item occurs) on the ``pn-500``
floor with the ``hint`` placement (the placement is not what is measured). Then:

- **write**: ``planner.exports.bom_xlsx.write`` alone, wall time and the peak resident memory
  above the plan's (sampled every 5 ms), and the file size;
- **recalc**: the workbook's cached formula values are deleted (every ``<v>`` after an ``<f>``
  in the Summary and BOM sheets), LibreOffice (Debian's ``libreoffice-calc``) loads it headless,
  recalculates and saves it (``soffice --headless --convert-to xlsx``), and the values it
  computed are compared with the ones the planner cached: the run fails if any differs by more
  than a cent.

``--busy N`` runs N busy-loop processes during the measurements: the times grow, the values
must not change.

    python benchmarks/bench_workbook.py                      # 1K, 10K, 100K endpoints
    python benchmarks/bench_workbook.py --sizes 100k --busy 2
    python benchmarks/bench_workbook.py --no-libreoffice      # write times only

Results are printed and written to ``benchmarks/WORKBOOK.md``.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench import RssSampler  # noqa: E402  (benchmarks/bench.py)

# Slim Fly (q, p) nearest each target on 128-port routers: 2q^2 routers of radix (3q-1)/2 + p
SIZES = {"1k": (7, 10), "10k": (19, 14), "100k": (41, 30)}
CATALOG, FLOOR = "eth-51t", "pn-500"
CACHED = re.compile(rb"(<f>[^<]*</f>)<v>[^<]*</v>")


def plan_for(size: str):
    from planner.plan import plan
    from planner.topologies.slimfly import slimfly
    q, p = SIZES[size]
    return plan(slimfly(q, p=p), CATALOG, FLOOR, strategy="hint")


def write_workbook(result, folder: Path) -> dict:
    from planner.exports import bom_xlsx
    with RssSampler() as rss:
        base = rss._rss_mib()
        start = time.perf_counter()
        bom_xlsx.write(result, folder)
        end = time.perf_counter()
    path = folder / bom_xlsx.FILENAME
    return {"write_s": end - start, "write_mib": max(rss.peak(start, end) - base, 0.0),
            "size_mib": path.stat().st_size / 2**20, "path": path}


def strip_cached_values(src: Path, dst: Path) -> int:
    """Copy the workbook without the cached value of any formula; the number removed."""
    removed = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.startswith("xl/worksheets/") and b"<f>" in data:
                data, n = CACHED.subn(rb"\1", data)
                removed += n
            zout.writestr(info, data)
    return removed


def libreoffice_recalc(path: Path, work: Path) -> dict:
    """Time LibreOffice loading, recalculating and saving the workbook without cached values,
    and check its values against the planner's."""
    import openpyxl
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise SystemExit("LibreOffice is not installed: apt-get install libreoffice-calc-nogui")
    bare = work / "bare.xlsx"
    removed = strip_cached_values(path, bare)
    out = work / "recalculated"
    out.mkdir()
    profile = (work / "lo-profile").as_uri()
    start = time.perf_counter()
    subprocess.run([soffice, f"-env:UserInstallation={profile}", "--headless", "--norestore",
                    "--convert-to", "xlsx", "--outdir", str(out), str(bare)],
                   check=True, capture_output=True, timeout=3600)
    seconds = time.perf_counter() - start
    ours = openpyxl.load_workbook(path, data_only=True, read_only=True)
    theirs = openpyxl.load_workbook(out / "bare.xlsx", data_only=True, read_only=True)
    formulas = openpyxl.load_workbook(path, read_only=True)
    compared, worst = 0, 0.0
    for name in ("Summary", "BOM"):
        for f_row, o_row, t_row in zip(formulas[name].iter_rows(), ours[name].iter_rows(),
                                       theirs[name].iter_rows()):
            for f, o, t in zip(f_row, o_row, t_row):
                if isinstance(f.value, str) and f.value.startswith("="):
                    compared += 1
                    worst = max(worst, abs(float(o.value) - float(t.value or 0)))
    if worst > 0.01:
        raise SystemExit(f"LibreOffice computed a value {worst} away from the cached one")
    return {"recalc_s": seconds, "formulas": compared, "removed": removed, "worst": worst}


def busy_loops(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,10k,100k")
    parser.add_argument("--busy", type=int, default=0, help="busy-loop processes to run")
    parser.add_argument("--no-libreoffice", action="store_true")
    parser.add_argument("--out", default=str(HERE / "WORKBOOK.md"))
    args = parser.parse_args()
    rows = []
    for size in args.sizes.split(","):
        result = plan_for(size)
        cells = (len(result.cables) * (len(result.cables.columns) - 9) + len(result.ports) * 7)
        loops = busy_loops(args.busy)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                work = Path(tmp)
                wrote = write_workbook(result, work)
                recalc = ({} if args.no_libreoffice else
                          libreoffice_recalc(wrote["path"], work))
        finally:
            for p in loops:
                p.kill()
        row = {"size": size, "endpoints": result.topology.num_endpoints,
               "cables": len(result.cables), "ports": len(result.ports), "cells": cells,
               "bom_lines": len(result.bom), **wrote, **recalc}
        rows.append(row)
        print(f"{size}: {row['endpoints']:,} endpoints, {row['cables']:,} cables, "
              f"~{cells / 1e6:.1f}M cells: write {row['write_s']:.1f} s "
              f"(+{row['write_mib']:.0f} MiB), {row['size_mib']:.1f} MiB"
              + (f"; LibreOffice recalculation {row['recalc_s']:.1f} s, "
                 f"{row['formulas']} formulas equal (worst {row['worst']:.2g})"
                 if "recalc_s" in row else ""), flush=True)
    lines = [f"# bom.xlsx benchmark ({date.today()}, {platform.machine()}, "
             f"{os.cpu_count()} cores, {args.busy} busy-loop processes)", "",
             f"Slim Fly on `{CATALOG}` / `{FLOOR}` (`python benchmarks/bench_workbook.py "
             f"--sizes {args.sizes} --busy {args.busy}`).", "",
             "| size | endpoints | cables | ports | cells | write s | write MiB | file MiB | "
             "LibreOffice recalc s | formulas checked |", "|" + " --- |" * 10]
    for r in rows:
        recalc = f"{r['recalc_s']:.1f}" if "recalc_s" in r else "-"
        lines.append(f"| {r['size']} | {r['endpoints']:,} | {r['cables']:,} | {r['ports']:,} | "
                     f"{r['cells'] / 1e6:.1f}M | {r['write_s']:.1f} | {r['write_mib']:.0f} | "
                     f"{r['size_mib']:.1f} | {recalc} | {r.get('formulas', '-')} |")
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0 if all(math.isfinite(r["write_s"]) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
