"""Placement of GPU fabrics whose endpoints are the NICs of servers (issue 27, item 3).

Takes a topology with a server layout (``planner.topologies.servers``: rail-optimised and
multi-plane fat trees), the catalog's server model (``planner.inputs.catalog.servers``), the
floor and the router model; hands on a ``Placement`` whose ``server_cabinet`` says where every
server stands. The layout is the one GPU halls are built with (NVIDIA DGX SuperPOD reference
architectures: scalable units in their own rows, the leaves in the unit's network cabinets,
spines and cores in network rows):

- **Pods.** A pod is a set of leaves and the servers they serve, a connected component of the
  server-leaf graph: a rail-optimised unit (its N rail leaves and S servers), a multi-plane
  fat tree's leaf column across the planes.
- **Compute cabinets.** A server stands whole in one cabinet, which holds servers only: as
  many as its height (from ``first_endpoint_ru`` up) and its kW budget allow, counting each
  server at its data sheet's maximum power and each NIC with the catalog's most power-hungry
  cable end (``servers_per_cabinet``).
- **Slots.** Every pod takes one slot of adjacent cabinets in a row
  (``planner.inputs.floor.slot_layout``): its leaf cabinets (``router_slots`` leaves each) at
  the row end or in the middle, as the floor's ``leaf_cabinets`` says, its compute cabinets
  beside them; or (``with-servers``) the leaves in the router slots of the pod's middle
  compute cabinets, above their servers, whose count per cabinet then leaves room and power
  for them. The routers without endpoints (spines, cores) fill network cabinets in slots
  of their own: network rows.
- **Candidates**, each priced as the cabling stage orders it (``planner.inputs.parts.media.
  routed_parts``: the network cables and every NIC cable, copper wherever a copper part
  reaches): the network rows after the pods or between them, or spread over the pods' rows
  beside their leaf cabinets, leaves at their pods; and the partitioners' layout (KaMinPar,
  the cabinets of ``router_slots`` routers filled block by block, placement's plain path) over
  the same router cabinets. A candidate with a link that no part of the catalog reaches is
  dropped (a leaf moved to another hall than its servers: the NIC's optics do not reach); of
  the others the cheapest wins (the rail layouts on ties), so the result is never dearer than
  the partitioners. The strategy and time limit do not change it: every candidate is cheap.
- **Network rows named.** A floor's ``network_rows`` (``end``, ``middle``) keeps only the
  layout with the network slots after the pods or between them, each block of slots starting
  a row of its own (``_row_blocks``), and the partitioners' layout then moves only the spines
  and cores, over the network cabinets (``_partitioned_network``), the leaves staying with
  their pods.

The network cables' objective and bounds are those of every placement (``priced``:
``reach_bounds`` on reach floors, the trivial optical bound otherwise).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from planner.inputs import floor as floors
from planner.inputs.catalog.servers import ServerModel
from planner.inputs.parts.media import end_share, routed_parts
from planner.placement.capacity import Capacity, Limits
from planner.placement.graph import Graph
from planner.placement.objective import network_link_media
from planner.placement.partition import KaMinParRunner, relabel, repair
from planner.placement.priced import Layout, membership_bounds, price_table, reach_bounds
from planner.placement.result import Placement
from planner.run.errors import InputError
from planner.topologies.servers import nic_endpoints

LEAF_POSITIONS = ("end-of-row", "middle-of-row", "with-servers")


@dataclass(frozen=True, eq=False)
class Pods:
    """Leaves and servers by pod: ``router_pod`` (R,) (-1: a network router without
    endpoints), ``server_pod`` (S,), pods numbered by their lowest leaf."""

    router_pod: np.ndarray
    server_pod: np.ndarray

    @property
    def count(self) -> int:
        return int(self.server_pod.max()) + 1 if len(self.server_pod) else 0


@dataclass(frozen=True, eq=False)
class RailLayout:
    """A candidate: the routers' layout and the cabinet of every server, with its dollars."""

    layout: Layout
    server_cabinet: np.ndarray
    network_dollars: float
    nic_dollars: float

    @property
    def dollars(self) -> float:
        return self.network_dollars + self.nic_dollars


