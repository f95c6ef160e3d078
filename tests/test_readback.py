"""Exports of the rich fixture plan (tests/rich_plan.py) read back row by row as their readers
read them (``csv`` and ``json``), each checked against pieces computed here from the floor's
geometry and the catalog's stock lengths, not against the writer's own numbers.

Geometry of tests/fixtures/rich/floor.yaml, by hand (docs/floors.md "Where the patch racks
stand"): a row has a patch-rack position at each end and a gap at the cross tray after every 2
cabinets, so cabinet column c (from 0) is centred at x = (c + c // 2) x 0.6 (0, 0.6, 1.8, 2.4)
and the cross trays run over the rack positions x = -0.6, 1.2, 3.0; row r at y = 2.4 r (1.2 m
cabinets + 1.2 m aisles); the entry racks stand side by side in the entry row at y = -2.4 from
x = -0.6, and the hall entry is the front end of the first tray at the entry row's face,
(-0.6, -1.8). Per end 0.5 m up or down, 0.3 m per cable split between the two cords, 10 %
slack, halls 30 m apart. A link between rows of one hall takes the first tray between its
cabinets (else the nearer one beyond them, the lower on a tie):

    cord A = (0.5 + |x_a - tray| + 0.15) x 1.1    trunk = |y_a - y_b| x 1.1
    cord B = (|x_b - tray| + 0.5 + 0.15) x 1.1

A link between halls takes the first tray (-0.6) to its hall's entry: trunk A = (y_a + 1.8) x
1.1, hall trunk 30 x 1.1 = 33, trunk B = (y_b + 1.8) x 1.1. Each piece is ordered at the stock
length covering it plus the drop into the patch rack at each panel it lands on (once per cord,
twice per trunk): by default the rack's height, 12 x 0.04445 = 0.5334 m. E.g. H1-A01 - H2-B03:
cords 1.375 and 3.355 m (ordered 2 and 4 m), trunks 1.98, 33 and 4.62 m (ordered 5, 50 and
10 m).

Panels (catalog.yaml): a 48-fibre trunk carries 4 links; an 8-adapter panel holds 2 trunks and
is 4U; a 12U patch rack holds exactly 3 panels (U1, U5, U9: the drop reaches every unit), a
fourth starts the point's next rack (``<point>.2``). The links between the same two row points
share row trunks, 4 to a trunk. The hall entries' panel is the same MPO panel, passing trunk to
trunk (front and rear MPO): a cross-hall pair's row trunks land on entry front ports, and per
pair of halls the hall trunks leave from the rear, each carrying row trunks whole, packed
first-fit decreasing 4 links a hall trunk (docs/floors.md "Structured cabling").
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
from planner.topologies import importers
from planner.topologies.base import Topology
from rich_plan import CATALOG, FLOOR, TOPOLOGY, rich_folder, rich_plan
from test_exports_netbox import trace

PITCH, ROW_PITCH, CROSS_TRAY_EVERY, CABINETS_PER_ROW = 0.6, 2.4, 2, 4
TRAYS_X = tuple(PITCH * (k * (CROSS_TRAY_EVERY + 1) - 1)
                for k in range(CABINETS_PER_ROW // CROSS_TRAY_EVERY + 1))   # -0.6, 1.2, 3.0
ENTRY_ROW_Y, ENTRY_Y = -ROW_PITCH, -1.8
RU_M = 0.04445
DROP = 12 * RU_M          # patch_drop_m by default: the 12U patch rack's height
RISE, HALF_OVERHEAD, SLACK, HALL_LINK = 0.5, 0.15, 1.1, 30.0
CORD_STOCK = (1, 1.5, 2, 2.5, 3, 4, 5, 10, 20, 50)
TRUNK_STOCK = (3, 5, 10, 20, 50, 100)
LINKS_PER_TRUNK, ADAPTERS_PER_PANEL, PANEL_RU, RACK_RU = 4, 8, 4, 12
TRUNKS_PER_PANEL = ADAPTERS_PER_PANEL // LINKS_PER_TRUNK    # a 48-fibre trunk: 4 MPO-12 legs
PANELS_PER_RACK = RACK_RU // PANEL_RU


def read_csv(name: str, folder=None) -> list[dict[str, str]]:
    with open((folder or rich_folder()) / name, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if name == "cables.csv":                  # the fabric's; mgmt cords: test_fabric_devices
        return [r for r in rows if r["kind"] != "mgmt"]
    return rows


def stock(length: float, lengths) -> float:
    """The shortest stock length that covers ``length``."""
    return float(next(s for s in lengths if s >= length - 1e-9))


def cord_order(metres: float, drop: float = DROP) -> float:
    """A cord is ordered at the stock length covering it plus one drop into its patch rack."""
    return stock(metres + drop, CORD_STOCK)


def trunk_order(metres: float, drop: float = DROP) -> float:
    """A trunk is ordered at the stock length covering it plus a drop at each end."""
    return stock(metres + 2 * drop, TRUNK_STOCK)


def cabinet_x(column: int) -> float:
    """Centre of cabinet column ``column`` (from 0): one rack position left at every tray."""
    return PITCH * (column + column // CROSS_TRAY_EVERY)


def cabinet_positions(folder=None) -> dict[str, tuple[int, int, int]]:
    """cabinets.csv read back: name -> (hall, row, column), all from 0."""
    return {r["name"]: (int(r["hall"]) - 1, ord(r["row"]) - ord("A"), int(r["column"]) - 1)
            for r in read_csv("cabinets.csv", folder) if r["kind"] == "cabinet"}


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


def expected_pieces(folder=None):
    """Per cable of cables.csv that leaves its row: its A and B panel points and its pieces in
    metres from the A end (cord, trunk(s), cord), computed from the geometry above."""
    where = cabinet_positions(folder)
    out = {}
    for row in read_csv("cables.csv", folder):
        if row["route_kind"] not in ("cross-row", "cross-hall"):
            continue
        (ha, ra, ca), (hb, rb, cb) = where[row["a_cabinet"]], where[row["b_cabinet"]]
        xa, xb, ya, yb = cabinet_x(ca), cabinet_x(cb), ROW_PITCH * ra, ROW_PITCH * rb
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
    points with several panels, patch racks filled to their last unit (row points and hall
    entries), several row trunks sharing a hall trunk, and a hall entry with more panels than
    a rack holds at a drop of 8 units (2 panels: ``test_a_shorter_drop_...``'s second rack)."""
    kinds = Counter(p["row"]["route_kind"] for p in pieces.values())
    assert kinds["cross-row"] >= 8 and kinds["cross-hall"] >= 8
    assert (rich_plan().topology.multiplicity > 1).sum() >= 20
    units = defaultdict(set)
    for r in read_csv("trunks.csv"):
        for end in ("a", "b"):
            units[r[f"{end}_rack"]].add(int(r[f"{end}_ru"]))
    full = {rack for rack, used in units.items() if len(used) == PANELS_PER_RACK}
    assert any(rack.endswith("-ENTRY") for rack in full)
    assert any(not rack.endswith("-ENTRY") for rack in full)
    ends, per_pair, hall_trunks = expected_panels(pieces)
    assert max(n for p, n in ends.items() if p.endswith("-ENTRY")) > TRUNKS_PER_PANEL * 2
    assert sum(hall_trunks.values()) < sum(math.ceil(n / LINKS_PER_TRUNK)
                                           for (_, halls), n in per_pair.items() if len(halls) == 2)


