"""Which parts carry each link: a cable assembly, or a transceiver at each end plus a fibre.

Rule (docs/models.md "Media and parts"), by the floor's
``media_rule``:

- ``reach`` (real halls): a link is electrical whenever a copper assembly of the catalog reaches
  its routed length, whatever the electrical groups; ``membership`` (the papers' floors): only
  when both ends are also in one electrical group. Among the copper parts that may serve it the
  cheapest per link wins;
- otherwise the cheapest optical way that reaches: an AOC, or a transceiver pair plus the
  cheapest fibre of the transceivers' fibre type whose stock length covers the link and whose
  reach and the transceivers' reach both cover it. InputError naming the length if none does.
  A transceiver pair must also light the link (``planner.inputs.parts.budget``): the stock
  length ordered within its reach, the loss of that fibre within its budget. A link that some
  part reaches but none lights keeps the cheapest, not ``lit``, at an infinite price: placement
  avoids it and the cabling stage names it (exit 2).

"Cheapest" is the price per link, whatever the order of the catalog (ties: the earlier part):
an assembly's price; a straight assembly carrying k links between two cages costs
``price × ceil(m / k) / m`` per link when the router pair has m parallel links; a splitter's
head feeds k NICs, ``price / k``; a transceiver serving p ports of a cage costs ``price / p`` at a
router end and the full price of its ``nic_end`` model at a NIC. A part fits a router whose cage
breakout equals its ``links`` / ``ports`` (``docs/catalogs.md``); without a router model (pricing
floor distances) every part that fits one of the catalog's routers counts.

Copper is never ordered beyond its catalog reach under either rule. Placement prices links
with this same function (``planner.placement.objective``), so what it minimises is what the
cabling stage orders.
Paper mode (``catalog.optical_average_length_m``): optical links are priced at that one length
(Projective Networks Tables 4-6); their ordered length stays the real one.

On a floor with structured cabling the links that leave their row (``runs``, from
``planner.inputs.parts.structured.runs``) and that no copper assembly reaches are built through
patch panels and priced by ``planner.inputs.parts.structured.choose``: transceivers, cords, trunk
and panel shares, cheapest first. A copper assembly that reaches still runs point to point along the
same tray route (it cannot pass a panel, and it is far cheaper than two transceivers). A link that
no structured way lights (SR4 over the 4 panels between halls, with no single-mode parts) runs
point to point past the panels when an optical way lights it so (``_fewer_panels``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from planner.inputs.catalog import Catalog, CableModel, RouterModel
from planner.inputs import floor as floors
from planner.inputs.floor import routes
from planner.inputs.floor import COPPER_NS_PER_M, FIBRE_NS_PER_M, Floor
from planner.inputs.parts import budget, structured
from planner.run.errors import InputError


@dataclass(frozen=True)
class LinkParts:
    """The parts of every link: ``part`` indexes ``catalog.cables`` (the assembly, or the
    transceiver at the router end), ``fibre`` the fibre part (-1 for an assembly), ``nic_part``
    the transceiver at a NIC end (-1 otherwise); ordered length and price per link. A link
    through patch panels (``segments.structured``) has its A-end cord as ``fibre``, the sum of
    its pieces' stock lengths as ``order_length`` and its trunk and panel in ``segments``.

    Its optical channel (``planner.inputs.parts.budget``; NaN for copper and AOC assemblies):
    ``fibre_m`` installed, ``connections`` mated connections crossed, ``loss_db``, and the
    ``budget_db`` and ``reach_m`` of its transceivers; ``lit`` is False where no part of the
    catalog lights the link (its price is then infinite and its parts the cheapest that reach
    along the route)."""

    part: np.ndarray
    fibre: np.ndarray
    nic_part: np.ndarray
    order_length: np.ndarray
    price: np.ndarray
    lit: np.ndarray
    segments: structured.SegmentParts | None = None
    connections: np.ndarray | None = None
    fibre_m: np.ndarray | None = None
    loss_db: np.ndarray | None = None
    budget_db: np.ndarray | None = None
    reach_m: np.ndarray | None = None

    def with_channel(self, catalog: Catalog, floor: Floor, connections) -> "LinkParts":
        """These parts with their optical channel figures (``budget.channel``)."""
        fibre_m, loss, limit, reach = budget.channel(catalog, floor, self.part, self.fibre,
                                                     self.nic_part, self.order_length,
                                                     connections)
        return replace(self, connections=np.asarray(connections, dtype=np.int64),
                       fibre_m=fibre_m, loss_db=loss, budget_db=limit, reach_m=reach)


@dataclass(frozen=True)
class _Way:
    """One way to build a link: part (+ fibre, + NIC-end transceiver)."""

    part: int
    fibre: int = -1
    nic_part: int = -1


def _breakouts(catalog: Catalog, router: RouterModel | None) -> set[int]:
    return {router.breakout} if router is not None else {r.breakout for r in catalog.routers}


def ways(catalog: Catalog, router: RouterModel | None, endpoint: bool,
         shared: bool = False) -> list[_Way]:
    """Every way the catalog builds a network (or endpoint) link on ``router``'s cages; with
    ``shared`` only the parts whose cages may serve several peers (not a twin-port copper cable
    nor a single-connector module: ``CableModel.one_peer_per_cage``)."""
    splits = _breakouts(catalog, router)
    cables = catalog.cables
    out: list[_Way] = []
    for i, m in enumerate(cables):
        if shared and m.one_peer_per_cage:
            continue
        if m.is_assembly:
            if endpoint:
                fits = (m.split and m.links in splits) or (not m.split and m.links == 1
                                                              and 1 in splits)
            else:
                fits = not m.split and m.links in splits
            if fits:
                out.append(_Way(i))
        elif m.kind == "transceiver" and m.ports in splits:
            nic = -1
            if endpoint:
                nic = catalog.cable_index(m.nic_end) if m.nic_end else i
                if cables[nic].ports != 1:
                    continue                    # a NIC port takes a single-port module
            out += [_Way(i, f, nic) for f, fm in enumerate(cables)
                    if fm.kind == "fibre" and fm.fibre == m.fibre]
    return out


def _way_cost(catalog: Catalog, floor: Floor, way: _Way, lengths: np.ndarray,
              parallel: np.ndarray, endpoint: bool, price_at: float | None):
    """(order length, price per link, lit) of one way over all links: NaN / inf where it
    cannot serve the route; ``lit`` where its transceivers light the fibre ordered
    (``planner.inputs.parts.budget``; always for an assembly)."""
    cables = catalog.cables
    part = cables[way.part]
    cut = cables[way.fibre] if way.fibre >= 0 else part
    reach = min(cut.max_reach_m, part.max_reach_m)
    if way.nic_part >= 0:
        reach = min(reach, cables[way.nic_part].max_reach_m)
    order = cut.order_length(lengths)
    ok = ~np.isnan(order) & (lengths <= reach + 1e-9)
    order = np.where(ok, order, np.nan)
    if price_at is not None and cut.media == "optical":
        at = cut.order_length(price_at)
        paper = cut.price(at) if price_at <= reach + 1e-9 and np.isfinite(at) else np.inf
        unit = np.full(lengths.shape, paper)
    else:
        unit = np.full(lengths.shape, np.inf)
        unit[ok] = cut.price(order[ok])
    if part.is_assembly:
        k = part.links
        share = 1.0 / k if part.split else np.ceil(parallel / k) / parallel
        price = unit * share
        lit = ok
    else:
        ends = part.price(0.0) / part.ports
        ends = ends + (cables[way.nic_part].price(0.0) if endpoint else ends)
        price = unit + ends
        models = [part] + ([cables[way.nic_part]] if way.nic_part >= 0 else [])
        lit = ok & budget.lights(floor, models, order, 0)
    return order, np.where(ok & np.isfinite(price), price, np.inf), lit


def _choose(catalog: Catalog, floor: Floor, lengths: np.ndarray, same: np.ndarray,
            parallel: np.ndarray, router: RouterModel | None, endpoint: bool,
            media_kinds=("electrical", "optical"), strict: bool = True, names=None,
            shared: bool = False):
    """(part, fibre, NIC part, order length, price, lit) per link; with ``media_kinds`` =
    ``("electrical",)`` only copper is tried and links it cannot serve keep part -1. A link
    no part lights but one reaches along its route keeps the cheapest such way, unlit, at an
    infinite price (``budget.pick``); one that no optical part reaches is an InputError naming
    the longest such link (``names(i)``, when given, names link ``i``), or keeps part -1 when
    not ``strict``."""
    n = lengths.size
    part, fibre, nic = (np.full(n, -1, dtype=np.int64) for _ in range(3))
    order, price = np.full(n, np.nan), np.full(n, np.nan)
    lit = np.ones(n, dtype=bool)
    options = ways(catalog, router, endpoint, shared)
    for media in media_kinds:
        todo = (part < 0) & (same if media == "electrical" else True)
        group = [w for w in options if catalog.cables[w.part].media == media]
        if not todo.any():
            continue
        if not group:
            if media == "electrical" or not strict:
                continue
            raise InputError(f"catalog '{catalog.source}': {int(todo.sum())} "
                             f"{'endpoint' if endpoint else 'network'} links need an optical "
                             "cable but the catalog has none that fits the router's cages; add "
                             "an optical model")
        at = np.flatnonzero(todo)
        costs = [_way_cost(catalog, floor, w, lengths[at], parallel[at], endpoint,
                           catalog.optical_average_length_m) for w in group]
        prices = np.vstack([c[1] for c in costs])
        best, chosen, bright = budget.pick(prices, np.vstack([c[2] for c in costs]))
        cols = np.arange(at.size)
        found = np.isfinite(prices[best, cols])
        if media == "optical" and strict and not found.all():
            lost = at[~found]
            worst = int(lost[np.argmax(lengths[lost])])
            longest = max(catalog.optical_longest_m(catalog.cables[w.part]) for w in group)
            raise InputError(f"catalog '{catalog.source}': no optical cable reaches "
                             f"{lengths[worst]:.2f} m{budget.route_of(names, worst, 'route')} "
                             f"(longest available {longest:g} m)"
                             f"{budget.more_links(lost.size)}; add a longer optical model or "
                             "use a smaller floor")
        rows = at[found]
        pick = [group[b] for b in best[found]]
        part[rows] = [w.part for w in pick]
        fibre[rows] = [w.fibre for w in pick]
        nic[rows] = [w.nic_part for w in pick]
        order[rows] = np.vstack([c[0] for c in costs])[best[found], cols[found]]
        price[rows] = chosen[found]
        lit[rows] = bright[found]
    return part, fibre, nic, order, price, lit


def choose_parts(catalog: Catalog, floor: Floor, lengths_m, same_group, *,
                 router: RouterModel | None = None, endpoint=False, parallel=1,
                 runs: structured.Runs | None = None, names=None,
                 shared=False) -> LinkParts:
    """The parts of every link (see the module doc). ``same_group`` (both ends in one
    electrical group) only matters on ``membership`` floors; ``endpoint`` marks router-NIC links
    and ``parallel`` gives each link's number of parallel links between its router pair (arrays
    or scalars); ``runs`` the structured pieces of each link
    (``planner.inputs.parts.structured.runs``, with the same positions as the lengths), whose links
    that leave their row run through panels; ``names(i)`` what messages call link ``i`` (a
    cable and its devices, say) when no part reaches it (an InputError); ``shared`` marks the
    network links that must take a part whose cages serve several peers (``ways``), as the
    cabling stage asks for links that would leave a router short of cages."""
    lengths = np.asarray(lengths_m, dtype=float).ravel()
    if np.any(lengths < 0) or np.any(~np.isfinite(lengths)):
        raise ValueError("cable lengths must be finite and >= 0")
    same = np.broadcast_to(np.asarray(same_group, dtype=bool), lengths.shape)
    if floor.media_rule == "reach":
        same = np.ones(lengths.shape, dtype=bool)    # copper wherever a copper part reaches
    is_ep = np.broadcast_to(np.asarray(endpoint, dtype=bool), lengths.shape)
    par = np.broadcast_to(np.asarray(parallel, dtype=float), lengths.shape)
    only = np.broadcast_to(np.asarray(shared, dtype=bool), lengths.shape) & ~is_ep
    n = lengths.size
    out = ([np.full(n, -1, dtype=np.int64) for _ in range(3)]
           + [np.full(n, np.nan) for _ in range(2)] + [np.ones(n, dtype=bool)])
    through = (np.broadcast_to(runs.structured, lengths.shape) & ~is_ep if runs is not None
               else np.zeros(n, dtype=bool))
    for flag, alone in ((False, False), (True, False), (False, True)):
        rows = np.flatnonzero((is_ep == flag) & (only == alone) & ~through)
        if rows.size:
            got = _choose(catalog, floor, lengths[rows], same[rows], par[rows], router, flag,
                          names=budget.subset(names, rows), shared=alone)
            for column, values in zip(out, got):
                column[rows] = values
    if runs is None:
        return LinkParts(*out).with_channel(catalog, floor, np.zeros(n, dtype=np.int64))
    for alone in (False, True):                     # copper that reaches runs point to point
        rows = np.flatnonzero(through & (only == alone))
        if not rows.size:
            continue
        got = _choose(catalog, floor, lengths[rows], same[rows], par[rows], router, False,
                      media_kinds=("electrical",), shared=alone)
        copper = got[0] >= 0
        for column, values in zip(out, got):
            column[rows[copper]] = values[copper]
        through[rows[copper]] = False
    rows = np.flatnonzero(through)
    segments = structured.SegmentParts.empty(n)
    if rows.size:
        part, cord, order, price, lit, seg = structured.choose(
            catalog, floor, runs.take(rows), lengths[rows], router,
            names=budget.subset(names, rows))
        for column, values in zip(out, (part, cord, None, order, price, lit)):
            if values is not None:
                column[rows] = values
        for name in vars(seg):
            getattr(segments, name)[rows] = getattr(seg, name)
        _fewer_panels(catalog, floor, lengths, par, router, rows[~lit], out, segments)
    shaped = structured.shaped(runs, segments)
    connections = np.where(segments.structured, structured.connections(
        catalog, segments.panel, np.broadcast_to(shaped.cross_hall, (n,))), 0)
    return LinkParts(*out, segments=segments).with_channel(catalog, floor, connections)


def _fewer_panels(catalog, floor, lengths, parallel, router, rows, out, segments) -> None:
    """Links through panels that no part lights there: run them point to point (no panel)
    where an optical part lights them so, in place in ``out`` and ``segments``."""
    if not rows.size:
        return
    got = _choose(catalog, floor, lengths[rows], np.zeros(rows.size, dtype=bool),
                  parallel[rows], router, False, media_kinds=("optical",), strict=False)
    direct = (got[0] >= 0) & got[5]
    for column, values in zip(out, got):
        column[rows[direct]] = values[direct]
    blank = structured.SegmentParts.empty(1)
    for name, column in vars(segments).items():
        column[rows[direct]] = getattr(blank, name)[0]


@dataclass(frozen=True)
class RoutedLinks:
    """Cables between the cabinets of a layout: routed length to the millimetre (what
    ``cables.csv`` states), route kind (``routes.KINDS``), structured pieces (None off
    structured floors) and the parts ordered for them."""

    length: np.ndarray
    kind: np.ndarray
    runs: structured.Runs | None
    parts: LinkParts


def routed_parts(catalog: Catalog, floor: Floor, room, cabinet_hall, cabinet_row, cabinet_col,
                 a_cab, b_cab, same_group, *, router: RouterModel | None = None,
                 endpoint=False, parallel=1, names=None, shared=False,
                 tray=None) -> RoutedLinks:
    """Route every cable from cabinet ``a_cab[i]`` to ``b_cab[i]`` of a layout in ``room``
    (``routes.cable_routes``) and choose its parts (``choose_parts``; through the patch panels
    of a structured floor, ``structured.runs``). The cabling stage and placement's pricing of a
    layout both go through here, so what placement minimises is what the bill charges.
    ``names(i)`` is what a message calls cable ``i`` when no part reaches it; by default its
    two cabinets; ``shared`` as ``choose_parts``; ``tray`` (per cable, -1: the shortest) the
    cross tray a cable between two rows takes (``routes.tray_run_m``: a kept cable of a grown
    plan stays on its standing panels)."""
    if names is None:
        def names(i):
            cabinets = floors.cabinet_names(cabinet_hall, cabinet_row, cabinet_col)
            return f"the link from cabinet {cabinets[a_cab[i]]} to cabinet {cabinets[b_cab[i]]}"
    raw, kind = routes.cable_routes(room, cabinet_hall, cabinet_row, cabinet_col, a_cab, b_cab,
                                    tray)
    length = routes.millimetres(raw)
    pieces = None
    if floor.structured_cabling:
        hall, row, col = (np.asarray(v, dtype=np.int64) for v in (cabinet_hall, cabinet_row,
                                                                  cabinet_col))
        pieces = structured.runs(room, hall[a_cab], row[a_cab], col[a_cab], hall[b_cab],
                                 row[b_cab], col[b_cab], a_cab == b_cab,
                                 tray).in_millimetres(length)
    parts = choose_parts(catalog, floor, length, same_group, router=router, endpoint=endpoint,
                         parallel=parallel, runs=pieces, names=names, shared=shared)
    if pieces is not None:
        pieces = structured.shaped(pieces, parts.segments)
    return RoutedLinks(length=length, kind=kind, runs=pieces, parts=parts)


def choose_media(catalog: Catalog, floor: Floor, lengths_m, same_group, **options):
    """(part index, order length, price per link) arrays of ``choose_parts``."""
    parts = choose_parts(catalog, floor, lengths_m, same_group, **options)
    return parts.part, parts.order_length, parts.price


def media_of(catalog: Catalog, part_index) -> np.ndarray:
    """``"electrical"`` / ``"optical"`` per chosen part index."""
    names = np.array([m.media for m in catalog.cables], dtype=object)
    return names[np.asarray(part_index, dtype=np.int64)]


def end_watts(catalog: Catalog, parts: LinkParts) -> tuple[np.ndarray, np.ndarray]:
    """(a_watts, b_watts) per link: the power drawn at each end by its part (docs/models.md):
    an assembly's ``watts_per_end`` shared by the ``links`` it carries, a transceiver's module
    power shared by its ``ports`` at a router, the NIC-end module's power at a NIC."""
    per_end = np.array([end_share(m) for m in catalog.cables] + [0.0])
    a = per_end[parts.part]
    b = np.where(parts.nic_part >= 0, per_end[parts.nic_part], a)
    return a, b


