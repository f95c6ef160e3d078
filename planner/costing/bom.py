"""Bill of materials: one line per orderable part (and stock length), with spares per class.

Items, in this order (``ITEMS``), each line an orderable part number:

- ``switch``: the chosen router model, one per router, priced with ``costing.router_cost`` at
  the ports the topology uses (its radix, on every router: the papers' rule, docs/models.md);
- ``nic``: the catalog's NIC, one per endpoint; ``server``: where the endpoints are the NICs of
  a catalog server model, one per server at the model's price (listed at 0 when the catalog
  gives none: the count is what a buyer orders; none when the model says ``in_bom: false``,
  docs/catalogs.md "Server models"); ``licence``: the router model's NOS licence, one
  per router;
- ``transceiver``: the optics, counted per end: at a router, ``ceil(ends / ports)`` modules per
  router and model (a twin-port module serves two ports of one cage, to any peers; one with a
  single connector, ``connectors: 1``, per router and peer); at a NIC one module of the
  transceiver's ``nic_end`` model per endpoint link;
- ``cable``: cable assemblies (DAC, ACC, AOC) per part number, i.e. per stock length: a straight
  assembly carrying k links counts ``ceil(links between the router pair / k)``, a splitter
  ``ceil(its router's endpoint links / k)``, a single-link assembly one per link;
- ``fibre``: one fibre part per transceiver link, per part number; a link through patch panels
  (structured cabling, ``planner.cabling.structured``) has two, its patch cords at both ends;
- ``trunk``: the trunks of structured cabling, one per trunk installed, per part number;
- ``panel``: the patch panels of structured cabling, one per panel installed;
- ``rack``: the catalog's rack hardware, per router, per cabinet or per patch rack of
  structured cabling (none without it).

Router-router links are always bought; router-endpoint links when the catalog counts them
(``count_endpoint_cables``; the papers do not, docs/models.md). In paper mode
(``optical_average_length_m``) optical parts are priced at that one length.

Spares are per class with their own percentage (``Spares``: switches, optics = transceivers,
cables = cables, fibre and trunks; panels have none), rounded up per line: ``spares = ceil(quantity × pct / 100)`` (25
cables at 10 % -> 3). ``extended_price = (quantity + spares) × unit_price``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from planner import costing
from planner.costing import basis, fabric
from planner.inputs.catalog import Catalog, RouterModel
from planner.inputs.catalog.orderable import IDENTITY_COLUMNS
from planner.run.errors import InputError

COLUMNS = ["item", "sku", "description", "length_m", "quantity", "spares", "unit_price",
           "extended_price", "vendor"]
"""A line's columns; the price basis (``planner.costing.basis.COLUMNS``) and what the line is as
an order (``IDENTITY_COLUMNS``: the number to order, or ``generic: supplier part number``, the
new-format ordering number, the status ``active``/``eol``/``generic``/``...; number
unconfirmed`` and a generic part's spec; ``planner.inputs.catalog.orderable``) follow."""
ITEMS = ("switch", "nic", "server", "licence", "transceiver", "cable", "fibre", "trunk", "panel",
         "rack") + fabric.ITEMS
CLASS_OF = {"switch": "switches", "nic": "nics", "server": "servers", "licence": "licences",
            "transceiver": "optics", "cable": "cables", "fibre": "cables", "trunk": "cables",
            "panel": "panels", "rack": "rack", **fabric.CLASS_OF}
"""The class of each item: spares and subtotals are per class. The fabric's own lines
(subnet manager, management network, power, support) are ``planner.costing.fabric``'s."""


@dataclass(frozen=True)
class Spares:
    """Spare percentage per class (``planner plan --spares`` sets cables, the others have
    their own options): each BOM line of the class gets ``ceil(quantity × pct / 100)``."""

    switches: float = 0.0
    optics: float = 0.0
    cables: float = 0.0

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if not (isinstance(value, (int, float)) and math.isfinite(value)
                    and 0 <= value <= 1000):
                raise InputError(f"spares for {f.name} must be a percentage within 0..1000, "
                                 f"got {value!r}")

    def pct(self, item: str) -> float:
        """The percentage that applies to an item's lines (0 for NICs, licences, panels,
        racks)."""
        return float(getattr(self, CLASS_OF[item], 0.0))

    def as_dict(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}


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


def _unit_price(catalog: Catalog, index: int, order_length: np.ndarray) -> np.ndarray:
    """Price of a length part at its ordered lengths (paper mode: optical at the average)."""
    model = catalog.cables[index]
    avg = catalog.optical_average_length_m
    if avg is not None and model.media == "optical":
        return np.full(len(order_length), model.price(model.order_length(avg)))
    return np.asarray(model.price(order_length), dtype=float)


def _count(keys: pd.DataFrame, group: np.ndarray, per: np.ndarray) -> pd.DataFrame:
    """Quantity per line key: ``ceil(items in a group / per)`` summed over the groups."""
    frame = keys.assign(_group=group, _per=per)
    cols = list(keys.columns)
    sizes = frame.groupby(cols + ["_group", "_per"], sort=False, dropna=False).size().rename("n").reset_index()
    sizes["quantity"] = -(-sizes["n"] // sizes["_per"])
    return sizes.groupby(cols, sort=False, dropna=False)["quantity"].sum().reset_index()


def _each(keys: pd.DataFrame) -> pd.DataFrame:
    """Quantity per line key: one per row (parts bought one per link, cord or trunk), counted
    by one grouping of the keys (``_count`` with a group per row would group every row
    twice, a table of one row per cable between)."""
    counts = keys.groupby(list(keys.columns), sort=False, dropna=False).size()
    return counts.rename("quantity").reset_index()


def _line(item: str, model, quantity, unit_price, description: str, *, sku: str | None = None,
          length_m=np.nan) -> dict:
    """One BOM line of a catalog model (its own description, else ``description``), with
    what it is as an order (``IDENTITY_COLUMNS``)."""
    number = model.sku if sku is None else sku
    return dict(item=item, sku=number, vendor=model.vendor,
                description=model.description or description, length_m=length_m,
                quantity=int(quantity), unit_price=float(unit_price),
                **model.bom_identity(number))


def part_lines(catalog: Catalog, cables: pd.DataFrame, structured=None) -> pd.DataFrame:
    """Transceiver, cable, fibre and trunk lines (item, part, sku, length_m, quantity,
    unit_price) of the bought cables, counted as the module doc says; ``structured`` is the
    plan's ``planner.cabling.structured.StructuredPlan`` (its cords and trunks)."""
    costed = costed_mask(cables, catalog)
    through = np.zeros(len(cables), dtype=bool)
    if structured is not None:
        through[structured.links["cable"].to_numpy(np.int64)] = True
    through = through[costed]
    bought = cables.loc[costed]
    part = bought["part"].to_numpy(np.int64)
    fibre = bought["fibre"].to_numpy(np.int64)
    order = bought["order_length_m"].to_numpy(float)
    a_router = bought["a_router"].to_numpy(np.int64)
    b_router = bought["b_router"].to_numpy(np.int64)
    models = catalog.cables
    frames = []

    cut = fibre < 0                                       # cable assemblies
    if cut.any():
        p = part[cut]
        links = np.array([m.links for m in models])[p]
        split = np.array([m.split for m in models])[p]
        span = int(max(a_router.max(), b_router.max())) + 2
        pair = (np.minimum(a_router[cut], b_router[cut]) + 1) * span + \
            np.maximum(a_router[cut], b_router[cut]) + 1
        group = np.where(split, a_router[cut], np.where(links > 1, pair,
                                                        np.arange(int(cut.sum()))))
        keys = pd.DataFrame({"part": p, "sku": bought["sku"].to_numpy()[cut], "length_m": order[cut]})
        frames.append(_count(keys, group, links).assign(item="cable"))

    optics = ~cut
    if optics.any():
        net = optics & (b_router >= 0)
        ends_part = np.r_[part[optics], part[net]]
        ends_router = np.r_[a_router[optics], b_router[net]]
        ports = np.array([m.ports for m in models])[ends_part]
        # a single-connector module (connectors: 1) serves one peer: its cages per router pair
        one_peer = np.array([m.one_peer_per_cage for m in models])[ends_part]
        ends_peer = np.r_[b_router[optics], a_router[net]]
        span = int(max(a_router.max(), b_router.max())) + 2
        ends_group = np.where(one_peer, (ends_router + 1) * span + ends_peer + 1, ends_router)
        keys = pd.DataFrame({"part": ends_part, "sku": [models[i].sku for i in ends_part],
                             "length_m": np.nan})
        frames.append(_count(keys, ends_group, ports).assign(item="transceiver"))
        nic = bought["nic_part"].to_numpy(np.int64)[optics & (b_router < 0)]
        if nic.size:
            keys = pd.DataFrame({"part": nic, "sku": [models[i].sku for i in nic],
                                 "length_m": np.nan})
            frames.append(_each(keys).assign(item="transceiver"))
        direct = optics & ~through
        keys = pd.DataFrame({"part": fibre[direct], "sku": bought["sku"].to_numpy()[direct],
                             "length_m": order[direct]})
        if structured is not None:
            links = structured.links
            keys = pd.concat([keys] + [pd.DataFrame({
                "part": links["cord"].to_numpy(np.int64), "sku": links[f"cord_{e}_sku"],
                "length_m": links[f"cord_{e}_order_m"].to_numpy(float)}) for e in "ab"],
                ignore_index=True)
        frames.append(_each(keys).assign(item="fibre"))
    if structured is not None and len(structured.trunks):
        trunks = structured.trunks
        keys = pd.DataFrame({"part": trunks["part"].to_numpy(np.int64), "sku": trunks["sku"],
                             "length_m": trunks["order_length_m"].to_numpy(float)})
        frames.append(_each(keys).assign(item="trunk"))
    if not frames:
        return pd.DataFrame(columns=["item", "part", "sku", "length_m", "quantity",
                                     "unit_price"])
    lines = pd.concat(frames, ignore_index=True)
    lines = lines.groupby(["item", "part", "sku", "length_m"], sort=False, dropna=False)[
        "quantity"].sum().reset_index()
    lines["unit_price"] = np.nan
    for i in pd.unique(lines["part"]).tolist():
        rows = (lines["part"] == i).to_numpy()
        lines.loc[rows, "unit_price"] = _unit_price(catalog, i, lines.loc[rows, "length_m"]
                                                    .fillna(0).to_numpy(float))
    electrical = np.array([m.media == "electrical" for m in models])[lines["part"]]
    lines["_item"] = lines["item"].map(ITEMS.index)
    lines["_media"] = np.where(electrical, 0, 1)
    lines = lines.sort_values(["_item", "_media", "part", "length_m", "sku"], kind="stable")
    return lines.drop(columns=["_item", "_media"]).reset_index(drop=True)


def build(catalog: Catalog, router_model: RouterModel, router_ports: int, num_routers: int,
          cables: pd.DataFrame, spares: Spares | float = 0.0, num_endpoints: int = 0,
          num_cabinets: int = 0, structured=None, servers=None) -> pd.DataFrame:
    """The BOM table (``COLUMNS``), items in ``ITEMS`` order. A number for ``spares`` is the
    cable percentage (``--spares``); ``structured`` the plan's structured cabling
    (``planner.cabling.structured.StructuredPlan``), whose cords, trunks and panels it counts;
    ``servers`` (server model, count) the servers the endpoints are NICs of."""
    if not isinstance(spares, Spares):
        if not (0 <= float(spares) <= 1000) or math.isnan(float(spares)):
            raise ValueError(f"spares_pct must be within 0..1000, got {spares}")
        spares = Spares(cables=float(spares))
    lines = [_line("switch", router_model, num_routers,
                   costing.router_cost(router_model, router_ports),
                   f"{router_model.vendor} router")]
    if catalog.nic is not None:
        lines.append(_line("nic", catalog.nic, num_endpoints, catalog.nic.price,
                           f"{catalog.nic.vendor} NIC"))
    if servers is not None and servers[0].in_bom:
        model, count = servers
        lines.append(_line("server", model, count, model.price,
                           f"server, {model.nics} fabric NICs"
                           + (f", {model.gpus} GPUs" if model.gpus else "")))
    if router_model.licence is not None:
        lines.append(_line("licence", router_model.licence, num_routers,
                           router_model.licence.price, f"licence for {router_model.sku}"))
    for rec in part_lines(catalog, cables, structured).itertuples(index=False):
        model = catalog.cables[rec.part]
        lines.append(_line(rec.item, model, rec.quantity, rec.unit_price,
                           f"{model.kind} {model.media}", sku=rec.sku, length_m=rec.length_m))
    if structured is not None:
        for part, count in structured.panels.groupby("part", sort=True).size().items():
            panel = catalog.panels[int(part)]
            lines.append(_line("panel", panel, count, panel.price,
                               f"patch panel, {panel.fibre}"))
    patch_racks = 0 if structured is None else len(structured.racks)
    for item in catalog.rack_hardware:
        count = {"router": num_routers, "cabinet": num_cabinets,
                 "patch_rack": patch_racks}[item.per]
        if item.per != "patch_rack" or count:
            lines.append(_line("rack", item, count, item.price,
                               f"rack hardware per {item.per.replace('_', ' ')}"))
    bom = pd.DataFrame(lines, columns=[c for c in COLUMNS if c not in ("spares",
                                                                        "extended_price")]
                       + IDENTITY_COLUMNS)
    bom["quantity"] = bom["quantity"].astype(np.int64)
    bom["spares"] = np.zeros(len(bom), dtype=np.int64)
    for item in pd.unique(bom["item"]).tolist():
        rows = (bom["item"] == item).to_numpy()
        bom.loc[rows, "spares"] = spares_for(bom.loc[rows, "quantity"].to_numpy(),
                                             spares.pct(item))
    bom["spares"] = bom["spares"].astype(np.int64)
    bom["extended_price"] = (bom["quantity"] + bom["spares"]) * bom["unit_price"]
    priced = basis.attach(bom[COLUMNS], catalog, router_model)
    return pd.concat([priced, bom[IDENTITY_COLUMNS]], axis=1)


COST_LINES = (("routers", "switches"), ("nics", "NICs/HCAs"), ("licences", "licences"),
              ("optics", "transceivers"), ("cables", "cables, cords and trunks"),
              ("panels", "patch panels"), ("rack", "racks and rack hardware"),
              ("management", "subnet manager and management network"),
              ("power", "PDUs and power cords"), ("support", "support and subscriptions"),
              ("spares", "spares"))
"""The ``summary.json`` ``cost`` keys of every class of the BOM (``CLASS_OF``) plus the spares,
with the words a cost table prints for each: together they are the whole ``cost.total``."""


def cost_items(key: str) -> list[str]:
    """The BOM items (``ITEMS``) whose lines a ``COST_LINES`` key adds up (none for spares,
    which every line carries)."""
    name = "switches" if key == "routers" else key
    return [item for item in ITEMS if CLASS_OF[item] == name]


def cost_lines(cost: dict) -> list[tuple[str, str, float]]:
    """(key, words, dollars) of every class of a ``summary.json`` ``cost`` block
    (``COST_LINES``), including classes that cost nothing, so a table of them adds up to
    ``cost["total"]``."""
    extra = (("servers", "servers"),) if "servers" in cost else ()    # plans with servers
    return [(key, words, float(cost.get(key, 0.0))) for key, words in COST_LINES[:2] + extra
            + COST_LINES[2:]]


def class_totals(bom: pd.DataFrame) -> dict[str, float]:
    """Cost per class without spares (``switches``, ``nics``, ``licences``, ``optics``,
    ``cables``, ``rack``) plus ``spares``: what the spare units of every line cost."""
    cls = bom["item"].map(CLASS_OF)
    base = (bom["quantity"] * bom["unit_price"]).groupby(cls).sum()
    out = {name: float(base.get(name, 0.0)) for name in dict.fromkeys(CLASS_OF.values())}
    out["spares"] = float((bom["spares"] * bom["unit_price"]).sum())
    return out
