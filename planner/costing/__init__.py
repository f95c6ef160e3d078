"""Cost and power of a plan: routers, cables, SerDes, active cable ends, NICs.

Takes the placed ``Topology``, the ``CablePlan`` and the ``Catalog``; hands on the bill of
materials (``bom``: one line per orderable part with spares), the power of every router,
endpoint and cabinet (``power``) and the totals of ``summary.json`` (this module).

Model (docs/models.md "Cost" and "Power"): cost = Σ router price(ports) + Σ link part prices +
NIC price per endpoint (catalogs with a ``nic`` model); power (``planner.costing.power``) = Σ router
base + SerDes (ports × lanes × W/lane) + Σ watts drawn at the two ends of every link
(transceivers, active cable ends; 0 for passive DAC) + server and NIC watts per endpoint
(Galaxyfly §6.3 adds 10 W). With the ``sc14-40g`` catalog in paper mode, router-router cables
only, and ``ports`` = the topology radix on every router, this is exactly Projective Networks
§5.3:
``C_node = [N_r·(350.4·R − 892.3) + 40·(0.985·E + c̄_o·O)] / T``, ``W_node = 2.8·R·N_r / T``.
A plan's cost is read from its bill of materials (``planner.costing.bom``), which counts whole
parts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from planner.inputs.catalog import CableModel, Catalog, RouterModel


def router_cost(model: RouterModel, ports):
    """Price of one router with ``ports`` ports (scalar or per-router array)."""
    return model.price(ports)


def serdes_power_w(model: RouterModel, ports):
    """SerDes power of one router: ports × lanes_per_port × watts_per_lane."""
    from planner.costing import power     # on use: the package stays light to import

    return power.serdes_watts(model, ports)


def cable_cost(model: CableModel, order_length_m):
    """Price of one cable of the given ordered length (scalar or array)."""
    return model.price(order_length_m)


def cable_power_w(catalog: Catalog, part_index) -> float:
    """Power at both ends of router-router links built from the chosen parts (an assembly's
    ``watts_per_end`` per link end, a transceiver's module power per port it serves)."""
    from planner.costing import power

    return power.cable_power_w(catalog, part_index)


@dataclass(frozen=True)
class Totals:
    """Cost ($) and power (W) of a plan, in total and per endpoint."""

    routers: float
    cables: float
    nics: float
    total: float
    per_endpoint: float
    router_w: float
    cable_w: float
    nic_w: float
    total_w: float
    per_endpoint_w: float
    endpoint_w: float = 0.0

    def summary(self) -> dict[str, dict[str, float]]:
        """The ``cost`` and ``power`` blocks of summary.json (rounded to cents / milliwatts)."""
        d = asdict(self)
        return {
            "cost": {k: round(d[k], 2) for k in ("routers", "cables", "nics", "total", "per_endpoint")},
            "power": {"routers_w": round(self.router_w, 3), "cables_w": round(self.cable_w, 3),
                      "endpoints_w": round(self.endpoint_w, 3),
                      "nics_w": round(self.nic_w, 3), "total_w": round(self.total_w, 3),
                      "per_endpoint_w": round(self.per_endpoint_w, 3)},
        }


def totals(catalog: Catalog, router_model: RouterModel, router_ports, num_endpoints: int,
           cable_prices, cable_skus=None, num_routers: int | None = None,
           cable_watts: float | None = None) -> Totals:
    """Totals of a plan.

    router_ports: ports billed and powered per router: an int (times ``num_routers``) or an
        array with one entry per router (the papers use the topology radix for every router).
    cable_prices: price of every costed link (``choose_media``'s third output), or the bill of
        materials' cable, optics and fibre total.
    cable_skus: the chosen part index of every router-router link, for their end power
        (optional); ``cable_watts`` gives the end power of all links directly instead.
    """
    ports = np.asarray(router_ports, dtype=float)
    if ports.ndim == 0:
        if num_routers is None:
            raise ValueError("num_routers is needed when router_ports is a scalar")
        ports = np.full(int(num_routers), float(ports))
    routers = float(np.sum(router_model.price(ports))) if ports.size else 0.0
    cables = float(np.sum(np.asarray(cable_prices, dtype=float)))
    from planner.costing import power

    router_w = float(np.sum(power.router_watts(router_model, ports))) if ports.size else 0.0
    if cable_watts is not None:
        cable_w = float(cable_watts)
    else:
        cable_w = cable_power_w(catalog, cable_skus) if cable_skus is not None else 0.0
    nics, nic_w = catalog.nic_price * num_endpoints, catalog.nic_watts * num_endpoints
    endpoint_w = catalog.endpoint_watts * num_endpoints
    total, total_w = routers + cables + nics, router_w + cable_w + nic_w + endpoint_w
    per = 1.0 / num_endpoints if num_endpoints else 0.0
    return Totals(routers=routers, cables=cables, nics=nics, total=total, per_endpoint=total * per,
                  router_w=router_w, cable_w=cable_w, nic_w=nic_w, total_w=total_w,
                  per_endpoint_w=total_w * per, endpoint_w=endpoint_w)
