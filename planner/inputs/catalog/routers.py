"""Router models, the priced lines bought with them (NOS licence, rack hardware) and the
endpoints' NIC.

A router has ``cages`` physical cages of ``lanes_per_cage`` SerDes lanes each, split
``breakout`` ways: its logical radix is ``cages × breakout`` ports of ``lanes_per_cage /
breakout`` lanes. A catalog may give ``radix`` and ``lanes_per_port`` instead (one port per cage).
Its interface names come from a template (``INTERFACE_FIELDS``). ``STRICT`` is the model config
of every catalog entry (frozen, no unknown fields).
"""

from __future__ import annotations

from functools import cached_property
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

from planner.inputs.catalog.orderable import Orderable
from planner.inputs.catalog.part_numbers import template_fields
from planner.inputs.catalog.pricing import PriceBasis, Subscription

#: Fields of an interface-name template, for one logical port of a router:
INTERFACE_FIELDS = ("port", "port0", "cage", "cage0", "sub", "sub0", "lane0", "cage_lane")
"""``{port}``/``{port0}`` the port 1-/0-based, ``{cage}``/``{cage0}`` its cage, ``{sub}``/``{sub0}``
its position in the cage, ``{lane0}`` its first SerDes lane on the switch (0-based, SONiC names),
``{cage_lane}`` its first lane within the cage (1-based, EOS names: Ethernet1/1, Ethernet1/5)."""

STRICT = ConfigDict(frozen=True, extra="forbid")


class RouterPrice(BaseModel):
    """Router price rule: ``per_port * ports + fixed`` dollars (Slim Fly, SC14: 350.4·k − 892.3)."""

    model_config = STRICT
    fixed: float = 0.0
    per_port: float = Field(0.0, ge=0)


class Extra(Orderable):
    """An optional priced line: a NOS licence per router, or a rack-hardware item."""

    model_config = STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    price: float = Field(ge=0)
    price_basis: PriceBasis | None = None      # the catalog's price_basis without it


class RackItem(Extra):
    """Rack hardware bought per router (rail kit), per cabinet (cable managers, PDUs) or per
    patch rack of structured cabling (the rack enclosure itself)."""

    per: Literal["router", "cabinet", "patch_rack"]


