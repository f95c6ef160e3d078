"""A standing system grown to a larger spec: who keeps which id, which links survive, the ports
every cable takes, and a proven lower bound on the standing cables any growth must touch.

Takes the standing network (its router-router cables with ports, its endpoints per router and
the family and parameters it was built with) and the new spec; hands on a ``Growth``: the new
``Topology`` with the standing routers first (standing router ``i`` keeps id ``i`` whenever it
survives, so its endpoints keep their ids too) and ``extra["network_ports"]``, the ports of
every network cable, which ``planner.cabling.assign_ports`` uses as given. A standing cable
whose two routers are still linked keeps both its ports; a new link takes first a port a
touched standing cable freed on its router (so that cable is re-plugged at one end instead of
being pulled and replaced), then the lowest port never used.

How each family grows (its own construction, not a rebuild):

- **Dragonfly** (Kim et al., ISCA'08) grows by groups: groups ``0..g-1`` keep their routers
  and local links; the new g gives each group pair ``M = ⌊a·h/(g'-1)⌋`` or one more global
  links (the pairs with one more chosen as the most standing pairs that have more than
  ⌊a·h/(g'-1)⌋ cables, a maximum b-matching, ``_extra_pairs``). Each standing group pair
  keeps up to that many of its global cables where they stand, the global ports this frees
  are dealt to the new group pairs (a port to a router with the fewest links to that group
  first).
- **Fat tree** (Al-Fares et al., SIGCOMM'08) grows by pods (``pods`` of ``planner.topologies.
  fattree``): every aggregation router's up-links go to the same cores whatever the pod
  count, so all standing cables stay.
- **Jellyfish** grows by the random swap of Singla et al., NSDI'12 §4.2: each new switch of
  r network ports breaks ⌊r/2⌋ random standing links (u, v) whose ends it is not yet linked
  to and links u and v to itself: r new links, ⌊r/2⌋ removed per added switch. The cable of
  (u, v) is re-plugged from v to the new switch (a move); (v, new) is a new cable.
- **HyperX** (Ahn et al., SC09) grows by a dimension or a larger dimension size: a standing
  router at coordinates (x_0..x_{d-1}) keeps them (0 in any new dimension) and all its links.
- **Rail-optimised and multi-plane fat trees** (``railfattree``, ``multiplane``) do not grow
  in place: every leaf joins every spine with m cables, m the largest divisor with
  leaves·m <= R, so more units (servers) lower m and re-plug standing leaf-spine cables, and
  past R/N units a rail fat tree gains a third tier. ``planner expand`` refuses them
  (``NOT_IN_PLACE``); the grown system is a new plan.
- **Other families** (Slim Fly and projective networks at a new q, ...) cannot grow without a
  rebuild: the new system is built from scratch, router ``i`` of the old stays router ``i``,
  and every standing cable between two routers still linked stays.

Lower bound (``Growth.lower_bound``) on the standing network cables any growth to the new spec
must touch (move or remove): the cables at a removed router, plus

- Dragonfly, over every relabelling that keeps groups as groups (growth by groups): the
  standing groups' global cables number ``G``. In the new system a group pair has
  ``F = ⌊a·h/(g'-1)⌋`` global links or one more, and a group is in at most
  ``r = a·h - (g'-1)·F`` pairs with one more (each takes one of its ports beyond the F per
  pair; all r of them, but one group r - 1 when g'·r is odd). The s = g' - g new groups are
  in s·r (less one when g'·r is odd) such pairs, and at most s·(s-1) of those ends lie in pairs
  of two new groups, so at least ``o = max(0, s·r - [g'·r odd] - s·(s-1))`` one-more pairs join
  a new group to a standing one, and the standing groups keep at most ``(g·r - o)/2`` of
  theirs among themselves. Among the ``g`` standing groups there are so at most
  ``C(g, 2)·F + min(C(g, 2), ⌊(g·r - o)/2⌋)`` global links, and at least ``G`` less that
  many standing global cables cannot stay. For a=16, h=8, g=72 -> 80 (F=1, r=49, s=8):
  o = 392 - 56 = 336, 4,608 - 2,556 - 1,596 = 456, against 288 without o.
- Jellyfish, for a growth in which every new switch links to standing switches only (the
  paper's expansion): the standing switches use all their ports, so each of the s·2⌊r/2⌋
  new-to-standing links needs a port a touched standing cable freed, and a touched cable frees
  two: at least s·⌊r/2⌋.
- Fat tree, HyperX: 0 (the construction touches none).
- Rebuilds: the standing cables beyond the new system's link count (a count argument; weak).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

import numpy as np
import scipy.sparse as sp

from planner.run.errors import InputError
from planner.topologies.base import Topology

NATIVE = {"dragonfly": "groups", "fattree": "pods", "jellyfish": "random swap (NSDI'12 §4.2)",
          "hyperx": "a dimension"}
"""Families that grow by their own construction, and what they grow by."""

NOT_IN_PLACE = {
    "railfattree": "its leaf-spine cables per pair and its tiers follow the unit count",
    "multiplane": "its leaf-spine cables per pair follow the server count",
}
"""Families ``planner expand`` refuses (module doc), and why."""


@dataclass(frozen=True)
class Standing:
    """The standing network: family and parameters it was built with, endpoints per router,
    and every router-router cable as (a_router, a_port, b_router, b_port)."""

    family: str
    params: dict
    endpoints: np.ndarray
    a_router: np.ndarray
    a_port: np.ndarray
    b_router: np.ndarray
    b_port: np.ndarray

    @property
    def num_routers(self) -> int:
        return len(self.endpoints)


@dataclass(frozen=True, eq=False)
class Growth:
    """The grown topology (standing routers first, ports in ``extra["network_ports"]``), the
    new id of every standing router (-1: removed), how it grew and the lower bound on the
    standing network cables any growth must touch."""

    topology: Topology
    old_to_new: np.ndarray
    how: str
    rebuild: bool
    lower_bound: int
    bound_kind: str
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------- families

def _dragonfly(old: Standing, new: Topology) -> tuple[np.ndarray, int, str]:
    """Grown Dragonfly links (module doc) and its lower bound on touched standing cables."""
    a, h = int(new.params["a"]), int(new.params["h"])
    g_old = old.num_routers // a
    g_new = int(new.params["g"])
    g_keep = min(g_old, g_new)
    r_new = a * g_new
    from planner.topologies.dragonfly import local_links
    ou, ov = _surviving_pairs(old, r_new)
    is_global = (ou // a) != (ov // a)
    gu, gv = ou[is_global], ov[is_global]
    ports = a * h
    full, rem = divmod(ports, g_new - 1) if g_new > 1 else (0, 0)
    need = np.full((g_new, g_new), full, dtype=np.int64)
    if rem:
        standing = np.zeros((g_new, g_new), dtype=np.int64)
        np.add.at(standing, (gu // a, gv // a), 1)
        for x, y in _extra_pairs(g_new, rem, standing + standing.T, full):
            need[x, y] += 1
            need[y, x] += 1
    np.fill_diagonal(need, 0)
    kept = []
    stubs = np.full(r_new, h, dtype=np.int64)          # free global ports per router
    links_to = np.zeros((r_new, g_new), dtype=np.int64)
    for u, v in zip(gu.tolist(), gv.tolist()):
        x, y = u // a, v // a
        if need[x, y] > 0:
            need[x, y] -= 1
            need[y, x] -= 1
            kept.append((u, v))
            stubs[u] -= 1
            stubs[v] -= 1
            links_to[u, y] += 1
            links_to[v, x] += 1
    dealt = []
    for x in range(g_new):
        for y in range(x + 1, g_new):
            for _ in range(int(need[x, y])):
                u = _stub(stubs, links_to, x, y, a)
                v = _stub(stubs, links_to, y, x, a)
                dealt.append((u, v))
    edges = np.concatenate([local_links(a, g_new), np.asarray(kept + dealt,
                                                              dtype=np.int64).reshape(-1, 2)])
    pairs = comb(g_keep, 2)
    fresh = g_new - g_keep
    odd = (g_new * rem) % 2
    outward = max(0, fresh * rem - odd - fresh * (fresh - 1))
    extra = min(pairs, (g_keep * rem - outward) // 2)
    bound = max(0, len(gu) - pairs * full - extra)
    return edges, bound, (f"standing global cables {len(gu)} - C({g_keep},2) x ⌊a·h/(g'-1)⌋ "
                          f"= {pairs} x {full} - min(C({g_keep},2), ⌊({g_keep} x {rem} - "
                          f"{outward})/2⌋) = {extra} (group relabellings; {outward} of the "
                          f"standing groups' one-more pairs go to the {fresh} new groups)")


def _extra_pairs(g: int, rem: int, standing: np.ndarray, full: int) -> list[tuple[int, int]]:
    """The group pairs that get one more global link than ``full`` (each group in ``rem`` of
    them, one group one fewer when g·rem is odd): first the most standing pairs that have more
    than ``full`` cables (one more of their cables then stays) with each standing group
    keeping room for its share of the new groups' pairs (``_most_pairs``), then the rest
    filled largest deficit first; the construction's own last round
    (``dragonfly.last_round_pairs``) when that fill does not close."""
    deficit = np.full(g, rem, dtype=np.int64)
    chosen: set[tuple[int, int]] = set()
    xs, ys = np.nonzero(np.triu(standing > full, 1))
    old = int(np.max(np.r_[xs, ys] + 1, initial=0))     # groups with standing pairs
    fresh = g - old                                     # the others need partners among them
    outward = max(0, fresh * rem - fresh * (fresh - 1))   # their ends at standing groups
    reserve = outward // max(old, 1) + (np.arange(g) < outward % max(old, 1))
    cap = np.where(np.arange(g) < old, np.maximum(0, rem - reserve), rem)
    for k in _most_pairs(xs, ys, cap).tolist():
        x, y = int(xs[k]), int(ys[k])
        chosen.add((x, y))
        deficit[x] -= 1
        deficit[y] -= 1
    while (deficit > 0).sum() >= 2:
        open_ = np.flatnonzero(deficit > 0)
        x = int(open_[np.lexsort((open_, -deficit[open_]))[0]])
        partners = [int(v) for v in open_[np.lexsort((open_, -deficit[open_]))]
                    if v != x and (min(x, v), max(x, v)) not in chosen][: int(deficit[x])]
        if not partners:
            break
        for v in partners:
            chosen.add((min(x, v), max(x, v)))
            deficit[x] -= 1
            deficit[v] -= 1
    if int(deficit.sum()) > (g * rem) % 2:
        from planner.topologies.dragonfly import last_round_pairs
        return [(int(x), int(y)) for x, y in last_round_pairs(g, rem)]
    return sorted(chosen)


def _most_pairs(xs: np.ndarray, ys: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """The most pairs (xs[k], ys[k]) with each group in at most ``cap`` of them: a maximum
    b-matching, solved exactly as an integer program (HiGHS through ``scipy.optimize.milp``;
    its LP relaxation is half-integral, so branch and bound closes fast). Indices into xs."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    if not len(xs):
        return np.zeros(0, dtype=np.int64)
    k = np.arange(len(xs))
    incidence = sp.csr_matrix((np.ones(2 * len(xs)), (np.r_[xs, ys], np.r_[k, k])),
                              shape=(len(cap), len(xs)))
    res = milp(-np.ones(len(xs)), integrality=np.ones(len(xs)), bounds=Bounds(0, 1),
               constraints=LinearConstraint(incidence, -np.inf, cap.astype(float)))
    if res.x is None:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(res.x > 0.5)


