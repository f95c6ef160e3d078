"""Bill of materials: one line per router model and per cable SKU × ordered stock length.

Lines (ecosystem.md §6-§8: grouped by part and stock length, spares as their own column):

- ``router``: the chosen router model, quantity = routers, priced with ``costing.router_cost``
  at the ports the topology uses (its radix, on every router: the papers' rule, cost_models A2);
- ``cable``: one line per (SKU, ordered length, unit price) over the costed cables: all
  router-router cables, plus the router-endpoint cables when the catalog counts them
  (``count_endpoint_cables``; the papers do not, cost_models C1).

``spares = ceil(quantity × spares_pct / 100)`` on cable lines (cables are the consumable:
"+10 % per line item" of the cabling tools in ecosystem.md §6-§7; whole spare routers are a
separate procurement decision and are not added). ``extended_price = (quantity + spares) ×
unit_price``. A catalog with a ``nic`` model adds a ``nic`` line, one per endpoint, after the
router line. Transceivers are not separate parts: a ``transceiver``-kind cable model is one
assembly (two optics + fibre) priced per link, so it is a cable line.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from planner import costing
from planner.catalog import Catalog, RouterModel

COLUMNS = ["item", "sku", "description", "length_m", "quantity", "spares", "unit_price",
           "extended_price"]


def spares_for(quantity, spares_pct: float) -> np.ndarray:
    """``ceil(quantity * spares_pct / 100)`` (integer arithmetic on the percentage's cents so
    that e.g. 100 × 10 % is exactly 10)."""
    q = np.asarray(quantity, dtype=np.int64)
    hundredths = int(round(float(spares_pct) * 100))
    return -((-q * hundredths) // 10_000)


def costed_mask(cables: pd.DataFrame, catalog: Catalog) -> np.ndarray:
    """Cables that are bought and priced: network always, endpoint when the catalog counts them."""
    network = cables["kind"].to_numpy() == "network"
    return network | bool(catalog.count_endpoint_cables)


def build(catalog: Catalog, router_model: RouterModel, router_ports: int, num_routers: int,
          cables: pd.DataFrame, spares_pct: float = 0.0, num_endpoints: int = 0) -> pd.DataFrame:
    """The BOM table (``COLUMNS``): the router line first, the NIC line (catalogs with a NIC
    model), then cables by media, SKU, length."""
    if not (0 <= spares_pct <= 1000) or math.isnan(spares_pct):
        raise ValueError(f"spares_pct must be within 0..1000, got {spares_pct}")
    unit = float(costing.router_cost(router_model, router_ports))
    lines = [dict(item="router", sku=router_model.sku,
                  description=router_model.description or f"{router_model.vendor} router",
                  length_m=np.nan, quantity=int(num_routers), spares=0, unit_price=unit)]
    if catalog.nic is not None:
        lines.append(dict(item="nic", sku=catalog.nic.sku,
                          description=catalog.nic.description or f"{catalog.nic.vendor} NIC",
                          length_m=np.nan, quantity=int(num_endpoints), spares=0,
                          unit_price=float(catalog.nic.price)))
    bought = cables.loc[costed_mask(cables, catalog), ["sku", "order_length_m", "unit_price"]]
    if len(bought):
        grouped = (bought.groupby(["sku", "order_length_m", "unit_price"], sort=False)
                   .size().rename("quantity").reset_index())
        models = {m.sku: (i, m) for i, m in enumerate(catalog.cables)}
        grouped["media_order"] = [0 if models[s][1].media == "electrical" else 1
                                  for s in grouped["sku"]]
        grouped["catalog_order"] = [models[s][0] for s in grouped["sku"]]
        grouped = grouped.sort_values(["media_order", "catalog_order", "order_length_m",
                                       "unit_price"], kind="stable")
        spares = spares_for(grouped["quantity"].to_numpy(), spares_pct)
        for (sku, length, price, qty), spare in zip(
                grouped[["sku", "order_length_m", "unit_price", "quantity"]]
                .itertuples(index=False, name=None), spares):
            model = models[sku][1]
            lines.append(dict(item="cable", sku=sku,
                              description=model.description or f"{model.kind} {model.media}",
                              length_m=float(length), quantity=int(qty), spares=int(spare),
                              unit_price=float(price)))
    bom = pd.DataFrame(lines, columns=COLUMNS[:-1])
    bom["quantity"] = bom["quantity"].astype(np.int64)
    bom["spares"] = bom["spares"].astype(np.int64)
    bom["extended_price"] = (bom["quantity"] + bom["spares"]) * bom["unit_price"]
    return bom[COLUMNS]
