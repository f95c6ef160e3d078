"""The fabric's own boxes in their cabinets (subnet manager, management switches, PDUs) and the
management cords, counted by hand on a small layout, then read back from a written NDR plan the
way each consumer reads it: cables.csv, cabinets.csv, labels.csv, the NetBox bundle (its CSV
import and device-type YAML), wiring.pdf and ``planner verify``."""

import csv
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from pypdf import PdfReader

from planner.costing import fabric, fabric_devices
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.run.errors import InputError

# Four cabinets of row A of the hot-aisle hall (as tests/test_fabric_bom.py): routers r0, r1 in
# A01 (U39, U40), r2 in A02 (U39), r3 in A04 (U39).
LAYOUT = SimpleNamespace(num_cabinets=4, router_cabinet=np.array([0, 0, 1, 3]),
                         cabinet_hall=np.zeros(4, np.int64), cabinet_row=np.zeros(4, np.int64),
                         cabinet_col=np.arange(4), cabinet_names=["A01", "A02", "A03", "A04"])
CABINET_KW = np.array([1.0, 6.5, 0.0, 0.5])
DEVICES = pd.DataFrame({"name": ["r0", "r1", "r2", "r3"], "kind": "router", "id": range(4),
                        "cabinet": ["A01", "A01", "A02", "A04"], "ru": [39.0, 40.0, 39.0, 39.0],
                        "height_ru": 1.0, "model": "MQM9790-NS2F"})


def _placed(devices=DEVICES, floor=None):
    cat = load_catalog("ndr-400g")
    floor = floor or load_floor("hot-aisle")
    _, fp = fabric.build(cat, cat.router_for(64), LAYOUT, floor, CABINET_KW, 0)
    return cat, fp, fabric_devices.place(cat, LAYOUT, floor, devices, fp)


def test_boxes_and_cords_by_hand():
    cat, fp, boxes = _placed()
    d = boxes.devices.set_index("name")
    # the row is one management group; its switch in the middle cabinet A02, at the top
    # UFM pair in cabinets floor(k*4/2) = A01 and A03, each at the top free unit
    assert d.loc["mgmt-A02-1", ["cabinet", "ru"]].tolist() == ["A02", 42.0]
    assert d.loc["sm1", ["cabinet", "ru"]].tolist() == ["A01", 42.0]
    assert d.loc["sm2", ["cabinet", "ru"]].tolist() == ["A03", 42.0]
    # PDUs (tests/test_fabric_bom.py): 2, 4, 2, 2; A02 needs 2 per feed for its 6.598 kW
    pdus = d[d["kind"] == "pdu"]
    assert sorted(pdus.index) == ["pdu-A01-A1", "pdu-A01-B1", "pdu-A02-A1", "pdu-A02-A2",
                                  "pdu-A02-B1", "pdu-A02-B2", "pdu-A03-A1", "pdu-A03-B1",
                                  "pdu-A04-A1", "pdu-A04-B1"]
    assert pdus["ru"].isna().all()                                  # zero-U
    c = boxes.cords
    # cord order: per cabinet its routers, subnet-manager box, PDUs A then B; ports in turn
    assert c["a_device"].tolist() == [
        "r0", "r1", "sm1", "pdu-A01-A1", "pdu-A01-B1",
        "r2", "pdu-A02-A1", "pdu-A02-A2", "pdu-A02-B1", "pdu-A02-B2",
        "sm2", "pdu-A03-A1", "pdu-A03-B1",
        "r3", "pdu-A04-A1", "pdu-A04-B1"]
    assert set(c["b_device"]) == {"mgmt-A02-1"} and c["b_port"].tolist() == list(range(1, 17))
    # next cabinet 1.76 m -> 2 m, same cabinet 1.65 m -> 2 m, two cabinets away 2.42 m -> 3 m
    assert c["order_length_m"].tolist() == [2.0] * 13 + [3.0] * 3
    assert c["sku"].tolist()[-1] == "Cat6A UTP LSZH 3 m"
    assert c["label"].tolist()[:4] == ["A01-39:mgmt/A02-42:01", "A01-40:mgmt/A02-42:02",
                                       "A01-42:mgmt/A02-42:03",
                                       "A01-pdu-A01-A1:mgmt/A02-42:04"]
    # the per-cabinet RU the boxes take: UFM 1 in A01 and A03, the switch 1 in A02
    assert boxes.ru_per_cabinet(4).tolist() == [1.0, 1.0, 1.0, 0.0]


