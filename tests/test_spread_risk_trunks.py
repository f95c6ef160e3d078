"""``--spread-risk`` on structured cabling (issue 26, item 4): the links are dealt over the
trunks between two patch points so that no trunk carries more than the share of a router's
cables or of a group pair's cables (``planner.cabling.structured.deal_spread``), counted again
from cables.csv and trunks.csv as a reader sees them; the tray-segment shares of the
``spread_risk`` block against the cables' routes walked segment by segment; the same seed
gives the same bytes.
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from planner.cabling.structured import SpreadDealing, deal_spread
from planner.exports import cables_csv, trunks_csv
from planner.inputs.catalog.catalog import load_catalog
from planner.inputs.floor import cabinet_xy, room_of, routes
from planner.plan import plan

TOPOLOGY, FLOOR, SHARE = "dragonfly:a=4,p=2,h=2", "hot-aisle", 0.25
"""Dragonfly a=4, h=2: 5 network cables a router (3 in its group, 2 global), so at most
floor(0.25 x 5) = 1 of them on one trunk; on the hot-aisle floor (2 routers a cabinet) the
global links between rows run through row panels."""


@lru_cache(maxsize=None)
def _written(folder: str, share: float | None, name: str):
    out = Path(folder) / name
    out.mkdir()
    result = plan(TOPOLOGY, "modern-100g", FLOOR, strategy="hint", seed=0, resilience="off",
                  fail_links=0, spread_risk=share)
    cables_csv.write(result, out)
    trunks_csv.write(result, out)
    return result, out


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("spread-trunks"))


def _trunk_shares(out: Path) -> tuple[dict, dict]:
    """From cables.csv and trunks.csv read back: (router -> trunk -> its network cables whose
    segments name that trunk, router -> its network cables), after checking that trunks.csv's
    ``links`` of every trunk is the number of cables naming it."""
    with open(out / "cables.csv", newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "network"]
    with open(out / "trunks.csv", newline="", encoding="utf-8") as f:
        links = {r["trunk_id"]: int(r["links"]) for r in csv.DictReader(f)}
    on, degree, carried = defaultdict(Counter), Counter(), Counter()
    for row in rows:
        trunks = set(re.findall(r"trunk (T\d+)", row["segments"]))
        for t in trunks:
            carried[t] += 1
        for router in (row["a_device"], row["b_device"]):
            degree[router] += 1
            for t in trunks:
                on[router][t] += 1
    assert carried == Counter({t: n for t, n in links.items() if n})
    return on, degree


def _largest(on: dict, degree: dict) -> float:
    return max(n / degree[r] for r, per in on.items() for n in per.values())


def test_plain_dealing_puts_more_than_the_share_on_one_trunk_and_spread_does_not(folder):
    plain, plain_out = _written(folder, None, "plain")
    spread, spread_out = _written(folder, SHARE, "spread")
    on, degree = _trunk_shares(plain_out)
    assert _largest(on, degree) > SHARE              # the plain fill: a router's cables together
    on, degree = _trunk_shares(spread_out)
    most = {r: max(int(np.floor(SHARE * d + 1e-9)), 1) for r, d in degree.items()}
    assert all(n <= most[r] for r, per in on.items() for n in per.values())
    block = spread.summary["spread_risk"]["trunks"]
    assert block["with"]["router"] == {"largest": pytest.approx(_largest(on, degree), abs=1e-6),
                                       "cables_over": 0}
    assert block["without"]["router"]["largest"] > SHARE
    assert block["without"]["router"]["cables_over"] > 0
    assert "trunks" not in plain.summary.get("spread_risk", {})


def test_the_trunks_added_are_the_extra_trunks_in_trunks_csv(folder):
    """The spread plan's trunks.csv holds its dealt trunks: the ones the plain packing of each
    pair of patch points picked plus ``trunks_added``; each dealt trunk carries links."""
    spread, out = _written(folder, SHARE, "spread")
    table = pd.read_csv(out / "trunks.csv")
    block = spread.summary["spread_risk"]["trunks"]
    assert block["trunks_added"] > 0
    assert block["trunk_dollars_added"] > 0
    assert len(table) == len(spread.structured.trunks)
    assert (table["links"] <= table["capacity"]).all()


def test_same_seed_same_bytes(folder):
    _, first = _written(folder, SHARE, "spread")
    _, again = _written(folder, SHARE, "again")
    for name in ("cables.csv", "trunks.csv"):
        assert (first / name).read_bytes() == (again / name).read_bytes()


def _group(**kw):
    return SimpleNamespace(lo=0, lo_m=4.0, hi_m=0.0, drop=0.5, cross_hall=False, **kw)


TRUNK_4 = 8
"""modern-100g's 4-link MPO trunk (index into ``catalog.cables``)."""


