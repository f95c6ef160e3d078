"""Projective networks from the projective plane PG(2, q): PN (incidence / Levi graph) and
demi-PN (polarity / Brown / Erdős–Rényi graph, also known as PolarFly).

Camarero, Martínez, Vallejo, Beivide, "Projective Networks: Topologies for Large Parallel
Computer Systems", IEEE TPDS 2017, §3.1-3.2 and Table 3; docs/topologies.md.
Points and lines share the representatives (1,x,y), (0,1,x), (0,0,1), numbered
x·q + y, q² + x and q² + q; point P lies on line L iff P·L = 0 in F_q.
"""

from __future__ import annotations

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, prime_power_q, size_limit
from planner.topologies.gf import field


def plane_size(q: int) -> int:
    """q² + q + 1 points (and lines) of PG(2, q)."""
    return q * q + q + 1


def incidences(q: int) -> tuple[np.ndarray, np.ndarray]:
    """(point ids, line ids) of all (q+1)(q²+q+1) incident pairs P ⊥ L, vectorised.

    For a line L = (l0, l1, l2): points (1,x,y) with l0 + l1·x + l2·y = 0 (one y per x if
    l2 ≠ 0; x = -l0/l1 and every y if l2 = 0 ≠ l1); points (0,1,z) with l1 + l2·z = 0; point
    (0,0,1) iff l2 = 0.
    """
    gf = field(q)
    n = plane_size(q)
    reps = np.zeros((n, 3), dtype=np.int64)
    a = np.arange(q)
    reps[: q * q] = np.stack([np.ones(q * q, dtype=np.int64), np.repeat(a, q), np.tile(a, q)], 1)
    reps[q * q: q * q + q] = np.stack([np.zeros(q, dtype=np.int64), np.ones(q, dtype=np.int64), a], 1)
    reps[-1] = (0, 0, 1)
    lines = np.arange(n)
    l0, l1, l2 = reps[:, 0], reps[:, 1], reps[:, 2]
    pts, lns = [], []
    # affine points (1, x, y), lines with l2 != 0: y = -(l0 + l1 x) / l2
    sel = lines[l2 != 0]
    ll, xx = np.meshgrid(sel, a, indexing="ij")
    yy = gf.mul[gf.neg[gf.add[l0[ll], gf.mul[l1[ll], xx]]], gf.inv[l2[ll]]]
    pts.append((xx * q + yy).ravel())
    lns.append(ll.ravel())
    # affine points, lines with l2 == 0 != l1: x = -l0 / l1, any y
    sel = lines[(l2 == 0) & (l1 != 0)]
    ll, yy = np.meshgrid(sel, a, indexing="ij")
    xx = gf.mul[gf.neg[l0[ll]], gf.inv[l1[ll]]]
    pts.append((xx * q + yy).ravel())
    lns.append(ll.ravel())
    # points at infinity (0, 1, z): l2 != 0 -> z = -l1/l2; l1 = l2 = 0 -> every z
    sel = lines[l2 != 0]
    pts.append(q * q + gf.mul[gf.neg[l1[sel]], gf.inv[l2[sel]]])
    lns.append(sel)
    sel = lines[(l1 == 0) & (l2 == 0)]
    ll, zz = np.meshgrid(sel, a, indexing="ij")
    pts.append((q * q + zz).ravel())
    lns.append(ll.ravel())
    # the point (0, 0, 1)
    sel = lines[l2 == 0]
    pts.append(np.full(len(sel), n - 1))
    lns.append(sel)
    return np.concatenate(pts), np.concatenate(lns)


def pn_default_p(q: int) -> int:
    """Balanced Δ0 = Δ·u/k̄ (Projective Networks eq. 1) with Δ = q+1, u = 1 and
    k̄ = (5q²+3q+1)/(2q²+2q+1) (Table 3), rounded: ≈ 2(q+1)/5."""
    return max(1, round((q + 1) * (2 * q * q + 2 * q + 1) / (5 * q * q + 3 * q + 1)))


def pn(q, p=None) -> Topology:
    """Projective network PN = incidence graph G_q of PG(2, q) (Projective Networks §3.1).

    2(q²+q+1) routers (points 0..n-1, lines n..2n-1), (q+1)-regular, diameter 3,
    (q+1)(q²+q+1) links; default p = round(Δ·u/k̄) ≈ 2(q+1)/5 (eq. 1, Table 3).
    """
    q = prime_power_q("pn", q, minimum=2)
    size_limit("pn", 2 * plane_size(q), (q + 1) * plane_size(q), f"q={q}")
    p = endpoints_per_router("pn", p, pn_default_p(q))
    n = plane_size(q)
    pts, lns = incidences(q)
    return Topology.from_edges("pn", {"q": q, "p": p}, 2 * n, np.stack([pts, n + lns], 1), p)


def demipn(q, p=None) -> Topology:
    """Demi-projective network = polarity graph Ḡ_q of PG(2, q) (Projective Networks §3.2;
    PolarFly, Lakhotia et al. SC22).

    q²+q+1 routers; P–L iff P·L = 0 and P ≠ L; the q+1 self-orthogonal (absolute) points have
    degree q, the rest q+1; diameter 2; q(q+1)²/2 links. Default p = ⌊(q+1)/2⌋ (Table 3).
    """
    q = prime_power_q("demipn", q, minimum=2)
    size_limit("demipn", plane_size(q), (q + 1) * plane_size(q) // 2, f"q={q}")
    p = endpoints_per_router("demipn", p, (q + 1) // 2)
    n = plane_size(q)
    pts, lns = incidences(q)
    keep = pts < lns
    return Topology.from_edges("demipn", {"q": q, "p": p}, n,
                               np.stack([pts[keep], lns[keep]], 1), p)