def test_a_full_cabinet_is_refused():
    full = pd.DataFrame({"name": [f"n{i}" for i in range(42)], "kind": "endpoint",
                         "id": range(42), "cabinet": "A02", "ru": np.arange(1.0, 43.0),
                         "height_ru": 1.0, "model": "endpoint"})
    with pytest.raises(InputError, match=r"cabinet A02 has no 1 free rack units for "
                                         r"management switch mgmt-A02-1 .*taller cabinets"):
        _placed(pd.concat([DEVICES.iloc[[0, 1, 3]], full], ignore_index=True))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    from planner.exports import cabinets_csv, cables_csv, labels, netbox, wiring_pdf
    from planner.plan import plan
    p = plan("fattree:k=4", "ndr-400g", "hot-aisle", seed=1)
    out = tmp_path_factory.mktemp("ndr-fabric")
    for writer in (cables_csv, cabinets_csv, labels, netbox, wiring_pdf):
        writer.write(p, out)
    return p, out


def _read(path: Path, encoding="utf-8") -> list[dict[str, str]]:
    with open(path, newline="", encoding=encoding) as fh:
        return list(csv.DictReader(fh))


def test_every_managed_device_has_one_cord_to_a_port_that_exists(written):
    p, out = written
    rows = _read(out / "cables.csv")
    mgmt = [r for r in rows if r["kind"] == "mgmt"]
    fabric_rows = [r for r in rows if r["kind"] != "mgmt"]
    assert len(fabric_rows) == len(p.cables)                 # the fabric's rows unchanged
    assert [r["cable_id"] for r in fabric_rows] == p.cables["cable_id"].tolist()
    boxes = {r.name: r for r in p.fabric.devices.itertuples()}
    routers = p.devices.loc[p.devices["kind"] == "router", "name"].tolist()
    managed = routers + [n for n, b in boxes.items() if b.managed and b.kind != "mgmt_switch"]
    # 20 switches + 2 UFM appliances + every (metered) PDU, each exactly once
    assert sorted(r["a_device"] for r in mgmt) == sorted(managed)
    assert len(managed) == 20 + 2 + p.summary["fabric"]["pdus"]
    ports = p.catalog.management.switch.ports
    used = [(r["b_device"], int(r["b_port"])) for r in mgmt]
    assert len(set(used)) == len(used)                       # one cord per switch port
    for switch, port in used:
        assert boxes[switch].kind == "mgmt_switch" and 1 <= port <= ports
    # each switch's ports suffice for its group, and the BOM buys the cords it lists
    assert p.summary["fabric"]["management_switches"] == sum(
        b.kind == "mgmt_switch" for b in boxes.values())
    bom = p.bom[p.bom["item"] == "mgmt_cable"]
    assert int(bom["quantity"].sum()) == len(mgmt)
    by_part = pd.Series([r["sku"] for r in mgmt]).value_counts().to_dict()
    assert by_part == dict(zip(bom["sku"], bom["quantity"]))


