"""Link parts and patch panels: the ``cables`` and ``panels`` lists of a catalog.

Link parts (the ``cables`` list, one entry per orderable part family):

- ``dac`` / ``acc`` / ``aoc``: a cable assembly that carries ``links`` links on its own (1; 2 for
  a twin-port assembly). A straight multi-link assembly joins two cages, so all its links go
  between the same two routers; a ``split`` one (a splitter) has one head at the router and
  ``links`` tails at NICs.
- ``transceiver``: an optic serving ``ports`` ports of one cage (2 = twin-port), plugged into
  fibre of its ``fibre`` type. Its ``connectors`` (default: one per port, as a twin-port module
  with two MPO-12 connectors) say how many peers one module may reach: ``connectors: 1`` (an
  800G DR8 module on one MPO-16) sends every port of its cage to one peer, as a twin-port
  copper cable does. A link is a transceiver at each end (at a NIC: the ``nic_end``
  model) plus one ``fibre`` part. Its standard bounds the channel it lights: ``max_reach_m`` of
  installed fibre and ``loss_budget_db``, the channel insertion loss (fibre and mated
  connections; ``planner.inputs.parts.budget``).
- ``fibre``: a patch cord of one fibre type, bought per stock length.
- ``trunk``: a multi-fibre trunk of one fibre type (``fibres`` fibres, fanned out into legs of
  that type at both ends), shared by the links between two patch panels of structured cabling
  (``planner.inputs.parts.structured``); a transceiver's ``fibres`` is what one of its links
  takes in it.

Patch panels (the ``panels`` list): ``ports`` front adapters of one fibre type in ``rack_units``
of a patch rack, where the cords meet the trunks.

Part numbers per stock length: ``planner.inputs.catalog.part_numbers``.
"""

from __future__ import annotations

import bisect
import math
from functools import cached_property
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, PositiveFloat, PositiveInt, model_validator

from planner.inputs.catalog import offers as _offers
from planner.inputs.catalog.part_numbers import (LENGTH_FIELDS, PLACEHOLDER, format_part_number,
                                                 generic_reference, length_fields,
                                                 template_fields)
from planner.inputs.catalog.orderable import Orderable
from planner.inputs.catalog.pricing import PriceBasis
from planner.inputs.catalog.routers import STRICT

#: NetBox 4.x cable ``type`` values relevant to a fabric (dcim/choices.py CableTypeChoices).
NETBOX_CABLE_TYPES = ("dac-passive", "dac-active", "aoc", "mmf", "mmf-om1", "mmf-om2",
                      "mmf-om3", "mmf-om4", "mmf-om5", "smf", "smf-os1", "smf-os2",
                      "cat5e", "cat6", "cat6a", "cat7", "cat8", "power")

#: NetBox colour names accepted on import and their hex value (netbox/choices.py ColorChoices).
#: Fibre jackets follow TIA-598-C/D: OS1/OS2 yellow, OM1/OM2 orange, OM3/OM4 aqua, OM5 lime.
COLOR_HEX = {
    "Dark Red": "aa1409", "Red": "f44336", "Pink": "e91e63", "Rose": "ffe4e1",
    "Fuchsia": "ff66ff", "Purple": "9c27b0", "Dark Purple": "673ab7", "Indigo": "3f51b5",
    "Blue": "2196f3", "Light Blue": "03a9f4", "Cyan": "00bcd4", "Teal": "009688",
    "Aqua": "00ffff", "Dark Green": "2f6a31", "Green": "4caf50", "Light Green": "8bc34a",
    "Lime": "cddc39", "Yellow": "ffeb3b", "Amber": "ffc107", "Orange": "ff9800",
    "Dark Orange": "ff5722", "Brown": "795548", "Light Grey": "c0c0c0", "Grey": "9e9e9e",
    "Dark Grey": "607d8b", "Black": "111111", "White": "ffffff",
}

_ASSEMBLIES = ("dac", "acc", "aoc")
_KIND_FIELDS = {"links": "cable assemblies (dac, acc, aoc)", "split": "cable assemblies",
                "ports": "transceivers", "nic_end": "transceivers",
                "connectors": "transceivers (fibre connectors of one module: 1 or its ports)",
                "fibre": "transceivers, fibre and trunk parts",
                "fibres": "transceivers (fibres of one link in a trunk) and trunks",
                "loss_budget_db": "transceivers (the channel insertion loss of their standard)"}
