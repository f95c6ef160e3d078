"""Import topologies from files, and write the GraphML / edge-list forms they read.

Formats (chosen by extension):

- ``.graphml``: any GraphML graph (networkx reader). Node attribute ``endpoints`` (int) gives
  the endpoints per router, edge attribute ``multiplicity`` (or parallel edges of a multigraph)
  the cables per router pair. Integer node ids are numbered in increasing order, other ids in
  file order.
- ``.csv`` (edge list): rows ``a,b[,count]`` with router ids 0..R-1 (count = parallel cables,
  default 1). An optional second table, started by the header row ``router,endpoints``, gives
  the endpoints per router; without it every router gets the uniform ``p`` (``?p=N``). An
  optional header ``a,b[,count]`` may start the link table. ``#`` starts a comment line.
- ``.anynet``: BookSim2 ``anynet`` netlist (the grammar ``AnyNet::readFile()`` of BookSim2's
  ``src/networks/anynet.cpp`` reads): each
  line is ``router|node ID`` followed by ``router|node ID [LATENCY]`` entries that the head is
  linked to. Latencies are accepted and ignored; parallel links cannot be expressed (BookSim
  merges them) except through the side table ``<stem>.multiplicity.csv`` (columns
  ``u,v,multiplicity``) that ``planner plan`` writes next to ``netlist.anynet``, read when
  present. Node (endpoint) ids must be 0..N-1, each attached to one router; router ids 0..R-1.

Text files are UTF-8 (a byte-order mark is skipped). GraphML edge direction is ignored: every
``<edge>`` is one cable, so a directed file listing both 0->1 and 1->0 has two. Limits: router
ids below tuning.MAX_ROUTERS, at most MAX_PER_ROUTER endpoints per router and cables per router
pair, tuning.MAX_LINKS cables in all (counted while the file streams, so reading stops at the
first line beyond), and a regular file of at most ``MAX_BYTES`` of its format: pipes, devices and
folders are refused before they are opened.
"""

from __future__ import annotations

import csv
import errno
import io
import os
import re
from pathlib import Path
from xml.etree import ElementTree

import networkx as nx
import numpy as np

from planner.run import guards
from planner.run.errors import InputError
from planner.topologies.base import Topology
from planner.topologies.tuning import MAX_BYTES, MAX_LINKS, MAX_PER_ROUTER, MAX_ROUTERS

FORMATS = (".graphml", ".csv", ".anynet")
MAX_NODES = MAX_ROUTERS * 100
"""Most endpoint (BookSim ``node``) ids an anynet file may number."""
_INT = re.compile(r"^[+]?\d+$")


def check_link_loop(path: str | Path) -> None:
    """InputError when ``path`` is a symbolic link that leads back to itself (ELOOP): it names
    no file, and resolving it raises deep inside the path library."""
    try:
        os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise InputError(f"topology file '{path}' is a loop of symbolic links (one leads "
                             f"back to itself); point the link at the topology file") from None


def load(path: str | Path, p=None) -> Topology:
    """Read a topology file (format by extension). ``p`` = uniform endpoints per router, used
    only where the file gives no endpoint counts (GraphML nodes without ``endpoints``, CSV
    without a ``router,endpoints`` table)."""
    path = Path(path)
    check_link_loop(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"topology file '{path}': unknown extension {suffix or '(none)'!r}; "
                         f"use one of {', '.join(FORMATS)}")
    if not path.exists():
        raise InputError(f"topology file '{path}' does not exist")
    guards.regular_file(path, f"topology file '{path}'")
    uniform = None
    if p is not None:
        text = str(p).strip()
        if not _INT.match(text):
            raise InputError(f"topology file '{path}': p must be a positive integer "
                             f"(endpoints per router), got {text!r}")
        if int(text) < 1:
            raise InputError(f"topology file '{path}': parameter 'p' must be >= 1, got {text!r} "
                             f"(endpoints per router, as every topology builder takes it)")
        uniform = _count(path, "p", text, minimum=1)
    reader = {".graphml": read_graphml, ".csv": read_edge_csv, ".anynet": read_anynet}[suffix]
    try:
        return reader(path, uniform)
    except UnicodeDecodeError as err:
        raise InputError(f"topology file '{path}': not UTF-8 text (byte "
                         f"0x{err.object[err.start]:02x} at offset {err.start}); save it as "
                         f"UTF-8") from None
    except csv.Error as err:
        raise InputError(f"topology file '{path}': not a readable CSV file ({err})") from None


