"""Shared-risk failure groups of a cabled plan: what fails together when one thing in the room
fails.

Derived from the placed and cabled plan (issue 26, item 1), never entered by hand:

- ``cabinet``: each cabinet's routers; every cable ending there goes with them (the cables of
  a dead router carry nothing) and so do the endpoints (servers) in it, whose only port is on
  one of its routers;
- ``trunk``: each trunk of the structured plant, the links through it
  (the ``links`` table of ``planner.cabling.structured.StructuredPlan``);
- ``panel``: each patch panel, the links through its front or rear ports;
- ``tray``: each tray segment of a hall floor, the network cables routed along it. The trays
  of a hall form a grid (``planner.inputs.floor.routes``): a row tray runs over every row and
  cross trays cross the rows at both row ends and every ``hall.cross_tray_every`` cabinets; a
  segment is the piece between two junctions: a row tray between two cross trays
  (``A:P0-P1``), a cross tray between two rows (``P1:A-B``; ``P0:entry-A`` from the hall
  entry to row A) and the connection between two halls (``H1-H2 link``). A cable takes every
  segment its route runs along (``planner.inputs.floor.tray_segments``), between rows in the
  cross tray of its panels where it runs through some (``cables.csv`` ``segments``: a kept
  cable of a grown plan stays in its standing tray), else the nearest;
- ``row``: each power feed of the floor (``power_feed_rows`` adjacent rows of a hall share
  one; ``docs/floors.md``), the routers of the cabinets on it.

A group is a set of routers that fail and a count of cables cut per topology link (network
cables come first in ``Plan.cables``, one per link times its multiplicity, in link order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from planner.cabling.structured import segment_trays
from planner.inputs.floor import Floor, room_of, row_letters
from planner.inputs.floor.tray_segments import route_segments, tray_code_bases
from planner.performance import tuning
from planner.run.errors import InputError

KINDS = ("cabinet", "trunk", "panel", "tray", "row")
"""Failure-group kinds, in the order they are reported."""
CHOICES = ("all",) + KINDS + ("off",)
"""Values of ``--resilience``: every kind the plan has data for, one kind, or none."""


@dataclass(frozen=True)
class FailureGroups:
    """The groups of one kind: ``names[i]`` fails ``routers[i]`` (row i of a boolean groups x
    routers matrix) and cuts ``cables[i, link]`` cables of each topology link."""

    kind: str
    names: tuple[str, ...]
    routers: sp.csr_matrix
    cables: sp.csr_matrix

    def __len__(self) -> int:
        return len(self.names)

    def failure(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(routers failed, links cut, cables cut of each) of group ``i``."""
        r, c = self.routers, self.cables
        dead = r.indices[r.indptr[i]:r.indptr[i + 1]]
        links = c.indices[c.indptr[i]:c.indptr[i + 1]]
        return dead, links, c.data[c.indptr[i]:c.indptr[i + 1]].astype(np.int64)


def _groups(kind: str, names, group_of_router=None, num_routers: int = 0,
            cable_group=None, cable_link=None, num_links: int = 0) -> FailureGroups:
    """Groups from (router, group) or (network cable, group) pairs."""
    g = len(names)
    if group_of_router is None:
        routers = sp.csr_matrix((g, num_routers), dtype=bool)
    else:
        rows, cols = group_of_router
        routers = sp.csr_matrix((np.ones(len(rows), bool), (rows, cols)), shape=(g, num_routers))
    if cable_group is None:
        cables = sp.csr_matrix((g, num_links), dtype=np.int64)
    else:
        cables = sp.csr_matrix((np.ones(len(cable_group), np.int64), (cable_group, cable_link)),
                               shape=(g, num_links))
        cables.sum_duplicates()
    return FailureGroups(kind, tuple(str(n) for n in names), routers, cables)


def network_cable_links(multiplicity: np.ndarray) -> np.ndarray:
    """Topology link of every network cable (``Plan.cables`` rows 0..num_links-1)."""
    return np.repeat(np.arange(len(multiplicity)), multiplicity)


def _links(cable_link: np.ndarray) -> int:
    """Topology links, from the link of every network cable (each link has a cable)."""
    return int(cable_link[-1]) + 1 if len(cable_link) else 0


def cabinet_groups(placement, num_routers: int, num_links: int) -> FailureGroups:
    """One group per cabinet holding routers: its routers (their cables and endpoints with
    them)."""
    cab = np.asarray(placement.router_cabinet, np.int64)
    used, inverse = np.unique(cab, return_inverse=True)
    names = [placement.cabinet_names[c] for c in used.tolist()]
    return _groups("cabinet", names, (inverse, np.arange(num_routers)), num_routers,
                   num_links=num_links)


