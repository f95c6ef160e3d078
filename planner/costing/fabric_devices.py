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
- a grown system (``planner expand``, ``StandingBoxes``): every standing box keeps its cabinet,
  rack unit and name, and every standing cord its switch port while its device's group is still
  served by that switch; the standing cabinets keep their management groups, and the new
  cabinets of a row first fill the standing groups beside them up to ``cabinets_per_switch``
  (left neighbour, then right), the rest form groups of their own as above. New switches of a
  standing group stand with its standing ones; new boxes take the highest free units and the
  names of the rules above that no standing box has; new cords take the free ports of their
  group's switches in turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from types import SimpleNamespace

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
    def ordered(self) -> pd.DataFrame:
        """The boxes cabinet by cabinet (by name), each cabinet's top unit first and its
        zero-U PDUs last: the order cabinets.csv and the wiring sheets list them in, read in
        one pass (not a table per cabinet: 2.2 s at 622,720 cables)."""
        return self.devices.sort_values(["cabinet", "ru", "name"],
                                        ascending=[True, False, True],
                                        na_position="last", kind="stable")

    def ru_per_cabinet(self, n_cab: int) -> np.ndarray:
        """Rack units the boxes take per cabinet (PDUs none)."""
        d = self.devices
        units = d["height_ru"].where(d["ru"].notna() | (d["kind"] != "pdu"), 0.0)
        return np.bincount(d["cabinet_index"].to_numpy(np.int64),
                           weights=units.to_numpy(float), minlength=n_cab)


