"""``planner expand``'s bill of the new parts counts the standing fabric lines as reused: PDUs,
power cords, management switches and cords, subnet manager and support
(``planner.costing.growth_reuse``; docs/growth.md "Outputs").

One small Dragonfly (a=4, p=2, h=2, g=5: 20 routers of 2 hosts, 2 routers per cabinet: 10
cabinets) is planned once on a fixed hall (8 rows of 24 cabinets, no structured cabling), then
expanded to the very same spec (nothing is new) and to g=9 (16 routers added in 8 new
cabinets), from the plan and from an as-built read with a floor naming the standing switches.
bom_growth.csv is read back as a buyer reads it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.plan_folders import cli
from tests.test_expand_asbuilt import _fabric, _floor_with_devices, _links
from tests.test_verify import write_csv

ROOM = {"extends": "hot-aisle", "name": "room-fabric-bom",
        "hall": {"rows": 8, "cabinets_per_row": 24}, "structured_cabling": False}
OLD, NEW = "dragonfly:a=4,p=2,h=2,g=5", "dragonfly:a=4,p=2,h=2,g=9"
FABRIC = ("subnet_manager", "mgmt_switch", "mgmt_cable", "pdu", "power_cord", "support")


def _growth(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "bom_growth.csv")


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


def _line(bom: pd.DataFrame, item: str) -> pd.Series:
    return bom[bom["item"] == item][["quantity", "reused", "new", "new_price"]].sum()


@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    """Folders: the standing plan, its expansion to the same spec and to g=9 from the plan,
    and both again from the as-built with a floor naming the standing switches."""
    base = tmp_path_factory.mktemp("fabric-bom")
    room = base / "room.yaml"
    room.write_text(yaml.safe_dump(ROOM))
    old = base / "old"
    assert cli("plan", "--topology", OLD, "--catalog", "modern-100g", "--floor", room,
                "--out", old, "--strategy", "hint", "--resilience", "off") == 0
    cables = _fabric(old)
    as_built = write_csv(_links(cables), base / "asbuilt.csv", per_end=False)
    floor = base / "floor.yaml"
    floor.write_text(yaml.safe_dump(_floor_with_devices(ROOM, cables)))
    out = {"old": old}
    for name, spec in (("same", OLD), ("g9", NEW)):
        out[name] = base / name
        assert cli("expand", "--from", old, "--topology", spec, "--floor", room,
                    "--out", out[name]) == 0
        out[f"{name}-as-built"] = base / f"{name}-as-built"
        assert cli("expand", "--as-built", as_built, "--floor", floor, "--topology", spec,
                    "--out", out[f"{name}-as-built"]) == 0
    ib = base / "ib-old"
    assert cli("plan", "--topology", OLD, "--catalog", "ndr-400g", "--floor", room,
                "--out", ib, "--strategy", "hint", "--resilience", "off") == 0
    for name, spec in (("ib-same", OLD), ("ib-g9", NEW)):
        out[name] = base / name
        assert cli("expand", "--from", ib, "--topology", spec, "--floor", room,
                    "--out", out[name]) == 0
    return out


@pytest.mark.parametrize("case", ["same", "same-as-built", "ib-same"])
def test_same_spec_buys_nothing(grown, case):
    """An expansion to the very system that stands: every line, fabric ones included, is all
    reused, new = 0 and new_price 0; bom.xlsx's BOM sheet (the parts to buy) is empty."""
    bom = _growth(grown[case])
    assert set(FABRIC[1:5]) <= set(bom["item"])          # the fabric lines are there
    assert (bom["reused"] == bom["quantity"]).all(), bom[bom["new"] != 0]
    assert (bom["new"] == 0).all() and (bom["new_price"] == 0).all()
    assert _summary(grown[case])["growth"]["new_parts_price"] == 0


def _rows(folder: Path) -> dict:
    """Cabinets per row of a plan's cabinets.csv."""
    cabs = pd.read_csv(folder / "cabinets.csv", dtype={"name": str, "row": str})
    return cabs[cabs["kind"] == "cabinet"].groupby("row").size().to_dict()


def _cords(folder: Path) -> dict:
    """Management cords per order length, from a plan's cables.csv."""
    cables = pd.read_csv(folder / "cables.csv", low_memory=False)
    return cables[cables["kind"] == "mgmt"].groupby("order_length_m").size().to_dict()