def test_cabinets_csv_racks_stand_in_their_reserved_positions():
    """cabinets.csv read back: after the cabinets, one row per patch rack the trunks land in,
    each at its reserved floor position: a row's rack under its cross tray (x of the tray, y of
    the row), the k-th rack of a hall's entry row at x = -0.6 + 0.6 (k - 1), y = -2.4; no rack
    shares a position with a cabinet."""
    rows = read_csv("cabinets.csv")
    kinds = [r["kind"] for r in rows]
    assert kinds == sorted(kinds, key=lambda k: k != "cabinet")
    racks = {r["name"]: r for r in rows if r["kind"] != "cabinet"}
    trunks = read_csv("trunks.csv")
    assert set(racks) == {r[f"{e}_rack"] for r in trunks for e in "ab"}
    cabinets = {(r["hall"], float(r["x_m"]), float(r["y_m"])) for r in rows
                if r["kind"] == "cabinet"}
    for name, r in racks.items():
        point, _, nth = name.partition(".")
        k = int(nth or 1)
        hall, rest = point.split("-", 1)
        assert r["hall"] == hall[1:], name
        if rest == "ENTRY":
            assert r["kind"] == "entry rack", name
            want = (TRAYS_X[0] + PITCH * (k - 1), ENTRY_ROW_Y)
        else:
            row, tray = rest.split("-P")
            assert r["kind"] == "patch rack" and k == 1, name
            want = (TRAYS_X[int(tray)], ROW_PITCH * (ord(row) - ord("A")))
        assert (float(r["x_m"]), float(r["y_m"])) == pytest.approx(want), name
        assert (r["hall"], float(r["x_m"]), float(r["y_m"])) not in cabinets, name


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
        ordered = sum(map(cord_order, want["cords"])) + sum(map(trunk_order, want["trunks"]))
        assert float(row["order_length_m"]) == pytest.approx(ordered), cid