@dataclass(frozen=True, eq=False)
class StandingBoxes:
    """The fabric boxes and management cords of a standing plan (``planner expand``).

    ``boxes``: name, kind (``ROLES``' keys), cabinet (index into the standing cabinets, which
    a grown placement lists first and in their order), ru (NaN: zero-U or no unit),
    height_ru. ``cords``: device (its name in the grown plan), switch, port, cabinet (the
    standing cabinet index of the device). ``cabinets``: how many cabinets stand."""

    boxes: pd.DataFrame
    cords: pd.DataFrame
    cabinets: int

    def units(self, height_ru: int) -> np.ndarray:
        """(standing cabinets, height + 2) bool: the rack units the standing boxes take (index
        = unit number), which new routers and endpoints of a growth must leave free."""
        taken = np.zeros((self.cabinets, height_ru + 2), dtype=bool)
        for cab, ru, h in zip(self.boxes["cabinet"], self.boxes["ru"], self.boxes["height_ru"]):
            if not np.isnan(ru):
                taken[int(cab), int(ru):min(int(ru) + int(np.ceil(h)), height_ru + 1)] = True
        return taken

    def subnet_manager_cabinets(self, count: int, num_cabinets: int) -> np.ndarray:
        """Cabinet of each of ``count`` subnet-manager boxes: box k where ``sm<k+1>`` stands,
        a box the standing plan lacks by ``planner.costing.fabric.boxes``."""
        where = fabric.boxes(count, num_cabinets)
        stand = dict(zip(self.boxes["name"], self.boxes["cabinet"]))
        for k in range(count):
            if f"sm{k + 1}" in stand:
                where[k] = int(stand[f"sm{k + 1}"])
        return where

    def _standing_holders(self, placement, per: int | None) -> np.ndarray:
        """Per standing cabinet the cabinet holding its group's switches: the one its devices'
        cords run to, else (no cord) ``planner.costing.fabric.groups`` on the standing
        cabinets alone."""
        n = self.cabinets
        layout = SimpleNamespace(**{f"cabinet_{k}": np.asarray(getattr(
            placement, f"cabinet_{k}"))[:n] for k in ("hall", "row", "col")})
        group, holder = fabric.groups(layout, per)
        held = holder[group].astype(np.int64)
        switch_cab = dict(zip(self.boxes["name"], self.boxes["cabinet"]))
        for cab, switch in zip(self.cords["cabinet"], self.cords["switch"]):
            if switch in switch_cab and 0 <= int(cab) < n:
                held[int(cab)] = int(switch_cab[switch])
        return held

    def groups(self, placement, per: int | None) -> tuple[np.ndarray, np.ndarray]:
        """(management group of every cabinet, the cabinet holding each group's switches) of
        a grown placement (module doc: standing groups stay, new cabinets fill them, then
        groups of their own)."""
        n_old = self.cabinets
        hall, row, col = (np.asarray(getattr(placement, f"cabinet_{k}"), dtype=np.int64)
                          for k in ("hall", "row", "col"))
        held = self._standing_holders(placement, per)
        holders = sorted(set(held.tolist()))
        group = np.full(len(hall), -1, dtype=np.int64)
        group[:n_old] = np.searchsorted(holders, held)
        size = np.bincount(group[:n_old], minlength=len(holders)).tolist()
        room = (lambda g: True) if per is None else (lambda g: size[g] < per)  # noqa: E731

        def join(c: int, g: int) -> None:
            group[c] = g
            size[g] += 1

        order = np.lexsort((col, row, hall))
        starts = np.flatnonzero(np.r_[True, (hall[order][1:] != hall[order][:-1])
                                      | (row[order][1:] != row[order][:-1]), True])
        for lo, hi in zip(starts[:-1], starts[1:]):
            members = order[lo:hi].tolist()
            i = 0
            while i < len(members):
                if members[i] < n_old:
                    i += 1
                    continue
                j = i
                while j < len(members) and members[j] >= n_old:
                    j += 1
                run = members[i:j]
                left = int(group[members[i - 1]]) if i > 0 else None
                right = int(group[members[j]]) if j < len(members) else None
                while run and left is not None and room(left):
                    join(run.pop(0), left)
                while run and right is not None and room(right):
                    join(run.pop(), right)
                block = per or max(len(run), 1)
                for b in range(0, len(run), block):
                    mine = run[b:b + block]
                    size.append(0)
                    holders.append(mine[(len(mine) - 1) // 2])
                    for c in mine:
                        join(c, len(holders) - 1)
                i = j
        return group, np.asarray(holders, dtype=np.int64)


def unit_span(ru: float, height_ru: float) -> str:
    """The rack units a box takes from ``ru`` up, as cabinets.csv and the wiring sheets print
    them: ``U42``, or ``U41-42`` for a box of two units."""
    return f"U{ru:g}" + (f"-{ru + height_ru - 1:g}" if height_ru > 1 else "")


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


def _names(kept: list[str], count: int, rule, used: set[str]) -> list[str]:
    """``count`` box names: the standing ones that stay (``kept``, in order), then ``rule(k)``
    for k = 1, 2, ... that no standing box has."""
    out = list(kept[:count])
    k = 0
    while len(out) < count:
        k += 1
        if rule(k) not in used:
            out.append(rule(k))
    return out


def _number(name: str) -> tuple:
    """Sort key of a box name by its trailing number (``mgmt-A03-2`` before ``mgmt-A03-10``)."""
    digits = len(name) - len(name.rstrip("0123456789"))
    return (name[:len(name) - digits], int(name[len(name) - digits:] or 0))


def place(catalog, placement, floor, devices: pd.DataFrame, fp,
          standing: StandingBoxes | None = None) -> FabricDevices:
    """The fabric's boxes in their cabinets and the management cords (module doc);
    InputError when a cabinet has no free units for a box. ``standing``: the boxes and cords
    of the standing plan of a growth, which stay."""
    names = [str(n) for n in placement.cabinet_names]
    n_cab = len(names)
    numbered = not floor.abstract
    height = int(floor.cabinet_height_ru)
    taken = _occupied(devices, names, height) if numbered else None
    sm, mgmt, power = catalog.subnet_manager, catalog.management, catalog.power
    rows: list[dict] = []
    old = (pd.DataFrame(columns=["name", "kind", "cabinet", "ru", "height_ru"])
           if standing is None else standing.boxes)
    used = set(old["name"])
    at = {}                          # (kind, cabinet) -> standing names, in number order
    ru_of = dict(zip(old["name"], old["ru"]))
    for name, kind, cab in sorted(zip(old["name"], old["kind"], old["cabinet"]),
                                  key=lambda t: _number(t[0])):
        at.setdefault((kind, int(cab)), []).append(name)
    box = None if sm is None else (sm.appliance if sm.mode == "appliance" else
                                   sm.hosts if sm.mode == "licence" else None)
    mgmt_names = {c: _names(at.get(("mgmt_switch", c), []), int(fp.mgmt_switches[c]),
                            lambda k, c=c: f"mgmt-{names[c]}-{k}", used)
                  for c in range(n_cab) if fp.mgmt_switches[c]}
    sm_cab = ([] if box is None else fp.sm_cabinet.tolist() if fp.sm_cabinet is not None
              else fabric.boxes(sm.count, n_cab).tolist())
    staying = {n for ns in mgmt_names.values() for n in ns if n in used}
    staying |= {f"sm{k + 1}" for k, c in enumerate(sm_cab)
                if f"sm{k + 1}" in at.get(("subnet_manager", c), [])}
    if numbered:                     # the standing boxes that stay keep their units
        for name, cab, ru, h in zip(old["name"], old["cabinet"], old["ru"], old["height_ru"]):
            if name in staying and not np.isnan(ru):
                taken[int(cab), int(ru):int(ru) + int(np.ceil(h))] = True

    def unit(kind: str, model, cab: int, name: str):
        if not numbered:
            return np.nan
        if name in staying:
            return float(ru_of[name])
        start = _free_top(taken[cab], float(model.rack_units), height)
        if start is None:
            raise InputError(
                f"floor '{floor.name}': cabinet {names[cab]} has no {model.rack_units:g} free "
                f"rack units for {ROLES[kind].lower()} {name} ({model.sku}); lower "
                "router_slots or endpoint_slots, or use taller cabinets")
        taken[cab, start:start + int(np.ceil(model.rack_units))] = True
        return float(start)

    for c, switch_names in mgmt_names.items():
        for name in switch_names:
            rows.append(_box("mgmt_switch", name, mgmt.switch, c, names,
                             unit("mgmt_switch", mgmt.switch, c, name)))
    for k, c in enumerate(sm_cab):
        name = f"sm{k + 1}"
        rows.append(_box("subnet_manager", name, box, c, names,
                         unit("subnet_manager", box, c, name)))
    feed_a, feed_b = _feeds(power, fp, n_cab)
    for c in range(n_cab):
        for feed, count in (("A", feed_a[c]), ("B", feed_b[c])):
            kept = [n for n in at.get(("pdu", c), []) if n.rstrip("0123456789").endswith(feed)]
            for name in _names(kept, int(count),
                               lambda k, c=c, feed=feed: f"pdu-{names[c]}-{feed}{k}", used):
                rows.append(_box("pdu", name, power.pdu, c, names, np.nan, feed))
    table = pd.DataFrame(rows, columns=DEVICE_COLUMNS)
    return FabricDevices(devices=table, cords=_cords(catalog, placement, devices, table, fp,
                                                     standing))


def _cords(catalog, placement, devices: pd.DataFrame, boxes: pd.DataFrame, fp,
           standing: StandingBoxes | None = None) -> pd.DataFrame:
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
    router_rows = routers.sort_values("id", kind="stable")
    # (device, cabinet, ru) in cord order: cabinet by cabinet, its routers, then its boxes
    both = [router_rows, managed]
    cabinet = np.concatenate([pd.Index(names).get_indexer(router_rows["cabinet"]),
                              managed["cabinet_index"].to_numpy(np.int64)])
    boxes_last = np.repeat([0, 1], [len(router_rows), len(managed)])
    walk = np.lexsort((boxes_last, cabinet))
    ends: list[tuple[str, str, object]] = list(zip(*(
        np.concatenate([t[column].to_numpy(object) for t in both])[walk].tolist()
        for column in ("name", "cabinet", "ru"))))
    if len(ends) != len(fp.cord_lengths_m):
        raise AssertionError(f"{len(ends)} managed devices but {len(fp.cord_lengths_m)} "
                             "management cords")
    group, holder = ((fp.group, fp.holder) if fp.group is not None
                     else fabric.groups(placement, mgmt.cabinets_per_switch))
    index = {name: c for c, name in enumerate(names)}
    switches: dict[str, list[tuple[str, float]]] = {}
    for name, kind, cab, ru in zip(boxes["name"], boxes["kind"], boxes["cabinet"], boxes["ru"]):
        if kind == "mgmt_switch":
            switches.setdefault(cab, []).append((name, ru))
    g_of_end = group[np.array([index[e[1]] for e in ends], dtype=np.int64)]
    by_group = np.argsort(g_of_end, kind="stable")
    first = np.searchsorted(g_of_end[by_group], g_of_end[by_group], side="left")
    rank = np.empty(len(ends), dtype=np.int64)          # the device's place in its group
    rank[by_group] = np.arange(len(ends)) - first
    ports = mgmt.switch.ports
    sw_cab = [names[holder[g]] for g in g_of_end.tolist()]
    if standing is None:
        sw = [switches[c][k] for c, k in zip(sw_cab, (rank // ports).tolist())]
        sw_port = (rank % ports + 1).tolist()
    else:
        sw, sw_port = _standing_ports([e[0] for e in ends], sw_cab, switches, ports, standing)
    sw_name, sw_ru = [n for n, _ in sw], [r for _, r in sw]
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


def _standing_ports(devices: list[str], sw_cab: list[str], switches: dict, ports: int,
                    standing: StandingBoxes) -> tuple[list, list[int]]:
    """((switch name, its unit), port) of every cord of a grown system: a device's standing
    cord keeps its switch port while that switch serves the device's group (stands in
    ``sw_cab``) and has the port; the other cords take the free ports of their group's
    switches in turn, in cord order."""
    was = {d: (str(sw), int(pt)) for d, sw, pt in zip(standing.cords["device"],
                                                      standing.cords["switch"],
                                                      standing.cords["port"])}
    taken: set[tuple[str, int]] = set()
    out: list = [None] * len(devices)
    for i, (device, cab) in enumerate(zip(devices, sw_cab)):
        hit = was.get(device)
        if hit is None or hit in taken or not 1 <= hit[1] <= ports:
            continue
        serving = dict(switches[cab])
        if hit[0] in serving:
            out[i] = ((hit[0], serving[hit[0]]), hit[1])
            taken.add(hit)
    cursor: dict[str, int] = {}
    for i, cab in enumerate(sw_cab):
        if out[i] is not None:
            continue
        k = cursor.get(cab, 0)
        while (switches[cab][k // ports][0], k % ports + 1) in taken:
            k += 1
        name, unit = switches[cab][k // ports]
        out[i] = ((name, unit), k % ports + 1)
        taken.add((name, k % ports + 1))
        cursor[cab] = k + 1
    return [o[0] for o in out], [o[1] for o in out]
