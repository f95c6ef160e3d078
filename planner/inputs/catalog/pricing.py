"""Where a price comes from, and prices paid per year.

- ``PriceBasis``: a price's basis (``estimate``: nobody's offer; ``list``: the vendor's
  published price; ``quote``: a supplier's offer), its source, date and ISO 4217 currency. A
  catalog gives one for all its prices (``price_basis``) and any part may give its own.
- ``Subscription``: support or a NOS subscription sold per device and year, bought for
  ``term_years``.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, field_validator

from planner.inputs.catalog.orderable import Orderable

BASES = ("estimate", "list", "quote")
STRICT = ConfigDict(frozen=True, extra="forbid")


class PriceBasis(BaseModel):
    """Where a price comes from: its basis, who gave it, when, in which currency."""

    model_config = STRICT
    basis: Literal["estimate", "list", "quote"] = "estimate"
    source: str = ""
    date: str = ""                      # YYYY-MM or YYYY-MM-DD
    currency: str = "USD"               # ISO 4217

    @field_validator("date")
    @classmethod
    def _date(cls, value: str) -> str:
        if value and not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", value):
            raise ValueError(f"is {value!r}; write the date as YYYY-MM or YYYY-MM-DD")
        if value:
            try:
                _dt.date.fromisoformat(value if len(value) == 10 else value + "-01")
            except ValueError:
                raise ValueError(f"is {value!r}, not a calendar date; write YYYY-MM-DD") from None
        return value

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z]{3}", value):
            raise ValueError(f"is {value!r}; give a three-letter ISO 4217 code such as USD")
        return value


class Subscription(Orderable):
    """Support or a NOS subscription, sold per device and year; bought for ``term_years``."""

    model_config = STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    price_per_year: float = Field(ge=0)
    term_years: PositiveInt = 3
    price_basis: PriceBasis | None = None

    @property
    def price(self) -> float:
        """One device's subscription for the whole term."""
        return self.price_per_year * self.term_years
