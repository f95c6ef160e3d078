"""A multi-link cable assembly is one piece (``planner.cabling.pieces``): on every built-in
catalog, ``summary.json`` ``cables.by_sku`` equals the quantities of ``bom.xlsx``'s cable, fibre
and trunk lines part number by part number, and ``labels.csv`` has one row per connector end of
every piece: a twin-port end (both ends of a twin-port DAC/ACC between two switches, the head of
a splitter) one label, a splitter's tails one each. The assemblies and their connector ends are
worked out here again from ``cables.csv`` and the catalog, by the BOM's rule (k links of one
router pair, or of one splitter head's router, at one part number and stock length, in cable
order).
"""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from pathlib import Path

import openpyxl
import pytest

from planner.exports import bom_xlsx, cables_csv, labels, summary_json
from planner.inputs.catalog import list_catalogs, load_catalog
from planner.plan import plan
from planner.topologies.base import Topology
from planner.topologies.dragonfly import dragonfly
from test_plan_invariants import part_by_number, segment_pieces

CATALOGS = list_catalogs()
LINK_ITEMS = {"cable", "fibre", "trunk"}


def _ring() -> Topology:
    """6 routers in a ring of doubled links, one pair tripled, 3 endpoints each: a twin-port
    assembly carries two links of a pair or the odd third, a splitter two NICs or the third."""
    edges = [(i, (i + 1) % 6) for i in range(6)] * 2 + [(0, 3)] * 3
    return Topology.from_edges("import", {"source": "test"}, 6, edges, 3)


PLANS = [(name, "ring") for name in CATALOGS] + [("eth-51t", "dragonfly"),
                                                  ("ndr-400g", "dragonfly")]
"""Every built-in catalog on the ring; the twin-port catalogs also on a Dragonfly (h=2) that
runs links through patch panels (cords and trunks)."""


TALL_ROUTERS = {"xdr-800g"}
"""Catalogs whose router (4U) does not fit two to a hot-aisle cabinet."""


@pytest.fixture(scope="module", params=PLANS, ids="-".join)
def written(request, tmp_path_factory):
    """The plan on the hot-aisle floor (structured cabling) where the catalog has patch panels,
    else on pn-500; a catalog that does not buy endpoint cables is planned without them, so
    every piece is bought."""
    name, family = request.param
    catalog = load_catalog(name)
    top = _ring() if family == "ring" else dragonfly(h=2)
    floor = "hot-aisle" if catalog.panels and name not in TALL_ROUTERS else "pn-500"
    p = plan(top, name, floor, strategy="hint",
             time_limit_s=5, seed=0, endpoint_cables=bool(catalog.count_endpoint_cables))
    out = tmp_path_factory.mktemp(name)
    for writer in (summary_json, cables_csv, bom_xlsx, labels):
        writer.write(p, out)
    return p, out, family


def _rows(path: Path) -> list[dict[str, str]]:
    """A CSV's rows; of cables.csv and labels.csv the fabric's (the management cords':
    tests/test_fabric_devices.py)."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return [r for r in csv.DictReader(fh) if "mgmt" not in (r.get("kind"), r.get("piece"))]


def bom_quantities(path: Path) -> dict[str, int]:
    """Quantity per part number of the cable, fibre and trunk lines of bom.xlsx's BOM sheet."""
    sheet = openpyxl.load_workbook(path, read_only=True)["BOM"]
    rows = sheet.iter_rows(values_only=True)
    head = next(rows)
    item, sku, qty = head.index("Item"), head.index("Catalog SKU"), head.index("Quantity")
    out: Counter = Counter()
    for row in rows:
        if row[item] in LINK_ITEMS:
            out[row[sku]] += int(row[qty])
    return dict(out)


def expected_connectors(p, out: Path) -> Counter:
    """(piece id, end, device, ports) of every connector end, from cables.csv and the catalog:
    a cable between devices grouped into assemblies by the BOM's rule, a link through panels its
    two cords (device port and panel front port), each trunk of the segments once."""
    parts = part_by_number(p.catalog)
    groups: dict[tuple, list[dict]] = defaultdict(list)
    ends: Counter = Counter()
    trunks: dict[str, tuple] = {}
    for row in _rows(out / "cables.csv"):
        if row["segments"]:
            seg = segment_pieces(row["segments"])
            ports = [x for x in seg if x[0] == "port"]
            for end, panel in (("A", ports[0]), ("B", ports[-1])):
                cord = row["cable_id"] + "." + end
                ends[(cord, "A", row[f"{end.lower()}_device"], row[f"{end.lower()}_port"])] += 1
                ends[(cord, "B", panel[1], panel[2])] += 1
            trunks.update({x[1]: x for x in seg if x[0] == "trunk"})
            continue
        model = parts[row["sku"]]
        links = model.links if not row["a_transceiver"] else 1
        if links > 1 and model.split:
            key = ("split", row["a_device"])
        elif links > 1:
            key = ("pair",) + tuple(sorted((row["a_device"], row["b_device"])))
        else:
            key = ("own", row["cable_id"])
        groups[(row["sku"], float(row["order_length_m"])) + key].append(row)
    for key, rows in groups.items():
        links = 1 if key[2] == "own" else parts[key[0]].links
        for start in range(0, len(rows), links):
            legs = rows[start:start + links]
            piece = "+".join(r["cable_id"] for r in legs)
            for end in "ab":
                twin = key[2] == "pair" or (key[2] == "split" and end == "a")
                if twin:
                    ends[(piece, end.upper(), legs[0][f"{end}_device"],
                          "+".join(r[f"{end}_port"] for r in legs))] += 1
                else:
                    for r in legs:
                        ends[(piece, end.upper(), r[f"{end}_device"], r[f"{end}_port"])] += 1
    return ends, trunks


def test_by_sku_is_the_bom(written):
    out = written[1]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["cables"]["by_sku"] == bom_quantities(out / "bom.xlsx")


def test_labels_are_one_per_connector_end(written):
    p, out, _ = written
    want, trunks = expected_connectors(p, out)
    got = _rows(out / "labels.csv")
    trunk_rows = [r for r in got if r["piece"] == "trunk"]
    assert Counter(r["cable_id"] for r in trunk_rows) == {t: 2 for t in trunks}
    rest = Counter((r["cable_id"], r["end"], r["this_device"], r["this_port"])
                   for r in got if r["piece"] != "trunk")
    assert rest == want
    assert len(got) == sum(want.values()) + 2 * len(trunks)


def test_an_assembly_label_names_every_leg(written):
    """Each label of a multi-link assembly carries the assembly's id and its label names every
    leg's two ends, as the legs' own labels in cables.csv write them."""
    p, out, family = written
    by_id = {r["cable_id"]: r for r in _rows(out / "cables.csv")}
    multi = [r for r in _rows(out / "labels.csv") if "+" in r["cable_id"]]
    for row in multi:
        legs = [by_id[c] for c in row["cable_id"].split("+")]
        a, b = row["label"].split("/")
        assert a.split("+") == [leg["label"].split("/")[0] for leg in legs]
        assert b.split("+") == [leg["label"].split("/")[1] for leg in legs]
        assert {leg["sku"] for leg in legs} == {row["sku"]}
    if family == "ring" and p.catalog.name in ("eth-51t", "ndr-400g"):
        shapes = {("+" in r["this_port"], "+" in r["peer_port"], "+" in r["peer_device"])
                  for r in multi}
        # a twin end facing a twin end, a splitter's head facing its NICs, a tail facing the head
        assert {(True, True, False), (True, True, True), (False, True, False)} <= shapes
