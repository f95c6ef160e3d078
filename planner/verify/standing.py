"""A standing system read from what is installed: an as-built fabric (any format ``planner
verify`` reads) checked against a plan, or, for a system the planner did not design, read with
a floor that says where its switches stand (docs/growth.md "Growing what is installed").

Against a plan (``check_against_plan``): the as-built is compared with the plan's cables.csv
(``planner.verify.comparison``); growth proceeds from the plan only when nothing contradicts it.
An as-built that lists no host link (switch LLDP only) is compared on the network cables.

Without a plan (``standing_from_as_built``): the switches are the devices the floor's occupied
positions name (``hall.positions[].devices``, ``planner.inputs.floor.schema.MarkedPosition``);
every other device of the as-built is a host, linked to exactly one switch. The standing graph
is recognised as the old system of the new spec's family:

- Jellyfish (Singla et al., NSDI'12) grows from any graph of switches of at most ``degree``
  links (random swap, §4.2); switches take ids in natural name order.
- Dragonfly (Kim et al., ISCA'08): the groups are ``a``-cliques of local links, each router
  with ``h`` links leaving its group. Groups are numbered by their first switch in natural name
  order, routers within a group in name order; the global arrangement may be any (the growth
  keeps each group pair's standing global cables up to the new count,
  ``planner.placement.grown``).
- Fat tree (Al-Fares et al., SIGCOMM'08), three levels, even k: the edges are the switches
  with hosts, a pod the complete bipartite block of e edges and their a aggregation switches,
  the cores the rest; aggregation j of every pod must link to the same a cores (their column
  j). Pods are numbered by their first edge in name order, columns by their first core.
- HyperX (Ahn et al., SC09): the lines through the first switch are the maximal cliques
  holding it; coordinates from the nearest switch of each line (``_hyperx_order``).
- Other families (Slim Fly, projective networks, ...) are refused: not recognised from a
  graph alone.

Hosts stand on the switch ports 1..e of their switch (the planner's numbering,
``planner.cabling.assign_ports``); an as-built with no host link at all has the spec's hosts
per switch standing on those ports. Hands on an ``AsBuilt``: the ``Standing`` network, the
standing cabinets and each switch's, the standing fabric cables in cables.csv's columns with
the planner's device names, and the planner name of every as-built device.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from planner.inputs import floor as floors
from planner.placement.grown import Standing
from planner.run.errors import InputError
from planner.verify.comparison import compare_table
from planner.verify.observed import detect_format, observed_table, read_observed, resolve
from planner.verify.planned import load_plan
from planner.verify.values import PORT_SPAN, VerifyReport

RECOGNISED = ("dragonfly", "fattree", "hyperx", "jellyfish")
"""Families whose standing system is recognised from an as-built alone."""

# ----------------------------------------------------------------------------- with a plan

def check_against_plan(plan_dir: Path, path: Path, fmt: str | None,
                       device: str | None) -> VerifyReport:
    """``planner verify`` of the as-built against the plan; network cables only when the
    as-built lists no link to a host (module doc)."""
    fabric = load_plan(plan_dir)
    links = observed_table(path, fmt, device, fabric)
    hosts = np.zeros(len(links.names), dtype=bool)
    hosts[np.unique(np.r_[fabric.a_dev[fabric.kind == "endpoint"],
                          fabric.b_dev[fabric.kind == "endpoint"]])] = True
    net = fabric.kind == "network"
    hosts[np.r_[fabric.a_dev[net], fabric.b_dev[net]]] = False
    sees_hosts = bool((hosts[links.a // PORT_SPAN] | hosts[links.b // PORT_SPAN]).any())
    return compare_table(fabric, links, "all" if sees_hosts else "network")


def contradiction(report: VerifyReport, path: Path, plan_dir: Path) -> str:
    """The one-line refusal of an as-built that contradicts the plan."""
    first = report.findings[0]
    what = first.label or "a link the plan does not have"
    return (f"--as-built '{path}' contradicts the plan in --from '{plan_dir}': "
            f"{len(report.findings)} finding(s), the first {first.kind} {what} (expected "
            f"{first.expected}, observed {first.observed}); run 'planner verify --plan "
            f"{plan_dir} --observed {path}' for the full list, then fix the cabling or expand "
            "from the as-built alone (--as-built with --floor, without --from)")


# ----------------------------------------------------------------------------- without a plan

@dataclass(frozen=True, eq=False)
class AsBuilt:
    """A standing system read from an as-built file and a floor (module doc)."""

    standing: Standing
    router_cabinet: np.ndarray     # cabinet (index into ``cabinets``) of every switch
    cabinets: pd.DataFrame         # name, hall, row, column (from 1, letters), group
    cables: pd.DataFrame           # standing fabric cables, cables.csv columns
    names: pd.DataFrame            # device (planner), as_built_name
    notes: tuple[str, ...]
    radix: int                     # most ports any standing switch uses


def natural_key(name: str):
    """``sw2`` before ``sw10``: digit runs compare as numbers."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name)
            if t]


