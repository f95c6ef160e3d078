"""``--spread-risk`` on the hall trunks between two halls' entries (issue 26, item 4): no hall
trunk carries more than the share of a router's network cables or of a group pair's cables.
Both kinds of entry: LC cassettes (modern-100g: the cords land in the entries and the links
are dealt over the hall trunks one by one) and pass-through MPO panels (ndr-400g: a hall
trunk carries whole row trunks, ``planner.cabling.structured.deal_hall_spread``). Counted
again from cables.csv and trunks.csv as a reader sees them; the packing of row trunks into
hall trunks checked on a case counted by hand.
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from planner.cabling.structured import _pack_hall
from planner.exports import cables_csv, trunks_csv
from planner.inputs.catalog.catalog import load_catalog
from planner.performance import spread_risk
from planner.plan import plan

TOPOLOGY, SHARE = "dragonfly:a=4,p=2,h=2", 0.25
"""Dragonfly a=4, h=2: 9 groups of 4 routers, 5 network cables a router (3 in its group, 2
global), one global cable between each two groups: at most floor(0.25 x 5) = 1 of a router's
cables on one trunk, and a group pair's one cable is never over its share."""
FLOOR = str(Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml")
"""Halls of 2 rows x 8 cabinets: the 36 routers fill two halls."""
CATALOGS = {"cassette": "modern-100g", "pass-through": "ndr-400g"}


@lru_cache(maxsize=None)
def _written(folder: str, catalog: str, share: float | None):
    out = Path(folder) / f"{catalog}-{share}"
    out.mkdir()
    result = plan(TOPOLOGY, catalog, FLOOR, strategy="hint", seed=0, resilience="off",
                  fail_links=0, spread_risk=share)
    cables_csv.write(result, out)
    trunks_csv.write(result, out)
    return result, out


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("spread-hall-trunks"))


def _read(out: Path) -> tuple[list[dict], pd.DataFrame]:
    with open(out / "cables.csv", newline="", encoding="utf-8") as f:
        cables = [r for r in csv.DictReader(f) if r["kind"] == "network"]
    return cables, pd.read_csv(out / "trunks.csv", dtype=str)


def _hall_counts(out: Path, groups: np.ndarray) -> tuple[dict, Counter, dict, Counter]:
    """From the files read back: (per hall trunk, its cables of each router; each router's
    network cables; per hall trunk, its cables of each pair of topology groups; each pair's
    cables). A cable is on the trunks its ``segments`` name (``trunk T0012 ...``)."""
    cables, trunks = _read(out)
    hall = set(trunks.loc[trunks["kind"] == "hall", "trunk_id"])
    by_router, degree = defaultdict(Counter), Counter()
    by_pair, pair_cables = defaultdict(Counter), Counter()
    for row in cables:
        ends = [int(row[f"{end}_device"][1:]) for end in ("a", "b")]     # r07 -> router 7
        on = set(re.findall(r"trunk (T\d+)", row["segments"])) & hall
        pair = tuple(sorted(int(groups[r]) for r in ends))
        if pair[0] != pair[1]:
            pair_cables[pair] += 1
        for r in ends:
            degree[r] += 1
        for t in on:
            for r in ends:
                by_router[t][r] += 1
            if pair[0] != pair[1]:
                by_pair[t][pair] += 1
    return by_router, degree, by_pair, pair_cables


def _most(cables: int) -> int:
    return max(int(np.floor(SHARE * cables + 1e-9)), 1)


def _over(per_trunk: dict, totals: Counter) -> int:
    return sum(max(0, n - _most(totals[o])) for per in per_trunk.values()
               for o, n in per.items())


def _largest(per_trunk: dict, totals: Counter) -> float:
    return max((n / totals[o] for per in per_trunk.values() for o, n in per.items()),
               default=0.0)


@pytest.mark.parametrize("entries", sorted(CATALOGS))
def test_every_hall_trunk_holds_the_share(folder, entries):
    result, out = _written(folder, CATALOGS[entries], SHARE)
    groups = np.asarray(result.topology.groups)
    by_router, degree, by_pair, pair_cables = _hall_counts(out, groups)
    assert by_router                                     # the plan has hall trunks
    assert _over(by_router, degree) == 0
    assert _over(by_pair, pair_cables) == 0
    block = result.summary["spread_risk"]["trunks"]["hall"]
    assert block["with"]["router"] == {"largest": pytest.approx(_largest(by_router, degree),
                                                                abs=1e-6), "cables_over": 0}
    assert block["with"]["group_pair"] == {
        "largest": pytest.approx(_largest(by_pair, pair_cables), abs=1e-6), "cables_over": 0}
    assert block["without"]["router"]["cables_over"] > 0      # the plain plan is over
    assert "hall trunks" in result.summary["spread_risk"]["scope"].split("measured only")[0]


@pytest.mark.parametrize("entries", sorted(CATALOGS))
def test_the_plain_plan_puts_more_than_the_share_on_a_hall_trunk(folder, entries):
    result, out = _written(folder, CATALOGS[entries], None)
    by_router, degree, _, _ = _hall_counts(out, np.asarray(result.topology.groups))
    assert _over(by_router, degree) > 0
    assert "spread_risk" not in result.summary


