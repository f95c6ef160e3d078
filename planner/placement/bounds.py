"""Lower bounds on the optical cables (links leaving electrical groups) of any feasible grouping.

Each group is within every capacity limit (``capacity.Limits``); in particular it holds at most
``s_max`` routers. For the spectral bounds the most concentrated size vector
(s_max, s_max, ..., remainder) is the worst case: it majorises every other feasible vector and
both bounds are Schur-concave in the sizes.

* Density: cut = m - sum_i in(P_i) >= m - max sum_i M(s_i), M(s) = most links inside any
  s-router set; the maximum over size vectors is a knapsack solved by dynamic programming.
  M(s) <= min(C(s,2) * max multiplicity, half the s largest degrees) always; for C4-free graphs
  the Reiman / Kővári–Sós–Turán bound M(s) <= s/4 (1 + sqrt(4s-3)) (Reiman, Acta Math. Acad.
  Sci. Hungar. 9, 1958); for Dragonfly-like hints (each hint group a clique, at most one link
  between two groups) M(s) = max over the number t of groups touched of (most clique links
  with t groups) + min(C(t,2), s h / 2) (the structure of Kim et al., ISCA'08).
* Composition LP (indirect and bipartite networks: leaves and spines, points and lines): routers
  fall into classes by bipartition side and by demand (endpoints). A group holding n_P routers of
  each class P fits the limits only for some count vectors, and holds at most M(n) links:
  between classes P and Q at most min(n_P d_PQ, n_Q d_QP, mu n_P n_Q) (d_PQ = most links from
  one router of P into Q) and, with single links, the Kővári–Sós–Turán count
  n_Q/2 (1 + sqrt(1 + 4 lambda_PQ n_P (n_P - 1) / n_Q)) (lambda_PQ = most common Q-neighbours
  of two routers of P; Kővári, Sós & Turán, Colloq. Math. 3, 1954), both orientations; inside
  a class the same with half degrees; in all at most half the largest degrees. Any grouping is
  a non-negative combination of feasible count vectors summing to the class sizes, so the LP
  max sum_c M(c) z_c, sum_c c z_c = class sizes, z >= 0 bounds the links kept inside; it is
  solved by column generation (HiGHS on a few columns, its duals price the rest) and certified
  by weak duality, so its answer is an upper bound even if the solver stops early.
  Where the links between two classes are disjoint identical complete bipartite blocks (fat
  tree pods: edges x aggregations; core index groups: aggregations x cores), n_P and n_Q
  routers keep at most mu sum_j x_j y_j links with both counts concentrated on the fewest
  blocks; where one class meets two others in such blocks (the aggregation routers), the
  links of both pairs together are at most the n_Q largest cell values of the grid of the two
  block structures (``shared_middle_cap``). On a fat tree these caps are exact (tested by
  enumeration) and the LP meets the pod grouping: k=20 in groups of 400 endpoints, 1,600.
* Fiedler: cut >= 1/2 lambda_2(L) sum_i s_i (n - s_i) / n (Fiedler, Czech. Math. J. 23, 1973).
* Donath–Hoffman: cut >= 1/2 sum_i s_(i) lambda_i(L), sizes descending, eigenvalues ascending
  (Donath & Hoffman, IBM J. Res. Dev. 17, 1973).
The eigenvalues come from a dense solver, lowered by its backward-error margin, when the
matrix fits the bounds' share of the time limit (``budget``); larger graphs get LOBPCG's Fiedler
value less its residual norm, or only the counting bounds.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from scipy.optimize import linprog
from scipy.sparse import csgraph

from planner.placement.budget import dense_eigen_fits, lobpcg_fits
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.placement.tuning import (COMPOSITION_S_PER_VECTOR, LOBPCG_ITERATIONS,
                                      SPARSE_PRODUCT_S_PER_ENTRY, C4_CHECK_MAX_WORK, CLIQUE_DP_MAX_S, COLUMN_BATCH,
                                      COLUMN_ROUNDS, COMPOSITIONS_MAX, COMPOSITION_MAX_CLASSES,
                                      FIEDLER_DENSE_MAX_N)

EIGEN_MARGIN = 1e-12
COLUMN_TOLERANCE = 1e-9   # reduced profit per router below which a column does not join


def concentrated_sizes(n: int, s_max: int) -> np.ndarray:
    """The size vector (s_max, ..., s_max, n mod s_max) that majorises all feasible ones."""
    full, rest = divmod(n, s_max)
    return np.array([s_max] * full + ([rest] if rest else []), dtype=np.int64)


def max_sum_over_parts(m_of_s: np.ndarray, n: int) -> float:
    """max sum_i M(s_i) over s_i in 1..len(m_of_s)-1 with sum s_i = n (unbounded knapsack)."""
    s_max = len(m_of_s) - 1
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    vals = np.asarray(m_of_s, dtype=float)[1:]
    for x in range(1, n + 1):
        lo = max(0, x - s_max)
        prev = best[lo:x][::-1]
        best[x] = np.max(prev + vals[: len(prev)])
    return float(best[n])


def degree_cap(graph: Graph, s_max: int) -> np.ndarray:
    """M(s) <= floor(half the s largest degrees), and <= C(s,2) * largest multiplicity."""
    deg = np.sort(graph.degree)[::-1]
    half = np.concatenate([[0], np.cumsum(deg[:s_max])]) // 2
    s = np.arange(s_max + 1)
    mult = int(graph.weights.max()) if len(graph.weights) else 0
    return np.minimum(half, s * (s - 1) // 2 * mult).astype(float)


def is_c4_free(graph: Graph, max_work: float = C4_CHECK_MAX_WORK) -> bool:
    """Simple graph in which two routers share at most one neighbour (no 4-cycle)."""
    if len(graph.weights) and graph.weights.max() > 1:
        return False
    if float(np.sum(graph.degree.astype(float) ** 2)) > max_work:
        return False
    a = graph.adjacency.astype(np.int32)
    a2 = (a @ a).tocoo()
    off = a2.row != a2.col
    return bool(off.sum() == 0 or a2.data[off].max() <= 1)


def reiman_cap(s_max: int) -> np.ndarray:
    s = np.arange(s_max + 1, dtype=float)
    return np.floor(s / 4.0 * (1.0 + np.sqrt(np.maximum(4.0 * s - 3.0, 0.0))) + 1e-9)


def clique_groups_cap(graph: Graph, hint: np.ndarray | None, s_max: int) -> np.ndarray | None:
    """M(s) for Dragonfly-like structure, or None if the hint does not have it.

    Requires: all hint groups have the same size a, each is a clique of single links, and any two
    groups are joined by at most one link; h = most inter-group links at one router. A set with
    x_j routers in each of t touched groups has at most sum_j C(x_j, 2) intra-group links and
    at most 1/2 sum_j min(x_j h, t - 1) inter-group links (group j's routers have x_j h such
    links, at most one to each other touched group). M(s) maximises this over t and the x_j in
    1..a by dynamic programming; whole groups attain it (t a routers: t C(a,2) + C(t,2)).
    """
    if hint is None or len(graph.weights) == 0 or graph.weights.max() > 1 or s_max > CLIQUE_DP_MAX_S:
        return None
    hint = np.asarray(hint)
    if hint.min() < 0:
        return None
    sizes = np.bincount(hint)
    a = int(sizes[0])
    if np.any(sizes != a) or a < 2:
        return None
    gu, gv = hint[graph.links[:, 0]], hint[graph.links[:, 1]]
    intra = gu == gv
    if int(intra.sum()) != len(sizes) * a * (a - 1) // 2:
        return None
    pairs = np.stack([np.minimum(gu[~intra], gv[~intra]), np.maximum(gu[~intra], gv[~intra])], axis=1)
    if len(pairs) and len(np.unique(pairs, axis=0)) != len(pairs):
        return None
    glob = np.zeros(graph.n, dtype=np.int64)
    np.add.at(glob, graph.links[~intra, 0], 1)
    np.add.at(glob, graph.links[~intra, 1], 1)
    h = int(glob.max()) if graph.n else 0
    x = np.arange(1, min(a, s_max) + 1)  # routers of one group inside the set
    best = np.full(s_max + 1, -np.inf)
    best[0] = 0.0
    for t in range(1, min(s_max, len(sizes)) + 1):
        phi = x * (x - 1) / 2.0 + np.minimum(x * h, t - 1) / 2.0
        dp = np.full(s_max + 1, -np.inf)
        dp[0] = 0.0
        for _ in range(t):
            nxt = np.full(s_max + 1, -np.inf)
            for xi, val in zip(x.tolist(), phi.tolist()):
                nxt[xi:] = np.maximum(nxt[xi:], dp[: s_max + 1 - xi] + val)
            dp = nxt
        best = np.maximum(best, np.floor(dp + 1e-9))
    best[~np.isfinite(best)] = 0.0
    return best


def density_bound(graph: Graph, s_max: int, hint: np.ndarray | None,
                  max_work: float = C4_CHECK_MAX_WORK) -> tuple[float, str]:
    m = graph.total_weight
    cap = degree_cap(graph, s_max)
    kind = "density"
    dragon = clique_groups_cap(graph, hint, s_max)
    if dragon is not None:
        cap, kind = np.minimum(cap, dragon), "density (clique groups)"
    elif is_c4_free(graph, max_work):
        cap, kind = np.minimum(cap, reiman_cap(s_max)), "density (C4-free, Reiman)"
    return m - max_sum_over_parts(cap, graph.n), kind


def bipartition(graph: Graph) -> np.ndarray | None:
    """Side (0/1) of every router if the graph is bipartite, else None."""
    side = np.full(graph.n, -1, dtype=np.int64)
    a = graph.adjacency
    _, label = csgraph.connected_components(a, directed=False)
    _, roots = np.unique(label, return_index=True)
    for root in roots.tolist():
        nodes, pred = csgraph.breadth_first_order(a, root, directed=False, return_predecessors=True)
        side[root] = 0
        for v in nodes[1:].tolist():
            side[v] = 1 - side[pred[v]]
    if len(graph.links) and np.any(side[graph.links[:, 0]] == side[graph.links[:, 1]]):
        return None
    return side


def router_classes(graph: Graph, limits: Limits) -> tuple[np.ndarray, np.ndarray]:
    """(class of every router, demand row of every class): bipartition side x demand row, or
    the sides alone with each side's smallest demand (a relaxation) if that makes too many."""
    side = bipartition(graph)
    side = np.zeros(graph.n, dtype=np.int64) if side is None else side
    _, cls = np.unique(np.column_stack([side, limits.demand]), axis=0, return_inverse=True)
    cls = cls.ravel()
    if cls.max(initial=0) + 1 > COMPOSITION_MAX_CLASSES:
        cls = side
    demand = np.array([limits.demand[cls == c].min(axis=0) for c in range(int(cls.max()) + 1)])
    return cls, demand.reshape(int(cls.max()) + 1, -1)


