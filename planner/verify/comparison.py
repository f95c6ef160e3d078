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

from planner.run.errors import InputError
from planner.verify.names import fmt_link
from planner.verify.observed import read_observed, resolve
from planner.verify.planned import load_plan
from planner.verify.values import (KINDS, SCOPES, End, Finding, ObservedLink, PlannedCable,
                                   PlannedFabric, VerifyReport)


def _in_scope(link: ObservedLink, scope: str, endpoints: frozenset[str]) -> bool:
    touches_endpoint = link.a[0] in endpoints or link.b[0] in endpoints
    return {"all": True, "network": not touches_endpoint, "endpoint": touches_endpoint}[scope]


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
    """The passes of ``compare`` over the planned cables and observed links still open."""

    def __init__(self, planned: list[PlannedCable], obs: list[ObservedLink], cabinet_of):
        self.planned, self.obs, self.cabinet_of = planned, obs, cabinet_of
        self.owner = {end: i for i, c in enumerate(planned) for end in (c.a, c.b)}
        self.open_cable = [True] * len(planned)
        self.open_link = [True] * len(obs)
        self.link_at = {frozenset((o.a, o.b)): j for j, o in enumerate(obs)}
        self.findings: list[tuple[int, int, Finding]] = []
        self.matched = 0

    def _open_owner(self, end: End) -> int | None:
        i = self.owner.get(end)
        return i if i is not None and self.open_cable[i] else None

    def _report(self, kind: str, cables: list[int], links: list[ObservedLink | None]) -> None:
        cs = [self.planned[i] for i in cables]
        observed = [_oriented(c, o) if o else "not seen" for c, o in zip(cs, links)]
        self.findings.append((KINDS.index(kind), min(cables), Finding(
            kind, " + ".join(c.cable_id for c in cs), " + ".join(c.label for c in cs),
            cs[0].a_cabinet, cs[0].b_cabinet, ", ".join(fmt_link(c.a, c.b) for c in cs),
            ", ".join(observed))))
        for i in cables:
            self.open_cable[i] = False

    def exact(self) -> None:
        for j, o in enumerate(self.obs):
            i = self._open_owner(o.a)
            if i is not None and i == self.owner.get(o.b):
                self.open_cable[i] = self.open_link[j] = False
                self.matched += 1

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
                self.findings.append((KINDS.index("extra"), len(self.planned) + j, Finding(
                    "extra", "", "", self.cabinet_of.get(o.a[0], "?"),
                    self.cabinet_of.get(o.b[0], "?"), "not planned", fmt_link(o.a, o.b))))


def compare(fabric: PlannedFabric, observed: list[ObservedLink],
            scope: str = "all") -> VerifyReport:
    """Classify every planned cable and observed link (passes in the module docstring): each
    physical mistake is one finding, ordered by kind, then by the first cable in plan order."""
    if scope not in SCOPES:
        raise InputError(f"--cables: unknown scope {scope!r}; valid: {', '.join(SCOPES)}")
    endpoints = frozenset(fabric.cabinet_of) - fabric.routers
    planned = [c for c in fabric.cables if scope in ("all", c.kind)]
    obs = sorted((o for o in observed if _in_scope(o, scope, endpoints)),
                 key=lambda o: (o.a, o.b))
    run = _Comparison(planned, obs, fabric.cabinet_of)
    run.exact()
    run.swaps()
    run.one_end_right()
    run.both_ports_wrong()
    run.leftovers()
    run.findings.sort(key=lambda f: f[:2])
    return VerifyReport(len(planned), len(obs), run.matched, tuple(f for _, _, f in run.findings))


def verify(plan_dir, observed_path, fmt: str | None = None, device: str | None = None,
           scope: str = "all", ignore=()) -> VerifyReport:
    """Load the plan, read and resolve the observed file, and compare them."""
    fabric = load_plan(plan_dir)
    return compare(fabric, resolve(read_observed(observed_path, fmt, device, fabric), fabric,
                                   ignore), scope)
