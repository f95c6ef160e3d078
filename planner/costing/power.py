"""Power of a plan: every router, endpoint and cabinet, and the floor's kW budget per cabinet.

Model (the Slim Fly / Projective Networks power model, extended by the parts a real cabinet
draws):

- a router draws ``base_watts`` (chassis: fans, CPU, ASIC core) + ports × ``lanes_per_port`` ×
  ``watts_per_lane`` (SerDes) + the ``watts_per_end`` of every transceiver or active cable end
  plugged into it (the ``a_watts`` / ``b_watts`` columns of ``Plan.cables``). The SerDes term
  bills every port of the topology's radix on every router, as Besta & Hoefler (SC14) and
  Camarero et al. (Projective Networks §5.3: W_node = 2.8·R·N_r / T) do; with ``base_watts``
  = 0 and passive cables that is exactly their model;
- an endpoint draws ``catalog.endpoint_watts`` (the server) + its NIC's ``watts`` (Galaxyfly
  §6.3 adds 10 W per NIC) + the cable end plugged into the NIC;
- a cabinet draws what its routers and their endpoints draw (endpoints sit in their router's
  cabinet). The plan's total is the sum over cabinets;
- where the endpoints are the NICs of a catalog server model (``Placement.server_cabinet``) a
  server draws its data sheet's maximum system power (NICs included) plus the cable ends in
  its NICs, in its own compute cabinet (docs/catalogs.md "Server models").

A floor's ``cabinet_kw_budget`` caps every cabinet. Before placement ``fit_budget`` lowers the
floor's router slots until the heaviest routers that could share a cabinet, each with its
endpoints and with every network port carrying the catalog's most power-hungry cable end, stay
within the budget; when one router with its endpoints alone exceeds it, the plan cannot be
built (InputError naming the budget and the load). After cabling ``check_budget`` verifies the
real cabinet loads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.cabling import endpoint_routers
from planner.inputs.catalog import Catalog, RouterModel
from planner.inputs.catalog.servers import server_model_for
from planner.inputs.floor import Floor
from planner.inputs.parts.media import end_share
from planner.run.errors import InputError


def serdes_watts(model: RouterModel, ports):
    """SerDes power of a router with ``ports`` ports: ports × lanes_per_port × watts_per_lane."""
    return model.power_w(ports)


def router_watts(model: RouterModel, ports):
    """Power of a router without its cable ends: base_watts + SerDes of ``ports`` ports."""
    return model.base_watts + serdes_watts(model, ports)


def endpoint_watts(catalog: Catalog) -> float:
    """Power of one endpoint without its cable end: the server plus its NIC."""
    return catalog.endpoint_watts + catalog.nic_watts


def cable_end_watts(catalog: Catalog, part_index) -> np.ndarray:
    """Watts at one end of each link built from the chosen part (``media.end_share``: an
    assembly's ``watts_per_end`` per link it carries, a transceiver's module power per port)."""
    per_end = np.array([end_share(m) for m in catalog.cables], dtype=float)
    return per_end[np.asarray(part_index, dtype=np.int64)]


def cable_power_w(catalog: Catalog, part_index) -> float:
    """Both ends of every given router-router link (0 for passive DAC)."""
    return float(2.0 * cable_end_watts(catalog, part_index).sum())


# ----------------------------------------------------------------------------- a plan

@dataclass(frozen=True)
class PlanPower:
    """Watts of every device and kW of every cabinet, and the totals of ``summary.json``."""

    router_w: np.ndarray      # (R,) incl. the cable ends plugged into the router
    endpoint_w: np.ndarray    # (N,) server + NIC + the cable end plugged into the NIC
    cabinet_kw: np.ndarray    # (C,)
    routers_w: float          # base + SerDes of all routers
    cables_w: float           # every cable end
    endpoints_w: float        # servers
    nics_w: float
    server_kw: np.ndarray | None = None   # (C,) the servers' share of cabinet_kw (None: none)

    @property
    def network_kw(self) -> np.ndarray:
        """(C,) kW of each cabinet without its servers: what the fabric's PDUs carry (a
        compute cabinet's servers are on its own PDUs, ``planner.costing.fabric``)."""
        return self.cabinet_kw if self.server_kw is None else self.cabinet_kw - self.server_kw

    def with_servers(self, network_kw) -> np.ndarray:
        """(C,) cabinet kW: ``network_kw`` (the fabric's, its boxes included) plus the
        servers'."""
        kw = np.asarray(network_kw, dtype=float)
        return kw if self.server_kw is None else kw + self.server_kw

    @property
    def total_w(self) -> float:
        return self.routers_w + self.cables_w + self.endpoints_w + self.nics_w

    def summary(self, num_endpoints: int, budget_kw: float | None) -> dict[str, float | None]:
        """The ``power`` block of summary.json (watts to the milliwatt, kW to the watt)."""
        total = float(self.cabinet_kw.sum()) * 1000.0
        return {"routers_w": round(self.routers_w, 3), "cables_w": round(self.cables_w, 3),
                "endpoints_w": round(self.endpoints_w, 3), "nics_w": round(self.nics_w, 3),
                "total_w": round(total, 3),
                "per_endpoint_w": round(total / num_endpoints, 3) if num_endpoints else 0.0,
                "peak_cabinet_kw": round(float(self.cabinet_kw.max(initial=0.0)), 3),
                "mean_cabinet_kw": round(float(self.cabinet_kw.mean()), 3)
                if self.cabinet_kw.size else 0.0,
                "cabinet_kw_budget": budget_kw}


