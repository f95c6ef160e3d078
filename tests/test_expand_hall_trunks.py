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

Through pass-through panels (``--catalog ndr-400g``: MPO cords, so a cross-hall link takes a
row trunk from its row panel to the hall entry's pass-through panel, a hall trunk between the
two entries' rear ports and a row trunk on to the far row panel), the same a=4, p=2, h=3,
g=9 grown to g=10 (the smallest growth of the smallest Dragonfly whose standing plan has such
chains; a=4, h=2 tops out at g=9). By hand, from the two plans' files: the standing plan has
28 cross-hall links on 4 chains (H1-A-P0 to H2-A-P0: 12 positions, H1-B-P0 to H2-A-P0: 8,
H1-A-P0 to H2-B-P0: 4, H1-B-P0 to H2-B-P0: 4, all full) and 3 hall trunks (12, 8 + 4 and 4
positions, all full): 8 row trunks to the entries + 3 hall trunks = 11 pass-through trunks.
The grown plan has 32 cross-hall links; 19 standing ones keep both ends (9 are re-plugged to
the new group), so the 9 positions they free (4, 2, 1 and 2 in the four chains) take 9 of
the 13 new links, the chains are full again (28), and the other 4 take two new chains (3 and
1 positions, H1-B-P0 to H2-A-P0 and to H2-B-P0) on one new 4-position hall trunk: 11 + 2 x 2
+ 1 = 16 pass-through trunks, the 11 standing ones among them. Before this, the grown plan
kept 4 of the 11 and re-patched 11 of the 19 kept cables.

The same growth on the same halls with ``structured_spare_pct: 25``: each group's spare is
packed as more row trunks, so the standing plan has 4 more chains that carry no link (each
a 1-position entry front port): hall trunks of 12/12, 12/12 and 8/12 positions (4 + 4 x 1),
8 x 2 + 3 = 19 pass-through trunks. Grown: the 19 kept cables keep their seats, 9 new links
refill the 9 freed positions, 2 take the one position of two of the spare chains
(H1-B-P0 to H2-A-P0 and to H2-B-P0), and 2 take a new chain of 4 legs which, with a new
spare chain of 1 position, takes 3 of the third hall trunk's 4 spare positions (it is the
last rear port of both entry panels, so its new front ports renumber none): 30 links on
standing chains, 19 + 2 x 2 = 23 pass-through trunks, no new hall trunk.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from tests.plan_folders import cli, read_csv


FLOOR = Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml"
PIECE = re.compile(r"\| (\S+):(\d+) \| trunk (T\d+) [^|]*\| (\S+):(\d+) \|")


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("halls")
    out = {k: base / k for k in ("old", "grown", "shrunk")}
    assert cli("plan", "--topology", "dragonfly:a=4,p=2,h=3,g=9", "--floor", FLOOR,
                "--out", out["old"], "--strategy", "hint") == 0
    assert cli("expand", "--from", out["old"], "--topology", "dragonfly:a=4,p=2,h=3,g=13",
                "--floor", FLOOR, "--out", out["grown"]) == 0
    assert cli("expand", "--from", out["old"], "--topology", "dragonfly:a=4,p=2,h=3,g=5",
                "--floor", FLOOR, "--out", out["shrunk"], "--allow-remove") == 0
    return out


def _cross_hall(folder: Path) -> dict:
    """Per cross-hall network cable (through the hall entries), by its two router ends: the
    hall trunk (label, part) and its two entry panel front ports."""
    cables, trunks = read_csv(folder, "cables.csv"), read_csv(folder, "trunks.csv")
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
    trunks = read_csv(folder, "trunks.csv")
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
    order = read_csv(plans["grown"], "work_order.csv")
    assert not (order["kind"] == "trunk").any()
    assert json.loads((plans["grown"] / "summary.json").read_text())["growth"][
        "trunks_removed"] == 0


def test_a_shrink_lists_the_unused_trunks_as_removed(plans):
    old, shrunk = read_csv(plans["old"], "trunks.csv"), read_csv(plans["shrunk"], "trunks.csv")
    unused = old[[(lab, sku) not in set(zip(shrunk["label"], shrunk["sku"]))
                  for lab, sku in zip(old["label"], old["sku"])]]
    assert sorted(unused["label"]) == ["H1-A-P1-01:R1/H1-B-P1-01:R1",
                                       "H2-A-P0-01:R1/H2-B-P0-01:R1"]
    order = read_csv(plans["shrunk"], "work_order.csv")
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
    assert cli("plan", "--topology", spec, "--out", old, "--strategy", "hint", *extra) == 0
    assert cli("expand", "--from", old, "--topology", spec, "--out", same, *extra) == 0
    for name in ("cables.csv", "trunks.csv"):
        if (old / name).exists() or (same / name).exists():
            assert _sha(old / name) == _sha(same / name), name


