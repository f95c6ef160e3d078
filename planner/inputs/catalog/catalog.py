"""The ``Catalog``: one file's routers, link parts, panels, rack hardware and NIC checked
together, the look-ups the later stages make in it, the built-ins (``catalogs/*.yaml``) and
``load_catalog``.

Checks across the lists: one fabric rate; every transceiver finds its fibre and NIC-end model;
every assembly and transceiver fills one cage of a router (its links or ports match a breakout);
trunks and panels serve a fibre type some transceiver plugs into; the paper-mode length is
orderable; SKUs and part numbers are unique.

The built-in ``sc14-40g`` is the 40 Gb/s model of Slim Fly (Besta & Hoefler, SC14) as restated
by Projective Networks (Camarero et al., §5.3): router 350.4·k − 892.3 $ (k = ports), electrical
cable 40·(0.4079·L + 0.5771) $, optical cable 40·(0.0919·L + 7.2745) $, 4 SerDes lanes × 0.7 W
per port. Setting ``optical_average_length_m`` prices every optical link at that one length, which
is how Projective Networks Tables 4-6 were made (5.1 m -> 7.7432 $/Gb/s for the ≈10K tables,
7.0 m -> 7.9178 for the ≈25K ones; docs/models.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, PositiveFloat, PrivateAttr, model_validator

from planner.inputs import schema
from planner.inputs.catalog import offers
from planner.inputs.catalog.fabric import NOT_INCLUDED, Management, Power, SubnetManager
from planner.inputs.catalog.links import CableModel, PanelModel
from planner.inputs.catalog.pricing import PriceBasis
from planner.inputs.catalog.routers import STRICT, NicModel, RackItem, RouterModel
from planner.inputs.catalog.servers import ServerModel
from planner.run.errors import InputError

FOLDER = "catalogs"


class Catalog(BaseModel):
    """Routers, link parts and the NIC one may buy, plus the paper-mode switches."""

    model_config = STRICT
    name: str = Field(min_length=1)
    description: str = ""
    routers: list[RouterModel] = Field(min_length=1)
    cables: list[CableModel] = Field(min_length=1)
    optical_average_length_m: PositiveFloat | None = None
    nic: NicModel | None = None
    endpoint_watts: float = Field(0.0, ge=0)  # one server without its NIC, for cabinet kW
    servers: list[ServerModel] = Field(default_factory=list)   # GPU servers of several NICs
    count_endpoint_cables: bool = True
    rack_hardware: list[RackItem] = Field(default_factory=list)
    panels: list[PanelModel] = Field(default_factory=list)
    price_basis: PriceBasis = PriceBasis()
    protocol: Literal["infiniband", "ethernet"] | None = None
    subnet_manager: SubnetManager | None = None
    management: Management | None = None
    power: Power | None = None
    not_included: list[str] = Field(default_factory=lambda: list(NOT_INCLUDED))
    airflow: Literal["front-to-back", "back-to-front"] = "front-to-back"   # the switches'
    default_floor: str | None = None            # the built-in floor ``plan --catalog`` uses
    _source: str | None = PrivateAttr(None)
    _offer_choice: dict | None = PrivateAttr(None)

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

    @property
    def currency(self) -> str:
        """The currency of the catalog's prices."""
        return self.price_basis.currency

    @model_validator(mode="after")
    def _airflow(self) -> "Catalog":
        """Every router with numbers per airflow is ordered with the catalog's."""
        chosen = []
        for i, router in enumerate(self.routers):
            try:
                chosen.append(router.with_airflow(self.airflow))
            except ValueError as err:
                raise ValueError(f"field 'routers[{i}]' (sku '{router.sku}') {err}") from None
        object.__setattr__(self, "routers", chosen)
        return self

    @model_validator(mode="after")
    def _servers_use_the_nic(self) -> "Catalog":
        """A server model's ``nic`` is the catalog's NIC part, and its sku is unique."""
        seen = set()
        for i, server in enumerate(self.servers):
            if self.nic is None or server.nic != self.nic.sku:
                have = f"the catalog's nic is '{self.nic.sku}'" if self.nic else "no 'nic' given"
                raise ValueError(f"field 'servers[{i}].nic' '{server.nic}' is not the catalog's "
                                 f"NIC part ({have}); give the 'nic' sku")
            if server.sku in seen:
                raise ValueError(f"field 'servers[{i}].sku' '{server.sku}' is repeated; give "
                                 "each server model once")
            seen.add(server.sku)
        return self

    @model_validator(mode="after")
    def _default_floor_is_builtin(self) -> "Catalog":
        """``default_floor`` names a built-in floor (``planner floors``)."""
        from planner.inputs.floor import list_floors
        if self.default_floor is not None and self.default_floor not in list_floors():
            raise ValueError(f"field 'default_floor' {self.default_floor!r} is not a built-in "
                             f"floor; use one of {', '.join(list_floors())}")
        return self

    @model_validator(mode="after")
    def _managed_fabric(self) -> "Catalog":
        """An InfiniBand fabric comes up only with a subnet manager."""
        if self.protocol == "infiniband" and self.subnet_manager is None:
            raise ValueError("field 'subnet_manager' is missing: an InfiniBand fabric needs a "
                             "subnet manager; add subnet_manager with mode appliance (e.g. "
                             "NVIDIA UFM Enterprise), licence (with hosts) or switch (managed "
                             "switches)")
        return self

    @model_validator(mode="after")
    def _one_currency(self) -> "Catalog":
        """Every price of one catalog is in the catalog's currency."""
        for where, item in self._priced():
            basis = item.price_basis
            if basis is not None and basis.currency != self.currency:
                raise ValueError(f"field '{where}.price_basis.currency' is {basis.currency} "
                                 f"but the catalog's price_basis.currency is {self.currency}; "
                                 "convert the price or give the catalog that currency")
        return self

    def _priced(self) -> list[tuple[str, object]]:
        """(field path, model) of every priced entry of the catalog."""
        out = self._items() + [(f"panels[{i}]", m) for i, m in enumerate(self.panels)] + [
            (f"rack_hardware[{i}]", m) for i, m in enumerate(self.rack_hardware)]
        if self.nic is not None:
            out.append(("nic", self.nic))
        for i, r in enumerate(self.routers):
            out += [(f"routers[{i}].{n}", getattr(r, n)) for n in ("licence", "support")
                    if getattr(r, n) is not None]
        sm = self.subnet_manager
        if sm is not None:
            out += [(f"subnet_manager.{n}", getattr(sm, n))
                    for n in ("appliance", "licence", "hosts") if getattr(sm, n) is not None]
        if self.management is not None:
            out += [("management.switch", self.management.switch),
                    ("management.cable", self.management.cable)]
        if self.power is not None:
            out += [("power.pdu", self.power.pdu), ("power.cord", self.power.cord)]
        return out

    def basis_of(self, model) -> PriceBasis:
        """The price basis of a priced entry: its own, else the catalog's."""
        return getattr(model, "price_basis", None) or self.price_basis

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
                                 "kind: fibre part has that type "
                                 f"({', '.join(sorted(fibres)) or 'none'}); "
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
        ties go to the earlier model in the file; an end-of-life one (``lifecycle: eol``/``eos``)
        only when no current model fits. InputError naming the largest radix when none
        fits, or the price field when its rule is not positive at ``radix`` (350.4·k − 892.3
        at k ≤ 2)."""
        fitting = [m for m in self.routers if m.radix >= radix]
        current = [m for m in fitting if not m.retired]
        fitting = current or fitting             # an end-of-life model only when nothing else fits
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

    @model_validator(mode="after")
    def _offers_fit(self) -> "Catalog":
        """An offer's part number is its own (``planner.inputs.catalog.offers``)."""
        offers.check_catalog(self.cables)
        return self

    @property
    def offer_choice(self) -> dict | None:
        """``{"policy", "parts"}`` once ``with_offers`` chose the offers (None before)."""
        return self._offer_choice

    def with_offers(self, policy: str) -> "Catalog":
        """The catalog with every part bought as the offer ``policy`` chooses (``genuine``,
        ``compatible``, ``cheapest``: ``planner.inputs.catalog.offers``); a part bought as an
        offer lists no offers any more, ``offer_choice`` records the choice."""
        if policy not in offers.POLICIES:
            raise InputError(f"--optics must be one of {', '.join(offers.POLICIES)}, got "
                             f"{policy!r}")
        cables, parts = offers.choose_all(self.cables, policy)
        chosen = self.model_copy(update={"cables": cables})
        chosen._source = self.source
        chosen._offer_choice = {"policy": policy, "parts": parts}
        return chosen

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