def floor_devices(floor) -> dict[str, tuple[int, int, int]]:
    """Switch name -> (hall, row, column), 0-based, from the occupied positions' ``devices``;
    InputError when the floor names none."""
    out = {}
    if floor.hall is not None:
        for mark in floor.hall.positions:
            for name in mark.devices:
                out[name] = (mark.hall_numbers(1)[0] - 1, mark.row_index, mark.column - 1)
    if not out:
        raise InputError(f"floor '{floor.source}': no 'hall.positions' entry names devices; "
                         "list the switches standing in each occupied position (devices: "
                         "[sw-a01, sw-a02], docs/floors.md \"Existing rooms\")")
    return out


def growth_floor(floor, cabinets: pd.DataFrame):
    """The floor without the occupied positions that name devices and hold a standing cabinet
    (``cabinets``: cabinets.csv's hall, row, column): those are the system grown, which
    ``planner.placement.growth.free_positions`` keeps, not marks. Other marks stay."""
    if floor.hall is None or not any(m.devices for m in floor.hall.positions):
        return floor
    standing = set(zip(cabinets["hall"].astype(int), cabinets["row"].astype(str),
                       cabinets["column"].astype(int)))
    hall = floor.hall.model_copy(update={"positions": tuple(
        m for m in floor.hall.positions
        if not (m.devices and (m.hall_numbers(1)[0], m.row, m.column) in standing))})
    grown = floor.model_copy(update={"hall": hall})
    grown._source = floor.source
    return grown


def _links(path: Path, fmt: str | None, device: str | None, switches) -> list:
    """The as-built links, device names resolved to the floor's switch names where they match
    (``planner.verify.names``: case, zero padding, a domain)."""
    cabinet_of = {name: "" for name in switches}
    fmt = fmt or (detect_format(path) if path.exists() else None)
    if fmt == "ufm-ndt-report":
        raise InputError(f"--as-built '{path}': a UFM NDT report lists differences from a "
                         "plan only; give LLDP, ibnetdiscover, net_dump or a CSV")
    raw = read_observed(path, fmt, device, SimpleNamespace(cabinet_of=cabinet_of))
    return resolve(raw, SimpleNamespace(cabinet_of=cabinet_of))


