"""Property-based tests (issue 8, part 2): random valid catalogs, floors and topologies.

hypothesis draws a small topology (eleven families with their parameters, plus random trunked
multigraphs), a catalog whose routers fit it (copper and optical models with random reach, stock
lengths and price rules; optional paper-mode optical length and NIC), and a floor that holds it
(cabinet geometry, slots, electrical-group rule, media rule, physical or abstract racks). For
every draw ``planner.plan`` must not raise and its plan must satisfy the plan invariants:

- each topology link appears exactly once as a cable per unit of multiplicity, each router port
  is used at most once and never above the router model's radix, labels are unique
  (``check_cables`` of test_plan_invariants);
- summary.json totals equal the sums recomputed from cables.csv and the catalog
  (``check_summary_against_csv``);
- no copper cable is longer than its model's reach, every cable is ordered at or above its length
  and within its model's longest orderable length.

The size guard's closed-form counts (``sizing.estimate``) must equal the built topology's.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.exports import cables_csv, summary_json
from planner.inputs.catalog import Catalog
from planner.inputs.floor import Floor
from planner.plan import plan
from planner.topologies import build
from planner.topologies.base import Topology
from planner.topologies.sizing import estimate
from test_plan_invariants import check_cables, check_summary_against_csv

SETTINGS = settings(max_examples=40, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- topologies

FAMILIES = {
    "slimfly": st.fixed_dictionaries({"q": st.sampled_from([3, 4, 5]),
                                      "p": st.integers(1, 5)}),
    "dragonfly": st.integers(1, 2).flatmap(lambda h: st.integers(2, 4).flatmap(
        lambda a: st.fixed_dictionaries({"a": st.just(a), "h": st.just(h),
                                         "p": st.integers(1, 3),
                                         "g": st.integers(2, a * h + 1)}))),
    "fattree": st.fixed_dictionaries({"k": st.sampled_from([4, 6]),
                                      "levels": st.sampled_from([2, 3])}),
    "hyperx": st.fixed_dictionaries({"S": st.lists(st.integers(2, 4), min_size=1, max_size=2),
                                     "p": st.integers(1, 3)}),
    "torus": st.fixed_dictionaries({"dims": st.lists(st.integers(2, 4), min_size=1, max_size=3),
                                    "p": st.integers(1, 2)}),
    "hypercube": st.fixed_dictionaries({"d": st.integers(1, 5), "p": st.integers(1, 2)}),
    "jellyfish": st.integers(8, 20).flatmap(lambda r: st.fixed_dictionaries(
        {"routers": st.just(r), "degree": st.integers(3, 5), "p": st.integers(1, 3),
         "seed": st.integers(0, 10_000)})),
    "demipn": st.fixed_dictionaries({"q": st.sampled_from([2, 3, 4, 5])}),
    "pn": st.fixed_dictionaries({"q": st.sampled_from([2, 3])}),
    "oft": st.fixed_dictionaries({"q": st.sampled_from([2, 3])}),
    "mlfm": st.fixed_dictionaries({"h": st.integers(1, 3)}),
    "galaxyfly": st.fixed_dictionaries({"n": st.just(3), "q": st.just(5), "a": st.just(2),
                                        "h": st.just(2)}),
}


@st.composite
def trunked(draw) -> Topology:
    """A ring (so it is connected) plus random chords, pairs repeated for multiplicity."""
    r = draw(st.integers(3, 12))
    edges = [(i, (i + 1) % r) for i in range(r)]
    pair = st.tuples(st.integers(0, r - 1), st.integers(0, r - 1)).filter(lambda e: e[0] != e[1])
    edges += draw(st.lists(pair, max_size=2 * r))
    endpoints = draw(st.lists(st.integers(0, 4), min_size=r - 1, max_size=r - 1))
    endpoints = [draw(st.integers(1, 4))] + endpoints  # at least one endpoint
    return Topology.from_edges("import", {"source": "hypothesis"}, r, edges, endpoints)


topologies = st.one_of(*[params.map(lambda kw, fam=fam: build(fam, **kw))
                          for fam, params in FAMILIES.items()], trunked())


# ----------------------------------------------------------------------------- catalogs

def _stock(reach: float) -> st.SearchStrategy[list[float]]:
    """Cut to length ([]), or increasing stock lengths ending at the reach."""
    cuts = st.lists(st.sampled_from([0.5, 1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100]),
                    unique=True, max_size=5)
    return st.one_of(st.just([]), cuts.map(lambda xs: sorted(x for x in xs if x < reach)
                                           + [reach]))


@st.composite
def cable(draw, sku: str, media: str, reach: float) -> dict:
    stock = draw(_stock(reach))
    if stock and draw(st.booleans()):
        price = {"table": {length: round(20 + draw(st.floats(1, 50)) * length, 2)
                           for length in stock}}
    else:
        price = {"fixed": draw(st.floats(1, 300)), "per_m": draw(st.floats(0, 20))}
    electrical = media == "electrical"
    return {"sku": sku, "media": media, "kind": "dac" if electrical else "aoc",
            "rate_gbps": 100, "max_reach_m": reach, "stock_lengths": stock, "price": price,
            "watts_per_end": 0.0 if electrical else draw(st.floats(0, 3)),
            "netbox_type": "dac-passive" if electrical else "aoc",
            "color": "Black" if electrical else "Aqua"}


@st.composite
def catalogs(draw, radix: int) -> Catalog:
    """Routers that fit ``radix`` (and maybe a bigger one), copper of short random reach,
    optical reaching any hall (and maybe a cheaper short optical model)."""
    def router(sku: str, ports: int) -> dict:
        return {"sku": sku, "vendor": "test", "rate_gbps": 100, "lanes_per_port": 4,
                "radix": ports, "price": {"fixed": draw(st.floats(1000, 20000)),
                                          "per_port": draw(st.floats(0, 300))},
                "watts_per_lane": draw(st.floats(0, 2)),
                "rack_units": draw(st.sampled_from([1, 2]))}
    routers = [router("SW-A", radix + draw(st.integers(0, 6)))]
    if draw(st.booleans()):
        routers.append(router("SW-B", radix + draw(st.integers(7, 40))))
    cables = [draw(cable("DAC", "electrical", draw(st.sampled_from([1, 2, 3, 5, 7])))),
              draw(cable("AOC-LONG", "optical", 2000))]
    if draw(st.booleans()):
        cables.append(draw(cable("AOC-SHORT", "optical", draw(st.sampled_from([5, 10, 30])))))
    data = {"name": "hypothesis", "routers": routers, "cables": cables,
            "count_endpoint_cables": draw(st.booleans())}
    if draw(st.booleans()):
        data["optical_average_length_m"] = draw(st.sampled_from([3.0, 5.1, 7.0, 20.0]))
    if draw(st.booleans()):
        data["nic"] = {"sku": "NIC", "price": draw(st.floats(0, 2000)),
                       "watts": draw(st.floats(0, 20))}
    return Catalog.model_validate(data)


# ----------------------------------------------------------------------------- floors

@st.composite
def floors(draw, max_endpoints: int, router_units: float) -> Floor:
    """A floor whose cabinets hold a router with ``max_endpoints`` endpoints and whose router
    slots fit ``router_units``-unit routers below the top of a 42U cabinet."""
    width = draw(st.sampled_from([0.6, 0.8]))
    height = 42
    router_slots = draw(st.integers(1, 4))
    first_router = height - int(router_slots * router_units) + 1
    endpoint_ru = draw(st.sampled_from([0, 1]))
    room = max(first_router - 1 if endpoint_ru else 64, max_endpoints)
    endpoint_slots = draw(st.one_of(st.none(), st.integers(max(max_endpoints, 1), room)))
    group_cabinets = draw(st.one_of(st.none(), st.integers(1, 3)))
    fields = dict(
        name="hypothesis", cabinet_width_m=width, cabinet_depth_m=draw(st.sampled_from([1.0, 1.2])),
        cabinet_height_ru=height, pitch_m=width + draw(st.sampled_from([0.0, 0.1])),
        aisle_m=draw(st.sampled_from([0.0, 1.2, 2.0])), router_slots=router_slots,
        endpoint_slots=endpoint_slots, group_cabinets=group_cabinets,
        group_endpoints=None if group_cabinets else draw(st.integers(max(max_endpoints, 8), 64)),
        intra_cabinet_m=draw(st.sampled_from([1.0, 1.5, 2.0])),
        overhead_per_cable_m=draw(st.sampled_from([0.0, 2.0])),
        overhead_per_end_m=draw(st.sampled_from([0.0, 0.5, 1.0])),
        slack_pct=draw(st.sampled_from([0, 10, 20])), first_router_ru=first_router,
        first_endpoint_ru=1, endpoint_ru=endpoint_ru, abstract=draw(st.booleans()),
        media_rule=draw(st.sampled_from(["membership", "reach"])))
    if group_cabinets and draw(st.booleans()):
        fields["cabinets_per_row"] = group_cabinets * draw(st.integers(1, 4))
    if not group_cabinets and draw(st.booleans()):
        fields["row_rounding"] = "floor"
    return Floor(**fields)


@st.composite
def cases(draw):
    top = draw(topologies)
    catalog = draw(catalogs(top.radix))
    units = max(m.rack_units for m in catalog.routers)
    floor = draw(floors(int(top.endpoints.max()), units))
    options = dict(strategy=draw(st.sampled_from(["hint", "partition", "optimize"])),
                   seed=draw(st.integers(0, 1000)),
                   endpoint_cables=draw(st.booleans()),
                   spares_pct=draw(st.sampled_from([0, 5, 10])))
    return top, catalog, floor, options


# ----------------------------------------------------------------------------- the property

def check_media(p) -> None:
    """No copper cable longer than its reach; every cable ordered at or above its length and
    no longer than its model's longest orderable length."""
    cables = p.cables
    models = {m.sku: m for m in p.catalog.cables}
    reach = cables["sku"].map(lambda s: models[s].max_reach_m).to_numpy(float)
    longest = cables["sku"].map(lambda s: models[s].longest_m).to_numpy(float)
    media = cables["sku"].map(lambda s: models[s].media).to_numpy()
    length = cables["length_m"].to_numpy(float)
    assert (media == cables["media"].to_numpy()).all()
    copper = media == "electrical"
    assert (length[copper] <= reach[copper] + 1e-9).all(), cables[copper][
        length[copper] > reach[copper] + 1e-9]
    order = cables["order_length_m"].to_numpy(float)
    assert (order + 1e-9 >= length).all() and (order <= longest + 1e-9).all()


