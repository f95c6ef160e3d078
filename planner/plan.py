"""``plan(...) -> Plan``: topology + catalog + floor -> placement, every cable, BOM and summary.

Stages (the data flow drawn in README.md "What it does"), each a pure function of the previous
values:
router model (``catalog.router_for(topology.radix)``) -> placement (``planner.placement.place``)
-> cabling (``planner.cabling.build``) -> performance (``planner.performance.evaluate``: hops,
latency, bisection, throughput) -> costing (``planner.costing.bom.build`` + ``planner.costing``)
-> summary (the dict that ``summary.json`` holds). Nothing is written to disk here; the
``planner plan`` command hands the ``Plan`` to the writers in ``planner/exports``.

The module itself is callable, so ``import planner.plan`` then ``planner.plan(...)`` is the same
as ``planner.plan.plan(...)`` (the issue's ``planner.plan(...) -> Plan``).
"""

from __future__ import annotations

import sys
import time
import types
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import planner
from planner import cabling, costing, performance
from planner.costing import bom as boms
from planner.costing import basis, fabric, fabric_devices, power
from planner.inputs import feasibility
from planner.inputs import floor as floors
from planner.inputs.catalog import Catalog, RouterModel, load_catalog
from planner.inputs.floor import Floor, load_floor, routes
from planner.inputs.floor.rack_positions import hall_bounds
from planner.inputs.parts import structured
from planner.inputs.tuning import DEFAULT_TIME_LIMIT_S, MAX_SEED, MAX_SPARES_PCT, MAX_TIME_LIMIT_S
from planner.performance import failure_groups, simulators, spread_risk, tuning
from planner.placement import rails, spread
from planner.placement.result import Placement
from planner.run import guards, memory
from planner.run.errors import InputError
from planner.run.output import restore_ctrl_c
from planner.run.progress import Stages
from planner.topologies.base import Topology

STRATEGIES = ("hint", "partition", "optimize")


@dataclass(frozen=True, eq=False)
class Plan:
    """Everything ``planner plan`` knows about one system (the writers in ``planner/exports``
    read it).

    cables:   one row per physical cable: ``cabling.CSV_COLUMNS`` then ``cabling.EXTRA_COLUMNS``.
    devices:  name, kind ("router" | "endpoint"), id, cabinet, ru, height_ru, model, watts.
    cabinets: name, hall, row, col, group, x_m, y_m, routers, endpoints, ru_used, kw.
    ports:    one row per router port 1..radix: device, port, used, peer_device, peer_port,
              cable_id, label.
    bom:      item, sku, description, length_m, quantity, spares, unit_price, extended_price,
              vendor (``planner.costing.bom``).
    summary:  exactly what summary.json holds.
    structured: on a floor with structured cabling, the panels, trunks, patch racks and the
              pieces of every link through them (``planner.cabling.structured.StructuredPlan``).
    pieces:   every installed piece and each link's pieces (``planner.cabling.pieces.Pieces``).
    fabric:   the subnet-manager boxes, management switches and PDUs in their cabinets and the
              management cords (``planner.costing.fabric_devices.FabricDevices``).
    resilience_groups: per failure kind measured, every group's θ after failure
              (``planner.performance.resilience.per_group``; summary.json keeps the worst).
    """

    topology: Topology
    catalog: Catalog
    floor: Floor
    placement: Placement
    router_model: RouterModel
    cables: pd.DataFrame
    devices: pd.DataFrame
    cabinets: pd.DataFrame
    ports: pd.DataFrame
    bom: pd.DataFrame
    summary: dict[str, Any]
    structured: cabling.structured.StructuredPlan | None = None
    pieces: cabling.pieces.Pieces | None = None
    fabric: fabric_devices.FabricDevices | None = None
    resilience_groups: dict[str, dict] | None = None


def _as_topology(topology) -> Topology:
    if isinstance(topology, Topology):
        return topology
    from planner.topologies import parse_spec
    return parse_spec(str(topology))


def _as_catalog(catalog) -> Catalog:
    return catalog if isinstance(catalog, Catalog) else load_catalog(catalog)


def _as_floor(floor) -> Floor:
    return floor if isinstance(floor, Floor) else load_floor(floor)


