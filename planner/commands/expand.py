"""``planner expand --from PLAN_DIR --topology NEW_SPEC [--floor F] [--allow-remove] --out DIR``:
grow a standing plan (docs/growth.md).

The plan in PLAN_DIR (its cables.csv, cabinets.csv, summary.json and catalog.yaml) is what
stands. With ``--as-built FILE`` the installed fabric is first checked against it (refused when
``planner verify`` finds a mistake); ``--as-built FILE --floor F`` without ``--from`` reads a
system the planner did not design from the as-built and the switches the floor's positions name
(``planner.verify.standing``; docs/growth.md "Growing what is installed"). The grown
topology (``planner.placement.grown``) keeps every standing router with its id, the new
routers go to free positions (``planner.placement.growth``), the plan of the grown system is
made with that placement, and the two cable tables give the work order
(``planner.cabling.work_order``). ``--out`` gets the grown plan's files, ``work_order.csv``,
``bom_growth.csv`` (per part: quantity of the grown plan, reused, new) and summary.json's
``growth`` block (kept, moved, removed, added, the lower bound on touched cables and the gap,
the labour price).
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, fields
from pathlib import Path

NAME = "expand"
HELP = ("grow a standing plan: keep its routers and cables, place the new routers, write the "
        "work order (add / move / remove) and the bill of the new parts")
ORDER = 35



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--from", dest="plan_dir", default=None, metavar="PLAN_DIR",
                   help="a folder written by 'planner plan' (or 'planner expand'): what stands")
    p.add_argument("--as-built", dest="as_built", default=None, metavar="FILE",
                   help="the installed fabric, in any format 'planner verify' reads: checked "
                        "against --from, or without --from (with --floor naming the switches "
                        "in its positions) what stands")
    p.add_argument("--format", dest="as_built_format", default=None, metavar="FORMAT",
                   help="format of --as-built (default: detected, as 'planner verify')")
    p.add_argument("--device", dest="as_built_device", default=None, metavar="NAME",
                   help="local device of a single lldpctl output given as --as-built")
    p.add_argument("--catalog", default=None, metavar="NAME|PATH",
                   help="catalog of an --as-built system without --from (default: the "
                        "plan's default catalog); with --from the plan's catalog.yaml is used")
    p.add_argument("--topology", required=True, metavar="FAMILY:k=v,...",
                   help="the grown system, same family (dragonfly by g, fattree by pods, "
                        "jellyfish by routers, hyperx by S; others are rebuilt)")
    p.add_argument("--floor", default=None, metavar="NAME|PATH",
                   help="the floor (default: the one the standing plan names; required for "
                        "--as-built without --from)")
    p.add_argument("--allow-remove", action="store_true",
                   help="allow a spec that removes routers and their cables")
    p.add_argument("--touch-price", type=float, default=None, metavar="PRICE",
                   help="labour per moved or removed standing cable (default: the floor's "
                        "touch_price, docs/floors.md)")
    p.add_argument("--seed", type=int, default=0, help="seed of the Jellyfish random swaps")
    p.add_argument("--keep-theta", type=float, default=None, metavar="SHARE",
                   help="share of the standing system's θ every drain step keeps while its "
                        "cables are down (default 0.75; docs/growth.md, 'Drain steps')")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")


def _row_index(letters: str) -> int:
    """``A`` -> 0, ``Z`` -> 25, ``AA`` -> 26 (``planner.inputs.floor.row_letters`` inverted)."""
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - 64)
    return n - 1


def read_standing(folder: Path):
    """(summary, fabric cables, cabinets, management cords) of a plan folder; InputError
    naming what is missing or unreadable."""
    import pandas as pd

    from planner.commands._plan_folder import require
    from planner.run.errors import InputError
    folder = require(folder, "summary.json", "cables.csv", "cabinets.csv", "catalog.yaml")
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        cables = pd.read_csv(folder / "cables.csv", keep_default_na=False, na_values=[""],
                             dtype={"a_cabinet": str, "b_cabinet": str})
        cabinets = pd.read_csv(folder / "cabinets.csv", keep_default_na=False,
                               dtype={"name": str, "row": str})
        summary["topology"]["family"], summary["topology"]["params"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise InputError(f"--from '{folder}': cannot read its summary.json, cables.csv or "
                         f"cabinets.csv ({err}); give a folder written by 'planner plan'") from None
    mgmt = cables[cables["kind"] == "mgmt"].reset_index(drop=True)
    cables = cables[cables["kind"].isin(["network", "endpoint"])].reset_index(drop=True)
    if "kind" in cabinets:
        cabinets = cabinets[cabinets["kind"] == "cabinet"].reset_index(drop=True)
    return summary, cables, cabinets, mgmt


BOX_KINDS = (("mgmt-", "mgmt_switch"), ("sm", "subnet_manager"), ("pdu-", "pdu"))
"""A fabric box's kind by the start of its name (``planner.costing.fabric_devices`` names)."""


def standing_boxes(cabinets, mgmt, old_to_new, grown_routers: int):
    """The standing plan's fabric boxes and management cords
    (``planner.costing.fabric_devices.StandingBoxes``): the boxes from cabinets.csv's
    ``fabric_devices`` (``name@U<ru>``, ``name@U<ru>-<top>``, ``name@0U``), the cords from the
    ``mgmt`` rows of cables.csv, a standing router under its grown name (``r63`` -> ``r063``
    past a power of ten), the cords of removed routers left out."""
    import numpy as np
    import pandas as pd

    from planner.costing.fabric_devices import StandingBoxes
    rows = []
    cells = cabinets["fabric_devices"] if "fabric_devices" in cabinets else []
    for c, cell in enumerate(cells):
        for item in filter(None, str(cell).split(";")):
            name, _, where = item.rpartition("@")
            kind = next((k for prefix, k in BOX_KINDS if name.startswith(prefix)), None)
            if kind is None:
                continue
            low, _, top = where.removeprefix("U").removesuffix("U").partition("-")
            ru = np.nan if where == "0U" else float(low)
            height = 0.0 if where == "0U" else float(top or low) - float(low) + 1
            rows.append((name, kind, c, ru, height))
    boxes = pd.DataFrame(rows, columns=["name", "kind", "cabinet", "ru", "height_ru"])
    index = {str(n): i for i, n in enumerate(cabinets["name"].astype(str))}
    cords = pd.DataFrame({"device": grown_names(mgmt["a_device"], old_to_new, grown_routers),
                          "switch": mgmt["b_device"].astype(str),
                          "port": pd.to_numeric(mgmt["b_port"], errors="coerce"),
                          "cabinet": [index.get(str(c), -1) for c in mgmt["a_cabinet"]]})
    cords = cords[cords["device"].notna() & cords["port"].notna()].reset_index(drop=True)
    cords["port"] = cords["port"].astype(np.int64)
    return StandingBoxes(boxes=boxes, cords=cords, cabinets=len(cabinets))