@pytest.mark.parametrize("case", ["g9", "g9-as-built"])
def test_growth_buys_the_fabric_of_the_new_cabinets(grown, case):
    """g=5 -> 9 at 2 routers per cabinet: 16 new routers in 8 new cabinets. The standing 10
    cabinets stand in rows A (6) and B (4); the grown 18 in A (10), B (6) and C (2).

    - PDUs: modern-100g's power has 2 feeds of 36 outlets; a cabinet of 2 routers (2 supplies
      each, well under a PDU's kW) takes one PDU per feed. Standing 10 x 2 = 20 reused, new
      8 x 2 = 16.
    - management switches: a group is up to 8 neighbouring cabinets of a row
      (``cabinets_per_switch: 8``), a switch has 48 ports, a router and a PDU one managed port
      each, so a group of at most 8 x 4 = 32 ports takes one switch. Standing groups: row A's 6
      cabinets, row B's 4: 2 switches, reused. Grown groups: row A's first 8 cabinets and its
      last 2, row B's 6, row C's 2: 4 switches; the 2 new ones serve the groups past the
      standing switches' (row A from column 9, row C).
    - power cords: 2 per router and per management switch: standing 20 x 2 + 2 x 2 = 44
      reused; new 16 x 2 + 2 x 2 = 36.
    - management cords: one per managed port: standing 40; grown 36 + 36 = 72. Reused per
      stock length: min(standing, grown) cords of each length, read from the two plans'
      cables.csv.
    """
    old, bom = _summary(grown["old"]), _growth(grown[case])
    assert _rows(grown["old"]) == {"A": 6, "B": 4}
    assert _rows(grown[case]) == {"A": 10, "B": 6, "C": 2}
    assert (old["fabric"]["pdus"], old["fabric"]["management_switches"],
            old["fabric"]["power_cords"]) == (20, 2, 44)
    pdu, cord = _line(bom, "pdu"), _line(bom, "power_cord")
    switch, mgmt = _line(bom, "mgmt_switch"), _line(bom, "mgmt_cable")
    assert (pdu["reused"], pdu["new"], pdu["new_price"]) == (20, 16, 16 * 1400.0)
    assert (switch["reused"], switch["new"]) == (2, 2)
    assert (cord["reused"], cord["new"]) == (44, 16 * 2 + 2 * 2)
    cords = _cords(grown["old"])
    assert sum(cords.values()) == 40 and mgmt["quantity"] == 72
    grown_cords = _cords(grown[case])
    assert mgmt["reused"] == sum(min(n, grown_cords.get(m, 0)) for m, n in cords.items())
    assert (bom["new"] == bom["quantity"] - bom["reused"]).all() and (bom["new"] >= 0).all()


def test_subnet_manager_and_support_of_the_standing_fabric_are_reused(grown):
    """ndr-400g: a UFM appliance pair (``subnet_manager: appliance, count 2``) and a support
    subscription per switch and per appliance. g=5 -> 9 keeps the pair (reused 2, new 0), the
    20 standing switches' support is contracted (reused 20) and the 16 new switches' is new."""
    bom = _growth(grown["ib-g9"])
    sm = bom[bom["item"] == "subnet_manager"]
    assert (sm["quantity"].sum(), sm["reused"].sum(), sm["new"].sum()) == (2, 2, 0)
    support = bom[bom["item"] == "support"].set_index("sku")
    switch_sku = bom[bom["item"] == "switch"]["sku"].iloc[0]
    switch_support = support[support["description"].str.contains(switch_sku, regex=False)]
    assert (switch_support["reused"].sum(), switch_support["new"].sum()) == (20, 16)
    appliance = support.drop(switch_support.index)
    assert (appliance["quantity"].sum(), appliance["new"].sum()) == (2, 0)


@pytest.mark.parametrize("case", ["g9", "g9-as-built", "ib-g9"])
def test_new_price_is_grown_total_less_reused(grown, case):
    """sum(new_price) = the grown plan's BOM total (summary.json cost.total, no spares) less
    the reused parts' value; bom_growth.csv holds every line of that total."""
    bom, cost = _growth(grown[case]), _summary(grown[case])["cost"]
    assert cost["spares"] == 0
    assert (bom["quantity"] * bom["unit_price"]).sum() == pytest.approx(cost["total"], abs=0.01)
    reused = (bom["reused"] * bom["unit_price"]).sum()
    assert bom["new_price"].sum() == pytest.approx(cost["total"] - reused, abs=0.01)
    assert _summary(grown[case])["growth"]["new_parts_price"] == pytest.approx(
        cost["total"] - reused, abs=0.01)
