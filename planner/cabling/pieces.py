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


@dataclass(frozen=True)
class Pieces:
    """Every installed piece (``table``, ``COLUMNS``) and each link's pieces (``legs``: one row
    per link and piece, ``cable`` (row of ``Plan.cables``), ``step`` (0 at the A end) and
    ``piece`` (row of ``table``)), both in cable order."""

    table: pd.DataFrame
    legs: pd.DataFrame
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    """``connector_ends`` once computed (several writers read it; computed in ``build``,
    before the writer processes fork, it is computed once for all). ``ends`` is not kept: it
    only lays the table's columns out twice (A ends, then B ends), which is quick to do again,
    and kept it would hold 16 columns for each end of every piece for the whole run (about
    0.6 GB at 1M endpoints)."""

    def by_sku(self) -> dict[str, int]:
        """Pieces installed per part number (a trunk once, a multi-link assembly once), sorted by
        part number."""
        counts = self.table.drop_duplicates("assembly").groupby("sku", sort=True).size()
        return {str(k): int(v) for k, v in counts.items()}

    def order_length_m(self, cables: pd.DataFrame, kind: str) -> float:
        """Metres ordered for the links of ``kind`` (network | endpoint): each piece's stock
        length once, a trunk shared by several links once."""
        of_kind = cables["kind"].to_numpy() == kind
        used = np.unique(self.legs["piece"].to_numpy()[of_kind[self.legs["cable"].to_numpy()]])
        first = ~pd.Series(self.table["assembly"].to_numpy(object)[used]).duplicated().to_numpy()
        metres = self.table["order_length_m"].to_numpy(float)[used][first]
        return round(float(pd.Series(metres).sum()), 3)

    def end_assemblies(self) -> pd.DataFrame:
        """Per link (row of ``Plan.cables``, in order): ``a_assembly`` / ``b_assembly``, the
        assembly plugged in at its A / B device port: a cable's (``C0001``, or a multi-link
        assembly's ``C0001+C0002``, the same on every link it carries) or that end's own patch
        cord (``C0006.A``, ``C0006.B``). cables.csv's rows with one ``a_assembly`` are the legs
        of one piece."""
        ends = self.legs.groupby("cable", sort=True)["piece"].agg(["first", "last"])
        assembly = self.table["assembly"].to_numpy(object)
        return pd.DataFrame({"a_assembly": assembly[ends["first"].to_numpy()],
                             "b_assembly": assembly[ends["last"].to_numpy()]})

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

    def connector_ends(self) -> pd.DataFrame:
        """One row per physical connector end of every piece: ``assembly``, ``end`` (A | B),
        ``row`` (the row of ``table`` of its first leg), ``length_m`` (the piece's longest
        leg), ``label`` (the piece's: its legs'
        A ends joined by ``+``, ``/``, their B ends) and ``this_*`` / ``peer_*`` of
        ``place, device, port, ru, transceiver`` as text (values of several legs joined by
        ``+``: a twin-port end's two ports ``17+18``; the far end is every connector at the
        piece's other end). Pieces in ``table`` order, each piece's A connectors, then B."""
        if "connector_ends" not in self.memo:
            self.memo["connector_ends"] = self._connector_ends()
        return self.memo["connector_ends"].copy(deep=False)

    def _connector_ends(self) -> pd.DataFrame:
        t = self.table
        first = pd.unique(t["assembly"].to_numpy(object))
        rank = pd.Series(np.arange(len(first)), index=first)[t["assembly"].to_numpy(object)]
        text = {s: {"place": _text(t[f"{s}_place"]), "device": _text(t[f"{s}_device"]),
                    "port": _text(t[f"{s}_port"]), "ru": _unit(t[f"{s}_ru"]),
                    "transceiver": _text(t[f"{s}_transceiver"])} for s in "ab"}
        legs = np.bincount(rank.to_numpy(), minlength=len(first))[rank.to_numpy()]
        longest = t["length_m"].groupby(rank.to_numpy()).transform("max").to_numpy(float)
        one = np.flatnonzero(legs == 1)                  # most pieces: vectorised
        frames = []
        for this, peer in (("a", "b"), ("b", "a")):
            frame = pd.DataFrame({"assembly": t["assembly"].to_numpy(object)[one],
                                  "end": this.upper(), "row": one,
                                  "length_m": longest[one],
                                  "label": t["label"].to_numpy(object)[one]})
            for f in text[this]:
                frame[f"this_{f}"] = text[this][f][one]
                frame[f"peer_{f}"] = text[peer][f][one]
            frame["_key"] = rank.to_numpy()[one] * 2 + (this == "b")
            frames.append(frame)
        many = np.flatnonzero(legs > 1)                  # legs of multi-link assemblies
        group = rank.to_numpy()[many]
        whole = {s: _grouped(group, {f: v[many] for f, v in text[s].items()}) for s in "ab"}
        halves = [text.partition("/") for text in t["label"].to_numpy(object)[many].tolist()]
        label = (_grouped(group, {"x": np.array([h[0] for h in halves], object)})["x"] + "/"
                 + _grouped(group, {"x": np.array([h[2] for h in halves], object)})["x"])
        for this, peer in (("a", "b"), ("b", "a")):
            shared = t[f"{this}_joined"].to_numpy(bool)[many]
            key = np.where(shared, -1 - group, many)  # one connector per assembly, or per leg
            _, at = np.unique(key, return_index=True)
            at = np.sort(at)
            own = _grouped(key, {f: v[many] for f, v in text[this].items()})
            own = own.loc[key[at]]
            frame = pd.DataFrame({"assembly": t["assembly"].to_numpy(object)[many[at]],
                                  "end": this.upper(),
                                  "row": many[at], "length_m": longest[many[at]],
                                  "label": label.loc[group[at]].to_numpy(object)})
            for f in text[this]:
                frame[f"this_{f}"] = own[f].to_numpy(object)
                frame[f"peer_{f}"] = whole[peer][f].loc[group[at]].to_numpy(object)
            frame["_key"] = group[at] * 2 + (this == "b")
            frames.append(frame)
        out = pd.concat(frames, ignore_index=True)
        del frames                  # the parts, before the sort copies the whole again
        out = out.sort_values("_key", kind="stable").drop(columns="_key")
        return out.reset_index(drop=True)


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
        out[f] = text
    return pd.DataFrame(out, index=keys)


