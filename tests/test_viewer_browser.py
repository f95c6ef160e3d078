"""``index.html`` in a real browser: Debian's Chromium, headless, driven through chromedriver.

On a small plan and a ~10K-endpoint plan: the page opens from disk with no console error and
no network request, draws every cabinet where it is in its group's colour, finds a cable by
label (and by id, device:port, device, cabinet) and shows both ends as cables.csv has them,
filters by media / part number / length to the counts of summary.json and cables.csv, opens a
cabinet's elevation on a click, pans and zooms by touch; text from the inputs stays text.

The browser is the system's (``/usr/bin/chromium`` + ``/usr/bin/chromedriver``; ``.ci/run``
installs them); Selenium is pointed at that driver, so it downloads nothing. Without them the
tests are skipped, except under CI (``CI`` set), where that is an error.
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from planner.exports import cables_csv, summary_json, viewer
from planner.exports.viewer import geometry
from planner.exports.wiring_pdf import GROUP_COLOURS
from tests.test_exports_plans import get_plan
from tests.test_viewer import HOSTILE, halls_plan, hostile_plan

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,900", "--force-device-scale-factor=1"]
KW_BUDGET = 1.5        # kW per cabinet of the "halls" plan, its subnet-manager and management
                       # boxes included: a few tenths of it are used
READY_TIMEOUT_S = 60   # generous: a busy machine; the budget itself is measured in benchmarks/


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} / {CHROMEDRIVER} missing: .ci/run installs chromium and "
                        "chromium-driver")
        pytest.skip("no system Chromium / chromedriver (apt-get install chromium "
                    "chromium-driver)")
    profile = tempfile.mkdtemp(prefix="viewer-test-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@lru_cache(maxsize=None)
def plan_folder(name: str) -> tuple[object, Path]:
    """(plan, folder holding its index.html, cables.csv and summary.json)."""
    if name == "10k":
        from planner.plan import plan
        built = plan("slimfly:q=19,p=15", "modern-100g", "hot-aisle", strategy="hint",
                     time_limit_s=5, seed=0)
    elif name == "halls":
        built = halls_plan("meet-me", KW_BUDGET)
    else:
        built = get_plan(name)
    out = Path(tempfile.mkdtemp(prefix=f"viewer-{name}-"))
    for writer in (viewer, cables_csv, summary_json):
        writer.write(built, out)
    return built, out


def open_page(driver, folder: Path, hash_: str = "") -> None:
    from selenium.webdriver.support.ui import WebDriverWait
    driver.get_log("browser")                      # drop what earlier pages logged
    driver.get((folder / "index.html").as_uri() + hash_)
    WebDriverWait(driver, READY_TIMEOUT_S).until(
        lambda d: d.execute_script("return document.body.dataset.ready"))
    assert driver.execute_script("return document.body.dataset.ready") == "1"


def errors(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def cables_rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "cables.csv", newline="", encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if r["kind"] != "mgmt"]  # the fabric's; mgmt cords: test_fabric_devices


def wait_for(driver, script: str):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, 20).until(lambda d: d.execute_script(script))


SIZES = ["slimfly-hot", "10k"]
YLORRD = ["#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c",
          "#bd0026", "#800026"]
"""ColorBrewer YlOrRd, 9 classes (Brewer, colorbrewer2.org): the kW and cable-count ramp."""


@pytest.mark.parametrize("name", SIZES + ["slimfly-abstract"])
def test_page_opens_from_disk_without_errors_or_network(browser, name):
    _, folder = plan_folder(name)
    open_page(browser, folder)
    assert errors(browser) == []
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.title == browser.execute_script(
        "return document.getElementById('title').textContent")


@pytest.mark.parametrize("name", SIZES)
def test_every_cabinet_is_drawn_in_its_group_colour(browser, name):
    """After "fit", every cabinet lies on the canvas, the canvas's pixel inside it has the
    colour wiring.pdf gives its electrical group, and a hit test there names it."""
    plan, folder = plan_folder(name)
    open_page(browser, folder)
    cabinets = plan.cabinets
    front = geometry.floor_geometry(plan)["cabinets"]["front"]
    probes = browser.execute_script("""
        const names = arguments[0], below = arguments[1], out = [];
        const canvas = document.getElementById('floor'), ctx = canvas.getContext('2d');
        const dpr = window.devicePixelRatio || 1;
        names.forEach((name, k) => {
          const [x0, y0, x1, y1] = window.plannerViewer.cabinetBox(name);
          const x = (x0 + x1) / 2, y = y0 + (y1 - y0) * (below[k] ? 0.7 : 0.3);
          const px = ctx.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data;
          out.push([x0, y0, x1, y1, Array.from(px.slice(0, 3)),
                    window.plannerViewer.cabinetAt(x, y)]);
        });
        return [out, canvas.clientWidth, canvas.clientHeight,
                Number(canvas.dataset.cabinetsDrawn)];
    """, cabinets["name"].tolist(), [bool(f < 0) for f in front])
    boxes, width, height, drawn = probes
    assert drawn == len(cabinets)
    for (x0, y0, x1, y1, rgb, hit), name, group in zip(boxes, cabinets["name"],
                                                        cabinets["group"]):
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height, name
        want = np.round(np.array(GROUP_COLOURS[group % len(GROUP_COLOURS)]) * 255)
        assert np.abs(np.array(rgb) - want).max() <= 2, (name, rgb, want)
        assert hit == name


def find(driver, query: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    box = driver.find_element(By.ID, "search")
    box.clear()
    box.send_keys(query)
    box.send_keys(Keys.ENTER)


def shown_cable(driver) -> dict[str, str]:
    """The traced cable's id and both ends as the cable panel shows them."""
    return wait_for(driver, """
        const panel = document.getElementById('panel-cable');
        if (panel.hidden) return null;
        const out = {cable_id: panel.querySelector('h2').dataset.cable,
                     label: panel.querySelector('h2').textContent};
        for (const end of panel.querySelectorAll('.end')) {
          for (const dd of end.querySelectorAll('dd')) {
            out[end.dataset.end + '_' + dd.dataset.field] = dd.textContent;
          }
        }
        return out;""")


