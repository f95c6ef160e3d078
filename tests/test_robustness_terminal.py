"""The output channel never decides the result, and input text reaches the terminal escaped
(issue 29, "The terminal" and "What users get" 2 and 6).

A real ``planner plan`` runs with stdout in the ways a user's shell connects it: a file under
``LC_ALL=C`` (with Python's UTF-8 mode, and without it: an ASCII stdout) or
``PYTHONIOENCODING=latin-1``, a pipe whose reader stops after one line
(``| head -1``), a closed descriptor (``>&-``) and ``/dev/full``. In each the plan folder holds
the files of the plan written with an ordinary stdout, listed in its manifest, and its cables,
netlist, workbook, NetBox files and summary are byte for byte the same (``SOURCE_DATE_EPOCH``
fixes the timestamps); stderr holds no traceback, and the exit code is the rule of
``docs/robustness.md``: 0, or 74 with one line when stdout failed. Text from inputs (an LLDP
neighbour's device name, a file name, an option value, an output folder's name) is printed
with its control characters escaped. Ctrl-C while a solver library is still loading gives the
one-line stop.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli import EXIT_STDOUT_FAILED, main
from planner.run import output
from planner.run.terminal import MAX_PRINTED, in_ascii, printable
from test_determinism import compared_files

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
PLAN = ["plan", "--topology", "slimfly:q=3", "--strategy", "hint"]
ESC = "\x1b]0;pwned\x07\x1b[2J"
"""An escape sequence that retitles (OSC 0) and clears (CSI 2J) a terminal."""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONIOENCODING", "PYTHONUTF8", "LC_ALL", "LANG", "LC_CTYPE")}
    env.update(PYTHONPATH=str(ROOT), SOURCE_DATE_EPOCH="1700000000", **extra)
    return env


def _command(out: str) -> list[str]:
    return [sys.executable, "-m", "planner.cli", *PLAN, "--out", out]


def _names(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, str]:
    """The plan and the stdout of a run with stdout on a UTF-8 file."""
    ws = tmp_path_factory.mktemp("reference")
    done = subprocess.run(_command("plan"), cwd=ws, env=_env(PYTHONIOENCODING="utf-8"),
                          capture_output=True, text=True, encoding="utf-8")
    assert done.returncode == 0, done.stderr
    assert "θ" in done.stdout        # the character a latin-1 stdout cannot show
    return ws / "plan", done.stdout


def _run_to_file(ws: Path, env: dict[str, str], stdout_path: str) -> subprocess.CompletedProcess:
    with open(ws / stdout_path, "wb") as sink:         # /dev/full stays absolute
        return subprocess.run(_command("plan"), cwd=ws, env=env, stdout=sink,
                              stderr=subprocess.PIPE, text=True)


def _run_head_one(ws: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``planner plan | head -1``: read one line, then close the pipe."""
    proc = subprocess.Popen(_command("plan"), cwd=ws, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=600)               # a safety net for a hang, not a speed test
    return subprocess.CompletedProcess(proc.args, proc.returncode, first, err)


