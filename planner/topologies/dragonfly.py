"""Dragonfly: g groups of a fully connected routers, h global links per router.

Kim, Dally, Scott, Abts, ISCA'08 §3; balanced a = 2p = 2h, g = a·h + 1 (Galaxyfly §2.2,
Projective Networks Table 3). Global arrangements as in cost_models.md D2: palmtree (CAMINOS
``dragonfly.rs``), relative (consecutive) and absolute.
"""

from __future__ import annotations

import numpy as np

from planner.errors import InputError
from planner.topologies.base import Topology
from planner.topologies.checks import integer, size_limit

ARRANGEMENTS = ("palmtree", "relative", "absolute")


def resolve(a=None, p=None, h=None, g=None) -> tuple[int, int, int, int]:
    """(a, p, h, g) with balanced defaults a = 2p = 2h, g = a·h + 1 from whichever is given."""
    fam = "dragonfly"
    h = None if h is None else integer(fam, "h", h, minimum=0)
    p = None if p is None else integer(fam, "p", p, minimum=1)
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


def _partial_targets(c: np.ndarray, grp: np.ndarray, g: int, rem: int):
    """Last round of rem < g-1 ports: circulant offsets +1, -1, +2, -2, ... (+g/2 if rem odd).

    Returns (target group, port in round at target, used mask); with rem odd and g odd the last
    port of every group stays unused (g·rem would be odd).
    """
    paired = rem - (rem % 2)
    offset = np.where(c % 2 == 0, c // 2 + 1, -(c // 2 + 1))
    back = c ^ 1
    used = c < paired
    if rem % 2 and g % 2 == 0:
        last = c == rem - 1
        offset = np.where(last, g // 2, offset)
        back = np.where(last, c, back)
        used = used | last
    return (grp + offset) % g, back, used


def global_links(a: int, h: int, g: int, arrangement: str) -> np.ndarray:
    """(L, 2) router pairs of the global links; router id = group*a + r, port i = r*h + j.

    Each group's a·h global ports are dealt out in rounds of g-1 (one link to every other group
    per round) following the arrangement (cost_models.md D2); for g < a·h+1 a group pair gets
    ⌊a·h/(g-1)⌋ or one more links, on different ports spread over the group's routers.
    """
    ports = a * h
    if g < 2 or ports == 0:
        return np.zeros((0, 2), dtype=np.int64)
    grp, i = np.meshgrid(np.arange(g), np.arange(ports), indexing="ij")
    grp, i = grp.ravel(), i.ravel()
    rnd, c = i // (g - 1), i % (g - 1)
    full = ports // (g - 1)
    rem = ports - full * (g - 1)
    tgt, back = _round_targets(c, grp, g, arrangement)
    used = np.ones(len(i), dtype=bool)
    last = rnd == full
    if rem:
        ptgt, pback, pused = _partial_targets(c, grp, g, rem)
        tgt = np.where(last, ptgt, tgt)
        back = np.where(last, pback, back)
        used = np.where(last, pused, used)
    peer_port = rnd * (g - 1) + back
    src_id = grp * ports + i
    dst_id = tgt * ports + peer_port
    keep = used & (src_id < dst_id)
    u = grp[keep] * a + i[keep] // h
    v = tgt[keep] * a + peer_port[keep] // h
    return np.stack([u, v], axis=1)


def local_links(a: int, g: int) -> np.ndarray:
    """K_a inside every group."""
    r1, r2 = np.triu_indices(a, k=1)
    base = (np.arange(g) * a)[:, None]
    return np.stack([(base + r1).ravel(), (base + r2).ravel()], axis=1)


def dragonfly(a=None, p=None, h=None, g=None, arrangement="palmtree") -> Topology:
    """Dragonfly (Kim et al. ISCA'08 §3.1): g groups × a routers, p endpoints, h global ports.

    Router radix k = p + a - 1 + h; routers a·g; endpoints p·a·g; local links g·a(a-1)/2;
    global links g(g-1)/2 when g = a·h+1 (cost_models.md D2). ``dragonfly(h=7)`` is the
    balanced a=14, p=7, g=99 of Projective Networks Table 4. Hint: groups.
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
                               r, edges, p, groups=np.arange(r) // a, group_kind="group")
