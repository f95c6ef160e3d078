"""topology.dot: parses with pydot, one ``"dev":"port" -- "dev":"port"`` edge per cable."""

from __future__ import annotations

import re
from collections import Counter

import pydot
import pytest

from planner.exports import dot
from test_exports_plans import get_plan

PLANS = ["slimfly-hot", "dragonfly-hot", "dragonfly-trunk"]
# pydot's grammar still calls pyparsing's deprecated camelCase API
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:pydot")
EDGE = re.compile(r'^  "([^"]+)":"([^"]+)" -- "([^"]+)":"([^"]+)" \[label="([^"]+)"\];$')


@pytest.fixture(scope="module", params=PLANS)
def written(request, tmp_path_factory):
    plan = get_plan(request.param)
    out = tmp_path_factory.mktemp(request.param)
    dot.write(plan, out)
    return plan, (out / dot.FILENAME).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["dragonfly-hot", "dragonfly-trunk"])
def test_parses_with_pydot_and_has_one_edge_per_cable(tmp_path, name):
    # pydot's parser is slow: the two small plans here (the second with parallel cables)
    plan = get_plan(name)
    dot.write(plan, tmp_path)
    text = (tmp_path / dot.FILENAME).read_text(encoding="utf-8")
    (graph,) = pydot.graph_from_dot_data(text)
    assert graph.get_type() == "graph"
    edges = graph.get_edges()
    assert len(edges) == len(plan.cables)
    first = plan.cables.iloc[0]
    assert edges[0].get_source() == f'"{first.a_device}":"{first.a_port}"'
    assert edges[0].get_destination() == f'"{first.b_device}":"{first.b_port}"'
    pairs = Counter(frozenset((e.get_source().split(":")[0], e.get_destination().split(":")[0]))
                    for e in edges)
    cables = Counter(frozenset((f'"{a}"', f'"{b}"'))
                     for a, b in zip(plan.cables["a_device"], plan.cables["b_device"]))
    assert pairs == cables                       # parallel cables stay separate edges


def test_every_edge_is_a_cable_in_prescriptive_form(written):
    plan, text = written
    lines = text.splitlines()
    assert lines[0].startswith("graph ") and lines[-1] == "}"
    parsed = [EDGE.match(line).groups() for line in lines[1:-1]]
    expected = list(zip(plan.cables["a_device"], plan.cables["a_port"].astype(str),
                        plan.cables["b_device"], plan.cables["b_port"].astype(str),
                        plan.cables["label"]))
    assert parsed == expected
    ends = [(d, p) for a, pa, b, pb, _ in parsed for d, p in ((a, pa), (b, pb))]
    assert len(ends) == len(set(ends)), "a port appears on two cables"


@pytest.mark.parametrize("raw, quoted", [('r1', '"r1"'), ('a"b', '"a\\"b"'),
                                         ("c\\d", '"c\\\\d"')])
def test_quote_escapes_dot_ids(raw, quoted):
    assert dot.quote(raw) == quoted
