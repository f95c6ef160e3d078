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
    in_bom: bool = True                 # false: bought elsewhere, left off the BOM


def server_model_for(catalog, topology) -> ServerModel | None:
    """The server model a plan of ``topology`` stands its endpoints in: the catalog's first
    model with as many NICs as the topology's servers (``Topology.extra["servers"]``,
    ``planner.topologies.servers``), or None (no server layout, or no model of that many NICs:
    every endpoint is then an anonymous one-port endpoint in its router's cabinet, as before).
    docs/catalogs.md "Server models". A shape of counts only (``planner size``'s
    ``feasibility.Shape``) has no server layout."""
    record = getattr(topology, "extra", {}).get("servers")
    if record is None:
        return None
    return next((m for m in catalog.servers if m.nics == int(record["nics"])), None)


def body_watts(catalog, model: ServerModel) -> float:
    """A server's power without its fabric NICs: the data sheet's maximum system power (which
    includes the NICs) less the catalog NIC's watts per NIC, so a server and its NICs draw the
    data sheet's figure and the NICs are not counted twice."""
    return max(float(model.watts) - model.nics * catalog.nic_watts, 0.0)
