"""The viewer's resilience layer: θ after each cabinet fails, and what each tray segment carries.

From the plan's per-group outcomes (``Plan.resilience_groups``, kept by
``planner.performance.resilience.per_group``), three tables of the page's data block:

- ``fail_cabinets``: every measured cabinet (a ref to the cabinets table) with its θ after
  failure, that θ over the intact θ, endpoints lost and endpoint pairs cut off; cabinets
  holding no router are not failure groups and have no row;
- ``fail_trays``: every tray segment that carries a network cable, named as
  ``planner.performance.failure_groups.tray_groups`` names it, drawn from (x0, y0) to
  (x1, y1) in the floor's frame (``planner.exports.viewer.geometry``), with its θ after
  failure, that θ over the intact θ, endpoint pairs cut off and its count of cables; only when the plan measured the tray kind (its work budget then bounds
  the segments' cable lists: a plan without tray failures carries no segment);
- ``fail_tray_cables``: the cable rows of every segment, segment after segment
  (``tray_groups`` with each cable as its own link: the same segments, cable by cable).

Hall-to-hall segments (``H1-H2 link``) are drawn along ``geometry.link_path``; their points go
in the meta block (``tray_paths``). The meta block also says, per kind, whether it was
measured and why not.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from planner.exports.viewer import geometry as geo
from planner.inputs import floor as floors
from planner.performance import failure_groups as fg

KINDS = ("cabinet", "tray")
"""The failure kinds the viewer draws."""


def _measured(plan, kind: str) -> dict:
    """``{"measured": bool, "why": str}`` of one kind, from summary.json's ``resilience``."""
    block = plan.summary.get("resilience")
    groups = plan.resilience_groups or {}
    if block is None:
        return {"measured": False, "why": "resilience was not measured (--resilience off)"}
    if kind in groups:
        info = block["kinds"][kind]
        return {"measured": True, "why": "", "theta_kind": info["theta_kind"],
                "worst": info["worst"]["name"]}
    if kind in block["kinds"]:
        return {"measured": False, "why": "summary.json has the worst group only; plan again "
                                          "for every group's value"}
    why = block.get("not_derived", {}).get(kind, f"--resilience did not ask for {kind} failures")
    return {"measured": False, "why": why}


def cabinet_table(plan) -> pd.DataFrame:
    """``fail_cabinets`` (module doc)."""
    per = (plan.resilience_groups or {}).get("cabinet")
    if per is None:
        return pd.DataFrame({"cabinet": pd.Series([], dtype=object),
                             "theta_ratio": pd.Series([], dtype=float)})
    return pd.DataFrame({"cabinet": list(per["names"]), "theta_ratio": per["theta_ratio"],
                         "theta": per["theta"], "endpoints_lost": per["endpoints_lost"],
                         "pairs_cut": per["pairs_cut"]})


def _segment_lines(plan) -> dict[str, list[tuple[float, float]]]:
    """Every tray segment name the floor can have -> its points in the drawing's frame."""
    floor = plan.floor
    cab = plan.cabinets
    room = floors.room_of(floor, cab["hall"], cab["row"], cab["col"])
    origin = geo.hall_origins(room)
    cross_x = np.asarray(room.cross_x, float)
    trays, rows, halls = len(cross_x), room.rows, room.halls
    span_base, link_base = fg.tray_code_bases(room)
    pitch, ey = float(floor.row_pitch_m), float(room.entry_xy[1])

    def name(code: int) -> str:
        return fg.tray_name(room, code)

    out: dict[str, list[tuple[float, float]]] = {}
    for h in range(halls):
        ox, oy = (float(v) for v in origin[h])
        for r in range(rows):
            for k in range(trays):        # bay k: cross tray k to k + 1 (none past the last)
                y = oy + r * pitch
                out[name((h * rows + r) * trays + k)] = [(ox + cross_x[k], y),
                                                         (ox + cross_x[min(k + 1, trays - 1)], y)]
        for t in range(trays):
            x = ox + cross_x[t]
            for j in range(rows + 1):
                y0 = oy + (ey if j == 0 else (j - 1) * pitch)
                out[name(span_base + (h * trays + t) * (rows + 1) + j)] = [(x, y0),
                                                                           (x, oy + j * pitch)]
    for a in range(halls):
        for b in range(a + 1, halls):
            out[name(link_base + a * halls + b)] = [tuple(p) for p in
                                                    geo.link_path(room, origin, a, b)]
    return out


def tray_tables(plan) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, list]]:
    """``fail_trays``, ``fail_tray_cables`` and the hall links' paths (module doc); empty when
    the plan did not measure tray failures."""
    empty = (pd.DataFrame({"name": pd.Series([], dtype=object)}),
             pd.DataFrame({"cable": pd.Series([], dtype=np.int64)}), {})
    per = (plan.resilience_groups or {}).get("tray")
    if per is None or plan.floor.hall is None or not len(plan.topology.links):
        return empty
    top = plan.topology
    n_net = int(np.sum(top.multiplicity))
    cables = plan.cables
    groups = fg.tray_groups(plan.floor, plan.placement, np.arange(n_net),
                            cables["a_router"].to_numpy(np.int64)[:n_net],
                            cables["b_router"].to_numpy(np.int64)[:n_net], top.num_routers,
                            cables["segments"].iloc[:n_net] if "segments" in cables else None)
    if not len(groups):
        return empty
    lines = _segment_lines(plan)
    member = groups.cables.tocsr()
    member.sort_indices()
    first = [lines[n][0] for n in groups.names]
    last = [lines[n][-1] for n in groups.names]
    trays = pd.DataFrame({"name": list(groups.names),
                          "x0": [p[0] for p in first], "y0": [p[1] for p in first],
                          "x1": [p[0] for p in last], "y1": [p[1] for p in last],
                          "cables": np.diff(member.indptr).astype(np.int64)})
    assert tuple(per["names"]) == groups.names, "tray segments differ from the plan's"
    trays = trays.assign(theta_ratio=per["theta_ratio"], theta=per["theta"],
                         pairs_cut=per["pairs_cut"])     # a tray fails no router: no endpoint lost
    paths = {n: [list(p) for p in lines[n]] for n in groups.names if len(lines[n]) > 2}
    return trays, pd.DataFrame({"cable": member.indices.astype(np.int64)}), paths


def tables_and_meta(plan) -> tuple[dict[str, pd.DataFrame], dict]:
    """The three tables and the ``resilience`` meta entry of the page (module doc)."""
    trays, members, paths = tray_tables(plan)
    block = plan.summary.get("resilience") or {}
    meta = {"intact_theta": block.get("intact_theta"), "tray_paths": paths,
            **{kind: _measured(plan, kind) for kind in KINDS}}
    return ({"fail_cabinets": cabinet_table(plan), "fail_trays": trays,
             "fail_tray_cables": members}, meta)
