"""Bad input never crashes or corrupts (issue 8, parts 1 and 4).

A table of bad inputs across the command line, spec files, catalogs, floors, imported
topologies, output folders and the size budget. Every case runs the real command line
(``planner.cli.main``) from a scratch workspace holding a copy of ``fixtures/bad_inputs`` and
must give exit code 2, exactly one line on stderr (no traceback) holding the words that name the
input, the field and the fix, nothing on stdout, and leave every file and folder of the
workspace byte for byte as it was (nothing written, nothing half-written beside ``--out``).
Plans over the size budget are refused before the topology is built (its builder is replaced by
one that fails the test). Stop signals (Ctrl-C, SIGTERM, SIGHUP) sent to a real ``planner plan``
once a stage reports it has started (its progress line, or its file in the temporary folder),
during placement or while (forked) export writers run, exit 128 + N with one line and leave the
workspace as it was, with no temporary folder and no process of the run alive.
"""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

import yaml

from planner import exports, placement, topologies
from planner.cli import main
from planner.inputs import schema
from planner.plan import plan
from planner.run import guards, output
from planner.topologies import importers
from planner.topologies.slimfly import slimfly

FIXTURES = Path(__file__).parent / "fixtures"
FX = str(FIXTURES)
PLAN = ("plan", "--topology", "slimfly:q=5", "--strategy", "hint", "--out", "out")


def _plan(*extra: str) -> tuple[str, ...]:
    """``planner plan`` of a small Slim Fly into ./out; later options override earlier ones."""
    return PLAN + extra


# ----------------------------------------------------------------------------- workspace set-ups

def _out_file(ws: Path, previous: Path) -> None:
    (ws / "out").write_text("my notes\n")


def _out_foreign(ws: Path, previous: Path) -> None:
    (ws / "out").mkdir()
    (ws / "out" / "notes.txt").write_text("keep me\n")


def _out_previous_plus_file(ws: Path, previous: Path) -> None:
    shutil.copytree(previous, ws / "out")
    (ws / "out" / "notes.txt").write_text("keep me\n")


def _out_previous_plus_folder(ws: Path, previous: Path) -> None:
    shutil.copytree(previous, ws / "out")
    (ws / "out" / "photos").mkdir()


def _out_symlink(ws: Path, previous: Path) -> None:
    shutil.copytree(previous, ws / "real")
    (ws / "out").symlink_to("real", target_is_directory=True)


def _previous_as(name: str) -> Callable[[Path, Path], None]:
    return lambda ws, previous: shutil.copytree(previous, ws / name)


def _out_parent_is_file(ws: Path, previous: Path) -> None:
    (ws / "report").write_text("a file, not a folder\n")


def _spec_out_escapes(ws: Path, previous: Path) -> None:
    (ws / "specs").mkdir()
    (ws / "specs" / "escape.yaml").write_text("topology: slimfly:q=5\nstrategy: hint\nout: ..\n")


def _spec_demipn_q6(ws: Path, previous: Path) -> None:
    (ws / "specs").mkdir()
    (ws / "specs" / "demipn.yaml").write_text("topology: {family: demipn, q: 6}\nout: plan\n")


def _must_not_build(**params):
    raise AssertionError("the topology was built although its size is over the budget")


def _must_not_run(*args, **kwargs):
    raise AssertionError("placement ran although the input should have been refused first")


def _write(name: str, text: str) -> Callable[[Path, Path], None]:
    """Set-up: ``in/NAME`` holding ``text``."""
    return lambda ws, previous: (ws / "in" / name).write_text(text)


def _variant(name: str, builtin: str, folder: str, field: str,
             value) -> Callable[[Path, Path], None]:
    """Set-up: ``in/NAME``, the built-in catalog/floor ``builtin`` with ``field`` (dotted path,
    list indexes as numbers) set to ``value``, written as YAML (``.nan``, ``true``, ``'32'``)."""
    def setup(ws: Path, previous: Path) -> None:
        what = folder.rstrip("s")
        data = schema.load_data(schema.resolve(builtin, folder, what), folder, what)
        keys = [int(part) if part.isdigit() else part for part in field.split(".")]
        node = data
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
        (ws / "in" / name).write_text(yaml.safe_dump(data, sort_keys=False))
    return setup


def _catalog(field: str, value) -> Callable[[Path, Path], None]:
    return _variant("catalog_bad.yaml", "modern-100g", "catalogs", field, value)


def _floor(field: str, value) -> Callable[[Path, Path], None]:
    return _variant("floor_bad.yaml", "hot-aisle", "layouts", field, value)


def _fifo(name: str) -> Callable[[Path, Path], None]:
    return lambda ws, previous: os.mkfifo(ws / "in" / name)


def _device(name: str) -> Callable[[Path, Path], None]:
    return lambda ws, previous: (ws / "in" / name).symlink_to("/dev/zero")


def _folder(name: str) -> Callable[[Path, Path], None]:
    return lambda ws, previous: (ws / "in" / name).mkdir()


def _both(*setups: Callable[[Path, Path], None]) -> Callable[[Path, Path], None]:
    def setup(ws: Path, previous: Path) -> None:
        for one in setups:
            one(ws, previous)
    return setup


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _previous_without_manifest(ws: Path, previous: Path) -> None:
    """The issue's data-loss case: a folder holding a summary.json (and the user's files) but
    no manifest, so a plan did not write it."""
    shutil.copytree(previous, ws / "out")
    (ws / "out" / output.MANIFEST).unlink()


def _summary_and_notes(ws: Path, previous: Path) -> None:
    (ws / "out").mkdir()
    shutil.copy(previous / "summary.json", ws / "out" / "summary.json")
    (ws / "out" / "thesis.tex").write_text("years of work\n")


def _dangling_link(ws: Path, previous: Path) -> None:
    (ws / "link").symlink_to(ws / "nowhere", target_is_directory=True)


def _out_fifo(ws: Path, previous: Path) -> None:
    os.mkfifo(ws / "out")


def _failing_writers(code: int, jobs: int):
    """Patches: the export writers plus one that writes half a file and then fails with
    OSError ``code`` (a full disk, a quota, a name too long, permission, a read-only disk), in
    a forked writer process when ``jobs`` is 2."""
    from planner import exports

    original = exports.writers

    def failing(plan, folder):
        path = Path(folder) / "half.csv"
        path.write_text("partial")
        raise OSError(code, os.strerror(code), str(path))

    return ((exports, "writers", lambda by_cost=False: [("failing", failing)] + original(by_cost)),
            (exports, "export_jobs", lambda plan: jobs))


SPEC = "topology: slimfly:q=5\nstrategy: hint\nout: out\n"


# ----------------------------------------------------------------------------- the cases

@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    words: tuple[str, ...]
    """Substrings of the one error line: the input, the field and the fix."""
    setup: Callable[[Path, Path], None] | None = None
    cwd: str = "."
    patch: tuple[tuple[object, str, object], ...] = field(default=())
    """(object, attribute or key, value) set for the run (budgets, builders)."""