def _topology(path: Path, r: int, u, v, count, endpoints, fmt: str) -> Topology:
    count = np.asarray(count, np.int64)
    if count.sum() > MAX_LINKS:
        raise InputError(f"topology file '{path}': {int(count.sum())} cables, beyond the "
                         f"supported {MAX_LINKS}")
    if not int(np.sum(endpoints)):
        raise InputError(f"topology file '{path}': the network has no endpoints (every router "
                         f"has 0), so there is nothing to plan for; "
                         + ("attach them with 'node ID' entries" if fmt == "anynet" else
                            f"give each router its endpoints, or a uniform number with "
                            f"file:{path}?p=N (N >= 1)"))
    pairs = np.stack([np.asarray(u, np.int64), np.asarray(v, np.int64)], 1).reshape(-1, 2)
    edges = np.repeat(pairs, count, axis=0)
    return Topology.from_edges("import", {"path": str(path), "format": fmt}, r, edges,
                               np.asarray(endpoints, np.int64))


def _open_text(path: Path):
    """The file as UTF-8 text (a byte-order mark skipped), within its format's MAX_BYTES."""
    raw = guards.open_input(path, f"topology file '{path}'", MAX_BYTES[path.suffix.lower()])
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")


def _uniform_or_fail(path: Path, uniform: int | None, what: str) -> int:
    if uniform is None:
        raise InputError(f"topology file '{path}': {what}; add it or give a uniform number "
                         f"of endpoints per router with file:{path}?p=N")
    return uniform


# ----------------------------------------------------------------------------- GraphML

