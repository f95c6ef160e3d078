"""k-ary fat trees (folded Clos) of radix-k routers, two or three levels.

3 levels (Al-Fares et al. SIGCOMM'08; the baseline of the Slim Fly case study, Galaxyfly Table 3
and Kathareios et al. SC15 Fig. 3): k pods of E = ⌈k/2⌉ edge and A = ⌊k/2⌋ aggregation routers,
A·E core routers; N = k³/4 endpoints and 5k²/4 routers for even k. For odd k (the k = 35, 43
rows of the Slim Fly case study, Besta & Hoefler SC14) the same recipe gives ⌊5k²/4⌋ routers
and the ⌊k³/4⌋ endpoints the case study prints: each edge has A up-links, each
aggregation router E down- and A up-links, each pod's A² up-links go to A² distinct cores of a
window rotated by A per pod, and the ⌊k³/4⌋ endpoints are spread over the edges (⌊·⌋ or ⌈·⌉).
2 levels (Kathareios §2.2.1): k leaves with ⌊k/2⌋ up-links, one to each of ⌊k/2⌋ spines;
N = k²/2, 3k/2 routers for even k.
"""

from __future__ import annotations

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import integer, size_limit


def shape(k: int) -> tuple[int, int]:
    """(E, A) = (edge routers, aggregation routers) per pod; also (leaf p, up-links) for 2 levels."""
    return k - k // 2, k // 2


def default_endpoints(k: int, levels: int) -> int:
    """Total endpoints of the balanced tree: ⌊k³/4⌋ (3 levels) or k·⌈k/2⌉ (2 levels)."""
    return k ** 3 // 4 if levels == 3 else k * shape(k)[0]


def _spread(total: int, slots: int) -> np.ndarray:
    """``total`` endpoints over ``slots`` routers, ⌊total/slots⌋ each, the rest one more."""
    ep = np.full(slots, total // slots, dtype=np.int64)
    ep[: total % slots] += 1
    return ep


def _rotate(ids: np.ndarray, r: int) -> np.ndarray:
    """The permutation of 0..r-1 that moves ``ids[i]`` to ``ids[i+1]`` (cyclically) and fixes
    every other router."""
    perm = np.arange(r)
    perm[ids] = np.roll(ids, -1)
    return perm


def _pod_symmetries(k: int, n_pods: int) -> tuple[np.ndarray, ...] | None:
    """Claimed automorphisms of the three-level tree of even k (E = A): moving every router of
    pod P to the same place in pod P+1 (mod pods), cores fixed, as aggregation router j's
    up-links go to cores j·A..j·A+A-1 in every pod (``_three_level``); and rotating the edge
    routers of pod 0, each linked to all of its pod's aggregation routers (Al-Fares et al.
    SIGCOMM'08 §3). None for odd k, whose pod windows rotate by A per pod and whose spread
    endpoints differ between edges."""
    e, a = shape(k)
    if e != a:
        return None
    per_pod = e + a
    r = n_pods * per_pod + a * e
    ids = np.arange(r)
    shift = np.where(ids < n_pods * per_pod, (ids + per_pod) % (n_pods * per_pod), ids)
    return shift, _rotate(np.arange(e), r)


def _two_level(k: int, p) -> Topology:
    leaf_p, up = shape(k)
    p = leaf_p if p is None else integer("fattree", "p", p, minimum=1, maximum=k - up)
    leaves = np.repeat(np.arange(k), up)
    spines = k + np.tile(np.arange(up), k)
    endpoints = np.concatenate([np.full(k, p), np.zeros(up, dtype=np.int64)])
    roles = ["leaf"] * k + ["spine"] * up
    return Topology.from_edges("fattree", {"k": k, "levels": 2, "p": p}, k + up,
                               np.stack([leaves, spines], axis=1), endpoints, roles=roles,
                               symmetries=(_rotate(np.arange(k), k + up),))  # leaves alike


def _three_level(k: int, p, pods: int | None = None) -> Topology:
    e, a = shape(k)
    per_pod = e + a
    cores = a * e
    n_pods = k if pods is None else pods
    pod = np.arange(n_pods)
    # edge-aggregation: complete bipartite inside every pod
    pp, ee, aa = np.meshgrid(pod, np.arange(e), np.arange(a), indexing="ij")
    lower = np.stack([(pp * per_pod + ee).ravel(), (pp * per_pod + e + aa).ravel()], axis=1)
    # aggregation-core: agg j of pod P, up-link t -> core (j*a + t + P*a*(e-a)) mod cores
    pp, jj, tt = np.meshgrid(pod, np.arange(a), np.arange(a), indexing="ij")
    core = (jj * a + tt + pp * a * (e - a)) % cores
    upper = np.stack([(pp * per_pod + e + jj).ravel(), (n_pods * per_pod + core).ravel()],
                     axis=1)
    r = n_pods * per_pod + cores
    if p is None:
        edge_ep = _spread(k ** 3 // 4, k * e).reshape(e, k).T[:n_pods]  # evenly over pods
        p_param = None
    else:
        p_param = integer("fattree", "p", p, minimum=1, maximum=k - a)
        edge_ep = np.full((n_pods, e), p_param)
    endpoints = np.zeros(r, dtype=np.int64)
    endpoints[(pod[:, None] * per_pod + np.arange(e)[None, :]).ravel()] = edge_ep.ravel()
    roles = (["edge"] * e + ["aggregation"] * a) * n_pods + ["core"] * cores
    groups = np.concatenate([np.repeat(pod, per_pod), n_pods + np.arange(cores) // a])
    params = {"k": k, "levels": 3} if p_param is None and k % 2 else \
        {"k": k, "levels": 3, "p": int(edge_ep.max())}
    if pods is not None:
        params["pods"] = pods
    return Topology.from_edges("fattree", params, r, np.concatenate([lower, upper]), endpoints,
                               roles=roles, groups=groups, group_kind="pod",
                               extra={"pods": n_pods}, symmetries=_pod_symmetries(k, n_pods))


def fattree(k, levels=3, p=None, pods=None) -> Topology:
    """Fat tree of radix-k routers (Al-Fares et al. SIGCOMM'08; Kathareios SC15 §2.2.1).

    levels=3: roles edge/aggregation/core, hint = pods (ids 0..k-1; core routers form groups
    k.. of A cores each). levels=2: roles leaf/spine, no hint. ``p`` = endpoints per edge/leaf
    router (default: the balanced k/2, or the ⌊k³/4⌋ spread for odd k with 3 levels, in which
    case ``params`` has no 'p' so that rebuilding from ``params`` gives the same tree).
    ``pods`` (3 levels, 1..k, default k) builds the first ``pods`` pods with every core: a
    tree to grow by pods (``planner expand``); each core then uses ``pods`` down-ports.
    """
    k = integer("fattree", "k", k, minimum=2)
    levels = integer("fattree", "levels", levels, minimum=2, maximum=3)
    size_limit("fattree", k * k + k * k // 4, k ** 3, f"k={k}")
    if pods is not None:
        pods = integer("fattree", "pods", pods, minimum=1, maximum=k)
    return _two_level(k, p) if levels == 2 else _three_level(k, p, pods)
