"""``plan(...) -> Plan``: topology + catalog + floor -> placement, every cable, BOM and summary.

Stages (DESIGN.md "Data flow"), each a pure function of the previous values:
router model (``catalog.router_for(topology.radix)``) -> placement (``planner.placement.place``)
-> cabling (``planner.cabling.build``) -> costing (``planner.bom.build`` + ``planner.costing``)
-> summary (the dict that ``summary.json`` holds). Nothing is written to disk here; the
``planner plan`` command hands the ``Plan`` to the writers in ``planner/exports``.

The module itself is callable, so ``import planner.plan`` then ``planner.plan(...)`` is the same
as ``planner.plan.plan(...)`` (the issue's ``planner.plan(...) -> Plan``).
"""

from __future__ import annotations

import sys
import time
import types
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import planner
from planner import bom as boms
from planner import cabling, costing, guards
from planner import floor as floors
from planner.catalog import Catalog, RouterModel, load_catalog
from planner.errors import InputError
from planner.floor import Floor, load_floor
from planner.output import restore_ctrl_c
from planner.placement.result import Placement
from planner.spec import DEFAULT_TIME_LIMIT_S
from planner.topologies.base import Topology

STRATEGIES = ("hint", "partition", "optimize")


@dataclass(frozen=True, eq=False)
class Plan:
    """Everything ``planner plan`` knows about one system (INTERFACES.md).

    cables:   one row per physical cable: ``cabling.CSV_COLUMNS`` then ``cabling.EXTRA_COLUMNS``.
    devices:  name, kind ("router" | "endpoint"), id, cabinet, ru, height_ru, model.
    cabinets: name, row, col, group, x_m, y_m, routers, endpoints, ru_used.
    ports:    one row per router port 1..radix: device, port, used, peer_device, peer_port,
              cable_id, label.
    bom:      item, sku, description, length_m, quantity, spares, unit_price, extended_price,
              vendor (``planner.bom``).
    summary:  exactly what summary.json holds.
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


class _Stages:
    """Wall time per stage, and a tqdm bar over the stages when ``progress`` is on."""

    def __init__(self, names: list[str], progress: bool):
        self.seconds: dict[str, float] = {}
        self.bar = None
        if progress:
            from planner.output import progress_bar
            self.bar = progress_bar(len(names), "plan")

    @contextmanager
    def run(self, name: str):
        if self.bar is not None:
            self.bar.set_description_str(f"plan: {name}")
        start = time.perf_counter()
        yield
        self.seconds[name] = time.perf_counter() - start
        if self.bar is not None:
            self.bar.update(1)

    def close(self):
        if self.bar is not None:
            self.bar.set_description_str("plan: done")
            self.bar.close()


def _as_topology(topology) -> Topology:
    if isinstance(topology, Topology):
        return topology
    from planner.topologies import parse_spec
    return parse_spec(str(topology))


def _as_catalog(catalog) -> Catalog:
    return catalog if isinstance(catalog, Catalog) else load_catalog(catalog)


def _as_floor(floor) -> Floor:
    return floor if isinstance(floor, Floor) else load_floor(floor)


def check_options(strategy: str, time_limit_s: float, spares_pct: float) -> None:
    """InputError for a bad strategy, time limit or spares percentage."""
    if strategy not in STRATEGIES:
        raise InputError(f"--strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if not (isinstance(time_limit_s, (int, float)) and np.isfinite(time_limit_s)
            and time_limit_s > 0):
        raise InputError(f"--time-limit must be a positive number of seconds, got {time_limit_s!r}")
    if not (isinstance(spares_pct, (int, float)) and 0 <= spares_pct <= 1000):
        raise InputError(f"--spares must be a percentage within 0..1000, got {spares_pct!r}")


def plan(topology: Topology | str, catalog: Catalog | str, floor: Floor | str, *,
         strategy: str = "optimize", time_limit_s: float = DEFAULT_TIME_LIMIT_S, seed: int = 0,
         group_endpoints: int | None = None, endpoint_cables: bool = True,
         spares_pct: float = 0.0, progress: bool = False,
         placement: Placement | None = None, spares: boms.Spares | None = None) -> Plan:
    """Plan a system without writing files.

    ``topology`` / ``catalog`` / ``floor`` are values or names (``"slimfly:q=19,p=15"``,
    ``"modern-100g"``, ``"hot-aisle"``). ``placement`` skips the placement stage and uses the
    given layout (hand-made layouts, re-costing a layout under another catalog). ``spares``
    gives a spare percentage per class (switches, optics, cables); ``spares_pct`` alone is
    the cables' percentage.
    """
    started = time.perf_counter()
    topology, catalog, floor = _as_topology(topology), _as_catalog(catalog), _as_floor(floor)
    check_options(strategy, time_limit_s, spares_pct)
    if spares is None:
        spares = boms.Spares(cables=float(spares_pct))
    if group_endpoints is not None:
        floor = floor.with_group_endpoints(group_endpoints)
    if topology.num_routers == 0:
        raise InputError(f"topology '{topology.family}' has no routers; nothing to plan")
    router_model = catalog.router_for(topology.radix)
    guards.check_counts(f"topology '{_describe(topology)}'", topology.num_links,
                        topology.num_endpoints, topology.num_routers, router_model.radix,
                        endpoint_cables)
    floors.check_capacity(floor, topology, router_model)

    stages = _Stages(["placement", "cabling", "costing", "summary"], progress)
    try:
        with stages.run("placement"):
            if placement is None:
                from planner.placement import place
                placement = place(topology, floor, catalog, strategy=strategy,
                                  time_limit_s=time_limit_s, seed=seed,
                                  group_endpoints=group_endpoints)
                restore_ctrl_c()  # CP-SAT leaves SIGINT at the OS default
        with stages.run("cabling"):
            cable_plan = cabling.build(topology, placement, floor, catalog, router_model,
                                       endpoint_cables=endpoint_cables)
        with stages.run("costing"):
            bom = boms.build(catalog, router_model, topology.radix, topology.num_routers,
                             cable_plan.cables, spares, topology.num_endpoints,
                             placement.num_cabinets)
            totals = _totals(catalog, router_model, topology, cable_plan.cables, bom)
        with stages.run("summary"):
            summary = _summary(topology, catalog, floor, placement, router_model, cable_plan,
                               bom, totals, dict(strategy=strategy, seed=seed,
                                                 time_limit_s=time_limit_s,
                                                 endpoint_cables=endpoint_cables,
                                                 spares_pct=spares.cables,
                                                 spares=spares.as_dict()))
    finally:
        stages.close()
    summary["runtime"] = {f"{k}_s": round(v, 3) for k, v in stages.seconds.items()}
    summary["runtime"]["total_s"] = round(time.perf_counter() - started, 3)
    return Plan(topology=topology, catalog=catalog, floor=floor, placement=placement,
                router_model=router_model, cables=cable_plan.cables, devices=cable_plan.devices,
                cabinets=cable_plan.cabinets, ports=cable_plan.ports, bom=bom, summary=summary)


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


def _cable_block(cables: pd.DataFrame, kind: str, costed: bool) -> dict[str, Any]:
    part = cables[cables["kind"] == kind]
    media = part["media"].to_numpy()
    return {"count": int(len(part)),
            "electrical": int(np.sum(media == "electrical")),
            "optical": int(np.sum(media == "optical")),
            "length_m": round(float(part["length_m"].sum()), 3),
            "order_length_m": round(float(part["order_length_m"].sum()), 3),
            "max_length_m": round(float(part["length_m"].max()), 3) if len(part) else 0.0,
            "costed": costed}


def _summary(topology, catalog, floor, placement, router_model, cable_plan, bom, totals,
             options) -> dict[str, Any]:
    from planner.topologies.metrics import distance_stats
    diameter, avg_distance = distance_stats(topology)
    cables = cable_plan.cables
    money = totals.summary()
    parts = boms.class_totals(bom)
    total = float(bom["extended_price"].sum())
    n_ep = topology.num_endpoints
    cost = {"routers": round(parts["switches"], 2), "nics": round(parts["nics"], 2),
            "licences": round(parts["licences"], 2), "optics": round(parts["optics"], 2),
            "cables": round(parts["cables"], 2), "rack": round(parts["rack"], 2),
            "spares": round(parts["spares"], 2), "total": round(total, 2),
            "per_endpoint": round(total / n_ep, 2) if n_ep else 0.0,
            "router_unit": round(float(bom["unit_price"].iloc[0]), 2)}
    power = dict(money["power"])
    power["per_router_port_w"] = round(router_model.lanes_per_port * router_model.watts_per_lane, 3)
    by_sku = cables.groupby("sku", sort=True).size()
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
                    "count_endpoint_cables": catalog.count_endpoint_cables},
        "floor": floor_info,
        "options": options,
        "placement": {"strategy": placement.strategy, "method": placement.method,
                      "cabinets": placement.num_cabinets, "groups": placement.num_groups,
                      "optical": int(placement.optical),
                      "optical_lower_bound": _number(placement.lower_bound),
                      "lower_bound_kind": placement.lower_bound_kind,
                      "gap": round(float(placement.gap), 6),
                      "candidates": {k: int(v) for k, v in placement.candidates.items()},
                      "stage_seconds": {k: round(float(v), 3)
                                        for k, v in placement.stage_seconds.items()},
                      "runtime_s": round(float(sum(placement.stage_seconds.values())), 3),
                      "time_capped": bool(placement.time_capped)},
        "cables": {"network": _cable_block(cables, "network", True),
                   "endpoint": _cable_block(cables, "endpoint",
                                            bool(catalog.count_endpoint_cables)),
                   "total": int(len(cables)),
                   "by_sku": {str(k): int(v) for k, v in by_sku.items()}},
        "bom": {"lines": int(len(bom)), "spares_pct": options["spares_pct"],
                "spares": options["spares"],
                "spare_cables": int(bom.loc[bom["item"].isin(["cable", "fibre"]),
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


def _cages_used(ports: pd.DataFrame, router_model: RouterModel) -> int:
    """Cages holding at least one used port (a cage serves ``breakout`` consecutive ports)."""
    used = ports[ports["used"]]
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
