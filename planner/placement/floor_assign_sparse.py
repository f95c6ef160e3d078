"""Groups over floor slots for many groups: hierarchical and sparse, nothing k x k.

The problem is the quadratic assignment of ``floor_assign`` (minimise sum_{a<b} F_ab D[pi_a,
pi_b]); at 1M endpoints k is in the tens of thousands, where a dense k x k array takes GBs and
the dense 2-opt k^3 operations. Here F is a sparse matrix (only group pairs with links) and D is
priced on demand from the slots' positions (``SlotMetric``), in three levels:

1. Halls: a balanced partition of the group graph into one block per hall (METIS, the
   project's partitioner, ``partition.metis_partition``), blocks to halls by the exact path's
   assignment on the small quotient (halls x halls), then moves to the exact hall sizes
   (``hall_partition``).
2. Slots in a hall: the exact path's dense search on the hall's groups and slots (spectral
   starts and 2-opt, ``qap``) with a work budget per hall; a hall larger than
   ``tuning.SPARSE_MIN_GROUPS`` (one huge hall, the papers' abstract grid) gets the sparse
   spectral embedding (``scipy.sparse.linalg.eigsh`` from a fixed start vector) mapped onto
   its slots by sorting (``qap.band_assignment``).
3. The whole floor: pair exchange with sparse deltas (``sparse_two_opt``): the delta of
   swapping a and b reads only the neighbours of a and b (Taillard 1991's pair exchange, one
   pair at a time), candidate partners are the groups in the neighbouring slots and next to a
   group's neighbours, and the improving swaps of a pass are applied together when they share
   no group or neighbour (so every delta stays exact). The work is counted in neighbour
   visits (``tuning.SPARSE_TWO_OPT_WORK``), never in seconds.

Row-major order (the naive layout) is polished too and kept when cheaper, so the result is never
worse than it. Memory is O(k + links); time O(links x passes) plus the partitioner's.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg
from scipy.optimize import linear_sum_assignment

from planner.inputs.floor.routes import route_length_m
from planner.placement.graph import Graph
from planner.placement.partition import metis_partition
from planner.placement.qap import (assign_slots, band_assignment, laplacian_embedding,
                                   qap_cost, standardized, two_opt)
from planner.run.errors import InputError
from planner.placement.tuning import (HALL_LSA_GROUPS, HALL_TWO_OPT_WORK, LENGTH_WEIGHT,
                                      MANY_GROUPS, SLOT_TABLE_ENTRIES, SPARSE_CHUNK_VISITS,
                                      SPARSE_EIGSH_MAXITER, SPARSE_STALL_PASSES,
                                      SPARSE_VISITS_PER_LINK)


class _Unpriced(Exception):
    """A slot distance no optical cable of the catalog reaches: price by length only."""


class SlotMetric:
    """Priced routed distance between slot centres, on demand for arrays of slot pairs: the
    entries of ``floor_assign.slot_costs``' k x k matrix without building it.

    Every hall holds the same block of positions (``planner.inputs.floor.slot_layout``), and a
    route between halls depends on the two positions and the hall connection only
    (``planner.inputs.floor.routes``), so the distances are tables over positions: one inside a
    hall (positions^2) and one per distinct hall-connection length (positions^2 each), priced
    once. Where those tables would exceed ``tuning.SLOT_TABLE_ENTRIES`` (one huge hall, the
    abstract grid of a large system) each call routes and prices its pairs instead."""

    def __init__(self, floor, catalog, layout, priced: bool = True):
        self.floor, self.catalog, self.room = floor, catalog, layout.room
        self.hall = np.asarray(layout.hall, dtype=np.int64)
        self.row = np.asarray(layout.row, dtype=np.int64)
        self.width = int(layout.width)
        self.centre = layout.col + (self.width - 1) / 2.0
        self.priced = priced and catalog is not None
        places, self.pos = np.unique(np.column_stack([self.row, layout.col]), axis=0,
                                     return_inverse=True)
        self.pos = self.pos.ravel()
        halls = int(self.hall.max()) + 1 if self.hall.size else 1
        pairs = self.room.link_m(np.arange(halls)[:, None], np.arange(halls)[None, :])
        pairs = np.broadcast_to(pairs, (halls, halls))
        links, link_class = np.unique(pairs, return_inverse=True)
        self.link_class = link_class.reshape(halls, halls)
        p = len(places)
        self.tables = None
        if p * p * (1 + len(links)) <= SLOT_TABLE_ENTRIES:
            self.tables = self._tables(places, pairs, links)

    def _tables(self, places: np.ndarray, pairs: np.ndarray, links: np.ndarray) -> np.ndarray:
        """(1 + links, P, P) priced distance: [0] inside a hall, [1 + i] between halls joined by
        ``links[i]`` (the first pair of two halls with that connection)."""
        p = len(places)
        row, centre = places[:, 0], places[:, 1] + (self.width - 1) / 2.0
        out = np.empty((1 + len(links), p, p))
        ra, rb = np.repeat(row, p), np.tile(row, p)
        ca, cb = np.repeat(centre, p), np.tile(centre, p)
        apart = ~np.eye(len(pairs), dtype=bool)
        for i in range(1 + len(links)):
            ha, hb = (0, 0)
            if i and np.any(apart & (pairs == links[i - 1])):
                ha, hb = np.argwhere(apart & (pairs == links[i - 1]))[0]
            out[i] = route_length_m(self.room, np.full(p * p, ha), ra, ca, np.full(p * p, hb),
                                    rb, cb).reshape(p, p)
        cost = LENGTH_WEIGHT * out
        if self.priced:
            from planner.inputs.parts.media import choose_media

            distinct, index = np.unique(out, return_inverse=True)
            try:
                _, _, price = choose_media(self.catalog, self.floor, distinct, False)
                cost = cost + price[index].reshape(out.shape)
            except InputError:
                self.priced = False
        np.fill_diagonal(cost[0], 0.0)
        return cost

    def unpriced(self) -> "SlotMetric":
        out = object.__new__(SlotMetric)
        out.__dict__.update(self.__dict__, priced=False)
        return out

    def cost(self, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
        """D[sa, sb] elementwise (0 where sa == sb)."""
        sa, sb = np.asarray(sa, dtype=np.int64), np.asarray(sb, dtype=np.int64)
        if self.tables is not None:
            ha, hb = self.hall[sa], self.hall[sb]
            table = np.where(ha == hb, 0, 1 + self.link_class[ha, hb])
            p = self.tables.shape[1]
            return self.tables.ravel()[(table * p + self.pos[sa]) * p + self.pos[sb]]
        length = route_length_m(self.room, self.hall[sa], self.row[sa], self.centre[sa],
                                self.hall[sb], self.row[sb], self.centre[sb])
        cost = LENGTH_WEIGHT * length
        if self.priced and length.size:
            from planner.inputs.parts.media import choose_media

            distinct, index = np.unique(length, return_inverse=True)
            try:
                _, _, price = choose_media(self.catalog, self.floor, distinct, False)
            except InputError:
                raise _Unpriced from None
            cost = cost + price[index].reshape(length.shape)
        return np.where(sa == sb, 0.0, cost)

    def matrix(self, slots: np.ndarray) -> np.ndarray:
        """Dense D among ``slots`` (len(slots)^2: for small sets only)."""
        slots = np.asarray(slots, dtype=np.int64)
        return self.cost(np.repeat(slots, len(slots)), np.tile(slots, len(slots))).reshape(
            len(slots), len(slots))


class _HallMetric:
    """The metric of a subset of slots, renumbered 0..len-1."""

    def __init__(self, parent: SlotMetric, slots: np.ndarray):
        self.parent, self.slots = parent, slots

    def cost(self, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
        return self.parent.cost(self.slots[sa], self.slots[sb])

    matrix = SlotMetric.matrix


def sparse_cost(flows: sp.csr_matrix, metric: SlotMetric, slot: np.ndarray) -> float:
    """sum_{a<b} F_ab D[slot_a, slot_b] in O(links)."""
    upper = sp.triu(flows, 1).tocoo()
    return float(np.dot(upper.data, metric.cost(slot[upper.row], slot[upper.col])))


def _ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Concatenation of arange(s, s + n) for every (s, n)."""
    offsets = np.cumsum(lens) - lens
    return np.arange(int(lens.sum())) - np.repeat(offsets - starts, lens)


