"""Server models: the GPU (or CPU) servers the endpoints sit in (optional, ``servers`` of a
catalog).

A server has ``nics`` network adapters of the catalog's ``nic`` part, each one endpoint of the
fabric, and stands ``ru`` units high drawing ``watts`` at most (the vendor's maximum system
power, which is what a cabinet's kW budget must hold). ``gpus`` is for the reader (GPUs per
server). Every field is described in ``docs/catalogs.md``.
"""

from __future__ import annotations

from pydantic import Field, PositiveInt

from planner.inputs.catalog.orderable import Orderable
from planner.inputs.catalog.routers import STRICT


class ServerModel(Orderable):
    """One server model: height, maximum power, fabric NICs (each an endpoint) and GPUs."""

    model_config = STRICT
    sku: str = Field(min_length=1)
    vendor: str = ""
    description: str = ""
    ru: PositiveInt                     # rack units
    watts: float = Field(gt=0)          # maximum system power
    nics: PositiveInt                   # fabric NICs, one endpoint each
    nic: str = Field(min_length=1)      # the catalog's ``nic`` sku
    gpus: int = Field(0, ge=0)
    price: float = Field(0.0, ge=0)     # 0: not priced (the BOM lists servers as an option)
