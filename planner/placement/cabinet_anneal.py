"""Routers over cabinet positions by simulated annealing, priced by the true cable cost.

On a ``reach`` floor a link is copper whenever a copper part reaches its route, so what a link
costs depends on the two cabinets its routers sit in (``objective.CabinetPrices``), not on
electrical groups. Starting from the grouping-level layout (groups -> cabinets -> floor slots)
this search moves routers between the cabinets of the layout, priced by the table:

One step picks a random router v (cabinet a) and a random neighbour w of v, and a target
cabinet c among the ``NEAR_CABINETS`` cheapest positions seen from w's cabinet (where a link to
w would be copper, or short). Half of the time v moves to c when c has room; otherwise v swaps
with a random router u of c. The gain is read from the table over the adjacency of v (and u):
  sum_w m_vw (P[c, cab w] - P[a, cab w]) + sum_w m_uw (P[a, cab w] - P[c, cab w]),
the u-v link itself keeping its price. Every cabinet and electrical-group limit (router slots,
endpoint slots: ``capacity.Limits``) holds after every step. A step is accepted when it does
not raise the cost, else with probability exp(-delta / T); T falls geometrically from
``T_START`` to ``T_END`` times the price step that matters (the cheapest optical link minus the
cheapest link) over the step budget (Kirkpatrick, Gelatt & Vecchi, Science 220, 1983). The best
layout seen is returned, so the result is never worse than the start.

Like ``anneal``, the kernel is compiled with numba, draws from its own xorshift generator and
runs in chunks (the hard cap (``budget.HardCap``) and Ctrl-C are honoured between chunks): a seed and a
step budget give one answer on any machine.
"""

from __future__ import annotations

import numba
import numpy as np

from planner.placement.anneal import (ROUTER_STREAM, _below, _fits, _move_member, _uniform,
                                      seeded_rng)
from planner.placement.budget import HardCap
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.placement.objective import CabinetPrices
from planner.placement.tuning import (CABINET_CHUNK_STEPS as CHUNK_STEPS,
                                      CABINET_TEMPERATURE_STEPS as TEMPERATURE_STEPS,
                                      CABINET_T_END as T_END, CABINET_T_START as T_START,
                                      NEAR_CABINETS)
from planner.run.interrupts import ctrl_c_deferred


@numba.njit(cache=True, inline="always")
def _price(price, hall_link, hall, local, m, a, b):
    return price[m, hall_link[hall[a], hall[b]], local[a], local[b]]


@numba.njit(cache=True)
def _gain_of(v, skip, src, dst, indptr, indices, data, klass, cab, price, hall_link, hall, local):
    """Change of the price of v's links when v goes from cabinet src to dst (link to ``skip``
    left out)."""
    d = 0.0
    for j in range(indptr[v], indptr[v + 1]):
        w = indices[j]
        if w == skip:
            continue
        cw = cab[w]
        d += data[j] * (_price(price, hall_link, hall, local, klass[j], dst, cw)
                        - _price(price, hall_link, hall, local, klass[j], src, cw))
    return d


@numba.njit(cache=True)
def _relocate(x, dst, cab, members, count, pos, cab_load, cab_demand, grp_load, grp_demand,
              group):
    src = cab[x]
    _move_member(x, src, dst, members, count, pos)
    cab_load[src] -= cab_demand[x]
    cab_load[dst] += cab_demand[x]
    grp_load[group[src]] -= grp_demand[x]
    grp_load[group[dst]] += grp_demand[x]
    cab[x] = dst


@numba.njit(cache=True)
def _run(indptr, indices, data, klass, price, hall_link, hall, local, near, group,
         cab, members, count, pos, cab_load, cab_demand, cab_limit, grp_load, grp_demand,
         grp_limit, cost, best_cost, best_cab, first, last, total, t_start, t_end, rng):
    """Steps [first, last) of a ``total``-step schedule; returns (cost, best_cost)."""
    n = len(cab)
    ratio = t_end / t_start
    temp = t_start
    for step in range(first, last):
        if step == first or step % TEMPERATURE_STEPS == 0:
            temp = t_start * ratio ** (step / total)
        v = _below(rng, n)
        deg = indptr[v + 1] - indptr[v]
        if deg == 0:
            continue
        w = indices[indptr[v] + _below(rng, deg)]
        c = near[cab[w], _below(rng, near.shape[1])]
        a = cab[v]
        if c == a:
            continue
        u = -1
        movable = (_fits(cab_load, cab_demand, cab_limit, c, v, -1)
                   and (group[a] == group[c] or _fits(grp_load, grp_demand, grp_limit, group[c], v, -1)))
        if not (movable and _uniform(rng) < 0.5):
            if count[c] == 0:
                continue
            u = members[c, _below(rng, count[c])]
            if not (_fits(cab_load, cab_demand, cab_limit, c, v, u)
                    and _fits(cab_load, cab_demand, cab_limit, a, u, v)):
                continue
            if group[a] != group[c] and not (
                    _fits(grp_load, grp_demand, grp_limit, group[c], v, u)
                    and _fits(grp_load, grp_demand, grp_limit, group[a], u, v)):
                continue
        delta = _gain_of(v, u, a, c, indptr, indices, data, klass, cab, price, hall_link, hall,
                         local)
        if u >= 0:
            delta += _gain_of(u, v, c, a, indptr, indices, data, klass, cab, price, hall_link,
                              hall, local)
        r = _uniform(rng)
        if not (delta <= 0.0 or r < np.exp(-delta / temp)):
            continue
        _relocate(v, c, cab, members, count, pos, cab_load, cab_demand, grp_load, grp_demand,
                  group)
        if u >= 0:
            _relocate(u, a, cab, members, count, pos, cab_load, cab_demand, grp_load,
                      grp_demand, group)
        cost += delta
        if cost < best_cost - 1e-6:
            best_cost = cost
            best_cab[:] = cab
    return cost, best_cost


