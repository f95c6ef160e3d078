"""Dense quadratic assignment of groups to floor slots: cost, starts, pair exchange.

The cost of an assignment pi is sum_{a<b} F_ab D[pi(a), pi(b)] over a k x k flow matrix F and a
k x k slot distance D. ``assign_slots`` is the exact-path search of ``floor_assign`` (its module
doc): spectral starts, best-improvement 2-opt (Taillard 1991-style pair exchange) and, for a
few groups, the CP-SAT polish. Every array here is k x k: the floor assignment uses it for
small k and for the halls of the hierarchical path (``floor_assign_sparse``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.optimize import linear_sum_assignment

from planner.placement.cpsat import qap_polish
from planner.placement.tuning import CPSAT_DETERMINISTIC_TIME, CPSAT_MAX_GROUPS, MANY_GROUPS, TWO_OPT_WORK


def qap_cost(flows: np.ndarray, dist: np.ndarray, perm: np.ndarray) -> float:
    """sum_{a<b} F_ab D[perm_a, perm_b] (F symmetric, zero diagonal)."""
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


EIGEN_TIE = 1e-9
"""Eigenvalues of the flow Laplacian closer than this (relative to the Gershgorin bound of its
largest, twice the largest degree) are one repeated eigenvalue (``spectral_embedding``)."""
EMBEDDING_DECIMALS = 9
"""The embedding is rounded to this many decimals (of its unit-variance coordinates), so that
groups whose coordinates are equal but for the last bits of rounding sit at equal points."""


def _probe(k: int, j: int) -> np.ndarray:
    """The ``j``-th fixed probe vector of length ``k``: its entries are all different, so no
    permutation of the groups maps it to itself and its projection onto an eigenspace is
    almost never zero (``spectral_embedding`` tries the next probe when it is)."""
    return np.cos((np.arange(k) + 1.0) * (0.618 + 0.377 * j))


def spectral_embedding(lap: np.ndarray) -> np.ndarray:
    """Eigenvectors 2-3 of the Laplacian ``lap`` (k x k, k >= 3) as k x 2 coordinates, each
    of mean 0 and variance 1, the same whatever basis LAPACK returns. Where an eigenvalue
    repeats (groups a symmetry permutes: a fat tree's pods), its eigenvectors are any basis of
    the eigenspace, and BLAS kernels for different processors return different ones (a plan
    would then depend on the machine). So each eigenspace in turn, lowest first, gives the
    projections of fixed probe vectors (``_probe``), each made orthogonal to the vectors before
    it (Gram-Schmidt, starting from the constant vector, which every Laplacian has), until two
    are found: the projector onto an eigenspace does not depend on its basis."""
    k = len(lap)
    vals, vecs = _lowest_eigenspaces(lap.astype(float))
    tol = _tie(lap)
    chosen = [np.full(k, 1.0 / np.sqrt(k))]
    start = 0
    while len(chosen) < 3 and start < len(vals):
        stop = start + 1
        while stop < len(vals) and vals[stop] - vals[stop - 1] <= tol:
            stop += 1
        space = vecs[:, start:stop]
        for j in range(stop - start + 3):
            if len(chosen) == 3:
                break
            w = space @ (space.T @ _probe(k, j))
            for u in chosen:
                w -= (u @ w) * u
            norm = float(np.linalg.norm(w))
            if norm > 1e-6:
                chosen.append(w / norm)
        start = stop
    emb = standardized(np.column_stack(chosen[1:3]))
    return np.round(emb, EMBEDDING_DECIMALS) + 0.0


def _tie(lap: np.ndarray) -> float:
    """``EIGEN_TIE`` in the units of ``lap``'s eigenvalues."""
    return EIGEN_TIE * max(1.0, 2.0 * float(np.abs(np.diag(lap)).max(initial=0.0)))


def _lowest_eigenspaces(lap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eigenpairs of ``lap`` from the smallest through every eigenvalue equal to the third
    smallest, without the others (a subset costs a sixth of every eigenvector at 2,000 groups):
    the subset doubles until an eigenvalue after the third is above the one before it; the
    pairs from there on are left out."""
    k = len(lap)
    tol = _tie(lap)
    last = min(3, k - 1)
    while True:
        vals, vecs = scipy.linalg.eigh(lap, subset_by_index=[0, last])
        gaps = np.flatnonzero(np.diff(vals[2:]) > tol)
        if gaps.size:
            end = 3 + int(gaps[0])
            return vals[:end], vecs[:, :end]
        if last == k - 1:
            return vals, vecs
        last = min(2 * last, k - 1)


def standardized(points: np.ndarray) -> np.ndarray:
    """Each column of ``points`` with mean 0 and variance 1 (a constant column: 0)."""
    return (points - points.mean(axis=0)) / np.maximum(points.std(axis=0), 1e-12)


def laplacian_embedding(flows: np.ndarray) -> np.ndarray:
    """``spectral_embedding`` of the flows' Laplacian diag(F1) - F; for fewer than 3 groups the
    last eigenvector and a zero column."""
    k = len(flows)
    lap = np.diag(flows.sum(axis=1)) - flows
    if k >= 3:
        return spectral_embedding(lap)
    _, vecs = scipy.linalg.eigh(lap.astype(float))
    return standardized(np.column_stack([vecs[:, -1], np.zeros(k)]))


def spectral_starts(flows: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                    many: bool = False) -> list[np.ndarray]:
    """Assignments of the spectral embedding onto the slots: ``linear_sum_assignment`` on
    squared distance for each of the 8 grid reflections, or (``many`` groups, where that
    O(k^3) assignment would take seconds to minutes) one ``band_assignment``."""
    emb = laplacian_embedding(flows)
    pts = standardized(np.column_stack([cols, rows]).astype(float))
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