def grown_names(devices, old_to_new, grown_routers: int) -> list:
    """The grown name of every standing device of a management cord: a standing router under
    its grown name (``r63`` -> ``r063`` past a power of ten), None for a removed one; a fabric
    box keeps its name."""
    import numpy as np

    from planner.inputs.floor import padded
    width = len(str(grown_routers - 1))
    out = []
    for device in devices.astype(str):
        if device[:1] == "r" and device[1:].isdigit():
            new = int(old_to_new[int(device[1:])])
            device = None if new < 0 else str(padded("r", np.array([new]), width=width)[0])
        out.append(device)
    return out


def standing_of(summary: dict, cables, cabinets, folder: Path):
    """The ``Standing`` network and, per standing router, its cabinet (index into
    ``cabinets``); InputError when cables.csv contradicts summary.json."""
    import numpy as np

    from planner.placement.grown import Standing
    from planner.run.errors import InputError
    from planner.topologies import parse_spec
    top = summary["topology"]
    spec = f"{top['family']}:" + ",".join(
        f"{k}={'x'.join(map(str, v)) if isinstance(v, list) else v}"
        for k, v in top["params"].items())
    built = parse_spec(spec)
    routers = int(top["routers"])
    net = cables[cables["kind"] == "network"]
    ids = lambda s: s.astype(str).str[1:].astype(np.int64).to_numpy()   # noqa: E731
    a, b = ids(net["a_device"]), ids(net["b_device"])
    if len(net) != int(top["links"]) or built.num_routers != routers or (
            len(a) and max(a.max(), b.max()) >= routers):
        raise InputError(f"--from '{folder}': cables.csv has {len(net)} network cables, "
                         f"summary.json {top['links']} links of {routers} routers; the folder "
                         "was changed after 'planner plan': re-run it")
    name_of = {n: i for i, n in enumerate(cabinets["name"].astype(str))}
    cab = np.full(routers, -1, dtype=np.int64)
    for side in ("a", "b"):
        part = cables[cables[f"{side}_device"].astype(str).str.startswith("r")]
        cab[ids(part[f"{side}_device"])] = [name_of.get(c, -1) for c in part[f"{side}_cabinet"]]
    if (cab < 0).any():
        raise InputError(f"--from '{folder}': router {int(np.flatnonzero(cab < 0)[0])} has no "
                         "cabinet of cabinets.csv; re-run 'planner plan'")
    standing = Standing(family=top["family"], params=top["params"], endpoints=built.endpoints,
                        a_router=a, a_port=net["a_port"].to_numpy(np.int64), b_router=b,
                        b_port=net["b_port"].to_numpy(np.int64))
    return standing, cab


@dataclass(frozen=True, eq=False)
class WhatStands:
    """The standing system a growth starts from: a plan folder (checked against an as-built
    when one is given) or an as-built file read with a floor."""

    label: Path                    # summary.json growth "from"
    standing: object               # planner.placement.grown.Standing
    router_cabinet: object         # cabinet (index into ``cabinets``) of every standing router
    cables: object                 # standing fabric cables, cables.csv columns
    cabinets: object               # standing cabinets, cabinets.csv columns
    catalog: object
    floor: object
    radix: int                     # ports the standing routers need
    notes: tuple = ()
    names: object = None           # as_built_names.csv rows, for an as-built without a plan
    mgmt: object = None            # the standing management cords (cables.csv mgmt rows)


def what_stands(args: argparse.Namespace, new) -> WhatStands:
    """The standing system of ``--from`` (checked against ``--as-built`` if given) or of
    ``--as-built`` and ``--floor``; InputError, writing nothing, for a contradiction."""
    from planner.inputs import spec as specs
    from planner.inputs.catalog import load_catalog
    from planner.inputs.floor import load_floor
    from planner.run import output
    from planner.run.errors import InputError
    from planner.verify import standing as as_built

    if args.as_built is not None and not Path(args.as_built).exists():
        raise InputError(f"--as-built '{args.as_built}': file not found; give the as-built "
                         "fabric (a file, or a directory of lldpctl DEVICE.json files)")
    if args.plan_dir is None:
        if args.as_built is None:
            raise InputError("expand: give --from PLAN_DIR (the standing plan) or --as-built "
                             "FILE with --floor (a system the planner did not design)")
        if args.floor is None:
            raise InputError("--as-built without --from needs --floor: the floor whose "
                             "occupied positions name the standing switches (docs/growth.md)")
        path = Path(args.as_built)
        output.check_out(args.out, [path])
        floor = load_floor(args.floor)
        read = as_built.standing_from_as_built(path, floor, new, args.as_built_format,
                                               args.as_built_device)
        return WhatStands(path, read.standing, read.router_cabinet, read.cables, read.cabinets,
                          load_catalog(args.catalog or specs.DEFAULT_CATALOG),
                          as_built.growth_floor(floor, read.cabinets), read.radix, read.notes,
                          read.names)
    folder = Path(args.plan_dir)
    if args.catalog is not None:
        raise InputError("--catalog: with --from the standing plan's catalog.yaml is used; "
                         "leave --catalog out")
    summary, cables_old, cabinets_old, mgmt = read_standing(folder)
    inputs = [folder / n for n in ("summary.json", "cables.csv", "cabinets.csv",
                                   "catalog.yaml")]
    output.check_out(args.out, inputs + ([Path(args.as_built)] if args.as_built else []))
    standing, router_cab = standing_of(summary, cables_old, cabinets_old, folder)
    if args.as_built is not None:
        report = as_built.check_against_plan(folder, Path(args.as_built),
                                             args.as_built_format, args.as_built_device)
        if not report.ok:
            raise InputError(as_built.contradiction(report, Path(args.as_built), folder))
    return WhatStands(folder, standing, router_cab, cables_old, cabinets_old,
                      load_catalog(str(folder / "catalog.yaml")),
                      as_built.growth_floor(load_floor(args.floor or summary["floor"]["name"]),
                                            cabinets_old),
                      int(summary["topology"]["radix"]), mgmt=mgmt)


