"""The ``planner plan`` output folder, written atomically (docs/robustness.md "The output folder").

Every writer writes into a fresh temporary folder beside ``--out`` (large plans: several writers
at once, each in a forked process); only when all of them succeeded is it swapped into place
(rename the old folder aside, rename the new one in, delete the old one; Ctrl-C is ignored
during the swap). On any error (or Ctrl-C) the temporary folder is removed and the previous
contents of ``--out`` stay exactly as they were. The folder lists its files in ``MANIFEST``.

``--out`` may be a new path, an empty folder or the folder of a previous plan (it holds the
``MANIFEST`` a plan writes, and nothing the manifest does not list). Refused with a one-line
InputError before anything is planned: an existing file, a symbolic link, any other non-empty
folder (whatever it holds: without a manifest the planner did not make it), the current folder
or one of its parents, a folder holding an input file (replacing the folder would delete it), a
path below a file or a dangling symbolic link, a folder that is not writable, and names longer
than the file system allows (the temporary folder's name is ``TEMP_NAME_EXTRA`` bytes longer).

A write that fails for a reason the user can fix (disk full, quota, name too long, permission,
read-only file system) is an InputError naming ``--out``, the file and the fix; the temporary
folder is removed first, so nothing is half-written.
"""

from __future__ import annotations

import datetime
import errno
import gc
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path

from planner.run import interrupts
from planner.run.errors import InputError

SOURCE_DATE_EPOCH_MAX = 253402300799  # 9999-12-31T23:59:59Z, the last time a workbook can hold


def created_time() -> datetime.datetime:
    """Creation time stamped into files that carry one (``bom.xlsx``): the environment
    variable ``SOURCE_DATE_EPOCH`` when set (the reproducible-builds convention: the same plan
    then gives the same bytes), else now (UTC). A value that is not whole seconds since
    1970-01-01 is an InputError (NumPy's f2py, imported by SciPy, would crash on it)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)
    if not (epoch.isascii() and epoch.isdigit()) or int(epoch) > SOURCE_DATE_EPOCH_MAX:
        raise InputError(f"environment variable SOURCE_DATE_EPOCH must be whole seconds since "
                         f"1970-01-01 (0 to {SOURCE_DATE_EPOCH_MAX}), got {epoch!r}; "
                         "fix it or unset it")
    return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).replace(tzinfo=None)

MANIFEST = ".planner-manifest"
"""Sorted relative paths of the files a plan wrote, one per line (this file not included)."""


def _foreign(folder: Path) -> str | None:
    """The first entry of a previous plan folder that its manifest does not list (a file the
    user added there), or None."""
    try:
        listed = set((folder / MANIFEST).read_text(encoding="utf-8").splitlines())
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


TEMP_NAME_EXTRA = len(".") + len(".tmp-") + 8
"""Bytes the temporary folder's name (``.NAME.tmp-XXXXXXXX``) adds to the name of ``--out``."""


def _limit(folder: Path, name: str, default: int) -> int:
    """``os.pathconf`` of the file system holding ``folder`` (NAME_MAX, PATH_MAX)."""
    try:
        return int(os.pathconf(folder, name))
    except (OSError, ValueError, AttributeError):
        return default


def _existing_ancestor(out: Path, absolute: Path) -> Path:
    """The nearest existing folder above ``absolute``; InputError for a file or a dangling
    symbolic link on the way."""
    for ancestor in absolute.parents:
        if ancestor.is_symlink() and not ancestor.exists():
            raise InputError(f"--out '{out}': '{ancestor}' is a symbolic link to "
                             f"'{os.readlink(ancestor)}', which does not exist; create its "
                             "target or give another folder")
        if ancestor.exists():
            if not ancestor.is_dir():
                raise InputError(f"--out '{out}': '{ancestor}' is a file, not a folder")
            return ancestor
    return Path(absolute.anchor)


