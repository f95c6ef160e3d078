"""Re-pricing a finished plan from awarded quotes, and a catalog priced from quotes.

``repriced_bom`` puts the awarded unit prices on the BOM (same lines, same quantities and
spares; ``extended_price = (quantity + spares) × unit_price``) and gives the delta table.
``link_prices`` moves every cable's unit price by its share of the change of the BOM lines it
uses (the link's own parts). ``cost_summary`` is the ``cost`` block of summary.json from a BOM. ``priced_catalog``
puts quoted prices into a catalog, for a re-plan with them (``planner plan --prices``).
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd

from planner.costing import basis
from planner.costing.bom import class_totals
from planner.costing.quotes import Award, Offer, Quote
from planner.inputs.catalog import Catalog
from planner.run.errors import InputError

DELTA_COLUMNS = ["item", "sku", "description", "length_m", "quantity", "spares", "old_unit_price",
                 "new_unit_price", "supplier", "quote", "break_qty", "delta"]
"""The delta table: per BOM line, old and new unit price, the supplier and quote line taken,
the quantity break applied (0: the base price; empty: unquoted) and Δ = (quantity + spares) ×
(new − old)."""


def repriced_bom(bom: pd.DataFrame, awards: list[Award]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the BOM at the awarded prices, the delta table)."""
    new = bom.copy()
    new["unit_price"] = [a.unit_price for a in awards]
    new["extended_price"] = (new["quantity"] + new["spares"]) * new["unit_price"]
    new = quoted_basis(new, awards)
    delta = bom[["item", "sku", "description", "length_m", "quantity", "spares"]].copy()
    delta["old_unit_price"] = bom["unit_price"].astype(float)
    delta["new_unit_price"] = new["unit_price"].astype(float)
    delta["supplier"] = [a.offer.supplier if a.offer else "" for a in awards]
    delta["quote"] = [a.offer.source if a.offer else "unquoted" for a in awards]
    delta["break_qty"] = pd.array([a.break_qty if a.offer else None for a in awards],
                                  dtype="Int64")
    delta["delta"] = new["extended_price"] - bom["extended_price"].astype(float)
    return new, delta[DELTA_COLUMNS]


def quoted_basis(bom: pd.DataFrame, awards: list[Award]) -> pd.DataFrame:
    """The BOM with the basis of every quoted line ``quote``: its source the supplier and
    quote row, its date the quote's valid-until (empty when the quote gives none); unquoted
    lines keep theirs (an older plan's BOM without basis columns counts as estimates)."""
    out = bom.copy()
    defaults = {"basis": "estimate", "price_source": "", "price_date": "", "currency": ""}
    for col, value in defaults.items():
        out[col] = out[col].fillna(value).astype(str) if col in out else value
    for i, a in enumerate(awards):
        if a.offer is None:
            continue
        out.loc[out.index[i], basis.COLUMNS] = [
            "quote", f"{a.offer.supplier}, {a.offer.source}",
            a.offer.valid_until.isoformat() if a.offer.valid_until else "", out["currency"].iloc[i]]
    return out


def unquoted(delta: pd.DataFrame) -> pd.DataFrame:
    """The delta lines no quote covered (they keep their old price)."""
    return delta[delta["quote"] == "unquoted"]


def _pieces(cables: pd.DataFrame) -> list[list[str]]:
    """Per cable, the part numbers of the cords and trunks it runs through (its ``segments``:
    ``cord 2.64 m <part> | <panel>:<port> | trunk <id> 2.64 m <part> | ...``; none when
    point to point)."""
    if "segments" not in cables.columns:
        return [[] for _ in range(len(cables))]
    out = []
    for text in cables["segments"].astype(object).fillna("").astype(str).tolist():
        out.append([piece.split()[-1] for piece in text.split("|")
                    if piece.split() and piece.split()[0] in ("cord", "trunk")])
    return out


