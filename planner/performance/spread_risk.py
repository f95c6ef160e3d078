"""What ``--spread-risk`` bought and what it cost: the ``spread_risk`` block of summary.json
(issue 26, item 4).

Placement (``planner.placement.spread``) keeps one cabinet (and on hall floors one tray
segment, within what the trays allow) from holding more than the share asked of any router's
network cables, and one cabinet from holding an end of more than that share of a group pair's
cables; this module measures the share every failure group of
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

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import scipy.sparse as sp

from planner.inputs.floor import room_of
from planner.inputs.floor.tray_segments import own_bay
from planner.performance import failure_groups
from planner.performance.failure_groups import FailureGroups, tray_name
from planner.performance.rounding import rounded
from planner.placement.tuning import SPREAD_REMATCH_MAX_EDGES, SPREAD_REMATCH_MAX_ROUTERS

PLAIN = "spread-risk: plain "
"""Prefix of the failure kinds the plan measures the plain layout under (``plain_kind``;
taken out of the ``resilience`` block again)."""
PLAIN_CABINETS = PLAIN + "cabinet"
"""Failure kind the plan measures the plain layout's cabinets under."""
SPREAD_CABINETS = "spread-risk: cabinet"
"""Failure kind the plan measures its own cabinets under when ``--resilience`` leaves them
out."""


def plain_kind(kind: str) -> str:
    """The failure kind the plain layout's groups of ``kind`` are measured under."""
    return PLAIN + kind


def plain_layout(placement):
    """The plain placement ``--spread-risk`` started from: the plan's cabinets with the
    routers where the cost placement put them, or (when the search emptied a cabinet) only
    its routers' cabinets and their names."""
    risk = placement.spread_risk
    if tuple(risk.plain_cabinet_names) == tuple(placement.cabinet_names):
        return replace(placement, router_cabinet=risk.plain_router_cabinet, spread_risk=None)
    return SimpleNamespace(router_cabinet=risk.plain_router_cabinet,
                           cabinet_names=risk.plain_cabinet_names)


def plain_groups(top, placement, floor, cables, structured, kinds) -> dict[str, FailureGroups]:
    """The plain layout's failure groups of ``kinds``: its cabinets; with the same cabinets
    its tray segments and power feeds; the trunks as the plain fill would have dealt the links
    (``StructuredPlan.plain_trunk``) and the hall trunks between pass-through entries as the
    plain plan packs them (``StructuredPlan.plain_hall_trunk``)."""
    plain = plain_layout(placement)
    r, links = top.num_routers, len(top.links)
    out = {"cabinet": failure_groups.cabinet_groups(plain, r, links)}
    if hasattr(plain, "cabinet_hall") and ({"tray", "row"} & set(kinds)):
        got, _ = failure_groups.derive("all", top, plain, floor, cables, None)
        out.update({k: got[k] for k in ("tray", "row") if k in got})
    trunk = getattr(structured, "plain_trunk", None)
    cable_link = failure_groups.network_cable_links(top.multiplicity)
    if trunk is not None and (trunk[:len(cable_link)] >= 0).any():
        cable = np.flatnonzero(trunk[:len(cable_link)] >= 0)
        used, number = np.unique(trunk[cable], return_inverse=True)
        names = np.array([f"plain trunk {k + 1}" for k in range(len(used))], dtype=object)
        on = names[number]
        hall = getattr(structured, "plain_hall_trunk", None)
        if hall is not None and (hall[cable] >= 0).any():
            halls = np.array([f"plain hall trunk {k + 1}" for k in range(int(hall.max()) + 1)],
                             dtype=object)
            on = np.where(hall[cable] >= 0, on + "," + halls[np.maximum(hall[cable], 0)], on)
            names = np.r_[names, halls]
        fill = SimpleNamespace(links=pd.DataFrame({"cable": cable, "trunks": on}),
                               trunks=pd.DataFrame({"trunk_id": names}))
        out["trunk"] = failure_groups.trunk_groups(fill, cable_link, r)
    return {k: v for k, v in out.items() if k in kinds}


def _incidence(top) -> sp.csr_matrix:
    """(links, routers) 1 where a router is an end of a link."""
    links = np.asarray(top.links, np.int64).reshape(-1, 2)
    rows = np.repeat(np.arange(len(links)), 2)
    return sp.csr_matrix((np.ones(len(rows), np.int64), (rows, links.ravel())),
                         shape=(len(links), top.num_routers))


def _most(share: float | None, cables: np.ndarray) -> np.ndarray | None:
    """Cables of each owner one group may cut within ``share`` (at least 1: a single cable is
    cut by some group whatever its share), None without a share."""
    if share is None:
        return None
    return np.maximum(np.floor(share * np.asarray(cables) + 1e-9), 1).astype(np.int64)