def _check_names(out: Path, absolute: Path, existing: Path) -> None:
    """Every name still to be created, and the temporary folder's, within the file system's
    NAME_MAX; the whole path within PATH_MAX."""
    name_max = _limit(existing, "PC_NAME_MAX", 255)
    for part in absolute.relative_to(existing).parts[:-1]:
        if len(os.fsencode(part)) > name_max:
            raise InputError(f"--out '{out}': the folder name '{part[:40]}...' is "
                             f"{len(os.fsencode(part))} bytes; the file system allows "
                             f"{name_max}; give a shorter path")
    size = len(os.fsencode(absolute.name))
    if size + TEMP_NAME_EXTRA > name_max:
        raise InputError(f"--out '{str(out)[:40]}...': the folder name is {size} bytes; the file "
                         f"system allows {name_max} and the planner's temporary folder beside it "
                         f"adds {TEMP_NAME_EXTRA}, so give a name of at most "
                         f"{name_max - TEMP_NAME_EXTRA} bytes")
    path_max = _limit(existing, "PC_PATH_MAX", 4096)
    if len(os.fsencode(str(absolute))) + TEMP_NAME_EXTRA + 100 > path_max:
        size = len(os.fsencode(str(absolute)))
        raise InputError(f"--out '{str(out)[:40]}...': the path is {size} bytes; the file system "
                         f"allows {path_max} for the files inside it, so give a shorter path")


def check_out(out: Path | str, inputs: Iterable[Path | str] = ()) -> Path:
    """The absolute output folder, or InputError when ``out`` must not be replaced or cannot be
    written (see the module docstring); ``inputs`` are the input files of the run."""
    try:
        return _check_out(Path(out).expanduser(), inputs)
    except OSError as err:  # looking at the path itself failed (name too long, permission)
        shown = str(out) if len(str(out)) <= 60 else str(out)[:40] + "..."
        fix = ("a name in it is longer than the file system allows; give a shorter path"
               if err.errno == errno.ENAMETOOLONG else WRITE_ERRORS.get(err.errno,
                                                                         "give another folder"))
        raise InputError(f"--out '{shown}': {err.strerror or err}; {fix}") from None


def _check_out(out: Path, inputs: Iterable[Path | str]) -> Path:
    if out.is_symlink():
        raise InputError(f"--out '{out}' is a symbolic link (to '{os.readlink(out)}'); give the "
                         "real folder path, or a new folder")
    absolute = Path(os.path.abspath(out))
    existing = _existing_ancestor(out, absolute)
    _check_names(out, absolute, existing)
    if out.exists():
        if not out.is_dir():
            raise InputError(f"--out '{out}' is an existing file; give a folder path (new, "
                             "empty, or a previous plan's output folder)")
        try:
            empty = not any(out.iterdir())
        except OSError as err:
            raise InputError(f"--out '{out}': cannot list the folder ({err.strerror}); give a "
                             "folder you can read and write") from None
        if not empty:
            if not (out / MANIFEST).is_file():
                raise InputError(f"--out '{out}' is a non-empty folder that does not hold a "
                                 f"previous plan (no {MANIFEST}: a plan did not write it); give "
                                 "a new or empty folder so nothing of yours is overwritten")
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
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"--out '{out}': folder '{existing}' is not writable; give a folder "
                         "you can write to")
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


WRITE_ERRORS = {
    errno.ENOSPC: "the disk is full; free some space or give an --out folder on another disk",
    errno.EDQUOT: "the disk quota is used up; free some space or give an --out folder on "
                  "another disk",
    errno.ENAMETOOLONG: "a name is longer than the file system allows; give a shorter --out "
                        "path (or shorter names in the catalog)",
    errno.EACCES: "permission denied; give an --out folder you can write to",
    errno.EPERM: "permission denied; give an --out folder you can write to",
    errno.EROFS: "the file system is read-only; give an --out folder on a writable disk",
}
"""Errors of a write the user can fix, and the fix."""


def write_error(err: OSError, out: Path | str, tmp: Path | None) -> InputError | None:
    """The one-line InputError for a failed write the user can fix, else None."""
    fix = WRITE_ERRORS.get(err.errno)
    if fix is None:
        return None
    where = f" the {err.writer} files" if getattr(err, "writer", None) else ""
    if err.filename:
        name = Path(os.fsdecode(err.filename))
        if tmp is not None and _within(name.absolute(), tmp.absolute()):
            name = name.absolute().relative_to(tmp.absolute())
        where = f" '{name}'"
    reason = err.strerror or os.strerror(err.errno)
    return InputError(f"--out '{out}': cannot write{where} ({reason}); {fix}; nothing was written")