def _order(family: str, spec, names: list[str], adj: dict[str, dict[str, int]],
           path: Path) -> tuple[list[str], dict]:
    """The switches in the planner's id order and the standing system's parameters."""
    by_name = sorted(names, key=natural_key)
    if family == "jellyfish":
        degree = int(spec.params["degree"])
        worst = max(by_name, key=lambda n: sum(adj[n].values()))
        if sum(adj[worst].values()) > degree:
            raise InputError(f"--as-built '{path}': switch {worst} has "
                             f"{sum(adj[worst].values())} switch links, more than the "
                             f"--topology degree {degree}; give the degree the switches have")
        return by_name, {**spec.params, "routers": len(by_name)}
    a, h = int(spec.params["a"]), int(spec.params["h"])
    groups, placed = [], set()
    for u in by_name:
        if u in placed:
            continue
        group = _group_of(u, adj, placed, a)
        if group is None:
            raise InputError(f"--as-built '{path}': switch {u} is in no single group of a={a} "
                             f"switches linked all to all; the standing graph is not a "
                             f"dragonfly:a={a} (check a, or grow it as a jellyfish)")
        placed.update(group)
        groups.append(group)
    for group in groups:
        members = set(group)
        for u in group:
            out = sum(k for v, k in adj[u].items() if v not in members)
            if out != h:
                raise InputError(f"--as-built '{path}': switch {u} has {out} links leaving "
                                 f"its group, a dragonfly:a={a},h={h} router has {h}; give "
                                 "the h the switches have")
    order = [u for g in groups for u in g]
    return order, {**spec.params, "g": len(groups)}


def _fattree_order(spec, adj: dict[str, dict[str, int]], hosted: set[str],
                   path: Path) -> tuple[list[str], dict]:
    """The switches of a three-level fat tree of even k in the planner's id order (pods of
    edges then aggregations, then the cores; ``planner.topologies.fattree``) and its
    parameters. Edges are the switches with hosts, aggregations their switch neighbours, cores
    the rest; a pod is a complete bipartite edge-aggregation block (Al-Fares et al.,
    SIGCOMM'08); aggregation j of every pod links to the same a cores (index j·a + t)."""
    k = int(spec.params["k"])
    e, a = k - k // 2, k // 2

    def refuse(why: str):
        raise InputError(f"--as-built '{path}': {why}; the standing graph is not a three-level "
                         f"fattree:k={k} grown by pods (give its plan with --from)")

    if spec.params.get("levels", 3) != 3 or k % 2:
        refuse("only three-level fat trees of even k are recognised")
    if not hosted:
        refuse("no host link, and a fat tree's edge switches are known by their hosts")
    aggs = {v for u in hosted for v in adj[u]}
    cores = set(adj) - hosted - aggs
    if aggs & hosted:
        refuse(f"switch {sorted(aggs & hosted, key=natural_key)[0]} has hosts and links to "
               "another switch with hosts")
    pods = []
    for u in sorted(hosted, key=natural_key):
        if any(u in pod[0] for pod in pods):
            continue
        up = set(adj[u])
        edges = sorted((w for w in hosted if set(adj[w]) == up), key=natural_key)
        if len(up) != a or len(edges) != e or any(
                {w for w in adj[g] if w in hosted} != set(edges) for g in up):
            refuse(f"edge switch {u} is in no pod of {e} edges linked to the same {a} "
                   "aggregation switches")
        pods.append((edges, up))
    columns: dict[frozenset, list[str]] = {}
    for _, up in pods:
        for g in up:
            columns.setdefault(frozenset(w for w in adj[g] if w in cores), []).append(g)
    if len(columns) != a or any(len(c) != a or len(g) != len(pods)
                                for c, g in columns.items()) or \
            sum(len(c) for c in columns) != len(cores):
        refuse(f"the aggregation switches do not link each to {a} cores shared with the "
               "same aggregation of every pod")
    ranked = sorted(columns, key=lambda c: natural_key(min(c, key=natural_key)))
    column_of = {g: j for j, c in enumerate(ranked) for g in columns[c]}
    order = []
    for edges, up in pods:
        order += edges + sorted(up, key=lambda g: column_of[g])
    order += [w for c in ranked for w in sorted(c, key=natural_key)]
    return order, {**spec.params, "levels": 3, "pods": len(pods)}


