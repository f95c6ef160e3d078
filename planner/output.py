"""The ``planner plan`` output folder, written atomically (DESIGN.md "Contracts").

Every writer writes into a fresh temporary folder beside ``--out`` (large plans: several writers
at once, each in a forked process); only when all of them succeeded is it swapped into place
(rename the old folder aside, rename the new one in, delete the old one; Ctrl-C is ignored
during the swap). On any error (or Ctrl-C) the temporary folder is removed and the previous
contents of ``--out`` stay exactly as they were. The folder lists its files in ``MANIFEST``.

``--out`` may be a new path, an empty folder or the folder of a previous plan (it holds a
``summary.json`` with a ``topology`` block, and nothing the manifest does not list). Refused with
a one-line InputError before anything is planned: an existing file, a symbolic link, any other
non-empty folder, the current folder or one of its parents, and a folder holding an input file
(replacing the folder would delete it).
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path

from planner.errors import InputError
from planner.interrupts import ctrl_c_deferred

SUMMARY = "summary.json"
MANIFEST = ".planner-manifest"
"""Sorted relative paths of the files a plan wrote, one per line (this file not included)."""


def progress_bar(total: int, desc: str):
    """A tqdm bar over ``total`` stages on stderr, as wide as the terminal (80 if unknown)."""
    from tqdm import tqdm
    width = min(shutil.get_terminal_size((80, 24)).columns or 80, 120)
    return tqdm(total=total, desc=desc, file=sys.stderr, ncols=width, nrows=24, leave=True,
                bar_format="{desc:<22} {bar} {n_fmt}/{total_fmt} [{elapsed}]")


def _is_previous_plan(folder: Path) -> bool:
    summary = folder / SUMMARY
    if not summary.is_file():
        return False
    try:
        data = json.loads(summary.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("topology"), dict)


def _foreign(folder: Path) -> str | None:
    """The first entry of a previous plan folder that its manifest does not list (a file the
    user added there), or None. Folders written before manifests existed are taken whole."""
    try:
        listed = set((folder / MANIFEST).read_text(encoding="utf-8").splitlines())
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return MANIFEST
    parents = {str(p) for name in listed for p in Path(name).parents}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if rel == MANIFEST:
            continue
        if path.is_symlink() or (path.is_file() and rel not in listed) or (
                path.is_dir() and rel not in parents) or not (path.is_file() or path.is_dir()):
            return rel
    return None


def _within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it (both absolute and resolved)."""
    return path == folder or folder in path.parents


def check_out(out: Path | str, inputs: Iterable[Path | str] = ()) -> Path:
    """The absolute output folder, or InputError when ``out`` must not be replaced (see the
    module docstring); ``inputs`` are the input files of the run."""
    out = Path(out).expanduser()
    if out.is_symlink():
        raise InputError(f"--out '{out}' is a symbolic link (to '{os.readlink(out)}'); give the "
                         "real folder path, or a new folder")
    if out.exists():
        if not out.is_dir():
            raise InputError(f"--out '{out}' is an existing file; give a folder path (new, "
                             "empty, or a previous plan's output folder)")
        if any(out.iterdir()):
            if not _is_previous_plan(out):
                raise InputError(f"--out '{out}' is a non-empty folder that does not hold a "
                                 f"previous plan (no {SUMMARY}); give a new or empty folder so "
                                 "nothing is overwritten")
            extra = _foreign(out)
            if extra is not None:
                raise InputError(f"--out '{out}' holds a previous plan and also '{extra}', which "
                                 "a plan did not write and replacing the folder would delete; "
                                 "move it away or give another folder")
    real = out.absolute().resolve()
    try:
        cwd = Path.cwd().resolve()
    except OSError:  # the working folder was deleted
        cwd = None
    if cwd is not None and _within(cwd, real):
        raise InputError(f"--out '{out}' is the current folder or one of its parents, which "
                         "would be replaced; give a subfolder such as 'plan'")
    for item in inputs:
        path = Path(item).expanduser().absolute().resolve()
        if _within(path, real):
            raise InputError(f"--out '{out}' holds the input file '{item}', which replacing "
                             "the folder would delete; give another output folder")
    parent = out.absolute().parent
    for ancestor in (parent, *parent.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                raise InputError(f"--out '{out}': '{ancestor}' is a file, not a folder")
            if not os.access(ancestor, os.W_OK | os.X_OK):
                raise InputError(f"--out '{out}': folder '{ancestor}' is not writable")
            break
    return out.absolute()


def _make_parents(folder: Path) -> list[Path]:
    """Create missing ancestors of ``folder``; return the ones created (deepest first)."""
    created = []
    for ancestor in (folder, *folder.parents):
        if ancestor.exists():
            break
        created.append(ancestor)
    for path in reversed(created):
        path.mkdir()
    return created


def write_folder(out: Path | str,
                 writers: Iterable[tuple[str, Callable[[Path], None]]],
                 progress: bool = False, jobs: int = 1) -> list[str]:
    """Run ``writers`` (name, fn(tmp_dir)) into a temp folder, then swap it in as ``out``.

    ``jobs`` > 1 runs up to that many writers at once, each in a forked process (``fork``
    platforms only; the writers must write only inside the folder). Returns the names of the
    files written (sorted, relative to ``out``; the manifest not included)."""
    out = check_out(out)
    writers = list(writers)
    restore_ctrl_c()
    created: list[Path] = []
    tmp = None
    try:
        created = _make_parents(out.parent)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        bar = progress_bar(len(writers), "exports") if progress else None
        try:
            with _gc_paused():
                if jobs > 1 and len(writers) > 1 and can_fork():
                    _run_forked(writers, tmp, jobs, bar)
                else:
                    _run_serial(writers, tmp, bar)
        finally:
            if bar is not None:
                bar.set_description_str("exports: done")
                bar.close()
        files = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file())
        (tmp / MANIFEST).write_text("".join(f"{name}\n" for name in files), encoding="utf-8")
        with _sigint_held():
            _swap(tmp, out)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        for path in created:
            try:
                path.rmdir()
            except OSError:
                break
        raise
    return files