def _stub(stubs: np.ndarray, links_to: np.ndarray, group: int, target: int, a: int) -> int:
    """The router of ``group`` with a free global port and the fewest links to ``target``."""
    members = np.arange(group * a, (group + 1) * a)
    free = members[stubs[members] > 0]
    router = int(free[np.lexsort((free, links_to[free, target]))[0]])
    stubs[router] -= 1
    links_to[router, target] += 1
    return router


def _surviving_pairs(old: Standing, r_new: int) -> tuple[np.ndarray, np.ndarray]:
    u = np.minimum(old.a_router, old.b_router)
    v = np.maximum(old.a_router, old.b_router)
    keep = v < r_new
    return u[keep], v[keep]


def _jellyfish(old: Standing, new: Topology, seed: int) -> tuple[np.ndarray, int, str]:
    """Random-swap expansion (NSDI'12 §4.2) of the standing links to ``new.num_routers``."""
    r = int(new.params["degree"])
    half = r // 2
    rng = np.random.default_rng(seed)
    edges = [(int(u), int(v)) for u, v in zip(*_surviving_pairs(old, new.num_routers))]
    standing = list(range(len(edges)))                 # indices of unbroken standing links
    adj: dict[int, set[int]] = {}
    for u, v in edges:
        adj.setdefault(u, set()).add(v)
        adj.setdefault(v, set()).add(u)
    added = []
    for w in range(old.num_routers, new.num_routers):
        mine: set[int] = set()
        for _ in range(half):
            for _try in range(64 * len(standing) + 1):
                k = int(rng.integers(len(standing)))
                u, v = edges[standing[k]]
                if u not in mine and v not in mine:
                    break
            else:
                raise InputError(f"--topology jellyfish: no standing link is left to break for "
                                 f"new switch {w}; add fewer switches or raise the degree")
            standing[k] = standing[-1]
            standing.pop()
            adj[u].discard(v)
            adj[v].discard(u)
            mine.update((u, v))
            added += [(u, w), (v, w)]
    kept = [edges[k] for k in sorted(standing)]
    grown = np.asarray(kept + added, dtype=np.int64).reshape(-1, 2)
    s = new.num_routers - old.num_routers
    return grown, s * half, (f"{s} new switches x ⌊r/2⌋ = {half} (new switches link to "
                             "standing ones only)")


