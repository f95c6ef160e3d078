"""What a catalog part is as an order: a manufacturer's part or a generic one.

Every priced catalog entry (router, link part, panel, NIC, licence, rack item, fabric device,
subscription, patch cord) is one of two:

- a **manufacturer's part** (``vendor`` names the maker): its orderable numbers (the SKU, or the
  part number of every stock length) are complete, i.e. no family placeholder and the form its
  vendor orders by (``planner.inputs.catalog.part_numbers.VENDOR_PATTERNS``:
  ``MCP1600-C003E26N``, not ``MCP1600-C003``). ``ordering_number`` gives NVIDIA's new
  900-/920-/980- number beside the legacy one; ``unconfirmed: true`` says the number was not
  confirmed against the vendor's ordering table, which the BOM shows.
- a **generic part** (``vendor: generic``, or ``orderable: generic`` for a maker's product
  without a public orderable number, such as a support contract sold on quote): no invented
  number. ``spec`` is what a supplier
  quotes against (fibre type and count, connector and gender, polarity, insertion-loss grade,
  jacket rating; panels: ports, RU, adapters and their colour). The BOM's part-number cell says
  what to fill in (``GENERIC_CELL``) and the line carries the spec.

``lifecycle`` (``LIFECYCLES``) is ``active`` unless said otherwise; an ``eol``/``eos`` part is
flagged in the BOM and never a catalog's default router (``Catalog.router_for``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from planner.inputs.catalog.part_numbers import (GENERIC, GENERIC_CELL, incomplete_reason,
                                                 spec_text)

IDENTITY_COLUMNS = ["part_number", "ordering_number", "status", "spec"]
"""The BOM's columns saying what each line is as an order (``Orderable.bom_identity``)."""

SpecValue = str | int | float


class Orderable(BaseModel):
    """The order fields every priced catalog entry shares (module doc)."""

    orderable: Literal["manufacturer", "generic"] | None = None   # None: by its vendor
    lifecycle: Literal["active", "preview", "eol", "eos"] = "active"
    ordering_number: str | None = None         # NVIDIA's 900-/920-/980- number
    unconfirmed: bool = False                  # number not checked against the vendor's table
    spec: dict[str, SpecValue] | None = Field(None, min_length=1)

    @property
    def generic(self) -> bool:
        """Whether it is a generic part (``orderable: generic``; without it ``vendor:
        generic``)."""
        if self.orderable is not None:
            return self.orderable == GENERIC
        return getattr(self, "vendor", "").strip().lower() == GENERIC

    @property
    def retired(self) -> bool:
        """End of life or end of sale: flagged in the BOM, never chosen by default."""
        return self.lifecycle in ("eol", "eos")

    def orderable_numbers(self) -> list[tuple[str, str]]:
        """(field, number) of every number a BOM line of it may carry (its SKU here)."""
        return [("sku", self.sku)]

    @model_validator(mode="after")
    def _complete_or_generic(self):
        vendor = getattr(self, "vendor", "")
        if self.generic:
            if not self.spec:
                raise ValueError("field 'spec' is missing: a generic part (no orderable number) "
                                 "needs the specification a supplier quotes against (e.g. "
                                 "{fibre: OM4, connector: MPO-12 female, polarity: Type-B}); "
                                 "add spec, or name the manufacturer and its part number")
            if self.ordering_number is not None:
                raise ValueError("field 'ordering_number' does not apply to a generic part; "
                                 "drop it, or name the manufacturer in 'vendor'")
            return self
        try:
            checks = self.orderable_numbers()
        except (ValueError, KeyError, IndexError, TypeError):
            return self            # a malformed template: the part's own checks name it
        if self.ordering_number is not None:
            checks.append(("ordering_number", self.ordering_number))
        for field, number in checks:
            reason = incomplete_reason(vendor, number)
            if reason:
                raise ValueError(f"field '{field}' {number!r} {reason}; give the complete "
                                 "orderable number, or make it vendor: generic with a spec")
        return self

    def status(self) -> str:
        """The BOM's status cell: ``generic``, or the lifecycle (``eol``...) and
        ``unconfirmed`` when the number is."""
        if self.generic:
            return "generic"
        return self.lifecycle + ("; number unconfirmed" if self.unconfirmed else "")

    def bom_identity(self, number: str) -> dict[str, str]:
        """The ``IDENTITY_COLUMNS`` of a BOM line bought as ``number``."""
        return dict(part_number=GENERIC_CELL if self.generic else number,
                    ordering_number=self.ordering_number or "", status=self.status(),
                    spec=spec_text(self.spec))