def check_options(strategy: str, time_limit_s: float, spares_pct: float, seed: int = 0) -> None:
    """InputError for a bad strategy, time limit, spares percentage or seed (the bounds of
    ``planner.inputs.spec.Spec``)."""
    if strategy not in STRATEGIES:
        raise InputError(f"--strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if not (_real(time_limit_s) and np.isfinite(time_limit_s)
            and 0 < time_limit_s <= MAX_TIME_LIMIT_S):
        raise InputError(f"--time-limit must be a positive number of seconds up to "
                         f"{MAX_TIME_LIMIT_S:g}, got {time_limit_s!r}")
    if not (_real(spares_pct) and 0 <= spares_pct <= MAX_SPARES_PCT):
        raise InputError(f"--spares must be a percentage within 0..{MAX_SPARES_PCT:g}, got "
                         f"{spares_pct!r}")
    if not (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
            and 0 <= seed <= MAX_SEED):
        raise InputError(f"--seed must be an integer within 0..{MAX_SEED:,}, got {seed!r}")


def _real(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def plan(topology: Topology | str, catalog: Catalog | str, floor: Floor | str, *,
         strategy: str = "optimize", time_limit_s: float = DEFAULT_TIME_LIMIT_S, seed: int = 0,
         group_endpoints: int | None = None, endpoint_cables: bool = True,
         spares_pct: float = 0.0, progress=False,
         placement: Placement | None = None, router_latency_ns: float | None = None,
         booksim: dict | None = None, spares: boms.Spares | None = None,
         optics: str | None = None, resilience: str = "all",
         fail_links: int | None = None, spread_risk: float | str | None = None,
         resilience_exact: bool = False, standing_seats=None, standing_boxes=None) -> Plan:
    """Plan a system without writing files.

    ``topology`` / ``catalog`` / ``floor`` are values or names (``"slimfly:q=19,p=15"``,
    ``"modern-100g"``, ``"hot-aisle"``). ``placement`` skips the placement stage and uses the
    given layout (hand-made layouts, re-costing a layout under another catalog). ``progress``:
    a ``planner.run.progress`` mode (``"bar"``, ``"lines"``; True = bar), placement's own stages
    included. ``router_latency_ns`` overrides the router model's delay in the performance
    stage; ``booksim`` holds the BookSim run options of ``booksim.cfg``
    (``simulators.BOOKSIM_DEFAULTS``). ``spares`` gives a spare percentage per class
    (switches, optics, cables); ``spares_pct`` alone is the cables' percentage. ``optics``
    chooses among the catalog's equivalent offers (``genuine``, the default; ``compatible``;
    ``cheapest``: ``planner.inputs.catalog.offers``) unless the catalog was already bought
    with ``Catalog.with_offers``. ``resilience`` names the failure groups whose single
    failures are measured (``planner.performance.failure_groups.CHOICES``) and ``fail_links``
    the cables of each random draw (None: ``tuning.DEFAULT_FAIL_LINKS``; 0: none).
    ``spread_risk``: the largest share of a router's cables one other cabinet may hold
    (``planner.placement.spread``); the summary's ``spread_risk`` block compares the plan with
    the plain placement it started from. ``resilience_exact``: the exact LP after every
    failure whatever the budget, with a warning of its expected time on stderr.
    ``standing_seats`` (``planner expand``): the standing structured plant, whose trunks and
    panel ports the grown plan keeps (``planner.cabling.structured.StandingSeats``).
    ``standing_boxes`` (``planner expand``): the standing fabric boxes and management cords,
    which keep their cabinets, rack units, names and ports
    (``planner.costing.fabric_devices.StandingBoxes``).
    """
    started = time.perf_counter()
    topology, catalog, floor = _as_topology(topology), _as_catalog(catalog), _as_floor(floor)
    check_options(strategy, time_limit_s, spares_pct, seed)
    if catalog.offer_choice is None:
        catalog = catalog.with_offers(optics or "genuine")
    if spares is None:
        spares = boms.Spares(cables=float(spares_pct))
    if router_latency_ns is not None:
        router_latency_ns = performance.check_router_latency(router_latency_ns,
                                                             "--router-latency-ns")
    booksim = simulators.check_booksim(booksim, topology.num_endpoints)
    fail_links = failure_groups.check_options(resilience, fail_links, floor, topology.num_links)
    if spread_risk is not None:
        spread_risk = spread.check_share(spread_risk)
        if placement is not None:
            raise InputError("--spread-risk places the routers itself; it cannot take a given "
                             "placement: leave out one or the other")
    if group_endpoints is not None:
        floor = floor.with_group_endpoints(group_endpoints)
    if topology.num_routers == 0:
        raise InputError(f"topology '{topology.family}' has no routers; nothing to plan")
    router_model = catalog.router_for(topology.radix)
    guards.check_router_model(catalog, router_model)
    fabric.check_managed(catalog, router_model)
    performance.router_latency(router_model, router_latency_ns)   # checked before placement
    guards.check_counts(f"topology '{_describe(topology)}'", topology.num_links,
                        topology.num_endpoints, topology.num_routers, router_model.radix,
                        endpoint_cables)
    floors.check_capacity(_router_cabinets(floor, catalog, topology), topology, router_model)
    structured.check_catalog(catalog, floor, router_model)
    within_budget = power.fit_budget(floor, topology, catalog, router_model, endpoint_cables)
    feasibility.check(feasibility.Shape.of(topology), catalog,
                      _router_cabinets(within_budget, catalog, topology), router_model,
                      endpoint_cables, given=floor)

    with Stages("plan", ["placement", "cabling", "performance", "costing", "summary"],
                progress) as stages:
        with stages.run("placement", lambda: _placement_detail(placement)):
            if placement is None:
                from planner.placement import place
                placement = place(topology, within_budget, catalog, strategy=strategy,
                                  time_limit_s=time_limit_s, seed=seed,
                                  group_endpoints=group_endpoints, on_stage=stages.note,
                                  spread_risk=spread_risk)
                restore_ctrl_c()  # CP-SAT leaves SIGINT at the OS default
            memory.release()
        with stages.run("cabling", lambda: f"{len(cable_plan.cables):,} cables"):
            cable_plan = cabling.build(topology, placement, floor, catalog, router_model,
                                       endpoint_cables=endpoint_cables,
                                       standing_seats=standing_seats)
            memory.release()      # cabling's temporaries, before the next stage grows
        with stages.run("performance", lambda: _performance_detail(perf)):
            failures = failure_groups.derive(resilience, topology, placement, floor,
                                             cable_plan.cables, cable_plan.structured)
            if placement.spread_risk is not None:
                failures = _with_spread_kinds(failures, topology, placement, floor,
                                              cable_plan)
            if resilience_exact:
                _warn_exact(topology, failures, fail_links)
            perf = performance.evaluate(topology, cable_plan.cables, router_model,
                                        router_latency_ns=router_latency_ns, seed=seed,
                                        failures=failures, fail_links=fail_links,
                                        exact_failures=resilience_exact)
            memory.release()
        with stages.run("costing", lambda: f"{len(bom):,} BOM lines"):
            bom = boms.build(catalog, router_model, topology.radix, topology.num_routers,
                             cable_plan.cables, spares, topology.num_endpoints,
                             placement.num_cabinets, structured=cable_plan.structured,
                             servers=_servers(catalog, topology, placement))
            totals = _totals(catalog, router_model, topology, cable_plan.cables, bom)
            watts = power.plan_power(topology, catalog, router_model, cable_plan.cables,
                                     placement.router_cabinet, placement.num_cabinets,
                                     server_cabinet=placement.server_cabinet)
            power.check_budget(floor, placement.cabinet_names, watts.cabinet_kw)
            # servers' power is distributed by their compute cabinets' own PDUs (not included)
            fabric_lines, fabric_plan = fabric.build(catalog, router_model, placement, floor,
                                                     watts.network_kw, topology.num_endpoints,
                                                     standing=standing_boxes)
            bom = fabric.append(bom, fabric_lines)
            devices = cable_plan.devices.assign(
                watts=np.round(np.r_[watts.router_w, watts.endpoint_w], 3))
            cabinets = cable_plan.cabinets.assign(kw=np.round(watts.cabinet_kw, 6))
            boxes = None
            if fabric_plan is not None:
                boxes = fabric_devices.place(catalog, placement, floor, devices, fabric_plan,
                                             standing=standing_boxes)
                kw = watts.with_servers(fabric_plan.kw)
                power.check_budget(floor, placement.cabinet_names, kw)
                plan_w = float(watts.cabinet_kw.sum()) * 1000.0
                watts = replace(watts, cabinet_kw=kw)
                cabinets = cabinets.assign(
                    kw=np.round(kw, 6),
                    ru_used=cabinets["ru_used"] + boxes.ru_per_cabinet(len(cabinets)))
            memory.release()
        with stages.run("summary"):
            summary = _summary(topology, catalog, floor, placement, router_model, cable_plan,
                               bom, totals, dict(strategy=strategy, seed=seed,
                                                 time_limit_s=time_limit_s,
                                                 endpoint_cables=endpoint_cables,
                                                 spares_pct=spares.cables,
                                                 spares=spares.as_dict(),
                                                 router_latency_ns=router_latency_ns,
                                                 booksim=booksim,
                                                 optics=catalog.offer_choice["policy"]))
            _room_summary(summary, floor, within_budget, placement, cable_plan.cables, watts,
                          topology.num_endpoints, cable_plan.structured)
            if cable_plan.structured is not None:
                summary["structured"] = cable_plan.structured.summary()
            summary["optics"] = cabling.optics_summary(cable_plan.cables)
            if placement.server_cabinet is not None:
                summary["servers"] = _server_summary(catalog, topology, placement)
            summary["offers"] = catalog.offer_choice
            summary["bom"]["not_included"] = fabric.not_included(catalog)
            if fabric_plan is not None:
                summary["fabric"] = fabric_plan.summary()
                summary["power"]["fabric_w"] = round(float(watts.cabinet_kw.sum()) * 1000.0
                                                     - plan_w, 3)
            resilience_block = perf.pop("resilience", None)
            if placement.spread_risk is not None:
                summary["spread_risk"] = _spread_block(topology, placement, floor, cable_plan,
                                                       resilience_block, resilience)
                if resilience == "off" and fail_links == 0:
                    resilience_block = None
            summary["performance"] = perf
            resilience_s = {}
            resilience_groups = {}
            if resilience_block is not None:      # its run times go with the others
                resilience_s = {kind: block.pop("runtime_s")
                                for kind, block in resilience_block["kinds"].items()}
                resilience_groups = {kind: block.pop("per_group")
                                     for kind, block in resilience_block["kinds"].items()}
                for block in resilience_block["kinds"].values():
                    worst = block["worst"]
                    worst["cost_per_delivered_tbps"] = _per_tbps(
                        summary["cost"]["total"], {"uniform": worst})
                summary["resilience"] = resilience_block
            summary["performance"]["cost_per_delivered_tbps"] = _per_tbps(
                summary["cost"]["total"], perf)
            summary["simulators"] = simulators.notes(topology)
            memory.release()      # what the writers fork from: the plan alone
    summary["runtime"] = {f"{k}_s": round(v, 3) for k, v in stages.seconds.items()}
    if resilience_s:
        summary["runtime"]["resilience_s"] = resilience_s
    summary["runtime"]["total_s"] = round(time.perf_counter() - started, 3)
    return Plan(topology=topology, catalog=catalog, floor=floor, placement=placement,
                router_model=router_model, cables=cable_plan.cables, devices=devices,
                cabinets=cabinets, ports=cable_plan.ports, bom=bom, summary=summary,
                structured=cable_plan.structured, pieces=cable_plan.pieces,
                fabric=boxes, resilience_groups=resilience_groups)


def _warn_exact(topology: Topology, failures, fail_links: int) -> None:
    """``--resilience-exact``: one line on stderr with the LPs to solve and their expected
    time (``planner.performance.resilience.exact_estimate``)."""
    from planner.performance.resilience import exact_estimate
    groups, skipped = failures
    count = sum(len(g) for kind, g in groups.items() if kind not in skipped)
    count += tuning.FAIL_LINK_SAMPLES if fail_links else 0
    nonzeros, seconds = exact_estimate(topology, count)
    print(f"planner: warning: --resilience-exact: {count:,} exact LPs, {nonzeros:,} nonzeros "
          f"together, about {seconds:,.0f} s", file=sys.stderr, flush=True)


def _with_spread_kinds(failures, topology: Topology, placement: Placement, floor: Floor,
                       cable_plan):
    """The failure groups to measure plus the plain layout's cabinets (and the plan's own,
    when ``--resilience`` leaves them out) and its groups of the other kinds measured, for
    the ``spread_risk`` comparison."""
    groups, skipped = failures
    groups = dict(groups)
    r, links = topology.num_routers, len(topology.links)
    if "cabinet" not in groups or "cabinet" in skipped:
        groups[spread_risk.SPREAD_CABINETS] = failure_groups.cabinet_groups(placement, r, links)
    plain = spread_risk.plain_groups(topology, placement, floor, cable_plan.cables,
                                     cable_plan.structured,
                                     ["cabinet", *(k for k in groups if k not in skipped)])
    for kind, g in plain.items():
        groups[spread_risk.plain_kind(kind)] = g
    return groups, skipped


def _spread_block(topology: Topology, placement: Placement, floor: Floor, cable_plan,
                  resilience_block: dict | None, resilience: str) -> dict[str, Any]:
    """The ``spread_risk`` block (``planner.performance.spread_risk``); the comparison's own
    failure kinds leave the ``resilience`` block, their run time goes to the block."""
    kinds = resilience_block["kinds"] if resilience_block else {}
    ours = kinds.pop(spread_risk.SPREAD_CABINETS, None)
    plain_kinds = {name[len(spread_risk.PLAIN):]: kinds.pop(name)
                   for name in list(kinds) if name.startswith(spread_risk.PLAIN)}
    plain = plain_kinds.pop("cabinet", None)
    if resilience_block:
        for name in list(resilience_block["groups"]):
            if name.startswith(spread_risk.PLAIN) or name == spread_risk.SPREAD_CABINETS:
                resilience_block["groups"].pop(name)
    extra = sum(k.pop("runtime_s", 0.0) for k in (ours, plain, *plain_kinds.values())
                if k is not None)
    mine = ours if ours is not None else kinds.get("cabinet")
    groups, _ = failure_groups.derive("all", topology, placement, floor, cable_plan.cables,
                                      cable_plan.structured)
    plain_groups = spread_risk.plain_groups(topology, placement, floor, cable_plan.cables,
                                            cable_plan.structured, ("cabinet", "tray", "row",
                                                                    "trunk"))
    theta_kinds = {kind: {"with": kinds.get(kind), "without": b}
                   for kind, b in plain_kinds.items()}
    names = floors.padded("r", np.arange(topology.num_routers),
                          width=len(str(topology.num_routers - 1)))
    return spread_risk.block(placement.spread_risk, topology, groups, plain_groups, names,
                             placement.cable_cost, placement.optical, mine, plain,
                             extra + placement.stage_seconds.get("spread", 0.0),
                             trunks=getattr(cable_plan.structured, "spread", None),
                             floor=floor,
                             placements=(placement, spread_risk.plain_layout(placement)),
                             theta_kinds=theta_kinds)


def _router_cabinets(floor: Floor, catalog: Catalog, topology: Topology) -> Floor:
    """The floor as the checks before placement read the routers' cabinets: without
    ``endpoint_slots`` when the endpoints are NICs of a catalog server model, whose servers
    stand in compute cabinets of their own (``planner.placement.rails``)."""
    from planner.inputs.catalog.servers import server_model_for
    if server_model_for(catalog, topology) is None:
        return floor
    return floor.model_copy(update={"endpoint_slots": None})


def _servers(catalog: Catalog, topology: Topology, placement: Placement):
    """(server model, count) when the placement stands servers in cabinets, else None."""
    if placement.server_cabinet is None:
        return None
    from planner.inputs.catalog.servers import server_model_for
    return server_model_for(catalog, topology), len(placement.server_cabinet)


def _server_summary(catalog: Catalog, topology: Topology, placement: Placement) -> dict:
    """The ``servers`` block of summary.json: the model, the servers, their NICs and the
    compute cabinets they stand in, with the most servers in one cabinet."""
    model, count = _servers(catalog, topology, placement)
    per_cabinet = np.bincount(placement.server_cabinet)
    return {"model": model.sku, "count": int(count), "nics": int(model.nics),
            "gpus": int(model.gpus) * int(count),
            "cabinets": int(np.count_nonzero(per_cabinet)),
            "most_per_cabinet": int(per_cabinet.max(initial=0))}


def _performance_detail(perf: dict[str, Any]) -> str:
    theta = perf.get("uniform", {}).get("theta")
    return f"uniform throughput θ {theta:.3g}" if isinstance(theta, (int, float)) else ""


def _placement_detail(placement: Placement) -> str:
    head = f"{placement.optical:,} optical links, lower bound {_number(placement.lower_bound):,}"
    if placement.objective == "cable dollars":
        head = (f"{placement.copper:,} copper links (at most {placement.copper_upper_bound:,}), "
                f"cables ${placement.cable_cost:,.2f}")
    return f"{head}; {placement.num_cabinets:,} cabinets"


def _describe(topology: Topology) -> str:
    """``family:k=v,...`` of a topology (``import:path=...`` for a file), for messages."""
    return f"{topology.family}:" + ",".join(f"{k}={v}" for k, v in topology.params.items())


def _totals(catalog: Catalog, router_model: RouterModel, topology: Topology,
            cables: pd.DataFrame, bom: pd.DataFrame) -> costing.Totals:
    """Power from the routers, both ends of every cable and the NICs; link cost from the BOM."""
    cost = boms.class_totals(bom)
    return costing.totals(catalog, router_model, topology.radix, topology.num_endpoints,
                          [cost["optics"] + cost["cables"]], num_routers=topology.num_routers,
                          cable_watts=float((cables["a_watts"] + cables["b_watts"]).sum()))


def _cable_block(cables: pd.DataFrame, kind: str, costed: bool, pieces) -> dict[str, Any]:
    """Links of ``kind``; metres ordered count each piece once (a shared trunk once)."""
    part = cables.loc[cables["kind"] == kind, ["media", "length_m"]]
    media = part["media"].to_numpy()
    return {"count": int(len(part)),
            "electrical": int(np.sum(media == "electrical")),
            "optical": int(np.sum(media == "optical")),
            "length_m": round(float(part["length_m"].sum()), 3),
            "order_length_m": pieces.order_length_m(cables, kind),
            "max_length_m": round(float(part["length_m"].max()), 3) if len(part) else 0.0,
            "costed": costed}


def _summary(topology, catalog, floor, placement, router_model, cable_plan, bom, totals,
             options) -> dict[str, Any]:
    from planner.topologies.metrics import distance_stats
    from planner.topologies.multiplane import one_plane
    diameter, avg_distance = distance_stats(one_plane(topology))   # a multi-plane: per plane
    cables = cable_plan.cables
    money = totals.summary()
    parts = boms.class_totals(bom)
    total = float(bom["extended_price"].sum())
    n_ep = topology.num_endpoints
    servers = ({"servers": round(parts["servers"], 2)} if placement.server_cabinet is not None
               else {})
    cost = {"routers": round(parts["switches"], 2), "nics": round(parts["nics"], 2), **servers,
            "licences": round(parts["licences"], 2), "optics": round(parts["optics"], 2),
            "cables": round(parts["cables"], 2), "panels": round(parts["panels"], 2),
            "rack": round(parts["rack"], 2),
            **{k: round(parts[k], 2) for k in ("management", "power", "support")},
            "spares": round(parts["spares"], 2), "total": round(total, 2),
            "price_basis": basis.summary(bom, catalog.price_basis),
            "per_endpoint": round(total / n_ep, 2) if n_ep else 0.0,
            "router_unit": round(float(bom["unit_price"].iloc[0]), 2)}
    power = dict(money["power"])
    power["per_router_port_w"] = round(router_model.lanes_per_port * router_model.watts_per_lane, 3)
    floor_info = {"name": floor.name, "media_rule": floor.media_rule,
                  "abstract": floor.abstract, "cabinet_height_ru": floor.cabinet_height_ru,
                  "router_slots": floor.router_slots, "endpoint_slots": floor.endpoint_slots,
                  "group_cabinets": floor.group_cabinets,
                  "group_endpoints": floor.group_endpoints}
    return {
        "planner_version": planner.__version__,
        "topology": {"family": topology.family, "params": _jsonable(topology.params),
                     "routers": topology.num_routers, "endpoints": n_ep,
                     "radix": topology.radix, "links": topology.num_links,
                     "diameter": int(diameter), "avg_distance": round(float(avg_distance), 6),
                     "group_kind": topology.group_kind},
        "catalog": {"name": catalog.name, "router_sku": router_model.sku,
                    "router_radix": router_model.radix, "rate_gbps": router_model.rate_gbps,
                    "optical_average_length_m": catalog.optical_average_length_m,
                    "count_endpoint_cables": catalog.count_endpoint_cables,
                    "currency": catalog.currency},
        "floor": floor_info,
        "options": options,
        "placement": {"strategy": placement.strategy, "method": placement.method,
                      "cabinets": placement.num_cabinets, "groups": placement.num_groups,
                      "objective": placement.objective,
                      "optical": int(placement.optical),
                      "optical_lower_bound": _number(placement.lower_bound),
                      "lower_bound_kind": placement.lower_bound_kind,
                      "gap": round(float(placement.gap), 6),
                      **_copper_and_dollars(placement),
                      "candidates": {k: int(v) for k, v in placement.candidates.items()},
                      **rails.network_rows_block(topology, floor, placement),
                      "stage_seconds": {k: round(float(v), 3)
                                        for k, v in placement.stage_seconds.items()},
                      "runtime_s": round(float(sum(placement.stage_seconds.values())), 3),
                      "time_capped": bool(placement.time_capped)},
        "cables": {"network": _cable_block(cables, "network", True, cable_plan.pieces),
                   "endpoint": _cable_block(cables, "endpoint",
                                            bool(catalog.count_endpoint_cables),
                                            cable_plan.pieces),
                   "total": int(len(cables)),
                   "by_sku": cable_plan.pieces.by_sku()},
        "bom": {"lines": int(len(bom)), "spares_pct": options["spares_pct"],
                "spares": options["spares"],
                "spare_cables": int(bom.loc[bom["item"].isin(["cable", "fibre", "trunk"]),
                                            "spares"].sum()),
                "quantities": {item: int(bom.loc[bom["item"] == item, "quantity"].sum())
                               for item in boms.ITEMS if (bom["item"] == item).any()}},
        "cost": cost,
        "power": power,
        "devices": {"routers": topology.num_routers, "endpoints": n_ep,
                    "router_ports": int(topology.num_routers * router_model.radix),
                    "router_ports_used": int(cable_plan.ports["used"].sum()),
                    "router_cages": int(topology.num_routers * router_model.cage_count),
                    "router_cages_used": _cages_used(cable_plan.ports, router_model)},
    }


def _copper_and_dollars(placement: Placement) -> dict[str, Any]:
    """The placement's copper cables against the most any placement can have (the rest are
    optical whatever the placement), and its cable dollars against their lower bound."""
    def money(value):
        return None if value is None else round(float(value), 2)

    gap = placement.cost_gap
    return {"copper": placement.copper, "copper_upper_bound": placement.copper_upper_bound,
            "copper_bound_kind": placement.copper_bound_kind,
            "cable_cost": money(placement.cable_cost),
            "cable_cost_lower_bound": money(placement.cable_cost_lower_bound),
            "cable_cost_bound_kind": placement.cable_cost_bound_kind,
            "cable_cost_gap": None if gap is None else round(gap, 6)}


LENGTH_BINS_M = (1, 2, 3, 5, 10, 20, 50, 100)
"""Upper edges of the cable length histogram of summary.json (the common stock lengths)."""


def _length_distribution(lengths: np.ndarray) -> dict[str, Any]:
    """Percentiles and a histogram (``"2-3 m"``: cables longer than 2 m, at most 3 m)."""
    if not lengths.size:
        return {"p50_m": 0.0, "p90_m": 0.0, "p99_m": 0.0, "histogram": {}}
    p50, p90, p99 = np.percentile(lengths, [50, 90, 99])
    edges = np.asarray(LENGTH_BINS_M, dtype=float)
    counts = np.bincount(np.searchsorted(edges, lengths, side="left"), minlength=len(edges) + 1)
    names = [f"{lo:g}-{hi:g} m" for lo, hi in zip((0,) + LENGTH_BINS_M, LENGTH_BINS_M)]
    names.append(f"> {LENGTH_BINS_M[-1]:g} m")
    return {"p50_m": round(float(p50), 3), "p90_m": round(float(p90), 3),
            "p99_m": round(float(p99), 3),
            "histogram": {name: int(n) for name, n in zip(names, counts.tolist())}}


def _room_summary(summary: dict[str, Any], floor: Floor, within_budget: Floor,
                  placement: Placement, cables: pd.DataFrame, watts: power.PlanPower,
                  num_endpoints: int, structured_plant=None) -> None:
    """Halls and footprint, cable route kinds and lengths, power from the cabinets. A hall's
    size is its walls as the PDF and the viewer draw them
    (``planner.inputs.floor.rack_positions.hall_bounds``: widened where patch racks stand past
    the row ends): the widest and deepest hall, and the footprint summed over the halls."""
    room = floors.room_of(floor, placement.cabinet_hall, placement.cabinet_row,
                          placement.cabinet_col)
    racks = None if structured_plant is None else structured_plant.racks
    sizes = []
    for hall in range(room.halls):
        mine = None if racks is None else racks[racks["hall"] == hall]
        x0, y0, x1, y1 = hall_bounds(room, mine)
        sizes.append((x1 - x0, y1 - y0))
    widths, depths = np.array(sizes, dtype=float).T
    summary["floor"].update({
        "halls": room.halls, "hall_rows": room.rows, "hall_cabinets_per_row": room.cols,
        "hall_width_m": round(float(widths.max()), 3),
        "hall_depth_m": round(float(depths.max()), 3),
        "footprint_m2": round(float((widths * depths).sum()), 3),
        "cabinet_kw_budget": floor.cabinet_kw_budget,
        "router_slots_within_budget": within_budget.router_slots})
    lengths = cables["length_m"].to_numpy(float)
    kinds = cables["route_kind"].value_counts()
    summary["cables"].update({
        "longest_m": round(float(lengths.max()), 3) if lengths.size else 0.0,
        "route_kind": {kind: int(kinds.get(kind, 0)) for kind in routes.KINDS},
        "length_distribution": _length_distribution(lengths)})
    power_block = watts.summary(num_endpoints, floor.cabinet_kw_budget)
    power_block["per_router_port_w"] = summary["power"]["per_router_port_w"]
    summary["power"] = power_block


def _per_tbps(total_cost: float, perf: dict) -> float | None:
    """Dollars per Tb/s of delivered uniform bandwidth (θ·N·port rate); a lower bound on the
    true figure when θ is an upper bound."""
    tbps = perf["uniform"].get("delivered_tbps")
    return round(total_cost / tbps, 2) if tbps else None


def _cages_used(ports: pd.DataFrame, router_model: RouterModel) -> int:
    """Cages holding at least one used port (a cage serves ``breakout`` consecutive ports)."""
    used = ports.loc[ports["used"], ["device", "port"]]
    cage = (used["port"].to_numpy(np.int64) - 1) // router_model.breakout
    device = pd.factorize(used["device"])[0].astype(np.int64)
    return int(np.unique(device * router_model.cage_count + cage).size)


def _number(value: float):
    value = float(value)
    return int(value) if value.is_integer() else round(value, 6)


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in params.items():
        if isinstance(value, np.generic):
            value = value.item()
        elif isinstance(value, (tuple, np.ndarray)):
            value = list(np.asarray(value).tolist())
        elif isinstance(value, Path):
            value = str(value)
        out[str(key)] = value
    return out


class _CallableModule(types.ModuleType):
    """This module, callable as ``plan``."""

    def __call__(self, *args, **kwargs) -> Plan:
        return plan(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
