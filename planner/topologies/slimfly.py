"""Slim Fly: the McKay-Miller-Širáň (MMS) diameter-2 graph over GF(q).

Besta & Hoefler, "Slim Fly", SC14 §3.1; generator sets as written out by Kathareios et al. SC15
§2.1.2 and Galaxyfly (Lei et al., ICS'16) §2.1 eq. (1). q = 4w + δ is a prime power,
δ ∈ {1, 0, -1}. Construction, counts and departures from the papers: docs/topologies.md.
"""

from __future__ import annotations

import math

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, prime_power_q, size_limit
from planner.topologies.gf import Field, field


def delta(q: int) -> int:
    """δ ∈ {1, 0, -1} with q = 4w + δ (every prime power q >= 3 has one)."""
    return {1: 1, 0: 0, 3: -1}[q % 4]


def network_degree(q: int) -> int:
    """k' = (3q - δ)/2, the router-router degree of MMS(q)."""
    return (3 * q - delta(q)) // 2


def default_p(q: int) -> int:
    """Balanced endpoints per router p = ⌈k'/2⌉ (Besta & Hoefler SC14, as Kathareios et al. SC15
    §2.1.2 state it)."""
    return math.ceil(network_degree(q) / 2)


def generator_sets(gf: Field) -> tuple[np.ndarray, np.ndarray]:
    """X and X' = ξX (Kathareios et al. SC15 §2.1.2), as sorted element arrays.

    δ=1:  X = {ξ^0, ξ^2, ..., ξ^(q-3)};
    δ=-1: X = {ξ^0, ξ^2, ..., ξ^(2w-2)} ∪ {ξ^(2w-1), ξ^(2w+1), ..., ξ^(4w-3)}, q = 4w - 1;
    δ=0:  X = {ξ^0, ξ^2, ..., ξ^(q-2)}.
    """
    q, d = gf.q, delta(gf.q)
    if d == 1:
        exps = np.arange(0, q - 2, 2)
    elif d == -1:
        w = (q + 1) // 4
        exps = np.concatenate([np.arange(0, 2 * w - 1, 2), np.arange(2 * w - 1, 4 * w - 2, 2)])
    else:
        exps = np.arange(0, q - 1, 2)
    x = gf.exp[exps % (q - 1)]
    x_prime = gf.exp[(exps + 1) % (q - 1)]
    return np.sort(x), np.sort(x_prime)


def mms_edges(q: int) -> np.ndarray:
    """(L, 2) edges of MMS(q); router (s, x, y) has id s*q*q + x*q + y.

    (0,x,y)-(0,x,y') iff y - y' ∈ X; (1,m,c)-(1,m,c') iff c - c' ∈ X'; (0,x,y)-(1,m,c) iff
    y = m·x + c (Besta & Hoefler SC14 §3.1; Projective Networks §4.2).
    """
    gf = field(q)
    x_set, xp_set = generator_sets(gf)
    a = np.arange(q)
    parts = []
    for s, gens in ((0, x_set), (1, xp_set)):
        col, row, g = np.meshgrid(a, a, gens, indexing="ij")  # col = x (or m), row = y (or c)
        other = gf.add[row, g]
        keep = row < other
        base = s * q * q + col[keep] * q
        parts.append(np.stack([base + row[keep], base + other[keep]], axis=1))
    x, m, y = np.meshgrid(a, a, a, indexing="ij")
    c = gf.sub(y, gf.mul[m, x])
    parts.append(np.stack([(x * q + y).ravel(), (q * q + m * q + c).ravel()], axis=1))
    return np.concatenate(parts)


def mms_symmetries(q: int) -> tuple[np.ndarray, ...]:
    """Claimed automorphisms of MMS(q) (ids as ``mms_edges``), each read off the edge rules of
    Besta & Hoefler SC14 §3.1 (no difference within a column changes, so X and X' hold):

    - translating y and c by b: (0,x,y) -> (0,x,y+b), (1,m,c) -> (1,m,c+b) keeps y = m·x + c;
    - translating x by b: (0,x,y) -> (0,x+b,y), (1,m,c) -> (1,m,c-m·b) keeps
      y = m·(x+b) + (c-m·b);
    - scaling x by ξ: (0,x,y) -> (0,ξ·x,y), (1,m,c) -> (1,m·ξ⁻¹,c) keeps y = (m·ξ⁻¹)(ξ·x) + c.

    b runs over the additive basis 1, p, ..., p^(m-1) of GF(p^m). Orbits: the q² routers
    (0,·,·), the q routers (1,0,·) and the q² - q others."""
    gf = field(q)
    x, y = np.divmod(np.arange(q * q), q)
    perms = []
    for b in (gf.p ** np.arange(gf.m)).tolist():
        perms.append(np.concatenate([x * q + gf.add[y, b], q * q + x * q + gf.add[y, b]]))
        perms.append(np.concatenate([gf.add[x, b] * q + y,
                                     q * q + x * q + gf.sub(y, gf.mul[x, b])]))
    xi_inv = int(gf.inv[gf.xi])
    perms.append(np.concatenate([gf.mul[x, gf.xi] * q + y, q * q + gf.mul[x, xi_inv] * q + y]))
    return tuple(np.asarray(p_, dtype=np.int64) for p_ in perms)


def slimfly(q, p=None) -> Topology:
    """Slim Fly MMS(q) for a prime power q >= 3 (Besta & Hoefler SC14 §3.1; Kathareios SC15
    §2.1.2).

    2q² routers of network degree k' = (3q - δ)/2, p endpoints each (default ⌈k'/2⌉).
    Grouping hint: rack x = (0,x,·) ∪ (1,x,·), 2q routers, group id = x: the racks whose
    electrical/optical split Projective Networks Tables 4-5 print (docs/topologies.md).
    """
    q = prime_power_q("slimfly", q, minimum=3)
    size_limit("slimfly", 2 * q * q, q * q * network_degree(q), f"q={q}")
    p = endpoints_per_router("slimfly", p, default_p(q))
    r = 2 * q * q
    racks = (np.arange(r) // q) % q
    return Topology.from_edges("slimfly", {"q": q, "p": p}, r, mms_edges(q), p, groups=racks,
                               group_kind="rack", extra={"delta": delta(q), "xi": field(q).xi},
                               symmetries=mms_symmetries(q))
