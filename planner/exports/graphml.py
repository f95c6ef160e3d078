"""``topology.graphml``: the router graph for SST/Merlin ``topoAny`` and any GraphML reader.

Requirements of Merlin's ``anytopo`` importer (sst-elements
``merlin/topology/pymerlin-topo-any.py``), which reads the file with ``networkx.read_graphml``:

- undirected graph; nodes written in router-id order (string ids are relabelled ``0..R-1`` in
  file order by ``_process_graph``), each with an integer ``endpoints`` attribute;
- attributes are scalars only (no lists, no ``None``), so per-edge port lists are text;
- parallel cables between one router pair are ONE edge with an integer ``multiplicity``
  attribute: a MultiGraph is accepted by anytopo with a warning, but its ``build()`` repeats
  ``(u, v)`` per parallel edge and re-creates the same link names, untested upstream, so a
  simple graph is the safe form. Simulators that honour trunks read ``multiplicity``.

Merlin's C++ side (``anytopo.cc``) also needs at least one endpoint on every router; a topology
with spines (fat tree, OFT, MLFM) cannot run there, which the graph attribute
``merlin_anytopo`` and a comment at the top of the file say (``planner.performance.simulators``);
the spines are still in the file for every other reader.

Node attributes: ``endpoints`` (long), ``name`` and ``label`` (device name, Topology Zoo
style), ``cabinet``, ``group`` (electrical group, long), ``rack_unit`` (double; absent when the
router has none), ``role``. Graph attributes: ``name``, ``family``, ``params`` (JSON),
``catalog``, ``floor``, ``merlin_anytopo`` ("accepted" or why not). Keys are typed as networkx
writes them (``long``, ``double``, ``string``), so ``networkx.read_graphml`` returns ints for ``endpoints``.
Edge attributes (edge written ``source=u < target=v``): ``multiplicity``, ``source_ports`` and
``target_ports`` (port numbers on u and v, comma-separated, one per cable), ``labels``,
``length_m`` (longest cable), ``latency_ns`` (slowest cable), ``media`` (``electrical``,
``optical`` or ``mixed``), ``sku``, ``LinkSpeedRaw`` (bit/s over all cables of the pair).
The document is written directly in the layout networkx produces (its writer builds an
ElementTree and takes seconds at 10K links), ``tuning.GRAPHML_CHUNK_EDGES`` edges at a time.
"""

from __future__ import annotations

import json
from itertools import chain
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
import pandas as pd

from planner.exports._csv import column_text
from planner.exports.tuning import GRAPHML_CHUNK_EDGES
from planner.performance.simulators import merlin_note

FILENAME = "topology.graphml"

NODE_KEYS = [("endpoints", "long"), ("name", "string"), ("label", "string"),
             ("cabinet", "string"), ("group", "long"), ("rack_unit", "double"),
             ("role", "string")]
EDGE_KEYS = [("multiplicity", "long"), ("source_ports", "string"), ("target_ports", "string"),
             ("labels", "string"), ("length_m", "double"), ("latency_ns", "double"),
             ("media", "string"), ("sku", "string"), ("LinkSpeedRaw", "double")]
GRAPH_KEYS = [("name", "string"), ("family", "string"), ("params", "string"),
              ("catalog", "string"), ("floor", "string"), ("merlin_anytopo", "string")]


