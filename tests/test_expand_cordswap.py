"""The work order swaps the patch cords a kept cable needs longer.

Dragonfly a=4, p=2, h=3, g=9 -> 13 on ``benchmarks/two-halls.yaml``
(``tests/test_expand_trays.py`` builds it): the row-end cross tray moves from x = 3.6 m to
4.8 m, and a kept cable keeps its row-end panels, so its cords there lengthen. Four cords
change part (catalog stock lengths 5, 7 and 10 m):

- ``r02:6 - r04:3`` (H1-A04 to H1-B04, x = 1.8 m): each cord (0.5 m rise + 1.8 m along)
  x 1.1 = 2.53 m before on ``OM4-MPO12_5m``, (0.5 + 3.0) x 1.1 = 3.85 m after on
  ``OM4-MPO12_7m``: two swaps;
- ``r06:7 - r12:4`` (H1-B04 to H1-A06): r06's cord 2.53 m -> 3.85 m, the same swap; r12's
  (x = 3.0 m) 1.21 m -> 2.53 m stays on the 5 m cord;
- ``r30:8 - r32:5`` (H2-B02, x = 0.6 m, to H2-A06): r30's cord (0.5 + 3.0) x 1.1 = 3.85 m on
  the 7 m cord before, (0.5 + 4.2) x 1.1 = 5.17 m on the 10 m one after: one swap; r32's
  1.21 m -> 2.53 m stays on the 5 m cord.

Checked against the two plans' ``cables.csv`` read back on their own: the cords whose part
differs at the same device end of a kept cable (``segments``) are exactly the ``swap-cord`` rows
of ``work_order.csv`` (cord id as ``cables.csv``'s ``a_assembly``/``b_assembly``, label as
``labels.csv``'s), walked in by cabinet in the last drain step; ``bom_growth.csv`` reuses
every other cord of a kept cable through panels; wiring.pdf lists the swaps.

A management cord moves: the same standing plan as the site has it, with r17's cord (H1-B01,
whose group's switch is ``mgmt-H1-B02-1`` in H1-B02) found on port 40 of ``mgmt-H1-A03-1``,
the switch of row A's group. Grown to g=13, the cord goes back to its group's switch (its
cabinet's other cords stay there: the last cord of a standing cabinet names its group):
``work_order.csv`` has one ``move`` row of kind ``mgmt``, its old ends the standing
cables.csv's and its new ends the grown cables.csv's, in drain step 1; every other standing
cord is kept.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from planner.cli import main
from tests.plan_folders import read_csv
from tests.test_expand_trays import FLOOR, SPEC, two_halls_growth

CORD = re.compile(r"cord (\S+) m (\S+)")


@pytest.fixture(scope="module")
def grown(tmp_path_factory) -> dict[str, Path]:
    return two_halls_growth(tmp_path_factory)


def _cords_by_end(folder: Path) -> dict:
    """(device, port) of a network cable's two ends, sorted -> {(device, port): (cord part,
    cord length, cord id)} of each end's patch cord, for the cables through panels."""
    out = {}
    for c in read_csv(folder, "cables.csv").itertuples(index=False):
        found = CORD.findall(c.segments)
        if c.kind != "network" or len(found) < 2:
            continue
        a, b = (c.a_device, int(c.a_port)), (c.b_device, int(c.b_port))
        out[tuple(sorted([a, b]))] = {a: (found[0][1], found[0][0], c.a_assembly),
                                      b: (found[-1][1], found[-1][0], c.b_assembly)}
    return out


def expected_swaps(grown) -> dict:
    """cord id -> (standing part, grown part, standing length, grown length) of every cord of
    a kept cable (same two ends in both plans) whose part differs at the same device end."""
    before, after = _cords_by_end(grown["old"]), _cords_by_end(grown["grown"])
    out = {}
    for ends in before.keys() & after.keys():
        for end in ends:
            (was, was_m, _), (now, now_m, cord) = before[ends][end], after[ends][end]
            if was != now:
                out[cord] = (was, now, was_m, now_m)
    return out


def _swap_rows(grown) -> pd.DataFrame:
    order = read_csv(grown["grown"], "work_order.csv")
    return order[order["action"] == "swap-cord"]


