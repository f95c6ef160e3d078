"""``netbox/``: a NetBox bulk-import bundle of the plan, for NetBox 4.5 or later.

Files, in import order (also written to ``netbox/README.md``):

1. ``manufacturers.csv`` (name, slug), 2. ``device_roles.csv`` (name, slug, color),
3. ``device-types/<Manufacturer>/<model slug>.yaml`` in the netbox-community devicetype-library
   format, passing the library's own checks: its JSON schema (only the properties it allows,
   ASCII, no empty strings), ``power-ports`` on every powered device, the slug = manufacturer
   slug + model slug and the file named by the model slug (the library's slugify rules), and
   its yamllint configuration (``---`` document start, sequences indented by two spaces).
   DeviceTypes have no CSV import; their YAML creates the interface templates, so the devices
   get their interfaces on creation. A router model carries exactly its logical ports, named
   as the vendor names them when the catalog gives ``interface_names`` (``swp1s0``,
   ``IB1/1/2``, ``Ethernet1/5``), else by port number, and, when the plan cables the
   out-of-band network, its management port ``mgmt`` (``mgmt_only``). The fabric's own boxes
   (``planner.costing.fabric_devices``: subnet-manager appliances or hosts, management switches
   with ports ``1`` .. ``48``, zero-U PDUs) get device types of their own.
4. ``sites.csv``, 5. ``locations.csv``, 6. ``racks.csv``, 7. ``devices.csv``, 8. ``cables.csv``.

Columns are those of the import forms (``RackImportForm``, ``DeviceImportForm``,
``CableImportForm``); cables name the site of each end (``side_a_site``/``side_b_site``, NetBox
4.4+), so a NetBox that already holds another site with devices of the same names (``r00``)
resolves every end to this plan's site. The site is named after the system (``site_name``:
topology family and parameters, and floor), so two plans of one family on one floor differ and
a re-plan of the same system names the same site. One location per hall (``Hall 1`` ..,
numbered as ``cabinets.csv`` numbers halls); every rack and device is in its hall's location.
Cable labels are the printed labels (``planner.exports.labels.label_rows``): a cable's, each
cord's and each trunk's own label.
Everything is ``status=planned``. Foreign keys are names (device types by ``model``). Cable
``type`` and colour are the catalog's for the cable assembly or, for a transceiver link, its
fibre (6-digit hex, NetBox's ``ColorChoices`` values for colour names); ``length`` is the
ordered stock length in metres. On abstract floors (the papers' racks, where one unit may hold
several devices) devices are placed in their rack without a position. The fabric's boxes are
devices (roles ``Subnet manager``, ``Management switch``, ``PDU``) in their cabinets at their
rack units, a zero-U PDU without a position; every management cord is a ``cat6a`` cable from a
device's ``mgmt`` interface to a management switch port, labelled as printed.

Structured cabling (``planner.cabling.structured``): the bundle models what is installed, so NetBox
traces a link end to end. Each patch panel is a device (role ``Patch panel``) in its patch rack
(``racks.csv``), of a device type with ``rear-ports`` (``R1`` .., one per trunk, ``positions`` =
links per trunk) and ``front-ports`` mapped to them by ``port-mappings`` (the NetBox 4.5+
device-type format; a row panel's front port ``05`` is rear ``R1`` position 5 with 4 x 12
legs; an entry panel's front port ``F1``, where a row trunk lands, passes its positions to
positions of the rear port ``R1`` the hall trunk leaves from, which carries the row trunks of
any pairs of panels of its two halls). A link through panels is then three or five cables: its
cords (interface - front port), its row trunks (rear port - rear port, or - entry front port)
and, between halls, the hall trunk (entry rear port - rear port). With
structured cabling the bundle needs NetBox 4.5 or later (``port-mappings``); the bundle as a
whole targets 4.5 (``planner netbox push`` loads the same files through the REST API).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from planner.cabling import unit_text
from planner.costing.fabric_devices import MGMT_PORT
from planner.exports._csv import column_text, write_csv, write_rows
from planner.exports.tuning import CSV_CHUNK_ROWS
from planner.run.errors import InputError

FOLDER = "netbox"
SITE_NAME_MAX = 100
"""NetBox's ``Site.name`` / ``slug`` max_length."""
ENDPOINT_MANUFACTURER = "Generic"
ENDPOINT_POWER_PORT = "iec-60320-c14"
RACK_WIDTH_IN = 19

CABLE_TYPES = frozenset(
    "cat3 cat5 cat5e cat6 cat6a cat7 cat7a cat8 mrj21-trunk dac-active dac-passive coaxial "
    "mmf mmf-om1 mmf-om2 mmf-om3 mmf-om4 mmf-om5 smf smf-os1 smf-os2 aoc power".split())
"""NetBox cable types present since 3.7 (the rg-/lmr- coax types are 4.5+, usb 4.x)."""

COLORS = {"dark red": "aa1409", "red": "f44336", "pink": "e91e63", "rose": "ffe4e1",
          "fuchsia": "ff66ff", "purple": "9c27b0", "dark purple": "673ab7",
          "indigo": "3f51b5", "blue": "2196f3", "light blue": "03a9f4", "cyan": "00bcd4",
          "teal": "009688", "aqua": "00ffff", "dark green": "2f6a31", "green": "4caf50",
          "light green": "8bc34a", "lime": "cddc39", "yellow": "ffeb3b", "amber": "ffc107",
          "orange": "ff9800", "dark orange": "ff5722", "brown": "795548",
          "light grey": "c0c0c0", "grey": "9e9e9e", "dark grey": "607d8b", "black": "111111",
          "white": "ffffff"}
"""NetBox ``ColorChoices`` (netbox/utilities/choices.py): name -> hex."""

SITE_COLUMNS = ["name", "slug", "status", "description"]
LOCATION_COLUMNS = ["site", "name", "slug", "status", "description"]
MANUFACTURER_COLUMNS = ["name", "slug", "description"]
ROLE_COLUMNS = ["name", "slug", "color", "description"]
RACK_COLUMNS = ["site", "location", "name", "status", "width", "u_height", "description"]
DEVICE_COLUMNS = ["name", "role", "manufacturer", "device_type", "site", "location", "rack",
                  "position", "face", "status", "description"]