def _plan_class():
    from planner.plan import Plan

    @dataclass(frozen=True, eq=False)
    class GrownPlan(Plan):
        """A ``Plan`` with the work order and the bill of the new parts
        (``planner.exports.work_order`` writes them)."""

        work_order: object = None
        bom_growth: object = None
        as_built_names: object = None
        drain_lists: object = None
        """(number of drain steps, function step -> the cables standing after it)."""

    return GrownPlan


def reused_bom(result, act_new, cables_old, source, standing_routers: int,
               standing_endpoints: int, standing_cabinets: int, standing_fabric=None):
    """Per BOM line: quantity of the grown plan, reused (the kept cables and the moved ones of
    the same part, the patch cords of a kept cable through panels whose part stands,
    ``kept_cords``, the standing routers, NICs and cabinets, and ``standing_fabric``: the
    standing fabric lines of ``planner.costing.growth_reuse``) and new = quantity - reused."""
    import numpy as np
    import pandas as pd

    from planner.costing import bom as boms
    cables = result.cables
    same = np.zeros(len(cables), dtype=bool)
    moved = np.flatnonzero(act_new == "move")
    same[moved] = (cables["sku"].to_numpy()[moved]
                   == cables_old["sku"].to_numpy()[source[moved]])
    reused_rows = cables[(act_new == "keep") | same]
    cords, swapped = kept_cords(result.structured, reused_rows, act_new, source, cables_old)
    reused = boms.build(result.catalog, result.router_model, result.topology.radix,
                        standing_routers, reused_rows, 0.0, standing_endpoints,
                        standing_cabinets, structured=cords)
    if standing_fabric is not None:
        reused = pd.concat([reused, standing_fabric], ignore_index=True)
    grown = result.bom[["item", "sku", "description", "length_m", "quantity",
                        "unit_price"]].copy()
    key = lambda f: list(zip(f["item"], f["sku"], f["length_m"].fillna(-1.0)))  # noqa: E731
    have: dict = {}
    for k, q in zip(key(reused), reused["quantity"]):
        have[k] = have.get(k, 0) + int(q)
    for k, q in swapped.items():
        have[k] = have.get(k, 0) - q
    grown["reused"] = [min(int(q), have.get(k, 0)) for k, q in zip(key(grown),
                                                                   grown["quantity"])]
    grown["new"] = grown["quantity"] - grown["reused"]
    grown["new_price"] = (grown["new"] * grown["unit_price"]).round(2)
    return grown


def kept_cords(plant, reused_rows, act_new, source, cables_old):
    """(the structured plant as ``planner.costing.bom.build`` counts it for the reused parts:
    the links of the kept cables through panels, numbered as rows of ``reused_rows``, with no
    trunk, panel or patch rack (``with_standing_trunks`` and ``with_standing_panels`` count
    those); the cords of those links to count as new after all: BOM line key -> count). None,
    {} without structured cabling.

    A kept cable's cords follow the grown tray, so a cord's part can change (a row end that
    moved lengthens it). Of a kept cable's two grown cords, those whose part (sku) is one of
    its two standing cords' (``cord <m> m <sku>`` at the ends of the standing ``segments``;
    the cords are alike, so either end's will do) are reused; the others are new."""
    import numpy as np
    from collections import Counter
    from dataclasses import replace
    if plant is None:
        return None, {}
    row = {int(c): k for k, c in enumerate(reused_rows.index.tolist())}
    links = plant.links[np.asarray([int(c) in row and act_new[int(c)] == "keep"
                                    for c in plant.links["cable"].tolist()], dtype=bool)].copy()
    old_text = (cables_old["segments"].astype(object).fillna("").astype(str).to_numpy()
                if "segments" in cables_old else None)
    swapped: Counter = Counter()
    for link in links.itertuples(index=False):
        if old_text is None:
            break
        stood = Counter(_end_cords(old_text[int(source[int(link.cable)])]))
        if not stood:
            continue
        for e in "ab":
            sku, length = str(getattr(link, f"cord_{e}_sku")), getattr(link, f"cord_{e}_order_m")
            if stood[sku] > 0:
                stood[sku] -= 1
            else:
                swapped[("fibre", sku, float(length))] += 1
    links["cable"] = np.asarray([row[int(c)] for c in links["cable"].tolist()], np.int64)
    return (replace(plant, links=links, trunks=plant.trunks.iloc[:0],
                    panels=plant.panels.iloc[:0], racks=plant.racks.iloc[:0]), dict(swapped))


_CORD = re.compile(r"cord \S+ m (\S+)")


def _end_cords(segments: str) -> list[str]:
    """The part numbers of the two patch cords at the ends of a cable's ``segments`` text
    (none when it is not through panels)."""
    found = _CORD.findall(segments)
    return [found[0], found[-1]] if len(found) >= 2 else found


def standing_positions(cabinets):
    """(hall, row, column, electrical group) of the standing cabinets, 0-based, from
    cabinets.csv (hall and column from 1, row letters)."""
    import numpy as np
    hall = cabinets["hall"].to_numpy(np.int64) - 1
    row = np.array([_row_index(r) for r in cabinets["row"].astype(str)], dtype=np.int64)
    return (hall, row, cabinets["column"].to_numpy(np.int64) - 1,
            cabinets["group"].to_numpy(np.int64))


