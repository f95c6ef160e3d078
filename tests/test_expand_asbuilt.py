"""``planner expand`` from what is installed (docs/growth.md "Growing what is installed").

One small standing Dragonfly (a=4, p=2, h=2, g=5: 20 routers, 50 network and 40 host cables)
is planned once per module on a fixed hall and grown to g=9 from its plan alone; its as-built
files are written from its cables.csv the way ``tests/test_verify.py`` writes them (CSV, lldpctl
JSON, ibnetdiscover). Grown from the plan checked against a matching as-built, and from the
as-built with a floor naming the switches in their positions (no plan), it must give the same
grown plan and work order; an as-built that contradicts the plan is refused with one line and
nothing written. A Jellyfish grows from the as-built of a random regular graph the planner never
saw. After the work order is applied to the as-built, ``planner verify`` of the grown plan finds
nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest
import yaml

from planner.verify import verify
from tests.plan_folders import cli
from tests.test_verify import write_csv, write_ibnetdiscover, write_lldp_map

ROOM = {"extends": "hot-aisle", "name": "room-asbuilt",
        "hall": {"rows": 8, "cabinets_per_row": 24}, "structured_cabling": False}
OLD, NEW = "dragonfly:a=4,p=2,h=2,g=5", "dragonfly:a=4,p=2,h=2,g=9"
# g=5 -> 9: a·h/(g'-1) = 8/8 = 1 global link per group pair; the 5 standing groups keep
# C(5,2) x 1 = 10 of their 5·4·2/2 = 20 global cables, so 10 are touched (the lower bound),
# each re-plugged at one end to a new group (moved). Kept: 30 local + 10 global + 40 host
# cables = 80. Added: the grown 9·6 = 54 local + 36 global = 90 network cables less 80 - 40
# kept and 10 moved = 40, and 16 new routers x 2 hosts = 32: 72.
COUNTS = dict(kept=80, moved=10, removed=0, added=72)


def _fabric(folder: Path) -> pd.DataFrame:
    cables = pd.read_csv(folder / "cables.csv", keep_default_na=False, dtype=str)
    return cables[cables["kind"].isin(["network", "endpoint"])].reset_index(drop=True)


def _links(cables: pd.DataFrame) -> list:
    return [((a, int(p)), (b, int(q))) for a, p, b, q in zip(
        cables["a_device"], cables["a_port"], cables["b_device"], cables["b_port"])]


def _floor_with_devices(room: dict, cables: pd.DataFrame, rename=lambda d: d) -> dict:
    """The room with one occupied position per standing cabinet naming its switches."""
    where = {}
    for side in ("a", "b"):
        for dev, cab in zip(cables[f"{side}_device"], cables[f"{side}_cabinet"]):
            if dev.startswith("r"):
                where.setdefault(cab, set()).add(rename(dev))
    floor = json.loads(json.dumps(room))
    floor["hall"]["positions"] = [
        {"row": cab.rstrip("0123456789"), "column": int(cab.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")),
         "kind": "occupied", "devices": sorted(devs)} for cab, devs in sorted(where.items())]
    return floor


def _counts(folder: Path) -> dict:
    cables = json.loads((folder / "summary.json").read_text())["growth"]["cables"]
    return {k: cables[k] for k in COUNTS}


def _tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def standing(tmp_path_factory):
    """(workspace, standing plan folder, its fabric cables, the plan-only growth folder)."""
    base = tmp_path_factory.mktemp("asbuilt")
    room = base / "room.yaml"
    room.write_text(yaml.safe_dump(ROOM))
    old, grown = base / "old", base / "grown-from-plan"
    assert cli("plan", "--topology", OLD, "--catalog", "modern-100g", "--floor", room,
                "--out", old, "--strategy", "hint") == 0
    assert cli("expand", "--from", old, "--topology", NEW, "--floor", room,
                "--out", grown) == 0
    return base, room, old, _fabric(old), grown


WRITERS = {
    "csv": lambda links, base: write_csv(links, base / "asbuilt.csv", per_end=False),
    "lldp": lambda links, base: write_lldp_map(links, base / "lldp.json"),
    "ibnetdiscover": lambda links, base: write_ibnetdiscover(links, base / "fabric.txt"),
}


@pytest.mark.parametrize("fmt", ["csv", "ibnetdiscover"])     # lldp: the test of (c)
def test_matching_as_built_grows_as_the_plan(standing, tmp_path, fmt):
    """(a) An as-built that matches the plan: the grown plan and work order of the plan."""
    _, room, old, fabric, grown = standing
    as_built = WRITERS[fmt](_links(fabric), tmp_path)
    out = tmp_path / "grown"
    assert cli("expand", "--from", old, "--as-built", as_built, "--topology", NEW,
                "--floor", room, "--out", out) == 0
    assert (out / "work_order.csv").read_text() == (grown / "work_order.csv").read_text()
    assert (out / "cables.csv").read_text() == (grown / "cables.csv").read_text()
    assert _counts(out) == _counts(grown) == COUNTS
    assert json.loads((out / "summary.json").read_text())["growth"]["as_built"] == str(as_built)


def test_switch_only_as_built_is_checked_on_the_network_cables(standing, tmp_path):
    """LLDP of the switches alone (no host links) is compared on the network cables only."""
    _, room, old, fabric, grown = standing
    net = fabric[fabric["kind"] == "network"]
    as_built = write_csv(_links(net), tmp_path / "switches.csv", per_end=True)
    out = tmp_path / "grown"
    assert cli("expand", "--from", old, "--as-built", as_built, "--topology", NEW,
                "--floor", room, "--out", out) == 0
    assert (out / "work_order.csv").read_text() == (grown / "work_order.csv").read_text()


def _moved(links):
    (a, pa), b = links[0]
    return [((a, pa + 20), b)] + links[1:]


def _foreign(links):
    (a, pa), b = links[0]
    return links + [(("sw-unknown", 1), (a, 30))]


def _swapped(links):
    (a, b), (c, d) = links[0], links[1]
    return [(a, d), (c, b)] + links[2:]


CONTRADICTIONS = {
    # change, the finding verify reports first
    "cable-on-other-port": (_moved, "wrong-port"),
    "missing-link": (lambda links: links[1:], "missing"),
    "device-the-plan-lacks": (_foreign, "extra"),
    "two-ends-swapped": (_swapped, "swap"),
}


@pytest.mark.parametrize("case", list(CONTRADICTIONS))
def test_contradicting_as_built_is_refused(standing, tmp_path, capsys, case):
    """(b) exit 2, one line naming the first contradiction, the count and the fix; nothing
    written, the standing plan untouched."""
    _, room, old, fabric, _ = standing
    change, kind = CONTRADICTIONS[case]
    as_built = write_csv(change(_links(fabric)), tmp_path / "asbuilt.csv", per_end=False)
    before = _tree(old)
    capsys.readouterr()
    out = tmp_path / "grown"
    assert cli("expand", "--from", old, "--as-built", as_built, "--topology", NEW,
                "--floor", room, "--out", out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "contradicts the plan" in err and f"the first {kind}" in err
    assert "1 finding(s)" in err or "2 finding(s)" in err
    assert "planner verify --plan" in err and "without --from" in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["asbuilt.csv"]
    assert _tree(old) == before


def _rename(dev: str) -> str:
    """Names a DCIM might give: r07 -> sw8, n12 -> host-12."""
    return f"sw{int(dev[1:]) + 1}" if dev.startswith("r") else f"host-{int(dev[1:])}"


@pytest.fixture(scope="module")
def foreign(standing):
    """The standing Dragonfly as a system the planner did not design: switches and hosts
    renamed, its as-built in LLDP, a floor naming the switches in their positions, grown with
    no plan folder."""
    base, _, _, fabric, _ = standing
    links = [((_rename(a), p), (_rename(b), q)) for (a, p), (b, q) in _links(fabric)]
    as_built = write_lldp_map(links, base / "foreign-lldp.json")
    floor = base / "foreign-floor.yaml"
    floor.write_text(yaml.safe_dump(_floor_with_devices(ROOM, fabric, _rename)))
    out = base / "grown-from-as-built"
    assert cli("expand", "--as-built", as_built, "--floor", floor, "--topology", NEW,
                "--catalog", "modern-100g", "--out", out) == 0
    return as_built, out


def test_as_built_alone_grows_as_the_plan(standing, foreign):
    """(c) No plan: the same kept/moved/removed/added, the same grown cables, the same work
    (actions, cables and grown ends), the standing ends under the switches' new names."""
    _, _, _, _, grown = standing
    _, out = foreign
    assert _counts(out) == _counts(grown) == COUNTS
    # the fabric's cables; the management cords differ: from the plan the standing management
    # switches stay where they stand, an as-built names none (docs/growth.md)
    cables = [pd.read_csv(f / "cables.csv", keep_default_na=False, dtype=str) for f in (out, grown)]
    assert cables[0][cables[0]["kind"] != "mgmt"].equals(cables[1][cables[1]["kind"] != "mgmt"])
    mine = pd.read_csv(out / "work_order.csv", keep_default_na=False, dtype=str)
    plans = pd.read_csv(grown / "work_order.csv", keep_default_na=False, dtype=str)
    # the fabric's rows in the same walking order (the plan's work order lists its management
    # cords too, walked in among them)
    assert (mine["kind"] != "mgmt").all()
    plans = plans[plans["kind"] != "mgmt"].reset_index(drop=True)
    same = ["action", "cable_id", "label", "kind", "new_a", "new_b", "new_sku", "cabinet"]
    assert mine[same].equals(plans[same])
    end = lambda s: s.str.split("@").str[0]       # noqa: E731  (the as-built knows no RU)
    assert end(mine["old_a"]).equals(end(plans["old_a"]))
    names = pd.read_csv(out / "as_built_names.csv", keep_default_na=False, dtype=str)
    assert dict(zip(names["device"], names["as_built_name"]))["r07"] == "sw8"
    assert len(names) == 20 + 40
    growth = json.loads((out / "summary.json").read_text())["growth"]
    assert growth["touched_network"] == growth["touched_lower_bound"] == 10


