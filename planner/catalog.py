"""Router and cable catalogs: schema, built-ins (``catalogs/*.yaml``) and loading.

A catalog lists the router models one may buy and the cable models that connect them, all at
one port rate (one fabric). Prices are list prices in US dollars, lengths in metres, power in
watts. A cable is sold cut to length (``stock_lengths: []``, price ``fixed + per_m·L``) or in
stock lengths (price ``fixed + per_m·L`` or a ``table`` of one price per stock length).

The built-in ``sc14-40g`` is the 40 Gb/s model of Slim Fly (Besta & Hoefler, SC14) as restated
by Projective Networks (Camarero et al., §5.3): router 350.4·k − 892.3 $ (k = ports), electrical
cable 40·(0.4079·L + 0.5771) $, optical cable 40·(0.0919·L + 7.2745) $, 4 SerDes lanes × 0.7 W
per port (shared/reference/cost_models.md A1, A2). Setting ``optical_average_length_m`` prices
every optical cable at that one length, which is how Projective Networks Tables 4-6 were made
(5.1 m -> 7.7432 $/Gb/s for the ≈10K tables, 7.0 m -> 7.9178 for the ≈25K ones, cost_models C7).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import (BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, PrivateAttr,
                      model_validator)

from planner import schema
from planner.errors import InputError

FOLDER = "catalogs"

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

_STRICT = ConfigDict(frozen=True, extra="forbid")


class RouterPrice(BaseModel):
    """Router price rule: ``per_port * ports + fixed`` dollars (SF14: 350.4·k − 892.3)."""

    model_config = _STRICT
    fixed: float = 0.0
    per_port: float = Field(0.0, ge=0)


class RouterModel(BaseModel):
    """One router (switch) model."""

    model_config = _STRICT
    sku: str = Field(min_length=1)
    vendor: str = Field(min_length=1)
    description: str = ""
    rate_gbps: PositiveFloat
    lanes_per_port: PositiveInt
    radix: PositiveInt
    price_rule: RouterPrice = Field(alias="price")
    watts_per_lane: float = Field(ge=0)
    base_watts: float = Field(0.0, ge=0)  # chassis: fans, CPU, ASIC core, whatever ports are used
    latency_ns: PositiveFloat | None = None  # port-to-port forwarding delay, for performance
    rack_units: float = Field(gt=0)

    @model_validator(mode="after")
    def _positive_price(self) -> "RouterModel":
        if self.price(self.radix) <= 0:
            raise ValueError(f"field 'price' gives {self.price(self.radix):.2f} $ at radix "
                             f"{self.radix}; the price at full radix must be positive")
        return self

    def price(self, ports):
        """Dollars for a router with ``ports`` ports (scalar or array): per_port·ports + fixed."""
        out = self.price_rule.per_port * np.asarray(ports, dtype=float) + self.price_rule.fixed
        return float(out) if np.ndim(ports) == 0 else out

    def power_w(self, ports):
        """SerDes power: ports × lanes_per_port × watts_per_lane (SF14; cost_models A1)."""
        out = self.lanes_per_port * self.watts_per_lane * np.asarray(ports, dtype=float)
        return float(out) if np.ndim(ports) == 0 else out


class NicModel(BaseModel):
    """The endpoints' network adapter, one per endpoint (optional): a BOM line of its own and
    ``watts`` per endpoint in the power total (Galaxyfly §6.3 adds 10 W per NIC)."""

    model_config = _STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    price: float = Field(0.0, ge=0)
    watts: float = Field(0.0, ge=0)


class CablePrice(BaseModel):
    """Cable price: ``fixed + per_m * order_length``, or ``table`` = price per stock length."""

    model_config = _STRICT
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


class CableModel(BaseModel):
    """One cable assembly (or transceiver pair + fibre) carrying one link."""

    model_config = _STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    media: Literal["electrical", "optical"]
    kind: Literal["dac", "acc", "aoc", "transceiver"]
    rate_gbps: PositiveFloat
    max_reach_m: PositiveFloat
    stock_lengths: list[PositiveFloat] = Field(default_factory=list)
    price_rule: CablePrice = Field(alias="price")
    watts_per_end: float = Field(0.0, ge=0)
    netbox_type: str
    color: str

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
                             "dac/acc are electrical, aoc/transceiver optical")
        table = self.price_rule.table
        if table is not None and sorted(table) != sorted(stock):
            raise ValueError(f"field 'price' table lengths {sorted(table)} must equal "
                             f"stock_lengths {stock}")
        if self.netbox_type not in NETBOX_CABLE_TYPES:
            raise ValueError(f"field 'netbox_type' {self.netbox_type!r} is not a NetBox cable "
                             f"type; use one of {', '.join(NETBOX_CABLE_TYPES)}")
        if self.color not in COLOR_HEX and not _is_hex(self.color):
            raise ValueError(f"field 'color' {self.color!r} is neither a NetBox colour name "
                             f"({', '.join(COLOR_HEX)}) nor a 6-digit hex value")
        return self

    @property
    def color_hex(self) -> str:
        """Six hex digits, as NetBox stores colours."""
        return COLOR_HEX.get(self.color, self.color.lower())

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
        length = np.asarray(length_m, dtype=float)
        if not self.stock_lengths:
            out = np.where(length <= self.max_reach_m, length, np.nan)
        else:
            idx = np.searchsorted(self._stock, length - 1e-9, side="left")
            out = np.where(idx < len(self._stock),
                           self._stock[np.minimum(idx, len(self._stock) - 1)], np.nan)
        return float(out) if np.ndim(length_m) == 0 else out

    def price(self, order_length_m):
        """Dollars for one cable of the given ordered length (scalar or array)."""
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


def _is_hex(text: str) -> bool:
    return len(text) == 6 and all(c in "0123456789abcdefABCDEF" for c in text)


class Catalog(BaseModel):
    """Routers and cables one may buy, plus the paper-mode switches."""

    model_config = _STRICT
    name: str = Field(min_length=1)
    description: str = ""
    routers: list[RouterModel] = Field(min_length=1)
    cables: list[CableModel] = Field(min_length=1)
    optical_average_length_m: PositiveFloat | None = None
    nic: NicModel | None = None
    endpoint_watts: float = Field(0.0, ge=0)  # one server without its NIC, for cabinet kW
    count_endpoint_cables: bool = True
    _source: str | None = PrivateAttr(None)

    @property
    def source(self) -> str:
        """The file it was loaded from (built-ins: their name), for error messages."""
        return self._source or self.name

    @property
    def nic_watts(self) -> float:
        """Power of one endpoint's NIC (0 without a NIC model)."""
        return self.nic.watts if self.nic is not None else 0.0

    @property
    def nic_price(self) -> float:
        """Price of one endpoint's NIC (0 without a NIC model)."""
        return self.nic.price if self.nic is not None else 0.0

    def _items(self) -> list[tuple[str, RouterModel | CableModel]]:
        """(``routers[i]`` / ``cables[i]``, model) for every model, in file order."""
        return ([(f"routers[{i}]", m) for i, m in enumerate(self.routers)]
                + [(f"cables[{i}]", m) for i, m in enumerate(self.cables)])

    @model_validator(mode="after")
    def _one_rate(self) -> "Catalog":
        rate = self.routers[0].rate_gbps
        for where, item in self._items():
            if item.rate_gbps != rate:
                raise ValueError(f"field '{where}.rate_gbps' (sku '{item.sku}') is "
                                 f"{item.rate_gbps:g} but "
                                 f"routers[0] runs at {rate:g} Gb/s; one catalog is one fabric "
                                 "rate, so put other rates in their own catalog")
        return self

    @model_validator(mode="after")
    def _average_is_orderable(self) -> "Catalog":
        problem = self._average_problem(self.optical_average_length_m)
        if problem:
            raise ValueError(f"field 'optical_average_length_m' {problem}")
        return self

    def _average_problem(self, avg: float | None) -> str:
        """Why no optical model can be priced at the paper-mode length ('' if one can)."""
        optical = [m for m in self.cables if m.media == "optical"]
        if avg is None or any(avg <= m.longest_m for m in optical):
            return ""
        longest = max((m.longest_m for m in optical), default=0.0)
        return (f"is {avg:g} m but the longest optical cable is {longest:g} m; lower it or "
                "add a longer optical model")

    @model_validator(mode="after")
    def _unique_skus(self) -> "Catalog":
        seen: dict[str, str] = {}
        for where, item in self._items() + ([("nic", self.nic)] if self.nic is not None else []):
            if item.sku in seen:
                raise ValueError(f"field '{where}.sku' {item.sku!r} repeats {seen[item.sku]}; "
                                 "every router, cable and NIC model needs its own SKU")
            seen[item.sku] = where
        return self

    def router_for(self, radix: int) -> RouterModel:
        """Cheapest router model with at least ``radix`` ports (price at ``radix`` ports used);
        ties go to the earlier model in the file. InputError naming the largest radix when none
        fits, or the price field when its rule is not positive at ``radix`` (350.4·k − 892.3
        at k ≤ 2)."""
        fitting = [m for m in self.routers if m.radix >= radix]
        if not fitting:
            best = max(self.routers, key=lambda m: m.radix)
            raise InputError(f"catalog '{self.source}': the topology needs routers with {radix} "
                             f"ports but the largest model ({best.sku}) has radix {best.radix} "
                             "(field 'routers[].radix'); add a router model with at least "
                             f"{radix} ports or choose a smaller topology")
        best = min(fitting, key=lambda m: m.price(radix))
        if best.price(radix) <= 0:
            where = f"routers[{self.routers.index(best)}].price"
            raise InputError(f"catalog '{self.source}': field '{where}' (sku '{best.sku}') gives "
                             f"{best.price(radix):.2f} $ at {radix} ports; the rule only holds "
                             "for larger routers, so give a fixed price for small ones")
        return best

    def cable(self, sku: str) -> CableModel:
        """The cable model with this SKU."""
        for model in self.cables:
            if model.sku == sku:
                return model
        raise InputError(f"catalog '{self.source}': no cable model with sku '{sku}'; "
                         f"choose one of {', '.join(m.sku for m in self.cables)}")

    def with_optical_average(self, length_m: float | None) -> "Catalog":
        """Paper mode (Projective Networks Tables 4-6): price every optical cable at one
        length (5.1 m ≈10K tables, 7.0 m ≈25K tables); ``None`` switches it off."""
        if length_m is not None and not length_m > 0:
            raise InputError(f"catalog '{self.source}': optical average length must be a "
                             f"positive number of metres, got {length_m}")
        problem = self._average_problem(length_m)
        if problem:
            raise InputError(f"catalog '{self.source}': optical average length {problem}")
        return self.model_copy(update={"optical_average_length_m": length_m})


def list_catalogs() -> list[str]:
    """Names of the built-in catalogs."""
    return schema.builtin_names(FOLDER)


def load_catalog(name_or_path: str | Path) -> Catalog:
    """A built-in catalog by name, or a catalog YAML file; InputError with file + field."""
    return schema.load(Catalog, name_or_path, FOLDER, "catalog")
