"""Real plans shared by the export tests (each built once per session; no tests here).

- ``slimfly-hot``: Slim Fly q=5 (50 routers, 200 endpoints) on the physical ``hot-aisle`` floor:
  25 cabinets, copper and optical cables, endpoints in rack units.
- ``slimfly-abstract``: the same topology on the abstract ``sc14`` racks (one rack).
- ``dragonfly-hot``: Dragonfly a=4, h=2, p=2 (9 groups, 36 routers) on ``hot-aisle``.
- ``dragonfly-trunk``: Dragonfly a=4, h=4, p=2, g=3 (12 routers): 12 router pairs joined by two
  parallel global cables, which the netlists must merge or repeat.
"""

from __future__ import annotations

from functools import lru_cache

from planner.plan import plan
from planner.topologies.dragonfly import dragonfly
from planner.topologies.slimfly import slimfly

SPECS = {
    "slimfly-hot": (lambda: slimfly(q=5), "hot-aisle"),
    "slimfly-abstract": (lambda: slimfly(q=5), "sc14"),
    "dragonfly-hot": (lambda: dragonfly(a=4, h=2, p=2), "hot-aisle"),
    "dragonfly-trunk": (lambda: dragonfly(a=4, h=4, p=2, g=3), "hot-aisle"),
}


@lru_cache(maxsize=None)
def get_plan(name: str):
    build, floor = SPECS[name]
    return plan(build(), "modern-100g", floor, strategy="hint", time_limit_s=5, seed=0)