def _common_neighbours(graph: Graph, rows: np.ndarray, cols: np.ndarray, max_work: float) -> float:
    """Most neighbours in ``cols`` shared by two distinct routers of ``rows`` (inf if too costly)."""
    b = graph.adjacency[rows][:, cols]
    if float(np.sum(np.diff(b.tocsc().indptr).astype(float) ** 2)) > max_work:
        return math.inf
    c = (b @ b.T).tocoo()
    off = c.row != c.col
    return float(c.data[off].max()) if off.any() else 0.0


def feasible_compositions(sizes: np.ndarray, demand: np.ndarray, limit: np.ndarray, s_max: int,
                          most: float = COMPOSITIONS_MAX) -> np.ndarray | None:
    """Every non-zero count vector (routers of each class) one group can hold: within the
    class sizes, s_max routers and every limit; built class by class, pruning partial vectors
    that already break a limit (demands are non-negative). None above ``most`` vectors."""
    comps = np.zeros((1, 0), dtype=np.int64)
    for c, size in enumerate(sizes.tolist()):
        values = np.arange(min(int(size), s_max) + 1)
        comps = np.column_stack([np.repeat(comps, len(values), axis=0), np.tile(values, len(comps))])
        keep = (comps.sum(axis=1) <= s_max) & np.all(comps @ demand[:c + 1] <= limit, axis=1)
        comps = comps[keep]
        if len(comps) > most:
            return None
    return comps[comps.sum(axis=1) > 0]


