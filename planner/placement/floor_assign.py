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

Two paths, chosen by the number of groups k (``tuning.SPARSE_MIN_GROUPS``):

* Exact path (small k, ``planner.placement.qap.assign_slots``), on dense k x k F and D:
  - Uniform flows (Slim Fly racks, Dragonfly groups): every permutation costs the same; the
    compact footprint is all that matters, groups keep their order.
  - Otherwise: spectral embedding (eigenvectors 2-3 of the quotient Laplacian diag(F1) - F),
    ``linear_sum_assignment`` of the embedding onto slot coordinates (halls side by side) for
    the 8 reflections of the grid, then best-improvement 2-opt swaps with the vectorised delta
    H[a,pi_b] - H[a,pi_a] + H[b,pi_a] - H[b,pi_b] + 2 F_ab D[pi_a,pi_b], H = F D[:, pi]^T
    (Taillard 1991-style pair exchange), at most ``TWO_OPT_WORK / k^2`` swaps per start. Above
    ``MANY_GROUPS`` groups the embedding is mapped by sorting (``band_assignment``) instead.
    Row-major order is kept as a candidate, so the result is never worse than the naive layout.
    With at most ``CPSAT_MAX_GROUPS`` groups the best assignment is then polished by the CP-SAT
    slot model (``cpsat.qap_polish``), kept only when strictly cheaper.
* Hierarchical path (large k, ``planner.placement.floor_assign_sparse``): sparse F, distances
  priced on demand, groups to halls by a balanced partition, each hall by the exact path's
  dense search, then a sparse pair exchange over the whole floor. Nothing k x k is built.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from planner.inputs import floor as floors
from planner.inputs.floor.routes import route_length_m
from planner.placement.floor_assign_sparse import SlotMetric, assign_slots_sparse
from planner.placement.qap import assign_slots, qap_cost  # noqa: F401 - the exact path's entry points
from planner.run.errors import InputError
from planner.placement.tuning import LENGTH_WEIGHT, SPARSE_MIN_GROUPS


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


def group_flows(graph, part: np.ndarray) -> sp.csr_matrix:
    """Sparse symmetric k x k link weight between the groups of ``part`` (zero diagonal): only
    the group pairs with links are stored, O(links) memory whatever k is."""
    part = np.asarray(part, dtype=np.int64)
    k = int(part.max()) + 1 if part.size else 0
    pu, pv = part[graph.links[:, 0]], part[graph.links[:, 1]]
    out = pu != pv
    w = graph.weights[out]
    f = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([pu[out], pv[out]]),
                                                  np.concatenate([pv[out], pu[out]]))),
                      shape=(k, k)).tocsr()
    f.sum_duplicates()
    f.sort_indices()
    return f


def place_on_floor(floor, catalog, flows, cabinet_group: np.ndarray):
    """(cabinet_hall, cabinet_row, cabinet_col) for cabinets numbered group by group; ``flows``
    is the k x k group flow matrix, dense or sparse (``group_flows``), zero diagonal."""
    k = flows.shape[0]
    counts = np.bincount(cabinet_group, minlength=k)
    width = int(counts.max(initial=1))
    if floor.group_cabinets is not None:
        width = max(width, int(floor.group_cabinets))
    layout = floors.slot_layout(floor, k, width)
    if k > SPARSE_MIN_GROUPS:
        slot = assign_slots_sparse(sp.csr_matrix(flows), layout, SlotMetric(floor, catalog, layout),
                                   *slot_points(layout))
    else:
        dense = flows.toarray() if sp.issparse(flows) else np.asarray(flows)
        dist = slot_costs(floor, catalog, layout.row, layout.col, width, layout.hall, layout.room)
        slot = assign_slots(dense, dist, *slot_points(layout))
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    offset = np.arange(len(cabinet_group)) - first[cabinet_group]
    at = slot[cabinet_group]
    return (layout.hall[at].astype(np.int64), layout.row[at].astype(np.int64),
            (layout.col[at] + offset).astype(np.int64))
