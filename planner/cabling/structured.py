"""The installed structured plant: which patch panel ports, trunks and patch racks the links
through panels take (``build``), for the cable sheets, labels, NetBox and the viewer.

The rule (where a route meets the panels, which parts carry it and what they cost) is the
inputs' (``planner.inputs.parts.structured``); this module allocates the parts the cabling
stage ordered: trunks shared by the links between the same two panels, the next rear port of
each panel point, panels filling patch racks from U1.
"""
from __future__ import annotations
from dataclasses import dataclass
import numpy as np
import pandas as pd
from planner.inputs import floor as floors
from planner.inputs.catalog import Catalog
from planner.inputs.floor import Room
from planner.inputs.floor.rack_positions import rack_positions
from planner.inputs.parts.structured import ENTRY, Runs, point_parts

@dataclass(frozen=True)
class StructuredPlan:
    """What structured cabling installs (module doc), as tables:

    links:  one row per cable through panels: ``cable`` (row of ``Plan.cables``), ``cable_id``,
            ``cord`` (index into ``catalog.cables``), ``cord_a_m`` / ``cord_b_m`` (computed) and
            ``cord_a_order_m`` / ``cord_b_order_m`` / ``cord_a_sku`` / ``cord_b_sku`` (ordered),
            ``a_panel`` / ``a_port`` and ``b_panel`` / ``b_port`` (the row panels' front ports
            of the two ends), ``a_entry`` / ``a_entry_port`` / ``b_entry`` / ``b_entry_port``
            (cross-hall: the entry panels' front ports, with the link's position) and the
            ``trunks`` (ids, A end first, joined by ``,``);
    trunks: ``trunk_id``, ``kind`` (``row``: row panel to row panel or to the hall entry;
            ``hall``: between hall entries), ``part``, ``sku``, ``length_m``,
            ``order_length_m``, ``a_panel`` / ``a_port`` / ``a_port_kind`` (``rear`` or
            ``front``), the same for ``b``, ``links`` and ``label``;
    panels: ``name`` (``<rack>-<RU>``), ``rack``, ``ru``, ``point``, ``kind`` (``row`` /
            ``entry``), ``part`` (index into ``catalog.panels``), ``sku``, ``model`` (its
            NetBox device type), ``rear_ports``, ``legs`` (links per rear port), ``trunks``
            and ``links`` (used);
    racks:  ``name``, ``point``, ``kind``, ``hall``, ``row`` and ``tray`` (where it stands: the
            row's end or cross tray, numbered from 0 as ``point_parts`` gives them; an entry
            rack stands at its hall's entry, row and tray -1), ``panels``, ``ru_used``,
            ``height_ru``, ``x_m`` / ``y_m`` (its floor position in its hall,
            ``planner.inputs.floor.rack_positions``);
    segments: per cable of ``Plan.cables`` the text of its pieces ('' when not structured).
    """

    links: pd.DataFrame
    trunks: pd.DataFrame
    panels: pd.DataFrame
    racks: pd.DataFrame
    segments: np.ndarray

    def summary(self) -> dict:
        """The ``structured`` block of summary.json."""
        trunks = self.trunks
        return {"links": int(len(self.links)),
                "cross_hall_links": int((self.links["a_entry"] != "").sum()),
                "trunks": int(len(trunks)),
                "trunk_order_length_m": round(float(trunks["order_length_m"].sum()), 3),
                "panels": int(len(self.panels)),
                "panel_ports_used": int(2 * len(self.links)
                                        + 2 * int((self.links["a_entry"] != "").sum())),
                "patch_racks": int(len(self.racks)),
                "patch_rack_ru_used": int(self.racks["ru_used"].sum())}


def _metres(values) -> np.ndarray:
    """Lengths as text (``2.64``, ``12``), one format per distinct value."""
    values = np.asarray(values, dtype=float)
    uniq, inverse = np.unique(values, return_inverse=True)
    return np.asarray([f"{v:g}" for v in uniq.tolist()], dtype=object)[inverse.reshape(-1)]


def port_width(catalog: Catalog) -> int:
    """Digits of a panel's front port names (``05``): at least 2, as labels zero-pad."""
    return max([2] + [len(str(p.ports)) for p in catalog.panels])


def front_port_names(catalog: Catalog, ports: int) -> list[str]:
    """Names of a row panel's front ports 1..ports (``01`` ..)."""
    return [str(k).zfill(port_width(catalog)) for k in range(1, ports + 1)]


