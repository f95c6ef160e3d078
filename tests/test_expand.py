"""``planner expand``: a standing plan grown, its cables kept, moved, removed, added, against
counts worked out by hand from the constructions (docs/growth.md).

Each case plans the standing system on a fixed 8 x 24 hot-aisle hall without structured
cabling (so the standing cable routes do not depend on the hall's size), grows it, and reads
back cables.csv, work_order.csv, bom_growth.csv and summary.json. ``expand`` reads none of the
standing plan's failure measures, so the standing plans skip them (``--resilience off``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.plan_folders import cli


ROOM = """extends: hot-aisle
name: room-test
hall:
  rows: 8
  cabinets_per_row: 24
structured_cabling: false
"""

CASES = {
    # Dragonfly a=8, p=4, h=4: g=9 has a·h/(g-1) = 32/8 = 4 global links per group pair,
    # 9·8/2·4 = 144 global + 9·C(8,2) = 252 local network cables and 72·4 = 288 endpoint
    # cables, 684 in all. g=17 has 32/16 = 2 per pair: among the 9 standing groups at most
    # C(9,2)·2 = 72 global links, so 144 - 72 = 72 standing globals must be touched (the
    # lower bound) and 684 - 72 = 612 cables stay (89.5 %: the construction allows no more).
    # Each of the 72 is re-plugged at one end to a new group (16 freed ports per standing
    # group = 8 new groups x 2): 72 moved. Added: the grown plan has 17·28 = 476 local +
    # 17·16/2·2 = 272 global = 748 network cables, less 324 kept and 72 moved = 352; and
    # 64 new routers x 4 = 256 endpoint cables.
    "dragonfly": ("dragonfly:a=8,p=4,h=4,g=9", "dragonfly:a=8,p=4,h=4,g=17",
                  dict(kept=612, moved=72, removed=0, added=608, lower_bound=72,
                       standing=684)),
    # Fat tree k=8 with 4 of its 8 pods: 4 pods x (4 edge x 4 agg) = 64 edge-aggregation and
    # 4 x 4 agg x 4 up-links = 64 aggregation-core cables, 4 x 4 edges x 4 = 64 endpoint
    # cables: 192. Aggregation j's up-links go to cores j·4 .. j·4+3 whatever the pods, so the
    # 4 new pods plug into free core ports: all 192 stay (100 %), 0 touched; added 128
    # network + 64 endpoint cables.
    "fattree": ("fattree:k=8,pods=4", "fattree:k=8",
                dict(kept=192, moved=0, removed=0, added=192, lower_bound=0, standing=192)),
    # Jellyfish 200 routers of degree 10 (p = 10 // 3 = 3): 1,000 network + 600 endpoint
    # cables. Each of the 60 new switches breaks ⌊10/2⌋ = 5 standing links: 300 touched, each
    # re-plugged at one end (moved), 300 new cables for the other ends, 180 endpoint cables:
    # 1,600 - 300 = 1,300 stay (81.25 %).
    "jellyfish": ("jellyfish:routers=200,degree=10", "jellyfish:routers=260,degree=10",
                  dict(kept=1300, moved=300, removed=0, added=480, lower_bound=300,
                       standing=1600)),
    # HyperX S=4x4, p=2: 16 routers of 3 + 3 links, 16·6/2 = 48 network and 32 endpoint
    # cables. S=4x4x2 puts a router at (x, y) at (x, y, 0) with all its links: 80 stay
    # (100 %); the grown 32 routers have 3 + 3 + 1 links: 32·7/2 = 112 network cables, 64
    # added, and 16·2 = 32 endpoint cables: 96 added.
    "hyperx": ("hyperx:S=4x4,p=2", "hyperx:S=4x4x2,p=2",
               dict(kept=80, moved=0, removed=0, added=96, lower_bound=0, standing=80)),
}


@pytest.fixture(scope="module")
def room(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("room") / "room.yaml"
    path.write_text(ROOM)
    return path


@pytest.fixture(scope="module")
def grown(tmp_path_factory, room):
    """(standing folder, grown folder) of every case."""
    out = {}
    base = tmp_path_factory.mktemp("expand")
    for name, (old, new, _) in CASES.items():
        standing, after = base / f"{name}-old", base / f"{name}-new"
        assert cli("plan", "--topology", old, "--catalog", "modern-100g", "--floor", room,
                    "--out", standing, "--strategy", "hint", "--resilience", "off") == 0
        assert cli("expand", "--from", standing, "--topology", new, "--floor", room,
                    "--out", after) == 0
        out[name] = (standing, after)
    return out


def _fabric(folder: Path) -> pd.DataFrame:
    cables = pd.read_csv(folder / "cables.csv", keep_default_na=False, dtype=str)
    return cables[cables["kind"].isin(["network", "endpoint"])]


@pytest.mark.parametrize("name", list(CASES))
def test_counts_match_the_construction(grown, name):
    expect = CASES[name][2]
    standing, after = grown[name]
    growth = json.loads((after / "summary.json").read_text())["growth"]
    cables = growth["cables"]
    assert len(_fabric(standing)) == expect["standing"]
    assert {k: cables[k] for k in ("kept", "moved", "removed", "added")} == {
        k: expect[k] for k in ("kept", "moved", "removed", "added")}
    assert growth["touched_lower_bound"] == expect["lower_bound"]
    touched = growth["touched_network"]
    assert touched <= 1.1 * expect["lower_bound"]
    assert growth["touched_gap"] == touched - expect["lower_bound"]
    assert growth["touch_price"] == 30.0            # the floor's default
    assert growth["labour"] == 30.0 * (cables["moved"] + cables["removed"])
    assert len(_fabric(after)) == expect["kept"] + expect["moved"] + expect["added"]


@pytest.mark.parametrize("name", list(CASES))
def test_untouched_cables_stand_where_they_stood(grown, name):
    """Every standing cable the work order does not name is in the grown cables.csv on the
    same cabinets, rack units and ports."""
    standing, after = grown[name]
    old, new = _fabric(standing), _fabric(after)
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False, dtype=str)
    touched = {e.split("@")[0] for e in pd.concat([order["old_a"], order["old_b"]]) if e}
    ends = ["a_cabinet", "a_ru", "a_port", "b_cabinet", "b_ru", "b_port"]
    strip = lambda d: d.str.lstrip("rn").str.lstrip("0")  # noqa: E731 (r63 and r063)
    key = lambda c: set(zip(strip(c["a_device"]), *(c[e] for e in ends[:3]),  # noqa: E731
                            strip(c["b_device"]), *(c[e] for e in ends[3:])))
    name_of = old["a_device"] + ":" + old["a_port"]
    other = old["b_device"] + ":" + old["b_port"]
    untouched = old[~name_of.isin(touched) & ~other.isin(touched)]
    assert len(untouched) == CASES[name][2]["kept"]
    assert key(untouched) <= key(new)


@pytest.mark.parametrize("name", list(CASES))
def test_new_bom_is_the_grown_bom_less_the_kept_parts(grown, name):
    """bom_growth.csv: new = quantity - reused; the new cables of each part are exactly the
    work order's added cables and moved ones that change part; the standing switches and
    NICs are reused."""
    standing, after = grown[name]
    bom = pd.read_csv(after / "bom_growth.csv", keep_default_na=False)
    assert (bom["new"] == bom["quantity"] - bom["reused"]).all()
    old_summary = json.loads((standing / "summary.json").read_text())
    switch = bom[bom["item"] == "switch"].iloc[0]
    assert switch["reused"] == old_summary["topology"]["routers"]
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False, dtype=str)
    bought = order[(order["action"] == "add") | ((order["action"] == "move")
                                                & (order["old_sku"] != order["new_sku"]))]
    wanted = bought["new_sku"].value_counts()
    cables = bom[bom["item"] == "cable"].set_index("sku")["new"]
    for sku, new in cables.items():
        assert new == wanted.get(sku, 0), sku


def test_work_order_is_in_walking_order(grown):
    _, after = grown["dragonfly"]
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False)
    cabinets = pd.read_csv(after / "cabinets.csv", keep_default_na=False, dtype={"row": str})
    where = {n: (h, r, c) for n, h, r, c in zip(cabinets["name"], cabinets["hall"],
                                                 cabinets["row"].str.rjust(3),
                                                 cabinets["column"])}
    keys = [where[c] for c in order["cabinet"]]
    assert keys == sorted(keys)
    assert list(order["step"]) == list(range(1, len(order) + 1))
    assert set(order["action"]) <= {"add", "move", "remove"}


def _refused(capsys, tmp_path, *argv) -> str:
    out = tmp_path / "out"
    assert cli("expand", *argv, "--out", out) == 2
    assert not out.exists()
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_bad_input(grown, room, tmp_path, capsys):
    standing, _ = grown["dragonfly"]
    err = _refused(capsys, tmp_path, "--from", standing, "--topology",
                   "dragonfly:a=8,p=4,h=4,g=5", "--floor", room)
    assert "shrinks" in err and "--allow-remove" in err
    err = _refused(capsys, tmp_path, "--from", standing, "--topology", "fattree:k=8",
                   "--floor", room)
    assert "dragonfly" in err and "fattree" in err
    # a blocked position where a standing cabinet stands
    cabinet = pd.read_csv(standing / "cabinets.csv", keep_default_na=False,
                          dtype={"row": str}).iloc[0]
    blocked = tmp_path / "blocked.yaml"
    blocked.write_text(ROOM.replace("  cabinets_per_row: 24\n", (
        f"  cabinets_per_row: 24\n  positions:\n    - {{row: {cabinet['row']}, column: "
        f"{cabinet['column']}, kind: blocked, note: a column}}\n")))
    err = _refused(capsys, tmp_path, "--from", standing, "--topology",
                   "dragonfly:a=8,p=4,h=4,g=17", "--floor", blocked)
    assert "blocked" in err and "standing cabinet" in err
    # a cables.csv that contradicts the plan's summary.json
    broken = tmp_path / "broken"
    shutil.copytree(standing, broken)
    lines = (broken / "cables.csv").read_text().splitlines(keepends=True)
    (broken / "cables.csv").write_text("".join(lines[:1] + lines[2:]))
    err = _refused(capsys, tmp_path, "--from", broken, "--topology",
                   "dragonfly:a=8,p=4,h=4,g=17", "--floor", room)
    assert "cables.csv" in err and "summary.json" in err


@pytest.mark.parametrize("name", ["dragonfly", "jellyfish"])
def test_bom_xlsx_lists_only_the_new_parts(grown, name):
    """bom.xlsx as a spreadsheet reads it: the BOM sheet's quantities are the new ones of
    bom_growth.csv (lines with nothing new left out), the "New and reused" sheet holds both."""
    import openpyxl
    _, after = grown[name]
    growth = pd.read_csv(after / "bom_growth.csv", keep_default_na=False)
    book = openpyxl.load_workbook(after / "bom.xlsx", read_only=True, data_only=True)
    rows = list(book["BOM"].iter_rows(values_only=True))
    lines = [r for r in rows[1:rows.index(next(r for r in rows[1:] if r[0] is None))]]
    assert [r[4] for r in lines] == [int(q) for q in growth["new"] if q > 0]
    sheet = list(book["New and reused"].iter_rows(values_only=True))
    assert [(r[3], r[4], r[5]) for r in sheet[1:]] == list(
        zip(growth["quantity"], growth["reused"], growth["new"]))


@pytest.mark.parametrize("name", list(CASES))
def test_verify_after_the_work_order_finds_no_mistake(grown, name, tmp_path):
    """The standing cables.csv as the as-built, the work order applied as an installer
    would (remove, re-plug a moved cable's ends, add), devices called by the grown plan's
    names: ``planner verify`` against the grown plan reports nothing (exit 0)."""
    standing, after = grown[name]
    old = _fabric(standing)
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False, dtype=str)
    order = order[order["kind"] != "mgmt"]           # the fabric's work
    plug = lambda end: tuple(end.split("@")[0].split(":"))  # noqa: E731
    built = {frozenset((plug(a), plug(b)))
             for a, b in zip(old["a_device"] + ":" + old["a_port"] + "@",
                             old["b_device"] + ":" + old["b_port"] + "@")}
    for row in order.itertuples():
        if row.action in ("remove", "move"):
            built.remove(frozenset((plug(row.old_a), plug(row.old_b))))
        if row.action in ("move", "add"):
            built.add(frozenset((plug(row.new_a), plug(row.new_b))))
    new = _fabric(after)
    width = {d[0]: len(d) - 1 for d in pd.concat([new["a_device"], new["b_device"]])}
    rename = lambda dev: dev[0] + str(int(dev[1:])).zfill(width[dev[0]])  # noqa: E731
    observed = tmp_path / "as-built.csv"
    observed.write_text("device,port,peer_device,peer_port\n" + "".join(
        f"{rename(a[0])},{a[1]},{rename(b[0])},{b[1]}\n" for a, b in map(sorted, built)))
    assert cli("verify", "--plan", after, "--observed", observed) == 0


def test_wiring_pdf_has_the_work_order(grown):
    """wiring.pdf's "Work order" pages, as pypdf reads them, name every step's label."""
    from pypdf import PdfReader
    _, after = grown["dragonfly"]
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False, dtype=str)
    text = " ".join(t for t in (p.extract_text() for p in PdfReader(after / "wiring.pdf").pages)
                    if "Work order" in t and "standing ends" in t)
    assert text
    assert all(label in text for label in order["label"])


def test_slim_fly_is_rebuilt_with_the_same_accounting(room, tmp_path):
    """A Slim Fly at a new q cannot grow: the plan says so, rebuilds it, and still keeps the
    cables it can. q=5, p=3: 50 routers, 50·7/2 = 175 network and 150 endpoint cables; every
    router keeps its id and its 3 endpoint ports, so all 150 endpoint cables stay."""
    standing, after = tmp_path / "sf5", tmp_path / "sf7"
    assert cli("plan", "--topology", "slimfly:q=5,p=3", "--catalog", "modern-100g",
                "--floor", room, "--out", standing, "--strategy", "hint", "--resilience",
                "off") == 0
    assert cli("expand", "--from", standing, "--topology", "slimfly:q=7,p=3", "--floor",
                room, "--out", after) == 0
    growth = json.loads((after / "summary.json").read_text())["growth"]
    assert growth["rebuild"] and "cannot grow without a rebuild" in growth["notes"][0]
    cables = growth["cables"]
    assert cables["endpoint"]["kept"] == 150
    assert cables["kept"] + cables["moved"] + cables["removed"] == 175 + 150
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False)
    order = order[order["kind"] != "mgmt"]           # growth.mgmt_cords counts those
    assert order["action"].value_counts().to_dict() == {
        k: cables[v] for k, v in (("add", "added"), ("move", "moved"), ("remove", "removed"))
        if cables[v]}


def test_new_cabinets_keep_off_marked_positions(grown, tmp_path):
    """Rows D and E blocked (the standing Dragonfly stands in rows A-C): no grown cabinet
    stands there, and the standing cables stay as on the open floor (612); the floor's
    touch_price prices the 72 moves."""
    standing, _ = grown["dragonfly"]
    marks = "".join(f"    - {{row: {r}, column: {c}, kind: blocked, note: plant}}\n"
                    for r in "DE" for c in range(1, 25))
    floor = tmp_path / "blocked.yaml"
    floor.write_text(ROOM.replace("  cabinets_per_row: 24\n",
                                  f"  cabinets_per_row: 24\n  positions:\n{marks}")
                     + "touch_price: 45\n")
    after = tmp_path / "grown"
    assert cli("expand", "--from", standing, "--topology", "dragonfly:a=8,p=4,h=4,g=17",
                "--floor", floor, "--out", after) == 0
    cabinets = pd.read_csv(after / "cabinets.csv", keep_default_na=False, dtype={"row": str})
    placed = cabinets[cabinets["kind"] == "cabinet"]
    assert len(placed) == 36 + 64 // 2
    assert not placed["row"].isin(["D", "E"]).any()
    growth = json.loads((after / "summary.json").read_text())["growth"]
    assert growth["cables"]["kept"] == CASES["dragonfly"][2]["kept"]
    assert growth["labour"] == 45 * 72               # the floor's touch_price


def test_shrink_with_allow_remove(grown, room, tmp_path):
    """Dragonfly g=9 -> 5 with --allow-remove: groups 5-8 go (32 routers: 128 endpoint, 4 x 28
    = 112 local and 144 - C(5,2)·4 = 104 global cables at them). The 5 groups left need 32/4 =
    8 links per pair, 80 in all: the 40 standing stay (with the 5 x 28 locals) and 40 cables
    that went to removed groups are re-plugged (moved); 104 - 40 = 64 globals and the 112
    locals are removed. Touched
    network cables 40 + 176 = 216 = the cables at removed routers, the lower bound."""
    standing, _ = grown["dragonfly"]
    after = tmp_path / "shrunk"
    assert cli("expand", "--from", standing, "--topology", "dragonfly:a=8,p=4,h=4,g=5",
                "--floor", room, "--allow-remove", "--out", after) == 0
    growth = json.loads((after / "summary.json").read_text())["growth"]
    assert growth["routers_removed"] == 32
    assert growth["cables"]["network"] == {"kept": 5 * 28 + 40, "moved": 40, "removed": 176,
                                           "added": 0}
    assert growth["cables"]["endpoint"] == {"kept": 160, "moved": 0, "removed": 128,
                                            "added": 0}
    assert growth["touched_network"] == growth["touched_lower_bound"] == 216
