"""``planner expand`` on a floor with structured cabling grows the standing plant: every kept
cable keeps its panel front ports and trunk position, new links fill the standing trunks'
spare positions before any new trunk, and bom_growth.csv reuses the standing trunks, panels and
patch racks. Read back from the two plans' cables.csv (``segments``) and trunks.csv.

Dragonfly a=4, p=2, h=2 grown from g=5 to g=9 on an 8 x 24 hall with structured cabling
(``--strategy hint``). By hand, from the two plans' files: the standing plan has 12 links
through panels, all between the panel points A-P0 and B-P0, on one 144-fibre trunk
(A-P0-01:R1/B-P0-01:R1, 12 positions, all used). 6 of those cables are kept, 6 move to the
new groups. The grown plan has 18 links between A-P0 and B-P0: 12 fill the standing trunk
(the 6 kept on their positions, 6 others on the 6 positions freed), and 18 - 12 = 6 take new
trunks (a 48-fibre and a 24-fibre one, 4 + 2 positions) on the standing panels' free adapters.
So the grown bill reuses 1 trunk, 2 panels and 2 patch racks, and buys 2 trunks.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from planner.cabling import work_order as orders
from tests.plan_folders import cli, read_csv

ROOM = """extends: hot-aisle
name: room-panels
hall:
  rows: 8
  cabinets_per_row: 24
structured_cabling: true
"""

PIECE = re.compile(r"\| (\S+):(\d+) \| trunk (T\d+) [^|]*\| (\S+):(\d+) \|")


@pytest.fixture(scope="module")
def grown(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("panels")
    room = base / "room.yaml"
    room.write_text(ROOM)
    standing, after = base / "old", base / "new"
    assert cli("plan", "--topology", "dragonfly:a=4,p=2,h=2,g=5", "--catalog", "modern-100g",
                "--floor", room, "--out", standing, "--strategy", "hint") == 0
    assert cli("expand", "--from", standing, "--topology", "dragonfly:a=4,p=2,h=2,g=9",
                "--floor", room, "--out", after) == 0
    return standing, after


def _starts(trunks: pd.DataFrame) -> dict:
    """(panel, rear port) -> its first front port: a panel's rear ports R1, R2 .. take its
    adapters in order, each as many as its trunk's capacity (positions)."""
    ends = pd.concat([trunks[[f"{s}_panel", f"{s}_port", "capacity"]].set_axis(
        ["panel", "port", "capacity"], axis=1) for s in ("a", "b")])
    ends = ends[ends["port"].str.startswith("R")].assign(
        rear=lambda f: f["port"].str[1:].astype(int), capacity=lambda f: f["capacity"].astype(int))
    out = {}
    for panel, rows in ends.sort_values("rear").groupby("panel"):
        first = 1
        for rear, size in zip(rows["rear"], rows["capacity"]):
            out[(panel, f"R{rear}")] = first
            first += size
    return out


def _seats(folder: Path) -> dict:
    """Per network link through one row trunk, by its two router ends (router id, port), the
    trunk (label, part), the front port at each panel and the trunk position those give."""
    cables, trunks = read_csv(folder, "cables.csv"), read_csv(folder, "trunks.csv")
    by_id = trunks.set_index("trunk_id")
    starts = _starts(trunks)
    out = {}
    for c in cables[cables["kind"] == "network"].itertuples():
        found = PIECE.findall(c.segments)
        if len(found) != 1:
            continue
        pa, fa, tid, pb, fb = found[0]
        t = by_id.loc[tid]
        rear = {t["a_panel"]: t["a_port"], t["b_panel"]: t["b_port"]}
        positions = {int(f) - starts[(p, rear[p])] + 1 for p, f in ((pa, fa), (pb, fb))}
        assert len(positions) == 1, (c.cable_id, c.segments)    # both ends: one position
        ends = sorted([(int(c.a_device[1:]), int(c.a_port)), (int(c.b_device[1:]), int(c.b_port))])
        out[tuple(ends)] = dict(trunk=(t["label"], t["sku"]), ports={pa: fa, pb: fb},
                                position=positions.pop(), tid=tid)
    return out


