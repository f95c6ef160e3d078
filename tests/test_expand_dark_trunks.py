"""``planner expand`` keeps a standing row trunk that every cable on it has left: it stays
installed as dark spare, with its label (so its panels and rear ports), and no standing trunk
after it on its panels changes its rear port. With ``--allow-remove`` it is removed, and its
rear port stays empty. Read back from the plans' trunks.csv, cables.csv (``segments``),
work_order.csv and bom_growth.csv.

Dragonfly a=4, p=2, h=3 grown g=9 -> 13 on ``benchmarks/two-halls.yaml``. By hand, from the two plans' files: the standing row trunk
H2-A-P1-01:R1/H2-B-P1-01:R1 (24 fibres, 2 positions) carries 1 link; the growth re-plugs it
to a new group, and since kept cables keep their cross trays (docs/growth.md) a new link
between the same panel points takes its freed position: the trunk stays, same label, panels,
rear ports and capacity, with 1 link. No growth of this Dragonfly on these halls leaves a
standing row trunk empty, so the dark path is read on the shrink to g=5, hall 2 then standing
empty: run with the standing seats' ``keep_dark`` on (as a growth keeps them), hall 2's two
row trunks (H2-A-P0-01:R1/H2-B-P0-01:R1 and the one above) stay with 0 links and every
standing trunk keeps its label, panels, rear ports and capacity (the shrunk Dragonfly's
regrouped links may add trunks in hall 1); with ``--allow-remove`` (the default for a shrink) they are removed,
and so are hall 2's panels, which carry no trunk left.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planner.commands import expand
from tests.plan_folders import cli, read_csv

FLOOR = Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml"
PIECE = re.compile(r"\| (\S+):(\d+) \| trunk (T\d+) [^|]*\| (\S+):(\d+) \|")
DARK = ("H2-A-P1-01:R1/H2-B-P1-01:R1", "OM4-T24-MPO12_7m")


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("dark")
    out = {k: base / k for k in ("old", "grown", "shrunk")}
    assert cli("plan", "--topology", "dragonfly:a=4,p=2,h=3,g=9", "--floor", FLOOR,
                "--out", out["old"], "--resilience", "off") == 0
    assert cli("expand", "--from", out["old"], "--topology", "dragonfly:a=4,p=2,h=3,g=13",
                "--floor", FLOOR, "--out", out["grown"]) == 0
    assert cli("expand", "--from", out["old"], "--topology", "dragonfly:a=4,p=2,h=3,g=5",
                "--floor", FLOOR, "--out", out["shrunk"], "--allow-remove") == 0
    seats = expand.standing_seats
    with pytest.MonkeyPatch.context() as patch:     # the dark spare a growth keeps
        patch.setattr(expand, "standing_seats",
                      lambda *args, **kw: seats(*args, **{**kw, "keep_dark": True}))
        out["dark"] = base / "dark"
        assert cli("expand", "--from", out["old"], "--topology",
                    "dragonfly:a=4,p=2,h=3,g=5", "--floor", FLOOR, "--out", out["dark"],
                    "--allow-remove") == 0
    return out


def _row_seats(folder: Path) -> dict:
    """Per network cable through one row trunk, by its two router ends: its two panels, the
    front port at each and the trunk (label, part)."""
    cables, trunks = read_csv(folder, "cables.csv"), read_csv(folder, "trunks.csv")
    by_id = trunks.set_index("trunk_id")
    out = {}
    for c in cables[cables["kind"] == "network"].itertuples():
        found = PIECE.findall(c.segments)
        if len(found) != 1 or "ENTRY" in found[0][0]:
            continue
        pa, fa, tid, pb, fb = found[0]
        ends = tuple(sorted([(int(c.a_device[1:]), int(c.a_port)),
                             (int(c.b_device[1:]), int(c.b_port))]))
        out[ends] = dict(panels=frozenset((pa, pb)), ports={pa: fa, pb: fb},
                         trunk=(by_id.at[tid, "label"], by_id.at[tid, "sku"]))
    return out


def _points(label: str) -> frozenset:
    """The two panel points of a trunk label (``H2-A-P1-01:R1/H2-B-P1-01:R1``)."""
    return frozenset(end.split(":")[0].rsplit("-", 1)[0] for end in label.split("/"))


def test_the_re_plugged_trunk_stays_and_is_refilled(plans):
    old, grown = read_csv(plans["old"], "trunks.csv"), read_csv(plans["grown"], "trunks.csv")
    was = old[(old["label"] == DARK[0]) & (old["sku"] == DARK[1])]
    now = grown[(grown["label"] == DARK[0]) & (grown["sku"] == DARK[1])]
    cols = ["a_panel", "a_port", "b_panel", "b_port", "capacity", "links"]
    assert was[cols].values.tolist() == now[cols].values.tolist() == [
        ["H2-A-P1-01", "R1", "H2-B-P1-01", "R1", "2", "1"]]
    # every standing trunk keeps its label and part: none is removed, none renumbered
    assert set(zip(old["label"], old["sku"])) <= set(zip(grown["label"], grown["sku"]))
    order = read_csv(plans["grown"], "work_order.csv")
    assert not (order["kind"] == "trunk").any()
    growth = json.loads((plans["grown"] / "summary.json").read_text())["growth"]
    assert growth["trunks_removed"] == 0


def test_an_emptied_trunk_stays_as_dark_spare(plans):
    old, dark = read_csv(plans["old"], "trunks.csv"), read_csv(plans["dark"], "trunks.csv")
    emptied = {"H2-A-P0-01:R1/H2-B-P0-01:R1", DARK[0]}
    # no kept link runs between the panel points of hall 2's rows: hall 2 stands empty
    assert not [s for s in _row_seats(plans["dark"]).values()
                if any(p.startswith("H2-") for p in s["panels"])]
    cols = ["label", "sku", "a_panel", "a_port", "b_panel", "b_port", "capacity"]
    stands = {tuple(row) for row in dark[cols].values.tolist()}
    assert [row for row in old[cols].values.tolist() if tuple(row) not in stands] == []
    links = dict(zip(dark["label"], dark["links"].astype(int)))
    assert {lab: links[lab] for lab in emptied} == dict.fromkeys(emptied, 0)
    order = read_csv(plans["dark"], "work_order.csv")
    assert not (order["kind"] == "trunk").any()


def test_the_dark_trunk_is_reused_and_spare(plans):
    grown = read_csv(plans["grown"], "trunks.csv")
    old = read_csv(plans["old"], "trunks.csv")
    stands = set(zip(old["label"], old["sku"]))
    same = sum((lab, sku) in stands and sku == DARK[1]
               for lab, sku in zip(grown["label"], grown["sku"]))
    bom = read_csv(plans["grown"], "bom_growth.csv")
    line = bom[(bom["item"] == "trunk") & (bom["sku"] == DARK[1])]
    assert int(line["reused"].iloc[0]) == same >= 1
    summary = json.loads((plans["grown"] / "summary.json").read_text())
    figures = summary["structured"]
    capacity = grown["capacity"].astype(int).sum()
    carried = grown["links"].astype(int).sum()
    assert figures["trunk_link_capacity"] == capacity
    assert figures["trunk_spare_share"] == round(1 - carried / capacity, 4)


def test_kept_cables_between_the_same_panels_keep_their_seats(plans):
    """A kept cable (same router ends) whose grown route lands on the same two panels keeps
    its front ports and trunk; the re-patched moves of the work order are the kept cables
    whose route changes panels (another cross tray), none of a shifted trunk."""
    before, now = _row_seats(plans["old"]), _row_seats(plans["grown"])
    kept = [k for k in before if k in now]
    assert kept
    moved_panels = 0
    for k in kept:
        if now[k]["panels"] == before[k]["panels"]:
            assert now[k]["ports"] == before[k]["ports"], k
            assert now[k]["trunk"] == before[k]["trunk"], k
        else:
            moved_panels += 1
    growth = json.loads((plans["grown"] / "summary.json").read_text())["growth"]
    order = read_csv(plans["grown"], "work_order.csv")
    repatched = order[(order["action"] == "move") & (order["old_a"] == order["new_a"])
                      & (order["old_b"] == order["new_b"])]
    assert growth["touched_network_repatched"] == len(repatched) == moved_panels


def test_with_allow_remove_the_emptied_trunks_go_and_no_empty_panel_stays(plans):
    old, shrunk = read_csv(plans["old"], "trunks.csv"), read_csv(plans["shrunk"], "trunks.csv")
    gone = old[[(lab, sku) not in set(zip(shrunk["label"], shrunk["sku"]))
                for lab, sku in zip(old["label"], old["sku"])]]
    assert {lab for lab in gone["label"] if lab.startswith("H2-")} == {
        "H2-A-P0-01:R1/H2-B-P0-01:R1", DARK[0]}
    order = read_csv(plans["shrunk"], "work_order.csv")
    assert sorted(order.loc[order["kind"] == "trunk", "label"]) == sorted(gone["label"])
    # every panel of the shrunk plant carries a trunk: hall 2's are gone with its trunks
    ends = set(shrunk["a_panel"]) | set(shrunk["b_panel"])
    assert not [p for p in ends if p.startswith("H2-") and "ENTRY" not in p]
    summary = json.loads((plans["shrunk"] / "summary.json").read_text())
    assert summary["structured"]["panels"] == len(ends)