SR_REACH_M, SR_BUDGET_DB = 100.0, 1.9       # 100GBASE-SR4 over OM4, IEEE 802.3 clause 95
OM_DB_PER_KM, CONNECTION_DB = 3.5, 0.35     # floor default; the fixture's low-loss MPO


def installed_m(want, drop: float = DROP) -> float:
    """The fibre a link through panels installs: its pieces' ordered stock lengths, drops in."""
    return (sum(cord_order(c, drop) for c in want["cords"])
            + sum(trunk_order(t, drop) for t in want["trunks"]))


def test_cables_csv_optical_channel_is_the_installed_fibre_and_its_panels(pieces):
    """cables.csv ``fibre_m``, ``connections`` and ``loss_db`` read back: a link through
    panels installs the stock lengths computed here (drops included) and crosses one mated
    connection per panel, 2 between rows and 4 between halls; its loss is installed km x 3.5
    + connections x 0.35 dB, within SR4's 100 m and 1.9 dB; a direct optical cable installs its
    ordered length and crosses none."""
    optical = [r for r in read_csv("cables.csv") if r["media"] == "optical"]
    assert {r["cable_id"] for r in optical} >= set(pieces)
    for row in optical:
        want = pieces.get(row["cable_id"])
        fibre = installed_m(want) if want else float(row["order_length_m"])
        connections = {"cross-hall": 4, "cross-row": 2}.get(row["route_kind"], 0)
        assert float(row["fibre_m"]) == pytest.approx(fibre), row["cable_id"]
        assert int(row["connections"]) == connections, row["cable_id"]
        loss = fibre / 1000 * OM_DB_PER_KM + connections * CONNECTION_DB
        assert float(row["loss_db"]) == pytest.approx(loss, abs=0.0005), row["cable_id"]
        assert fibre <= SR_REACH_M and loss <= SR_BUDGET_DB, row["cable_id"]


def test_a_link_is_lit_on_the_fibre_installed_not_its_route(tmp_path):
    """With SR's reach cut to 70 m, a link between halls (about 45 m of route) runs through
    its 4 panels exactly when the fibre its pieces install (stock lengths plus drops, computed
    here, 64 to 80 m on this floor) is within 70 m; the others run point to point on one cord
    of the stock length covering the route (50 m), lit with no connection."""
    from planner.exports import cabinets_csv

    catalog = yaml.safe_load(CATALOG.read_text())
    next(c for c in catalog["cables"] if c["sku"] == "SR").update(max_reach_m=70)
    p = plan(importers.load(TOPOLOGY), Catalog.model_validate(catalog), str(FLOOR),
             strategy="hint", time_limit_s=5, seed=0)
    cables_csv.write(p, tmp_path)
    cabinets_csv.write(p, tmp_path)
    where = cabinet_positions(tmp_path)
    through, direct = 0, 0
    for row in read_csv("cables.csv", tmp_path):
        if row["route_kind"] != "cross-hall":
            continue
        (_, ra, ca), (_, rb, cb) = where[row["a_cabinet"]], where[row["b_cabinet"]]
        x = (cabinet_x(ca) - TRAYS_X[0], cabinet_x(cb) - TRAYS_X[0])
        y = (ROW_PITCH * ra - ENTRY_Y, ROW_PITCH * rb - ENTRY_Y)
        structured = (cord_order((RISE + x[0] + HALF_OVERHEAD) * SLACK)
                      + cord_order((x[1] + RISE + HALF_OVERHEAD) * SLACK)
                      + sum(trunk_order(t) for t in (y[0] * SLACK, HALL_LINK * SLACK,
                                                      y[1] * SLACK)))
        if structured <= 70:
            through += 1
            assert int(row["connections"]) == 4 and row["segments"], row["cable_id"]
            assert float(row["fibre_m"]) == pytest.approx(structured), row["cable_id"]
        else:
            direct += 1
            assert int(row["connections"]) == 0 and not row["segments"], row["cable_id"]
            assert float(row["fibre_m"]) == stock(float(row["length_m"]), CORD_STOCK) <= 70
    assert through and direct


