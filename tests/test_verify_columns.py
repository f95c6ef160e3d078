"""The column path of ``planner verify`` (``planner.verify.observed.observed_table``: pandas' C
parser, one pattern over an ibnetdiscover or net_dump text, links resolved and matched as end
keys) gives the same links and the same report as the row path (``read_observed`` then
``resolve``, one link at a time), which is the one that names the line of a bad row.

Each case is an observed file written in a shape found in the field (CRLF line ends, blank and
padded lines, names to resolve, links listed from both ends, ``--ignore``); the column reader
must take it (not hand it back to the row path) and agree with the row path link for link.
Files the column readers must hand back are checked too: the row path then raises its error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.run.errors import InputError
from planner.verify import ObservedLink, compare, load_plan, read_observed, resolve
from planner.verify.comparison import compare_table
from planner.verify.ibnetdiscover import ibnetdiscover_columns
from planner.verify.net_dump import net_dump_columns
from planner.verify.observed import link_table, observed_table, resolve_columns
from planner.verify.observed_csv import csv_columns

FIXTURES = Path(__file__).parent / "fixtures" / "verify"
READERS = {"csv": csv_columns, "ibnetdiscover": ibnetdiscover_columns,
           "ibdiagnet-net-dump": net_dump_columns}


@pytest.fixture(scope="module")
def fabric():
    return load_plan(FIXTURES)


def _links(table) -> list[tuple]:
    return [(table.end(a), table.end(b)) for a, b in zip(table.a, table.b)]


def _plan_csv(fabric, newline="\n", pad="", drop=0, swap_case=False) -> str:
    rows = ["device,port,peer_device,peer_port"]
    for c in fabric.cables[drop:]:
        a = c.a[0].upper() if swap_case else c.a[0]
        rows.append(f"{pad}{a}{pad},swp{c.a[1]},{c.b[0]},{pad}{c.b[1]}")
        rows.append(f"{c.b[0]},{c.b[1]},{a},Ethernet1/{c.a[1]}")        # the other end too
    rows.insert(3, "")
    rows.insert(5, "  ,  ")
    return newline.join(rows) + newline


def _csv_text(fabric, kind: str) -> str:
    return {"plain": _plan_csv(fabric), "crlf": _plan_csv(fabric, "\r\n"),
            "padded": _plan_csv(fabric, pad=" "), "case and a missing cable":
            _plan_csv(fabric, drop=1, swap_case=True),
            "extra link": _plan_csv(fabric) + "r03,40,mgmt01,7\n"}[kind]


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


CASES = {  # name: (format, file name, text of the fabric), the fixtures as written and altered
    **{f"csv {kind}": ("csv", "asbuilt.csv", kind) for kind in
       ("plain", "crlf", "padded", "case and a missing cable", "extra link")},
    "ibnetdiscover": ("ibnetdiscover", "fabric.txt", lambda: (FIXTURES /
                                                              "fabric.ibnetdiscover").read_text()),
    "ibnetdiscover crlf": ("ibnetdiscover", "fabric.txt",
                           lambda: _crlf((FIXTURES / "fabric.ibnetdiscover").read_text())),
    "net_dump": ("ibdiagnet-net-dump", "ibdiagnet2.net_dump",
                 lambda: (FIXTURES / "fabric.net_dump").read_text()),
    "net_dump crlf": ("ibdiagnet-net-dump", "ibdiagnet2.net_dump",
                      lambda: _crlf((FIXTURES / "fabric.net_dump").read_text())),
}


def _text(fabric, source) -> str:
    return _csv_text(fabric, source) if isinstance(source, str) else source()


@pytest.mark.parametrize("ignore", [(), ("r0[12]",)])
@pytest.mark.parametrize("case", CASES)
def test_column_path_equals_row_path(tmp_path, fabric, case, ignore):
    fmt, name, source = CASES[case]
    text = _text(fabric, source)
    path = tmp_path / name
    path.write_text(text, newline="")
    assert READERS[fmt](text) is not None, "the column reader handed a plain file back"
    rows = link_table(fabric, resolve(read_observed(path, fmt), fabric, ignore))
    columns = observed_table(path, fmt, None, fabric, ignore)
    assert len(rows) > 0
    assert _links(columns) == _links(rows)
    assert compare_table(fabric, columns) == compare_table(fabric, rows)


def test_columns_report_equals_list_report(fabric):
    """``compare`` of ObservedLink values and ``compare_table`` of the resolved columns agree
    on a fabric with a missing cable and an extra link."""
    text = _csv_text(fabric, "case and a missing cable") + "r03,40,mgmt01,7\n"
    columns = csv_columns(text)
    links = resolve_columns(columns, fabric)
    listed = compare(fabric, [ObservedLink(*ends, "t") for ends in _links(links)])
    report = compare_table(fabric, links)
    assert report == listed
    assert report.counts() == {"swap": 0, "wrong-port": 0, "wrong-device": 0, "missing": 1,
                               "extra": 1}


@pytest.mark.parametrize("fmt, text, words", [
    ("csv", 'device,port,peer_device,peer_port\n"r00",1,r01,1\nr00,1,r02,1\n', ["line 3"]),
    ("csv", "device,port,peer_device,peer_port\nr00,1,r01\n", ["line 2", "expected 4"]),
    ("csv", "device,port,peer_device,peer_port\nr00,1,r01,1,x\n", []),
    ("csv", "device,port,peer_device,peer_port\nr00,swp,r01,1\n", ["line 2", "'port'"]),
    ("csv", "device,port,peer_device,peer_port\nr00,1,r01,1\nr00,1,r02,2\n",
     ["line 3", "line 2"]),
    ("ibnetdiscover", '[1]\t"S-01"[1]\nSwitch\t2 "S-02"\t# "r00"\n', ["line 1"]),
    ("ibnetdiscover", 'Switch\t2 "S-02"\t# "r00"\n[1]\t"S-01"\n', ["line 2"]),
    ("ibdiagnet-net-dump", " 1 : 1 : ACT\n", ["line 1"]),
])
def test_what_the_column_path_hands_back(tmp_path, fabric, fmt, text, words):
    """Wrong files go to the row path, whose error names the line; those it accepts give the
    same links either way."""
    path = tmp_path / "observed.txt"
    path.write_text(text)
    try:
        rows = link_table(fabric, resolve(read_observed(path, fmt), fabric))
    except InputError as err:
        with pytest.raises(InputError) as again:
            observed_table(path, fmt, None, fabric)
        assert str(again.value) == str(err)
        assert all(w in str(err) for w in words)
        return
    assert not words
    assert _links(observed_table(path, fmt, None, fabric)) == _links(rows)
