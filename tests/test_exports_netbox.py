"""NetBox bundle: headers from the import forms, valid choices, referential integrity."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

import shutil
import subprocess
from functools import lru_cache

from planner.exports import netbox
from planner.inputs.catalog import list_catalogs, load_catalog
from planner.plan import plan as make_plan
from planner.topologies.dragonfly import dragonfly
from test_exports_plans import get_plan

# Import-form columns, NetBox v4.6.8 (RackImportForm, DeviceImportForm, CableImportForm of
# netbox/dcim/forms/bulk_import.py) ...
RACK_FIELDS = set("""site location group name facility_id tenant status role rack_type form_factor
serial asset_tag width u_height desc_units outer_width outer_height outer_depth outer_unit
mounting_depth airflow weight max_weight weight_unit description owner comments tags""".split())
DEVICE_FIELDS = set("""name role tenant manufacturer device_type platform serial asset_tag status
site location rack position face latitude longitude parent device_bay airflow virtual_chassis
vc_position vc_priority cluster description config_template owner comments tags""".split())
CABLE_FIELDS = set("""side_a_site side_a_device side_a_power_panel side_a_type side_a_name
side_b_site side_b_device side_b_power_panel side_b_type side_b_name type status profile tenant
bundle label color length length_unit description owner comments tags""".split())
# ... and what came after NetBox 4.4 (cables name their sites since 4.4), which the bundle
# must not need
NEWER_THAN_44 = {"form_factor", "rack_type", "profile", "owner", "side_a_power_panel",
                 "side_b_power_panel", "bundle"}
# SiteImportForm, LocationImportForm, ManufacturerImportForm, DeviceRoleImportForm (NetBox 3.7)
SITE_FIELDS = set("""name slug status region group tenant facility time_zone description
physical_address shipping_address latitude longitude comments tags""".split())
LOCATION_FIELDS = set("site parent name slug status tenant facility description tags".split())
MANUFACTURER_FIELDS = {"name", "slug", "description", "tags"}
ROLE_FIELDS = {"name", "slug", "color", "vm_role", "description", "tags"}
CABLE_TYPES = set("""cat3 cat5 cat5e cat6 cat6a cat7 cat7a cat8 mrj21-trunk dac-active
dac-passive coaxial rg-6 rg-8 rg-11 rg-59 rg-62 rg-213 lmr-100 lmr-200 lmr-400 mmf mmf-om1
mmf-om2 mmf-om3 mmf-om4 mmf-om5 smf smf-os1 smf-os2 aoc power usb""".split())
# rg-/lmr- coax came with 4.5 and usb after 3.7: a 3.7 import rejects them
CABLE_TYPES_37 = {t for t in CABLE_TYPES if not t.startswith(("rg-", "lmr-")) and t != "usb"}
STATUSES = {"racks": {"reserved", "available", "planned", "active", "deprecated"},
            "devices": {"offline", "active", "planned", "staged", "failed", "inventory",
                        "decommissioning"},
            "cables": {"connected", "planned", "decommissioning"}}

FILES = [("racks.csv", RACK_FIELDS), ("devices.csv", DEVICE_FIELDS),
         ("cables.csv", CABLE_FIELDS), ("sites.csv", SITE_FIELDS),
         ("locations.csv", LOCATION_FIELDS), ("manufacturers.csv", MANUFACTURER_FIELDS),
         ("device_roles.csv", ROLE_FIELDS)]
PLANS = ["slimfly-hot", "dragonfly-hot", "dragonfly-trunk", "slimfly-abstract", "dragonfly-51t",
         "halls-structured"]
PORT_TYPES = {"dcim.interface": "interfaces", "dcim.frontport": "front-ports",
              "dcim.rearport": "rear-ports"}


@lru_cache(maxsize=None)
def _plan(name: str):
    """The shared export plans, plus a 51.2T Ethernet plan whose 64 OSFP cages break out
    into 128 ports named swp1s0, swp1s1, ... (twin-port optics, splitters to the NICs), and
    the hand placement of tests/test_routes.py on the structured test hall (links between rows
    and between halls through panels, tests/test_structured.py)."""
    if name == "dragonfly-51t":
        return make_plan(dragonfly(a=4, h=2, p=2), "eth-51t", "hot-aisle", strategy="hint")
    if name == "halls-structured":
        from test_routes import hand_placement
        from test_structured import structured_catalog, structured_floor
        top, placement, _ = hand_placement()
        return make_plan(top, structured_catalog(), structured_floor(), placement=placement)
    return get_plan(name)


@pytest.fixture(scope="module", params=PLANS)
def bundle(request, tmp_path_factory):
    plan = _plan(request.param)
    out = tmp_path_factory.mktemp(request.param)
    netbox.write(plan, out)
    folder = out / netbox.FOLDER
    tables = {name: pd.read_csv(folder / name, dtype=str, keep_default_na=False)
              for name, _ in FILES}
    types = [yaml.safe_load(p.read_text()) for p in sorted(folder.glob("device-types/*/*.yaml"))]
    return (plan, folder, *fabric_apart(plan, tables, types))


def fabric_apart(plan, tables: dict, types: list) -> tuple[dict, list]:
    """The bundle's fabric devices and cables (routers, endpoints, panels and the links between
    them) without the subnet-manager boxes, management switches, PDUs and management cords,
    which tests/test_fabric_devices.py reads back."""
    if plan.fabric is None:
        return tables, types
    boxes = set(plan.fabric.devices["name"])
    devices, cables = tables["devices.csv"], tables["cables.csv"]
    tables = dict(tables, **{
        "devices.csv": devices[~devices["name"].isin(boxes)].reset_index(drop=True),
        "cables.csv": cables[cables["side_a_name"] != "mgmt"].reset_index(drop=True)})
    models = set(plan.fabric.devices["sku"])
    return tables, [t for t in types if t["model"] not in models]


@pytest.mark.parametrize("name, allowed", FILES)
def test_headers_come_from_the_import_forms(bundle, name, allowed):
    _, _, tables, _ = bundle
    columns = list(tables[name].columns)
    assert len(columns) == len(set(columns))
    assert set(columns) <= allowed, set(columns) - allowed
    assert not set(columns) & NEWER_THAN_44


def test_choices_are_valid(bundle):
    plan, _, tables, _ = bundle
    cables = tables["cables.csv"]
    assert set(cables["type"]) <= CABLE_TYPES_37
    site = tables["sites.csv"]["name"].tolist()
    assert len(site) == 1 and set(cables["side_a_site"]) == set(cables["side_b_site"]) == set(site)
    kinds = set(cables["side_a_type"]) | set(cables["side_b_type"])
    structured = plan.structured is not None and not plan.structured.links.empty
    assert kinds == (set(PORT_TYPES) if structured else {"dcim.interface"})
    assert set(cables["length_unit"]) == {"m"}
    assert cables["color"].str.fullmatch(r"[0-9a-f]{6}").all()
    assert cables["label"].str.len().max() <= 100
    assert (cables["length"].astype(float) > 0).all()
    for name, allowed in STATUSES.items():
        assert set(tables[f"{name}.csv"]["status"]) == {"planned"} <= allowed
    assert set(tables["racks.csv"]["width"]) == {"19"}
    assert set(tables["devices.csv"]["face"]) <= {"front", "rear", ""}


def test_every_reference_resolves(bundle):
    plan, folder, tables, types = bundle
    racks, devices, cables = tables["racks.csv"], tables["devices.csv"], tables["cables.csv"]
    sites = set(tables["sites.csv"]["name"])
    assert set(racks["site"]) | set(devices["site"]) <= sites
    assert set(racks["location"]) | set(devices["location"]) <= set(tables["locations.csv"]["name"])
    assert set(devices["rack"]) <= set(racks["name"])
    assert set(devices["role"]) <= set(tables["device_roles.csv"]["name"])
    assert set(devices["manufacturer"]) <= set(tables["manufacturers.csv"]["name"])
    by_model = {t["model"]: t for t in types}
    assert set(devices["device_type"]) <= set(by_model)
    assert all(by_model[m]["manufacturer"] in set(tables["manufacturers.csv"]["name"])
               for m in by_model)
    model_of = dict(zip(devices["name"], devices["device_type"]))
    ports = {(m, kind): {i["name"] for i in t.get(key, [])} for m, t in by_model.items()
             for kind, key in PORT_TYPES.items()}
    for side in ("a", "b"):
        names = cables[f"side_{side}_device"]
        assert set(names) <= set(model_of), "cable end on a device that is not imported"
        assert all(port in ports[(model_of[dev], kind)] for dev, kind, port in
                   zip(names, cables[f"side_{side}_type"], cables[f"side_{side}_name"]))
    ends = list(zip(cables["side_a_device"], cables["side_a_type"], cables["side_a_name"])) + \
        list(zip(cables["side_b_device"], cables["side_b_type"], cables["side_b_name"]))
    assert len(ends) == len(set(ends)), "a port carries two cables"
    plant = plan.structured
    links, trunks, panels, patch_racks = (
        (0, 0, 0, 0) if plant is None else
        (len(plant.links), len(plant.trunks), len(plant.panels), len(plant.racks)))
    # a link through panels is two cords instead of one cable, plus the trunks
    assert len(cables) == len(plan.cables) + links + trunks
    assert len(devices) == len(plan.devices) + panels
    assert len(racks) == len(plan.cabinets) + patch_racks
    readme = (folder / "README.md").read_text().split("## Import order")[1]
    order = ["manufacturers.csv", "device_roles.csv", "device-types/", "sites.csv",
             "locations.csv", "racks.csv", "devices.csv", "cables.csv"]
    assert [readme.index(f) for f in order] == sorted(readme.index(f) for f in order)


# devicetype-library schema/devicetype.json and components.json#interface (additionalProperties:
# false), and the interface types of its generated_schema.json that a fabric port can take
DEVICETYPE_REQUIRED = {"manufacturer", "model", "slug", "u_height", "is_full_depth"}
DEVICETYPE_PROPERTIES = DEVICETYPE_REQUIRED | set("""part_number airflow weight weight_unit
front_image rear_image subdevice_role is_powered console-ports console-server-ports power-ports
power-outlets interfaces front-ports rear-ports module-bays device-bays inventory-items
description comments""".split())
INTERFACE_PROPERTIES = set("""name label type enabled mgmt_only description bridge poe_mode
poe_type rf_role""".split())
INTERFACE_TYPES = set("""10gbase-x-sfpp 25gbase-x-sfp28 40gbase-x-qsfpp 50gbase-x-sfp56
100gbase-x-qsfp28 200gbase-x-qsfp56 400gbase-x-qsfp112 400gbase-x-osfp 800gbase-x-osfp
infiniband-qdr infiniband-fdr infiniband-edr infiniband-hdr infiniband-ndr infiniband-xdr
1000base-t other""".split())


def library_slugify(text: str) -> str:
    """The devicetype-library tests' ``_slugify_model`` (tests/device_types.py), restated."""
    out = text.casefold().replace(" ", "-").replace("sfp+", "sfpp").replace("poe+", "poep")
    out = out.replace("-+", "-plus").replace("+", "-plus-").replace("_", "-").replace("&", "-and-")
    out = out.replace("!", "").replace("/", "-").replace(",", "").replace("'", "").replace("*", "-")
    return out[:-1] if out.endswith("-") else out