def plan_power(topology, catalog: Catalog, router_model: RouterModel, cables: pd.DataFrame,
               router_cabinet, num_cabinets: int, server_cabinet=None) -> PlanPower:
    """Power of every router, endpoint and cabinet of a cabled plan (module doc). With
    ``server_cabinet`` (the endpoints are NICs of servers, ``Placement.server_cabinet``)
    ``endpoint_w`` is per server and the servers draw in their own cabinets."""
    if server_cabinet is not None:
        return _server_plan_power(topology, catalog, router_model, cables, router_cabinet,
                                  num_cabinets, np.asarray(server_cabinet, dtype=np.int64))
    n_e = topology.num_endpoints
    base, plugged, ep, ep_w, cables_w = _cable_ends(topology, router_model, cables)
    ep_end = np.bincount(ep, weights=ep_w, minlength=n_e)
    server = np.full(n_e, catalog.endpoint_watts)
    nic = np.full(n_e, catalog.nic_watts)
    router_w = base + plugged
    endpoint_w = server + nic + ep_end
    cab = np.asarray(router_cabinet, dtype=np.int64)
    ep_router = endpoint_routers(topology)
    cabinet_w = (np.bincount(cab, weights=router_w, minlength=num_cabinets)
                 + np.bincount(cab[ep_router], weights=endpoint_w, minlength=num_cabinets))
    return PlanPower(router_w=router_w, endpoint_w=endpoint_w, cabinet_kw=cabinet_w / 1000.0,
                     routers_w=float(base.sum()), cables_w=cables_w,
                     endpoints_w=float(server.sum()), nics_w=float(nic.sum()))


def _cable_ends(topology, router_model, cables):
    """(each router's own draw, the cable ends plugged into each router, the endpoint of every
    endpoint cable, the watts of its endpoint end, every cable end's watts summed)."""
    n_r = topology.num_routers
    a_router = cables["a_router"].to_numpy(np.int64)
    b_router = cables["b_router"].to_numpy(np.int64)
    b_endpoint = cables["b_endpoint"].to_numpy(np.int64)
    a_w, b_w = cables["a_watts"].to_numpy(float), cables["b_watts"].to_numpy(float)
    to_router = b_router >= 0
    plugged = (np.bincount(a_router, weights=a_w, minlength=n_r)
               + np.bincount(b_router[to_router], weights=b_w[to_router], minlength=n_r))
    base = np.full(n_r, router_watts(router_model, topology.radix))
    return (base, plugged, b_endpoint[~to_router], b_w[~to_router],
            float(a_w.sum() + b_w.sum()))


def _server_plan_power(topology, catalog, router_model, cables, router_cabinet, num_cabinets,
                       server_cabinet) -> PlanPower:
    """``plan_power`` when every endpoint is a NIC of a server of the catalog's server model:
    a server draws its data sheet's maximum power (``servers.body_watts`` + its NICs) plus the
    cable ends plugged into its NICs, in its own cabinet."""
    from planner.inputs.catalog.servers import body_watts, server_model_for
    from planner.topologies.servers import nic_endpoints

    model = server_model_for(catalog, topology)
    n_s = len(server_cabinet)
    base, plugged, ep, ep_w, cables_w = _cable_ends(topology, router_model, cables)
    _, server_of, _ = nic_endpoints(topology)
    ends = np.bincount(server_of[ep], weights=ep_w, minlength=n_s)
    body = np.full(n_s, body_watts(catalog, model))
    nics = np.full(n_s, model.nics * catalog.nic_watts)
    router_w, server_w = base + plugged, body + nics + ends
    cab = np.asarray(router_cabinet, dtype=np.int64)
    in_servers = np.bincount(server_cabinet, weights=server_w, minlength=num_cabinets)
    cabinet_w = np.bincount(cab, weights=router_w, minlength=num_cabinets) + in_servers
    return PlanPower(router_w=router_w, endpoint_w=server_w, cabinet_kw=cabinet_w / 1000.0,
                     routers_w=float(base.sum()), cables_w=cables_w,
                     endpoints_w=float(body.sum()), nics_w=float(nics.sum()),
                     server_kw=in_servers / 1000.0)