def _router_share(top, groups: FailureGroups, names, share: float | None = None,
                  own: sp.csr_matrix | None = None) -> dict:
    """The largest share of one router's network cables one group cuts (module doc), and with
    ``share`` the cables over it (``_most``). ``own`` (groups x routers): pairs not counted,
    a router's own tray segment (``own_tray_segments``)."""
    mult = np.asarray(top.multiplicity, np.int64)
    inc = _incidence(top)
    adjacency = (inc.T @ sp.diags(mult, dtype=np.int64) @ inc).tolil()
    adjacency.setdiag(0)
    adjacency = adjacency.tocsr()
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    dead = groups.routers.astype(np.int64)
    cut = (groups.cables.astype(np.int64) @ inc + dead @ adjacency).tocsr()
    cut = cut - cut.multiply(dead)
    if own is not None:
        cut = cut - cut.multiply(own.astype(np.int64))
    cut = sp.coo_matrix(cut)
    cut.eliminate_zeros()
    over = {} if share is None else {"cables_over": 0}
    if not cut.nnz:
        return {"largest": 0.0, "router": None, "group": None, **over}
    if share is not None:
        over["cables_over"] = int(np.maximum(cut.data - _most(share, degree)[cut.col], 0).sum())
    share_of = cut.data / np.maximum(degree[cut.col], 1)
    i = int(np.lexsort((cut.col, cut.row, -share_of))[0])
    return {"largest": rounded(float(share_of[i])), "router": names[int(cut.col[i])],
            "group": groups.names[int(cut.row[i])], **over}


def own_tray_segments(floor, placement, tray: FailureGroups) -> sp.csr_matrix | None:
    """(tray groups x routers) the row-tray segment over each router's own cabinet: every
    cable that leaves the cabinet starts along it (``failure_groups.tray_groups``), so it
    carries all of the router's cables by construction, as its own cabinet does."""
    if floor.hall is None or not len(tray):
        return None
    cab = np.asarray(placement.router_cabinet, np.int64)
    c_hall = np.asarray(placement.cabinet_hall, np.int64)
    c_row = np.asarray(placement.cabinet_row, np.int64)
    c_col = np.asarray(placement.cabinet_col, np.int64)
    room = room_of(floor, c_hall, c_row, c_col)
    code = own_bay(room, c_hall, c_row, c_col)[cab]
    index = {name: i for i, name in enumerate(tray.names)}
    group = np.array([index.get(tray_name(room, int(c)), -1) for c in code.tolist()], np.int64)
    at = np.flatnonzero(group >= 0)
    return sp.csr_matrix((np.ones(len(at), bool), (group[at], at)),
                         shape=(len(tray), len(cab)))


def _pair_share(top, groups: FailureGroups, share: float | None = None) -> dict | None:
    """The largest share of one group pair's cables one failure group cuts (and with ``share``
    the cables over it, ``_most``), None when the topology has no groups."""
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
    over = {} if share is None else {"cables_over": 0}
    if not per_pair.nnz:
        return {"largest": 0.0, "pair": None, "group": None, **over}
    if share is not None:
        over["cables_over"] = int(np.maximum(
            per_pair.data - _most(share, total)[per_pair.col], 0).sum())
    share_of = per_pair.data / total[per_pair.col]
    i = int(np.lexsort((per_pair.col, per_pair.row, -share_of))[0])
    g1, g2 = divmod(int(pairs[per_pair.col[i]]), int(group.max()) + 1)
    return {"largest": rounded(float(share_of[i])), "pair": f"groups {g1}-{g2}",
            "cables": int(total[per_pair.col[i]]), "group": groups.names[int(per_pair.row[i])],
            **over}


def shares(top, groups: dict[str, FailureGroups], names, share: float | None = None,
           own: dict | None = None) -> dict:
    """Per failure-group kind: the largest router share and group-pair share it reaches (with
    ``share``, the cables over it); ``names``: the router device names; ``own``: per kind the
    (group, router) pairs not counted (``own_tray_segments``)."""
    out = {}
    for kind, g in groups.items():
        if not len(g):
            continue
        out[kind] = {"router": _router_share(top, g, names, share, (own or {}).get(kind))}
        pair = _pair_share(top, g, share)
        if pair is not None:
            out[kind]["group_pair"] = pair
    return out


