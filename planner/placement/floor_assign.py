"""Electrical groups and their cabinets -> positions on the floor (a quadratic assignment).

Each group gets a slot of ``width`` adjacent cabinets in one row (its cabinets side by side);
``planner.inputs.floor.slot_layout`` lays the k slots out: the first k of a near-square grid in
row-major order on the papers' abstract floors (the x*y+z footprint of Galaxyfly §6.2), or
compact blocks in as many halls as needed on hall floors. The cost of an assignment pi is
sum_{a<b} F_ab D[pi(a), pi(b)], F = optical links between groups, D = priced distance between
slot centres: the catalog price of the optical cable of the routed length between them
(``planner.inputs.floor.routes.route_length_m``: along the trays, through the hall connection
between halls, so groups that talk a lot share a hall and nearby rows) plus a small length term, so
flat paper-mode prices still prefer short cables.

* Uniform flows (Slim Fly racks, Dragonfly groups): every permutation costs the same; the
  compact footprint is all that matters, groups keep their order.
* Otherwise: spectral embedding (eigenvectors 2-3 of the quotient Laplacian diag(F1) - F),
  ``linear_sum_assignment`` of the embedding onto slot coordinates (halls side by side) for
  the 8 reflections of the grid, then best-improvement 2-opt swaps with the vectorised delta
  H[a,pi_b] - H[a,pi_a] + H[b,pi_a] - H[b,pi_b] + 2 F_ab D[pi_a,pi_b], H = F D[:, pi]^T
  (Taillard 1991-style pair exchange), at most ``TWO_OPT_WORK / k^2`` swaps per start. Above
  ``MANY_GROUPS`` groups the embedding is mapped by sorting (``band_assignment``) instead.
  Row-major order is kept as a candidate, so the result is never worse than the naive layout.
  With at most ``CPSAT_MAX_GROUPS`` groups the best assignment is then polished by the CP-SAT
  slot model (``cpsat.qap_polish``), kept only when strictly cheaper.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.optimize import linear_sum_assignment

from planner.inputs import floor as floors
from planner.inputs.floor.routes import route_length_m
from planner.placement.cpsat import qap_polish
from planner.run.errors import InputError
from planner.placement.tuning import (CPSAT_DETERMINISTIC_TIME, CPSAT_MAX_GROUPS, LENGTH_WEIGHT,
                                      MANY_GROUPS, TWO_OPT_WORK)


def slot_grid(floor, k: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, first column) of the first k group slots of ``width`` cabinets in their halls
    (``planner.inputs.floor.slot_layout``, which also gives the hall)."""
    layout = floors.slot_layout(floor, k, width)
    return layout.row, layout.col


def slot_costs(floor, catalog, rows: np.ndarray, cols: np.ndarray, width: int,
               halls: np.ndarray | None = None, room=None) -> np.ndarray:
    """Priced routed distance between slot centres (k x k, zero diagonal); ``halls`` default
    to one hall, ``room`` to the room the slots span."""
    rows, cols = np.asarray(rows), np.asarray(cols)
    halls = np.zeros(len(rows), dtype=np.int64) if halls is None else np.asarray(halls)
    if room is None:
        room = floors.room_of(floor, halls, rows, cols + width - 1)
    centre = cols + (width - 1) / 2.0
    length = route_length_m(room, halls[:, None], rows[:, None], centre[:, None],
                            halls[None, :], rows[None, :], centre[None, :])
    length = np.broadcast_to(length, (len(rows), len(rows)))
    cost = LENGTH_WEIGHT * length
    if catalog is not None:
        from planner.inputs.parts.media import choose_media

        distinct, index = np.unique(length, return_inverse=True)  # a grid has few lengths
        try:
            _, _, price = choose_media(catalog, floor, distinct, False)
            cost = cost + price[index].reshape(length.shape)
        except InputError:
            pass
    np.fill_diagonal(cost, 0.0)
    return cost