# the library's power-port types a rack-mounted switch or server can have (generated schema)
POWER_PORT_TYPES = {"iec-60320-c14", "iec-60320-c16", "iec-60320-c20", "iec-60320-c22"}


def test_device_types_follow_the_library_format(bundle):
    plan, folder, _, types = bundle
    for path in sorted(folder.glob("device-types/*/*.yaml")):      # the library's own checks
        text = path.read_text(encoding="utf-8")
        doc = yaml.safe_load(text)
        assert text.isascii() and text.endswith("\n") and text.startswith("---\n"), path
        assert path.parent.name == doc["manufacturer"]
        assert path.stem == library_slugify(doc["model"])                   # verify_filename
        assert doc["slug"].startswith(library_slugify(doc["manufacturer"]))  # verify_slug
        assert doc["slug"].endswith(library_slugify(doc["model"]))
        assert all(v != "" for v in doc.values())
        if "rear-ports" in doc or "power-outlets" in doc:   # a patch panel: passive, no power;
            continue                                    # a PDU: its input plug is the site's
        ports = doc["power-ports"]                                        # validate_power
        assert ports and all(p["type"] in POWER_PORT_TYPES for p in ports)
        assert all(isinstance(p.get("maximum_draw", 1), int) and p.get("maximum_draw", 1) >= 1
                   for p in ports)
        assert len({p["name"] for p in ports}) == len(ports)
    for doc in types:
        if "rear-ports" in doc:
            check_panel_type(doc)
            continue
        assert DEVICETYPE_REQUIRED <= set(doc) <= DEVICETYPE_PROPERTIES, set(doc)
        assert re.fullmatch(r"[-a-z0-9_]+", doc["slug"]) and len(doc["slug"]) <= 100
        assert doc["u_height"] >= 0 and (doc["u_height"] * 2) % 1 == 0
        assert isinstance(doc["is_full_depth"], bool)
        assert len(doc.get("part_number", "")) <= 50
        names = [i["name"] for i in doc["interfaces"]]
        assert len(names) == len(set(names)) and all(isinstance(n, str) for n in names)
        for interface in doc["interfaces"]:
            assert {"name", "type"} <= set(interface) <= INTERFACE_PROPERTIES
            assert interface["type"] in INTERFACE_TYPES
    router = next(t for t in types if t["model"] == plan.router_model.sku)
    fabric = [i for i in router["interfaces"] if not i.get("mgmt_only")]
    assert len(fabric) == plan.router_model.radix      # the model's ports, and its management port
    assert len(router["interfaces"]) - len(fabric) == (plan.fabric is not None
                                                       and not plan.fabric.cords.empty)
    rate = {100: "100gbase-x-qsfp28", 400: "400gbase-x-osfp"}[int(plan.router_model.rate_gbps)]
    assert {i["type"] for i in fabric} == {rate}