def test_removed_trunks_are_not_counted_as_removed_cables(plans):
    """summary.json's drain steps count cables: the trunk (and management cord) rows of
    work_order.csv apart."""
    order = read_csv(plans["shrunk"], "work_order.csv")
    cables = order[order["kind"].isin(["network", "endpoint"]) & (order["action"] == "remove")]
    steps = json.loads((plans["shrunk"] / "summary.json").read_text())["growth"]["drain"]["steps"]
    assert sum(s["removed"] for s in steps) == len(cables)


PASS = re.compile(r"\| (\S+):(\d+) \| trunk (T\d+) [^|]*\| (\S+):(F\d+\.\d+) \| trunk (T\d+) "
                  r"[^|]*\| (\S+):(F\d+\.\d+) \| trunk (T\d+) [^|]*\| (\S+):(\d+) \|")


def _grow_chains(base: Path, floor: Path) -> dict:
    """Dragonfly a=4, p=2, h=3, g=9 with ndr-400g on ``floor``, grown to g=10 and expanded
    to itself (module doc)."""
    out = {k: base / k for k in ("old", "grown", "same")}
    spec = "dragonfly:a=4,p=2,h=3,g={}"
    assert cli("plan", "--topology", spec.format(9), "--floor", floor, "--catalog",
                "ndr-400g", "--out", out["old"], "--strategy", "hint") == 0
    for name, g in (("grown", 10), ("same", 9)):
        assert cli("expand", "--from", out["old"], "--topology", spec.format(g), "--floor",
                    floor, "--out", out[name]) == 0
    return out


@pytest.fixture(scope="module")
def chains(tmp_path_factory) -> dict:
    return _grow_chains(tmp_path_factory.mktemp("chains"), FLOOR)