def growth_block(folder: Path, standing, growth, cables_old, fabric, paired, bom,
                 touch_price: float, repatched: int = 0) -> dict:
    """summary.json's ``growth``: how it grew, the cables kept, moved, removed and added, the
    touched network cables against the lower bound (apart: re-plugged at one end, re-patched
    through panels with both ends in place, ``repatched``, and removed; the moved ones whose
    part changes), the labour and the new parts' price."""
    import numpy as np

    from planner.cabling import work_order as orders
    act_old, act_new, source = paired
    tally = orders.counts(act_old, act_new, cables_old["kind"], fabric["kind"])
    touched = tally["network"]["moved"] + tally["network"]["removed"]
    moved = np.flatnonzero((np.asarray(act_new) == "move")
                           & (fabric["kind"].to_numpy() == "network"))
    part_changed = int((fabric["sku"].astype(str).to_numpy()[moved]
                        != cables_old["sku"].astype(str).to_numpy()[np.asarray(source)[moved]])
                       .sum())
    survivors = int((growth.old_to_new >= 0).sum())
    return {
        "from": str(folder), "how": growth.how, "rebuild": growth.rebuild,
        "notes": growth.notes, "routers_standing": standing.num_routers,
        "routers_added": int(growth.topology.num_routers - survivors),
        "routers_removed": standing.num_routers - survivors,
        "cables": tally,
        "touched_network": touched,
        "touched_network_replugged": tally["network"]["moved"] - repatched,
        "touched_network_repatched": repatched,
        "touched_network_removed": tally["network"]["removed"],
        "moved_network_part_changed": part_changed,
        "touched_lower_bound": growth.lower_bound,
        "touched_bound_kind": growth.bound_kind,
        "touched_gap": touched - growth.lower_bound,
        "untouched_share": round(tally["kept"] / max(1, len(cables_old)), 6),
        "touch_price": touch_price,
        "labour": round(touch_price * (tally["moved"] + tally["removed"]), 2),
        "new_parts_price": round(float(bom["new_price"].sum()), 2),
    }


def placement_block(placed) -> dict:
    """summary.json's ``growth.placement``: where the new routers went and the dollars of the
    network cables with a new router at an end, after the greedy start and after the search,
    against their lower bound (``planner.placement.growth``)."""
    def money(value):
        return None if value is None else round(float(value), 2)

    gap = (None if placed.lower_bound is None or not placed.lower_bound
           else round(placed.dollars / placed.lower_bound - 1, 6))
    return {"method": placed.method,
            "new_cable_dollars_start": money(placed.start_dollars),
            "new_cable_dollars": money(placed.dollars),
            "new_cable_lower_bound": money(placed.lower_bound),
            "new_cable_bound_kind": placed.bound_kind,
            "new_cable_gap": gap,
            "evaluations": placed.evaluations, "moves": placed.moves,
            "new_routers_in_standing_cabinets": placed.in_standing_cabinets,
            "new_cabinets": placed.new_cabinets,
            "moved_parts_kept": placed.moved_parts_kept,
            "moved_parts_replaced": placed.moved_parts_replaced}


def new_parts(bom, growth):
    """The grown plan's BOM lines with their new quantities only (what bom.xlsx's BOM sheet
    lists for a growth): spares none, lines with nothing new left out."""
    out = bom.assign(quantity=growth["new"].to_numpy(), spares=0)
    out["extended_price"] = (out["quantity"] * out["unit_price"]).round(2)
    return out[out["quantity"] > 0].reset_index(drop=True)


def keep_theta(args) -> float:
    """``--keep-theta`` checked: a share in (0, 1]; InputError otherwise."""
    import math

    from planner.performance.drain_steps import DEFAULT_KEEP
    from planner.run.errors import InputError
    share = getattr(args, "keep_theta", None)
    if share is None:
        return DEFAULT_KEEP
    if not (math.isfinite(share) and 0 < share <= 1):
        raise InputError(f"--keep-theta must be a share in (0, 1], got {share}; e.g. 0.75 keeps "
                         "three quarters of the standing θ during every drain step")
    return float(share)


def drain_of(standing, growth, cables_old, fabric, paired, ep_map, positions, keep: float,
             through=None):
    """(the ``Drain`` of the growth, work_order.csv's rows with their drain steps)."""
    import numpy as np

    from planner.cabling import work_order as orders
    from planner.performance.drain_steps import drain
    frame, old_index, new_index = orders.walked(cables_old, fabric, paired, positions)
    survives = growth.old_to_new >= 0
    old_u, old_v = orders.router_ends(cables_old, growth.old_to_new)
    new_u, new_v = orders.router_ends(fabric)
    endpoints = np.zeros(growth.topology.num_routers, dtype=np.int64)
    endpoints[growth.old_to_new[survives]] = np.asarray(standing.endpoints)[survives]
    steps = drain(len(endpoints), endpoints, old_u, old_v,
                  paired[0], old_index[old_index >= 0], new_u, new_v, paired[1], paired[2],
                  orders.blockers(cables_old, fabric, paired, growth.old_to_new, ep_map), keep)
    return steps, orders.with_drain_steps(frame, old_index, new_index, steps, through)


def with_standing_trunks(bom, plant, standing: set):
    """``bom`` with its trunk lines' reused count: the grown plan's trunks that the standing
    plan has (same label, so the same two panels' rear ports, and the same part)."""
    if plant is None or not len(plant.trunks) or not standing:
        return bom
    trunks = plant.trunks
    same = [(str(lab), str(sku)) in standing for lab, sku in zip(trunks["label"], trunks["sku"])]
    have = trunks[same]["sku"].astype(str).value_counts()
    bom = bom.copy()
    rows = bom["item"] == "trunk"
    bom.loc[rows, "reused"] = [min(int(q), int(have.get(str(k), 0))) for k, q in
                               zip(bom.loc[rows, "sku"], bom.loc[rows, "quantity"])]
    bom["new"] = bom["quantity"] - bom["reused"]
    bom["new_price"] = (bom["new"] * bom["unit_price"]).round(2)
    return bom


