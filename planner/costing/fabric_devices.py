"""Where the fabric's own boxes stand and how the management network is wired: every
subnet-manager box, management switch and PDU that ``planner.costing.fabric`` buys gets a
cabinet, a rack unit and a name, and every management cord its two ends.

Takes the catalog, the placement, the floor, the plan's devices (routers and endpoints with
their rack units, ``planner.cabling``) and the ``FabricPlan`` of ``planner.costing.fabric``;
hands on ``FabricDevices``: one row per box and one row per management cord, in the columns of
``cables.csv`` (``kind`` = ``mgmt``).

Rules:

- names: subnet-manager boxes ``sm1`` .. ``smN`` (the cabinets of ``planner.costing.fabric``:
  box k in cabinet ``⌊k·C/N⌋``); management switches ``mgmt-<cabinet>-<k>`` in their group's
  cabinet; PDUs ``pdu-<cabinet>-<feed><k>`` (feed A or B).
- rack units: management switches, then subnet-manager boxes, each take the highest free units
  of their cabinet (a management switch at the top, TIA-942 top-of-rack practice), above or
  between the routers and endpoints. PDUs are zero-U (mounted in the cabinet's rear channel:
  no rack unit). A cabinet without room is refused (InputError naming the cabinet and the fix).
  On the papers' abstract floors, which count slots but number no units, a box has no unit.
- PDUs per feed: feed A takes ``max(⌈outlets A / PDU outlets⌉, ⌈kW / derated kW⌉)``, feed B
  the rest of the cabinet's PDUs (``planner.costing.fabric``'s count).
- management cords: the managed devices of a cabinet, in the order routers (by id),
  subnet-manager boxes, PDUs (feed A then B), cabinets in plan order, are the cords of
  ``FabricPlan.cord_lengths_m`` in that order; within a group they take the ports of the group's
  management switches in turn (port 1 of the first switch, ...). A cord runs from the device's
  management port (``MGMT_PORT``) to the switch port; its label is
  ``<cabinet>-<ru>:mgmt/<cabinet>-<ru>:<port>`` as the fabric cables' (TIA-606); an end without
  a rack unit (a zero-U PDU, any box on an abstract floor) names its device instead of the unit
  (``<cabinet>-<device>:mgmt``), so every end's label is its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from planner.costing import fabric
from planner.run.errors import InputError

MGMT_PORT = "mgmt"
"""A managed device's out-of-band Ethernet port (``mgmt0`` on NVIDIA switches and appliances,
``NET`` on APC PDUs: named alike here)."""

ROLES = {"subnet_manager": "Subnet manager", "mgmt_switch": "Management switch",
         "pdu": "PDU"}
"""The role of each kind of box (NetBox device role, the PDF's cabinet list)."""

DEVICE_COLUMNS = ["name", "kind", "role", "sku", "vendor", "description", "cabinet",
                  "cabinet_index", "ru", "height_ru", "watts", "power_supplies", "feed",
                  "managed", "ports"]
CORD_COLUMNS = ["cable_id", "label", "kind", "a_device", "a_port", "a_cabinet", "a_ru",
                "b_device", "b_port", "b_cabinet", "b_ru", "media", "sku", "length_m",
                "order_length_m"]


@dataclass(frozen=True)
class FabricDevices:
    """The boxes (``DEVICE_COLUMNS``; ``ru`` NaN for a zero-U PDU) and the management cords
    (``CORD_COLUMNS``, the first columns of cables.csv)."""

    devices: pd.DataFrame
    cords: pd.DataFrame

    @cached_property
    def _by_cabinet(self) -> dict[str, pd.DataFrame]:
        """The boxes grouped by cabinet once, so a writer asking for every cabinet does not
        scan every box per cabinet (3.7 s of cabinets.csv at 100K)."""
        ordered = self.devices.sort_values(["cabinet", "ru", "name"],
                                           ascending=[True, False, True],
                                           na_position="last", kind="stable")
        return dict(tuple(ordered.groupby("cabinet", sort=False)))

    def in_cabinet(self, cabinet: str) -> pd.DataFrame:
        """The boxes of one cabinet, top unit first, zero-U PDUs last."""
        return self._by_cabinet.get(cabinet, self.devices.iloc[:0])

    def ru_per_cabinet(self, n_cab: int) -> np.ndarray:
        """Rack units the boxes take per cabinet (PDUs none)."""
        d = self.devices
        units = d["height_ru"].where(d["ru"].notna() | (d["kind"] != "pdu"), 0.0)
        return np.bincount(d["cabinet_index"].to_numpy(np.int64),
                           weights=units.to_numpy(float), minlength=n_cab)


def _free_top(occupied: np.ndarray, height: float, top: int) -> int | None:
    """Lowest unit of the highest run of ``height`` free units at or below ``top``."""
    h = int(np.ceil(height))
    for start in range(top - h + 1, 0, -1):
        if not occupied[start:start + h].any():
            return start
    return None


def _occupied(devices: pd.DataFrame, cabinet_names: list[str], height_ru: int) -> np.ndarray:
    """(C, height + 1) bool: units taken by routers and endpoints (index = unit number)."""
    taken = np.zeros((len(cabinet_names), height_ru + 2), dtype=bool)
    index = {name: i for i, name in enumerate(cabinet_names)}
    ru = pd.to_numeric(devices["ru"], errors="coerce").to_numpy(float)
    has = ~np.isnan(ru)
    cab = devices["cabinet"].to_numpy(object)[has]
    low = ru[has].astype(np.int64)
    high = np.ceil(ru[has] + devices["height_ru"].to_numpy(float)[has] - 1e-9).astype(np.int64)
    for c, lo, hi in zip(cab, low, high):
        taken[index[c], max(lo, 0):min(hi, height_ru + 1)] = True
    return taken


def _feeds(power, fp, n_cab: int) -> tuple[np.ndarray, np.ndarray]:
    """PDUs on feed A and on feed B per cabinet (module doc)."""
    if power is None:
        return np.zeros(n_cab, np.int64), np.zeros(n_cab, np.int64)
    if power.feeds == 1:
        return fp.pdus.astype(np.int64), np.zeros(n_cab, np.int64)
    capacity = power.kw * power.derating_pct / 100.0
    by_load = np.ceil(np.round(fp.kw / capacity, 9)).astype(np.int64)
    used = (fp.outlets_a > 0) | (fp.kw > 0)
    a = np.where(used, np.maximum(-(-fp.outlets_a // power.outlets), by_load), 0)
    return a, fp.pdus - a


def _box(kind: str, name: str, model, cab: int, names, ru, feed: str = "") -> dict:
    return dict(name=name, kind=kind, role=ROLES[kind], sku=model.sku, vendor=model.vendor,
                description=model.description, cabinet=names[cab], cabinet_index=cab, ru=ru,
                height_ru=float(model.rack_units), watts=float(model.watts),
                power_supplies=int(model.power_supplies), feed=feed,
                managed=bool(model.managed), ports=int(model.ports))


def place(catalog, placement, floor, devices: pd.DataFrame, fp) -> FabricDevices:
    """The fabric's boxes in their cabinets and the management cords (module doc);
    InputError when a cabinet has no free units for a box."""
    names = [str(n) for n in placement.cabinet_names]
    n_cab = len(names)
    numbered = not floor.abstract
    height = int(floor.cabinet_height_ru)
    taken = _occupied(devices, names, height) if numbered else None
    sm, mgmt, power = catalog.subnet_manager, catalog.management, catalog.power
    rows: list[dict] = []

    def unit(kind: str, model, cab: int, name: str):
        if not numbered:
            return np.nan
        start = _free_top(taken[cab], float(model.rack_units), height)
        if start is None:
            raise InputError(
                f"floor '{floor.name}': cabinet {names[cab]} has no {model.rack_units:g} free "
                f"rack units for {ROLES[kind].lower()} {name} ({model.sku}); lower "
                "router_slots or endpoint_slots, or use taller cabinets")
        taken[cab, start:start + int(np.ceil(model.rack_units))] = True
        return float(start)

    for c in range(n_cab):
        for k in range(int(fp.mgmt_switches[c])):
            name = f"mgmt-{names[c]}-{k + 1}"
            rows.append(_box("mgmt_switch", name, mgmt.switch, c, names,
                             unit("mgmt_switch", mgmt.switch, c, name)))
    box = None if sm is None else (sm.appliance if sm.mode == "appliance" else
                                   sm.hosts if sm.mode == "licence" else None)
    if box is not None:
        for k, c in enumerate(fabric.boxes(sm.count, n_cab).tolist()):
            name = f"sm{k + 1}"
            rows.append(_box("subnet_manager", name, box, c, names,
                             unit("subnet_manager", box, c, name)))
    feed_a, feed_b = _feeds(power, fp, n_cab)
    for c in range(n_cab):
        for feed, count in (("A", feed_a[c]), ("B", feed_b[c])):
            for k in range(int(count)):
                rows.append(_box("pdu", f"pdu-{names[c]}-{feed}{k + 1}", power.pdu, c, names,
                                 np.nan, feed))
    table = pd.DataFrame(rows, columns=DEVICE_COLUMNS)
    return FabricDevices(devices=table, cords=_cords(catalog, placement, devices, table, fp))


def _cords(catalog, placement, devices: pd.DataFrame, boxes: pd.DataFrame, fp) -> pd.DataFrame:
    """One row per management cord (module doc)."""
    mgmt = catalog.management
    if mgmt is None or not len(fp.cord_lengths_m):
        return pd.DataFrame(columns=CORD_COLUMNS)
    names = [str(n) for n in placement.cabinet_names]
    routers = devices[devices["kind"] == "router"]
    managed = boxes[boxes["managed"] & (boxes["kind"] != "mgmt_switch")]
    order = {"subnet_manager": 0, "pdu": 1}
    managed = managed.assign(_o=managed["kind"].map(order)).sort_values(
        ["cabinet_index", "_o", "feed", "name"], kind="stable")
    ends: list[tuple[str, str, object]] = []        # (device, cabinet, ru) in cord order
    router_rows = routers.sort_values("id", kind="stable")
    by_cab_r = router_rows.groupby("cabinet", sort=False)
    by_cab_b = managed.groupby("cabinet_index", sort=False)
    for c, name in enumerate(names):
        if name in by_cab_r.groups:
            g = by_cab_r.get_group(name)
            ends += list(zip(g["name"], g["cabinet"], g["ru"]))
        if c in by_cab_b.groups:
            g = by_cab_b.get_group(c)
            ends += list(zip(g["name"], g["cabinet"], g["ru"]))
    if len(ends) != len(fp.cord_lengths_m):
        raise AssertionError(f"{len(ends)} managed devices but {len(fp.cord_lengths_m)} "
                             "management cords")
    group, holder = fabric.groups(placement, mgmt.cabinets_per_switch)
    index = {name: c for c, name in enumerate(names)}
    switches: dict[str, list[tuple[str, float]]] = {}
    for name, kind, cab, ru in zip(boxes["name"], boxes["kind"], boxes["cabinet"], boxes["ru"]):
        if kind == "mgmt_switch":
            switches.setdefault(cab, []).append((name, ru))
    g_of_end = group[np.array([index[e[1]] for e in ends], dtype=np.int64)]
    rank = np.zeros(len(ends), dtype=np.int64)          # the device's place in its group
    for g in np.unique(g_of_end):
        idx = np.flatnonzero(g_of_end == g)
        rank[idx] = np.arange(len(idx))
    ports = mgmt.switch.ports
    sw_cab = [names[holder[g]] for g in g_of_end.tolist()]
    sw = [switches[c][k] for c, k in zip(sw_cab, (rank // ports).tolist())]
    sw_name, sw_ru = [n for n, _ in sw], [r for _, r in sw]
    sw_port = (rank % ports + 1).tolist()
    order_m = np.asarray(fp.cord_order_m, dtype=float)
    width = max(2, len(str(len(ends))))
    ru_width = 2
    port_width = max(2, len(str(ports)))

    def at(cab, device, ru, port):
        where = device if pd.isna(ru) else f"{int(ru):0{ru_width}d}"
        return f"{cab}-{where}:{port}"

    a_ru = [e[2] for e in ends]
    return pd.DataFrame({
        "cable_id": [f"M{i + 1:0{width}d}" for i in range(len(ends))],
        "label": [at(e[1], e[0], e[2], MGMT_PORT) + "/" + at(c, n, r, f"{p:0{port_width}d}")
                  for e, c, n, r, p in zip(ends, sw_cab, sw_name, sw_ru, sw_port)],
        "kind": "mgmt", "a_device": [e[0] for e in ends], "a_port": MGMT_PORT,
        "a_cabinet": [e[1] for e in ends],
        "a_ru": pd.array([None if pd.isna(r) else int(r) for r in a_ru], dtype="Int64"),
        "b_device": sw_name, "b_port": sw_port, "b_cabinet": sw_cab,
        "b_ru": pd.array([None if pd.isna(r) else int(r) for r in sw_ru], dtype="Int64"),
        "media": "electrical",
        "sku": [mgmt.cable.part_number(m) for m in order_m],
        "length_m": np.asarray(fp.cord_lengths_m, dtype=float), "order_length_m": order_m,
    })[CORD_COLUMNS]