def test_pdus_cover_every_cabinets_outlets_and_kw(written):
    p, _ = written
    power = p.catalog.power
    boxes = p.fabric.devices
    router_psus = p.router_model.power_supplies
    capacity = power.kw * power.derating_pct / 100
    for cab in p.cabinets.itertuples():
        here = boxes[boxes["cabinet"] == cab.name]
        supplies = (cab.routers * router_psus
                    + int(here.loc[here["kind"] != "pdu", "power_supplies"].sum()))
        for feed, share in (("A", (supplies + 1) // 2), ("B", supplies // 2)):
            pdus = here[(here["kind"] == "pdu") & (here["feed"] == feed)]
            assert len(pdus) * power.outlets >= share          # every supply an outlet
            assert len(pdus) * capacity >= cab.kw - 1e-9       # each feed carries the cabinet
    # the cabinet's kW includes its boxes: routers' and cable ends' kW plus the boxes' watts
    boxes_kw = boxes.groupby("cabinet")["watts"].sum() / 1000
    assert p.summary["power"]["fabric_w"] == pytest.approx(1000 * boxes_kw.sum(), abs=1e-3)


def test_cabinets_csv_lists_the_boxes(written):
    p, out = written
    rows = {r["name"]: r for r in _read(out / "cabinets.csv") if r["kind"] == "cabinet"}
    listed = {}
    for name, r in rows.items():
        for item in filter(None, r["fabric_devices"].split(";")):
            box, unit = item.split("@")
            listed[box] = (name, unit)
    expect = {b.name: (b.cabinet, "0U" if np.isnan(b.ru) else f"U{int(b.ru)}")
              for b in p.fabric.devices.itertuples()}
    assert listed == expect
    for name, r in rows.items():                 # rack units: routers, endpoints, boxes
        racked = p.fabric.devices[(p.fabric.devices["cabinet"] == name)
                                  & p.fabric.devices["ru"].notna()]
        assert float(r["ru_used"]) == int(r["routers"]) + int(r["endpoints"]) + len(racked)


def test_labels_name_both_ends_of_every_cord(written):
    p, out = written
    rows = [r for r in _read(out / "labels.csv", "utf-8-sig") if r["piece"] == "mgmt"]
    cords = p.fabric.cords
    assert len(rows) == 2 * len(cords)
    a = {r["cable_id"]: r for r in rows if r["end"] == "A"}
    b = {r["cable_id"]: r for r in rows if r["end"] == "B"}
    for cord in cords.itertuples():
        assert (a[cord.cable_id]["this_device"], a[cord.cable_id]["peer_device"]) == (
            cord.a_device, cord.b_device)
        assert b[cord.cable_id]["this_port"] == str(cord.b_port)
        assert a[cord.cable_id]["label"] == b[cord.cable_id]["label"] == cord.label


def test_netbox_bundle_holds_the_boxes_and_cords(written):
    p, out = written
    nb = out / "netbox"
    types = {}
    for path in (nb / "device-types").rglob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        types[doc["model"]] = doc
    roles = {r["name"] for r in _read(nb / "device_roles.csv")}
    racks = {r["name"]: int(r["u_height"]) for r in _read(nb / "racks.csv")}
    devices = {r["name"]: r for r in _read(nb / "devices.csv")}
    occupied = {}
    for d in devices.values():                   # as DeviceImportForm resolves and racks them
        assert d["device_type"] in types and d["role"] in roles and d["rack"] in racks
        if d["position"]:
            h = types[d["device_type"]]["u_height"]
            for u in range(int(float(d["position"])), int(float(d["position"]) + h)):
                assert (d["rack"], u) not in occupied, (d["name"], u)
                occupied[(d["rack"], u)] = d["name"]
                assert u <= racks[d["rack"]]
    for b in p.fabric.devices.itertuples():
        d = devices[b.name]
        assert (d["rack"], d["role"], d["device_type"]) == (b.cabinet, b.role, b.sku)
        assert d["position"] == ("" if np.isnan(b.ru) else str(int(b.ru)))
    interfaces = {m: {i["name"] for i in t.get("interfaces", [])} for m, t in types.items()}
    cables = [r for r in _read(nb / "cables.csv") if r["type"] == "cat6a"]
    assert len(cables) == len(p.fabric.cords)
    for c in cables:                             # both ends name an interface of the device type
        for side in ("a", "b"):
            dev = devices[c[f"side_{side}_device"]]
            assert c[f"side_{side}_name"] in interfaces[dev["device_type"]]
        assert devices[c["side_b_device"]]["role"] == "Management switch"
        assert c["side_a_name"] == "mgmt"


def test_pdf_cabinet_sheets_list_the_boxes(written):
    p, out = written
    text = "\n".join(page.extract_text() for page in PdfReader(out / "wiring.pdf").pages)
    for b in p.fabric.devices.itertuples():
        unit = f"0U, feed {b.feed}" if np.isnan(b.ru) else f"U{int(b.ru)}"
        assert f"{b.name}  {b.sku}  {unit}" in text


def test_verify_compares_the_fabric_only(written):
    from planner.verify.planned import load_plan
    p, out = written
    planned = load_plan(out)
    assert len(planned.cable_id) == len(p.cables)
    assert not any(str(i).startswith("M") for i in planned.cable_id)