def _hyperx_order(spec, adj: dict[str, dict[str, int]], path: Path) -> tuple[list[str], dict]:
    """The switches of a HyperX (a Hamming graph, Ahn et al., SC09) in the planner's id order
    (mixed radix of the coordinates) and its sizes ``S``. Every clique lies in one line, so the
    maximal cliques through the first switch (name order) are its lines, one per dimension;
    they take the new spec's first dimensions (in name order of their switches, the first
    assignment whose sizes fit). A switch's coordinate along a line is that of the line's
    switch nearest to it (unique in a Hamming graph)."""
    from itertools import permutations

    import networkx as nx
    s_new = [int(x) for x in spec.params["S"]]
    names = sorted(adj, key=natural_key)
    graph = nx.Graph()
    graph.add_nodes_from(names)
    graph.add_edges_from((u, v) for u in names for v in adj[u])
    root = names[0]

    def refuse(why: str):
        raise InputError(f"--as-built '{path}': {why}; the standing graph is not a HyperX "
                         f"within S={'x'.join(map(str, s_new))} (give its plan with --from)")

    lines = sorted(([root] + sorted(set(c) - {root}, key=natural_key)
                    for c in nx.find_cliques(graph.subgraph([root, *adj[root]])) if root in c),
                   key=lambda c: natural_key(c[1]) if len(c) > 1 else [])
    fit = next((q for q in permutations(range(len(lines))) if len(lines) <= len(s_new) and all(
        len(lines[k]) <= s_new[i] for i, k in enumerate(q))), None)
    if fit is None:
        refuse(f"switch {root} is on {len(lines)} lines of sizes "
               f"{', '.join(str(len(c)) for c in lines)}")
    lines = [lines[k] for k in fit]
    sizes = [len(c) for c in lines]
    if len(names) != int(np.prod(sizes)) or any(
            max(adj[u].values()) > 1 for u in names) or graph.number_of_edges() * 2 != len(
            names) * sum(x - 1 for x in sizes):
        refuse(f"{len(names)} switches and {graph.number_of_edges()} links, not the "
               f"{int(np.prod(sizes))} switches and Hamming links of S="
               f"{'x'.join(map(str, sizes))}")
    coords = np.zeros((len(lines), len(names)), dtype=np.int64)
    for i, line in enumerate(lines):
        dist = np.array([[nx.single_source_shortest_path_length(graph, w).get(v, -1)
                          for v in names] for w in line])
        if (dist < 0).any():
            refuse("the switches are not all connected")
        coords[i] = dist.argmin(axis=0)
        if ((dist == dist.min(axis=0)).sum(axis=0) != 1).any():
            refuse(f"switches lie as far from two switches of a line through {root}")
    ids = np.ravel_multi_index(tuple(coords), sizes)
    at = {u: i for i, u in enumerate(names)}
    if len(set(ids.tolist())) != len(names) or any(
            int((coords[:, i] != coords[:, at[v]]).sum()) != 1
            for i, u in enumerate(names) for v in adj[u]):
        refuse("its links do not each join two switches differing in one coordinate")
    return [names[i] for i in np.argsort(ids)], {**spec.params, "S": sizes}


def _group_of(u: str, adj, placed: set, a: int) -> list[str] | None:
    """The one ``a``-clique of not yet grouped switches holding ``u`` (``u`` first, then name
    order), or None when there is none or more than one."""
    import networkx as nx
    near = [v for v in adj[u] if v not in placed and v != u]
    graph = nx.Graph()
    graph.add_nodes_from([u] + near)
    graph.add_edges_from((v, w) for v in [u] + near for w in adj[v] if w in graph and w != v)
    cliques = [set(c) for c in nx.find_cliques(graph) if u in c and len(c) >= a]
    if len(cliques) != 1 or len(cliques[0]) != a:
        return None
    return [u] + sorted(cliques[0] - {u}, key=natural_key)