def _refuse_dtd(path: Path) -> None:
    """GraphML has no document type: a ``<!DOCTYPE>`` or ``<!ENTITY>`` before the root element
    can only expand entities (XML "billion laughs", external files), so it is refused."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 20)
    except OSError as err:
        raise InputError(f"topology file '{path}': cannot read ({err.strerror})") from None
    root = head.find(b"<graphml")
    prolog = head[:root] if root >= 0 else head
    if b"<!DOCTYPE" in prolog or b"<!ENTITY" in prolog:
        raise InputError(f"topology file '{path}': has a <!DOCTYPE>/<!ENTITY> declaration, "
                         "which GraphML does not use (entities could expand without bound or "
                         "read other files); remove it")


def read_graphml(path: Path, uniform: int | None = None) -> Topology:
    """GraphML with node attribute ``endpoints`` and optional edge attribute ``multiplicity``."""
    guards.open_input(path, f"topology file '{path}'", MAX_BYTES[".graphml"]).close()
    _refuse_dtd(path)
    try:
        g = nx.read_graphml(path)
        declared = _declared_nodes(path)
    except ValueError as err:  # networkx converting a <data> value to its key's attr.type
        raise InputError(f"topology file '{path}': a <data> value does not match the attr.type "
                         f"of its <key> ({err})".replace("\n", " ")) from None
    except Exception as err:  # the reader raises many types on malformed XML
        raise InputError(f"topology file '{path}': not valid GraphML ({err}); check that the "
                         f"file is complete XML".replace("\n", " ")) from None
    nodes = list(g.nodes)
    if not nodes:
        raise InputError(f"topology file '{path}': the graph has no nodes")
    unknown = next((n for n in nodes if n not in declared), None)
    if unknown is not None:
        raise InputError(f"topology file '{path}': an edge names node {unknown!r}, which has no "
                         f"<node id=\"{unknown}\"> element; declare every router as a node")
    if len(nodes) > MAX_ROUTERS:
        raise InputError(f"topology file '{path}': {len(nodes)} nodes, beyond the supported "
                         f"{MAX_ROUTERS} routers")
    if all(isinstance(n, str) and _INT.match(n) for n in nodes):
        nodes.sort(key=int)
    index = {n: i for i, n in enumerate(nodes)}
    endpoints = []
    for n in nodes:
        value = g.nodes[n].get("endpoints")
        if value is None:
            value = _uniform_or_fail(path, uniform, f"node {n!r} has no 'endpoints' attribute")
        endpoints.append(_count(path, f"node {n!r} attribute 'endpoints'", value, minimum=0))
    u, v, count = [], [], []
    for a, b, data in g.edges(data=True):
        if a == b:
            raise InputError(f"topology file '{path}': self-loop on node {a!r}; a router "
                             f"cannot be cabled to itself")
        u.append(index[a])
        v.append(index[b])
        count.append(_count(path, f"edge {a!r}-{b!r} attribute 'multiplicity'",
                            data.get("multiplicity", 1), minimum=1))
    return _topology(path, len(nodes), u, v, count, endpoints, "graphml")


def _count(path: Path, where: str, value, minimum: int, maximum: int = MAX_PER_ROUTER) -> int:
    """``value`` as an integer in [minimum, maximum]; InputError naming ``where`` otherwise."""
    text = str(value).strip()
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    if not _INT.match(text) or not minimum <= int(text) <= maximum:
        raise InputError(f"topology file '{path}': {where} must be an integer between "
                         f"{minimum} and {maximum}, got {value!r}")
    return int(text)


def _declared_nodes(path: Path) -> set[str]:
    """Ids of the ``<node>`` elements of a GraphML file (networkx silently adds the nodes an
    edge names without declaring them)."""
    return {el.get("id") for _, el in ElementTree.iterparse(path)
            if el.tag.rsplit("}", 1)[-1] == "node"}


def write_graphml(top: Topology, path: str | Path) -> None:
    """GraphML that ``read_graphml`` reads back: nodes '0'..'R-1' with ``endpoints`` (and
    ``role`` for indirect networks), edges with ``multiplicity``."""
    g = top.to_networkx()
    if top.roles is not None:
        nx.set_node_attributes(g, dict(enumerate(top.roles)), "role")
    nx.write_graphml(g, path)


# ----------------------------------------------------------------------------- edge-list CSV

def read_edge_csv(path: Path, uniform: int | None = None) -> Topology:
    """Edge-list CSV: ``a,b[,count]`` rows, then optionally ``router,endpoints`` rows."""
    links: list[tuple[int, int, int, int]] = []
    ep: dict[int, int] = {}
    section = "links"
    cables = 0
    with _open_text(path) as fh:
        for lineno, row in enumerate(csv.reader(fh), start=1):
            cells = [c.strip() for c in row]
            if not any(cells) or cells[0].startswith("#"):
                continue
            where = f"topology file '{path}' line {lineno}"
            head = [c.lower() for c in cells if c]
            if head in (["a", "b"], ["a", "b", "count"]):
                section = "links"
                continue
            if head == ["router", "endpoints"]:
                section = "endpoints"
                continue
            while cells and not cells[-1]:
                cells.pop()
            bad = next((c for c in cells if not _INT.match(c)), None)
            if bad is not None:
                raise InputError(f"{where}: field {bad!r} is not a non-negative integer "
                                 f"(rows are a,b[,count] or, after a 'router,endpoints' "
                                 f"header, router,endpoints)")
            vals = [int(c) for c in cells]
            _check_csv_row(where, section, vals)
            if section == "links":
                if len(vals) not in (2, 3):
                    raise InputError(f"{where}: expected a,b[,count], got {len(vals)} fields")
                a, b = vals[0], vals[1]
                count = vals[2] if len(vals) == 3 else 1
                if a == b:
                    raise InputError(f"{where}: self-loop on router {a}; a router cannot be "
                                     f"cabled to itself")
                if count < 1:
                    raise InputError(f"{where}: count must be >= 1, got {count}")
                cables += count
                if cables > MAX_LINKS:
                    raise InputError(f"{where}: the file has more than {MAX_LINKS:,} cables so "
                                     "far, beyond the supported number; give a smaller network")
                links.append((a, b, count, lineno))
            else:
                if len(vals) != 2:
                    raise InputError(f"{where}: expected router,endpoints, got {len(vals)} fields")
                if vals[0] in ep:
                    raise InputError(f"{where}: router {vals[0]} listed twice in the "
                                     f"endpoints table")
                ep[vals[0]] = vals[1]
    if not links and not ep:
        raise InputError(f"topology file '{path}': no links and no routers found")
    if ep:
        r = max(ep) + 1
        missing = sorted(set(range(r)) - set(ep))
        if missing:
            raise InputError(f"topology file '{path}': the endpoints table skips router "
                             f"{missing[0]}; list every router 0..{r - 1}")
        for a, b, _, lineno in links:
            for x in (a, b):
                if x >= r:
                    raise InputError(f"topology file '{path}' line {lineno}: unknown router "
                                     f"{x}; the endpoints table defines routers 0..{r - 1}")
        endpoints = [ep[i] for i in range(r)]
    else:
        r = max(max(a, b) for a, b, _, _ in links) + 1
        endpoints = [_uniform_or_fail(path, uniform, "the file has no 'router,endpoints' "
                                                     "table")] * r
    arr = np.array(links, dtype=np.int64).reshape(-1, 4)
    return _topology(path, r, arr[:, 0], arr[:, 1], arr[:, 2], endpoints, "csv")


def _check_csv_row(where: str, section: str, vals: list[int]) -> None:
    """Router ids below MAX_ROUTERS, counts and endpoints at most MAX_PER_ROUTER."""
    names = ("a", "b", "count") if section == "links" else ("router", "endpoints")
    for name, value in zip(names, vals):
        limit = MAX_ROUTERS - 1 if name in ("a", "b", "router") else MAX_PER_ROUTER
        if value > limit:
            raise InputError(f"{where}: {name} = {value} is too large; at most {limit}")


def write_edge_csv(top: Topology, path: str | Path) -> None:
    """Edge-list CSV that ``read_edge_csv`` reads back (links table, then endpoints table)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["a", "b", "count"])
    w.writerows(np.column_stack([top.links, top.multiplicity]).tolist())
    w.writerow(["router", "endpoints"])
    w.writerows(np.column_stack([np.arange(top.num_routers), top.endpoints]).tolist())
    Path(path).write_text(buf.getvalue(), encoding="utf-8")