def slot_points(layout) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) coordinates of the slots for the spectral starts, halls side by side
    one hall width apart."""
    gap = 2 * max(layout.room.cols, 1)
    return layout.row, layout.col + layout.hall * gap


def qap_cost(flows: np.ndarray, dist: np.ndarray, perm: np.ndarray) -> float:
    return 0.5 * float(np.sum(flows * dist[np.ix_(perm, perm)]))


def two_opt(flows: np.ndarray, dist: np.ndarray, perm: np.ndarray, max_iter: int) -> np.ndarray:
    """Best-improvement pair exchange until no swap lowers the cost (or ``max_iter`` swaps)."""
    perm = perm.copy()
    f = flows.astype(float)
    dp = dist[np.ix_(perm, perm)]  # dp[a, b] = D[pi_a, pi_b]
    m = f @ dp  # m[a, b] = sum_c F_ac D[pi_b, pi_c]: group a's cost if it sat at b's slot
    pair = 2.0 * f * dp
    delta = np.empty_like(m)
    for _ in range(max_iter):
        d = np.diag(m).copy()
        np.add(m, m.T, out=delta)
        delta -= d[:, None]
        delta -= d[None, :]
        delta += pair
        np.fill_diagonal(delta, 0.0)
        i = int(np.argmin(delta))
        a, b = divmod(i, len(perm))
        if delta[a, b] >= -1e-9:
            break
        # swap a and b: update m for the changed slots of a and b, swap a's and b's columns of
        # m and rows/columns of dp (the slots they now hold), recompute pair on those rows/columns
        m += np.multiply.outer(f[:, a] - f[:, b], dp[:, b] - dp[:, a])
        m[:, [a, b]] = m[:, [b, a]]
        dp[[a, b], :] = dp[[b, a], :]
        dp[:, [a, b]] = dp[:, [b, a]]
        pair[[a, b], :] = 2.0 * f[[a, b], :] * dp[[a, b], :]
        pair[:, [a, b]] = 2.0 * f[:, [a, b]] * dp[:, [a, b]]
        perm[a], perm[b] = perm[b], perm[a]
    return perm


def band_assignment(emb: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Slot of each group, O(k log k): groups sorted by their first embedding coordinate fill
    the slot columns left to right, and inside a column go by the second coordinate."""
    slot_order = np.lexsort((pts[:, 1], pts[:, 0]))
    _, per_column = np.unique(pts[slot_order, 0], return_counts=True)
    group_order = np.argsort(emb[:, 0], kind="stable")
    slot = np.empty(len(emb), dtype=np.int64)
    start = 0
    for size in per_column.tolist():
        band = group_order[start:start + size]
        slot[band[np.argsort(emb[band, 1], kind="stable")]] = slot_order[start:start + size]
        start += size
    return slot


def spectral_starts(flows: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                    many: bool = False) -> list[np.ndarray]:
    """Assignments of the spectral embedding onto the slots: ``linear_sum_assignment`` on
    squared distance for each of the 8 grid reflections, or (``many`` groups, where that
    O(k^3) assignment would take seconds to minutes) one ``band_assignment``."""
    k = len(flows)
    lap = np.diag(flows.sum(axis=1)) - flows
    _, vecs = scipy.linalg.eigh(lap.astype(float), subset_by_index=[0, min(2, k - 1)])
    emb = vecs[:, 1:3] if k >= 3 else np.column_stack([vecs[:, -1], np.zeros(k)])
    emb = (emb - emb.mean(axis=0)) / np.maximum(emb.std(axis=0), 1e-12)
    pts = np.column_stack([cols, rows]).astype(float)
    pts = (pts - pts.mean(axis=0)) / np.maximum(pts.std(axis=0), 1e-12)
    if many:
        return [band_assignment(emb, pts)]
    starts = []
    for swap in (False, True):
        e = emb[:, ::-1] if swap else emb
        for sx in (1.0, -1.0):
            for sy in (1.0, -1.0):
                q = e * np.array([sx, sy])
                cost = ((q[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2)
                _, slot = linear_sum_assignment(cost)
                starts.append(slot.astype(np.int64))
    return starts


def assign_slots(flows: np.ndarray, dist: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Slot of each group minimising sum F_ab D[slot_a, slot_b]."""
    k = len(flows)
    identity = np.arange(k)
    off = flows[~np.eye(k, dtype=bool)]
    if k <= 2 or off.min(initial=0) == off.max(initial=0):
        return identity
    best, best_cost = identity, qap_cost(flows, dist, identity)
    swaps = min(20 * k, max(1, int(TWO_OPT_WORK // (k * k))))
    for start in [identity] + spectral_starts(flows, rows, cols, many=k > MANY_GROUPS):
        perm = two_opt(flows, dist, start, max_iter=swaps)
        cost = qap_cost(flows, dist, perm)
        if cost < best_cost - 1e-9:
            best, best_cost = perm, cost
    if k <= CPSAT_MAX_GROUPS:
        polished = qap_polish(flows, dist, best, det_time=CPSAT_DETERMINISTIC_TIME)
        if polished is not None:
            best = polished
    return best


def place_on_floor(floor, catalog, flows: np.ndarray, cabinet_group: np.ndarray):
    """(cabinet_hall, cabinet_row, cabinet_col) for cabinets numbered group by group."""
    k = len(flows)
    counts = np.bincount(cabinet_group, minlength=k)
    width = int(counts.max(initial=1))
    if floor.group_cabinets is not None:
        width = max(width, int(floor.group_cabinets))
    layout = floors.slot_layout(floor, k, width)
    dist = slot_costs(floor, catalog, layout.row, layout.col, width, layout.hall, layout.room)
    slot = assign_slots(flows, dist, *slot_points(layout))
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    offset = np.arange(len(cabinet_group)) - first[cabinet_group]
    at = slot[cabinet_group]
    return (layout.hall[at].astype(np.int64), layout.row[at].astype(np.int64),
            (layout.col[at] + offset).astype(np.int64))