# NetBox 4.5+ device types (DeviceType.to_yaml): front ports with positions, mapped to rear
# port positions by a top-level port-mappings list; PortTypeChoices of fibre connectors
PORT_PROPERTIES = {"name", "label", "type", "color", "positions", "description"}
MAPPING_PROPERTIES = {"front_port", "front_port_position", "rear_port", "rear_port_position"}
FIBRE_PORT_TYPES = {"mpo", "lc", "lc-pc", "lc-upc", "lc-apc", "sc", "sc-pc", "sc-upc", "sc-apc",
                    "st", "fc", "mtrj", "mdc", "cs", "sn", "splice"}


def check_panel_type(doc: dict) -> None:
    """A patch panel type: rear ports with positions, front ports, and a mapping that uses every
    front position and every rear position exactly once."""
    assert DEVICETYPE_REQUIRED <= set(doc) <= DEVICETYPE_PROPERTIES | {"port-mappings"}, set(doc)
    front = {p["name"]: p for p in doc["front-ports"]}
    rear = {p["name"]: p for p in doc["rear-ports"]}
    for port in [*front.values(), *rear.values()]:
        assert set(port) <= PORT_PROPERTIES and port["type"] in FIBRE_PORT_TYPES
        assert 1 <= port["positions"] <= 1024
    maps = doc["port-mappings"]
    assert all(set(m) == MAPPING_PROPERTIES for m in maps)
    fronts = [(m["front_port"], m["front_port_position"]) for m in maps]
    rears = [(m["rear_port"], m["rear_port_position"]) for m in maps]
    assert sorted(fronts) == sorted((n, k) for n, p in front.items()
                                    for k in range(1, p["positions"] + 1))
    assert sorted(rears) == sorted((n, k) for n, p in rear.items()
                                   for k in range(1, p["positions"] + 1))


