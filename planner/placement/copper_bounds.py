"""Bounds for reach floors: most copper links, and least cable dollars, of any placement.

The routers go to the router slots of the layout's cabinets (``slots`` per cabinet); a link
is copper when a copper part reaches the route between its two cabinets (``objective.
CabinetPrices``). Placing routers is a quadratic assignment: with A the link weights (cables
per router pair, padded with empty routers to the N slots) and B a slot-pair matrix, the
placement's value is 1/2 tr(A X B X^T) over permutation matrices X. Both bounds below hold for
every assignment of the routers to the slots (the endpoint limits of cabinets only remove
assignments, so they are left out).

* Degree and reach: router v keeps at most deg(v) copper cables and, at slot s, at most
  mu r(s) (r(s) = other slots a copper part reaches from s, mu = most parallel cables of a
  router pair). Sum_v min(d_v, mu r(pi(v))) over assignments pi is largest with both sorted
  in decreasing order (min(a, b) is supermodular), and every copper cable has two ends.
* Projection (Hadley, Rendl & Wolkowicz, "A new lower bound via projection for the quadratic
  assignment problem", Math. Oper. Res. 17(3), 1992): with P = I - ee^T/N, for a permutation X
  tr(A X B X^T) = tr(PAP Y PBP Y^T) + (2/N) r_A^T X r_B - s_A s_B / N^2 (r = row sums, s = total,
  Y orthogonal), so it lies within sum_i lambda_i(PAP) mu_i(PBP) (same / opposite order) plus
  the best / worst linear assignment of r_A against r_B (sorted), minus s_A s_B / N^2. With B the
  copper flags it caps the copper cables, with B the cheapest price per cable it bounds the
  dollars from below.
* Counting: at least L - U cables are optical for any placement (U the copper bound), each at
  least the cheapest optical price, the rest at least the cheapest price of all.

The counts and cheapest prices are read from the cabinet-pair table in blocks of rows. Dense
eigenvalues are taken only for at most ``PROJECTION_MAX_SLOTS`` slots and when they fit the
bounds' share of the time limit (``budget.dense_eigen_fits``); the computed eigenvalues of a
symmetric matrix are exact for a matrix within p(N) eps ||.||_2 of it, so the sums get a margin
of ``EIGEN_MARGIN`` N^2 max|lambda| max|mu|.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from planner.placement.bounds import EIGEN_MARGIN
from planner.placement.budget import dense_eigen_fits
from planner.placement.graph import Graph
from planner.placement.objective import CabinetPrices
from planner.placement.tuning import PROJECTION_MAX_SLOTS, ROWS_PER_BLOCK

PROJECTION_EIGEN_SOLVES = 2   # PAP and PBP: the dense work of one projection bound


def _cabinet_rows(prices: CabinetPrices, table: np.ndarray, hall: np.ndarray, local: np.ndarray,
                  rows: slice) -> np.ndarray:
    """``table[hall link, local a, local b]`` for the cabinets ``rows`` against all cabinets."""
    return table[prices.hall_link[hall[rows, None], hall[None, :]], local[rows, None],
                 local[None, :]]


@dataclass(frozen=True)
class SlotStats:
    """Per router slot: other slots within copper reach; over distinct slots: the cheapest
    price per cable and the cheapest optical one."""

    reach: np.ndarray
    cheapest: float
    cheapest_optical: float


def cheapest_prices(prices: CabinetPrices) -> np.ndarray:
    """The cheapest price per cable of every cabinet position pair over the multiplicity
    classes; 0 where no class exists (a system without router-router links, such as one
    switch and its servers, has no cable to price, and 0 bounds nothing from below)."""
    if prices.price.shape[0] == 0:
        return np.zeros(prices.price.shape[1:])
    return prices.price.min(axis=0)


def slot_stats(prices: CabinetPrices, cabinet_hall, cabinet_local, slots: int) -> SlotStats:
    hall = np.asarray(cabinet_hall, dtype=np.int64)
    local = np.asarray(cabinet_local, dtype=np.int64)
    cheapest_table = cheapest_prices(prices)
    c = len(hall)
    reach = np.empty(c, dtype=np.int64)
    low, low_optical = np.inf, np.inf
    for start in range(0, c, ROWS_PER_BLOCK):
        rows = slice(start, min(c, start + ROWS_PER_BLOCK))
        copper = _cabinet_rows(prices, prices.copper, hall, local, rows)
        price = _cabinet_rows(prices, cheapest_table, hall, local, rows)
        own = np.arange(rows.start, rows.stop) - rows.start, np.arange(rows.start, rows.stop)
        reach[rows] = slots * copper.sum(axis=1) - copper[own]   # not the slot itself
        other = np.ones(price.shape, dtype=bool)
        if slots == 1:
            other[own] = False       # a cabinet of one slot has no second slot inside it
        low = min(low, float(price[other].min(initial=np.inf)))
        low_optical = min(low_optical, float(price[other & ~copper].min(initial=np.inf)))
    if not np.isfinite(low_optical):
        low_optical = low
    return SlotStats(reach=np.repeat(reach, slots), cheapest=low, cheapest_optical=low_optical)


def slot_matrix(prices: CabinetPrices, table: np.ndarray, cabinet_hall, cabinet_local,
                slots: int) -> np.ndarray:
    """N x N matrix (N = cabinets x ``slots``) of ``table[hall link, local a, local b]`` between
    the cabinets of every two router slots."""
    hall = np.repeat(np.asarray(cabinet_hall, dtype=np.int64), slots)
    local = np.repeat(np.asarray(cabinet_local, dtype=np.int64), slots)
    return _cabinet_rows(prices, table, hall, local, slice(None))


def degree_reach_bound(graph: Graph, reach: np.ndarray) -> int:
    """Most copper cables by degrees and reach counts alone (module doc)."""
    mu = int(graph.weights.max(initial=1))
    d = np.sort(graph.degree)[::-1]
    r = np.sort(mu * np.asarray(reach, dtype=np.int64))[::-1][: graph.n]
    return int(np.minimum(d[: len(r)], r).sum()) // 2


@dataclass(frozen=True)
class Spectrum:
    """What the projection bound reads of one symmetric N x N matrix M: the eigenvalues of
    V^T M V (V an orthonormal basis of e-perp), ascending, i.e. those of PMP without the zero
    that belongs to e; and the row sums, ascending."""

    eigenvalues: np.ndarray
    row_sums: np.ndarray


def spectrum(m: np.ndarray) -> Spectrum:
    n = len(m)
    r = m.sum(axis=1)
    s = float(r.sum())
    pmp = m - (r[:, None] + r[None, :]) / n + s / (n * n)
    vals = scipy.linalg.eigh(pmp, eigvals_only=True, driver="evd")
    return Spectrum(np.delete(vals, int(np.argmin(np.abs(vals)))), np.sort(r))


def projection_bound(a: Spectrum, b: Spectrum, largest: bool) -> float:
    """Upper (``largest``) or lower bound on 1/2 tr(A X B X^T) over permutations X of two
    symmetric N x N matrices with zero diagonals, from their ``spectrum``."""
    n = len(a.row_sums)
    la, lb, ra, rb = a.eigenvalues, b.eigenvalues, a.row_sums, b.row_sums
    if largest:
        quad, linear = float(la @ lb), float(ra @ rb)
    else:
        quad, linear = float(la @ lb[::-1]), float(ra @ rb[::-1])
    total = quad + 2.0 / n * linear - float(ra.sum()) * float(rb.sum()) / (n * n)
    margin = EIGEN_MARGIN * n * n * max(float(np.abs(la).max(initial=0)), 1.0) \
        * max(float(np.abs(lb).max(initial=0)), 1.0)
    return 0.5 * (total + margin if largest else total - margin)


def _projection_fits(graph: Graph, n: int, seconds: float) -> bool:
    return (n >= graph.n >= 2 and n <= PROJECTION_MAX_SLOTS
            and dense_eigen_fits(n, seconds / PROJECTION_EIGEN_SOLVES))


def router_spectrum(graph: Graph, n: int, seconds: float) -> Spectrum | None:
    """``spectrum`` of the link weights padded with empty routers to the n router slots, when
    the projection bound fits ``seconds``; the copper and the dollar bounds share it."""
    if not _projection_fits(graph, n, seconds):
        return None
    a = np.zeros((n, n))
    a[: graph.n, : graph.n] = graph.adjacency.toarray()
    return spectrum(a)


def copper_upper_bound(graph: Graph, prices: CabinetPrices, cabinet_hall, cabinet_local,
                       slots: int, seconds: float = math.inf, stats: SlotStats | None = None,
                       routers: Spectrum | None = None) -> tuple[int, str]:
    """(most copper cables of any placement of the routers in the ``slots`` router slots of
    every cabinet, which bound); module doc. ``stats`` and ``routers`` (``router_spectrum``
    for these slots and ``seconds``) are computed when not given."""
    stats = stats or slot_stats(prices, cabinet_hall, cabinet_local, slots)
    best = (min(degree_reach_bound(graph, stats.reach), graph.total_weight), "degree and reach")
    n = len(cabinet_hall) * slots
    routers = routers or router_spectrum(graph, n, seconds)
    if routers is not None:
        flags = slot_matrix(prices, prices.copper, cabinet_hall, cabinet_local, slots).astype(float)
        np.fill_diagonal(flags, 0.0)
        value = math.floor(projection_bound(routers, spectrum(flags), largest=True) + 1e-6)
        if value < best[0]:
            best = (max(value, 0), "projection (Hadley-Rendl-Wolkowicz)")
    return best


def cost_lower_bound(graph: Graph, prices: CabinetPrices, cabinet_hall, cabinet_local, slots: int,
                     copper_bound: int, seconds: float = math.inf,
                     stats: SlotStats | None = None,
                     routers: Spectrum | None = None) -> tuple[float, str]:
    """(least dollars of the network cables of any such placement, which bound) given at most
    ``copper_bound`` copper cables; module doc (``stats``, ``routers``: as
    ``copper_upper_bound``)."""
    if graph.total_weight == 0:
        return 0.0, "no network cables"
    stats = stats or slot_stats(prices, cabinet_hall, cabinet_local, slots)
    must = graph.total_weight - copper_bound
    best = (must * stats.cheapest_optical + copper_bound * min(stats.cheapest, stats.cheapest_optical),
            "counting")
    n = len(cabinet_hall) * slots
    if _projection_fits(graph, n, seconds):
        table = slot_matrix(prices, cheapest_prices(prices), cabinet_hall, cabinet_local, slots)
        if np.all(np.isfinite(table)):
            routers = routers or router_spectrum(graph, n, seconds)
            np.fill_diagonal(table, 0.0)
            value = projection_bound(routers, spectrum(table), largest=False)
            if value > best[0]:
                best = (value, "projection (Hadley-Rendl-Wolkowicz)")
    return best
