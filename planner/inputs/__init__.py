"""The inputs: what the plan is built from, read and checked before any stage runs.

- ``catalog``: router models (radix, cages and breakout, price, power), link parts (copper and
  AOC assemblies, transceivers and fibres, trunks, patch panels) and NICs, from
  ``catalogs/*.yaml`` or a user file;
- ``floor``: halls, rows, cabinets, trays and hall links, capacities, cabinet geometry and the
  tray routes a cable takes between two cabinets, from ``layouts/*.yaml`` or a user file;
- ``parts``: which orderable parts carry a link of a given routed length (a copper assembly, or
  optics and fibre, through patch panels on structured floors) and what they cost: the rule
  placement prices a layout by and the cabling stage orders by;
- ``schema``: the strict YAML loading the three file kinds share; ``spec``: the ``planner
  plan`` spec file.

Takes file names or paths (and the topology family registry, for spec files); hands on
``Catalog``, ``Floor``, ``Room`` and the link-part rule to placement and cabling.
"""
