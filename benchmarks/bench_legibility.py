#!/usr/bin/env python3
"""Legibility of ``wiring.pdf``'s floor plans at A4, and where the patch racks stand, at about 10K
and 100K endpoints.

Per size, the plan (``planner plan``'s default 10K Slim Fly q=19, p=15, and the 100K Dragonfly
a=26, p=13, h=13, g=296 over 9 halls, both on ``modern-100g`` in ``hot-aisle`` with structured
cabling, strategy ``hint``), then ``wiring.pdf`` written and read back with the reader of
``tests/test_legibility.py`` (pypdf's content-stream parser, the standard fonts' metrics):

- floor-plan pages (key pages and tiles), the smallest text on them (pt), texts that touch a
  cabinet or rack box not their own, patch racks over a cabinet position, an aisle or another
  rack, cabinets and racks named on the pages against those of the plan;
- the patch racks: per hall, row racks and entry racks, and the widest row of entry racks
  against the hall's width between its walls (``planner.inputs.floor.rack_positions``); racks
  drawn outside the page's content box.

``--before DIR=LABEL`` adds the same reading of an older ``wiring.pdf`` (a plan folder written
by an earlier build) as a row of its own, for a before/after table.

    python benchmarks/bench_legibility.py                 # 10k and 100k; writes LEGIBILITY.md
    python benchmarks/bench_legibility.py --sizes 10k --out /tmp/x.md
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

PLANS = {
    "10k": "slimfly:q=19,p=15",
    "100k": "dragonfly:a=26,p=13,h=13,g=296",
}
CATALOG, FLOOR = "modern-100g", "hot-aisle"
NOTE = ("\n"
        '"hall width" is the footprint `summary.json` gives (`hall_width_m`: the rack positions'
        ' reserved at both row ends and at every cross tray between cabinets included). A '
        'second rack at a row end (`A-P0.2`; on the tray-0 end of most rows at 100K, where the '
        'links to other halls leave) stands one position further out and moves that end aisle '
        'and wall out 0.6 m (`planner.inputs.floor.rack_positions.hall_bounds`, as `wiring.pdf`'
        ' and the viewer draw the hall); `hall_width_m` does not count it yet. "before" rows: '
        'the same reader on the PDFs `planner plan` wrote before patch racks had floor '
        'positions (10K with strategy `optimize`).'
        "\n")
"""Under the tables: what the hall width counts, and where the "before" rows come from."""


def read_pdf(path: Path) -> dict:
    """The floor-plan pages of one ``wiring.pdf`` as ``tests/test_legibility.py`` reads them."""
    from pypdf import PdfReader

    from planner.exports.wiring_pdf.style import MARGIN_X, PAGE_W
    from tests.test_legibility import (RACK_FILL, floor_page_numbers, floor_problems,
                                       page_objects)
    reader = PdfReader(str(path))
    found = floor_problems(reader)
    outside = 0
    for number in floor_page_numbers(reader):
        _, rects = page_objects(reader, reader.pages[number])
        outside += sum(1 for r in rects if r[4] == RACK_FILL
                       and (r[0] < MARGIN_X - 0.5 or r[2] > PAGE_W - MARGIN_X + 0.5))
    found["pages"] = len(floor_page_numbers(reader))
    found["racks_off_page"] = outside
    return found


def rack_figures(plan) -> dict:
    """Row and entry racks, entry racks per hall and the widest entry row against the hall."""
    from planner.inputs.floor import room_of
    from planner.inputs.floor.rack_positions import hall_bounds
    cab, racks = plan.cabinets, plan.structured.racks
    room = room_of(plan.floor, cab["hall"], cab["row"], cab["col"])
    entry = racks[racks["kind"] == "entry"]
    half = plan.floor.cabinet_width_m / 2
    past_wall, widest, per_hall = 0, 0.0, 0
    for hall in range(room.halls):
        mine = racks[racks["hall"] == hall]
        x0, y0, x1, y1 = hall_bounds(room, mine)
        past_wall += int(((mine["x_m"] - half < x0) | (mine["x_m"] + half > x1)).sum())
        here = entry[entry["hall"] == hall]
        per_hall = max(per_hall, len(here))
        if len(here):
            widest = max(widest, float(here["x_m"].max() - here["x_m"].min()) + 2 * half)
    return {"row_racks": int((racks["kind"] == "row").sum()), "entry_racks": len(entry),
            "entry_per_hall": per_hall, "entry_row_m": widest,
            "hall_width_m": room.width_m, "racks_past_wall": past_wall, "halls": room.halls}


def run(size: str, folder: Path) -> dict:
    from planner.exports import cabinets_csv, wiring_pdf
    from planner.plan import plan
    started = time.perf_counter()
    built = plan(PLANS[size], CATALOG, FLOOR, strategy="hint", seed=0)
    planned = time.perf_counter() - started
    started = time.perf_counter()
    wiring_pdf.write(built, folder)
    written = time.perf_counter() - started
    cabinets_csv.write(built, folder)
    found = read_pdf(folder / "wiring.pdf")
    named = sum(len(v) for v in found["named"].values())
    want = 2 * len(built.cabinets) + len(built.structured.racks)   # names, groups, racks
    return {"size": size, "topology": PLANS[size], "plan_s": planned, "pdf_s": written,
            **found, "named_count": named, "want_named": want, **rack_figures(built)}


def table(rows: list[dict], before: list[tuple[str, dict]]) -> str:
    lines = ["| size | topology | floor pages | smallest text (pt) | texts over a box not "
             "their own | racks on a cabinet, aisle or rack | racks off the page | names "
             "printed / in the plan |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, r in before:
        lines.append(f"| {label} | before | {r['pages']} | {r['smallest_pt']:.2f} | "
                     f"{len(r['crossing'])} | {len(r['racks_over'])} | {r['racks_off_page']} |"
                     " - |")
    for r in rows:
        lines.append(f"| {r['size']} | `{r['topology']}` | {r['pages']} | "
                     f"{r['smallest_pt']:.2f} | {len(r['crossing'])} | {len(r['racks_over'])} | "
                     f"{r['racks_off_page']} | {r['named_count']:,} / {r['want_named']:,} |")
    lines += ["", "| size | halls | hall width (m) | row racks | entry racks | entry racks "
              "per hall | widest entry row (m) | racks past a wall | plan (s) | wiring.pdf (s) |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['size']} | {r['halls']} | {r['hall_width_m']:.1f} | "
                     f"{r['row_racks']:,} | {r['entry_racks']:,} | {r['entry_per_hall']} | "
                     f"{r['entry_row_m']:.1f} | {r['racks_past_wall']} | {r['plan_s']:.1f} | "
                     f"{r['pdf_s']:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,100k")
    parser.add_argument("--out", default=str(HERE / "LEGIBILITY.md"))
    parser.add_argument("--before", action="append", default=[],
                        help="DIR=LABEL: a plan folder written by an older build")
    args = parser.parse_args()
    before = []
    for item in args.before:
        folder, _, label = item.partition("=")
        before.append((label or folder, read_pdf(Path(folder) / "wiring.pdf")))
    rows = []
    for size in args.sizes.split(","):
        with tempfile.TemporaryDirectory(prefix=f"legibility-{size}-") as tmp:
            rows.append(run(size, Path(tmp)))
            print(rows[-1]["size"], rows[-1]["smallest_pt"], len(rows[-1]["crossing"]),
                  len(rows[-1]["racks_over"]), flush=True)
    text = (f"# Floor plans at A4 and patch-rack positions\n\n"
            f"`python benchmarks/bench_legibility.py` on {date.today().isoformat()} "
            f"(catalog `{CATALOG}`, floor `{FLOOR}`, strategy `hint`). `wiring.pdf` read back "
            "with the reader of `tests/test_legibility.py`; the target is no text under 6 pt, "
            "no text over a box not its own, no patch rack on a cabinet position, an aisle or "
            "another rack, every cabinet, group and rack named once.\n\n"
            + table(rows, before) + "\n" + NOTE)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
