"""Exports of the rich fixture plan (tests/rich_plan.py) read back row by row as their readers
read them (``csv`` and ``json``), each checked against pieces computed here from the floor's
geometry and the catalog's stock lengths, not against the writer's own numbers.

Geometry of tests/fixtures/rich/floor.yaml, by hand: cabinet column c (from 0) is centred at
x = 0.6 c, row r at y = 2.4 r (1.2 m cabinets + 1.2 m aisles); cross trays at both row ends and
after every 2 cabinets: x = -0.3, 0.9, 2.1; the hall entry is the front end of the first tray,
(-0.3, -1.8). Per end 0.5 m up or down, 0.3 m per cable split between the two cords, 10 % slack,
halls 30 m apart. A link between rows of one hall takes the first tray between its cabinets
(else the nearer one beyond them, the lower on a tie):

    cord A = (0.5 + |x_a - tray| + 0.15) x 1.1    trunk = |y_a - y_b| x 1.1
    cord B = (|x_b - tray| + 0.5 + 0.15) x 1.1

A link between halls takes the first tray (-0.3) to its hall's entry: trunk A = (y_a + 1.8) x
1.1, hall trunk 30 x 1.1 = 33, trunk B = (y_b + 1.8) x 1.1. E.g. H1-A01 - H2-B03: cords 1.045
and 2.365 m (ordered 2 and 3 m), trunks 1.98, 33 and 4.62 m (ordered 3, 50 and 5 m).

Panels (catalog.yaml): a 48-fibre trunk carries 4 links; an 8-adapter panel holds 2 trunks and
is 4U; a 12U patch rack holds exactly 3 panels (U1, U5, U9), a fourth starts the point's next
rack (``<point>.2``). The links between the same two panel points share trunks, 4 to a trunk.
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter, defaultdict

import openpyxl
import pandas as pd
import pytest
import yaml

from planner.exports import cables_csv
from planner.inputs.catalog import Catalog
from planner.inputs.floor import Floor
from planner.plan import plan
from planner.topologies.base import Topology
from rich_plan import CATALOG, FLOOR, rich_folder, rich_plan
from test_exports_netbox import trace

PITCH, ROW_PITCH = 0.6, 2.4
TRAYS_X = (-0.3, 0.9, 2.1)
ENTRY_Y = -1.8
RISE, HALF_OVERHEAD, SLACK, HALL_LINK = 0.5, 0.15, 1.1, 30.0
CORD_STOCK = (1, 2, 3, 5, 10, 20, 50)
TRUNK_STOCK = (3, 5, 10, 20, 50, 100)
LINKS_PER_TRUNK, TRUNKS_PER_PANEL, PANEL_RU, RACK_RU = 4, 2, 4, 12
PANELS_PER_RACK = RACK_RU // PANEL_RU


def read_csv(name: str) -> list[dict[str, str]]:
    with open(rich_folder() / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def stock(length: float, lengths) -> float:
    """The shortest stock length that covers ``length``."""
    return float(next(s for s in lengths if s >= length - 1e-9))


def cabinet_positions() -> dict[str, tuple[int, int, int]]:
    """cabinets.csv read back: name -> (hall, row, column), all from 0."""
    return {r["name"]: (int(r["hall"]) - 1, ord(r["row"]) - ord("A"), int(r["column"]) - 1)
            for r in read_csv("cabinets.csv")}


def tray_index(xa: float, xb: float) -> int:
    lo, hi = min(xa, xb), max(xa, xb)
    between = [i for i, t in enumerate(TRAYS_X) if lo <= t <= hi]
    if between:
        return between[0]
    below = max((i for i, t in enumerate(TRAYS_X) if t < lo), default=None)
    above = min((i for i, t in enumerate(TRAYS_X) if t > hi), default=None)
    if below is None:
        return above
    if above is None or lo - TRAYS_X[below] <= TRAYS_X[above] - hi:
        return below
    return above


def point_name(hall: int, row: int, tray: int) -> str:
    return f"H{hall + 1}-{chr(ord('A') + row)}-P{tray}"


def expected_pieces():
    """Per cable of cables.csv that leaves its row: its A and B panel points and its pieces in
    metres from the A end (cord, trunk(s), cord), computed from the geometry above."""
    where = cabinet_positions()
    out = {}
    for row in read_csv("cables.csv"):
        if row["route_kind"] not in ("cross-row", "cross-hall"):
            continue
        (ha, ra, ca), (hb, rb, cb) = where[row["a_cabinet"]], where[row["b_cabinet"]]
        xa, xb, ya, yb = PITCH * ca, PITCH * cb, ROW_PITCH * ra, ROW_PITCH * rb
        tray = 0 if ha != hb else tray_index(xa, xb)
        t = TRAYS_X[tray]
        cords = ((RISE + abs(xa - t) + HALF_OVERHEAD) * SLACK,
                 (abs(xb - t) + RISE + HALF_OVERHEAD) * SLACK)
        if ha != hb:
            trunks = ((ya - ENTRY_Y) * SLACK, HALL_LINK * SLACK, (yb - ENTRY_Y) * SLACK)
        else:
            trunks = (abs(ya - yb) * SLACK,)
        out[row["cable_id"]] = dict(row=row, a_point=point_name(ha, ra, tray),
                                    b_point=point_name(hb, rb, tray), halls=(ha, hb),
                                    cords=cords, trunks=trunks)
    return out


@pytest.fixture(scope="module")
def pieces():
    return expected_pieces()


def test_fixture_is_rich(pieces):
    """What the fixture exists for: links between rows and between halls, parallel cables,
    points with several panels, racks filled to their last unit and entry points that fill a
    second patch rack."""
    kinds = Counter(p["row"]["route_kind"] for p in pieces.values())
    assert kinds["cross-row"] >= 8 and kinds["cross-hall"] >= 8
    assert (rich_plan().topology.multiplicity > 1).sum() >= 20
    racks = {r["a_rack"] for r in read_csv("trunks.csv")} | {r["b_rack"]
                                                           for r in read_csv("trunks.csv")}
    assert any(name.endswith(".2") for name in racks)
    full = Counter(r.split(".")[0] for r in racks)
    assert any(n > 1 for n in full.values())


def test_cables_csv_pieces_add_up_to_the_routed_length(pieces):
    """cables.csv ``segments`` read back: cords and trunks are the pieces computed by hand, in
    order from the A end, and add up to ``length_m``; a cross-hall link names 4 panel ports
    (two of them on the entry racks), a cross-row link 2."""
    for cid, want in pieces.items():
        row = want["row"]
        parts = [p.strip() for p in row["segments"].split("|")]
        cords = [float(p.split()[1]) for p in parts if p.startswith("cord ")]
        trunks = [float(p.split()[2]) for p in parts if p.startswith("trunk ")]
        ports = [p for p in parts if not p.startswith(("cord ", "trunk "))]
        assert cords == pytest.approx(want["cords"], abs=0.0015), cid
        assert trunks == pytest.approx(want["trunks"], abs=0.0015), cid
        assert sum(cords) + sum(trunks) == pytest.approx(float(row["length_m"]), abs=0.002)
        cross_hall = row["route_kind"] == "cross-hall"
        assert len(ports) == (4 if cross_hall else 2), cid
        assert ports[0].startswith(want["a_point"] + "-") or ports[0].startswith(
            want["a_point"] + ".")
        assert ports[-1].startswith(want["b_point"] + "-") or ports[-1].startswith(
            want["b_point"] + ".")
        if cross_hall:
            ha, hb = want["halls"]
            assert ports[1].startswith(f"H{ha + 1}-ENTRY") and ports[2].startswith(
                f"H{hb + 1}-ENTRY")
        ordered = sum(stock(c, CORD_STOCK) for c in want["cords"]) + sum(
            stock(t, TRUNK_STOCK) for t in want["trunks"])
        assert float(row["order_length_m"]) == pytest.approx(ordered), cid


def test_netbox_cords_are_the_stock_lengths_of_each_ends_cord(pieces):
    """netbox/cables.csv read back: every link that leaves its row is two patch cords, one from
    each end's router interface to a front port of a panel at that end's panel point, each as
    long as the stock length that covers that end's cord (not the other end's, not the
    computed length); every other cable is one row at the stock length of its route."""
    rows = read_csv("netbox/cables.csv")
    cords = defaultdict(list)
    for r in rows:
        if r["side_a_type"] == "dcim.interface" and r["side_b_type"] == "dcim.frontport":
            cords[r["label"]].append(r)
    assert sum(map(len, cords.values())) == 2 * len(pieces)
    for cid, want in pieces.items():
        row = want["row"]
        got = {r["side_a_device"]: r for r in cords[row["label"]]}
        assert set(got) == {row["a_device"], row["b_device"]}, cid
        for end, device, point, cord in (("A", row["a_device"], want["a_point"],
                                          want["cords"][0]),
                                         ("B", row["b_device"], want["b_point"],
                                          want["cords"][1])):
            r = got[device]
            assert r["side_a_name"] == row[f"{end.lower()}_port"], (cid, end)
            assert r["side_b_device"].rsplit("-", 1)[0].split(".")[0] == point, (cid, end)
            assert r["length_unit"] == "m"
            assert float(r["length"]) == stock(cord, CORD_STOCK), (cid, end)
    direct = {r["label"]: r for r in rows if r["side_b_type"] == "dcim.interface"}
    for row in read_csv("cables.csv"):
        if row["cable_id"] in pieces:
            assert row["label"] not in direct
            continue
        assert float(direct[row["label"]]["length"]) == float(row["order_length_m"])
        assert float(row["order_length_m"]) >= float(row["length_m"]) - 1e-9


def _trunk_ids(segments: str) -> list[str]:
    return [p.split()[1] for p in (x.strip() for x in segments.split("|"))
            if p.startswith("trunk ")]


def test_netbox_and_trunks_csv_trunk_lengths(pieces):
    """Every trunk the segments name is one NetBox cable labelled with its id and one row of
    trunks.csv, at the stock length that covers its piece, carrying as many links as name it."""
    netbox = {r["label"]: r for r in read_csv("netbox/cables.csv")
              if r["side_a_type"] in ("dcim.rearport", "dcim.frontport")}
    trunks = {r["trunk_id"]: r for r in read_csv("trunks.csv")}
    want_len, links = {}, Counter()
    for want in pieces.values():
        for tid, metres in zip(_trunk_ids(want["row"]["segments"]), want["trunks"]):
            want_len[tid] = metres
            links[tid] += 1
    assert set(netbox) == set(trunks) == set(want_len)
    for tid, metres in want_len.items():
        assert float(trunks[tid]["length_m"]) == pytest.approx(metres, abs=0.0015), tid
        assert float(trunks[tid]["order_length_m"]) == stock(metres, TRUNK_STOCK), tid
        assert float(netbox[tid]["length"]) == stock(metres, TRUNK_STOCK), tid
        assert int(trunks[tid]["links"]) == links[tid] <= LINKS_PER_TRUNK, tid
        hall = metres == pytest.approx(HALL_LINK * SLACK)
        assert trunks[tid]["kind"] == ("hall" if hall else "row"), tid


def expected_panels(pieces):
    """Per panel point (a row point's name or ``H<n>-ENTRY``): how many trunk ends it holds.
    The links between the same two row points share trunks, 4 to a trunk; a cross-hall group
    also ends a trunk at each hall's entry (its row trunk) and starts the hall trunk there."""
    per_pair = Counter()
    for want in pieces.values():
        points, halls = (want["a_point"], want["b_point"]), want["halls"]
        per_pair[(frozenset(points), frozenset(halls))] += 1
    ends = Counter()
    for (points, halls), n in per_pair.items():
        chains = math.ceil(n / LINKS_PER_TRUNK)
        for point in points:
            ends[point] += chains
        if len(halls) == 2:
            for hall in halls:
                ends[f"H{hall + 1}-ENTRY"] += chains
    return ends, per_pair


def test_trunks_csv_panel_units_fill_patch_racks_from_u1(pieces):
    """trunks.csv read back: each end's panel is ``<rack>-<RU>``; a point with k panels holds
    them at U1, U5, U9 of its first rack, U1, .. of ``<point>.2`` (3 panels of 4U fill a 12U
    rack), as many as its trunk ends need at 2 trunks a panel; each rear port of a panel ends
    one trunk, and an entry panel's front port F<n> carries the hall trunk of rear port R<n>."""
    ends, _ = expected_panels(pieces)
    seen = defaultdict(set)
    rear_used, front_used = Counter(), Counter()
    for r in read_csv("trunks.csv"):
        for end in ("a", "b"):
            rack, panel, ru, port = (r[f"{end}_{k}"] for k in ("rack", "panel", "ru", "port"))
            assert panel == f"{rack}-{int(ru):02d}", r["trunk_id"]
            point = rack.split(".")[0]
            seen[point].add((rack, int(ru)))
            number = int(port[1:])
            assert 1 <= number <= TRUNKS_PER_PANEL, r["trunk_id"]
            (rear_used if port[0] == "R" else front_used)[(panel, number)] += 1
            assert port[0] == ("F" if r["kind"] == "hall" else "R"), r["trunk_id"]
    for point, n_ends in ends.items():
        n_panels = math.ceil(n_ends / TRUNKS_PER_PANEL)
        want = {(point if k // PANELS_PER_RACK == 0 else f"{point}.{k // PANELS_PER_RACK + 1}",
                 (k % PANELS_PER_RACK) * PANEL_RU + 1) for k in range(n_panels)}
        assert seen[point] == want, point
    assert set(seen) == set(ends)
    assert max(rear_used.values()) == 1 and max(front_used.values()) == 1
    assert set(front_used) <= set(rear_used)


def test_summary_json_structured_block(pieces):
    """summary.json read back with ``json``: links, cross-hall links, trunks, panels, patch
    racks, ``patch_rack_ru_used`` and panel ports used, from the points and trunks computed
    here."""
    summary = json.loads((rich_folder() / "summary.json").read_text(encoding="utf-8"))
    got = summary["structured"]
    ends, per_pair = expected_panels(pieces)
    panels = {p: math.ceil(n / TRUNKS_PER_PANEL) for p, n in ends.items()}
    cross_hall = sum(1 for w in pieces.values() if w["halls"][0] != w["halls"][1])
    chains = {key: math.ceil(n / LINKS_PER_TRUNK) for key, n in per_pair.items()}
    trunks = sum(c * (3 if len(halls) == 2 else 1) for (_, halls), c in chains.items())
    metres = {}
    for want in pieces.values():
        key = (frozenset((want["a_point"], want["b_point"])), frozenset(want["halls"]))
        metres[key] = sum(stock(t, TRUNK_STOCK) for t in want["trunks"])
    assert got["links"] == len(pieces)
    assert got["cross_hall_links"] == cross_hall
    assert got["trunks"] == trunks
    assert got["trunk_order_length_m"] == pytest.approx(
        sum(chains[k] * metres[k] for k in chains))
    assert got["panels"] == sum(panels.values())
    assert got["patch_racks"] == sum(math.ceil(n / PANELS_PER_RACK) for n in panels.values())
    assert got["patch_rack_ru_used"] == PANEL_RU * sum(panels.values())
    assert got["panel_ports_used"] == 2 * len(pieces) + 2 * cross_hall


def test_netbox_patch_racks_and_panels_stand_where_trunks_csv_puts_them(pieces):
    """netbox/racks.csv and devices.csv read back: one 12U rack per patch rack, each panel a
    device in it at the RU of its name, of a device type as tall as the catalog's panel."""
    racks = {r["name"]: r for r in read_csv("netbox/racks.csv")}
    devices = {r["name"]: r for r in read_csv("netbox/devices.csv")}
    ends, _ = expected_panels(pieces)
    for r in read_csv("trunks.csv"):
        for end in ("a", "b"):
            rack, panel, ru = r[f"{end}_rack"], r[f"{end}_panel"], int(r[f"{end}_ru"])
            assert int(racks[rack]["u_height"]) == RACK_RU
            assert devices[panel]["rack"] == rack and int(devices[panel]["position"]) == ru
    folder = rich_folder() / "netbox" / "device-types"
    heights = {doc["model"]: doc["u_height"] for doc in
               (yaml.safe_load(p.read_text()) for p in folder.rglob("*.yaml"))}
    panel_models = {d["device_type"] for d in devices.values() if d["role"] == "Patch panel"}
    assert panel_models and all(heights[m] == PANEL_RU for m in panel_models)
    n_panels = sum(math.ceil(n / TRUNKS_PER_PANEL) for n in ends.values())
    assert sum(1 for d in devices.values() if d["role"] == "Patch panel") == n_panels


COPPER_NS_PER_M, FIBRE_NS_PER_M = 4.5, 4.9


def test_cables_csv_labels_and_latency_from_each_row():
    """Each cables.csv row read back: its label is ``<cabinet>-<RU>:<port>`` of the A end then
    the B end, RU and port zero-padded to two digits (TIA-606); its latency is the ordered
    length at 4.5 ns/m over copper, 4.9 ns/m over fibre."""
    for row in read_csv("cables.csv"):
        ends = [f"{row[f'{e}_cabinet']}-{int(row[f'{e}_ru']):02d}:{int(row[f'{e}_port']):02d}"
                for e in "ab"]
        assert row["label"] == "/".join(ends), row["cable_id"]
        per_m = COPPER_NS_PER_M if row["media"] == "electrical" else FIBRE_NS_PER_M
        assert float(row["latency_ns"]) == pytest.approx(
            per_m * float(row["order_length_m"]), abs=0.006), row["cable_id"]


def test_netbox_trace_follows_every_link_through_its_panels():
    """NetBox's cable trace over the bundle (``test_exports_netbox.trace``: cables.csv,
    devices.csv and the panel types' port mappings) leads from each link's A interface to its B
    interface, through 2 panels between rows and 4 between halls, in the order of its
    segments."""
    folder = rich_folder() / "netbox"
    tables = {name: pd.read_csv(folder / name, dtype=str, keep_default_na=False)
              for name in ("cables.csv", "devices.csv")}
    types = [yaml.safe_load(p.read_text()) for p in sorted(folder.glob("device-types/*/*.yaml"))]
    for row in read_csv("cables.csv"):
        if row["kind"] != "network":
            continue
        dev, name, passed = trace(tables, types, row["a_device"], row["a_port"])
        assert (dev, name) == (row["b_device"], row["b_port"]), row["cable_id"]
        listed = [p.strip() for p in row["segments"].split("|")
                  if p.strip() and not p.strip().startswith(("cord ", "trunk "))]
        panels = list(dict.fromkeys(p.split(":")[0] for p in passed))
        assert panels == [p.split(":")[0] for p in listed], row["cable_id"]
        want = {"cross-hall": 4, "cross-row": 2}.get(row["route_kind"], 0)
        assert len(panels) == want, row["cable_id"]
        if listed:
            assert passed[0] == listed[0] and passed[-1] == listed[-1], row["cable_id"]



def test_bom_xlsx_ports_sheet_names_each_ports_peer():
    """bom.xlsx's Ports sheet read back with openpyxl: every router port 1..16, used exactly
    when cables.csv plugs a cable into it, with the device and port at that cable's other end,
    its id and label."""
    book = openpyxl.load_workbook(rich_folder() / "bom.xlsx", read_only=True)
    rows = book["Ports"].iter_rows(values_only=True)
    header = list(next(rows))
    got = {}
    for values in rows:
        r = dict(zip(header, values))
        got[(r["Device"], int(r["Port"]))] = r
    want = {}
    for row in read_csv("cables.csv"):
        a, b = (row["a_device"], int(row["a_port"])), (row["b_device"], int(row["b_port"]))
        want[a] = (b, row["cable_id"], row["label"])
        if row["kind"] == "network":
            want[b] = (a, row["cable_id"], row["label"])
    routers = {d for d, _ in got}
    assert len(got) == 16 * len(routers) == 16 * 24
    for key, r in got.items():
        used = key in want
        assert bool(r["Used"]) == used, key
        if used:
            (peer, cable, label) = want[key]
            assert (r["Peer device"], int(r["Peer port"])) == peer, key
            assert (r["Cable ID"], r["Label"]) == (cable, label), key
        else:
            assert r["Peer device"] in (None, "") and r["Cable ID"] in (None, ""), key


def test_labels_zero_pad_single_digit_units_and_ports(tmp_path):
    """On 8U cabinets with an 8-port switch every rack unit and port has one digit; cables.csv
    still prints them with two (TIA-606), as the rows' own fields give them."""
    catalog = yaml.safe_load(CATALOG.read_text())
    catalog["routers"][0].update(radix=8, sku="SW-8")
    floor = dict(yaml.safe_load(FLOOR.read_text()), cabinet_height_ru=8, first_router_ru=8)
    top = Topology.from_edges("ring", {}, 4, [(0, 1), (1, 2), (2, 3), (3, 0)], 2)
    p = plan(top, Catalog.model_validate(catalog), Floor(**floor), strategy="hint",
             time_limit_s=5, seed=0)
    cables_csv.write(p, tmp_path)
    rows = list(csv.DictReader(open(tmp_path / "cables.csv", newline="", encoding="utf-8")))
    assert rows and all(int(r["a_ru"]) < 10 and int(r["a_port"]) < 10 for r in rows)
    for r in rows:
        ends = [f"{r[f'{e}_cabinet']}-{int(r[f'{e}_ru']):02d}:{int(r[f'{e}_port']):02d}"
                for e in "ab"]
        assert r["label"] == "/".join(ends), r["cable_id"]
