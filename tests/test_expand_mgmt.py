"""A grown system keeps its standing fabric boxes: every management switch and subnet-manager
box keeps its cabinet, rack unit and name, and every standing management cord its switch port
(``planner.costing.fabric_devices.StandingBoxes``, docs/growth.md "Standing fabric boxes").

Management groups are checked by hand on rows that gain cabinets (table below); the boxes and
cords on a hand-made NDR row of 4 cabinets grown to 6, where the rules of a new plan would
move the management switch from A02 to A03 and the second subnet-manager box from A03 to A04;
new routers leave the router slots a standing box takes; and a Dragonfly grown through the CLI
is read back from cabinets.csv, cables.csv and work_order.csv.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from planner.costing import fabric, fabric_devices
from planner.costing.fabric_devices import StandingBoxes
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.placement.growth import place_growth
from planner.topologies.base import Topology
from tests.test_expand_placement import RING, SMALL, STANDING


def _row(cols, rows=None) -> SimpleNamespace:
    """A layout of cabinets at the given columns (0-based) of row A (or the given rows)."""
    cols = np.asarray(cols, dtype=np.int64)
    rows = np.zeros(len(cols), np.int64) if rows is None else np.asarray(rows, np.int64)
    return SimpleNamespace(cabinet_hall=np.zeros(len(cols), np.int64), cabinet_row=rows,
                           cabinet_col=cols, num_cabinets=len(cols))


def _standing(holder_of: list[int]) -> StandingBoxes:
    """Standing cabinets 0..n-1, cabinet c's router cord to the switch in ``holder_of[c]``."""
    switches = sorted(set(holder_of))
    boxes = pd.DataFrame({"name": [f"mgmt-{h}-1" for h in switches], "kind": "mgmt_switch",
                          "cabinet": switches, "ru": 42.0, "height_ru": 1.0})
    cords = pd.DataFrame({"device": [f"r{c}" for c in range(len(holder_of))],
                          "switch": [f"mgmt-{h}-1" for h in holder_of],
                          "port": range(1, len(holder_of) + 1), "cabinet": range(len(holder_of))})
    return StandingBoxes(boxes=boxes, cords=cords, cabinets=len(holder_of))


# (standing columns, their holders (cabinet index), new columns, per, rows of the new ones,
#  expected groups as lists of cabinet indices with the holder first)
GROUPS = {
    # A01..A06 stand (one group of 8, switch in A03); A07..A14 are new: A07, A08 fill the
    # standing group to 8, A09..A14 form a group of their own with its switch in A11 (middle)
    "row grows past a group": ([0, 1, 2, 3, 4, 5], [2] * 6, list(range(6, 14)), 8, None,
                               [[2, 0, 1, 3, 4, 5, 6, 7], [10, 8, 9, 11, 12, 13]]),
    # whole-row groups: A02..A05 stand (switch in A03); A01, A06, A07 join the row's group;
    # a new row B (B01..B03) has a group of its own, switch in B02
    "whole rows": ([1, 2, 3, 4], [1] * 4, [0, 5, 6, 0, 1, 2], None, [0, 0, 0, 1, 1, 1],
                   [[1, 0, 2, 3, 4, 5, 6], [8, 7, 9]]),
    # groups of 2: A02, A03 (switch in A02) and A04, A05 (switch in A04) stand, both full; the
    # new A01 and A06 each start a group (a new plan would regroup A01|A02, A03|A04, A05|A06)
    "full groups stay": ([1, 2, 3, 4], [0, 0, 2, 2], [0, 5], 2, None,
                         [[0, 1], [2, 3], [4], [5]]),
    # groups of 3: A01, A02 stand (switch A01), room for one; new A03, A04, A05: A03 fills it,
    # A04, A05 form a group (switch A04)
    "left group filled first": ([0, 1], [0, 0], [2, 3, 4], 3, None, [[0, 1, 2], [3, 4]]),
    # groups of 3: A03, A04 stand (switch A03); new A01, A02 in front: A02 fills the group
    # from the right end of the run, A01 is alone
    "right group filled from its side": ([2, 3], [0, 0], [0, 1], 3, None, [[0, 1, 3], [2]]),
}