class EdgeGroups:
    """The router-router cables of ``plan`` grouped per router pair u < v, sorted by (u, v):
    numbers only (``order``: rows of ``cables`` in edge order; each edge's cables are
    ``order[starts[e]:stops[e]]``), so an edge's text is made only when its chunk is."""

    def __init__(self, plan):
        cables = plan.cables
        self.cables = cables
        self.rows = np.flatnonzero((cables["kind"] == "network").to_numpy())
        a = cables["a_router"].to_numpy(np.int64)[self.rows]
        b = cables["b_router"].to_numpy(np.int64)[self.rows]
        swap = a > b
        u, v = np.where(swap, b, a), np.where(swap, a, b)
        order = np.lexsort((np.arange(len(u)), v, u))
        self.order, self.u, self.v, self.swap = self.rows[order], u[order], v[order], swap[order]
        self.starts = np.flatnonzero(np.r_[True, (self.u[1:] != self.u[:-1])
                                           | (self.v[1:] != self.v[:-1])]) if len(u) else \
            np.empty(0, np.int64)
        self.stops = np.r_[self.starts[1:], len(u)].astype(np.int64)

    def __len__(self) -> int:
        return len(self.starts)

    def numbers(self) -> pd.DataFrame:
        """Every edge's u, v, multiplicity, length_m (longest cable) and latency_ns (slowest
        cable): ``edge_table`` without its text."""
        if not len(self):
            return pd.DataFrame({"u": self.u[:0], "v": self.v[:0],
                                 "multiplicity": self.stops[:0], "length_m": np.empty(0),
                                 "latency_ns": np.empty(0)})
        length = self.cables["length_m"].to_numpy(float)[self.order]
        latency = self.cables["latency_ns"].to_numpy(float)[self.order]
        return pd.DataFrame({"u": self.u[self.starts], "v": self.v[self.starts],
                             "multiplicity": self.stops - self.starts,
                             "length_m": np.maximum.reduceat(length, self.starts),
                             "latency_ns": np.maximum.reduceat(latency, self.starts)})

    def labels(self, first: int, last: int) -> np.ndarray:
        """``edge_table``'s labels of the edges ``first`` .. ``last - 1``."""
        lo, hi = int(self.starts[first]), int(self.stops[last - 1])
        starts, stops = self.starts[first:last] - lo, self.stops[first:last] - lo
        text = self._text("label", lo, hi)
        out = text[starts]
        for g in np.flatnonzero(stops - starts > 1).tolist():           # parallel cables
            out[g] = " ".join(text[starts[g]:stops[g]].tolist())
        return out

    def _text(self, column: str, lo: int, hi: int) -> np.ndarray:
        return np.asarray(column_text(self.cables[column].iloc[self.order[lo:hi]]), dtype=object)

    def frame(self, first: int, last: int) -> pd.DataFrame:
        """The edges ``first`` .. ``last - 1`` (``edge_table``'s columns)."""
        lo, hi = int(self.starts[first]), int(self.stops[last - 1])
        starts, stops = self.starts[first:last] - lo, self.stops[first:last] - lo
        swap = self.swap[lo:hi]
        a_port, b_port = self._text("a_port", lo, hi), self._text("b_port", lo, hi)
        text = {"source_ports": np.where(swap, b_port, a_port),
                "target_ports": np.where(swap, a_port, b_port),
                "labels": self._text("label", lo, hi), "media": self._text("media", lo, hi),
                "sku": self._text("sku", lo, hi)}
        del a_port, b_port
        joined = {k: values[starts] for k, values in text.items()}     # one cable: as it is
        for g in np.flatnonzero(stops - starts > 1).tolist():           # parallel cables
            part = {k: values[starts[g]:stops[g]].tolist() for k, values in text.items()}
            joined["source_ports"][g] = ",".join(part["source_ports"])
            joined["target_ports"][g] = ",".join(part["target_ports"])
            joined["labels"][g] = " ".join(part["labels"])
            kinds = set(part["media"])
            joined["media"][g] = kinds.pop() if len(kinds) == 1 else "mixed"
            joined["sku"][g] = ",".join(sorted(set(part["sku"])))
        cables = self.order[lo:hi]
        length = self.cables["length_m"].to_numpy(float)[cables]
        latency = self.cables["latency_ns"].to_numpy(float)[cables]
        return pd.DataFrame({"u": self.u[lo:hi][starts], "v": self.v[lo:hi][starts],
                             "multiplicity": stops - starts,
                             "source_ports": joined["source_ports"],
                             "target_ports": joined["target_ports"], "labels": joined["labels"],
                             "length_m": np.maximum.reduceat(length, starts),
                             "latency_ns": np.maximum.reduceat(latency, starts),
                             "media": joined["media"], "sku": joined["sku"]})


def edge_table(plan) -> pd.DataFrame:
    """Router-router cables merged per router pair u < v, sorted by (u, v).

    Columns: u, v, multiplicity, source_ports / target_ports (port numbers on u / v, one per
    cable, comma-separated, in cable order), labels (space-separated), length_m (longest
    cable), latency_ns (slowest cable), media (``electrical``, ``optical`` or ``mixed``), sku
    (distinct SKUs, comma-separated).
    """
    groups = EdgeGroups(plan)
    if not len(groups):
        return pd.DataFrame(columns=["u", "v", "multiplicity", "source_ports", "target_ports",
                                     "labels", "length_m", "latency_ns", "media", "sku"])
    return groups.frame(0, len(groups))


def node_table(plan) -> pd.DataFrame:
    """One row per router in id order with the node attributes."""
    top = plan.topology
    routers = (plan.devices[plan.devices["kind"] == "router"]
               .set_index("id").reindex(range(top.num_routers)))
    group_of = dict(zip(plan.cabinets["name"].astype(str), plan.cabinets["group"].astype(int)))
    cabinet = routers["cabinet"].astype(str)
    return pd.DataFrame({
        "endpoints": np.asarray(top.endpoints, np.int64),
        "name": routers["name"].astype(str).to_numpy(),
        "label": routers["name"].astype(str).to_numpy(),
        "cabinet": cabinet.to_numpy(),
        "group": cabinet.map(group_of).astype(int).to_numpy(),
        "rack_unit": pd.to_numeric(routers["ru"], errors="coerce").to_numpy(float),
        "role": list(top.roles) if top.roles else ["router"] * top.num_routers,
    })


