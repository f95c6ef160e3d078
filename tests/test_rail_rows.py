"""Spines and cores in network rows (issue 27, item 3; the floor's ``network_rows``): SuperPOD's
4-unit shape (32 servers of 8 NICs per unit on 64-port switches: leaves 0-31, unit u's rail-i
leaf u·8 + i, spines 32-47) on the NDR catalog and the hot-aisle hall. Where the spines, leaves
and servers stand is read back from ``cabinets.csv`` and the plan's devices, as a user reads
them; without the field the plan is the one the planner made before it existed."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from planner.exports import cabinets_csv, cables_csv
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.plan import plan as make_plan
from planner.run.errors import InputError

RAIL_4_UNITS = "railfattree:units=4,servers=32,nics=8,radix=64"
UNITS, SERVERS, NICS, SPINES = 4, 32, 8, 16
HOT_AISLE = Path(__file__).resolve().parents[1] / "layouts" / "hot-aisle.yaml"

# sha256 of cables.csv on main before the field existed (commit c670530), the same inputs
BEFORE = {
    RAIL_4_UNITS: "5dee8c2bc0ec9a2a7c2d4754dab37f3144ab0f78bb264f6aa4126354c1ab19b5",
}


WIDE = {"rows": 3, "cabinets_per_row": 60, "max_cabinets_per_row": 60}
"""A hall of 3 rows of 60 cabinets: two units share a row, and the spines in the middle slot
would share the second row with a unit unless given a row of their own."""


def _floor_with(tmp_path: Path, line: str, hall: dict | None = None):
    path = tmp_path / "hall.yaml"
    data = yaml.safe_load(HOT_AISLE.read_text())
    data["hall"].update(hall or {})
    path.write_text(yaml.safe_dump(data) + f"\n{line}\n")
    return load_floor(path)


def _plan(spec, floor):
    return make_plan(spec, load_catalog("ndr-400g"), floor, time_limit_s=10, resilience="off")


@pytest.fixture(scope="module", params=[("end", None), ("middle", None), ("middle", "wide")],
                ids=["end", "middle", "middle-wide-hall"])
def named(request, tmp_path_factory):
    """(where, hall, plan, cabinets.csv read back) with the network rows named."""
    where, hall = request.param
    tmp = tmp_path_factory.mktemp(f"rows-{where}")
    plan = _plan(RAIL_4_UNITS, _floor_with(tmp, f"network_rows: {where}",
                                           WIDE if hall else None))
    cabinets_csv.write(plan, tmp)
    return where, hall, plan, pd.read_csv(tmp / cabinets_csv.FILENAME)


@pytest.fixture(scope="module")
def unnamed():
    return _plan(RAIL_4_UNITS, load_floor("hot-aisle"))


def _row_of(plan, cabinets: pd.DataFrame) -> pd.Series:
    """Every device's row letters, through cabinets.csv (cabinet name -> row)."""
    row = cabinets.set_index("name")["row"]
    return plan.devices.set_index("name")["cabinet"].map(row)


def _unit_of_server(name: str) -> int:
    match = re.fullmatch(r"gpu-(\d+)", name)
    assert match, name
    return int(match.group(1)) // SERVERS


