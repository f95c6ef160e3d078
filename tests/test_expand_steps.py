"""Drain steps of ``planner expand`` (docs/growth.md, "Drain steps"): Dragonfly a=8, p=4, h=4
grown from g=9 to g=17 with ``--keep-theta 0.75``.

The checks read the exported files back, not the planner's memory: the network standing during
step k is rebuilt from the verification lists (the cables standing after step k-1, the
standing cables.csv for k=1, that are still standing after step k), its connectivity checked by
a breadth-first search written here and its θ recomputed from that graph; every move of the
work order sits in exactly one step; the as-built after step k (the standing cables with the
work order's rows of steps 1..k applied) passes ``planner verify`` against step k's list.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.plan_folders import cli


ROOM = """extends: hot-aisle
name: room-steps
hall:
  rows: 8
  cabinets_per_row: 24
structured_cabling: false
"""
KEEP = 0.75


@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    base = tmp_path_factory.mktemp("steps")
    room = base / "room.yaml"
    room.write_text(ROOM)
    standing, after = base / "old", base / "new"
    assert cli("plan", "--topology", "dragonfly:a=8,p=4,h=4,g=9", "--catalog", "modern-100g",
                "--floor", room, "--out", standing, "--strategy", "hint") == 0
    assert cli("expand", "--from", standing, "--topology", "dragonfly:a=8,p=4,h=4,g=17",
                "--floor", room, "--keep-theta", KEEP, "--out", after) == 0
    return standing, after, room


def _fabric(path: Path) -> pd.DataFrame:
    cables = pd.read_csv(path, keep_default_na=False, dtype=str)
    return cables[cables["kind"].isin(["network", "endpoint"])]


def _id(device: str) -> int:
    return int(device[1:])


def _links(cables: pd.DataFrame) -> Counter:
    """Plugged cables as a multiset of {(device id, kind, port), (...)} pairs."""
    ends = lambda side: [(_id(d), d[0], int(p)) for d, p in  # noqa: E731
                         zip(cables[f"{side}_device"], cables[f"{side}_port"])]
    return Counter(frozenset(pair) for pair in zip(ends("a"), ends("b")))


def _connected(routers: set[int], edges: list[tuple[int, int]]) -> bool:
    adj: dict[int, list[int]] = {}
    for u, v in edges:
        adj.setdefault(u, []).append(v)
        adj.setdefault(v, []).append(u)
    start = next(iter(routers))
    seen, queue = {start}, deque([start])
    while queue:
        for w in adj.get(queue.popleft(), []):
            if w not in seen:
                seen.add(w)
                queue.append(w)
    return routers <= seen


def _theta(links: Counter, endpoints: np.ndarray) -> float:
    """θ of the router graph of ``links`` (uniform traffic among ``endpoints``) with the engine
    the summary names."""
    from planner.performance.drain_steps import valiant_mix_theta
    from planner.performance.throughput import Arcs
    pairs = Counter()
    for pair, count in links.items():
        (u, ku, _), (v, kv, _) = sorted(pair)
        if ku == kv == "r":
            pairs[(min(u, v), max(u, v))] += count
    uv = np.array(sorted(pairs), dtype=np.int64)
    cap = np.array([pairs[tuple(p)] for p in uv.tolist()], dtype=float)
    tail, head = np.r_[uv[:, 0], uv[:, 1]], np.r_[uv[:, 1], uv[:, 0]]
    order = np.lexsort((head, tail))
    arcs = Arcs(len(endpoints), tail[order], head[order], np.r_[cap, cap][order],
                np.tile(np.arange(len(uv)), 2)[order])
    return valiant_mix_theta(arcs, endpoints)


def test_every_step_keeps_the_share_of_theta(grown):
    standing, after, _ = grown
    drain = json.loads((after / "summary.json").read_text())["growth"]["drain"]
    assert drain["keep_theta"] == KEEP and drain["all_meet"]
    assert drain["engine"].startswith("minimal (ECMP) and Valiant")
    routers = json.loads((after / "summary.json").read_text())["topology"]["routers"]
    old = _fabric(standing / "cables.csv")
    endpoints = np.zeros(routers)
    for side in ("a", "b"):
        is_router = old[f"{side}_device"].str.startswith("r")
        other = "b" if side == "a" else "a"
        with_ep = is_router & old[f"{other}_device"].str.startswith("n")
        np.add.at(endpoints, old.loc[with_ep, f"{side}_device"].map(_id).to_numpy(np.int64), 1)
    assert endpoints.sum() == 288
    lists = [_links(old)] + [_links(_fabric(after / s["verify_list"])) for s in drain["steps"]]
    assert len(drain["steps"]) >= 2
    for k, step in enumerate(drain["steps"], start=1):
        during = lists[k - 1] & lists[k]          # standing before the step and after it
        edges = [(u, v) for (u, ku, _), (v, kv, _) in (sorted(p) for p in during.elements())
                 if ku == kv == "r"]
        assert _connected({int(r) for r in np.flatnonzero(endpoints)}, edges), k
        before, down = _theta(lists[k - 1], endpoints), _theta(during, endpoints)
        assert before == pytest.approx(step["theta_before"], abs=1e-6)
        assert down == pytest.approx(step["theta_during"], abs=1e-6)
        assert down / before >= KEEP - 1e-9, (k, down, before)


def test_steps_cover_every_move_once(grown):
    standing, after, _ = grown
    growth = json.loads((after / "summary.json").read_text())["growth"]
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False, dtype=str)
    order = order[order["kind"] != "mgmt"]           # management cords: no drain step counts
    steps = order["drain_step"].astype(int)
    count = len(growth["drain"]["steps"])
    assert set(steps) == set(range(1, count + 1))
    moves = order[order["action"] == "move"]
    assert len(moves) == growth["cables"]["moved"] == 72
    assert len(set(zip(moves["old_a"], moves["old_b"]))) == 72   # each standing cable once
    per_step = Counter(zip(steps, order["action"]))
    for s in growth["drain"]["steps"]:
        assert (s["moved"], s["removed"], s["added"]) == (
            per_step[(s["step"], "move")], per_step[(s["step"], "remove")],
            per_step[(s["step"], "add")])
    # a move or add takes a port only once the standing cable in it came down: no plug of a
    # step's grown ends is in use by a standing cable of a later step
    later = {}
    for row in order[order["action"] != "add"].itertuples():
        for end in (row.old_a, row.old_b):
            later[end.split("@")[0]] = int(row.drain_step)
    strip = lambda e: e.split("@")[0]  # noqa: E731
    for row in order[order["action"] != "remove"].itertuples():
        for end in (row.new_a, row.new_b):
            name, port = strip(end).split(":")
            for old_name, s in later.items():
                d, p = old_name.split(":")
                if d[0] == name[0] and int(d[1:]) == int(name[1:]) and p == port:
                    assert s <= int(row.drain_step), (row.label, s)


def test_verify_after_each_step_finds_no_mistake(grown, tmp_path):
    standing, after, _ = grown
    old = _fabric(standing / "cables.csv")
    order = pd.read_csv(after / "work_order.csv", keep_default_na=False, dtype=str)
    order = order[order["kind"] != "mgmt"]           # management cords: no drain step counts
    plug = lambda end: tuple(end.split("@")[0].split(":"))  # noqa: E731
    built = {frozenset((plug(a), plug(b)))
             for a, b in zip(old["a_device"] + ":" + old["a_port"] + "@",
                             old["b_device"] + ":" + old["b_port"] + "@")}
    new = _fabric(after / "cables.csv")
    width = {d[0]: len(d) - 1 for d in pd.concat([new["a_device"], new["b_device"]])}
    rename = lambda dev: dev[0] + str(int(dev[1:])).zfill(width[dev[0]])  # noqa: E731
    count = int(order["drain_step"].astype(int).max())
    for k in range(1, count + 1):
        for row in order[order["drain_step"].astype(int) == k].itertuples():
            if row.action in ("remove", "move"):
                built.remove(frozenset((plug(row.old_a), plug(row.old_b))))
            if row.action in ("move", "add"):
                built.add(frozenset((plug(row.new_a), plug(row.new_b))))
        observed = tmp_path / f"as-built-{k}.csv"
        observed.write_text("device,port,peer_device,peer_port\n" + "".join(
            f"{rename(a[0])},{a[1]},{rename(b[0])},{b[1]}\n" for a, b in map(sorted, built)))
        listed = after / "drain_steps" / f"step_{k:02d}_cables.csv"
        assert cli("verify", "--plan", listed, "--observed", observed) == 0, k
    # after the last step the list is the grown plan's fabric
    assert _links(_fabric(listed)) == _links(new)


def test_wiring_pdf_groups_the_work_by_step(grown):
    from pypdf import PdfReader
    _, after, _ = grown
    drain = json.loads((after / "summary.json").read_text())["growth"]["drain"]
    text = " ".join(t for t in (p.extract_text() for p in PdfReader(after / "wiring.pdf").pages)
                    if "Work order" in t)
    assert "drain step" in text
    for s in drain["steps"]:
        assert s["verify_list"] in text and f"{s['theta_share']:.3f}" in text


@pytest.mark.parametrize("share", ["0", "1.5", "nan"])
def test_keep_theta_out_of_range_is_refused(grown, tmp_path, capsys, share):
    standing, _, room = grown
    out = tmp_path / "out"
    assert cli("expand", "--from", standing, "--topology", "dragonfly:a=8,p=4,h=4,g=17",
                "--floor", room, "--keep-theta", share, "--out", out) == 2
    assert not out.exists()
    err = capsys.readouterr().err.strip()
    assert "--keep-theta" in err and "\n" not in err


GAP_CASES = [
    # (a, h, g, g', lower bound worked by hand). F = ⌊a·h/(g'-1)⌋, r = a·h - (g'-1)·F pairs
    # with one more link per group, s = g' - g new groups, o = max(0, s·r - s·(s-1)) of
    # those pairs join a new group to a standing one; G = g·a·h/2 standing global cables;
    # bound = G - C(g,2)·F - min(C(g,2), (g·r - o)/2).
    # a=12, h=6, 30 -> 33: F=2, r=8, s=3, o=24-6=18; 1080 - 435·2 - (240-18)/2 = 99.
    (12, 6, 30, 33, 99),
    # a=10, h=5, 11 -> 15: F=3, r=8, s=4, o=32-12=20; 275 - 55·3 - (88-20)/2 = 76.
    (10, 5, 11, 15, 76),
    # a=8, h=4, 9 -> 12: F=2, r=10, s=3, o=30-6=24; 144 - 36·2 - min(36, (90-24)/2) = 39.
    (8, 4, 9, 12, 39),
]


@pytest.mark.parametrize("a,h,g,grown_g,bound", GAP_CASES)
def test_dragonfly_growth_meets_the_lower_bound(a, h, g, grown_g, bound):
    """Where a·h/(g'-1) is not whole: the grown topology keeps all but ``bound`` standing
    cables (counted here as the multiset of router pairs the two topologies share), and the
    reported lower bound is the hand-worked one."""
    from planner.placement.grown import Standing, grow
    from planner.topologies import parse_spec
    old = parse_spec(f"dragonfly:a={a},p={h},h={h},g={g}")
    u = np.repeat(old.links[:, 0], old.multiplicity)
    v = np.repeat(old.links[:, 1], old.multiplicity)
    used = Counter()
    ports = []
    for x in np.r_[u, v].tolist():
        used[x] += 1
        ports.append(h + used[x])
    ports = np.array(ports)
    standing = Standing("dragonfly", dict(old.params), old.endpoints, u, ports[:len(u)], v,
                        ports[len(u):])
    growth = grow(standing, parse_spec(f"dragonfly:a={a},p={h},h={h},g={grown_g}"), 64)
    new = growth.topology
    pairs = lambda x, y: Counter(zip(np.minimum(x, y).tolist(),  # noqa: E731
                                     np.maximum(x, y).tolist()))
    kept = pairs(u, v) & pairs(np.repeat(new.links[:, 0], new.multiplicity),
                               np.repeat(new.links[:, 1], new.multiplicity))
    assert growth.lower_bound == bound
    assert len(u) - sum(kept.values()) == bound
