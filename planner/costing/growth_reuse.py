"""The fabric lines a standing system already has, for the bill of a growth (docs/growth.md
"Outputs"): its subnet manager, management switches and cords, PDUs and power cords, and the
support of its boxes, counted by ``planner.costing.fabric`` on the standing layout.

Takes the grown plan (``planner.plan.Plan``), the cabinet of every standing router (index into
the standing cabinets), the standing cabinets' positions and the grown id of every standing
router (-1: removed); hands on the standing fabric's BOM lines (``planner.costing.fabric``'s
columns). ``planner expand`` counts, per line of the grown bill, min(grown, standing) of them
as reused:

- PDUs and power cords: those of the standing cabinets and devices stand; new ones are those
  the grown plan needs beyond them (new cabinets, new routers in standing cabinets).
- management switches: the standing ones stay; new ones only where the grown system needs
  more ports than they have. Cords: per stock length, the standing ones are reused.
- subnet manager: the standing boxes and licences are reused; a grown fabric that needs more
  (a licence per switch or endpoint) buys the difference.
- support and NOS subscriptions: those of the standing switches and boxes are already
  contracted (reused); the new boxes' are new.

A standing cabinet's kW (the load its PDUs were sized for) is its standing routers' and their
endpoints' draw as the grown plan gives it; a router the growth removes (``--allow-remove``)
draws its base power (``planner.costing.power.router_watts``) and its endpoints nothing. The cable ends the growth adds to a standing router
count in it, a few watts per port: a cabinet whose standing PDU count was set by load right at
a PDU's derated rating could be counted one PDU too many as standing.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from planner.cabling import endpoint_routers
from planner.costing import fabric, power


def standing_kw(result, router_cabinet, num_cabinets: int, old_to_new,
                standing_endpoints) -> np.ndarray:
    """(C,) kW of each standing cabinet without its fabric boxes (module doc)."""
    top = result.topology
    n_r = int(top.num_routers)
    watts = result.devices["watts"].to_numpy(float)
    router_w = watts[:n_r]
    old_to_new = np.asarray(old_to_new, dtype=np.int64)
    alive = old_to_new >= 0
    own = np.full(len(old_to_new), float(power.router_watts(result.router_model, top.radix)))
    own[alive] = router_w[old_to_new[alive]]
    ends = np.zeros(len(old_to_new))
    if result.placement.server_cabinet is None:    # servers stand on their own PDUs
        per_router = np.bincount(endpoint_routers(top), weights=watts[n_r:],
                                 minlength=n_r)
        count = np.asarray(top.endpoints, dtype=float)
        mean = np.divide(per_router, count, out=np.zeros(n_r), where=count > 0)
        ends[alive] = mean[old_to_new[alive]] * np.asarray(standing_endpoints)[alive]
    cab = np.asarray(router_cabinet, dtype=np.int64)
    return np.bincount(cab, weights=own + ends, minlength=num_cabinets) / 1000.0


def standing_fabric(result, router_cabinet, positions, old_to_new,
                    standing_endpoints) -> pd.DataFrame:
    """The standing system's fabric lines (module doc). ``positions`` is (hall, row, column)
    of every standing cabinet, 0-based; ``standing_endpoints`` the endpoints of every standing
    router."""
    hall, row, col = (np.asarray(p, dtype=np.int64) for p in positions)
    layout = SimpleNamespace(num_cabinets=len(hall), cabinet_hall=hall, cabinet_row=row,
                             cabinet_col=col,
                             router_cabinet=np.asarray(router_cabinet, dtype=np.int64))
    kw = standing_kw(result, router_cabinet, len(hall), old_to_new, standing_endpoints)
    lines, _ = fabric.build(result.catalog, result.router_model, layout, result.floor, kw,
                            int(np.asarray(standing_endpoints).sum()))
    return lines[lines["quantity"] > 0].reset_index(drop=True)
