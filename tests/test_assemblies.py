"""What is installed at each place, once: on an NDR plan (twin-port OSFP cages: twin-port DACs
between switches, splitters to HCAs, twin-port transceivers with a fibre per port, links
through patch panels) the rows of the cabinet sheets of wiring.pdf (read back with pypdf), the
labels, cables.csv's ``a_assembly`` / ``b_assembly`` and the viewer (its data and, in headless
Chromium, its cabinet list and cable panel) name the same assemblies, each once, and the pieces
and transceiver modules they list per part number are the BOM's lines.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest

from planner import exports
from planner.plan import plan
from planner.topologies.dragonfly import dragonfly
from test_pieces import csv_rows, pdf_rows
from test_pieces_assemblies import bom_quantities
from test_plan_invariants import part_by_number
from test_viewer import read_block
from test_viewer_browser import browser, errors, open_page, shown_cable, wait_for  # noqa: F401

SCHEDULE = re.compile(r"(?P<device>[^\u00b7]+)\u00b7(?P<ports>[\d+]+)(?: \(cage (?P<cage>\d+)\))?")
"""A schedule row's ``this port`` cell: ``r00·1+2 (cage 1)``."""


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Dragonfly h=2 with its local links doubled (two links per router pair in a group: a
    twin-port DAC carries both), the ndr-400g catalog, on the hot-aisle floor (structured
    cabling: global links through panels on twin-port SR8 modules; splitters to the HCAs)."""
    top = dragonfly(h=2)
    local = top.groups[top.links[:, 0]] == top.groups[top.links[:, 1]]
    top = dataclasses.replace(top, multiplicity=np.where(local, 2, 1).astype(np.int64))
    p = plan(top, "ndr-400g", "hot-aisle", strategy="hint", time_limit_s=5, seed=0,
             endpoint_cables=True)
    out = tmp_path_factory.mktemp("assemblies")
    exports.write_plan(p, out, jobs=1)
    return p, out


@pytest.fixture(scope="module")
def schedule(written):
    """Per cabinet, its schedule rows as dicts (piece, device, ports, cage, far end, label,
    sku, order, transceiver)."""
    p, out = written
    rows = pdf_rows(out / "wiring.pdf")
    keys = ["piece", "port", "arrow", "far", "label", "sku", "order", "transceiver", "link"]
    pieces = set(p.pieces.table["assembly"])
    got = {}
    for name in p.cabinets["name"]:
        body = [r for r in rows[f"Cabinet {name}"] if r and r[0] in pieces]
        got[name] = []
        for r in body:
            row = dict(zip(keys, r + [""] * (len(keys) - len(r))))
            m = SCHEDULE.fullmatch(row["port"])
            assert m, row
            row.update(device=m["device"], ports=m["ports"], cage=m["cage"])
            got[name].append(row)
    return got


def assemblies(out) -> dict[str, list[dict]]:
    """cables.csv's rows grouped by ``a_assembly`` (the piece at the A end)."""
    groups = defaultdict(list)
    for row in csv_rows(out / "cables.csv"):
        groups[row["a_assembly"]].append(row)
    return groups


def test_the_plan_has_every_kind_of_twin_port_part(written):
    p, out = written
    parts = part_by_number(p.catalog)
    multi = [rows for id_, rows in assemblies(out).items() if "+" in id_]
    split = {parts[r["sku"]].split for rows in multi for r in rows}
    assert split == {True, False}                   # splitters and twin-port DACs/ACCs
    ports = {m.sku: m.ports for m in p.catalog.cables if m.kind == "transceiver"}
    optics = {r["a_transceiver"] for r in csv_rows(out / "cables.csv") if r["a_transceiver"]}
    assert any(ports[o] == 2 for o in optics)


def test_cables_csv_groups_into_the_pieces(written):
    """Every link's a_/b_assembly: its own id, its cords' ``.A``/``.B``, or the multi-link
    assembly's ids joined by ``+``, carried by exactly those links, of one part number."""
    _, out = written
    for id_, rows in assemblies(out).items():
        ids = [r["cable_id"] for r in rows]
        if rows[0]["segments"]:
            assert rows[0]["b_assembly"] == rows[0]["cable_id"] + ".B"
            assert id_ == rows[0]["cable_id"] + ".A" and len(rows) == 1
            continue
        assert id_.split("+") == ids
        assert {r["b_assembly"] for r in rows} == {id_} and len({r["sku"] for r in rows}) == 1