CASES: dict[str, Case] = {
    # --- command line: topology parameters
    "family unknown": Case(_plan("--topology", "slimflyy:q=5"),
                           ("unknown topology family 'slimflyy'", "valid families", "slimfly")),
    "q not a prime power": Case(_plan("--topology", "slimfly:q=6"),
                                ("slimfly", "'q'=6 is not a prime power", "nearest valid values")),
    "q negative": Case(_plan("--topology", "slimfly:q=-5"),
                       ("slimfly", "'q'", "must be between 3 and", "got -5")),
    "q wrong type": Case(_plan("--topology", "slimfly:q=five"),
                         ("slimfly", "'q'", "must be an integer", "'five'")),
    "p not an integer": Case(_plan("--topology", "slimfly:q=5,p=1.5"),
                             ("slimfly", "'p'", "must be an integer", "'1.5'")),
    "p zero": Case(_plan("--topology", "slimfly:q=5,p=0"), ("slimfly", "'p'", "must be >= 1")),
    "parameter unknown": Case(_plan("--topology", "slimfly:q=5,k=3"),
                              ("slimfly", "unknown parameter 'k'", "valid parameters: q, p")),
    "parameter missing": Case(_plan("--topology", "hyperx:p=2"),
                              ("hyperx", "missing parameter 'S'", "required: S")),
    "parameter twice": Case(_plan("--topology", "slimfly:q=5,q=7"),
                            ("slimfly:q=5,q=7", "'q' given twice")),
    "dragonfly g too large": Case(_plan("--topology", "dragonfly:h=2,g=99"),
                                  ("dragonfly", "'g'=99 exceeds a*h+1", "use g <= 9")),
    "galaxyfly too few ports": Case(_plan("--topology", "galaxyfly:n=9,q=5,a=2,h=1"),
                                    ("galaxyfly", "a*h = 2", "use h >= ")),
    "torus ring of one": Case(_plan("--topology", "torus:dims=4x1"),
                              ("torus", "'dims'", "must be >= 2", "got 1")),
    "fat tree disconnected": Case(_plan("--topology", "fattree:k=3"),
                                  ("fattree", "disconnected", "every router must be reachable")),
    # --- command line: options
    "option unknown": Case(_plan("--colour", "red"),
                           ("unrecognized arguments: --colour", "planner --help")),
    "strategy unknown": Case(_plan("--strategy", "fastest"),
                             ("--strategy", "invalid choice: 'fastest'", "optimize")),
    "time limit wrong type": Case(_plan("--time-limit", "soon"),
                                  ("--time-limit", "invalid float value: 'soon'", "--help")),
    "time limit negative": Case(_plan("--time-limit", "-3"),
                                ("--time-limit", "must be greater than 0", "-3")),
    "time limit infinite": Case(_plan("--time-limit", "inf"),
                                ("--time-limit", "must be a finite number", "inf")),
    "seed negative": Case(_plan("--seed", "-1"), ("--seed", "greater than or equal to 0", "-1")),
    "spares too many": Case(_plan("--spares", "2000"), ("--spares", "less than or equal to 1000")),
    "group endpoints zero": Case(_plan("--group-endpoints", "0"),
                                 ("--group-endpoints", "must be greater than 0", "got 0")),
    "spec file missing": Case(("plan", "in/nosuch.yaml"),
                              ("spec file 'in/nosuch.yaml' does not exist", "give a YAML file")),
    # --- spec files
    "spec wrong type": Case(("plan", "in/spec_wrong_type.yaml", "--out", "out"),
                            ("spec 'in/spec_wrong_type.yaml'", "field 'seed'", "valid integer")),
    "spec unknown field": Case(("plan", "in/spec_unknown_field.yaml", "--out", "out"),
                               ("in/spec_unknown_field.yaml", "unknown field 'ouput'",
                                "valid fields here", "out")),
    "spec missing family": Case(("plan", "in/spec_missing_family.yaml", "--out", "out"),
                                ("in/spec_missing_family.yaml", "'topology.family' is missing",
                                 "give e.g.")),
    "spec negative number": Case(("plan", "in/spec_negative_time.yaml", "--out", "out"),
                                 ("in/spec_negative_time.yaml", "field 'time_limit'",
                                  "greater than 0")),
    "spec unknown catalog": Case(("plan", "in/spec_unknown_catalog.yaml", "--out", "out"),
                                 ("in/spec_unknown_catalog.yaml", "field 'catalog'",
                                  "unknown catalog 'modern-1000g'", "choose one of")),
    "spec not a mapping": Case(("plan", "in/spec_not_mapping.yaml", "--out", "out"),
                               ("in/spec_not_mapping.yaml", "top level must be a mapping",
                                "got list")),
    "spec python tag": Case(("plan", "in/spec_python_tag.yaml", "--out", "out"),
                            ("in/spec_python_tag.yaml", "line 2", "python/object/apply",
                             "not allowed, use plain values")),
    "spec custom tag": Case(("plan", "in/spec_custom_tag.yaml", "--out", "out"),
                            ("in/spec_custom_tag.yaml", "tag '!include' is not allowed",
                             "use plain values")),
    "spec anchor bomb": Case(("plan", "in/spec_anchor_bomb.yaml", "--out", "out"),
                             ("in/spec_anchor_bomb.yaml", "aliases (*name) are not allowed",
                              "write the value out")),
    "spec out escapes to the working folder": Case(
        ("plan", "specs/escape.yaml"),
        ("spec 'specs/escape.yaml'", "field 'out'", "non-empty folder", "give a new or empty"),
        setup=_spec_out_escapes),
    "spec topology not a prime power": Case(
        ("plan", "specs/demipn.yaml"),
        ("spec 'specs/demipn.yaml'", "field 'topology'", "demipn", "'q'=6 is not a prime power",
         "nearest valid values"), setup=_spec_demipn_q6),
    # --- catalogs
    "catalog unknown name": Case(_plan("--catalog", "modern-1000g"),
                                 ("unknown catalog 'modern-1000g'", "choose one of",
                                  "modern-100g")),
    "catalog wrong type": Case(_plan("--catalog", f"{FX}/bad_catalogs/string_radix.yaml"),
                               ("string_radix.yaml", "'routers[0].radix'", "valid integer")),
    "catalog missing field": Case(_plan("--catalog", f"{FX}/bad_catalogs/missing_radix.yaml"),
                                  ("missing_radix.yaml", "'routers[0].radix'", "is missing",
                                   "add it")),
    "catalog negative reach": Case(_plan("--catalog", f"{FX}/bad_catalogs/negative_reach.yaml"),
                                   ("negative_reach.yaml", "'cables[1].max_reach_m'",
                                    "greater than 0", "-5")),
    "catalog duplicate sku": Case(_plan("--catalog", f"{FX}/bad_catalogs/duplicate_sku.yaml"),
                                  ("duplicate_sku.yaml", "'cables[1].sku' 'C1' repeats cables[0]",
                                   "needs its own SKU")),
    "catalog unknown field": Case(_plan("--catalog", f"{FX}/bad_catalogs/unknown_field.yaml"),
                                  ("unknown_field.yaml", "unknown field 'cables[0].lenght'",
                                   "valid fields here")),
    "catalog alias bomb": Case(_plan("--catalog", f"{FX}/bad_catalogs/alias_bomb.yaml"),
                               ("alias_bomb.yaml", "aliases (*name) are not allowed",
                                "write the value out")),
    "catalog python tag": Case(_plan("--catalog", f"{FX}/bad_catalogs/python_tag.yaml"),
                               ("python_tag.yaml", "python/object/apply", "use plain values")),
    "catalog broken yaml": Case(_plan("--catalog", f"{FX}/bad_catalogs/broken_yaml.yaml"),
                                ("broken_yaml.yaml", "not valid YAML at line 3")),
    "catalog empty": Case(_plan("--catalog", "in/catalog_empty.yaml"),
                          ("in/catalog_empty.yaml", "the file is empty", "give its fields")),
    "catalog not utf-8": Case(_plan("--catalog", "in/catalog_latin1.yaml"),
                              ("in/catalog_latin1.yaml", "not UTF-8", "0xe9", "save it as UTF-8")),
    "radix too small": Case(_plan("--catalog", "in/catalog_radix8.yaml"),
                            ("in/catalog_radix8.yaml", "needs routers with 11 ports",
                             "'routers[].radix'", "add a router model")),
    "cable reach impossible": Case(_plan("--catalog", "in/catalog_short_reach.yaml",
                                         "--floor", "in/floor_point_to_point.yaml"),
                                   ("in/catalog_short_reach.yaml", "no optical cable reaches",
                                    "longest available 3 m", "add a longer optical model")),
    "catalog transceiver without loss budget (issue 28)": Case(
        _plan("--catalog", f"{FX}/bad_catalogs/transceiver_without_budget.yaml"),
        ("transceiver_without_budget.yaml", "'cables[1].loss_budget_db'", "SR4-NO-BUDGET",
         "is missing", "add it")),
    "catalog transceiver without reach (issue 28)": Case(
        _plan("--catalog", f"{FX}/bad_catalogs/transceiver_without_reach.yaml"),
        ("transceiver_without_reach.yaml", "'cables[1].max_reach_m'", "is missing", "add it")),
    "link no part lights (issue 28)": Case(
        _plan("--catalog", f"{FX}/reach/multimode_only.yaml",
              "--floor", f"{FX}/reach/far_halls.yaml"),
        ("cannot be lit", "link C", "cross-hall", "m of installed fibre", "4 mated connections",
         "dB against the 1.9 dB budget", "MMA1B00-C100D", "multimode_only.yaml",
         "add a transceiver of longer reach")),
    # --- floors
    "floor unknown name": Case(_plan("--floor", "warm-aisle"),
                               ("unknown floor 'warm-aisle'", "choose one of", "hot-aisle")),
    "floor too small": Case(_plan("--floor", "in/floor_tiny.yaml"),
                            ("in/floor_tiny.yaml", "need at least 25 cabinets",
                             "field 'max_cabinets' is 3", "raise max_cabinets")),
    "floor wrong type": Case(_plan("--floor", "in/floor_wrong_type.yaml"),
                             ("in/floor_wrong_type.yaml", "field 'aisle_m'", "valid number",
                              "'wide'")),
    "floor negative number": Case(_plan("--floor", "in/floor_negative_overhead.yaml"),
                                  ("floor_negative_overhead.yaml", "'overhead_per_end_m'",
                                   "greater than or equal to 0")),
    "floor missing field": Case(_plan("--floor", f"{FX}/bad_floors/missing_pitch.yaml"),
                                ("missing_pitch.yaml", "field 'pitch_m' is missing", "add it")),
    "floor unknown base": Case(_plan("--floor", "in/floor_unknown_base.yaml"),
                               ("in/floor_unknown_base.yaml", "field 'extends'",
                                "unknown floor 'warm-aisle'", "choose one of")),
    "floor anchor bomb": Case(_plan("--floor", "in/floor_anchor_bomb.yaml"),
                              ("in/floor_anchor_bomb.yaml", "aliases (*name) are not allowed")),
    "floor negative connection loss (issue 28)": Case(
        _plan("--floor", f"{FX}/bad_floors/negative_connection_loss.yaml"),
        ("negative_connection_loss.yaml", "'connection_loss_db'", "cannot be negative",
         "give 0 or more")),
    "floor router slots above top": Case(
        _plan("--floor", f"{FX}/bad_floors/routers_above_top.yaml"),
        ("routers_above_top.yaml", "'router_slots'", "lower one of them")),
    # --- imported topologies
    "topology file missing": Case(_plan("--topology", "file:in/nosuch.graphml"),
                                  ("topology file 'in/nosuch.graphml' does not exist",)),
    "topology file extension": Case(_plan("--topology", "file:in/spec_wrong_type.yaml"),
                                    ("in/spec_wrong_type.yaml", "unknown extension '.yaml'",
                                     "use one of .graphml, .csv, .anynet")),
    "topology file option": Case(_plan("--topology", f"file:{FX}/topologies/ring4.csv?q=3"),
                                 ("ring4.csv?q=3", "unknown option 'q'", "'?p=N'")),
    "graphml truncated": Case(_plan("--topology", "file:in/truncated.graphml"),
                              ("in/truncated.graphml", "not valid GraphML", "line 6",
                               "complete XML")),
    "graphml entity bomb": Case(_plan("--topology", "file:in/entity_bomb.graphml"),
                                ("in/entity_bomb.graphml", "<!DOCTYPE>/<!ENTITY>", "remove it")),
    "graphml external entity": Case(_plan("--topology", "file:in/external_entity.graphml"),
                                    ("in/external_entity.graphml", "<!DOCTYPE>/<!ENTITY>",
                                     "remove it")),
    "graphml undeclared node": Case(
        _plan("--topology", f"file:{FX}/topologies/bad_unknown_node.graphml"),
        ("bad_unknown_node.graphml", "has no <node id=", "declare every router as a node")),
    "graphml endpoints wrong type": Case(
        _plan("--topology", f"file:{FX}/topologies/bad_endpoints.graphml"),
        ("bad_endpoints.graphml", "attribute 'endpoints'", "must be an integer", "'two'")),
    "csv negative id": Case(_plan("--topology", "file:in/negative_id.csv?p=1"),
                            ("in/negative_id.csv' line 3", "'-2' is not a non-negative integer",
                             "rows are a,b[,count]")),
    "csv count wrong type": Case(_plan("--topology", "file:in/bad_count.csv?p=1"),
                                 ("in/bad_count.csv' line 3", "'many'", "rows are a,b[,count]")),
    "csv self-loop": Case(_plan("--topology", f"file:{FX}/topologies/bad_selfloop.csv"),
                          ("bad_selfloop.csv' line 4", "self-loop on router 2",
                           "cannot be cabled to itself")),
    "csv without endpoints": Case(_plan("--topology", "file:in/too_many_fields.csv"),
                                  ("in/too_many_fields.csv", "line 1", "'extra'")),
    "anynet keyword unknown": Case(_plan("--topology", "file:in/unknown_keyword.anynet"),
                                   ("in/unknown_keyword.anynet' line 2",
                                    "unexpected token 'switch'", "expected 'router', 'node'")),
    "anynet node on two routers": Case(_plan("--topology", "file:in/node_two_routers.anynet"),
                                       ("in/node_two_routers.anynet' line 2",
                                        "node 0 is attached to routers 0 and 1",
                                        "attaches to one router")),
    "anynet id wrong type": Case(
        _plan("--topology", f"file:{FX}/topologies/bad_nonnumeric.anynet"),
        ("bad_nonnumeric.anynet' line 2", "non-negative integer id", "'two'")),
    # --- the output folder
    "out is a file": Case(_plan(), ("--out 'out' is an existing file", "give a folder path"),
                          setup=_out_file),
    "out holds other files": Case(_plan(), ("--out 'out' is a non-empty folder",
                                            "give a new or empty folder"), setup=_out_foreign),
    "out holds a plan and another file": Case(
        _plan(), ("--out 'out' holds a previous plan and also 'notes.txt'", "move it away"),
        setup=_out_previous_plus_file),
    "out holds a plan and another folder": Case(
        _plan(), ("--out 'out'", "also 'photos'", "move it away"),
        setup=_out_previous_plus_folder),
    "out is a symbolic link": Case(_plan(), ("--out 'out' is a symbolic link", "'real'",
                                             "give the real folder path"), setup=_out_symlink),
    "out is the working folder": Case(_plan("--out", "."),
                                      ("--out '.' is the current folder",
                                       "give a subfolder such as 'plan'"),
                                      setup=_previous_as("prev"), cwd="prev"),
    "out is a parent folder": Case(_plan("--out", ".."),
                                   ("--out '..'", "non-empty folder", "give a new or empty"),
                                   setup=_previous_as("prev"), cwd="prev"),
    "out holds the input": Case(_plan("--topology", "file:out/topology.graphml"),
                                ("--out 'out' holds the input file 'out/topology.graphml'",
                                 "give another output folder"), setup=_previous_as("out")),
    "out below a file": Case(_plan("--out", "report/plan"),
                             ("--out 'report/plan'", "is a file, not a folder"),
                             setup=_out_parent_is_file),
    # --- size budget (refused before the topology is built)
    "over the cable budget": Case(
        _plan("--topology", "slimfly:q=181"),
        ("--topology 'slimfly:q=181'", "17,789,223 cables", "budget is 10,000,000 cables",
         "choose smaller parameters", "--no-endpoint-cables"),
        patch=((topologies.FAMILIES, "slimfly", _must_not_build),)),
    "over the memory budget": Case(
        _plan("--topology", "slimfly:q=13"),
        ("--topology 'slimfly:q=13'", "of memory", "only 64 MiB of memory is available",
         "choose smaller parameters"),
        patch=((guards, "available_memory", lambda: 64 * 2 ** 20),
               (topologies.FAMILIES, "slimfly", _must_not_build))),
    "imported file over the budget": Case(
        _plan("--topology", f"file:{FX}/topologies/ring4.csv"),
        ("topology 'import:path=", "12 cables (5 router-router + 7 endpoint)",
         "budget is 5 cables"),
        patch=((guards, "MAX_CABLES", 5),)),
    # --- other commands
    "topology radix above max": Case(("topology", "slimfly", "q=5", "--max-radix", "8"),
                                     ("slimfly", "need radix 11", "above --max-radix 8",
                                      "choose smaller parameters")),
    "topology word without =": Case(("topology", "slimfly", "q"),
                                    ("parameter 'q' must be written k=v", "e.g. q=19")),
    "topology graphml truncated": Case(("topology", "file:in/truncated.graphml"),
                                       ("in/truncated.graphml", "not valid GraphML")),
    "size endpoints negative": Case(("size", "--endpoints", "-5", "--max-radix", "48"),
                                    ("--endpoints must be a positive integer", "got -5")),
    "size radix too small": Case(("size", "--endpoints", "1000", "--max-radix", "1"),
                                 ("--max-radix must be an integer between 2 and", "got 1")),
    "size family unknown": Case(("size", "--endpoints", "1000", "--max-radix", "48",
                                 "--families", "slimflyy"),
                                ("unknown topology family 'slimflyy'", "valid families")),
    "verify plan missing": Case(("verify", "--plan", "nowhere", "--observed", "in/x.csv"),
                                ("plan 'nowhere", "file not found",
                                 "a plan folder written by 'planner plan'")),
    "verify observed missing": Case(("verify", "--plan", f"{FX}/verify", "--observed",
                                     "in/nosuch.csv"),
                                    ("observed 'in/nosuch.csv'", "file not found")),

    # === issue 12: numbers of every input are finite, in range and of their type
    # --- command-line options
    "time limit 1e308": Case(_plan("--time-limit", "1e308"),
                             ("--time-limit", "less than or equal to 86400", "1e+308")),
    "time limit nan": Case(_plan("--time-limit", "nan"), ("--time-limit", "finite number", "nan")),
    "time limit overflows to inf": Case(_plan("--time-limit", "1e400"),
                                        ("--time-limit", "finite number", "inf")),
    "seed 2**80": Case(_plan("--seed", str(2 ** 80)),
                       ("--seed", "less than or equal to 1000000", "about 10^24")),
    "seed in exponent form": Case(_plan("--seed", "1e3"), ("--seed", "invalid int value: '1e3'")),
    "spares nan": Case(_plan("--spares", "nan"), ("--spares", "finite number", "nan")),
    "spares infinite": Case(_plan("--spares", "inf"), ("--spares", "finite number", "inf")),
    "spares negative": Case(_plan("--spares", "-1"), ("--spares", "greater than or equal to 0")),
    "group endpoints huge": Case(_plan("--group-endpoints", str(10 ** 21)),
                                 ("--group-endpoints", "less than or equal to 10000000",
                                  "about 10^21")),
    # --- topology parameters k=v
    "p infinite": Case(_plan("--topology", "slimfly:q=5,p=inf"),
                       ("slimfly", "'p' must be an integer", "'inf'")),
    "p nan": Case(_plan("--topology", "slimfly:q=5,p=nan"),
                  ("slimfly", "'p' must be an integer", "'nan'")),
    "p 1e308": Case(_plan("--topology", "slimfly:q=5,p=1e308"),
                    ("slimfly", "'p' must be an integer", "'1e308'")),
    "p beyond 64 bits": Case(_plan("--topology", "slimfly:q=5,p=" + "9" * 23),
                             ("slimfly", "'p' must be <= 100000", "about 10^23")),
    "q a yes/no value": Case(_plan("--topology", "slimfly:q=true"),
                             ("slimfly", "'q' must be an integer", "'true'")),
    "dragonfly p beyond 64 bits": Case(_plan("--topology", "dragonfly:h=2,p=" + "9" * 30),
                                       ("dragonfly", "'p' must be <= 100000")),
    "topology command p nan": Case(("topology", "slimfly", "q=5", "p=nan"),
                                   ("slimfly", "'p' must be an integer", "'nan'")),
    "topology command 40-digit q": Case(("topology", "slimfly", "q=" + "7" * 45),
                                        ("slimfly", "'q' must be an integer", "...")),
    # --- spec files
    "spec time limit nan": Case(("plan", "in/s.yaml"), ("spec 'in/s.yaml'", "field 'time_limit'",
                                                        "finite number", "nan"),
                                setup=_write("s.yaml", SPEC + "time_limit: .nan\n")),
    "spec time limit infinite": Case(("plan", "in/s.yaml"), ("field 'time_limit'", "finite",
                                                             "inf"),
                                     setup=_write("s.yaml", SPEC + "time_limit: .inf\n")),
    "spec time limit 1e308": Case(("plan", "in/s.yaml"), ("field 'time_limit'", "out of range"),
                                  setup=_write("s.yaml", SPEC + "time_limit: 1e308\n")),
    "spec time limit a yes/no value": Case(("plan", "in/s.yaml"),
                                           ("field 'time_limit'", "must be a number", "true"),
                                           setup=_write("s.yaml", SPEC + "time_limit: yes\n")),
    "spec time limit quoted": Case(("plan", "in/s.yaml"),
                                   ("field 'time_limit'", "'10' (text)", "without quotes"),
                                   setup=_write("s.yaml", SPEC + "time_limit: '10'\n")),
    "spec seed 2**80": Case(("plan", "in/s.yaml"), ("field 'seed'", "out of range"),
                            setup=_write("s.yaml", SPEC + f"seed: {2 ** 80}\n")),
    "spec seed a yes/no value": Case(("plan", "in/s.yaml"),
                                     ("field 'seed'", "must be an integer", "true"),
                                     setup=_write("s.yaml", SPEC + "seed: true\n")),
    "spec seed above the bound": Case(("plan", "in/s.yaml"),
                                      ("field 'seed'", "less than or equal to 1000000"),
                                      setup=_write("s.yaml", SPEC + "seed: 5000000\n")),
    "spec spares nan": Case(("plan", "in/s.yaml"), ("field 'spares'", "finite number"),
                            setup=_write("s.yaml", SPEC + "spares: .NaN\n")),
    "spec group endpoints a yes/no value": Case(
        ("plan", "in/s.yaml"), ("field 'group_endpoints'", "must be an integer", "true"),
        setup=_write("s.yaml", SPEC + "group_endpoints: on\n")),
    "spec topology parameter nan": Case(
        ("plan", "in/s.yaml"), ("spec 'in/s.yaml'", "field 'topology.q'", "finite number"),
        setup=_write("s.yaml", "topology: {family: slimfly, q: .nan}\nout: out\n")),
    "spec topology parameter a yes/no value": Case(
        ("plan", "in/s.yaml"), ("field 'topology'", "'q' must be an integer", "'True'"),
        setup=_write("s.yaml", "topology: {family: slimfly, q: true}\nout: out\n")),
    "spec topology parameter 1e308": Case(
        ("plan", "in/s.yaml"), ("field 'topology.p'", "out of range"),
        setup=_write("s.yaml", "topology: {family: slimfly, q: 5, p: 1e308}\nout: out\n")),
    "spec duplicate key": Case(("plan", "in/s.yaml"),
                               ("spec 'in/s.yaml'", "line 5", "key 'seed' given twice",
                                "give each key once"),
                               setup=_write("s.yaml", SPEC + "seed: 1\nseed: 2\n")),
    "spec duplicate topology parameter": Case(
        ("plan", "in/s.yaml"), ("spec 'in/s.yaml'", "key 'q' given twice", "give each key once"),
        setup=_write("s.yaml", "topology: {family: slimfly, q: 5, q: 7}\nout: out\n")),
    "spec topology parameter in two places": Case(
        ("plan", "in/s.yaml"), ("spec 'in/s.yaml'", "parameter 'q' is given twice",
                                "'topology.params'", "give it once"),
        setup=_write("s.yaml", "topology: {family: slimfly, params: {q: 5}, q: 7}\nout: out\n")),
    "spec nested too deeply": Case(("plan", "in/s.yaml"),
                                   ("spec 'in/s.yaml'", "nesting deeper than 32 levels",
                                    "flatten the file"),
                                   setup=_write("s.yaml", f"{SPEC}floor: {_nested(40)}\n")),
    "spec nested 100,000 deep": Case(("plan", "in/s.yaml"), ("nesting deeper than 32 levels",),
                                     setup=_write("s.yaml", "a: " + _nested(100_000) + "\n")),
    "spec is a named pipe": Case(("plan", "in/s.yaml"),
                                 ("spec file 'in/s.yaml'", "named pipe (FIFO)", "give a file"),
                                 setup=_fifo("s.yaml")),
    "spec is a folder": Case(("plan", "in/s.yaml"), ("spec file 'in/s.yaml'", "is a folder"),
                             setup=_folder("s.yaml")),
    # --- catalogs
    "catalog price nan": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                              ("in/catalog_bad.yaml", "'routers[0].price.fixed'", "SN3700C",
                               "finite number", "nan"),
                              setup=_catalog("routers.0.price.fixed", float("nan"))),
    "catalog price 1e308": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                ("'routers[1].price.fixed'", "out of range"),
                                setup=_catalog("routers.1.price.fixed", 1e308)),
    "catalog per-port price infinite": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                            ("'routers[0].price.per_port'", "finite", "inf"),
                                            setup=_catalog("routers.0.price.per_port",
                                                           float("inf"))),
    "catalog watts infinite": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                   ("'routers[0].watts_per_lane'", "finite number", "inf"),
                                   setup=_catalog("routers.0.watts_per_lane", float("inf"))),
    "catalog base watts nan": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                   ("'routers[2].base_watts'", "finite number"),
                                   setup=_catalog("routers.2.base_watts", float("nan"))),
    "catalog radix a yes/no value": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                         ("'routers[0].radix'", "must be an integer", "true"),
                                         setup=_catalog("routers.0.radix", True)),
    "catalog radix quoted": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                 ("'routers[0].radix'", "'32' (text)", "without quotes"),
                                 setup=_catalog("routers.0.radix", "32")),
    "catalog rack units a yes/no value": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                              ("'routers[0].rack_units'", "must be a number"),
                                              setup=_catalog("routers.0.rack_units", True)),
    "catalog stock length nan": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                     ("'cables[0].stock_lengths[1]'", "(sku 'MCP1600')", "finite"),
                                     setup=_catalog("cables.0.stock_lengths.1", float("nan"))),
    "catalog reach out of range": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                       ("'cables[1].max_reach_m'", "out of range"),
                                       setup=_catalog("cables.1.max_reach_m", 1e300)),
    "catalog cable price nan": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                    ("'cables[0].price.per_m'", "finite number"),
                                    setup=_catalog("cables.0.price.per_m", float("nan"))),
    "catalog cable watts a yes/no value": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                               ("'cables[2].watts_per_end'", "must be a number"),
                                               setup=_catalog("cables.2.watts_per_end", False)),
    "catalog endpoint watts 2**80": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                         ("field 'endpoint_watts'", "out of range"),
                                         setup=_catalog("endpoint_watts", 2 ** 80)),
    "catalog nic price nan": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                                  ("field 'nic.price'", "finite number"),
                                  setup=_catalog("nic", {"sku": "NIC1", "price": float("nan")})),
    "catalog duplicate key": Case(
        _plan("--catalog", "in/c.yaml"),
        ("catalog 'in/c.yaml'", "line 4", "key 'name' given twice", "give each key once"),
        setup=_write("c.yaml", "extends: modern-100g\nname: a\ndescription: x\nname: b\n")),
    "catalog duplicate key in a router": Case(
        _plan("--catalog", "in/c.yaml"), ("key 'radix' given twice",),
        setup=_write("c.yaml", "extends: modern-100g\nrouters:\n  - {sku: R, radix: 32, "
                               "radix: 64}\n")),
    "catalog nested too deeply": Case(_plan("--catalog", "in/c.yaml"),
                                      ("catalog 'in/c.yaml'", "nesting deeper than 32 levels"),
                                      setup=_write("c.yaml", "name: " + _nested(50) + "\n")),
    "catalog is a named pipe": Case(_plan("--catalog", "in/c.yaml"),
                                    ("catalog file 'in/c.yaml'", "named pipe (FIFO)"),
                                    setup=_fifo("c.yaml")),
    "catalog is a device": Case(_plan("--catalog", "in/c.yaml"),
                                ("catalog file 'in/c.yaml'", "is a device"),
                                setup=_device("c.yaml")),
    "catalog is a folder": Case(_plan("--catalog", "in/c.yaml"),
                                ("catalog file 'in/c.yaml'", "is a folder"),
                                setup=_folder("c.yaml")),
    # --- floors
    "floor pitch nan": Case(_plan("--floor", "in/floor_bad.yaml"),
                            ("in/floor_bad.yaml", "field 'pitch_m'", "finite number"),
                            setup=_floor("pitch_m", float("nan"))),
    "floor aisle infinite": Case(_plan("--floor", "in/floor_bad.yaml"),
                                 ("field 'aisle_m'", "finite number", "inf"),
                                 setup=_floor("aisle_m", float("inf"))),
    "floor slots a yes/no value": Case(_plan("--floor", "in/floor_bad.yaml"),
                                       ("field 'router_slots'", "must be an integer", "true"),
                                       setup=_floor("router_slots", True)),
    "floor slack quoted": Case(_plan("--floor", "in/floor_bad.yaml"),
                               ("field 'slack_pct'", "'5' (text)", "without quotes"),
                               setup=_floor("slack_pct", "5")),
    "floor height 2**80": Case(_plan("--floor", "in/floor_bad.yaml"),
                               ("field 'cabinet_height_ru'", "out of range"),
                               setup=_floor("cabinet_height_ru", 2 ** 80)),
    "floor overhead 1e308": Case(_plan("--floor", "in/floor_bad.yaml"),
                                 ("field 'overhead_per_end_m'", "out of range"),
                                 setup=_floor("overhead_per_end_m", 1e308)),
    # --- floors of existing rooms: marked positions (hall.positions, docs/floors.md)
    "floor mark outside the hall": Case(
        _plan("--floor", "in/floor_bad.yaml"),
        ("in/floor_bad.yaml", "field 'hall.positions[0]'", "Q01", "outside the hall"),
        setup=_floor("hall.positions", [{"row": "Q", "column": 1, "kind": "blocked"}])),
    "floor mark with two kinds": Case(
        _plan("--floor", "in/floor_bad.yaml"),
        ("position A01", "blocked (field 'hall.positions[0]')",
         "reserved (field 'hall.positions[1]')", "give it one kind"),
        setup=_floor("hall.positions", [{"row": "A", "column": 1, "kind": "blocked"},
                                        {"row": "A", "column": 1, "kind": "reserved"}])),
    "floor mark on no position": Case(
        _plan("--floor", "in/floor_bad.yaml"),
        ("field 'hall.positions[0]'", "overlaps no cabinet position", "move it"),
        setup=_floor("hall.positions", [{"x_m": -40, "y_m": 0, "width_m": 1, "depth_m": 1,
                                         "kind": "blocked"}])),
    "floor marks leave too little room": Case(
        _plan("--floor", "in/floor_bad.yaml"),
        ("2 marked positions", "leave 24 free cabinet positions", "raise hall.count"),
        setup=_floor("hall", {"rows": 2, "cabinets_per_row": 14, "count": 1,
                              "positions": [{"row": "A", "column": 1, "kind": "blocked"},
                                            {"row": "A", "column": 4, "kind": "occupied"}]}),
        patch=((placement, "place", _must_not_run),)),
    "floor duplicate key": Case(_plan("--floor", "in/f.yaml"),
                                ("floor 'in/f.yaml'", "key 'aisle_m' given twice"),
                                setup=_write("f.yaml", "extends: hot-aisle\naisle_m: 1.2\n"
                                                       "aisle_m: 2.4\n")),
    "floor is a named pipe": Case(_plan("--floor", "in/f.yaml"),
                                  ("floor file 'in/f.yaml'", "named pipe (FIFO)"),
                                  setup=_fifo("f.yaml")),
    # --- sizes checked before work starts
    "router radix 10^6": Case(_plan("--catalog", "in/catalog_bad.yaml"),
                              ("in/catalog_bad.yaml", "'routers[0].radix'", "1,000,000",
                               "up to 4,096 ports", "real port count"),
                              setup=_variant("catalog_bad.yaml", "modern-100g", "catalogs",
                                             "routers", [{"sku": "HUGE", "vendor": "X",
                                                          "rate_gbps": 100, "lanes_per_port": 4,
                                                          "radix": 10 ** 6, "price": {"fixed": 1},
                                                          "watts_per_lane": 1,
                                                          "rack_units": 1}]),
                              patch=((placement, "place", _must_not_run),)),
    "router ports over the budget": Case(_plan(), ("550 ports in all", "above the budget of 100",
                                                   "fewer ports or a smaller topology"),
                                         patch=((guards, "MAX_PORTS", 100),
                                                (placement, "place", _must_not_run))),
    "disk too small for the plan": Case(_plan(), ("--out", "need about", "is free on that disk",
                                                  "free some space"),
                                        patch=((guards, "free_bytes", lambda folder: 10_000),
                                               (placement, "place", _must_not_run))),
    # --- environment
    "SOURCE_DATE_EPOCH not a number": Case(_plan(), ("SOURCE_DATE_EPOCH", "whole seconds since 1970-01-01",
                                                     "got 'abc'", "fix it or unset it"),
                                           patch=((os.environ, "SOURCE_DATE_EPOCH", "abc"),
                                                  (placement, "place", _must_not_run))),
    "SOURCE_DATE_EPOCH after 9999": Case(_plan(), ("SOURCE_DATE_EPOCH", "0 to 253402300799",
                                                   "got '999999999999'"),
                                         patch=((os.environ, "SOURCE_DATE_EPOCH", "999999999999"),
                                                (placement, "place", _must_not_run))),
    # --- imported topology files
    "edge list too large": Case(_plan("--topology", f"file:{FX}/topologies/ring4.csv"),
                                ("ring4.csv", "bytes, above the 40 the planner reads",
                                 "smaller file"),
                                patch=((importers.MAX_BYTES, ".csv", 40),)),
    "edge list beyond the link limit": Case(
        _plan("--topology", f"file:{FX}/topologies/ring4.csv"),
        ("ring4.csv' line", "more than 3 cables so far", "smaller network"),
        patch=((importers, "MAX_LINKS", 3),)),
    "anynet beyond the link limit": Case(
        _plan("--topology", "file:in/links.anynet"),
        ("in/links.anynet' line 1", "more than 1 links so far"),
        setup=_write("links.anynet", "router 0 router 1 router 2\n"),
        patch=((importers, "MAX_LINKS", 1),)),
    "edge list is a named pipe": Case(_plan("--topology", "file:in/t.csv?p=1"),
                                      ("topology file 'in/t.csv'", "named pipe (FIFO)"),
                                      setup=_fifo("t.csv")),
    "graphml is a folder": Case(_plan("--topology", "file:in/t.graphml"),
                                ("topology file 'in/t.graphml'", "is a folder"),
                                setup=_folder("t.graphml")),
    "anynet is a device": Case(_plan("--topology", "file:in/t.anynet"),
                               ("topology file 'in/t.anynet'", "is a device"),
                               setup=_device("t.anynet")),
    "topology command reads a pipe": Case(("topology", "file:in/t.csv", "p=1"),
                                          ("topology file 'in/t.csv'", "named pipe"),
                                          setup=_fifo("t.csv")),
    # --- verify inputs
    "verify observed is a named pipe": Case(("verify", "--plan", f"{FX}/verify", "--observed",
                                             "in/o.csv"),
                                            ("observed 'in/o.csv'", "named pipe (FIFO)"),
                                            setup=_fifo("o.csv")),
    "verify lldp nested too deeply": Case(("verify", "--plan", f"{FX}/verify", "--observed",
                                           "in/o.json", "--device", "r00"),
                                          ("observed 'in/o.json'", "nested too deeply",
                                           "lldpctl -f json"),
                                          setup=_write("o.json", _nested(100_000))),
    "verify plan is a named pipe": Case(("verify", "--plan", "in/cables.csv", "--observed",
                                         f"{FX}/verify/cables.csv"),
                                        ("plan 'in/cables.csv'", "named pipe (FIFO)"),
                                        setup=_fifo("cables.csv")),
    # --- the output folder: never a user's folder, checked before planning
    "out holds a summary.json but no manifest": Case(
        _plan(), ("--out 'out' is a non-empty folder", "no .planner-manifest",
                  "give a new or empty folder"),
        setup=_previous_without_manifest, patch=((placement, "place", _must_not_run),)),
    "out holds a summary.json and the user's files": Case(
        _plan(), ("--out 'out' is a non-empty folder", "nothing of yours is overwritten"),
        setup=_summary_and_notes, patch=((placement, "place", _must_not_run),)),
    "out below a dangling symbolic link": Case(
        _plan("--out", "link/plan"), ("--out 'link/plan'", "is a symbolic link to",
                                      "which does not exist", "create its target"),
        setup=_dangling_link, patch=((placement, "place", _must_not_run),)),
    "out name too long for its temporary folder": Case(
        _plan("--out", "p" * 250), ("the folder name is 250 bytes", "allows 255",
                                    "at most 241 bytes"),
        patch=((placement, "place", _must_not_run),)),
    "out folder name longer than the file system allows": Case(
        _plan("--out", "q" * 300 + "/plan"), ("--out 'qqqq", "File name too long",
                                              "give a shorter path"),
        patch=((placement, "place", _must_not_run),)),
    "out is a named pipe": Case(_plan(), ("--out 'out' is an existing file",), setup=_out_fifo),
    "out below a named pipe": Case(_plan("--out", "in/pipe/plan"),
                                   ("--out 'in/pipe/plan'", "is a file, not a folder"),
                                   setup=_fifo("pipe")),
    "out not writable": Case(_plan(), ("--out 'out'", "is not writable",
                                       "give a folder you can write to"),
                             patch=((os, "access", lambda *args, **kwargs: False),
                                    (placement, "place", _must_not_run))),
    # --- writes that fail: one line, nothing half-written, the previous plan intact
    "disk full while writing": Case(_plan(), ("--out 'out'", "cannot write 'half.csv'",
                                              "No space left on device", "free some space",
                                              "nothing was written"),
                                    setup=_previous_as("out"),
                                    patch=_failing_writers(errno.ENOSPC, 1)),
    "disk full in a forked writer": Case(_plan(), ("cannot write 'half.csv'", "No space left",
                                                   "nothing was written"),
                                         setup=_previous_as("out"),
                                         patch=_failing_writers(errno.ENOSPC, 2)),
    "quota used up while writing": Case(_plan(), ("Disk quota exceeded", "free some space"),
                                        setup=_previous_as("out"),
                                        patch=_failing_writers(errno.EDQUOT, 1)),
    "name too long while writing": Case(_plan(), ("File name too long", "shorter --out path"),
                                        setup=_previous_as("out"),
                                        patch=_failing_writers(errno.ENAMETOOLONG, 2)),
    "permission denied while writing": Case(_plan(), ("Permission denied",
                                                      "give an --out folder you can write to"),
                                            setup=_previous_as("out"),
                                            patch=_failing_writers(errno.EACCES, 1)),
    "read-only disk while writing": Case(_plan(), ("Read-only file system",
                                                   "on a writable disk"),
                                         patch=_failing_writers(errno.EROFS, 2)),
}


