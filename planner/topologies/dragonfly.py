"""Dragonfly: g groups of a fully connected routers, h global links per router.

Kim, Dally, Scott, Abts, ISCA'08 §3; balanced a = 2p = 2h, g = a·h + 1 (Galaxyfly §2.2,
Projective Networks Table 3). Global arrangements: palmtree (Camarero's CAMINOS simulator,
caminos-lib ``src/topology/dragonfly.rs``), relative (consecutive) and absolute (Hastings et al.,
"Comparing Global Link Arrangements for Dragonfly Networks", IEEE Cluster 2015); each written
out in docs/topologies.md "Dragonfly".
"""

from __future__ import annotations

from math import gcd

import numpy as np

from planner.run.errors import InputError
from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, integer, size_limit

ARRANGEMENTS = ("palmtree", "relative", "absolute")


def resolve(a=None, p=None, h=None, g=None) -> tuple[int, int, int, int]:
    """(a, p, h, g) with balanced defaults a = 2p = 2h, g = a·h + 1 from whichever is given."""
    fam = "dragonfly"
    h = None if h is None else integer(fam, "h", h, minimum=1)
    p = None if p is None else endpoints_per_router(fam, p, 0)
    a = None if a is None else integer(fam, "a", a, minimum=1)
    if h is None and p is None and a is None:
        raise InputError("dragonfly: give at least one of 'h', 'p' or 'a' (balanced: a = 2p = 2h)")
    if h is None:
        h = p if p is not None else a // 2
    if p is None:
        p = max(h, 1) if a is None else max(a // 2, 1)
    if a is None:
        a = max(2 * h, 1)
    g = a * h + 1 if g is None else integer(fam, "g", g, minimum=1)
    if g > a * h + 1:
        raise InputError(f"dragonfly: parameter 'g'={g} exceeds a*h+1 = {a * h + 1} "
                         f"(each group has a*h = {a * h} global ports); use g <= {a * h + 1}")
    return a, p, h, g


def _round_targets(c: np.ndarray, grp: np.ndarray, g: int, arrangement: str):
    """Full round of g-1 ports: target group and the port index (in the round) at the target."""
    if arrangement == "relative":
        return (grp + c + 1) % g, g - 2 - c
    if arrangement == "palmtree":
        return (grp - (c + 1)) % g, g - 2 - c
    target = np.where(c < grp, c, c + 1)
    return target, np.where(grp < target, grp, grp - 1)


def _full_rounds(a: int, h: int, g: int, rounds: int, arrangement: str):
    """Ports 0..rounds·(g-1)-1 of every group, one link to every other group per round, wired
    by the arrangement (docs/topologies.md). Returns (group, port, target group, target port)
    of each link once."""
    grp, i = np.meshgrid(np.arange(g), np.arange(rounds * (g - 1)), indexing="ij")
    grp, i = grp.ravel(), i.ravel()
    rnd, c = np.divmod(i, g - 1)
    tgt, back = _round_targets(c, grp, g, arrangement)
    peer = rnd * (g - 1) + back
    keep = grp * a * h + i < tgt * a * h + peer
    return grp[keep], i[keep], tgt[keep], peer[keep]


def last_round_pairs(g: int, rem: int) -> np.ndarray:
    """Group pairs of the last round of rem < g-1 ports per group: a circulant graph whose
    offsets are the farthest from ±1 (the round before used ±1 on the same routers), plus
    offset g/2 (g even) or a matching of the largest free offset coprime to g (g odd) when
    rem is odd; with g and rem odd one group keeps a port free, as g·rem is odd."""
    grp = np.arange(g)
    top = (g - 1) // 2
    offsets = range(top - rem // 2 + 1, top + 1)
    pairs = [np.stack([grp, (grp + d) % g], 1) for d in offsets]
    if rem % 2 and g % 2 == 0:
        pairs.append(np.stack([grp[: g // 2], grp[: g // 2] + g // 2], 1))
    elif rem % 2:
        d = max(x for x in range(1, offsets.start) if gcd(x, g) == 1)
        cycle = (np.arange(g) * d) % g
        pairs.append(np.stack([cycle[0:g - 1:2], cycle[1:g:2]], 1))
    return np.concatenate(pairs)


def _cheapest_ports(cost: np.ndarray, busy: np.ndarray, ports: int) -> np.ndarray:
    """Distinct port for every target (column) at minimum total cost; ``cost`` has a row per
    port in ``busy`` (ports whose router already has global links), the other ports cost
    nothing anywhere and take the remaining targets in order."""
    slot = np.full(cost.shape[1], -1, dtype=np.int64)
    if len(busy):
        from scipy.optimize import linear_sum_assignment  # SciPy costs ~0.3 s to import

        rows, cols = linear_sum_assignment(cost)
        slot[cols] = busy[rows]
    open_cols = slot < 0
    slot[open_cols] = np.setdiff1d(np.arange(ports), slot)[: open_cols.sum()]
    return slot


def _last_round(h: int, g: int, first: int, rem: int, used: np.ndarray):
    """Deal each group's last-round links (``last_round_pairs``) to its ports first..first+rem-1
    so that a router's links to any one group are as few as possible: a minimum-cost
    assignment per group, the cost of a port-target pair being the links the port's router
    already has to that group (``used[group, router - first // h, target group]``)."""
    pairs = last_round_pairs(g, rem)
    own, other = np.concatenate([pairs[:, 0], pairs[:, 1]]), np.concatenate([pairs[:, 1],
                                                                              pairs[:, 0]])
    order = np.argsort(own, kind="stable")
    bounds = np.searchsorted(own[order], np.arange(g + 1))
    routers = (first + np.arange(rem)) // h - first // h
    linked = used.any(axis=2)
    port = np.empty(len(own), dtype=np.int64)
    for grp in range(g):
        ends = order[bounds[grp]:bounds[grp + 1]]
        busy = np.flatnonzero(linked[grp, routers])
        cost = used[grp, routers[busy]][:, other[ends]]
        port[ends] = first + _cheapest_ports(cost, busy, rem)
    return pairs[:, 0], port[: len(pairs)], pairs[:, 1], port[len(pairs):]


def global_links(a: int, h: int, g: int, arrangement: str) -> np.ndarray:
    """(L, 2) router pairs of the global links; router id = group*a + r, port i = r*h + j.

    Each group's a·h global ports are dealt out in rounds of g-1 (one link to every other group
    per round) following the arrangement (docs/topologies.md); for g < a·h+1 a group pair gets
    ⌊a·h/(g-1)⌋ or one more links, and the last, partial round is dealt so that the links
    between two groups sit on different routers wherever the port counts allow.
    """
    ports = a * h
    if g < 2 or ports == 0:
        return np.zeros((0, 2), dtype=np.int64)
    full, rem = divmod(ports, g - 1)
    gu, pu, gv, pv = _full_rounds(a, h, g, full, arrangement)
    if rem:
        first = full * (g - 1)
        lo = first // h  # routers lo..a-1 of every group have last-round ports
        used = np.zeros((g, a - lo, g), dtype=np.int64)
        for grp, port, tgt in ((gu, pu, gv), (gv, pv, gu)):
            sel = port // h >= lo
            np.add.at(used, (grp[sel], port[sel] // h - lo, tgt[sel]), 1)
        last = _last_round(h, g, first, rem, used)
        gu, pu, gv, pv = (np.concatenate([x, y]) for x, y in zip((gu, pu, gv, pv), last))
    return np.stack([gu * a + pu // h, gv * a + pv // h], axis=1)


def local_links(a: int, g: int) -> np.ndarray:
    """K_a inside every group."""
    r1, r2 = np.triu_indices(a, k=1)
    base = (np.arange(g) * a)[:, None]
    return np.stack([(base + r1).ravel(), (base + r2).ravel()], axis=1)


def group_shift(a: int, h: int, g: int, arrangement: str) -> tuple[np.ndarray, ...] | None:
    """The group shift, router (G, r) -> (G+1 mod g, r), as a claimed automorphism, where the
    construction is shift-invariant: in the palmtree and relative arrangements a full round
    links port i of group G to group G ∓ (c+1) at a port that depends on c only
    (``_round_targets``), and a last round of even size rem is the circulant of offsets
    ``last_round_pairs`` (no matching) dealt to ports by the same minimum-cost assignment on
    shifted cost matrices. Not for the absolute arrangement (its targets depend on G itself,
    Hastings et al. 2015), nor for an odd last round, whose matching is not shift-invariant.
    None where it is not claimed; ``planner.topologies.metrics`` checks it before use."""
    if g < 2 or arrangement == "absolute" or (a * h) % (g - 1) % 2:
        return None
    return ((np.arange(a * g) + a) % (a * g),)


def dragonfly(a=None, p=None, h=None, g=None, arrangement="palmtree") -> Topology:
    """Dragonfly (Kim et al. ISCA'08 §3.1): g groups × a routers, p endpoints, h global ports.

    Router radix k = p + a - 1 + h; routers a·g; endpoints p·a·g; local links g·a(a-1)/2;
    global links g(g-1)/2 when g = a·h+1 (docs/topologies.md). ``dragonfly(h=7)`` is the
    balanced a=14, p=7, g=99 of Projective Networks Table 4. A smaller g uses every global
    port: ⌊a·h/(g-1)⌋ or ⌈a·h/(g-1)⌉ links per group pair (``global_links``). Hint: groups.
    """
    a, p, h, g = resolve(a, p, h, g)
    size_limit("dragonfly", a * g, g * a * (a - 1) // 2 + g * a * h // 2, f"a={a},h={h},g={g}")
    if arrangement not in ARRANGEMENTS:
        raise InputError(f"dragonfly: parameter 'arrangement' must be one of "
                         f"{', '.join(ARRANGEMENTS)}, got {arrangement!r}")
    edges = np.concatenate([local_links(a, g), global_links(a, h, g, arrangement)])
    r = a * g
    return Topology.from_edges("dragonfly", {"a": a, "p": p, "h": h, "g": g,
                                             "arrangement": arrangement},
                               r, edges, p, groups=np.arange(r) // a, group_kind="group",
                               symmetries=group_shift(a, h, g, arrangement))
