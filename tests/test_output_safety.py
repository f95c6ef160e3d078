"""Nothing of the user's is lost while a plan is moved into ``--out`` (issue 29: "A user's file
deleted", "Real-world output places"; docs/robustness.md "Moving the plan into --out").

- Races: ``--out`` changes during the export stage (a file saved into the previous plan, a
  folder or file created at a new ``--out``, a link put there). In-process, a writer makes the
  change; end to end, ``planner plan`` is held after its writers by the
  ``PLANNER_TEST_EXPORT_GATE`` hook while the test makes it. The user's entries survive byte
  for byte, the refusal is one line naming them, and the new plan is whole beside them.
- Places: a mount point (tmpfs, and a bind mount of a folder of the same file system as Docker
  volumes are) and a folder whose parent cannot be written are written in place, in a private
  mount namespace (``unshare``) or as a user without privileges over the files, so no root is
  needed; folder mode and group survive a re-plan; the debris of ``kill -9`` goes with the next
  run, and a live run's staging folder stays.
- Removal: only files a manifest lists are ever deleted (never a whole tree, never through a
  symbolic link).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner import exports
from planner.exports import anynet
from planner.plan import plan
from planner.run import output
from planner.run.errors import InputError
from planner.topologies.slimfly import slimfly
from test_bad_input import snapshot

ROOT = Path(__file__).resolve().parents[1]
CLI_PLAN = ("plan", "--topology", "slimfly:q=3", "--strategy", "hint", "--out", "out")


def whole_plan(folder: Path) -> list[str]:
    """The files of a plan folder, checked to be exactly the ones its manifest lists."""
    listed = (folder / output.MANIFEST).read_text().splitlines()
    assert listed == sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                            if p.is_file() and p.name != output.MANIFEST)
    return listed


def no_debris(folder: Path) -> bool:
    """No staging or set-aside folder of a run left in ``folder``."""
    return not [p.name for p in folder.iterdir()
                if ".tmp-" in p.name or ".old-" in p.name or p.name.startswith(".planner-tmp")]


def writers(files: dict[str, str]):
    """Export writers that write ``files`` (relative name: text)."""
    def write(folder: Path, name: str, text: str) -> None:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return [(name, lambda d, n=name, t=text: write(d, n, t)) for name, t in files.items()
            for text in [t]]


OLD = {"summary.json": "{\"old\": 1}", "netbox/devices.csv": "old\n", "only-old.txt": "old\n"}
NEW = {"summary.json": "{\"new\": 2}", "netbox/devices.csv": "new\n", "only-new.txt": "new\n"}


def previous_plan(out: Path) -> Path:
    output.write_folder(out, writers(OLD))
    return out


# ----------------------------------------------------------------------------- races, in-process

def _save_into_previous(out: Path) -> None:
    (out / "notes.txt").write_text("saved during the re-plan\n")


def _save_into_subfolder(out: Path) -> None:
    (out / "netbox" / "mine.csv").write_text("my own rows\n")


def _replace_listed_file_by_folder(out: Path) -> None:
    (out / "only-old.txt").unlink()
    (out / "only-old.txt").mkdir()
    (out / "only-old.txt" / "photo.jpg").write_bytes(b"\xff\xd8")


def _folder_at_new_out(out: Path) -> None:
    out.mkdir()
    (out / "thesis.tex").write_text("years of work\n")


def _file_at_new_out(out: Path) -> None:
    out.write_text("my notes\n")


def _link_at_new_out(out: Path) -> None:
    target = out.parent / "elsewhere"
    target.mkdir()
    (target / "data.csv").write_text("1,2\n")
    out.symlink_to(target, target_is_directory=True)


def _empty_folder_at_new_out(out: Path) -> None:
    out.mkdir()


RACES = {
    # name: (a previous plan in --out, the change during the exports, the entry named or None)
    "file saved into the previous plan": (True, _save_into_previous, "notes.txt"),
    "file saved into a subfolder of the plan": (True, _save_into_subfolder, "netbox/mine.csv"),
    "plan file replaced by a folder": (True, _replace_listed_file_by_folder, "only-old.txt"),
    "folder made at a new --out": (False, _folder_at_new_out, "thesis.tex"),
    "file made at a new --out": (False, _file_at_new_out, "became a file or a link"),
    "link made at a new --out": (False, _link_at_new_out, "became a file or a link"),
    "empty folder made at a new --out": (False, _empty_folder_at_new_out, None),
}


@pytest.mark.parametrize("name", sorted(RACES))
def test_change_during_the_exports(tmp_path, name):
    """What ``--out`` holds when the plan is moved in is what counts: an entry the manifest
    does not list refuses the swap in one line, stays byte for byte, and the new plan is whole
    beside it as ``out.new``; an empty folder made meanwhile simply receives the plan."""
    has_previous, change, named = RACES[name]
    out = tmp_path / "out"
    if has_previous:
        previous_plan(out)
    seen = {}

    def user(folder: Path) -> None:   # the writer that is "slow": the user acts meanwhile
        change(out)
        seen.update({k: v for k, v in snapshot(tmp_path).items() if not k.startswith(".out.tmp-")})

    if named is None:
        output.write_folder(out, writers(NEW) + [("user", user)])
        assert whole_plan(out) == sorted(NEW)
        assert (out / "summary.json").read_text() == NEW["summary.json"]
    else:
        with pytest.raises(InputError) as refused:
            output.write_folder(out, writers(NEW) + [("user", user)])
        message = str(refused.value)
        assert "\n" not in message and named in message and "'" + str(out) + ".new'" in message
        kept = tmp_path / "out.new"
        assert whole_plan(kept) == sorted(NEW)
        assert (kept / "summary.json").read_text() == NEW["summary.json"]
        after = snapshot(tmp_path)
        assert {k: v for k, v in after.items() if not k.startswith("out.new")} == seen
    assert no_debris(tmp_path)


def test_the_kept_plan_is_refused_as_out_until_the_file_is_moved(tmp_path):
    """After a refusal the user's file still blocks a re-plan into that folder (the folder
    rule of check_out), and a re-plan runs once it was moved away."""
    out = previous_plan(tmp_path / "out")
    _save_into_previous(out)
    with pytest.raises(InputError, match="also 'notes.txt'"):
        output.write_folder(out, writers(NEW))
    (out / "notes.txt").rename(tmp_path / "notes.txt")
    output.write_folder(out, writers(NEW))
    assert whole_plan(out) == sorted(NEW)
    assert (tmp_path / "notes.txt").read_text() == "saved during the re-plan\n"


# ----------------------------------------------------------------------------- removal

def _listed_link_to_outside(folder: Path, outside: Path) -> None:
    (folder / "summary.json").unlink()
    (folder / "summary.json").symlink_to(outside / "precious.txt")


def _listed_folder_linked_outside(folder: Path, outside: Path) -> None:
    shutil.rmtree(folder / "netbox")
    (folder / "netbox").symlink_to(outside, target_is_directory=True)


def _unlisted_file(folder: Path, outside: Path) -> None:
    (folder / "netbox" / "mine.csv").write_text("mine\n")


def _nothing(folder: Path, outside: Path) -> None:
    pass


DISCARDS = {
    # name: (change to a previous plan, what must remain of it)
    "nothing unlisted": (_nothing, set()),
    "an unlisted file": (_unlisted_file, {"netbox", "netbox/mine.csv"}),
    "a listed name that is a link": (_listed_link_to_outside, {"summary.json"}),
    "a listed folder that is a link": (_listed_folder_linked_outside, {"netbox"}),
}


@pytest.mark.parametrize("name", sorted(DISCARDS))
def test_only_listed_files_are_ever_deleted(tmp_path, name):
    """Removing a previous plan deletes the regular files its manifest lists and the folders
    left empty: never an unlisted entry, never through a link (the files it points at stay)."""
    change, remains = DISCARDS[name]
    folder = previous_plan(tmp_path / "old")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("mine\n")
    (outside / "devices.csv").write_text("mine too\n")
    change(folder, outside)
    gone = output._discard(folder)
    assert gone == (not remains)
    left = {str(p.relative_to(folder)) for p in folder.rglob("*")} if folder.exists() else set()
    assert left == remains
    assert snapshot(outside) == {"devices.csv": ("file", b"mine too\n"),
                                 "precious.txt": ("file", b"mine\n")}


# ----------------------------------------------------------------------------- mode and group

def _another_group() -> int | None:
    """A group this user may give a folder other than its current one (root: any)."""
    if os.geteuid() == 0:
        return 4242
    others = [g for g in os.getgroups() if g != os.getegid()]
    return others[0] if others else None


@pytest.mark.parametrize("mode", [0o700, 0o750, 0o770, 0o2775, 0o755])
def test_a_replan_keeps_the_folder_mode_and_group(tmp_path, mode):
    out = previous_plan(tmp_path / "out")
    group = _another_group()
    if group is not None:
        os.chown(out, -1, group)
    os.chmod(out, mode)
    before = os.stat(out)
    output.write_folder(out, writers(NEW))
    after = os.stat(out)
    assert stat.S_IMODE(after.st_mode) == mode
    assert after.st_gid == before.st_gid
    assert whole_plan(out) == sorted(NEW)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o755), (0o027, 0o750), (0o002, 0o775)])
def test_a_new_folder_gets_the_umask_mode(tmp_path, umask, mode):
    """A new ``--out`` gets the mode ``mkdir`` gives under the umask (the staging folder is
    made private, 0700, while the writers run)."""
    old = os.umask(umask)
    try:
        output.write_folder(tmp_path / "out", writers(NEW))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "out").st_mode) == mode


# ---------------------------------------------------------------------- debris of killed runs

def test_a_run_killed_between_the_two_renames_is_put_back(tmp_path):
    """``kill -9`` after ``--out`` was renamed aside and before the new folder came in: the next
    run puts the previous plan back (and checks it as usual)."""
    previous_plan(tmp_path / "plan")
    before = snapshot(tmp_path / "plan")
    (tmp_path / "plan").rename(tmp_path / ".out.old-k1lled00")
    assert output.check_out(tmp_path / "out") == tmp_path / "out"
    assert snapshot(tmp_path / "out") == before
    assert no_debris(tmp_path)


def test_a_set_aside_plan_beside_a_new_one_loses_only_listed_files(tmp_path):
    """Killed after the new plan came in but before the old one was removed: its listed files
    go; a file of the user's in it stays."""
    previous_plan(tmp_path / "out")
    old = previous_plan(tmp_path / "prev")
    (old / "notes.txt").write_text("mine\n")
    old.rename(tmp_path / ".out.old-k1lled00")
    output.check_out(tmp_path / "out")
    assert snapshot(tmp_path / ".out.old-k1lled00") == {"notes.txt": ("file", b"mine\n")}


