"""The work order of a growth: every cable of the standing plan against every cable of the grown
one, as kept, moved, removed or added, in the order an installer walks the room.

Takes the two cable tables (``cables.csv`` columns) and the new id of every standing router
(``old_to_new`` of ``planner.placement.grown.Growth``); an end is (device, port) with the standing
devices renamed to their new ids (endpoints follow their router). A cable whose two ends are
both ends of one grown cable is **kept**; a standing cable that shares one end with a grown
cable not kept is **moved** (that end stays plugged, the other end is re-plugged to the grown
cable's other end); the other standing cables are **removed** and the other grown cables
**added**. Rows are sorted by hall, row and column of the cabinet where the work is done (the
grown cable's A end; a removed cable's A end), then remove before move before add, then
label: the order an installer walks them. The management cords are matched apart, by device
and port (``mgmt_rows``), and walked in among them (``with_mgmt_cords``); so are the patch
cords a kept cable through panels needs swapped (``cord_swaps``, ``with_cord_swaps``).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

COLUMNS = ["step", "drain_step", "action", "cable_id", "label", "kind", "old_a", "old_b",
           "new_a", "new_b", "old_sku", "new_sku", "hall", "row", "cabinet", "through"]
"""work_order.csv columns: running step, the drain step it belongs to
(``planner.performance.drain_steps``), add | move | remove, the grown cable's id (a removed
cable's standing id; a removed standing trunk's id, ``with_removed_trunks``), its label,
network | endpoint | mgmt (a management cord, ``mgmt_rows``) | trunk, the standing ends and
the grown ends (``device:port@cabinet-RU``, '' where none), the part ordered before and
after, where the work is done, and on floors with structured cabling the panel front ports and trunk position a
moved or added cable through panels takes (``A-P0-01:004 T0001#4 B-P0-01:004``; a trunk the
standing plan has, same ends and part, marked ``(standing)``), '' otherwise. A ``swap-cord``
row (kind ``cord``, ``cord_swaps``) names the cord (``C013.A``) and its label, its two ends
(device end, panel front port) as both the standing and the grown ends, the standing and the
grown cord part, and in ``through`` the cord's routed length before and after."""
ACTIONS = ("remove", "move", "add", "swap-cord")
"""Actions in walking order within a cabinet; ``swap-cord``: a patch cord of a kept cable
through panels whose part changes (``cord_swaps``)."""


_DEVICE_NAME = r"^(r|n|gpu-|srv-)(\d+)$"
"""Device names of cables.csv: routers ``r007``, endpoints ``n0042``, servers of a catalog
server model ``gpu-0042`` / ``srv-0042`` (``planner.cabling.Servers``)."""


