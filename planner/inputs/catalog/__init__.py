"""Router, link-part and NIC catalogs: schema, built-ins (``catalogs/*.yaml``) and loading.

A catalog lists what one may buy for one fabric rate: router models, the parts that build a link
and the endpoints' NIC. Prices are list prices in US dollars, lengths in metres, power in watts.
Every field, with an example, is described in ``docs/catalogs.md``; the price, power and reach
models and their sources are in ``docs/models.md``.

Routers. A router has ``cages`` physical cages of ``lanes_per_cage`` SerDes lanes each, split
``breakout`` ways: its logical radix is ``cages × breakout`` ports of ``lanes_per_cage /
breakout`` lanes. A catalog may give ``radix`` and ``lanes_per_port`` instead (one port per cage).

Link parts (the ``cables`` list, one entry per orderable part family):

- ``dac`` / ``acc`` / ``aoc``: a cable assembly that carries ``links`` links on its own (1; 2 for
  a twin-port assembly). A straight multi-link assembly joins two cages, so all its links go
  between the same two routers; a ``split`` one (a splitter) has one head at the router and
  ``links`` tails at NICs.
- ``transceiver``: an optic serving ``ports`` ports of one cage (2 = twin-port), plugged into
  fibre of its ``fibre`` type. A link is a transceiver at each end (at a NIC: the ``nic_end``
  model) plus one ``fibre`` part.
- ``fibre``: a patch cord of one fibre type, bought per stock length.
- ``trunk``: a multi-fibre trunk of one fibre type (``fibres`` fibres, fanned out into legs of
  that type at both ends), shared by the links between two patch panels of structured cabling
  (``planner.inputs.parts.structured``); a transceiver's ``fibres`` is what one of its links takes in it.

Patch panels (the ``panels`` list): ``ports`` front adapters of one fibre type in ``rack_units``
of a patch rack, where the cords meet the trunks.

Each part with stock lengths has an orderable part number per length: a table (``{3: MCP1600-C003,
...}``) or a template (``MCP1600-C{nv}``, fields in ``LENGTH_FIELDS``). Without one, the SKU is
the part number, which a SKU that looks like a family placeholder (``MCP1600-C0XX``) may not be.

The built-in ``sc14-40g`` is the 40 Gb/s model of Slim Fly (Besta & Hoefler, SC14) as restated
by Projective Networks (Camarero et al., §5.3): router 350.4·k − 892.3 $ (k = ports), electrical
cable 40·(0.4079·L + 0.5771) $, optical cable 40·(0.0919·L + 7.2745) $, 4 SerDes lanes × 0.7 W
per port. Setting ``optical_average_length_m`` prices every optical link at that one length, which
is how Projective Networks Tables 4-6 were made (5.1 m -> 7.7432 $/Gb/s for the ≈10K tables,
7.0 m -> 7.9178 for the ≈25K ones; docs/models.md).
"""

from __future__ import annotations

import math
import re
import string
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import (BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, PrivateAttr,
                      model_validator)

from planner.inputs import schema
from planner.run.errors import InputError

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

#: Fields of a part-number template, for one stock length L: ``{m}`` L in metres as written
#: (``0.5``, ``3``), ``{dm}`` / ``{cm}`` / ``{mm}`` whole decimetres / centimetres /
#: millimetres, ``{nv}`` NVIDIA LinkX's 3-character length code (``00A`` = 0.5 m, ``003`` = 3 m,
#: ``01A`` = 1.5 m, ``030`` = 30 m, ``100`` = 100 m).
LENGTH_FIELDS = ("m", "dm", "cm", "mm", "nv")

#: Fields of an interface-name template, for one logical port of a router:
INTERFACE_FIELDS = ("port", "port0", "cage", "cage0", "sub", "sub0", "lane0", "cage_lane")
"""``{port}``/``{port0}`` the port 1-/0-based, ``{cage}``/``{cage0}`` its cage, ``{sub}``/``{sub0}``
its position in the cage, ``{lane0}`` its first SerDes lane on the switch (0-based, SONiC names),
``{cage_lane}`` its first lane within the cage (1-based, EOS names: Ethernet1/1, Ethernet1/5)."""

