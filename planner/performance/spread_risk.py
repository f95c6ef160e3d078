"""What ``--spread-risk`` bought and what it cost: the ``spread_risk`` block of summary.json
(issue 26, item 4).

Placement (``planner.placement.spread``) keeps one cabinet from holding more than the share
asked of any router's network cables; this module measures the share every failure group of
the plan reaches (``planner.performance.failure_groups``), with and without the option:

- a router's share in a group: its network cables the group's failure cuts (cables through a
  trunk, panel or tray segment; cables to the routers of a cabinet or power feed) over all its
  network cables, for the groups that do not hold the router itself (the failure of its own
  cabinet or feed takes the router with it);
- a group pair's share (topologies with groups, e.g. Dragonfly): the cables between two
  groups of the topology that one failure group cuts, over all the cables between them.

The block also gives the network cable dollars of both layouts (as placement prices them) and
the worst single-cabinet θ after failure of both (``planner.performance.resilience``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from planner.performance.failure_groups import FailureGroups
from planner.performance.rounding import rounded

PLAIN_CABINETS = "spread-risk: plain cabinet"
"""Failure kind the plan measures the plain layout's cabinets under (taken out of the
``resilience`` block again)."""
SPREAD_CABINETS = "spread-risk: cabinet"
"""Failure kind the plan measures its own cabinets under when ``--resilience`` leaves them
out."""


def _incidence(top) -> sp.csr_matrix:
    """(links, routers) 1 where a router is an end of a link."""
    links = np.asarray(top.links, np.int64).reshape(-1, 2)
    rows = np.repeat(np.arange(len(links)), 2)
    return sp.csr_matrix((np.ones(len(rows), np.int64), (rows, links.ravel())),
                         shape=(len(links), top.num_routers))


def _router_share(top, groups: FailureGroups, names) -> dict:
    """The largest share of one router's network cables one group cuts (module doc)."""
    mult = np.asarray(top.multiplicity, np.int64)
    inc = _incidence(top)
    adjacency = (inc.T @ sp.diags(mult, dtype=np.int64) @ inc).tolil()
    adjacency.setdiag(0)
    adjacency = adjacency.tocsr()
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    dead = groups.routers.astype(np.int64)
    cut = (groups.cables.astype(np.int64) @ inc + dead @ adjacency).tocsr()
    cut = (cut - cut.multiply(dead)).tocoo()
    if not cut.nnz:
        return {"largest": 0.0, "router": None, "group": None}
    share = cut.data / np.maximum(degree[cut.col], 1)
    i = int(np.lexsort((cut.col, cut.row, -share))[0])
    return {"largest": rounded(float(share[i])), "router": names[int(cut.col[i])],
            "group": groups.names[int(cut.row[i])]}


def _pair_share(top, groups: FailureGroups) -> dict | None:
    """The largest share of one group pair's cables one failure group cuts, None when the
    topology has no groups."""
    if top.groups is None:
        return None
    group = np.asarray(top.groups, np.int64)
    links = np.asarray(top.links, np.int64).reshape(-1, 2)
    mult = np.asarray(top.multiplicity, np.int64)
    ga, gb = group[links[:, 0]], group[links[:, 1]]
    between = np.flatnonzero(ga != gb)
    if not len(between):
        return None
    key = np.minimum(ga, gb)[between] * (int(group.max()) + 1) + np.maximum(ga, gb)[between]
    pairs, pair = np.unique(key, return_inverse=True)
    on_pair = sp.csr_matrix((np.ones(len(between), np.int64), (between, pair)),
                            shape=(len(links), len(pairs)))
    total = np.bincount(pair, weights=mult[between], minlength=len(pairs))
    inc = _incidence(top)
    ends_dead = (groups.routers.astype(np.int64) @ inc.T).tocsr()
    ends_dead.data = np.ones_like(ends_dead.data)                 # a dead end: the link's cables
    cut = (ends_dead @ sp.diags(mult, dtype=np.int64) + groups.cables.astype(np.int64)).tocsr()
    cut.data = np.minimum(cut.data, mult[cut.indices])           # both ends dead: counted once
    per_pair = (cut @ on_pair).tocoo()
    if not per_pair.nnz:
        return {"largest": 0.0, "pair": None, "group": None}
    share = per_pair.data / total[per_pair.col]
    i = int(np.lexsort((per_pair.col, per_pair.row, -share))[0])
    g1, g2 = divmod(int(pairs[per_pair.col[i]]), int(group.max()) + 1)
    return {"largest": rounded(float(share[i])), "pair": f"groups {g1}-{g2}",
            "cables": int(total[per_pair.col[i]]), "group": groups.names[int(per_pair.row[i])]}