def test_the_two_catalogs_give_the_two_kinds_of_entry(folder):
    """modern-100g lands the cross-hall cords on LC cassettes in the entries (no row trunk
    reaches an entry); ndr-400g passes row trunks through MPO panels at the entries (row
    trunks end on an entry panel's front port ``F<n>``)."""
    for entries, catalog in CATALOGS.items():
        _, out = _written(folder, catalog, SHARE)
        _, trunks = _read(out)
        row = trunks[trunks["kind"] == "row"]
        through = (row["a_panel"].str.contains("ENTRY") | row["b_panel"].str.contains("ENTRY"))
        assert through.any() == (entries == "pass-through")
        assert (trunks["kind"] == "hall").any()


def test_pass_through_hall_trunks_added_against_the_plain_packing(folder):
    """``trunks_added`` is the dealt hall trunks in trunks.csv less the hall trunks the plain
    plan packs the plain fill's row trunks into (``StructuredPlan.plain_hall_trunk``)."""
    result, out = _written(folder, CATALOGS["pass-through"], SHARE)
    _, trunks = _read(out)
    block = result.summary["spread_risk"]["trunks"]["hall"]
    plain = result.structured.plain_hall_trunk
    assert plain is not None and (plain >= 0).any()
    dealt = int((trunks["kind"] == "hall").sum())
    assert dealt - block["trunks_added"] == len(np.unique(plain[plain >= 0]))
    # the dealing changed the hall trunks (with the trays limited too, the spread placement
    # fits them in as many hall trunks as the plain packing, 4 positions more)
    assert block["positions_added"] > 0 and block["trunk_dollars_added"] > 0


def test_the_plain_plans_hall_trunks_join_the_trunk_failures(folder):
    """The comparison's plain trunk failures (``spread_risk.plain_groups``) include a group
    per plain hall trunk, cutting the cables the plain plan put on it, and every such cable
    also on its plain row trunk."""
    result, _ = _written(folder, CATALOGS["pass-through"], SHARE)
    groups = spread_risk.plain_groups(result.topology, result.placement, result.floor,
                                      result.cables, result.structured, {"trunk"})["trunk"]
    hall, row = result.structured.plain_hall_trunk, result.structured.plain_trunk
    n = result.topology.num_links                      # one cable a link on Dragonfly
    assert np.all(row[:n][hall[:n] >= 0] >= 0)
    for k in np.unique(hall[hall >= 0]).tolist():
        i = groups.names.index(f"plain hall trunk {k + 1}")
        cut = groups.cables[i].toarray().ravel()
        assert np.flatnonzero(cut).tolist() == np.flatnonzero(hall[:n] == k).tolist()


def test_same_seed_same_bytes(folder):
    _, first = _written(folder, CATALOGS["pass-through"], SHARE)
    again = Path(folder) / "again"
    again.mkdir()
    result = plan(TOPOLOGY, CATALOGS["pass-through"], FLOOR, strategy="hint", seed=0,
                  resilience="off", fail_links=0, spread_risk=SHARE)
    trunks_csv.write(result, again)
    cables_csv.write(result, again)
    for name in ("cables.csv", "trunks.csv"):
        assert (first / name).read_bytes() == (again / name).read_bytes()


OS2_T144, OS2_PANEL = 13, 1
"""ndr-400g's 12-link OS2 MPO trunk (the priced hall trunk) and its 48-port OS2 MPO panel,
which is also the pass-through entry panel; the hall sizes are 2, 4, 8 and 12 links."""


def _chains(links: list[int]) -> pd.DataFrame:
    n = len(links)
    return pd.DataFrame({"chain": np.arange(n), "cross_hall": True, "lo_hall": 0, "hi_hall": 1,
                         "entry_part": OS2_PANEL, "priced": OS2_T144, "panel_part": OS2_PANEL,
                         "hall_m": 40.0, "drop": 2.0, "links": links})


def test_row_trunks_packed_into_hall_trunks_by_hand():
    """Row trunks of 6, 4 and 2 links; routers 0 and 1 on the first, 0 on the second, 1 and
    2 on the third, each router allowed 1 cable on a hall trunk. Plain first-fit decreasing:
    6 + 4 + 2 = 12 fill one 12-link trunk. Dealt: the 4 cannot join the 6 (router 0 twice):
    a second trunk; the 2 cannot join the 6 (router 1) and joins the 4. Two trunks of 6
    positions, 7 with the 10 % spare, each the 8-link size ($496 against $700 for 12)."""
    catalog = load_catalog("ndr-400g")
    chains = _chains([6, 4, 2])
    plain, plain_of = _pack_hall(chains, catalog, 10.0)
    assert plain_of == {0: 0, 1: 0, 2: 0}
    assert plain["legs"].tolist() == [12] and plain["links"].tolist() == [12]
    counts = {0: {("r", 0): 1, ("r", 1): 1}, 1: {("r", 0): 1}, 2: {("r", 1): 1, ("r", 2): 1}}
    most = {("r", 0): 1, ("r", 1): 1, ("r", 2): 1}
    dealt, dealt_of = _pack_hall(chains, catalog, 10.0, counts, most)
    assert dealt_of == {0: 0, 1: 1, 2: 1}
    assert dealt["links"].tolist() == [6, 6]
    assert dealt["legs"].tolist() == [8, 8]
    assert [[m[0] for m in members] for members in dealt["members"]] == [[0], [1, 2]]
    # a limit of 2 a router lets first-fit decreasing stand: one trunk again
    loose = {o: 2 for o in most}
    assert _pack_hall(chains, catalog, 10.0, counts, loose)[1] == {0: 0, 1: 0, 2: 0}
