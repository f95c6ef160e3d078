"""``planner topology FAMILY k=v ... [--json]``: build one topology and print its figures."""

from __future__ import annotations

import json

import numpy as np

from planner.run.errors import InputError
from planner.run.terminal import printable
from planner.topologies import FAMILIES, build, check_radix, defaults, parse_spec
from planner.topologies.base import Topology
from planner.topologies.metrics import distance_stats
from planner.topologies.multiplane import one_plane

NAME = "topology"
HELP = "build a topology and print routers, endpoints, links, radix, diameter, distances"
ORDER = 10


def add_arguments(parser) -> None:
    parser.add_argument("family", metavar="FAMILY",
                        help=f"one of {', '.join(FAMILIES)} (polarfly = demipn), "
                             "'FAMILY:k=v,k=v', or file:PATH (.graphml, .csv, .anynet)")
    parser.add_argument("params", nargs="*", metavar="k=v",
                        help="builder parameters, e.g. q=19 p=13, h=7, S=22x22, dims=8x8x8")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--max-radix", type=int, metavar="R",
                        help="reject parameters whose routers need more than R ports")
    parser.add_argument("--no-distances", action="store_true",
                        help="skip diameter and average distance (BFS from every router)")


def topology_from_args(family: str, params: list[str]) -> Topology:
    """FAMILY plus k=v words (or a 'FAMILY:k=v,...' / 'file:PATH' spec) -> Topology."""
    words: dict[str, str] = {}
    for word in params:
        key, eq, value = word.partition("=")
        if not eq or not key.strip():
            raise InputError(f"parameter {word!r} must be written k=v (e.g. q=19)")
        if key.strip() in words:
            raise InputError(f"parameter {key.strip()!r} given twice")
        words[key.strip()] = value.strip()
    if family.startswith("file:"):
        unknown = sorted(set(words) - {"p"})
        if unknown:
            raise InputError(f"{family}: unknown parameter {unknown[0]!r}; an imported file "
                             f"takes only p=N (uniform endpoints per router)")
        return parse_spec(family + (f"?p={words['p']}" if "p" in words else ""))
    if ":" in family:
        top = parse_spec(family)
        if words:
            return build(top.family, **{**top.params, **words})
        return top
    return build(family, **words)


def report(top: Topology, distances: bool) -> dict:
    """The figures ``planner topology`` prints (and its --json object)."""
    diameter = avg = None
    planes = top.extra.get("planes", 1)
    if distances:
        diameter, avg = distance_stats(one_plane(top))
    n = top.num_endpoints
    return {
        "family": top.family,
        "params": top.params,
        "routers": top.num_routers,
        "endpoints": n,
        "links": top.num_links,
        "router_pairs": int(len(top.links)),
        "radix": top.radix,
        "network_degree": [int(top.degree.min()), int(top.degree.max())],
        "diameter": diameter,
        "avg_distance": None if avg is None else round(avg, 6),
        "distance_scope": "all router pairs" if top.roles is None else
                          "leaf to leaf" + (", within a plane" if planes > 1 else ""),
        "ports_per_endpoint": round(top.radix * top.num_routers / n, 6) if n else None,
        "links_per_endpoint": round((top.num_links + n) / n, 6) if n else None,
        "roles": None if top.roles is None else {r: top.roles.count(r)
                                                 for r in dict.fromkeys(top.roles)},
        "cables_by_tier": cables_by_tier(top),
        "servers": servers(top),
        "groups": None if top.groups is None else int(top.groups.max()) + 1,
        "group_kind": top.group_kind,
        "defaults": defaults.notes(top),
    }


def cables_by_tier(top: Topology) -> dict[str, int] | None:
    """Cables between each pair of router roles ('leaf-spine', 'spine-core', ...) after the
    endpoint cables ('endpoint-leaf'), for networks with roles; None for direct networks."""
    if top.roles is None:
        return None
    order = list(dict.fromkeys(top.roles))
    rank = np.array([order.index(r) for r in top.roles])
    lo = np.minimum(rank[top.links[:, 0]], rank[top.links[:, 1]])
    hi = np.maximum(rank[top.links[:, 0]], rank[top.links[:, 1]])
    counts = np.bincount(lo * len(order) + hi, weights=top.multiplicity,
                         minlength=len(order) ** 2)
    out = {f"endpoint-{order[0]}": top.num_endpoints}
    out.update({f"{order[i]}-{order[j]}": int(counts[i * len(order) + j])
                for i in range(len(order)) for j in range(i, len(order))
                if counts[i * len(order) + j]})
    return out


def servers(top: Topology) -> dict[str, int] | None:
    """Servers and NICs per server of families whose servers have several NICs
    (``planner.topologies.servers``), else None."""
    record = top.extra.get("servers")
    return None if record is None else {"count": record["count"], "nics": record["nics"]}


def _text(rep: dict) -> str:
    params = " ".join(f"{k}={'x'.join(map(str, v)) if isinstance(v, list) else v}"
                      for k, v in rep["params"].items())
    lo, hi = rep["network_degree"]
    rows = [
        ("family", f"{rep['family']}  {params}"),
        ("routers", f"{rep['routers']:,}"),
        ("endpoints", f"{rep['endpoints']:,}"),
        ("router-router links", f"{rep['links']:,}"
         + (f" ({rep['router_pairs']:,} router pairs)" if rep["router_pairs"] != rep["links"]
            else "")),
        ("radix", f"{rep['radix']} (network degree {lo if lo == hi else f'{lo}-{hi}'} "
                  f"+ endpoint ports)"),
    ]
    if rep["diameter"] is not None:
        rows += [("diameter", f"{rep['diameter']} hops ({rep['distance_scope']})"),
                 ("average distance", f"{rep['avg_distance']:.4f} hops")]
    if rep["ports_per_endpoint"] is not None:
        rows += [("ports per endpoint", f"{rep['ports_per_endpoint']:.3f} (radix x routers / "
                                        f"endpoints)"),
                 ("links per endpoint", f"{rep['links_per_endpoint']:.3f} (router-router + "
                                        f"endpoint links, per endpoint)")]
    if rep["roles"]:
        rows.append(("routers per tier", ", ".join(f"{n:,} {r}" for r, n in
                                                    rep["roles"].items())))
        rows.append(("cables per tier", ", ".join(f"{n:,} {t}" for t, n in
                                                   rep["cables_by_tier"].items())))
    if rep["servers"]:
        rows.append(("servers", f"{rep['servers']['count']:,} x {rep['servers']['nics']} NICs "
                                f"(one endpoint per NIC)"))
    if rep["groups"]:
        rows.append(("grouping hint", f"{rep['groups']} x {rep['group_kind']}"))
    width = max(len(k) for k, _ in rows)
    notes = [f"note: {note}" for note in rep["defaults"]]
    return "\n".join(notes + [f"{k:<{width}}  {v}" for k, v in rows])


def run(args) -> int:
    top = topology_from_args(args.family, args.params)
    if args.max_radix is not None and args.max_radix < 1:
        raise InputError(f"--max-radix must be a positive integer, got {args.max_radix}")
    check_radix(top, args.max_radix)
    rep = report(top, not args.no_distances)
    print(json.dumps(rep, indent=2) if args.json else printable(_text(rep), None, keep="\n"))
    return 0
