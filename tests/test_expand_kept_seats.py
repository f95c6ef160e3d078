"""``planner expand`` keeps the standing seat of every kept cable (its cross tray too), and
keeps a standing cross-hall chain through pass-through panels that no grown link runs along
as dark spare (or, with ``--allow-remove``, removes it with its ports left empty). Read back
from the plans' cables.csv (``segments``), trunks.csv, work_order.csv and summary.json.

Kept seats: Dragonfly a=4, p=2, h=3, g=9 -> 13 on ``benchmarks/two-halls.yaml``
(``--resilience off``). Both halls grow from 6 to 8 cabinets a row (two rows each), so the
row-end cross tray moves from 0.6 m past column 6 (x = 3.6 m) to 0.6 m past column 8
(x = 4.8 m); the row start's tray stays at x = -0.6 m (pitch 0.6 m, cabinet k at 0.6 (k-1)).
Cable C013 (r02:6 in H1-A04, x = 1.8 m, to r04:3 in H1-B04) stood on the row end's panels
``H1-A-P1-01:001`` / ``H1-B-P1-01:001`` (1.8 m to them against 2.4 m to the row start);
in the grown hall the row start is the nearer (2.4 m against 3.0 m). Cable C102 (r30:8 in
H2-B02, x = 0.6 m, to r32:5 in H2-A06, x = 3.0 m) stood on ``H2-B-P1-01:001`` (detour 0.6 m
against 1.2 m); grown, 1.8 m against 1.2 m. Before, both took the row start's panels and
were re-patched (``touched_network_repatched`` 2). Now both keep their standing panels,
ports and trunk, routed through the row-end tray where the grown hall has it: C013's cords
(0.5 m rise + 3.0 m along) x 1.1 slack = 3.85 m each, its length (3.0 + 3.0 along + 2.4
across + 2 x 0.5) x 1.1 = 10.34 m; C102's cords (0.5 + 4.2) x 1.1 = 5.17 m and
(0.5 + 1.8) x 1.1 = 2.53 m. No kept cable is re-patched.

Dark chains: the same Dragonfly with ``--catalog ndr-400g`` (pass-through panels). Its
standing plan has 4 cross-hall chains: entry front ports F1 (H1-A-P0 to H2-A-P0, 12
positions, on hall trunk R1), F2 (H1-B-P0 to H2-A-P0, 8) and F3 (H1-A-P0 to H2-B-P0, 4),
both on hall trunk R2 (12), and F4 (H1-B-P0 to H2-B-P0, 4) on hall trunk R3 (4). Shrunk to
g=7 (``--allow-remove``), groups 7 and 8 go; group 7 is all of hall 2's row B (H2-B01,
H2-B02), so no grown link runs along F3 or F4. Kept as dark spare (the shrink run with the
standing seats' ``keep_dark`` on, as a growth keeps them): all 11 pass-through trunks stay
with their labels, F3's and F4's with 0 links. With ``--allow-remove`` their four row
trunks go, and so does hall trunk R3, which carries F4 only, while R2 stays for F2: 5
pass-through trunks removed (with the hall 2 row trunk H2-A-P0-01:R1/H2-B-P0-01:R1, 6
``remove`` rows); F1, F2, R1 and R2 keep their labels.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planner.commands import expand
from tests.plan_folders import cli, read_csv

FLOOR = Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml"
PIECE = re.compile(r"cord (\S+) m \S+ \| (\S+):(\d+) \| trunk (T\d+) [^|]*\| (\S+):(\d+) \| "
                   r"cord (\S+) m ")
SPEC = "dragonfly:a=4,p=2,h=3,g={}"


def _growth(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())["growth"]


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("kept")
    out = {k: base / k for k in ("old", "grown")}
    assert cli("plan", "--topology", SPEC.format(9), "--floor", FLOOR, "--out", out["old"],
                "--resilience", "off") == 0
    assert cli("expand", "--from", out["old"], "--topology", SPEC.format(13), "--floor", FLOOR,
                "--out", out["grown"]) == 0
    return out


def _seats(folder: Path) -> dict:
    """Per network cable through one row trunk, by its two router ends: its panel front ports,
    trunk (label, part), cords and length."""
    cables, trunks = read_csv(folder, "cables.csv"), read_csv(folder, "trunks.csv")
    by_id = trunks.set_index("trunk_id")
    out = {}
    for c in cables[cables["kind"] == "network"].itertuples():
        found = PIECE.findall(c.segments)
        if len(found) != 1 or "ENTRY" in found[0][1]:
            continue
        cord_a, pa, fa, tid, pb, fb, cord_b = found[0]
        ends = tuple(sorted([(c.a_device, int(c.a_port)), (c.b_device, int(c.b_port))]))
        out[ends] = dict(seat=(pa, fa, pb, fb, by_id.at[tid, "label"], by_id.at[tid, "sku"]),
                         cords=(float(cord_a), float(cord_b)), length=float(c.length_m))
    return out


def test_every_kept_cable_keeps_its_seat(kept):
    before, now = _seats(kept["old"]), _seats(kept["grown"])
    both = [k for k in before if k in now]
    assert len(both) > 2
    assert [k for k in both if now[k]["seat"] != before[k]["seat"]] == []
    growth = _growth(kept["grown"])
    assert growth["touched_network_repatched"] == 0
    order = read_csv(kept["grown"], "work_order.csv")
    same_ends = order[(order["action"] == "move") & (order["old_a"] == order["new_a"])
                      & (order["old_b"] == order["new_b"])]
    assert same_ends.empty


@pytest.mark.parametrize("ends, panels, cords, length", [
    ((("r02", 6), ("r04", 3)), ("H1-A-P1-01", "H1-B-P1-01"), (3.85, 3.85), 10.34),
    ((("r30", 8), ("r32", 5)), ("H2-B-P1-01", "H2-A-P1-01"), (5.17, 2.53), 10.34)])
def test_a_kept_cable_stays_on_its_row_end_panels(kept, ends, panels, cords, length):
    """The two cables the grown hall's nearer tray would move (module doc) keep the row end's
    panels, routed through the row-end tray where the grown hall has it."""
    before, now = _seats(kept["old"])[ends], _seats(kept["grown"])[ends]
    assert (before["seat"][0], before["seat"][2]) == panels
    assert now["seat"] == before["seat"]
    assert now["cords"] == pytest.approx(cords, abs=1e-9)
    assert now["length"] == pytest.approx(length, abs=1e-9)


def _shrink(base: Path, old: Path, name: str) -> Path:
    out = base / name
    assert cli("expand", "--from", old, "--topology", SPEC.format(7), "--floor", FLOOR,
                "--out", out, "--allow-remove") == 0
    return out


@pytest.fixture(scope="module")
def chains(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("chains")
    old = base / "old"
    assert cli("plan", "--topology", SPEC.format(9), "--floor", FLOOR, "--catalog",
                "ndr-400g", "--out", old, "--resilience", "off") == 0
    out = {"old": old, "removed": _shrink(base, old, "removed")}
    seats = expand.standing_seats
    with pytest.MonkeyPatch.context() as patch:     # the dark spare a growth keeps
        patch.setattr(expand, "standing_seats",
                      lambda *args, **kw: seats(*args, **{**kw, "keep_dark": True}))
        out["dark"] = _shrink(base, old, "dark")
    return out


def _pass_through(folder: Path) -> dict:
    """(label, part) -> links of every trunk to or between hall entries."""
    trunks = read_csv(folder, "trunks.csv")
    return {(lab, sku): int(n) for lab, sku, n in zip(trunks["label"], trunks["sku"],
                                                      trunks["links"]) if "ENTRY" in lab}


UNUSED = ["H1-A-P0-02:R2/H1-ENTRY-01:F3", "H2-ENTRY-01:F3/H2-B-P0-02:R1",
          "H1-B-P0-02:R2/H1-ENTRY-01:F4", "H2-ENTRY-01:F4/H2-B-P0-02:R2"]
ALONE = "H1-ENTRY-01:R3/H2-ENTRY-01:R3"


def test_the_standing_chains_are_as_counted(chains):
    old = _pass_through(chains["old"])
    assert len(old) == 11
    links = {lab: n for (lab, _), n in old.items()}
    assert [links[lab] for lab in UNUSED + [ALONE]] == [4, 4, 4, 4, 4]
    assert links["H1-ENTRY-01:R2/H2-ENTRY-01:R2"] == 8 + 4


def test_a_chain_no_grown_link_runs_along_stays_dark(chains):
    old, dark = _pass_through(chains["old"]), _pass_through(chains["dark"])
    assert set(old) == set(dark)                  # every label and part stays
    unused = {lab: n for (lab, _), n in dark.items() if lab in UNUSED + [ALONE]}
    assert unused == dict.fromkeys(UNUSED + [ALONE], 0)
    order = read_csv(chains["dark"], "work_order.csv")
    assert not ((order["kind"] == "trunk") & order["label"].str.contains("ENTRY")).any()


def test_with_allow_remove_the_unused_chains_go_and_the_others_keep_their_ports(chains):
    old, gone = _pass_through(chains["old"]), _pass_through(chains["removed"])
    assert sorted(lab for lab, _ in set(old) - set(gone)) == sorted(UNUSED + [ALONE])
    assert set(gone) <= set(old)                  # F1, F2, R1, R2 keep their labels
    order = read_csv(chains["removed"], "work_order.csv")
    rows = order[order["kind"] == "trunk"]
    assert (rows["action"] == "remove").all()
    assert sorted(rows["label"]) == sorted(UNUSED + [ALONE, "H2-A-P0-01:R1/H2-B-P0-01:R1"])
    assert _growth(chains["removed"])["trunks_removed"] == 6
    assert _growth(chains["removed"])["touched_network_repatched"] == 0