def restore_ctrl_c() -> None:
    """Re-install Python's Ctrl-C handler (KeyboardInterrupt) at the OS level. OR-Tools' CP-SAT
    (``catch_sigint_signal``, on by default) leaves SIGINT at the OS default after a solve while
    Python still reports its own handler, so a later Ctrl-C would kill the process with no
    clean-up (a temporary folder left beside ``--out``). Main thread only; a handler someone
    else installed is left alone."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        signal.signal(signal.SIGINT, signal.default_int_handler)


@contextmanager
def _sigint_held():
    """Ctrl-C (SIGINT) is ignored during the block: the swap of the output folder (two renames,
    milliseconds) is never cut in half, and once it ran the new plan is complete. Only the main
    thread can change signal handlers; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _gc_paused():
    """No cyclic garbage collection while the writers run: they build lists of 10^5-10^6
    strings, which the collector would traverse again and again (about 10 % of their time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _run_serial(writers, folder: Path, bar) -> None:
    for name, fn in writers:
        if bar is not None:
            bar.set_description_str(f"exports: {name}")
        fn(folder)
        if bar is not None:
            bar.update(1)


def can_fork() -> bool:
    """Whether writers can run in forked processes (Linux: fork is safe and cheap there)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _child(fn: Callable[[Path], None], folder: Path, conn) -> None:
    """Run one writer in a forked process; send back ``None`` or the exception. Ctrl-C is the
    parent's to handle (it stops every writer): here SIGINT is ignored, so a writer that is
    already finishing never prints a KeyboardInterrupt traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        fn(folder)
        conn.send(None)
    except BaseException as err:                      # noqa: BLE001 - reported to the parent
        if not isinstance(err, (InputError, KeyboardInterrupt)):
            err.add_note("in an export writer process:\n" + traceback.format_exc())
        try:
            conn.send(err)
        except Exception:                              # noqa: BLE001 - unpicklable exception
            conn.send(RuntimeError(f"{type(err).__name__}: {err}\n{traceback.format_exc()}"))
    finally:
        conn.close()


def _start(process) -> None:
    """``process.start()`` with Ctrl-C deferred past the fork (``planner.interrupts``)."""
    with ctrl_c_deferred():
        process.start()


def _run_forked(writers, folder: Path, jobs: int, bar) -> None:
    """Writers in forked processes, at most ``jobs`` at a time, in the given order; the first
    failure is raised here after the other running writers were stopped."""
    ctx = multiprocessing.get_context("fork")
    pending = list(writers)
    running: dict = {}
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        while pending or running:
            while pending and len(running) < jobs:
                name, fn = pending.pop(0)
                receive, send = ctx.Pipe(duplex=False)
                process = ctx.Process(target=_child, args=(fn, folder, send), daemon=True)
                _start(process)
                send.close()
                running[receive] = (name, process)
                if bar is not None:
                    bar.set_description_str(f"exports: {name}")
            for conn in multiprocessing.connection.wait(list(running)):
                name, process = running.pop(conn)
                try:
                    error = conn.recv()
                except EOFError:
                    error = RuntimeError(f"export writer '{name}' died")
                conn.close()
                process.join()
                if error is not None:
                    raise error
                if bar is not None:
                    bar.update(1)
    finally:
        for conn, (_, process) in running.items():
            process.terminate()
            process.join()
            conn.close()


def _swap(new: Path, out: Path) -> None:
    """Replace ``out`` by ``new``; if the second rename fails the old folder is put back."""
    if not out.exists():
        os.rename(new, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    old.rmdir()
    os.rename(out, old)
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


PARALLEL_MIN_CABLES = 5_000
"""Plans with at least this many cables run their writers in parallel processes."""


def export_jobs(plan) -> int:
    """Writer processes for ``plan``: up to 4 of the CPUs this process may use; 1 for small
    plans (forking costs more than it saves there) and inside worker processes (``planner
    compare`` already runs one plan per CPU)."""
    if len(plan.cables) < PARALLEL_MIN_CABLES or multiprocessing.parent_process() is not None:
        return 1
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


def write_plan(plan, out: Path | str, progress: bool = False,
               jobs: int | None = None) -> list[str]:
    """Every export writer of ``planner.exports`` into ``out``, atomically; ``jobs`` writer
    processes (default ``export_jobs``), the slowest writers first when there are several."""
    from planner.exports import writers
    jobs = export_jobs(plan) if jobs is None else jobs
    return write_folder(out, [(name, lambda d, fn=fn: fn(plan, d))
                              for name, fn in writers(by_cost=jobs > 1)],
                        progress=progress, jobs=jobs)
