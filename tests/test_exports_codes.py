"""CODES dragonfly-dally connection files: record counts, symmetry, group-local intra ids."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from planner.exports import codes
from test_exports_plans import get_plan


@pytest.fixture(scope="module", params=["dragonfly-hot", "dragonfly-trunk"])
def written(request, tmp_path_factory):
    plan = get_plan(request.param)
    out = tmp_path_factory.mktemp(request.param)
    codes.write(plan, out)
    return plan, out / codes.FOLDER


def test_record_counts_match_the_dragonfly(written):
    plan, folder = written
    a, h, g = (plan.topology.params[k] for k in ("a", "h", "g"))
    intra = np.fromfile(folder / codes.INTRA, dtype=codes.INTRA_DTYPE)
    inter = np.fromfile(folder / codes.INTER, dtype=codes.INTER_DTYPE)
    assert (folder / codes.INTRA).stat().st_size == 12 * len(intra)
    assert (folder / codes.INTER).stat().st_size == 8 * len(inter)
    assert len(intra) == a * (a - 1)                      # K_a, both directions, one group
    assert len(inter) == 2 * (plan.topology.num_links - g * a * (a - 1) // 2)
    assert len(inter) == g * a * h                        # every global port used once
    assert np.all(intra["type"] == 0)
    assert intra["src"].max() < a and intra["dest"].max() < a


def test_files_are_symmetric_little_endian_and_match_cables(written):
    plan, folder = written
    a = plan.topology.params["a"]
    raw = (folder / codes.INTER).read_bytes()
    first = int.from_bytes(raw[:4], "little", signed=True)
    inter = np.fromfile(folder / codes.INTER, dtype=codes.INTER_DTYPE)
    assert first == inter["src"][0]
    directed = Counter(zip(inter["src"].tolist(), inter["dest"].tolist()))
    assert all(directed[(d, s)] == k for (s, d), k in directed.items())
    assert all(s // a != d // a for s, d in directed)
    intra = np.fromfile(folder / codes.INTRA, dtype=codes.INTRA_DTYPE)
    local = Counter(zip(intra["src"].tolist(), intra["dest"].tolist()))
    assert all(local[(d, s)] == k for (s, d), k in local.items())
    net = plan.cables[plan.cables["kind"] == "network"]
    cables = Counter()
    for u, v in zip(net["a_router"], net["b_router"]):
        cables[u, v] += 1
        cables[v, u] += 1
    rebuilt = Counter()
    for grp in range(plan.topology.params["g"]):
        for (s, d), k in local.items():
            rebuilt[grp * a + s, grp * a + d] += k
    rebuilt.update(directed)
    assert rebuilt == cables


def test_conf_snippet_parameters(written):
    plan, folder = written
    text = (folder / codes.CONF).read_text()
    values = dict(re.findall(r'^\s*([\w-]+)="([^"]*)";', text, flags=re.M))
    params = plan.topology.params
    assert values["num_routers"] == str(params["a"])
    assert values["num_groups"] == str(params["g"])
    assert values["num_cns_per_router"] == str(params["p"])
    assert values["num_global_channels"] == str(params["h"])
    assert values["repetitions"] == str(params["a"] * params["g"])
    assert values["intra-group-connections"] == codes.INTRA
    assert values["inter-group-connections"] == codes.INTER
    assert all(line.strip().endswith((";", "{", "}")) or line.startswith("#") or not line.strip()
               or line.strip() in ("LPGROUPS", "PARAMS", "MODELNET_GRP")
               for line in text.splitlines())


def test_router_map_is_identity_for_group_major_ids(written):
    plan, folder = written
    rows = (folder / codes.MAP).read_text().splitlines()
    assert rows[0] == "router,device,group,local,codes_gid"
    assert all(r.split(",")[0] == r.split(",")[-1] for r in rows[1:])


def test_other_families_get_no_codes_files(tmp_path):
    codes.write(get_plan("slimfly-hot"), tmp_path)
    assert not (tmp_path / codes.FOLDER).exists()


def test_conf_delays_are_the_cable_latencies_per_link_class(written):
    plan, folder = written
    text = (folder / codes.CONF).read_text()
    values = dict(re.findall(r'^\s*([\w-]+)="([^"]*)";', text, flags=re.M))
    a = plan.topology.params["a"]
    cables = plan.cables
    net = cables[cables["kind"] == "network"]
    local = net["a_router"] // a == net["b_router"] // a
    expect = {"local_delay": net.loc[local, "latency_ns"].mean(),
              "global_delay": net.loc[~local, "latency_ns"].mean(),
              "cn_delay": cables.loc[cables["kind"] == "endpoint", "latency_ns"].mean()}
    for key, mean in expect.items():
        assert float(values[key]) == pytest.approx(mean, abs=0.005), key
    assert float(values["router_delay"]) == plan.router_model.latency_ns == 425  # SN3700C
    assert f"local_delay: mean of {int(local.sum()):,} cables" in text
