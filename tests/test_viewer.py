"""``index.html`` without a browser: the data block read back by an independent reader of its
documented format equals the port map, the floor geometry and routes match the floor's length
model, and the page holds no markup from the inputs and loads nothing from outside.

(The page in a real browser: tests/test_viewer_browser.py.)
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import json
import re
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from planner.cabling import CSV_COLUMNS
from planner.exports import cables_csv, summary_json, viewer
from planner.exports.viewer import geometry, payload
from tests.test_exports_plans import get_plan

PLANS = ["slimfly-hot", "slimfly-abstract", "dragonfly-hot", "dragonfly-trunk"]
HALLS = {   # three small halls of 3 rows x 8 cabinets, cross trays every 4 cabinets
    "rows": 3, "cabinets_per_row": 8, "end_aisle_m": 1.2, "cross_tray_every": 4, "count": 4,
    "link_m": 25}

# ---------------------------------------------------------------- an independent block reader

DTYPES = {"u1": "<u1", "i1": "<i1", "u2": "<u2", "i2": "<i2", "i4": "<i4", "f8": "<f8"}


def read_block(text: str) -> tuple[dict, dict[str, dict[str, list]]]:
    """(meta, {table: {column: values}}) of a page, read as payload's docstring describes the
    block: base64 -> zlib -> 4-byte length, JSON header, columns at 8-byte aligned offsets."""
    match = re.search(r'<script id="plan-data" type="application/octet-stream">([^<]*)</script>',
                      text)
    raw = zlib.decompress(base64.b64decode(match.group(1)))
    n = int.from_bytes(raw[:4], "little")
    header = json.loads(raw[4:4 + n].decode("utf-8"))
    base = (4 + n + 7) // 8 * 8
    tables: dict[str, dict[str, list]] = {}
    for name, spec in header["tables"].items():
        rows, columns = spec["rows"], {}
        for col in spec["columns"]:
            stored = None
            if "dtype" in col:
                assert (base + col["offset"]) % 8 == 0
                stored = np.frombuffer(raw, DTYPES[col["dtype"]], rows, base + col["offset"])
            if col["type"] == "num":
                values = stored.astype(float)
                if "null" in col:
                    values[stored == col["null"]] = np.nan
                columns[col["name"]] = list(values / col.get("scale", 1))
            elif col["type"] == "seq":
                columns[col["name"]] = [f"{prefix}{first + k:0{width}d}"
                                        for prefix, width, first, count in col["runs"]
                                        for k in range(count)]
            elif col["type"] == "str":
                values = col["values"]
                columns[col["name"]] = values if stored is None else [values[c] for c in stored]
            else:
                target = tables[col["table"]][col["column"]]
                columns[col["name"]] = ["" if c < 0 else target[c] for c in stored]
        tables[name] = columns
    return header["meta"], tables


@pytest.fixture(scope="module", params=PLANS)
def written(request, tmp_path_factory):
    """(plan, folder) with index.html, cables.csv and summary.json written by their writers."""
    out = tmp_path_factory.mktemp(request.param)
    plan = get_plan(request.param)
    for writer in (viewer, cables_csv, summary_json):
        writer.write(plan, out)
    return plan, out


def test_cables_in_the_page_equal_cables_csv(written):
    """Every column of every cable, as cables.csv holds it (read back with the csv module)."""
    plan, out = written
    _, tables = read_block((out / "index.html").read_text(encoding="utf-8"))
    with open(out / "cables.csv", newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["kind"] != "mgmt"]  # the fabric's; mgmt cords: test_fabric_devices
    page = tables["cables"]
    columns = list(CSV_COLUMNS) + cables_csv.ASSEMBLY_COLUMNS
    assert list(page) == columns + ["a_order_m", "b_order_m"]
    for column in columns:
        got = page[column]
        assert len(got) == len(rows)
        for value, row in zip(got, rows):
            want = row[column]
            if isinstance(value, str):
                assert value == want, column
            elif want == "":
                assert np.isnan(value), column
            else:
                assert value == float(want), column


def test_devices_and_cabinets_in_the_page(written):
    plan, out = written
    meta, tables = read_block((out / "index.html").read_text(encoding="utf-8"))
    devices = tables["devices"]
    assert devices["name"] == plan.devices["name"].tolist()
    assert devices["cabinet"] == plan.devices["cabinet"].tolist()
    ru = plan.devices["ru"].to_numpy(dtype=float, na_value=np.nan)
    np.testing.assert_array_equal(np.array(devices["ru"]), ru)
    assert tables["cabinets"]["name"] == plan.cabinets["name"].tolist()
    assert meta["summary"] == json.loads((out / "summary.json").read_text(encoding="utf-8"))
    bom = tables["bom"]
    assert bom["sku"] == plan.bom["sku"].tolist()
    assert bom["extended_price"] == pytest.approx(plan.bom["extended_price"].tolist(), abs=0)


# ---------------------------------------------------------------- column encoding

COLUMNS = {
    "small ints": (pd.Series([0, 3, 255]), "u1"),
    "negative ints": (pd.Series([-5, 0, 120]), "i1"),
    "ports": (pd.Series([1, 64, 1000]), "u2"),
    "big ints": (pd.Series([0, 2**40]), "f8"),
    "metres to the mm": (pd.Series([1.65, 2.42, 83.6, 0.001]), "i4"),
    "half units": (pd.Series([12.5, 40.0]), "u2"),
    "thirds": (pd.Series([1 / 3, 2.0]), "f8"),
    "infinite": (pd.Series([np.inf, 1.0]), "f8"),
    "rack units with gaps": (pd.Series(pd.array([40, None, 2], dtype="Int64")), "u1"),
    "float gaps": (pd.Series([1.5, np.nan]), "u1"),
    "all missing": (pd.Series([np.nan, np.nan]), "i1"),
    "booleans": (pd.Series([True, False, True]), "u1"),
}


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_numeric_columns_round_trip_exactly(name):
    """A column comes back bit for bit (NaN where missing) in the narrowest type that holds it."""
    series, dtype = COLUMNS[name]
    frame = pd.DataFrame({"v": series})
    block = payload.encode({"t": frame}, {})
    text = f'<script id="plan-data" type="application/octet-stream">{payload.pack(block)}</script>'
    _, tables = read_block(text)
    spec = json.loads(block[4:4 + int.from_bytes(block[:4], "little")])["tables"]["t"]
    assert spec["columns"][0]["dtype"] == dtype
    want = series.to_numpy(dtype=float, na_value=np.nan)
    np.testing.assert_array_equal(np.array(tables["t"]["v"]), want)


TEXTS = {
    "media": (["optical", "electrical", "optical", "optical"], "str", 2),
    "markup": (["</script>", "<img src=x onerror=alert(1)>", "", "ü"], "str", None),
    "cable ids": ([f"C{k:06d}" for k in range(1, 3001)], "seq", 1),
    "routers then endpoints": ([f"r{k:03d}" for k in range(722)]
                               + [f"n{k:05d}" for k in range(10830)], "seq", 2),
    "unpadded past 9": (["x8", "x9", "x10", "x11"], "seq", 1),
    "a gap": ([f"C{k}" for k in (1, 2, 3, 5, 6)], "seq", 2),
    "too many runs": ([f"p{k}" for k in range(0, 40, 2)], "str", None),
    "labels": (["A01-40:17/C07-40:03", "A01-40:18/A02-40:03", "A01-40:19/B07-40:03"], "str",
               None),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_text_columns_round_trip(name):
    """Text comes back unchanged: few distinct values dictionary-coded, runs of numbered
    names as runs (at most payload.MAX_RUNS of them), anything else as it is."""
    values, kind, parts = TEXTS[name]
    frame = pd.DataFrame({"s": pd.array(values, dtype="str")})
    block = payload.encode({"t": frame}, {})
    _, tables = read_block('<script id="plan-data" type="application/octet-stream">'
                           f'{payload.pack(block)}</script>')
    spec = json.loads(block[4:4 + int.from_bytes(block[:4], "little")])["tables"]["t"]
    column = spec["columns"][0]
    assert column["type"] == kind and ("dtype" in column) is (name == "media")
    if kind == "seq":
        assert len(column["runs"]) == parts
    elif parts:
        assert len(column["values"]) == parts
    assert tables["t"]["s"] == values


# ---------------------------------------------------------------- floor and routes

GRID_FLOOR = {   # a physical floor without halls: rows of 6 cabinets, 1.2 m aisles
    "name": "grid-rows", "cabinet_width_m": 0.6, "cabinet_depth_m": 1.2,
    "cabinet_height_ru": 42, "pitch_m": 0.6, "aisle_m": 1.2, "cabinets_per_row": 6,
    "router_slots": 2, "endpoint_slots": 32, "group_cabinets": 2, "intra_cabinet_m": 1.5,
    "overhead_per_end_m": 0.5, "slack_pct": 10, "first_router_ru": 39,
    "first_endpoint_ru": 1, "endpoint_ru": 1, "media_rule": "reach"}


@lru_cache(maxsize=None)
def grid_plan():
    """Slim Fly q=5 on ``GRID_FLOOR`` (a floor file), 25 cabinets in rows A-E."""
    import tempfile

    import yaml

    from planner.plan import plan
    from planner.topologies.slimfly import slimfly
    path = Path(tempfile.mkdtemp(prefix="viewer-grid-")) / "grid.yaml"
    path.write_text(yaml.safe_dump(GRID_FLOOR), encoding="utf-8")
    return plan(slimfly(q=5), "modern-100g", str(path), strategy="hint", time_limit_s=5, seed=0)


def test_grid_floor_rows_face_alternately_with_cold_and_hot_aisles():
    """A floor without halls (1.2 m deep cabinets, 1.2 m aisles): row A faces the cold aisle in
    front of it, A and B turn their backs to a hot aisle, B and C face each other across a cold
    one, and so on; one aisle before the first row and one after the last, each 1.2 m wide."""
    plan = grid_plan()
    shapes = geometry.floor_geometry(plan)
    rows = shapes["rows"]
    n = plan.cabinets["row"].nunique()
    assert n == 5
    assert [r["name"] for r in rows] == list("ABCDE")
    assert [r["front"] for r in rows] == [-1, 1, -1, 1, -1]
    aisles = shapes["aisles"]
    assert [a["kind"] for a in aisles] == ["cold", "hot", "cold", "hot", "cold", "hot"]
    assert all(a["y1"] - a["y0"] == pytest.approx(1.2) for a in aisles)
    for a, b in zip(rows, rows[1:]):
        assert b["y0"] - a["y1"] == pytest.approx(1.2)
    assert shapes["trays"] == [] and shapes["links"] == []


def physical_plans():
    return [("grid-rows", grid_plan()), *((n, get_plan(n)) for n in
                                           ("slimfly-hot", "dragonfly-hot"))]


@pytest.mark.parametrize("index", range(3))
def test_every_cabinet_faces_a_cold_aisle_with_its_back_to_a_hot_one(index):
    """Every cabinet lies inside its hall on its row's band, the aisle along its front is cold
    and the one along its back is hot (the hot-aisle/cold-aisle layout)."""
    _, plan = physical_plans()[index]
    shapes = geometry.floor_geometry(plan)
    cabs = shapes["cabinets"]
    d = shapes["cabinet_depth_m"]
    for x, y, hall, front in zip(cabs["x"], cabs["y"], cabs["hall"], cabs["front"]):
        box = shapes["halls"][hall]
        assert box["x0"] < x < box["x1"] and box["y0"] < y < box["y1"]
        assert any(r["hall"] == hall and r["y0"] == pytest.approx(y - d / 2)
                   and r["x0"] < x < r["x1"] for r in shapes["rows"])
        assert front in (-1, 1)

        def aisle_at(edge):
            found = [a["kind"] for a in shapes["aisles"] if a["hall"] == hall
                     and a["x0"] < x < a["x1"] and (a["y0"] == pytest.approx(edge)
                                                    or a["y1"] == pytest.approx(edge))]
            assert len(found) == 1
            return found[0]
        assert aisle_at(y + front * d / 2) == "cold"
        assert aisle_at(y - front * d / 2) == "hot"


def test_abstract_racks_have_no_aisles_or_fronts():
    shapes = geometry.floor_geometry(get_plan("slimfly-abstract"))
    assert shapes["aisles"] == [] and all(r["front"] == 0 for r in shapes["rows"])
    assert not shapes["cabinets"]["front"].any()


@pytest.mark.parametrize("name", PLANS + ["corridor", "meet-me"])
def test_route_on_the_floor_gives_the_cable_length(name):
    """Every cable between cabinets: its route's steps, plus the floor's per-cable overhead,
    times its slack, are the length in cables.csv (to the millimetre); the steps that move on
    the plan run straight along x or y and are as long as they are drawn, and the others are
    the rise and drop of ``overhead_per_end_m``. A cable inside one cabinet has no route and
    the floor's intra-cabinet length."""
    plan = get_plan(name) if name in PLANS else halls_plan(name)
    floor = plan.floor
    routes = geometry.cable_routes(plan)
    lengths = plan.cables["length_m"].to_numpy()
    same = (plan.cables["a_cabinet"] == plan.cables["b_cabinet"]).to_numpy()
    slack = 1 + floor.slack_pct / 100
    for i in range(len(plan.cables)):
        part = slice(routes.offsets[i], routes.offsets[i + 1])
        pts, metres = routes.points[part], routes.step_m[part]
        kinds = [routes.step_kinds[k] for k in routes.step[part][1:]]
        if same[i]:
            assert len(pts) == 0
            assert lengths[i] == pytest.approx(floor.intra_cabinet_m * slack, abs=5e-4)
            continue
        assert routes.step[part][0] == -1 and metres[0] == 0
        steps = np.abs(np.diff(pts, axis=0))
        straight = np.array([k != "hall link" for k in kinds])
        assert (steps[straight].min(axis=1) == 0).all()        # straight along x or y
        drawn = steps.sum(axis=1)
        for kind, plan_m, m in zip(kinds, drawn, metres[1:]):
            if kind in ("rise", "drop"):
                assert plan_m == 0 and m == floor.overhead_per_end_m
            elif kind == "hall link":
                continue                      # drawn through the gaps; its metres in the sum
            else:
                assert m == pytest.approx(plan_m, abs=1e-9)
        want = (metres.sum() + floor.overhead_per_cable_m) * slack
        assert lengths[i] == pytest.approx(want, abs=5e-4)
        assert kinds[0] == "rise" if floor.overhead_per_end_m else kinds[0] != "rise"