@pytest.mark.parametrize("name", SIZES)
def test_search_by_label_shows_both_ends_as_in_cables_csv(browser, name):
    _, folder = plan_folder(name)
    rows = cables_rows(folder)
    network = [r for r in rows if r["kind"] == "network"]
    far = max(network, key=lambda r: float(r["length_m"]))
    picks = [network[0], far, rows[-1]]
    open_page(browser, folder)
    for row in picks:
        find(browser, row["label"].lower())          # case does not matter
        got = wait_for(browser, f"""
            const h = document.querySelector('#panel-cable h2');
            return h && h.dataset.cable === {row['cable_id']!r};""")
        assert got
        shown = shown_cable(browser)
        assert shown["label"] == row["label"]
        for side in "ab":
            for field in ("device", "port", "cabinet", "ru"):
                assert shown[f"{side}_{field}"] == row[f"{side}_{field}"], (side, field)
    assert errors(browser) == []


def test_search_lands_on_ids_ports_devices_and_cabinets(browser):
    plan, folder = plan_folder("slimfly-hot")
    rows = cables_rows(folder)
    row = next(r for r in rows if r["kind"] == "network")
    endpoint = next(r for r in rows if r["kind"] == "endpoint")
    open_page(browser, folder)
    for query, cable in ((row["cable_id"], row), (f"{row['b_device']}:{row['b_port']}", row),
                         (f"{endpoint['b_device']}:1", endpoint)):
        find(browser, query)
        wait_for(browser, f"return document.querySelector('#panel-cable h2')?.dataset.cable"
                          f" === {cable['cable_id']!r}")
    cabinet = plan.cabinets["name"].iloc[3]
    for query, title in ((cabinet, f"Cabinet {cabinet}"),
                         (row["a_device"].upper(), f"Cabinet {row['a_cabinet']}")):
        find(browser, query)
        wait_for(browser, f"return !document.getElementById('panel-cabinet').hidden && "
                          f"document.querySelector('#panel-cabinet h2').textContent"
                          f" === {title!r}")
    find(browser, "no-such-thing-42")
    assert wait_for(browser, "const m = document.getElementById('message');"
                             "return !m.hidden && m.textContent.includes('no-such-thing-42')")
    assert errors(browser) == []