def _applied(links: list, order: pd.DataFrame) -> list:
    """The as-built links after the work order: removed and moved cables out, the grown ends
    of moved and added cables in."""
    def end(text):
        dev, port = text.split("@")[0].rsplit(":", 1)
        return dev, int(port)
    gone = {frozenset((end(a), end(b))) for a, b in zip(order["old_a"], order["old_b"]) if a}
    kept = [link for link in links if frozenset(link) not in gone]
    return kept + [(end(a), end(b)) for a, b in zip(order["new_a"], order["new_b"]) if a]


def test_verify_after_the_work_order_finds_nothing(standing, foreign, tmp_path):
    """(e) The as-built with the work order applied matches the grown plan: from the plan and,
    with the names of as_built_names.csv, from the as-built alone."""
    _, _, _, fabric, grown = standing
    order = pd.read_csv(grown / "work_order.csv", keep_default_na=False, dtype=str)
    order = order[order["kind"] != "mgmt"]           # the fabric's work
    after = write_csv(_applied(_links(fabric), order), tmp_path / "after.csv", per_end=True)
    report = verify(grown, after)
    assert report.ok and report.matched == len(_fabric(grown))
    _, out = foreign
    names = pd.read_csv(out / "as_built_names.csv", keep_default_na=False, dtype=str)
    planner_name = dict(zip(names["as_built_name"], names["device"]))
    links = [((planner_name[_rename(a)], p), (planner_name[_rename(b)], q))
             for (a, p), (b, q) in _links(fabric)]
    order = pd.read_csv(out / "work_order.csv", keep_default_na=False, dtype=str)
    after = write_csv(_applied(links, order), tmp_path / "after-foreign.csv", per_end=False)
    report = verify(out, after)
    assert report.ok and report.matched == len(_fabric(out))