# ----------------------------------------------------------------------------- the budget

def _router_loads_w(floor: Floor, topology, catalog: Catalog, router_model: RouterModel,
                    endpoint_cables: bool) -> np.ndarray:
    """Most each router with its endpoints can draw: every network port with the catalog's
    most power-hungry cable end, endpoint cables with the model their (known) length gets."""
    from planner.inputs.parts.media import choose_parts, end_watts

    worst_end = max(end_share(m) for m in catalog.cables)
    ep_cable = 0.0
    if endpoint_cables:
        length = floor.intra_cabinet_m * (1.0 + floor.slack_pct / 100.0)
        try:
            parts = choose_parts(catalog, floor, [round(length, 3)], [True],
                                 router=router_model, endpoint=True)
            a_w, b_w = end_watts(catalog, parts)
            ep_cable = float(a_w[0] + b_w[0])
        except InputError:
            ep_cable = 2.0 * worst_end
    ep = np.asarray(topology.endpoints, dtype=float)
    degree = np.asarray(topology.degree, dtype=float)
    if server_model_for(catalog, topology) is not None:   # servers stand in their own cabinets
        return router_watts(router_model, topology.radix) + (degree + ep) * worst_end
    return (router_watts(router_model, topology.radix) + degree * worst_end
            + ep * (endpoint_watts(catalog) + ep_cable))


def fit_budget(floor: Floor, topology, catalog: Catalog, router_model: RouterModel,
               endpoint_cables: bool = True) -> Floor:
    """The floor with ``router_slots`` lowered so that no cabinet can exceed
    ``cabinet_kw_budget`` (module doc); the floor itself without a budget or when its slots
    already fit. InputError when one router, or one router with its endpoints, exceeds it."""
    if floor.cabinet_kw_budget is None or topology.num_routers == 0:
        return floor
    budget_w = floor.cabinet_kw_budget * 1000.0
    alone = router_watts(router_model, topology.radix)
    if alone > budget_w:
        raise InputError(f"floor '{floor.source}': field 'cabinet_kw_budget' is "
                         f"{floor.cabinet_kw_budget:g} kW but one router ({router_model.sku}, "
                         f"{topology.radix} ports) draws {alone / 1000:.3f} kW; raise "
                         f"cabinet_kw_budget to at least {alone / 1000:.3f}")
    loads = np.sort(_router_loads_w(floor, topology, catalog, router_model,
                                    endpoint_cables))[::-1]
    if loads[0] > budget_w:
        worst = int(np.argmax(_router_loads_w(floor, topology, catalog, router_model,
                                              endpoint_cables)))
        raise InputError(f"floor '{floor.source}': field 'cabinet_kw_budget' is "
                         f"{floor.cabinet_kw_budget:g} kW but router {worst} with its "
                         f"{int(topology.endpoints[worst])} endpoints can draw "
                         f"{loads[0] / 1000:.3f} kW, and a router's endpoints share its "
                         f"cabinet; raise cabinet_kw_budget to at least "
                         f"{loads[0] / 1000:.3f} or attach fewer endpoints per router")
    fits = int(np.searchsorted(np.cumsum(loads), budget_w + 1e-9, side="right"))
    if fits >= floor.router_slots:
        return floor
    return floor.model_copy(update={"router_slots": fits})


def check_budget(floor: Floor, cabinet_names, cabinet_kw) -> None:
    """InputError naming the cabinet, its load and the budget when a cabinet exceeds it."""
    if floor.cabinet_kw_budget is None or not len(cabinet_kw):
        return
    kw = np.asarray(cabinet_kw, dtype=float)
    worst = int(np.argmax(kw))
    if kw[worst] > floor.cabinet_kw_budget + 1e-9:
        raise InputError(f"floor '{floor.source}': cabinet {cabinet_names[worst]} draws "
                         f"{kw[worst]:.3f} kW, above field 'cabinet_kw_budget' "
                         f"{floor.cabinet_kw_budget:g} kW; put fewer routers in it or raise "
                         "cabinet_kw_budget")