def test_sheets_list_each_connector_once_as_the_labels_do(written, schedule):
    """The (piece, device, ports) of every schedule row is a labels.csv connector end at a
    device; a piece with both ends in one cabinet is listed once, from its A end. Twin-port
    ends name both ports of one cage."""
    p, out = written
    want = Counter()
    for r in csv_rows(out / "labels.csv"):
        if r["piece"] == "trunk" or r["this_device"] in set(p.structured.panels["name"]):
            continue
        if r["end"] == "B" and r["this_cabinet"] == r["peer_cabinet"]:
            continue
        want[(r["cable_id"], r["this_device"], r["this_port"])] += 1
    got = Counter((row["piece"], row["device"], row["ports"])
                  for rows in schedule.values() for row in rows)
    assert got == want
    assert all(v == 1 for v in got.values())
    twins = [row for rows in schedule.values() for row in rows if "+" in row["ports"]]
    assert twins
    straight = 0
    for id_, legs in assemblies(out).items():
        devices = {(r["a_device"], r["b_device"]) for r in legs}
        if "+" not in id_ or len(devices) > 1:
            continue                                 # a splitter: its far ends are listed each
        a, b = legs[0]["a_device"], legs[0]["b_device"]
        row = next(r for rows in schedule.values() for r in rows
                   if r["piece"] == id_ and r["device"] == a)
        ru = int(float(legs[0]["b_ru"]))
        assert row["far"] == (f"{b}\u00b7{'+'.join(r['b_port'] for r in legs)} "
                              f"{legs[0]['b_cabinet']}-{ru:02d}"), row   # one far connector
        straight += 1
    assert straight
    for row in twins:
        first, second = map(int, row["ports"].split("+"))
        assert second == first + 1 and int(row["cage"]) == (first - 1) // 2 + 1


def test_rows_per_part_number_are_the_bom(written, schedule):
    """Distinct pieces on the cabinet sheets per part number equal bom.xlsx's cable and fibre
    lines (a splitter or twin-port DAC once, not per link), and the transceivers named on the
    sheets (a twin-port module once per cage) equal its transceiver lines."""
    p, out = written
    bom = bom_quantities(out / "bom.xlsx")
    trunks = set(p.structured.trunks["sku"])
    pieces = defaultdict(set)
    modules = Counter()
    for rows in schedule.values():
        for row in rows:
            pieces[row["sku"]].add(row["piece"])
            if row["transceiver"] and not row["transceiver"].startswith("same module"):
                modules[row["transceiver"]] += 1
    assert {sku: len(ids) for sku, ids in pieces.items()} == {
        sku: q for sku, q in bom.items() if sku not in trunks}
    lines = p.bom[p.bom["item"] == "transceiver"]
    assert dict(modules) == dict(zip(lines["sku"], lines["quantity"].astype(int)))
    twin = [row for rows in schedule.values() for row in rows
            if row["transceiver"].startswith("same module as \u00b7")]
    assert twin                                      # a twin-port module's second port


def test_viewer_data_names_the_assemblies(written):
    _, out = written
    _, tables = read_block((out / "index.html").read_text(encoding="utf-8"))
    page = pd.DataFrame(tables["cables"])
    rows = csv_rows(out / "cables.csv")
    for end in "ab":
        assert page[f"{end}_assembly"].tolist() == [r[f"{end}_assembly"] for r in rows]


def test_viewer_cabinet_list_and_cable_panel(written, schedule, browser):  # noqa: F811
    """In headless Chromium: a cabinet's list has one row per sheet row (the splitter's head
    once), naming the same pieces; a splitter link's cable panel names the assembly, the
    head's two ports and the links it carries."""
    p, out = written
    head = next(row for rows in schedule.values() for row in rows
                if "+" in row["ports"] and row["far"].count("\u00b7") == 2)   # two HCAs
    cabinet = next(name for name, rows in schedule.items() if head in rows)
    open_page(browser, out, f"#cabinet={cabinet}")
    wait_for(browser, f"return document.querySelector('#panel-cabinet h2')?.textContent"
                      f" === 'Cabinet {cabinet}'")
    listed = wait_for(browser, """
        const rows = document.querySelectorAll('#panel-cabinet .vlist .row');
        return rows.length && Array.from(rows, (r) => [r.children[0].textContent,
                                                       r.children[2].textContent]);""")
    assert Counter(map(tuple, listed)) == Counter(
        (row["piece"], f"{row['device']}:{row['ports']}") for row in schedule[cabinet])
    heading = browser.execute_script(
        "return Array.from(document.querySelectorAll('#panel-cabinet h3')).pop().textContent")
    assert heading.endswith(f"({len(schedule[cabinet])})")
    legs = head["piece"].split("+")
    open_page(browser, out, f"#cable={legs[1]}")
    shown = shown_cable(browser)
    assert shown["a_piece"] == shown["b_piece"] == head["piece"]
    assert shown["a_connector-ports"] == head["ports"]
    assert "b_connector-ports" not in shown           # a splitter's tails: one port each
    assert shown["a_carries-links"] == ", ".join(legs)
    assert errors(browser) == []