# ----------------------------------------------------------------------------- written in place

def test_can_rename_in_a_sticky_folder_only_for_an_owner(tmp_path, monkeypatch):
    """A folder in a sticky folder (``/tmp``) can be renamed by its owner, the parent's owner
    and root only (``unlink(2)``, EPERM)."""
    if os.geteuid() != 0:
        pytest.skip("making folders owned by other users needs root")
    parent = tmp_path / "shared"
    parent.mkdir()
    os.chmod(parent, 0o1777)
    os.chown(parent, 5001, 5001)
    out = parent / "out"
    out.mkdir()
    os.chown(out, 5002, 5002)
    for euid, allowed in ((0, True), (5001, True), (5002, True), (5003, False)):
        monkeypatch.setattr(os, "geteuid", lambda euid=euid: euid)
        assert output.can_rename(out) is allowed, euid


def _unrenamable_parent(tmp_path: Path) -> tuple[Path, Path]:
    """(parent made read-only, --out inside it holding a previous plan)."""
    parent = tmp_path / "scratch"
    out = previous_plan(parent / "job")
    os.chmod(parent, 0o555)
    return parent, out


IN_PLACE_SCRIPT = """
import json, sys
from pathlib import Path
from planner.run import output
from planner.run.errors import InputError
out, files, change = Path(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]

def write(folder, name, text):
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)

writers = [(n, lambda d, n=n, t=t: write(d, n, t)) for n, t in files.items()]
if change:
    writers.append(("user", lambda d: (out / change).write_text("mine\\n")))
try:
    output.write_folder(out, writers)
    print(json.dumps({"in_place": output.in_place(out)}))
except InputError as err:
    print(json.dumps({"error": str(err)}))
"""
"""Runs ``write_folder`` into argv[1] with the files of argv[2]; with argv[3], a writer saves
that file into ``--out`` during the exports. Prints what happened as JSON."""