def standing_from_as_built(path: Path, floor, spec, fmt: str | None = None,
                           device: str | None = None) -> AsBuilt:
    """Read the standing system of a floor and an as-built file for growing to ``spec``
    (module doc); InputError naming the first device or link that does not fit."""
    path = Path(path)
    if spec.family not in RECOGNISED:
        raise InputError(f"--as-built without --from: a {spec.family} is not recognised from "
                         f"an as-built alone, only {', '.join(RECOGNISED)}; give the plan "
                         "it was built from (--from PLAN_DIR --as-built FILE)")
    where = floor_devices(floor)
    links = _links(path, fmt, device, where)
    switches = set(where)
    seen = {end[0] for link in links for end in (link.a, link.b)}
    missing = sorted(switches - seen, key=natural_key)
    if missing:
        raise InputError(f"--as-built '{path}': switch {missing[0]} of the floor's positions "
                         f"has no link in it ({len(missing)} such); remove it from the floor's "
                         "devices or re-collect the as-built")
    adj: dict[str, dict[str, int]] = {n: {} for n in switches}
    host_of: dict[str, tuple[str, int, int]] = {}
    net = []
    for link in links:
        (da, pa), (db, pb) = link.a, link.b
        if da in switches and db in switches:
            adj[da][db] = adj[da].get(db, 0) + 1
            adj[db][da] = adj[db].get(da, 0) + 1
            net.append((da, pa, db, pb))
            continue
        if da not in switches and db not in switches:
            raise InputError(f"--as-built {link.where}: link {da}:{pa} - {db}:{pb} "
                             "joins two devices no floor position names; add the switch to "
                             "the devices of its position (docs/floors.md)")
        (sw, sp), (host, hp) = ((da, pa), (db, pb)) if da in switches else ((db, pb), (da, pa))
        if host in host_of:
            raise InputError(f"--as-built '{path}': {host} is linked to {host_of[host][0]} "
                             f"and {sw} but no floor position names it; if it is a switch add "
                             "it to the devices of its position, a host has one switch link")
        host_of[host] = (sw, sp, hp)
    hosted = {sw for sw, _, _ in host_of.values()}
    if spec.family == "fattree":
        order, params = _fattree_order(spec, adj, hosted, path)
    elif spec.family == "hyperx":
        order, params = _hyperx_order(spec, adj, path)
    else:
        order, params = _order(spec.family, spec, sorted(switches), adj, path)
    rid = {name: i for i, name in enumerate(order)}
    n = len(order)
    notes = []
    hosts_of: list[list[tuple[int, str, int]]] = [[] for _ in range(n)]
    for host, (sw, sp, hp) in host_of.items():
        hosts_of[rid[sw]].append((sp, host, hp))
    if host_of:
        endpoints = np.array([len(h) for h in hosts_of], dtype=np.int64)
    else:
        endpoints = np.asarray(spec.endpoints[:n], dtype=np.int64)
        notes.append(f"the as-built lists no host link: each switch's {int(endpoints[0])} "
                     "hosts are taken to stand on its ports 1..p")
        hosts_of = [[(k + 1, "", 1) for k in range(int(e))] for e in endpoints]
    for i, hosts in enumerate(hosts_of):
        hosts.sort()
        ports = [p for p, _, _ in hosts]
        if ports != list(range(1, len(ports) + 1)):
            raise InputError(f"--as-built '{path}': switch {order[i]} has its hosts on ports "
                             f"{', '.join(map(str, ports[:6]))}; the planner numbers a "
                             f"switch's {len(ports)} host ports 1..{len(ports)} (then the "
                             "switch links), so give an as-built with hosts on ports 1..e")
    low = {order[i]: len(h) for i, h in enumerate(hosts_of)}
    for da, pa, db, pb in net:
        for d, p in ((da, pa), (db, pb)):
            if p <= low[d]:
                raise InputError(f"--as-built '{path}': switch {d} has a switch link on port "
                                 f"{p}, one of its host ports 1..{low[d]}; the planner puts "
                                 "host links first, so give an as-built with hosts on ports "
                                 "1..e")
    return _assemble(order, rid, net, hosts_of, endpoints, params, spec, where, floor, notes)