def trace(tables, types, device: str, interface: str) -> tuple[str, str, list[str]]:
    """Follow a cable from a device interface as NetBox's trace does, through front/rear port
    mappings of the panels, to the interface at the far end: (device, interface, the ports
    passed). Read from the bundle only: cables.csv, devices.csv and the device types."""
    cables, devices = tables["cables.csv"], tables["devices.csv"]
    model_of = dict(zip(devices["name"], devices["device_type"]))
    by_model = {t["model"]: t for t in types}
    other = {}
    for row in cables.itertuples(index=False):
        a = (row.side_a_device, row.side_a_type, row.side_a_name)
        b = (row.side_b_device, row.side_b_type, row.side_b_name)
        other[a], other[b] = b, a
    end, position, passed = (device, "dcim.interface", interface), 1, []
    for _ in range(100):
        end = other[end]
        dev, kind, name = end
        if kind == "dcim.interface":
            return dev, name, passed
        passed.append(f"{dev}:{name}")
        doc = by_model[model_of[dev]]
        ports = {p["name"]: p for p in doc[PORT_TYPES[kind]]}
        if ports[name]["positions"] == 1:
            position = 1
        maps = doc["port-mappings"]
        if kind == "dcim.frontport":
            m = next(m for m in maps if (m["front_port"], m["front_port_position"])
                     == (name, position))
            end, position = (dev, "dcim.rearport", m["rear_port"]), m["rear_port_position"]
        else:
            m = next(m for m in maps if (m["rear_port"], m["rear_port_position"])
                     == (name, position))
            end, position = (dev, "dcim.frontport", m["front_port"]), m["front_port_position"]
        passed.append(f"{dev}:{end[2]}")
    raise AssertionError("trace does not end")