def test_netbox_cords_are_the_stock_lengths_of_each_ends_cord(pieces):
    """netbox/cables.csv read back (each cable by the piece id its description starts with):
    every link that leaves its row is two patch cords, one from
    each end's router interface to a front port of a panel at that end's panel point, each as
    long as the stock length that covers that end's cord (not the other end's, not the
    computed length), its drop into the patch rack included; every other cable is one row at
    the stock length of its route."""
    rows = read_csv("netbox/cables.csv")
    cords = defaultdict(list)
    for r in rows:
        if r["side_a_type"] == "dcim.interface" and r["side_b_type"] == "dcim.frontport":
            cords[r["description"].split()[0]].append(r)
    assert sum(map(len, cords.values())) == 2 * len(pieces)
    for cid, want in pieces.items():
        row = want["row"]
        got = {r["side_a_device"]: r for r in cords[cid]}
        assert set(got) == {row["a_device"], row["b_device"]}, cid
        for end, device, point, cord in (("A", row["a_device"], want["a_point"],
                                          want["cords"][0]),
                                         ("B", row["b_device"], want["b_point"],
                                          want["cords"][1])):
            r = got[device]
            assert r["side_a_name"] == row[f"{end.lower()}_port"], (cid, end)
            assert r["side_b_device"].rsplit("-", 1)[0].split(".")[0] == point, (cid, end)
            assert r["length_unit"] == "m"
            assert float(r["length"]) == cord_order(cord), (cid, end)
    direct = {r["description"].split()[0]: r for r in rows
              if r["side_b_type"] == "dcim.interface"}
    for row in read_csv("cables.csv"):
        if row["cable_id"] in pieces:
            assert row["cable_id"] not in direct
            continue
        assert float(direct[row["cable_id"]]["length"]) == float(row["order_length_m"])
        assert float(row["order_length_m"]) >= float(row["length_m"]) - 1e-9


def _trunk_ids(segments: str) -> list[str]:
    return [p.split()[1] for p in (x.strip() for x in segments.split("|"))
            if p.startswith("trunk ")]