def _relabelled(new: Topology, image: np.ndarray) -> Topology:
    """``new`` with router ``image[i]`` renamed ``i`` for the standing routers and the others
    after them in their order."""
    rest = np.setdiff1d(np.arange(new.num_routers), image)
    order = np.r_[image, rest]                          # new position -> builder id
    rank = np.empty(new.num_routers, dtype=np.int64)
    rank[order] = np.arange(new.num_routers)
    edges = np.repeat(rank[new.links], new.multiplicity, axis=0)
    return Topology.from_edges(
        new.family, new.params, new.num_routers, edges, new.endpoints[order],
        roles=None if new.roles is None else [new.roles[i] for i in order],
        groups=None if new.groups is None else new.groups[order],
        group_kind=new.group_kind, extra=dict(new.extra))


def _fattree_image(old: Standing, new: Topology) -> np.ndarray:
    from planner.topologies.fattree import shape
    k = int(new.params["k"])
    per_pod = sum(shape(k))
    old_pods = int(old.params.get("pods", k))
    new_pods = int(new.params.get("pods", k))
    if old.params.get("levels", 3) != 3 or new.params.get("levels", 3) != 3:
        raise InputError("--topology fattree: only three-level fat trees grow by pods; give "
                         "levels=3")
    cores = np.arange(old.num_routers - old_pods * per_pod)
    pods = np.arange(min(old_pods, new_pods) * per_pod)
    return np.r_[pods, new_pods * per_pod + cores]


