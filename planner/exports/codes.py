"""CODES ``dragonfly-dally`` connection files for Dragonfly plans (reader: codes
``src/networks/model-net/dragonfly-dally.cxx``; generator: ``scripts/dragonfly-dally/
dragonfly-dally-topo-gen.py``).

Written into ``codes/`` only when the plan's topology is a Dragonfly:

- ``dragonfly-dally-intra``: records ``struct {int32 src, dest, type}`` (12 bytes), group-local
  router indices, one record per directed port (both directions of every local cable,
  parallel cables repeated), ``type`` 0. The reader replicates this pattern in every group
  (``dragonfly-dally.cxx``: ``dest_gid = group * num_routers + dest_local``), so it is written
  from group 0 after checking that every group has the same local wiring.
- ``dragonfly-dally-inter``: records ``struct {int32 src, dest}`` (8 bytes) with global router
  ids ``group * num_routers + local``, both directions of every global cable.
- ``dragonfly-dally.conf``: the LPGROUPS/PARAMS snippet (``num_routers``, ``num_groups``,
  ``num_cns_per_router``, ``num_global_channels``, the two file names, bandwidths from the
  router model) and the delays from the plan: dragonfly-dally has one propagation delay per
  link class (``local_delay``, ``global_delay``, ``cn_delay``, in ns) and a ``router_delay``;
  each class gets the mean latency of its cables (so the average zero-load latency is kept;
  the range is in a comment) and the router delay of the performance stage.
- ``router-map.csv``: plan router id and device name -> CODES global id.

Records are little-endian int32 (the generator's ``struct.pack("3i")`` on x86). Terminals are
not in the files: CODES attaches ``num_cns_per_router`` terminals to every router, which needs
the same endpoint count on every router.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from planner.run.errors import InputError

FOLDER = "codes"
INTRA, INTER, CONF, MAP = ("dragonfly-dally-intra", "dragonfly-dally-inter",
                           "dragonfly-dally.conf", "router-map.csv")
INTRA_DTYPE = np.dtype([("src", "<i4"), ("dest", "<i4"), ("type", "<i4")])
INTER_DTYPE = np.dtype([("src", "<i4"), ("dest", "<i4")])


def applies(plan) -> bool:
    """CODES files are written for Dragonfly topologies (with their group hint) only."""
    return plan.topology.family == "dragonfly" and plan.topology.groups is not None


def codes_ids(groups: np.ndarray) -> tuple[np.ndarray, int, int]:
    """(global id per router, routers per group, number of groups); local = rank in group."""
    groups = np.asarray(groups, np.int64)
    num_groups = int(groups.max()) + 1
    sizes = np.bincount(groups, minlength=num_groups)
    if len(set(sizes.tolist())) != 1:
        raise InputError(f"CODES dragonfly-dally export: groups must have equal sizes, "
                         f"got {sorted(set(sizes.tolist()))} routers per group")
    per_group = int(sizes[0])
    order = np.lexsort((np.arange(len(groups)), groups))
    local = np.empty(len(groups), np.int64)
    local[order] = np.arange(len(groups)) - np.repeat(np.arange(num_groups) * per_group,
                                                       per_group)
    return groups * per_group + local, per_group, num_groups


def connection_records(plan) -> dict:
    """Intra and inter record arrays plus the parameters of the .conf snippet."""
    top = plan.topology
    gid, per_group, num_groups = codes_ids(top.groups)
    net = plan.cables[plan.cables["kind"] == "network"]
    a = gid[net["a_router"].to_numpy(np.int64)]
    b = gid[net["b_router"].to_numpy(np.int64)]
    src, dst = np.concatenate([a, b]), np.concatenate([b, a])
    same = (src // per_group) == (dst // per_group)
    local_src, local_dst, local_grp = src[same] % per_group, dst[same] % per_group, \
        src[same] // per_group
    pattern = None
    for g in range(num_groups):
        sel = local_grp == g
        mine = np.sort(local_src[sel] * per_group + local_dst[sel])
        if pattern is None:
            pattern = mine
        elif not np.array_equal(mine, pattern):
            raise InputError(f"CODES dragonfly-dally export: group {g} is wired differently "
                             f"inside from group 0; dragonfly-dally replicates one intra-group "
                             f"pattern in every group")
    pattern = pattern if pattern is not None else np.zeros(0, np.int64)
    intra = np.zeros(len(pattern), INTRA_DTYPE)
    intra["src"], intra["dest"] = pattern // per_group, pattern % per_group
    order = np.lexsort((dst[~same], src[~same]))
    inter = np.zeros(int((~same).sum()), INTER_DTYPE)
    inter["src"], inter["dest"] = src[~same][order], dst[~same][order]
    pair_counts = np.bincount(pattern, minlength=per_group * per_group) if len(pattern) else \
        np.zeros(1, np.int64)
    parallel = max(int(pair_counts.max()), 1)
    global_ports = np.bincount(inter["src"], minlength=per_group * num_groups)
    endpoints = np.unique(np.asarray(top.endpoints))
    if len(endpoints) != 1:
        raise InputError(f"CODES dragonfly-dally export: every router needs the same number of "
                         f"endpoints (num_cns_per_router), got {endpoints.tolist()}")
    return dict(intra=intra, inter=inter, gid=gid, num_routers=per_group,
                num_groups=num_groups, num_cns_per_router=int(endpoints[0]),
                num_parallel_switch_conns=parallel,
                num_global_channels=max(1, math.ceil(int(global_ports.max(initial=0)) / parallel)))


def class_delays(plan, rec: dict) -> dict[str, tuple[float, float, float, int]]:
    """(mean, min, max, cables) latency in ns of the local, global and endpoint cables."""
    gid, per_group = rec["gid"], rec["num_routers"]
    cables = plan.cables
    net = cables[cables["kind"] == "network"]
    a = gid[net["a_router"].to_numpy(np.int64)] // per_group
    b = gid[net["b_router"].to_numpy(np.int64)] // per_group
    lat = net["latency_ns"].to_numpy(float)
    out = {}
    for name, values in (("local_delay", lat[a == b]), ("global_delay", lat[a != b]),
                         ("cn_delay", cables.loc[cables["kind"] == "endpoint",
                                                 "latency_ns"].to_numpy(float))):
        out[name] = ((float(values.mean()), float(values.min()), float(values.max()),
                      len(values)) if len(values) else (0.0, 0.0, 0.0, 0))
    return out


def conf_text(plan, rec: dict) -> str:
    gib_s = float(plan.router_model.rate_gbps) * 1e9 / 8 / 2**30
    total = rec["num_routers"] * rec["num_groups"]
    cn = rec["num_cns_per_router"]
    delays = class_delays(plan, rec)
    router_ns = plan.summary.get("performance", {}).get("latency_ns", {}).get("router_ns")
    if router_ns is None:
        from planner.performance import router_latency
        router_ns = router_latency(plan.router_model, None)[0]
    delay_notes = [f"# {name}: mean of {count:,} cables, {lo:.2f}..{hi:.2f} ns"
                   + ("" if count else " (no endpoint cables planned: 0)")
                   for name, (mean, lo, hi, count) in delays.items()]
    return "\n".join([
        f"# CODES dragonfly-dally model of the {plan.topology.family} plan "
        f"({json_params(plan.topology.params)}).",
        "# File paths are relative to the directory CODES is started from.",
        f"# Bandwidths: {plan.router_model.rate_gbps:g} Gb/s ports = {gib_s:.3f} GiB/s.",
        "# Delays in ns from the plan's cables (length x 4.5 ns/m copper, 4.9 ns/m fibre); one",
        "# value per link class, as dragonfly-dally models them:",
        *delay_notes,
        "LPGROUPS",
        "{",
        "   MODELNET_GRP",
        "   {",
        f'      repetitions="{total}";',
        f'      nw-lp="{cn}";',
        f'      modelnet_dragonfly_dally="{cn}";',
        '      modelnet_dragonfly_dally_router="1";',
        "   }",
        "}",
        "PARAMS",
        "{",
        '   packet_size="4096";',
        '   modelnet_order=( "dragonfly_dally","dragonfly_dally_router" );',
        '   modelnet_scheduler="fcfs";',
        '   chunk_size="4096";',
        f'   num_routers="{rec["num_routers"]}";',
        f'   num_groups="{rec["num_groups"]}";',
        f'   num_cns_per_router="{cn}";',
        f'   num_global_channels="{rec["num_global_channels"]}";',
        f'   num_parallel_switch_conns="{rec["num_parallel_switch_conns"]}";',
        '   local_vc_size="16384";',
        '   global_vc_size="16384";',
        '   cn_vc_size="32768";',
        f'   local_bandwidth="{gib_s:.3f}";',
        f'   global_bandwidth="{gib_s:.3f}";',
        f'   cn_bandwidth="{gib_s:.3f}";',
        '   message_size="736";',
        f'   router_delay="{router_ns:.2f}";',
        *(f'   {name}="{mean:.2f}";' for name, (mean, _, _, _) in delays.items()),
        f'   intra-group-connections="{INTRA}";',
        f'   inter-group-connections="{INTER}";',
        '   routing="minimal";',
        '   minimal-bias="1";',
        '   df-dally-vc="1";',
        "}",
        "",
    ])


def json_params(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def write(plan, out_dir: Path) -> None:
    """Write the ``codes/`` folder for a Dragonfly plan; other families get nothing."""
    if not applies(plan):
        return
    rec = connection_records(plan)
    folder = Path(out_dir) / FOLDER
    folder.mkdir(exist_ok=True)
    (folder / INTRA).write_bytes(rec["intra"].tobytes())
    (folder / INTER).write_bytes(rec["inter"].tobytes())
    (folder / CONF).write_text(conf_text(plan, rec), encoding="ascii", newline="\n")
    routers = np.arange(plan.topology.num_routers)
    names = (plan.devices[plan.devices["kind"] == "router"].set_index("id")["name"]
             .reindex(routers).astype(str).to_numpy())
    pd.DataFrame({"router": routers, "device": names, "group": rec["gid"] // rec["num_routers"],
                  "local": rec["gid"] % rec["num_routers"], "codes_gid": rec["gid"]}).to_csv(
        folder / MAP, index=False, lineterminator="\n")