def with_standing_panels(bom, plant, catalog, old):
    """``bom`` with its patch panel and patch rack lines' reused count: the grown plan's panels
    and patch racks that stand (a panel of the same name, so the same patch rack and rack unit,
    in the standing trunks.csv ``old``; a patch rack of the same name), per part."""
    if plant is None or not len(plant.panels) or old is None:
        return bom
    panels = set(old["a_panel"]) | set(old["b_panel"])
    racks = set(old["a_rack"]) | set(old["b_rack"])
    have = plant.panels[plant.panels["name"].isin(panels)]["sku"].astype(str).value_counts()
    standing_racks = int(plant.racks["name"].isin(racks).sum())
    per_rack = {h.sku for h in catalog.rack_hardware if h.per == "patch_rack"}
    bom = bom.copy()
    for i in bom.index[bom["item"].isin(["panel", "rack"])].tolist():
        sku, q = str(bom.at[i, "sku"]), int(bom.at[i, "quantity"])
        more = (int(have.get(sku, 0)) if bom.at[i, "item"] == "panel"
                else standing_racks if sku in per_rack else 0)
        bom.at[i, "reused"] = min(q, int(bom.at[i, "reused"]) + more)
    bom["new"] = bom["quantity"] - bom["reused"]
    bom["new_price"] = (bom["new"] * bom["unit_price"]).round(2)
    return bom


_PANEL_PORT = r"\| (?=[^|\s]+:[^|\s]+ \|)"


def standing_plant(folder: Path, cables_old, cabinets_old, grown_halls: int):
    """(the standing trunks.csv, the standing cables) with the panels, patch racks and trunk
    labels named as the grown plan names them: a standing plan in one hall grown over several
    halls gains the hall prefix (``A-P0-01`` -> ``H1-A-P0-01``,
    ``planner.cabling.structured.point_names``). (None, cables) without a trunks.csv."""
    import pandas as pd
    path = Path(folder) / "trunks.csv"
    if not path.is_file():
        return None, cables_old
    trunks = pd.read_csv(path, keep_default_na=False, dtype=str)
    halls = set(cabinets_old["hall"].astype(int)) if "hall" in cabinets_old else {1}
    if grown_halls <= 1 or len(halls) != 1 or trunks["a_panel"].str.match(r"H\d+-").any():
        return trunks, cables_old
    prefix = f"H{halls.pop()}-"
    for side in ("a", "b"):
        for col in (f"{side}_rack", f"{side}_panel"):
            trunks[col] = prefix + trunks[col]
    trunks["label"] = (trunks["a_panel"] + ":" + trunks["a_port"] + "/" + trunks["b_panel"]
                       + ":" + trunks["b_port"])
    if "segments" in cables_old:
        cables_old = cables_old.assign(segments=cables_old["segments"].astype(object).fillna("").astype(str)
                                       .str.replace(_PANEL_PORT, "| " + prefix, regex=True))
    return trunks, cables_old


def trunk_labels(trunks) -> dict:
    """trunk id -> (label, sku) of the standing plan's trunks.csv (empty without one)."""
    if trunks is None:
        return {}
    return dict(zip(trunks["trunk_id"], zip(trunks["label"], trunks["sku"])))


def standing_seats(trunks, cables_old, old_to_new, keep_dark: bool = True,
                   layouts: dict | None = None):
    """The standing plant's seats (``planner.cabling.structured.StandingSeats``) of the standing
    network cables through one trunk, their routers under their grown ids, and its trunks
    between two panels' rear ports: row trunks and the hall trunks between two hall entries
    (``trunks``: ``standing_plant``'s), and its cross-hall chains through pass-through panels
    (``_pass_through_chains``, ``layouts`` from ``entry_layouts``); None without trunks (no
    structured cabling). ``keep_dark`` (no ``--allow-remove``): a standing trunk no grown link
    uses stays as dark spare."""
    import re

    from planner.cabling.structured import StandingSeats
    trunk = trunk_labels(trunks)
    if not trunk or "segments" not in cables_old:
        return None
    piece = re.compile(r"\| (\S+):(\d+) \| trunk (T\d+) [^|]*\| (\S+):(\d+) \|")
    seats = {}
    net = cables_old[cables_old["kind"] == "network"]
    for a, pa, b, pb, text in zip(net["a_device"], net["a_port"], net["b_device"],
                                  net["b_port"], net["segments"].astype(object).fillna("").astype(str)):
        found = piece.findall(text)
        if len(found) != 1 or found[0][2] not in trunk:
            continue
        pa_, pan, tid, pb_, pbn = found[0]
        ra, rb = (int(old_to_new[int(str(d)[1:])]) for d in (a, b))
        if ra < 0 or rb < 0:
            continue
        x, y = (ra, int(pa)), (rb, int(pb))
        seats[(min(x, y), max(x, y))] = (*trunk[tid], {pa_: int(pan), pb_: int(pbn)})
    rear = trunks["a_port"].str.startswith("R") & trunks["b_port"].str.startswith("R")
    row_trunks = tuple(trunks[rear][["label", "sku", "length_m", "order_length_m", "a_rack",
                                     "a_panel", "a_ru", "a_port", "b_rack", "b_panel", "b_ru",
                                     "b_port"]].to_dict("records"))
    chain_seats, chains = _pass_through_chains(trunks, net, old_to_new, layouts or {})
    seats.update(chain_seats)
    return StandingSeats(seats, frozenset(trunk.values()), row_trunks, chains,
                         keep_dark=keep_dark)


_CHAIN = (r"\| (\S+):(\d+) \| trunk (T\d+) [^|]*\| (\S+):F(\d+)\.(\d+) \| trunk (T\d+) [^|]*"
          r"\| (\S+):F(\d+)\.(\d+) \| trunk (T\d+) [^|]*\| (\S+):(\d+) \|")