def pods_of(topology) -> Pods:
    """Connected components of the server-leaf graph (module doc)."""
    router, server, _ = nic_endpoints(topology)
    n_r, n_s = topology.num_routers, int(topology.extra["servers"]["count"])
    adj = sp.coo_matrix((np.ones(len(router)), (router, n_r + server)),
                        shape=(n_r + n_s, n_r + n_s))
    _, label = connected_components(adj, directed=False)
    leaf = np.asarray(topology.endpoints) > 0
    # pods in order of their lowest leaf
    first = np.full(label.max() + 1, n_r, dtype=np.int64)
    np.minimum.at(first, label[:n_r][leaf], np.flatnonzero(leaf))
    used = np.unique(label[n_r:])
    rank = np.full(label.max() + 1, -1, dtype=np.int64)
    rank[used[np.argsort(first[used], kind="stable")]] = np.arange(len(used))
    router_pod = np.where(leaf, rank[label[:n_r]], -1)
    return Pods(router_pod=router_pod, server_pod=rank[label[n_r:]])


def servers_per_cabinet(floor, catalog, server: ServerModel, router=None, radix: int = 0) -> int:
    """Servers one compute cabinet holds: by height (from ``first_endpoint_ru``) and by
    ``cabinet_kw_budget`` (the data sheet's maximum power plus the catalog's most
    power-hungry cable end in every NIC). With ``router`` the cabinet also holds
    ``router_slots`` routers of that model and ``radix`` ports (leaves with their servers):
    the servers stay below ``first_router_ru`` and the routers' power, every port with the
    worst cable end, comes off the budget first. InputError when not even one fits."""
    top = floor.cabinet_height_ru
    if router is not None and floor.first_router_ru > floor.first_endpoint_ru:
        top = floor.first_router_ru - 1
    by_height = (top - floor.first_endpoint_ru + 1) // server.ru
    if by_height < 1:
        raise InputError(f"floor '{floor.source}': a {server.ru}U server ({server.sku}) does "
                         f"not fit a {floor.cabinet_height_ru}U cabinet from "
                         f"first_endpoint_ru {floor.first_endpoint_ru}; use taller cabinets "
                         "or a lower first_endpoint_ru")
    if floor.cabinet_kw_budget is None:
        return int(by_height)
    worst_end = max((end_share(m) for m in catalog.cables), default=0.0)
    load_w = float(server.watts) + server.nics * worst_end
    reserve_w = 0.0
    if router is not None:
        reserve_w = int(floor.router_slots) * (router.base_watts + router.power_w(radix)
                                               + radix * worst_end)
    by_power = int(max(floor.cabinet_kw_budget * 1000.0 - reserve_w + 1e-9, 0.0) // load_w)
    if by_power < 1:
        raise InputError(f"floor '{floor.source}': field 'cabinet_kw_budget' is "
                         f"{floor.cabinet_kw_budget:g} kW but one server ({server.sku}) with "
                         f"its NICs' cable ends can draw {load_w / 1000:.3f} kW; raise "
                         f"cabinet_kw_budget to at least {load_w / 1000:.3f}")
    return int(min(by_height, by_power))


@dataclass(frozen=True)
class _Frame:
    """The cabinets of a rail layout before routers are assigned: per cabinet its hall, row,
    column, group, and its kind (pod leaf cabinet, compute cabinet, network cabinet)."""

    hall: np.ndarray
    row: np.ndarray
    col: np.ndarray
    group: np.ndarray
    router_cabinets: np.ndarray      # cabinets that take routers, in fill order
    leaf_cabinets: list              # per pod, its leaf cabinets (indices into the frame)
    compute_cabinets: list           # per pod, its compute cabinets
    network_cabinets: np.ndarray     # network cabinets in fill order


def _row_blocks(floor, blocks: tuple[int, ...], width: int):
    """Slots for consecutive blocks of slots (pods, network, pods) where each block starts a
    row of its own, so no row holds slots of two blocks (the floor's ``network_rows``): the
    slot layout grown until the blocks, each moved to the next row start, fit in it. Returns
    the layout and each block's first slot."""
    k = sum(blocks)
    for _ in range(64):
        slots = floors.slot_layout(floor, k, width)
        key = slots.hall * (int(slots.row.max()) + 1) + slots.row
        starts, at = [], 0
        for size in blocks:
            while size and 0 < at < k and key[at] == key[at - 1]:
                at += 1
            starts.append(at)
            at += size
        if at <= k:
            return slots, np.asarray(starts, dtype=np.int64)
        k = at
    raise InputError(f"floor '{floor.source}': field 'network_rows' needs rows of their own "
                     "for the spines and cores but the halls have none to spare; enlarge the "
                     "hall or remove network_rows")


def _frame(floor, pods: Pods, n_network: int, per_cabinet: int, network_at: int | None,
           own_rows: bool = False) -> _Frame:
    """Slots for the pods and the network rows (module doc); ``network_at`` is the slot index
    the network slots start at (0..pods), or None to spread the network cabinets over the
    pods' rows, beside each pod's leaf cabinets; ``own_rows``: no pod's slot shares a row
    with a network slot (``_row_blocks``)."""
    slots_r = int(floor.router_slots)
    leaves = np.bincount(pods.router_pod[pods.router_pod >= 0], minlength=pods.count)
    servers = np.bincount(pods.server_pod, minlength=pods.count)
    n_leaf = -(-leaves // slots_r)
    n_comp = -(-servers // per_cabinet)
    net_cabs = -(-n_network // slots_r)
    share = np.zeros(pods.count, dtype=np.int64)
    if network_at is None:
        share = np.full(pods.count, net_cabs // pods.count, dtype=np.int64)
        share[:net_cabs % pods.count] += 1
        network_at, net_cabs = pods.count, 0
    with_servers = floor.leaf_cabinets == "with-servers"
    width = int(((np.maximum(n_leaf, n_comp) if with_servers else n_leaf + n_comp)
                 + share).max())
    group_w = int(floor.group_cabinets or 1)
    width = -(-width // group_w) * group_w
    net_slots = -(-net_cabs // width)
    blocks = (network_at, net_slots, pods.count - network_at)
    if own_rows:
        slots, starts = _row_blocks(floor, blocks, width)
    else:
        slots = floors.slot_layout(floor, pods.count + net_slots, width)
        starts = np.cumsum((0,) + blocks[:2])
    pod_slot = np.r_[starts[0] + np.arange(blocks[0]),
                     starts[2] + np.arange(blocks[2])].astype(np.int64)
    net_slot = (starts[1] + np.arange(net_slots)).astype(np.int64)
    hall, row, col, group = [], [], [], []
    leaf_cabs, comp_cabs, net = [], [], []

    def cabinets(slot: int, offsets) -> list[int]:
        start = len(hall)
        for off in offsets:
            hall.append(int(slots.hall[slot]))
            row.append(int(slots.row[slot]))
            col.append(int(slots.col[slot]) + int(off))
            group.append(slot * (width // group_w) + int(off) // group_w)
        return list(range(start, start + len(offsets)))

    middle = floor.leaf_cabinets == "middle-of-row"
    for p in range(pods.count):
        nl, nn, nc = int(n_leaf[p]), int(share[p]), int(n_comp[p])
        slot = int(pod_slot[p])
        if with_servers:        # the leaves in the middle compute cabinets' router slots
            total = max(nl, nc)
            shared = cabinets(slot, range(total))
            first = (total - nl) // 2
            leaf_cabs.append(shared[first:first + nl])
            comp_cabs.append(shared[:nc])
            net += cabinets(slot, range(total, total + nn))
            continue
        left = nc // 2 if middle else 0
        leaf_cabs.append(cabinets(slot, range(left, left + nl)))
        net += cabinets(slot, range(left + nl, left + nl + nn))
        comp_cabs.append(cabinets(slot,
                                  list(range(left)) + list(range(left + nl + nn, nl + nn + nc))))
    remaining = int(net_cabs)
    for s in net_slot.tolist():
        take = min(width, remaining)
        net += cabinets(s, range(take))
        remaining -= take
    leaf_order = [c for cabs in leaf_cabs for c in cabs]
    return _Frame(hall=np.asarray(hall, np.int64), row=np.asarray(row, np.int64),
                  col=np.asarray(col, np.int64), group=np.asarray(group, np.int64),
                  router_cabinets=np.asarray(leaf_order + net, np.int64),
                  leaf_cabinets=leaf_cabs, compute_cabinets=comp_cabs,
                  network_cabinets=np.asarray(net, np.int64))


def _fill(members: np.ndarray, cabinets, per_cabinet: int) -> np.ndarray:
    """Cabinet of each member, ``per_cabinet`` at a time in the given cabinets' order."""
    return np.asarray(cabinets, dtype=np.int64)[np.arange(len(members)) // per_cabinet]


def _servers_in_pods(pods: Pods, frame: _Frame, per_cabinet: int) -> np.ndarray:
    server_cabinet = np.empty(len(pods.server_pod), dtype=np.int64)
    for p in range(pods.count):
        members = np.flatnonzero(pods.server_pod == p)
        server_cabinet[members] = _fill(members, frame.compute_cabinets[p], per_cabinet)
    return server_cabinet


def _rail_routers(pods: Pods, frame: _Frame, slots_r: int) -> np.ndarray:
    """Leaves in their pod's leaf cabinets, the other routers in the network cabinets, each in
    id order."""
    router_cabinet = np.empty(len(pods.router_pod), dtype=np.int64)
    for p in range(pods.count):
        members = np.flatnonzero(pods.router_pod == p)
        router_cabinet[members] = _fill(members, frame.leaf_cabinets[p], slots_r)
    network = np.flatnonzero(pods.router_pod < 0)
    router_cabinet[network] = _fill(network, frame.network_cabinets, slots_r)
    return router_cabinet


def _partitioned_routers(graph: Graph, frame: _Frame, slots_r: int, seed: int) -> np.ndarray:
    """The plain path's answer over the same router cabinets: KaMinPar blocks of at most
    ``router_slots`` routers (repaired to the limit), block b in the b-th router cabinet."""
    k = len(frame.router_cabinets)
    limits = Limits.single(np.ones(graph.n, dtype=np.int64), slots_r)
    part = KaMinParRunner(graph, np.ones(graph.n, dtype=np.int64)).run(seed, k, slots_r)
    part = relabel(repair(graph, part, limits, k))
    return frame.router_cabinets[part]


def _partitioned_network(graph: Graph, pods: Pods, frame: _Frame, slots_r: int, seed: int
                         ) -> np.ndarray:
    """The partitioners' layout kept to the network rows (the floor's ``network_rows``): the
    leaves in their pods' leaf cabinets, the spines and cores in KaMinPar blocks of at most
    ``router_slots`` (repaired to the limit), block b in the b-th network cabinet. Two
    network routers weigh the links between them plus the leaves they share, each counted
    with both links' multiplicity (a leaf's two up-links then pull their spines together)."""
    router_cabinet = _rail_routers(pods, frame, slots_r)
    network = np.flatnonzero(pods.router_pod < 0)
    leaf = np.flatnonzero(pods.router_pod >= 0)
    adj = graph.adjacency
    up = adj[leaf][:, network]
    pull = sp.triu(adj[network][:, network] + (up.T @ up), k=1).tocoo()
    if not pull.nnz:            # nothing joins them: the rail layout's id order
        return router_cabinet
    sub = Graph(n=len(network), links=np.stack([pull.row, pull.col], axis=1).astype(np.int64),
                weights=np.rint(pull.data).astype(np.int64),
                endpoints=np.zeros(len(network), dtype=np.int64))
    k = len(frame.network_cabinets)
    limits = Limits.single(np.ones(sub.n, dtype=np.int64), slots_r)
    part = KaMinParRunner(sub, np.ones(sub.n, dtype=np.int64)).run(seed, k, slots_r)
    part = relabel(repair(sub, part, limits, k))
    router_cabinet[network] = frame.network_cabinets[part]
    return router_cabinet


def _priced(graph: Graph, topology, floor, catalog, router, frame: _Frame,
            router_cabinet: np.ndarray, server_cabinet: np.ndarray) -> RailLayout:
    """The candidate's network and NIC cable dollars, as the cabling stage orders them."""
    layout = Layout(router_cabinet=router_cabinet, hall=frame.hall, row=frame.row,
                    col=frame.col, group=frame.group)
    room = floors.room_of(floor, frame.hall, frame.row, frame.col)
    a, b = router_cabinet[graph.links[:, 0]], router_cabinet[graph.links[:, 1]]
    net = routed_parts(catalog, floor, room, frame.hall, frame.row, frame.col, a, b,
                       frame.group[a] == frame.group[b], router=router,
                       parallel=graph.weights).parts
    ep_router, ep_server, _ = nic_endpoints(topology)
    a, b = router_cabinet[ep_router], server_cabinet[ep_server]
    nic = routed_parts(catalog, floor, room, frame.hall, frame.row, frame.col, a, b,
                       frame.group[a] == frame.group[b], router=router, endpoint=True).parts
    return RailLayout(layout=layout, server_cabinet=server_cabinet,
                      network_dollars=float(np.sum(graph.weights * net.price)),
                      nic_dollars=float(np.sum(nic.price)))


def candidates(topology, floor, catalog, server: ServerModel, router,
               seed: int = 0) -> dict[str, RailLayout]:
    """Every candidate layout by name (module doc), in the order ties are broken."""
    if floor.leaf_cabinets not in LEAF_POSITIONS:
        raise InputError(f"floor '{floor.source}': field 'leaf_cabinets' must be one of "
                         f"{', '.join(LEAF_POSITIONS)}, got {floor.leaf_cabinets!r}")
    graph = Graph.from_topology(topology)
    pods = pods_of(topology)
    shared = floor.leaf_cabinets == "with-servers" and router is not None
    per_cabinet = servers_per_cabinet(floor, catalog, server, router if shared else None,
                                      int(topology.radix))
    slots_r = int(floor.router_slots)
    n_network = int(np.sum(pods.router_pod < 0))
    out: dict[str, RailLayout] = {}
    named = floor.network_rows if n_network else None
    if named == "end":
        frames = {"rails": _frame(floor, pods, n_network, per_cabinet, pods.count, True)}
    elif named == "middle":
        frames = {"rails-centred": _frame(floor, pods, n_network, per_cabinet,
                                          pods.count // 2, True)}
    else:
        frames = {"rails": _frame(floor, pods, n_network, per_cabinet, pods.count)}
        if pods.count > 1 and n_network:
            frames["rails-centred"] = _frame(floor, pods, n_network, per_cabinet,
                                             pods.count // 2)
        if n_network:
            frames["rails-spread"] = _frame(floor, pods, n_network, per_cabinet, None)
    refused: list[InputError] = []

    def add(name: str, frame: _Frame, router_cabinet, server_cabinet) -> None:
        try:
            out[name] = _priced(graph, topology, floor, catalog, router, frame, router_cabinet,
                                server_cabinet)
        except InputError as err:       # a link no part of the catalog reaches: not a layout
            refused.append(err)

    for name, frame in frames.items():
        add(name, frame, _rail_routers(pods, frame, slots_r),
            _servers_in_pods(pods, frame, per_cabinet))
    if named:
        frame = next(iter(frames.values()))
        if len(frame.network_cabinets) > 1:
            add("partition", frame, _partitioned_network(graph, pods, frame, slots_r, seed),
                _servers_in_pods(pods, frame, per_cabinet))
    else:
        frame = frames["rails"]
        if len(graph.links) and len(frame.router_cabinets) > 1:
            add("partition", frame, _partitioned_routers(graph, frame, slots_r, seed),
                _servers_in_pods(pods, frame, per_cabinet))
    if not out:
        raise refused[0]
    return out


def place_rails(topology, floor, catalog, server: ServerModel, router, *, strategy: str,
                seed: int, bounds_s: float) -> Placement:
    """The cheapest candidate (module doc) as a ``Placement``, with the bounds of its network
    cables as every placement gives them."""
    started = time.perf_counter()
    pool = candidates(topology, floor, catalog, server, router, seed)
    order = list(pool)
    method = min(order, key=lambda c: (pool[c].dollars, order.index(c)))
    best = pool[method]
    layout, server_cabinet = _ordered(best.layout, best.server_cabinet)
    graph = Graph.from_topology(topology)
    media = network_link_media(graph, layout.router_cabinet, layout.hall, layout.row,
                               layout.col, layout.group, floor, catalog, router)
    priced = floor.media_rule == "reach"
    prices = price_table(graph, floor, catalog, router, layout) if priced else None
    if prices is not None:
        capacity = Capacity(cabinet_routers=int(floor.router_slots), cabinet_endpoints=None,
                            group_cabinets=1, group_routers=int(floor.router_slots),
                            group_endpoints=int(graph.endpoints.sum()) or 1)
        bounds = reach_bounds(graph, layout, prices, capacity, bounds_s)
        lb, lb_kind = graph.total_weight - bounds.copper, bounds.copper_kind
    else:
        bounds = membership_bounds(graph, layout, floor, catalog, router, 0)
        lb, lb_kind = 0, bounds.copper_kind
    return Placement(router_cabinet=layout.router_cabinet, cabinet_row=layout.row,
                     cabinet_col=layout.col, cabinet_group=layout.group,
                     cabinet_hall=layout.hall,
                     cabinet_names=floors.cabinet_names(layout.hall, layout.row, layout.col),
                     strategy=strategy, method=method, optical=media.optical,
                     lower_bound=float(lb), lower_bound_kind=lb_kind,
                     candidates={k: int(round(v.dollars)) for k, v in pool.items()},
                     stage_seconds={"rails": round(time.perf_counter() - started, 4)},
                     objective="cable dollars" if priced else "optical links",
                     copper=media.copper, copper_upper_bound=bounds.copper,
                     copper_bound_kind=bounds.copper_kind, cable_cost=media.dollars,
                     cable_cost_lower_bound=bounds.cost, cable_cost_bound_kind=bounds.cost_kind,
                     server_cabinet=server_cabinet)


def network_rows_block(topology, floor, placement: Placement) -> dict:
    """``summary.json`` ``placement.network_rows`` of a plan of servers (empty otherwise): the
    floor's ``network_rows`` (None: not named, the cheapest candidate chose) and the rows the
    spines and cores stand in, named as ``cabinets.csv`` names them (``C``, ``H2-C``)."""
    if placement.server_cabinet is None:
        return {}
    network = np.asarray(topology.endpoints) == 0
    cabinets = np.unique(placement.router_cabinet[network])
    rows = sorted({placement.cabinet_names[c].rstrip("0123456789") for c in cabinets.tolist()},
                  key=lambda r: (len(r), r))
    return {"network_rows": {"floor": floor.network_rows, "rows": rows}}


def _ordered(layout: Layout, server_cabinet: np.ndarray) -> tuple[Layout, np.ndarray]:
    """Cabinets renumbered in (hall, row, column) order, as every placement numbers them."""
    order = np.lexsort((layout.col, layout.row, layout.hall))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    _, group = np.unique(layout.group[order], return_inverse=True)
    return (Layout(router_cabinet=rank[layout.router_cabinet], hall=layout.hall[order],
                   row=layout.row[order], col=layout.col[order],
                   group=group.astype(np.int64)),
            rank[server_cabinet])


__all__ = ["place_rails", "candidates", "pods_of", "servers_per_cabinet", "network_rows_block"]
