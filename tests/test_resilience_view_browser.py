"""The viewer's resilience layer in a real browser (headless Chromium, as
``tests/test_viewer_browser.py`` drives it): the floor coloured by θ after each cabinet fails,
and a click on a tray segment showing what it carries.

- with "θ after cabinet failure" chosen, every cabinet's pixel has the colour of its θ ratio on
  the YlOrRd ramp (darkest for the worst), the summary's worst cabinet is drawn darkest and
  named in the legend with its θ;
- with the tray layer on, a click on a segment opens its panel: its network cables, router
  pairs (from cables.csv) and θ after it fails (the plan's value);
- a plan measured without cabinet failures offers the colouring disabled, saying why; one
  without tray failures the tray layer.
"""

from __future__ import annotations

import csv
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from planner.exports import cables_csv, summary_json, viewer
from planner.exports.viewer import geometry
from tests.test_viewer_browser import (YLORRD, browser, errors, open_page,  # noqa: F401
                                       plan_folder, wait_for)


def _rgb(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])


def expected_colour(ratio: float, lo: float, hi: float) -> str:
    """The ramp class of a θ ratio between the worst ``lo`` (darkest) and ``hi`` (lightest)."""
    f = (hi - ratio) / (hi - lo) if hi > lo else 0.0
    return YLORRD[min(len(YLORRD) - 1, max(0, int(np.floor(f * len(YLORRD)))))]


def choose(driver, select: str | None = None, trays: bool | None = None) -> None:
    if select is not None:
        driver.execute_script("const s = document.getElementById('colour-by'); "
                              f"s.value = {select!r}; s.dispatchEvent(new Event('change'));")
    if trays is not None:
        driver.execute_script("const s = document.getElementById('show-trays'); "
                              f"s.checked = {'true' if trays else 'false'}; "
                              "s.dispatchEvent(new Event('change'));")
    driver.execute_script("return new Promise((r) => requestAnimationFrame(() => r()))")


def test_cabinets_coloured_by_theta_after_their_failure(browser):
    plan, folder = plan_folder("slimfly-hot")
    per = plan.resilience_groups["cabinet"]
    ratio = dict(zip(per["names"], per["theta_ratio"].tolist()))
    lo, hi = min(ratio.values()), max(ratio.values())
    open_page(browser, folder)
    choose(browser, "theta")
    front = geometry.floor_geometry(plan)["cabinets"]["front"]
    names = plan.cabinets["name"].tolist()
    probes = browser.execute_script("""
        const names = arguments[0], below = arguments[1], out = [];
        const canvas = document.getElementById('floor'), ctx = canvas.getContext('2d');
        const dpr = window.devicePixelRatio || 1;
        names.forEach((name, k) => {
          const [x0, y0, x1, y1] = window.plannerViewer.cabinetBox(name);
          const x = (x0 + x1) / 2, y = y0 + (y1 - y0) * (below[k] ? 0.7 : 0.3);
          const px = ctx.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data;
          out.push([Array.from(px.slice(0, 3)), window.plannerViewer.cabinetTheta(name)]);
        });
        return [out, document.getElementById('legend').textContent];
    """, names, [bool(f < 0) for f in front])
    shown, legend = probes
    for name, (rgb, theta) in zip(names, shown):
        want = expected_colour(ratio[name], lo, hi)
        assert theta["ratio"] == ratio[name] and theta["colour"] == want, name
        assert np.abs(np.array(rgb) - _rgb(want)).max() <= 2, (name, rgb, want)
    worst = plan.summary["resilience"]["kinds"]["cabinet"]["worst"]
    at = names.index(worst["name"])
    assert np.abs(np.array(shown[at][0]) - _rgb(YLORRD[-1])).max() <= 2   # darkest
    assert f"Worst cabinet: {worst['name']} keeps {worst['theta_ratio']:.3f} of intact" in legend
    assert f"{lo:.3f} (worst)" in legend and f"{hi:.3f} (best)" in legend
    best = names.index(max(ratio, key=ratio.get))
    assert np.abs(np.array(shown[best][0]) - _rgb(YLORRD[0])).max() <= 2    # lightest
    browser.execute_script(f"location.hash = '#cabinet={worst['name']}'")
    shown = wait_for(browser, "const p = document.getElementById('panel-cabinet');"
                              "if (p.hidden) return null; for (const tr of p.querySelectorAll("
                              "'table.kv tr')) if (tr.cells[0].textContent === 'θ after it fails')"
                              " return tr.cells[1].textContent; return null;")
    assert shown == (f"{worst['theta_ratio']:.3f} of intact (θ {worst['theta']:.3f}), "
                     f"{worst['endpoints_lost']} endpoints lost (the worst cabinet)")
    assert errors(browser) == []