def _is_uniform(flows: sp.csr_matrix) -> bool:
    k = flows.shape[0]
    return flows.nnz == k * (k - 1) and flows.data.min(initial=0) == flows.data.max(initial=0)


# ----------------------------------------------------------------------------- level 1: halls

def _group_graph(flows: sp.csr_matrix) -> Graph:
    upper = sp.triu(flows, 1).tocoo()
    links = np.stack([upper.row, upper.col], axis=1).astype(np.int64)
    order = np.lexsort((links[:, 1], links[:, 0]))
    return Graph(n=flows.shape[0], links=links[order].reshape(-1, 2),
                 weights=upper.data[order].astype(np.int64), endpoints=np.zeros(flows.shape[0], np.int64))


def _to_sizes(flows: sp.csr_matrix, block: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Move groups out of blocks above their size into blocks below it, each time the move
    that keeps the most links inside blocks (ties: lowest group, lowest block)."""
    block = block.copy()
    count = np.bincount(block, minlength=len(sizes))
    while np.any(count > sizes):
        b = int(np.flatnonzero(count > sizes)[0])
        short = np.flatnonzero(count < sizes)
        members = np.flatnonzero(block == b)
        rows = flows[members].tocoo()
        links = np.zeros((len(members), len(sizes)))
        np.add.at(links, (rows.row, block[rows.col]), rows.data)
        gain = links[:, short] - links[:, [b]]
        i, j = np.unravel_index(int(np.argmax(gain)), gain.shape)
        block[members[i]] = short[j]
        count[b] -= 1
        count[short[j]] += 1
    return block


def hall_partition(flows: sp.csr_matrix, metric: SlotMetric, hall_of_slot: np.ndarray) -> np.ndarray:
    """Hall of each group: as many groups per hall as the hall has slots, few links between
    halls, and blocks that talk much in halls close together (module doc, level 1)."""
    k = flows.shape[0]
    sizes = np.bincount(hall_of_slot)
    halls = len(sizes)
    if halls == 1:
        return np.zeros(k, dtype=np.int64)
    block = metis_partition(_group_graph(flows), np.ones(k, dtype=np.int64), halls, seed=0, ufactor=1)
    indicator = sp.csr_matrix((np.ones(k), (np.arange(k), block)), shape=(k, halls))
    quotient = (indicator.T @ flows @ indicator).toarray()
    np.fill_diagonal(quotient, 0.0)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    middle = first + sizes // 2                      # a hall's representative slot
    hall_of_block = assign_slots(quotient, metric.matrix(middle), np.zeros(halls, np.int64),
                                 np.arange(halls))
    return _to_sizes(flows, hall_of_block[block], sizes)


# ----------------------------------------------------------------------------- level 2: a hall

def _embedding(flows: sp.csr_matrix) -> np.ndarray:
    """Eigenvectors 2-3 of the Laplacian L = diag(F1) - F, as the top of c I - L (c >= the
    largest eigenvalue, Gershgorin), by Lanczos from a fixed start vector."""
    k = flows.shape[0]
    degree = np.asarray(flows.sum(axis=1)).ravel()
    shift = 2.0 * float(degree.max(initial=0.0)) + 1.0
    top = sp.diags(shift - degree) + flows
    v0 = np.cos(np.arange(k) * 0.618)               # fixed start: the same vectors every run
    try:
        vals, vecs = scipy.sparse.linalg.eigsh(top.astype(float), k=3, which="LA", v0=v0,
                                               maxiter=SPARSE_EIGSH_MAXITER)
    except scipy.sparse.linalg.ArpackNoConvergence as partial:
        vals, vecs = partial.eigenvalues, partial.eigenvectors
    order = np.argsort(-vals, kind="stable")
    vecs = vecs[:, order]
    emb = vecs[:, 1:3] if vecs.shape[1] >= 3 else np.zeros((k, 2))
    return standardized(emb)


def _reflections(emb: np.ndarray):
    """The 8 reflections of a 2-D embedding onto a grid (axes swapped or not, signs)."""
    for swap in (False, True):
        e = emb[:, ::-1] if swap else emb
        for sx in (1.0, -1.0):
            for sy in (1.0, -1.0):
                yield e * np.array([sx, sy])


def hall_slots(flows: sp.csr_matrix, metric, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Local slot of each group of one hall (flows, slot coordinates and metric of the hall).
    Up to ``MANY_GROUPS`` groups: the exact path's search (spectral embedding, its 8
    reflections mapped onto the slots by ``linear_sum_assignment`` up to ``HALL_LSA_GROUPS``
    groups and by sorting above, row-major order as a start too, 2-opt from the cheapest within
    ``HALL_TWO_OPT_WORK``); above, the sparse embedding sorted onto the slots."""
    k = flows.shape[0]
    identity = np.arange(k)
    if k <= 2 or flows.nnz == 0:
        return identity
    pts = standardized(np.column_stack([cols, rows]).astype(float))
    if k > MANY_GROUPS:
        return band_assignment(_embedding(flows), pts)
    dense = flows.toarray()
    dist = metric.matrix(identity)
    emb = laplacian_embedding(dense)
    starts = [identity]
    for q in _reflections(emb):
        if k <= HALL_LSA_GROUPS:
            starts.append(linear_sum_assignment(((q[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))[1])
        else:
            starts.append(band_assignment(q, pts))
    costs = [qap_cost(dense, dist, s) for s in starts]
    best = starts[int(np.argmin(costs))]              # first minimum: row-major wins ties
    return two_opt(dense, dist, best, max_iter=max(1, int(HALL_TWO_OPT_WORK // (k * k))))


def hierarchical_start(flows: sp.csr_matrix, metric: SlotMetric, rows: np.ndarray,
                       cols: np.ndarray) -> np.ndarray:
    """Slot of each group from levels 1 and 2 (module doc)."""
    k = flows.shape[0]
    hall = hall_partition(flows, metric, metric.hall)
    slot = np.empty(k, dtype=np.int64)
    for h in range(int(metric.hall.max()) + 1 if k else 0):
        groups = np.flatnonzero(hall == h)
        slots = np.flatnonzero(metric.hall == h)
        sub = flows[groups][:, groups].tocsr()
        local = hall_slots(sub, _HallMetric(metric, slots), rows[slots], cols[slots])
        slot[groups] = slots[local]
    return slot


# ----------------------------------------------------------------------------- level 3: the floor

def slot_neighbours(metric: SlotMetric) -> np.ndarray:
    """(k, 4) the slots left, right, in front of and behind each slot in its hall (-1: none)."""
    hall, row = metric.hall, metric.row
    col = np.rint(metric.centre * 2).astype(np.int64)          # half-cabinet units, exact
    step = np.unique(np.diff(np.unique(col)))[:1]
    step = int(step[0]) if step.size else 1
    span_c, span_r = int(col.max()) + 2 * step + 1, int(row.max()) + 3
    key = (hall * span_r + row + 1) * span_c + col + step
    order = np.argsort(key, kind="stable")
    out = np.full((len(key), 4), -1, dtype=np.int64)
    for j, delta in enumerate((-step, step, -span_c, span_c)):
        want = key + delta
        at = np.clip(np.searchsorted(key[order], want), 0, len(key) - 1)
        hit = key[order][at] == want
        out[hit, j] = order[at][hit]
    return out


def _ranked_neighbours(flows: sp.csr_matrix) -> np.ndarray:
    """Column indices of each row of F sorted by decreasing flow (ties: lower group first)."""
    row = np.repeat(np.arange(flows.shape[0]), np.diff(flows.indptr))
    return flows.indices[np.lexsort((flows.indices, -flows.data, row))]


def _candidates(flows: sp.csr_matrix, ranked: np.ndarray, near: np.ndarray, slot: np.ndarray,
                group_at: np.ndarray, turn: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) pairs to try, a < b, unique: a with the groups in its neighbouring slots, and with
    the groups next to its ``turn``-th heaviest neighbour."""
    k = flows.shape[0]
    degree = np.diff(flows.indptr)
    groups = np.arange(k)
    pick = flows.indptr[:-1] + turn % np.maximum(degree, 1)
    partner = np.where(degree > 0, ranked[np.minimum(pick, max(len(ranked) - 1, 0))], groups)
    around = np.concatenate([near[slot], near[slot[partner]]], axis=1)
    a = np.repeat(groups, around.shape[1])
    s = around.ravel()
    a, b = a[s >= 0], group_at[s[s >= 0]]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pair = np.unique(lo[lo != hi] * k + hi[lo != hi])
    return pair // k, pair % k


def _chunks(flows: sp.csr_matrix, a: np.ndarray, b: np.ndarray) -> list[slice]:
    """Consecutive runs of pairs with at most about ``SPARSE_CHUNK_VISITS`` neighbour visits."""
    degree = np.diff(flows.indptr)
    visits = np.cumsum(degree[a] + degree[b])
    cuts = np.searchsorted(visits, np.arange(SPARSE_CHUNK_VISITS, int(visits[-1]) if len(a) else 0,
                                             SPARSE_CHUNK_VISITS), side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [len(a)]]))
    return [slice(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]


def _deltas(flows: sp.csr_matrix, metric: SlotMetric, slot: np.ndarray, a: np.ndarray,
            b: np.ndarray) -> tuple[np.ndarray, int]:
    """(cost change of swapping each pair, neighbour visits): only the neighbours of a and b."""
    m = len(a)
    parts, pids, visits = [], [], 0
    for mover, other in ((a, b), (b, a)):
        lens = np.diff(flows.indptr)[mover]
        entry = _ranges(flows.indptr[mover], lens)
        pid = np.repeat(np.arange(m), lens)
        c = flows.indices[entry]
        keep = c != other[pid]
        pid, c, w = pid[keep], c[keep], flows.data[entry][keep]
        moved, stayed = slot[other][pid], slot[mover][pid]
        both = metric.cost(np.concatenate([moved, stayed]), np.concatenate([slot[c], slot[c]]))
        parts.append(w * (both[:len(c)] - both[len(c):]))
        pids.append(pid)
        visits += len(c)
    delta = np.bincount(np.concatenate(pids), weights=np.concatenate(parts), minlength=m)
    return delta, visits


def _independent(flows: sp.csr_matrix, a: np.ndarray, b: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Indices of improving swaps, best first, no two sharing a group or a neighbour."""
    better = np.flatnonzero(delta < -1e-9)
    better = better[np.lexsort((b[better], a[better], delta[better]))]
    locked = np.zeros(flows.shape[0], dtype=bool)
    indptr, indices = flows.indptr, flows.indices
    chosen = []
    for i in better.tolist():
        x, y = int(a[i]), int(b[i])
        if locked[x] or locked[y]:
            continue
        chosen.append(i)
        locked[x] = locked[y] = True
        locked[indices[indptr[x]:indptr[x + 1]]] = True
        locked[indices[indptr[y]:indptr[y + 1]]] = True
    return np.asarray(chosen, dtype=np.int64)


def sparse_two_opt(flows: sp.csr_matrix, metric: SlotMetric, slot: np.ndarray, work: float) -> np.ndarray:
    """Pair exchange with sparse deltas (module doc, level 3) until ``SPARSE_STALL_PASSES``
    passes in a row find nothing or ``work`` neighbour visits are spent."""
    slot = slot.copy()
    group_at = np.empty_like(slot)
    group_at[slot] = np.arange(len(slot))
    near = slot_neighbours(metric)
    ranked = _ranked_neighbours(flows)
    spent, stall, turn = 0, 0, 0
    while spent < work and stall < SPARSE_STALL_PASSES:
        a, b = _candidates(flows, ranked, near, slot, group_at, turn)
        delta = np.empty(len(a))
        for chunk in _chunks(flows, a, b):
            delta[chunk], visits = _deltas(flows, metric, slot, a[chunk], b[chunk])
            spent += visits
        turn += 1
        chosen = _independent(flows, a, b, delta)
        stall = 0 if len(chosen) else stall + 1
        x, y = a[chosen], b[chosen]
        slot[x], slot[y] = slot[y].copy(), slot[x].copy()
        group_at[slot[x]], group_at[slot[y]] = x, y
    return slot


def assign_slots_sparse(flows: sp.csr_matrix, layout, metric: SlotMetric, rows: np.ndarray,
                        cols: np.ndarray) -> np.ndarray:
    """Slot of each group (module doc); ``rows``/``cols`` place the slots for the embeddings.
    A slot distance that no optical cable reaches prices every distance by length only, as
    ``floor_assign.slot_costs`` does."""
    try:
        return _assign(flows, metric, rows, cols)
    except _Unpriced:
        return _assign(flows, metric.unpriced(), rows, cols)


def _assign(flows: sp.csr_matrix, metric: SlotMetric, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    flows = sp.csr_matrix(flows, dtype=np.float64)
    flows = sp.csr_matrix(flows - sp.diags(flows.diagonal()))
    flows.eliminate_zeros()
    flows.sort_indices()
    k = flows.shape[0]
    identity = np.arange(k)
    if k <= 2 or flows.nnz == 0 or _is_uniform(flows):
        return identity
    best, best_cost = None, np.inf
    for start in (identity, hierarchical_start(flows, metric, rows, cols)):
        perm = sparse_two_opt(flows, metric, start, SPARSE_VISITS_PER_LINK * flows.nnz / 2)
        cost = sparse_cost(flows, metric, perm)
        if cost < best_cost - 1e-9:
            best, best_cost = perm, cost
    return best