def test_a_swap_row_per_cord_whose_part_changes(grown):
    rows = _swap_rows(grown)
    expected = expected_swaps(grown)
    assert len(rows) == len(expected) == 4
    got = {r.cable_id: (r.old_sku, r.new_sku) for r in rows.itertuples(index=False)}
    assert got == {k: v[:2] for k, v in expected.items()}
    for r in rows.itertuples(index=False):
        was_m, now_m = expected[r.cable_id][2:]
        assert r.through == f"cord {was_m} m -> {now_m} m"
        assert r.kind == "cord" and r.old_a == r.new_a and r.old_b == r.new_b


@pytest.mark.parametrize("ends, end, parts, lengths", [
    ((("r02", 6), ("r04", 3)), ("r02", 6), ("OM4-MPO12_5m", "OM4-MPO12_7m"), ("2.53", "3.85")),
    ((("r02", 6), ("r04", 3)), ("r04", 3), ("OM4-MPO12_5m", "OM4-MPO12_7m"), ("2.53", "3.85")),
    ((("r30", 8), ("r32", 5)), ("r30", 8), ("OM4-MPO12_7m", "OM4-MPO12_10m"), ("3.85", "5.17")),
])
def test_the_hand_computed_swaps(grown, ends, end, parts, lengths):
    """The module doc's cords: the row at the device end, its panel port the cable's."""
    cord = _cords_by_end(grown["grown"])[tuple(sorted(ends))][end][2]
    row = _swap_rows(grown).set_index("cable_id").loc[cord]
    assert (row["old_sku"], row["new_sku"]) == parts
    assert row["through"] == f"cord {lengths[0]} m -> {lengths[1]} m"
    assert row["old_a"].startswith(f"{end[0]}:{end[1]}@")


def test_r32s_cord_is_not_swapped(grown):
    """r32:5's cord lengthens (1.21 m -> 2.53 m) but stays on the 5 m part: no row."""
    key = (("r30", 8), ("r32", 5))
    cord = _cords_by_end(grown["grown"])[key][("r32", 5)]
    assert cord[:2] == ("OM4-MPO12_5m", "2.53")
    assert _cords_by_end(grown["old"])[key][("r32", 5)][:2] == ("OM4-MPO12_5m", "1.21")
    assert cord[2] not in set(_swap_rows(grown)["cable_id"])


def test_swap_rows_name_the_cord_as_labels_csv_does(grown):
    labels = read_csv(grown["grown"], "labels.csv")
    cords = labels[(labels["piece"] == "cord") & (labels["end"] == "A")]
    by_id = dict(zip(cords["cable_id"], cords["label"]))
    port = dict(zip(cords["cable_id"], cords["peer_device"] + ":" + cords["peer_port"]))
    for r in _swap_rows(grown).itertuples(index=False):
        assert r.label == by_id[r.cable_id]
        assert r.old_b == port[r.cable_id]


def test_swaps_are_walked_in_in_the_last_drain_step(grown):
    order = read_csv(grown["grown"], "work_order.csv")
    cabinets = read_csv(grown["grown"], "cabinets.csv")
    where = {n: (int(h), r, int(c)) for n, h, r, c in zip(
        cabinets["name"], cabinets["hall"], cabinets["row"], cabinets["column"].replace("", "0"))}
    keys = [where[c] for c in order["cabinet"]]
    assert keys == sorted(keys)
    assert list(order["step"].astype(int)) == list(range(1, len(order) + 1))
    last = order["drain_step"].astype(int).max()
    assert (_swap_rows(grown)["drain_step"].astype(int) == last).all()
    growth = json.loads((grown["grown"] / "summary.json").read_text())["growth"]
    assert growth["cords_swapped"] == len(_swap_rows(grown))


def test_bom_growth_reuses_the_other_cords_of_kept_cables(grown):
    """Every kept cable through panels has two cords; the reused patch cords in
    bom_growth.csv are those less the swapped ones (``bom_growth.csv`` counts a swapped cord
    as new)."""
    before, after = _cords_by_end(grown["old"]), _cords_by_end(grown["grown"])
    kept = len(before.keys() & after.keys())
    bom = read_csv(grown["grown"], "bom_growth.csv")
    cords = bom[(bom["item"] == "fibre")]
    assert cords["reused"].astype(int).sum() == 2 * kept - len(expected_swaps(grown))