def _hyperx_image(old: Standing, new: Topology) -> np.ndarray:
    s_old, s_new = list(old.params["S"]), list(new.params["S"])
    if len(s_new) < len(s_old) or any(n < o for o, n in zip(s_old, s_new)):
        raise InputError(f"--topology hyperx: S={'x'.join(map(str, s_new))} does not contain "
                         f"the standing S={'x'.join(map(str, s_old))}; keep every dimension and "
                         "size and add dimensions at the end or grow sizes")
    coords = np.stack(np.unravel_index(np.arange(old.num_routers), s_old), axis=0)
    coords = np.r_[coords, np.zeros((len(s_new) - len(s_old), old.num_routers), np.int64)]
    return np.ravel_multi_index(tuple(coords), s_new)


# ----------------------------------------------------------------------------- the growth

def check_family(old: Standing, new: Topology, allow_remove: bool) -> None:
    """InputError for a new spec of another family, another router shape, or a shrink
    without ``allow_remove``."""
    if new.family != old.family:
        raise InputError(f"--topology: the standing plan is a {old.family}, the new spec a "
                         f"{new.family}; give a {old.family} spec (a change of family is a new "
                         "plan: 'planner plan')")
    if new.family in NOT_IN_PLACE:
        raise InputError(f"--topology {new.family}: a {new.family} does not grow in place "
                         f"({NOT_IN_PLACE[new.family]}); plan the grown system with "
                         "'planner plan'")
    for key in {"dragonfly": ("a", "p", "h"), "jellyfish": ("degree", "p"),
                "fattree": ("k", "p"), "hyperx": ("p",)}.get(new.family, ()):
        if str(new.params.get(key)) != str(old.params.get(key)):
            raise InputError(f"--topology {new.family}: parameter '{key}' is "
                             f"{new.params.get(key)} but the standing plan has "
                             f"{old.params.get(key)}; keep '{key}' (a {new.family} grows by "
                             f"{NATIVE[new.family]})")
    if not allow_remove and (new.num_routers < old.num_routers
                             or new.num_endpoints < int(old.endpoints.sum())):
        raise InputError(f"--topology: the new system has {new.num_routers} routers and "
                         f"{new.num_endpoints} endpoints, the standing one "
                         f"{old.num_routers} and {int(old.endpoints.sum())}: it shrinks; give "
                         "--allow-remove to remove routers and their cables")