def trunk_groups(structured, cable_link: np.ndarray, num_routers: int) -> FailureGroups:
    """One group per trunk: the links whose pieces include it."""
    links = structured.links
    ids = structured.trunks["trunk_id"].astype(str).tolist()
    index = {t: i for i, t in enumerate(ids)}
    per_link = [[t for t in ts.split(",") if t] for ts in links["trunks"].astype(str)]
    lengths = np.array([len(ts) for ts in per_link], np.int64)
    group = np.array([index[t] for ts in per_link for t in ts], np.int64)
    cable = np.repeat(links["cable"].to_numpy(np.int64), lengths)
    return _groups("trunk", ids, num_routers=num_routers, cable_group=group,
                   cable_link=cable_link[cable], num_links=_links(cable_link))


def panel_groups(structured, cable_link: np.ndarray, num_routers: int) -> FailureGroups:
    """One group per patch panel: the links through any of its ports (row panels at both
    ends, entry panels of cross-hall links)."""
    links = structured.links
    names = structured.panels["name"].astype(str).tolist()
    index = pd.Index(names)                  # a hash table: O(links), not a sort of strings
    cable = links["cable"].to_numpy(np.int64)
    pairs = []
    for column in ("a_panel", "b_panel", "a_entry", "b_entry"):
        if column not in links:
            continue
        at = index.get_indexer(links[column].astype(str))
        known = at >= 0
        pairs.append((at[known].astype(np.int64), cable[known]))
    group = np.concatenate([p[0] for p in pairs]) if pairs else np.zeros(0, np.int64)
    cables = np.concatenate([p[1] for p in pairs]) if pairs else np.zeros(0, np.int64)
    key = np.unique(group * (len(cable_link) + 1) + cables)       # a panel counts a link once
    group, cables = key // (len(cable_link) + 1), key % (len(cable_link) + 1)
    return _groups("panel", names, num_routers=num_routers, cable_group=group,
                   cable_link=cable_link[cables], num_links=_links(cable_link))


def tray_groups(floor: Floor, placement, cable_link: np.ndarray, a_router: np.ndarray,
                b_router: np.ndarray, num_routers: int, segments=None) -> FailureGroups:
    """One group per tray segment of a hall floor that carries a network cable (module doc).
    ``segments``: the cables' ``segments`` (``cables.csv``); a cable through panels runs in
    the cross tray of its panels (``planner.cabling.structured.segment_trays``: a kept cable
    of a grown plan in its standing one), the others in the nearest."""
    cab = np.asarray(placement.router_cabinet, np.int64)
    c_hall = np.asarray(placement.cabinet_hall, np.int64)
    c_row = np.asarray(placement.cabinet_row, np.int64)
    c_col = np.asarray(placement.cabinet_col, np.int64)
    room = room_of(floor, c_hall, c_row, c_col)
    tray = None if segments is None else segment_trays(room, segments)
    cable, code = route_segments(room, c_hall, c_row, c_col, cab[a_router], cab[b_router],
                                 tray)
    used, group = np.unique(code, return_inverse=True)
    names = [tray_name(room, int(c)) for c in used]
    return _groups("tray", names, num_routers=num_routers, cable_group=group,
                   cable_link=cable_link[cable], num_links=_links(cable_link))


def tray_name(room, code: int) -> str:
    """``A:P0-P1`` (row tray between cross trays), ``P1:A-B`` / ``P0:entry-A`` (cross tray
    between rows), ``H1-H2 link``; a hall prefix ``H2-`` with several halls. ``code`` as
    ``tray_code_bases`` lays them out."""
    trays, rows, halls = len(room.cross_x), room.rows, room.halls
    span_base, link_base = tray_code_bases(room)
    if code >= link_base:
        a, b = divmod(code - link_base, halls)
        return f"H{a + 1}-H{b + 1} link"
    if code >= span_base:
        rest, j = divmod(code - span_base, rows + 1)
        hall, t = divmod(rest, trays)
        start = "entry" if j == 0 else row_letters(j - 1)
        name = f"P{t}:{start}-{row_letters(j)}"
    else:
        rest, k = divmod(code, trays)
        hall, r = divmod(rest, rows)
        name = f"{row_letters(r)}:P{k}-P{k + 1}"
    return f"H{hall + 1}-{name}" if halls > 1 else name


def row_groups(floor: Floor, placement, num_routers: int, num_links: int) -> FailureGroups:
    """One group per power feed: ``floor.power_feed_rows`` adjacent rows of a hall."""
    per = int(floor.power_feed_rows)
    cab = np.asarray(placement.router_cabinet, np.int64)
    hall = np.asarray(placement.cabinet_hall, np.int64)[cab]
    feed = np.asarray(placement.cabinet_row, np.int64)[cab] // per
    key = hall * (int(feed.max()) + 1) + feed
    used, group = np.unique(key, return_inverse=True)
    halls = int(hall.max()) + 1
    names = []
    for k in used.tolist():
        h, f = divmod(k, int(feed.max()) + 1)
        first, last = f * per, f * per + per - 1
        rows = row_letters(first) if per == 1 else f"{row_letters(first)}-{row_letters(last)}"
        names.append((f"H{h + 1}-" if halls > 1 else "") + f"row {rows} feed")
    return _groups("row", names, (group, np.arange(num_routers)), num_routers,
                   num_links=num_links)