def block(spread, top, groups: dict[str, FailureGroups],
          plain_groups: FailureGroups | dict[str, FailureGroups], names,
          cable_cost: float | None, optical: int, with_cabinet: dict | None,
          without_cabinet: dict | None, extra_s: float, trunks: dict | None = None,
          floor=None, placements: tuple = (), theta_kinds: dict | None = None) -> dict:
    """The ``spread_risk`` block of summary.json (module doc). ``spread``: the placement's
    ``SpreadRisk``; ``plain_groups``: the plain layout's cabinets (or its groups by kind:
    cabinets, tray segments, power feeds); ``with_cabinet`` / ``without_cabinet``: the
    resilience blocks of the cabinet failures of the plan and of the plain layout; ``trunks``:
    how structured cabling dealt the links over the trunks
    (``planner.cabling.structured.deal_spread``); ``floor`` and ``placements`` (the plan's and
    the plain one): for each router's own tray segment (``own_tray_segments``);
    ``theta_kinds``: per failure kind but cabinets the resilience blocks (``with``, ``without``)
    of the plan's and the plain layout's failures of that kind."""
    def theta(kind_block, name="cabinet"):
        if kind_block is None:
            return None
        return {"theta_ratio": kind_block["theta_ratio"]["worst"],
                "theta": kind_block["worst"]["theta"], name: kind_block["worst"]["name"],
                "theta_kind": kind_block["theta_kind"]}

    if isinstance(plain_groups, FailureGroups):
        plain_groups = {"cabinet": plain_groups}

    def own(kinds, placement):
        if floor is None or placement is None or "tray" not in kinds:
            return None
        return {"tray": own_tray_segments(floor, placement, kinds["tray"])}
    mine, plain = (tuple(placements) + (None, None))[:2]
    with_shares = shares(top, groups, names, spread.share, own(groups, mine))
    without = shares(top, plain_groups, names, spread.share, own(plain_groups, plain))

    def money(value):
        return None if value is None else round(float(value), 2)
    trays = spread.trays
    tray_limited = trays is not None and trays.limited
    return {
        "share": spread.share,
        "scope": _scope(trunks is not None, trays, spread.pairs is not None),
        "enforced": {"cabinet": True, "trunk": trunks is not None, "panel": False,
                     "tray": tray_limited, "row": False,
                     "group_pair": _pairs_enforced(spread, trunks is not None)},
        "met": spread.met,
        "cables_over": spread.cables_over,
        "largest_share": with_shares,
        "without": {"largest_share": without, "cables_over": spread.plain_cables_over},
        "cable_cost": {"with": money(cable_cost), "without": money(spread.plain_cable_cost),
                       "extra": (None if cable_cost is None or spread.plain_cable_cost is None
                                 else money(cable_cost - spread.plain_cable_cost))},
        "optical": {"with": int(optical), "without": spread.plain_optical},
        "worst_cabinet": {"with": theta(with_cabinet), "without": theta(without_cabinet)},
        "worst_other": {kind: {"with": theta(b.get("with"), "group"),
                               "without": theta(b.get("without"), "group")}
                        for kind, b in (theta_kinds or {}).items()},
        **({} if trunks is None else {"trunks": trunks}),
        **({} if trays is None else {"trays": _tray_block(trays, spread.pairs)}),
        "moves": spread.moves, "evaluations": spread.evaluations,
        **_exact_block(spread),
        "extra_s": round(float(extra_s), 3),
    }


def _exact_block(spread) -> dict:
    """``exact_repair``: what the exact cabinet repair did
    (``planner.placement.spread_repair.ExactRepair``); ``lower_bound``: the cables over no
    placement goes below (``planner.placement.spread_bounds.lower_bounds``), beside the
    ``achieved`` ones; ``why_not_met``: where cabinet cables stay over, why."""
    exact, bound = getattr(spread, "exact", None), getattr(spread, "lower_bound", None)
    if exact is None or bound is None:
        return {}
    pairs = spread.pairs
    achieved = {"router_cabinet": spread.cables_over,
                "pair_cabinet": None if pairs is None else pairs.cables_over,
                "router_tray": None if spread.trays is None or not spread.trays.limited
                else spread.trays.cables_over}
    out = {"exact_repair": {"applies": exact.applies, "routers_moved": exact.moved,
                            "cables_over": {"before": exact.cables_over_before,
                                            "after": exact.cables_over_after},
                            "no_matching": exact.no_matching,
                            "within_trays": exact.within_trays,
                            "deterministic_s": exact.deterministic_time},
           "lower_bound": {key: {"bound": value, "achieved": achieved[key]}
                           for key, value in bound.items()}}
    if exact.cables_over_after:
        out["why_not_met"] = (
            "no layout of these cabinets meets the share: the routers have no perfect "
            "matching into cabinets of two" if exact.no_matching else
            "the exact repair applies to cabinets of at most two routers, at most "
            f"{SPREAD_REMATCH_MAX_ROUTERS:,} routers and {SPREAD_REMATCH_MAX_EDGES:,} pairs "
            "that may share a cabinet" if not exact.applies
            else "the exact repair met the cabinet limits but took the tray segments past the "
            "plain layout's tray excess (or a router past its tray cap): undone"
            if not exact.within_trays
            else "the matching search found no layout within its deterministic time and the "
            "cabinet limits")
    return out