def _rows(folder: Path) -> list[dict]:
    with open(folder / "cables.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("segment", ["P0:B-C", "B:P0-P1"])   # θ 0.325 of intact; cuts off
def test_click_a_tray_segment_shows_what_it_carries(browser, segment):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from planner.exports.viewer import resilience
    plan, folder = plan_folder("slimfly-hot")
    trays, members, _ = resilience.tray_tables(plan)
    k = trays["name"].tolist().index(segment)
    start = np.r_[0, np.cumsum(trays["cables"])]
    mine = members["cable"].to_numpy()[start[k]:start[k + 1]]
    rows = _rows(folder)
    pairs = {" – ".join(sorted((rows[c]["a_device"], rows[c]["b_device"]))) for c in mine}
    open_page(browser, folder)
    choose(browser, trays=True)
    x, y = browser.execute_script(f"return window.plannerViewer.trayCentre({segment!r})")
    assert browser.execute_script(f"return window.plannerViewer.trayAt({x}, {y})") == segment
    canvas = browser.find_element(By.ID, "floor")
    size = canvas.size
    ActionChains(browser).move_to_element_with_offset(
        canvas, int(x - size["width"] / 2), int(y - size["height"] / 2)).click().perform()
    wait_for(browser, "return !document.getElementById('panel-tray').hidden && document."
                      f"querySelector('#panel-tray h2').textContent === 'Tray segment {segment}'")
    shown = browser.execute_script("""
        const p = document.getElementById('panel-tray'), kv = {};
        for (const tr of p.querySelectorAll('table.kv tr')) kv[tr.cells[0].textContent] = tr.cells[1].textContent;
        return [kv, Array.from(p.querySelectorAll('table.pairs tbody tr')).map((tr) => tr.dataset.pair),
                Array.from(p.querySelectorAll('.tray-cables li')).map((li) => li.dataset.cable)];""")
    kv, shown_pairs, shown_cables = shown
    assert kv["network cables"] == f"{len(mine):,}"
    assert kv["router pairs (links)"] == f"{len(pairs):,}"
    assert set(shown_pairs) == pairs
    assert shown_cables == [rows[c]["cable_id"] for c in mine]
    ratio, theta, cut = trays["theta_ratio"][k], trays["theta"][k], int(trays["pairs_cut"][k])
    assert kv["endpoint pairs cut off"] == f"{cut:,}"
    if cut:       # a row tray carries every cable rising from its cabinets: routers cut off
        assert theta == 0 and kv["θ after it fails"].startswith("0: surviving endpoints cut off")
    else:
        assert kv["θ after it fails"].startswith(f"{ratio:.3f} of intact (θ {theta:.3f})")
    assert browser.execute_script("return location.hash") == "#tray=" + segment.replace(":", "%3A")
    assert errors(browser) == []


@lru_cache(maxsize=None)
def _unmeasured_folder() -> Path:
    from planner.plan import plan
    from planner.topologies.slimfly import slimfly
    built = plan(slimfly(q=5), "modern-100g", "hot-aisle", strategy="hint", time_limit_s=5,
                 seed=0, resilience="tray")
    out = Path(tempfile.mkdtemp(prefix="viewer-tray-only-"))
    for writer in (viewer, cables_csv, summary_json):
        writer.write(built, out)
    return out


def test_colouring_not_measured_says_why(browser):
    open_page(browser, _unmeasured_folder())
    option = browser.execute_script(
        "const o = document.querySelector('#colour-by option[value=theta]');"
        "return [o.disabled, o.textContent, document.getElementById('show-trays').disabled]")
    assert option[0] is True and "not measured" in option[1] and "cabinet" in option[1]
    assert option[2] is False                   # the trays were measured: the layer is there
    open_page(browser, plan_folder("slimfly-abstract")[1])     # no trays on the papers' racks
    layer = browser.execute_script("const t = document.getElementById('show-trays');"
                                   "return [t.disabled, t.parentElement.title]")
    assert layer[0] is True and "not measured" in layer[1] and "no trays" in layer[1]