def test_kept_cables_keep_their_panel_ports_and_trunk_positions(grown):
    standing, after = grown
    before, now = _seats(standing), _seats(after)
    kept = [k for k in before if k in now]
    assert len(before) == 12 and len(kept) == 6
    for k in kept:
        assert now[k]["trunk"] == before[k]["trunk"], k
        assert now[k]["ports"] == before[k]["ports"], k
        assert now[k]["position"] == before[k]["position"], k
    # and the work order lists none of them: they are not touched
    order = read_csv(after, "work_order.csv")
    cables = read_csv(after, "cables.csv")
    label = {tuple(sorted([(int(c.a_device[1:]), int(c.a_port)),
                           (int(c.b_device[1:]), int(c.b_port))])): c.cable_id
             for c in cables[cables["kind"] == "network"].itertuples()}
    assert not {label[k] for k in kept} & set(order["cable_id"])


def test_new_links_fill_the_standing_trunk_before_new_trunks(grown):
    standing, after = grown
    old = read_csv(standing, "trunks.csv")
    now = _seats(after)
    ours = set(zip(old["label"], old["sku"]))
    assert len(ours) == 1
    on = pd.Series([s["trunk"] in ours for s in now.values()])
    trunk_of = pd.Series([s["tid"] for s in now.values()])
    capacity = read_csv(after, "trunks.csv").set_index("trunk_id")["capacity"].astype(int)
    # every grown link runs A-P0 to B-P0, as by hand: 18 links
    assert len(now) == 18
    # the standing trunk is full (12 of 12) before the other 6 take new trunks
    standing_ids = set(trunk_of[on])
    assert len(standing_ids) == 1
    assert int(on.sum()) == capacity[standing_ids.pop()] == 12
    assert int((~on).sum()) == 18 - 12
    # the new trunks carry just the 6 left: a 48-fibre (4) and a 24-fibre (2) trunk
    assert sorted(capacity[sorted(set(trunk_of[~on]))].tolist()) == [2, 4]
    # and they stand on the standing panels (their free adapters), no new panel
    grown_trunks = read_csv(after, "trunks.csv")
    assert set(grown_trunks["a_panel"]) | set(grown_trunks["b_panel"]) == (
        set(old["a_panel"]) | set(old["b_panel"]))


def test_bom_growth_reuses_the_standing_trunk_panels_and_patch_racks(grown):
    _, after = grown
    bom = pd.read_csv(after / "bom_growth.csv", keep_default_na=False)
    for item, reused, new in (("trunk", 1, 2), ("panel", 2, 0), ("rack", 2, 0)):
        lines = bom[bom["item"] == item]
        assert int(lines["reused"].sum()) == reused, item
        assert int(lines["new"].sum()) == new, item
        assert (lines["new"] == lines["quantity"] - lines["reused"]).all()


SEG = ("cord 1 m X | A-P0-01:{a} | trunk {t} 2.64 m {sku} | B-P0-01:{b} | cord 1 m X")


@pytest.mark.parametrize("old_seg, new_seg, trunk_new, action", [
    (SEG.format(a="001", b="001", t="T0001", sku="S"),
     SEG.format(a="001", b="001", t="T0003", sku="S"), ("L1", "S"), "keep"),  # id renumbered
    (SEG.format(a="001", b="001", t="T0001", sku="S"),
     SEG.format(a="002", b="002", t="T0001", sku="S"), ("L1", "S"), "move"),  # other ports
    (SEG.format(a="001", b="001", t="T0001", sku="S"),
     SEG.format(a="001", b="001", t="T0001", sku="S"), ("L2", "S"), "move"),  # other trunk
    (SEG.format(a="001", b="001", t="T0001", sku="S"), "", None, "move"),     # off the panels
    ("", "", None, "keep"),                                                   # never on them
])
def test_a_kept_cable_whose_pieces_change_is_a_move(old_seg, new_seg, trunk_new, action):
    old = pd.DataFrame({"segments": [old_seg]})
    new = pd.DataFrame({"segments": [new_seg]})
    tid = re.findall(r"trunk (T\d+)", new_seg)
    paired = (np.array(["keep"], dtype=object), np.array(["keep"], dtype=object),
              np.array([0]))
    act_old, act_new, source = orders.with_repatched(
        paired, old, new, {"T0001": ("L1", "S")}, {tid[0]: trunk_new} if tid else {})
    assert act_new[0] == act_old[0] == action
    assert source[0] == 0