PATCH_RACK_FILL = (0xED, 0xE9, 0xFE)
"""viewer.js PATCH_RACK_FILL (#ede9fe): the inside of a patch rack's square."""


def test_patch_racks_drawn_where_they_stand_and_found_by_name(browser):
    """Structured cabling (``hot-aisle``): every patch rack of the plan is drawn (its centre
    in the patch-rack colour, the rack found under it), a click shows its panels as
    ``StructuredPlan.panels`` lists them (top first), a panel's name finds its rack, and a
    cable through panels links to the racks it passes."""
    plan, folder = plan_folder("slimfly-hot")
    racks, panels = plan.structured.racks, plan.structured.panels
    assert len(racks) == plan.summary["structured"]["patch_racks"] > 0
    open_page(browser, folder)
    for name in racks["name"]:
        x, y = browser.execute_script("return window.plannerViewer.rackCentre(arguments[0])", name)
        assert browser.execute_script("return window.plannerViewer.rackAt(arguments[0], arguments[1])",
                                      x, y) == name
        rgb = browser.execute_script("""
            const dpr = window.devicePixelRatio || 1;
            return Array.from(document.getElementById('floor').getContext('2d')
              .getImageData(Math.floor(arguments[0] * dpr), Math.floor(arguments[1] * dpr), 1, 1)
              .data.slice(0, 3));""", x, y)
        assert np.abs(np.array(rgb) - PATCH_RACK_FILL).max() <= 2, (name, rgb)
    rack = racks["name"].iloc[0]
    x, y = browser.execute_script("return window.plannerViewer.rackCentre(arguments[0])", rack)
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    canvas = browser.find_element(By.ID, "floor")
    size = canvas.size
    ActionChains(browser).move_to_element_with_offset(
        canvas, int(x - size["width"] / 2), int(y - size["height"] / 2)).click().perform()
    wait_for(browser, "return !document.getElementById('panel-rack').hidden && "
                      f"document.querySelector('#panel-rack h2').textContent === 'Patch rack {rack}'")
    shown = browser.execute_script("return Array.from(document.querySelectorAll("
                                   "'#panel-rack tbody tr')).map((tr) => tr.dataset.panel)")
    mine = panels[panels["rack"] == rack].sort_values("ru", ascending=False)
    assert shown == mine["name"].tolist()
    find(browser, mine["name"].iloc[0])
    wait_for(browser, f"return document.querySelector('#panel-rack h2')?.textContent === 'Patch rack {rack}'")
    through = plan.cables[plan.cables["segments"].str.contains(f"{mine['name'].iloc[0]}:", regex=False)]
    find(browser, through["cable_id"].iloc[0])
    assert wait_for(browser, "return Array.from(document.querySelectorAll('#panel-cable a'))"
                             f".some((a) => a.getAttribute('href') === '#rack={rack}')")
    assert errors(browser) == []


def filter_count(driver, field: str, keep: set[str]) -> int:
    """Tick only ``keep`` among the checkboxes of filter ``field``; the count shown."""
    return driver.execute_script("""
        const box = document.querySelector(`#panel-cables fieldset[data-field="${arguments[0]}"]`);
        for (const input of box.querySelectorAll('input')) {
          const want = arguments[1].includes(input.dataset.value);
          if (input.checked !== want) input.click();
        }
        return Number(document.getElementById('filter-count').dataset.count);
    """, field, sorted(keep))


