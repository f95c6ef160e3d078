"""Which cable model carries each link: electrical or optical, SKU, ordered length, price.

Rule (DESIGN.md "Electrical vs optical"; cost_models.md C8, E4):
- a link is electrical only when both ends are in one electrical group **and** a copper model
  reaches its length; among those copper models the cheapest at its ordered length wins
  (ties: catalog order);
- otherwise the cheapest optical model that reaches; InputError naming the length if none does.
The floor's ``media_rule`` only records which reading a floor follows (``membership``: the
papers' same-rack/group rule; ``reach``: modern halls). Because the planner never emits a copper
cable beyond its catalog reach, both readings give this same choice.
Paper mode (``catalog.optical_average_length_m``): optical cables are priced at that one
length (Projective Networks Tables 4-6); their ordered length stays the real one.
"""

from __future__ import annotations

import numpy as np

from planner.catalog import Catalog
from planner.errors import InputError
from planner.floor import COPPER_NS_PER_M, FIBRE_NS_PER_M, Floor


def _options(catalog: Catalog, lengths: np.ndarray, media: str, price_at: float | None):
    """Indices of the models of one media, and (models × links) order lengths and prices
    (inf where a model cannot serve the length)."""
    idx = [i for i, m in enumerate(catalog.cables) if m.media == media]
    order = np.full((len(idx), lengths.size), np.nan)
    price = np.full((len(idx), lengths.size), np.inf)
    for row, i in enumerate(idx):
        model = catalog.cables[i]
        ol = model.order_length(lengths)
        ok = ~np.isnan(ol) & (lengths <= model.max_reach_m + 1e-9)
        order[row] = np.where(ok, ol, np.nan)
        if price_at is not None:
            paper = model.price(model.order_length(price_at))
            price[row] = np.where(ok & np.isfinite(paper), paper, np.inf)
        else:
            price[row, ok] = model.price(ol[ok])
    return np.asarray(idx, dtype=np.int64), order, price


def choose_media(catalog: Catalog, floor: Floor, lengths_m, same_group):
    """(sku_index, order_length, price) arrays, one entry per link; see the module doc."""
    lengths = np.asarray(lengths_m, dtype=float).ravel()
    same = np.broadcast_to(np.asarray(same_group, dtype=bool), lengths.shape)
    n = lengths.size
    sku = np.full(n, -1, dtype=np.int64)
    order = np.full(n, np.nan)
    price = np.full(n, np.nan)
    if np.any(lengths < 0) or np.any(~np.isfinite(lengths)):
        raise ValueError("cable lengths must be finite and >= 0")

    e_idx, e_order, e_price = _options(catalog, lengths, "electrical", None)
    if e_idx.size:
        best = np.argmin(e_price, axis=0)
        cols = np.arange(n)
        reach_ok = np.isfinite(e_price[best, cols])
        copper = same & reach_ok
        sku[copper] = e_idx[best[copper]]
        order[copper] = e_order[best[copper], cols[copper]]
        price[copper] = e_price[best[copper], cols[copper]]
    optical = sku < 0
    if np.any(optical):
        o_idx, o_order, o_price = _options(catalog, lengths[optical], "optical",
                                           catalog.optical_average_length_m)
        if o_idx.size == 0:
            raise InputError(f"catalog '{catalog.source}': {int(optical.sum())} links need an "
                             "optical cable but the catalog has none; add an optical model")
        best = np.argmin(o_price, axis=0)
        cols = np.arange(int(optical.sum()))
        chosen = o_price[best, cols]
        if not np.all(np.isfinite(chosen)):
            worst = float(lengths[optical][~np.isfinite(chosen)].max())
            longest = max(m.longest_m for m in catalog.cables if m.media == "optical")
            raise InputError(f"catalog '{catalog.source}': no optical cable reaches {worst:.2f} m "
                             f"(longest available {longest:g} m); add a longer optical model "
                             "or use a smaller floor")
        sku[optical] = o_idx[best]
        order[optical] = o_order[best, cols]
        price[optical] = chosen
    return sku, order, price


def media_of(catalog: Catalog, sku_index) -> np.ndarray:
    """``"electrical"`` / ``"optical"`` per chosen SKU index."""
    names = np.array([m.media for m in catalog.cables], dtype=object)
    return names[np.asarray(sku_index, dtype=np.int64)]


def latency_ns(media, length_m):
    """Propagation delay: 4.5 ns/m over copper (NVIDIA MCP4Y10/MCP1650 specs), 4.9 ns/m over
    fibre (group index ≈ 1.47; ecosystem.md §7). ``media`` is a string or an array of them."""
    length = np.asarray(length_m, dtype=float)
    copper = np.asarray(media) == "electrical"
    if not np.all(copper | (np.asarray(media) == "optical")):
        raise ValueError("media must be 'electrical' or 'optical'")
    out = np.where(copper, COPPER_NS_PER_M, FIBRE_NS_PER_M) * length
    return float(out) if out.ndim == 0 else out
