"""Capacity-respecting move/swap local search on a grouping (Fiduccia–Mattheyses-style gains).

State: W[v, g] = link weight from router v into block g (dense int32, n x k), block loads per
resource (``capacity.Limits``: every move and swap keeps every resource within its limit).
* Move pass: every router's best block with room, by gain W[v,g] - W[v,p(v)], applied in order
  of decreasing gain with the gain and the room re-checked before each move.
* Swap pass: for block pairs (a, b) whose best one-sided gains can add up to a positive
  value, the top candidates of each side are paired; the swap gain is
  W[v,b] - W[v,a] + W[u,a] - W[u,b] - 2 A[u,v]. The best positive swap is applied and the pair
  retried.
Passes repeat until no improvement or ``max_rounds``. Every step strictly lowers the cut, so the
search terminates and is deterministic (ties broken by router and block id).
"""

from __future__ import annotations

import numpy as np

from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.placement.tuning import SWAP_CANDIDATES


class LocalSearch:
    def __init__(self, graph: Graph, part: np.ndarray, limits: Limits, k: int):
        self.graph, self.limits, self.k = graph, limits, int(k)
        self.demand, self.limit = limits.demand, limits.limit
        self.part = np.asarray(part, dtype=np.int64).copy()
        self.a = graph.adjacency
        self.loads = limits.loads(self.part, self.k)
        self.W = self._w_matrix()
        self._column = np.full(graph.n, -1, dtype=np.int64)  # scratch for _links_between

    def _w_matrix(self) -> np.ndarray:
        a = self.a.tocoo()
        w = np.zeros((self.graph.n, self.k), dtype=np.int32)
        np.add.at(w, (a.row, self.part[a.col]), a.data.astype(np.int32))
        return w

    def _links_between(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Dense A[rows][:, cols] for a few routers, straight from the CSR arrays (scipy's
        fancy indexing costs ~0.1 ms a call, which the swap pass makes 10^5 times)."""
        a = self.a
        starts = a.indptr[rows]
        lens = a.indptr[rows + 1] - starts
        offsets = np.cumsum(lens) - lens
        entry = np.arange(int(lens.sum())) - np.repeat(offsets, lens) + np.repeat(starts, lens)
        self._column[cols] = np.arange(len(cols))
        col = self._column[a.indices[entry]]
        self._column[cols] = -1
        hit = col >= 0
        out = np.zeros((len(rows), len(cols)), dtype=np.int64)
        np.add.at(out, (np.repeat(np.arange(len(rows)), lens)[hit], col[hit]), a.data[entry][hit])
        return out

    @property
    def cut(self) -> int:
        return self.graph.cut(self.part)

    def _move(self, v: int, g: int) -> None:
        old = self.part[v]
        s, e = self.a.indptr[v], self.a.indptr[v + 1]
        nb, wt = self.a.indices[s:e], self.a.data[s:e].astype(np.int32)
        np.subtract.at(self.W[:, old], nb, wt)
        np.add.at(self.W[:, g], nb, wt)
        self.part[v] = g
        self.loads[old] -= self.demand[v]
        self.loads[g] += self.demand[v]

    def move_pass(self) -> int:
        n = self.graph.n
        own = self.W[np.arange(n), self.part].astype(np.int64)
        gain = self.W.astype(np.int64) - own[:, None]
        room = np.ones((n, self.k), dtype=bool)
        for j, cap in enumerate(self.limit.tolist()):
            room &= self.loads[None, :, j] + self.demand[:, j, None] <= cap
        gain = np.where(room, gain, -1)
        gain[np.arange(n), self.part] = -1
        target = np.argmax(gain, axis=1)
        best = gain[np.arange(n), target]
        cand = np.flatnonzero(best > 0)
        cand = cand[np.lexsort((cand, -best[cand]))]
        total = 0
        for v in cand.tolist():
            g = int(target[v])
            p = int(self.part[v])
            gv = int(self.W[v, g]) - int(self.W[v, p])
            if g != p and gv > 0 and np.all(self.loads[g] + self.demand[v] <= self.limit):
                self._move(v, g)
                total += gv
        return total

    def _best_toward(self) -> np.ndarray:
        """M[a, b] = max over v in a of W[v,b] - W[v,a]."""
        n = self.graph.n
        order = np.argsort(self.part, kind="stable")
        d = self.W[order].astype(np.int64) - self.W[order, self.part[order]].astype(np.int64)[:, None]
        blocks, starts = np.unique(self.part[order], return_index=True)
        m = np.full((self.k, self.k), -(10 ** 9), dtype=np.int64)
        if n:
            m[blocks] = np.maximum.reduceat(d, starts, axis=0)
        return m

    def _swap_pair(self, a: int, b: int, members: dict[int, np.ndarray]) -> int:
        total = 0
        while True:
            ma, mb = members[a], members[b]
            if len(ma) == 0 or len(mb) == 0:
                return total
            ga = self.W[ma, b].astype(np.int64) - self.W[ma, a]
            gb = self.W[mb, a].astype(np.int64) - self.W[mb, b]
            ta = ma[np.argsort(-ga, kind="stable")[:SWAP_CANDIDATES]]
            tb = mb[np.argsort(-gb, kind="stable")[:SWAP_CANDIDATES]]
            ga_t = self.W[ta, b].astype(np.int64) - self.W[ta, a]
            gb_t = self.W[tb, a].astype(np.int64) - self.W[tb, b]
            if ga_t[0] + gb_t[0] <= 0:
                return total
            gain = ga_t[:, None] + gb_t[None, :] - 2 * self._links_between(ta, tb)
            da, db = self.demand[ta], self.demand[tb]
            ok = (np.all(self.loads[a] - da[:, None, :] + db[None, :, :] <= self.limit, axis=2)
                  & np.all(self.loads[b] - db[None, :, :] + da[:, None, :] <= self.limit, axis=2))
            gain = np.where(ok, gain, -1)
            i, j = np.unravel_index(int(np.argmax(gain)), gain.shape)
            if gain[i, j] <= 0:
                return total
            v, u = int(ta[i]), int(tb[j])
            self._move(v, b)
            self._move(u, a)
            members[a] = np.where(ma == v, u, ma)
            members[b] = np.where(mb == u, v, mb)
            total += int(gain[i, j])

    def swap_pass(self) -> int:
        m = self._best_toward()
        pair_gain = m + m.T
        ia, ib = np.nonzero(np.triu(pair_gain > 0, 1))
        if len(ia) == 0:
            return 0
        order = np.lexsort((ib, ia, -pair_gain[ia, ib]))
        order_v = np.argsort(self.part, kind="stable")
        blocks, starts = np.unique(self.part[order_v], return_index=True)
        bounds = np.append(starts, len(order_v))
        members = {int(b): order_v[bounds[i]:bounds[i + 1]] for i, b in enumerate(blocks)}
        total = 0
        for a, b in zip(ia[order].tolist(), ib[order].tolist()):
            if a in members and b in members:
                total += self._swap_pair(a, b, members)
        return total

    def kl_pair(self, a: int, b: int) -> int:
        """One Kernighan–Lin pass on blocks a, b (Kernighan & Lin, Bell Syst. Tech. J. 1970):
        swap the best pair of unlocked routers of equal demand even at a loss, lock them, and keep
        the best prefix of the sequence if its total gain is positive. Returns the gain."""
        nodes = np.concatenate([np.flatnonzero(self.part == a), np.flatnonzero(self.part == b)])
        if len(nodes) < 2:
            return 0
        loc = self._links_between(nodes, nodes)
        side = (self.part[nodes] == b).astype(np.int64)
        _, wt = np.unique(self.demand[nodes], axis=0, return_inverse=True)
        wt = wt.ravel()
        locked = np.zeros(len(nodes), dtype=bool)
        total, best, best_len, seq = 0, 0, 0, []
        for _ in range(min(int((side == 0).sum()), int((side == 1).sum()))):
            sign = np.where(side[:, None] != side[None, :], 1, -1)
            d = (loc * sign).sum(axis=1)
            xs = np.flatnonzero((side == 0) & ~locked)
            ys = np.flatnonzero((side == 1) & ~locked)
            gain = d[xs][:, None] + d[ys][None, :] - 2 * loc[np.ix_(xs, ys)]
            gain = np.where(wt[xs][:, None] == wt[ys][None, :], gain, np.iinfo(np.int64).min // 4)
            i, j = np.unravel_index(int(np.argmax(gain)), gain.shape)
            if gain[i, j] <= np.iinfo(np.int64).min // 8:
                break
            x, y = xs[i], ys[j]
            side[x], side[y] = 1, 0
            locked[x] = locked[y] = True
            total += int(gain[i, j])
            seq.append((int(nodes[x]), int(nodes[y])))
            if total > best:
                best, best_len = total, len(seq)
        for v, u in seq[:best_len]:
            self._move(v, b)
            self._move(u, a)
        return best

    def kl_pass(self) -> int:
        """Kernighan–Lin passes over block pairs joined by links, most links first."""
        flows = np.zeros((self.k, self.k), dtype=np.int64)
        lk = self.graph.links
        np.add.at(flows, (self.part[lk[:, 0]], self.part[lk[:, 1]]), self.graph.weights)
        flows = flows + flows.T
        ia, ib = np.nonzero(np.triu(flows, 1))
        order = np.lexsort((ib, ia, -flows[ia, ib]))
        return sum(self.kl_pair(int(a), int(b)) for a, b in zip(ia[order], ib[order]))

    def run(self, max_rounds: int = 50, kl: bool = False) -> np.ndarray:
        for _ in range(max_rounds):
            gained = self.move_pass()
            gained += self.swap_pass()
            if kl and gained == 0:
                gained += self.kl_pass()
            if gained == 0:
                break
        return self.part


def local_search(graph: Graph, part: np.ndarray, limits: Limits, k: int,
                 max_rounds: int = 50, kl: bool = False) -> np.ndarray:
    """Improve ``part`` (never worse, every limit kept); ``kl`` adds Kernighan–Lin pair passes
    once moves and swaps are exhausted. Returns the new part array."""
    if graph.n == 0 or k < 2:
        return np.asarray(part, dtype=np.int64).copy()
    return LocalSearch(graph, part, limits, k).run(max_rounds, kl)