def test_wiring_pdf_lists_the_swaps(grown):
    from pypdf import PdfReader
    text = " ".join(t for t in (p.extract_text() for p in
                                PdfReader(grown["grown"] / "wiring.pdf").pages)
                    if "Work order" in t and "standing ends" in t)
    for r in _swap_rows(grown).itertuples(index=False):
        assert r.label in text and r.cable_id in text
    assert "OM4-MPO12_7m -> OM4-MPO12_10m" in text.replace("\n", " ")


def _end(row, side: str) -> str:
    """``device:port@cabinet-RU`` (``-RU`` left out where the end has none)."""
    ru = row[f"{side}_ru"]
    return (f"{row[f'{side}_device']}:{row[f'{side}_port']}@{row[f'{side}_cabinet']}"
            + (f"-{ru}" if ru else ""))


@pytest.fixture(scope="module")
def off_plan(grown, tmp_path_factory) -> dict[str, Path]:
    """The standing plan with r17's management cord on another group's switch (module doc),
    grown to g=13."""
    import shutil
    base = tmp_path_factory.mktemp("off-plan")
    old, out = base / "old", base / "grown"
    shutil.copytree(grown["old"], old)
    cables = read_csv(old, "cables.csv")
    k = cables.index[(cables["kind"] == "mgmt") & (cables["a_device"] == "r17")][0]
    assert cables.at[k, "b_device"] == "mgmt-H1-B02-1"
    cables.loc[k, ["b_device", "b_port", "b_cabinet", "b_ru", "label"]] = [
        "mgmt-H1-A03-1", "40", "H1-A03", "42", "H1-B01-39:mgmt/H1-A03-42:40"]
    assert not ((cables["b_device"] == "mgmt-H1-A03-1") & (cables["b_port"] == "40")
                & (cables.index != k)).any()               # port 40 was free
    cables.to_csv(old / "cables.csv", index=False, lineterminator="\n")
    assert main([str(a) for a in ("expand", "--from", old, "--topology", SPEC.format(13),
                                  "--floor", FLOOR, "--out", out)]) == 0
    return {"old": old, "grown": out}


def test_a_management_cord_on_another_groups_switch_moves(off_plan):
    old, new = read_csv(off_plan["old"], "cables.csv"), read_csv(off_plan["grown"], "cables.csv")
    old, new = old[old["kind"] == "mgmt"], new[new["kind"] == "mgmt"]
    order = read_csv(off_plan["grown"], "work_order.csv")
    rows = order[(order["kind"] == "mgmt") & (order["action"] != "add")]
    assert list(rows["action"]) == ["move"]
    row = rows.iloc[0]
    was = old[old["a_device"] == "r17"].iloc[0]
    now = new[new["a_device"] == "r17"].iloc[0]
    assert (row["old_a"], row["old_b"]) == (_end(was, "a"), _end(was, "b"))
    assert (row["new_a"], row["new_b"]) == (_end(now, "a"), _end(now, "b"))
    assert row["old_b"] == "mgmt-H1-A03-1:40@H1-A03-42"
    # back on the switch its cabinet's other cords run to, on a port no other cord takes
    others = new[(new["a_cabinet"] == "H1-B01") & (new["a_device"] != "r17")]
    assert set(others["b_device"]) == {now["b_device"]} == {"mgmt-H1-B02-1"}
    taken = list(zip(new["b_device"], new["b_port"]))
    assert taken.count((now["b_device"], now["b_port"])) == 1
    assert row["label"] == now["label"] and row["drain_step"] == "1"
    # every other standing cord keeps its switch port
    ends = lambda t: set(zip(t["a_device"], t["b_device"], t["b_port"]))  # noqa: E731
    assert ends(old[old["a_device"] != "r17"]) <= ends(new)
    growth = json.loads((off_plan["grown"] / "summary.json").read_text())["growth"]
    assert growth["mgmt_cords"]["moved"] == 1
    assert growth["mgmt_cords"]["kept"] == len(old) - 1
