#!/usr/bin/env python3
"""Size and speed of the plan viewer (``index.html``) at about 10K and 100K endpoints.

Budget (issue "An interactive plan viewer"): the 10K default plan's page is ready within 2 s,
the 100K plan's within 5 s, in headless Chromium on this machine. Per size:

- the plan (not timed here): ``planner plan``'s default 10K system (Slim Fly q=19, p=15 on
  ``modern-100g`` in the ``hot-aisle`` hall, strategy ``optimize``) and a 100K Dragonfly
  (a=32, p=16, h=16, g=196: 100,352 endpoints, 247,744 cables) on the same catalog and floor;
- the writers: ``index.html`` and ``wiring.pdf`` (seconds and size, side by side);
- the page in Chromium (``/usr/bin/chromium`` via ``/usr/bin/chromedriver``, a fresh browser
  per load): time from navigation start to the ``document.body.dataset.ready`` marker (set
  once the data is decoded, the floor drawn and the summary shown), median of ``--loads``;
  then, on the loaded page: the first search (a label typed and submitted until the cable
  panel is drawn), the floor's frame time while zooming (draw calls plus their
  rasterisation, forced by reading a pixel back; median and slowest of 40 wheel steps), and
  the same with the routes of 20,000 filtered cables drawn;
- checks that must not change with machine load: cabinets drawn after "fit" = cabinets of the
  plan, the searched cable found with both ends as in cables.csv.

Each size runs twice: as the machine is, then with ``--busy`` busy-loop processes beside it
(only the times may differ).

    python benchmarks/bench_viewer.py                 # 10k and 100k; writes RESULTS_viewer.md
    python benchmarks/bench_viewer.py --sizes 10k --busy 0   # one run, no busy loops
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLANS = {
    "10k": ("slimfly:q=19,p=15", 2.0),
    "100k": ("dragonfly:a=32,p=16,h=16,g=196", 5.0),
}
CATALOG, FLOOR = "modern-100g", "hot-aisle"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,900", "--force-device-scale-factor=1"]


def browser(profile: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def load(driver, page: Path) -> float:
    """Milliseconds from navigation start to the page's ready marker."""
    from selenium.webdriver.support.ui import WebDriverWait
    driver.get(page.as_uri())
    WebDriverWait(driver, 120).until(
        lambda d: d.execute_script("return document.body.dataset.ready"))
    if driver.execute_script("return document.body.dataset.ready") != "1":
        raise RuntimeError(f"the viewer failed to start: {driver.get_log('browser')}")
    return float(driver.execute_script("return document.body.dataset.readyMs"))


SEARCH = """
const done = arguments[arguments.length - 1], input = document.getElementById('search');
const started = performance.now();
window.addEventListener('hashchange', () => requestAnimationFrame(() => {
  const panel = document.getElementById('panel-cable'), out = {};
  for (const end of panel.querySelectorAll('.end')) {
    for (const dd of end.querySelectorAll('dd')) {
      out[end.dataset.end + '_' + dd.dataset.field] = dd.textContent;
    }
  }
  done([performance.now() - started, panel.querySelector('h2').dataset.cable, out]);
}), {once: true});
input.value = arguments[0];
document.getElementById('search-form').requestSubmit();
"""

ZOOM = """
const done = arguments[arguments.length - 1], canvas = document.getElementById('floor');
const stats = window.plannerViewer.stats, times = [], ctx = canvas.getContext('2d');
window.plannerViewer.fit();
const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
(async () => {
  await frame();
  for (let k = 0; k < 40; k++) {
    const zoomIn = k < 20;
    canvas.dispatchEvent(new WheelEvent('wheel', {deltaY: zoomIn ? -240 : 240, bubbles: true,
      cancelable: true, clientX: canvas.getBoundingClientRect().left + canvas.clientWidth / 2,
      clientY: canvas.getBoundingClientRect().top + canvas.clientHeight / 2}));
    const before = stats.draws;
    await frame();
    if (stats.draws > before) {
      // the draw calls, then their rasterisation (forced by reading a pixel back)
      const started = performance.now();
      ctx.getImageData(0, 0, 1, 1);
      times.push(stats.drawMs + performance.now() - started);
    }
  }
  done(times);
})();
"""


def page_figures(page: Path, loads: int, label: str, cabinets: int) -> dict:
    """Ready times of ``loads`` fresh browsers; on the last one, the search and draw figures."""
    ready = []
    for k in range(loads):
        profile = tempfile.mkdtemp(prefix="bench-viewer-")
        driver = browser(profile)
        try:
            ready.append(load(driver, page))
            if k < loads - 1:
                continue
            driver.set_script_timeout(120)
            drawn = int(driver.execute_script(
                "return Number(document.getElementById('floor').dataset.cabinetsDrawn)"))
            search_ms, found, ends = driver.execute_async_script(SEARCH, label)
            load(driver, page)
            zoom = driver.execute_async_script(ZOOM)
            driver.execute_script("document.getElementById('show-routes').click()")
            routes = driver.execute_async_script(ZOOM)
            severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        finally:
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)
    return {"ready_ms": ready, "search_ms": search_ms, "found": found, "ends": ends,
            "zoom_ms": zoom, "routes_ms": routes, "drawn": drawn, "cabinets": cabinets,
            "console_errors": len(severe)}