# ----------------------------------------------------------------------------- the test

def snapshot(root: Path) -> dict[str, object]:
    """Every entry under ``root`` (hidden ones too): file bytes, folder, link target, or the
    kind of a special file (a named pipe is never opened)."""
    state: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            state[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            state[rel] = ("dir",)
        elif path.is_file():
            state[rel] = ("file", path.read_bytes())
        else:
            state[rel] = ("special", stat.S_IFMT(path.stat().st_mode))
    return state


def progress_only(stdout: str) -> bool:
    """Nothing on stdout but the stage lines of work done before the input was refused (no
    summary table)."""
    return all(line.startswith(("plan: ", "exports: ")) and " done" in line
               for line in stdout.splitlines())


def refused(argv, capsys) -> str:
    """Run ``planner ARGV`` in this process; check it was refused as every bad input is (exit
    code 2, progress lines at most on stdout, one line on stderr starting ``planner``, no
    traceback) and return that line."""
    try:
        code = main(list(argv))
    except SystemExit as stop:          # argparse usage errors
        code = stop.code
    captured = capsys.readouterr()
    err = captured.err
    assert code == 2, err
    assert progress_only(captured.out), captured.out
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert err.startswith("planner"), err
    return err


@pytest.fixture(scope="module")
def previous(tmp_path_factory) -> Path:
    """A real previous plan folder (written by ``planner plan``'s writers)."""
    out = tmp_path_factory.mktemp("previous") / "plan"
    exports.write_plan(plan(slimfly(3), "modern-100g", "hot-aisle", strategy="hint"), out)
    return out


def test_enough_cases():
    assert len(CASES) >= 89 + 60          # issue 8's matrix, and issue 12's classes


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name, tmp_path, previous, capsys, monkeypatch):
    case = CASES[name]
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURES / "bad_inputs", ws / "in")
    if case.setup is not None:
        case.setup(ws, previous)
    for target, key, value in case.patch:
        if isinstance(target, MutableMapping):   # a dict, os.environ
            monkeypatch.setitem(target, key, value)
        else:
            monkeypatch.setattr(target, key, value)
    monkeypatch.chdir(ws / case.cwd)
    before = snapshot(tmp_path)
    err = refused(case.argv, capsys)
    for word in case.words:
        assert word in err, (word, err)
    assert snapshot(tmp_path) == before


