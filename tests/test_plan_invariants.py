"""Invariants every plan must satisfy, checked on plans of several families, floors and catalogs.

- each topology link appears exactly once as a cable, times its multiplicity;
- each router port is used at most once and never above the router model's radix;
- labels are unique, TIA-606 shaped and at most 100 characters; no two devices share a rack unit;
- summary.json totals equal the sums recomputed from cables.csv and the catalog;
- bom.xlsx read back with openpyxl has the same totals, and its Summary formulas reference BOM
  cells (evaluated here by summing the referenced cells).

``check_plan_folder`` is reused by the other plan tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest
from openpyxl.utils import range_boundaries

from planner.costing.bom import Spares
from planner.exports import bom_xlsx, cables_csv, summary_json
from planner.plan import plan
from planner.topologies.base import Topology
from planner.topologies.dragonfly import dragonfly
from planner.topologies.slimfly import slimfly
from test_cabling import make_catalog, make_floor, sf_rack_placement

LABEL = re.compile(r"^[A-Z]+\d{2,3}-(\d{2,}(\.\d+)?|N\d+):\d{2,}/[A-Z]+\d{2,3}-(\d{2,}(\.\d+)?|N\d+):\d{2,}$")


# ----------------------------------------------------------------------------- checks

def check_cables(p) -> None:
    """Links once per multiplicity, ports unique and within the radix, labels well formed."""
    cables, top = p.cables, p.topology
    net = cables[cables["kind"] == "network"]
    got = net.groupby(["a_router", "b_router"]).size()
    want = pd.Series(top.multiplicity, index=pd.MultiIndex.from_arrays(
        [top.links[:, 0], top.links[:, 1]], names=["a_router", "b_router"]))
    pd.testing.assert_series_equal(got.sort_index(), want.sort_index(), check_names=False)
    assert (net["a_router"] < net["b_router"]).all()

    ends = pd.concat([cables[["a_device", "a_port"]].set_axis(["device", "port"], axis=1),
                      net[["b_device", "b_port"]].set_axis(["device", "port"], axis=1)])
    assert not ends.duplicated().any(), "a router port is used twice"
    assert ends["port"].between(1, p.router_model.radix).all()
    per_router = ends.groupby("device").size()
    expect = pd.Series(top.degree + (top.endpoints if (cables["kind"] == "endpoint").any()
                                     else 0), index=p.devices["name"][:top.num_routers])
    assert per_router.reindex(expect.index, fill_value=0).tolist() == expect.tolist()

    endpoint = cables[cables["kind"] == "endpoint"]
    if len(endpoint):
        assert len(endpoint) == top.num_endpoints
        assert endpoint["b_port"].eq(1).all()
        assert (endpoint["a_cabinet"] == endpoint["b_cabinet"]).all()

    assert cables["label"].is_unique
    assert cables["label"].str.len().max() <= 100
    assert cables["label"].str.match(LABEL).all(), cables["label"][~cables["label"].str.match(LABEL)]
    assert cables["cable_id"].is_unique
    assert (cables["order_length_m"] + 1e-9 >= cables["length_m"]).all()

    ports = p.ports
    assert len(ports) == top.num_routers * p.router_model.radix
    assert int(ports["used"].sum()) == len(ends)

    devices = p.devices.dropna(subset=["ru"])
    if not p.floor.abstract and len(devices):
        units = devices.loc[devices.index.repeat(np.ceil(devices["height_ru"]).astype(int))]
        offset = units.groupby(level=0).cumcount()
        occupied = pd.DataFrame({"cabinet": units["cabinet"].to_numpy(),
                                 "unit": units["ru"].to_numpy(float) + offset.to_numpy()})
        assert not occupied.duplicated().any(), "two devices in one rack unit"
        assert occupied["unit"].max() <= p.floor.cabinet_height_ru


def without_runtimes(summary: dict) -> dict:
    """summary.json minus the wall-clock fields (the only ones allowed to differ between runs)."""
    data = json.loads(json.dumps(summary))
    data.pop("runtime", None)
    data["placement"].pop("stage_seconds", None)
    data["placement"].pop("runtime_s", None)
    return data


DESIGN_COLUMNS = ["cable_id", "label", "kind", "a_device", "a_port", "a_cabinet", "a_ru",
                  "b_device", "b_port", "b_cabinet", "b_ru", "media", "sku", "length_m",
                  "order_length_m", "latency_ns"]


def part_by_number(catalog) -> dict:
    """Every orderable part number of the catalog -> its part (the SKU for parts without a
    part-number rule), written out here from the catalog fields."""
    out = {}
    for m in catalog.cables:
        if m.part_numbers is None and m.generic and m.stock_lengths:
            # a generic part has no number: the planner names it "<sku>_<length>m"
            out.update({f"{m.sku}_{length:g}m": m for length in m.stock_lengths})
        elif m.part_numbers is None or not m.stock_lengths:
            out[m.sku] = m
        elif isinstance(m.part_numbers, dict):
            out.update({pn: m for pn in m.part_numbers.values()})
        else:
            for length in m.stock_lengths:
                whole = int(length)
                nv = f"{whole:03d}" if length == whole else f"{whole:02d}A"
                out[m.part_numbers.format(m=f"{length:g}", nv=nv, cm=round(length * 100),
                                          dm=round(length * 10), mm=round(length * 1000))] = m
    return out


def length_by_number(catalog) -> dict:
    """Every orderable part number of a part sold by stock length -> that length."""
    out = {}
    for m in catalog.cables:
        for length in m.stock_lengths:
            out[m.part_number(length)] = float(length)
    return out


def segment_pieces(text: str) -> list[tuple]:
    """The pieces of a ``segments`` cell, read as a cabling crew reads it: ``("cord", metres,
    part number)``, ``("trunk", id, metres, part number)`` and ``("port", panel, port)``."""
    out = []
    for piece in text.split(" | "):
        words = piece.split()
        if words[0] == "cord":
            assert words[2] == "m", piece
            out.append(("cord", float(words[1]), words[3]))
        elif words[0] == "trunk":
            assert words[3] == "m", piece
            out.append(("trunk", words[1], float(words[2]), words[4]))
        else:
            panel, port = piece.rsplit(":", 1)
            out.append(("port", panel, port))
    return out


def check_segments(p, cables: pd.DataFrame) -> None:
    """Links that leave their row on a structured floor list cord, panel ports, trunk(s), panel
    ports, cord, unless a copper assembly reaches them (then they run point to point); the
    computed pieces add up to the route length; a trunk is one part (one part number) wherever
    it appears and carries at most its fibres' worth of links; other cables have no segments."""
    structured = cables["segments"] != ""
    if not p.floor.structured_cabling:
        assert not structured.any()
        return
    assert set(cables.loc[structured, "route_kind"]) <= {"cross-row", "cross-hall"}
    direct = cables.loc[~structured]
    assert (direct["route_kind"].isin(["cabinet", "row"]) | (direct["media"] == "electrical")).all()
    assert (cables.loc[structured, "media"] == "optical").all()
    assert (cables.loc[structured, "a_transceiver"] != "").all()
    parts = part_by_number(p.catalog)
    trunk_part, trunk_links = {}, {}
    for row in cables[structured].itertuples(index=False):
        pieces = segment_pieces(row.segments)
        kinds = [x[0] for x in pieces]
        hall = row.route_kind == "cross-hall"
        assert kinds == (["cord", "port", "trunk", "port", "port", "trunk", "port", "port",
                          "trunk", "port", "cord"] if hall else
                         ["cord", "port", "trunk", "port", "cord"]), row.segments
        metres = sum(x[1] for x in pieces if x[0] == "cord") + sum(
            x[2] for x in pieces if x[0] == "trunk")
        assert metres == pytest.approx(row.length_m, abs=1e-6), row.segments
        for x in pieces:
            if x[0] == "trunk":
                assert trunk_part.setdefault(x[1], x[3]) == x[3]
                trunk_links[x[1]] = trunk_links.get(x[1], 0) + 1
            if x[0] == "cord":
                assert parts[x[2]].kind == "fibre"
    legs = {tid: p.catalog.links_per_trunk(parts[number]) for tid, number in trunk_part.items()}
    assert all(trunk_links[tid] <= legs[tid] for tid in trunk_links)


