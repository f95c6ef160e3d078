"""``planner expand`` grows a standing cross-hall chain's entry front port (pass-through
panels) into the spare positions after it on its hall trunk, so new links take the standing
row trunks' spare legs before any new trunk is laid, and no kept cable moves. Read back from
the two plans' trunks.csv, cables.csv (``segments``) and netbox/devices.csv.

Dragonfly a=4, p=2, h=3, g=11 with ``--catalog ndr-400g`` on ``benchmarks/two-halls.yaml``
laid out with ``structured_spare_pct: 25``, grown to g=12 on the same halls without spare
(the benchmark floor as it is), so only links are placed. By hand, from the standing plan's
files: the chain from H1-A-P0 to H2-B-P0 is the row trunks H1-A-P0-02:R2/H1-ENTRY-01:F8 and
H2-ENTRY-01:F8/H2-B-P0-02:R1 (96 fibres: 8 legs each) with 6 links on positions 1..6 of
front port F8 (6 positions) of both entry panels, on hall trunk
H1-ENTRY-01:R4/H2-ENTRY-01:R4 (8 legs), the last rear port of both entry panels
(``R12F10F1F1 R12F9F3 R12F7F5 R8F6F2``): F8 is followed by F9, 2 free positions no trunk
ends on. The grown Dragonfly has 8 links between those two row panel points: the 6 standing
ones keep positions 1..6 and the 2 new ones take positions 7 and 8 (F8 grows to 8
positions, F9 is gone: nothing after it to renumber), so no new trunk runs between H1-A-P0
and H2-B-P0 (before, F8 stayed at 6 positions and the 2 links took a new chain of two
24-fibre row trunks on F9); the hall trunk carries 8. The standing plan has 32 cross-hall
links, the grown one 36, 27 of them standing ones that keep both ends (the 6 on F8 among
them): every standing pass-through trunk stays (same label and part), each of the 27 keeps
its entry front ports, positions and trunks, and the grown plant adds 3 pass-through trunks
(a 1-link chain from H1-A-P0 to H2-A-P0 on a new 2-leg hall trunk), not 5: bom_growth.csv
buys two 7 m and one 50 m 24-fibre trunks and nothing else of trunks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from tests.plan_folders import cli, read_csv


FLOOR = Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml"
ENTRY = re.compile(r"\| (H\d-ENTRY-\d+):F(\d+)\.(\d+) \|")
PANELS = re.compile(r"\| (H\d-[A-Z]-P\d+)-\d+:\d+ \|")
TRUNK = re.compile(r"trunk (T\d+)")
CHAIN = ("H1-A-P0-02:R2/H1-ENTRY-01:F8", "H2-ENTRY-01:F8/H2-B-P0-02:R1")
HALL = "H1-ENTRY-01:R4/H2-ENTRY-01:R4"


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("entry")
    spare = base / "two-halls-spare.yaml"
    spare.write_text(FLOOR.read_text() + "\nstructured_spare_pct: 25\n")
    out = {k: base / k for k in ("old", "grown")}
    spec = "dragonfly:a=4,p=2,h=3,g={}"
    assert cli("plan", "--topology", spec.format(11), "--floor", spare, "--catalog",
                "ndr-400g", "--out", out["old"], "--strategy", "hint",
                "--resilience", "off") == 0
    assert cli("expand", "--from", out["old"], "--topology", spec.format(12), "--floor",
                FLOOR, "--out", out["grown"]) == 0
    return out


def _through_entries(folder: Path) -> dict:
    """Per cross-hall network cable through the entry panels, by its two router ends: its
    row panel points, its (entry panel, front port, position) pairs and its trunks' labels."""
    cables, trunks = read_csv(folder, "cables.csv"), read_csv(folder, "trunks.csv")
    label = dict(zip(trunks["trunk_id"], trunks["label"]))
    out = {}
    for c in cables[cables["kind"] == "network"].itertuples():
        entries = ENTRY.findall(c.segments)
        if not entries:
            continue
        ends = tuple(sorted([(int(c.a_device[1:]), int(c.a_port)),
                             (int(c.b_device[1:]), int(c.b_port))]))
        out[ends] = dict(points=frozenset(PANELS.findall(c.segments)),
                         entries=frozenset((p, int(f), int(k)) for p, f, k in entries),
                         trunks=frozenset(label[t] for t in TRUNK.findall(c.segments)))
    return out


def _entry_layout(folder: Path, panel: str) -> str:
    devices = read_csv(folder / "netbox", "devices.csv").set_index("name")
    return re.search(r" ((?:R\d+(?:F\d+)* ?)+) pass-through$",
                     devices.at[panel, "device_type"]).group(1)


def _on_path(links: dict) -> list:
    return [v for v in links.values() if v["points"] == {"H1-A-P0", "H2-B-P0"}]


def test_the_standing_chain_has_spare_legs_after_its_front_port(plans):
    trunks = read_csv(plans["old"], "trunks.csv").set_index("label")
    assert [int(trunks.at[t, "capacity"]) for t in CHAIN] == [8, 8]
    assert [int(trunks.at[t, "links"]) for t in CHAIN + (HALL,)] == [6, 6, 6]
    assert int(trunks.at[HALL, "capacity"]) == 8
    for panel in ("H1-ENTRY-01", "H2-ENTRY-01"):
        assert _entry_layout(plans["old"], panel) == "R12F10F1F1 R12F9F3 R12F7F5 R8F6F2"
    path = _on_path(_through_entries(plans["old"]))
    assert sorted(k for v in path for p, f, k in v["entries"] if p == "H1-ENTRY-01") == [
        1, 2, 3, 4, 5, 6]
    assert all({f for _, f, _ in v["entries"]} == {8} for v in path)