def test_jellyfish_grows_from_a_random_regular_graph(standing, tmp_path):
    """(d) 16 switches of a random 4-regular graph (32 links), one host each on port 1, links
    on ports 2..5, grown to 20: each new switch breaks ⌊4/2⌋ = 2 standing links (NSDI'12
    §4.2), so 4 x 2 = 8 are moved, 24 of 32 network and all 16 host cables stay; added: 4 x 4
    = 16 new-switch links less the 8 moved, and 4 hosts."""
    _, room, _, _, _ = standing
    graph = nx.random_regular_graph(4, 16, seed=7)
    next_port = {u: 2 for u in graph}
    links = []
    for u, v in sorted(graph.edges()):
        links.append(((f"tor{u + 1}", next_port[u]), (f"tor{v + 1}", next_port[v])))
        next_port[u] += 1
        next_port[v] += 1
    links += [((f"tor{u + 1}", 1), (f"node{u + 1}", 1)) for u in graph]
    as_built = write_csv(links, tmp_path / "jelly.csv", per_end=True)
    floor = yaml.safe_load(room.read_text())
    floor["hall"]["positions"] = [
        {"row": "C", "column": c + 1, "kind": "occupied",
         "devices": [f"tor{2 * c + 1}", f"tor{2 * c + 2}"]} for c in range(8)]
    (tmp_path / "floor.yaml").write_text(yaml.safe_dump(floor))
    out = tmp_path / "grown"
    assert cli("expand", "--as-built", as_built, "--floor", tmp_path / "floor.yaml",
                "--topology", "jellyfish:routers=20,degree=4,p=1", "--out", out) == 0
    assert _counts(out) == dict(kept=24 + 16, moved=8, removed=0, added=8 + 4)
    grown = _fabric(out)
    net = grown[grown["kind"] == "network"]
    assert len(net) == 20 * 4 // 2
    standing_edges = {frozenset(((f"r{int(a[3:]) - 1:02d}", p), (f"r{int(b[3:]) - 1:02d}", q)))
                      for (a, p), (b, q) in links if b.startswith("tor")}
    kept = [e for e in map(frozenset, _links(net)) if e in standing_edges]
    assert len(kept) == 24                            # the kept cables on their ports
    cabinets = dict(zip(grown["a_device"], grown["a_cabinet"]))
    assert cabinets["r00"] == "C01" and cabinets["r15"] == "C08"


