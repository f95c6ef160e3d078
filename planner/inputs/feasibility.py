"""Checks before placement: what topology, catalog and floor decide without placing a router.

``check`` takes a topology (or a ``Shape`` from closed-form counts, ``Shape.of_counts``), the
catalog, the floor as the kW budget leaves it (``planner.costing.power.fit_budget``) and the
router model, and raises ``InputError`` (exit code 2, one line naming the limit and the fix)
when no placement can succeed:

- cabinets: the floor's cabinets and halls hold the routers and their endpoints at the router
  slots the kW budget leaves (``planner.inputs.floor.check_capacity`` on that floor), in the
  free positions only where the floor marks positions of an existing room (``hall.positions``,
  ``planner.inputs.floor.positions.free_slots``);
- cages: the cabling stage puts the ends of one part into whole cages
  (``planner.inputs.catalog.cages``), so a router of breakout b may need more cages than its
  ports suggest. The worst case over the parts the router may use (``cages_needed``):

      endpoint cages  ceil(p / b)   (endpoint cables all have the intra-cabinet length: one part)
      network cages   x + ceil((d - x) / b) + (K - 1)

  where d is the router's network ports, x = min(d, C) the peers a straight multi-link assembly
  (a twin-port DAC or ACC: one cage per peer) may reach, C the other routers within that
  assembly's reach on this floor (``copper_neighbours``), and K the parts of the catalog that
  share cages among any peers (transceivers, single-link cables) for the remaining d - x ends,
  each of which may leave one cage part-filled (the parallel links of one pair have one length,
  hence one part, so only the parts carrying a peer whose links are not a multiple of b can). A peer with m parallel links on an assembly takes
  ceil(m / b) cages, leaving w = b * ceil(m / b) - m ports of its last cage empty, so x peers on
  assemblies and the rest on shared parts take ceil((d + W) / b) cages, W the sum of the x
  largest w of the router's peers. With one link per peer (w = b - 1) that is the formula above,
  the worst case when the peers are not known (``Shape.of_counts``); a topology gives each
  router's peers and their links (``Shape.of``), so a rail-optimised leaf with two links to
  each of 16 spines (w = 0) needs 16 network cages, not 32. A
  cabinet is taken to hold as many routers as its endpoint slots leave room for their
  endpoints (``_routers_per_cabinet``): on ``eth-51t`` in ``hot-aisle`` the bound is 69 cages for
  ``dragonfly:a=64,p=32,h=32`` (the cabling stage found a router needing 66 at g=2 on the
  cheapest parts) and 61 for ``a=56,p=28,h=28`` (g=2: 2,291 copper links, every cable placed).
- twin-port optics: a cage holding a twin-port transceiver with a connector per port serves two
  peers, so when the bound above exceeds the model's cages the cabling stage moves the odd links
  of one-peer parts onto such modules (``planner.inputs.catalog.cages.odd_links``), and the
  check refuses only when even that does not fit (``cages_on_shared_optics``): 64 cages for
  ``a=64,p=32,h=32`` (it plans at g=2: 243 links under 5 m on twin-port optics), 65 for h=33,
  57 for the spine of ``railfattree:units=392,servers=32,nics=8,radix=128`` (56 single-link leaf
  peers, 28 cores of two links), which then plans on the SN5600's 64 cages.

Router radix against the ports used is ``Catalog.router_for``; the structured-cabling panels,
``planner.inputs.parts.structured.check_catalog``; both run before this in ``planner.plan``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from planner.inputs import floor as floors
from planner.inputs.catalog import Catalog, RouterModel
from planner.inputs.floor import Floor, routes
from planner.inputs.floor.capacity import group_capacity
from planner.inputs.floor.geometry import cabinet_positions
from planner.inputs.floor.halls import hall_capacity, room_of
from planner.inputs.parts import media
from planner.inputs.tuning import MAX_REACH_CABINETS
from planner.run.errors import InputError


@dataclass(frozen=True)
class Shape:
    """What the checks read of a topology: routers, endpoints and network ports per router."""

    num_routers: int
    endpoints: np.ndarray
    degree: np.ndarray
    peer_links: tuple[np.ndarray, np.ndarray] | None = None   # (router, links) per peer pair

    def empty_ports(self, b: int, near: int) -> tuple[np.ndarray, np.ndarray]:
        """Per router, for cages of ``b`` ports and x = min(its distinct peers, ``near``) on
        straight assemblies: (W, odd), W the most empty ports those x peers may leave, odd the
        peers left to shared parts whose links are not a multiple of b (module doc); one link
        per peer when the peers are not known."""
        if self.peer_links is None:
            x = np.minimum(self.degree, near)
            return x * (b - 1), self.degree - x
        router, links = self.peer_links
        waste = (-links) % b
        order = np.lexsort((-waste, router))            # by router, largest waste first
        router, waste = router[order], waste[order]
        peers = np.bincount(router, minlength=self.num_routers)
        x = np.minimum(peers, near)
        start = np.concatenate(([0], np.cumsum(peers)[:-1]))
        rank = np.arange(router.size) - start[router]
        total = np.zeros(self.num_routers, dtype=np.int64)
        keep = rank < x[router]
        np.add.at(total, router[keep], waste[keep])
        odd = np.bincount(router[waste > 0], minlength=self.num_routers)
        return total, np.maximum(0, odd - x)

    @property
    def radix(self) -> int:
        return int((self.degree + self.endpoints).max()) if self.num_routers else 0

    @property
    def num_endpoints(self) -> int:
        return int(self.endpoints.sum())

    @classmethod
    def of(cls, topology) -> "Shape":
        u, v = topology.links[:, 0], topology.links[:, 1]
        m = np.asarray(topology.multiplicity, dtype=np.int64)
        return cls(int(topology.num_routers), np.asarray(topology.endpoints, dtype=np.int64),
                   np.asarray(topology.degree, dtype=np.int64),
                   (np.concatenate([u, v]).astype(np.int64), np.concatenate([m, m])))

    @classmethod
    def of_counts(cls, routers: int, endpoints: int, radix: int,
                  per_router: int | None = None) -> "Shape":
        """A topology known by its closed-form counts (``planner.topologies.sizing``): at most
        ``per_router`` endpoints on a router (default: spread evenly), every router using
        ``radix`` ports, so a router without endpoints (a spine) has ``radix`` network ports."""
        p = per_router or math.ceil(endpoints / routers)
        ep = np.zeros(routers, dtype=np.int64)
        full, rest = divmod(endpoints, p)
        ep[:full] = p
        if rest:
            ep[full] = rest
        return cls(routers, ep, radix - ep)


def check(shape: Shape, catalog: Catalog, floor: Floor, router_model: RouterModel,
          endpoint_cables: bool = True, given: Floor | None = None) -> None:
    """InputError when the floor (``floor``: as the kW budget leaves it; ``given``: as the user
    wrote it) cannot hold ``shape`` or a router would need more cages than its model has."""
    if given is not None and floor.router_slots < given.router_slots:
        try:
            floors.check_capacity(floor, shape, router_model)
        except InputError as err:
            raise InputError(f"{err} (field 'cabinet_kw_budget' {given.cabinet_kw_budget:g} kW "
                             f"leaves {floor.router_slots} of the {given.router_slots} router "
                             "slots per cabinet usable; raise cabinet_kw_budget)") from None
    need, p, d = _worst_router(shape, catalog, floor, router_model, endpoint_cables)
    if need <= router_model.cage_count:
        return
    b = router_model.breakout
    least = cages_on_shared_optics(shape, catalog, router_model, endpoint_cables)
    if least is not None and least[0] <= router_model.cage_count:
        return                      # the cabling stage moves odd links onto twin-port optics
    also = ("" if least is None else
            f"; {least[0]} for a router with {least[1]} endpoints and {least[2]} network links "
            "even with its odd links on twin-port optics")
    raise InputError(
        f"catalog '{catalog.source}': a router with {p} endpoints and {d} network links "
        f"may need {need} cages of {b} ports (the ports of one cage share one part: a "
        f"twin-port copper cable or single-connector module serves one peer{also}), but {router_model.sku} has "
        f"{router_model.cage_count}; use fewer endpoints or network ports per router (see "
        "'planner size --catalog'), or a larger router model")


def cages_on_shared_optics(shape: Shape, catalog: Catalog, router_model: RouterModel,
                           endpoint_cables: bool = True) -> tuple[int, int, int] | None:
    """(cages, endpoints, network links) of the router needing the most cages when the links
    that would leave a cage part-filled on a one-peer part (a twin-port copper cable, a
    single-connector module) take a part whose cages serve several peers instead (a twin-port
    transceiver with a connector per port), as the cabling stage does for a router short of
    cages (``planner.inputs.catalog.cages.odd_links``). A peer's links then fill whole cages on
    its own part, and the ends on the K shared parts part-fill at most one cage per part that
    carries a peer of links not a multiple of b:

        ceil(p / b) + floor((d + min(K, odd) (b - 1)) / b)

    odd the router's peers whose links are not a multiple of b (every link its own peer when
    the peers are not known). None when the catalog has no such part reaching as far as its
    one-peer parts, or the model has a cage per port."""
    b = router_model.breakout
    if b == 1 or shape.num_routers == 0:
        return None
    bonded, shared = _network_parts(catalog, router_model)
    if not bonded or not shared:
        return None
    far = max(catalog.cables[i].max_reach_m for i in bonded)
    if max(catalog.optical_longest_m(catalog.cables[i]) for i in shared) < far:
        return None
    ep = shape.endpoints if endpoint_cables else np.zeros_like(shape.endpoints)
    if shape.peer_links is None:
        odd = shape.degree
    else:
        router, links = shape.peer_links
        odd = np.bincount(router[links % b != 0], minlength=shape.num_routers)
    cages = -(-ep // b) + (shape.degree + np.minimum(len(shared), odd) * (b - 1)) // b
    i = int(np.argmax(cages))
    return int(cages[i]), int(ep[i]), int(shape.degree[i])


def cages_needed(shape: Shape, catalog: Catalog, floor: Floor, router_model: RouterModel,
                 endpoint_cables: bool = True) -> int:
    """Most cages one router may need, over every placement (module doc); its ports when the
    model has no breakout."""
    return _worst_router(shape, catalog, floor, router_model, endpoint_cables)[0]


def _worst_router(shape: Shape, catalog: Catalog, floor: Floor, router_model: RouterModel,
                  endpoint_cables: bool) -> tuple[int, int, int]:
    """(cages, endpoints, network links) of the router that may need the most cages."""
    b = router_model.breakout
    if shape.num_routers == 0:
        return 0, 0, 0
    if b == 1:                                  # a cage per port
        i = int(np.argmax(shape.endpoints + shape.degree))
        return shape.radix, int(shape.endpoints[i]), int(shape.degree[i])
    ep = shape.endpoints if endpoint_cables else np.zeros_like(shape.endpoints)
    bonded, shared = _network_parts(catalog, router_model)
    reach = max((catalog.cables[i].max_reach_m for i in bonded), default=None)
    per_cabinet = _routers_per_cabinet(floor, int(ep.min()))   # the peers' cabinets
    near = copper_neighbours(floor, reach, per_cabinet, shape) if reach is not None else 0
    waste, odd = shape.empty_ports(b, near)
    on_assemblies = -(-(shape.degree + waste) // b)
    # the links of one pair have one length, hence one part: of the K shared parts only those
    # carrying a peer of links not a multiple of b part-fill a cage, one extra each but one
    network = on_assemblies + np.maximum(0, np.minimum(len(shared), odd) - 1)
    cages = -(-ep // b) + network
    i = int(np.argmax(cages))
    return int(cages[i]), int(ep[i]), int(shape.degree[i])


def _network_parts(catalog: Catalog, router_model: RouterModel) -> tuple[set[int], set[int]]:
    """Router-end parts of network links: the parts serving one peer per cage (straight
    multi-link assemblies, single-connector modules) and the parts whose cages serve any
    peers."""
    bonded, shared = set(), set()
    for way in media.ways(catalog, router_model, endpoint=False):
        m = catalog.cables[way.part]
        (bonded if m.one_peer_per_cage else shared).add(way.part)
    return bonded, shared


def _routers_per_cabinet(floor: Floor, endpoints_per_router: int) -> int:
    """Routers one cabinet can hold: its router slots, fewer when the endpoint slots run out
    (placement packs a router with its endpoints, ``planner.placement.cabinets``)."""
    slots = floor.router_slots
    if floor.endpoint_slots is not None and endpoints_per_router > 0:
        slots = min(slots, max(1, floor.endpoint_slots // endpoints_per_router))
    return slots


def copper_neighbours(floor: Floor, reach_m: float, per_cabinet: int, shape: Shape) -> int:
    """Other routers a router may reach with a route of at most ``reach_m`` on this floor: the
    cabinets within reach of the best-connected cabinet of the largest hall the floor allows
    (or of the grid holding the system), times ``per_cabinet``, minus itself; on a
    ``membership`` floor at most the routers of one electrical group."""
    if floor.hall is not None:
        width = group_capacity(floor, shape.endpoints)[0]
        rows, per_row = hall_capacity(floor, width)
        r, c = np.meshgrid(np.arange(rows), np.arange(per_row * width), indexing="ij")
    else:
        need = math.ceil(shape.num_routers / per_cabinet)
        r, c = cabinet_positions(floor, max(1, min(need, MAX_REACH_CABINETS)))
    r, c = np.ravel(r), np.ravel(c)
    if r.size > MAX_REACH_CABINETS:      # the middle of a huge grid sees as much as any cabinet
        keep = np.argsort(np.abs(r - r.mean()) + np.abs(c - c.mean()),
                          kind="stable")[:MAX_REACH_CABINETS]
        r, c = r[keep], c[keep]
    hall = np.zeros_like(r)
    room = room_of(floor, hall, r, c)
    lengths = routes.route_length_m(room, hall[:, None], r[:, None], c[:, None], hall[None, :],
                                    r[None, :], c[None, :], np.eye(r.size, dtype=bool))
    cabinets = int((lengths <= reach_m + 1e-9).sum(axis=1).max())
    near = cabinets * per_cabinet - 1
    if floor.media_rule == "membership":
        near = min(near, group_capacity(floor, shape.endpoints)[2] - 1)
    return max(0, near)
