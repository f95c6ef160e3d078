#!/usr/bin/env python3
"""Benchmark ``bom.xlsx``: write time, peak memory, size, and LibreOffice's recalculation.

For each size a Slim Fly near the target is planned on the 51.2T Ethernet catalog (``eth-51t``:
twin-port cages, splitters, transceivers and fibre) with the ``hint`` placement (the placement
is not what is measured) on the ``hot-aisle`` halls, whose structured cabling adds the patch
cords, trunks and panels, so every BOM item occurs (``--floor pn-500``: the papers' abstract
floor, no panels). Then:

- **write**: ``planner.exports.bom_xlsx.write`` alone, wall time and the peak resident memory
  above the plan's (sampled every 5 ms), and the file size;
- **recalc**: the workbook's cached formula values are deleted (every ``<v>`` after an ``<f>``
  in the Summary and BOM sheets), then LibreOffice (Debian's ``libreoffice-calc``) loads it
  headless and recalculates it; the timed run exports the recalculated Summary sheet as CSV
  (``soffice --headless --convert-to csv:...`` with sheet 1: load + recalculation + a one-sheet
  save), a second, untimed run exports the BOM sheet, and every value LibreOffice computed is
  compared with the one the planner cached: the run fails if any differs by more than a cent.
  ``--roundtrip`` also times saving the whole recalculated workbook back to xlsx.

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
CATALOG, FLOOR = "eth-51t", "hot-aisle"
CACHED = re.compile(rb"(<f>[^<]*</f>)<v>[^<]*</v>")


def plan_for(size: str, floor: str = FLOOR):
    from planner.plan import plan
    from planner.topologies.slimfly import slimfly
    q, p = SIZES[size]
    return plan(slimfly(q, p=p), CATALOG, floor, strategy="hint")


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


def _soffice() -> str:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise SystemExit("LibreOffice is not installed: apt-get install libreoffice-calc-nogui")
    return soffice


def _convert(path: Path, work: Path, target: str) -> tuple[float, Path]:
    """(seconds, output folder) of one headless LibreOffice conversion with its own profile."""
    out = work / f"out-{len(list(work.glob('out-*')))}"
    out.mkdir()
    profile = (work / "lo-profile").as_uri()
    start = time.perf_counter()
    subprocess.run([_soffice(), f"-env:UserInstallation={profile}", "--headless", "--norestore",
                    "--convert-to", target, "--outdir", str(out), str(path)],
                   check=True, capture_output=True, timeout=3600)
    return time.perf_counter() - start, out


def _sheet_csv(sheet: int) -> str:
    """LibreOffice's CSV export of one sheet: comma, double quotes, UTF-8, values unformatted."""
    return f"csv:Text - txt - csv (StarCalc):44,34,UTF8,1,,0,false,true,false,false,false,{sheet}"


def _numbers(path: Path) -> dict[str, float]:
    """Cell reference -> number of a LibreOffice CSV export."""
    import csv
    from openpyxl.utils import get_column_letter
    out = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for r, row in enumerate(csv.reader(fh), start=1):
            for c, text in enumerate(row, start=1):
                try:
                    out[f"{get_column_letter(c)}{r}"] = float(text)
                except ValueError:
                    pass
    return out


def libreoffice_recalc(path: Path, work: Path, roundtrip: bool) -> dict:
    """Time LibreOffice loading and recalculating the workbook without cached values, and
    check its values against the planner's."""
    import openpyxl
    bare = work / "bare.xlsx"
    removed = strip_cached_values(path, bare)
    seconds, summary_dir = _convert(bare, work, _sheet_csv(1))
    _, bom_dir = _convert(bare, work, _sheet_csv(2))
    computed = {"Summary": _numbers(next(summary_dir.glob("*.csv"))),
                "BOM": _numbers(next(bom_dir.glob("*.csv")))}
    ours = openpyxl.load_workbook(path, data_only=True)
    formulas = openpyxl.load_workbook(path)
    compared, worst = 0, 0.0
    for name in ("Summary", "BOM"):
        for row in formulas[name].iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    compared += 1
                    theirs = computed[name].get(cell.coordinate)
                    if theirs is None:
                        raise SystemExit(f"LibreOffice gave no number for {name}!{cell.coordinate}")
                    worst = max(worst, abs(float(ours[name][cell.coordinate].value) - theirs))
    if worst > 0.01:
        raise SystemExit(f"LibreOffice computed a value {worst} away from the cached one")
    out = {"recalc_s": seconds, "formulas": compared, "removed": removed, "worst": worst}
    if roundtrip:
        out["roundtrip_s"] = _convert(bare, work, "xlsx")[0]
    return out


def busy_loops(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,10k,100k")
    parser.add_argument("--busy", type=int, default=0, help="busy-loop processes to run")
    parser.add_argument("--floor", default=FLOOR, help="hot-aisle (structured cabling) or pn-500")
    parser.add_argument("--no-libreoffice", action="store_true")
    parser.add_argument("--roundtrip", action="store_true",
                        help="also time LibreOffice saving the recalculated workbook as xlsx")
    parser.add_argument("--out", default=str(HERE / "WORKBOOK.md"))
    args = parser.parse_args()
    rows = []
    for size in args.sizes.split(","):
        result = plan_for(size, args.floor)
        cells = (len(result.cables) * (len(result.cables.columns) - 9) + len(result.ports) * 7)
        loops = busy_loops(args.busy)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                work = Path(tmp)
                wrote = write_workbook(result, work)
                recalc = ({} if args.no_libreoffice else
                          libreoffice_recalc(wrote["path"], work, args.roundtrip))
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
                 if "recalc_s" in row else "")
              + (f"; xlsx round trip {row['roundtrip_s']:.1f} s" if "roundtrip_s" in row else ""),
              flush=True)
    lines = [f"# bom.xlsx benchmark ({date.today()}, {platform.machine()}, "
             f"{os.cpu_count()} cores, {args.busy} busy-loop processes)", "",
             f"Slim Fly on `{CATALOG}` / `{args.floor}` (`python benchmarks/bench_workbook.py "
             f"--sizes {args.sizes} --busy {args.busy} --floor {args.floor}`).", "",
             "| size | endpoints | cables | ports | cells | write s | write MiB | file MiB | "
             "LibreOffice load + recalc s | xlsx round trip s | formulas checked |",
             "|" + " --- |" * 11]
    for r in rows:
        recalc = f"{r['recalc_s']:.1f}" if "recalc_s" in r else "-"
        trip = f"{r['roundtrip_s']:.1f}" if "roundtrip_s" in r else "-"
        lines.append(f"| {r['size']} | {r['endpoints']:,} | {r['cables']:,} | {r['ports']:,} | "
                     f"{r['cells'] / 1e6:.1f}M | {r['write_s']:.1f} | {r['write_mib']:.0f} | "
                     f"{r['size_mib']:.1f} | {recalc} | {trip} | {r.get('formulas', '-')} |")
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0 if all(math.isfinite(r["write_s"]) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