def test_fattree_grows_from_a_renamed_as_built(standing, tmp_path):
    """A fat tree k=6 with 3 of its 6 pods (3 x (3 edge + 3 aggregation) + 9 cores = 27
    switches; 27 edge-aggregation, 27 aggregation-core and 27 host cables), its switches given
    names in no order the planner would pick: the pods are found from the bipartite
    edge-aggregation blocks and the cores from the aggregation columns, so the growth to 6
    pods keeps all 81 cables (Al-Fares et al.: aggregation j's up-links go to the same cores
    whatever the pod count) and adds 3 pods x 18 network cables and 27 host cables."""
    base, room, _, _, _ = standing
    old = base / "fattree-old"
    assert cli("plan", "--topology", "fattree:k=6,pods=3", "--catalog", "modern-100g",
                "--floor", room, "--out", old, "--strategy", "hint") == 0
    fabric = _fabric(old)
    shuffled = dict(zip([f"r{i:02d}" for i in range(27)],
                        [f"spine{(i * 11) % 27:02d}" for i in range(27)]))
    rename = lambda d: shuffled.get(d, f"gpu-{d}")      # noqa: E731
    links = [((rename(a), p), (rename(b), q)) for (a, p), (b, q) in _links(fabric)]
    as_built = write_csv(links, tmp_path / "fattree.csv", per_end=False)
    (tmp_path / "floor.yaml").write_text(yaml.safe_dump(_floor_with_devices(ROOM, fabric,
                                                                            rename)))
    out = tmp_path / "grown"
    assert cli("expand", "--as-built", as_built, "--floor", tmp_path / "floor.yaml",
                "--topology", "fattree:k=6", "--out", out) == 0
    assert _counts(out) == dict(kept=81, moved=0, removed=0, added=3 * 18 + 27)
    names = pd.read_csv(out / "as_built_names.csv", keep_default_na=False, dtype=str)
    name = dict(zip(names["as_built_name"], names["device"]))
    grown = {frozenset(link) for link in _links(_fabric(out))}
    assert all(frozenset(((name[a], p), (name[b], q))) in grown for (a, p), (b, q) in links)