def test_netbox_traces_every_link_through_its_panels(bundle):
    """Every link of the plan, traced in the bundle from its A-end interface, ends on its B-end
    interface; a link through panels passes the panel ports its segments list."""
    plan, _, tables, types = bundle
    router = next(t for t in types if t["model"] == plan.router_model.sku)
    names = [i["name"] for i in router["interfaces"]]
    c = plan.cables
    through = 0
    for row in c.itertuples(index=False):
        want = (row.b_device, names[row.b_port - 1] if row.kind == "network" else str(row.b_port))
        dev, name, passed = trace(tables, types, row.a_device, names[row.a_port - 1])
        assert (dev, name) == want, row.cable_id
        if row.segments:
            through += 1
            listed = [p for p in row.segments.split(" | ") if not p.startswith(("cord", "trunk"))]
            panels = [p.split(":")[0] for p in passed]
            assert [p for i, p in enumerate(panels) if i == 0 or panels[i - 1] != p] == \
                [p.split(":")[0] for p in listed]
            assert passed[0] == listed[0] and passed[-1] == listed[-1]
        else:
            assert passed == []
    assert through == (0 if plan.structured is None else len(plan.structured.links))


# (catalog, interface names of the first router ports): the vendors' names for split cages
VENDOR_NAMES = [("modern-100g", ["swp1", "swp2", "swp3"]),
                ("eth-51t", ["swp1s0", "swp1s1", "swp2s0"]),
                ("ndr-400g", ["IB1/1/1", "IB1/1/2", "IB1/2/1"])]


@pytest.mark.parametrize("catalog,names", VENDOR_NAMES)
def test_router_interfaces_carry_the_vendor_names(catalog, names):
    model = load_catalog(catalog).routers[0]
    assert model.interface_name_list[:3] == names


