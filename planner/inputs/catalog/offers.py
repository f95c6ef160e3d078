"""Equivalent offers of one link part, and which one a plan buys (``planner plan --optics``).

A link part of the ``cables`` list (a transceiver, a DAC/ACC/AOC assembly, a patch cord) may
list ``offers``: other orderable items that do the same job in the same cage, e.g. a compatible
transceiver coded for the switch vendor, or the same DAC from a second cable maker. An offer
(``PartOffer``) is an item of its own: vendor, part number, price with its basis, ``kind``
(``genuine``: the switch vendor's own part, or ``compatible``: a third party's), and what
differs (power, lifecycle, lead time).

Interchangeable by construction: an offer takes the part's kind, rate, form (ports, links,
split), fibre type and stock lengths and cannot state them (``FORM_FIELDS``); its reach and loss
budget, when given, must be at least the part's, so it serves every link the part serves
(``check``), and the plan keeps using the part's reach and budget, so the same links get the
same parts whichever offer is bought.

Choosing (``choose``, per part, before placement; the part as the catalog lists it counts as
genuine): ``genuine`` takes the cheapest of the part itself and its ``kind: genuine`` offers
(ties: the part), so a catalog without genuine offers plans as it always did; ``compatible``
the cheapest ``kind: compatible`` offer, the genuine choice for a part without one;
``cheapest`` the cheapest of all. Cheapest compares the price summed over the part's stock
lengths (one module for a transceiver). An ``eol`` offer is never chosen. The chosen offer
replaces the part's price, basis, vendor, part number and, when given, its watts per end, so
placement, cabling, power and the BOM all use it; the BOM line's description names the kind
and the part it replaces.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import (BaseModel, Field, NonNegativeFloat, NonNegativeInt, PositiveFloat,
                      ValidationError, field_validator, model_validator)

from planner.inputs.catalog.pricing import STRICT, PriceBasis

POLICIES = ("genuine", "compatible", "cheapest")
"""The ``--optics`` choices (module doc); ``genuine`` is the default."""

FORM_FIELDS = ("sku", "media", "rate_gbps", "stock_lengths", "links", "split", "ports",
               "fibre", "fibres", "nic_end", "netbox_type", "color", "part_numbers")
"""Fields of a part an offer takes over as they are: they make it fit the same cage and fibre."""


class PartOffer(BaseModel):
    """One orderable equivalent of a link part (module doc)."""

    model_config = STRICT
    vendor: str = Field(min_length=1)
    part_number: str | dict[float, str]      # one number; or a template / table per length
    kind: Literal["genuine", "compatible"]
    price: PositiveFloat | dict[float, PositiveFloat]   # per module; or per stock length
    price_basis: PriceBasis | None = None    # the catalog's price_basis without it
    description: str = ""
    watts_per_end: NonNegativeFloat | None = None   # the part's without it
    max_reach_m: PositiveFloat | None = None        # at least the part's
    loss_budget_db: PositiveFloat | None = None     # transceivers: at least the part's
    lifecycle: Literal["active", "eol"] = "active"  # eol: listed, never chosen
    lead_time_days: NonNegativeInt | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_form_fields(cls, data):
        if isinstance(data, dict):
            for name in FORM_FIELDS:
                if name in data:
                    fix = ("give its own number as part_number" if name in ("sku", "part_numbers")
                           else "an item that differs there is a part of its own, not an offer")
                    raise ValueError(f"field '{name}' cannot be given on an offer: an offer takes "
                                     f"the {name} of its part; {fix}")
        return data


    @field_validator("price", mode="before")
    @classmethod
    def _price_is_a_number(cls, value):
        if isinstance(value, (bool, str)):
            raise ValueError(f"must be a number or a table of numbers per stock length, got "
                             f"{value!r}; write the price without quotes")
        return value


def check(part) -> None:
    """ValueError naming ``offers[i].<field>`` of the first offer of ``part`` (a
    ``planner.inputs.catalog.links.CableModel``) that is not interchangeable with it or does not
    make a valid part."""
    own = set(part_numbers_of(part))
    for i, offer in enumerate(part.offers):
        where = f"offers[{i}]"
        if part.kind == "trunk":
            raise ValueError(f"field '{where}' is on a trunk; offers are for transceivers, "
                             "cable assemblies and patch cords")
        if part.kind != "transceiver" and not part.stock_lengths:
            raise ValueError(f"field '{where}' is on a part cut to length; give the part its "
                             "stock_lengths so an offer can price each")
        if offer.max_reach_m is not None and offer.max_reach_m < part.max_reach_m:
            raise ValueError(f"field '{where}.max_reach_m' is {offer.max_reach_m:g} m, short of "
                             f"the part's {part.max_reach_m:g} m: an offer must reach every link "
                             "the part serves; list a shorter-reach item as a part of its own")
        if offer.loss_budget_db is not None:
            if part.kind != "transceiver":
                raise ValueError(f"field '{where}.loss_budget_db' is for transceiver offers; "
                                 "remove it")
            if offer.loss_budget_db < part.loss_budget_db:
                raise ValueError(f"field '{where}.loss_budget_db' is {offer.loss_budget_db:g} dB, "
                                 f"below the part's {part.loss_budget_db:g} dB: it would not light "
                                 "every link the part lights; list it as a part of its own")
        if part.kind == "transceiver" and not isinstance(offer.price, (int, float)):
            raise ValueError(f"field '{where}.price' of a transceiver offer is one price per "
                             "module (a number)")
        if part.kind == "transceiver" and not isinstance(offer.part_number, str):
            raise ValueError(f"field '{where}.part_number' of a transceiver offer is one part "
                             "number")
        if isinstance(offer.price, dict) and sorted(offer.price) != sorted(part.stock_lengths):
            raise ValueError(f"field '{where}.price' table lengths {sorted(offer.price)} must "
                             f"equal the part's stock_lengths {part.stock_lengths}")
        try:
            made = apply(part, offer)
        except ValidationError as err:
            first = err.errors()[0]
            msg = first["msg"].removeprefix("Value error, ")
            msg = re.sub(r"^field '(part_numbers|sku)'", f"field '{where}.part_number'", msg)
            msg = re.sub(r"^field '(price)'", f"field '{where}.price'", msg)
            if not msg.startswith("field '"):
                msg = f"field '{where}' {msg}"
            raise ValueError(msg) from None
        clash = own & set(part_numbers_of(made))
        if clash:
            raise ValueError(f"field '{where}.part_number' gives {sorted(clash)[0]!r}, the part's "
                             "own number; an offer is another orderable item, give its number")


def part_numbers_of(part) -> list[str]:
    """Every part number ``part`` puts on a BOM line (its SKU for a transceiver)."""
    if part.kind == "transceiver":
        return [part.sku]
    return [part.part_number(x) for x in part.stock_lengths] or [part.sku]


def apply(part, offer: PartOffer):
    """``part`` bought as ``offer``: its price, basis, vendor, part number and (when given) watts
    per end; its reach, budget, form and lengths as they are. A validated part of the same
    class (pydantic ``ValidationError`` when the offer does not make one)."""
    data = part.model_dump(by_alias=True)
    data["offers"] = []
    data["vendor"] = offer.vendor
    data["description"] = (f"{offer.description or part.description} ({offer.kind}; replaces "
                           f"{part.vendor} {part.sku})").strip()
    data["price_basis"] = offer.price_basis.model_dump() if offer.price_basis else None
    if isinstance(offer.price, dict):
        data["price"] = {"table": dict(offer.price)}
    else:
        data["price"] = {"fixed": float(offer.price)}
    if offer.watts_per_end is not None:
        data["watts_per_end"] = offer.watts_per_end
    if part.kind == "transceiver":
        data["sku"] = offer.part_number
    else:
        data["part_numbers"] = offer.part_number
    return type(part).model_validate(data)


def _cost(part) -> float:
    """What cheapest compares: the price summed over the stock lengths (one module)."""
    lengths = part.stock_lengths or [part.max_reach_m]
    return float(sum(part.price(x) for x in lengths))


def choose(part, policy: str):
    """(the part as bought under ``policy``, the offer taken or None for the part itself)."""
    live = [o for o in part.offers if o.lifecycle != "eol"]
    genuine = [(part, None)] + [(apply(part, o), o) for o in live if o.kind == "genuine"]
    compatible = [(apply(part, o), o) for o in live if o.kind == "compatible"]
    pool = {"genuine": genuine, "compatible": compatible or genuine,
            "cheapest": genuine + compatible}[policy]
    return min(pool, key=lambda pair: _cost(pair[0]))   # first of equals: the part


def choose_all(cables: list, policy: str) -> tuple[list, list[dict]]:
    """(every part as bought under ``policy``, a record per part that lists offers: its SKU,
    the vendor, part numbers, kind and lead time bought (None for the part itself)). A part
    bought as one of its offers becomes that offer and lists no offers; a part bought as it is
    keeps its offers, so choosing again under the same policy (or under ``genuine``, as a
    re-plan from the plan's ``catalog.yaml`` does) buys the same. A transceiver bought as an
    offer takes the offer's part number as SKU; the ``nic_end`` names that point at it
    follow."""
    out, record, renamed = [], [], {}
    for part in cables:
        made, offer = choose(part, policy)
        if part.offers:
            numbers = part_numbers_of(made)
            record.append({"part": part.sku, "vendor": made.vendor,
                           "part_numbers": sorted(set(numbers), key=numbers.index),
                           "kind": offer.kind if offer is not None else "genuine",
                           "lead_time_days": getattr(offer, "lead_time_days", None),
                           "offers": len(part.offers)})
        if made.sku != part.sku:
            renamed[part.sku] = made.sku
        out.append(made)
    out = [m.model_copy(update={"nic_end": renamed[m.nic_end]}) if m.nic_end in renamed else m
           for m in out]
    return out, record


def check_catalog(cables: list) -> None:
    """ValueError naming ``cables[i].offers[j].part_number`` when an offer's part number is
    another part's SKU or part number (a BOM line would then mix two items)."""
    owner: dict[str, int] = {}
    for i, part in enumerate(cables):
        for number in part_numbers_of(part):
            owner.setdefault(number, i)
    for i, part in enumerate(cables):
        for j, offer in enumerate(part.offers):
            for number in part_numbers_of(apply(part, offer)):
                other = owner.get(number)
                if other is not None and other != i:
                    raise ValueError(f"field 'cables[{i}].offers[{j}].part_number' (sku "
                                     f"'{part.sku}') gives {number!r}, which cables[{other}] "
                                     "uses; give the offer its own part number")


def alternatives(cables: list) -> dict[str, str]:
    """Part number on a BOM line -> the offers of that part not bought, in words for a buyer
    (``FS.com QSFP28-SR4-100G (compatible)``; for a part with stock lengths, the offer's number
    at the same length), for the parts that still list offers."""
    out: dict[str, str] = {}
    for part in cables:
        if not part.offers:
            continue
        lengths = part.stock_lengths if part.kind != "transceiver" else []
        for offer in part.offers:
            made = apply(part, offer)
            pairs = ([(part.sku, made.sku)] if not lengths else
                     [(part.part_number(x), made.part_number(x)) for x in lengths])
            words = f"{offer.kind}{', end of life' if offer.lifecycle == 'eol' else ''}"
            for own, theirs in pairs:
                text = f"{offer.vendor} {theirs} ({words})"
                out[own] = f"{out[own]}; {text}" if own in out else text
    return out