def test_fixture_payloads_stay_inert(tmp_path, monkeypatch):
    """The YAML payload would create ./pwned under an unsafe loader; the spec is refused and the
    file never appears."""
    monkeypatch.chdir(tmp_path)
    assert main(["plan", str(FIXTURES / "bad_inputs" / "spec_python_tag.yaml")]) == 2
    assert not (tmp_path / "pwned").exists()


def test_every_bad_inputs_fixture_is_used():
    used = " ".join(" ".join(case.argv) for case in CASES.values())
    names = {p.name for p in (FIXTURES / "bad_inputs").iterdir()}
    assert {n for n in names if n not in used} == set()


def test_a_good_rerun_over_a_previous_plan_still_works(tmp_path, previous, monkeypatch):
    """The refusals above are not over-eager: a previous plan folder is replaced, and the
    output folder lists exactly the files written."""
    shutil.copytree(previous, tmp_path / "out")
    monkeypatch.chdir(tmp_path)
    assert main(list(_plan())) == 0
    listed = (tmp_path / "out" / output.MANIFEST).read_text().splitlines()
    files = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*")
                   if p.is_file() and p.name != output.MANIFEST)
    assert listed == files
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["topology"]["routers"] == 50
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# ----------------------------------------------------------------------------- stop signals

STUCK_WRITER = """
import sys, time
from pathlib import Path
from planner import exports
from planner.cli import main
from planner.run import output

def stuck(plan, folder):
    (Path(folder) / "stuck.txt").write_text("writing")
    time.sleep(3600)

original = exports.writers
exports.writers = lambda by_cost=False: [("stuck", stuck)] + original(by_cost)
exports.export_jobs = lambda plan: int(sys.argv[1])
sys.exit(main(sys.argv[2:]))
"""
"""``planner`` whose export writers include one that never ends (in a forked process when
the first argument is 2): a real readiness signal (its file in the temporary folder) and
writer processes alive when the stop signal arrives."""