def test_cables_end_on_the_vendor_interface_of_their_port(bundle):
    plan, _, tables, types = bundle
    router = next(t for t in types if t["model"] == plan.router_model.sku)
    names = [i["name"] for i in router["interfaces"]]
    cables = tables["cables.csv"]
    got = [(d, n) for side in "ab" for d, t, n in zip(
        cables[f"side_{side}_device"], cables[f"side_{side}_type"], cables[f"side_{side}_name"])
        if t == "dcim.interface"]
    c = plan.cables
    want = [(d, names[p - 1]) for d, p in zip(c["a_device"], c["a_port"])] + [
        (d, names[p - 1] if kind == "network" else str(p))
        for d, p, kind in zip(c["b_device"], c["b_port"], c["kind"])]
    assert sorted(got) == sorted(want)


@pytest.mark.skipif(shutil.which("yamllint") is None, reason="yamllint is not installed")
def test_device_types_pass_the_library_yamllint_rules(bundle, tmp_path):
    """The devicetype-library's tests/yamllint.yaml rules that a generated file can break."""
    _, folder, _, _ = bundle
    config = tmp_path / "yamllint.yaml"
    config.write_text("""extends: default
rules:
  comments: disable
  comments-indentation: disable
  document-end: disable
  document-start: {level: error}
  empty-values: disable
  indentation: {spaces: 2, indent-sequences: true}
  key-ordering: disable
  line-length: disable
  octal-values: disable
  quoted-strings: disable
  truthy: disable
""")
    files = sorted(str(p) for p in folder.glob("device-types/*/*.yaml"))
    run = subprocess.run(["yamllint", "-s", "-c", str(config), *files], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stdout


def test_positions_fit_racks_without_overlap(bundle):
    plan, _, tables, types = bundle
    devices = tables["devices.csv"]
    placed = devices[devices["position"] != ""]
    if plan.floor.abstract:
        assert placed.empty
        return
    assert len(placed) == len(devices)
    height = {t["model"]: float(t["u_height"]) for t in types}
    rack_u = dict(zip(tables["racks.csv"]["name"], tables["racks.csv"]["u_height"].astype(int)))
    used: set[tuple[str, float]] = set()
    for rack, pos, model, face in zip(placed["rack"], placed["position"].astype(float),
                                      placed["device_type"], placed["face"]):
        assert face == "front"
        units = {(rack, pos + k) for k in range(int(height[model]))}
        assert all(1 <= u <= rack_u[rack] for _, u in units)
        assert not units & used, f"two devices share a unit in {rack}"
        used |= units


@pytest.mark.parametrize("colour, expected", [("Aqua", "00ffff"), ("dark grey", "607d8b"),
                                              ("#A1B2C3", "a1b2c3"), ("ffeb3b", "ffeb3b")])
def test_colours_become_netbox_hex(colour, expected):
    assert netbox.hex_color(colour, "X") == expected


def test_unknown_colour_is_an_input_error():
    with pytest.raises(netbox.InputError, match="field 'color'"):
        netbox.hex_color("mauve", "SKU-1")


@pytest.mark.parametrize("name", list_catalogs())
def test_every_shipped_catalog_maps_to_netbox_choices(name):
    catalog = load_catalog(name)
    for model in catalog.routers:
        plan = SimpleNamespace(router_model=model, catalog=catalog)
        assert netbox.interface_type(plan) in INTERFACE_TYPES - {"other"}, model.sku
    for cable in catalog.cables:
        if cable.kind == "transceiver":         # its link takes the fibre's type and colour
            continue
        assert cable.netbox_type in CABLE_TYPES_37, cable.sku
        assert re.fullmatch(r"[0-9a-f]{6}", netbox.hex_color(cable.color, cable.sku))


def test_one_location_per_hall_numbered_as_cabinets_csv(bundle):
    plan, _, tables, _ = bundle
    halls = sorted(set(plan.cabinets["hall"].astype(int)))
    assert sorted(tables["locations.csv"]["name"]) == [f"Hall {h + 1}" for h in halls]
    where = dict(zip(tables["racks.csv"]["name"], tables["racks.csv"]["location"]))
    for name, hall in zip(plan.cabinets["name"], plan.cabinets["hall"]):
        assert where[name] == f"Hall {int(hall) + 1}"  # cabinets.csv writes hall + 1
    racks = dict(zip(tables["devices.csv"]["name"], tables["devices.csv"]["rack"]))
    located = dict(zip(tables["devices.csv"]["name"], tables["devices.csv"]["location"]))
    assert all(located[d] == where[racks[d]] for d in racks)


def test_cable_labels_are_the_printed_labels(bundle):
    """Every cable of the bundle carries the label labels.csv prints on that piece, found by
    the piece's ends (device and port of each end); a multi-link assembly (a splitter, ends
    ``r00 1+2`` / ``n00+n01 1+1``) is one NetBox cable per link, each with the assembly's
    label."""
    from planner.exports.labels import label_rows
    plan, _, tables, types = bundle
    rows = label_rows(plan.pieces)
    printed = {}
    for i in range(len(rows["label"])):
        fields = [str(rows[f][i]).split("+")
                  for f in ("this_device", "this_port", "peer_device", "peer_port")]
        this_legs, peer_legs = max(map(len, fields[:2])), max(map(len, fields[2:]))
        if this_legs != peer_legs:
            continue            # one leg's connector facing the whole assembly: its other row
        fields = [f * this_legs if len(f) == 1 else f for f in fields]
        for this, this_port, peer, peer_port in zip(*fields):
            printed[frozenset([(this, this_port), (peer, peer_port)])] = rows["label"][i]
    router = next(t for t in types if t["model"] == plan.router_model.sku)
    number = {i["name"]: str(n) for n, i in enumerate(router["interfaces"], 1)}
    cables = tables["cables.csv"]
    assert len(cables) == len(printed)
    for row in cables.itertuples(index=False):
        ends = frozenset((d, number.get(p, p) if t == "dcim.interface" else p) for d, t, p in (
            (row.side_a_device, row.side_a_type, row.side_a_name),
            (row.side_b_device, row.side_b_type, row.side_b_name)))
        assert row.label == printed[ends], ends


def test_site_names_differ_by_system_and_stay_for_a_replan():
    """Two Dragonflies on one floor get two sites; the same system (a re-plan) the same site."""
    floor = SimpleNamespace(name="hot-aisle")
    small = SimpleNamespace(topology=dragonfly(a=4, h=2, p=2), floor=floor)
    large = SimpleNamespace(topology=dragonfly(a=6, h=3, p=3), floor=floor)
    again = SimpleNamespace(topology=dragonfly(a=4, h=2, p=2), floor=floor)
    assert netbox.site_name(small) != netbox.site_name(large)
    assert netbox.site_name(small) == netbox.site_name(again)
    assert netbox.site_name(small).startswith("dragonfly-a4-") and \
        netbox.site_name(small).endswith("-hot-aisle")
    long = SimpleNamespace(topology=SimpleNamespace(family="import", params={
        "path": "x" * 200}), floor=floor)
    assert len(netbox.site_name(long)) == netbox.SITE_NAME_MAX


@pytest.mark.parametrize("rows, size, way", [
    (10, 1_000, "paste or upload"),
    (2_000, 2_621_440, "paste or upload"),      # at both limits
    (1_500, 2_621_441, "upload"),               # one byte over the paste limit
    (2_001, 100, "push"),                       # one row over the upload limit
    (28_413, 5_500_000, "push"),                # the default plan's cables.csv
])
def test_readme_way_in_by_size(rows, size, way):
    assert netbox.import_path(rows, size) == way


def test_readme_states_version_and_way_in(bundle):
    _, folder, tables, _ = bundle
    text = (folder / "README.md").read_text()
    assert "NetBox 4.5 or later" in text and "4.4 or later" not in text
    rows = len(pd.read_csv(folder / "cables.csv"))        # management cords included
    size = (folder / "cables.csv").stat().st_size
    assert f"`cables.csv` (DCIM > Cables): {rows:,} rows, {size / 1e6:.2f} MB: " \
           f"{netbox.import_path(rows, size)}" in text
    assert "Delimiter" in text and "planner netbox push" in text