@pytest.mark.parametrize("name", GROUPS)
def test_grown_management_groups(name):
    cols, holders, new_cols, per, new_rows, expected = GROUPS[name]
    rows = None if new_rows is None else [0] * len(cols) + new_rows
    layout = _row(cols + new_cols, rows)
    group, holder = _standing(holders).groups(layout, per)
    found = []
    for g in range(len(holder)):
        members = np.flatnonzero(group == g).tolist()
        found.append([int(holder[g])] + [m for m in members if m != holder[g]])
    assert sorted(found) == sorted(expected)
    assert (group >= 0).all() and all(group[h] == g for g, h in enumerate(holder))


# Row A of hot-aisle: routers r0, r1 in A01, r2 in A02, r3 in A04 (tests/test_fabric_devices.py)
# stand; the grown row adds A05 and A06 with r4 and r5.
DEVICES = pd.DataFrame({"name": [f"r{i}" for i in range(6)], "kind": "router", "id": range(6),
                        "cabinet": ["A01", "A01", "A02", "A04", "A05", "A06"],
                        "ru": [39.0, 40.0, 39.0, 39.0, 39.0, 39.0], "height_ru": 1.0,
                        "model": "MQM9790-NS2F"})


def _layout(n: int) -> SimpleNamespace:
    cab = np.array([0, 0, 1, 3, 4, 5])[:n if n == 6 else 4]
    return SimpleNamespace(num_cabinets=n, router_cabinet=cab,
                           cabinet_hall=np.zeros(n, np.int64), cabinet_row=np.zeros(n, np.int64),
                           cabinet_col=np.arange(n), cabinet_names=[f"A0{i + 1}"
                                                                    for i in range(n)])


def _boxes(layout, devices, kw, standing=None):
    cat = load_catalog("ndr-400g")
    floor = load_floor("hot-aisle")
    _, fp = fabric.build(cat, cat.router_for(64), layout, floor, kw, 0, standing=standing)
    return fabric_devices.place(cat, layout, floor, devices, fp, standing=standing)


def _as_standing(placed, cabinets: list[str]) -> StandingBoxes:
    """What ``planner expand`` reads back from a plan folder, from the placed boxes."""
    index = {c: i for i, c in enumerate(cabinets)}
    d = placed.devices
    boxes = pd.DataFrame({"name": d["name"], "kind": d["kind"],
                          "cabinet": d["cabinet"].map(index), "ru": d["ru"].astype(float),
                          "height_ru": np.where(d["ru"].isna(), 0.0, d["height_ru"])})
    c = placed.cords
    cords = pd.DataFrame({"device": c["a_device"], "switch": c["b_device"],
                          "port": c["b_port"].astype(int), "cabinet": c["a_cabinet"].map(index)})
    return StandingBoxes(boxes=boxes, cords=cords, cabinets=len(cabinets))


@pytest.fixture(scope="module")
def ndr_row():
    old_kw, new_kw = np.array([1.0, 6.5, 0.0, 0.5]), np.array([1.0, 6.5, 0.0, 0.5, 0.5, 0.5])
    old = _boxes(_layout(4), DEVICES.iloc[:4], old_kw)
    standing = _as_standing(old, ["A01", "A02", "A03", "A04"])
    fresh = _boxes(_layout(6), DEVICES, new_kw)
    grown = _boxes(_layout(6), DEVICES, new_kw, standing)
    return old, fresh, grown


def test_standing_boxes_keep_cabinet_unit_and_name(ndr_row):
    old, fresh, grown = ndr_row
    seat = lambda b: {n: (c, r) for n, c, r in zip(b.devices["name"], b.devices["cabinet"],  # noqa: E731
                                                   b.devices["ru"].fillna(-1))}
    before, fresh_seats, after = seat(old), seat(fresh), seat(grown)
    # the rules of a new plan would move the switch to the grown row's middle, sm2 to A04
    assert "mgmt-A02-1" not in fresh_seats and fresh_seats["mgmt-A03-1"] == ("A03", 42.0)
    assert fresh_seats["sm2"][0] == "A04"
    for name, where in before.items():
        assert after[name] == where, name
    # the new cabinets' PDUs are named by the same rule, no name twice
    assert {"pdu-A05-A1", "pdu-A06-B1"} <= set(after)
    assert len(grown.devices["name"]) == grown.devices["name"].nunique()