@lru_cache(maxsize=None)
def halls_plan(links: str, kw_budget: float | None = None):
    """Slim Fly q=7 (98 routers, 49 cabinets) on ``GRID_FLOOR`` with three ``HALLS`` (and a
    cabinet kW budget)."""
    import tempfile

    import yaml

    from planner.plan import plan
    from planner.topologies.slimfly import slimfly
    floor = {k: v for k, v in GRID_FLOOR.items() if k != "cabinets_per_row"}
    floor.update(name=f"halls-{links}", hall={**HALLS, "links": links})
    if kw_budget is not None:
        floor["cabinet_kw_budget"] = kw_budget
    path = Path(tempfile.mkdtemp(prefix="viewer-halls-")) / "halls.yaml"
    path.write_text(yaml.safe_dump(floor), encoding="utf-8")
    return plan(slimfly(q=7), "modern-100g", str(path), strategy="hint", time_limit_s=5, seed=0)


@pytest.mark.parametrize("name", ["slimfly-hot", "corridor", "meet-me"])
def test_drawn_routes_are_the_plans_tray_routes(name):
    """Every cable's route as drawn is ``planner.inputs.floor.routes.route_segments`` of its two
    cabinets, step for step (kind, metres, end point in its hall moved to where the hall is drawn);
    the three-hall plans cross halls, rows and stay in rows."""
    from planner.inputs.floor import routes as plan_routes
    plan = get_plan(name) if name == "slimfly-hot" else halls_plan(name)
    drawn = geometry.cable_routes(plan)
    room = geometry._room(plan)
    origin = geometry.hall_origins(room)
    cab = plan.cabinets.set_index("name")
    kinds = set()
    for i, (a, b) in enumerate(zip(plan.cables["a_cabinet"], plan.cables["b_cabinet"])):
        ha, hb = int(cab.at[a, "hall"]), int(cab.at[b, "hall"])
        segments = [s for s in plan_routes.route_segments(
            room, (ha, int(cab.at[a, "row"]), int(cab.at[a, "col"])),
            (hb, int(cab.at[b, "row"]), int(cab.at[b, "col"])), a == b) if s.kind != "cabinet"]
        part = slice(drawn.offsets[i], drawn.offsets[i + 1])
        steps = [drawn.step_kinds[k] for k in drawn.step[part][1:]]
        # a hall link is drawn as several pieces through the gaps: its last one has its length
        last = np.array([k == len(steps) - 1 or steps[k + 1] != "hall link" or s != "hall link"
                         for k, s in enumerate(steps)], dtype=bool)
        assert [s for s, keep in zip(steps, last) if keep] == [s.kind for s in segments]
        assert drawn.step_m[part][1:][last] == pytest.approx([s.length_m for s in segments],
                                                             abs=1e-9)
        assert not drawn.step_m[part][1:][~last].any()
        for s, point in zip(segments, drawn.points[part][1:][last]):
            h = hb if s.hall is None else s.hall
            assert point == pytest.approx(np.add(s.end[:2], origin[h]), abs=1e-9)
        kinds.add(geometry.ROUTE_KINDS[drawn.kind[i]])
        assert geometry.ROUTE_KINDS[drawn.kind[i]] == plan.cables["route_kind"].iloc[i]
    if name != "slimfly-hot":
        assert room.halls == 3 and kinds == set(geometry.ROUTE_KINDS)


