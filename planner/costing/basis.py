"""The price basis of every BOM line: estimate, list or quote, with its source, date and
currency (``planner.inputs.catalog.pricing.PriceBasis``), and the share of a total each basis
makes up.

A line takes the basis of the catalog entry it was priced from (found by its part number),
else the catalog's own ``price_basis``. ``planner reprice`` marks the lines a quote priced
``quote`` (``planner.costing.reprice.repriced_bom``).
"""

from __future__ import annotations

import pandas as pd

from planner.inputs.catalog import Catalog, RouterModel

COLUMNS = ["basis", "price_source", "price_date", "currency"]
"""The BOM's price-basis columns, after ``planner.costing.bom.COLUMNS``."""


def _models_by_part_number(catalog: Catalog, router_model: RouterModel) -> dict[str, object]:
    """Every part number the catalog can put on a BOM line -> the entry it is priced from."""
    out: dict[str, object] = {}
    for model in catalog.cables:
        out[model.sku] = model
        for length in model.stock_lengths:
            out[model.part_number(length)] = model
    for model in [*catalog.panels, *catalog.rack_hardware, catalog.nic, router_model.licence]:
        if model is not None:
            out[model.sku] = model
    out[router_model.sku] = router_model
    return out


def attach(bom: pd.DataFrame, catalog: Catalog, router_model: RouterModel) -> pd.DataFrame:
    """The BOM with its price-basis columns, from the catalog entry of each line."""
    models = _models_by_part_number(catalog, router_model)
    bases = [catalog.basis_of(models.get(sku)) for sku in bom["sku"].tolist()]
    return bom.assign(basis=[b.basis for b in bases], price_source=[b.source for b in bases],
                      price_date=[b.date for b in bases], currency=[b.currency for b in bases])


def shares(bom: pd.DataFrame) -> dict[str, float]:
    """Fraction of the BOM total (extended prices) per basis, each of ``estimate``, ``list``
    and ``quote`` (0 when the total is 0); lines without a basis count as estimates."""
    total = float(bom["extended_price"].sum())
    basis = bom["basis"].fillna("estimate") if "basis" in bom else \
        pd.Series("estimate", index=bom.index)
    by = bom["extended_price"].groupby(basis.to_numpy()).sum()
    return {name: round(float(by.get(name, 0.0)) / total, 6) if total else 0.0
            for name in ("estimate", "list", "quote")}


def summary(bom: pd.DataFrame, default) -> dict:
    """The ``cost.price_basis`` block of summary.json: the share of the total per basis, the
    currency, and the catalog's default basis, source and date (``default``, a
    ``PriceBasis``)."""
    return {"shares": shares(bom), "currency": default.currency, "default": default.basis,
            "source": default.source, "date": default.date}


def sentence(block: dict) -> str:
    """The ``cost.price_basis`` block in plain words: "100.0 % of the total is estimated
    (<source>, <date>); 0.0 % list prices, 0.0 % quoted; prices in USD"."""
    shares_ = block.get("shares", {})
    who = ", ".join(t for t in (block.get("source", ""), block.get("date", "")) if t)
    return (f"{100 * shares_.get('estimate', 1.0):.1f} % of the total is estimated"
            f"{' (' + who + ')' if who else ''}; {100 * shares_.get('list', 0.0):.1f} % list "
            f"prices, {100 * shares_.get('quote', 0.0):.1f} % quoted; prices in "
            f"{block.get('currency', 'USD')}")
