"""``planner size``: per family, the feasible configurations nearest a target endpoint count
for a switch of a given radix, from closed-form counts (no graph is built). ``estimate`` gives
the same counts for one ``family:k=v,...`` configuration, so ``planner plan`` can refuse a plan
beyond its size budget before building anything (``planner.run.guards``).

Every option puts on each router the endpoints of its family's balance rule (Slim Fly p =
⌈k'/2⌉, Besta & Hoefler SC14; Dragonfly a = 2p = 2h, Kim et al. ISCA'08; fat tree k/2; OFT q+1
and MLFM h, Kathareios et al. SC15; HyperX p = min(S), Kim et al. ISCA'07; demi-PN (q+1)/2 and
PN the Δ0 of Projective Networks eq. 1 (about 2(q+1)/5); Galaxyfly p = h; Jellyfish a quarter
of the ports, as the Slim Fly case study's random rows; torus and hypercube one; the GPU
fabrics count NICs, servers of ``tuning.GPU_NICS`` NICs: rail-optimised units of ⌊R/2⌋ servers
(NVIDIA DGX SuperPOD), as many planes as NICs, Dragonfly+ ⌈R/2⌉ per leaf), so the size
of the network, not an oversubscribed router, decides how many switch ports are used. Options
are ranked so that, among those within ``SIZE_TOLERANCE`` of the target, the one leaving the
fewest switch ports free comes first ("switches filled"); ``like_for_like`` picks one per
family for ``planner compare`` and names the families that cannot be sized sanely for that
switch.

Counts follow the constructions and equal what the builders produce (tests/test_topologies.py
checks that). Ports per endpoint = radix·routers / endpoints (router ports bought), links per
endpoint = (router-router links + endpoints) / endpoints, as in Kathareios et al. SC15
Table 1 / Fig. 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

import numpy as np

from planner.run import guards
from planner.run.errors import InputError
from planner.topologies import canonical_family, split_params
from planner.topologies.gf import prime_powers
from planner.topologies.checks import endpoints_per_router, int_list, integer, prime_power_q
from planner.topologies.dragonfly import resolve as dragonfly_resolve
from planner.topologies.dragonflyplus import global_cables as dfplus_global_cables
from planner.topologies.dragonflyplus import resolve as dfplus_resolve
from planner.topologies.multiplane import counts as multiplane_counts
from planner.topologies.multiplane import resolve as multiplane_resolve
from planner.topologies.railfattree import Shape as RailShape
from planner.topologies.railfattree import shape as rail_shape
from planner.topologies.fattree import shape as fattree_shape
from planner.topologies.galaxyfly import supernode_links
from planner.topologies.projective import plane_size, pn_default_p
from planner.topologies.slimfly import default_p as sf_default_p
from planner.topologies.slimfly import network_degree
from planner.topologies.tuning import (GPU_NICS, MAX_ENDPOINTS, MAX_LINKS, MAX_RADIX,
                                       MAX_ROUTERS, MIN_PORTS_USED, SIZE_TOLERANCE)




@dataclass(frozen=True)
class SizeOption:
    """One buildable configuration: ``build(family, **params)`` gives these counts."""

    family: str
    params: dict[str, Any]
    endpoints: int
    routers: int
    radix: int
    links: int
    notes: str = field(default="", compare=False)
    switch_radix: int = field(default=0, compare=False)

    @property
    def ports_free(self) -> int:
        """Ports per router left free on the chosen switch (0 without a switch radix)."""
        return max(0, self.switch_radix - self.radix) if self.switch_radix else 0

    @property
    def ports_used_fraction(self) -> float:
        return self.radix / self.switch_radix if self.switch_radix else 1.0

    @property
    def ports_per_endpoint(self) -> float:
        return self.radix * self.routers / self.endpoints

    @property
    def links_per_endpoint(self) -> float:
        return (self.links + self.endpoints) / self.endpoints

    def spec(self) -> str:
        """'family:k=v,...' that ``parse_spec`` builds."""
        text = ",".join(f"{k}={'x'.join(map(str, v)) if isinstance(v, list) else v}"
                        for k, v in self.params.items())
        return f"{self.family}:{text}"

    def as_dict(self) -> dict[str, Any]:
        return {"family": self.family, "params": self.params, "spec": self.spec(),
                "endpoints": self.endpoints, "routers": self.routers, "radix": self.radix,
                "links": self.links, "ports_per_endpoint": round(self.ports_per_endpoint, 4),
                "links_per_endpoint": round(self.links_per_endpoint, 4),
                "switch_radix": self.switch_radix, "ports_used": self.radix,
                "ports_free": self.ports_free, "notes": self.notes}


def slimfly_options(n: int, radix: int) -> Iterator[SizeOption]:
    for q in prime_powers(3, radix):
        k = network_degree(q)
        p = sf_default_p(q)
        r = 2 * q * q
        yield SizeOption("slimfly", {"q": q, "p": p}, r * p, r, k + p, r * k // 2)


def dragonfly_links(a: int, h: int, g: int) -> int:
    """Local g·a(a-1)/2 plus global ⌊g·a·h/2⌋ (every global port used; one stays free when
    g·a·h is odd), as dealt by dragonfly.global_links."""
    if g < 2:
        return g * a * (a - 1) // 2
    return g * a * (a - 1) // 2 + g * a * h // 2


def dragonfly_options(n: int, radix: int) -> Iterator[SizeOption]:
    h = 1
    while 4 * h - 1 <= radix:
        a, p = 2 * h, h
        g_max = a * h + 1
        for g in sorted({g_max, min(g_max, max(2, math.ceil(n / (a * p))))}):
            yield SizeOption("dragonfly", {"a": a, "p": p, "h": h, "g": g}, a * g * p, a * g,
                             p + a - 1 + h, dragonfly_links(a, h, g),
                             "" if g == g_max else "fewer groups than the balanced maximum")
        h += 1


def fattree_options(n: int, radix: int) -> Iterator[SizeOption]:
    for k in range(2, radix + 1):
        e, a = fattree_shape(k)
        yield SizeOption("fattree", {"k": k, "levels": 3}, k ** 3 // 4, k * k + a * e, k,
                         k * k * a)
        yield SizeOption("fattree", {"k": k, "levels": 2}, k * e, k + a, k, k * a)


def hyperx_options(n: int, radix: int) -> Iterator[SizeOption]:
    for d in (2, 3):
        s = 2
        while d * (s - 1) + s <= radix:
            r = s ** d
            yield SizeOption("hyperx", {"S": [s] * d, "p": s}, r * s, r, s + d * (s - 1),
                             r * d * (s - 1) // 2)
            s += 1


def oft_options(n: int, radix: int) -> Iterator[SizeOption]:
    for q in prime_powers(2, radix):
        if 2 * (q + 1) <= radix:
            pts = plane_size(q)
            yield SizeOption("oft", {"q": q, "p": q + 1}, 2 * (q + 1) * pts, 3 * pts,
                             2 * (q + 1), 2 * (q + 1) * pts)


def mlfm_options(n: int, radix: int) -> Iterator[SizeOption]:
    for h in range(1, radix // 2 + 1):
        yield SizeOption("mlfm", {"h": h, "p": h}, h * h * (h + 1), 3 * h * (h + 1) // 2,
                         2 * h, h * h * (h + 1))


def pn_options(n: int, radix: int) -> Iterator[SizeOption]:
    for q in prime_powers(2, radix):
        p = pn_default_p(q)
        pts = plane_size(q)
        yield SizeOption("pn", {"q": q, "p": p}, 2 * pts * p, 2 * pts, q + 1 + p, (q + 1) * pts)


def demipn_options(n: int, radix: int) -> Iterator[SizeOption]:
    for q in prime_powers(2, radix):
        p = (q + 1) // 2
        pts = plane_size(q)
        yield SizeOption("demipn", {"q": q, "p": p}, pts * p, pts, q + 1 + p,
                         q * (q + 1) ** 2 // 2)


def galaxyfly_options(n: int, radix: int) -> Iterator[SizeOption]:
    """Supernodes of a <= 12 routers, q = 1 or a prime power, the fewest global ports per
    router that carry the Galaxy graph (h = ⌈(h_g + h_s)/a⌉, as Galaxyfly Table 3's rows) and
    p = h; per (q, a) the cluster count n nearest the target."""
    for q in [1] + prime_powers(3, 4 * radix):
        h_s = supernode_links(q)
        for a in range(1, min(12, radix) + 1):
            h_max = (radix - a + 1) // 2
            clusters = np.arange(1 if q > 1 else 2, a * h_max - h_s + 2)
            if not len(clusters) or (q == 1 and a == 1):
                continue
            h = np.maximum(1, -(-(clusters - 1 + h_s) // a))
            total = clusters * q * a * h
            best = int(np.argmin(np.abs(total - n)))
            for i in sorted({best, max(best - 1, 0), min(best + 1, len(clusters) - 1)}):
                c, hh = int(clusters[i]), int(h[i])
                sn = c * q
                links = sn * a * (a - 1) // 2 + sn * h_s // 2 + c * (c - 1) // 2 * q
                yield SizeOption("galaxyfly", {"n": c, "q": q, "a": a, "h": hh, "p": hh},
                                 sn * a * hh, sn * a, 2 * hh + a - 1, links)


def jellyfish_options(n: int, radix: int) -> Iterator[SizeOption]:
    """p = radix // 4 (the Slim Fly case study's random rows: radix 28, p = 7), the rest
    network ports."""
    p = max(1, radix // 4)
    degree = radix - p
    if degree >= 1:
        routers = min(max(degree + 1, math.ceil(n / p)), MAX_ROUTERS)
        yield SizeOption("jellyfish", {"routers": routers, "degree": degree, "p": p, "seed": 0},
                         routers * p, routers, radix, routers * degree // 2,
                         "random; any router count works")


def torus_options(n: int, radix: int) -> Iterator[SizeOption]:
    """3-D k-ary torus, one endpoint per router."""
    if radix < 7:
        return
    largest = int(MAX_ROUTERS ** (1 / 3))
    base = min(max(3, round(n ** (1 / 3))), largest)
    for k in range(max(3, base - 1), min(base + 2, largest + 1)):
        yield SizeOption("torus", {"dims": [k, k, k], "p": 1}, k ** 3, k ** 3, 7, 3 * k ** 3)


def hypercube_options(n: int, radix: int) -> Iterator[SizeOption]:
    for d in range(1, min(radix - 1, 24) + 1):
        yield SizeOption("hypercube", {"d": d, "p": 1}, 2 ** d, 2 ** d, d + 1, d * 2 ** (d - 1))


def _rail_option(shape: RailShape, note: str = "") -> SizeOption:
    return SizeOption("railfattree", shape.params(), shape.endpoints, shape.routers,
                      shape.ports_used, shape.links, note)


def railfattree_options(n: int, radix: int) -> Iterator[SizeOption]:
    """Servers of ``GPU_NICS`` NICs in units of ⌊R/2⌋ servers (a non-blocking leaf filled, as
    SuperPOD's 32 servers on 64 ports), the unit counts nearest n NICs."""
    servers = radix // 2
    per_unit = servers * GPU_NICS
    most = max(1, radix // GPU_NICS * (radix // 2))        # three tiers' limit
    for units in sorted({min(most, max(1, n // per_unit)), min(most, max(1, -(-n // per_unit)))}):
        try:
            yield _rail_option(rail_shape(units, servers, GPU_NICS, radix),
                               f"servers of {GPU_NICS} NICs, one rail leaf per NIC")
        except InputError:          # beyond three tiers of this radix
            continue


def multiplane_options(n: int, radix: int) -> Iterator[SizeOption]:
    """``GPU_NICS`` planes (one per NIC of a server), the servers nearest n / planes, at most a
    full plane each."""
    full = radix * (radix - radix // 2)
    for servers in sorted({min(full, max(1, -(-n // GPU_NICS))), full}):
        routers, nics, links, ports = multiplane_counts(GPU_NICS, radix, servers)
        yield SizeOption("multiplane", {"planes": GPU_NICS, "radix": radix,
                                        "endpoints": servers}, nics, routers, ports, links,
                         "" if servers == full else "planes not full")


def dragonflyplus_options(n: int, radix: int) -> Iterator[SizeOption]:
    """Every switch radix r <= R; per r the most groups and the groups nearest n endpoints."""
    for r in range(4, radix + 1):
        a, h, g_max, _ = dfplus_resolve(r)
        for g in sorted({g_max, min(g_max, max(2, -(-n // (a * h))))}):
            yield SizeOption("dragonflyplus", {"radix": r, "g": g}, g * a * h, 2 * a * g, r,
                             g * a * a + dfplus_global_cables(a, h, g),
                             "" if g == g_max else "fewer groups than the maximum")


OPTIONS: dict[str, Callable[[int, int], Iterator[SizeOption]]] = {
    "slimfly": slimfly_options, "dragonfly": dragonfly_options, "fattree": fattree_options,
    "hyperx": hyperx_options, "oft": oft_options, "mlfm": mlfm_options, "pn": pn_options,
    "demipn": demipn_options, "galaxyfly": galaxyfly_options, "jellyfish": jellyfish_options,
    "torus": torus_options, "hypercube": hypercube_options,
    "railfattree": railfattree_options, "multiplane": multiplane_options,
    "dragonflyplus": dragonflyplus_options,
}


def rank(option: SizeOption, endpoints: int) -> tuple:
    """Sort key: options within ``SIZE_TOLERANCE`` of the target first, those by fewest free
    switch ports (then nearest); the others by distance to the target. Ties: fewer routers,
    then lower radix."""
    gap = abs(option.endpoints - endpoints)
    if gap <= SIZE_TOLERANCE * endpoints:
        return (0, option.ports_free, gap, option.routers, option.radix)
    return (1, gap, 0, option.routers, option.radix)


def nearest(endpoints: int, max_radix: int, families: list[str] | None = None,
            count: int = 3) -> dict[str, list[SizeOption]]:
    """Per family (registry order), up to ``count`` configurations with radix <= max_radix
    (the switch) that the builders accept (tuning.MAX_ROUTERS, MAX_LINKS), best first by
    ``rank``. Families without a feasible configuration map to an empty list."""
    if not 1 <= endpoints <= MAX_ENDPOINTS:
        raise InputError(f"--endpoints must be a positive integer up to {MAX_ENDPOINTS:,}, "
                         f"got {endpoints}")
    if not 2 <= max_radix <= MAX_RADIX:
        raise InputError(f"--max-radix must be an integer between 2 and {MAX_RADIX}, "
                         f"got {max_radix}")
    if count < 1:
        raise InputError(f"--count must be a positive integer, got {count}")
    names = list(OPTIONS) if not families else list(dict.fromkeys(canonical_family(f)
                                                                  for f in families))
    result: dict[str, list[SizeOption]] = {}
    for name in names:
        options = [replace(o, switch_radix=max_radix) for o in OPTIONS[name](endpoints, max_radix)
                   if o.radix <= max_radix and o.routers <= MAX_ROUTERS and o.links <= MAX_LINKS]
        unique = {o.spec(): o for o in options}
        result[name] = sorted(unique.values(), key=lambda o: rank(o, endpoints))[:count]
    return result


def like_for_like(endpoints: int, switch_radix: int, families: list[str] | None = None
                  ) -> tuple[list[SizeOption], list[tuple[str, str]]]:
    """One configuration per family for a like-for-like comparison at ``endpoints`` on
    ``switch_radix``-port routers, and (family, reason) for the families left out: no
    configuration fits the switch, the nearest is more than ``SIZE_TOLERANCE`` off the
    target, or it uses under ``MIN_PORTS_USED`` of the switch's ports."""
    chosen, excluded = [], []
    for family, options in nearest(endpoints, switch_radix, families, count=1).items():
        if not options:
            excluded.append((family, f"no configuration fits {switch_radix}-port routers"))
            continue
        best = options[0]
        off = (best.endpoints - endpoints) / endpoints
        if abs(off) > SIZE_TOLERANCE:
            excluded.append((family, f"its nearest configuration at balanced endpoints per "
                                     f"router ({best.spec()}) has {best.endpoints:,} endpoints, "
                                     f"{off:+.0%} off the target"))
        elif best.ports_used_fraction < MIN_PORTS_USED:
            excluded.append((family, f"{best.spec()} uses {best.radix} of the {switch_radix} "
                                     f"ports per router at its balanced endpoints per router; "
                                     f"{best.ports_free} ports bought and left free"))
        else:
            chosen.append(best)
    return chosen, excluded


# ----------------------------------------------------------------------------- one configuration

def _slimfly(q, p=None) -> SizeOption:
    q = prime_power_q("slimfly", q, minimum=3)
    k = network_degree(q)
    p = endpoints_per_router("slimfly", p, sf_default_p(q))
    r = 2 * q * q
    return SizeOption("slimfly", {"q": q, "p": p}, r * p, r, k + p, r * k // 2)


def _dragonfly(a=None, p=None, h=None, g=None, arrangement=None) -> SizeOption:
    a, p, h, g = dragonfly_resolve(a, p, h, g)
    return SizeOption("dragonfly", {"a": a, "p": p, "h": h, "g": g}, a * g * p, a * g,
                      p + a - 1 + h, dragonfly_links(a, h, g))


def _fattree(k, levels=3, p=None) -> SizeOption:
    k = integer("fattree", "k", k, minimum=2)
    levels = integer("fattree", "levels", levels, minimum=2, maximum=3)
    e, a = fattree_shape(k)
    if levels == 2:
        p = endpoints_per_router("fattree", p, e)
        return SizeOption("fattree", {"k": k, "levels": 2, "p": p}, k * p, k + a, k, k * a)
    endpoints = k ** 3 // 4 if p is None else k * e * integer("fattree", "p", p, minimum=1)
    return SizeOption("fattree", {"k": k, "levels": 3}, endpoints, k * k + a * e, k, k * k * a)


def _hyperx(S, p=None) -> SizeOption:
    sizes = int_list("hyperx", "S", S, minimum=2)
    p = endpoints_per_router("hyperx", p, min(sizes))
    r = math.prod(sizes)
    degree = sum(s - 1 for s in sizes)
    return SizeOption("hyperx", {"S": sizes, "p": p}, r * p, r, degree + p, r * degree // 2)


def _oft(q, p=None) -> SizeOption:
    q = prime_power_q("oft", q)
    p = endpoints_per_router("oft", p, q + 1)
    pts = plane_size(q)
    return SizeOption("oft", {"q": q, "p": p}, 2 * pts * p, 3 * pts,
                      (q + 1) + max(q + 1, p), 2 * (q + 1) * pts)


def _mlfm(h, p=None) -> SizeOption:
    h = integer("mlfm", "h", h, minimum=1)
    p = endpoints_per_router("mlfm", p, h)
    return SizeOption("mlfm", {"h": h, "p": p}, p * h * (h + 1), 3 * h * (h + 1) // 2,
                      h + max(h, p), h * h * (h + 1))


def _pn(q, p=None) -> SizeOption:
    q = prime_power_q("pn", q)
    p = endpoints_per_router("pn", p, pn_default_p(q))
    pts = plane_size(q)
    return SizeOption("pn", {"q": q, "p": p}, 2 * pts * p, 2 * pts, q + 1 + p, (q + 1) * pts)


def _demipn(q, p=None) -> SizeOption:
    q = prime_power_q("demipn", q)
    p = endpoints_per_router("demipn", p, (q + 1) // 2)
    pts = plane_size(q)
    return SizeOption("demipn", {"q": q, "p": p}, pts * p, pts, q + 1 + p,
                      q * (q + 1) ** 2 // 2)


def _galaxyfly(n, q, a, h, p=None) -> SizeOption:
    n, q = integer("galaxyfly", "n", n, minimum=1), integer("galaxyfly", "q", q, minimum=1)
    q = q if q == 1 else prime_power_q("galaxyfly", q, minimum=3)
    a, h = integer("galaxyfly", "a", a, minimum=1), integer("galaxyfly", "h", h, minimum=1)
    p = endpoints_per_router("galaxyfly", p, h)
    sn = n * q
    links = sn * a * (a - 1) // 2 + sn * supernode_links(q) // 2 + n * (n - 1) // 2 * q
    return SizeOption("galaxyfly", {"n": n, "q": q, "a": a, "h": h, "p": p}, sn * a * p, sn * a,
                      p + a - 1 + h, links)


def _jellyfish(routers, degree, p=None, seed=0) -> SizeOption:
    r = integer("jellyfish", "routers", routers, minimum=2)
    degree = integer("jellyfish", "degree", degree, minimum=1, maximum=r - 1)
    p = endpoints_per_router("jellyfish", p, max(1, degree // 3))
    return SizeOption("jellyfish", {"routers": r, "degree": degree, "p": p}, r * p, r,
                      degree + p, r * degree // 2)


def _torus(dims, p=None) -> SizeOption:
    sizes = int_list("torus", "dims", dims, minimum=2)
    p = endpoints_per_router("torus", p, 1)
    r = math.prod(sizes)
    degree = sum(1 if s == 2 else 2 for s in sizes)  # a ring of two is one link
    return SizeOption("torus", {"dims": sizes, "p": p}, r * p, r, degree + p, r * degree // 2)


def _hypercube(d, p=None) -> SizeOption:
    d = integer("hypercube", "d", d, minimum=1, maximum=64)
    p = endpoints_per_router("hypercube", p, 1)
    return SizeOption("hypercube", {"d": d, "p": p}, 2 ** d * p, 2 ** d, d + p,
                      d * 2 ** (d - 1))


def _railfattree(units, servers, nics, radix, oversub=1) -> SizeOption:
    return _rail_option(rail_shape(units, servers, nics, radix, oversub))


def _multiplane(planes, radix, endpoints=None) -> SizeOption:
    planes, radix, servers = multiplane_resolve(planes, radix, endpoints)
    routers, nics, links, ports = multiplane_counts(planes, radix, servers)
    return SizeOption("multiplane", {"planes": planes, "radix": radix, "endpoints": servers},
                      nics, routers, ports, links)


def _dragonflyplus(radix, g=None) -> SizeOption:
    a, h, g, radix = dfplus_resolve(radix, g)
    return SizeOption("dragonflyplus", {"radix": radix, "g": g}, g * a * h, 2 * a * g, radix,
                      g * a * a + dfplus_global_cables(a, h, g))


COUNTS: dict[str, Callable[..., SizeOption]] = {
    "slimfly": _slimfly, "dragonfly": _dragonfly, "fattree": _fattree, "hyperx": _hyperx,
    "oft": _oft, "mlfm": _mlfm, "pn": _pn, "demipn": _demipn, "galaxyfly": _galaxyfly,
    "jellyfish": _jellyfish, "torus": _torus, "hypercube": _hypercube,
    "railfattree": _railfattree, "multiplane": _multiplane, "dragonflyplus": _dragonflyplus,
}


def estimate(family: str, params: dict[str, Any]) -> SizeOption | None:
    """Routers, router-router links, endpoints and radix of ``build(family, **params)`` from the
    closed forms (no graph built; upper bounds where a builder leaves ports free). None when the
    family or a parameter is not valid: the builder then names the problem."""
    try:
        given = {k: v for k, v in params.items()
                 if not (isinstance(v, str) and v.strip().lower() in ("", "none", "default"))}
        return COUNTS[canonical_family(family)](**given)
    except (InputError, TypeError, ValueError, OverflowError):
        return None


def check_topology_spec(spec, endpoint_cables: bool = True) -> guards.Estimate | None:
    """Closed-form check of a ``family:k=v,...`` text or ``{family: ..., k: v}`` mapping before
    the topology is built (``planner.run.guards``; None for ``file:`` topologies and parameters the
    builder rejects)."""
    if isinstance(spec, str):
        text = spec.strip()
        if text.startswith("file:"):
            return None
        family, _, rest = text.partition(":")
        try:
            params = split_params(rest, f"topology {text!r}")
        except InputError:
            return None
    else:
        params = dict(spec)
        family = params.pop("family", None)
        nested = params.pop("params", None)
        if isinstance(nested, dict):
            params.update(nested)
        text = f"{family}:" + ",".join(f"{k}={v}" for k, v in params.items())
    if not isinstance(family, str):
        return None
    size = estimate(family, params)
    if size is None:
        return None
    return guards.check_counts(f"--topology '{text}'", size.links, size.endpoints, size.routers,
                        size.radix, endpoint_cables)