@pytest.mark.parametrize("links", ["corridor", "meet-me"])
def test_halls_are_drawn_apart_with_their_connections(links):
    """Three halls side by side without overlapping; the connections join the hall entries:
    hall to next hall along a corridor, every hall to the first through a meet-me room, each
    with its length."""
    plan = halls_plan(links)
    shapes = geometry.floor_geometry(plan)
    halls = shapes["halls"]
    assert [h["name"] for h in halls] == ["H1", "H2", "H3"]
    for a, b in zip(halls, halls[1:]):
        assert a["x1"] <= b["x0"] or a["y1"] <= b["y0"]
    pairs = [(link["a"], link["b"]) for link in shapes["links"]]
    if links == "corridor":
        assert pairs == [(0, 1), (1, 2)] and shapes["meet_me"] is None
        assert all(link["length_m"] == 25 for link in shapes["links"])
    else:
        assert pairs == [(0, None), (1, None), (2, None)]
        room = shapes["meet_me"]
        assert room["link_m"] == 25
        assert all(link["points"][-1] == [room["x"], room["y"]] for link in shapes["links"])
    for link in shapes["links"]:
        points = np.array(link["points"])
        for h, (x, y) in ((link["a"], points[0]), (link["b"], points[-1])):
            if h is not None:                                    # at the hall's entry corner
                assert x == pytest.approx(halls[h]["x0"] + HALLS["end_aisle_m"])
                assert y == pytest.approx(halls[h]["y0"])
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            assert x0 == x1 or y0 == y1                          # straight pieces
            for box in halls:                                    # none crosses a hall
                inside_x = max(min(x0, x1), box["x0"]) < min(max(x0, x1), box["x1"])
                inside_y = max(min(y0, y1), box["y0"]) < min(max(y0, y1), box["y1"])
                assert not (inside_x and inside_y)


