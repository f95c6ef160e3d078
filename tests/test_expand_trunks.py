"""``planner expand`` on a floor with structured cabling: the work order names, for every moved
or added cable through panels, the panel front ports and the trunk position it takes, as the
grown plan's cables.csv (``segments``) and trunks.csv give them, and marks the trunks the
standing plan already has (same label, same part).

Dragonfly a=4, p=2, h=2 grown from g=5 to g=9 on an 8 x 24 hall with structured cabling.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from planner.cli import main

ROOM = """extends: hot-aisle
name: room-trunks
hall:
  rows: 8
  cabinets_per_row: 24
structured_cabling: true
"""


def _cli(*argv) -> int:
    return main([str(a) for a in argv])


@pytest.fixture(scope="module")
def grown(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("trunks")
    room = base / "room.yaml"
    room.write_text(ROOM)
    standing, after = base / "old", base / "new"
    assert _cli("plan", "--topology", "dragonfly:a=4,p=2,h=2,g=5", "--catalog", "modern-100g",
                "--floor", room, "--out", standing, "--strategy", "hint") == 0
    assert _cli("expand", "--from", standing, "--topology", "dragonfly:a=4,p=2,h=2,g=9",
                "--floor", room, "--out", after) == 0
    return standing, after


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