def _start(ws: Path, argv: list[str], script: str | None = None) -> subprocess.Popen:
    """``planner ARGV`` (or ``script``) in its own session and process group."""
    command = ([sys.executable, "-c", script] if script else
               [sys.executable, "-m", "planner.cli"]) + argv
    return subprocess.Popen(command, cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=_stop_signals_default)


def _stop_signals_default() -> None:
    """The planner's stop signals at their defaults, as a terminal starts it: a suite run under
    ``nohup`` (SIGHUP ignored) or as a background job (SIGINT ignored) would otherwise hand the
    planner ignored signals, which it keeps ignored by design (``planner.run.interrupts``)."""
    for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def _read_until(proc: subprocess.Popen, needle: str) -> str:
    """stdout of ``proc`` up to and including the first line holding ``needle`` (its progress
    lines: the readiness signal of a stage)."""
    seen = ""
    while True:
        line = proc.stdout.readline()
        seen += line
        if needle in line or not line:
            assert needle in line, f"no {needle!r} line before the end: {seen}"
            return seen


def _wait_for_file(proc: subprocess.Popen, ws: Path, pattern: str) -> None:
    while not any(ws.glob(pattern)):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)


def _finish(proc: subprocess.Popen, head: str = "") -> subprocess.CompletedProcess:
    out, err = proc.communicate(timeout=600)          # a safety net for a hang, not a speed test
    return subprocess.CompletedProcess(proc.args, proc.returncode, head + out, err)