@pytest.fixture(scope="module")
def spare_chains(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("spare")
    floor = base / "two-halls-spare.yaml"
    floor.write_text(FLOOR.read_text() + "\nstructured_spare_pct: 25\n")
    return _grow_chains(base, floor)


def _through_entries(folder: Path) -> dict:
    """Per cross-hall network cable through pass-through panels, by its two router ends: its
    seat (the row panel and entry panel front ports and the three trunks' labels and parts,
    whatever the direction) and its chain (the two row trunks' labels)."""
    cables, trunks = read_csv(folder, "cables.csv"), read_csv(folder, "trunks.csv")
    by_id = trunks.set_index("trunk_id")
    name = lambda t: (by_id.at[t, "label"], by_id.at[t, "sku"])  # noqa: E731
    out = {}
    for c in cables[cables["kind"] == "network"].itertuples():
        found = PASS.findall(c.segments)
        if len(found) != 1:
            continue
        pa, fa, ta, ea, xa, th, eb, xb, tb, pb, fb = found[0]
        ends = tuple(sorted([(int(c.a_device[1:]), int(c.a_port)),
                             (int(c.b_device[1:]), int(c.b_port))]))
        out[ends] = dict(seat=frozenset([(pa, fa), (pb, fb), (ea, xa), (eb, xb), name(ta),
                                         name(th), name(tb)]),
                         chain=frozenset([by_id.at[ta, "label"], by_id.at[tb, "label"]]))
    return out


def _pass_through_trunks(folder: Path) -> set:
    trunks = read_csv(folder, "trunks.csv")
    return {(lab, sku) for lab, sku in zip(trunks["label"], trunks["sku"]) if "ENTRY" in lab}


FIGURES = ["standing cross-hall links", "grown cross-hall links", "kept cross-hall links",
           "kept on their standing seat", "standing pass-through trunks",
           "grown pass-through trunks", "standing ones kept", "links on standing chains",
           "links on new chains", "new hall trunks"]


@pytest.mark.parametrize("case, expected", [
    ("chains", [28, 32, 19, 19, 11, 16, 11, 28, 4, 1]),
    ("spare_chains", [28, 32, 19, 19, 19, 23, 19, 30, 2, 0])])
def test_pass_through_chains_keep_their_seats(request, case, expected):
    plans = request.getfixturevalue(case)
    before, now = _through_entries(plans["old"]), _through_entries(plans["grown"])
    kept = [k for k in before if k in now]
    old, grown = _pass_through_trunks(plans["old"]), _pass_through_trunks(plans["grown"])
    labels = {lab for lab, _ in old}
    on_standing = [v["chain"] <= labels for v in now.values()]
    halls = [_hall_trunks(plans[k]) for k in ("old", "grown")]
    measured = {
        "standing cross-hall links": len(before), "grown cross-hall links": len(now),
        "kept cross-hall links": len(kept),
        "kept on their standing seat": sum(now[k]["seat"] == before[k]["seat"] for k in kept),
        "standing pass-through trunks": len(old), "grown pass-through trunks": len(grown),
        "standing ones kept": len(old & grown),
        "links on standing chains": sum(on_standing),
        "links on new chains": len(on_standing) - sum(on_standing),
        "new hall trunks": len(set(zip(halls[1]["label"], halls[1]["sku"]))
                               - set(zip(halls[0]["label"], halls[0]["sku"])))}
    assert [measured[f] for f in FIGURES] == expected


def test_new_cross_hall_links_take_one_new_hall_trunk(chains):
    """The 4 links past the standing chains' 28 positions share one new hall trunk of 4."""
    old, grown = _hall_trunks(chains["old"]), _hall_trunks(chains["grown"])
    new = grown[[(lab, sku) not in set(zip(old["label"], old["sku"]))
                 for lab, sku in zip(grown["label"], grown["sku"])]]
    assert new["links"].astype(int).tolist() == [4]
    assert new["capacity"].astype(int).tolist() == [4]
    order = read_csv(chains["grown"], "work_order.csv")
    assert not (order["kind"] == "trunk").any()


def test_kept_cables_reuse_their_trunks_and_patch_cords(chains):
    """bom_growth.csv: every standing trunk the grown plan has (same label and part) is
    reused, and so are the two patch cords of each cable kept through panels (counted here
    from cables.csv's segments: ``cord <m> m <part> | ... | cord <m> m <part>``), with the
    kept or re-plugged direct fibres of the same part."""
    grown = read_csv(chains["grown"], "cables.csv")
    order = read_csv(chains["grown"], "work_order.csv")
    touched = set(order.loc[order["action"].isin(["move", "add"]), "cable_id"])
    moved_same = set(order.loc[(order["action"] == "move")
                               & (order["old_sku"] == order["new_sku"]), "cable_id"])
    want: dict = {}
    for c in grown[grown["kind"].isin(["network", "endpoint"])].itertuples():
        cords = re.findall(r"cord \S+ m (\S+)", c.segments)
        if cords and c.cable_id not in touched:
            for sku in cords:
                want[sku] = want.get(sku, 0) + 1
        elif not cords and c.media == "optical" and (c.cable_id not in touched
                                                     or c.cable_id in moved_same):
            want[c.sku] = want.get(c.sku, 0) + 1
    old = read_csv(chains["old"], "trunks.csv")
    new_trunks = read_csv(chains["grown"], "trunks.csv")
    stands = set(zip(old["label"], old["sku"]))
    for sku, n in pd.Series([s for lab, s in zip(new_trunks["label"], new_trunks["sku"])
                             if (lab, s) in stands]).value_counts().items():
        want[sku] = want.get(sku, 0) + int(n)
    bom = read_csv(chains["grown"], "bom_growth.csv")
    lines = bom[bom["item"].isin(["fibre", "trunk"])]
    assert sum(want.values()) > 0
    for line in lines.itertuples():
        assert int(line.reused) == min(int(line.quantity), want.get(line.sku, 0)), line.sku
        assert int(line.new) == int(line.quantity) - int(line.reused)
    cords_kept = sum(2 for c in grown.itertuples() if "cord " in c.segments
                     and c.cable_id not in touched)
    assert lines[lines["item"] == "fibre"]["reused"].astype(int).sum() >= cords_kept > 0


@pytest.mark.parametrize("case", ["chains", "spare_chains"])
def test_a_plan_through_pass_through_panels_expanded_to_itself_is_unchanged(request, case):
    plans = request.getfixturevalue(case)
    for name in ("cables.csv", "trunks.csv"):
        assert _sha(plans["old"] / name) == _sha(plans["same"] / name), name
    order = read_csv(plans["same"], "work_order.csv")
    assert order.empty
    bom = read_csv(plans["same"], "bom_growth.csv")
    structured = bom[bom["item"].isin(["fibre", "trunk", "panel"])]
    assert (structured["new"].astype(int) == 0).all()


def test_work_order_ends_name_whole_rack_units(chains):
    """An end reads ``device:port@cabinet-RU`` with a whole rack unit (the standing
    cables.csv read back once gave ``@H1-A01-39.0``)."""
    order = read_csv(chains["grown"], "work_order.csv")
    cables = order[order["kind"].isin(["network", "endpoint"])]
    ends = [e for col in ("old_a", "old_b", "new_a", "new_b") for e in cables[col] if e]
    assert ends
    assert all(re.fullmatch(r"[^:@\s]+:\d+@\S+-\d+", e) for e in ends), ends[:4]


def test_through_names_the_entry_front_ports(chains):
    """work_order.csv's ``through`` of a cross-hall cable through pass-through panels gives
    its row panel and entry front ports and its three trunks, as its cables.csv segments do."""
    order = read_csv(chains["grown"], "work_order.csv")
    cables = read_csv(chains["grown"], "cables.csv").set_index("cable_id")
    rows = order[order["through"].str.contains("ENTRY")]
    assert len(rows)
    for r in rows.itertuples():
        pa, fa, ta, ea, xa, th, eb, xb, tb, pb, fb = PASS.findall(
            cables.at[r.cable_id, "segments"])[0]
        words = r.through.replace(" (standing)", "").split()
        position = xa.split(".")[1]
        assert words == [f"{pa}:{fa}", f"{ta}#{position}", f"{ea}:{xa}", th, f"{eb}:{xb}",
                         f"{tb}#{position}", f"{pb}:{fb}"], r.through