@pytest.mark.parametrize("share, want_within, want_added", [
    # routers 0-1 twice, 0-2 twice on one 4-link trunk. Share 0.5: router 0 (4 cables) may
    # put 2 on a trunk, routers 1 and 2 (2 cables) 1. Link 1 (0-1 again) cannot join trunk 0:
    # a new trunk; link 2 (0-2) ties at share 1 of router 2 on both, the first; link 3 would
    # be router 0's third on trunk 0: the new trunk.
    (0.5, [0, 1, 0, 1], 1),
    # share 1: everything may share one trunk, the plain fill
    (1.0, [0, 0, 0, 0], 0),
    # share 0.25: router 0 may put 1 of its 4 cables on one trunk: four trunks
    (0.25, [0, 1, 2, 3], 3),
])
def test_dealing_a_hand_counted_group(share, want_within, want_added):
    catalog = load_catalog("modern-100g")
    spread = SpreadDealing(share, np.array([0, 0, 0, 0]), np.array([1, 1, 2, 2]))
    link = pd.DataFrame({"cable": [0, 1, 2, 3], "group": [0, 0, 0, 0]})
    picked, within, dealt = deal_spread(link, {0: ((TRUNK_4, 4),)}, spread, catalog,
                                        [_group()])
    assert within.tolist() == want_within
    assert len(picked[0]) == 1 + want_added
    assert dealt["trunks_added"] == want_added
    assert dealt["positions_added"] == 4 * want_added
    stock = float(catalog.cables[TRUNK_4].order_length(np.array([4.0 + 2 * 0.5]))[0])
    assert dealt["trunk_dollars_added"] == pytest.approx(
        want_added * float(catalog.cables[TRUNK_4].price(stock)))
    # plain fill: all four on the one trunk; router 1 has both its cables there
    assert dealt["plain_trunk"].tolist() == [0, 0, 0, 0]
    assert dealt["without"]["router"]["largest"] == 1.0
    ends = Counter(zip([0, 0, 0, 0, 1, 1, 2, 2], want_within * 2))     # (router, trunk)
    degree = {0: 4, 1: 2, 2: 2}
    assert dealt["with"]["router"] == {
        "largest": max(n / degree[r] for (r, _), n in ends.items()), "cables_over": 0}


def test_a_group_pair_is_dealt_too():
    """Four cables between groups 0 and 1 (routers 0, 1 in group 0; 2, 3 in group 1), share
    0.5: at most 2 of the pair's 4 on one trunk, though each router (2 cables) may put 1."""
    catalog = load_catalog("modern-100g")
    spread = SpreadDealing(0.5, np.array([0, 0, 1, 1]), np.array([2, 3, 2, 3]),
                           group=np.array([0, 0, 1, 1]))
    link = pd.DataFrame({"cable": [0, 1, 2, 3], "group": [0, 0, 0, 0]})
    picked, within, dealt = deal_spread(link, {0: ((TRUNK_4, 4),)}, spread, catalog,
                                        [_group()])
    per_trunk = Counter(within.tolist())
    assert max(per_trunk.values()) <= 2
    assert dealt["with"]["group_pair"] == {"largest": 0.5, "cables_over": 0}
    assert dealt["without"]["group_pair"] == {"largest": 1.0, "cables_over": 2}


