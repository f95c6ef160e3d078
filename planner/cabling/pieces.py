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
- a link through panels has two cords, ``C0006.A`` (device A to its row panel) and ``C0006.B``
  (device B to the far row panel), labelled ``H1-A04-39:12/H1-A-P0-01:37``: the device end as
  the link's label writes it, then the panel and its front port;
- a trunk keeps its ``trunk_id`` (``T0004``) and label (panel port to panel port).

Takes ``Plan.cables`` and ``StructuredPlan`` and the catalog; hands on ``Pieces`` to the cost
summary, the cabinet and patch-rack sheets, labels, the viewer and the order lists.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.inputs.catalog import Catalog

END_FIELDS = ["place", "device", "port", "ru", "transceiver", "at_panel"]
"""Per end (``a_`` / ``b_``): the cabinet or patch rack it is in, the device or panel it plugs
into, the port (a device port number, a row panel's front port ``37``, a rear port ``R3`` or an
entry panel's front port ``F3``), the rack unit of that device or panel (NaN: none), the
transceiver at a device port ('' for an assembly or a panel) and whether it is a panel."""
COLUMNS = (["piece_id", "role", "media", "part", "sku", "length_m", "order_length_m", "links",
            "cable", "cable_id", "label"]
           + [f"{end}_{field}" for end in "ab" for field in END_FIELDS])
"""``Pieces.table`` columns: ``role`` cable | cord | trunk; ``part`` indexes ``catalog.cables``;
``links`` the links it carries; ``cable`` the row of ``Plan.cables`` of a cable or cord (-1 for a
trunk) and ``cable_id`` its id ('' for a trunk); then both ends (``END_FIELDS``)."""


@dataclass(frozen=True)
class Pieces:
    """Every installed piece (``table``, ``COLUMNS``) and each link's pieces (``legs``: one row
    per link and piece, ``cable`` (row of ``Plan.cables``), ``step`` (0 at the A end) and
    ``piece`` (row of ``table``)), both in cable order."""

    table: pd.DataFrame
    legs: pd.DataFrame

    def by_sku(self) -> dict[str, int]:
        """Pieces installed per part number (a trunk once), sorted by part number."""
        counts = self.table.groupby("sku", sort=True).size()
        return {str(k): int(v) for k, v in counts.items()}

    def order_length_m(self, cables: pd.DataFrame, kind: str) -> float:
        """Metres ordered for the links of ``kind`` (network | endpoint): each piece's stock
        length once, a trunk shared by several links once."""
        rows = np.flatnonzero(cables["kind"].to_numpy() == kind)
        legs = self.legs[np.isin(self.legs["cable"].to_numpy(), rows)]
        used = np.unique(legs["piece"].to_numpy())
        return round(float(self.table["order_length_m"].to_numpy(float)[used].sum()), 3)

    def ends(self) -> pd.DataFrame:
        """Every end of every piece, oriented from it: ``piece`` (row of ``table``), ``end``
        (A | B), ``this_*`` and ``peer_*`` of ``END_FIELDS``; A ends first, then B ends."""
        t = self.table
        both = []
        for this, peer in (("a", "b"), ("b", "a")):
            frame = pd.DataFrame({"piece": np.arange(len(t)), "end": this.upper()})
            for field in END_FIELDS:
                frame[f"this_{field}"] = t[f"{this}_{field}"].to_numpy()
                frame[f"peer_{field}"] = t[f"{peer}_{field}"].to_numpy()
            both.append(frame)
        return pd.concat(both, ignore_index=True)


def _end_text(label: pd.Series, side: int) -> np.ndarray:
    """One end of ``A01-40:17/C07-40:03`` labels (side 0: A, 1: B)."""
    return label.str.split("/", n=1, regex=False).str[side].to_numpy(object)


def _device_end(cables: pd.DataFrame, end: str, rows) -> dict:
    return {"place": cables[f"{end}_cabinet"].to_numpy(object)[rows],
            "device": cables[f"{end}_device"].to_numpy(object)[rows],
            "port": cables[f"{end}_port"].astype(str).to_numpy(object)[rows],
            "ru": pd.to_numeric(cables[f"{end}_ru"], errors="coerce").to_numpy(float)[rows],
            "transceiver": cables[f"{end}_transceiver"].to_numpy(object)[rows],
            "at_panel": np.zeros(len(rows), dtype=bool)}


def _panel_end(panels: pd.DataFrame, names, ports) -> dict:
    names = np.asarray(names, dtype=object)
    at = panels.set_index("name").loc[names] if len(names) else panels.iloc[:0]
    return {"place": at["rack"].to_numpy(object), "device": names,
            "port": np.asarray(ports, dtype=object),
            "ru": at["ru"].to_numpy(float), "transceiver": np.full(len(names), "", object),
            "at_panel": np.ones(len(names), dtype=bool)}


def _frame(ends: dict, **columns) -> pd.DataFrame:
    frame = pd.DataFrame(columns)
    for end, fields in ends.items():
        for field, values in fields.items():
            frame[f"{end}_{field}"] = values
    return frame


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
    frames = [_frame({"a": _device_end(cables, "a", plain), "b": _device_end(cables, "b", plain)},
                     piece_id=cables["cable_id"].to_numpy(object)[plain], role="cable",
                     media=cables["media"].to_numpy(object)[plain], part=part[plain],
                     sku=cables["sku"].to_numpy(object)[plain],
                     length_m=cables["length_m"].to_numpy(float)[plain],
                     order_length_m=cables["order_length_m"].to_numpy(float)[plain], links=1,
                     cable=plain, cable_id=cables["cable_id"].to_numpy(object)[plain],
                     label=cables["label"].to_numpy(object)[plain])]
    leg_frames = [pd.DataFrame({"cable": plain, "step": 0, "piece_id": frames[0]["piece_id"]})]
    if links is not None and len(links):
        c = links["cable"].to_numpy(np.int64)
        panels = structured.panels
        ids = cables["cable_id"].to_numpy(object)[c]
        for end, side in (("a", 0), ("b", 1)):
            panel = _panel_end(panels, links[f"{end}_panel"], links[f"{end}_port"])
            label = (_end_text(cables["label"], side)[c] + "/" + panel["device"] + ":"
                     + panel["port"])
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
    table = pd.concat(frames, ignore_index=True)[COLUMNS]
    legs = pd.concat(leg_frames, ignore_index=True)
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
    return Pieces(table=table, legs=legs[["cable", "step", "piece"]])