def missing_data(floor: Floor, has_plant: bool) -> dict[str, str]:
    """Kinds the plan has no data for, with why; ``has_plant``: the plan has trunks and
    panels."""
    out = {}
    if not has_plant:
        out["trunk"] = out["panel"] = ("the floor has no structured cabling (no trunks or "
                                       "panels)")
    if floor.hall is None:
        out["tray"] = "the floor is the papers' abstract grid (no trays)"
    if floor.power_feed_rows is None:
        out["row"] = ("the floor gives no power feeds (add 'power_feed_rows' to it, "
                      "docs/floors.md)")
    return out


def check_options(choice: str, fail_links, floor: Floor, num_links: int) -> int:
    """InputError for a bad ``--resilience`` or ``--fail-links`` (module doc); the cables per
    random draw (None: ``tuning.DEFAULT_FAIL_LINKS``, at most the network cables)."""
    check_kinds(choice, floor)
    if fail_links is None:
        return 0 if choice == "off" else min(tuning.DEFAULT_FAIL_LINKS, int(num_links))
    if isinstance(fail_links, bool) or not isinstance(fail_links, (int, np.integer)) \
            or fail_links < 0:
        raise InputError(f"--fail-links must be a whole number of cables, 0 or more (0: no "
                         f"random failures), got {fail_links!r}")
    if fail_links > num_links:
        raise InputError(f"--fail-links {fail_links} is more than the {num_links:,} network "
                         f"cables of the topology; give at most {num_links:,}")
    return int(fail_links)


def check_kinds(choice: str, floor: Floor) -> None:
    """InputError for a ``--resilience`` kind the floor has no data for (before placement;
    trunks and panels exist only on floors with structured cabling)."""
    if choice not in CHOICES:
        raise InputError(f"--resilience must be one of {', '.join(CHOICES)}, got {choice!r}")
    why = missing_data(floor, floor.structured_cabling and floor.hall is not None).get(choice)
    if why:
        raise InputError(f"--resilience {choice}: floor '{floor.source}' has no data for it: "
                         f"{why}; choose another kind or 'all'")


def over_budget(top, groups: dict[str, FailureGroups]) -> dict[str, str]:
    """Kinds whose (failures x arcs) is above ``tuning.RESILIENCE_WORK_MAX`` (kind -> why):
    ``--resilience all`` leaves them out, naming a kind measures it whatever its size."""
    arcs = 2 * len(top.links)
    return {kind: (f"{len(g):,} failures x {arcs:,} arcs is above the budget of "
                   f"{tuning.RESILIENCE_WORK_MAX:,} of --resilience all; name the kind "
                   f"(--resilience {kind}) to measure it")
            for kind, g in groups.items() if len(g) * arcs > tuning.RESILIENCE_WORK_MAX}


def derive(kinds: str, topology, placement, floor: Floor, cables: pd.DataFrame,
           structured) -> tuple[dict[str, FailureGroups], dict[str, str]]:
    """The failure groups of ``kinds`` (a ``CHOICES`` value) and, for ``all``, the kinds
    skipped for want of data (kind -> why)."""
    if kinds == "off":
        return {}, {}
    missing = missing_data(floor, structured is not None and len(structured.trunks) > 0)
    wanted = KINDS if kinds == "all" else (kinds,)
    r, links = topology.num_routers, len(topology.links)
    cable_link = network_cable_links(topology.multiplicity)
    n_net = len(cable_link)
    out: dict[str, FailureGroups] = {}
    for kind in wanted:
        if kind in missing:
            continue
        if kind == "cabinet":
            out[kind] = cabinet_groups(placement, r, links)
        elif kind == "trunk":
            out[kind] = trunk_groups(structured, cable_link, r)
        elif kind == "panel":
            out[kind] = panel_groups(structured, cable_link, r)
        elif kind == "tray":
            out[kind] = tray_groups(floor, placement, cable_link,
                                    cables["a_router"].to_numpy(np.int64)[:n_net],
                                    cables["b_router"].to_numpy(np.int64)[:n_net], r,
                                    cables["segments"].iloc[:n_net]
                                    if "segments" in cables else None)
        elif kind == "row":
            out[kind] = row_groups(floor, placement, r, links)
    skipped = {k: v for k, v in missing.items() if k in wanted}
    if kinds == "all":
        skipped |= over_budget(topology, out)
    return out, skipped