def shares(top, groups: dict[str, FailureGroups], names) -> dict:
    """Per failure-group kind: the largest router share and group-pair share it reaches;
    ``names``: the router device names."""
    out = {}
    for kind, g in groups.items():
        if not len(g):
            continue
        out[kind] = {"router": _router_share(top, g, names)}
        pair = _pair_share(top, g)
        if pair is not None:
            out[kind]["group_pair"] = pair
    return out


def block(spread, top, groups: dict[str, FailureGroups], plain_cabinets: FailureGroups,
          names, cable_cost: float | None, optical: int, with_cabinet: dict | None,
          without_cabinet: dict | None, extra_s: float, trunks: dict | None = None) -> dict:
    """The ``spread_risk`` block of summary.json (module doc). ``spread``: the placement's
    ``SpreadRisk``; ``with_cabinet`` / ``without_cabinet``: the resilience blocks of the
    cabinet failures of the plan and of the plain layout; ``trunks``: how structured cabling
    dealt the links over the trunks (``planner.cabling.structured.deal_spread``)."""
    def theta(kind_block):
        if kind_block is None:
            return None
        return {"theta_ratio": kind_block["theta_ratio"]["worst"],
                "theta": kind_block["worst"]["theta"], "cabinet": kind_block["worst"]["name"],
                "theta_kind": kind_block["theta_kind"]}

    with_shares = shares(top, groups, names)
    without = shares(top, {"cabinet": plain_cabinets}, names)["cabinet"]

    def money(value):
        return None if value is None else round(float(value), 2)
    return {
        "share": spread.share,
        "scope": ("enforced: cabinets (a router's cables to the routers of one other cabinet)"
                  + ("; row trunks (a router's cables and a group pair's cables on one trunk)"
                     if trunks is not None else "")
                  + "; measured only: group pairs on cabinets, hall trunks, panels, tray "
                    "segments and power feeds"),
        "met": spread.met,
        "cables_over": spread.cables_over,
        "largest_share": with_shares,
        "without": {"largest_share": {"cabinet": without}, "cables_over": spread.plain_cables_over},
        "cable_cost": {"with": money(cable_cost), "without": money(spread.plain_cable_cost),
                       "extra": (None if cable_cost is None or spread.plain_cable_cost is None
                                 else money(cable_cost - spread.plain_cable_cost))},
        "optical": {"with": int(optical), "without": spread.plain_optical},
        "worst_cabinet": {"with": theta(with_cabinet), "without": theta(without_cabinet)},
        **({} if trunks is None else {"trunks": trunks}),
        "moves": spread.moves, "evaluations": spread.evaluations,
        "extra_s": round(float(extra_s), 3),
    }


def text_line(b: dict) -> tuple[str, str]:
    """The block in words (``planner plan`` output)."""
    cab = b["largest_share"].get("cabinet", {}).get("router", {}).get("largest")
    plain = b["without"]["largest_share"]["cabinet"]["router"]["largest"]
    cost = b["cable_cost"]
    sign = "+" if (cost["extra"] or 0) >= 0 else "-"
    money = ("" if cost["extra"] is None else
             f"; network cables ${cost['with']:,.2f} against ${cost['without']:,.2f} "
             f"without ({sign}${abs(cost['extra']):,.2f})")
    w, wo = b["worst_cabinet"]["with"], b["worst_cabinet"]["without"]
    theta = ("" if w is None or wo is None else
             f"; worst cabinet keeps θ {w['theta_ratio']:.4f} of intact against "
             f"{wo['theta_ratio']:.4f} without"
             + ("" if w["theta_kind"] == "exact" and wo["theta_kind"] == "exact"
                else " (upper bounds)"))
    met = "met" if b["met"] else f"NOT met ({b['cables_over']:,} cables over)"
    return ("spread risk", f"share {b['share']:g} {met}: one other cabinet holds at most "
                           f"{cab:.3f} of a router's cables ({plain:.3f} without){money}{theta}"
                           + _trunk_words(b.get("trunks")))


def _trunk_words(t: dict | None) -> str:
    """The trunk dealing in words: the largest router share on one trunk with and without,
    and the trunks it added."""
    if t is None:
        return ""
    w, wo = t["with"]["router"], t["without"]["router"]
    over = "" if not w["cables_over"] else f", {w['cables_over']:,} cables over"
    return (f"; one trunk carries at most {w['largest']:.3f} of a router's cables "
            f"({wo['largest']:.3f} without{over}) for {t['trunks_added']:,} trunks added "
            f"(${t['trunk_dollars_added']:,.2f})")