def test_new_links_take_the_spare_legs_and_no_new_trunk(plans):
    old, grown = read_csv(plans["old"], "trunks.csv"), read_csv(plans["grown"], "trunks.csv")
    path = _on_path(_through_entries(plans["grown"]))
    assert len(path) == 8
    assert all({f for _, f, _ in v["entries"]} == {8} and v["trunks"] >= set(CHAIN) | {HALL}
               for v in path)
    assert sorted(k for v in path for p, f, k in v["entries"] if p == "H2-ENTRY-01") == list(
        range(1, 9))
    now = grown.set_index("label")
    assert [int(now.at[t, "links"]) for t in CHAIN + (HALL,)] == [8, 8, 8]
    for panel in ("H1-ENTRY-01", "H2-ENTRY-01"):
        assert _entry_layout(plans["grown"], panel) == "R12F10F1F1 R12F9F3 R12F7F5 R8F8 R2F1F1"
    new = grown[~grown["label"].isin(set(old["label"]))]
    through = new[new["label"].str.contains("ENTRY")]
    assert len(through) == 3
    points = {re.match(r"(H\d-[A-Z]-P\d+)-", p).group(1)
              for p in pd.concat([through["a_panel"], through["b_panel"]])
              if "ENTRY" not in p}
    assert points == {"H1-A-P0", "H2-A-P0"}
    bom = read_csv(plans["grown"], "bom_growth.csv")
    bought = bom[(bom["item"] == "trunk") & (bom["new"].astype(int) > 0)]
    assert dict(zip(bought["sku"], bought["new"].astype(int))) == new["sku"].value_counts(
        ).to_dict() == {"OS2-T24-MPO12-APC_7m": 2, "OS2-T24-MPO12-APC_50m": 1}


def test_every_standing_trunk_and_kept_cable_keeps_its_seat(plans):
    old, grown = read_csv(plans["old"], "trunks.csv"), read_csv(plans["grown"], "trunks.csv")
    assert set(zip(old["label"], old["sku"])) <= set(zip(grown["label"], grown["sku"]))
    before, now = _through_entries(plans["old"]), _through_entries(plans["grown"])
    kept = [k for k in before if k in now]
    assert (len(before), len(now), len(kept)) == (32, 36, 27)
    for k in kept:
        assert now[k]["entries"] == before[k]["entries"], k
        assert now[k]["trunks"] == before[k]["trunks"], k
    growth = json.loads((plans["grown"] / "summary.json").read_text())["growth"]
    assert growth["touched_network_repatched"] == 0


def _ended(panel: str, ports: list) -> pd.DataFrame:
    """A trunks.csv with a row trunk ending on each front port of ``ports`` of ``panel``."""
    return pd.DataFrame({"a_panel": ["H1-A-P0-02"] * len(ports), "a_port": ["R1"] * len(ports),
                         "b_panel": [panel] * len(ports), "b_port": [f"F{n}" for n in ports]})


@pytest.mark.parametrize("layout, ended, port, expected", [
    # the last chain on the panel's last rear port grows into all of the free port after it
    ("R12F12 R8F6F2", [1, 2], 2, (2, 6, 2)),
    # on an earlier rear port the free port keeps one position: F4 keeps its number
    ("R12F9F3 R12F12", [1, 3], 1, (1, 9, 2)),
    ("R12F9F3 R12F12", [1, 3], 3, (2, 12, 0)),
    # a chain followed by another chain's front port does not grow
    ("R12F4F1F1F6", [1, 2, 3], 2, (1, 1, 0)),
    ("R12F4F1F1F6", [1, 2, 3], 3, (1, 1, 6)),
    # a one-position free port on an earlier rear port offers nothing
    ("R12F11F1 R4F4", [1, 3], 1, (1, 11, 0)),
])
def test_a_front_port_grows_only_where_no_port_is_renumbered(layout, ended, port, expected):
    from planner.commands.expand import _entry_fronts
    groups = [(int(g.split("F")[0][1:]), [int(k) for k in g.split("F")[1:]])
              for g in layout.split()]
    fronts = _entry_fronts({"H1-ENTRY-01": groups}, _ended("H1-ENTRY-01", ended))
    assert fronts[("H1-ENTRY-01", port)] == expected


def test_the_front_port_size_is_read_from_the_entry_panels(plans):
    """An earlier growth may leave a front port's last positions empty: with the entry
    panels' layouts F8 still has 6 positions (and may grow to 8), read from the cables alone
    it would be 5, the largest position a cable takes."""
    import numpy as np

    from planner.commands.expand import _pass_through_chains, entry_layouts
    trunks, cables = read_csv(plans["old"], "trunks.csv"), read_csv(plans["old"], "cables.csv")
    net = cables[(cables["kind"] == "network")
                 & ~cables["segments"].str.contains("H1-ENTRY-01:F8.6 ", regex=False)]
    assert len(net) == (cables["kind"] == "network").sum() - 1
    same = np.arange(len(cables))
    for layouts, expected in ((entry_layouts(plans["old"]), (6, 8)), ({}, (5, 5))):
        _, chains = _pass_through_chains(trunks, net, same, layouts)
        chain = next(c for c in chains if c["a"]["label"] == CHAIN[0])
        assert (chain["size"], chain["room"]) == expected
        assert chain["hall"][0] == HALL