def test_route_kinds_follow_the_cabinet_rows():
    plan = get_plan("dragonfly-hot")
    kinds = np.asarray(geometry.ROUTE_KINDS)[geometry.cable_routes(plan).kind]
    row = dict(zip(plan.cabinets["name"], plan.cabinets["row"]))
    for a, b, kind in zip(plan.cables["a_cabinet"], plan.cables["b_cabinet"], kinds):
        want = "cabinet" if a == b else "row" if row[a] == row[b] else "cross-row"
        assert kind == want
    assert {"cabinet", "row", "cross-row"} <= set(kinds)


# ---------------------------------------------------------------- the page itself

def test_page_loads_nothing_and_runs_only_its_own_script(written):
    """No URL to fetch anywhere in the page; the Content-Security-Policy forbids every
    network access and allows exactly the inline script and style (by their SHA-256)."""
    _, out = written
    text = (out / "index.html").read_text(encoding="utf-8")
    assert not re.search(r"https?:|//[a-z]", re.sub(r'<script id="plan-data"[^<]*</script>',
                                                    "", text), re.I)
    policy = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"',
                                     text).group(1))
    assert "default-src 'none'" in policy
    scripts = re.findall(r"<script>(.*?)</script>", text, re.S)
    styles = re.findall(r"<style>(.*?)</style>", text, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    for body, directive in ((scripts[0], "script-src"), (styles[0], "style-src")):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in policy


HOSTILE = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"


def test_names_from_inputs_never_become_markup(tmp_path):
    """A floor and a catalog whose names, SKUs and descriptions hold markup: the page's markup
    (everything outside the base64 data block) holds none of it, only its escaped form in the
    title, and the data block gives the text back unchanged."""
    plan = hostile_plan(tmp_path)
    viewer.write(plan, tmp_path)
    text = (tmp_path / "index.html").read_text(encoding="utf-8")
    markup = re.sub(r'<script id="plan-data"[^<]*</script>', "", text)
    assert "pwned" not in markup.replace(html.escape(HOSTILE), "")
    assert markup.count("<script") == 1 and "<img" not in markup
    assert html.escape(HOSTILE) in re.search(r"<title>(.*)</title>", markup).group(1)
    meta, tables = read_block(text)
    assert HOSTILE in meta["title"] and meta["summary"]["floor"]["name"] == HOSTILE
    assert all(sku.startswith(HOSTILE) for sku in tables["cables"]["sku"])
    assert all(sku.startswith(HOSTILE) for sku in tables["bom"]["sku"])
    assert tables["bom"]["description"][0] == HOSTILE


def hostile_plan(folder):
    """A small plan on a floor file and a catalog file named with markup (``HOSTILE``)."""
    import yaml

    from planner.inputs.schema import builtin_dir
    from planner.plan import plan
    from planner.topologies.slimfly import slimfly
    catalog = yaml.safe_load((builtin_dir("catalogs") / "modern-100g.yaml").read_text())
    catalog["name"] = HOSTILE
    for i, model in enumerate(catalog["routers"] + catalog["cables"] + catalog["panels"]
                              + catalog["rack_hardware"]):
        model["sku"] = f"{HOSTILE} {i}"
        model["description"] = HOSTILE
        if "nic" in catalog and model is catalog["routers"][0]:
            catalog["nic"]["sku"], catalog["nic"]["description"] = f"{HOSTILE} nic", HOSTILE
            catalog["nic"]["vendor"] = "Hostile Inc"
        if isinstance(model.get("part_numbers"), dict):    # part numbers per stock length
            model["part_numbers"] = {k: f"{HOSTILE} {i} {v}" for k, v in
                                     model["part_numbers"].items()}
        elif "part_numbers" in model:
            model["part_numbers"] = f"{HOSTILE} {i} {model['part_numbers']}"
        model.pop("airflow", None)                # the SKU itself, not a number per airflow
        if model["vendor"] != "generic":          # a maker without a known number scheme
            model["vendor"] = "Hostile Inc"
    fabric = [catalog["management"]["switch"], catalog["management"]["cable"],
              catalog["power"]["pdu"], catalog["power"]["cord"]]   # management and power lines
    fabric += [m["support"] for m in catalog["routers"] if "support" in m]   # support lines
    for i, model in enumerate(fabric):
        model["sku"], model["description"] = f"{HOSTILE} fabric {i}", HOSTILE
        if model["vendor"] != "generic":
            model["vendor"] = "Hostile Inc"
    catalog["management"]["cable"]["part_numbers"] = HOSTILE + " {m} m"
    floor = yaml.safe_load((builtin_dir("layouts") / "hot-aisle.yaml").read_text())
    floor["name"] = HOSTILE
    for name, data in (("catalog.yaml", catalog), ("floor.yaml", floor)):
        (folder / name).write_text(yaml.safe_dump(data), encoding="utf-8")
    return plan(slimfly(q=5), str(folder / "catalog.yaml"), str(folder / "floor.yaml"),
                strategy="hint", time_limit_s=5, seed=0)


def test_writer_is_deterministic(written):
    plan, out = written
    assert viewer.page(plan) == (out / "index.html").read_text(encoding="utf-8")