def _run_unprivileged(argv: list[str]) -> dict:
    """IN_PLACE_SCRIPT as a user without privileges over the test's files: this user when it
    is not root, else root in a new user namespace (its capabilities do not reach files of the
    parent namespace, so permission bits apply as to anyone else)."""
    prefix = [] if os.geteuid() != 0 else ["unshare", "--user"]
    if prefix and subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
        pytest.skip("root without user namespaces cannot drop its privileges over the files")
    done = subprocess.run([*prefix, sys.executable, "-c", IN_PLACE_SCRIPT, *argv],
                          capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_folder_whose_parent_is_read_only_is_written_in_place(tmp_path):
    """A per-job scratch folder in a folder the user cannot write: the plan replaces the
    previous one inside it, file by file, the folder itself stays (same inode, same mode), and
    the file the old plan had and the new one has not is gone."""
    parent, out = _unrenamable_parent(tmp_path)
    try:
        inode = os.stat(out).st_ino
        result = _run_unprivileged([str(out), json.dumps(NEW), ""])
        assert result == {"in_place": True}
        assert os.stat(out).st_ino == inode
        assert whole_plan(out) == sorted(NEW)
        assert {n: (out / n).read_text() for n in NEW} == NEW
        assert no_debris(out) and no_debris(parent)
    finally:
        os.chmod(parent, 0o755)


def test_a_file_saved_into_an_in_place_folder_is_kept(tmp_path):
    parent, out = _unrenamable_parent(tmp_path)
    try:
        before = snapshot(out)
        result = _run_unprivileged([str(out), json.dumps(NEW), "notes.txt"])
        assert "notes.txt" in result["error"] and "out.new" not in result["error"]
        assert "\n" not in result["error"] and f"'{out / 'job.new'}'" in result["error"]
        after = snapshot(out)
        assert {k: v for k, v in after.items() if not k.startswith("job.new")} == {
            **before, "notes.txt": ("file", b"mine\n")}
        assert whole_plan(out / "job.new") == sorted(NEW)
    finally:
        os.chmod(parent, 0o755)


def test_an_unwritable_in_place_folder_is_refused_before_planning(tmp_path):
    parent, out = _unrenamable_parent(tmp_path)
    os.chmod(out, 0o555)
    try:
        before = snapshot(parent)
        script = ("import sys; from planner.run import output; from planner.run.errors import "
                  "InputError\ntry:\n    output.check_out(sys.argv[1])\nexcept InputError as e:"
                  "\n    print(e)")
        prefix = [] if os.geteuid() != 0 else ["unshare", "--user"]
        if prefix and subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
            pytest.skip("root without user namespaces cannot drop its privileges")
        done = subprocess.run([*prefix, sys.executable, "-c", script, str(out)],
                              capture_output=True, text=True, cwd=ROOT,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert done.stdout.count("\n") == 1 and "cannot be renamed" in done.stdout
        assert "not writable either" in done.stdout, done.stdout + done.stderr
        assert snapshot(parent) == before
    finally:
        os.chmod(out, 0o755)
        os.chmod(parent, 0o755)


# ----------------------------------------------------------------------------- end to end

@pytest.fixture(scope="module")
def real_plan(tmp_path_factory) -> Path:
    """A real previous plan folder (``planner plan``'s writers)."""
    out = tmp_path_factory.mktemp("real") / "plan"
    exports.write_plan(plan(slimfly(3), "modern-100g", "hot-aisle", strategy="hint"), out)
    return out


def _start_held(ws: Path, argv: list[str]) -> tuple[subprocess.Popen, Path]:
    """``argv`` (a Python program) in ws, held after its export writers by the test hook until
    the gate file exists; returns once it waits there."""
    gate = ws / "gate"
    proc = subprocess.Popen([sys.executable, *argv], cwd=ws, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT),
                                     **{output.EXPORT_GATE: str(gate)}))
    while not (ws / "gate.waiting").exists():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    return proc, gate