@SETTINGS
@given(cases())
def test_random_plans_keep_the_invariants(case):
    top, catalog, floor, options = case
    p = plan(top, catalog, floor, time_limit_s=0.5, **options)
    check_cables(p)
    check_media(p)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        summary_json.write(p, out)
        cables_csv.write(p, out)
        check_summary_against_csv(p, out)
    assert p.summary["devices"]["router_ports_used"] == int(top.ports.sum()) - (
        0 if options["endpoint_cables"] else top.num_endpoints)
    assert np.isfinite(p.summary["cost"]["total"]) and p.summary["cost"]["total"] > 0


@settings(max_examples=60, deadline=None, database=None)
@given(st.sampled_from(sorted(FAMILIES)).flatmap(
    lambda fam: st.tuples(st.just(fam), FAMILIES[fam], st.booleans())))
def test_size_estimate_equals_the_built_topology(drawn):
    """The closed-form counts the size guard uses before building (sizing.estimate) equal the
    built topology's, for parameters given as values or as command-line text."""
    family, params, as_text = drawn
    given_params = ({k: "x".join(map(str, v)) if isinstance(v, list) else str(v)
                     for k, v in params.items()} if as_text else params)
    top = build(family, **given_params)
    size = estimate(family, given_params)
    assert (size.routers, size.links, size.endpoints, size.radix) == (
        top.num_routers, top.num_links, top.num_endpoints, top.radix)