def entry_layouts(folder: Path) -> dict:
    """Per pass-through entry panel of the standing plan, its rear ports in order, each
    (positions, [its front ports' positions]) with the front ports numbered on across them
    (``planner.cabling.structured._entry_panels``' ``layout``, ``R12F8F3 R12F12``), as the
    standing plan's NetBox bundle records it: ``netbox/devices.csv`` names the panel's device
    type by its part number, layout and ``pass-through``. Empty without that file."""
    import re

    import pandas as pd
    path = Path(folder) / "netbox" / "devices.csv"
    if not path.is_file():
        return {}
    devices = pd.read_csv(path, keep_default_na=False, dtype=str,
                          usecols=lambda column: column in ("name", "device_type"))
    if not {"name", "device_type"} <= set(devices.columns):
        return {}
    devices = devices[devices["device_type"].str.endswith(" pass-through")]
    pattern = re.compile(r"((?:R\d+(?:F\d+)*)(?: R\d+(?:F\d+)*)*) pass-through$")
    out = {}
    for name, model in zip(devices["name"], devices["device_type"]):
        found = pattern.search(str(model))
        if found:
            out[str(name)] = [(int(legs), [int(k) for k in re.findall(r"F(\d+)", group)])
                              for group in found.group(1).split()
                              for legs in re.findall(r"^R(\d+)", group)]
    return out


def _entry_fronts(layouts: dict, trunks) -> dict:
    """(entry panel, front port number) -> (rear port number, positions, spare) from the
    standing entry panels' ``layouts`` (``entry_layouts``): ``spare`` the positions after the
    port on its rear port that a front port may grow into without renumbering any front
    port: where it is the last front port a trunk ends on (``trunks``) before one no trunk
    ends on (the hall trunk's spare positions), the last front port of its rear port, all of
    them on the panel's last rear port, else all but one (that free front port stays, so
    the front ports after it keep their numbers); 0 elsewhere."""
    ended = {(str(panel), int(str(port)[1:]))
             for side in ("a", "b")
             for panel, port in zip(trunks[f"{side}_panel"], trunks[f"{side}_port"])
             if str(port).startswith("F")}
    out = {}
    for panel, rears in layouts.items():
        number = 0
        for r, (_, sizes) in enumerate(rears, start=1):
            first = number + 1
            number += len(sizes)
            for k, size in enumerate(sizes):
                port, spare = first + k, 0
                if (k == len(sizes) - 2 and (panel, port) in ended
                        and (panel, port + 1) not in ended):
                    spare = sizes[-1] if r == len(rears) else sizes[-1] - 1
                out[(panel, port)] = (r, size, spare)
    return out


def _pass_through_chains(trunks, net, old_to_new, layouts: dict) -> tuple[dict, tuple]:
    """(seats, chains) of the standing cross-hall links through pass-through panels
    (``StandingSeats.chains``): per link, by its two router ends (grown ids),
    ``("chain", chain id, position)``; per chain its two row trunks (trunks.csv lists a
    chain's row trunk to the entry front port and the one from the far entry's front port
    one after the other, ``planner.cabling.structured._trunks``), its entry front port's
    positions (``size``), the positions that port may grow to (``room``), that port's number
    at each entry panel (``fronts``) and its hall trunk.

    With the standing entry panels' ``layouts`` (``entry_layouts``, one for every entry
    panel a chain ends on) ``size`` is the front port's positions there, its hall trunk the
    one on its rear port, and ``room`` adds the spare positions after it on both entry panels
    (``_entry_fronts``) up to its row trunks' legs: the last chain on a hall trunk with spare
    positions grows into them, renumbering no front port and moving no kept cable. Without
    (a plan folder without ``netbox/devices.csv``) ``size`` is the largest position a
    standing link takes, 1 for a chain that carried none, its hall trunk found by
    ``_hall_trunk_of`` and ``room`` its ``size``."""
    import re
    rows = trunks.set_index("trunk_id")
    ids, a_port, b_port = (trunks[c].astype(str).tolist() for c in ("trunk_id", "a_port",
                                                                      "b_port"))
    pairs = {tuple(sorted(ids[i:i + 2])): (ids[i], ids[i + 1]) for i in range(len(ids) - 1)
             if a_port[i][0] + b_port[i][0] + a_port[i + 1][0] + b_port[i + 1][0] == "RFFR"}
    pattern = re.compile(_CHAIN)
    seats, size = {}, {}
    for a, pa, b, pb, text in zip(net["a_device"], net["a_port"], net["b_device"],
                                  net["b_port"], net["segments"].astype(object).fillna("").astype(str)):
        hit = pattern.findall(text)
        key = tuple(sorted((hit[0][2], hit[0][10]))) if len(hit) == 1 else None
        if key not in pairs:
            continue
        pos = int(hit[0][5])
        size[key] = max(size.get(key, 0), pos)
        ra, rb = (int(old_to_new[int(str(d)[1:])]) for d in (a, b))
        if ra >= 0 and rb >= 0:
            x, y = (ra, int(pa)), (rb, int(pb))
            seats[(min(x, y), max(x, y))] = ("chain", key, pos)
    fronts = {key: {str(rows.at[lo, "b_panel"]): int(str(rows.at[lo, "b_port"])[1:]),
                    str(rows.at[hi, "a_panel"]): int(str(rows.at[hi, "a_port"])[1:])}
              for key, (lo, hi) in pairs.items()}
    entry = _entry_fronts(layouts, trunks)
    if pairs and all(end in entry for ports in fronts.values() for end in ports.items()):
        hall, size, room = _laid_out(trunks, rows, pairs, fronts, entry)
    else:
        size = {key: size.get(key, 1) for key in pairs}
        hall, room = _hall_trunk_of(trunks, fronts, size), size

    def piece(tid, row, entry):
        t = rows.loc[tid]
        return dict(label=str(t["label"]), sku=str(t["sku"]), rack=str(t[f"{row}_rack"]),
                    ru=str(t[f"{row}_ru"]), port=str(t[f"{row}_port"]),
                    entry=str(t[f"{entry}_panel"]))

    chains = []
    for key, (lo, hi) in pairs.items():
        if key not in hall:
            continue
        h = rows.loc[hall[key]]
        chains.append(dict(id=key, a=piece(lo, "a", "b"), b=piece(hi, "b", "a"),
                           size=size[key], room=room[key], fronts=fronts[key],
                           hall=(str(h["label"]), str(h["sku"])),
                           hall_ends=((str(h["a_panel"]), int(str(h["a_port"])[1:])),
                                      (str(h["b_panel"]), int(str(h["b_port"])[1:])))))
    return seats, tuple(chains)