@pytest.mark.parametrize("name", SIZES)
def test_filters_count_what_summary_and_cables_csv_count(browser, name):
    _, folder = plan_folder(name)
    import json
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    rows = cables_rows(folder)
    open_page(browser, folder, "#cables")
    wait_for(browser, "return !document.getElementById('panel-cables').hidden")
    assert filter_count(browser, "media", {"electrical", "optical"}) == summary["cables"]["total"]
    for media in ("electrical", "optical"):
        want = summary["cables"]["network"][media] + summary["cables"]["endpoint"][media]
        assert filter_count(browser, "media", {media}) == want
    filter_count(browser, "media", {"electrical", "optical"})
    # by_sku counts pieces (a link's two cords, each trunk once); the part-number filter
    # finds the cables with that part at either end (or as their transceiver), as cables.csv
    parts = ("sku", "a_sku", "b_sku", "a_transceiver", "b_transceiver")
    skus = {sku for r in rows for sku in (r[k] for k in parts) if sku}
    built = plan_folder(name)[0]
    trunks = set() if built.structured is None else set(built.structured.trunks["sku"])
    assert set(summary["cables"]["by_sku"]) - trunks <= skus
    for sku in sorted(skus)[:12]:
        count = sum(1 for r in rows if sku in {r[k] for k in parts})
        assert filter_count(browser, "sku", {sku}) == count
    filter_count(browser, "sku", skus)
    lengths = np.array([float(r["length_m"]) for r in rows])
    lo, hi = np.quantile(lengths, [0.3, 0.8]).round(1)
    got = browser.execute_script("""
        for (const [id, v] of [['len-min', arguments[0]], ['len-max', arguments[1]]]) {
          const input = document.getElementById(id);
          input.value = String(v);
          input.dispatchEvent(new Event('input'));
        }
        return Number(document.getElementById('filter-count').dataset.count);""", lo, hi)
    assert got == int(((lengths >= lo) & (lengths <= hi)).sum())
    assert errors(browser) == []