def _assemble(order, rid, net, hosts_of, endpoints, params, spec, where, floor,
              notes) -> AsBuilt:
    """The ``AsBuilt`` of switches in planner order, their links and hosts."""
    from planner.cabling import device_names
    n = len(order)
    rnames = device_names("router", n)
    enames = device_names("endpoint", int(endpoints.sum()))
    a = np.array([rid[x] for x, _, _, _ in net], dtype=np.int64)
    b = np.array([rid[y] for _, _, y, _ in net], dtype=np.int64)
    a_port = np.array([p for _, p, _, _ in net], dtype=np.int64)
    b_port = np.array([p for _, _, _, p in net], dtype=np.int64)
    swap = a > b
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    a_port, b_port = np.where(swap, b_port, a_port), np.where(swap, a_port, b_port)
    first = np.lexsort((b_port, a_port, b, a))    # router id order, as a plan's cables.csv
    a, b, a_port, b_port = a[first], b[first], a_port[first], b_port[first]
    keys = sorted({where[name] for name in order})
    cab_of = {k: i for i, k in enumerate(keys)}
    hall, row, col = (np.array(v, dtype=np.int64).reshape(-1) for v in zip(*keys))
    width = int(floor.group_cabinets or 1)
    group = pd.factorize(pd.Series(list(zip(hall, row, col // width))))[0].astype(np.int64)
    cab_names = np.asarray(floors.cabinet_names(hall, row, col), dtype=object)
    cabinets = pd.DataFrame({"name": cab_names, "hall": hall + 1,
                             "row": [floors.row_letters(int(r)) for r in row],
                             "column": col + 1, "group": group})
    router_cab = np.array([cab_of[where[name]] for name in order], dtype=np.int64)
    ep_router = np.repeat(np.arange(n), endpoints)
    host_names = [h for hosts in hosts_of for _, h, _ in hosts]
    rows = {
        "kind": ["network"] * len(a) + ["endpoint"] * len(ep_router),
        "a_device": list(rnames[a]) + list(rnames[ep_router]),
        "a_port": np.r_[a_port, [p for hosts in hosts_of for p, _, _ in hosts]],
        "a_cabinet": list(cab_names[router_cab[a]]) + list(cab_names[router_cab[ep_router]]),
        "b_device": list(rnames[b]) + list(enames),
        "b_port": np.r_[b_port, [p for hosts in hosts_of for _, _, p in hosts]],
        "b_cabinet": list(cab_names[router_cab[b]]) + list(cab_names[router_cab[ep_router]]),
    }
    cables = pd.DataFrame(rows)
    as_built = {**{rnames[i]: order[i] for i in range(n)},
                **{enames[k]: h for k, h in enumerate(host_names)}}
    label = lambda d, p: f"{as_built[d] or d}:{p}"   # noqa: E731
    cables.insert(0, "cable_id", [f"AB{k + 1}" for k in range(len(cables))])
    cables.insert(1, "label", [f"{label(x, p)}/{label(y, q)}" for x, p, y, q in zip(
        cables["a_device"], cables["a_port"], cables["b_device"], cables["b_port"])])
    cables["a_ru"] = ""
    cables["b_ru"] = ""
    cables["sku"] = ""
    names = pd.DataFrame({"device": list(as_built), "as_built_name": list(as_built.values())})
    names = names[names["as_built_name"] != ""].reset_index(drop=True)
    standing = Standing(family=spec.family, params=params, endpoints=endpoints,
                        a_router=a, a_port=a_port, b_router=b, b_port=b_port)
    radix = int(max(np.r_[a_port, b_port, endpoints, 1].max(), 1))
    return AsBuilt(standing, router_cab, cabinets, cables, names, tuple(notes), radix)
