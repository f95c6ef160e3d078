"""Floor assignment benchmark: groups over floor slots alone, dense (exact) vs sparse path.

Run: ``python benchmarks/bench_floor_assign.py [--cases NAME ...] [--dense-max K] [--json FILE]``.

For the group graphs of the 10K, 100K, 500K and 1M plans, built the way ``planner plan`` builds
them up to this stage (the topology's own groups packed into electrical groups,
``partition.pack_hint``, split into cabinets, ``cabinets.split_groups``; the optimised
grouping of a full run has the same group count and a similar graph), on the ``hot-aisle``
floor with as many halls as the system needs (the built-in allows 16). Each row gives the group
count k, the group pairs with links, the halls, then per path: seconds, the peak of the
Python heap during the assignment (``tracemalloc``: numpy arrays included; the METIS child the
hall partition forks is not in it, its graph is the k-node group graph) and the QAP cost
sum_{a<b} F_ab D[pi_a, pi_b] of the result, evaluated independently of either path (priced
slot distances of the linked pairs only). The dense path runs up to ``--dense-max`` groups
(default 4,000: its k x k arrays take k^2 x 8 bytes each, 2.5 GB per array at 1M). The load
average of the machine is printed with every row, and CPU seconds next to wall seconds (a
shared machine stretches the wall time; the work is counted in operations, so the layout
does not change: ``sparse_digest`` is a digest of the assignment, the same on a quiet and a
busy machine). The growth exponent between rows is log(cpu2/cpu1) / log(k2/k1).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

from planner.inputs import floor as floors
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.placement.cabinets import split_groups
from planner.placement.capacity import capacity_from_floor
from planner.placement.floor_assign import (group_flows, slot_costs, slot_points)
from planner.placement.floor_assign_sparse import SlotMetric, assign_slots_sparse, sparse_cost
from planner.placement.graph import Graph
from planner.placement.partition import pack_hint
from planner.placement.qap import assign_slots
from planner.topologies import build

CASES = {
    # name: (family, params, catalog) - the plans of benchmarks/bench_plan.py and issue 24
    "sf-10k": ("slimfly", dict(q=19, p=15), "modern-100g"),
    "df-100k": ("dragonfly", dict(h=13), "modern-100g"),
    "df-500k": ("dragonfly", dict(a=56, p=28, h=28, g=319), "eth-51t"),
    "df-1m": ("dragonfly", dict(a=56, p=28, h=28, g=638), "eth-51t"),
}
FLOOR = "hot-aisle"
HALLS = 1000   # hall.count raised so that the floor holds every case


def group_problem(name: str):
    """(flows (sparse), cabinet_group, floor, catalog, endpoints) of a case up to the floor stage."""
    family, params, catalog_name = CASES[name]
    top = build(family, **params)
    floor = load_floor(FLOOR)
    floor = floor.model_copy(update={"hall": floor.hall.model_copy(update={"count": HALLS})})
    graph = Graph.from_topology(top)
    capacity = capacity_from_floor(floor, graph.endpoints)
    limits = capacity.group_limits(graph.endpoints)
    part = pack_hint(graph, np.asarray(top.groups, dtype=np.int64), limits)
    _, cabinet_group = split_groups(graph, part, capacity, 0)
    return group_flows(graph, part), cabinet_group, floor, load_catalog(catalog_name), int(graph.endpoints.sum())


def layout_of(floor, flows, cabinet_group):
    k = flows.shape[0]
    width = max(int(np.bincount(cabinet_group, minlength=k).max()), int(floor.group_cabinets or 1))
    return floors.slot_layout(floor, k, width)


def measured(fn):
    """(result, wall seconds, CPU seconds of this process, peak traced bytes) of fn()."""
    tracemalloc.start()
    t, cpu = time.perf_counter(), time.process_time()
    out = fn()
    seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return out, seconds, cpu, peak


def run_case(name: str, dense_max: int) -> dict:
    flows, cabinet_group, floor, catalog, endpoints = group_problem(name)
    layout = layout_of(floor, flows, cabinet_group)
    k = flows.shape[0]
    metric = SlotMetric(floor, catalog, layout)
    points = slot_points(layout)
    row = dict(case=name, endpoints=endpoints, groups=k, linked_pairs=int(flows.nnz // 2),
               halls=int(layout.hall.max()) + 1, load=os.getloadavg()[0])
    slot, seconds, cpu, peak = measured(lambda: assign_slots_sparse(flows, layout, metric, *points))
    row.update(sparse_s=seconds, sparse_cpu_s=cpu, sparse_peak_mb=peak / 2**20, sparse_cost=sparse_cost(flows, metric, slot),
               sparse_digest=hashlib.sha256(slot.astype(np.int64).tobytes()).hexdigest()[:12],
               rowmajor_cost=sparse_cost(flows, metric, np.arange(k)))
    if k <= dense_max:
        def dense():
            dist = slot_costs(floor, catalog, layout.row, layout.col, layout.width, layout.hall, layout.room)
            return assign_slots(flows.toarray(), dist, *points)
        slot, seconds, cpu, peak = measured(dense)
        row.update(dense_s=seconds, dense_cpu_s=cpu, dense_peak_mb=peak / 2**20, dense_cost=sparse_cost(flows, metric, slot))
    row["load_after"] = os.getloadavg()[0]
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="*", default=list(CASES), help=f"of {', '.join(CASES)}")
    parser.add_argument("--dense-max", type=int, default=4000, help="largest k for the dense path")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    rows = []
    for name in args.cases:
        with threadpool_limits(limits=1):   # as ``planner.placement.place`` runs it
            row = run_case(name, args.dense_max)
        if rows:
            prev = rows[-1]
            row["sparse_cpu_exponent"] = (math.log(row["sparse_cpu_s"] / prev["sparse_cpu_s"])
                                          / math.log(row["groups"] / prev["groups"]))
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
