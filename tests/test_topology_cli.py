"""``planner topology`` and ``planner size`` on the command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli import main

FIX = Path(__file__).parent / "fixtures" / "topologies"


def run(capsys, *argv):
    """(exit code, stdout, stderr) of ``planner ARGV``; argparse errors exit via SystemExit."""
    try:
        code = main(list(argv))
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def test_topology_text(capsys):
    code, out, _ = run(capsys, "topology", "slimfly", "q=5")
    assert code == 0
    assert "slimfly  q=5 p=4" in out
    assert "routers              50\n" in out and "endpoints            200\n" in out
    assert "router-router links  175" in out
    assert "radix                11 (network degree 7" in out
    assert "diameter             2 hops" in out
    assert "average distance     1.8571" in out
    assert "ports per endpoint   2.750" in out and "links per endpoint   1.875" in out
    assert "5 x rack" in out


@pytest.mark.parametrize("argv, expect", [
    (["dragonfly", "h=7"], {"routers": 1386, "endpoints": 9702, "links": 13860, "radix": 27,
                            "diameter": 3}),
    (["dragonfly:h=2,arrangement=absolute"], {"routers": 36, "radix": 7, "diameter": 3}),
    (["hyperx", "S=4x4", "p=2"], {"routers": 16, "endpoints": 32, "links": 48, "radix": 8,
                                  "diameter": 2, "avg_distance": 1.6}),
    (["fattree", "k=4"], {"routers": 20, "endpoints": 16, "radix": 4, "diameter": 4,
                          "ports_per_endpoint": 5.0, "links_per_endpoint": 3.0}),
    (["oft", "q=2"], {"routers": 21, "endpoints": 42, "diameter": 2, "avg_distance": 2.0,
                      "ports_per_endpoint": 3.0, "links_per_endpoint": 2.0}),
    (["polarfly", "q=3"], {"family": "demipn", "routers": 13, "diameter": 2}),
    ([f"file:{FIX / 'ring4.csv'}"], {"family": "import", "routers": 4, "links": 5,
                                      "endpoints": 7, "diameter": 2}),
    ([f"file:{FIX / 'ring4.anynet'}"], {"routers": 4, "links": 4, "endpoints": 8}),
])
def test_topology_json(capsys, argv, expect):
    code, out, _ = run(capsys, "topology", *argv, "--json")
    assert code == 0
    data = json.loads(out)
    for key in ("family", "params", "routers", "endpoints", "links", "radix", "diameter",
                "avg_distance", "ports_per_endpoint", "links_per_endpoint"):
        assert key in data
    for key, value in expect.items():
        assert data[key] == pytest.approx(value) if isinstance(value, float) else data[key] == value


def test_topology_file_with_uniform_p(capsys, tmp_path):
    path = tmp_path / "links.csv"
    path.write_text("0,1\n1,2\n")
    code, out, _ = run(capsys, "topology", f"file:{path}", "p=3", "--json", "--no-distances")
    assert code == 0 and json.loads(out)["endpoints"] == 9 and json.loads(out)["diameter"] is None


@pytest.mark.parametrize("argv, message", [
    (["topology", "slimfly", "q=6"], "'q'=6 is not a prime power; nearest valid values: 5 or 7"),
    (["topology", "nosuch"], "unknown topology family 'nosuch'; valid families:"),
    (["topology", "slimfly", "q=5", "x=1"], "unknown parameter 'x'; valid parameters: q, p"),
    (["topology", "slimfly"], "missing parameter 'q'"),
    (["topology", "slimfly", "q"], "parameter 'q' must be written k=v"),
    (["topology", "slimfly", "q=abc"], "'q' must be an integer, got 'abc'"),
    (["topology", "slimfly", "q=19", "--max-radix", "40"], "need radix 44 .* --max-radix 40"),
    (["topology", "galaxyfly", "n=3", "q=5", "a=1", "h=2"], "a\\*h = 2 is less than h_g \\+ h_s"),
    (["topology", "file:/nonexistent/x.csv"], "does not exist"),
    (["topology", f"file:{FIX / 'ring4.csv'}", "q=3"], "takes only p=N"),
    # hand-written malformed files: self-loop, unknown router ids, non-numeric fields
    (["topology", f"file:{FIX / 'bad_selfloop.csv'}"], "line 4: self-loop on router 2"),
    (["topology", f"file:{FIX / 'bad_unknown_router.csv'}"],
     "line 3: unknown router 5; the endpoints table defines routers 0..1"),
    (["topology", f"file:{FIX / 'bad_unknown_node.graphml'}"],
     "an edge names node 'spine9', which has no <node id=\"spine9\"> element"),
    (["topology", f"file:{FIX / 'bad_nonnumeric.anynet'}"],
     "line 2: 'router' must be followed by a non-negative integer id, got 'two'"),
    (["topology", f"file:{FIX / 'bad_endpoints.graphml'}"],
     "node '1' attribute 'endpoints' must be an integer between 0 and 10000, got 'two'"),
    (["topology", "galaxyfly", "n=3", "q=2", "a=2", "h=2"], "'q' must be 1 \\(the Dragonfly"),
    (["topology", "dragonfly", "h=2", "g=12"], "'g'=12 exceeds a\\*h\\+1 = 9"),
    (["size", "--endpoints", "0", "--max-radix", "48"], "--endpoints must be a positive"),
    (["size", "--endpoints", "1000", "--max-radix", "48", "--families", "nosuch"],
     "unknown topology family 'nosuch'"),
    (["size", "--endpoints", "lots", "--max-radix", "48"], "invalid int value: 'lots'"),
    (["size", "--endpoints", str(10 ** 30), "--max-radix", "48"], "up to 100,000,000"),
    (["size", "--endpoints", "1000", "--max-radix", "100000"], "between 2 and 1024"),
])
def test_bad_input_exit_2_one_line(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert re.search(message, err), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_size_json_ranked_within_radix_with_ports_used_and_free(capsys):
    code, out, _ = run(capsys, "size", "--endpoints", "10000", "--max-radix", "64",
                       "--families", "slimfly,oft", "mlfm", "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["family"] for r in rows} == {"slimfly", "oft", "mlfm"}
    for fam in ("slimfly", "oft", "mlfm"):
        mine = [r for r in rows if r["family"] == fam]
        near = [r["ports_free"] for r in mine if abs(r["endpoints"] - 10000) <= 2500]
        assert near == sorted(near) and len(mine) == 3        # fullest switch first
    assert all(r["radix"] == r["ports_used"] <= 64 and r["ports_free"] == 64 - r["radix"]
               for r in rows)
    mlfm = next(r for r in rows if r["spec"] == "mlfm:h=21,p=21")
    assert (mlfm["endpoints"], mlfm["routers"], mlfm["radix"]) == (9702, 693, 42)
    assert mlfm["ports_per_endpoint"] == 3.0 and mlfm["links_per_endpoint"] == 2.0


def test_size_text(capsys):
    code, out, _ = run(capsys, "size", "--endpoints", "9702", "--max-radix", "27",
                       "--families", "dragonfly", "--count", "1")
    assert code == 0
    assert "dragonfly:a=14,p=7,h=7,g=99" in out and "+0" in out


def test_real_subprocess():
    """One real process: the exit status and stderr a shell sees for bad input."""
    bad = subprocess.run([sys.executable, "-m", "planner.cli", "topology", "pn", "q=10"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert bad.stderr == ("planner topology: error: pn: parameter 'q'=10 is not a prime power; "
                          "nearest valid values: 9 or 11\n")


@pytest.mark.parametrize("argv, notes, absent", [
    (["topology", "dragonfly:a=20,p=10,h=10", "--no-distances"],
     ["note: dragonfly: g not given, using g=201: a·h + 1 with a=20, h=10: the most groups",
      "-> 4,020 routers, 40,200 endpoints"], []),
    (["topology", "dragonfly", "h=7", "--no-distances"],
     ["a not given, using a=14", "p not given, using p=7", "g not given, using g=99"], []),
    (["topology", "slimfly", "q=19", "--no-distances"],
     ["slimfly: p not given, using p=15: p = ⌈k'/2⌉"], []),
    (["topology", "dragonfly:a=20,p=10,h=10,g=50", "--no-distances"], [], ["note:"]),
    (["topology", "slimfly", "q=5", "p=4", "--no-distances"], [], ["note:"]),
])
def test_size_changing_defaults_are_printed_with_the_reason(capsys, argv, notes, absent):
    code, out, _ = run(capsys, *argv)
    assert code == 0
    for note in notes:
        assert note in out
    for text in absent:
        assert text not in out
    code, out, _ = run(capsys, *argv, "--json")
    assert (len(json.loads(out)["defaults"]) > 0) == bool(notes)