#: A part number that still names a family: ``C0XX``, ``*``, ``?``, ``#``, ``...``.
PLACEHOLDER = re.compile(r"XX|xx|[*?#]|\.\.\.|…")

_STRICT = ConfigDict(frozen=True, extra="forbid")
_ASSEMBLIES = ("dac", "acc", "aoc")
_KIND_FIELDS = {"links": "cable assemblies (dac, acc, aoc)", "split": "cable assemblies",
                "ports": "transceivers", "nic_end": "transceivers",
                "fibre": "transceivers, fibre and trunk parts",
                "fibres": "transceivers (fibres of one link in a trunk) and trunks"}
_KIND_ALLOWED = {"transceiver": {"ports", "fibre", "nic_end", "fibres"}, "fibre": {"fibre"},
                 "trunk": {"fibre", "fibres"}}
"""The kind-specific fields each kind takes (assemblies: ``links`` and ``split``)."""

#: NetBox front/rear port types of a fibre patch panel (dcim/choices.py PortTypeChoices).
NETBOX_PORT_TYPES = ("mpo", "lc", "lc-pc", "lc-upc", "lc-apc", "sc", "sc-pc", "sc-upc",
                     "sc-apc", "st", "fc", "mtrj", "mdc", "cs", "sn", "splice")


def nvidia_length_code(length_m: float) -> str:
    """NVIDIA LinkX length code: ``003`` for 3 m, ``00A`` for 0.5 m, ``01A`` for 1.5 m."""
    whole = math.floor(length_m + 1e-9)
    if abs(length_m - whole) < 1e-9 and whole < 1000:
        return f"{whole:03d}"
    if abs(length_m - whole - 0.5) < 1e-9 and whole < 100:
        return f"{whole:02d}A"
    raise ValueError(f"{length_m:g} m has no NVIDIA length code (whole or half metres only)")


def length_fields(length_m: float) -> dict[str, object]:
    """The ``LENGTH_FIELDS`` values of one length."""
    try:
        code = nvidia_length_code(length_m)
    except ValueError:
        code = None
    return {"m": f"{length_m:g}", "dm": int(round(length_m * 10)), "cm": int(round(length_m * 100)),
            "mm": int(round(length_m * 1000)), "nv": code}


def _template_fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


class RouterPrice(BaseModel):
    """Router price rule: ``per_port * ports + fixed`` dollars (Slim Fly, SC14: 350.4·k − 892.3)."""

    model_config = _STRICT
    fixed: float = 0.0
    per_port: float = Field(0.0, ge=0)


class Extra(BaseModel):
    """An optional priced line: a NOS licence per router, or a rack-hardware item."""

    model_config = _STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    price: float = Field(ge=0)


class RackItem(Extra):
    """Rack hardware bought per router (rail kit), per cabinet (cable managers, PDUs) or per
    patch rack of structured cabling (the rack enclosure itself)."""

    per: Literal["router", "cabinet", "patch_rack"]


