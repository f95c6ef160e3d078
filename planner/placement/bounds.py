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
  max sum_c M(c) z_c, sum_c c z_c = class sizes, z >= 0 (HiGHS) bounds the links kept inside.
* Fiedler: cut >= 1/2 lambda_2(L) sum_i s_i (n - s_i) / n (Fiedler, Czech. Math. J. 23, 1973).
* Donath–Hoffman: cut >= 1/2 sum_i s_(i) lambda_i(L), sizes descending, eigenvalues ascending
  (Donath & Hoffman, IBM J. Res. Dev. 17, 1973).
The eigenvalues come from a dense solver, lowered by its backward-error margin, when the
matrix fits the bounds' share of the time limit (``budget``); larger graphs get LOBPCG's Fiedler
value less its residual norm, or only the counting bounds.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from scipy.optimize import linprog
from scipy.sparse import csgraph

from planner.placement.budget import (LOBPCG_ITERATIONS, SPARSE_PRODUCT_S_PER_ENTRY, dense_eigen_fits,
                                      lobpcg_fits)
from planner.placement.capacity import Limits
from planner.placement.graph import Graph

EIGEN_MARGIN = 1e-12
COMPOSITION_MAX_CLASSES = 3
COMPOSITIONS_MAX = 300_000  # count vectors of the composition LP (fat tree k=34: 57K, 1.5 s)
C4_CHECK_MAX_WORK = 20_000_000  # entries of A^2 (sum of squared degrees) a product may have
CLIQUE_DP_MAX_S = 160


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


def composition_bound(graph: Graph, limits: Limits, max_work: float = C4_CHECK_MAX_WORK) -> float | None:
    """The composition LP bound (module docstring), or None for one class or too many vectors."""
    cls, demand = router_classes(graph, limits)
    classes = len(demand)
    if classes < 2:
        return None
    sizes = np.bincount(cls, minlength=classes)
    s_max = limits.max_count()
    counts = [np.arange(min(int(x), s_max) + 1) for x in sizes]
    if math.prod(len(c) for c in counts) > COMPOSITIONS_MAX:
        return None
    comps = np.stack(np.meshgrid(*counts, indexing="ij"), axis=-1).reshape(-1, classes)
    comps = comps[np.all(comps @ demand <= limits.limit, axis=1) & (comps.sum(axis=1) > 0)]
    a = graph.adjacency.tocoo()
    into = np.zeros((graph.n, classes), dtype=np.int64)
    np.add.at(into, (a.row, cls[a.col]), a.data.astype(np.int64))
    d = np.array([into[cls == c].max(axis=0) for c in range(classes)], dtype=float)
    mu = float(graph.weights.max(initial=1))
    members = [np.flatnonzero(cls == c) for c in range(classes)]
    x = comps.astype(float)
    links = np.zeros(len(comps))
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
                links += np.minimum(cap, np.where(np.isfinite(kst), kst, np.inf))
    degree_sums = [np.concatenate([[0], np.cumsum(np.sort(graph.degree[m])[::-1])]) for m in members]
    half = sum(ds[comps[:, c]] for c, ds in enumerate(degree_sums)) / 2.0
    kept = np.floor(np.minimum(links, half) + 1e-9)
    res = linprog(-kept, A_eq=comps.T.astype(float), b_eq=sizes.astype(float), bounds=(0, None),
                  method="highs")
    if res.status != 0:
        return None
    # the LP's optimum is an upper bound on links kept inside groups; HiGHS's dual bound is
    # within its tolerance of it, so round the kept links up by that much
    return graph.total_weight - (-res.fun) * (1 + 1e-6) - 1e-6


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


FIEDLER_DENSE_MAX_N = 64  # LOBPCG with 2 vectors and one constraint needs n >= 11; dense is instant here


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
    composed = composition_bound(graph, limits, max_work)
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
