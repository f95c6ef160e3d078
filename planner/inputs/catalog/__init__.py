"""Router, link-part and NIC catalogs: a built-in name (``catalogs/*.yaml``) or the path of a
catalog YAML file in, a validated ``Catalog`` out.

A catalog lists what one may buy for one fabric rate: router models, the parts that build a link
and the endpoints' NIC. Prices are list prices in US dollars, lengths in metres, power in watts.
Every field, with an example, is described in ``docs/catalogs.md``; the price, power and reach
models and their sources are in ``docs/models.md``.

- ``part_numbers``: the orderable part number of a part at each stock length (tables, templates)
  and whether a number is complete for its vendor;
- ``orderable``: what a part is as an order: a manufacturer's (complete number, lifecycle,
  new-format ordering number) or generic (a spec, no number);
- ``routers``: router models (cages, breakout, price, power), licences, rack hardware, the NIC;
- ``servers``: server models (RU, watts, NICs per server, GPUs), optional;
- ``links``: link parts (assemblies, transceivers, fibres, trunks) and patch panels;
- ``offers``: equivalent offers of a link part (genuine, compatible) and which one a plan buys
  (``planner plan --optics``);
- ``catalog``: the ``Catalog``, its checks across parts and look-ups, ``load_catalog``;
- ``cages``: router ports grouped into cages, so that one cage holds one part.
"""

from planner.inputs.catalog.catalog import Catalog, list_catalogs, load_catalog
from planner.inputs.catalog.links import COLOR_HEX, NETBOX_CABLE_TYPES, CableModel
from planner.inputs.catalog.part_numbers import nvidia_length_code
from planner.inputs.catalog.routers import RouterModel

__all__ = ["COLOR_HEX", "NETBOX_CABLE_TYPES", "CableModel", "Catalog", "RouterModel",
           "list_catalogs", "load_catalog", "nvidia_length_code"]
