"""Which size-changing parameters a topology took by default, and why, in one line each.

``planner.topologies.build`` records the parameters the caller left out in
``Topology.extra["defaulted"]``; ``notes`` turns them into the lines ``planner plan`` and
``planner topology`` print, so a default that decides the system's size never goes unseen
(``dragonfly:a=20,p=10,h=10`` is g = 201 groups and 40,200 endpoints unless g is given).
Parameters that do not change the size (a Dragonfly's global ``arrangement``, a Jellyfish
``seed``) are not reported.
"""

from __future__ import annotations

from planner.topologies.base import Topology

SIZE_NEUTRAL = {("dragonfly", "arrangement"), ("jellyfish", "seed")}


def _why(top: Topology, name: str) -> str:
    """Why the builder chose ``top.params[name]``."""
    prm = top.params
    family = top.family
    reasons = {
        ("dragonfly", "g"): f"a·h + 1 with a={prm.get('a')}, h={prm.get('h')}: the most groups "
                            "the global ports allow (one global cable per group pair, Kim et "
                            "al. ISCA'08); give g=<groups> for a smaller system",
        ("dragonfly", "a"): "a = 2h, the balanced Dragonfly (Kim et al. ISCA'08 §3.1)",
        ("dragonfly", "p"): "p = h, the balanced Dragonfly (Kim et al. ISCA'08 §3.1)",
        ("dragonfly", "h"): "h = p (or a/2), the balanced Dragonfly (Kim et al. ISCA'08 §3.1)",
        ("slimfly", "p"): "p = ⌈k'/2⌉, the balanced Slim Fly (Besta & Hoefler SC14)",
        ("fattree", "levels"): "3 levels: every port of every switch used, k³/4 endpoints",
        ("fattree", "p"): "k/2 endpoints per edge router: the full, non-blocking tree",
        ("oft", "p"): "p = q + 1, the balanced OFT (Kathareios et al. SC15 §2.2.4)",
        ("mlfm", "p"): "p = h, the balanced MLFM (Kathareios et al. SC15 §2.2.3)",
        ("pn", "p"): "the balanced Δ0 of Projective Networks eq. 1 (about 2(q+1)/5)",
        ("demipn", "p"): "p = (q+1)/2, balanced (Projective Networks Table 3)",
        ("galaxyfly", "p"): "p = h, the Dragonfly balance (Lei et al. ICS'16)",
        ("hyperx", "p"): "p = min(S), the concentration of a flattened butterfly (Kim et al. "
                         "ISCA'07)",
        ("jellyfish", "p"): "p = degree // 3, as the random rows of the Slim Fly case study "
                             "(degree 21, p = 7)",
        ("railfattree", "oversub"): "1:1, a non-blocking leaf (NVIDIA DGX SuperPOD)",
        ("multiplane", "endpoints"): "full planes: radix leaves of ⌈radix/2⌉ servers each",
        ("dragonflyplus", "g"): "the most groups, a·h + 1 (one global cable per group pair, "
                                "Shpiner et al. HiPINEB 2017); give g=<groups> for fewer",
        ("torus", "p"): "one endpoint per router",
        ("hypercube", "p"): "one endpoint per router",
    }
    return reasons.get((family, name), "the builder's default")


def notes(top: Topology) -> list[str]:
    """One line per size-changing parameter that was not given (empty if none), the last one
    ending with the size they give."""
    out = [f"{top.family}: {name} not given, using {name}={top.params[name]}: "
           f"{_why(top, name)}" for name in top.extra.get("defaulted", ())
           if (top.family, name) not in SIZE_NEUTRAL and name in top.params]
    if out:
        out[-1] += f" -> {top.num_routers:,} routers, {top.num_endpoints:,} endpoints"
    return out
