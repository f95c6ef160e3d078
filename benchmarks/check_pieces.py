#!/usr/bin/env python3
"""The "one truth for every piece" walk of ``tests/test_pieces.py`` on a full-size plan.

The suite walks a 25-cabinet two-hall plan; this script plans ``planner plan``'s default
system (Slim Fly q=19, p=15: 10,830 endpoints on ``modern-100g`` in the ``hot-aisle`` hall,
strategy ``optimize``, seed 0), or the system given, writes every output and runs every check
of ``tests/test_pieces.py`` that reads files (cabinet and patch-rack sheets, labels, viewer
data, segments, the order list against bom.xlsx, the cost tables, by_sku and metres ordered,
type sizes). It prints, per check, pass or the first failure and its time, and the figures the
issue quotes (pieces, labels, patch-rack pages, smallest type), and writes them to
``benchmarks/PIECES.md``.

    python benchmarks/check_pieces.py                       # the default 10K plan
    python benchmarks/check_pieces.py --topology slimfly:q=7 --floor my-two-halls.yaml
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

CHECKS = ["test_pieces_are_the_segments", "test_every_view_names_the_same_pieces",
          "test_cabinet_headers_count_only_their_own_pieces",
          "test_order_list_is_the_bom_line_by_line", "test_cost_tables_add_up_to_the_total",
          "test_by_sku_and_metres_ordered_count_each_piece_once",
          "test_panel_ports_on_the_sheets_are_each_used_once",
          "test_labels_pdf_has_no_text_below_six_points", "test_no_text_below_six_points"]


def main() -> int:
    from planner import exports
    from planner.inputs.spec import DEFAULT_CATALOG, DEFAULT_FLOOR, DEFAULT_TOPOLOGY
    from planner.plan import plan
    import test_pieces

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topology", default=DEFAULT_TOPOLOGY)
    ap.add_argument("--catalog", default=DEFAULT_CATALOG)
    ap.add_argument("--floor", default=DEFAULT_FLOOR)
    ap.add_argument("--strategy", default="optimize")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "PIECES.md"))
    args = ap.parse_args()

    started = time.perf_counter()
    built = plan(args.topology, args.catalog, args.floor, strategy=args.strategy, seed=0)
    planned = time.perf_counter() - started
    folder = Path(tempfile.mkdtemp(prefix="check-pieces-")) / "plan"
    started = time.perf_counter()
    exports.write_plan(built, folder, jobs=1)
    written = time.perf_counter() - started
    started = time.perf_counter()
    sheets = test_pieces.pdf_rows(folder / "wiring.pdf")
    read = time.perf_counter() - started
    pieces = built.pieces.table
    bought = int(built.bom.loc[built.bom["item"].isin(["cable", "fibre", "trunk"]),
                               "quantity"].sum())
    lines = [f"# One truth for every piece: {args.topology} on {args.catalog} / {args.floor}",
             "", f"`python benchmarks/check_pieces.py --topology {args.topology} "
             f"--catalog {args.catalog} --floor {args.floor}`", "",
             f"- plan {planned:.1f} s, every writer {written:.1f} s, wiring.pdf read back "
             f"row by row {read:.1f} s",
             f"- {len(built.cables):,} links; {len(pieces):,} pieces: "
             + ", ".join(f"{n:,} {role}s" for role, n in
                         pieces["role"].value_counts().sort_index().items()),
             f"- labels: {2 * len(pieces):,} (one per piece end)",
             f"- patch-rack sheets: {sum(t.startswith('Patch rack ') for t in sheets):,}, "
             f"cabinet sheets: {sum(t.startswith('Cabinet ') for t in sheets):,}",
             f"- summary.json by_sku total {sum(built.summary['cables']['by_sku'].values()):,}"
             f", BOM cable/fibre/trunk quantity {bought:,}",
             f"- network m ordered {built.summary['cables']['network']['order_length_m']:,.0f} "
             f"(each link's pieces added per link: "
             f"{built.cables.loc[built.cables['kind'] == 'network', 'order_length_m'].sum():,.0f})",
             "", "| check | result | seconds |", "| --- | --- | --- |"]
    failed = 0
    for name in CHECKS:
        check = getattr(test_pieces, name)
        started = time.perf_counter()
        try:
            params = check.__code__.co_varnames[:check.__code__.co_argcount]
            check(*[(built, folder) if p == "written" else sheets for p in params])
            result = "pass"
        except Exception as exc:                             # report and go on
            failed += 1
            result = f"FAIL: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
            traceback.print_exc()
        lines.append(f"| {name} | {result} | {time.perf_counter() - started:.1f} |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.out).write_text(text, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