def _segments_walked(room, a, b) -> set[str]:
    """The tray segments a cable from cabinet position ``a`` = (hall, row, col) to ``b`` runs
    along, named as docs/performance.md names them (``A:P0-P1``: row A between cross trays 0
    and 1; ``P1:A-B``: cross tray 1 between rows A and B), from its polyline
    (``routes.route_segments``) in one hall."""
    cross = np.asarray(room.cross_x, float)
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = set()
    pieces = routes.route_segments(room, a, b)
    start = next(p for p in pieces if p.kind == "rise").start[0]
    for p in pieces:
        if p.kind == "row tray":
            row = int(round(p.start[1] / room.floor.row_pitch_m))
            lo, hi = sorted((p.start[0], p.end[0]))
            for k in range(len(cross) - 1):
                if hi > cross[k] + 1e-9 and lo < cross[k + 1] - 1e-9:
                    out.add(f"{letters[row]}:P{k}-P{k + 1}")
        elif p.kind == "cross tray":
            t = int(np.flatnonzero(np.isclose(cross, p.start[0]))[0])
            r0, r1 = sorted(int(round(y / room.floor.row_pitch_m)) for y in (p.start[1],
                                                                             p.end[1]))
            out |= {f"P{t}:{letters[j - 1]}-{letters[j]}" for j in range(r0 + 1, r1 + 1)}
    # the bay over the cable's own cabinet, where it rises into the tray
    k = int(np.searchsorted(cross, start + 1e-9, side="right")) - 1
    out.add(f"{letters[a[1]]}:P{k}-P{k + 1}")
    return out


def test_tray_shares_counted_from_the_cables_routes(folder):
    """The block's largest share of a router's cables on one tray segment other than the one
    over its own cabinet, and the cables over the share, against every network cable's route
    walked segment by segment."""
    result, _ = _written(folder, SHARE, "spread")
    p = result.placement
    room = room_of(result.floor, p.cabinet_hall, p.cabinet_row, p.cabinet_col)
    cab = np.asarray(p.router_cabinet)
    where = [(int(p.cabinet_hall[c]), int(p.cabinet_row[c]), int(p.cabinet_col[c]))
             for c in cab.tolist()]
    on, degree, own = defaultdict(Counter), Counter(), {}
    for (u, v), m in zip(result.topology.links.tolist(), result.topology.multiplicity.tolist()):
        walked = set() if cab[u] == cab[v] else _segments_walked(room, where[u], where[v])
        for r in (u, v):
            degree[r] += m
            for s in walked:
                on[r][s] += m
    for r, (_, row, col) in enumerate(where):
        x = float(cabinet_xy(result.floor, row, col)[0])
        k = int(np.searchsorted(room.cross_x, x + 1e-9, side="right")) - 1
        own[r] = f"{'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[row]}:P{k}-P{k + 1}"
    shares = [(n / degree[r], r) for r, per in on.items() for s, n in per.items() if s != own[r]]
    over = sum(max(0, n - max(int(np.floor(SHARE * degree[r] + 1e-9)), 1))
               for r, per in on.items() for s, n in per.items() if s != own[r])
    got = result.summary["spread_risk"]["largest_share"]["tray"]["router"]
    assert got["largest"] == pytest.approx(max(shares)[0], abs=1e-6)
    assert got["cables_over"] == over
    # the own segment carries every cable that leaves the router's cabinet
    assert all(on[r][own[r]] == sum(m for (u, v), m in zip(
        result.topology.links.tolist(), result.topology.multiplicity.tolist())
        if r in (u, v) and cab[u] != cab[v]) for r in on)


def test_worst_trunk_failure_with_and_without(folder):
    """With ``--resilience trunk`` the block compares the worst single-trunk θ of the dealt
    trunks (the resilience block's own) with the plain fill's trunks of the same placement,
    each trunk there carrying the links the plain fill gives it."""
    result = plan(TOPOLOGY, "modern-100g", FLOOR, strategy="hint", seed=0, resilience="trunk",
                  fail_links=0, spread_risk=SHARE)
    theta = result.summary["spread_risk"]["worst_other"]["trunk"]
    kind = result.summary["resilience"]["kinds"]["trunk"]
    assert theta["with"]["theta_ratio"] == kind["theta_ratio"]["worst"]
    assert theta["without"]["group"].startswith("plain trunk ")
    assert not any(k.startswith("spread-risk") for k in result.summary["resilience"]["kinds"])
    plain = result.structured.plain_trunk
    dealt = result.structured.links.set_index("cable")["trunks"]
    # the plain fill puts a router's parallel cables together: fewer trunks than the dealing
    assert len(np.unique(plain[plain >= 0])) < dealt.nunique()
