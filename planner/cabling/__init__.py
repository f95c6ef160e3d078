"""Cabling: every physical cable of a placed topology, with ports, rack units, labels and media.

Takes the ``Topology``, its ``Placement``, the ``Floor`` and the ``Catalog``; hands on a
``CablePlan`` (one row per physical cable, the port table, on structured floors the
installed plant of ``planner.cabling.structured``: panels, trunks, patch racks, and the pieces
every view names, ``planner.cabling.pieces``: each cable, patch cord and trunk with both ends)
to the performance and costing stages and to every export.

Rules (TIA-606 labelling conventions):

- **Devices.** Routers are named ``r<id>``, endpoints ``n<id>``, ids zero-padded to the width of
  the largest id (``r000`` .. ``r721``). Endpoints are numbered in router order: router ``i``
  carries endpoints ``offset[i] .. offset[i] + endpoints[i] - 1`` and they sit in its cabinet.
  When the endpoints are the NICs of a catalog server model (``Placement.server_cabinet``,
  ``Servers``) each server is one device, ``gpu-<id>``, standing in its own cabinet, and its
  NIC ports are ``1 .. N`` (labels ``NIC1`` .. ``NICn``; NIC i of the topology is port i + 1).
- **Ports** are numbered per router from 1: first one port per attached endpoint (in endpoint
  order), then the network ports ordered by (peer router id, parallel-cable index). The
  endpoint's own NIC port is 1. No port number exceeds the router model's radix.
- **Rack units** (U1 at the bottom, position = lowest unit occupied): the routers of a cabinet,
  in id order, take slots ``floor.router_ru(slot)`` (from ``first_router_ru`` up, ``rack_units``
  tall); its endpoints, in id order, take ``floor.endpoint_ru_of(slot)`` when the floor gives
  endpoints rack units (``endpoint_ru > 0``). On a physical (non-``abstract``) floor no unit
  holds two devices and nothing rises above the cabinet; otherwise InputError names the cabinet.
  With ``endpoint_ru == 0`` (the papers' abstract racks) endpoints have no rack unit.
- **Labels** (TIA-606 style): ``<cabinet>-<RU>:<port>`` per end and
  ``A01-40:17/C07-40:03`` per cable, A end first. RU and port are zero-padded to at least two
  digits (wider when the cabinet height or radix needs it). An endpoint end without a rack unit
  names the device instead of the unit: ``A01-40:05/A01-N04711:01`` (device upper-case, as
  TIA-606 labels are printed). Every label is at most 100 characters (NetBox's label limit).
- **Cables.** Router-router cables come first, one per topology link times its multiplicity,
  in link order (A = lower router id); then one router-endpoint cable per endpoint in endpoint
  order (A = router, B = endpoint) unless ``endpoint_cables=False``. Ids are ``C`` + a
  zero-padded running number. Lengths and route kinds (cabinet | row | cross-row | cross-hall)
  come from ``planner.inputs.floor.routes`` (along the hall's trays; endpoint cables stay inside the
  cabinet); media, parts (the cable's or fibre's part number as ``sku``, the transceivers at
  the ends), ordered stock length, price and the watts drawn at each end (``a_watts``,
  ``b_watts``) from ``planner.inputs.parts.media.choose_parts``; latency from
  ``planner.inputs.parts.media.latency_ns`` over the ordered (installed) length. On routers whose
  cages break out into several ports, ``planner.inputs.catalog.cages`` regroups the ports so that
  one cage holds one part. Where the cheapest parts would leave a router more cages than its
  model has (single links to many peers on twin-port copper, a cage each), the odd links of
  those pairs take a part whose cages serve several peers (a twin-port transceiver with a
  connector per port, ``cages.odd_links``); plans that fit are cabled as the cheapest parts
  say. On a floor with structured cabling a cable that leaves its row runs
  through patch panels (``planner.inputs.parts.structured``, ``planner.cabling.structured``): its
  pieces are in ``segments`` and ``CablePlan.structured``.
- **Optical channels.** Every link through transceivers carries its channel: fibre installed (the
  stock lengths ordered, slack included), mated connections crossed (one per adapter panel,
  two per cassette panel) and loss (``planner.inputs.parts.budget``). The parts were chosen to
  light it; a link that no part of the catalog lights is an InputError naming it, its fibre,
  connections, loss and the budget (``check_lit``).

Everything per cable or per port is computed with numpy array operations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.cabling import pieces as link_pieces
from planner.cabling import structured
from planner.inputs import floor as floors
from planner.inputs.catalog import cages
from planner.inputs.catalog import Catalog, RouterModel
from planner.inputs.floor import routes
from planner.inputs.floor import Floor, padded
from planner.inputs.parts.media import end_watts, latency_ns, media_of, part_numbers, routed_parts
from planner.placement.result import Placement
from planner.run.errors import InputError
from planner.topologies.base import Topology

MAX_LABEL = 100

CSV_COLUMNS = ["cable_id", "label", "kind", "a_device", "a_port", "a_cabinet", "a_ru",
               "b_device", "b_port", "b_cabinet", "b_ru", "media", "sku", "length_m",
               "order_length_m", "latency_ns"]
"""cables.csv columns, in order (each described in ``planner.exports.cables_csv``)."""
ROUTE_COLUMNS = ["route_kind"]
"""cables.csv column after the base ones: cabinet | row | cross-row | cross-hall
(docs/floors.md "Halls")."""
PART_COLUMNS = ["a_transceiver", "b_transceiver"]
"""cables.csv columns after the route kind: the transceiver part number at each end ('' for a
cable assembly); ``sku`` is the assembly's or the fibre's part number at its stock length (for
a link through patch panels: its A-end cord's)."""
SEGMENT_COLUMNS = ["segments"]
"""cables.csv column after the part columns: a link through patch panels (structured cabling,
``planner.inputs.parts.structured``) as its pieces from the A end, ``cord 2.64 m <part> |
<panel>:<port> | trunk <id> 2.64 m <part> | <panel>:<port> | cord 1.87 m <part>``; '' for any other
cable."""
CHANNEL_COLUMNS = ["fibre_m", "connections", "loss_db"]
"""cables.csv columns after the segments: the optical channel of a link through transceivers
(``planner.inputs.parts.budget``): fibre installed (its pieces' stock lengths summed, metres),
mated connections crossed (one per adapter panel passed, two per cassette panel) and its
insertion loss (dB); empty for copper and AOC assemblies."""
END_PART_COLUMNS = ["a_sku", "b_sku"]
"""cables.csv columns after the channel: the part plugged into each end's device port at its
stock length (``planner.cabling.pieces``): ``sku`` at both ends of a cable, each end's own patch
cord for a link through patch panels."""
CSV_COLUMNS = (CSV_COLUMNS + ROUTE_COLUMNS + PART_COLUMNS + SEGMENT_COLUMNS + CHANNEL_COLUMNS
               + END_PART_COLUMNS)

EXTRA_COLUMNS = ["a_router", "b_router", "b_endpoint", "group_a", "group_b", "unit_price",
                 "part", "fibre", "nic_part", "a_watts", "b_watts", "loss_budget_db", "reach_m"]
"""Further columns of ``Plan.cables`` (not written to cables.csv), after the CSV ones: ``part`` / ``fibre``
/ ``nic_part`` index ``catalog.cables`` (-1: none), ``a_watts`` / ``b_watts`` the power drawn at
each end (``planner.inputs.parts.media.end_watts``), ``unit_price`` the link's share of its parts'
price, ``loss_budget_db`` / ``reach_m`` the tighter loss budget and reach of its two transceivers
(NaN without transceivers)."""


@dataclass(frozen=True)
class CablePlan:
    """The physical plan: cables, devices, cabinets and every router port (see Plan)."""

    cables: pd.DataFrame
    devices: pd.DataFrame
    cabinets: pd.DataFrame
    ports: pd.DataFrame
    structured: structured.StructuredPlan | None = None
    pieces: link_pieces.Pieces | None = None


# ----------------------------------------------------------------------------- small helpers

def device_names(kind: str, count: int) -> np.ndarray:
    """``r0 .. r9`` / ``n00000 .. n10829``: zero-padded to the width of the largest id."""
    return padded("r" if kind == "router" else "n", np.arange(count))


def endpoint_routers(topology: Topology) -> np.ndarray:
    """Router of every endpoint (endpoints are numbered in router order)."""
    return np.repeat(np.arange(topology.num_routers, dtype=np.int64),
                     np.asarray(topology.endpoints, dtype=np.int64))


def rank_within(keys: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Position of each element among the elements with an equal key, following ``order``
    (default: a stable sort by key, i.e. index order within a key)."""
    keys = np.asarray(keys)
    if order is None:
        order = np.argsort(keys, kind="stable")
    rank = np.empty(len(keys), dtype=np.int64)
    if not len(keys):
        return rank
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    run_start = np.repeat(starts, np.diff(np.r_[starts, len(keys)]))
    rank[order] = np.arange(len(keys)) - run_start
    return rank


def unit_text(values, width: int) -> np.ndarray:
    """Rack units or ports as zero-padded text (``05``, ``40``, ``12.5``); NaN gives ``""``."""
    values = np.asarray(values, dtype=float)
    out = np.full(values.shape, "", dtype=object)
    ok = ~np.isnan(values)
    uniq, inverse = np.unique(values[ok], return_inverse=True)
    if uniq.size:
        text = []
        for u in uniq:
            whole, _, frac = f"{u:g}".partition(".")
            text.append(whole.zfill(width) + (f".{frac}" if frac else ""))
        out[ok] = np.asarray(text, dtype=object)[inverse]
    return out


def joined_text(*parts) -> np.ndarray:
    """Element-wise concatenation of string arrays and single strings (``"-"``) into one object
    array, making only the joined strings (``a + "-" + b`` on object arrays makes a whole
    array of strings per ``+``, which a plan of millions of cables pays for in memory)."""
    columns = [part.tolist() if isinstance(part, np.ndarray) else part for part in parts]
    n = next((len(c) for c in columns if isinstance(c, list)), 0)
    columns = [c if isinstance(c, list) else [c] * n for c in columns]
    return np.fromiter(map("".join, zip(*columns)), dtype=object, count=n)


def label_width(largest: float) -> int:
    """Digits used for a rack unit or port in labels: at least 2 (TIA-606: zero-pad)."""
    return max(2, len(str(int(largest))))


def nullable_units(values) -> pd.api.extensions.ExtensionArray:
    """Rack units as nullable integers when all are whole numbers, else nullable floats."""
    values = np.asarray(values, dtype=float)
    missing = np.isnan(values)
    filled = np.where(missing, 0.0, values)
    if np.all(filled == np.round(filled)):
        return pd.arrays.IntegerArray(filled.astype(np.int64), missing)
    return pd.arrays.FloatingArray(filled, missing)


# ----------------------------------------------------------------------------- ports

def network_cables(topology: Topology) -> tuple[np.ndarray, np.ndarray]:
    """(a_router, b_router) of every router-router cable: links repeated by multiplicity."""
    mult = np.asarray(topology.multiplicity, dtype=np.int64)
    links = np.asarray(topology.links, dtype=np.int64).reshape(-1, 2)
    return np.repeat(links[:, 0], mult), np.repeat(links[:, 1], mult)


def assign_ports(topology: Topology, radix: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Port numbers: (a_port, b_port) of the network cables, and the router port of each
    endpoint. Per router: ports 1..e for its e endpoints, then its network ports ordered by
    (peer router id, cable index); a grown system gives its network ports in
    ``topology.extra["network_ports"]``. InputError when a router needs more than ``radix``
    ports."""
    ep = np.asarray(topology.endpoints, dtype=np.int64)
    if topology.num_routers and topology.radix > radix:
        worst = int(np.argmax(topology.ports))
        raise InputError(f"router model radix {radix} is below the topology's radix "
                         f"{topology.radix} (router {worst}: {int(ep[worst])} endpoints + "
                         f"{int(topology.degree[worst])} links); choose a router model with at "
                         f"least {topology.radix} ports")
    a, b = network_cables(topology)
    n = len(a)
    ep_router = endpoint_routers(topology)
    offsets = np.cumsum(ep) - ep
    ep_port = np.arange(len(ep_router), dtype=np.int64) - offsets[ep_router] + 1
    if "network_ports" in topology.extra:      # a grown system: ports of the standing cables
        a_port, b_port = topology.extra["network_ports"]    # (planner.placement.grown)
        return np.asarray(a_port, np.int64), np.asarray(b_port, np.int64), ep_port
    router = np.concatenate([a, b])
    peer = np.concatenate([b, a])
    cable = np.concatenate([np.arange(n), np.arange(n)])
    rank = rank_within(router, np.lexsort((cable, peer, router)))
    port = ep[router] + rank + 1
    return port[:n], port[n:], ep_port


# ----------------------------------------------------------------------------- servers

@dataclass(frozen=True, eq=False)
class Servers:
    """The servers of a plan whose endpoints are NICs of a catalog server model
    (``Placement.server_cabinet``): per server its name (``gpu-0123``; ``srv-`` for a model
    without GPUs), cabinet and lowest rack unit (from ``first_endpoint_ru`` up, ``ru`` tall, in
    id order), and per endpoint its server and NIC port (1..N: NIC i of the topology, the
    rail-i leaf's, is port i + 1)."""

    model: object
    names: np.ndarray
    cabinet: np.ndarray
    ru: np.ndarray
    of_endpoint: np.ndarray
    nic_port: np.ndarray

    @classmethod
    def of(cls, topology: Topology, placement: Placement, catalog: Catalog,
           floor: Floor) -> "Servers | None":
        if placement.server_cabinet is None:
            return None
        from planner.inputs.catalog.servers import server_model_for
        from planner.topologies.servers import nic_endpoints

        model = server_model_for(catalog, topology)
        if model is None:
            raise InputError(f"the placement stands servers in cabinets but catalog "
                             f"'{catalog.source}' has no server model of "
                             f"{topology.extra['servers']['nics']} NICs; add one")
        cabinet = np.asarray(placement.server_cabinet, dtype=np.int64)
        ru = (floor.first_endpoint_ru + rank_within(cabinet) * model.ru).astype(float)
        _, server, nic = nic_endpoints(topology)
        return cls(model=model, names=padded("gpu-" if model.gpus else "srv-",
                                             np.arange(len(cabinet))),
                   cabinet=cabinet, ru=ru, of_endpoint=server, nic_port=nic + 1)


# ----------------------------------------------------------------------------- rack units

def rack_units(topology: Topology, placement: Placement, floor: Floor,
               router_model: RouterModel, catalog: Catalog | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """(router_ru (R,), endpoint_ru (N,)) lowest rack unit of every device; endpoint units are
    NaN when the floor gives endpoints no rack units (with servers: their server's unit).
    InputError when a cabinet holds more devices than its slots, or (physical floors) devices
    overlap or rise above the cabinet."""
    cab = np.asarray(placement.router_cabinet, dtype=np.int64)
    slot = rank_within(cab)
    router_ru = np.asarray(floors.router_ru(floor, slot, router_model.rack_units), dtype=float)
    servers = None if catalog is None else Servers.of(topology, placement, catalog, floor)
    if servers is not None:
        _check_slots(floor, placement, cab, np.zeros(0, np.int64))
        if not floor.abstract:
            n_s = len(servers.cabinet)
            heights = np.r_[np.full(len(cab), float(router_model.rack_units)),
                            np.full(n_s, float(servers.model.ru))]
            _check_units(floor, placement, np.r_[cab, servers.cabinet],
                         np.r_[router_ru, servers.ru], heights,
                         np.r_[np.zeros(len(cab), bool), np.ones(n_s, bool)])
        return router_ru, servers.ru[servers.of_endpoint]
    ep_cab = cab[endpoint_routers(topology)]
    _check_slots(floor, placement, cab, ep_cab)
    if floor.endpoint_ru > 0:
        ep_ru = np.asarray(floors.endpoint_ru_of(floor, rank_within(ep_cab)), dtype=float)
    else:
        ep_ru = np.full(len(ep_cab), np.nan)
    if not floor.abstract:
        heights = np.r_[np.full(len(cab), float(router_model.rack_units)),
                        np.full(len(ep_cab), float(floor.endpoint_ru))]
        _check_units(floor, placement, np.r_[cab, ep_cab], np.r_[router_ru, ep_ru], heights,
                     np.r_[np.zeros(len(cab), bool), np.ones(len(ep_cab), bool)])
    return router_ru, ep_ru


def _check_slots(floor: Floor, placement: Placement, cab: np.ndarray, ep_cab: np.ndarray):
    n_cab = placement.num_cabinets
    for what, where, limit, field in (("routers", cab, floor.router_slots, "router_slots"),
                                      ("endpoints", ep_cab, floor.endpoint_slots,
                                       "endpoint_slots")):
        if limit is None or not len(where):
            continue
        count = np.bincount(where, minlength=n_cab)
        worst = int(np.argmax(count))
        if count[worst] > limit:
            raise InputError(f"floor '{floor.name}': cabinet {placement.cabinet_names[worst]} "
                             f"is given {int(count[worst])} {what} but field '{field}' is "
                             f"{limit}; use more cabinets or a floor with more slots")


def _check_units(floor: Floor, placement: Placement, cab, ru, height, is_endpoint):
    """No device above the cabinet top, no two devices in one unit (devices with a unit)."""
    has = ~np.isnan(ru)
    cab, ru, height, is_endpoint = cab[has], ru[has], height[has], is_endpoint[has]
    top = ru + height - 1
    over = np.flatnonzero(top > floor.cabinet_height_ru + 1e-9)
    if over.size:
        i = over[np.argmax(top[over])]
        what = "endpoint" if is_endpoint[i] else "router"
        raise InputError(f"floor '{floor.name}': cabinet {placement.cabinet_names[cab[i]]} "
                         f"overflows: a {what} would occupy RU {ru[i]:g}-{top[i]:g} of a "
                         f"{floor.cabinet_height_ru}U cabinet; lower router_slots/"
                         "endpoint_slots or use taller cabinets")
    order = np.lexsort((ru, cab))
    c, r, h = cab[order], ru[order], height[order]
    clash = np.flatnonzero((c[1:] == c[:-1]) & (r[1:] < r[:-1] + h[:-1] - 1e-9))
    if clash.size:
        i = clash[0]
        raise InputError(f"floor '{floor.name}': cabinet {placement.cabinet_names[c[i]]} "
                         f"puts two devices in RU {r[i + 1]:g}; move first_endpoint_ru or "
                         "first_router_ru so routers and endpoints do not overlap")


# ----------------------------------------------------------------------------- optical channels

def _link_name(i: int, n_net: int, a_router, b_router, b_endpoint, rnames, enames) -> str:
    """``link C000012 (r001 to r042)``: cable ``i`` (network cables first, then endpoint cables) as
    ``check_lit`` names it, for a message about a link no part reaches
    (``planner.inputs.parts.media.routed_parts``)."""
    b_name = rnames[b_router[i]] if i < n_net else enames[b_endpoint[i]]
    cable = padded("C", [i + 1], width=len(str(len(a_router))))[0]
    return f"link {cable} ({rnames[a_router[i]]} to {b_name})"


def check_lit(catalog: Catalog, floor: Floor, parts, cable_ids, a_device, b_device,
              route_kind) -> None:
    """InputError naming the link furthest beyond its budget when no part of the catalog lights
    some links (``LinkParts.lit``; ``planner.inputs.parts.budget``): its installed fibre,
    connections and loss against the budget and reach of the cheapest part that reaches."""
    dark = np.flatnonzero(~parts.lit)
    if not dark.size:
        return
    over = np.fmax(parts.loss_db[dark] - parts.budget_db[dark],
                   (parts.fibre_m[dark] - parts.reach_m[dark]) / 1000.0)
    i = int(dark[np.argmax(over)])
    sku = catalog.cables[int(parts.part[i])].sku
    others = f" ({dark.size - 1} more links likewise)" if dark.size > 1 else ""
    raise InputError(
        f"link {cable_ids[i]} ({a_device[i]} to {b_device[i]}, {route_kind[i]}) cannot be lit: "
        f"{parts.fibre_m[i]:.2f} m of installed fibre and {int(parts.connections[i])} mated "
        f"connections lose {parts.loss_db[i]:.2f} dB against the {parts.budget_db[i]:g} dB "
        f"budget and {parts.reach_m[i]:g} m reach of {sku}, and no part of catalog "
        f"'{catalog.source}' lights it{others}; add a transceiver of longer reach or larger "
        f"budget (single-mode) with its fibre, or lower connection_loss_db of floor "
        f"'{floor.source}' if its connectors lose less")


def optics_summary(cables: pd.DataFrame) -> dict:
    """The ``optics`` block of summary.json: links through transceivers checked, the worst
    loss margin (budget - loss, dB) and reach margin (reach - installed fibre, m) and the
    cables that have them (none without transceiver links)."""
    fibre = cables["fibre_m"].to_numpy(dtype=float)
    checked = np.flatnonzero(~np.isnan(fibre))
    block = {"links": int(checked.size), "worst_margin_db": None, "worst_margin_db_cable": None,
             "worst_margin_m": None, "worst_margin_m_cable": None}
    if not checked.size:
        return block
    ids = cables["cable_id"].to_numpy()[checked]
    db = cables["loss_budget_db"].to_numpy(dtype=float)[checked] - cables["loss_db"].to_numpy(
        dtype=float)[checked]
    m = cables["reach_m"].to_numpy(dtype=float)[checked] - fibre[checked]
    i, j = int(np.argmin(db)), int(np.argmin(m))
    block.update(worst_margin_db=round(float(db[i]), 3), worst_margin_db_cable=str(ids[i]),
                 worst_margin_m=round(float(m[j]), 3), worst_margin_m_cable=str(ids[j]))
    return block


# ----------------------------------------------------------------------------- the plan

def build(topology: Topology, placement: Placement, floor: Floor, catalog: Catalog,
          router_model: RouterModel, *, endpoint_cables: bool = True,
          standing_seats: structured.StandingSeats | None = None) -> CablePlan:
    """Cables, devices, cabinets and ports of a placed topology (rules in the module doc);
    ``standing_seats`` (a grown plan) keeps the standing links on their panel ports."""
    n_routers, n_endpoints = topology.num_routers, topology.num_endpoints
    cab = np.asarray(placement.router_cabinet, dtype=np.int64)
    if cab.shape != (n_routers,):
        raise ValueError(f"placement has {cab.size} routers, topology {n_routers}")
    radix = int(router_model.radix)
    router_ru, ep_ru = rack_units(topology, placement, floor, router_model, catalog)
    rnames, enames = device_names("router", n_routers), device_names("endpoint", n_endpoints)
    ep_router = endpoint_routers(topology)
    servers = Servers.of(topology, placement, catalog, floor)
    if servers is not None:     # each NIC is named by its server
        enames = servers.names[servers.of_endpoint]
    cables, plant = _cable_table(topology, placement, floor, catalog, router_model,
                                 endpoint_cables, standing_seats, router_ru, ep_ru, rnames,
                                 enames, ep_router, servers)
    # the routing's and the labels' working arrays are gone: the pieces are built beside the
    # cables table alone (the stage's peak at a million endpoints)
    installed = link_pieces.build(cables, plant, catalog)
    first, last = installed.end_pieces()
    sku = installed.table["sku"].to_numpy(object)
    cables.insert(cables.columns.get_loc("loss_db") + 1, "a_sku", sku[first])
    cables.insert(cables.columns.get_loc("a_sku") + 1, "b_sku", sku[last])
    devices = (_devices(placement, floor, router_model, rnames, enames, router_ru, ep_ru,
                        ep_router) if servers is None else
               _server_devices(placement, router_model, rnames, router_ru, servers))
    return CablePlan(cables=cables, devices=devices,
                     cabinets=_cabinets(placement, floor, router_model, ep_router, servers),
                     ports=_ports(cables, rnames, radix), structured=plant,
                     pieces=installed)


def _cable_table(topology, placement, floor, catalog, router_model, endpoint_cables,
                 standing_seats, router_ru, ep_ru, rnames, enames, ep_router, servers):
    """(``Plan.cables`` without the end parts, the structured plant or None): every cable
    routed, its parts chosen, its ports and label (rules in the module doc)."""
    n_routers = topology.num_routers
    cab = np.asarray(placement.router_cabinet, dtype=np.int64)
    radix = int(router_model.radix)
    net_a, net_b = network_cables(topology)
    net_a_port, net_b_port, ep_port = assign_ports(topology, radix)
    n_endpoints = topology.num_endpoints

    n_ep = n_endpoints if endpoint_cables else 0
    n_net = len(net_a)
    ep_ids = np.arange(n_ep, dtype=np.int64)
    a_router = np.r_[net_a, ep_router[:n_ep]]
    b_router = np.r_[net_b, np.full(n_ep, -1, np.int64)]
    b_endpoint = np.r_[np.full(n_net, -1, np.int64), ep_ids]
    a_port = np.r_[net_a_port, ep_port[:n_ep]]
    b_port = np.r_[net_b_port, np.ones(n_ep, np.int64) if servers is None
                   else servers.nic_port[:n_ep]]
    ep_cab = cab[ep_router] if servers is None else servers.cabinet[servers.of_endpoint]
    a_cab = cab[a_router]
    b_cab = np.r_[cab[net_b], ep_cab[:n_ep]]
    a_ru = router_ru[a_router]
    b_ru = np.r_[router_ru[net_b], ep_ru[:n_ep]]
    group = np.asarray(placement.cabinet_group, dtype=np.int64)
    group_a, group_b = group[a_cab], group[b_cab]

    room = floors.room_of(floor, placement.cabinet_hall, placement.cabinet_row,
                          placement.cabinet_col)
    parallel = np.r_[np.repeat(topology.multiplicity, topology.multiplicity), np.ones(n_ep)]
    seat_of = (None if standing_seats is None else
               standing_seats.of(net_a, net_a_port, net_b, net_b_port, n_net + n_ep))
    trays = None if seat_of is None else standing_seats.trays(room, seat_of)

    def route(shared):
        return routed_parts(catalog, floor, room, placement.cabinet_hall, placement.cabinet_row,
                            placement.cabinet_col, a_cab, b_cab, group_a == group_b,
                            router=router_model, endpoint=np.arange(n_net + n_ep) >= n_net,
                            parallel=parallel, shared=shared, names=lambda i: _link_name(
                                i, n_net, a_router, b_router, b_endpoint, rnames, enames),
                            tray=trays)

    routed = route(False)
    short = cages.cages_used(router_model, catalog, a_router, b_router, routed.parts.part,
                             n_routers) > router_model.cage_count
    if short.any():     # the odd links of one-peer parts onto twin-port optics (cages module)
        move = cages.odd_links(router_model, catalog, a_router, b_router, routed.parts.part,
                               short)
        if move.any():
            routed = route(move)
    length, kind, pieces, parts = routed.length, routed.kind, routed.runs, routed.parts
    media = media_of(catalog, parts.part)
    order_len = np.round(parts.order_length, 3)
    numbers = part_numbers(catalog, parts)
    a_watts, b_watts = end_watts(catalog, parts)
    a_port, b_port = cages.assign_ports(router_model, catalog, a_router, b_router, parts.part,
                                        a_port, b_port, rnames)

    cab_names = np.asarray(placement.cabinet_names, dtype=object)
    ru_width = label_width(max(floor.cabinet_height_ru, np.nanmax(np.r_[router_ru, ep_ru, 0])))
    port_width = label_width(radix)
    b_unit = unit_text(b_ru, ru_width)
    no_unit = np.flatnonzero(np.isnan(b_ru))
    if no_unit.size:
        b_unit[no_unit] = [name.upper() for name in enames[b_endpoint[no_unit]].tolist()]
    b_port_text = unit_text(b_port, port_width)
    if servers is not None:     # a server's end names its NIC port: NIC1 .. NICn
        b_port_text[n_net:] = joined_text("NIC", b_port[n_net:].astype(str))
    labels = joined_text(cab_names[a_cab], "-", unit_text(a_ru, ru_width), ":",
                         unit_text(a_port, port_width), "/", cab_names[b_cab], "-", b_unit, ":",
                         b_port_text)
    longest = int(pd.Series(labels, dtype=object).str.len().max()) if len(labels) else 0
    if longest > MAX_LABEL:
        raise InputError(f"cable labels would be {longest} characters, above the "
                         f"{MAX_LABEL} NetBox allows; use shorter cabinet names")

    n = n_net + n_ep
    cable_ids = padded("C", np.arange(1, n + 1))
    b_device = np.empty(n, dtype=object)
    b_device[:n_net] = rnames[net_b]
    b_device[n_net:] = enames[:n_ep]
    check_lit(catalog, floor, parts, cable_ids, rnames[a_router], b_device,
              np.asarray(routes.KINDS, dtype=object)[kind])
    risk = placement.spread_risk        # --spread-risk: links dealt over the trunks too
    dealing = (structured.SpreadDealing(risk.share, net_a, net_b, topology.groups)
               if risk is not None else None)
    standing = None if standing_seats is None else (standing_seats, seat_of)
    plant = (structured.build(room, catalog, pieces, parts, cable_ids, dealing, standing)
             if pieces is not None else None)
    cables = pd.DataFrame({
        "cable_id": cable_ids,
        "label": labels,
        "kind": np.repeat(np.asarray(["network", "endpoint"], dtype=object), [n_net, n_ep]),
        # np.repeat of an object array repeats one string per kind; np.where or np.full with a
        # string makes a string per row (2.5M at 1M endpoints)
        "a_device": rnames[a_router],
        "a_port": a_port,
        "a_cabinet": cab_names[a_cab],
        "a_ru": nullable_units(a_ru),
        "b_device": b_device,
        "b_port": b_port,
        "b_cabinet": cab_names[b_cab],
        "b_ru": nullable_units(b_ru),
        "media": media,
        "sku": numbers["sku"],
        "length_m": length,
        "order_length_m": order_len,
        "latency_ns": np.round(latency_ns(media.astype(str), order_len), 2),
        "route_kind": np.asarray(routes.KINDS, dtype=object)[kind],
        "a_transceiver": numbers["a_transceiver"],
        "b_transceiver": numbers["b_transceiver"],
        "segments": plant.segments if plant is not None else np.full(n, "", dtype=object),
        "fibre_m": np.round(parts.fibre_m, 3),
        "connections": pd.arrays.IntegerArray(parts.connections.astype(np.int64),
                                              np.isnan(parts.fibre_m)),
        "loss_db": np.round(parts.loss_db, 3),
        "a_router": a_router,
        "b_router": b_router,
        "b_endpoint": b_endpoint,
        "group_a": group_a,
        "group_b": group_b,
        "unit_price": parts.price,
        "part": parts.part,
        "fibre": parts.fibre,
        "nic_part": parts.nic_part,
        "a_watts": a_watts,
        "b_watts": b_watts,
        "loss_budget_db": parts.budget_db,
        "reach_m": parts.reach_m,
    }, copy=False)      # the columns are this function's own arrays: no second copy of them
    return cables, plant


def _devices(placement, floor, router_model, rnames, enames, router_ru, ep_ru,
             ep_router) -> pd.DataFrame:
    cab_names = np.asarray(placement.cabinet_names, dtype=object)
    cab = np.asarray(placement.router_cabinet, dtype=np.int64)
    n_r, n_e = len(rnames), len(enames)
    return pd.DataFrame({
        "name": np.r_[rnames, enames],
        "kind": np.repeat(np.asarray(["router", "endpoint"], dtype=object), [n_r, n_e]),
        "id": np.r_[np.arange(n_r), np.arange(n_e)],
        "cabinet": np.r_[cab_names[cab], cab_names[cab[ep_router]]],
        "ru": nullable_units(np.r_[router_ru, ep_ru]),
        "height_ru": np.r_[np.full(n_r, float(router_model.rack_units)),
                           np.full(n_e, float(floor.endpoint_ru))],
        "model": np.repeat(np.asarray([router_model.sku, "endpoint"], dtype=object), [n_r, n_e]),
    })


def _server_devices(placement, router_model, rnames, router_ru, servers) -> pd.DataFrame:
    """Routers, then one row per server (kind "endpoint": the hosts of the fabric)."""
    cab_names = np.asarray(placement.cabinet_names, dtype=object)
    cab = np.asarray(placement.router_cabinet, dtype=np.int64)
    n_r, n_s = len(rnames), len(servers.names)
    return pd.DataFrame({
        "name": np.r_[rnames, servers.names],
        "kind": np.repeat(np.asarray(["router", "endpoint"], dtype=object), [n_r, n_s]),
        "id": np.r_[np.arange(n_r), np.arange(n_s)],
        "cabinet": np.r_[cab_names[cab], cab_names[servers.cabinet]],
        "ru": nullable_units(np.r_[router_ru, servers.ru]),
        "height_ru": np.r_[np.full(n_r, float(router_model.rack_units)),
                           np.full(n_s, float(servers.model.ru))],
        "model": np.repeat(np.asarray([router_model.sku, servers.model.sku], dtype=object),
                           [n_r, n_s]),
    })


def _cabinets(placement, floor, router_model, ep_router, servers=None) -> pd.DataFrame:
    n_cab = placement.num_cabinets
    cab = np.asarray(placement.router_cabinet, dtype=np.int64)
    routers = np.bincount(cab, minlength=n_cab)
    if servers is None:
        endpoints = np.bincount(cab[ep_router], minlength=n_cab)
        endpoint_ru = endpoints * float(floor.endpoint_ru)
    else:
        endpoints = np.bincount(servers.cabinet[servers.of_endpoint], minlength=n_cab)
        endpoint_ru = np.bincount(servers.cabinet, minlength=n_cab) * float(servers.model.ru)
    x, y = floors.cabinet_xy(floor, placement.cabinet_row, placement.cabinet_col)
    return pd.DataFrame({
        "name": list(placement.cabinet_names),
        "hall": np.asarray(placement.cabinet_hall, dtype=np.int64),
        "row": np.asarray(placement.cabinet_row, dtype=np.int64),
        "col": np.asarray(placement.cabinet_col, dtype=np.int64),
        "group": np.asarray(placement.cabinet_group, dtype=np.int64),
        "x_m": np.round(x, 3),
        "y_m": np.round(y, 3),
        "routers": routers,
        "endpoints": endpoints,
        "ru_used": routers * float(router_model.rack_units) + endpoint_ru,
    })


def _ports(cables: pd.DataFrame, rnames: np.ndarray, radix: int) -> pd.DataFrame:
    """One row per router port 1..radix, used or free, with its peer and cable."""
    n_r = len(rnames)
    size = n_r * radix
    used = np.zeros(size, dtype=bool)
    peer_device = np.full(size, "", dtype=object)
    peer_port = np.zeros(size, dtype=np.int64)
    cable_id = np.full(size, "", dtype=object)
    label = np.full(size, "", dtype=object)
    a_router = cables["a_router"].to_numpy()
    b_router = cables["b_router"].to_numpy()
    a_port = cables["a_port"].to_numpy()
    b_port = cables["b_port"].to_numpy()
    net = b_router >= 0
    idx_a = a_router * radix + a_port - 1
    idx_b = b_router[net] * radix + b_port[net] - 1
    every = np.r_[idx_a, idx_b]
    if every.size and np.bincount(every, minlength=size).max() > 1:
        raise AssertionError("a router port was assigned twice")
    ids, labels = cables["cable_id"].to_numpy(), cables["label"].to_numpy()
    used[every] = True
    peer_device[idx_a] = cables["b_device"].to_numpy()
    peer_port[idx_a] = b_port
    peer_device[idx_b] = cables["a_device"].to_numpy()[net]
    peer_port[idx_b] = a_port[net]
    cable_id[idx_a], cable_id[idx_b] = ids, ids[net]
    label[idx_a], label[idx_b] = labels, labels[net]
    return pd.DataFrame({
        "device": np.repeat(rnames, radix),
        "port": np.tile(np.arange(1, radix + 1, dtype=np.int64), n_r),
        "used": used,
        "peer_device": peer_device,
        "peer_port": pd.arrays.IntegerArray(peer_port, ~used),
        "cable_id": cable_id,
        "label": label,
    })