def _ids(names: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(is endpoint or server, its number) of device names (``_DEVICE_NAME``)."""
    parts = names.astype(str).str.extract(_DEVICE_NAME)
    if parts[1].isna().any():
        bad = names[parts[1].isna()].iloc[0]
        raise ValueError(f"device name {bad!r} is not a router, endpoint or server name")
    return (parts[0] != "r").to_numpy(), parts[1].astype(np.int64).to_numpy()


def _mapped(is_ep: np.ndarray, ident: np.ndarray, router_map: np.ndarray,
            endpoint_map: np.ndarray) -> np.ndarray:
    """The grown id of every end: routers through ``router_map``, endpoints through
    ``endpoint_map`` (-1: removed). Both maps are read only where they apply, and an id may be
    past the other map's end (a fat tree of 8 endpoints has routers numbered 8 and up)."""
    def lookup(table: np.ndarray) -> np.ndarray:
        return table[np.minimum(ident, len(table) - 1)] if len(table) else np.full(len(ident), -1)
    return np.where(is_ep, lookup(endpoint_map), lookup(router_map))


def _end_keys(cables: pd.DataFrame, side: str, router_map, endpoint_map) -> np.ndarray:
    is_ep, ident = _ids(cables[f"{side}_device"])
    mapped = _mapped(is_ep, ident, router_map, endpoint_map)
    port = cables[f"{side}_port"].to_numpy(np.int64)
    return np.where(mapped < 0, -1, (mapped * 2 + is_ep) * 4096 + port)


def endpoint_map(old_endpoints: np.ndarray, new_endpoints: np.ndarray,
                 old_to_new: np.ndarray) -> np.ndarray:
    """New id of every standing endpoint (-1 when its router is removed): endpoints are
    numbered in router order, a router's k-th keeps being its k-th."""
    old_off = np.cumsum(old_endpoints) - old_endpoints
    new_off = np.cumsum(new_endpoints) - new_endpoints
    router = np.repeat(np.arange(len(old_endpoints)), old_endpoints)
    k = np.arange(len(router)) - old_off[router]
    target = old_to_new[router]
    return np.where(target >= 0, new_off[np.maximum(target, 0)] + k, -1)


def pairs(old: pd.DataFrame, new: pd.DataFrame, old_to_new: np.ndarray, ep_map: np.ndarray):
    """(action of every standing cable: keep | move | remove, action of every grown cable:
    keep | move | add, the standing cable (index into ``old``) of every kept or moved grown
    cable, -1 for added ones); module doc."""
    identity_r = np.arange(int(new_router_count(new)) + 1)
    identity_e = np.arange(int(new_endpoint_count(new)) + 1)
    oa = _end_keys(old, "a", old_to_new, ep_map)
    ob = _end_keys(old, "b", old_to_new, ep_map)
    na = _end_keys(new, "a", identity_r, identity_e)
    nb = _end_keys(new, "b", identity_r, identity_e)
    act_old = np.full(len(old), "remove", dtype=object)
    act_new = np.full(len(new), "add", dtype=object)
    source = np.full(len(new), -1, dtype=np.int64)
    by_pair = {}
    for j, (x, y) in enumerate(zip(na.tolist(), nb.tolist())):
        by_pair[(min(x, y), max(x, y))] = j
    for i, (x, y) in enumerate(zip(oa.tolist(), ob.tolist())):
        if x < 0 or y < 0:
            continue
        j = by_pair.get((min(x, y), max(x, y)))
        if j is not None:
            act_old[i], act_new[j], source[j] = "keep", "keep", i
    by_end = {}
    for j in np.flatnonzero(act_new == "add").tolist():
        by_end.setdefault(int(na[j]), j)
        by_end.setdefault(int(nb[j]), j)
    for i in np.flatnonzero(act_old == "remove").tolist():
        for end in (int(oa[i]), int(ob[i])):
            j = by_end.get(end) if end >= 0 else None
            if j is not None and act_new[j] == "add":
                act_old[i], act_new[j], source[j] = "move", "move", i
                break
    return act_old, act_new, source


def new_router_count(cables: pd.DataFrame) -> int:
    ids = [(_ids(cables[f"{s}_device"])) for s in ("a", "b")]
    return max([int(i[~e].max(initial=0)) for e, i in ids])


def new_endpoint_count(cables: pd.DataFrame) -> int:
    ids = [(_ids(cables[f"{s}_device"])) for s in ("a", "b")]
    return max([int(i[e].max(initial=0)) for e, i in ids])


def _end_text(cables: pd.DataFrame, side: str) -> pd.Series:
    """``device:port@cabinet-RU``; the rack unit a whole number (a standing cables.csv read
    with an empty rack unit somewhere gives floats: ``39.0`` is written ``39``), none for a
    box without one (a 0U PDU: ``device:port@cabinet``)."""
    ru = cables[f"{side}_ru"]
    if pd.api.types.is_float_dtype(ru):
        ru = ru.round().astype("Int64")
    ru = ru.astype(object).where(ru.notna(), "").astype(str).replace({"<NA>": "", "nan": ""})
    return (cables[f"{side}_device"].astype(str) + ":" + cables[f"{side}_port"].astype(str)
            + "@" + cables[f"{side}_cabinet"].astype(str) + ("-" + ru).where(ru != "", ""))


def blockers(old: pd.DataFrame, new: pd.DataFrame, paired, old_to_new: np.ndarray,
             ep_map: np.ndarray) -> np.ndarray:
    """(grown cables, 2): the touched standing cable (index into ``old``) plugged, before the
    work, into the port each end of a grown cable not kept takes; -1 where the port is free."""
    act_old, act_new, _ = paired
    identity_r = np.arange(int(new_router_count(new)) + 1)
    identity_e = np.arange(int(new_endpoint_count(new)) + 1)
    holder = {}
    for side in ("a", "b"):
        keys = _end_keys(old, side, old_to_new, ep_map)
        for i in np.flatnonzero((act_old != "keep") & (keys >= 0)).tolist():
            holder[int(keys[i])] = i
    out = np.full((len(new), 2), -1, dtype=np.int64)
    for c, side in enumerate(("a", "b")):
        keys = _end_keys(new, side, identity_r, identity_e)
        for j in np.flatnonzero(act_new != "keep").tolist():
            out[j, c] = holder.get(int(keys[j]), -1)
    return out


def router_ends(cables: pd.DataFrame, router_map: np.ndarray | None = None):
    """(a router, b router) of every cable, -1 at an endpoint (and, with ``router_map``, the
    mapped id, -1 for a removed router)."""
    ends = []
    for side in ("a", "b"):
        is_ep, ident = _ids(cables[f"{side}_device"])
        if router_map is not None:
            ident = router_map[np.minimum(ident, len(router_map) - 1)]
        ends.append(np.where(is_ep, -1, ident))
    return ends[0], ends[1]


def seats(segments, trunk_label: dict) -> list:
    """Per cable (its ``segments`` text) the panel front ports and trunks (label, part number:
    ``trunk_label`` maps a trunk id to them) its pieces take, a set whatever the direction;
    None when not through panels."""
    out = []
    for text in segments:
        ports = _PORT.findall(f"{text} ")
        out.append(frozenset(ports + [trunk_label.get(t, t) for t in _TRUNK.findall(str(text))])
                   if ports else None)
    return out


_PORT = re.compile(r"\| ([^|\s]+:[^|\s]+) \|")
_TRUNK = re.compile(r"trunk (T\d+) ")


def with_repatched(paired, old: pd.DataFrame, new: pd.DataFrame, old_trunks: dict,
                   new_trunks: dict):
    """``paired`` (``pairs``) with every kept cable whose pieces through panels change (other
    panel front ports, or a trunk of another label or part; ``seats``) made a ``move``: it is
    re-patched, so the work order lists it. ``old_trunks`` / ``new_trunks``: trunk id ->
    (label, part number) of the standing and the grown trunks.csv."""
    act_old, act_new, source = (np.asarray(x).copy() for x in paired)
    if "segments" not in old or "segments" not in new:
        return act_old, act_new, source
    before = seats(old["segments"].astype(object).fillna("").astype(str), old_trunks)
    after = seats(new["segments"].astype(object).fillna("").astype(str), new_trunks)
    for j in np.flatnonzero(act_new == "keep").tolist():
        i = int(source[j])
        if before[i] != after[j]:
            act_new[j], act_old[i] = "move", "move"
    return act_old, act_new, source


def through_panels(links: pd.DataFrame | None, trunks: pd.DataFrame | None,
                   standing_trunks: set, cable_rows: np.ndarray) -> np.ndarray:
    """Per grown cable (its row of the grown ``Plan.cables`` in ``cable_rows``): the panel
    ports and trunk position it takes (``COLUMNS``' ``through``), '' when not through panels;
    through pass-through panels, its entry front ports (``H1-ENTRY-01:F3.2``: position 2 of
    front port F3) around the hall trunk, which carries it on those adapters.
    ``links``/``trunks``: ``planner.cabling.structured.StructuredPlan``'s; ``standing_trunks``:
    (label, sku) of the standing plan's trunks."""
    out = np.full(len(cable_rows), "", dtype=object)
    if links is None or not len(links):
        return out
    label = dict(zip(trunks["trunk_id"], zip(trunks["label"], trunks["sku"])))
    text = {}

    def mark(t, at):
        return t + at + (" (standing)" if label.get(t) in standing_trunks else "")

    for row in links.itertuples(index=False):
        ids = [t for t in str(row.trunks).split(",") if t]
        if len(ids) == 3:               # through pass-through panels: row, hall, row trunk
            marks = [mark(ids[0], f"#{int(row.position)}"), f"{row.a_entry}:{row.a_entry_port}",
                     mark(ids[1], ""), f"{row.b_entry}:{row.b_entry_port}",
                     mark(ids[2], f"#{int(row.position)}")]
        else:
            marks = [mark(t, f"#{int(row.position)}") for t in ids]
        text[int(row.cable)] = " ".join([f"{row.a_panel}:{row.a_port}", *marks,
                                         f"{row.b_panel}:{row.b_port}"])
    for k, c in enumerate(np.asarray(cable_rows).tolist()):
        out[k] = text.get(int(c), "")
    return out


def with_drain_steps(frame: pd.DataFrame, old_index: np.ndarray, new_index: np.ndarray,
                     drain, through: np.ndarray | None = None) -> pd.DataFrame:
    """work_order.csv's rows (``COLUMNS``): ``walked``'s rows with the drain step of each
    (``planner.performance.drain_steps.Drain``: a move or an add in its grown cable's step, a
    remove in its standing cable's) and ``through`` (per grown cable, ``through_panels``)."""
    steps = np.where(new_index >= 0, drain.new_step[np.maximum(new_index, 0)],
                     drain.old_step[np.maximum(old_index, 0)])
    frame = frame.copy()
    frame.insert(1, "drain_step", steps.astype(np.int64))
    frame["through"] = ("" if through is None else
                        np.where(new_index >= 0, through[np.maximum(new_index, 0)], ""))
    return frame[COLUMNS]


def walked(old: pd.DataFrame, new: pd.DataFrame, paired,
           positions: dict[str, tuple[int, int, int]]):
    """The cables ``pairs`` matched (``paired``: what it returned) as work order rows (module
    doc); ``positions``: cabinet name -> (hall, row, column), 0-based, of the standing and the
    grown cabinets. Returns (the rows in walking order without ``drain_step``, the standing
    cable of every row (-1: an added cable), the grown cable of every row (-1: a removed
    cable))."""
    act_old, act_new, source = paired
    old_a, old_b = _end_text(old, "a").to_numpy(), _end_text(old, "b").to_numpy()
    new_a, new_b = _end_text(new, "a").to_numpy(), _end_text(new, "b").to_numpy()
    rows, index = [], []
    for j in np.flatnonzero(act_new != "keep").tolist():
        i = int(source[j])
        index.append((i, j))
        rows.append((act_new[j], new["cable_id"].iat[j], new["label"].iat[j],
                     new["kind"].iat[j], old_a[i] if i >= 0 else "",
                     old_b[i] if i >= 0 else "", new_a[j], new_b[j],
                     old["sku"].iat[i] if i >= 0 else "", new["sku"].iat[j],
                     new["a_cabinet"].iat[j]))
    for i in np.flatnonzero(act_old == "remove").tolist():
        index.append((i, -1))
        rows.append(("remove", old["cable_id"].iat[i], old["label"].iat[i], old["kind"].iat[i],
                     old_a[i], old_b[i], "", "", old["sku"].iat[i], "", old["a_cabinet"].iat[i]))
    frame = pd.DataFrame(rows, columns=["action", "cable_id", "label", "kind", "old_a", "old_b",
                                        "new_a", "new_b", "old_sku", "new_sku", "cabinet"])
    where = np.array([positions.get(str(c), (1 << 30, 0, 0)) for c in frame["cabinet"]],
                     dtype=np.int64).reshape(-1, 3)
    rank = frame["action"].map({a: k for k, a in enumerate(ACTIONS)}).to_numpy()
    order = np.lexsort((frame["label"].astype(str).to_numpy(), rank, where[:, 2], where[:, 1],
                        where[:, 0]))
    frame = frame.iloc[order].reset_index(drop=True)
    where = where[order]
    index = np.asarray(index, dtype=np.int64).reshape(-1, 2)[order]
    frame.insert(0, "step", np.arange(1, len(frame) + 1))
    frame.insert(frame.columns.get_loc("cabinet"), "hall", where[:, 0] + 1)
    frame.insert(frame.columns.get_loc("cabinet"), "row",
                 [floors_row(r) for r in where[:, 1]])
    return frame, index[:, 0], index[:, 1]


def with_removed_trunks(order: pd.DataFrame, old_trunks: pd.DataFrame | None,
                        grown_trunks: pd.DataFrame | None) -> tuple[pd.DataFrame, int]:
    """(``order`` with a ``remove`` row per standing trunk the grown plan no longer has, the
    number of them). A standing trunk (trunks.csv row) stays where the grown plan has a trunk
    of the same label (the same two panels' rear ports) and part number; the others are
    pulled last, once every cable through them has moved: after the cable rows, in the last
    drain step, kind ``trunk``, its trunk id and label, its two panel ports as the old ends,
    where the work is done its A end's patch rack (hall from its ``H<n>-`` prefix)."""
    if old_trunks is None or not len(old_trunks):
        return order, 0
    grown = set() if grown_trunks is None else set(
        zip(grown_trunks["label"].astype(str), grown_trunks["sku"].astype(str)))
    gone = old_trunks[[(str(lab), str(sku)) not in grown for lab, sku in
                       zip(old_trunks["label"], old_trunks["sku"])]]
    if gone.empty:
        return order, 0
    last = int(order["drain_step"].max()) if len(order) else 1
    hall = gone["a_rack"].astype(str).str.extract(r"^H(\d+)-", expand=False).fillna("1")
    rows = pd.DataFrame({
        "step": len(order) + np.arange(1, len(gone) + 1), "drain_step": last,
        "action": "remove", "cable_id": gone["trunk_id"].to_numpy(object),
        "label": gone["label"].to_numpy(object), "kind": "trunk",
        "old_a": (gone["a_panel"] + ":" + gone["a_port"]).to_numpy(object),
        "old_b": (gone["b_panel"] + ":" + gone["b_port"]).to_numpy(object),
        "new_a": "", "new_b": "", "old_sku": gone["sku"].to_numpy(object), "new_sku": "",
        "hall": hall.astype(np.int64).to_numpy(), "row": "",
        "cabinet": gone["a_rack"].to_numpy(object), "through": ""})
    return pd.concat([order, rows[COLUMNS]], ignore_index=True), int(len(gone))


def floors_row(row: int) -> str:
    from planner.inputs.floor import row_letters
    return str(row_letters(int(row))) if row < (1 << 29) else ""


def counts(act_old: np.ndarray, act_new: np.ndarray, kind_old, kind_new) -> dict:
    """kept / moved / removed / added, network and endpoint cables apart and together."""
    out = {}
    for kind in ("network", "endpoint"):
        o, n = np.asarray(kind_old) == kind, np.asarray(kind_new) == kind
        out[kind] = {"kept": int((act_old[o] == "keep").sum()),
                     "moved": int((act_old[o] == "move").sum()),
                     "removed": int((act_old[o] == "remove").sum()),
                     "added": int((act_new[n] == "add").sum())}
    out.update({k: out["network"][k] + out["endpoint"][k]
                for k in ("kept", "moved", "removed", "added")})
    return out


def in_grown_names(old: pd.DataFrame, new: pd.DataFrame, old_to_new: np.ndarray,
                   ep_map: np.ndarray) -> pd.DataFrame:
    """The standing cables with their devices called as the grown plan calls them (``r63`` ->
    ``r063`` past a power of ten; a removed device keeps its name), in ``new``'s columns."""
    width = {}
    for side in ("a", "b"):
        for name in new[f"{side}_device"].astype(str).head(1000):
            width[name[0]] = max(width.get(name[0], 0), len(name) - 1)
    out = old.reindex(columns=new.columns).copy()
    for side in ("a", "b"):
        is_ep, ident = _ids(old[f"{side}_device"])
        mapped = _mapped(is_ep, ident, old_to_new, ep_map)
        names = old[f"{side}_device"].astype(str).to_numpy().copy()
        for k in np.flatnonzero(mapped >= 0).tolist():
            prefix = "n" if is_ep[k] else "r"
            names[k] = prefix + str(int(mapped[k])).zfill(width.get(prefix, 0))
        out[f"{side}_device"] = names
    return out


def after_step(old_named: pd.DataFrame, new: pd.DataFrame, paired, drain, step: int
               ) -> pd.DataFrame:
    """The fabric cables that stand once drain steps 1..``step`` are done (what ``planner
    verify --plan`` checks the as-built against then): the kept cables, the grown cables of
    those steps, and the touched standing cables of later steps where they stood."""
    act_old, act_new, _ = paired
    grown = new[(act_new == "keep") | (drain.new_step <= step)]
    later = old_named[(act_old != "keep") & (drain.old_step > step)]
    return pd.concat([grown, later], ignore_index=True)


def mgmt_rows(old: pd.DataFrame, new: pd.DataFrame, names: list) -> pd.DataFrame:
    """The management cords to work on, as ``walked`` lists cables (before sorting): the
    standing cords (``cables.csv`` ``mgmt`` rows, ``old``; ``names`` the grown name of each one's
    device, None for a removed router) against the grown ones (``new``), by device and port. A
    standing cord whose device has a grown cord to the same switch port stays (no row); to
    another switch or port it is a ``move`` (old ends -> new ends); a cord of a device the
    grown plan has no cord of (a removed router, a removed box) a ``remove``; the other grown
    cords are ``add``."""
    grown = {(str(d), str(p)): j for j, (d, p) in enumerate(zip(new["a_device"], new["a_port"]))}
    old_a, old_b = _end_text(old, "a").to_numpy(), _end_text(old, "b").to_numpy()
    new_a, new_b = _end_text(new, "a").to_numpy(), _end_text(new, "b").to_numpy()
    rows, taken = [], set()
    for i, name in enumerate(names):
        j = None if name is None else grown.get((str(name), str(old["a_port"].iat[i])))
        if j is None:
            rows.append(("remove", old["cable_id"].iat[i], old["label"].iat[i], "mgmt",
                         old_a[i], old_b[i], "", "", old["sku"].iat[i], "",
                         old["a_cabinet"].iat[i]))
            continue
        taken.add(j)
        if (str(old["b_device"].iat[i]), str(old["b_port"].iat[i])) != (
                str(new["b_device"].iat[j]), str(new["b_port"].iat[j])):
            rows.append(("move", new["cable_id"].iat[j], new["label"].iat[j], "mgmt", old_a[i],
                         old_b[i], new_a[j], new_b[j], old["sku"].iat[i], new["sku"].iat[j],
                         new["a_cabinet"].iat[j]))
    for j in range(len(new)):
        if j not in taken:
            rows.append(("add", new["cable_id"].iat[j], new["label"].iat[j], "mgmt", "", "",
                         new_a[j], new_b[j], "", new["sku"].iat[j], new["a_cabinet"].iat[j]))
    return pd.DataFrame(rows, columns=["action", "cable_id", "label", "kind", "old_a", "old_b",
                                       "new_a", "new_b", "old_sku", "new_sku", "cabinet"])


_END_CORD = re.compile(r"cord (\S+) m (\S+) \| (\S+) \|")
_CORD_END = re.compile(r"\| (\S+) \| cord (\S+) m (\S+)$")


def end_cords(segments: str) -> tuple | None:
    """((length, part, panel port) of the A end's patch cord, the same of the B end's) of a
    cable's ``segments`` text (``cord 3.85 m OM4-MPO12_7m | H1-A-P1-01:001 | trunk ... |
    H1-B-P1-01:001 | cord 3.85 m OM4-MPO12_7m``), None when it is not through panels."""
    text = str(segments).strip()
    first, last = _END_CORD.match(text), _CORD_END.search(text)
    if first is None or last is None:
        return None
    return ((first.group(1), first.group(2), first.group(3)),
            (last.group(2), last.group(3), last.group(1)))


def cord_swaps(old: pd.DataFrame, new: pd.DataFrame, paired, old_to_new: np.ndarray,
               ep_map: np.ndarray) -> pd.DataFrame:
    """The patch cords to swap, as ``walked`` lists cables (before sorting): a kept cable
    (``paired``: ``pairs``, after ``with_repatched``) keeps its panel ports and trunk, but its
    cords run to where the grown hall has its cross tray (``docs/growth.md``, "Structured
    cabling"), so a row end that moved lengthens them. Each end whose cord part differs from
    the standing cord at the same device end (``end_cords`` of the two ``segments``) is a
    ``swap-cord`` row (``COLUMNS``), worked in the grown cable's device cabinet."""
    columns = ["action", "cable_id", "label", "kind", "old_a", "old_b", "new_a", "new_b",
               "old_sku", "new_sku", "cabinet", "through"]
    _, act_new, source = paired
    if "segments" not in old or "segments" not in new:
        return pd.DataFrame(columns=columns)
    kept = np.flatnonzero(np.asarray(act_new) == "keep")
    through = new["segments"].iloc[kept].astype(object).fillna("").astype(str)
    kept = kept[through.str.startswith("cord ").to_numpy()]     # kept cables through panels
    if not kept.size:
        return pd.DataFrame(columns=columns)
    mine, stood_rows = new.iloc[kept], old.iloc[np.asarray(source)[kept]]
    identity_r = np.arange(int(new_router_count(mine)) + 1)
    identity_e = np.arange(int(new_endpoint_count(mine)) + 1)
    same_way = (_end_keys(stood_rows, "a", old_to_new, ep_map)
                == _end_keys(mine, "a", identity_r, identity_e))
    old_text = stood_rows["segments"].astype(object).fillna("").astype(str).to_numpy()
    new_text = mine["segments"].astype(str).to_numpy()
    ends = {side: _end_text(mine, side).to_numpy() for side in ("a", "b")}
    rows = []
    for j in range(len(mine)):
        grown, stood = end_cords(new_text[j]), end_cords(old_text[j])
        if grown is None or stood is None:
            continue
        if not same_way[j]:                     # the standing cable's A end is the grown B end
            stood = stood[::-1]
        halves = str(mine["label"].iat[j]).split("/")
        for k, side in enumerate(("a", "b")):
            (was_m, was, _), (now_m, now, port) = stood[k], grown[k]
            if was == now:
                continue
            rows.append(("swap-cord", f"{mine['cable_id'].iat[j]}.{side.upper()}",
                         f"{halves[k]}/{port}" if len(halves) == 2
                         else str(mine["label"].iat[j]),
                         "cord", ends[side][j], port, ends[side][j], port, was, now,
                         mine[f"{side}_cabinet"].iat[j], f"cord {was_m} m -> {now_m} m"))
    return pd.DataFrame(rows, columns=columns)


def with_cord_swaps(order: pd.DataFrame, swaps: pd.DataFrame,
                    positions: dict[str, tuple[int, int, int]]) -> pd.DataFrame:
    """``order`` with the cord swaps (``cord_swaps``) walked in among the other rows, in the
    last drain step: a swap takes its kept cable down for a moment, so it waits until every
    grown cable is up (the network the drain steps end with)."""
    if not len(swaps):
        return order
    last = int(order["drain_step"].max()) if len(order) else 1
    return _walked_in(order, swaps.assign(drain_step=last, hall=0, row=""), positions)


def _walked_in(order: pd.DataFrame, extra: pd.DataFrame,
               positions: dict[str, tuple[int, int, int]]) -> pd.DataFrame:
    """``order`` with the rows ``extra`` walked in among its rows by hall, row and cabinet
    (then ``ACTIONS`` order, then label), steps numbered again, trunk removals still last."""
    trunks = order["kind"] == "trunk"
    frame = pd.concat([order[~trunks], extra[COLUMNS[1:]]], ignore_index=True)
    where = np.array([positions.get(str(c), (1 << 30, 0, 0)) for c in frame["cabinet"]],
                     dtype=np.int64).reshape(-1, 3)
    rank = frame["action"].map({a: k for k, a in enumerate(ACTIONS)}).to_numpy()
    order_of = np.lexsort((frame["label"].astype(str).to_numpy(), rank, where[:, 2],
                           where[:, 1], where[:, 0]))
    frame, where = frame.iloc[order_of].reset_index(drop=True), where[order_of]
    frame["hall"] = where[:, 0] + 1
    frame["row"] = [floors_row(r) for r in where[:, 1]]
    frame = pd.concat([frame, order[trunks]], ignore_index=True)
    frame["step"] = np.arange(1, len(frame) + 1)
    return frame[COLUMNS]


def with_mgmt_cords(order: pd.DataFrame, cords: pd.DataFrame,
                    positions: dict[str, tuple[int, int, int]]) -> pd.DataFrame:
    """``order`` (work_order.csv's rows, trunk removals last) with the management cords'
    rows ``cords`` (``mgmt_rows``) walked in among the cable rows by hall, row and cabinet (then
    remove, move, add, then label), steps numbered again, the trunk removals still last. The
    management network carries no fabric traffic, so its cords are worked in drain step 1
    (``add``, ``move``: a new device is managed before it is cabled) or in the last one
    (``remove``: a removed device's cord goes with it)."""
    if not len(cords):
        return order
    last = int(order["drain_step"].max()) if len(order) else 1
    cords = cords.assign(drain_step=np.where(cords["action"] == "remove", last, 1),
                         hall=0, row="", through="")
    return _walked_in(order, cords, positions)