# ----------------------------------------------------------------------------- BookSim anynet

def read_anynet(path: Path, uniform: int | None = None) -> Topology:
    """BookSim2 anynet netlist; endpoint counts from ``node`` entries (``uniform`` unused)."""
    pairs: set[tuple[int, int]] = set()
    node_router: dict[int, int] = {}
    routers: set[int] = set()
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            tokens = line.split()
            if not tokens:
                continue
            where = f"topology file '{path}' line {lineno}"
            elems = _anynet_elements(tokens, where)
            (head_kind, head_id), body = elems[0], elems[1:]
            if not body:
                raise InputError(f"{where}: '{head_kind} {head_id}' is connected to nothing; "
                                 f"a line is 'router ID' followed by 'router ID' / 'node ID' "
                                 f"entries")
            for kind, ident in body:
                if head_kind == kind == "node":
                    raise InputError(f"{where}: node {head_id} linked to node {ident}; "
                                     f"endpoints attach to routers only")
                if kind == head_kind == "router":
                    if ident == head_id:
                        raise InputError(f"{where}: self-loop on router {ident}")
                    routers.update((head_id, ident))
                    pairs.add((min(head_id, ident), max(head_id, ident)))
                    if len(pairs) > MAX_LINKS:
                        raise InputError(f"{where}: the file has more than {MAX_LINKS:,} links "
                                         "so far, beyond the supported number; give a smaller "
                                         "network")
                else:
                    node, router = (ident, head_id) if head_kind == "router" else (head_id, ident)
                    routers.add(router)
                    if node_router.setdefault(node, router) != router:
                        raise InputError(f"{where}: node {node} is attached to routers "
                                         f"{node_router[node]} and {router}; a node attaches "
                                         f"to one router")
    if not routers:
        raise InputError(f"topology file '{path}': no routers found")
    r = max(routers) + 1
    gap = sorted(set(range(r)) - routers)
    if gap:
        raise InputError(f"topology file '{path}': router {gap[0]} is never mentioned; "
                         f"BookSim needs routers numbered 0..{r - 1} without gaps")
    n = max(node_router) + 1 if node_router else 0
    node_gap = sorted(set(range(n)) - set(node_router))
    if node_gap:
        raise InputError(f"topology file '{path}': node {node_gap[0]} is never attached; "
                         f"BookSim needs nodes numbered 0..{n - 1} without gaps")
    endpoints = np.bincount(np.array(list(node_router.values()), dtype=np.int64), minlength=r) \
        if node_router else np.zeros(r, dtype=np.int64)
    arr = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    count = _side_multiplicity(path.with_suffix(".multiplicity.csv"), arr)
    return _topology(path, r, arr[:, 0], arr[:, 1], count, endpoints, "anynet")


