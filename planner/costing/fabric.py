"""The BOM lines of a fabric that comes up, beside its switches and links: the subnet manager,
the out-of-band management network, PDUs and power cords, support and NOS subscriptions.

Takes the catalog (``subnet_manager``, ``management``, ``power``, ``routers[].support``;
``planner.inputs.catalog.fabric``), the placement, the floor and every cabinet's kW
(``planner.costing.power``); hands on the lines (``planner.costing.bom.COLUMNS`` plus the
price-basis columns) and ``FabricPlan``, what each cabinet holds and draws.

Rules (docs/catalogs.md "A fabric that comes up"):

- subnet manager: ``mode: appliance`` buys ``count`` appliances (2: a high-availability pair);
  ``licence`` buys ``count`` hosts and the licence per host, switch or endpoint;
  ``switch`` buys nothing more but needs a managed switch (``routers[].managed``). The k-th of
  ``count`` boxes stands in cabinet ``⌊k·C/count⌋`` of the C cabinets (a pair: the first and the
  middle cabinet).
- management network: the cabinets of a row, in column order, form groups of
  ``cabinets_per_switch`` (the whole row without it); each group gets ``ceil(managed ports /
  switch ports)`` management switches in its middle cabinet. Managed devices: every switch,
  every subnet-manager box and every PDU with a management port (``managed``); the
  management switches themselves are the network and their uplinks are not included. Each
  managed device gets one copper cord to its group's switch cabinet, as long as the floor's
  route between the two cabinets (``planner.inputs.floor.routes.route_length_m``: trays,
  overheads, slack), ordered at the next stock length.
- power: every power supply of every device gets an outlet and a cord. With ``feeds: 2`` a
  device's supplies alternate between the A and the B feed (A takes the odd one), and each feed
  alone must carry the whole cabinet; per cabinet and feed ``max(ceil(outlets / PDU outlets),
  ceil(kW / (PDU kW × derating)))`` PDUs (NEC 210.19/210.20: 80 % of the rating for a
  continuous load). A cabinet's kW is the plan's (routers with their cable ends, and servers
  where the catalog gives ``endpoint_watts``) plus the boxes this module adds. Servers'
  outlets belong to the compute cabinets, which are not included; servers of a catalog
  server model, which stand in compute cabinets of their own, are left out of the kW the
  fabric's PDUs carry (``planner.costing.power.PlanPower.network_kw``).
- support: ``support`` of a switch model, the management switch or a subnet-manager box: one
  line per model, one subscription per device for ``term_years``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.costing import basis
from planner.inputs import floor as floors
from planner.inputs.catalog import Catalog, RouterModel
from planner.inputs.catalog.orderable import IDENTITY_COLUMNS
from planner.inputs.floor.routes import route_length_m
from planner.run.errors import InputError

ITEMS = ("subnet_manager", "mgmt_switch", "mgmt_cable", "pdu", "power_cord", "support")
CLASS_OF = {"subnet_manager": "management", "mgmt_switch": "management",
            "mgmt_cable": "management", "pdu": "power", "power_cord": "power",
            "support": "support"}


LINE_COLUMNS = ["item", "sku", "description", "length_m", "quantity", "spares", "unit_price",
                "extended_price", "vendor"] + basis.COLUMNS + IDENTITY_COLUMNS
"""A line's columns: ``planner.costing.bom.COLUMNS``, the price basis and what it is as an
order (``planner.inputs.catalog.orderable.IDENTITY_COLUMNS``)."""


@dataclass(frozen=True)
class FabricPlan:
    """Per cabinet (C,): the power supplies plugged in, outlets on feed A and B, kW, PDUs, and
    the managed devices; per management group its cabinets and switches; the management
    cords' lengths."""

    psus: np.ndarray
    outlets_a: np.ndarray
    outlets_b: np.ndarray
    kw: np.ndarray
    pdus: np.ndarray
    managed: np.ndarray
    mgmt_switches: np.ndarray          # per cabinet
    cord_lengths_m: np.ndarray         # one per managed device
    cord_order_m: np.ndarray
    group: np.ndarray | None = None    # management group of every cabinet
    holder: np.ndarray | None = None   # the cabinet holding each group's switches
    sm_cabinet: np.ndarray | None = None   # cabinet of every subnet-manager box

    def summary(self) -> dict:
        """The ``fabric`` block of summary.json."""
        return {"pdus": int(self.pdus.sum()), "power_cords": int(self.psus.sum()),
                "outlets": int(self.outlets_a.sum() + self.outlets_b.sum()),
                "managed_devices": int(self.managed.sum()),
                "management_switches": int(self.mgmt_switches.sum()),
                "management_cable_m": round(float(self.cord_order_m.sum()), 3)}


