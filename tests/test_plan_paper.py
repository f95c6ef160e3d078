"""Projective Networks (Camarero et al.) Tables 4-5 through the whole ``plan`` pipeline.

Paper mode: the ``sc14-40g`` model with every optical cable priced at the table's average
length (``sc14-40g-pn10k`` 5.1 m / ``sc14-40g-pn25k`` 7.0 m), the ``pn-500`` floor (electrical
groups of about 500 endpoints, membership media rule), placement strategy ``hint`` and
router-router cables only (``endpoint_cables=False``). Published rows (Projective Networks §5.3,
Tables 4 and 5; docs/topologies.md "pn-t4", "pn-t5"), each with the electrical groups its
printed cable counts imply:

- Table 4, Slim Fly MMS q=19, p=13: 9386 endpoints, groups of 494 = one SF rack
  (0,x,.) ∪ (1,x,.); E = 3971, O = 6498; $1294.51 and 9.05 W per endpoint;
- Table 5, Dragonfly h=9 (a=18, p=9, g=163): 26406 endpoints, groups of 486 = 3 DF groups;
  E = 25101, O = 13041; $1457.39 and 10.89 W per endpoint.
"""

import pytest

from planner.plan import plan
from planner.topologies.dragonfly import dragonfly
from planner.topologies.slimfly import slimfly

ROWS = [
    ("T4 SF MMS q=19", lambda: slimfly(19, p=13), "sc14-40g-pn10k", 9386, 3971, 6498, 1294.51,
     9.05),
    ("T5 Dragonfly h=9", lambda: dragonfly(h=9), "sc14-40g-pn25k", 26406, 25101, 13041, 1457.39,
     10.89),
]


@pytest.mark.parametrize("row,build,catalog,endpoints,electrical,optical,dollars,watts", ROWS,
                         ids=[r[0] for r in ROWS])
def test_published_cost_and_power_per_endpoint(row, build, catalog, endpoints, electrical,
                                               optical, dollars, watts):
    result = plan(build(), catalog, "pn-500", strategy="hint", endpoint_cables=False)
    s = result.summary
    assert s["topology"]["endpoints"] == endpoints
    assert s["cables"]["endpoint"]["count"] == 0
    assert (s["cables"]["network"]["electrical"], s["cables"]["network"]["optical"]) == \
        (electrical, optical)
    assert abs(s["cost"]["per_endpoint"] - dollars) <= 0.05
    assert abs(s["power"]["per_endpoint_w"] - watts) <= 0.01
