"""``planner expand`` on two halls keeps the standing hall trunks (between the hall entries'
LC cassette panels, rear port to rear port) as it keeps the row trunks, and lists a standing
trunk the grown plan no longer uses as a ``remove`` in work_order.csv.

Dragonfly a=4, p=2, h=3 on ``benchmarks/two-halls.yaml`` (``--strategy hint``). The g=5 ->
9 growth of a=4, h=2 stands in hall 1 only (no standing hall trunk), so this grows g=9 -> 13,
whose standing plan spans both halls. By hand, from the two plans' files: the standing plan
has 28 cross-hall links, on two hall trunks H1-ENTRY-01:R1/H2-ENTRY-01:R1 (48-fibre, 24
positions, all used) and H1-ENTRY-01:R2/H2-ENTRY-01:R2 (24-fibre, 12 positions, 4 used, 8
spare). The grown plan has 40 cross-hall links: 24 + 12 = 36 fill the two standing trunks
(the 8 spare positions before any new trunk) and 40 - 36 = 4 take one new 24-fibre trunk.
Shrunk to g=5 with ``--allow-remove``, the row trunks H1-A-P1-01:R1/H1-B-P1-01:R1 and
H2-A-P0-01:R1/H2-B-P0-01:R1 carry nothing: 2 trunks removed.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from planner.cli import main

FLOOR = Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml"
PIECE = re.compile(r"\| (\S+):(\d+) \| trunk (T\d+) [^|]*\| (\S+):(\d+) \|")


def _cli(*argv) -> int:
    return main([str(a) for a in argv])


def _read(folder: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(folder / name, keep_default_na=False, dtype=str)


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("halls")
    out = {k: base / k for k in ("old", "grown", "shrunk")}
    assert _cli("plan", "--topology", "dragonfly:a=4,p=2,h=3,g=9", "--floor", FLOOR,
                "--out", out["old"], "--strategy", "hint") == 0
    assert _cli("expand", "--from", out["old"], "--topology", "dragonfly:a=4,p=2,h=3,g=13",
                "--floor", FLOOR, "--out", out["grown"]) == 0
    assert _cli("expand", "--from", out["old"], "--topology", "dragonfly:a=4,p=2,h=3,g=5",
                "--floor", FLOOR, "--out", out["shrunk"], "--allow-remove") == 0
    return out


def _cross_hall(folder: Path) -> dict:
    """Per cross-hall network cable (through the hall entries), by its two router ends: the
    hall trunk (label, part) and its two entry panel front ports."""
    cables, trunks = _read(folder, "cables.csv"), _read(folder, "trunks.csv")
    by_id = trunks.set_index("trunk_id")
    out = {}
    for c in cables[cables["kind"] == "network"].itertuples():
        found = PIECE.findall(c.segments)
        if len(found) != 1 or "ENTRY" not in found[0][0]:
            continue
        pa, fa, tid, pb, fb = found[0]
        ends = tuple(sorted([(int(c.a_device[1:]), int(c.a_port)),
                             (int(c.b_device[1:]), int(c.b_port))]))
        out[ends] = dict(trunk=(by_id.at[tid, "label"], by_id.at[tid, "sku"]),
                         kind=by_id.at[tid, "kind"], ports={pa: fa, pb: fb})
    return out


def _hall_trunks(folder: Path) -> pd.DataFrame:
    trunks = _read(folder, "trunks.csv")
    return trunks[trunks["kind"] == "hall"]


def test_standing_hall_trunks_are_kept_and_filled_first(plans):
    old, grown = _hall_trunks(plans["old"]), _hall_trunks(plans["grown"])
    standing = set(zip(old["label"], old["sku"]))
    assert standing == {("H1-ENTRY-01:R1/H2-ENTRY-01:R1", "OS2-T48-MPO_50m"),
                        ("H1-ENTRY-01:R2/H2-ENTRY-01:R2", "OS2-T24-MPO_50m")}
    assert standing <= set(zip(grown["label"], grown["sku"]))
    before, now = _cross_hall(plans["old"]), _cross_hall(plans["grown"])
    assert len(before) == 28 and len(now) == 40
    assert all(s["kind"] == "hall" for s in now.values())
    on = [s["trunk"] in standing for s in now.values()]
    # the standing trunks full (24 + 12) before the 4 others take one new trunk
    assert sum(on) == 24 + 12
    new = grown[[(lab, sku) not in standing for lab, sku in zip(grown["label"], grown["sku"])]]
    assert len(new) == 1 and new["links"].astype(int).tolist() == [40 - 36]


def test_kept_cross_hall_cables_keep_their_entry_ports(plans):
    before, now = _cross_hall(plans["old"]), _cross_hall(plans["grown"])
    kept = [k for k in before if k in now]
    assert kept
    for k in kept:
        assert now[k]["trunk"] == before[k]["trunk"], k
        assert now[k]["ports"] == before[k]["ports"], k
    order = _read(plans["grown"], "work_order.csv")
    assert not (order["kind"] == "trunk").any()
    assert json.loads((plans["grown"] / "summary.json").read_text())["growth"][
        "trunks_removed"] == 0


def test_a_shrink_lists_the_unused_trunks_as_removed(plans):
    old, shrunk = _read(plans["old"], "trunks.csv"), _read(plans["shrunk"], "trunks.csv")
    unused = old[[(lab, sku) not in set(zip(shrunk["label"], shrunk["sku"]))
                  for lab, sku in zip(old["label"], old["sku"])]]
    assert sorted(unused["label"]) == ["H1-A-P1-01:R1/H1-B-P1-01:R1",
                                       "H2-A-P0-01:R1/H2-B-P0-01:R1"]
    order = _read(plans["shrunk"], "work_order.csv")
    gone = order[order["kind"] == "trunk"]
    assert (gone["action"] == "remove").all()
    assert sorted(zip(gone["cable_id"], gone["label"], gone["old_sku"])) == sorted(
        zip(unused["trunk_id"], unused["label"], unused["sku"]))
    assert json.loads((plans["shrunk"] / "summary.json").read_text())["growth"][
        "trunks_removed"] == 2
    assert order["step"].astype(int).tolist() == list(range(1, len(order) + 1))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("floor", [None, FLOOR])
def test_a_plan_that_does_not_grow_is_unchanged_by_expand(tmp_path, floor):
    """Expanding a plan to its own topology keeps every cable and trunk: cables.csv and
    trunks.csv come out byte-identical (sha256)."""
    spec = "dragonfly:a=4,p=2,h=2,g=5"
    extra = [] if floor is None else ["--floor", floor]
    old, same = tmp_path / "old", tmp_path / "same"
    assert _cli("plan", "--topology", spec, "--out", old, "--strategy", "hint", *extra) == 0
    assert _cli("expand", "--from", old, "--topology", spec, "--out", same, *extra) == 0
    for name in ("cables.csv", "trunks.csv"):
        if (old / name).exists() or (same / name).exists():
            assert _sha(old / name) == _sha(same / name), name


def test_removed_trunks_are_not_counted_as_removed_cables(plans):
    """summary.json's drain steps count cables: the trunk rows of work_order.csv apart."""
    order = _read(plans["shrunk"], "work_order.csv")
    cables = order[(order["kind"] != "trunk") & (order["action"] == "remove")]
    steps = json.loads((plans["shrunk"] / "summary.json").read_text())["growth"]["drain"]["steps"]
    assert sum(s["removed"] for s in steps) == len(cables)