def test_netbox_and_trunks_csv_trunk_lengths(pieces):
    """Every trunk the segments name is one NetBox cable described by its id and one row of
    trunks.csv, at the stock length that covers its piece and a drop at each end, carrying as
    many links as name it."""
    netbox = {r["description"].split()[0]: r for r in read_csv("netbox/cables.csv")
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
        assert float(trunks[tid]["order_length_m"]) == trunk_order(metres), tid
        assert float(netbox[tid]["length"]) == trunk_order(metres), tid
        assert netbox[tid]["label"] == trunks[tid]["label"], tid
        assert int(trunks[tid]["links"]) == links[tid] <= LINKS_PER_TRUNK, tid
        hall = metres == pytest.approx(HALL_LINK * SLACK)
        assert trunks[tid]["kind"] == ("hall" if hall else "row"), tid


def first_fit_decreasing(sizes, capacity: int) -> int:
    """How many bins of ``capacity`` first-fit decreasing fills with ``sizes`` (each whole)."""
    bins: list[int] = []
    for size in sorted(sizes, reverse=True):
        free = next((i for i, used in enumerate(bins) if used + size <= capacity), None)
        if free is None:
            bins.append(size)
        else:
            bins[free] += size
    return len(bins)


def expected_panels(pieces):
    """Per panel point (a row point's name or ``H<n>-ENTRY``): how many trunk ends it holds,
    and the hall trunks per pair of halls. The links between the same two row points share row
    trunks, 4 to a trunk, filled in turn (5 links: 4 + 1); a cross-hall pair's row trunks end
    at each hall's entry on front ports, where per pair of halls one hall trunk carries row
    trunks whole, packed first-fit decreasing 4 links a hall trunk, from the rear ports."""
    per_pair = Counter()
    for want in pieces.values():
        points, halls = (want["a_point"], want["b_point"]), want["halls"]
        per_pair[(frozenset(points), frozenset(halls))] += 1
    ends, row_trunk_links = Counter(), defaultdict(list)
    for (points, halls), n in per_pair.items():
        chains = math.ceil(n / LINKS_PER_TRUNK)
        for point in points:
            ends[point] += chains
        if len(halls) == 2:
            row_trunk_links[halls] += [min(LINKS_PER_TRUNK, n - k * LINKS_PER_TRUNK)
                                       for k in range(chains)]
    hall_trunks = {halls: first_fit_decreasing(links, LINKS_PER_TRUNK)
                   for halls, links in row_trunk_links.items()}
    for halls, n in hall_trunks.items():
        for hall in halls:
            ends[f"H{hall + 1}-ENTRY"] += n
    return ends, per_pair, hall_trunks


def assert_panels_fill_the_band(pieces, band_ru: int, folder=None):
    """trunks.csv read back: each end's panel is ``<rack>-<RU>``; a point with k panels holds
    them from the lowest unit the drop reaches (U(13 - band)) upward, 4U each, as many as fit
    the band in its first rack, then the same units of ``<point>.2``, as many as its trunk ends
    need at 2 trunks (4 adapters each) a panel; each rear port of a panel ends one trunk (a row
    trunk at a row panel, a hall trunk at an entry panel); a row trunk lands on an entry panel's
    front port, one port per row trunk, and the links of the row trunks on an entry panel's
    front ports are the links of the hall trunks on its rear ports."""
    ends, _, _ = expected_panels(pieces)
    per_rack, lowest = band_ru // PANEL_RU, RACK_RU - band_ru + 1
    seen = defaultdict(set)
    rear_used, front_used = Counter(), Counter()
    entry_links = defaultdict(lambda: [0, 0])     # panel -> [front links, rear links]
    for r in read_csv("trunks.csv", folder):
        for end in ("a", "b"):
            rack, panel, ru, port = (r[f"{end}_{k}"] for k in ("rack", "panel", "ru", "port"))
            assert panel == f"{rack}-{int(ru):02d}", r["trunk_id"]
            point = rack.split(".")[0]
            seen[point].add((rack, int(ru)))
            number = int(port[1:])
            entry = point.endswith("-ENTRY")
            front = entry and r["kind"] == "row"
            assert port[0] == ("F" if front else "R"), r["trunk_id"]
            if front:
                assert 1 <= number <= ADAPTERS_PER_PANEL, r["trunk_id"]
                front_used[(panel, number)] += 1
            else:
                assert 1 <= number <= TRUNKS_PER_PANEL, r["trunk_id"]
                assert r["kind"] == ("hall" if entry else "row"), r["trunk_id"]
                rear_used[(panel, number)] += 1
            if entry:
                entry_links[panel][0 if front else 1] += int(r["links"])
    for point, n_ends in ends.items():
        n_panels = math.ceil(n_ends / TRUNKS_PER_PANEL)
        want = {(point if k // per_rack == 0 else f"{point}.{k // per_rack + 1}",
                 lowest + (k % per_rack) * PANEL_RU) for k in range(n_panels)}
        assert seen[point] == want, point
    assert set(seen) == set(ends)
    assert max(rear_used.values()) == 1 and max(front_used.values()) == 1
    assert entry_links and all(f == r <= ADAPTERS_PER_PANEL for f, r in entry_links.values())


def test_trunks_csv_panel_units_fill_patch_racks_from_u1(pieces):
    """With the default drop (the 12U rack's height) the band is the whole rack: panels at U1,
    U5, U9 (3 panels of 4U fill it), a fourth in ``<point>.2`` (``assert_panels_fill_the_band``)."""
    assert_panels_fill_the_band(pieces, RACK_RU)


def test_a_shorter_drop_leaves_the_lower_units_of_a_patch_rack_empty(tmp_path):
    """``patch_drop_m: 0.4`` reaches 8 units below the tray (0.4 / 0.04445 = 8.99, EIA-310
    units): panels fill U5 and U9 of each patch rack (2 a rack, none in U1-U4), and every cord and
    trunk is ordered with the 0.4 m drop."""
    from planner.exports import cabinets_csv, trunks_csv

    floor = dict(yaml.safe_load(FLOOR.read_text()), patch_drop_m=0.4)
    p = plan(importers.load(TOPOLOGY), str(CATALOG), Floor(**floor), strategy="hint",
             time_limit_s=5, seed=0)
    for writer in (cables_csv, cabinets_csv, trunks_csv):
        writer.write(p, tmp_path)
    band = math.floor(0.4 / RU_M)
    assert band == 8
    pieces = expected_pieces(tmp_path)
    assert_panels_fill_the_band(pieces, band, tmp_path)
    assert any(r["a_rack"].endswith(".2") for r in read_csv("trunks.csv", tmp_path))
    for cid, want in pieces.items():
        assert float(want["row"]["order_length_m"]) == pytest.approx(installed_m(want, 0.4)), cid


def test_summary_json_structured_block(pieces):
    """summary.json read back with ``json``: links, cross-hall links, trunks, panels, patch
    racks, ``patch_rack_ru_used`` and panel ports used, from the points and trunks computed
    here."""
    summary = json.loads((rich_folder() / "summary.json").read_text(encoding="utf-8"))
    got = summary["structured"]
    ends, per_pair, hall_trunks = expected_panels(pieces)
    panels = {p: math.ceil(n / TRUNKS_PER_PANEL) for p, n in ends.items()}
    cross_hall = sum(1 for w in pieces.values() if w["halls"][0] != w["halls"][1])
    chains = {key: math.ceil(n / LINKS_PER_TRUNK) for key, n in per_pair.items()}
    trunks = sum(c * (2 if len(halls) == 2 else 1) for (_, halls), c in chains.items())
    row_metres = {}
    for want in pieces.values():
        key = (frozenset((want["a_point"], want["b_point"])), frozenset(want["halls"]))
        row_metres[key] = sum(trunk_order(m) for m in want["trunks"]
                              if m != pytest.approx(HALL_LINK * SLACK))
    hall_metres = trunk_order(HALL_LINK * SLACK) * sum(hall_trunks.values())
    assert got["links"] == len(pieces)
    assert got["cross_hall_links"] == cross_hall
    assert got["trunks"] == trunks + sum(hall_trunks.values())
    assert got["hall_trunks"] == sum(hall_trunks.values())
    assert got["trunk_order_length_m"] == pytest.approx(
        sum(chains[k] * row_metres[k] for k in chains) + hall_metres)
    assert got["panels"] == sum(panels.values())
    assert got["patch_racks"] == sum(math.ceil(n / PANELS_PER_RACK) for n in panels.values())
    assert got["patch_rack_ru_used"] == PANEL_RU * sum(panels.values())
    assert got["panel_ports_used"] == 2 * len(pieces) + 2 * cross_hall


def test_netbox_patch_racks_and_panels_stand_where_trunks_csv_puts_them(pieces):
    """netbox/racks.csv and devices.csv read back: one 12U rack per patch rack, each panel a
    device in it at the RU of its name, of a device type as tall as the catalog's panel."""
    racks = {r["name"]: r for r in read_csv("netbox/racks.csv")}
    devices = {r["name"]: r for r in read_csv("netbox/devices.csv")}
    ends, _, _ = expected_panels(pieces)
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