@dataclass(frozen=True)
class CompleteBlocks:
    """The links between classes A and B form ``count`` disjoint complete bipartite blocks
    K_{a,b} (a routers of A, b of B), every link of multiplicity ``mu``, covering every router
    of both classes: the pods (edges x aggregations) and the index groups (aggregations x cores)
    of a fat tree. ``block`` is the block of every router of A (in class member order)."""

    count: int
    a: int
    b: int
    mu: int
    block: np.ndarray

    def most_links(self, n_a: np.ndarray, n_b: np.ndarray) -> np.ndarray:
        """Most A-B links among n_a routers of A and n_b of B: mu sum_j x_j y_j over blocks with
        x_j <= a, y_j <= b; by the rearrangement inequality and exchange (moving a router to a
        fuller block never loses) both counts are concentrated on the same blocks."""
        j = np.arange(self.count)
        x = np.clip(np.asarray(n_a)[:, None] - j * self.a, 0, self.a)
        y = np.clip(np.asarray(n_b)[:, None] - j * self.b, 0, self.b)
        return self.mu * (x * y).sum(axis=1).astype(float)

    def levels(self, n_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The per-block counts of n_b routers of B concentrated on the fewest blocks, as
        (values, how many blocks have each) for the full, the partial and the empty blocks,
        values in links per router of A (times ``mu``)."""
        n_b = np.asarray(n_b, dtype=np.int64)
        full, rest = np.minimum(n_b // self.b, self.count), n_b % self.b
        partial = (rest > 0).astype(np.int64)
        values = self.mu * np.stack([np.full_like(n_b, self.b), rest, np.zeros_like(n_b)], axis=1)
        return values, np.stack([full, partial, self.count - full - partial], axis=1)


def complete_bipartite_blocks(graph: Graph, own: np.ndarray, other: np.ndarray) -> CompleteBlocks | None:
    """``CompleteBlocks`` of the links between routers ``own`` and ``other``, or None when they
    are not disjoint identical complete bipartite blocks of one multiplicity covering both."""
    sub = graph.adjacency[own][:, other].tocsr()
    if sub.nnz == 0 or sub.data.min() != sub.data.max():
        return None
    k, label = csgraph.connected_components(sp.bmat([[None, sub], [sub.T, None]]), directed=False)
    a_of, b_of = np.bincount(label[:len(own)], minlength=k), np.bincount(label[len(own):], minlength=k)
    if np.any(a_of != a_of[0]) or np.any(b_of != b_of[0]) or sub.nnz != k * a_of[0] * b_of[0]:
        return None
    return CompleteBlocks(count=int(k), a=int(a_of[0]), b=int(b_of[0]), mu=int(sub.data[0]),
                          block=label[:len(own)])


def shared_middle_cap(rows: CompleteBlocks, cols: CompleteBlocks, n_p: np.ndarray, n_q: np.ndarray,
                      n_r: np.ndarray) -> np.ndarray:
    """Most P-Q plus Q-R links among n_p, n_q, n_r routers when class Q meets P in the blocks
    ``rows`` and R in the blocks ``cols`` (a 3-level fat tree: Q the aggregation routers, rows the
    pods, columns the core index groups).

    Put Q's routers in a grid by (row block, column block), at most w in a cell. With e_i
    routers of P in row block i and c_j of R in column block j, the links are
    sum over Q routers in cell (i, j) of (mu_P e_i + mu_R c_j), at most the sum of the n_q
    largest cell values, each cell taken up to w times. That sum is a maximum of linear
    functions of e, symmetric under permuting the rows, hence Schur-convex; the vector
    concentrated on the fewest blocks majorises every feasible e, so it gives the largest
    value (the same for c)."""
    w = int(np.max(np.unique(np.stack([rows.block, cols.block], axis=1), axis=0, return_counts=True)[1]))
    ev, en = rows.levels(n_p)
    cv, cn = cols.levels(n_r)
    values = (ev[:, :, None] + cv[:, None, :]).reshape(len(n_q), -1)
    counts = (w * en[:, :, None] * cn[:, None, :]).reshape(len(n_q), -1)
    order = np.argsort(-values, axis=1, kind="stable")
    values, counts = np.take_along_axis(values, order, 1), np.take_along_axis(counts, order, 1)
    before = np.cumsum(counts, axis=1) - counts
    take = np.clip(np.asarray(n_q)[:, None] - before, 0, counts)
    return (take * values).sum(axis=1).astype(float)


def composition_bound(graph: Graph, limits: Limits, max_work: float = C4_CHECK_MAX_WORK,
                      seconds: float = math.inf) -> float | None:
    """The composition LP bound (module docstring), or None for one class or more count
    vectors than ``COMPOSITIONS_MAX`` or than fit ``seconds`` (estimate, ``budget``)."""
    cls, demand = router_classes(graph, limits)
    classes = len(demand)
    if classes < 2:
        return None
    sizes = np.bincount(cls, minlength=classes)
    most = min(COMPOSITIONS_MAX, seconds / COMPOSITION_S_PER_VECTOR)
    comps = feasible_compositions(sizes, demand, limits.limit, limits.max_count(), most)
    if comps is None:
        return None
    value = most_kept_links(comps, group_link_caps(graph, cls, comps, max_work), sizes)
    return None if value is None else graph.total_weight - value * (1 + 1e-9) - 1e-6


def group_link_caps(graph: Graph, cls: np.ndarray, comps: np.ndarray,
                    max_work: float = C4_CHECK_MAX_WORK) -> np.ndarray:
    """M(c): most links inside any set of routers with comps[i, P] routers of each class P
    (module docstring), one value per row of ``comps``."""
    classes = comps.shape[1]
    a = graph.adjacency.tocoo()
    into = np.zeros((graph.n, classes), dtype=np.int64)
    np.add.at(into, (a.row, cls[a.col]), a.data.astype(np.int64))
    d = np.array([into[cls == c].max(axis=0) for c in range(classes)], dtype=float)
    mu = float(graph.weights.max(initial=1))
    members = [np.flatnonzero(cls == c) for c in range(classes)]
    x = comps.astype(float)
    pair_caps: dict[tuple[int, int], np.ndarray] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for p in range(classes):
            for q in range(p, classes):
                xp, xq = x[:, p], x[:, q]
                lam = _common_neighbours(graph, members[p], members[q], max_work) if mu == 1 else math.inf
                if p == q:
                    cap = np.minimum(xp * d[p, p] / 2, mu * xp * (xp - 1) / 2)
                    kst = xp / 4 * (1 + np.sqrt(1 + 4 * lam * np.maximum(xp - 1, 0)))
                else:
                    lam_back = _common_neighbours(graph, members[q], members[p], max_work) if mu == 1 else math.inf
                    cap = np.minimum.reduce([xp * d[p, q], xq * d[q, p], mu * xp * xq])
                    kst = np.minimum(
                        np.where(xq > 0, xq / 2 * (1 + np.sqrt(1 + 4 * lam * xp * (xp - 1) / xq)), 0.0),
                        np.where(xp > 0, xp / 2 * (1 + np.sqrt(1 + 4 * lam_back * xq * (xq - 1) / xp)), 0.0))
                pair_caps[p, q] = np.minimum(cap, np.where(np.isfinite(kst), kst, np.inf))
    blocks = {(p, q): complete_bipartite_blocks(graph, members[p], members[q])
              for p in range(classes) for q in range(classes) if p != q}
    for (p, q), blk in blocks.items():
        if blk is not None and p < q:
            pair_caps[p, q] = np.minimum(pair_caps[p, q], blk.most_links(comps[:, p], comps[:, q]))
    total = sum(pair_caps.values())
    links = total
    for p, q, r in itertools.permutations(range(classes), 3):
        if p < r and blocks[q, p] is not None and blocks[q, r] is not None:
            joint = shared_middle_cap(blocks[q, p], blocks[q, r], comps[:, p], comps[:, q], comps[:, r])
            others = total - pair_caps[min(p, q), max(p, q)] - pair_caps[min(q, r), max(q, r)]
            links = np.minimum(links, others + joint)
    degree_sums = [np.concatenate([[0], np.cumsum(np.sort(graph.degree[m])[::-1])]) for m in members]
    half = sum(ds[comps[:, c]] for c, ds in enumerate(degree_sums)) / 2.0
    return np.floor(np.minimum(links, half) + 1e-9)


def most_kept_links(comps: np.ndarray, kept: np.ndarray, sizes: np.ndarray) -> float | None:
    """max sum_c kept_c z_c subject to sum_c c z_c = sizes, z >= 0, by column generation.

    HiGHS solves the LP on a few columns; its duals y price every column, the most profitable
    ones join, until none is. Any y certifies a bound (weak duality with one slack): for a
    feasible z, sum kept_c z_c = sizes.y + sum z_c (kept_c - c.y) <= sizes.y + n max_c (kept_c -
    c.y)^+ / |c|, since sum z_c |c| = n routers. So the answer is an upper bound even when the
    solver stops early or rounds."""
    routers = comps.sum(axis=1).astype(float)
    cols, kept_f, n = comps.astype(float), kept.astype(float), float(sizes.sum())
    ratio = kept_f / routers
    active = np.unique(np.concatenate([np.flatnonzero(routers == 1),
                                       np.argsort(-ratio, kind="stable")[:COLUMN_BATCH]]))
    best = math.inf
    for _ in range(COLUMN_ROUNDS):
        res = linprog(-kept_f[active], A_eq=cols[active].T, b_eq=sizes.astype(float), bounds=(0, None),
                      method="highs")
        if res.status != 0:
            return None
        y = -np.asarray(res.eqlin.marginals)
        profit = (kept_f - cols @ y) / routers
        best = min(best, float(sizes @ y) + n * max(0.0, float(profit.max())))
        new = np.setdiff1d(np.argsort(-profit, kind="stable")[:COLUMN_BATCH], active)
        new = new[profit[new] > COLUMN_TOLERANCE]
        if len(new) == 0:
            break
        active = np.concatenate([active, new])
    return best


def laplacian(graph: Graph) -> sp.csr_matrix:
    a = graph.adjacency.astype(float)
    return (sp.diags(np.asarray(a.sum(axis=1)).ravel()) - a).tocsr()


def smallest_eigenvalues(graph: Graph, k: int) -> np.ndarray:
    """Certified lower bounds on the k smallest Laplacian eigenvalues (ascending).

    Dense symmetric eigensolver (LAPACK ``syevd``/``syevr``): the computed values are exact for L + E with
    ||E||_2 <= p(n) eps ||L||_2 (backward stability), so by Weyl's inequality subtracting
    ``EIGEN_MARGIN`` n ||L||_2, with ||L||_2 <= 2 x largest degree, leaves lower bounds.
    lambda_0 = 0 always."""
    k = min(k, graph.n)
    lap = laplacian(graph).toarray()
    if k > graph.n // 8:  # divide and conquer on all eigenvalues is faster than a large subset
        vals = scipy.linalg.eigh(lap, eigvals_only=True, driver="evd")[:k]
    else:
        vals = scipy.linalg.eigh(lap, eigvals_only=True, subset_by_index=[0, k - 1], driver="evr")
    margin = EIGEN_MARGIN * graph.n * 2.0 * max(float(graph.degree.max(initial=0)), 1.0)
    out = np.maximum(np.sort(vals) - margin, 0.0)
    out[0] = 0.0
    return out


def fiedler_value(graph: Graph) -> float:
    """Lower estimate of lambda_2(L) for graphs too large for the dense solver: LOBPCG with a
    fixed iteration count from a fixed start, Ritz value minus residual norm, 0 if disconnected.
    Small graphs (where LOBPCG itself falls back to a dense solver, which takes no constraint)
    go straight to the certified dense eigenvalues."""
    n = graph.n
    if n <= FIEDLER_DENSE_MAX_N:
        return float(smallest_eigenvalues(graph, 2)[1]) if n >= 2 else 0.0
    lap = laplacian(graph)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 2))
    ones = np.ones((n, 1)) / math.sqrt(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # unconverged is fine: the residual is subtracted
        vals, vecs = spla.lobpcg(lap, x, Y=ones, largest=False, tol=1e-7, maxiter=LOBPCG_ITERATIONS)
    i = int(np.argmin(vals))
    v = vecs[:, i] / np.linalg.norm(vecs[:, i])
    theta = float(v @ (lap @ v))
    resid = float(np.linalg.norm(lap @ v - theta * v))
    return max(0.0, theta - resid)


def fiedler_bound(graph: Graph, s_max: int, lam2: float) -> float:
    sizes = concentrated_sizes(graph.n, s_max)
    return 0.5 * lam2 * float(np.sum(sizes * (graph.n - sizes))) / graph.n


def donath_hoffman_bound(graph: Graph, s_max: int, eigenvalues: np.ndarray) -> float:
    """1/2 sum_i s_(i) lambda_i with the k = len(sizes) smallest eigenvalues."""
    sizes = np.sort(concentrated_sizes(graph.n, s_max))[::-1]
    return 0.5 * float(np.sum(sizes[: len(eigenvalues)] * eigenvalues[: len(sizes)]))


def lower_bound(graph: Graph, limits: Limits, hint: np.ndarray | None = None,
                seconds: float = math.inf) -> tuple[int, str]:
    """Best of the bounds that fit ``seconds`` (estimated on the reference machine, see
    ``budget``; the density bound always runs), rounded up: (value, kind)."""
    s_max = limits.max_count()
    if s_max >= graph.n:
        return 0, "trivial (one group)"
    # the sparse products of the C4 and common-neighbour counts share a fifth of the time each
    max_work = min(C4_CHECK_MAX_WORK, seconds / 5 / SPARSE_PRODUCT_S_PER_ENTRY)
    cands: list[tuple[float, str]] = [density_bound(graph, s_max, hint, max_work)]
    composed = composition_bound(graph, limits, max_work, seconds)
    if composed is not None:
        cands.append((composed, "composition LP"))
    k = len(concentrated_sizes(graph.n, s_max))
    if graph.n >= 3 and dense_eigen_fits(graph.n, seconds):
        eig = smallest_eigenvalues(graph, max(k, 2))
        cands.append((fiedler_bound(graph, s_max, float(eig[1])), "Fiedler"))
        cands.append((donath_hoffman_bound(graph, s_max, eig), "Donath-Hoffman"))
    elif graph.n >= 3 and lobpcg_fits(graph.adjacency.nnz + graph.n, seconds):
        cands.append((fiedler_bound(graph, s_max, fiedler_value(graph)), "Fiedler"))
    value, kind = max(cands, key=lambda c: c[0])
    return max(0, math.ceil(value - 1e-6)), kind
