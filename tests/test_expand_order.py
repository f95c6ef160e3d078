"""``planner expand``'s work order lists the management cords, and ``bom_growth.csv`` counts a
kept cable's patch cord as reused only when its part stands.

Management cords: the Dragonfly a=4, p=2, h=2 grown from g=5 to g=9 of tests/test_expand_mgmt.py,
read back from the two plans' cables.csv (``mgmt`` rows) and the grown work_order.csv; and
``planner.cabling.work_order.mgmt_rows`` on hand-made cords for a move and a remove (table).

Kept cords: the growth of tests/test_expand_kept_seats.py (Dragonfly a=4, p=2, h=3, g=9 -> 13
on ``benchmarks/two-halls.yaml``), where a row end that moved lengthens some kept cables' cords
(C013's two 5 m cords become 7 m). Per kept cable (a grown fabric cable the work order does
not list), the cords reused are those of its two grown cords whose part is one of its two
standing cords' (the ``cord <m> m <sku>`` pieces at the ends of ``segments``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from planner.cabling import work_order
from tests.plan_folders import cli, read_csv

TWO_HALLS = Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml"
CORD = re.compile(r"cord \S+ m (\S+)")


def test_every_grown_mgmt_cord_stands_or_is_added(grown_dragonfly):
    old, new = grown_dragonfly
    cords = lambda f: read_csv(f, "cables.csv").query("kind == 'mgmt'")  # noqa: E731
    before, after = cords(old), cords(new)
    ends = lambda t: list(zip(t["a_device"], t["a_port"], t["b_device"], t["b_port"],  # noqa: E731
                              t["label"]))
    standing = set(ends(before))
    order = read_csv(new, "work_order.csv")
    rows = order[order["kind"] == "mgmt"]
    added = rows[rows["action"] == "add"]
    assert set(rows["action"]) == {"add"}          # a growth without removal keeps every cord
    new_cords = [e for e in ends(after) if e not in standing]
    assert len(new_cords) > 0 and len(before) > 0
    assert sorted(lab for *_, lab in new_cords) == sorted(added["label"])
    # an add row gives the grown cord's ends as cables.csv has them, its part and cabinet
    by_label = after.set_index("label")
    for r in added.itertuples():
        c = by_label.loc[r.label]
        assert r.new_a.startswith(f"{c.a_device}:mgmt@{c.a_cabinet}")
        assert r.new_b == f"{c.b_device}:{c.b_port}@{c.b_cabinet}-{c.b_ru}"
        assert (r.new_sku, r.cabinet, r.cable_id) == (c.sku, c.a_cabinet, c.cable_id)
        assert r.drain_step == "1" and r.old_a == r.old_b == ""
    growth = json.loads((new / "summary.json").read_text())["growth"]
    assert growth["mgmt_cords"] == {"kept": len(before), "moved": 0, "removed": 0,
                                    "added": len(new_cords)}
    # walked with the cables: steps 1.. in order, hall and cabinet never going back
    assert order["step"].astype(int).tolist() == list(range(1, len(order) + 1))
    cables = order[order["kind"] != "trunk"]
    assert cables["hall"].astype(int).is_monotonic_increasing


def test_a_shrink_removes_the_cords_of_removed_devices(grown_dragonfly, tmp_path):
    """g=9 -> 6 with ``--allow-remove``: three groups go, and the routers after them are
    renamed; a cord is where it stands by its label (both ends' cabinet and unit) and switch
    port. Every standing cord the shrunk plan lacks is a remove or move row, every new one an
    add or move row; one remove per removed router."""
    grown, room = grown_dragonfly[1], grown_dragonfly[1].parent / "room.yaml"
    out = tmp_path / "shrunk"
    assert cli("expand", "--from", grown, "--topology", "dragonfly:a=4,p=2,h=2,g=6",
                "--floor", room, "--out", out, "--allow-remove") == 0
    cords = lambda f: read_csv(f, "cables.csv").query("kind == 'mgmt'")  # noqa: E731
    key = lambda t: set(zip(t["label"], t["b_device"], t["b_port"]))  # noqa: E731
    before, after = key(cords(grown)), key(cords(out))
    order = read_csv(out, "work_order.csv")
    rows = order[order["kind"] == "mgmt"]
    removed = rows[rows["action"] == "remove"]
    assert len(before - after) == len(rows[rows["action"] != "add"]) > 0
    assert set(removed["label"]) <= {lab for lab, *_ in before - after}
    assert sorted(lab for lab, *_ in after - before) == sorted(
        rows[rows["action"] != "remove"]["label"])
    assert (removed["new_a"] == "").all()
    assert (removed["drain_step"] == order["drain_step"].max()).all()
    growth = json.loads((out / "summary.json").read_text())["growth"]
    assert sum(a.startswith("r") for a in removed["old_a"]) == growth["routers_removed"] > 0
    assert growth["mgmt_cords"]["removed"] == len(removed)


def _cords(rows) -> pd.DataFrame:
    """Management cords as cables.csv has them: (device, switch, port, cabinet) rows."""
    return pd.DataFrame({
        "cable_id": [f"M{k:02d}" for k in range(1, len(rows) + 1)],
        "label": [f"{c}-{d}/{s}:{p:02d}" for d, s, p, c in rows], "kind": "mgmt",
        "a_device": [d for d, *_ in rows], "a_port": "mgmt",
        "a_cabinet": [c for *_, c in rows], "a_ru": 39.0,
        "b_device": [s for _, s, _, _ in rows], "b_port": [p for _, _, p, _ in rows],
        "b_cabinet": "A03", "b_ru": 42.0, "sku": "Cat6A UTP LSZH 3 m"})


# standing cords, grown name of each one's device (None: removed), grown cords,
# expected (action, device of the row, old switch port, new switch port)
MGMT = {
    "kept": ([("r1", "mgmt-A03-1", 1, "A01")], ["r1"], [("r1", "mgmt-A03-1", 1, "A01")], []),
    "renamed router kept": ([("r9", "mgmt-A03-1", 1, "A01")], ["r09"],
                            [("r09", "mgmt-A03-1", 1, "A01")], []),
    "switch changes: move": ([("r1", "mgmt-A03-1", 1, "A01")], ["r1"],
                             [("r1", "mgmt-A06-1", 4, "A01")],
                             [("move", "r1", "mgmt-A03-1:1", "mgmt-A06-1:4")]),
    "removed router: remove": ([("r1", "mgmt-A03-1", 1, "A01"), ("r2", "mgmt-A03-1", 2, "A02")],
                               ["r1", None], [("r1", "mgmt-A03-1", 1, "A01")],
                               [("remove", "r2", "mgmt-A03-1:2", "")]),
    "removed box: remove": ([("pdu-A02-A1", "mgmt-A03-1", 3, "A02")], ["pdu-A02-A1"], [],
                            [("remove", "pdu-A02-A1", "mgmt-A03-1:3", "")]),
    "new router: add": ([], [], [("r3", "mgmt-A03-1", 2, "A02")],
                        [("add", "r3", "", "mgmt-A03-1:2")]),
}


@pytest.mark.parametrize("name", MGMT)
def test_mgmt_rows(name):
    old, names, new, expected = MGMT[name]
    rows = work_order.mgmt_rows(_cords(old), _cords(new), names)
    plug = lambda end: end.split("@")[0]  # noqa: E731
    found = [(r.action, (r.old_a or r.new_a).split(":")[0], plug(r.old_b), plug(r.new_b))
             for r in rows.itertuples()]
    assert found == expected
    assert (rows["kind"] == "mgmt").all()


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("order-cords")
    old, grown = base / "old", base / "grown"
    assert cli("plan", "--topology", "dragonfly:a=4,p=2,h=3,g=9", "--floor", TWO_HALLS,
                "--out", old, "--resilience", "off") == 0
    assert cli("expand", "--from", old, "--topology", "dragonfly:a=4,p=2,h=3,g=13",
                "--floor", TWO_HALLS, "--out", grown) == 0
    return old, grown


def _ends(t: pd.DataFrame) -> list:
    return [tuple(sorted([(a, p), (b, q)])) for a, p, b, q in
            zip(t["a_device"], t["a_port"], t["b_device"], t["b_port"])]


def _end_cords(segments: str) -> list[str]:
    found = CORD.findall(segments)
    return [found[0], found[-1]] if found else []


def test_a_kept_cord_is_reused_only_when_its_part_stands(kept):
    old, grown = kept
    before, after = read_csv(old, "cables.csv"), read_csv(grown, "cables.csv")
    order = read_csv(grown, "work_order.csv")
    fabric = after[after["kind"].isin(["network", "endpoint"])]
    kept_rows = fabric[~fabric["cable_id"].isin(order["cable_id"]) & (fabric["segments"] != "")]
    standing = dict(zip(_ends(before), before["segments"]))
    reused, cords, changed = Counter(), Counter(), 0
    for ends, text in zip(_ends(kept_rows), kept_rows["segments"]):
        now = _end_cords(text)
        was = Counter(_end_cords(standing[ends]))       # a kept cable stands with those ends
        cords.update(now)
        same = Counter(now) & was
        reused.update(same)
        changed += len(now) - sum(same.values())
    assert changed >= 2                                 # C013's two cords at least
    # the fibre lines a kept direct cable does not also fill
    direct = set(fabric[(fabric["media"] == "optical") & (fabric["segments"] == "")]["sku"])
    bom = read_csv(grown, "bom_growth.csv")
    lines = bom[(bom["item"] == "fibre") & bom["sku"].isin(set(cords) - direct)]
    assert len(lines) >= 2
    for line in lines.itertuples():
        assert int(line.reused) == reused[line.sku], line.sku
        assert int(line.new) == int(line.quantity) - reused[line.sku]
    c013 = kept_rows[kept_rows["cable_id"] == "C013"]
    assert _end_cords(c013["segments"].iat[0]) == ["OM4-MPO12_7m"] * 2