def test_clicking_a_cabinet_opens_its_elevation_and_cables(browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    plan, folder = plan_folder("slimfly-hot")
    rows = cables_rows(folder)
    open_page(browser, folder)
    name = plan.cabinets["name"].iloc[len(plan.cabinets) // 2]
    canvas = browser.find_element(By.ID, "floor")
    x0, y0, x1, y1 = browser.execute_script("return window.plannerViewer.cabinetBox(arguments[0])",
                                            name)
    size = canvas.size
    ActionChains(browser).move_to_element_with_offset(
        canvas, int((x0 + x1) / 2 - size["width"] / 2),
        int((y0 + y1) / 2 - size["height"] / 2)).click().perform()
    wait_for(browser, f"return document.querySelector('#panel-cabinet h2')?.textContent"
                      f" === 'Cabinet {name}'")
    shown = browser.execute_script("""
        return Array.from(document.querySelectorAll('#panel-cabinet .rack .dev'))
          .map((e) => [e.dataset.device, Number(e.dataset.ru)]);""")
    devices = plan.devices[plan.devices["cabinet"] == name]
    assert sorted(map(tuple, shown)) == sorted(zip(devices["name"], devices["ru"].astype(float)))
    leaving = sum(1 for r in rows if name in (r["a_cabinet"], r["b_cabinet"]))
    heading = browser.execute_script(
        "return Array.from(document.querySelectorAll('#panel-cabinet h3')).pop().textContent")
    assert heading.endswith(f"({leaving})")
    assert errors(browser) == []


def test_touch_pinch_zooms_and_drag_pans(browser):
    """Two fingers spreading apart zoom the floor by the ratio of their distances; one finger
    dragging moves it by the drag."""
    plan, folder = plan_folder("10k")
    open_page(browser, folder)
    moved = browser.execute_script("""
        const canvas = document.getElementById('floor'), v = window.plannerViewer;
        const rect = canvas.getBoundingClientRect();
        const touch = (type, id, x, y) => canvas.dispatchEvent(new PointerEvent(type, {
          pointerId: id, pointerType: 'touch', isPrimary: id === 1, bubbles: true,
          clientX: rect.left + x, clientY: rect.top + y}));
        const box = () => v.cabinetBox(arguments[0]);
        const before = box();
        touch('pointerdown', 1, 300, 400); touch('pointerdown', 2, 400, 400);
        touch('pointermove', 2, 500, 400);            // distance 100 -> 200
        touch('pointerup', 2, 500, 400); touch('pointerup', 1, 300, 400);
        const zoomed = box();
        touch('pointerdown', 1, 200, 200); touch('pointermove', 1, 260, 230);
        touch('pointerup', 1, 260, 230);
        return [before, zoomed, box()];""", plan.cabinets["name"].iloc[0])
    before, zoomed, panned = moved
    assert (zoomed[2] - zoomed[0]) / (before[2] - before[0]) == pytest.approx(2.0, rel=1e-6)
    assert panned[0] - zoomed[0] == pytest.approx(60) and panned[1] - zoomed[1] == pytest.approx(30)


def test_names_with_markup_stay_text(browser, tmp_path):
    """A floor and catalog named ``</script><script>…`` / ``<img onerror=…>``: nothing runs,
    no element is made from them, and the page shows the text as it is."""
    built = hostile_plan(tmp_path)
    viewer.write(built, tmp_path)
    open_page(browser, tmp_path, "#bom")
    assert errors(browser) == []
    assert browser.execute_script("return window.pwned") is None
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0
    assert browser.execute_script("return document.scripts.length") == 2
    assert HOSTILE in browser.title
    bom = browser.execute_script("return document.getElementById('panel-bom').textContent")
    assert HOSTILE in bom


def pixels(driver, names, fronts) -> list[list[int]]:
    """The canvas colour inside each cabinet, away from its front bar and its name."""
    return driver.execute_script("""
        const ctx = document.getElementById('floor').getContext('2d'), out = [];
        const dpr = window.devicePixelRatio || 1;
        arguments[0].forEach((name, k) => {
          const [x0, y0, x1, y1] = window.plannerViewer.cabinetBox(name);
          const x = (x0 + x1) / 2, y = y0 + (y1 - y0) * (arguments[1][k] < 0 ? 0.7 : 0.3);
          out.push(Array.from(ctx.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1)
            .data.slice(0, 3)));
        });
        return out;""", names, fronts)


def test_cabinets_coloured_by_kw_against_the_budget(browser):
    """Colour by cabinet kW: each cabinet takes the YlOrRd class of its kW share of the floor's
    budget (cabinets.kw / cabinet_kw_budget in ninths), and its panel says both. The page
    redraws in an animation frame, which a loaded machine delays: the test polls the canvas
    until it shows the kW colours (or 20 s pass) and then checks every cabinet."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    plan, folder = plan_folder("halls")
    open_page(browser, folder)
    browser.execute_script("""const s = document.getElementById('colour-by');
        s.value = 'kw'; s.dispatchEvent(new Event('change'));""")
    cabinets = plan.cabinets
    front = [int(f) for f in geometry.floor_geometry(plan)["cabinets"]["front"]]
    want = np.array([[int(YLORRD[min(8, int(kw / KW_BUDGET * 9))][i:i + 2], 16) for i in (1, 3, 5)]
                     for kw in cabinets["kw"]])

    def off_by(driver) -> np.ndarray:
        return np.abs(np.array(pixels(driver, cabinets["name"].tolist(), front)) - want).max(axis=1)

    try:
        WebDriverWait(browser, 20).until(lambda d: off_by(d).max() <= 2)
    except TimeoutException:
        pass  # the assertion below names the cabinets that are off
    off = off_by(browser)
    assert off.max() <= 2, [(n, kw) for n, kw, o in zip(cabinets["name"], cabinets["kw"], off) if o > 2]
    name = cabinets["name"].iloc[0]
    find(browser, name)
    expect = f"{cabinets['kw'].iloc[0]:g} of {KW_BUDGET:g} kW budget"
    wait_for(browser, "const t = document.querySelector('#panel-cabinet table');"
                      f"return t !== null && t.textContent.includes({expect!r});")
    assert errors(browser) == []


def test_route_kind_filter_counts_as_summary_and_cables_csv(browser):
    plan, folder = plan_folder("halls")
    import json
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    rows = cables_rows(folder)
    open_page(browser, folder, "#cables")
    wait_for(browser, "return !document.getElementById('panel-cables').hidden")
    kinds = summary["cables"]["route_kind"]
    assert set(kinds) == set(geometry.ROUTE_KINDS) and all(kinds.values())
    for kind, count in kinds.items():
        assert filter_count(browser, "route", {kind}) == count
        assert count == sum(1 for r in rows if r["route_kind"] == kind)
    assert errors(browser) == []


def test_bom_line_lists_the_cables_of_its_part_and_length(browser):
    """Every BOM line of a part that cables use links to exactly the cables of that part
    (and ordered length, for parts sold by length), as cables.csv counts them."""
    plan, folder = plan_folder("slimfly-hot")
    rows = cables_rows(folder)
    open_page(browser, folder, "#bom")
    lines = browser.execute_script("""
        return Array.from(document.querySelectorAll('#panel-bom tr[id^="bom-"]'))
          .filter((tr) => tr.querySelector('a[href="#cables"]')).map((tr) => tr.id);""")
    assert lines
    for line in lines:
        i = int(line.split("-")[1])
        sku, length = plan.bom["sku"].iloc[i], plan.bom["length_m"].iloc[i]
        browser.get((folder / "index.html").as_uri() + "#bom")
        wait_for(browser, f"return document.getElementById('{line}') !== null")
        browser.execute_script(f"document.querySelector('#{line} a[href=\"#cables\"]').click()")
        got = int(wait_for(browser, "return !document.getElementById('panel-cables').hidden && "
                                    "document.getElementById('filter-count').dataset.count"))
        want = sum(1 for r in rows if sku in (r["sku"], r.get("a_transceiver"),
                                               r.get("b_transceiver"))
                   and (np.isnan(length) or float(r["order_length_m"]) == length))
        assert got == want, (sku, length)
    assert errors(browser) == []


def test_filter_by_transceiver_part_number_gives_the_cables_using_it(browser):
    """Ticking one transceiver part number keeps exactly the cables with that module at either
    end (or that part number), counted from cables.csv."""
    _, folder = plan_folder("slimfly-hot")
    rows = cables_rows(folder)
    numbers = sorted({r[f"{s}_transceiver"] for r in rows for s in "ab"} - {""})
    assert numbers
    open_page(browser, folder, "#cables")
    wait_for(browser, "return !document.getElementById('panel-cables').hidden")
    for number in numbers:
        want = sum(number in (r["sku"], r["a_transceiver"], r["b_transceiver"]) for r in rows)
        assert filter_count(browser, "sku", {number}) == want, number
    assert errors(browser) == []


def test_cable_through_panels_lists_its_segments(browser):
    """A cable between rows on the structured hot-aisle hall: its panel shows the cords, panel
    ports and trunk of its ``segments``, in order, adding up to its length."""
    _, folder = plan_folder("slimfly-hot")
    row = next(r for r in cables_rows(folder) if r["segments"])
    pieces = row["segments"].split(" | ")
    open_page(browser, folder, "#cable=" + row["cable_id"])
    got = wait_for(browser, """
        const t = document.querySelector('#panel-cable table[data-segments]');
        return t && Array.from(t.rows, (r) => [r.cells[0].textContent, r.cells[1].textContent]);""")
    assert len(got) == len(pieces) + 1
    for (key, value), piece in zip(got, pieces):
        words = piece.split(" ")
        if words[0] == "cord":
            assert key.endswith("patch cord") and value == f"{words[1]} m · {words[3]}"
        elif words[0] == "trunk":
            assert key == f"trunk {words[1]}" and value == f"{words[2]} m · {words[4]}"
        else:
            panel, port = piece.rsplit(":", 1)
            rack = panel.rsplit("-", 1)[0]     # panel A-P0-01 is U01 of patch rack A-P0
            assert (key, value) == (f"panel {panel}", f"port {port} · {rack}")
    assert float(got[-1][1].split(" ")[0].replace(",", "")) == pytest.approx(
        float(row["length_m"]), abs=0.001)
    assert errors(browser) == []
