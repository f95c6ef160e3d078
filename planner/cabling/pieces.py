"""The pieces of every link: one table of what is installed, which every view reads.

A link between two devices is one piece (a cable assembly, or a fibre patch cord between two
transceivers) or, through patch panels (``planner.cabling.structured``), a chain of pieces:
cord -> panel front port -> trunk(s) -> panel front port -> cord. ``build`` lists every physical
piece once (a trunk once, however many links it carries) with its part number at its stock
length ("the part at this end" of every view is the ``sku`` of the piece plugged in there), its
computed and ordered length, and its two ends: where each is (a cabinet or a patch rack), what it
plugs into (a device port with its transceiver, or a panel port), and the rack unit. ``legs``
says which pieces make each link, in order from its A end.

Ids and labels (ANSI/TIA-606: a cable is named by its two ends, ``<place>-<RU>:<port>``):

- a cable between two devices keeps its ``cable_id`` (``C0001``) and label;
- a multi-link assembly (``CableModel.links`` > 1: a twin-port DAC/ACC between two switches, or
  a splitter ``split`` from one twin-port head to several NICs) is one piece carrying several
  links, grouped exactly as the BOM counts them (``planner.costing.bom``: per part, stock length
  and router pair, or per router for a splitter, ``links`` links to an assembly in cable
  order). Each link keeps a row of ``table`` (its leg, with its own ends); ``assembly`` names the
  piece, its links' ids joined by ``+`` (``C0001+C0002``). Its ends are its connectors
  (``connector_ends``): one at a twin-port end (``joined``), one per leg at a splitter's tails;
- a link through panels has two cords, ``C0006.A`` (device A to its row panel) and ``C0006.B``
  (device B to the far row panel), labelled ``H1-A04-39:12/H1-A-P0-01:37``: the device end as
  the link's label writes it, then the panel and its front port;
- a trunk keeps its ``trunk_id`` (``T0004``) and label (panel port to panel port).

Takes ``Plan.cables`` and ``StructuredPlan`` and the catalog; hands on ``Pieces`` to the cost
summary, the cabinet and patch-rack sheets, labels, the viewer and the order lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from planner.cabling import shared_text
from planner.inputs.catalog import Catalog

END_FIELDS = ["place", "device", "port", "ru", "transceiver", "at_panel", "joined"]
"""Per end (``a_`` / ``b_``): the cabinet or patch rack it is in, the device or panel it plugs
into, the port (a device port number, a row panel's front port ``37``, a rear port ``R3`` or an
entry panel's front port ``F3``), the rack unit of that device or panel (NaN: none), the
transceiver at a device port ('' for an assembly or a panel), whether it is a panel, and whether
it is one connector shared by all legs of its multi-link assembly (a twin-port end)."""
COLUMNS = (["piece_id", "assembly", "role", "media", "part", "sku", "length_m", "order_length_m",
            "links", "cable", "cable_id", "label"]
           + [f"{end}_{field}" for end in "ab" for field in END_FIELDS])
"""``Pieces.table`` columns: ``role`` cable | cord | trunk; ``part`` indexes ``catalog.cables``;
``assembly`` the physical piece a row is a leg of (``piece_id`` but for a multi-link
assembly); ``links`` the links that piece carries; ``cable`` the row of ``Plan.cables`` of a cable or cord (-1 for a
trunk) and ``cable_id`` its id ('' for a trunk); then both ends (``END_FIELDS``)."""


CONNECTOR_FIELDS = ["place", "device", "port", "ru", "transceiver"]
"""The fields of a connector end given as text for both its own end (``this_``) and the far one
(``peer_``)."""
CONNECTOR_COLUMNS = (["assembly", "end", "row", "length_m", "label"]
                     + [f"{side}_{f}" for f in CONNECTOR_FIELDS for side in ("this", "peer")])
"""``Pieces.connector_ends`` columns, in order."""


@dataclass(frozen=True)
class ConnectorIndex:
    """Where the values of every connector end come from, without its texts: a connector end of
    a one-leg piece (most) is that piece's row of ``table`` seen from one end, so ``row`` and
    ``at_b`` say it all; only a connector of a multi-link assembly (``multi``, its positions,
    ascending) has values of its own (``columns``: one array per column of
    ``CONNECTOR_COLUMNS`` but ``row`` and ``end``, in the order of ``multi``). At 1M endpoints
    this is about 0.1 GB where the connector ends as a frame of texts are 1 GB, held by the
    planner and so by every writer forked from it."""

    row: np.ndarray
    at_b: np.ndarray
    multi: np.ndarray
    columns: dict[str, np.ndarray]


@dataclass(frozen=True)
class Pieces:
    """Every installed piece (``table``, ``COLUMNS``) and each link's pieces (``legs``: one row
    per link and piece, ``cable`` (row of ``Plan.cables``), ``step`` (0 at the A end) and
    ``piece`` (row of ``table``)), both in cable order."""

    table: pd.DataFrame
    legs: pd.DataFrame
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    """``connector_index`` once computed (several writers read it; computed in ``build``,
    before the writer processes fork, it is computed once for all). ``ends`` is not kept: it
    only lays the table's columns out twice (A ends, then B ends), which is quick to do again,
    and kept it would hold 16 columns for each end of every piece for the whole run (about
    0.6 GB at 1M endpoints)."""

    def by_sku(self) -> dict[str, int]:
        """Pieces installed per part number (a trunk once, a multi-link assembly once), sorted by
        part number."""
        first = self._first_of_assembly(np.arange(len(self.table)))
        counts = pd.Series(self.table["sku"].to_numpy(object)[first]).value_counts()
        return {str(k): int(v) for k, v in counts.sort_index().items()}

    def _first_of_assembly(self, rows: np.ndarray) -> np.ndarray:
        """Of the rows ``rows`` of ``table`` (ascending), each assembly's first: only the rows of
        pieces carrying several links are compared (a one-link piece is its own assembly), so
        no table is copied and only those rows are hashed."""
        multi = np.flatnonzero(self.table["links"].to_numpy(np.int64)[rows] > 1)
        keep = np.ones(len(rows), dtype=bool)
        assembly = self.table["assembly"].to_numpy(object)[rows[multi]]
        keep[multi] = ~pd.Series(assembly).duplicated().to_numpy()
        return rows[keep]

    def order_length_m(self, cables: pd.DataFrame, kind: str) -> float:
        """Metres ordered for the links of ``kind`` (network | endpoint): each piece's stock
        length once, a trunk shared by several links once."""
        of_kind = cables["kind"].to_numpy() == kind
        used = np.unique(self.legs["piece"].to_numpy()[of_kind[self.legs["cable"].to_numpy()]])
        metres = self.table["order_length_m"].to_numpy(float)[self._first_of_assembly(used)]
        return round(float(pd.Series(metres).sum()), 3)

    def end_assemblies(self) -> pd.DataFrame:
        """Per link (row of ``Plan.cables``, in order): ``a_assembly`` / ``b_assembly``, the
        assembly plugged in at its A / B device port: a cable's (``C0001``, or a multi-link
        assembly's ``C0001+C0002``, the same on every link it carries) or that end's own patch
        cord (``C0006.A``, ``C0006.B``). cables.csv's rows with one ``a_assembly`` are the legs
        of one piece."""
        first, last = self.end_pieces()
        assembly = self.table["assembly"].to_numpy(object)
        return pd.DataFrame({"a_assembly": assembly[first], "b_assembly": assembly[last]})

    def end_pieces(self) -> tuple[np.ndarray, np.ndarray]:
        """Per link (row of ``Plan.cables``, in order): the row of ``table`` of the piece at
        its A end and at its B end (``legs`` lists each link's pieces from its A end, in cable
        order)."""
        cable = self.legs["cable"].to_numpy(np.int64)
        piece = self.legs["piece"].to_numpy(np.int64)
        if not len(cable):
            return piece, piece
        starts = np.flatnonzero(np.r_[True, cable[1:] != cable[:-1]])
        return piece[starts], piece[np.r_[starts[1:], len(cable)] - 1]

    def ends(self, places=None) -> pd.DataFrame:
        """Every end of every piece, oriented from it: ``piece`` (row of ``table``), ``end``
        (A | B), ``this_*`` and ``peer_*`` of ``END_FIELDS``; A ends first, then B ends.
        ``places``: only the ends in these cabinets or patch racks (a hall's, so that a writer
        going hall by hall holds one hall's ends at a time), in the same order."""
        t = self.table
        both = []
        for this, peer in (("a", "b"), ("b", "a")):
            rows = (np.arange(len(t)) if places is None else np.flatnonzero(
                t[f"{this}_place"].isin(places).to_numpy(bool)))
            frame = pd.DataFrame({"piece": rows, "end": this.upper()})
            for field in END_FIELDS:
                frame[f"this_{field}"] = t[f"{this}_{field}"].take(rows).to_numpy()
                frame[f"peer_{field}"] = t[f"{peer}_{field}"].take(rows).to_numpy()
            both.append(frame)
        return pd.concat(both, ignore_index=True)

    def connector_ends(self, columns=None, at=None) -> pd.DataFrame:
        """One row per physical connector end of every piece: ``assembly``, ``end`` (A | B),
        ``row`` (the row of ``table`` of its first leg), ``length_m`` (the piece's longest
        leg), ``label`` (the piece's: its legs'
        A ends joined by ``+``, ``/``, their B ends) and ``this_*`` / ``peer_*`` of
        ``CONNECTOR_FIELDS`` as text (values of several legs joined by ``+``: a twin-port
        end's two ports ``17+18``; the far end is every connector at the piece's other end).
        Pieces in ``table`` order, each piece's A connectors, then B. ``columns``: only these
        (default ``CONNECTOR_COLUMNS``); ``at``: only the connector ends at these positions
        (the frame's index), so that a writer holds the texts of one chunk at a time. Made
        from ``connector_index`` and ``table`` when asked."""
        index = self.connector_index()
        names = CONNECTOR_COLUMNS if columns is None else list(columns)
        pos = np.arange(len(index.row)) if at is None else np.asarray(at, dtype=np.int64)
        row, at_b = index.row[pos], index.at_b[pos]
        k = np.searchsorted(index.multi, pos)
        hit = k < len(index.multi)
        hit[hit] = index.multi[k[hit]] == pos[hit]
        out = {}
        for name in names:
            values = self._one_leg_column(name, row, at_b)
            if name in index.columns and hit.any():
                values[hit] = index.columns[name][k[hit]]
            out[name] = values
        return pd.DataFrame(out, index=None if at is None else pos, copy=False)

    def connector_count(self) -> int:
        """How many connector ends ``connector_ends`` lists."""
        return len(self.connector_index().row)

    def assembly_labels(self) -> pd.Series:
        """The label of every multi-link assembly (its legs' labels joined, as
        ``connector_ends`` gives it), by assembly id (``C0001+C0002``), in ``table`` order."""
        index = self.connector_index()
        if "label" not in index.columns:
            return pd.Series([], index=pd.Index([], dtype=object), dtype=object)
        labels = pd.Series(index.columns["label"], index=index.columns["assembly"])
        return labels[~labels.index.duplicated()]

    def printed_labels(self) -> np.ndarray:
        """Per row of ``table``, the label printed on its piece: its own, or for a leg of a
        multi-link assembly the assembly's (``assembly_labels``)."""
        t = self.table
        labels = t["label"].to_numpy(object).copy()
        carrying = np.flatnonzero(t["links"].to_numpy(np.int64) > 1)   # trunks too: one leg
        if carrying.size:
            joined = self.assembly_labels().reindex(t["assembly"].to_numpy(object)[carrying])
            found = joined.notna().to_numpy()
            labels[carrying[found]] = joined.to_numpy(object)[found]
        return labels

    def connector_index(self) -> ConnectorIndex:
        """The ``ConnectorIndex`` of ``connector_ends``, made once (``memo``)."""
        if "connector_index" not in self.memo:
            self.memo["connector_index"] = self._connector_index()
        return self.memo["connector_index"]

    def _one_leg_column(self, name: str, row: np.ndarray, at_b: np.ndarray) -> np.ndarray:
        """The column ``name`` of ``connector_ends`` for connector ends of one-leg pieces at
        rows ``row`` of ``table``, seen from their B end where ``at_b`` (a new array)."""
        t = self.table
        if name == "row":
            return row.copy()
        if name == "end":
            return np.asarray(["A", "B"], dtype=object)[at_b.astype(np.intp)]
        if name in ("assembly", "label"):
            return t[name].to_numpy(object)[row]
        if name == "length_m":
            return t["length_m"].to_numpy(float)[row]
        side, _, f = name.partition("_")
        if side not in ("this", "peer") or f not in CONNECTOR_FIELDS:
            raise KeyError(name)
        from_b = at_b if side == "this" else ~at_b
        out = np.empty(len(row), dtype=object)
        for s, here in (("a", ~from_b), ("b", from_b)):
            values = t[f"{s}_{f}"].take(row[here])
            out[here] = _unit(values) if f == "ru" else _text(values)
        return out

    def _connector_index(self) -> ConnectorIndex:
        t = self.table
        assembly = t["assembly"].to_numpy(object)
        rank = pd.factorize(assembly)[0]      # assemblies in order of their first leg
        legs = np.bincount(rank)[rank] if len(rank) else rank
        one = np.flatnonzero(legs == 1)                  # most pieces: their row says it all
        keys = [rank[one] * 2, rank[one] * 2 + 1]
        rows = [one, one]
        at_b = [np.zeros(len(one), bool), np.ones(len(one), bool)]
        many = np.flatnonzero(legs > 1)                  # legs of multi-link assemblies
        parts = self._multi_connectors(many, rank[many]) if many.size else []
        for key, row, this, _ in parts:
            keys.append(key)
            rows.append(row)
            at_b.append(np.full(len(row), this == "b"))
        order = np.argsort(np.concatenate(keys), kind="stable")
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        of_multi = position[2 * len(one):]
        by_position = np.argsort(of_multi, kind="stable")
        columns = {name: np.concatenate([part[3][name] for part in parts])[by_position]
                   for name in (parts[0][3] if parts else ())}
        return ConnectorIndex(row=np.concatenate(rows)[order], at_b=np.concatenate(at_b)[order],
                              multi=of_multi[by_position], columns=columns)

    def _multi_connectors(self, many, group) -> list:
        """(key, row, end, columns) of the connectors of multi-link assemblies at each end: one
        shared by all legs at a twin-port end, one per leg at a splitter's tails."""
        t = self.table
        text = {s: {f: (_unit if f == "ru" else _text)(t[f"{s}_{f}"].take(many))
                    for f in CONNECTOR_FIELDS} for s in "ab"}
        longest = t["length_m"].take(many).groupby(group).transform("max").to_numpy(float)
        whole = {s: _grouped(group, text[s]) for s in "ab"}
        halves = [text.partition("/") for text in t["label"].to_numpy(object)[many].tolist()]
        label = (_grouped(group, {"x": np.array([h[0] for h in halves], object)})["x"] + "/"
                 + _grouped(group, {"x": np.array([h[2] for h in halves], object)})["x"])
        parts = []
        for this, peer in (("a", "b"), ("b", "a")):
            shared = t[f"{this}_joined"].to_numpy(bool)[many]
            key = np.where(shared, -1 - group, many)  # one connector per assembly, or per leg
            _, at = np.unique(key, return_index=True)
            at = np.sort(at)
            own = _grouped(key, text[this])
            own = own.loc[key[at]]
            frame = {"assembly": t["assembly"].to_numpy(object)[many[at]],
                     "length_m": longest[at], "label": label.loc[group[at]].to_numpy(object)}
            for f in CONNECTOR_FIELDS:
                frame[f"this_{f}"] = own[f].to_numpy(object)
                frame[f"peer_{f}"] = whole[peer][f].loc[group[at]].to_numpy(object)
            parts.append((group[at] * 2 + (this == "b"), many[at], this, frame))
        return parts


def _text(values: pd.Series) -> np.ndarray:
    return values.fillna("").astype(str).to_numpy(object)


def _unit(values: pd.Series) -> np.ndarray:
    """Rack units as text (``40``, ``40.5``; none: ``''``), formatted once per distinct value."""
    values = values.to_numpy(float)
    out = np.full(len(values), "", dtype=object)
    ok = ~np.isnan(values)
    uniq, inverse = np.unique(values[ok], return_inverse=True)
    out[ok] = np.array([f"{u:g}" for u in uniq.tolist()] + [""], dtype=object)[:-1][inverse]
    return out


def _grouped(key: np.ndarray, fields: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per ``key`` (the index, sorted), each field's values of its legs in order as one text:
    ports and label ends every value joined by ``+`` (``17+18``), other fields each distinct
    value once (the one device of a twin-port end). Legs laid out in a (key, leg) grid, so the
    joins run per leg position, not per key."""
    keys, inverse = np.unique(key, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    g = inverse[order]
    pos = np.arange(len(g)) - np.searchsorted(g, np.arange(len(keys)))[g]
    width = int(pos.max()) + 1 if len(g) else 0
    has = np.zeros((len(keys), width), dtype=bool)
    has[g, pos] = True
    out = {}
    for f, values in fields.items():
        grid = np.full((len(keys), width), "", dtype=object)
        grid[g, pos] = values[order]
        text = grid[:, 0].copy() if width else np.empty(0, dtype=object)
        for j in range(1, width):
            add = has[:, j].copy()
            if f not in ("port", "x"):
                for i in range(j):
                    add &= grid[:, j] != grid[:, i]
            text[add] = text[add] + "+" + grid[add, j]
        out[f] = text if f == "x" else shared_text.shared(text)
    return pd.DataFrame(out, index=keys)


def _cord_texts(link_labels: list, side: int, panel: dict, ids: list,
                end: str) -> tuple[np.ndarray, np.ndarray]:
    """(ids ``C0006.A``, labels ``H1-A04-39:12/H1-A-P0-01:37``) of the cords at one end
    (``side`` 0: A) of links through panels: the device end as the link's label writes it,
    then the panel and its front port. Each text is joined once, without a whole array of
    partial texts per ``+`` (left freed between the texts kept, they fragment the heap)."""
    n = len(ids)
    suffix = "." + end.upper()
    cord_ids = np.fromiter((i + suffix for i in ids), dtype=object, count=n)
    labels = np.fromiter(
        ("".join((text.partition("/")[2 * side], "/", device, ":", port))
         for text, device, port in zip(link_labels, panel["device"].tolist(),
                                       panel["port"].tolist())), dtype=object, count=n)
    return cord_ids, labels


def _port_text(ports: pd.Series) -> np.ndarray:
    """Device port numbers as text (``17``), formatted once per distinct port: the rows share
    one string per port number instead of holding a string each."""
    if not pd.api.types.is_integer_dtype(ports.dtype) or ports.hasnans:
        return ports.astype(str).to_numpy(object)
    uniq, inverse = np.unique(ports.to_numpy(np.int64), return_inverse=True)
    return np.asarray([str(u) for u in uniq.tolist()], dtype=object)[inverse.reshape(-1)]


def _device_end(cables: pd.DataFrame, end: str, rows) -> dict:
    return {"place": cables[f"{end}_cabinet"].to_numpy(object)[rows],
            "device": cables[f"{end}_device"].to_numpy(object)[rows],
            "port": _port_text(cables[f"{end}_port"])[rows],
            "ru": pd.to_numeric(cables[f"{end}_ru"], errors="coerce").to_numpy(float)[rows],
            "transceiver": cables[f"{end}_transceiver"].to_numpy(object)[rows],
            "at_panel": np.zeros(len(rows), dtype=bool), "joined": np.zeros(len(rows), bool)}


def _panel_end(panels: pd.DataFrame, names, ports) -> dict:
    names = np.asarray(names, dtype=object)
    at = panels.set_index("name").loc[names] if len(names) else panels.iloc[:0]
    return {"place": at["rack"].to_numpy(object), "device": names,
            "port": np.asarray(ports, dtype=object),
            "ru": at["ru"].to_numpy(float), "transceiver": np.full(len(names), "", object),
            "at_panel": np.ones(len(names), dtype=bool), "joined": np.zeros(len(names), bool)}


def _frame(ends: dict, **columns) -> dict:
    """One part of ``Pieces.table`` as its columns (single values repeated to its length)."""
    n = next(len(v) for v in columns.values() if isinstance(v, np.ndarray))
    out = {name: (values if isinstance(values, np.ndarray) else
                  np.repeat(np.asarray([values], dtype=object if isinstance(values, str)
                                       else np.int64), n))
           for name, values in columns.items()}
    for end, fields in ends.items():
        for field, values in fields.items():
            out[f"{end}_{field}"] = values
    return out


def _assemblies(cables: pd.DataFrame, rows: np.ndarray, catalog: Catalog):
    """The assembly of each cable of ``rows`` (ids ``C0001+C0002``), the links it carries and
    whether each end (``a`` / ``b``) is one connector of all its legs. Grouped as
    ``planner.costing.bom`` counts assemblies: a part of ``links`` k > 1 takes k links of one
    router pair (a splitter: of its head's router, the A end) at one part number and stock
    length, in cable order; any other cable is its own piece."""
    models = catalog.cables
    fibre = cables["fibre"].to_numpy(np.int64)[rows]
    part = cables["part"].to_numpy(np.int64)[rows]
    per = np.where(fibre < 0, np.array([m.links for m in models], np.int64)[part], 1)
    split = (fibre < 0) & np.array([m.split for m in models], bool)[part]
    a = cables["a_router"].to_numpy(np.int64)[rows]
    b = cables["b_router"].to_numpy(np.int64)[rows]
    pair = np.where(split, -1, np.maximum(a, b))
    group = np.where(per > 1, np.minimum(a, b), -1 - np.arange(len(rows)))
    group = np.where(split, a, group)
    keys = pd.DataFrame({"part": part, "sku": cables["sku"].to_numpy(object)[rows],
                         "length": cables["order_length_m"].to_numpy(float)[rows],
                         "group": group, "pair": pair})
    rank = keys.groupby(list(keys.columns), sort=False).cumcount().to_numpy()
    keys["chunk"] = rank // per
    piece = keys.groupby(list(keys.columns), sort=False).ngroup().to_numpy()
    ids = _joined_ids(cables["cable_id"].to_numpy(object)[rows], piece)
    carried = np.bincount(piece, minlength=len(ids))[piece] if len(rows) else piece
    multi = per > 1
    return (ids[piece], carried, {"a": multi, "b": multi & ~split})


def _joined_ids(ids: np.ndarray, piece: np.ndarray) -> np.ndarray:
    """Per piece (codes ``0..k-1`` of ``piece``), its cables' ids joined by ``+`` in cable
    order; a piece of one cable (most) takes its id as it is, without a join per piece."""
    if not len(piece):
        return np.empty(0, dtype=object)
    order = np.argsort(piece, kind="stable")
    counts = np.bincount(piece)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    ordered = ids[order]
    out = ordered[starts].copy()
    listed = ordered.tolist()
    for g in np.flatnonzero(counts > 1).tolist():
        out[g] = "+".join(listed[starts[g]:starts[g] + counts[g]])
    return out


def build(cables: pd.DataFrame, structured, catalog: Catalog) -> Pieces:
    """The pieces of every cable of ``cables`` (``Plan.cables``) and of the structured plant
    ``structured`` (``StructuredPlan`` or None); rules in the module doc."""
    n = len(cables)
    media = np.array([m.media for m in catalog.cables] + [""], dtype=object)
    links = structured.links if structured is not None else None
    through = np.zeros(n, dtype=bool)
    if links is not None and len(links):
        through[links["cable"].to_numpy(np.int64)] = True
    plain = np.flatnonzero(~through)
    part = np.where(cables["fibre"].to_numpy(np.int64) >= 0, cables["fibre"].to_numpy(np.int64),
                    cables["part"].to_numpy(np.int64))
    assembly, carried, joined = _assemblies(cables, plain, catalog)
    ends = {e: _device_end(cables, e, plain) for e in "ab"}
    for e in "ab":
        ends[e]["joined"] = joined[e]
    cable_ids = cables["cable_id"].to_numpy(object)
    frames = [_frame(ends, piece_id=cable_ids[plain], assembly=assembly, role="cable",
                     media=cables["media"].to_numpy(object)[plain], part=part[plain],
                     sku=cables["sku"].to_numpy(object)[plain],
                     length_m=cables["length_m"].to_numpy(float)[plain],
                     order_length_m=cables["order_length_m"].to_numpy(float)[plain],
                     links=carried, cable=plain, cable_id=cable_ids[plain],
                     label=cables["label"].to_numpy(object)[plain])]
    del ends, assembly, carried, part
    legs = [(plain, np.zeros(len(plain), np.int64), np.arange(len(plain)))]
    if links is not None and len(links):
        c = links["cable"].to_numpy(np.int64)
        panels = structured.panels
        ids = cable_ids[c]
        link_labels, id_list = cables["label"].to_numpy(object)[c].tolist(), ids.tolist()
        for end, side in (("a", 0), ("b", 1)):
            panel = _panel_end(panels, links[f"{end}_panel"], links[f"{end}_port"])
            cord_ids, label = _cord_texts(link_labels, side, panel, id_list, end)
            frames.append(_frame(
                {"a": _device_end(cables, end, c), "b": panel},
                piece_id=cord_ids, assembly=cord_ids, role="cord",
                media=media[links["cord"].to_numpy(np.int64)],
                part=links["cord"].to_numpy(np.int64),
                sku=links[f"cord_{end}_sku"].to_numpy(object),
                length_m=links[f"cord_{end}_m"].to_numpy(float),
                order_length_m=links[f"cord_{end}_order_m"].to_numpy(float), links=1, cable=c,
                cable_id=ids, label=label))
        del link_labels, id_list, panel, label, cord_ids
        trunks = structured.trunks
        trunk_ids = trunks["trunk_id"].to_numpy(object)
        frames.append(_frame(
            {e: _panel_end(panels, trunks[f"{e}_panel"], trunks[f"{e}_port"]) for e in "ab"},
            piece_id=trunk_ids, assembly=trunk_ids, role="trunk",
            media=media[trunks["part"].to_numpy(np.int64)], part=trunks["part"].to_numpy(np.int64),
            sku=trunks["sku"].to_numpy(object), length_m=trunks["length_m"].to_numpy(float),
            order_length_m=trunks["order_length_m"].to_numpy(float),
            links=trunks["links"].to_numpy(np.int64), cable=-1, cable_id="",
            label=trunks["label"].to_numpy(object)))
        chain = links["trunks"].str.split(",")
        hops = chain.str.len().to_numpy(np.int64)
        trunk_row = pd.Index(trunk_ids).get_indexer(
            np.concatenate(chain.to_numpy()).astype(object)) if len(c) else np.zeros(0, np.int64)
        del chain
        cords = len(plain) + np.arange(len(c))      # rows: plain cables, A cords, B cords, trunks
        legs += [(c, np.zeros(len(c), np.int64), cords),
                 (np.repeat(c, hops), np.concatenate([np.arange(1, k + 1)
                                                      for k in hops.tolist()]),
                  len(plain) + 2 * len(c) + trunk_row),
                 (c, hops + 1, cords + len(c))]
    cable, step, piece = (np.concatenate(column) for column in zip(*legs))
    del legs
    by_link = np.lexsort((step, cable))
    role_last = np.concatenate([f["role"] == "trunk" for f in frames])
    of_cable = np.concatenate([f["cable"] for f in frames])
    order = np.lexsort((role_last, np.where(of_cable < 0, n, of_cable)))
    # pieces in cable order (a link's cords beside it), trunks after the cables in id order
    del role_last, of_cable
    new_row = np.empty(len(order), dtype=np.int64)
    new_row[order] = np.arange(len(order))
    table = {}
    for name in COLUMNS:    # one column at a time: the parts' copies of it, then its order
        table[name] = np.concatenate([f.pop(name) for f in frames])[order]
    del frames
    pieces = Pieces(table=pd.DataFrame(table, copy=False),
                    legs=pd.DataFrame({"cable": cable[by_link], "step": step[by_link],
                                       "piece": new_row[piece[by_link]]}))
    del table
    pieces.connector_index()
    return pieces