def _laid_out(trunks, rows, pairs: dict, fronts: dict, entry: dict) -> tuple[dict, dict, dict]:
    """(hall trunk id, front port positions, positions it may grow to) per chain of ``pairs``
    from the standing entry panels (``entry``: ``_entry_fronts``'): the hall trunk on its
    front ports' rear ports (left out where the two entries disagree: laid out afresh), its
    front port's positions, and those plus the spare after it on both entries, at most its
    row trunks' legs (trunks.csv ``capacity``)."""
    rear_of = {}
    for tid, *ends in zip(trunks["trunk_id"], trunks["a_panel"], trunks["a_port"],
                          trunks["b_panel"], trunks["b_port"]):
        if str(ends[1]).startswith("R") and str(ends[3]).startswith("R"):
            rear_of[frozenset([(str(ends[0]), int(str(ends[1])[1:])),
                               (str(ends[2]), int(str(ends[3])[1:]))])] = str(tid)
    hall, size, room = {}, {}, {}
    for key, ports in fronts.items():
        seen = [entry[end] for end in ports.items()]
        tid = rear_of.get(frozenset((panel, r) for (panel, _), (r, _, _) in
                                    zip(ports.items(), seen)))
        if tid is None or len({s for _, s, _ in seen}) != 1:
            continue
        legs = min(int(rows.at[t, "capacity"]) for t in pairs[key])
        hall[key], size[key] = tid, seen[0][1]
        room[key] = max(size[key], min(legs, size[key] + min(s for _, _, s in seen)))
    return hall, size, room


def _hall_trunk_of(trunks, fronts: dict, size: dict) -> dict:
    """chain -> the trunk id of the hall trunk carrying it, from the entry panels' numbering
    (``planner.cabling.structured._entry_panels``): on each entry panel the rear ports in
    order, each taking the next front ports until its positions are used or a front port no
    row trunk ends on (its free spare positions) closes it. A chain must come out on the same
    hall trunk at both ends (else it is left out: laid out afresh)."""
    at = {}
    for key, ports in fronts.items():
        for panel, number in ports.items():
            at[(panel, number)] = key
    hall = trunks[trunks["a_port"].astype(str).str.startswith("R")
                  & trunks["b_port"].astype(str).str.startswith("R")
                  & trunks["a_panel"].isin({p for p, _ in at})]
    rears: dict = {}
    for tid, cap, *ends in zip(hall["trunk_id"], hall["capacity"], hall["a_panel"],
                               hall["a_port"], hall["b_panel"], hall["b_port"]):
        for panel, port in (ends[:2], ends[2:]):
            rears.setdefault(str(panel), []).append((int(str(port)[1:]), str(tid), int(cap)))
    seen: dict = {}
    for panel, ports in rears.items():
        last = max([n for p, n in at if p == panel], default=0)
        number = 1
        for _, tid, cap in sorted(ports):
            fill = 0
            while fill < cap and number <= last:
                key = at.get((panel, number))
                number += 1
                if key is None:              # a free port: the spare positions, last
                    break
                seen.setdefault(key, set()).add(tid)
                fill += size[key]
    return {key: tids.pop() for key, tids in seen.items() if len(tids) == 1}


def drain_block(drain, order) -> dict:
    """summary.json ``growth.drain``: the share asked, how θ was computed, and per step its
    θ share while down, the fabric cables it moves, removes and adds (trunks apart:
    ``trunks_removed``; management cords apart: ``mgmt_cords``),
    and its verification list."""
    from planner.exports.work_order import step_list_name
    steps = []
    for k in range(1, drain.count + 1):
        mine = order[(order["drain_step"] == k)
                     & order["kind"].isin(["network", "endpoint"])]["action"].value_counts()
        rounded = lambda x: None if x is None else round(float(x), 6)  # noqa: E731
        steps.append({"step": k, "theta_before": rounded(drain.before[k - 1]),
                      "theta_during": rounded(drain.during[k - 1]),
                      "theta_share": round(float(drain.share[k - 1]), 6),
                      "theta_share_of_standing": None if not drain.theta_standing
                      or drain.during[k - 1] is None
                      else round(float(drain.during[k - 1] / drain.theta_standing), 6),
                      "meets": drain.meets[k - 1],
                      "moved": int(mine.get("move", 0)), "removed": int(mine.get("remove", 0)),
                      "added": int(mine.get("add", 0)), "verify_list": step_list_name(k)})
    return {"keep_theta": drain.keep, "engine": drain.engine,
            "theta_standing": None if drain.theta_standing is None
            else round(float(drain.theta_standing), 6),
            "steps": steps, "all_meet": all(drain.meets)}