CABLE_COLUMNS = ["side_a_site", "side_a_device", "side_a_type", "side_a_name", "side_b_site",
                 "side_b_device", "side_b_type", "side_b_name", "type", "status", "label",
                 "color", "length", "length_unit", "description"]

ETHERNET_TYPES = {10: "10gbase-x-sfpp", 25: "25gbase-x-sfp28", 40: "40gbase-x-qsfpp",
                  50: "50gbase-x-sfp56", 100: "100gbase-x-qsfp28", 200: "200gbase-x-qsfp56",
                  400: "400gbase-x-osfp", 800: "800gbase-x-osfp"}
INFINIBAND_TYPES = {40: "infiniband-qdr", 56: "infiniband-fdr", 100: "infiniband-edr",
                    200: "infiniband-hdr", 400: "infiniband-ndr", 800: "infiniband-xdr"}
ROLE_COLORS = {"compute": "9e9e9e", "patch": "795548", "router": "2196f3", "leaf": "2196f3", "edge": "2196f3",
               "spine": "ff9800", "aggregation": "ff9800", "core": "9c27b0"}


def slug(text: str) -> str:
    """NetBox slug: lower-case letters, digits, hyphens and underscores."""
    return re.sub(r"[^a-z0-9_]+", "-", str(text).lower()).strip("-") or "x"


_LIBRARY_SLUG = (("sfp+", "sfpp"), ("poe+", "poep"), ("-+", "-plus"), ("+", "-plus-"),
                 ("_", "-"), ("&", "-and-"), ("!", ""), ("/", "-"), (",", ""), ("'", ""),
                 ("*", "-"))


def library_slug(text: str) -> str:
    """A model or manufacturer as the devicetype-library's tests slugify it (casefold, spaces
    to hyphens, ``+`` to ``plus``, ``/`` to ``-``, no trailing hyphen)."""
    out = str(text).casefold().replace(" ", "-")
    for old, new in _LIBRARY_SLUG:
        out = out.replace(old, new)
    return out.rstrip("-")


def device_type_slug(manufacturer: str, model: str) -> str:
    """The library's slug rule: manufacturer slug, ``-``, model slug (``nvidia-mqm9790-ns2f``)."""
    return slug(f"{library_slug(manufacturer)}-{library_slug(model)}")


def site_name(plan) -> str:
    """The plan's NetBox site: topology family, its parameters and the floor
    (``dragonfly-a4-h2-p2-hot-aisle``), cut to NetBox's 100 characters with a digest of the
    whole name when longer."""
    params = "-".join(f"{k}{v}" for k, v in sorted(plan.topology.params.items())
                      if isinstance(v, (int, float, str, bool)))
    name = slug(f"{plan.topology.family}-{params}-{plan.floor.name}")
    if len(name) <= SITE_NAME_MAX:
        return name
    import hashlib
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[:SITE_NAME_MAX - 9].rstrip('-')}-{digest}"


def hall_location(hall: int) -> str:
    """The NetBox location of hall ``hall`` (0-based, as ``Plan.cabinets``): ``Hall 1`` .."""
    return f"Hall {int(hall) + 1}"


