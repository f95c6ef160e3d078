"""The bill of materials and the power of the rich fixture plan (tests/rich_plan.py), from
cables.csv and cabinets.csv read back and the catalog's prices and watts (tests/fixtures/rich/
catalog.yaml), added up here:

- switches: 24 at 10,000; NICs: 96 at 300; one SR module (300) per optical cable end;
- DAC assemblies per stock length (1/2/3 m at 50/60/70); MPO cords at 20 + 1 per ordered metre,
  one per direct optical cable and two per link through panels (the stock lengths its
  ``segments`` order); trunks at 200 + 4 per ordered metre, one per trunk id; panels at 240;
  one 12U frame at 900 per patch rack (the rack of a panel ``H1-A-P0.2-05`` is ``H1-A-P0.2``);
- spares per line ``ceil(quantity x pct / 100)``, extended = (quantity + spares) x unit price;
- power: a router draws 100 W + 12 ports x 4 lanes x 1 W (the topology's radix, 8 cables and 4
  endpoints on routers 1, 3, 9 and 17, counted on every router: the papers' rule), plus the cable
  ends plugged into it (DAC 0.1 W, SR 2.5 W); an endpoint 250 W + its NIC 5 W + its cable end.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from fractions import Fraction

import pytest

from planner.costing import bom as boms
from rich_plan import rich_folder, rich_plan

ROUTER_PRICE, NIC_PRICE, SR_PRICE, PANEL_PRICE, RACK_PRICE = 10000, 300, 300, 240, 900
DAC_PRICE = {1: 50, 2: 60, 3: 70}
END_WATTS = {"DAC": 0.1, "SR": 2.5}
ROUTER_BASE_W, PORTS_USED, LANES, LANE_W = 100, 12, 4, 1.0
ENDPOINT_W, NIC_W = 250, 5


def read_csv(name: str) -> list[dict[str, str]]:
    with open(rich_folder() / name, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if name == "cables.csv":                  # the fabric's; mgmt cords: test_fabric_devices
        return [r for r in rows if r["kind"] != "mgmt"]
    return rows


def metres_of(sku: str) -> float:
    """``OM4-3M`` -> 3.0."""
    return float(sku.rsplit("-", 1)[1][:-1])


def expected_lines() -> dict[tuple[str, str], tuple[int, float]]:
    """(item, sku) -> (quantity, unit price) from cables.csv and its segments."""
    qty: Counter = Counter()
    for row in read_csv("cables.csv"):
        if row["media"] == "electrical":
            qty[("cable", row["sku"])] += 1
            continue
        qty[("transceiver", "SR")] += 2
        if not row["segments"]:
            qty[("fibre", row["sku"])] += 1
            continue
        for piece in (p.strip() for p in row["segments"].split("|")):
            if piece.startswith("cord "):
                qty[("fibre", piece.split()[-1])] += 1
    trunks = {}
    for row in read_csv("cables.csv"):
        for piece in (p.strip() for p in row["segments"].split("|") if row["segments"]):
            if piece.startswith("trunk "):
                trunks[piece.split()[1]] = piece.split()[-1]
    for sku in trunks.values():
        qty[("trunk", sku)] += 1
    panels = {p.strip().split(":")[0] for row in read_csv("cables.csv") if row["segments"]
              for p in row["segments"].split("|")
              if not p.strip().startswith(("cord ", "trunk "))}
    price = {"cable": lambda s: DAC_PRICE[int(metres_of(s))], "transceiver": lambda s: SR_PRICE,
             "fibre": lambda s: 20 + metres_of(s), "trunk": lambda s: 200 + 4 * metres_of(s)}
    out = {key: (n, float(price[key[0]](key[1]))) for key, n in qty.items()}
    out[("switch", "SW-16")] = (24, float(ROUTER_PRICE))
    out[("nic", "NIC-100")] = (96, float(NIC_PRICE))
    out[("panel", "PNL-4U-8")] = (len(panels), float(PANEL_PRICE))
    out[("rack", "PR-12U")] = (len({p.rsplit("-", 1)[0] for p in panels}), float(RACK_PRICE))
    return out


def test_bom_lines_are_the_parts_cables_csv_names():
    """One BOM line per part number with the quantity and unit price added up from cables.csv
    (cords and trunks from its ``segments``, panels and patch racks from the panel ports they
    pass)."""
    bom = rich_plan().bom
    got = {(r.item, r.sku): (int(r.quantity), float(r.unit_price))
           for r in bom.itertuples(index=False)}
    assert got == expected_lines()
    assert (bom["extended_price"] == bom["quantity"] * bom["unit_price"]).all()
    cost = rich_plan().summary["cost"]
    total = sum(q * u for q, u in got.values())
    assert cost["total"] == pytest.approx(total)
    assert cost["per_endpoint"] == pytest.approx(total / 96, abs=0.005)
    by_class = Counter()
    for (item, _), (q, u) in got.items():
        by_class[boms.CLASS_OF[item]] += q * u
    for name in ("routers", "nics", "optics", "cables", "panels", "rack"):
        key = {"routers": "switches"}.get(name, name)
        assert cost[name] == pytest.approx(by_class[key]), name


SPARES = [(5.0, 10.0, 12.5), (0.0, 33.3, 100.0)]


@pytest.mark.parametrize("switches,optics,cables", SPARES)
def test_spares_round_up_per_line_and_are_priced(switches, optics, cables):
    p = rich_plan()
    spares = boms.Spares(switches=switches, optics=optics, cables=cables)
    bom = boms.build(p.catalog, p.router_model, p.topology.radix, p.topology.num_routers,
                     p.cables, spares, p.topology.num_endpoints, len(p.cabinets),
                     structured=p.structured)
    pct = {"switch": switches, "transceiver": optics, "cable": cables, "fibre": cables,
           "trunk": cables}
    for r in bom.itertuples(index=False):
        want = math.ceil(Fraction(int(r.quantity)) * Fraction(str(pct.get(r.item, 0))) / 100)
        assert int(r.spares) == want, (r.item, r.sku)
        assert r.extended_price == pytest.approx((r.quantity + r.spares) * r.unit_price)
    totals = boms.class_totals(bom)
    assert totals["spares"] == pytest.approx(float((bom["spares"] * bom["unit_price"]).sum()))
    assert totals["spares"] > 0


def test_power_of_routers_endpoints_and_cabinets():
    """summary.json ``power`` and cabinets.csv ``kw`` from the catalog's watts and the cable
    ends of cables.csv (one router and its 4 endpoints per cabinet); the patch and entry racks
    cabinets.csv lists after the cabinets draw nothing."""
    p = rich_plan()
    router_w = Counter({d: ROUTER_BASE_W + PORTS_USED * LANES * LANE_W
                        for d in p.devices.loc[p.devices["kind"] == "router", "name"]})
    endpoint_w = Counter()
    cables_w = 0.0
    for row in read_csv("cables.csv"):
        end = END_WATTS["SR" if row["media"] == "optical" else "DAC"]
        router_w[row["a_device"]] += end
        (router_w if row["kind"] == "network" else endpoint_w)[row["b_device"]] += end
        cables_w += 2 * end
    for device in list(endpoint_w):
        endpoint_w[device] += ENDPOINT_W + NIC_W
    power = p.summary["power"]
    total = sum(router_w.values()) + sum(endpoint_w.values())
    assert power["routers_w"] == pytest.approx(24 * (ROUTER_BASE_W + PORTS_USED * LANES * LANE_W))
    assert power["cables_w"] == pytest.approx(cables_w)
    assert power["endpoints_w"] == pytest.approx(96 * ENDPOINT_W)
    assert power["nics_w"] == pytest.approx(96 * NIC_W)
    assert power["total_w"] == pytest.approx(total, abs=1e-3)
    assert power["per_endpoint_w"] == pytest.approx(total / 96, abs=1e-3)
    cabinet_of = {d.name: d.cabinet for d in p.devices.itertuples(index=False)}
    kw = Counter()
    for device, watts in (router_w + endpoint_w).items():
        kw[cabinet_of[device]] += watts / 1000
    rows = read_csv("cabinets.csv")
    got = {r["name"]: float(r["kw"]) for r in rows if r["kind"] == "cabinet"}
    assert got == pytest.approx(dict(kw), abs=1e-4)
    racks = [r for r in rows if r["kind"] != "cabinet"]
    assert racks and all(r["kw"] == "" and r["routers"] == r["endpoints"] == "0" for r in racks)
    assert power["peak_cabinet_kw"] == pytest.approx(max(kw.values()), abs=1e-3)
    assert power["mean_cabinet_kw"] == pytest.approx(sum(kw.values()) / len(kw), abs=1e-3)
