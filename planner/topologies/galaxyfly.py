"""Galaxyfly: a Galaxy graph of n clusters × q supernodes, each supernode a K_a of routers.

Lei et al., "Galaxyfly", ICS'16 §2 (Algorithms 1-3, Tables 1-2). δ ∈ {1, 0, -1} with q ≡ δ
(mod 4), not Table 1's "q mod 4", and the port rule of Fig. 2: docs/topologies.md "Galaxyfly".
"""

from __future__ import annotations

import numpy as np

from planner.run.errors import InputError
from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, integer, prime_power_q, size_limit
from planner.topologies.gf import field
from planner.topologies.slimfly import delta, generator_sets


def supernode_links(q: int) -> int:
    """h_s = (q - δ)/2 intra-cluster links per supernode (0 for q = 1, the Dragonfly case)."""
    return 0 if q == 1 else (q - delta(q)) // 2


def coordinate_matrix(k: int, n: int, q: int) -> np.ndarray:
    """M_k (q × n) of cluster k, Algorithm 1: column i is [0..q-1] if i >= k else ξ·[0..q-1]
    (H(i) = ξ·i maps the generator graph of X onto that of X' = ξX)."""
    gf = field(q)
    r = np.arange(q)
    return np.stack([r if i >= k else gf.mul[gf.xi, r] for i in range(n)], axis=1)


def galaxy_edges(n: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Supernode edges (u, v) of the Galaxy graph (supernode id = cluster·q + index) and a flag
    ``inter`` per edge. Intra-cluster (Alg. 2): v_r – v_t iff t - r ∈ X. Inter-cluster i < j
    (Alg. 3): v_r^i – v_s^j iff M_i[r][j] = M_j[s][i], i.e. r = ξ·s."""
    if q == 1:
        i, j = np.triu_indices(n, k=1)
        return np.stack([i, j], 1), np.ones(len(i), dtype=bool)
    gf = field(q)
    x_set, _ = generator_sets(gf)
    cl, r, d = np.meshgrid(np.arange(n), np.arange(q), x_set, indexing="ij")
    t = gf.add[r, d]
    keep = r < t
    intra = np.stack([(cl * q + r)[keep], (cl * q + t)[keep]], 1)
    ci, cj = np.triu_indices(n, k=1)
    s = np.arange(q)
    rr = gf.mul[gf.xi, s]
    inter = np.stack([(ci[:, None] * q + rr[None, :]).ravel(),
                      (cj[:, None] * q + s[None, :]).ravel()], 1)
    flags = np.concatenate([np.zeros(len(intra), bool), np.ones(len(inter), bool)])
    return np.concatenate([intra, inter]), flags


def _slots(edges: np.ndarray, inter: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Port slot of every edge at its u end and its v end: per supernode, intra-cluster links
    first, then inter-cluster links, each by neighbour id."""
    src = np.concatenate([edges[:, 0], edges[:, 1]])
    dst = np.concatenate([edges[:, 1], edges[:, 0]])
    kind = np.concatenate([inter, inter]).astype(np.int64)
    order = np.lexsort((dst, kind, src))
    first = np.searchsorted(src[order], np.arange(count))
    slot = np.empty(len(src), dtype=np.int64)
    slot[order] = np.arange(len(src)) - first[src[order]]
    return slot[: len(edges)], slot[len(edges):]


def galaxyfly(n, q, a, h, p=None) -> Topology:
    """Galaxyfly GF(n, q, a, h, p) (Galaxyfly §2.2, Table 2).

    n·q supernodes of a routers (K_a); router radix r = p + a - 1 + h; each supernode has
    h_g = n-1 inter-cluster and h_s = (q-δ)/2 intra-cluster links and needs a·h >= h_g + h_s.
    Port rule ("block", Fig. 2): a supernode's intra-cluster links then its inter-cluster links
    are dealt to its routers h at a time (router t gets slots t·h..t·h+h-1), so GF(3,5,a=2,h=2)
    has diameter 4 as the paper states. q = 1 gives the Dragonfly. Router id =
    (cluster·q + supernode)·a + t; default p = h (Dragonfly balance p = h). Hint: clusters.
    """
    fam = "galaxyfly"
    n = integer(fam, "n", n, minimum=1)
    q = integer(fam, "q", q, minimum=1)
    if q == 2:
        raise InputError("galaxyfly: parameter 'q' must be 1 (the Dragonfly case) or a prime "
                         "power >= 3 (q = 4w + δ, δ ∈ {1, 0, -1}), got 2")
    if q != 1:
        q = prime_power_q(fam, q, minimum=3)
    a = integer(fam, "a", a, minimum=1)
    h = integer(fam, "h", h, minimum=1)
    p = endpoints_per_router(fam, p, h)
    need = (n - 1) + supernode_links(q)
    if a * h < need:
        raise InputError(f"galaxyfly: a*h = {a * h} is less than h_g + h_s = {n - 1} + "
                         f"{supernode_links(q)} = {need} links per supernode; use "
                         f"h >= {-(-need // a)} or a >= {-(-need // h)}")
    sn = n * q
    size_limit(fam, sn * a, sn * (a * (a - 1) // 2 + need), f"n={n},q={q},a={a}")
    edges, inter = galaxy_edges(n, q)
    su, sv = _slots(edges, inter, sn)
    glob = np.stack([edges[:, 0] * a + su // h, edges[:, 1] * a + sv // h], 1)
    r1, r2 = np.triu_indices(a, k=1)
    base = (np.arange(sn) * a)[:, None]
    local = np.stack([(base + r1).ravel(), (base + r2).ravel()], 1)
    r = sn * a
    extra = {"supernode_size": a, "h_g": n - 1, "h_s": supernode_links(q)}
    if q > 1:
        extra["delta"] = delta(q)
    return Topology.from_edges(fam, {"n": n, "q": q, "a": a, "h": h, "p": p}, r,
                               np.concatenate([local, glob]), p,
                               groups=np.arange(r) // (q * a), group_kind="cluster", extra=extra)