def link_prices(cables: pd.DataFrame, old: pd.DataFrame, new: pd.DataFrame) -> np.ndarray:
    """Every cable's unit price moved by its share of the change of the BOM lines it uses; a
    line's change is Δunit × quantity, spread evenly over its uses: a cable assembly or a
    point-to-point fibre (part number and order length) over the links of that part and
    length, a cord or trunk of structured cabling over the links whose pieces name it, a
    transceiver over the link ends that name it. Switches, NICs, licences, panels and rack
    hardware are not part of a link's price."""
    price = cables["unit_price"].to_numpy(float).copy()
    change = (new["unit_price"].to_numpy(float) - old["unit_price"].to_numpy(float)) * \
        old["quantity"].to_numpy(float)
    pieces = None
    for i in np.flatnonzero(change != 0):
        item, sku, length = old["item"].iat[i], old["sku"].iat[i], old["length_m"].iat[i]
        if item in ("cable", "fibre", "trunk"):
            if pieces is None:
                pieces = _pieces(cables)
            through = np.array([p.count(sku) for p in pieces], dtype=float)
            direct = ((cables["sku"] == sku).to_numpy()
                      & np.isclose(cables["order_length_m"].to_numpy(float), float(length))
                      & (through == 0) & np.array([not p for p in pieces]))
            share = through + direct
        elif item == "transceiver":
            share = ((cables["a_transceiver"] == sku).to_numpy(float)
                     + (cables["b_transceiver"] == sku).to_numpy(float))
        else:
            continue
        if share.sum() > 0:
            price += change[i] * share / share.sum()
    return price


def cost_summary(bom: pd.DataFrame, num_endpoints: int) -> dict[str, float]:
    """The ``cost`` block of summary.json (as ``planner.plan`` builds it) from a BOM."""
    parts = class_totals(bom)
    total = float(bom["extended_price"].sum())
    return {"routers": round(parts["switches"], 2), "nics": round(parts["nics"], 2),
            "licences": round(parts["licences"], 2), "optics": round(parts["optics"], 2),
            "cables": round(parts["cables"], 2), "panels": round(parts["panels"], 2),
            "rack": round(parts["rack"], 2),
            **{k: round(parts[k], 2) for k in ("management", "power", "support")},
            "spares": round(parts["spares"], 2),
            "total": round(total, 2),
            "per_endpoint": round(total / num_endpoints, 2) if num_endpoints else 0.0,
            "router_unit": round(float(bom["unit_price"].iloc[0]), 2)}


def repriced_summary(summary: dict, bom: pd.DataFrame, note: dict) -> dict:
    """``summary`` with the cost of ``bom`` (and the cost per delivered Tb/s), plus a
    ``reprice`` block (``note``: quotes, award, unquoted lines, re-plan estimate)."""
    out = copy.deepcopy(summary)
    out["cost"] = {**out.get("cost", {}),
                   **cost_summary(bom, int(out["topology"]["endpoints"]))}
    out["cost"]["price_basis"] = {**out["cost"].get("price_basis", {}),
                                  "shares": basis.shares(bom)}
    perf = out.get("performance", {})
    tbps = perf.get("uniform", {}).get("delivered_tbps")
    if "cost_per_delivered_tbps" in perf:
        perf["cost_per_delivered_tbps"] = round(out["cost"]["total"] / tbps, 2) if tbps else None
    out["reprice"] = note
    return out


# ----------------------------------------------------------------------------- plan --prices

def _catalog_parts(catalog: Catalog) -> dict[tuple[str, str], tuple[str, int, float | None]]:
    """(part number, length '%g' or '') -> (where, index, length) of every priced catalog part:
    routers, the NIC, licences, rack hardware, panels, and link parts per stock length."""
    out: dict[tuple[str, str], tuple[str, int, float | None]] = {}
    for i, r in enumerate(catalog.routers):
        out[(r.sku, "")] = ("router", i, None)
        if r.licence is not None:
            out[(r.licence.sku, "")] = ("licence", i, None)
    if catalog.nic is not None:
        out[(catalog.nic.sku, "")] = ("nic", 0, None)
    for i, item in enumerate(catalog.rack_hardware):
        out[(item.sku, "")] = ("rack", i, None)
    for i, server in enumerate(catalog.servers):
        out[(server.sku, "")] = ("server", i, None)
    for i, p in enumerate(catalog.panels):
        out[(p.sku, "")] = ("panel", i, None)
    for i, m in enumerate(catalog.cables):
        if m.kind == "transceiver" or not m.stock_lengths:
            out[(m.sku, "")] = ("cable", i, None)
        for length in m.stock_lengths:
            out[(m.part_number(length), f"{length:g}")] = ("cable", i, float(length))
    return out


