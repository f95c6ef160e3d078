"""The last gaps of issue 29 ("Inputs that should be refused", "The terminal"): a BookSim
traffic pattern is checked where ``booksim.cfg`` uses it, so the Python API refuses what the
command line refuses; a part number a template makes is bounded text without control characters
like every other name; an error line quoting a 40 KB input stays one readable line with its
field and its fix; ``planner compare`` prints input text escaped.

Refusals keep the promise of ``tests/test_bad_input.py``: exit 2, one line, no traceback,
nothing written, no user file touched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli import main
from planner.inputs.catalog.part_numbers import format_part_number
from planner.inputs.tuning import MAX_TEXT
from planner.performance import simulators
from planner.plan import plan
from planner.run.errors import InputError
from planner.run.terminal import MAX_ERROR_LINE, MAX_PRINTED, error_line
from planner.topologies.slimfly import slimfly
from test_bad_input import snapshot
from test_robustness_inputs import (CATALOG, Case, _catalog, _plan, _set,  # noqa: F401
                                    previous, refused_line)

ROOT = Path(__file__).resolve().parents[1]
LONG = "A" * 40_000
"""A 40 KB name: far beyond every bound, as a hand-edited or generated file can hold."""
ESC = "\x1b]0;pwned\x07\x1b[2J"
"""An escape sequence that retitles (OSC 0) and clears (CSI 2J) a terminal."""

# ------------------------------------------------------------------ BookSim traffic, the API

BAD_TRAFFIC = {
    # value: what the one line must name
    "hotspot(\nsim_count = 9)": "'hotspot(\\nsim_count = 9)'",
    "hotspot(\n": "'hotspot(\\n'",
    "uniform; sim_count = 9": "without ';'",
    'uniform"': "quotes",
    "": "''",
}


@pytest.mark.parametrize("value", sorted(BAD_TRAFFIC))
def test_check_booksim_refuses_what_the_command_line_refuses(value):
    with pytest.raises(InputError) as err:
        simulators.check_booksim({"traffic": value}, 64)
    message = str(err.value)
    assert message.startswith("--booksim-traffic ") and "\n" not in message, message
    assert BAD_TRAFFIC[value] in message and "not a BookSim traffic pattern" in message


@pytest.mark.parametrize("value, name", [("uniform", "uniform"), (" hotspot({0,1}) ",
                                                                    "hotspot({0,1})")])
def test_check_booksim_keeps_a_pattern_booksim_reads(value, name):
    assert simulators.check_booksim({"traffic": value}, 64)["traffic"] == name


def test_plan_api_refuses_a_traffic_line_break():
    with pytest.raises(InputError, match=r"--booksim-traffic 'hotspot\(\\n"):
        plan(slimfly(3), "modern-100g", "hot-aisle", strategy="hint",
             booksim={"traffic": "hotspot(\nsim_count = 9)"})


# ------------------------------------------------------------------ part numbers, formatted

@pytest.mark.parametrize("template, length, expected", [
    ("MCP1600-C{nv}", 0.5, "MCP1600-C00A"),        # NVIDIA LinkX length codes
    ("MCP1600-C{nv}", 3, "MCP1600-C003"),
    ("OM4-MPO12-B-{m}M", 1.5, "OM4-MPO12-B-1.5M"),
    ("X{cm:0255d}", 3, "X" + "300".rjust(255, "0")),  # exactly MAX_TEXT characters
])
def test_format_part_number(template, length, expected):
    text = format_part_number(template, length)
    assert text == expected and len(text) <= MAX_TEXT


@pytest.mark.parametrize("template, length, words", [
    ("XY{cm:0255d}", 3, ("257 characters long", f"the {MAX_TEXT}", "change the template")),
    ("MCP{nv:d}", 0.5, ("cannot format 0.5 m", "Unknown format code 'd'")),
])
def test_format_part_number_refuses(template, length, words):
    with pytest.raises(ValueError) as err:
        format_part_number(template, length)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


# ------------------------------------------------------------------ refusals on the CLI

CASES = {
    "booksim traffic: a name, '(' and a line break": Case(
        _plan("--booksim-traffic", "hotspot(\nsim_count = 9"),
        ("--booksim-traffic", "'hotspot(\\nsim_count = 9'", "line breaks")),
    "part-number template formatting a length as a character": Case(
        CATALOG, ("catalog 'in/c.yaml'", "'cables[0]'", "formats {dm} as a character",
                  "control character", "{dm:03d}"),
        _catalog(_set("cables", 0, "part_numbers", "MCP1600-C{dm:c}"))),
    "part-number template whose fields add up beyond the bound": Case(
        CATALOG, ("'cables[0].part_numbers'", "0.5 m part number", "409 characters long",
                  f"the {MAX_TEXT}", "change the template"),
        _catalog(_set("cables", 0, "part_numbers", "MCP1600-C{nv:>200}{nv:>200}"))),
    "part-number template with a format the field cannot take": Case(
        CATALOG, ("'cables[1].part_numbers'", "cannot format 3 m", "{cm:04d}"),
        _catalog(_set("cables", 1, "part_numbers", "MFA1A00-C{nv:d}"))),
    "error line: a 40 KB topology family": Case(
        _plan("--topology", LONG), ("unknown topology family 'AAAA", "valid families",
                                    "slimfly")),
    "error line: a 40 KB option value (argparse)": Case(
        ("plan", "--strategy", LONG), ("argument --strategy", "invalid choice",
                                       "choose from 'hint'")),
    "a 40 KB catalog name (longer than the file system allows)": Case(
        _plan("--catalog", LONG), ("catalog file 'AAAA", "File name too long",
                                   "give a shorter path", "modern-100g")),
    "a 40 KB floor path": Case(
        _plan("--floor", f"in/{LONG}.yaml"), ("floor file 'in/AAAA", "File name too long",
                                              "hot-aisle")),
    "error line: a 40 KB key in a catalog": Case(
        CATALOG, ("catalog 'in/c.yaml'", "routers[0].AAAA", "40,000 characters long",
                  "shorten it"),
        _catalog(lambda data: data["routers"][0].__setitem__(LONG, "x"))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_in_one_short_line(name, tmp_path, previous, capsys, monkeypatch):
    err = refused_line(CASES[name], tmp_path, previous, capsys, monkeypatch)
    assert len(err) < MAX_ERROR_LINE + 100, len(err)    # the prefix and argparse's hint


# ------------------------------------------------------------------ error_line itself

def _message(value: str) -> str:
    return f"catalog 'c.yaml': field 'routers[0].sku' {value!r} is not a SKU; use the sku of the " \
           f"router model in the vendor's price list"


@pytest.mark.parametrize("message, kept", [
    (_message(LONG), ("field 'routers[0].sku'", "'" + "A" * MAX_PRINTED + "...'",
                      "use the sku of the router model in the vendor's price list")),
    (_message(ESC + LONG), ("field 'routers[0].sku'", "'\\x1b]0;pwned\\x07\\x1b[2J",
                            "vendor's price list")),
    # quote marks every 150 characters: no one quoted stretch is long, the middle goes
    (_message(("B" * 150 + "'") * 300), ("catalog 'c.yaml': field 'routers[0].sku'",
                                         " ... ", "in the vendor's price list")),
    ("spec 's.yaml': field 'title' is 40,000 characters long; shorten it",
     ("spec 's.yaml': field 'title' is 40,000 characters long; shorten it",)),
])
def test_error_line_keeps_field_and_fix(message, kept):
    line = error_line(message)
    assert len(line) <= MAX_ERROR_LINE and line.isprintable(), len(line)
    for text in kept:
        assert text in line, (text, line[:300])
    if len(message) <= MAX_ERROR_LINE and message.isprintable():
        assert line == message           # a message of ordinary length is left as it is


# ------------------------------------------------------------------ planner compare

def test_compare_prints_input_text_escaped(tmp_path):
    """A real ``planner compare`` whose output folder's name holds an escape sequence: the
    table is printed and every input text in it is escaped (no raw ESC or BEL reaches the
    terminal); the plan folder is written under that name."""
    out = f"cmp{ESC}"
    done = subprocess.run([sys.executable, "-m", "planner.cli", "compare", "--topology",
                           "slimfly:q=3", "--strategy", "hint", "--jobs", "1", "--out", out],
                          cwd=tmp_path, capture_output=True, text=True, encoding="utf-8",
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert "Comparison: catalog modern-100g, floor hot-aisle" in lines
    row = next(ln for ln in lines if ln.startswith("slimfly"))
    assert row.split()[:3] == ["slimfly", "q=3,p=3", "54"]     # q=3: 18 routers x p=3
    assert f"wrote cmp{ESC.encode('unicode_escape').decode()}/compare.xlsx" in done.stdout
    assert (tmp_path / out / "compare.xlsx").is_file()


def test_compare_refuses_a_title_with_an_escape_sequence(tmp_path, capsys, monkeypatch):
    (tmp_path / "c.yaml").write_text(f'title: "T{ESC.encode("unicode_escape").decode()}"\n'
                                     "topologies: [slimfly:q=3]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    code = main(["compare", "c.yaml", "--strategy", "hint", "--out", "cmp"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "\x1b" not in err, err
    assert "compare spec 'c.yaml'" in err and "field 'title'" in err and "\\x1b" in err
    assert snapshot(tmp_path) == before