def end_share(model: CableModel) -> float:
    if model.kind == "transceiver":
        return model.watts_per_end / model.ports
    return model.watts_per_end / model.links


def part_numbers(catalog: Catalog, parts: LinkParts) -> dict[str, np.ndarray]:
    """Per link: ``sku`` (the cable assembly's or the fibre's part number at its ordered
    length; through patch panels the A-end cord's), ``a_transceiver`` / ``b_transceiver`` (part numbers at the two ends, '' for an
    assembly)."""
    n = parts.part.size
    sku = np.empty(n, dtype=object)
    cut = np.where(parts.fibre >= 0, parts.fibre, parts.part)
    length = parts.order_length
    if parts.segments is not None:
        length = np.where(parts.segments.structured, parts.segments.cord_a, length)
    for i in np.unique(cut).tolist():
        rows = cut == i
        sku[rows] = catalog.cables[i].part_numbers_at(length[rows])
    names = np.array([m.sku if m.kind == "transceiver" else "" for m in catalog.cables] + [""],
                     dtype=object)
    optics = parts.fibre >= 0
    a = np.where(optics, names[parts.part], "")
    b = np.where(parts.nic_part >= 0, names[parts.nic_part], a)
    return {"sku": sku, "a_transceiver": a.astype(object), "b_transceiver": b.astype(object)}


def latency_ns(media, length_m):
    """Propagation delay: 4.5 ns/m over copper (NVIDIA MCP4Y10/MCP1650 specs), 4.9 ns/m over
    fibre (group index ≈ 1.47; docs/models.md). ``media`` is a string or an array of them."""
    length = np.asarray(length_m, dtype=float)
    copper = np.asarray(media) == "electrical"
    if not np.all(copper | (np.asarray(media) == "optical")):
        raise ValueError("media must be 'electrical' or 'optical'")
    out = np.where(copper, COPPER_NS_PER_M, FIBRE_NS_PER_M) * length
    return float(out) if out.ndim == 0 else out