def piece_labels(plan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The printed label (as ``planner.exports.labels`` prints it, ``Pieces.printed_labels``)
    of the piece at every link's A end and at its B end (a cable's, or its own patch cord's),
    in cable order, and of every trunk in ``StructuredPlan.trunks`` order; each link of a
    multi-link assembly (a splitter's ``C0091+C0092``, one NetBox cable per link) carries the
    assembly's label."""
    pieces = plan.pieces
    printed = pieces.printed_labels()
    first, last = pieces.end_pieces()
    trunks = np.flatnonzero(pieces.table["role"].to_numpy(object) == "trunk")
    return printed[first], printed[last], printed[trunks]


def path_part(text: str) -> str:
    """A manufacturer name as a folder name (the library's ``device-types/<Manufacturer>/``)."""
    return re.sub(r'[\\/:*?"<>|\x00-\x1f]+', "-", str(text)).strip(" .-") or "x"


def hex_color(color: str, sku: str) -> str:
    """A catalog cable colour as NetBox's 6-digit hex (colour names as in ColorChoices)."""
    text = str(color).strip().lower()
    if text in COLORS:
        return COLORS[text]
    if re.fullmatch(r"#?[0-9a-f]{6}", text):
        return text.lstrip("#")
    raise InputError(f"catalog cable '{sku}': field 'color' must be a NetBox colour name "
                     f"({', '.join(sorted(COLORS))}) or 6-digit hex, got {color!r}")


def interface_type(plan) -> str:
    """NetBox interface type of a router port: InfiniBand or Ethernet by the port rate."""
    model = plan.router_model
    rate = int(round(float(model.rate_gbps)))
    text = f"{getattr(model, 'description', '')} {getattr(plan.catalog, 'description', '')}"
    table = INFINIBAND_TYPES if "infiniband" in text.lower() else ETHERNET_TYPES
    return table.get(rate, "other")


def _number(value: float):
    return int(value) if float(value) == int(value) else float(value)


def _draw_w(plan) -> int:
    """Maximum draw of one router in watts: chassis base plus SerDes of every port plus the
    most its cages' parts draw (the catalog's figures), rounded up; 0 when unknown."""
    model = plan.router_model
    ends = [m.watts_per_end / (m.ports if m.kind == "transceiver" else m.links)
            for m in plan.catalog.cables if m.kind != "fibre"
            and (m.ports if m.kind == "transceiver" else m.links) == model.breakout]
    watts = model.base_watts + model.power_w(model.radix) + model.radix * max(ends, default=0)
    return int(np.ceil(watts))


def _power_ports(count: int, kind: str, draw_w: int) -> list[dict]:
    per = int(np.ceil(draw_w / max(count, 1))) if draw_w else 0
    return [{"name": f"PSU{i + 1}", "type": kind, **({"maximum_draw": per} if per else {})}
            for i in range(max(count, 1))]


def device_types(plan) -> list[dict]:
    """devicetype-library documents: the router model and the endpoint model."""
    model = plan.router_model
    port_type = interface_type(plan)
    comments = str(getattr(model, "description", "")).strip()
    docs = [{"manufacturer": str(model.vendor), "model": str(model.sku),
             "slug": device_type_slug(model.vendor, model.sku), "part_number": str(model.sku),
             "u_height": _number(model.rack_units), "is_full_depth": True,
             **({"comments": comments} if comments else {}),
             "power-ports": _power_ports(model.power_supplies, model.power_port_type,
                                         _draw_w(plan)),
             "interfaces": [{"name": name, "type": port_type}
                            for name in model.interface_name_list] + _mgmt_interface(plan)}]
    endpoints = plan.devices[plan.devices["kind"] == "endpoint"]
    nic = plan.catalog.nic
    servers = {m.sku: m for m in plan.catalog.servers} \
        if getattr(plan.placement, "server_cabinet", None) is not None else {}
    for name, rows in endpoints.groupby("model", sort=True):
        height = pd.to_numeric(rows["height_ru"], errors="coerce").fillna(0).max()
        what = f"compute endpoint, one fabric port ({nic.sku})" if nic else \
            "compute endpoint, one fabric port"
        ports = ["1"]
        if name in servers:         # a server of N NICs: one device, interfaces nic1..nicN
            model = servers[name]
            ports = [f"nic{k}" for k in range(1, model.nics + 1)]
            what = (f"server, {model.nics} fabric NICs ({model.nic})"
                    + (f", {model.gpus} GPUs" if model.gpus else ""))
        docs.append({"manufacturer": ENDPOINT_MANUFACTURER, "model": str(name),
                     "slug": device_type_slug(ENDPOINT_MANUFACTURER, name),
                     "u_height": _number(height), "is_full_depth": bool(height > 0),
                     "comments": what,
                     "power-ports": _power_ports(1, ENDPOINT_POWER_PORT, 0),
                     "interfaces": [{"name": port, "type": port_type} for port in ports]})
    return docs + fabric_device_types(plan)


MGMT_INTERFACE_TYPE = "1000base-t"
"""NetBox interface type of a management port and of a management switch's ports (1GbE RJ45)."""
MGMT_CABLE_TYPE = "cat6a"
"""NetBox cable type of a management cord (the catalogs' Cat6A patch cords)."""


def _mgmt_interface(plan) -> list[dict]:
    """The out-of-band management port of a box the plan cables to a management switch."""
    boxes = getattr(plan, "fabric", None)
    if boxes is None or boxes.cords.empty:
        return []
    return [{"name": MGMT_PORT, "type": MGMT_INTERFACE_TYPE, "mgmt_only": True}]


def fabric_device_types(plan) -> list[dict]:
    """devicetype-library documents of the fabric's boxes (``planner.costing.fabric_devices``):
    a management switch with its numbered 1GbE ports, a subnet-manager box and a zero-U PDU
    with their management port, each with its power supplies."""
    boxes = getattr(plan, "fabric", None)
    if boxes is None or boxes.devices.empty:
        return []
    docs = []
    for sku, rows in boxes.devices.groupby("sku", sort=True):
        first = rows.iloc[0]
        ports = [{"name": str(i + 1), "type": MGMT_INTERFACE_TYPE}
                 for i in range(int(first["ports"]))] if first["kind"] == "mgmt_switch" else []
        mgmt = _mgmt_interface(plan) if bool(first["managed"]) else []
        height = 0 if first["kind"] == "pdu" else _number(first["height_ru"])
        docs.append({"manufacturer": str(first["vendor"]), "model": str(sku),
                     "slug": device_type_slug(str(first["vendor"]), str(sku)),
                     "part_number": str(sku), "u_height": height,
                     "is_full_depth": first["kind"] != "pdu",
                     **({"comments": str(first["description"])} if first["description"] else {}),
                     **({"power-ports": _power_ports(int(first["power_supplies"]),
                                                     ENDPOINT_POWER_PORT,
                                                     int(np.ceil(first["watts"])))}
                        if int(first["power_supplies"]) else {}),
                     **({"power-outlets": _pdu_outlets(plan)} if first["kind"] == "pdu" else {}),
                     "interfaces": ports + mgmt})
    return docs


def _pdu_outlets(plan) -> list[dict]:
    """A PDU's outlets (the catalog's ``power.outlets``, C13 as the devices' C14 supplies take;
    its input plug depends on the supply chosen for the site and is left out)."""
    return [{"name": str(i + 1), "type": "iec-60320-c13"}
            for i in range(int(plan.catalog.power.outlets))]


PANEL_ROLE = "Patch panel"


def _panel_manufacturer(vendor: str) -> str:
    """A panel vendor as a manufacturer; ``generic`` is the endpoints' ``Generic``."""
    vendor = str(vendor).strip()
    return ENDPOINT_MANUFACTURER if vendor.casefold() in ("", "generic") else vendor


def _entry_ports(panel, layout: str) -> tuple[list, list, list]:
    """(rear ports, front ports, port-mappings) of an entry panel from its ``layout``
    (``R12F5F7 R12F12``, ``planner.cabling.structured``): rear port ``R<r>`` of each group's
    positions (a hall trunk), its front ports ``F<f>`` (row trunks) on its first positions in
    order, position for position."""
    rear, front, mappings = [], [], []
    for r, group in enumerate(layout.split(), start=1):
        legs, *sizes = re.findall(r"\d+", group)
        rear.append({"name": f"R{r}", "type": panel.rear_type, "positions": int(legs)})
        at = 0
        for size in map(int, sizes):
            name = f"F{len(front) + 1}"
            front.append({"name": name, "type": panel.rear_type, "positions": size})
            mappings += [{"front_port": name, "front_port_position": k, "rear_port": f"R{r}",
                          "rear_port_position": at + k} for k in range(1, size + 1)]
            at += size
    return rear, front, mappings


def panel_device_types(plan) -> list[dict]:
    """One device type per panel model the plan installs (``StructuredPlan.panels.model``): a
    row panel's rear ports ``R1`` .. ``R<n>`` of the sizes its ``layout`` lists (``4x12 2x8``:
    trunks of several sizes share a panel), its front ports ``01`` .. one position each, in
    order (rear ``R<r>`` position ``k`` is the front port after the earlier rear ports' ones);
    an entry (pass-through) panel's ports follow its ``layout`` (``_entry_ports``)."""
    from planner.cabling.structured import front_port_names
    plant = plan.structured
    if plant is None or plant.panels.empty:
        return []
    docs = []
    models = plant.panels.drop_duplicates("model").sort_values("model", kind="stable")
    for row in models.itertuples(index=False):
        panel = plan.catalog.panels[int(row.part)]
        rears, legs = int(row.rear_ports), int(row.legs)
        maker = _panel_manufacturer(panel.vendor)
        rear = [{"name": f"R{r}", "type": panel.rear_type, "positions": legs}
                for r in range(1, rears + 1)]
        if row.kind == "entry":
            rear, front, mappings = _entry_ports(panel, str(row.layout))
        else:
            sizes = [int(size) for count, size in re.findall(r"(\d+)x(\d+)", str(row.layout))
                     for _ in range(int(count))] or [legs] * rears
            rear = [{"name": f"R{r}", "type": panel.rear_type, "positions": size}
                    for r, size in enumerate(sizes, start=1)]
            names = front_port_names(plan.catalog, sum(sizes))
            front = [{"name": n, "type": panel.connector, "positions": 1} for n in names]
            starts = np.cumsum([0] + sizes[:-1])
            mappings = [{"front_port": names[int(start) + k - 1], "front_port_position": 1,
                         "rear_port": f"R{r}", "rear_port_position": k}
                        for r, (start, size) in enumerate(zip(starts, sizes), start=1)
                        for k in range(1, size + 1)]
        what = "hall-entry pass-through" if row.kind == "entry" else "row-end patch panel"
        docs.append({"manufacturer": maker, "model": str(row.model),
                     "slug": device_type_slug(maker, row.model), "part_number": panel.sku,
                     "u_height": int(panel.rack_units), "is_full_depth": False,
                     "comments": f"{what}: {panel.description or panel.sku}",
                     "front-ports": front, "rear-ports": rear, "port-mappings": mappings})
    return docs


class _LibraryDumper(yaml.SafeDumper):
    """The library's YAML style: sequences indented under their key."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


def _library_dump(data) -> str:
    return yaml.dump(data, Dumper=_LibraryDumper, sort_keys=False, allow_unicode=False,
                     default_flow_style=False, indent=2, width=1000)


_PLAIN_SCALAR = 200
"""Longest scalar text the item lists write without PyYAML (far below the 1000-column width at
which PyYAML would fold it)."""


def _scalar_texts(items: list[dict]) -> dict | None:
    """The YAML text of every distinct scalar value of ``items`` as PyYAML writes it after a
    mapping key (``'01'``, ``lc-upc``, ``1``); None if an item is not a non-empty mapping of
    scalars or a text would need more than one short line."""
    values = set()
    for item in items:
        if not isinstance(item, dict) or not item:
            return None
        for key, value in item.items():
            if not (isinstance(key, str) and isinstance(value, (str, int, float, bool))):
                return None
            values.add((type(value), value))
    texts = {}
    for kind, value in values:
        text = _library_dump({"k": value})[3:-1]
        if "\n" in text or len(text) > _PLAIN_SCALAR:
            return None
        texts[(kind, value)] = text
    return texts


def _item_list(key: str, items: list[dict]) -> str | None:
    """``key`` and its sequence of mappings as ``_library_dump`` writes them (two-space indents,
    ``- `` then the first key), joined in C rather than emitted node by node (the port lists
    of a panel type run to thousands of nodes); None where ``_scalar_texts`` is None."""
    texts = _scalar_texts(items)
    keys = {k: _library_dump({k: 0})[:-3] for k in {k for item in items for k in item}} \
        if texts else {}
    if texts is None or any(not k.endswith(":") or "\n" in k for k in keys.values()):
        return None
    lines = [_library_dump({key: [0]}).split("\n", 1)[0]]
    for item in items:
        lead = "  - "
        for k, value in item.items():
            lines.append(f"{lead}{keys[k]} {texts[(type(value), value)]}")
            lead = "    "
    return "\n".join(lines) + "\n"


def library_yaml(doc: dict) -> str:
    """A device type as the library writes it: ``---``, two-space indents, sequences indented
    under their key (its yamllint rules), ASCII. Each top-level key is written on its own (a
    block mapping's entries do not depend on each other), its list of ports by ``_item_list``
    when it can."""
    parts = []
    for key, value in doc.items():
        text = _item_list(key, value) if isinstance(value, list) and value else None
        parts.append(text if text is not None else _library_dump({key: value}))
    return "---\n" + "".join(parts)


def router_roles(plan) -> np.ndarray:
    roles = plan.topology.roles
    if roles is None:
        return np.full(plan.topology.num_routers, "Router", dtype=object)
    return np.array([str(r).capitalize() for r in roles], dtype=object)


def device_frames(plan):
    """devices.csv's rows in order, ``tuning.CSV_CHUNK_ROWS`` devices at a time, then the patch
    panels and the fabric's boxes: only one chunk's text is held at once."""
    dev = plan.devices.reset_index(drop=True)
    locations = rack_locations(plan)
    for lo in range(0, len(dev), CSV_CHUNK_ROWS):
        yield device_rows(plan, dev.iloc[lo:lo + CSV_CHUNK_ROWS].reset_index(drop=True),
                          locations)
    yield panel_device_rows(plan)
    yield fabric_device_rows(plan)


def device_rows(plan, dev: pd.DataFrame | None = None,
                locations: dict[str, str] | None = None) -> pd.DataFrame:
    """The routers and endpoints of ``dev`` (default every device of the plan)."""
    dev = plan.devices.reset_index(drop=True) if dev is None else dev
    locations = rack_locations(plan) if locations is None else locations
    is_router = (dev["kind"] == "router").to_numpy()
    roles = np.full(len(dev), "Compute node", dtype=object)
    ids = dev["id"].to_numpy(np.int64)
    roles[is_router] = router_roles(plan)[ids[is_router]]
    manufacturer = np.where(is_router, str(plan.router_model.vendor), ENDPOINT_MANUFACTURER)
    ru = pd.to_numeric(dev["ru"], errors="coerce").to_numpy(float)
    height = pd.to_numeric(dev["height_ru"], errors="coerce").fillna(0).to_numpy(float)
    positioned = (~np.isnan(ru) & (height > 0) &
                  (ru + height - 1 <= float(plan.floor.cabinet_height_ru)) &
                  (not getattr(plan.floor, "abstract", False)))
    position = unit_text(np.where(positioned, ru, np.nan), 1)
    return pd.DataFrame({
        "name": dev["name"].astype(str), "role": roles, "manufacturer": manufacturer,
        "device_type": dev["model"].astype(str), "site": site_name(plan),
        "location": dev["cabinet"].astype(str).map(locations).to_numpy(object),
        "rack": dev["cabinet"].astype(str), "position": position,
        "face": np.where(positioned, "front", ""), "status": "planned",
        "description": list(map("{} {}".format, np.where(is_router, "router", "endpoint"),
                                column_text(dev["id"]))),
    })[DEVICE_COLUMNS]


def fabric_device_rows(plan) -> pd.DataFrame:
    """The subnet-manager boxes, management switches and PDUs in their cabinets: a box at its
    rack unit, front face; a zero-U PDU in its rack without a position (NetBox: a device without
    a position is non-racked, listed with its rack)."""
    boxes = getattr(plan, "fabric", None)
    if boxes is None or boxes.devices.empty:
        return pd.DataFrame(columns=DEVICE_COLUMNS)
    d = boxes.devices
    ru = d["ru"].to_numpy(float)
    positioned = ~np.isnan(ru) & (not getattr(plan.floor, "abstract", False))
    return pd.DataFrame({
        "name": d["name"].astype(str), "role": d["role"].astype(str),
        "manufacturer": d["vendor"].astype(str), "device_type": d["sku"].astype(str),
        "site": site_name(plan),
        "location": d["cabinet"].astype(str).map(rack_locations(plan)).to_numpy(object),
        "rack": d["cabinet"].astype(str), "position": unit_text(np.where(positioned, ru, np.nan), 1),
        "face": np.where(positioned, "front", ""), "status": "planned",
        "description": [f"{role.lower()}{f', feed {feed}' if feed else ''}"
                        for role, feed in zip(d["role"], d["feed"])],
    })[DEVICE_COLUMNS]


def mgmt_cable_rows(plan) -> pd.DataFrame:
    """The management cords: a device's management interface to a management switch port."""
    boxes = getattr(plan, "fabric", None)
    if boxes is None or boxes.cords.empty:
        return pd.DataFrame(columns=CABLE_COLUMNS)
    c = boxes.cords
    site = site_name(plan)
    return pd.DataFrame({
        "side_a_site": site, "side_a_device": c["a_device"].astype(str),
        "side_a_type": "dcim.interface", "side_a_name": c["a_port"].astype(str),
        "side_b_site": site, "side_b_device": c["b_device"].astype(str),
        "side_b_type": "dcim.interface", "side_b_name": c["b_port"].astype(str),
        "type": MGMT_CABLE_TYPE, "status": "planned", "label": c["label"].astype(str),
        "color": hex_color(plan.catalog.management.cable.color, str(c["sku"].iloc[0])),
        "length": unit_text(c["order_length_m"].to_numpy(float), 1),
        "length_unit": "m",
        "description": [f"{i} {sku} management, estimated {m} m" for i, sku, m in zip(
            c["cable_id"], c["sku"], unit_text(c["length_m"].to_numpy(float), 1))],
    })[CABLE_COLUMNS]


def panel_device_rows(plan) -> pd.DataFrame:
    """The patch panels as devices in their patch racks."""
    plant = plan.structured
    if plant is None or plant.panels.empty:
        return pd.DataFrame(columns=DEVICE_COLUMNS)
    panels = plant.panels
    makers = [_panel_manufacturer(plan.catalog.panels[int(i)].vendor) for i in panels["part"]]
    return pd.DataFrame({
        "name": panels["name"].astype(str), "role": PANEL_ROLE, "manufacturer": makers,
        "device_type": panels["model"].astype(str), "site": site_name(plan),
        "location": panels["rack"].astype(str).map(rack_locations(plan)).to_numpy(object),
        "rack": panels["rack"].astype(str),
        "position": column_text(panels["ru"]), "face": "front", "status": "planned",
        "description": [f"{kind} panel at {point}: {trunks} trunks, {links} links"
                        for kind, point, trunks, links in zip(
                            panels["kind"], panels["point"], panels["trunks"],
                            panels["links"])],
    })[DEVICE_COLUMNS]


def cable_types(plan) -> tuple[np.ndarray, dict[int, str], dict[int, str]]:
    """Per cable its catalog entry (the fibre's where it has one), and each entry's NetBox cable
    type and colour; an entry whose ``netbox_type`` NetBox does not know is refused."""
    c = plan.cables
    models = plan.catalog.cables
    cut = np.where(c["fibre"].to_numpy() >= 0, c["fibre"].to_numpy(), c["part"].to_numpy())
    types, colors = {}, {}
    for i in np.unique(cut).tolist():
        model = models[i]
        if model.netbox_type not in CABLE_TYPES:
            raise InputError(f"catalog cable '{model.sku}': field 'netbox_type' must be one of "
                             f"{', '.join(sorted(CABLE_TYPES))}, got {model.netbox_type!r}")
        types[i], colors[i] = model.netbox_type, hex_color(model.color, model.sku)
    return cut, types, colors


def interface_names(plan, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The A and B interface names of the cables at ``rows``: a router port by the router
    model's interface names, an endpoint port by its number (a server's NIC ``nic2``)."""
    c = plan.cables
    names = np.asarray(plan.router_model.interface_name_list, dtype=object)
    a_name = names[c["a_port"].to_numpy(np.int64)[rows] - 1]
    net = (c["b_router"].to_numpy()[rows] >= 0)
    b_port = c["b_port"].iloc[rows]
    end_port = np.asarray(column_text(b_port), dtype=object)
    if getattr(plan.placement, "server_cabinet", None) is not None:    # a server's NICs
        end_port = np.asarray(["nic" + p for p in end_port.tolist()], dtype=object)
    b_name = np.where(net, names[np.where(net, b_port.to_numpy(np.int64) - 1, 0)], end_port)
    return a_name, b_name


def cable_frames(plan):
    """cables.csv's rows in order, a chunk (``tuning.CSV_CHUNK_ROWS``) at a time: the cables
    between devices, then with structured cabling the patch cords (every A end, then every B
    end) and the trunks, then the management cords. Only one chunk's text is held at once."""
    c = plan.cables
    cut, types, colors = cable_types(plan)
    a_label, b_label, trunk_label = piece_labels(plan)
    site = site_name(plan)
    plant = plan.structured
    through = np.zeros(len(c), dtype=bool)
    if plant is not None and not plant.links.empty:
        through[plant.links["cable"].to_numpy(np.int64)] = True
    for lo in range(0, len(c), CSV_CHUNK_ROWS):
        rows = np.arange(lo, min(lo + CSV_CHUNK_ROWS, len(c)))
        rows = rows[~through[rows]]
        a_name, b_name = interface_names(plan, rows)
        part = c.iloc[rows]
        estimated = unit_text(part["length_m"].to_numpy(float), 1).tolist()
        ids = column_text(part["cable_id"])
        yield pd.DataFrame({
            "side_a_site": site, "side_a_device": column_text(part["a_device"]),
            "side_a_type": "dcim.interface", "side_a_name": a_name,
            "side_b_site": site, "side_b_device": column_text(part["b_device"]),
            "side_b_type": "dcim.interface", "side_b_name": b_name,
            "type": [types[i] for i in cut[rows].tolist()], "status": "planned",
            "label": a_label[rows],
            "color": [colors[i] for i in cut[rows].tolist()],
            "length": unit_text(part["order_length_m"].to_numpy(float), 1), "length_unit": "m",
            "description": list(map("{} {} {}, estimated {} m".format, ids,
                                    column_text(part["sku"]), column_text(part["media"]),
                                    estimated)),
        })[CABLE_COLUMNS]
    if plant is not None and not plant.links.empty:
        for end, labels in (("a", a_label), ("b", b_label)):
            for lo in range(0, len(plant.links), CSV_CHUNK_ROWS):
                yield _cord_rows(plan, plant.links.iloc[lo:lo + CSV_CHUNK_ROWS], end, labels)
        yield _trunk_rows(plan, trunk_label)
    yield mgmt_cable_rows(plan)


def _cord_rows(plan, links: pd.DataFrame, end: str, labels: np.ndarray) -> pd.DataFrame:
    """The ``end`` (a | b) patch cords of the links through panels ``links``: interface - panel
    front port; ``labels``: the printed label at that end of every link (``piece_labels``)."""
    rows = links["cable"].to_numpy(np.int64)
    cord = plan.catalog.cables
    kind = [cord[int(i)].netbox_type for i in links["cord"]]
    color = [hex_color(cord[int(i)].color, cord[int(i)].sku) for i in links["cord"]]
    site = site_name(plan)
    name = interface_names(plan, rows)["ab".index(end)]
    return pd.DataFrame({
        "side_a_site": site,
        "side_a_device": column_text(plan.cables[f"{end}_device"].iloc[rows]),
        "side_a_type": "dcim.interface", "side_a_name": np.asarray(name, dtype=object),
        "side_b_site": site, "side_b_device": links[f"{end}_panel"].to_numpy(),
        "side_b_type": "dcim.frontport", "side_b_name": links[f"{end}_port"].to_numpy(),
        "type": kind, "status": "planned",
        "label": labels[rows],
        "color": color,
        "length": unit_text(links[f"cord_{end}_order_m"].to_numpy(float), 1),
        "length_unit": "m",
        "description": list(map("{} {}-end cord {}, estimated {} m".format,
                                links["cable_id"], [end.upper()] * len(links),
                                links[f"cord_{end}_sku"],
                                unit_text(links[f"cord_{end}_m"].to_numpy(float), 1)))})


def _trunk_rows(plan, labels: np.ndarray) -> pd.DataFrame:
    """Every trunk: rear port - rear port (a hall trunk: entry front port - front port);
    ``labels``: their printed labels (``piece_labels``)."""
    trunks = plan.structured.trunks
    models = plan.catalog.cables
    types = {"rear": "dcim.rearport", "front": "dcim.frontport"}
    site = site_name(plan)
    return pd.DataFrame({
        "side_a_site": site, "side_a_device": trunks["a_panel"].to_numpy(),
        "side_a_type": trunks["a_port_kind"].map(types).to_numpy(),
        "side_a_name": trunks["a_port"].to_numpy(),
        "side_b_site": site, "side_b_device": trunks["b_panel"].to_numpy(),
        "side_b_type": trunks["b_port_kind"].map(types).to_numpy(),
        "side_b_name": trunks["b_port"].to_numpy(),
        "type": [models[int(i)].netbox_type for i in trunks["part"]], "status": "planned",
        "label": labels,
        "color": [hex_color(models[int(i)].color, models[int(i)].sku) for i in trunks["part"]],
        "length": unit_text(trunks["order_length_m"].to_numpy(float), 1), "length_unit": "m",
        "description": list(map("{} {} trunk {}, {} links, estimated {} m".format,
                                trunks["trunk_id"], trunks["kind"], trunks["sku"],
                                trunks["links"],
                                unit_text(trunks["length_m"].to_numpy(float), 1)))})


def rack_locations(plan) -> dict[str, str]:
    """The location (hall) of every cabinet and patch rack, by name."""
    where = dict(zip(plan.cabinets["name"].astype(str),
                     [hall_location(h) for h in plan.cabinets["hall"]]))
    if plan.structured is not None and not plan.structured.racks.empty:
        racks = plan.structured.racks
        where.update(zip(racks["name"].astype(str), [hall_location(h) for h in racks["hall"]]))
    return where


def rack_rows(plan) -> pd.DataFrame:
    cab = plan.cabinets
    dev = plan.devices
    top = (pd.to_numeric(dev["ru"], errors="coerce") +
           pd.to_numeric(dev["height_ru"], errors="coerce").fillna(1).clip(lower=1) - 1)
    highest = top.groupby(dev["cabinet"].astype(str)).max()
    height = int(plan.floor.cabinet_height_ru)
    return pd.DataFrame({
        "site": site_name(plan), "location": [hall_location(h) for h in cab["hall"]],
        "name": cab["name"].astype(str),
        "status": "planned",
        "width": RACK_WIDTH_IN, "u_height": height,
        "description": [f"row {r + 1}, column {c + 1}, electrical group {g}; "
                        f"{n_r} routers, {n_e} endpoints" +
                        (f"; abstract rack, devices up to U{highest.get(name):g}"
                         if pd.notna(highest.get(name)) and highest.get(name) > height else "")
                        for name, r, c, g, n_r, n_e in zip(
                            cab["name"].astype(str), cab["row"], cab["col"], cab["group"],
                            cab["routers"], cab["endpoints"])],
    })[RACK_COLUMNS]


def patch_rack_rows(plan) -> pd.DataFrame:
    """The patch racks of structured cabling (row ends and hall entries)."""
    plant = plan.structured
    if plant is None or plant.racks.empty:
        return pd.DataFrame(columns=RACK_COLUMNS)
    racks = plant.racks
    return pd.DataFrame({
        "site": site_name(plan), "location": [hall_location(h) for h in racks["hall"]],
        "name": racks["name"].astype(str),
        "status": "planned", "width": RACK_WIDTH_IN, "u_height": racks["height_ru"],
        "description": [f"patch rack ({kind}) at {point}: {n} panels, {ru} U used"
                        for kind, point, n, ru in zip(racks["kind"], racks["point"],
                                                      racks["panels"], racks["ru_used"])],
    })[RACK_COLUMNS]


PASTE_LIMIT_BYTES = 2_621_440
"""NetBox's import form takes pasted text up to Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``
(2.5 MiB, NetBox's default); a larger paste is refused with HTTP 400."""
UPLOAD_ROWS_MAX = 2_000
"""Rows of one CSV file worth uploading through the import form: NetBox creates 0.1 - 0.2 s
per row (measured on NetBox 4.6.8, 2 cores), so 2,000 rows are 3 - 7 minutes of one request;
past that a web request risks its worker timeout and ``planner netbox push`` is the way."""


def import_path(rows: int, size: int) -> str:
    """How one CSV file of ``rows`` rows and ``size`` bytes goes into NetBox: paste it, upload
    it, or push the plan (``planner netbox push``)."""
    if rows > UPLOAD_ROWS_MAX:
        return "push"
    return "paste or upload" if size <= PASTE_LIMIT_BYTES else "upload"


def readme(plan, docs: list[dict], paths: list[str], files: dict[str, tuple[int, int]]) -> str:
    """The bundle's README: the import order and, per CSV file (``files``: name -> rows,
    bytes), the way that works at its size."""
    types = "\n".join(f"   - `{p}`" for p in paths)
    names = [i["name"] for i in docs[0]["interfaces"]]
    halls = ", ".join(f"`{h}`" for h in hall_names(plan))

    def step(number: int, name: str, where: str) -> str:
        rows, size = files[name]
        return (f"{number}. `{name}` ({where}): {rows:,} rows, {size / 1e6:.2f} MB: "
                f"{import_path(rows, size)}")

    too_big = [n for n, (rows, size) in files.items() if import_path(rows, size) == "push"]
    advice = (f"This plan is too large for the import forms ({', '.join(f'`{n}`' for n in too_big)}"
              f" over {UPLOAD_ROWS_MAX:,} rows): load it (or, for a few thousand objects, push "
              "it) instead." if too_big else
              "Every file of this plan fits the import forms; `planner netbox push` works too.")
    return f"""# NetBox import bundle: {plan.topology.family} plan

Written by `planner plan`, for NetBox 4.5 or later (cables name the site of each end, 4.4+;
patch panels map front to rear ports with `port-mappings`, 4.5+). Everything is
`status=planned`; site `{site_name(plan)}` (named after the system: topology, parameters and
floor), one location per hall ({halls}, halls numbered as in `cabinets.csv`). Another site may
already hold devices of the same names: every cable end names this site. Cable labels are the
printed labels (`labels.csv`).

## Which way in, by size

- **Load** (any size; the way for a plan of thousands of devices): on the NetBox host, as the
  user that runs NetBox, `planner netbox load --plan DIR --netbox /opt/netbox/netbox` loads
  these same files with NetBox's own Python and ORM in bulk (no API token). Measured on
  NetBox 4.5.10 on 2 cores: the default 10K plan (43,148 objects) in 161 s, a 100K plan
  (449,531 objects) in 24 min. A second load changes nothing; a
  re-plan loads only its differences; an interrupted load goes on where it stopped. No change
  log entries are written for the objects it creates.
- **Push** (REST API, an API token is all it needs): `planner netbox push --plan DIR --url
  https://netbox.example.com --token-file token.txt` loads these same files in bulk batches,
  with the same results. NetBox spends about 0.25 CPU seconds on each object written through
  its API, so it suits a plan of a few thousand objects (a two-hall plan: minutes); the
  default 10K plan would take NetBox's API about 85 minutes of 2 dedicated cores
  (`docs/netbox.md` of the planner).
- **Paste** into an import form: only files under {PASTE_LIMIT_BYTES / 2**20:.1f} MiB (NetBox refuses a
  larger form with HTTP 400).
- **Upload** a file in an import form: set *Format* to CSV and *Delimiter* to **Comma**
  explicitly. Left on *Auto-detect*, NetBox sniffs the delimiter over the whole file first
  (582 s on a 5.5 MB `cables.csv`). Worth it up to about {UPLOAD_ROWS_MAX:,} rows per file
  (0.1 - 0.2 s per row).

{advice}

## Import order (each list view, "Import" button)

Skip a manufacturer, device role or device type that your NetBox already has (NetBox refuses a
second object of the same name).

{step(1, "manufacturers.csv", "DCIM > Manufacturers")}
{step(2, "device_roles.csv", "DCIM > Device Roles")}
3. device types, one YAML file each (DCIM > Device Types > Import):
{types}
{step(4, "sites.csv", "DCIM > Sites")}
{step(5, "locations.csv", "DCIM > Locations")}
{step(6, "racks.csv", "DCIM > Racks")}
{step(7, "devices.csv", "DCIM > Devices: interfaces come from the device-type templates")}
{step(8, "cables.csv", "DCIM > Cables")}

Router interfaces carry the vendor's names (`{names[0]}` .. `{names[-1]}` on
`{docs[0]['model']}`): port p of `cables.csv`, the labels and `topology.dot` is the p-th of
them. Cable `length` is the ordered stock length in metres; the description holds the cable id,
part number, media and the estimated (unrounded) length. Devices without a `position` are
assigned to their rack only (endpoints without rack units, or an abstract floor where one rack
holds more than its units).
""" + _structured_readme(plan)


def hall_names(plan) -> list[str]:
    """The locations of the plan, one per hall it uses, in hall order."""
    halls = set(plan.cabinets["hall"].astype(int).tolist())
    if plan.structured is not None and not plan.structured.racks.empty:
        halls |= set(plan.structured.racks["hall"].astype(int).tolist())
    return [hall_location(h) for h in sorted(halls)]


def _structured_readme(plan) -> str:
    plant = plan.structured
    if plant is None or plant.links.empty:
        return ""
    return f"""
Structured cabling (the panel device types map front to rear ports with `port-mappings`,
NetBox 4.5 or later): {len(plant.panels)} patch panels (role `{PANEL_ROLE}`) in
{len(plant.racks)} patch racks, {len(plant.trunks)} trunks. A link that leaves its row is its
two patch cords (interface - panel front port), its trunk
(rear port - rear port) and between halls the hall trunk (entry
panel front port - front port); NetBox's cable trace follows it from interface to interface.
"""


def write(plan, out_dir: Path) -> None:
    """Write the ``netbox/`` bundle."""
    folder = Path(out_dir) / FOLDER
    folder.mkdir(exist_ok=True)
    docs = device_types(plan) + panel_device_types(plan)
    paths = []
    for doc in docs:
        name = library_slug(doc["model"])
        rel = Path("device-types") / path_part(doc["manufacturer"]) / f"{name}.yaml"
        (folder / rel.parent).mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(library_yaml(doc), encoding="utf-8")
        paths.append(rel.as_posix())
    makers = sorted({d["manufacturer"] for d in docs})
    endpoints = (plan.devices["kind"] == "endpoint").any()
    panels = plan.structured is not None and not plan.structured.panels.empty
    fabric_roles = set() if getattr(plan, "fabric", None) is None else \
        set(plan.fabric.devices["role"])
    roles = sorted(set(router_roles(plan)) | ({"Compute node"} if endpoints else set())
                   | ({PANEL_ROLE} if panels else set()) | fabric_roles)
    site = site_name(plan)

    def csv(frame: pd.DataFrame, name: str) -> None:
        write_csv(frame, folder / name)

    csv(pd.DataFrame({"name": makers, "slug": [slug(m) for m in makers], "description": ""}),
        "manufacturers.csv")
    csv(pd.DataFrame({"name": roles, "slug": [slug(r) for r in roles],
                      "color": [ROLE_COLORS.get(r.split()[0].lower(), "607d8b") for r in roles],
                      "description": "planner device role"})[ROLE_COLUMNS], "device_roles.csv")
    csv(pd.DataFrame({"name": [site], "slug": [slug(site)], "status": ["planned"],
                      "description": [f"{plan.topology.family} system, floor {plan.floor.name}"]}),
        "sites.csv")
    halls = hall_names(plan)
    csv(pd.DataFrame({"site": site, "name": halls, "slug": [slug(h) for h in halls],
                      "status": "planned",
                      "description": [f"{plan.floor.name}, {h.lower()}" for h in halls]}),
        "locations.csv")
    csv(pd.concat([rack_rows(plan), patch_rack_rows(plan)], ignore_index=True), "racks.csv")
    write_frames(device_frames(plan), folder / "devices.csv")
    write_frames(cable_frames(plan), folder / "cables.csv")
    files = {name: (_data_rows(folder / name), (folder / name).stat().st_size)
             for name in CSV_FILES}
    (folder / "README.md").write_text(readme(plan, docs, paths, files), encoding="utf-8")


CSV_FILES = ("manufacturers.csv", "device_roles.csv", "sites.csv", "locations.csv", "racks.csv",
             "devices.csv", "cables.csv")
"""The bundle's CSV files in import order."""


def write_frames(frames, path: Path) -> None:
    """One CSV file of the frames in turn (the same columns), the header once."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        for i, frame in enumerate(frames):
            write_rows(fh, frame, header=i == 0)


def _data_rows(path: Path) -> int:
    """Rows of a CSV file written here, header excluded (no cell holds a line break)."""
    with open(path, "rb") as handle:
        return max(sum(1 for _ in handle) - 1, 0)
