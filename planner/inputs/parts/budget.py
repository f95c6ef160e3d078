"""The optical channel of a link: the fibre installed for it, the connections it crosses, its
loss, and whether its transceivers light it.

A link's channel (IEEE 802.3 "channel insertion loss") is the fibre actually installed, the
stock lengths of its pieces (slack included) summed, and the mated connections between its two
transceivers: one per adapter panel it passes, where a cord meets a trunk leg in the panel's
adapter, and two per cassette panel (LC front and MPO rear,
``planner.inputs.parts.structured.panel_connections``); 2 panels across rows, 4 across halls;
none for a point-to-point cord. The transceivers' own connectors are part of their
specification, not of the channel. Loss = installed km x the floor's loss per km of the fibre's grade
(``multimode_loss_db_per_km`` for OM, ``single_mode_loss_db_per_km`` for OS) + connections x
``connection_loss_db`` (docs/floors.md "Optical loss"). A transceiver lights the link when the
installed fibre is within its ``max_reach_m`` and the loss within its ``loss_budget_db``; with
two models (a NIC end), both must (docs/models.md "Optical budget").

``pick`` is the rule the parts modules choose by: the cheapest way that lights a link; where
none does, the cheapest that reaches along the route, marked dark (price infinite), so that
placement never builds it and the cabling stage names it.
"""

from __future__ import annotations

import numpy as np

from planner.inputs.catalog import CableModel

TOLERANCE = 1e-9


def loss_db(floor, single_mode: bool, fibre_m, connections) -> np.ndarray:
    """Channel insertion loss (dB) of fibre of one grade: ``fibre_m`` metres installed and
    ``connections`` mated connections (arrays or scalars)."""
    per_km = floor.single_mode_loss_db_per_km if single_mode else floor.multimode_loss_db_per_km
    return (np.asarray(fibre_m, dtype=float) / 1000.0 * per_km
            + np.asarray(connections, dtype=float) * floor.connection_loss_db)


def lights(floor, models: list[CableModel], fibre_m, connections) -> np.ndarray:
    """Whether the transceivers ``models`` (one per end kind) light channels of ``fibre_m``
    installed metres and ``connections`` mated connections (module doc)."""
    fibre = np.asarray(fibre_m, dtype=float)
    ok = np.isfinite(fibre)
    for model in models:
        loss = loss_db(floor, model.single_mode, fibre, connections)
        ok = ok & (fibre <= model.max_reach_m + TOLERANCE) & (
            loss <= model.loss_budget_db + TOLERANCE)
    return ok


def pick(prices: np.ndarray, lit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(way, price, lit) per link from a (ways, links) price table (inf where a way cannot
    serve the route) and the ways that light each link: the cheapest lit way; where none is
    lit, the cheapest way at all with an infinite price and lit False (module doc)."""
    cols = np.arange(prices.shape[1])
    lit_prices = np.where(lit, prices, np.inf)
    best = np.argmin(lit_prices, axis=0)
    chosen = lit_prices[best, cols]
    dark = ~np.isfinite(chosen)
    best = np.where(dark, np.argmin(prices, axis=0), best)
    return best, chosen, ~dark


def channel(catalog, floor, part, fibre, nic_part, order_length, connections):
    """(installed fibre m, loss dB, budget dB, reach m) per link of chosen parts; NaN for
    links without transceivers (copper and AOC assemblies). ``fibre`` is the fibre part
    (-1 for an assembly), ``nic_part`` the NIC-end model (-1 when none), ``order_length`` the
    installed fibre; the budget and reach are the tighter of the two ends'."""
    part, fibre, nic = (np.asarray(v, dtype=np.int64) for v in (part, fibre, nic_part))
    n = part.size
    optics = fibre >= 0
    out = [np.full(n, np.nan) for _ in range(4)]
    cables = catalog.cables
    budget = np.array([m.loss_budget_db or np.nan for m in cables] + [np.nan])
    reach = np.array([m.max_reach_m for m in cables] + [np.nan])
    single = np.array([m.single_mode for m in cables] + [False])
    installed = np.asarray(order_length, dtype=float)
    ends_budget = np.fmin(budget[part], np.where(nic >= 0, budget[nic], np.inf))
    ends_reach = np.fmin(reach[part], np.where(nic >= 0, reach[nic], np.inf))
    per_km = np.where(single[part], floor.single_mode_loss_db_per_km,
                      floor.multimode_loss_db_per_km)
    loss = installed / 1000.0 * per_km + np.asarray(connections, float) * floor.connection_loss_db
    for column, values in zip(out, (installed, loss, ends_budget, ends_reach)):
        column[optics] = np.broadcast_to(values, (n,))[optics]
    return tuple(out)


def route_of(names, i: int, what: str) -> str:
    """``, the route of link C012 (r001 to r042)`` for a message about link ``i``, ``names(i)``
    naming it (nothing when the caller has no names)."""
    return "" if names is None else f", the {what} of {names(int(i))}"


def subset(names, rows):
    """``names`` (a function naming link i) for the links ``rows`` of its links, or None."""
    if names is None:
        return None
    rows = np.asarray(rows)
    return lambda i: names(int(rows[i]))


def more_links(count: int) -> str:
    """`` (N more links likewise)`` for a message naming one of ``count`` links."""
    return f" ({count - 1} more links likewise)" if count > 1 else ""
