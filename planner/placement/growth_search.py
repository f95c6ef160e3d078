"""Local search over where the new routers of a growth stand, priced in cable dollars.

A *site* is a standing cabinet (its routers stay; new routers may fill its free router and
endpoint slots within its electrical group's limits, ``capacity``) or a free floor position (a
new cabinet once a router stands there). Only the links with a new router at one end or both
depend on the sites, so the search prices those: each link at the price per cable of the
cheapest part that serves its routed length under the floor's media rule
(``objective.CabinetPrices``, the table the placement stage's router search reads) times its
parallel cables. A standing cable re-plugged at one end to a new router (``Moved``: the
growth moves it wherever the new router stands, so its labour is the same everywhere) costs
nothing where its part stays, i.e. where the cheapest part of its new route prices as that of
its standing route from the same standing end, and the price of the part that replaces it
elsewhere: the search sees the part a position saves. From a start it takes, in rounds, every
improving

* move of one new router to the site where its links cost least (a standing cabinet with room,
  a new cabinet with room, or an empty position: a new cabinet opened; where moved cables are
  priced, only a router alone in its new cabinet, so that no router opens a cabinet, whose
  rack hardware, power and management ports the search does not price, to keep a part),
* swap of two new routers on different sites (the site a router prefers is full),
* move of all the routers of one new cabinet to an empty position,
* on membership floors, move of a cluster of new routers (grown from one by the router of
  its group with the most cables into it) into another group that holds routers and has room
  for them (its sites filled in order: standing cabinets, new cabinets, empty positions), so
  that a new Dragonfly group can join a standing group's free slots although no single router
  gains by moving alone,

first improvement, routers and cabinets in id order, until a round improves nothing or the
work budget is spent. On ``membership`` floors (the papers' layouts) every site belongs to an
electrical group (a free position to the group of its slot, a standing one's or a new one) and
a link is priced from the table of links inside one group or from that of links between two
(``cross``: optical, so the search lowers the links leaving groups first and their lengths
second, as the placement stage does); a move into any group keeps within its limits. Work is counted in evaluations (one router's links priced at one site),
never in seconds, so the result does not depend on the machine's load. Standing routers never
move; moves only lower the priced dollars.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.placement.objective import CabinetPrices
from planner.placement.tuning import GROWTH_SWAP_SITES

IMPROVEMENT = 1e-6
"""Least drop in dollars that counts as an improvement (below: rounding of float sums)."""
UNLIMITED = 1 << 40


@dataclass(eq=False)
class Sites:
    """Where new routers may stand: standing cabinets first, then free positions.

    hall, local: position of every site (``CabinetPrices.local``); router_room, endpoint_room:
    how many routers and endpoints each may still take; group: electrical group of a standing
    cabinet (-1 for a free position: a new cabinet's group is made for it; on membership floors
    the group of the position's slot); group_router_room, group_endpoint_room: what each group
    may still take. ``standing``: standing cabinets
    count (sites 0 .. standing - 1)."""

    hall: np.ndarray
    local: np.ndarray
    router_room: np.ndarray
    endpoint_room: np.ndarray
    group: np.ndarray
    group_router_room: np.ndarray
    group_endpoint_room: np.ndarray
    standing: int

    def __len__(self) -> int:
        return len(self.hall)


@dataclass(eq=False)
class Moved:
    """The standing cables the growth re-plugs at one end to a new router, one entry per cable:
    ``new`` the new router the re-plugged end goes to, ``standing`` the standing router whose
    end stays plugged, ``old_site`` the site (a standing cabinet) the re-plugged end leaves."""

    new: np.ndarray
    standing: np.ndarray
    old_site: np.ndarray

    @classmethod
    def none(cls) -> "Moved":
        empty = np.zeros(0, dtype=np.int64)
        return cls(new=empty, standing=empty, old_site=empty)

    def __len__(self) -> int:
        return len(self.new)


PART_KEPT = 1e-9
"""Largest difference in price per cable between a moved cable's new and standing routes at
which its part counts as kept (the same cheapest part prices the same)."""


@dataclass
class SearchResult:
    """Site of every new router after the search, the evaluations spent and the moves made of
    each kind."""

    site: np.ndarray
    evaluations: int
    moves: dict[str, int] = field(default_factory=dict)


class _State:
    """The assignment and the loads it puts on the sites and the standing groups."""

    def __init__(self, adjacency, first_new: int, endpoints, standing_site, start_site,
                 sites: Sites, prices: CabinetPrices, moved: Moved,
                 cross: CabinetPrices | None = None):
        self.adj = adjacency.tocsr()
        self.cross = cross
        order = np.argsort(np.asarray(moved.new, np.int64), kind="stable")
        self.moved_new = np.asarray(moved.new, np.int64)[order]
        self.moved_standing = np.asarray(moved.standing, np.int64)[order]
        self.moved_old = np.asarray(moved.old_site, np.int64)[order]
        self.moved_weight = (np.asarray(self.adj[self.moved_standing, self.moved_new]).ravel()
                             .astype(np.int64) if len(order) else np.zeros(0, np.int64))
        self.first = first_new
        self.ep = np.asarray(endpoints, dtype=np.int64)
        self.sites = sites
        self.prices = prices
        self.site = np.r_[np.asarray(standing_site, np.int64), np.asarray(start_site, np.int64)]
        new = np.arange(first_new, len(self.site))
        self.routers = np.bincount(self.site[new], minlength=len(sites))
        self.endpoints = np.bincount(self.site[new], weights=self.ep[new],
                                     minlength=len(sites)).astype(np.int64)
        groups = len(sites.group_router_room)
        g = sites.group[self.site[new]]
        mine = g >= 0
        self.g_routers = np.bincount(g[mine], minlength=groups)
        self.g_endpoints = np.bincount(g[mine], weights=self.ep[new][mine],
                                       minlength=groups).astype(np.int64)
        self.evaluations = 0

    def neighbours(self, v: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.adj.indptr[v], self.adj.indptr[v + 1]
        return self.adj.indices[lo:hi], self.adj.data[lo:hi].astype(np.int64)

    def per_cable(self, weights, site_a, site_b) -> np.ndarray:
        """Price per cable of links of ``weights`` parallel cables between the sites
        (broadcast): from the table of links between two groups where the sites' groups
        differ (membership floors, ``cross``)."""
        s = self.sites
        ends = (s.hall[site_a], s.local[site_a], s.hall[site_b], s.local[site_b])
        inside = self.prices.link_prices(weights, *ends)
        if self.cross is None:
            return inside
        same = s.group[site_a] == s.group[site_b]
        return np.where(same, inside, self.cross.link_prices(weights, *ends))

    def price(self, weights, site_a, site_b) -> np.ndarray:
        """Dollars of links of ``weights`` parallel cables between the sites (broadcast)."""
        return self.per_cable(weights, site_a, site_b) * weights

    def kept_parts(self, v: int, targets: np.ndarray) -> np.ndarray:
        """Dollars of the parts router v's moved cables keep with v at each target site: the
        price per cable of each one whose new route prices as its standing one (module doc)."""
        lo, hi = np.searchsorted(self.moved_new, [v, v + 1])
        if lo == hi:
            return np.zeros(len(targets))
        u, old, w = (self.moved_standing[lo:hi], self.moved_old[lo:hi],
                     self.moved_weight[lo:hi])
        at = self.site[u]
        before = self.per_cable(w, at, old)
        after = self.per_cable(w[None, :], at[None, :], targets[:, None])
        kept = np.isfinite(after) & (np.abs(after - before[None, :]) <= PART_KEPT)
        return np.where(kept, after, 0.0).sum(axis=1)

    def router_costs(self, v: int, targets: np.ndarray) -> np.ndarray:
        """Dollars of router v's links with v at each target site, the others where they are,
        less the parts its moved cables keep there."""
        nbr, w = self.neighbours(v)
        self.evaluations += len(targets)
        if not len(nbr):
            return np.zeros(len(targets))
        return (self.price(w[None, :], targets[:, None], self.site[nbr][None, :]).sum(axis=1)
                - self.kept_parts(v, targets))

    def links_cost(self, routers) -> float:
        """Dollars of every link with an end in ``routers`` (each link once), less the parts
        their moved cables keep."""
        members = set(int(r) for r in routers)
        total = 0.0
        for v in sorted(members):
            nbr, w = self.neighbours(v)
            once = np.array([u not in members or u > v for u in nbr.tolist()], dtype=bool)
            if once.any():
                total += float(self.price(w[once], self.site[v], self.site[nbr[once]]).sum())
            total -= float(self.kept_parts(v, self.site[v:v + 1])[0])
        self.evaluations += len(members)
        return total

    def fits(self, v: int, target: np.ndarray, leaving: int | None = None) -> np.ndarray:
        """Which target sites can take router v (``leaving``: a router that leaves them)."""
        s = self.sites
        r_add, e_add = 1, self.ep[v]
        r_sub = 0 if leaving is None else 1
        e_sub = 0 if leaving is None else self.ep[leaving]
        ok = ((self.routers[target] - r_sub + r_add <= s.router_room[target])
              & (self.endpoints[target] - e_sub + e_add <= s.endpoint_room[target]))
        g = s.group[target]
        own = s.group[self.site[v]]
        check = (g >= 0) & (g != own)
        gc = g[check]
        ok[check] &= ((self.g_routers[gc] - r_sub + r_add <= s.group_router_room[gc])
                      & (self.g_endpoints[gc] - e_sub + e_add <= s.group_endpoint_room[gc]))
        return ok

    def keeps_cabinet_count(self, v: int, targets: np.ndarray) -> np.ndarray:
        """Which targets router v may move to without opening one more cabinet: any but an
        empty free position, which only a router alone on a free position may take."""
        empty = (targets >= self.sites.standing) & (self.routers[targets] == 0)
        here = self.site[v]
        alone = here >= self.sites.standing and self.routers[here] == 1
        return ~empty | alone

    def group_takes(self, members, targets: np.ndarray) -> np.ndarray:
        """Which target sites' groups can take all of ``members`` (new routers leaving one
        site together) within their limits; a free position of no group always can."""
        s = self.sites
        g = s.group[targets]
        own = s.group[self.site[members[0]]]
        ok = np.ones(len(targets), dtype=bool)
        check = (g >= 0) & (g != own)
        gc = g[check]
        ok[check] = ((self.g_routers[gc] + len(members) <= s.group_router_room[gc])
                     & (self.g_endpoints[gc] + int(self.ep[members].sum())
                        <= s.group_endpoint_room[gc]))
        return ok

    def place(self, v: int, target: int) -> None:
        old = self.site[v]
        for site, sign in ((old, -1), (target, 1)):
            self.routers[site] += sign
            self.endpoints[site] += sign * self.ep[v]
            g = self.sites.group[site]
            if g >= 0:
                self.g_routers[g] += sign
                self.g_endpoints[g] += sign * self.ep[v]
        self.site[v] = target


def improve(adjacency, first_new: int, endpoints, standing_site, start_site, sites: Sites,
            prices: CabinetPrices, budget: int, moved: Moved | None = None,
            cross: CabinetPrices | None = None) -> SearchResult:
    """The search of the module doc from ``start_site`` (site of every new router), within
    ``budget`` evaluations. ``standing_site``: site of every standing router; ``moved``: the
    standing cables re-plugged to new routers, priced by their part (none by default: every
    link at its new part's price, and a router may open a cabinet); ``cross``: the prices of
    links between two electrical groups (membership floors; None: ``prices`` for all)."""
    state = _State(adjacency, first_new, endpoints, standing_site, start_site, sites, prices,
                   Moved.none() if moved is None else moved, cross)
    new = np.arange(first_new, len(state.site))
    steps = [("router", _move_routers), ("swap", _swap_routers), ("cabinet", _move_cabinets)]
    if cross is not None:
        steps.append(("group", _move_groups))
    moves = {kind: 0 for kind, _ in steps}
    all_sites = np.arange(len(sites))
    free = np.arange(sites.standing, len(sites))
    while True:
        gained = 0
        for kind, step in steps:
            done = step(state, new, all_sites, free, budget)
            moves[kind] += done
            gained += done
        if not gained or state.evaluations >= budget:
            break
    return SearchResult(site=state.site[first_new:].copy(), evaluations=state.evaluations,
                        moves=moves)


def _move_routers(state: _State, new, all_sites, free, budget: int) -> int:
    """One pass of single-router moves (module doc); the moves made."""
    made = 0
    for v in new.tolist():
        if state.evaluations + len(all_sites) > budget:
            break
        cost = state.router_costs(v, all_sites)
        here = state.site[v]
        delta = cost - cost[here]
        ok = state.fits(v, all_sites) & (all_sites != here) & (delta < -IMPROVEMENT)
        if len(state.moved_new):
            ok &= state.keeps_cabinet_count(v, all_sites)
        if ok.any():
            best = int(all_sites[ok][np.argmin(delta[ok])])
            state.place(v, best)
            made += 1
    return made


def _swap_routers(state: _State, new, all_sites, free, budget: int) -> int:
    """One pass of swaps: each new router with the new routers of the ``GROWTH_SWAP_SITES``
    full sites holding new routers that its links would cost least on (whether or not that
    is cheaper before the partner leaves); the swaps made."""
    made = 0
    for v in new.tolist():
        if state.evaluations + len(all_sites) > budget:
            break
        cost = state.router_costs(v, all_sites)
        here = state.site[v]
        delta = cost - cost[here]
        full = (~state.fits(v, all_sites) & (all_sites != here)
                & np.isin(all_sites, state.site[new]))
        wanted = all_sites[full][np.argsort(delta[full], kind="stable")][:GROWTH_SWAP_SITES]
        for t in wanted.tolist():
            partners = new[state.site[new] == t]
            done = False
            for u in partners.tolist():
                if state.evaluations + 4 > budget:
                    return made
                if not (state.fits(v, np.array([t]), leaving=u)[0]
                        and state.fits(u, np.array([here]), leaving=v)[0]):
                    continue
                before = state.links_cost((v, u))
                state.site[v], state.site[u] = t, here
                after = state.links_cost((v, u))
                state.site[v], state.site[u] = here, t
                if after < before - IMPROVEMENT:
                    state.place(v, t)
                    state.place(u, here)
                    made += 1
                    done = True
                    break
            if done:
                break
    return made


def _move_cabinets(state: _State, new, all_sites, free, budget: int) -> int:
    """One pass of whole new cabinets moved to an empty free position; the moves made."""
    made = 0
    for s in free.tolist():
        members = new[state.site[new] == s]
        if not len(members):
            continue
        empty = free[state.routers[free] == 0]
        empty = empty[state.group_takes(members, empty)]
        if not len(empty) or state.evaluations + len(members) * len(empty) > budget:
            continue
        targets = np.r_[s, empty]
        cost = np.zeros(len(targets))
        inside = set(members.tolist())
        for v in members.tolist():
            nbr, w = state.neighbours(v)
            out = np.array([u not in inside for u in nbr.tolist()], dtype=bool)
            if out.any():
                cost += state.price(w[out][None, :], targets[:, None],
                                    state.site[nbr[out]][None, :]).sum(axis=1)
            within = ~out & (nbr > v)
            if within.any():
                cost += state.price(w[within][None, :], targets[:, None],
                                    targets[:, None]).sum(axis=1)
            cost -= state.kept_parts(v, targets)
        state.evaluations += len(members) * len(empty)
        delta = cost[1:] - cost[0]
        if delta.min(initial=0.0) < -IMPROVEMENT:
            target = int(empty[int(np.argmin(delta))])
            for v in members.tolist():
                state.place(v, target)
            made += 1
    return made


def _group_seats(state: _State, members: np.ndarray, seats: np.ndarray) -> np.ndarray | None:
    """Site of each of ``members`` (in id order) filling ``seats`` (the target group's sites,
    in fill order) within their router and endpoint room; None when they do not fit."""
    s = state.sites
    routers = state.routers[seats].copy()
    endpoints = state.endpoints[seats].copy()
    out = np.empty(len(members), dtype=np.int64)
    k = 0
    for i, v in enumerate(members.tolist()):
        e = state.ep[v]
        while k < len(seats) and (routers[k] + 1 > s.router_room[seats[k]]
                                  or endpoints[k] + e > s.endpoint_room[seats[k]]):
            k += 1
        if k == len(seats):
            return None
        out[i] = seats[k]
        routers[k] += 1
        endpoints[k] += e
    return out


def _try_into(state: _State, members: np.ndarray, t: int):
    """(gain, seats) of moving ``members`` (new routers) into group ``t``: the drop in their
    links' dollars and the site of each (``_group_seats``, the group's sites in the order
    standing cabinets, new cabinets, empty positions); None when they do not fit, or open
    more cabinets than they empty where moved cables are priced."""
    s = state.sites
    if (state.g_routers[t] + len(members) > s.group_router_room[t]
            or state.g_endpoints[t] + int(state.ep[members].sum()) > s.group_endpoint_room[t]):
        return None
    sites = np.flatnonzero(s.group == t)
    empty = (sites >= s.standing) & (state.routers[sites] == 0)
    order = np.argsort((sites >= s.standing).astype(int) + empty, kind="stable")
    seats = _group_seats(state, members, sites[order])
    if seats is None:
        return None
    here = state.site[members].copy()
    if len(state.moved_new):             # no new cabinet where moved cables are priced
        left = np.bincount(here[here >= s.standing], minlength=len(s))
        closed = int(np.sum((left > 0) & (left == state.routers)))
        opened = len(np.unique(seats[(seats >= s.standing) & (state.routers[seats] == 0)]))
        if opened > closed:
            return None
    before = state.links_cost(members)
    state.site[members] = seats
    after = state.links_cost(members)
    state.site[members] = here
    return before - after, seats


def _move_groups(state: _State, new, all_sites, free, budget: int) -> int:
    """One pass of clusters of new routers moved into another electrical group that holds
    routers (membership floors; module doc): from each new router in id order, its cluster
    grows by the new router of its own group with the most cables into it (lowest id first)
    up to the room of the target group, and the prefix that lowers the dollars most moves;
    a whole new group is one such cluster. The moves made."""
    s = state.sites
    made = 0
    for v in new.tolist():
        g = int(s.group[state.site[v]])
        occupied = (state.routers > 0) | (np.arange(len(s)) < s.standing)
        targets = [t for t in np.unique(s.group[occupied]).tolist()
                   if t >= 0 and t != g and state.g_routers[t] < s.group_router_room[t]]
        mine = new[s.group[state.site[new]] == g]
        best = None
        for t in targets:
            room = int(s.group_router_room[t] - state.g_routers[t])
            cluster = _cluster(state, v, mine, room)
            for k in range(1, len(cluster) + 1):
                if state.evaluations + 2 * k > budget:
                    return made
                tried = _try_into(state, cluster[:k], t)
                if tried is not None and tried[0] > IMPROVEMENT and (
                        best is None or tried[0] > best[0] + IMPROVEMENT):
                    best = (tried[0], cluster[:k], tried[1])
        if best is not None:
            for u, site in zip(best[1].tolist(), best[2].tolist()):
                state.place(u, site)
            made += 1
    return made


def _cluster(state: _State, v: int, mine: np.ndarray, size: int) -> np.ndarray:
    """Up to ``size`` new routers from ``v``: each next the one of ``mine`` with the most
    cables into those taken (lowest id on ties)."""
    pool = set(mine.tolist()) - {v}
    order, pull = [v], {}
    while len(order) < size and pool:
        nbr, w = state.neighbours(order[-1])
        for u, c in zip(nbr.tolist(), w.tolist()):
            if u in pool:
                pull[u] = pull.get(u, 0) + c
        if not pull:
            break
        u = min(pull, key=lambda x: (-pull[x], x))
        order.append(u)
        pool.discard(u)
        del pull[u]
    return np.asarray(order, dtype=np.int64)


def new_link_lower_bound(adjacency, first_new: int, standing_site, sites: Sites,
                         prices: CabinetPrices, moved: Moved | None = None) -> float:
    """Least dollars the links with a new router can cost in any placement: a link to a
    standing router at its cheapest price from that router's cabinet to any position of the
    table (a new router could stand at any), a link between two new routers at its cheapest
    price between any two positions, a moved cable (``moved``) at nothing (its part may stay).
    Counting (no search), so valid whatever the capacities."""
    adj = adjacency.tocsr()
    coo = adj[first_new:].tocoo()
    v, u, w = first_new + coo.row, coo.col, coo.data.astype(np.int64)
    cls = prices.class_of(w)
    total = 0.0
    both_new = u >= first_new
    cheapest = prices.price.reshape(len(prices.classes), -1).min(axis=1)
    keep = both_new & (u > v)                      # each new-new link once
    total += float((cheapest[cls[keep]] * w[keep]).sum())
    standing = ~both_new
    if standing.any():
        at = np.asarray(standing_site, np.int64)[u[standing]]
        local = sites.local[at]
        # cheapest over every hall link and every position, towards the standing cabinet
        by_end = prices.price.min(axis=(1, 2))     # (classes, positions)
        total += float((by_end[cls[standing], local] * w[standing]).sum())
        if moved is not None and len(moved):
            u = np.asarray(moved.standing, np.int64)
            mw = np.asarray(adj[u, np.asarray(moved.new, np.int64)]).ravel().astype(np.int64)
            total -= float(by_end[prices.class_of(mw),
                                  sites.local[np.asarray(standing_site, np.int64)[u]]].sum())
    return total
