"""Bad parameters of the GPU-fabric families (issue 27 item 2) are refused as every bad input
is (``tests/test_bad_input.py``): exit code 2, one line on stderr naming the parameter, the
numbers and the fix, no traceback, and nothing written: ``planner topology`` and ``planner
plan`` both, the plan's output folder never created.
"""

from __future__ import annotations

import pytest

from test_bad_input import refused, snapshot

# spec, words the one line must hold (the numbers and the fix)
CASES = {
    "a unit size that does not divide over the rail leaves": (
        "railfattree:units=4,servers=40,nics=8,radix=64",
        ("railfattree", "servers=40", "does not divide", "leaves of 32 server ports",
         "1.25 leaves", "use servers <= 32", "multiple of 32")),
    "a unit size that does not divide the oversubscribed leaves": (
        "railfattree:units=4,servers=48,nics=8,radix=64,oversub=2",
        ("servers=48", "leaves of 42 server ports", "oversub=2", "use servers <= 42")),
    "a radix too small for any leaf at that oversubscription": (
        "railfattree:units=1,servers=4,nics=2,radix=2,oversub=2",
        ("radix-2 leaf at oversub=2", "no whole split", "larger radix")),
    "oversub that gives fractional up-links": (
        "railfattree:units=4,servers=32,nics=8,radix=64,oversub=3",
        ("oversub=3", "32/3 = 10.7 up-links", "use an oversub", "32 servers per leaf",
         "1, 2, 4, 8, 16, 32")),
    "oversub not a number": (
        "railfattree:units=4,servers=32,nics=8,radix=64,oversub=fast",
        ("'oversub' must be a number", "'fast'")),
    "more units than three tiers hold": (
        "railfattree:units=300,servers=32,nics=8,radix=64",
        ("units=300 x nics=8", "beyond three tiers", "use units <= 256")),
    "a server with more NICs than a switch has ports": (
        "railfattree:units=1,servers=8,nics=80,radix=64",
        ("nics=80", "80 rail leaves", "64 ports", "use nics <= 64")),
    "a server without NICs": (
        "railfattree:units=4,servers=32,nics=0,radix=64", ("'nics'", "must be >= 1, got 0")),
    "more servers than a plane holds": (
        "multiplane:planes=8,radix=64,endpoints=3000",
        ("endpoints=3000", "64 leaves x 32 down ports = 2048", "use endpoints <= 2048")),
    "planes missing": ("multiplane:radix=64", ("missing parameter 'planes'",)),
    "more Dragonfly+ groups than the radix allows": (
        "dragonflyplus:radix=16,g=66",
        ("g=66", "8 spines x 8 global ports = 64", "use g <= 65")),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("command", ["topology", "plan"])
def test_refused_with_the_numbers_and_the_fix(name, command, tmp_path, capsys, monkeypatch):
    spec, words = CASES[name]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("mine\n")
    before = snapshot(tmp_path)
    argv = ["topology", spec] if command == "topology" else \
        ["plan", "--topology", spec, "--strategy", "hint", "--out", "out"]
    err = refused(argv, capsys)
    for word in words:
        assert word in err, (word, err)
    assert snapshot(tmp_path) == before