def test_a_one_hall_plant_grown_over_two_halls_keeps_its_panels(tmp_path):
    """The two-hall floor: the standing system fits in hall 1 (panels ``A-P0-01``), the grown
    one spans both, so its panels are named ``H1-A-P0-01``: the same panels. All 3 standing
    trunks stay (reused in bom_growth.csv); every standing cable through panels that is kept
    keeps its ports, or, where its route now passes another panel point, is a ``move`` in
    work_order.csv with the same two ends."""
    floor = Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml"
    standing, after = tmp_path / "old", tmp_path / "new"
    assert cli("plan", "--topology", "dragonfly:a=4,p=2,h=2,g=5", "--floor", floor,
                "--out", standing, "--strategy", "hint") == 0
    assert cli("expand", "--from", standing, "--topology", "dragonfly:a=4,p=2,h=2,g=9",
                "--floor", floor, "--out", after) == 0
    old = read_csv(standing, "trunks.csv")
    assert not old["a_panel"].str.startswith("H").any() and len(old) == 3
    grown = read_csv(after, "trunks.csv")
    prefixed = {("H1-" + a + ":" + pa + "/H1-" + b + ":" + pb, sku) for a, pa, b, pb, sku in
                zip(old["a_panel"], old["a_port"], old["b_panel"], old["b_port"], old["sku"])}
    assert prefixed <= set(zip(grown["label"], grown["sku"]))
    bom = pd.read_csv(after / "bom_growth.csv", keep_default_na=False)
    assert int(bom[bom["item"] == "trunk"]["reused"].sum()) == 3
    before, now = _seats(standing), _seats(after)
    order = read_csv(after, "work_order.csv")
    moved = {tuple(sorted((int(e.split(":")[0][1:]), int(e.split(":")[1].split("@")[0]))
                          for e in (r.new_a, r.new_b)))
             for r in order[order["action"] == "move"].itertuples()
             if {r.old_a.split("@")[0], r.old_b.split("@")[0]}
             == {r.new_a.split("@")[0], r.new_b.split("@")[0]}}
    kept = [k for k in before if k in now]
    assert kept
    for k in kept:
        same = now[k]["ports"] == {"H1-" + p: f for p, f in before[k]["ports"].items()}
        assert same != (k in moved), k


# The work order names, for every moved or added cable through panels, the panel front ports
# and the trunk position it takes, as the grown plan's cables.csv (``segments``) and trunks.csv
# give them, and marks the trunks the standing plan already has (same label, same part).

def test_work_order_names_the_panel_ports_and_trunks_each_new_link_takes(grown):
    standing, after = grown
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False, dtype=str)
    cables = pd.read_csv(after / "cables.csv", keep_default_na=False, dtype=str)
    trunks = pd.read_csv(after / "trunks.csv", keep_default_na=False, dtype=str)
    old_trunks = pd.read_csv(standing / "trunks.csv", keep_default_na=False, dtype=str)
    segments = dict(zip(cables["cable_id"], cables["segments"]))
    ours = set(zip(old_trunks["label"], old_trunks["sku"]))
    label = dict(zip(trunks["trunk_id"], zip(trunks["label"], trunks["sku"])))
    capacity = dict(zip(trunks["trunk_id"], trunks["capacity"].astype(int)))
    work = order[order["action"] != "remove"]
    through = work[work["through"] != ""]
    assert len(through) > 0
    # a cable's through-panels text exactly when its grown route goes through panels
    assert set(through["cable_id"]) == {c for c in work["cable_id"] if segments[c]}
    for row in through.itertuples():
        ports = re.findall(r"(\S+-\d+:\d+)", row.through)
        route = segments[row.cable_id]
        assert len(ports) == 2 and all(f"| {p} |" in route for p in ports), (row.through, route)
        for trunk, position, mark in re.findall(r"(T\d+)#(\d+)( \(standing\))?", row.through):
            assert f"trunk {trunk} " in route
            assert 1 <= int(position) <= capacity[trunk]
            assert bool(mark) == (label[trunk] in ours)
    assert order[order["action"] == "remove"]["through"].eq("").all()


def test_bom_counts_standing_trunks_as_reused(grown):
    """bom_growth.csv's trunk lines: reused = the grown trunks.csv rows whose label and part the
    standing trunks.csv has, per part; new = quantity - reused."""
    standing, after = grown
    trunks = pd.read_csv(after / "trunks.csv", keep_default_na=False, dtype=str)
    old = pd.read_csv(standing / "trunks.csv", keep_default_na=False, dtype=str)
    ours = set(zip(old["label"], old["sku"]))
    kept = trunks[[k in ours for k in zip(trunks["label"], trunks["sku"])]]["sku"]
    assert len(kept) >= 1
    bom = pd.read_csv(after / "bom_growth.csv", keep_default_na=False)
    lines = bom[bom["item"] == "trunk"].set_index("sku")
    assert lines["quantity"].sum() == len(trunks)
    for sku, line in lines.iterrows():
        assert line["reused"] == (kept == sku).sum(), sku
        assert line["new"] == line["quantity"] - line["reused"]