class RouterModel(Orderable):
    """One router (switch) model; ``airflow`` gives its complete number per airflow direction
    (the catalog's ``airflow`` chooses one, which becomes its ``sku``)."""

    model_config = STRICT
    sku: str = Field(min_length=1)
    vendor: str = Field(min_length=1)
    description: str = ""
    rate_gbps: PositiveFloat                   # per logical port
    lanes_per_port: PositiveInt
    radix: PositiveInt                         # logical ports = cages x breakout
    cages: PositiveInt | None = None           # physical cages (OSFP, QSFP...)
    lanes_per_cage: PositiveInt | None = None
    breakout: PositiveInt = 1                  # logical ports per cage
    interface_names: str | None = None         # vendor names, e.g. "swp{cage}s{sub0}"
    price_rule: RouterPrice = Field(alias="price")
    watts_per_lane: float = Field(ge=0)
    base_watts: float = Field(0.0, ge=0)  # chassis: fans, CPU, ASIC core, whatever ports are used
    latency_ns: PositiveFloat | None = None  # port-to-port forwarding delay, for performance
    rack_units: float = Field(gt=0)
    licence: Extra | None = None               # NOS licence, one per router
    power_supplies: int = Field(2, ge=0)       # power ports of the NetBox device type
    power_port_type: str = "iec-60320-c14"
    managed: bool = True        # runs its own management (an InfiniBand subnet manager too)
    support: Subscription | None = None        # support / NOS subscription per switch and year
    price_basis: PriceBasis | None = None
    airflow: dict[Literal["front-to-back", "back-to-front"], str] | None = None
    airflow_ordering_numbers: dict[Literal["front-to-back", "back-to-front"], str] | None = None

    def orderable_numbers(self) -> list[tuple[str, str]]:
        """The numbers per airflow when it has them (its SKU is then the model name until
        the catalog chooses one), else its SKU."""
        out = [(f"airflow.{k}", v) for k, v in (self.airflow or {}).items()] or \
            [("sku", self.sku)]
        return out + [(f"airflow_ordering_numbers.{k}", v)
                      for k, v in (self.airflow_ordering_numbers or {}).items()]

    def with_airflow(self, direction: str) -> "RouterModel":
        """The model ordered with ``direction`` airflow: its SKU the number for it
        (ValueError when it has numbers per airflow but none for ``direction``)."""
        if not self.airflow:
            return self
        if direction not in self.airflow:
            raise ValueError(f"has no {direction} number (field 'airflow' gives "
                             f"{', '.join(self.airflow)}); add airflow.{direction} or choose "
                             "the catalog's airflow among those")
        ordering = (self.airflow_ordering_numbers or {}).get(direction, self.ordering_number)
        return self.model_copy(update={"sku": self.airflow[direction],
                                       "ordering_number": ordering})

    @model_validator(mode="before")
    @classmethod
    def _from_cages(cls, data):
        """``cages``/``lanes_per_cage``/``breakout`` give ``radix`` and ``lanes_per_port``."""
        if not isinstance(data, dict) or data.get("cages") is None:
            return data
        cages, lanes, split = data.get("cages"), data.get("lanes_per_cage"), data.get("breakout", 1)
        if not all(isinstance(v, int) and v > 0 for v in (cages, split)):
            return data
        if not isinstance(lanes, int) or lanes <= 0:
            if "lanes_per_port" in data:
                return data
            raise ValueError("field 'lanes_per_cage' is missing; give the SerDes lanes of one "
                             "cage (8 for OSFP and QSFP-DD, 4 for QSFP28/56/112)")
        if lanes % split:
            divisors = ", ".join(str(d) for d in range(1, lanes + 1) if lanes % d == 0)
            raise ValueError(f"field 'breakout' {split} does not divide the {lanes} lanes of a "
                             f"cage; use one of {divisors}")
        data = dict(data)
        data.setdefault("radix", cages * split)
        data.setdefault("lanes_per_port", lanes // split)
        return data

    @model_validator(mode="after")
    def _consistent(self) -> "RouterModel":
        if self.cages is not None:
            if self.radix != self.cages * self.breakout:
                raise ValueError(f"field 'radix' {self.radix} is not cages x breakout = "
                                 f"{self.cages} x {self.breakout}; drop it or fix it")
            lanes = self.lanes_per_cage or self.lanes_per_port * self.breakout
            if self.lanes_per_port * self.breakout != lanes:
                raise ValueError(f"field 'lanes_per_port' {self.lanes_per_port} is not "
                                 f"lanes_per_cage / breakout = {lanes} / {self.breakout}")
        elif self.breakout != 1:
            raise ValueError("field 'cages' is missing; a breakout needs the number of cages")
        if self.price(self.radix) <= 0:
            raise ValueError(f"field 'price' gives {self.price(self.radix):.2f} $ at radix "
                             f"{self.radix}; the price at full radix must be positive")
        if self.interface_names is not None:
            names = self._names()
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise ValueError(f"field 'interface_names' {self.interface_names!r} gives "
                                 f"{dupes[0]!r} to two ports; use {{port}} or {{cage}} and "
                                 "{sub} so every port has its own name")
        return self

    def _names(self) -> list[str]:
        template = self.interface_names or "{port}"
        unknown = template_fields(template) - set(INTERFACE_FIELDS)
        if unknown:
            raise ValueError(f"field 'interface_names' uses {{{sorted(unknown)[0]}}}; the "
                             f"fields are {', '.join('{' + f + '}' for f in INTERFACE_FIELDS)}")
        out = []
        for p in range(self.radix):
            cage, sub = divmod(p, self.breakout)
            try:
                out.append(template.format(port=p + 1, port0=p, cage=cage + 1, cage0=cage,
                                           sub=sub + 1, sub0=sub,
                                           lane0=p * self.lanes_per_port,
                                           cage_lane=sub * self.lanes_per_port + 1))
            except (ValueError, IndexError) as err:
                raise ValueError(f"field 'interface_names' {template!r} cannot be formatted "
                                 f"({err}); write e.g. 'swp{{cage}}s{{sub0}}'") from None
        return out

    @cached_property
    def interface_name_list(self) -> list[str]:
        """Interface name of every logical port 1..radix (the port number without a template)."""
        return self._names()

    @property
    def cage_count(self) -> int:
        """Physical cages (the radix when the catalog gives no cages)."""
        return self.cages if self.cages is not None else self.radix

    def price(self, ports):
        """Dollars for a router with ``ports`` ports (scalar or array): per_port·ports + fixed."""
        out = self.price_rule.per_port * np.asarray(ports, dtype=float) + self.price_rule.fixed
        return float(out) if np.ndim(ports) == 0 else out

    def power_w(self, ports):
        """SerDes power: ports × lanes_per_port × watts_per_lane (docs/models.md "Power")."""
        out = self.lanes_per_port * self.watts_per_lane * np.asarray(ports, dtype=float)
        return float(out) if np.ndim(ports) == 0 else out


class NicModel(Orderable):
    """The endpoints' network adapter, one per endpoint (optional): a BOM line of its own and
    ``watts`` per endpoint in the power total (Galaxyfly §6.3 adds 10 W per NIC)."""

    model_config = STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    price: float = Field(0.0, ge=0)
    watts: float = Field(0.0, ge=0)
    price_basis: PriceBasis | None = None