def test_planner_plan_keeps_a_file_saved_during_its_exports(tmp_path, real_plan):
    """The issue's data loss, end to end (the other changes of ``RACES`` are checked
    in-process): exit 2, one line naming the file and where the new plan is; the user's folder
    as they left it; the new plan whole beside it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copytree(real_plan, ws / "out")
    proc, gate = _start_held(ws, ["-m", "planner.cli", *CLI_PLAN])
    (ws / "out" / "notes.txt").write_text("saved during the re-plan\n")
    expected = snapshot(ws / "out")
    gate.touch()
    stdout, stderr = proc.communicate(timeout=600)   # a safety net for a hang, not a speed test
    assert proc.returncode == 2, stderr
    assert stderr.count("\n") == 1 and "'notes.txt'" in stderr and "'out.new'" in stderr, stderr
    assert "Traceback" not in stderr
    assert snapshot(ws / "out") == expected
    files = whole_plan(ws / "out.new")
    assert {"summary.json", "cables.csv", anynet.CONFIG, anynet.LAUNCHER} <= set(files)
    assert no_debris(ws)


def test_kill_9_debris_goes_with_the_next_run_and_a_live_run_is_left_alone(tmp_path):
    """A run held in its exports owns its staging folder: another run's check leaves it. Once
    it is killed with SIGKILL (no clean-up possible), the next run into the same --out removes
    it, and the previous plan is as it was."""
    ws = tmp_path / "ws"
    ws.mkdir()
    before = snapshot(previous_plan(ws / "out"))
    proc, gate = _start_held(ws, ["-c", IN_PLACE_SCRIPT, "out", json.dumps(NEW), ""])
    staging = [p for p in ws.iterdir() if p.name.startswith(".out.tmp-")]
    assert len(staging) == 1 and (staging[0] / "summary.json").is_file()
    output.check_out(ws / "out")                    # what the next run does first
    assert staging[0].is_dir()                      # a live run's folder stays
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=600)
    assert staging[0].is_dir()                      # the debris the issue reports
    output.check_out(ws / "out")
    assert not staging[0].exists()
    assert snapshot(ws / "out") == before
    assert sorted(p.name for p in ws.iterdir()) == ["gate.waiting", "out"]


# ----------------------------------------------------------------------------- mount points

def _mount_namespace() -> list[str]:
    """``unshare`` into private user and mount namespaces (as root inside): mounts made there
    vanish with the process and need no privileges outside."""
    command = ["unshare", "--user", "--map-root-user", "--mount"]
    if shutil.which("unshare") is None or subprocess.run(
            [*command, "true"], capture_output=True).returncode != 0:
        pytest.skip("this system allows no unprivileged mount namespace (unshare -rm), so a "
                    "mount point cannot be made without root")
    return command


def test_planner_plan_into_an_empty_mount_point(tmp_path):
    """An empty tmpfs mounted at --out (a per-job scratch mount): the issue's traceback after
    the whole plan. Now the plan is written into it (re-plans in place: the bind mount test)."""
    ws = tmp_path / "ws"
    (ws / "out").mkdir(parents=True)
    script = 'mount -t tmpfs tmpfs out && "$@" && cp -a out/. ../seen/'
    done = subprocess.run([*_mount_namespace(), "sh", "-c", script, "sh", sys.executable, "-m",
                           "planner.cli", *CLI_PLAN], cwd=ws, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    files = whole_plan(tmp_path / "seen")
    assert {"summary.json", "cables.csv", anynet.CONFIG} <= set(files)
    assert no_debris(tmp_path / "seen") and no_debris(ws)
    assert list((ws / "out").iterdir()) == []        # the mount took it all, and is gone


BIND_SCRIPT = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'


def test_a_bind_mounted_volume_is_written_in_place_and_keeps_a_late_file(tmp_path):
    """A folder bind-mounted at --out from the same file system, as Docker volumes are
    (``os.path.ismount`` misses it: the mount table does not): re-planned in place; a file
    saved there during the exports is kept and the new plan is put in ``out/out.new``."""
    volume = previous_plan(tmp_path / "volume")
    (tmp_path / "out").mkdir()
    for change, expect in (("", {"in_place": True}), ("notes.txt", None)):
        done = subprocess.run(
            [*_mount_namespace(), "sh", "-c", BIND_SCRIPT, "sh", str(volume), str(tmp_path / "out"),
             sys.executable, "-c", IN_PLACE_SCRIPT, str(tmp_path / "out"), json.dumps(NEW),
             change], capture_output=True, text=True, cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        if expect is not None:
            assert result == expect
            assert whole_plan(volume) == sorted(NEW)
        else:
            assert "notes.txt" in result["error"] and "out.new" in result["error"]
            assert (volume / "notes.txt").read_text() == "mine\n"
            assert whole_plan(volume / "out.new") == sorted(NEW)
    assert list((tmp_path / "out").iterdir()) == []
    assert no_debris(volume) and no_debris(tmp_path)


# ---------------------------------------------------------------------------- plans that travel

FAKE_BOOKSIM = """\
import os, re, sys
cfg = open(sys.argv[1]).read()
netlist = re.search(r"(?m)^network_file = (.*);$", cfg)[1]
with open(netlist) as fh:          # BookSim's AnyNet::readFile(): relative to the cwd
    routers = sum(1 for line in fh if line.startswith("router "))