_KIND_ALLOWED = {"transceiver": {"ports", "connectors", "fibre", "nic_end", "fibres",
                                 "loss_budget_db"},
                 "fibre": {"fibre"},
                 "trunk": {"fibre", "fibres"}}
"""The kind-specific fields each kind takes (assemblies: ``links`` and ``split``)."""

#: Fibre grades a ``fibre`` type name starts with (ISO/IEC 11801 multimode OM1-OM5,
#: single-mode OS1/OS2); the grade sets the loss per km (``planner.inputs.parts.budget``).
FIBRE_GRADES = ("om1", "om2", "om3", "om4", "om5", "os1", "os2")

#: NetBox front/rear port types of a fibre patch panel (dcim/choices.py PortTypeChoices).
NETBOX_PORT_TYPES = ("mpo", "lc", "lc-pc", "lc-upc", "lc-apc", "sc", "sc-pc", "sc-upc",
                     "sc-apc", "st", "fc", "mtrj", "mdc", "cs", "sn", "splice")


class CablePrice(BaseModel):
    """Price: ``fixed + per_m * order_length``, or ``table`` = price per stock length."""

    model_config = STRICT
    fixed: float = Field(0.0, ge=0)
    per_m: float = Field(0.0, ge=0)
    table: dict[float, PositiveFloat] | None = None

    @model_validator(mode="after")
    def _one_rule(self) -> "CablePrice":
        if self.table is not None and (self.fixed or self.per_m):
            raise ValueError("combines a table with fixed/per_m; use one price rule")
        if self.table is None and self.fixed + self.per_m <= 0:
            raise ValueError("has fixed = per_m = 0; give a positive price")
        if self.table is not None and not self.table:
            raise ValueError("has an empty table; give a price for every stock length")
        return self