def _value(value, kind: str) -> str:
    if kind == "long":
        return str(int(value))
    if kind == "double":
        return repr(float(value))
    return escape(str(value))


def data_cells(values, key: str, kind: str) -> list[str]:
    """``<data key="dN">value</data>`` of every value of a column (``_value`` text, each
    distinct number formatted once); ``""`` for a missing double (the element is left out)."""
    head, tail = f'<data key="{key}">', "</data>"
    if kind == "string":
        texts = [str(v) for v in values]
        joined = "\x00".join(texts)
        if any(ch in joined for ch in "&<>"):
            texts = escape(joined).split("\x00")
        return [head + t + tail for t in texts]
    array = np.asarray(values, dtype=np.int64 if kind == "long" else float)
    uniq, inverse = np.unique(array, return_inverse=True)
    cells = np.array([head + _value(x, kind) + tail for x in uniq.tolist()], dtype=object)
    if kind == "double":
        cells[np.isnan(uniq)] = ""
    return cells[inverse.reshape(-1)].tolist()


def _elements(tag: str, table: pd.DataFrame, keys, ids: dict, scope: str) -> list[str]:
    """One ``<node>``/``<edge>`` line per row: the head in column ``_head``, then the data."""
    cells = [data_cells(table[k].tolist(), ids[scope, k], t) for k, t in keys]
    return list(map(("    {}" + "{}" * len(cells) + f"</{tag}>").format, table["_head"], *cells))


def _key_ids() -> tuple[list[str], dict]:
    """The ``<key>`` lines and the id of every (scope, attribute)."""
    keys, ids = [], {}
    for scope, table in (("graph", GRAPH_KEYS), ("node", NODE_KEYS), ("edge", EDGE_KEYS)):
        for name, kind in table:
            ids[scope, name] = f"d{len(ids)}"
            keys.append(f'  <key id="{ids[scope, name]}" for="{scope}" attr.name="{name}" '
                        f'attr.type="{kind}" />')
    return keys, ids


def head_lines(plan, keys: list[str], ids: dict) -> list[str]:
    """The document up to the edges: declaration, keys, graph data, nodes."""
    top = plan.topology
    note = merlin_note(top)
    graph_attrs = {"name": f"{top.family} plan", "family": top.family,
                   "params": json.dumps(top.params, sort_keys=True),
                   "catalog": str(plan.catalog.name), "floor": str(plan.floor.name),
                   "merlin_anytopo": note or "accepted"}
    comment = ([f"<!-- SST/Merlin anytopo: {escape(note).replace('--', '- -')} -->"]
               if note else [])
    lines = ["<?xml version='1.0' encoding='utf-8'?>", *comment,
             '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
             'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
             'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">', *keys,
             '  <graph edgedefault="undirected">']
    lines += [f'    <data key="{ids["graph", k]}">{_value(graph_attrs[k], t)}</data>'
              for k, t in GRAPH_KEYS]
    nodes = node_table(plan)
    nodes["_head"] = [f'<node id="{r}">' for r in range(top.num_routers)]
    return lines + _elements("node", nodes, NODE_KEYS, ids, "node")


def edge_chunks(plan, ids: dict, rows: int):
    """The ``<edge>`` lines, ``rows`` edges at a time (each chunk's text made with it)."""
    groups = EdgeGroups(plan)
    for lo in range(0, len(groups), rows):
        part = groups.frame(lo, min(lo + rows, len(groups)))
        part["LinkSpeedRaw"] = float(plan.router_model.rate_gbps) * 1e9 * part["multiplicity"]
        part["_head"] = list(map('<edge source="{}" target="{}">'.format, part["u"].tolist(),
                                 part["v"].tolist()))
        yield _elements("edge", part, EDGE_KEYS, ids, "edge")


TAIL = ["  </graph>", "</graphml>"]


def write(plan, out_dir: Path) -> None:
    """Write ``topology.graphml`` (UTF-8, LF), ``tuning.GRAPHML_CHUNK_EDGES`` edges at a time
    (networkx's writer is ~30x slower at 10K links; every attribute column of a chunk is
    formatted at once, not element by element)."""
    keys, ids = _key_ids()
    with open(Path(out_dir) / FILENAME, "w", encoding="utf-8", newline="\n") as fh:
        for lines in chain([head_lines(plan, keys, ids)],
                           edge_chunks(plan, ids, GRAPHML_CHUNK_EDGES), [TAIL]):
            fh.write("".join(line + "\n" for line in lines))