class RouterModel(BaseModel):
    """One router (switch) model."""

    model_config = _STRICT
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
        unknown = _template_fields(template) - set(INTERFACE_FIELDS)
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
    """Price: ``fixed + per_m * order_length``, or ``table`` = price per stock length."""

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
    """One link part family: a cable assembly, a transceiver or a fibre (module doc)."""

    model_config = _STRICT
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
    links: PositiveInt = 1                     # assemblies: links one assembly carries
    split: bool = False                        # assemblies: one head, `links` tails at NICs
    ports: PositiveInt = 1                     # transceivers: ports of one cage it serves
    fibre: str | None = None                   # transceivers, fibres, trunks: the fibre type
    nic_end: str | None = None                 # transceivers: sku of the module at a NIC
    fibres: PositiveInt | None = None          # trunks: fibre count; transceivers: per link

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

    def _check_part_numbers(self) -> None:
        numbers = self.part_numbers
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
            fields = _template_fields(numbers)
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
            for length in self.stock_lengths:
                values = length_fields(length)
                if "nv" in fields and values["nv"] is None:
                    raise ValueError(f"field 'part_numbers' template {numbers!r} uses {{nv}} "
                                     f"but {length:g} m has no NVIDIA length code")
                made.append(numbers.format(**values))
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
    def is_assembly(self) -> bool:
        return self.kind in _ASSEMBLIES

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
        length = np.asarray(length_m, dtype=float)
        if not self.stock_lengths:
            out = np.where(length <= self.max_reach_m, length, np.nan)
        else:
            idx = np.searchsorted(self._stock, length - 1e-9, side="left")
            out = np.where(idx < len(self._stock),
                           self._stock[np.minimum(idx, len(self._stock) - 1)], np.nan)
        return float(out) if np.ndim(length_m) == 0 else out

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
        part-number table or template)."""
        numbers = self.part_numbers
        if numbers is None:
            return self.sku
        if isinstance(numbers, dict):
            for key, text in numbers.items():
                if abs(key - order_length_m) < 1e-9:
                    return text
            raise ValueError(f"{self.sku}: no part number at {order_length_m:g} m")
        return numbers.format(**length_fields(float(order_length_m)))

    def part_numbers_at(self, order_lengths) -> np.ndarray:
        """``part_number`` of every ordered length (array of str), one format per distinct
        length."""
        lengths = np.asarray(order_lengths, dtype=float)
        if self.part_numbers is None:
            return np.full(lengths.shape, self.sku, dtype=object)
        uniq, inverse = np.unique(lengths, return_inverse=True)
        return np.asarray([self.part_number(x) for x in uniq.tolist()],
                          dtype=object)[inverse.reshape(lengths.shape)]


class PanelModel(BaseModel):
    """A patch panel of structured cabling (``planner.inputs.parts.structured``): ``ports`` front adapters
    of one fibre type, where patch cords plug in at the front and trunk legs at the rear, in
    ``rack_units`` of a patch rack. ``connector`` / ``rear_connector`` are the NetBox port
    types of its front and rear (``mpo``; a cassette panel: ``lc-upc`` at the front, ``mpo``
    at the rear)."""

    model_config = _STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    fibre: str = Field(min_length=1)
    ports: int
    rack_units: PositiveInt = 1
    price: float = Field(ge=0)
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


class Catalog(BaseModel):
    """Routers, link parts and the NIC one may buy, plus the paper-mode switches."""

    model_config = _STRICT
    name: str = Field(min_length=1)
    description: str = ""
    routers: list[RouterModel] = Field(min_length=1)
    cables: list[CableModel] = Field(min_length=1)
    optical_average_length_m: PositiveFloat | None = None
    nic: NicModel | None = None
    endpoint_watts: float = Field(0.0, ge=0)  # one server without its NIC, for cabinet kW
    count_endpoint_cables: bool = True
    rack_hardware: list[RackItem] = Field(default_factory=list)
    panels: list[PanelModel] = Field(default_factory=list)
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
            if item.rate_gbps is not None and item.rate_gbps != rate:
                raise ValueError(f"field '{where}.rate_gbps' (sku '{item.sku}') is "
                                 f"{item.rate_gbps:g} but "
                                 f"routers[0] runs at {rate:g} Gb/s; one catalog is one fabric "
                                 "rate, so put other rates in their own catalog")
        return self

    @model_validator(mode="after")
    def _parts_fit(self) -> "Catalog":
        """Transceivers find their fibre and NIC-end model; every part fits a router's cages."""
        fibres = {m.fibre for m in self.cables if m.kind == "fibre"}
        by_sku = {m.sku: m for m in self.cables}
        nic_ends = {m.nic_end for m in self.cables if m.nic_end}
        breakouts = {r.breakout for r in self.routers}
        for i, m in enumerate(self.cables):
            where = f"cables[{i}]"
            if m.kind == "transceiver" and m.fibre not in fibres:
                raise ValueError(f"field '{where}.fibre' (sku '{m.sku}') is {m.fibre!r} but no "
                                 f"kind: fibre part has that type ({', '.join(sorted(fibres)) or 'none'}); "
                                 "add the fibre it plugs into")
            if m.nic_end:
                end = by_sku.get(m.nic_end)
                if end is None or end.kind != "transceiver":
                    raise ValueError(f"field '{where}.nic_end' (sku '{m.sku}') is "
                                     f"{m.nic_end!r}, not a transceiver of this catalog")
                if end.fibre != m.fibre or end.ports != 1:
                    raise ValueError(f"field '{where}.nic_end' (sku '{m.sku}') names "
                                     f"{m.nic_end!r}, which must be a single-port transceiver "
                                     f"on fibre {m.fibre!r}")
            head = m.links if m.is_assembly else m.ports if m.kind == "transceiver" else None
            if head is not None and head not in breakouts and m.sku not in nic_ends:
                raise ValueError(f"field '{where}.{'links' if m.is_assembly else 'ports'}' "
                                 f"(sku '{m.sku}') is {head} but the routers split their cages "
                                 f"{' or '.join(str(b) for b in sorted(breakouts))} ways; a part "
                                 "fills one cage, so match a router's breakout")
        return self

    @model_validator(mode="after")
    def _structured_parts_fit(self) -> "Catalog":
        """Trunks and panels serve a fibre type some transceiver plugs into; every transceiver
        on a trunk's type says how many of its fibres one link takes, all the same, and the
        trunk's fibre count is a whole number of such links; a panel takes a whole trunk."""
        cords = {m.fibre for m in self.cables if m.kind == "fibre"}
        optics = {m.fibre for m in self.cables if m.kind == "transceiver"}
        for i, m in enumerate(self.cables):
            if m.kind != "trunk":
                continue
            where = f"cables[{i}]"
            if m.fibre not in optics:
                raise ValueError(f"field '{where}.fibre' (sku '{m.sku}') is {m.fibre!r} but no "
                                 "transceiver plugs into that fibre type "
                                 f"({', '.join(sorted(optics)) or 'none'}); name one of them")
            per_link = self._fibres_per_link(m.fibre)
            for j, t in per_link:
                if m.fibres % t.fibres:
                    raise ValueError(
                        f"field '{where}.fibres' (sku '{m.sku}') {m.fibres} cannot carry the "
                        f"links of transceiver {t.sku!r}, which take {t.fibres} fibres each; "
                        f"give a multiple of {t.fibres} (e.g. {t.fibres * 12})")
        for i, p in enumerate(self.panels):
            where = f"panels[{i}]"
            if p.fibre not in cords or p.fibre not in optics:
                raise ValueError(f"field '{where}.fibre' (sku '{p.sku}') is {p.fibre!r} but no "
                                 "patch cord (kind: fibre) and transceiver of that fibre type "
                                 f"are listed ({', '.join(sorted(cords & optics)) or 'none'}); "
                                 "name one of them")
            for trunk in self.trunks(p.fibre):
                legs = self.links_per_trunk(trunk)
                if p.ports < legs:
                    raise ValueError(f"field '{where}.ports' (sku '{p.sku}') {p.ports} cannot "
                                     f"take one trunk {trunk.sku!r} ({legs} links); give at "
                                     f"least {legs} ports")
        return self

    def _fibres_per_link(self, fibre: str) -> list[tuple[int, CableModel]]:
        """(index, transceiver) of the transceivers on ``fibre``, when a trunk serves it: each
        must give ``fibres``, all the same (ValueError naming the field otherwise)."""
        found = [(j, t) for j, t in enumerate(self.cables)
                 if t.kind == "transceiver" and t.fibre == fibre]
        for j, t in found:
            if t.fibres is None:
                raise ValueError(f"field 'cables[{j}].fibres' (sku '{t.sku}') is missing: a trunk "
                                 f"carries {fibre} links, so give the fibres one link of this "
                                 "transceiver takes in it (12 for an MPO-12 leg, 2 for duplex LC)")
            first = found[0][1]
            if t.fibres != first.fibres:
                raise ValueError(f"field 'cables[{j}].fibres' (sku '{t.sku}') is {t.fibres} but "
                                 f"{first.sku!r} on the same fibre type {fibre} takes "
                                 f"{first.fibres}; a trunk's legs are of one kind, so give "
                                 "the same count")
        return found

    def trunks(self, fibre: str) -> list[CableModel]:
        """The trunk parts of a fibre type."""
        return [m for m in self.cables if m.kind == "trunk" and m.fibre == fibre]

    def links_per_trunk(self, trunk: CableModel) -> int:
        """Links one trunk carries: its fibres over the fibres one link of its type takes."""
        per_link = next(t.fibres for t in self.cables
                        if t.kind == "transceiver" and t.fibre == trunk.fibre)
        return trunk.fibres // per_link

    def structured_fibres(self) -> list[str]:
        """Fibre types that can build a structured link: a transceiver, a patch cord, a trunk
        and a panel of that type."""
        kinds: dict[str, set[str]] = {}
        for m in self.cables:
            if m.fibre is not None:
                kinds.setdefault(m.fibre, set()).add(m.kind)
        return sorted(f for f, have in kinds.items()
                      if {"transceiver", "fibre", "trunk"} <= have
                      and any(p.fibre == f for p in self.panels))

    @model_validator(mode="after")
    def _average_is_orderable(self) -> "Catalog":
        problem = self._average_problem(self.optical_average_length_m)
        if problem:
            raise ValueError(f"field 'optical_average_length_m' {problem}")
        return self

    def optical_longest_m(self, model: CableModel) -> float:
        """Longest optical link a part builds: an AOC's longest length; a transceiver's reach
        capped by the longest fibre of its type."""
        if model.kind != "transceiver":
            return model.longest_m
        fibre = max((f.longest_m for f in self.cables
                     if f.kind == "fibre" and f.fibre == model.fibre), default=0.0)
        return min(model.max_reach_m, fibre)

    def _average_problem(self, avg: float | None) -> str:
        """Why no optical link can be priced at the paper-mode length ('' if one can)."""
        optical = [m for m in self.cables if m.kind in ("aoc", "transceiver")]
        longest = max((self.optical_longest_m(m) for m in optical), default=0.0)
        if avg is None or avg <= longest:
            return ""
        return (f"is {avg:g} m but the longest optical cable is {longest:g} m; lower it or "
                "add a longer optical model")

    @model_validator(mode="after")
    def _unique_skus(self) -> "Catalog":
        seen: dict[str, str] = {}
        extras = ([("nic", self.nic)] if self.nic is not None else []) + [
            (f"rack_hardware[{i}]", m) for i, m in enumerate(self.rack_hardware)] + [
            (f"panels[{i}]", m) for i, m in enumerate(self.panels)]
        for where, item in self._items() + extras:
            if item.sku in seen:
                raise ValueError(f"field '{where}.sku' {item.sku!r} repeats {seen[item.sku]}; "
                                 "every router, cable, panel and NIC model needs its own SKU")
            seen[item.sku] = where
        numbers: dict[str, str] = {}
        for i, m in enumerate(self.cables):
            if m.part_numbers is None:
                continue
            for length in m.stock_lengths:
                text = m.part_number(length)
                other = numbers.get(text)
                if other is not None and other != f"cables[{i}]":
                    raise ValueError(f"field 'cables[{i}].part_numbers' (sku '{m.sku}') gives "
                                     f"{text!r}, which {other} also uses; part numbers must "
                                     "be unique in a catalog")
                numbers[text] = f"cables[{i}]"
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
        """The link part with this SKU."""
        for model in self.cables:
            if model.sku == sku:
                return model
        raise InputError(f"catalog '{self.source}': no cable model with sku '{sku}'; "
                         f"choose one of {', '.join(m.sku for m in self.cables)}")

    def cable_index(self, sku: str) -> int:
        """Position of the link part with this SKU in ``cables``."""
        return self.cables.index(self.cable(sku))

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