def check_managed(catalog: Catalog, router_model: RouterModel) -> None:
    """InputError when the subnet manager is to run on the switches but the chosen model is
    externally managed."""
    sm = catalog.subnet_manager
    if sm is not None and sm.mode == "switch" and not router_model.managed:
        where = f"routers[{catalog.routers.index(router_model)}].managed"
        raise InputError(f"catalog '{catalog.source}': field 'subnet_manager.mode' is switch but "
                         f"{router_model.sku} is externally managed ('{where}' is false); use "
                         "mode appliance or licence, or a managed switch model")


def _line(catalog: Catalog, item: str, model, quantity: int, unit_price: float,
          description: str = "", sku: str | None = None, length_m: float = np.nan) -> dict:
    b = catalog.basis_of(model)
    return dict(item=item, sku=model.sku if sku is None else sku,
                description=description or model.description, length_m=length_m,
                quantity=int(quantity), spares=0, unit_price=float(unit_price),
                extended_price=int(quantity) * float(unit_price), vendor=model.vendor,
                basis=b.basis, price_source=b.source, price_date=b.date, currency=b.currency,
                **model.bom_identity(model.sku if sku is None else sku))


def boxes(count: int, num_cabinets: int) -> np.ndarray:
    """Cabinet of each of ``count`` subnet-manager boxes (module doc)."""
    return (np.arange(count) * num_cabinets) // max(count, 1)