class CableModel(Orderable):
    """One link part family: a cable assembly, a transceiver or a fibre (module doc); a
    manufacturer's part or a generic one (``planner.inputs.catalog.orderable``)."""

    model_config = STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    media: Literal["electrical", "optical"]
    kind: Literal["dac", "acc", "aoc", "transceiver", "fibre", "trunk"]
    rate_gbps: PositiveFloat | None = None
    max_reach_m: PositiveFloat
    stock_lengths: list[PositiveFloat] = Field(default_factory=list)
    price_rule: CablePrice = Field(alias="price")
    part_numbers: dict[float, str] | str | None = None
    watts_per_end: float = Field(0.0, ge=0)    # a transceiver: the whole module
    netbox_type: str | None = None
    color: str | None = None
    price_basis: PriceBasis | None = None      # the catalog's price_basis without it
    links: PositiveInt = 1                     # assemblies: links one assembly carries
    split: bool = False                        # assemblies: one head, `links` tails at NICs
    ports: PositiveInt = 1                     # transceivers: ports of one cage it serves
    connectors: PositiveInt | None = None      # transceivers: fibre connectors (default ports)
    fibre: str | None = None                   # transceivers, fibres, trunks: the fibre type
    nic_end: str | None = None                 # transceivers: sku of the module at a NIC
    fibres: PositiveInt | None = None          # trunks: fibre count; transceivers: per link
    loss_budget_db: PositiveFloat | None = None   # transceivers: channel insertion loss, dB
    offers: list[_offers.PartOffer] = Field(default_factory=list)   # equivalents (offers.py)

    @model_validator(mode="after")
    def _consistent(self) -> "CableModel":
        stock = self.stock_lengths
        if any(b <= a for a, b in zip(stock, stock[1:])):
            raise ValueError(f"field 'stock_lengths' must be strictly increasing, got {stock}")
        if stock and stock[-1] > self.max_reach_m:
            raise ValueError(f"field 'stock_lengths' has {stock[-1]} m, beyond max_reach_m "
                             f"{self.max_reach_m} m; drop it or raise the reach")
        if (self.media == "electrical") != (self.kind in ("dac", "acc")):
            raise ValueError(f"field 'kind' {self.kind!r} does not fit media {self.media!r}; "
                             "dac/acc are electrical, aoc/transceiver/fibre/trunk optical")
        self._check_kind_fields()
        table = self.price_rule.table
        if table is not None and sorted(table) != sorted(stock):
            raise ValueError(f"field 'price' table lengths {sorted(table)} must equal "
                             f"stock_lengths {stock}")
        if self.netbox_type is not None and self.netbox_type not in NETBOX_CABLE_TYPES:
            raise ValueError(f"field 'netbox_type' {self.netbox_type!r} is not a NetBox cable "
                             f"type; use one of {', '.join(NETBOX_CABLE_TYPES)}")
        if self.color is not None and self.color not in COLOR_HEX and not _is_hex(self.color):
            raise ValueError(f"field 'color' {self.color!r} is neither a NetBox colour name "
                             f"({', '.join(COLOR_HEX)}) nor a 6-digit hex value")
        self._check_part_numbers()
        _offers.check(self)
        return self

    def _check_kind_fields(self) -> None:
        allowed = _KIND_ALLOWED.get(self.kind, {"links", "split"})
        changed = {name for name in _KIND_FIELDS
                   if getattr(self, name) != type(self).model_fields[name].default}
        for name in sorted(changed - allowed):
            raise ValueError(f"field '{name}' does not apply to kind {self.kind!r}; it is for "
                             f"{_KIND_FIELDS[name]}")
        if self.kind in ("transceiver", "fibre", "trunk") and not self.fibre:
            what = ("needs the fibre type it plugs into (e.g. om4-mpo12), the same as a "
                    "kind: fibre part's" if self.kind == "transceiver"
                    else "needs its fibre type (e.g. om4-mpo12), as its transceivers name it")
            raise ValueError(f"field 'fibre' is missing: a {self.kind} {what}")
        if self.fibre and not self.fibre.lower().startswith(FIBRE_GRADES):
            raise ValueError(f"field 'fibre' {self.fibre!r} does not start with its fibre grade "
                             f"({', '.join(FIBRE_GRADES)}), which sets its loss per km; name it "
                             "e.g. om4-mpo12 or os2-lc")
        if self.kind == "transceiver" and self.loss_budget_db is None:
            raise ValueError("field 'loss_budget_db' is missing: a transceiver needs the channel "
                             "insertion-loss budget of its standard (e.g. 1.9 for 100GBASE-SR4 "
                             "over OM4, IEEE 802.3 clause 95); add it")
        if self.kind == "trunk" and self.fibres is None:
            raise ValueError("field 'fibres' is missing: a trunk needs its fibre count (e.g. "
                             "144 for twelve MPO-12 legs)")
        if self.kind == "transceiver":
            if self.stock_lengths or self.price_rule.table or self.price_rule.per_m:
                raise ValueError("field 'price' of a transceiver is one price per module "
                                 "({fixed: ...}); lengths belong to its fibre part")
        else:
            for name in ("netbox_type", "color"):
                if getattr(self, name) is None:
                    raise ValueError(f"field '{name}' is missing; add it")
            if self.rate_gbps is None and self.kind not in ("fibre", "trunk"):
                raise ValueError("field 'rate_gbps' is missing; add it")
        if self.kind == "transceiver" and self.rate_gbps is None:
            raise ValueError("field 'rate_gbps' is missing; add it")
        if self.split and self.links < 2:
            raise ValueError("field 'split' needs links >= 2 (a splitter has several tails)")
        if self.connectors is not None and self.connectors not in (1, self.ports):
            raise ValueError(f"field 'connectors' is {self.connectors} on a module of "
                             f"{self.ports} ports; give 1 (all ports to one peer) or "
                             f"{self.ports} (one connector per port, each to any peer)")

    def orderable_numbers(self) -> list[tuple[str, str]]:
        """(field, number) of every part number its BOM lines may carry: one per stock length
        (the SKU without a table or template; none for a placeholder SKU, which
        ``_check_part_numbers`` names)."""
        if self.part_numbers is None:
            return [] if PLACEHOLDER.search(self.sku) else [("sku", self.sku)]
        if isinstance(self.part_numbers, str):
            template_fields(self.part_numbers)     # a bad template: _check_part_numbers names it
        return [("part_numbers", self.part_number(length))
                for length in self.stock_lengths or [self.max_reach_m]]

    def _check_part_numbers(self) -> None:
        numbers = self.part_numbers
        if numbers is not None and self.generic:
            raise ValueError("field 'part_numbers' gives a generic part (vendor: generic) "
                             "numbers of its own, which a supplier cannot order by; drop it (the "
                             "BOM asks for the supplier's number and shows the spec) or name "
                             "the manufacturer in 'vendor'")
        if numbers is None:
            if PLACEHOLDER.search(self.sku) and self.kind != "transceiver":
                raise ValueError(f"field 'part_numbers' is missing and sku {self.sku!r} looks "
                                 "like a family placeholder; give the orderable part number of "
                                 "every stock length (a table, or a template such as "
                                 "'MCP1600-C{nv}')")
            return
        if self.kind == "transceiver":
            raise ValueError("field 'part_numbers' does not apply to a transceiver; its sku is "
                             "its part number")
        if isinstance(numbers, dict):
            if sorted(numbers) != sorted(self.stock_lengths):
                raise ValueError(f"field 'part_numbers' table lengths {sorted(numbers)} must "
                                 f"equal stock_lengths {self.stock_lengths}")
            made = [numbers[k] for k in sorted(numbers)]
        else:
            fields = template_fields(numbers)
            unknown = fields - set(LENGTH_FIELDS)
            if unknown:
                raise ValueError(f"field 'part_numbers' template {numbers!r} uses "
                                 f"{{{sorted(unknown)[0]}}}; the length fields are "
                                 + ", ".join("{" + f + "}" for f in LENGTH_FIELDS))
            if not fields:
                raise ValueError(f"field 'part_numbers' template {numbers!r} has no length "
                                 "field, so every length gets the same part number; use "
                                 "{m}, {cm} or {nv}")
            made = []
            for length in self.stock_lengths or [self.max_reach_m]:
                if "nv" in fields and length_fields(length)["nv"] is None:
                    raise ValueError(f"field 'part_numbers' template {numbers!r} uses {{nv}} "
                                     f"but {length:g} m has no NVIDIA length code")
                try:
                    made.append(format_part_number(numbers, length))
                except ValueError as err:
                    raise ValueError(f"field 'part_numbers' {err}") from None
        for text in made:
            if not text.strip() or PLACEHOLDER.search(text):
                raise ValueError(f"field 'part_numbers' gives {text!r}, not an orderable part "
                                 "number")
        seen: dict[str, float] = {}
        for length, text in zip(sorted(self.stock_lengths), made):
            if text in seen:
                raise ValueError(f"field 'part_numbers' gives {text!r} to both {seen[text]:g} m "
                                 f"and {length:g} m; every stock length needs its own part "
                                 "number")
            seen[text] = length

    @property
    def single_mode(self) -> bool:
        """Whether its fibre is single-mode (an ``os`` grade; multimode otherwise)."""
        return bool(self.fibre) and self.fibre.lower().startswith("os")

    @property
    def is_assembly(self) -> bool:
        return self.kind in _ASSEMBLIES

    @property
    def one_peer_per_cage(self) -> bool:
        """Whether all the ports this part serves in one router cage go to one peer router: a
        straight multi-link assembly (one cable, one far end) or a multi-port transceiver with a
        single connector (``connectors: 1``). A splitter's tails and a module with a connector
        per port reach different devices."""
        if self.is_assembly:
            return not self.split and self.links > 1
        return self.kind == "transceiver" and self.ports > 1 and self.connectors == 1

    @property
    def color_hex(self) -> str:
        """Six hex digits, as NetBox stores colours ('' for a transceiver)."""
        return COLOR_HEX.get(self.color, self.color.lower()) if self.color else ""

    @cached_property
    def _stock(self) -> np.ndarray:
        return np.asarray(self.stock_lengths, dtype=float)

    @property
    def longest_m(self) -> float:
        """Longest length one can order: last stock length, or the reach if cut to length."""
        return self.stock_lengths[-1] if self.stock_lengths else self.max_reach_m

    def order_length(self, length_m):
        """Next stock length >= ``length_m`` (scalar or array); the length itself if cut to
        length. Lengths beyond the longest stock length give NaN (the model cannot serve them)."""
        if np.ndim(length_m) == 0:
            return self._order_one(float(length_m))
        length = np.asarray(length_m, dtype=float)
        if not self.stock_lengths:
            out = np.where(length <= self.max_reach_m, length, np.nan)
        else:
            idx = np.searchsorted(self._stock, length - 1e-9, side="left")
            out = np.where(idx < len(self._stock),
                           self._stock[np.minimum(idx, len(self._stock) - 1)], np.nan)
        return out

    def _order_one(self, length: float) -> float:
        """``order_length`` of one length, without numpy's per-call cost: the structured
        cabling asks it once per trunk candidate (209,705 times for 622,720 cables)."""
        if not self.stock_lengths:
            return length if length <= self.max_reach_m else math.nan
        if math.isnan(length):
            return math.nan
        idx = bisect.bisect_left(self._stock_list, length - 1e-9)
        return self._stock_list[idx] if idx < len(self._stock_list) else math.nan

    @cached_property
    def _stock_list(self) -> list[float]:
        return [float(x) for x in self._stock]

    def price(self, order_length_m):
        """Dollars for one part of the given ordered length (scalar or array); a transceiver's
        price does not depend on the length."""
        length = np.asarray(order_length_m, dtype=float)
        rule = self.price_rule
        if rule.table is None:
            out = rule.fixed + rule.per_m * length
        else:
            keys = np.asarray(sorted(rule.table), dtype=float)
            vals = np.asarray([rule.table[k] for k in sorted(rule.table)], dtype=float)
            idx = np.searchsorted(keys, length - 1e-9, side="left")
            ok = (idx < len(keys)) & np.isclose(keys[np.minimum(idx, len(keys) - 1)], length)
            out = np.where(ok, vals[np.minimum(idx, len(keys) - 1)], np.nan)
        return float(out) if np.ndim(order_length_m) == 0 else out

    def part_number(self, order_length_m: float) -> str:
        """The orderable part number at one ordered length (the SKU when the part has no
        part-number table or template). A generic part with stock lengths has no number: its
        reference is the SKU and the length, ``OM4-MPO12_5m`` (``generic_reference``)."""
        numbers = self.part_numbers
        if numbers is None and self.generic and self.stock_lengths:
            return generic_reference(self.sku, order_length_m)
        if numbers is None:
            return self.sku
        if isinstance(numbers, dict):
            for key, text in numbers.items():
                if abs(key - order_length_m) < 1e-9:
                    return text
            raise ValueError(f"{self.sku}: no part number at {order_length_m:g} m")
        return format_part_number(numbers, float(order_length_m))

    def part_numbers_at(self, order_lengths) -> np.ndarray:
        """``part_number`` of every ordered length (array of str), one format per distinct
        length."""
        lengths = np.asarray(order_lengths, dtype=float)
        if self.part_numbers is None and not (self.generic and self.stock_lengths):
            return np.full(lengths.shape, self.sku, dtype=object)
        uniq, inverse = np.unique(lengths, return_inverse=True)
        return np.asarray([self.part_number(x) for x in uniq.tolist()],
                          dtype=object)[inverse.reshape(lengths.shape)]