def _end_texts(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The A and B ends of ``A01-40:17/C07-40:03`` labels."""
    halves = [text.partition("/") for text in labels.tolist()]
    return (np.array([h[0] for h in halves], dtype=object),
            np.array([h[2] for h in halves], dtype=object))


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


def _frame(ends: dict, **columns) -> pd.DataFrame:
    frame = pd.DataFrame(columns)
    for end, fields in ends.items():
        for field, values in fields.items():
            frame[f"{end}_{field}"] = values
    return frame


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
    frames = [_frame(ends, piece_id=cables["cable_id"].to_numpy(object)[plain],
                     assembly=assembly, role="cable",
                     media=cables["media"].to_numpy(object)[plain], part=part[plain],
                     sku=cables["sku"].to_numpy(object)[plain],
                     length_m=cables["length_m"].to_numpy(float)[plain],
                     order_length_m=cables["order_length_m"].to_numpy(float)[plain],
                     links=carried, cable=plain,
                     cable_id=cables["cable_id"].to_numpy(object)[plain],
                     label=cables["label"].to_numpy(object)[plain])]
    leg_frames = [pd.DataFrame({"cable": plain, "step": 0, "piece_id": frames[0]["piece_id"]})]
    if links is not None and len(links):
        c = links["cable"].to_numpy(np.int64)
        panels = structured.panels
        ids = cables["cable_id"].to_numpy(object)[c]
        device_ends = _end_texts(cables["label"].to_numpy(object)[c])
        for end, side in (("a", 0), ("b", 1)):
            panel = _panel_end(panels, links[f"{end}_panel"], links[f"{end}_port"])
            label = device_ends[side] + "/" + panel["device"] + ":" + panel["port"]
            frames.append(_frame(
                {"a": _device_end(cables, end, c), "b": panel},
                piece_id=ids + "." + end.upper(), role="cord",
                media=media[links["cord"].to_numpy(np.int64)],
                part=links["cord"].to_numpy(np.int64),
                sku=links[f"cord_{end}_sku"].to_numpy(object),
                length_m=links[f"cord_{end}_m"].to_numpy(float),
                order_length_m=links[f"cord_{end}_order_m"].to_numpy(float), links=1, cable=c,
                cable_id=ids, label=label))
        trunks = structured.trunks
        frames.append(_frame(
            {e: _panel_end(panels, trunks[f"{e}_panel"], trunks[f"{e}_port"]) for e in "ab"},
            piece_id=trunks["trunk_id"].to_numpy(object), role="trunk",
            media=media[trunks["part"].to_numpy(np.int64)], part=trunks["part"].to_numpy(np.int64),
            sku=trunks["sku"].to_numpy(object), length_m=trunks["length_m"].to_numpy(float),
            order_length_m=trunks["order_length_m"].to_numpy(float),
            links=trunks["links"].to_numpy(np.int64), cable=-1, cable_id="",
            label=trunks["label"].to_numpy(object)))
        chain = links["trunks"].str.split(",")
        hops = chain.str.len().to_numpy(np.int64)
        leg_frames += [
            pd.DataFrame({"cable": c, "step": 0, "piece_id": ids + ".A"}),
            pd.DataFrame({"cable": np.repeat(c, hops),
                          "step": np.concatenate([np.arange(1, k + 1) for k in hops.tolist()]),
                          "piece_id": np.concatenate(chain.to_numpy()).astype(object)}),
            pd.DataFrame({"cable": c, "step": hops + 1, "piece_id": ids + ".B"})]
    table = pd.concat(frames, ignore_index=True)
    del frames                      # the parts, before the reorder copies the whole again
    table["assembly"] = table["assembly"].where(table["assembly"].notna(), table["piece_id"])
    table = table[COLUMNS]
    legs = pd.concat(leg_frames, ignore_index=True)
    del leg_frames
    row_of = pd.Series(np.arange(len(table)), index=table["piece_id"].to_numpy())
    legs["piece"] = row_of.loc[legs["piece_id"].to_numpy()].to_numpy()
    legs = legs.sort_values(["cable", "step"], kind="stable").reset_index(drop=True)
    order = np.lexsort((table["role"].map({"cable": 0, "cord": 0, "trunk": 1}).to_numpy(),
                        np.where(table["cable"].to_numpy() < 0, n, table["cable"].to_numpy())))
    # pieces in cable order (a link's cords beside it), trunks after the cables in id order
    new_row = np.empty(len(table), dtype=np.int64)
    new_row[order] = np.arange(len(table))
    table = table.iloc[order].reset_index(drop=True)
    legs["piece"] = new_row[legs["piece"].to_numpy()]
    pieces = Pieces(table=table, legs=legs[["cable", "step", "piece"]])
    pieces.connector_ends()
    return pieces