def _as_built(tmp_path, links) -> Path:
    return write_csv(links, tmp_path / "asbuilt.csv", per_end=False)


def _floor(tmp_path, devices_at: dict) -> Path:
    floor = json.loads(json.dumps(ROOM))
    floor["hall"]["positions"] = [{"row": "A", "column": c, "kind": "occupied",
                                   "devices": list(d)} for c, d in devices_at.items()]
    path = tmp_path / "floor.yaml"
    path.write_text(yaml.safe_dump(floor))
    return path


# A triangle of switches s1..s3 (ports 2, 3), one host each on port 1.
TRIANGLE = [(("s1", 2), ("s2", 2)), (("s2", 3), ("s3", 2)), (("s1", 3), ("s3", 3)),
            (("s1", 1), ("h1", 1)), (("s2", 1), ("h2", 1)), (("s3", 1), ("h3", 1))]
ALL_THREE = {1: ["s1", "s2"], 2: ["s3"]}

REFUSED = {
    # case: (links, devices per column of row A, spec, words of the one line)
    "no-floor-devices": (TRIANGLE, {}, "jellyfish:routers=4,degree=2,p=1",
                         "no 'hall.positions' entry names devices"),
    "switch-not-in-as-built": (TRIANGLE, {1: ["s1", "s2"], 2: ["s3", "s9"]},
                               "jellyfish:routers=4,degree=2,p=1", "switch s9"),
    "unnamed-switch": (TRIANGLE + [(("s2", 4), ("h1", 2))], ALL_THREE,
                       "jellyfish:routers=4,degree=2,p=1", "h1 is linked to s1 and"),
    "link-of-two-unknown-devices": (TRIANGLE + [(("x1", 1), ("x2", 1))], ALL_THREE,
                                    "jellyfish:routers=4,degree=2,p=1", "joins two devices"),
    "jellyfish-degree-too-small": (TRIANGLE, ALL_THREE, "jellyfish:routers=4,degree=1,p=1",
                                   "more than the --topology degree 1"),
    "hosts-not-on-first-ports": ([(("s1", 2), ("s2", 2)), (("s2", 3), ("s3", 2)),
                                  (("s1", 3), ("s3", 3)), (("s1", 7), ("h1", 1)),
                                  (("s2", 1), ("h2", 1)), (("s3", 1), ("h3", 1))],
                                 ALL_THREE, "jellyfish:routers=4,degree=2,p=1",
                                 "switch s1 has its hosts on ports 7"),
    "not-a-dragonfly": (TRIANGLE, ALL_THREE, "dragonfly:a=2,p=1,h=1,g=3",
                        "is in no single group of a=2"),
    "dragonfly-h": (TRIANGLE, ALL_THREE, "dragonfly:a=3,p=1,h=1,g=2",
                    "has 0 links leaving its group"),
    "fattree-without-hosts": (TRIANGLE[:3], ALL_THREE, "fattree:k=4",
                              "known by their hosts"),
    "not-a-fattree": (TRIANGLE, ALL_THREE, "fattree:k=4", "has hosts and links"),
    "family-not-recognised": (TRIANGLE, ALL_THREE, "slimfly:q=5",
                              "dragonfly, fattree, hyperx, jellyfish"),
    "not-a-hyperx": (TRIANGLE + [(("s3", 4), ("s4", 2)), (("s4", 1), ("h4", 1))],
                     {1: ["s1", "s2"], 2: ["s3", "s4"]}, "hyperx:S=3x2,p=1",
                     "4 switches and 4 links, not the 3 switches and Hamming links of S=3"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_as_built_alone_refusals(tmp_path, capsys, case):
    """Exit 2, one line naming what does not fit and the fix, nothing written."""
    links, devices_at, spec, words = REFUSED[case]
    as_built, floor = _as_built(tmp_path, links), _floor(tmp_path, devices_at)
    capsys.readouterr()
    out = tmp_path / "grown"
    assert cli("expand", "--as-built", as_built, "--floor", floor, "--topology", spec,
                "--out", out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["asbuilt.csv", "floor.yaml"]


def test_as_built_needs_a_floor_or_a_plan(tmp_path, capsys):
    as_built = _as_built(tmp_path, TRIANGLE)
    ufm = tmp_path / "ufm.json"
    ufm.write_text('{"report": []}')
    for argv, words in ((["--as-built", as_built], "needs --floor"),
                        ([], "give --from PLAN_DIR"),
                        (["--as-built", tmp_path / "nowhere.csv", "--floor", "hot-aisle"],
                         "'" + str(tmp_path / "nowhere.csv") + "': file not found"),
                        (["--as-built", ufm, "--floor", _floor(tmp_path, ALL_THREE)],
                         "a UFM NDT report lists differences from a plan only")):
        capsys.readouterr()
        assert cli("expand", *argv, "--topology", "jellyfish:routers=4,degree=2,p=1",
                    "--out", tmp_path / "grown") == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err
    assert not (tmp_path / "grown").exists()


def test_dragonfly_with_switches_named_out_of_order(standing, tmp_path):
    """Switch names that sort neither by group nor by the plan's ids: the groups are still
    the 4-cliques, and the growth keeps one global cable per standing group pair whatever the
    numbering (kept 80, moved 10, the lower bound), every kept cable on its ports."""
    _, _, _, fabric, _ = standing
    scramble = {f"r{i:02d}": f"leaf{(i * 7) % 20:02d}" for i in range(20)}
    rename = lambda d: scramble.get(d, d)              # noqa: E731
    links = [((rename(a), p), (rename(b), q)) for (a, p), (b, q) in _links(fabric)]
    as_built = write_csv(links, tmp_path / "asbuilt.csv", per_end=True)
    (tmp_path / "floor.yaml").write_text(yaml.safe_dump(_floor_with_devices(ROOM, fabric,
                                                                            rename)))
    out = tmp_path / "grown"
    assert cli("expand", "--as-built", as_built, "--floor", tmp_path / "floor.yaml",
                "--topology", NEW, "--out", out) == 0
    assert _counts(out) == COUNTS
    names = pd.read_csv(out / "as_built_names.csv", keep_default_na=False, dtype=str)
    name = dict(zip(names["as_built_name"], names["device"]))
    grown = {frozenset(link) for link in _links(_fabric(out))}
    standing_links = {frozenset(((name[a], p), (name[b], q))) for (a, p), (b, q) in links}
    assert len(standing_links & grown) == COUNTS["kept"]
    groups = {int(name[scramble[f"r{i:02d}"]][1:]) // 4 for i in range(4)}
    assert len(groups) == 1                             # a standing group stays a group


FLOOR_DEVICES_REFUSED = {
    # positions entry, words of the one-line error
    "on-a-blocked-position": ({"row": "A", "column": 1, "kind": "blocked", "devices": ["s1"]},
                              "give it with kind: occupied"),
    "on-a-rectangle": ({"x_m": 0, "y_m": 0, "width_m": 0.6, "depth_m": 1.2,
                        "kind": "occupied", "devices": ["s1"]}, "row and column"),
    "named-twice-in-one-position": ({"row": "A", "column": 1, "kind": "occupied",
                                     "devices": ["s1", "s1"]}, "names device 's1' twice"),
    "empty-name": ({"row": "A", "column": 1, "kind": "occupied", "devices": [" "]},
                   "device names of 1 to 64 characters"),
}


@pytest.mark.parametrize("case", list(FLOOR_DEVICES_REFUSED))
def test_floor_devices_field_refusals(tmp_path, case):
    from planner.inputs.floor import load_floor
    from planner.run.errors import InputError
    entry, words = FLOOR_DEVICES_REFUSED[case]
    floor = json.loads(json.dumps(ROOM))
    floor["hall"]["positions"] = [entry]
    (tmp_path / "f.yaml").write_text(yaml.safe_dump(floor))
    with pytest.raises(InputError, match="positions") as err:
        load_floor(str(tmp_path / "f.yaml"))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_floor_devices_stand_in_one_position(tmp_path):
    from planner.inputs.floor import load_floor
    from planner.run.errors import InputError
    floor = json.loads(json.dumps(ROOM))
    floor["hall"]["positions"] = [
        {"row": "A", "column": 1, "kind": "occupied", "devices": ["s1", "s2"]},
        {"row": "A", "column": 2, "kind": "occupied", "devices": ["s2"]}]
    (tmp_path / "f.yaml").write_text(yaml.safe_dump(floor))
    with pytest.raises(InputError, match="names device 's2', which 'positions\\[0\\]'"):
        load_floor(str(tmp_path / "f.yaml"))
    floor["hall"].update(count=2, link_m=30)
    floor["hall"]["positions"] = [{"row": "A", "column": 1, "kind": "occupied",
                                   "devices": ["s1"]}]
    (tmp_path / "f.yaml").write_text(yaml.safe_dump(floor))
    with pytest.raises(InputError, match="give the hall they stand in"):
        load_floor(str(tmp_path / "f.yaml"))
    floor["hall"]["positions"][0]["hall"] = 2
    (tmp_path / "f.yaml").write_text(yaml.safe_dump(floor))
    from planner.verify.standing import floor_devices
    assert floor_devices(load_floor(str(tmp_path / "f.yaml"))) == {"s1": (1, 0, 0)}


def test_grown_plan_grows_again_on_the_same_floor(standing, foreign, tmp_path):
    """The floor naming the standing switches also serves the next growth from the grown
    plan: its device positions are that plan's standing cabinets, not marks. The same spec
    again keeps all 90 network and 72 host cables."""
    base, _, _, _, _ = standing
    _, out = foreign
    again = tmp_path / "again"
    assert cli("expand", "--from", out, "--floor", base / "foreign-floor.yaml",
                "--topology", NEW, "--out", again) == 0
    assert _counts(again) == dict(kept=90 + 72, moved=0, removed=0, added=0)


def test_hyperx_grows_from_a_renamed_as_built(standing, tmp_path, capsys):
    """HyperX S=4x4, p=2 (16 switches of 3 + 3 links: 48 network and 32 host cables), its
    switches renamed r_i -> x_(7i mod 16): the coordinates are found from the lines (maximal
    cliques) through x0, so S=4x4x2 keeps all 80 cables and adds 32·7/2 - 48 = 64 network and
    16 x 2 host cables (Ahn et al., SC09: a switch keeps its coordinates), and S=5x5 keeps all
    80 and adds 25·8/2 - 48 = 52 network and 9 x 2 host cables. S=8x3 has no pair of
    dimensions holding two lines of 4: refused."""
    base, room, _, _, _ = standing
    old = base / "hyperx-old"
    assert cli("plan", "--topology", "hyperx:S=4x4,p=2", "--catalog", "modern-100g",
                "--floor", room, "--out", old, "--strategy", "hint") == 0
    fabric = _fabric(old)
    rename = lambda d: f"x{(int(d[1:]) * 7) % 16}" if d[0] == "r" else f"h{d}"  # noqa: E731
    links = [((rename(a), p), (rename(b), q)) for (a, p), (b, q) in _links(fabric)]
    as_built = write_csv(links, tmp_path / "hyperx.csv", per_end=False)
    floor = tmp_path / "floor.yaml"
    floor.write_text(yaml.safe_dump(_floor_with_devices(ROOM, fabric, rename)))
    for spec, added in (("hyperx:S=4x4x2,p=2", 64 + 32), ("hyperx:S=5x5,p=2", 52 + 18)):
        out = tmp_path / spec.split("=")[1].split(",")[0]
        assert cli("expand", "--as-built", as_built, "--floor", floor, "--topology", spec,
                    "--out", out) == 0
        assert _counts(out) == dict(kept=80, moved=0, removed=0, added=added)
        names = pd.read_csv(out / "as_built_names.csv", keep_default_na=False, dtype=str)
        name = dict(zip(names["as_built_name"], names["device"]))
        grown = {frozenset(link) for link in _links(_fabric(out))}
        assert all(frozenset(((name[a], p), (name[b], q))) in grown
                   for (a, p), (b, q) in links)
    capsys.readouterr()
    assert cli("expand", "--as-built", as_built, "--floor", floor, "--topology",
                "hyperx:S=8x3,p=2", "--out", tmp_path / "no") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "on 2 lines of sizes 4, 4" in err