def groups(placement, per: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(group of each cabinet, the cabinet holding each group's switches: its middle one)."""
    hall = np.asarray(placement.cabinet_hall, dtype=np.int64)
    row = np.asarray(placement.cabinet_row, dtype=np.int64)
    col = np.asarray(placement.cabinet_col, dtype=np.int64)
    order = np.lexsort((col, row, hall))
    rank = np.empty(len(order), dtype=np.int64)
    key = np.stack([hall[order], row[order]], axis=1)
    new_row = np.r_[True, np.any(key[1:] != key[:-1], axis=1)]
    row_start = np.maximum.accumulate(np.where(new_row, np.arange(len(order)), 0))
    within = np.arange(len(order)) - row_start
    block = within // per if per else np.zeros_like(within)
    starts = new_row | np.r_[True, block[1:] != block[:-1]]
    rank[order] = np.cumsum(starts) - 1
    group = rank
    holder = np.empty(int(group.max(initial=-1)) + 1, dtype=np.int64)
    for g in range(len(holder)):
        members = order[group[order] == g]
        holder[g] = members[(len(members) - 1) // 2]
    return group, holder


def _pdus(power, psu_lists: list[list[int]], kw: np.ndarray):
    """(outlets on A, outlets on B, PDUs) per cabinet (module doc)."""
    n = len(psu_lists)
    out_a = np.array([sum((p + 1) // 2 if power.feeds == 2 else p for p in ps)
                      for ps in psu_lists], dtype=np.int64) if n else np.zeros(0, np.int64)
    out_b = np.array([sum(p // 2 for p in ps) if power.feeds == 2 else 0 for ps in psu_lists],
                     dtype=np.int64) if n else np.zeros(0, np.int64)
    capacity = power.kw * power.derating_pct / 100.0
    by_load = np.ceil(np.round(kw / capacity, 9)).astype(np.int64)
    pdus = np.zeros(n, dtype=np.int64)
    for outlets in ((out_a, out_b) if power.feeds == 2 else (out_a,)):
        used = (outlets > 0) | (kw > 0)
        pdus += np.where(used, np.maximum(-(-outlets // power.outlets), by_load), 0)
    return out_a, out_b, pdus


def build(catalog: Catalog, router_model: RouterModel, placement, floor, cabinet_kw,
          num_endpoints: int, standing=None) -> tuple[pd.DataFrame, FabricPlan | None]:
    """The fabric's BOM lines and what each cabinet holds (module doc). ``standing``
    (``planner expand``: ``planner.costing.fabric_devices.StandingBoxes``) keeps the standing
    subnet-manager boxes and management groups where they stand instead of the rules above."""
    n_cab = int(placement.num_cabinets)
    router_cab = np.asarray(placement.router_cabinet, dtype=np.int64)
    n_routers = len(router_cab)
    lines: list[dict] = []
    psu_lists: list[list[int]] = [[] for _ in range(n_cab)]
    extra_w = np.zeros(n_cab)
    managed = np.bincount(router_cab, minlength=n_cab).astype(np.int64)
    for c in router_cab.tolist():
        psu_lists[c].append(router_model.power_supplies)
    supported: list[tuple[object, int]] = [(router_model, n_routers)]

    sm, sm_cabinet = catalog.subnet_manager, None
    if sm is not None:
        check_managed(catalog, router_model)
        box = sm.appliance if sm.mode == "appliance" else sm.hosts if sm.mode == "licence" \
            else None
        if box is not None:
            lines.append(_line(catalog, "subnet_manager", box, sm.count, box.price))
            sm_cabinet = (boxes(sm.count, n_cab) if standing is None
                          else standing.subnet_manager_cabinets(sm.count, n_cab))
            for c in sm_cabinet.tolist():
                psu_lists[c].append(box.power_supplies)
                extra_w[c] += box.watts
                managed[c] += int(box.managed)
            supported.append((box, sm.count))
        if sm.mode == "licence":
            per = {"host": sm.count, "switch": n_routers, "endpoint": num_endpoints}
            lines.append(_line(catalog, "subnet_manager", sm.licence, per[sm.licence_per],
                               sm.licence.price))

    kw = np.asarray(cabinet_kw, dtype=float) + extra_w / 1000.0
    mgmt, power = catalog.management, catalog.power
    switches = np.zeros(n_cab, dtype=np.int64)
    out_a = out_b = pdus = np.zeros(n_cab, dtype=np.int64)
    group = holder = None
    if mgmt is not None:
        group, holder = (groups(placement, mgmt.cabinets_per_switch) if standing is None
                         else standing.groups(placement, mgmt.cabinets_per_switch))
    for _ in range(16):                 # PDUs need the switches' power, switches the PDUs' ports
        kw_now = kw + switches * (mgmt.switch.watts / 1000.0 if mgmt else 0.0)
        lists = [ps + [mgmt.switch.power_supplies] * int(switches[c]) if mgmt else ps
                 for c, ps in enumerate(psu_lists)]
        if power is not None:
            out_a, out_b, pdus = _pdus(power, lists, kw_now)
        ports = managed + (pdus if power is not None and power.pdu.managed else 0)
        if mgmt is None:
            break
        need = np.bincount(group, weights=ports, minlength=len(holder))
        new = np.zeros(n_cab, dtype=np.int64)
        new[holder] = -(-need.astype(np.int64) // mgmt.switch.ports)
        if np.array_equal(new, switches):
            break
        switches = new
    psus = np.array([sum(ps) for ps in lists], dtype=np.int64)

    lengths = order = np.zeros(0)
    if mgmt is not None:
        device_cab = np.repeat(np.arange(n_cab), ports)
        target = holder[group[device_cab]]
        room = floors.room_of(floor, placement.cabinet_hall, placement.cabinet_row,
                              placement.cabinet_col)
        hall = np.asarray(placement.cabinet_hall, dtype=np.int64)
        row = np.asarray(placement.cabinet_row, dtype=np.int64)
        col = np.asarray(placement.cabinet_col, dtype=np.int64)
        lengths = np.round(np.asarray(route_length_m(
            room, hall[device_cab], row[device_cab], col[device_cab], hall[target],
            row[target], col[target], device_cab == target), dtype=float), 3)
        order = mgmt.cable.order_length(lengths)
        if np.isnan(order).any():
            worst = float(lengths.max())
            raise InputError(f"catalog '{catalog.source}': field 'management.cable."
                             f"stock_lengths' ends at {mgmt.cable.stock_lengths[-1]:g} m but a "
                             f"management cord needs {worst:g} m; add a longer stock length "
                             "or set management.cabinets_per_switch lower")
        n_sw = int(switches.sum())
        lines.append(_line(catalog, "mgmt_switch", mgmt.switch, n_sw, mgmt.switch.price))
        supported.append((mgmt.switch, n_sw))
        for length, count in zip(*np.unique(order, return_counts=True)):
            lines.append(_line(catalog, "mgmt_cable", mgmt.cable, count,
                               mgmt.cable.price(length), sku=mgmt.cable.part_number(length),
                               description=mgmt.cable.description, length_m=float(length)))
    if power is not None:
        lines.append(_line(catalog, "pdu", power.pdu, int(pdus.sum()), power.pdu.price))
        lines.append(_line(catalog, "power_cord", power.cord, int(psus.sum()), power.cord.price))
    for model, count in supported:
        sub = getattr(model, "support", None)
        if sub is not None and count:
            lines.append(_line(catalog, "support", sub, count, sub.price,
                               f"{sub.description or 'support'}: {model.sku}, "
                               f"{sub.term_years} years"))
    frame = pd.DataFrame(lines, columns=LINE_COLUMNS)
    if mgmt is None and power is None:
        return frame, None
    return frame, FabricPlan(psus=psus, outlets_a=out_a, outlets_b=out_b, kw=kw_now,
                             pdus=pdus, managed=ports, mgmt_switches=switches,
                             cord_lengths_m=lengths, cord_order_m=order, group=group,
                             holder=holder, sm_cabinet=sm_cabinet)


def not_included(catalog: Catalog) -> list[str]:
    """What the BOM leaves out: the catalog's ``not_included``, less the compute cabinets when
    the catalog buys rack hardware per cabinet."""
    per_cabinet = any(item.per == "cabinet" for item in catalog.rack_hardware)
    return [n for n in catalog.not_included
            if not (per_cabinet and n == "compute cabinets")]


def append(bom: pd.DataFrame, lines: pd.DataFrame) -> pd.DataFrame:
    """The BOM with the fabric's lines after its own (empty ones dropped)."""
    lines = lines[lines["quantity"] > 0]
    if not len(lines):
        return bom
    out = pd.concat([bom, lines], ignore_index=True)
    for col in ("quantity", "spares"):
        out[col] = out[col].astype(np.int64)
    return out