def point_names(room: Room, codes) -> np.ndarray:
    """``A-P0`` (row A, cross tray 0), ``H2-C-P3`` with several halls."""
    hall, row, tray = point_parts(room, codes)
    prefix = _hall_prefix(room, hall)
    letters = np.asarray([floors.row_letters(r) for r in row.tolist()], dtype=object)
    return prefix + letters + "-P" + tray.astype(str).astype(object)


def _hall_prefix(room: Room, hall) -> np.ndarray:
    hall = np.asarray(hall, dtype=np.int64)
    if room.halls > 1:
        return "H" + (hall + 1).astype(str).astype(object) + "-"
    return np.full(hall.shape, "", dtype=object)


def _slots(frame: pd.DataFrame, keys: list[str], order: list[str]) -> pd.DataFrame:
    """``frame`` sorted by ``order`` with ``slot``: its rank within equal ``keys``."""
    frame = frame.sort_values(order, kind="stable").reset_index(drop=True)
    frame["slot"] = frame.groupby(keys, sort=False).cumcount().to_numpy()
    return frame


_PANEL_COLUMNS = ["name", "rack", "ru", "kind", "panel_part", "sku", "model", "rear_ports",
                  "legs", "trunks", "links", "units"]


def _allocate(ends: pd.DataFrame, catalog: Catalog, height_ru: int, kind: str):
    """The rear port of each trunk end and the panels and racks the ends fill. ``ends`` has one
    row per trunk end at a panel point: point (code), name (the point's), panel_part,
    trunk_part, legs (links per trunk), peer (the other end's point), chain, links. Per point
    and parts the ends take rear ports in (peer, chain) order, ``ports // legs`` to a panel;
    a point's panels fill its patch racks (the floor's cabinet height) from U1."""
    if ends.empty:
        return (ends.assign(panel=pd.Series(dtype=object), rear=pd.Series(dtype=np.int64)),
                pd.DataFrame(columns=_PANEL_COLUMNS + ["point_name"]))
    ports = np.array([p.ports for p in catalog.panels], dtype=np.int64)
    ends = ends.assign(per_panel=ports[ends["panel_part"].to_numpy(np.int64)]
                       // ends["legs"].to_numpy(np.int64))
    ends = _slots(ends, ["point", "panel_part", "trunk_part"],
                  ["point", "panel_part", "trunk_part", "peer", "chain"])
    ends["panel_no"] = ends["slot"] // ends["per_panel"]
    ends["rear"] = ends["slot"] % ends["per_panel"] + 1
    keys = ["point", "panel_part", "trunk_part", "panel_no"]
    panels = (ends.groupby(keys, sort=False)
              .agg(point_name=("name", "first"), legs=("legs", "first"),
                   rear_ports=("per_panel", "first"), trunks=("chain", "size"),
                   links=("links", "sum"))
              .reset_index())
    units = np.array([p.rack_units for p in catalog.panels], dtype=np.int64)[
        panels["panel_part"].to_numpy(np.int64)]
    rack_no, ru = np.zeros(len(panels), np.int64), np.zeros(len(panels), np.int64)
    for rows in panels.groupby("point", sort=False).indices.values():
        rack, top = 0, 0
        for i in rows.tolist():
            if top + units[i] > height_ru:
                rack, top = rack + 1, 0
            rack_no[i], ru[i] = rack, top + 1
            top += units[i]
    more = "." + (rack_no + 1).astype(str).astype(object)
    panels["rack"] = panels["point_name"].to_numpy(object) + np.where(rack_no > 0, more, "")
    panels["ru"] = ru
    panels["units"] = units
    panels["name"] = panels["rack"] + "-" + floors.padded("", ru, max(2, len(str(height_ru))))
    panels["kind"] = kind
    panels["sku"] = [catalog.panels[i].sku for i in panels["panel_part"].tolist()]
    tail = " pass-through" if kind == "entry" else ""
    panels["model"] = (panels["sku"] + " " + panels["rear_ports"].astype(str) + "x"
                       + panels["legs"].astype(str) + tail)
    ends = ends.merge(panels[keys + ["name"]].rename(columns={"name": "panel"}), on=keys,
                      how="left")
    return ends, panels


def build(room: Room, catalog: Catalog, pieces: Runs, parts, cable_ids) -> StructuredPlan:
    """The panels, trunks and racks of the structured links of a cable plan, and each cable's
    pieces (module doc). ``pieces`` are the cables' runs to the millimetre
    (``Runs.in_millimetres``), ``parts`` their ``planner.inputs.parts.media.LinkParts``."""
    seg = parts.segments
    n = len(cable_ids)
    rows = np.flatnonzero(seg.structured) if seg is not None else np.zeros(0, np.int64)
    height = int(room.floor.cabinet_height_ru)
    legs_of = np.array([catalog.links_per_trunk(m) if m.kind == "trunk" else 1
                        for m in catalog.cables])
    pa, pb = pieces.point_a[rows], pieces.point_b[rows]
    link = pd.DataFrame({
        "cable": rows, "trunk_part": seg.trunk[rows] if rows.size else rows,
        "panel_part": seg.panel[rows] if rows.size else rows,
        "lo": np.minimum(pa, pb), "hi": np.maximum(pa, pb), "flip": pa > pb,
        "cross_hall": pieces.cross_hall[rows]})
    link["legs"] = legs_of[link["trunk_part"].to_numpy()]
    link = _slots(link, ["trunk_part", "lo", "hi"], ["trunk_part", "lo", "hi", "cable"])
    link["position"] = link["slot"] % link["legs"] + 1
    link["chain"] = link.groupby(["trunk_part", "lo", "hi", link["slot"] // link["legs"]],
                                 sort=False).ngroup()
    c = link["cable"].to_numpy()
    flip = link["flip"].to_numpy()
    row = ~link["cross_hall"].to_numpy()
    link = link.assign(
        lo_m=np.where(row | ~flip, pieces.trunk_a[c], pieces.trunk_b[c]),
        lo_order=np.where(row | ~flip, seg.trunk_a[c], seg.trunk_b[c]),
        hi_m=np.where(flip, pieces.trunk_a[c], pieces.trunk_b[c]),
        hi_order=np.where(flip, seg.trunk_a[c], seg.trunk_b[c]),
        hall_m=pieces.hall[c], hall_order=seg.hall[c])
    chains = link.groupby("chain", sort=True).agg(
        trunk_part=("trunk_part", "first"), panel_part=("panel_part", "first"),
        lo=("lo", "first"), hi=("hi", "first"), legs=("legs", "first"),
        cross_hall=("cross_hall", "first"), links=("cable", "size"),
        **{k: (k, "first") for k in ("lo_m", "lo_order", "hi_m", "hi_order", "hall_m",
                                     "hall_order")}).reset_index()
    codes = np.unique(np.r_[chains["lo"].to_numpy(), chains["hi"].to_numpy()])
    names = dict(zip(codes.tolist(), point_names(room, codes).tolist()))
    ends = pd.concat([chains.assign(point=chains["lo"], peer=chains["hi"], side="lo"),
                      chains.assign(point=chains["hi"], peer=chains["lo"], side="hi")],
                     ignore_index=True)
    ends["name"] = ends["point"].map(names)
    row_ends, row_panels = _allocate(ends, catalog, height, "row")
    hall_chains = chains[chains["cross_hall"].to_numpy(bool)]
    lo_hall = point_parts(room, hall_chains["lo"])[0]
    hi_hall = point_parts(room, hall_chains["hi"])[0]
    ends = pd.concat([hall_chains.assign(point=lo_hall, peer=hi_hall, side="lo"),
                      hall_chains.assign(point=hi_hall, peer=lo_hall, side="hi")],
                     ignore_index=True)
    ends["name"] = _hall_prefix(room, ends["point"].to_numpy()) + ENTRY
    entry_ends, entry_panels = _allocate(ends, catalog, height, "entry")
    for side in ("lo", "hi"):
        for label, frame in (("", row_ends), ("entry_", entry_ends)):
            at = frame[frame["side"] == side].set_index("chain")
            chains[f"{side}_{label}panel"] = (chains["chain"].map(at["panel"]).astype(object)
                                               .fillna(""))
            chains[f"{side}_{label}rear"] = chains["chain"].map(at["rear"]).fillna(0).astype(
                np.int64)
    trunks = _trunks(chains, catalog)
    links, text = _links(link, chains, trunks, pieces, parts, catalog, cable_ids)
    segments = np.full(n, "", dtype=object)
    segments[links["cable"].to_numpy()] = text
    panels = pd.concat([row_panels, entry_panels], ignore_index=True)
    racks = _racks(room, panels, height)
    panels = panels.drop(columns="point", errors="ignore").rename(columns={"panel_part": "part",
                                                          "point_name": "point"})[
        ["name", "rack", "ru", "point", "kind", "part", "sku", "model", "rear_ports", "legs",
         "trunks", "links", "units"]]
    return StructuredPlan(links=links, trunks=trunks, panels=panels, racks=racks,
                          segments=segments)


def _racks(room: Room, panels: pd.DataFrame, height: int) -> pd.DataFrame:
    """One row per patch rack (``StructuredPlan.racks``) from its panels, whose ``point`` is
    the row panel point's code, or the hall of an entry rack."""
    columns = ["name", "point", "kind", "hall", "row", "tray", "panels", "ru_used", "height_ru",
               "x_m", "y_m"]
    if panels.empty:
        return pd.DataFrame(columns=columns)
    racks = (panels.groupby("rack", sort=False)
             .agg(point=("point_name", "first"), kind=("kind", "first"), code=("point", "first"),
                  panels=("name", "size"), ru_used=("units", "sum"))
             .reset_index().rename(columns={"rack": "name"}))
    entry = (racks["kind"] == "entry").to_numpy()
    code = racks["code"].to_numpy(np.int64)
    hall, row, tray = point_parts(room, np.where(entry, 0, code))
    racks["hall"] = np.where(entry, code, hall)
    racks["row"], racks["tray"] = np.where(entry, -1, row), np.where(entry, -1, tray)
    racks["height_ru"] = height
    at = rack_positions(room, racks["kind"], racks["hall"], racks["row"], racks["tray"],
                        racks.groupby(["kind", "code"], sort=False).cumcount())
    racks["x_m"], racks["y_m"] = at["x_m"].to_numpy(), at["y_m"].to_numpy()
    return racks[columns]


def _trunks(chains: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """One row per trunk: a cross-row chain's one trunk, a cross-hall chain's three (the lo
    end's row trunk, the hall trunk, the hi end's row trunk), in chain order."""
    rows = []
    for ch in chains.itertuples(index=False):
        base = dict(chain=ch.chain, part=ch.trunk_part, links=ch.links)
        if not ch.cross_hall:
            rows.append(dict(base, piece="row", kind="row", length_m=ch.lo_m,
                             order_length_m=ch.lo_order, a_panel=ch.lo_panel,
                             a_port=f"R{ch.lo_rear}", a_port_kind="rear", b_panel=ch.hi_panel,
                             b_port=f"R{ch.hi_rear}", b_port_kind="rear"))
            continue
        rows += [dict(base, piece="lo", kind="row", length_m=ch.lo_m,
                      order_length_m=ch.lo_order, a_panel=ch.lo_panel, a_port=f"R{ch.lo_rear}",
                      a_port_kind="rear", b_panel=ch.lo_entry_panel,
                      b_port=f"R{ch.lo_entry_rear}", b_port_kind="rear"),
                 dict(base, piece="hall", kind="hall", length_m=ch.hall_m,
                      order_length_m=ch.hall_order, a_panel=ch.lo_entry_panel,
                      a_port=f"F{ch.lo_entry_rear}", a_port_kind="front",
                      b_panel=ch.hi_entry_panel, b_port=f"F{ch.hi_entry_rear}",
                      b_port_kind="front"),
                 dict(base, piece="hi", kind="row", length_m=ch.hi_m,
                      order_length_m=ch.hi_order, a_panel=ch.hi_entry_panel,
                      a_port=f"R{ch.hi_entry_rear}", a_port_kind="rear", b_panel=ch.hi_panel,
                      b_port=f"R{ch.hi_rear}", b_port_kind="rear")]
    columns = ["chain", "piece", "part", "links", "kind", "length_m", "order_length_m",
               "a_panel", "a_port", "a_port_kind", "b_panel", "b_port", "b_port_kind"]
    trunks = pd.DataFrame(rows, columns=columns)
    width = max(4, len(str(len(trunks))))
    trunks.insert(0, "trunk_id", floors.padded("T", np.arange(1, len(trunks) + 1), width))
    trunks["sku"] = ""
    for i in pd.unique(trunks["part"]).tolist():
        at = (trunks["part"] == i).to_numpy()
        trunks.loc[at, "sku"] = catalog.cables[i].part_numbers_at(
            trunks.loc[at, "order_length_m"].to_numpy(float))
    trunks["label"] = (trunks["a_panel"] + ":" + trunks["a_port"] + "/" + trunks["b_panel"]
                       + ":" + trunks["b_port"])
    return trunks


def _links(link: pd.DataFrame, chains: pd.DataFrame, trunks: pd.DataFrame, pieces: Runs,
           parts, catalog: Catalog, cable_ids) -> tuple[pd.DataFrame, np.ndarray]:
    """The links table and each link's pieces as text, from its A end to its B end:
    ``cord 2.64 m <part> | <panel>:<port> | trunk <id> 2.64 m <part> | <panel>:<port> |
    cord 1.87 m <part>`` (cross-hall adds the entry panels' ports ``<panel>:F<n>.<position>``
    and the hall trunk). Lengths are the computed ones (they add up to ``length_m``); the part
    numbers give the stock lengths ordered."""
    seg = parts.segments
    ch = chains.set_index("chain").loc[link["chain"].to_numpy()].reset_index()
    c = link["cable"].to_numpy()
    flip = link["flip"].to_numpy()
    hall = link["cross_hall"].to_numpy()
    pos = link["position"].to_numpy()
    legs = link["legs"].to_numpy()
    width = port_width(catalog)

    def side(lo, hi):
        lo, hi = np.asarray(lo, dtype=object), np.asarray(hi, dtype=object)
        return np.where(flip, hi, lo), np.where(flip, lo, hi)

    front = {s: floors.padded("", (ch[f"{s}_rear"].to_numpy() - 1) * legs + pos, width)
             for s in ("lo", "hi")}
    entry = {s: np.where(hall, "F" + ch[f"{s}_entry_rear"].astype(str).to_numpy(object) + "."
                         + pos.astype(str).astype(object), "") for s in ("lo", "hi")}
    a_panel, b_panel = side(ch["lo_panel"], ch["hi_panel"])
    a_port, b_port = side(front["lo"], front["hi"])
    a_entry, b_entry = side(ch["lo_entry_panel"], ch["hi_entry_panel"])
    a_entry_port, b_entry_port = side(entry["lo"], entry["hi"])
    ids = trunks.set_index(["chain", "piece"])["trunk_id"]

    def trunk_id(piece):
        keys = pd.MultiIndex.from_arrays([link["chain"].to_numpy(), np.full(len(link), piece)])
        return ids.reindex(keys).fillna("").to_numpy(object)

    row, lo, mid, hi = (trunk_id(p) for p in ("row", "lo", "hall", "hi"))
    t_a = np.where(hall, np.where(flip, hi, lo), row)
    t_b = np.where(hall, np.where(flip, lo, hi), "")
    by_id = trunks.set_index("trunk_id")
    trunk_text = pd.Series("trunk " + by_id.index.to_numpy(object) + " "
                           + _metres(by_id["length_m"]) + " m " + by_id["sku"].to_numpy(object),
                           index=by_id.index)

    def trunk(tid):
        return trunk_text.reindex(tid).fillna("").to_numpy(object)

    cord = parts.fibre[c]
    skus = {}
    for end in ("a", "b"):
        order = getattr(seg, f"cord_{end}")[c]
        skus[end] = np.empty(len(c), dtype=object)
        for i in np.unique(cord).tolist():
            at = cord == i
            skus[end][at] = catalog.cables[i].part_numbers_at(order[at])
    cord_a, cord_b = pieces.cord_a[c], pieces.cord_b[c]
    text = ("cord " + _metres(cord_a) + " m " + skus["a"] + " | " + a_panel + ":" + a_port
            + " | " + trunk(t_a))
    via = (" | " + a_entry + ":" + a_entry_port + " | " + trunk(mid) + " | " + b_entry + ":"
           + b_entry_port + " | " + trunk(t_b))
    text = np.where(hall, text + via, text) + (" | " + b_panel + ":" + b_port + " | cord "
                                               + _metres(cord_b) + " m " + skus["b"])
    table = pd.DataFrame({
        "cable": c, "cable_id": np.asarray(cable_ids, dtype=object)[c], "cord": cord,
        "cord_a_m": cord_a, "cord_a_order_m": seg.cord_a[c], "cord_a_sku": skus["a"],
        "cord_b_m": cord_b, "cord_b_order_m": seg.cord_b[c], "cord_b_sku": skus["b"],
        "a_panel": a_panel, "a_port": a_port, "a_entry": a_entry, "a_entry_port": a_entry_port,
        "b_entry": b_entry, "b_entry_port": b_entry_port, "b_panel": b_panel, "b_port": b_port,
        "trunks": np.where(hall, t_a + "," + mid + "," + t_b, t_a),
        "position": pos})
    order = np.argsort(c, kind="stable")
    return table.iloc[order].reset_index(drop=True), np.asarray(text, dtype=object)[order]
