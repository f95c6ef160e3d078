"""What a fabric needs besides its links.

- ``Device``: a box the fabric needs beside its switches (subnet-manager appliance or host,
  management switch, PDU): rack units, power supplies, watts, ports.
- ``SubnetManager``: how an InfiniBand fabric is managed (``mode``): an ``appliance`` (e.g.
  NVIDIA UFM Enterprise), a ``licence`` plus ``hosts`` to run it, or ``switch`` (managed
  switches run the subnet manager themselves).
- ``Management``: the out-of-band network: 1GbE management switches, one per ``cabinets_per_switch``
  cabinets of a row (the whole row without it), and a copper patch cord per managed device.
- ``Power``: rack PDUs (outlets, rated kW, the continuous derating), power cords and the
  feeds (2 = redundant A/B).

The BOM lines they make are ``planner.costing.fabric``'s; the fields are in docs/catalogs.md.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, PositiveFloat, PositiveInt, model_validator

from planner.inputs.catalog.orderable import Orderable
from planner.inputs.catalog.pricing import PriceBasis, Subscription
from planner.inputs.catalog.routers import STRICT, Extra

NOT_INCLUDED = ("compute cabinets", "servers", "storage", "in-band network", "installation")
"""What a plan's BOM leaves out unless the catalog describes it (``not_included``)."""


class Device(Extra):
    """A box bought beside the switches: rack units, power supplies (one outlet and one cord
    each), watts drawn, 1GbE ports (a management switch), a management port of its own."""

    rack_units: PositiveFloat = 1
    power_supplies: int = Field(2, ge=0)
    watts: float = Field(0.0, ge=0)
    ports: int = Field(0, ge=0)
    managed: bool = True                # has a management port on the out-of-band network
    support: Subscription | None = None


class SubnetManager(BaseModel):
    """How an InfiniBand fabric is managed (module doc); ``count`` appliances or hosts (2: a
    high-availability pair)."""

    model_config = STRICT
    mode: Literal["appliance", "licence", "switch"]
    appliance: Device | None = None
    licence: Extra | None = None
    licence_per: Literal["host", "switch", "endpoint"] = "host"
    hosts: Device | None = None
    count: PositiveInt = 2

    @model_validator(mode="after")
    def _parts_of_mode(self) -> "SubnetManager":
        need = {"appliance": ("appliance",), "licence": ("licence", "hosts"), "switch": ()}
        for name in need[self.mode]:
            if getattr(self, name) is None:
                raise ValueError(f"mode {self.mode!r} needs field '{name}'; give it, or choose "
                                 "another mode (appliance, licence, switch)")
        return self


class PatchCord(Orderable):
    """A copper patch cord bought per stock length (Cat6 to the management ports)."""

    model_config = STRICT
    sku: str = Field(min_length=1)
    vendor: str = "generic"
    description: str = ""
    color: str = "blue"                 # jacket colour (NetBox ColorChoices name or hex)
    stock_lengths: list[PositiveFloat] = Field(min_length=1)
    part_numbers: str = Field(min_length=1)     # template, ``{m}`` = the length in metres
    price_fixed: float = Field(0.0, ge=0)
    price_per_m: float = Field(0.0, ge=0)
    price_basis: PriceBasis | None = None

    @model_validator(mode="after")
    def _increasing(self) -> "PatchCord":
        stock = self.stock_lengths
        if any(b <= a for a, b in zip(stock, stock[1:])):
            raise ValueError(f"field 'stock_lengths' must be strictly increasing, got {stock}")
        if "{m}" not in self.part_numbers:
            raise ValueError(f"field 'part_numbers' {self.part_numbers!r} has no {{m}}; every "
                             "stock length needs its own part number")
        return self

    def orderable_numbers(self) -> list[tuple[str, str]]:
        """(field, number) of every stock length's part number."""
        return [("part_numbers", self.part_number(x)) for x in self.stock_lengths]

    def order_length(self, length_m) -> np.ndarray:
        """Next stock length >= each length (NaN beyond the longest)."""
        stock = np.asarray(self.stock_lengths, dtype=float)
        length = np.asarray(length_m, dtype=float)
        idx = np.searchsorted(stock, length - 1e-9, side="left")
        return np.where(idx < len(stock), stock[np.minimum(idx, len(stock) - 1)], np.nan)

    def price(self, order_length_m: float) -> float:
        return self.price_fixed + self.price_per_m * float(order_length_m)

    def part_number(self, order_length_m: float) -> str:
        return self.part_numbers.format(m=f"{order_length_m:g}")


class Management(BaseModel):
    """The out-of-band management network (module doc)."""

    model_config = STRICT
    switch: Device
    cabinets_per_switch: PositiveInt | None = None      # None: one group per row
    cable: PatchCord

    @model_validator(mode="after")
    def _ports(self) -> "Management":
        if self.switch.ports < 1:
            raise ValueError("field 'switch.ports' is missing; give the management switch's "
                             "1GbE ports (48 for an SN2201)")
        return self


class Power(BaseModel):
    """Rack PDUs and power cords. Every power supply of every device gets an outlet and a
    cord; a PDU carries at most ``kw`` × ``derating_pct`` % continuously (NEC 210.19/210.20:
    continuous loads at 80 % of the rating); ``feeds: 2`` puts half the supplies on an A and
    half on a B feed, each able to carry the cabinet alone."""

    model_config = STRICT
    pdu: Device
    outlets: PositiveInt
    kw: PositiveFloat                   # the PDU's rating
    derating_pct: float = Field(80.0, gt=0, le=100)
    feeds: Literal[1, 2] = 2
    cord: Extra