def test_spines_stand_only_in_rows_of_their_own_and_leaves_with_their_unit(named):
    """Every spine in a row that holds no server and no leaf; every unit's servers and its 8
    rail leaves in one row; the network rows after the units (end) or between
    them (middle); summary.json names them."""
    where, _, plan, cabinets = named
    row = _row_of(plan, cabinets)
    devices = plan.devices.set_index("name")
    routers = devices[devices["kind"] == "router"]
    spine_rows = set(row[routers.index[routers["id"] >= UNITS * NICS]])
    assert len(routers[routers["id"] >= UNITS * NICS]) == SPINES
    servers = devices[devices["kind"] == "endpoint"]
    unit_rows = []
    for u in range(UNITS):
        mine = [n for n in servers.index if _unit_of_server(n) == u]
        leaves = routers.index[(routers["id"] // NICS == u) & (routers["id"] < UNITS * NICS)]
        assert len(mine) == SERVERS and len(leaves) == NICS
        rows = set(row[mine]) | set(row[leaves])
        assert len(rows) == 1, (u, rows)
        unit_rows.append(rows.pop())
    assert not spine_rows & set(unit_rows)
    in_spine_rows = cabinets[cabinets["row"].isin(spine_rows) & (cabinets["kind"] == "cabinet")]
    assert (in_spine_rows["endpoints"] == 0).all()
    assert in_spine_rows["routers"].sum() == SPINES
    order = sorted(set(unit_rows) | spine_rows, key=lambda r: (len(r), r))
    spine_at = [order.index(r) for r in spine_rows]
    if where == "end":
        assert min(spine_at) == UNITS
    else:
        assert 0 < min(spine_at) and max(spine_at) < len(order) - 1
    block = plan.summary["placement"]["network_rows"]
    assert block == {"floor": where, "rows": sorted(spine_rows, key=lambda r: (len(r), r))}


def test_only_candidates_that_keep_the_rows_and_cost_within_the_bound(named, unnamed):
    """Named rows leave out the spread layout; the winner is the cheapest of those kept; the
    network cables cost no less than their proven bound. On this hall each unit fills a row,
    so the rail layout with the rows named is the unnamed plan's layout of the same name,
    priced the same."""
    where, hall, plan, _ = named
    block = plan.summary["placement"]
    name = "rails" if where == "end" else "rails-centred"
    assert set(block["candidates"]) == {name, "partition"}
    assert block["candidates"][block["method"]] == min(block["candidates"].values())
    if hall is None:
        assert block["candidates"][name] == unnamed.summary["placement"]["candidates"][name]
    assert block["cable_cost"] >= block["cable_cost_lower_bound"] > 0


def test_without_the_field_the_plan_is_todays(unnamed, tmp_path):
    """cables.csv byte for byte as before the field, the cheapest of all four candidates
    wins, and summary.json says where its spines went (beside the leaves: compute rows)."""
    cables_csv.write(unnamed, tmp_path)
    digest = hashlib.sha256((tmp_path / cables_csv.FILENAME).read_bytes()).hexdigest()
    assert digest == BEFORE[RAIL_4_UNITS]
    block = unnamed.summary["placement"]
    assert set(block["candidates"]) == {"rails", "rails-centred", "rails-spread", "partition"}
    assert block["method"] == min(block["candidates"], key=block["candidates"].get)
    assert block["network_rows"]["floor"] is None
    servers = unnamed.devices[unnamed.devices["kind"] == "endpoint"]
    server_rows = {c.rstrip("0123456789") for c in servers["cabinet"]}
    assert set(block["network_rows"]["rows"]) <= server_rows


def test_other_families_ignore_the_field(tmp_path):
    """A fat tree without servers: the same cables.csv with and without network_rows, and
    no network_rows block in summary.json."""
    written = {}
    for line in ("network_rows: end", ""):
        plan = _plan("fattree:k=8", _floor_with(tmp_path, line))
        out = tmp_path / (line.split(":")[0] or "unset")
        out.mkdir()
        cables_csv.write(plan, out)
        written[line] = (out / cables_csv.FILENAME).read_bytes()
        assert "network_rows" not in plan.summary["placement"]
    assert written["network_rows: end"] == written[""]


def test_an_unknown_position_names_the_field(tmp_path):
    with pytest.raises(InputError, match="network_rows"):
        _floor_with(tmp_path, "network_rows: sides")


@pytest.mark.parametrize("where", ["end", "middle"])
def test_every_candidate_keeps_the_rows_across_halls(where, tmp_path):
    """A multi-plane fabric (8 planes of 16-port two-tier fat trees: pods are leaf columns
    across the planes) on halls of 3 rows of 30 cabinets, which it spreads over three halls:
    in every candidate no (hall, row) holds both a spine and a pod's leaf or server, and each
    pod's leaves stand in a row of its servers."""
    from planner import topologies
    from planner.inputs.catalog.servers import server_model_for
    from planner.placement import _router_model, rails

    catalog = load_catalog("ndr-400g")
    floor = _floor_with(tmp_path, f"network_rows: {where}",
                        {"rows": 3, "cabinets_per_row": 30, "max_cabinets_per_row": 30})
    topology = topologies.parse_spec("multiplane:planes=8,radix=16")
    pods = rails.pods_of(topology)
    pool = rails.candidates(topology, floor, catalog, server_model_for(catalog, topology),
                            _router_model(catalog, topology.radix))
    assert len(pool) == 2
    for name, candidate in pool.items():
        layout = candidate.layout
        place = layout.hall * 1000 + layout.row          # (hall, row) of every cabinet
        router_row = place[layout.router_cabinet]
        server_row = place[candidate.server_cabinet]
        spine_rows = set(router_row[pods.router_pod < 0].tolist())
        pod_rows = set(router_row[pods.router_pod >= 0].tolist()) | set(server_row.tolist())
        assert len(set(layout.hall[layout.router_cabinet].tolist())) > 1, name
        assert not spine_rows & pod_rows, name
        for p in range(pods.count):
            mine = set(server_row[pods.server_pod == p].tolist())
            assert set(router_row[pods.router_pod == p].tolist()) <= mine, (name, p)