def write_folder(out: Path | str,
                 writers: Iterable[tuple[str, Callable[[Path], None]]],
                 progress: bool = False, jobs: int = 1) -> list[str]:
    """Run ``writers`` (name, fn(tmp_dir)) into a temp folder, then swap it in as ``out``.

    ``jobs`` > 1 runs up to that many writers at once, each in a forked process (``fork``
    platforms only; the writers must write only inside the folder). ``progress``: a
    ``planner.run.progress`` mode (``"bar"``, ``"lines"``) or False. Returns the names of the files
    written (sorted, relative to ``out``; the manifest not included)."""
    from planner.run.progress import Stages

    given, out = out, check_out(out)
    writers = list(writers)
    restore_ctrl_c()
    created: list[Path] = []
    tmp = None
    try:
        created = _make_parents(out.parent)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        with Stages("exports", [name for name, _ in writers], progress) as stages, _gc_paused():
            if jobs > 1 and len(writers) > 1 and can_fork():
                _run_forked(writers, tmp, jobs, stages)
            else:
                for name, fn in writers:
                    with stages.run(name), _named_errors(name):
                        fn(tmp)
        files = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file())
        (tmp / MANIFEST).write_text("".join(f"{name}\n" for name in files), encoding="utf-8")
        with interrupts.stop_signals_ignored():
            _swap(tmp, out)
    except BaseException as err:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        for path in created:
            try:
                path.rmdir()
            except OSError:
                break
        if isinstance(err, OSError):
            plain = write_error(err, given, tmp)
            if plain is not None:
                raise plain from None
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
def _named_errors(writer: str):
    """An OSError leaving the block remembers the writer it came from (for ``write_error``)."""
    try:
        yield
    except OSError as err:
        err.writer = writer
        raise


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


def can_fork() -> bool:
    """Whether writers can run in forked processes (Linux: fork is safe and cheap there)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _child(fn: Callable[[Path], None], folder: Path, conn) -> None:
    """Run one writer in a forked process; send back ``None`` or the exception. Stop signals
    are the parent's to handle (``interrupts.in_forked_writer``), so a writer that is already
    finishing never prints a KeyboardInterrupt traceback."""
    interrupts.in_forked_writer()
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
    """``process.start()`` with stop signals deferred past the fork (``planner.run.interrupts``)."""
    with interrupts.ctrl_c_deferred():
        process.start()


def _died(name: str, process) -> BaseException:
    """What a writer that sent nothing back stands for: a stop signal that reached it (the
    whole process group was stopped) is the run's interruption; anything else is a crash."""
    if process.exitcode is not None and process.exitcode < 0:
        signum = -process.exitcode
        if signum in (*interrupts.STOP_SIGNALS, signal.SIGKILL):
            return interrupts.Interrupted(signum)
    return RuntimeError(f"export writer '{name}' died (exit code {process.exitcode})")


def _run_forked(writers, folder: Path, jobs: int, stages) -> None:
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
                # known before it starts: a stop signal delivered as the fork returns must
                # still find this writer to stop before its folder is removed
                running[receive] = (name, process, time.perf_counter())
                _start(process)
                send.close()
            for conn in multiprocessing.connection.wait(list(running)):
                name, process, started = running.pop(conn)
                try:
                    error = conn.recv()
                except EOFError:
                    error = None
                conn.close()
                process.join()
                if error is None and process.exitcode != 0:
                    error = _died(name, process)
                if error is not None:
                    with _named_errors(name):
                        raise error
                stages.done(name, time.perf_counter() - started)
    finally:
        started = [(conn, process) for conn, (_, process, _) in running.items()
                   if process.pid is not None]
        for conn, process in started:
            process.terminate()
        for conn, process in started:
            process.join()
        for conn in running:
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