def grow(old: Standing, new: Topology, radix: int, *, allow_remove: bool = False,
         seed: int = 0) -> Growth:
    """The grown system (module doc): topology with standing routers first and fixed ports."""
    check_family(old, new, allow_remove)
    rebuild = new.family not in NATIVE
    notes = []
    if new.family == "dragonfly":
        edges, bound, kind = _dragonfly(old, new)
        grown = Topology.from_edges(new.family, new.params, new.num_routers, edges,
                                    new.endpoints, groups=new.groups, group_kind=new.group_kind)
    elif new.family == "jellyfish":
        if new.num_routers < old.num_routers:
            raise InputError("--topology jellyfish: a Jellyfish grows by switches; removing "
                             "switches is not supported, give routers >= "
                             f"{old.num_routers}")
        edges, bound, kind = _jellyfish(old, new, seed)
        grown = Topology.from_edges(new.family, new.params, new.num_routers, edges,
                                    new.endpoints)
    elif new.family in ("fattree", "hyperx"):
        image = (_fattree_image if new.family == "fattree" else _hyperx_image)(old, new)
        grown = _relabelled(new, image)
        bound, kind = 0, "the construction keeps every standing link"
    else:
        grown = new
        notes.append(f"a {new.family} cannot grow without a rebuild: the new system is built "
                     "from scratch; standing cables between routers still linked stay")
        ou, ov = _surviving_pairs(old, new.num_routers)
        bound = max(0, len(ou) - new.num_links)
        kind = "standing cables beyond the new link count"
    survives = np.arange(old.num_routers) < grown.num_routers
    gone = int((~survives[old.a_router] | ~survives[old.b_router]).sum())
    if gone and not allow_remove:
        raise InputError(f"--topology: {gone} standing cables end at removed routers; give "
                         "--allow-remove to remove them")
    old_ep = np.asarray(old.endpoints)[survives]
    if np.any(grown.endpoints[: len(old_ep)] != old_ep):
        worst = int(np.flatnonzero(grown.endpoints[: len(old_ep)] != old_ep)[0])
        raise InputError(f"--topology: router {worst} carries {old_ep[worst]} endpoints in the "
                         f"standing plan and {grown.endpoints[worst]} in the new spec; keep the "
                         "endpoints per router")
    ports = network_ports(old, grown, radix)
    grown.extra["network_ports"] = ports
    old_to_new = np.where(survives, np.arange(old.num_routers), -1)
    return Growth(topology=grown, old_to_new=old_to_new,
                  how="rebuild" if rebuild else NATIVE[new.family], rebuild=rebuild,
                  lower_bound=int(bound) + gone, bound_kind=kind, notes=notes)


def network_ports(old: Standing, grown: Topology, radix: int) -> tuple[np.ndarray, np.ndarray]:
    """(a_port, b_port) of every network cable of ``grown`` in ``cabling.network_cables``
    order: a standing cable between the same routers keeps its ports; a new link takes first
    a port freed on its router, then the lowest port never used (module doc)."""
    mult = grown.multiplicity
    a = np.repeat(grown.links[:, 0], mult)
    b = np.repeat(grown.links[:, 1], mult)
    ep = grown.endpoints
    standing: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for u, pu, v, pv in zip(old.a_router.tolist(), old.a_port.tolist(),
                            old.b_router.tolist(), old.b_port.tolist()):
        key, ends = ((u, v), (pu, pv)) if u < v else ((v, u), (pv, pu))
        standing.setdefault(key, []).append(ends)
    for ends in standing.values():
        ends.sort()
    a_port = np.zeros(len(a), dtype=np.int64)
    b_port = np.zeros(len(a), dtype=np.int64)
    used: dict[int, set[int]] = {}
    open_ = []
    for i, (u, v) in enumerate(zip(a.tolist(), b.tolist())):
        ends = standing.get((u, v))
        if ends:
            a_port[i], b_port[i] = ends.pop(0)
            used.setdefault(u, set()).add(int(a_port[i]))
            used.setdefault(v, set()).add(int(b_port[i]))
        else:
            open_.append(i)
    freed: dict[int, list[int]] = {}
    for (u, v), ends in sorted(standing.items()):
        for pu, pv in ends:
            if u < grown.num_routers:
                freed.setdefault(u, []).append(pu)
            if v < grown.num_routers:
                freed.setdefault(v, []).append(pv)
    for ports in freed.values():
        ports.sort(reverse=True)
    for i in open_:
        a_port[i] = _take(int(a[i]), freed, used, int(ep[a[i]]), radix)
        b_port[i] = _take(int(b[i]), freed, used, int(ep[b[i]]), radix)
    return a_port, b_port


def _take(router: int, freed: dict, used: dict, endpoints: int, radix: int) -> int:
    mine = used.setdefault(router, set())
    spare = freed.get(router)
    while spare:
        port = spare.pop()
        if port not in mine:
            mine.add(port)
            return port
    port = endpoints + 1
    while port in mine or port in (freed.get(router) or ()):
        port += 1
    if port > radix:
        raise InputError(f"router {router} needs more than {radix} ports in the grown system; "
                         "choose a router model with more ports")
    mine.add(port)
    return port