def _run_closed(ws: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``planner plan >&-``: no descriptor 1 at all."""
    return subprocess.run(_command("plan"), cwd=ws, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1))


CHANNELS = {
    # name: (run, environment, exit code, stdout file and its encoding or None)
    "LC_ALL=C": (lambda ws, env: _run_to_file(ws, env, "log"), _env(LC_ALL="C", LANG="C"), 0,
                 "utf-8"),
    "LC_ALL=C without Python's UTF-8 mode": (lambda ws, env: _run_to_file(ws, env, "log"),
                                             _env(LC_ALL="C", LANG="C", PYTHONUTF8="0"), 0,
                                             "ascii"),
    "PYTHONIOENCODING=latin-1": (lambda ws, env: _run_to_file(ws, env, "log"),
                                 _env(PYTHONIOENCODING="latin-1"), 0, "latin-1"),
    "stdout closed after one line (| head -1)": (_run_head_one, _env(), 0, None),
    "stdout closed (>&-)": (_run_closed, _env(), 0, None),
    "stdout on /dev/full": (lambda ws, env: _run_to_file(ws, env, "/dev/full"), _env(),
                            EXIT_STDOUT_FAILED, None),
}


@pytest.mark.parametrize("name", list(CHANNELS))
def test_the_plan_is_whole_whatever_stdout_is(name, tmp_path, reference):
    run, env, code, encoding = CHANNELS[name]
    if name == "stdout on /dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    done = run(tmp_path, env)
    plan_folder, reference_stdout = reference
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    if code == EXIT_STDOUT_FAILED:
        assert done.stderr == ("planner: stdout: cannot write (No space left on device): the "
                               "report printed is incomplete; the run itself completed\n")
    else:
        assert done.stderr == ""
    assert _names(tmp_path / "plan") == _names(plan_folder)
    assert compared_files(tmp_path / "plan") == compared_files(plan_folder)
    listed = (tmp_path / "plan" / output.MANIFEST).read_text().splitlines()
    assert listed == [f for f in _names(tmp_path / "plan") if f != output.MANIFEST]
    summary = json.loads((tmp_path / "plan" / "summary.json").read_text())
    assert summary["topology"]["routers"] == 18          # Slim Fly q=3: 2 q^2 routers
    if encoding:                       # the whole report, in ASCII where the encoding needs it
        printed = _table((tmp_path / "log").read_bytes().decode(encoding))
        expected = _table(reference_stdout)
        assert len(printed) == len(expected)
        for line, wanted in zip(printed, expected):
            try:
                wanted.encode(encoding)
            except UnicodeEncodeError:         # spelled out in ASCII: θ -> theta, ⌈ -> ceil(
                assert line == in_ascii(wanted, encoding) and line.isascii()
                assert line.count("theta") == wanted.count("θ") + wanted.count("theta")
            else:
                assert line == wanted


def _table(stdout: str) -> list[str]:
    """The summary table at the end of ``planner plan`` (progress lines hold timings)."""
    return [line for line in stdout.splitlines() if not line.startswith(("plan: ", "exports: "))]


def test_the_rule_for_a_failed_stdout_keeps_other_exit_codes(tmp_path):
    """A refused input on a full stdout is still exit 2 with its own one line (not 74)."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "wb") as sink:
        done = subprocess.run([sys.executable, "-m", "planner.cli", *PLAN[:2], "slimfly:q=6",
                               "--out", "plan"], cwd=tmp_path, env=_env(), stdout=sink,
                              stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "q" in done.stderr and "prime power" in done.stderr
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- escaping

@pytest.mark.parametrize("text, shown", [
    (ESC, "\\x1b]0;pwned\\x07\\x1b[2J"),
    ("r01\nverify: 0 mistakes", "r01\\nverify: 0 mistakes"),     # a forged report line
    ("tor\r", "tor\\r"),
    ("evil\u202etxt.exe", "evil\\u202etxt.exe"),                  # right-to-left override
    ("\x9b31m", "\\x9b31m"),                                      # the one-byte CSI
    ("line\u2028break", "line\\u2028break"),
    ("nul\x00", "nul\\x00"),
    ("del\x7f", "del\\x7f"),
    ("Quantum-X800 θ µ é 中", "Quantum-X800 θ µ é 中"),          # printable text stays
    ("tab\there", "tab\\there"),
])
def test_printable_escapes_every_control_character(text, shown):
    assert printable(text) == shown
    assert printable(text, keep="\n").count("\n") == text.count("\n")


def test_printable_bounds_one_text():
    assert printable("x" * 50_000) == "x" * MAX_PRINTED + "..."
    assert printable("x" * 50_000, None) == "x" * 50_000


def _verify_observed(tmp_path: Path) -> Path:
    """An as-built CSV of the fixture plan in which one neighbour's device name carries an
    escape sequence and an extra link's device a right-to-left override and a one-byte CSI."""
    import csv
    rows = list(csv.DictReader((FIXTURES / "verify" / "cables.csv").open()))
    lines = ["device,port,peer_device,peer_port"]
    lines += [f"{r['a_device']},{r['a_port']},{r['b_device']},{r['b_port']}" for r in rows]
    lines[1] = f"r00,1,r01{ESC},1"
    lines.append("evil\u202e\x9b31m,1,r05,9")
    path = tmp_path / "observed.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_verify_prints_lldp_names_escaped(tmp_path, capsys):
    observed = _verify_observed(tmp_path)
    code = main(["verify", "--plan", str(FIXTURES / "verify"), "--observed", str(observed)])
    out = capsys.readouterr().out
    assert code == 3
    rows = out.splitlines()
    assert len(rows) == 4                    # header, two findings, summary: nothing forged
    assert not any(ch in out for ch in "\x1b\x07\x9b\u202e")
    wrong = next(r for r in rows if r.startswith("wrong-device"))
    assert wrong.endswith("r00:1 - r01\\x1b]0;pwned\\x07\\x1b[2J:1")
    extra = next(r for r in rows if r.startswith("extra"))
    assert extra.endswith("evil\\u202e\\x9b31m:1 - r05:9")
    assert rows[-1] == ("verify: 18 planned cables, 19 observed links, 17 match; 2 mistakes: "
                        "1 wrong-device, 1 extra")


def _controls(text: str) -> list[str]:
    return [ch for ch in text if ch != "\n" and not ch.isprintable()]


CASES = {
    # name: (argv, the escaped text the one line or the report must show, exit code)
    "error line: a topology file name": (
        ["plan", "--topology", f"file:{ESC}.csv", "--out", "plan"],
        f"topology file '{printable(ESC)}.csv' does not exist", 2),
    "error line: an option value (argparse)": (
        ["plan", "--strategy", ESC], f"invalid choice: '{printable(ESC)}'", 2),
    "error line: a BookSim traffic name with a line break": (
        ["plan", "--booksim-traffic", "uniform\nsim_count = 9", "--out", "plan"],
        "'uniform\\nsim_count = 9' is not a BookSim traffic pattern", 2),
    "error line: a catalog path": (
        ["plan", "--catalog", f"{ESC}.yaml", "--out", "plan"],
        f"catalog file '{printable(ESC)}.yaml' does not exist", 2),
    "topology report: an imported file's name": (
        ["topology", f"file:ring{ESC}.csv"], f"path=ring{printable(ESC)}.csv", 0),
    "catalog shown as YAML: a comment's right-to-left override": (
        ["catalogs", "show", "c.yaml", "--yaml"], "# vendor \\u202egnirts\n", 0),
    "plan summary: the output folder's name": (
        PLAN + ["--out", f"plan{ESC}"], f"plan{printable(ESC)}/  (", 0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_input_text_reaches_the_terminal_escaped(name, tmp_path, monkeypatch, capsys):
    argv, shown, code = CASES[name]
    (tmp_path / f"ring{ESC}.csv").write_bytes((FIXTURES / "topologies" / "ring4.csv")
                                             .read_bytes())
    (tmp_path / "c.yaml").write_text("extends: modern-100g\n# vendor \u202egnirts\n",
                                     encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    try:
        got = main(argv)
    except SystemExit as stop:           # argparse usage errors
        got = stop.code
    captured = capsys.readouterr()
    assert got == code, captured.err
    printed = captured.err if code else captured.out
    assert shown in printed
    assert _controls(captured.out + captured.err) == []
    if code:
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


# ----------------------------------------------------------------------------- Ctrl-C

ANNOUNCED_IMPORT = """
import importlib.abc, os, sys
target = sys.argv[1]


class Announce(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target_module=None):
        if name == target:
            os.write(1, b"loading\\n")
        return None


sys.meta_path.insert(0, Announce())
from planner.cli import main
sys.exit(main(sys.argv[2:]))
"""
"""``planner`` that writes 'loading' on stdout when the import of module argv[1] starts."""


@pytest.mark.parametrize("library", ["ortools.sat.python.cp_model", "numba"])
def test_ctrl_c_while_a_solver_library_loads(library, tmp_path):
    """Ctrl-C as the import of a solver library starts (OR-Tools turned it into 'ImportError:
    initialization failed', a traceback, exit 1): exit 130, one line, nothing written."""
    proc = subprocess.Popen([sys.executable, "-c", ANNOUNCED_IMPORT, library, *PLAN, "--out",
                             "plan"], cwd=tmp_path, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = ""
    while "loading" not in seen:
        line = proc.stdout.readline()
        assert line, f"{library} was never imported: {seen}{proc.communicate()}"
        seen += line
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    assert err in ("planner plan: interrupted; nothing was written\n",
                   "planner: interrupted; nothing was written\n"), err
    assert list(tmp_path.iterdir()) == []


SWALLOWED_IMPORT = """
import importlib.abc, os, sys, time
target = sys.argv[1]


class Swallow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target_module=None):
        if name == target:
            try:                             # announced inside the try: the Ctrl-C sent
                os.write(1, b"loading\\n")   # after it always lands here
                while True:
                    time.sleep(0.01)
            except KeyboardInterrupt:        # and the library's import swallows it
                pass
        return None


sys.meta_path.insert(0, Swallow())
from planner.cli import main
sys.exit(main(sys.argv[2:]))
"""
"""``planner`` whose import of module argv[1] catches the first Ctrl-C and then succeeds, as a
library that swallows a KeyboardInterrupt during its import does."""


@pytest.mark.parametrize("library", ["numba", "planner.performance.text"])
def test_a_swallowed_ctrl_c_still_stops_the_plan(library, tmp_path):
    """Nothing raises after the Ctrl-C (numba's import succeeded): the plan still stops at the
    next stage boundary, or before its swap into --out, with exit 130, one line, nothing
    written, and a previous plan in --out left as it was."""
    out = tmp_path / "plan"
    out.mkdir()
    (out / "kept.txt").write_text("previous plan\n")
    (out / output.MANIFEST).write_text("kept.txt\n")    # a plan's folder: --out may be replaced
    proc = subprocess.Popen([sys.executable, "-c", SWALLOWED_IMPORT, library, *PLAN, "--out",
                             "plan"], cwd=tmp_path, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = ""
    while "loading" not in seen:
        line = proc.stdout.readline()
        assert line, f"{library} was never imported: {seen}{proc.communicate()}"
        seen += line
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    assert err == "planner plan: interrupted; nothing was written\n", err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan"]
    assert sorted(p.name for p in out.iterdir()) == sorted(["kept.txt", output.MANIFEST])
    assert (out / "kept.txt").read_text() == "previous plan\n"