def _group_gone(pgid: int) -> bool:
    """No process of the planner's process group is left (forked writers included)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def _no_temporary_folders(ws: Path) -> bool:
    return not [p for p in ws.rglob(".*") if ".tmp-" in p.name or ".old-" in p.name]


def _check_stopped(done: subprocess.CompletedProcess, ws: Path, before: dict, signum: int,
                   pgid: int) -> None:
    names = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated (SIGTERM)",
             signal.SIGHUP: "hung up (SIGHUP)"}
    assert done.returncode == 128 + signum, done.stderr
    assert done.stderr == f"planner plan: {names[signum]}; nothing was written\n"
    assert progress_only(done.stdout), done.stdout
    assert _group_gone(pgid)
    assert snapshot(ws) == before


@pytest.mark.parametrize("signum, whole_group, jobs", [
    (signal.SIGTERM, False, 2),      # timeout(1): the planner only; its writers must follow
    (signal.SIGTERM, True, 2),       # systemd, batch schedulers: every process of the job
    (signal.SIGHUP, True, 2),        # the terminal closed
    (signal.SIGINT, True, 2),        # Ctrl-C
    (signal.SIGTERM, False, 1),      # writers in the planner's own process
])
def test_stop_signal_while_writers_run(tmp_path, previous, signum, whole_group, jobs):
    """A stop signal while export writers run (one never finishes): one line, exit 128 + N,
    no temporary folder, no writer process left, the previous plan as it was."""
    ws = tmp_path / "ws"
    shutil.copytree(previous, ws / "out")
    before = snapshot(ws)
    proc = _start(ws, [str(jobs), *_plan()], STUCK_WRITER)
    _wait_for_file(proc, ws, ".out.tmp-*/stuck.txt")
    (os.killpg if whole_group else os.kill)(proc.pid, signum)
    _check_stopped(_finish(proc), ws, before, signum, proc.pid)


DEAF_WRITER = STUCK_WRITER.replace(
    'def stuck(plan, folder):\n',
    'def stuck(plan, folder):\n    import signal\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n')
"""``STUCK_WRITER`` whose stuck writer also ignores SIGTERM, as a writer forked an instant
before the stop (still carrying the parent's deferred handler) or one stuck in native code
does: the planner must kill it after ``output.WRITER_STOP_GRACE_S``, not wait for ever."""


def test_stop_signal_kills_a_writer_that_ignores_sigterm(tmp_path, previous):
    assert "SIG_IGN" in DEAF_WRITER
    ws = tmp_path / "ws"
    shutil.copytree(previous, ws / "out")
    before = snapshot(ws)
    proc = _start(ws, ["2", *_plan()], DEAF_WRITER)
    _wait_for_file(proc, ws, ".out.tmp-*/stuck.txt")
    os.kill(proc.pid, signal.SIGTERM)
    _check_stopped(_finish(proc), ws, before, signal.SIGTERM, proc.pid)


def test_ctrl_c_during_placement_writes_nothing(tmp_path, previous):
    """Ctrl-C once placement has started (its first stages reported), during a long optimize
    run (the annealing budget of a 30 s limit)."""
    ws = tmp_path / "ws"
    shutil.copytree(previous, ws / "out")
    before = snapshot(ws)
    proc = _start(ws, list(_plan("--strategy", "optimize", "--time-limit", "30")))
    head = _read_until(proc, "plan: placement/hint done")
    os.killpg(proc.pid, signal.SIGINT)
    _check_stopped(_finish(proc, head), ws, before, signal.SIGINT, proc.pid)


FAULT_POINTS = [(stage, round(random.Random(seed).uniform(0, span), 3)) for seed, (stage, span)
                in enumerate([("placement/hint", 1.5)] * 4 + [("plan: summary", 0.6)] * 4)]
"""Stop points: a random delay after a stage line, inside placement or in the exports."""


@pytest.mark.parametrize("after, delay", FAULT_POINTS)
def test_sigterm_at_random_points(tmp_path, previous, after, delay):
    """SIGTERM to the process group at a random point of a plan (optimize, 5 s limit) and of
    its exports (6,591 cables: forked writers): either the run completed (a whole new plan) or
    it stopped with one line and the previous plan intact; never a temporary folder or a live
    writer process."""
    ws = tmp_path / "ws"
    shutil.copytree(previous, ws / "out")
    before = snapshot(ws)
    argv = (_plan("--strategy", "optimize", "--time-limit", "5") if "placement" in after else
            _plan("--topology", "slimfly:q=13"))
    proc = _start(ws, list(argv))
    head = _read_until(proc, after)
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGTERM)
    done = _finish(proc, head)
    assert _group_gone(proc.pid)
    assert _no_temporary_folders(ws)
    if snapshot(ws) != before:          # it finished first: the new plan is whole (the signal
        # may still land while the finished process exits: killed by it, or 128 + N)
        assert done.returncode in (0, -signal.SIGTERM, 128 + signal.SIGTERM), done.stderr
        listed = (ws / "out" / output.MANIFEST).read_text().splitlines()
        assert listed == sorted(str(p.relative_to(ws / "out")) for p in (ws / "out").rglob("*")
                                if p.is_file() and p.name != output.MANIFEST)
        assert "summary.json" in listed
    else:
        _check_stopped(done, ws, before, signal.SIGTERM, proc.pid)


# ----------------------------------------------------------------------------- a real full disk

@pytest.fixture
def tiny_disk(tmp_path):
    """A 400 KiB tmpfs (root with CAP_SYS_ADMIN only; skipped elsewhere)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.parametrize("topology", ["slimfly:q=5", "slimfly:q=13"])
def test_a_disk_that_fills_up_while_writing(tiny_disk, capsys, monkeypatch, topology):
    """The disk fills up half-way through the exports (the space check before planning is
    switched off, as if another program took the space meanwhile), in the planner's process
    (375 cables) or in forked writers (6,591 cables, above exports.PARALLEL_MIN_CABLES): one
    line, exit 2, nothing left on the disk."""
    monkeypatch.setattr(guards, "check_space", lambda out, cables: None)
    monkeypatch.chdir(tiny_disk)
    code = main(["plan", "--topology", topology, "--strategy", "hint", "--out", "plan"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--out 'plan': cannot write" in err and "No space left on device" in err
    assert "free some space" in err and "nothing was written" in err
    assert list(tiny_disk.iterdir()) == []