def near_cabinets(prices: CabinetPrices, cabinet_hall: np.ndarray, cabinet_local: np.ndarray,
                  k: int = NEAR_CABINETS) -> np.ndarray:
    """(C, k) the k other cabinets a link from each cabinet costs least to (ties: lower
    index), the targets of the annealing moves."""
    c = len(cabinet_hall)
    cost = prices.price[0][prices.hall_link[cabinet_hall[:, None], cabinet_hall[None, :]],
                           cabinet_local[:, None], cabinet_local[None, :]]
    np.fill_diagonal(cost, np.inf)
    k = max(1, min(int(k), c - 1))
    order = np.argsort(cost, axis=1, kind="stable")[:, :k]
    return np.ascontiguousarray(order, dtype=np.int64)


def price_scale(prices: CabinetPrices) -> float:
    """The price step placement trades: the cheapest optical link minus the cheapest link
    (the spread of the prices when the room has no copper or no optical pair)."""
    table = prices.price[0]
    finite = np.isfinite(table)
    cheapest = float(table[finite].min())
    optical = finite & ~prices.copper
    step = float(table[optical].min()) - cheapest if optical.any() else 0.0
    if step <= 0:
        step = float(table[finite].max()) - cheapest
    return max(step, 1e-6)


def compile_kernels() -> None:
    """Compile or load the kernel on a tiny instance (see ``anneal.compile_kernels``)."""
    from planner.inputs.floor import Room

    ring = Graph.from_edges(4, [(0, 1), (1, 2), (2, 3), (3, 0)])
    room = Room(None, 1, 1, 2, 1.0, 1.0, None, (0.0, 0.0))
    table = np.array([[[[1.0, 2.0], [2.0, 1.0]]]])
    prices = CabinetPrices(room=room, classes=np.array([1]), hall_link=np.zeros((1, 1), np.int64),
                           price=table, copper=table[0] < 1.5)
    limits = Limits.single(np.ones(4), 2)
    with ctrl_c_deferred():
        anneal_cabinets(ring, np.array([0, 1, 0, 1]), np.zeros(2, np.int64), np.arange(2),
                        np.zeros(2, np.int64), prices, limits, limits, steps=10)


def anneal_cabinets(graph: Graph, cab: np.ndarray, cabinet_hall: np.ndarray,
                    cabinet_local: np.ndarray, cabinet_group: np.ndarray, prices: CabinetPrices,
                    cabinet_limits: Limits, group_limits: Limits, *, steps: int, seed: int = 0,
                    hard_cap: HardCap | None = None) -> np.ndarray:
    """Best router -> cabinet assignment found by ``steps`` steps from ``cab`` (never dearer,
    every cabinet and group limit kept). ``cabinet_group`` gives each cabinet's group (its
    slot on the floor); the cabinets keep their positions."""
    cab = np.asarray(cab, dtype=np.int64).copy()
    n_cab = len(cabinet_hall)
    if graph.n < 2 or n_cab < 2 or steps <= 0 or len(graph.links) == 0:
        return cab
    a = graph.adjacency
    indptr, indices = a.indptr.astype(np.int64), a.indices.astype(np.int64)
    data = a.data.astype(np.float64)
    klass = prices.class_of(a.data).astype(np.int64)
    hall = np.asarray(cabinet_hall, dtype=np.int64)
    local = np.asarray(cabinet_local, dtype=np.int64)
    group = np.asarray(cabinet_group, dtype=np.int64)
    start = float(np.sum(graph.weights * prices.link_prices(
        graph.weights, hall[cab[graph.links[:, 0]]], local[cab[graph.links[:, 0]]],
        hall[cab[graph.links[:, 1]]], local[cab[graph.links[:, 1]]])))
    if not np.isfinite(start):
        return cab
    near = near_cabinets(prices, hall, local)
    cab_demand = np.ascontiguousarray(cabinet_limits.demand, dtype=np.int64)
    grp_demand = np.ascontiguousarray(group_limits.demand, dtype=np.int64)
    cab_load = cabinet_limits.loads(cab, n_cab)
    grp_load = group_limits.loads(group[cab], int(group.max()) + 1)
    # a swap holds one router more in its target cabinet for a moment
    slots = max(int(np.bincount(cab, minlength=n_cab).max()), cabinet_limits.max_count()) + 1
    members = np.full((n_cab, slots), -1, dtype=np.int64)
    count = np.zeros(n_cab, dtype=np.int64)
    pos = np.empty(graph.n, dtype=np.int64)
    for v in range(graph.n):
        c = cab[v]
        members[c, count[c]] = v
        pos[v] = count[c]
        count[c] += 1
    scale = price_scale(prices)
    cost = best = start
    best_cab = cab.copy()
    rng = seeded_rng(seed, ROUTER_STREAM)
    for first in range(0, int(steps), CHUNK_STEPS):
        if hard_cap is not None and hard_cap.expired():
            break
        last = min(int(steps), first + CHUNK_STEPS)
        cost, best = _run(indptr, indices, data, klass, prices.price, prices.hall_link, hall,
                          local, near, group, cab, members, count, pos, cab_load, cab_demand,
                          np.ascontiguousarray(cabinet_limits.limit, dtype=np.int64), grp_load,
                          grp_demand, np.ascontiguousarray(group_limits.limit, dtype=np.int64),
                          cost, best, best_cab, first, last, int(steps), T_START * scale,
                          T_END * scale, rng)
    return best_cab