def mgmt_block(cords, standing: int) -> dict:
    """summary.json ``growth.mgmt_cords``: the standing management cords kept, moved and
    removed, and the new ones added (``planner.cabling.work_order.mgmt_rows``)."""
    count = cords["action"].value_counts()
    moved, removed = int(count.get("move", 0)), int(count.get("remove", 0))
    return {"kept": standing - moved - removed, "moved": moved, "removed": removed,
            "added": int(count.get("add", 0))}


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from planner import exports
    from planner.cabling import work_order as orders
    from planner.placement.grown import grow
    from planner.costing import growth_reuse, power
    from planner.placement.growth import moved_to_new, place_growth
    from planner.plan import plan
    from planner.run.errors import InputError
    from planner.topologies import parse_spec

    if args.touch_price is not None and not (args.touch_price >= 0
                                             and np.isfinite(args.touch_price)):
        raise InputError(f"--touch-price must be a non-negative number, got {args.touch_price}")
    keep = keep_theta(args)
    new = parse_spec(args.topology)
    src = what_stands(args, new)
    folder, standing, router_cab = src.label, src.standing, src.router_cabinet
    cables_old, cabinets_old, catalog, floor = src.cables, src.cabinets, src.catalog, src.floor
    touch_price = floor.touch_price if args.touch_price is None else args.touch_price
    router = catalog.router_for(max(new.radix, src.radix))
    growth = grow(standing, new, int(router.radix), allow_remove=args.allow_remove,
                  seed=args.seed)
    hall, row, col, group = standing_positions(cabinets_old)
    boxes = None if src.mgmt is None else standing_boxes(
        cabinets_old, src.mgmt, growth.old_to_new, growth.topology.num_routers)
    placed = place_growth(growth.topology, power.fit_budget(floor, growth.topology, catalog,
                                                            router),
                          catalog, router, router_cab[growth.old_to_new >= 0], hall, row, col,
                          group, moved_to_new(standing, growth.topology, router_cab,
                                              int((growth.old_to_new >= 0).sum())),
                          box_units=None if boxes is None
                          else boxes.units(int(floor.cabinet_height_ru)))
    placement = placed.placement
    old_trunks, old_pieces = (standing_plant(folder, cables_old, cabinets_old,
                                             int(np.max(placement.cabinet_hall)) + 1)
                              if args.plan_dir is not None else (None, cables_old))
    seats = standing_seats(old_trunks, old_pieces, growth.old_to_new,
                           keep_dark=not args.allow_remove,
                           layouts=entry_layouts(folder) if args.plan_dir is not None else None)
    result = plan(growth.topology, catalog, floor, placement=placement, strategy="hint",
                  seed=args.seed, standing_seats=seats, standing_boxes=boxes)
    ep_map = orders.endpoint_map(standing.endpoints, growth.topology.endpoints,
                                 growth.old_to_new)
    fabric = result.cables[result.cables["kind"].isin(["network", "endpoint"])]
    paired = orders.pairs(cables_old, fabric, growth.old_to_new, ep_map)
    replugged = paired[1] == "move"
    if result.structured is not None:
        grown_trunks = result.structured.trunks
        paired = orders.with_repatched(paired, old_pieces, fabric, trunk_labels(old_trunks),
                                       dict(zip(grown_trunks["trunk_id"],
                                                zip(grown_trunks["label"],
                                                    grown_trunks["sku"]))))
    positions = {str(n): (int(h), int(r), int(c)) for n, h, r, c in zip(
        placement.cabinet_names, placement.cabinet_hall, placement.cabinet_row,
        placement.cabinet_col)}
    positions.update({str(n): (int(h), int(r), int(c))      # a removed cable's cabinet
                      for n, h, r, c in zip(cabinets_old["name"], hall, row, col)})
    plant = result.structured
    through = orders.through_panels(
        None if plant is None else plant.links, None if plant is None else plant.trunks,
        set(trunk_labels(old_trunks).values()), fabric.index.to_numpy())
    drain, order = drain_of(standing, growth, cables_old, fabric, paired, ep_map, positions,
                            keep, through)
    order, trunks_removed = orders.with_removed_trunks(
        order, old_trunks, None if plant is None else plant.trunks)
    cords = None if src.mgmt is None or result.fabric is None else orders.mgmt_rows(
        src.mgmt, result.fabric.cords,
        grown_names(src.mgmt["a_device"], growth.old_to_new, growth.topology.num_routers))
    if cords is not None:
        order = orders.with_mgmt_cords(order, cords, positions)
    swaps = orders.cord_swaps(old_pieces, fabric, paired, growth.old_to_new, ep_map)
    order = orders.with_cord_swaps(order, swaps, positions)
    bom = reused_bom(result, paired[1], cables_old, paired[2],
                     int((growth.old_to_new >= 0).sum()),
                     int(standing.endpoints[growth.old_to_new >= 0].sum()),
                     len(cabinets_old),
                     growth_reuse.standing_fabric(result, router_cab, (hall, row, col),
                                                  growth.old_to_new, standing.endpoints))
    bom = with_standing_trunks(bom, plant, set(trunk_labels(old_trunks).values()))
    bom = with_standing_panels(bom, plant, catalog, old_trunks)
    result.summary["growth"] = growth_block(folder, standing, growth, cables_old, fabric,
                                            paired, bom, touch_price,
                                            int(((paired[1] == "move") & ~replugged).sum()))
    result.summary["growth"]["trunks_removed"] = trunks_removed
    result.summary["growth"]["cords_swapped"] = int(len(swaps))
    result.summary["growth"]["placement"] = placement_block(placed)
    result.summary["growth"]["drain"] = drain_block(drain, order)
    if cords is not None:
        result.summary["growth"]["mgmt_cords"] = mgmt_block(cords, len(src.mgmt))
    if args.as_built:
        result.summary["growth"]["as_built"] = str(args.as_built)
        result.summary["growth"]["notes"] = list(growth.notes) + list(src.notes)
    old_named = orders.in_grown_names(cables_old, fabric, growth.old_to_new, ep_map)
    grown_cls = _plan_class()
    parts = {f.name: getattr(result, f.name) for f in fields(result)}
    parts["bom"] = new_parts(result.bom, bom)
    grown = grown_cls(**parts, work_order=order, bom_growth=bom, as_built_names=src.names,
                      drain_lists=(drain.count, lambda k: orders.after_step(
                          old_named, fabric, paired, drain, k)))
    files = exports.write_plan(grown, args.out)
    g = result.summary["growth"]
    tally = g["cables"]
    print(f"grown by {g['how']}: {g['routers_added']} routers added, "
          f"{g['routers_removed']} removed; cables kept {tally['kept']:,}, moved "
          f"{tally['moved']:,}, removed {tally['removed']:,}, added {tally['added']:,}; "
          f"touched network cables {g['touched_network']:,} (lower bound "
          f"{g['touched_lower_bound']:,}); "
          f"new parts ${g['new_parts_price']:,.2f}, labour ${g['labour']:,.2f}; "
          f"{drain.count} drain steps keeping >= {drain.keep:g} of θ"
          f"{'' if all(drain.meets) else ' (not all: see summary.json growth.drain)'}; "
          f"{args.out}/ ({len(files)} files)")
    return 0