def test_standing_cords_keep_their_ports_new_ones_fill_free_ports(ndr_row):
    old, _, grown = ndr_row
    was = {d: (s, p) for d, s, p in zip(old.cords["a_device"], old.cords["b_device"],
                                        old.cords["b_port"])}
    now = {d: (s, p) for d, s, p in zip(grown.cords["a_device"], grown.cords["b_device"],
                                        grown.cords["b_port"])}
    assert all(now[d] == end for d, end in was.items())
    # labels of the standing cords unchanged: both ends keep cabinet and unit
    old_labels = dict(zip(old.cords["a_device"], old.cords["label"]))
    new_labels = dict(zip(grown.cords["a_device"], grown.cords["label"]))
    assert all(new_labels[d] == lab for d, lab in old_labels.items())
    # the new devices (r4, r5 and the PDUs of A05, A06) take the next free ports 17..
    added = sorted(p for d, (s, p) in now.items() if d not in was)
    assert added == list(range(17, 17 + len(added))) and len(added) == len(now) - len(was)
    assert len(set(now.values())) == len(now)                 # one cord per port


# The growth placement's small hall (SMALL, STANDING and RING of tests/test_expand_placement.py):
# A04 holds router 6 and has a free router slot (U40); a standing box in U40 takes it.
EDGES = RING + [(6, 7), (6, 8), (7, 8), (8, 9), (7, 9), (2, 9), (0, 7)]


@pytest.mark.parametrize("box_at, in_standing", [(None, 1), (42, 1), (40, 0)])
def test_new_routers_leave_the_slots_of_standing_boxes(tmp_path, box_at, in_standing):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    floor, catalog = load_floor(path), load_catalog("modern-100g")
    router = catalog.router_for(16)
    assert router.rack_units == 1 and floor.first_router_ru == 39   # A04's free slot: U40
    units = np.zeros((4, floor.cabinet_height_ru + 2), dtype=bool)
    if box_at is not None:
        units[3, box_at] = True
    top = Topology.from_edges("import", {}, 10, EDGES, 1)
    placed = place_growth(top, floor, catalog, router, STANDING, np.zeros(4, int),
                          np.zeros(4, int), np.arange(4), np.array([0, 0, 1, 1]),
                          box_units=None if box_at is None else units)
    assert placed.in_standing_cabinets == in_standing
    assert (placed.placement.router_cabinet[7:] == 3).sum() == in_standing


def _boxes_of(folder: Path) -> dict[str, tuple[str, str]]:
    """Box name -> (cabinet, ``U<ru>`` or ``0U``) from cabinets.csv's fabric_devices."""
    cab = pd.read_csv(folder / "cabinets.csv", keep_default_na=False, dtype=str)
    out = {}
    for name, cell in zip(cab["name"], cab["fabric_devices"]):
        for item in filter(None, cell.split(";")):
            box, _, where = item.rpartition("@")
            out[box] = (name, where)
    return out


def test_grown_plan_keeps_standing_boxes_and_cords(grown_dragonfly):
    old, new = grown_dragonfly
    before, after = _boxes_of(old), _boxes_of(new)
    assert any(n.startswith("mgmt-") for n in before) and "sm1" in before
    for name, seat in before.items():
        assert after.get(name) == seat, name
    # the grown row's cabinets: the rules of a new plan would stand a switch elsewhere
    cab = pd.read_csv(new / "cabinets.csv", keep_default_na=False, dtype={"row": str})
    cab = cab[cab["kind"] == "cabinet"]
    layout = _row(cab["column"].to_numpy() - 1,
                  [ord(r) - 65 for r in cab["row"]])
    group, holder = fabric.groups(layout, 8)
    fresh = {cab["name"].iloc[h] for h in holder}
    standing_switch_cabinets = {c for n, (c, _) in before.items() if n.startswith("mgmt-")}
    assert not standing_switch_cabinets <= fresh
    cables_old = pd.read_csv(old / "cables.csv", dtype=str, keep_default_na=False)
    cables_new = pd.read_csv(new / "cables.csv", dtype=str, keep_default_na=False)
    ends = lambda t: set(zip(t["a_device"], t["b_device"], t["b_port"], t["label"]))  # noqa: E731
    old_cords, new_cords = (ends(t[t["kind"] == "mgmt"]) for t in (cables_old, cables_new))
    assert old_cords <= new_cords                   # same device, switch, port and label
    order = pd.read_csv(new / "work_order.csv", dtype=str, keep_default_na=False)
    assert not set(order["label"]) & {lab for *_, lab in old_cords}
    growth = json.loads((new / "summary.json").read_text())["growth"]
    assert growth["routers_added"] == 16