class PanelModel(Orderable):
    """A patch panel of structured cabling (``planner.inputs.parts.structured``): ``ports``
    front adapters of one fibre type, where patch cords plug in at the front and trunk legs at
    the rear, in ``rack_units`` of a patch rack. ``connector`` / ``rear_connector`` are the
    NetBox port types of its front and rear (``mpo``; a cassette panel: ``lc-upc`` at the
    front, ``mpo`` at the rear)."""

    model_config = STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    fibre: str = Field(min_length=1)
    ports: int
    rack_units: PositiveInt = 1
    price: float = Field(ge=0)
    price_basis: PriceBasis | None = None
    connector: str = "mpo"
    rear_connector: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "PanelModel":
        if self.ports < 1:
            raise ValueError(f"field 'ports' is {self.ports}: a panel needs its front ports "
                             "(the adapters cords and trunk legs plug into), e.g. 48 MPO "
                             "adapters in 1U")
        for name in ("connector", "rear_connector"):
            value = getattr(self, name)
            if value is not None and value not in NETBOX_PORT_TYPES:
                raise ValueError(f"field '{name}' {value!r} is not a NetBox fibre port type; "
                                 f"use one of {', '.join(NETBOX_PORT_TYPES)}")
        return self

    @property
    def rear_type(self) -> str:
        """NetBox port type of the rear (the trunk side): ``rear_connector`` or ``connector``."""
        return self.rear_connector or self.connector


def _is_hex(text: str) -> bool:
    return len(text) == 6 and all(c in "0123456789abcdefABCDEF" for c in text)