print(os.getcwd(), sys.argv[1], " ".join(sys.argv[2:]), routers, sep="|")
"""
"""What BookSim does with a cfg before simulating: read ``network_file`` from it and open that
path from the folder it runs in."""


def _travelled(real_plan: Path, tmp_path: Path) -> Path:
    """A copy of a plan folder somewhere else (a space in the path), the original gone."""
    copied = tmp_path / "other machine" / "copied plan"
    moved = tmp_path / "moved"
    shutil.copytree(real_plan, moved)
    shutil.copytree(moved, copied)
    shutil.rmtree(moved)
    return copied


def test_a_copied_plan_runs_in_booksim_from_any_folder(tmp_path, real_plan):
    """``sh PLAN/booksim.sh`` from another folder runs $BOOKSIM (a relative path too) in the
    plan folder on its cfg, passes overrides on, and the netlist it opens is the copy's."""
    copied = _travelled(real_plan, tmp_path)
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "booksim"
    fake.write_text(f"#!{sys.executable}\n{FAKE_BOOKSIM}")
    fake.chmod(0o755)
    routers = len((copied / anynet.NETLIST).read_text().splitlines())
    for args, cfg in (([], anynet.CONFIG), ([anynet.CONFIG, "injection_rate=0.1"], anynet.CONFIG)):
        done = subprocess.run(["sh", str(copied / anynet.LAUNCHER), *args], cwd=tmp_path,
                              capture_output=True, text=True,
                              env=dict(os.environ, BOOKSIM="bin/booksim"))
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"{copied}|{cfg}|{' '.join(args[1:])}|{routers}\n"
    assert os.access(copied / anynet.LAUNCHER, os.X_OK)


def test_a_copied_plan_runs_in_the_real_booksim(tmp_path, real_plan):
    """The same with BookSim2 itself, when it is installed ($BOOKSIM or ``booksim`` on the
    PATH); BookSim exits 255 after a completed run (``main.cpp`` returns -1 on success)."""
    booksim = shutil.which(os.environ.get("BOOKSIM", "booksim"))
    if booksim is None:
        pytest.skip("BookSim2 is not installed (set BOOKSIM to its program to run this)")
    copied = _travelled(real_plan, tmp_path)
    done = subprocess.run(["sh", str(copied / anynet.LAUNCHER), anynet.CONFIG,
                           "sample_period=1000", "injection_rate=0.01"], cwd=tmp_path,
                          capture_output=True, text=True, env=dict(os.environ, BOOKSIM=booksim))
    assert "can't open network file" not in done.stdout
    assert done.returncode in (0, 255) and "Hops average" in done.stdout, done.stdout[-2000:]