def bom_from_csv(p, cables: pd.DataFrame) -> dict[tuple, tuple[int, float]]:
    """(item, part number, length) -> (quantity, unit price) of the link parts, counted from
    cables.csv (a part sold without part numbers has one line per length):
    a transceiver per router end, ``ceil(ends / ports)`` per router for multi-port modules, one
    NIC-end module per endpoint link, one fibre per transceiver link, an assembly per link or
    ``ceil(links / links per assembly)`` per router pair (per router for a splitter); a link
    through patch panels (``segments``) has its two cords instead of one fibre, and each trunk
    named in the segments is one trunk part."""
    catalog = p.catalog
    parts = part_by_number(catalog)
    stock = length_by_number(catalog)
    trunks: dict[str, str] = {}
    costed = cables[(cables["kind"] == "network") | catalog.count_endpoint_cables]
    groups: dict[tuple, int] = {}
    price: dict[tuple, float] = {}

    def add(item, number, group, length):
        key = (item, number, None if item == "transceiver" else float(length))
        groups[key + (group,)] = groups.get(key + (group,), 0) + 1
        model = parts[number]
        at = length
        if model.media == "optical" and catalog.optical_average_length_m is not None:
            at = model.order_length(catalog.optical_average_length_m)
        price[key] = model.price(at) if item != "transceiver" else model.price(0)

    for row in costed.itertuples(index=False):
        network = row.kind == "network"
        if row.a_transceiver:
            add("transceiver", row.a_transceiver, row.a_device, 0)
            add("transceiver", row.b_transceiver, row.b_device if network else row.cable_id, 0)
            if row.segments:
                for piece in segment_pieces(row.segments):
                    if piece[0] == "cord":
                        add("fibre", piece[2], (row.cable_id, piece[1]), stock[piece[2]])
                    elif piece[0] == "trunk":
                        trunks[piece[1]] = piece[3]
            else:
                add("fibre", row.sku, row.cable_id, row.order_length_m)
        else:
            model = parts[row.sku]
            group = (row.a_device if model.split else
                     tuple(sorted((row.a_device, row.b_device))) if model.links > 1
                     else row.cable_id)
            add("cable", row.sku, (group, row.order_length_m), row.order_length_m)
    for tid, number in trunks.items():
        add("trunk", number, tid, stock[number])
    out: dict[tuple, list] = {}
    for (item, number, length, _group), n in groups.items():
        model = parts[number]
        per = (model.ports if item == "transceiver" else 1 if item in ("fibre", "trunk")
               else model.links)
        key = (item, number, length)
        out.setdefault(key, [0, price[key]])[0] += -(-n // per)
    return {k: (v[0], v[1]) for k, v in out.items()}


def end_watts_from_csv(p, cables: pd.DataFrame) -> float:
    """Watts at both ends of every cable: a module's power over the ports it serves, an
    assembly's power per end over the links it carries."""
    parts = part_by_number(p.catalog)
    total = 0.0
    for row in cables.itertuples(index=False):
        if row.a_transceiver:
            a, b = parts[row.a_transceiver], parts[row.b_transceiver]
            total += a.watts_per_end / a.ports + b.watts_per_end / b.ports
        else:
            m = parts[row.sku]
            total += 2 * m.watts_per_end / m.links
    return total


def pieces_by_sku(cables: pd.DataFrame, catalog) -> dict[str, int]:
    """Pieces per part number read from cables.csv: a cable's own part (a multi-link assembly
    once per ``links`` links of one router pair, or of a splitter's router, at one stock
    length); a link through panels its two cords and its trunks, each trunk id once (the
    segments); each end's part (``a_sku``, ``b_sku``) is that end's cord."""
    parts = part_by_number(catalog)
    counts: dict[str, int] = {}
    trunks: dict[str, str] = {}
    assemblies: dict[tuple, int] = {}
    for row in cables.itertuples(index=False):
        if not row.segments:
            assert row.a_sku == row.b_sku == row.sku
            model = parts[row.sku]
            if not row.a_transceiver and model.links > 1:
                group = (row.a_device if model.split
                         else tuple(sorted((row.a_device, row.b_device))))
                key = (row.sku, row.order_length_m, group)
                assemblies[key] = assemblies.get(key, 0) + 1
                continue
            counts[row.sku] = counts.get(row.sku, 0) + 1
            continue
        pieces = segment_pieces(row.segments)
        cords = [x[2] for x in pieces if x[0] == "cord"]
        assert [row.a_sku, row.b_sku] == cords and row.sku == cords[0]
        for sku in cords:
            counts[sku] = counts.get(sku, 0) + 1
        trunks.update({x[1]: x[3] for x in pieces if x[0] == "trunk"})
    for sku in trunks.values():
        counts[sku] = counts.get(sku, 0) + 1
    for (sku, _, _), n in assemblies.items():
        counts[sku] = counts.get(sku, 0) - (-n // parts[sku].links)
    return dict(sorted(counts.items()))


def check_summary_against_csv(p, out: Path) -> None:
    """summary.json == sums recomputed from cables.csv and the catalog; the BOM's link parts ==
    the counts of cables.csv."""
    summary = json.loads((out / "summary.json").read_text())
    assert without_runtimes(summary) == without_runtimes(json.loads(summary_json.dumps(p.summary)))
    cables = pd.read_csv(out / "cables.csv", keep_default_na=False)
    cables = cables[cables["kind"] != "mgmt"]  # the fabric's; mgmt cords: test_fabric_devices
    assert list(cables.columns[:16]) == DESIGN_COLUMNS
    assert list(cables.columns[16:]) == ["route_kind", "a_transceiver", "b_transceiver",
                                         "segments", "fibre_m", "connections", "loss_db",
                                         "a_sku", "b_sku", "a_assembly", "b_assembly"]
    catalog, top, model = p.catalog, p.topology, p.router_model
    expected = bom_from_csv(p, cables)
    check_segments(p, cables)
    got = p.bom[p.bom["item"].isin(["transceiver", "cable", "fibre", "trunk"])]
    got = {(i, s, None if np.isnan(x) else float(x)): (int(q), float(u)) for i, s, x, q, u in
           zip(got["item"], got["sku"], got["length_m"], got["quantity"], got["unit_price"])}
    assert set(got) == set(expected)
    for key, (qty, unit) in expected.items():
        assert got[key][0] == qty, key
        assert got[key][1] == pytest.approx(unit), key
    spares_pct = summary["bom"]["spares"]
    pct = {"transceiver": spares_pct["optics"], "cable": spares_pct["cables"],
           "fibre": spares_pct["cables"], "trunk": spares_pct["cables"],
           "switch": spares_pct["switches"]}
    for line in p.bom.itertuples(index=False):
        want = -(-line.quantity * round(pct.get(line.item, 0) * 100) // 10_000)
        assert line.spares == want, line
    optics = sum(q * u for (item, *_), (q, u) in expected.items() if item == "transceiver")
    cable_cost = sum(q * u for (item, *_), (q, u) in expected.items() if item != "transceiver")
    router_cost = top.num_routers * model.price(top.radix)
    nic_cost = top.num_endpoints * catalog.nic_price
    cost = summary["cost"]
    assert cost["routers"] == pytest.approx(router_cost, abs=0.01)
    assert cost["cables"] == pytest.approx(cable_cost, abs=0.01)
    assert cost["optics"] == pytest.approx(optics, abs=0.01)
    spares = float((p.bom["spares"] * p.bom["unit_price"]).sum())
    assert cost["nics"] == pytest.approx(nic_cost, abs=0.01)
    panels = {piece[1] for text in cables["segments"] if text
              for piece in segment_pieces(text) if piece[0] == "port"}
    panel_lines = p.bom[p.bom["item"] == "panel"]
    assert int(panel_lines["quantity"].sum()) == len(panels)
    panel_cost = float((panel_lines["quantity"] * panel_lines["unit_price"]).sum())
    if panels:
        by_sku = {m.sku: m.price for m in catalog.panels}
        assert panel_lines["unit_price"].tolist() == [by_sku[s] for s in panel_lines["sku"]]
    assert cost["panels"] == pytest.approx(panel_cost, abs=0.01)
    assert cost["total"] == pytest.approx(router_cost + cable_cost + optics + nic_cost + spares
                                          + panel_cost + cost["licences"] + cost["rack"]
                                          + cost["management"] + cost["power"] + cost["support"],
                                          abs=0.01)
    # per_endpoint is rounded to cents: half a cent off, plus float noise at exact half cents
    assert cost["per_endpoint"] == pytest.approx(cost["total"] / top.num_endpoints, abs=0.0051)

    power = (top.num_routers * (model.base_watts + model.power_w(top.radix))
             + end_watts_from_csv(p, cables)
             + (catalog.nic_watts + catalog.endpoint_watts) * top.num_endpoints)
    if p.fabric is not None:        # subnet manager and management switches (PDUs draw none)
        power += float(p.fabric.devices["watts"].sum())
        assert summary["power"]["fabric_w"] == pytest.approx(p.fabric.devices["watts"].sum())
    assert summary["power"]["total_w"] == pytest.approx(power, abs=0.001)
    assert summary["power"]["per_endpoint_w"] == pytest.approx(power / top.num_endpoints,
                                                               abs=0.0005)
    for kind in ("network", "endpoint"):
        part = cables[cables["kind"] == kind]
        block = summary["cables"][kind]
        assert block["count"] == len(part)
        assert block["electrical"] == int((part["media"] == "electrical").sum())
        assert block["optical"] == int((part["media"] == "optical").sum())
        assert block["length_m"] == pytest.approx(part["length_m"].sum(), abs=1e-6)
    assert summary["cables"]["by_sku"] == pieces_by_sku(cables, catalog)
    assert summary["topology"]["links"] == int((cables["kind"] == "network").sum())
    for key in ("family", "params", "routers", "endpoints", "radix", "links", "diameter"):
        assert key in summary["topology"]
    for key in ("strategy", "method", "cabinets", "groups", "optical_lower_bound", "runtime_s"):
        assert key in summary["placement"]
    for key in ("routers", "cables", "total", "per_endpoint"):
        assert key in summary["cost"]


def evaluate(formula: str, book, sheet) -> float:
    """Evaluate the formulas bom.xlsx uses: SUM(range), SUMIF(range,"text",range), cell
    references (own sheet or Sheet!A1), + - * / and parentheses."""

    def cells(ref: str):
        ws = sheet
        if "!" in ref:
            name, ref = ref.split("!")
            ws = book[name.strip("'")]
        lo_c, lo_r, hi_c, hi_r = range_boundaries(ref.replace("$", ""))
        return [[value(ws, ws.cell(r, c).value) for c in range(lo_c, hi_c + 1)]
                for r in range(lo_r, hi_r + 1)], ws

    def value(ws, v):
        return evaluate(v, book, ws) if isinstance(v, str) and v.startswith("=") else v

    def flat(ref):
        return [v for row in cells(ref)[0] for v in row]

    def sumif(m):
        keys, crit, vals = flat(m.group(1)), m.group(2), flat(m.group(3))
        return repr(float(sum(v or 0 for k, v in zip(keys, vals) if k == crit)))

    def sumproduct(m):
        return repr(float(sum((a or 0) * (b or 0) for a, b in zip(flat(m.group(1)),
                                                                   flat(m.group(2))))))

    expr = formula.lstrip("=")
    ref = r"(?:'?[A-Za-z ()0-9]+'?!)?\$?[A-Z]+\$?\d+(?::\$?[A-Z]+\$?\d+)?"
    expr = re.sub(rf'SUMIF\(({ref}),"([^"]*)",({ref})\)', sumif, expr)
    expr = re.sub(rf"SUMPRODUCT\(({ref}),({ref})\)", sumproduct, expr)
    expr = re.sub(rf"SUM\(({ref})\)", lambda m: repr(float(sum(v or 0 for v in flat(m.group(1))))),
                  expr)
    expr = re.sub(ref, lambda m: repr(float(cells(m.group(0))[0][0][0] or 0)), expr)
    assert re.fullmatch(r"[0-9.eE+\-*/() ]+", expr), expr
    return float(eval(expr))  # noqa: S307 - digits and operators only (asserted above)


def check_workbook(p, out: Path) -> None:
    """bom.xlsx: sheets, BOM values, Summary formulas over BOM cells equal the summary, and every
    formula carries a cached value equal to its evaluation (what openpyxl ``data_only`` and
    pandas read)."""
    book = openpyxl.load_workbook(out / "bom.xlsx")
    cached = openpyxl.load_workbook(out / "bom.xlsx", data_only=True)
    assert book.sheetnames[:2] == ["Summary", "BOM"]
    assert {"Cables", "Cabinets", "Ports"} <= set(book.sheetnames)
    bom_ws = book["BOM"]
    n = len(p.bom)
    for r in range(2, n + 2):
        assert bom_ws[f"H{r}"].value == f"=(E{r}+F{r})*G{r}"
    values = [evaluate(bom_ws[f"H{r}"].value, book, bom_ws) for r in range(2, n + 2)]
    assert values == pytest.approx(p.bom["extended_price"].tolist())
    assert [bom_ws[f"B{r}"].value for r in range(2, n + 2)] == p.bom["part_number"].tolist()
    last = bom_ws.max_column        # the Catalog SKU, the plan's name of every line
    assert bom_ws.cell(1, last).value == "Catalog SKU"
    assert [bom_ws.cell(r, last).value for r in range(2, n + 2)] == p.bom["sku"].tolist()
    assert bom_ws.freeze_panes == "A2"
    for name in ("Summary", "BOM"):
        for row in book[name].iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    value = cached[name][cell.coordinate].value
                    assert value is not None, (name, cell.coordinate)
                    assert value == pytest.approx(evaluate(cell.value, book, book[name]),
                                                  abs=1e-6), (name, cell.coordinate)
    total = [r for r in bom_ws.iter_rows(min_row=n + 2) if r[0].value == "Total"]
    assert len(total) == 1 and total[0][4].value is None      # no sum of unlike quantities
    assert evaluate(total[0][7].value, book, bom_ws) == pytest.approx(p.summary["cost"]["total"],
                                                                      abs=0.01)

    summary_ws = book["Summary"]
    rows = {summary_ws[f"A{r}"].value: summary_ws[f"B{r}"].value
            for r in range(1, summary_ws.max_row + 1)}
    cost, bom = p.summary["cost"], p.bom
    spare_cost = (bom["spares"] * bom["unit_price"]).groupby(bom["item"]).sum()
    expected = {"Switches": p.topology.num_routers,
                "Switch cost": cost["routers"] + spare_cost.get("switch", 0.0),
                "NIC cost": cost["nics"],
                "Cable and fibre cost": cost["cables"] + spare_cost.get("cable", 0.0)
                + spare_cost.get("fibre", 0.0) + spare_cost.get("trunk", 0.0),
                "Optics cost": cost["optics"] + spare_cost.get("transceiver", 0.0),
                "Spares cost": cost["spares"],
                "Total cost": cost["total"], "Cost per endpoint": cost["per_endpoint"],
                "Power per endpoint (W)": p.summary["power"]["per_endpoint_w"]}
    for label, want in expected.items():
        formula = rows[label]
        assert isinstance(formula, str) and formula.startswith("="), label
        if label not in ("Cost per endpoint", "Power per endpoint (W)"):
            assert "BOM!" in formula, formula
        assert evaluate(formula, book, summary_ws) == pytest.approx(want, abs=0.01), label

    cables_ws = book["Cables"]
    assert cables_ws.max_row == len(p.cables) + 1
    got = [c.value for c in cables_ws["B"][1:]]
    assert got == p.cables["label"].tolist()
    assert [c.value for c in cables_ws["N"][1:]] == pytest.approx(p.cables["length_m"].tolist())
    assert book["Ports"].max_row == len(p.ports) + 1
    cabinets = pd.read_excel(out / "bom.xlsx", sheet_name="Cabinets")
    assert len(cabinets) == len(p.cabinets) and cabinets.shape[1] == p.cabinets.shape[1]
    assert cabinets.iloc[:, 0].tolist() == p.cabinets.iloc[:, 0].astype(str).tolist()


def write_mine(p, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    for writer in (summary_json, cables_csv, bom_xlsx):
        writer.write(p, out)
    return out


def check_plan_folder(p, out: Path) -> None:
    check_cables(p)
    check_summary_against_csv(p, out)
    check_workbook(p, out)


# ----------------------------------------------------------------------------- plans

def _trunked() -> Topology:
    """A ring of 6 routers with doubled links and one tripled pair (multiplicity > 1)."""
    edges = [(i, (i + 1) % 6) for i in range(6)] * 2 + [(0, 3)] * 3
    return Topology.from_edges("import", {"source": "test"}, 6, edges, 2)


PLANS = {
    "hand-sf5": lambda: plan(slimfly(5, p=3), make_catalog(), make_floor(),
                             placement=sf_rack_placement(), spares_pct=10),
    "sf5-hot-aisle-optimize": lambda: plan(slimfly(5), "modern-100g", "hot-aisle",
                                           strategy="optimize", time_limit_s=5),
    "df-h2-hot-aisle-partition": lambda: plan(dragonfly(h=2), "modern-100g", "hot-aisle",
                                              strategy="partition", time_limit_s=5),
    "sf7-paper-mode": lambda: plan(slimfly(7), "sc14-40g-pn10k", "pn-500", strategy="hint",
                                   endpoint_cables=False),
    "trunked-ring-400g": lambda: plan(_trunked(), "ndr-400g", "hot-aisle", strategy="hint"),
    "df-h2-51t-spares": lambda: plan(dragonfly(h=2), "eth-51t", "hot-aisle", strategy="hint",
                                     spares=Spares(switches=5, optics=2, cables=10)),
    "sf5-xdr-800g": lambda: plan(slimfly(5), "xdr-800g", "pn-500", strategy="hint"),
}


@pytest.fixture(scope="module", params=sorted(PLANS))
def planned(request, tmp_path_factory):
    p = PLANS[request.param]()
    return p, write_mine(p, tmp_path_factory.mktemp(request.param))


def test_cable_invariants(planned):
    check_cables(planned[0])


def test_summary_equals_csv_and_catalog(planned):
    check_summary_against_csv(*planned)


def test_workbook_totals_and_formulas(planned):
    check_workbook(*planned)


def test_same_inputs_same_bytes(planned, tmp_path):
    p, out = planned
    if p.placement.method == "hand":
        again = plan(p.topology, p.catalog, p.floor, placement=p.placement, spares_pct=10)
    else:
        opts = p.summary["options"]
        again = plan(p.topology, p.catalog, p.floor, strategy=opts["strategy"],
                     time_limit_s=opts["time_limit_s"], endpoint_cables=opts["endpoint_cables"],
                     spares=Spares(**opts["spares"]))
    other = write_mine(again, tmp_path / "again")
    assert (out / "cables.csv").read_bytes() == (other / "cables.csv").read_bytes()
    assert without_runtimes(json.loads((out / "summary.json").read_text())) == \
        without_runtimes(json.loads((other / "summary.json").read_text()))