def _side_multiplicity(side: Path, pairs: np.ndarray) -> np.ndarray:
    """Cables per router pair from the exporter's side table, 1 where it is absent."""
    count = np.ones(len(pairs), dtype=np.int64)
    if not side.exists():
        return count
    index = {(int(u), int(v)): i for i, (u, v) in enumerate(pairs.tolist())}
    raw = guards.open_input(side, f"multiplicity file '{side}'", MAX_BYTES[".csv"])
    with io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        if not {"u", "v", "multiplicity"} <= set(reader.fieldnames or ()):
            raise InputError(f"multiplicity file '{side}': header must contain u,v,multiplicity")
        for lineno, row in enumerate(reader, start=2):
            where = f"multiplicity file '{side}' line {lineno}"
            u, v, m = (_count(side, f"line {lineno} field {k!r}", row[k], low, high)
                       for k, low, high in (("u", 0, MAX_ROUTERS - 1), ("v", 0, MAX_ROUTERS - 1),
                                            ("multiplicity", 1, MAX_PER_ROUTER)))
            key = (min(u, v), max(u, v))
            if key not in index:
                raise InputError(f"{where}: routers {u},{v} are not linked in the netlist")
            count[index[key]] = m
    return count


def _anynet_elements(tokens: list[str], where: str) -> list[tuple[str, int]]:
    """[(kind, id), ...] of one line; an integer after an element is its latency (ignored)."""
    elems: list[tuple[str, int]] = []
    i = 0
    while i < len(tokens):
        kind = tokens[i]
        if kind not in ("router", "node"):
            expected = "'router' or 'node'" if not elems else "'router', 'node' or a latency"
            raise InputError(f"{where}: unexpected token {kind!r}; expected {expected}")
        if i + 1 >= len(tokens) or not _INT.match(tokens[i + 1]):
            got = repr(tokens[i + 1]) if i + 1 < len(tokens) else "end of line"
            raise InputError(f"{where}: '{kind}' must be followed by a non-negative integer "
                             f"id, got {got}")
        ident, limit = int(tokens[i + 1]), MAX_ROUTERS if kind == "router" else MAX_NODES
        if ident >= limit:
            raise InputError(f"{where}: {kind} id {ident} is too large; ids are 0..{limit - 1}")
        elems.append((kind, ident))
        i += 2
        if elems[1:] and i < len(tokens) and _INT.match(tokens[i]):
            i += 1  # channel latency in cycles: irrelevant to the cabling plan
    return elems
