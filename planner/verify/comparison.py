"""The comparison of a planned fabric with the observed links, and ``verify``, the whole check.

Classification: each physical mistake is reported once, with its kind (every planned cable and
every observed link is explained by at most one finding), in passes over what is still
unexplained:

1. exact: the observed link joins the planned cable's two ports -> matched;
2. swap: two planned cables (a, b) and (c, d) seen as (a, d) and (c, b), two ends exchanged
   (at one device, or the far ends of two cables): one finding for both cables;
3. wrong-port / wrong-device: an observed link with one end on a planned port and the other
   elsewhere: on another port of the planned peer device (wrong-port) or on another device
   (wrong-device). When its two ends sit on the ports of two planned cables it explains one of
   them (the one it misses by a port rather than a device, else the first in the plan);
4. wrong-port: the planned device pair, both port numbers different;
5. whatever planned cable is left is missing, whatever observed link is left is extra.

A finding's ``cable_id`` and ``label`` name its cable, or both cables of a swap joined by " + ".
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from planner.run.errors import InputError
from planner.verify.names import fmt_link
from planner.verify.observed import link_table, name_rank, observed_table
from planner.verify.planned import load_plan
from planner.verify.values import (KINDS, PORT_SPAN, SCOPES, End, Finding, LinkTable,
                                   ObservedLink, PlannedCable, PlannedFabric, VerifyReport)


def _pair(a: End, b: End) -> tuple[str, str]:
    return (a[0], b[0]) if a[0] <= b[0] else (b[0], a[0])


def _oriented(c: PlannedCable, o: ObservedLink) -> str:
    """The observed link written with the end that corresponds to the planned a-end first."""
    a, b = o.a, o.b
    if b == c.a or a == c.b or (c.a not in (a, b) and c.b not in (a, b)
                                and (b[0] == c.a[0] or a[0] == c.b[0])):
        a, b = b, a
    return fmt_link(a, b)


def _wrong_end(c: PlannedCable, right: End, seen: End) -> str:
    """``wrong-port`` when ``seen`` is on the device planned opposite ``right``, else
    ``wrong-device``."""
    planned = c.b if right == c.a else c.a
    return "wrong-port" if seen[0] == planned[0] else "wrong-device"


class _Comparison:
    """Passes 2 to 5 of ``compare`` over the planned cables and observed links that pass 1 left
    open; ``cable_pos``/``link_pos`` are their positions among all compared, which order the
    findings."""

    def __init__(self, planned: list[PlannedCable], cable_pos: list[int],
                 obs: list[ObservedLink], link_pos: list[int], n_planned: int, cabinet_of):
        self.planned, self.cable_pos, self.obs, self.link_pos = planned, cable_pos, obs, link_pos
        self.n_planned, self.cabinet_of = n_planned, cabinet_of
        self.owner = {end: i for i, c in enumerate(planned) for end in (c.a, c.b)}
        self.open_cable = [True] * len(planned)
        self.open_link = [True] * len(obs)
        self.link_at = {frozenset((o.a, o.b)): j for j, o in enumerate(obs)}
        self.findings: list[tuple[int, int, Finding]] = []

    def _open_owner(self, end: End) -> int | None:
        i = self.owner.get(end)
        return i if i is not None and self.open_cable[i] else None

    def _report(self, kind: str, cables: list[int], links: list[ObservedLink | None]) -> None:
        cs = [self.planned[i] for i in cables]
        observed = [_oriented(c, o) if o else "not seen" for c, o in zip(cs, links)]
        self.findings.append((KINDS.index(kind), self.cable_pos[min(cables)], Finding(
            kind, " + ".join(c.cable_id for c in cs), " + ".join(c.label for c in cs),
            cs[0].a_cabinet, cs[0].b_cabinet, ", ".join(fmt_link(c.a, c.b) for c in cs),
            ", ".join(observed))))
        for i in cables:
            self.open_cable[i] = False

    def swaps(self) -> None:
        for j, o in enumerate(self.obs):
            i, k = self._open_owner(o.a), self._open_owner(o.b)
            if not self.open_link[j] or i is None or k is None or i == k:
                continue
            ci, ck = self.planned[i], self.planned[k]
            rest = frozenset((ci.b if o.a == ci.a else ci.a, ck.b if o.b == ck.a else ck.a))
            other = self.link_at.get(rest)
            if other is None or not self.open_link[other]:
                continue
            pair = sorted((i, k))
            links = (o, self.obs[other])
            holding_a = [next(link for link in links if self.planned[c].a in (link.a, link.b))
                         for c in pair]
            self._report("swap", pair, holding_a)
            self.open_link[j] = self.open_link[other] = False

    def one_end_right(self) -> None:
        for j, o in enumerate(self.obs):
            if not self.open_link[j]:
                continue
            options = []
            for right, seen in ((o.a, o.b), (o.b, o.a)):
                i = self._open_owner(right)
                if i is not None:
                    kind = _wrong_end(self.planned[i], right, seen)
                    options.append((kind != "wrong-port", i, kind))
            if options:
                _, i, kind = min(options)
                self._report(kind, [i], [o])
                self.open_link[j] = False

    def both_ports_wrong(self) -> None:
        by_pair = defaultdict(list)
        for i in range(len(self.planned) - 1, -1, -1):
            if self.open_cable[i]:
                by_pair[_pair(self.planned[i].a, self.planned[i].b)].append(i)
        for j, o in enumerate(self.obs):
            candidates = by_pair.get(_pair(o.a, o.b))
            while candidates and not self.open_cable[candidates[-1]]:
                candidates.pop()
            if self.open_link[j] and candidates:
                self._report("wrong-port", [candidates.pop()], [o])
                self.open_link[j] = False

    def leftovers(self) -> None:
        for i, still in enumerate(self.open_cable):
            if still:
                self._report("missing", [i], [None])
        for j, o in enumerate(self.obs):
            if self.open_link[j]:
                self.findings.append((KINDS.index("extra"), self.n_planned + self.link_pos[j], Finding(
                    "extra", "", "", self.cabinet_of.get(o.a[0], "?"),
                    self.cabinet_of.get(o.b[0], "?"), "not planned", fmt_link(o.a, o.b))))


def _owner(end_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """For each key, the index of the cable holding that end (ends listed a-ends then b-ends
    in ``end_keys``), or -1."""
    if not len(end_keys):
        return np.full(len(keys), -1, dtype=np.int64)
    sorter = np.argsort(end_keys, kind="stable")
    found = end_keys[sorter]
    pos = np.minimum(np.searchsorted(found, keys), len(found) - 1)
    return np.where(found[pos] == keys, sorter[pos] % (len(end_keys) // 2), -1)


def compare_table(fabric: PlannedFabric, links: LinkTable, scope: str = "all") -> VerifyReport:
    """Classify every planned cable and observed link (passes in the module docstring): each
    physical mistake is one finding, ordered by kind, then by the first cable in plan order.
    Pass 1 (exact) is a join of end keys over all links; the later passes visit only what it
    left open, in the order of links sorted by their (device name, port) ends."""
    if scope not in SCOPES:
        raise InputError(f"--cables: unknown scope {scope!r}; valid: {', '.join(SCOPES)}")
    cables = np.flatnonzero(fabric.kind == scope) if scope != "all" else np.arange(len(fabric))
    end_keys = np.concatenate([fabric.a_dev[cables] * PORT_SPAN + fabric.a_port[cables],
                               fabric.b_dev[cables] * PORT_SPAN + fabric.b_port[cables]])
    endpoint = np.zeros(len(links.names), dtype=bool)
    endpoint[:len(fabric.devices)] = True
    net = fabric.kind == "network"
    endpoint[fabric.a_dev[net]] = endpoint[fabric.b_dev[net]] = False
    touches = endpoint[links.a // PORT_SPAN] | endpoint[links.b // PORT_SPAN]
    keep = {"all": np.ones(len(links), dtype=bool), "network": ~touches,
            "endpoint": touches}[scope]
    oa, ob = links.a[keep], links.b[keep]
    rank = name_rank(links.names)
    order = np.lexsort((rank[ob // PORT_SPAN] * PORT_SPAN + ob % PORT_SPAN,
                        rank[oa // PORT_SPAN] * PORT_SPAN + oa % PORT_SPAN))
    oa, ob = oa[order], ob[order]
    at_a, at_b = _owner(end_keys, oa), _owner(end_keys, ob)
    exact = np.flatnonzero((at_a >= 0) & (at_a == at_b))
    exact = exact[np.unique(at_a[exact], return_index=True)[1]]     # a link seen twice: once
    open_cable = np.ones(len(cables), dtype=bool)
    open_cable[at_a[exact]] = False
    open_link = np.ones(len(oa), dtype=bool)
    open_link[exact] = False
    cable_pos, link_pos = np.flatnonzero(open_cable).tolist(), np.flatnonzero(open_link).tolist()
    run = _Comparison([fabric.cable(cables[i]) for i in cable_pos], cable_pos,
                      [ObservedLink(links.end(oa[j]), links.end(ob[j]), "") for j in link_pos],
                      link_pos, len(cables), fabric.cabinet_of)
    run.swaps()
    run.one_end_right()
    run.both_ports_wrong()
    run.leftovers()
    run.findings.sort(key=lambda f: f[:2])
    return VerifyReport(len(cables), len(oa), len(exact), tuple(f for _, _, f in run.findings))


def compare(fabric: PlannedFabric, observed: list[ObservedLink],
            scope: str = "all") -> VerifyReport:
    """``compare_table`` of a list of observed links."""
    return compare_table(fabric, link_table(fabric, observed), scope)


def verify(plan_dir, observed_path, fmt: str | None = None, device: str | None = None,
           scope: str = "all", ignore=()) -> VerifyReport:
    """Load the plan, read and resolve the observed file, and compare them."""
    fabric = load_plan(plan_dir)
    return compare_table(fabric, observed_table(observed_path, fmt, device, fabric, ignore),
                         scope)