def _pairs_enforced(spread, trunks: bool) -> dict:
    """Per failure kind whether a group pair's cables are held to the share: on the cabinets
    by the placement search where the topology has group pairs of more than one cable
    (``planner.placement.spread.PairSpread``), on tray segments by the search where it limits
    the routers' trays (``planner.placement.spread.PairTrays``), on row and hall trunks by the
    dealing; panels and power feeds measured only."""
    return {"cabinet": spread.pairs is not None, "trunk": trunks, "panel": False,
            "tray": spread.pairs is not None and spread.pairs.trays is not None, "row": False}


def _scope(trunks: bool, trays, pairs: bool = False) -> str:
    """What the search and the dealing enforce and what is only measured, in words."""
    limited = trays is not None and trays.limited
    enforced = ["cabinets (a router's cables to the routers of one other cabinet"
                + (", and a group pair's cables with an end in one cabinet)" if pairs else ")")]
    pair_trays = pairs and limited
    if trunks:
        enforced.append("row trunks and hall trunks (a router's cables and a group pair's "
                        "cables on one trunk)")
    if limited:
        enforced.append("tray segments other than the one over the router's own cabinet (a "
                        "router's cables on one segment, over the share or the least the "
                        "trays allow, whichever is higher)"
                        + ("; every tray segment for a group pair's cables on it (the same)"
                           if pair_trays else ""))
    measured = ([] if pair_trays else
                ["group pairs on " + ("tray segments" if pairs else
                                      "cabinets and tray segments")]) + ["panels"]
    if not limited:
        why = "" if trays is None else f" ({trays.why})"
        measured.append(f"tray segments other than the one over the router's own cabinet{why}")
    measured.append("power feeds other than the router's own")
    return "enforced: " + "; ".join(enforced) + "; measured only: " + ", ".join(measured)


def _tray_block(trays, pairs=None) -> dict:
    """The tray segments under the search (``planner.placement.spread.TraySpread``): limited
    or why not, and the cables over the search's limit with and without it; ``group_pair``
    the same for the group pairs' cables (``planner.placement.spread.PairTrays``) where the
    search limits them."""
    if not trays.limited:
        return {"limited": False, "why": trays.why}

    def limited(limit, with_, without) -> dict:
        limit = np.asarray(limit)
        return {"limit": {"least": int(limit.min()), "most": int(limit.max())},
                "cables_over": {"with": int(with_), "without": int(without)}}
    out = {"limited": True, **limited(trays.limit, trays.cables_over, trays.plain_cables_over)}
    pair = None if pairs is None else pairs.trays
    if pair is not None:
        out["group_pair"] = limited(pair.limit, pair.cables_over, pair.plain_cables_over)
    return out


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
                           + _trunk_words(b.get("trunks")) + _tray_words(b)
                           + _theta_words(b.get("worst_other", {})))


def _theta_words(other: dict) -> str:
    """The worst single-failure θ of each other kind, with and without."""
    words = [f"worst {kind} keeps θ {t['with']['theta_ratio']:.4f} against "
             f"{t['without']['theta_ratio']:.4f} without"
             for kind, t in other.items() if t["with"] is not None and t["without"] is not None]
    return "".join(f"; {w}" for w in words)


def _tray_words(b: dict) -> str:
    """The largest share of a router's cables on one tray segment other than its own, with
    and without."""
    w = b["largest_share"].get("tray", {}).get("router")
    wo = b["without"]["largest_share"].get("tray", {}).get("router")
    if w is None or wo is None:
        return ""
    limited = b.get("trays", {}).get("limited")
    over = "" if not limited else (
        f"; {b['trays']['cables_over']['with']:,} cables over the tray limit against "
        f"{b['trays']['cables_over']['without']:,} without")
    return (f"; one other tray segment carries at most {w['largest']:.3f} of a router's "
            f"cables ({wo['largest']:.3f} without{over})")


def _trunk_words(t: dict | None) -> str:
    """The trunk dealing in words: the largest router share on one trunk with and without,
    and the trunks it added; the same for the hall trunks."""
    if t is None:
        return ""
    w, wo = t["with"]["router"], t["without"]["router"]
    over = "" if not w["cables_over"] else f", {w['cables_over']:,} cables over"
    hall = t.get("hall")
    between = ("" if hall is None else
               f"; one hall trunk at most {hall['with']['router']['largest']:.3f} "
               f"({hall['without']['router']['largest']:.3f} without) for "
               f"{hall['trunks_added']:,} hall trunks added "
               f"(${hall['trunk_dollars_added']:,.2f})")
    return (f"; one trunk carries at most {w['largest']:.3f} of a router's cables "
            f"({wo['largest']:.3f} without{over}) for {t['trunks_added']:,} trunks added "
            f"(${t['trunk_dollars_added']:,.2f})" + between)