def run_size(size: str, args) -> dict:
    import csv

    from planner.exports import cables_csv, viewer, wiring_pdf
    from planner.plan import plan
    spec, budget_s = PLANS[size]
    started = time.perf_counter()
    built = plan(spec, CATALOG, FLOOR, time_limit_s=10, seed=0)
    plan_s = time.perf_counter() - started
    out = Path(tempfile.mkdtemp(prefix=f"bench-viewer-{size}-"))
    try:
        writers = {}
        for name, module in (("index.html", viewer), ("wiring.pdf", wiring_pdf),
                             ("cables.csv", cables_csv)):
            started = time.perf_counter()
            module.write(built, out)
            writers[name] = (time.perf_counter() - started, (out / name).stat().st_size)
        with open(out / "cables.csv", newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        longest = max(rows, key=lambda r: float(r["length_m"]))
        figures = page_figures(out / "index.html", args.loads, longest["label"],
                               len(built.cabinets))
        figures["ends_match"] = all(figures["ends"][f"{s}_{f}"] == longest[f"{s}_{f}"]
                                    for s in "ab" for f in ("device", "port", "cabinet", "ru"))
        figures["found_ok"] = figures["found"] == longest["cable_id"]
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"size": size, "spec": spec, "budget_s": budget_s, "plan_s": plan_s,
            "endpoints": built.topology.num_endpoints, "cables": len(built.cables),
            "writers": writers, **figures}


def busy_loops(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def markdown(results: list[dict], args) -> str:
    mib = 2 ** 20
    out = ["# Plan viewer benchmark", "",
           "Generated by `" + " ".join(["python benchmarks/bench_viewer.py", *args.argv]) +
           f"` on {date.today().isoformat()}; load average at the start "
           f"{args.load:.1f} (other work on the machine).",
           "", f"Machine: {os.cpu_count()} logical CPUs; Chromium "
           + subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True)
           .stdout.strip().split(" built")[0].replace("Chromium ", "") + " headless, "
           "software rendering (no GPU), 1400x900 window.", "",
           "| size | busy loops | plan | endpoints | cables | index.html MiB | wiring.pdf MiB | "
           "index.html writer s | wiring.pdf writer s | ready ms (median; all) | budget | "
           "first search ms | frame ms zooming (median / max) | with 20K routes (median / max) "
           "| checks |",
           "|" + "---|" * 15]
    for r in results:
        html_s, html_b = r["writers"]["index.html"]
        pdf_s, pdf_b = r["writers"]["wiring.pdf"]
        ready = statistics.median(r["ready_ms"])
        ok = ready <= r["budget_s"] * 1000
        checks = (f"{r['drawn']:,}/{r['cabinets']:,} cabinets drawn; cable "
                  f"{'found, ends = cables.csv' if r['found_ok'] and r['ends_match'] else 'WRONG'}"
                  f"; {r['console_errors']} console errors")
        zoom, routes = r["zoom_ms"], r["routes_ms"]
        out.append(
            f"| {r['size']} | {r['busy']} | `{r['spec']}` | {r['endpoints']:,} | {r['cables']:,} | "
            f"{html_b / mib:.1f} | {pdf_b / mib:.1f} | {html_s:.2f} | {pdf_s:.2f} | "
            f"{ready:,.0f} ({', '.join(f'{v:,.0f}' for v in r['ready_ms'])}) | "
            f"{r['budget_s'] * 1000:,.0f} {'met' if ok else 'MISSED'} | {r['search_ms']:,.0f} | "
            f"{statistics.median(zoom):.1f} / {max(zoom):.1f} | "
            f"{statistics.median(routes):.1f} / {max(routes):.1f} | {checks} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10k,100k", help="comma-separated: " + ",".join(PLANS))
    p.add_argument("--loads", type=int, default=3, help="page loads per size (median)")
    p.add_argument("--busy", type=int, default=2,
                   help="busy-loop processes during the second run of each size (0: no second run)")
    p.add_argument("--out", default=str(HERE / "RESULTS_viewer.md"),
                   help="Markdown report ('-' = stdout only)")
    args = p.parse_args(argv)
    args.argv = argv
    args.load = os.getloadavg()[0]
    sizes = args.sizes.split(",")
    unknown = [s for s in sizes if s not in PLANS]
    if unknown:
        p.error(f"--sizes: unknown {unknown}; choose from {', '.join(PLANS)}")
    results = []
    for size in sizes:
        for busy in sorted({0, args.busy}):
            loops = busy_loops(busy)
            try:
                results.append({**run_size(size, args), "busy": busy})
            finally:
                for proc in loops:
                    proc.kill()
                    proc.wait()
            print(f"{size}, {busy} busy loops: ready {results[-1]['ready_ms']} ms",
                  file=sys.stderr)
    text = markdown(results, args)
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