def quoted_prices(quotes: list[Quote]) -> dict[tuple[str, str], tuple[float, Offer]]:
    """(part number, length) -> (unit price, offer): the cheapest valid offer of each part,
    at the quantity the quote line asks for."""
    best: dict[tuple[str, str], tuple[float, Offer]] = {}
    for quote in quotes:
        for offer in quote.offers:
            price = offer.price_at(offer.quantity)[0] if offer.moq <= max(offer.quantity, 1) \
                else math.inf
            key = (offer.key[0], offer.key[2])
            if math.isfinite(price) and (key not in best or price < best[key][0]):
                best[key] = (price, offer)
    return best


def priced_catalog(catalog: Catalog, prices: dict[tuple[str, str], tuple[float, Offer]]
                   ) -> Catalog:
    """``catalog`` with the quoted prices: a router's price becomes the quoted one at any port
    count, a length part's price a table over its stock lengths (quoted where quoted, the
    catalog's price elsewhere). InputError naming the quote line of a part the catalog lacks."""
    parts = _catalog_parts(catalog)
    routers = list(catalog.routers)
    cables = list(catalog.cables)
    racks, panels, nic = list(catalog.rack_hardware), list(catalog.panels), catalog.nic
    servers = list(catalog.servers)
    tables: dict[int, dict[float, float]] = {}
    cut = {m.sku for m in catalog.cables if not m.stock_lengths and m.kind != "transceiver"}
    for key, (price, offer) in prices.items():
        if key not in parts:
            file, row = offer.source.rsplit(" row ", 1)
            if key[0] in cut:
                raise InputError(f"quote '{file}': row {row}: part {key[0]!r} is cut to length "
                                 f"in catalog '{catalog.source}', priced per metre; a price "
                                 "per length cannot replace that rule: edit the catalog's "
                                 "price instead")
            raise InputError(f"quote '{file}': row {row}: part {key[0]!r} (length "
                             f"{key[1] or '-'}) is not in catalog '{catalog.source}'; keep "
                             "part_number and length_m as the rfq sheet gives them")
        where, i, length = parts[key]
        if where == "router":
            rule = routers[i].price_rule.model_copy(update={"fixed": price, "per_port": 0.0})
            routers[i] = routers[i].model_copy(update={"price_rule": rule})
        elif where == "licence":
            lic = routers[i].licence.model_copy(update={"price": price})
            routers[i] = routers[i].model_copy(update={"licence": lic})
        elif where == "nic":
            nic = nic.model_copy(update={"price": price})
        elif where == "rack":
            racks[i] = racks[i].model_copy(update={"price": price})
        elif where == "panel":
            panels[i] = panels[i].model_copy(update={"price": price})
        elif where == "server":
            servers[i] = servers[i].model_copy(update={"price": price})
        elif length is None:
            rule = cables[i].price_rule.model_copy(update={"fixed": price, "per_m": 0.0,
                                                           "table": None})
            cables[i] = cables[i].model_copy(update={"price_rule": rule})
        else:
            tables.setdefault(i, {})[length] = price
    for i, quoted in tables.items():
        m = cables[i]
        table = {float(x): float(quoted.get(float(x), m.price(x))) for x in m.stock_lengths}
        rule = m.price_rule.model_copy(update={"fixed": 0.0, "per_m": 0.0, "table": table})
        cables[i] = m.model_copy(update={"price_rule": rule})
    priced = catalog.model_copy(update={"routers": routers, "cables": cables,
                                        "rack_hardware": racks, "panels": panels, "nic": nic,
                                        "servers": servers})
    priced._source = catalog.source
    return priced


def catalog_with_quotes(catalog: Catalog, paths, *, currency: str, rates: dict[str, float],
                        today) -> tuple[Catalog, list[Quote]]:
    """(``catalog`` priced from the quote files ``paths``, the quotes read)."""
    from planner.costing.quotes import read_quote
    quotes = [read_quote(p, None, currency=currency, rates=rates, today=today) for p in paths]
    return priced_catalog(catalog, quoted_prices(quotes)), quotes
