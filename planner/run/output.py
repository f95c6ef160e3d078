"""The ``planner plan`` output folder, written atomically (docs/robustness.md "The output folder").

Every writer writes into a fresh staging folder (large plans: several writers at once, each in
a forked process); only when all of them succeeded is the plan moved into ``--out``, with the
stop signals ignored and checked at that moment, so that no file of the user's is ever deleted:

- **Swap** (the usual case): the staging folder is ``.NAME.tmp-XXXXXXXX`` beside ``--out``.
  It takes the mode and group of the folder it replaces (or the umask's mode of a new folder).
  ``--out`` is renamed aside; only when everything in it is listed in its ``MANIFEST`` is the
  new folder renamed in and the listed files of the old one deleted (file by file, never a
  whole tree). Anything unlisted (a file saved into the previous plan during the run, a folder
  created at ``--out`` meanwhile) puts the old folder back and leaves the new plan beside it
  as ``NAME.new``: an InputError names both.
- **In place**: an existing ``--out`` that cannot be renamed (a mount point such as a container
  volume or a per-job scratch mount, a folder whose parent this user cannot write, a folder in
  a sticky folder owned by someone else) is written into. The staging folder is
  ``--out/.planner-tmp-XXXXXXXX``; the manifest first lists the old and the new files, each
  new file is renamed over its name (atomic per file), old files the new plan does not have
  are deleted, and the new manifest is written last.

Each staging folder is locked (``flock``) while its run lives, so the next run into the same
``--out`` removes the staging folders of killed runs (``kill -9``) and leaves those of live
ones alone (``clear_debris``).

``--out`` may be a new path, an empty folder or the folder of a previous plan (it holds the
``MANIFEST`` a plan writes, and nothing the manifest does not list). Refused with a one-line
InputError before anything is planned: an existing file, a symbolic link, any other non-empty
folder (whatever it holds: without a manifest the planner did not make it), the current folder
or one of its parents, a folder holding an input file (replacing the folder would delete it), a
path below a file or a dangling symbolic link, a folder that is not writable (``--out`` itself
when it is written in place), and names longer than the file system allows (the temporary
folder's name is ``TEMP_NAME_EXTRA`` bytes longer).

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
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no locks, so killed runs' folders are not removed
    fcntl = None

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


def _listed(folder: Path) -> set[str]:
    """The files the manifest of ``folder`` lists (none when it has no readable manifest)."""
    try:
        return set((folder / MANIFEST).read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return set()


def _unlisted(folder: Path, skip: Iterable[str] = ()) -> str | None:
    """The first entry of ``folder`` (sorted, relative) that its manifest does not list: a file
    or folder the user put there, a symbolic link, a special file, a folder that cannot be
    listed; or None. Top-level names in ``skip`` (a staging folder) are passed over. Symbolic
    links are never followed."""
    listed = _listed(folder)
    parents = {str(p) for name in listed for p in Path(name).parents} - {"."}
    skip = {MANIFEST, *skip}
    found = []

    def unreadable(err: OSError) -> None:
        found.append(os.path.relpath(err.filename, folder))

    for root, dirs, files in os.walk(folder, onerror=unreadable):
        here = os.path.relpath(root, folder)
        keep = []
        for name in sorted(dirs + files):
            rel = name if here == "." else os.path.join(here, name)
            if here == "." and name in skip:
                continue
            try:
                mode = os.lstat(os.path.join(root, name)).st_mode
            except FileNotFoundError:   # gone since the folder was listed
                continue
            if stat.S_ISDIR(mode) and rel in parents:
                keep.append(name)
            elif not (stat.S_ISREG(mode) and rel in listed):
                found.append(rel)
        dirs[:] = [name for name in dirs if name in keep]
    return min(found) if found else None


def _discard(folder: Path) -> bool:
    """Delete the files of a previous plan's folder that its manifest lists (and the manifest),
    then every folder left empty, never following a symbolic link; True when ``folder`` is
    gone, False when something unlisted kept it."""
    listed = _listed(folder) | {MANIFEST}
    for root, dirs, files in os.walk(folder, topdown=False):   # links to folders: not entered
        here = os.path.relpath(root, folder)
        for name in files:
            rel = name if here == "." else os.path.join(here, name)
            path = os.path.join(root, name)
            if rel in listed and stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
        for name in dirs:
            try:
                os.rmdir(os.path.join(root, name))
            except OSError:         # not empty (something unlisted is in it), or a link
                pass
    try:
        folder.rmdir()
    except OSError:
        return False
    return True


def replace_folder(new: Path, target: Path, aside: Path) -> Path | None:
    """Rename the finished folder ``new`` over ``target`` (a previous plan's folder, or
    nothing). The previous folder is first renamed to ``aside`` and only the files its
    manifest lists are deleted; if anything else is in it (a file the user saved there), what
    is left is kept beside ``target`` as ``NAME.previous`` and that path is returned."""
    kept = None
    if target.is_dir() and not target.is_symlink():
        target.rename(aside)
        if not _discard(aside):
            kept = _visible(aside, target.parent, target.name, "previous")
    new.replace(target)
    return kept


STAGING = ".planner-tmp-"
"""Prefix of the staging folder inside an ``--out`` that is written in place."""
SUFFIX_CHARS = 8
"""Characters ``tempfile.mkdtemp`` adds after a prefix."""


def _beside(out: Path, kind: str) -> str:
    """Prefix of the folders a run makes beside ``out``: ``.NAME.tmp-`` (staging), ``.NAME.old-``
    (the previous plan during the swap)."""
    return f".{out.name}.{kind}-"


def _try_lock(folder: Path) -> int | None:
    """An open descriptor of ``folder`` holding an exclusive ``flock``, or None when another
    process holds one (a live run) or the folder cannot be opened. The kernel drops the lock
    when every process holding the descriptor ends, ``kill -9`` included."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _lock(folder: Path) -> int | None:
    """``_try_lock``, waiting (at most ``LOCK_WAIT_S``) while another run swaps the same folder."""
    if fcntl is None:
        return None
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        fd = _try_lock(folder)
        if fd is not None or time.monotonic() > deadline or not folder.is_dir():
            return fd
        time.sleep(0.01)


LOCK_WAIT_S = 30.0
"""Longest wait for another run's swap of the same ``--out`` (it takes milliseconds)."""


def _release(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def _debris(folder: Path, prefix: str) -> list[Path]:
    """Real folders (not links) in ``folder`` named ``prefix`` + ``SUFFIX_CHARS`` characters."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(Path(e.path) for e in entries
                  if e.name.startswith(prefix) and len(e.name) == len(prefix) + SUFFIX_CHARS
                  and e.is_dir(follow_symlinks=False))


def clear_debris(out: Path) -> None:
    """Remove what killed runs into ``out`` left: their staging folders beside it (and inside
    it, when written in place); the previous plan a run killed between the two renames of the
    swap left aside is put back as ``out`` (or, when ``out`` holds a plan again, its listed
    files are deleted and anything else is left). Folders a live run holds are left alone;
    nothing happens where ``flock`` is missing (no way to tell a live run from a dead one)."""
    if fcntl is None:
        return
    for path in _debris(out.parent, _beside(out, "tmp")) + (
            _debris(out, STAGING) if out.is_dir() and not out.is_symlink() else []):
        fd = _try_lock(path)
        if fd is not None:
            try:
                shutil.rmtree(path, ignore_errors=True)
            finally:
                _release(fd)
    for path in _debris(out.parent, _beside(out, "old")):
        fd = _try_lock(path)
        if fd is not None:
            try:
                if not (out.exists() or out.is_symlink()):
                    os.rename(path, out)
                else:
                    _discard(path)
            except OSError:
                pass
            finally:
                _release(fd)


def _mount_points() -> set[str]:
    """Mount points of this process (``/proc/self/mountinfo``, field 5, octal escapes undone);
    bind mounts of a folder of the same file system (Docker volumes) included, which
    ``os.path.ismount`` misses."""
    try:
        with open("/proc/self/mountinfo", "rb") as info:
            lines = info.read().splitlines()
    except OSError:
        return set()
    points = set()
    for line in lines:
        fields = line.split(b" ")
        if len(fields) > 4:
            raw = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m[1], 8)]), fields[4])
            points.add(os.fsdecode(raw))
    return points


def can_rename(folder: Path) -> bool:
    """Whether an existing ``folder`` can be renamed aside: not a mount point (renaming one
    fails with EBUSY), its parent writable by this user, and not in a sticky folder (``/tmp``)
    unless this user owns the folder or the parent (or is root)."""
    real = Path(os.path.realpath(folder))
    if os.path.ismount(real) or str(real) in _mount_points():
        return False
    if not os.access(real.parent, os.W_OK | os.X_OK):
        return False
    parent, own = os.stat(real.parent), os.stat(real)
    return not (parent.st_mode & stat.S_ISVTX
                and os.geteuid() not in (0, own.st_uid, parent.st_uid))


def in_place(out: Path) -> bool:
    """Whether ``out`` is written in place (an existing folder that cannot be renamed)."""
    return out.is_dir() and not out.is_symlink() and not can_rename(out)


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
    clear_debris(absolute)
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
            extra = _unlisted(out)
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
    if in_place(out):
        if not os.access(out, os.W_OK | os.X_OK):
            raise InputError(f"--out '{out}' cannot be renamed (a mount point, or its folder is "
                             "not writable), so the plan is written into it, but it is not "
                             "writable either; give a folder you can write to")
    elif not os.access(existing, os.W_OK | os.X_OK):
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


@dataclass(frozen=True)
class Task:
    """One piece of the export work: a whole writer, or one part of a writer split in parts
    (one file per hall of a large plan, ``part`` its name). ``writer`` names it in progress
    lines and errors (a split writer is reported done when its last part is); ``write(folder)``
    writes it; ``prepare()``, when given, computes what the writer's parts share (memoised by
    the writer): run in this process just before the part, so a forked part inherits it and
    the parts do not each compute it again."""

    writer: str
    write: Callable[[Path], None]
    part: str = ""
    prepare: Callable[[], object] | None = None
    seconds: float = 0.0
    """Estimated run time: forked tasks start longest first (``start_order``)."""
    memory: int = 0
    """Estimated private bytes of its forked process at its peak (what it allocates and the
    pages of this process it copies): the forked tasks running at once stay within
    ``FORKED_MEMORY_SHARE`` of the largest (``next_task``)."""


def as_tasks(writers: Iterable) -> list[Task]:
    """``writers`` as ``Task``s: each a ``Task`` already or a (name, fn(folder)) pair."""
    return [w if isinstance(w, Task) else Task(w[0], w[1]) for w in writers]


def write_folder(out: Path | str, writers: Iterable,
                 progress: bool = False, jobs: int = 1) -> list[str]:
    """Run ``writers`` (``Task``s, or (name, fn(staging_dir)) pairs) into a staging folder,
    then move the plan into ``out`` (swapped in, or written in place: the module docstring).

    ``jobs`` > 1 runs up to that many tasks at once, each in a forked process, the longest
    first (``start_order``; ``fork`` platforms only; the writers must write only inside the
    folder); else one after the other in this process, in the given order, a writer's parts
    together. ``progress``: a
    ``planner.run.progress`` mode (``"bar"``, ``"lines"``) or False. Returns the names of the files
    written (sorted, relative to ``out``; the manifest not included)."""
    from planner.run.progress import Stages

    given, out = out, check_out(out)
    tasks = as_tasks(writers)
    names = list(dict.fromkeys(task.writer for task in tasks))
    restore_ctrl_c()
    into = in_place(out)
    created: list[Path] = []
    tmp = held = None
    try:
        if into:
            tmp = Path(tempfile.mkdtemp(prefix=STAGING, dir=out))
        else:
            created = _make_parents(out.parent)
            tmp = Path(tempfile.mkdtemp(prefix=_beside(out, "tmp"), dir=out.parent))
        held = _try_lock(tmp) if fcntl is not None else None
        with Stages("exports", names, progress) as stages, _gc_paused():
            if jobs > 1 and len(tasks) > 1 and can_fork():
                _run_forked(tasks, tmp, jobs, stages)
            else:
                for name in names:
                    with stages.run(name), _named_errors(name):
                        for task in tasks:
                            if task.writer == name:
                                _run_here(task, tmp)
        _wait_at_gate()
        files = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file())
        with interrupts.stop_signals_ignored():
            interrupts.stop_if_received()   # a Ctrl-C a library swallowed: nothing goes in
            if into:
                _write_in_place(tmp, out, given, files)
            else:
                _write_manifest(tmp, files)
                _swap(tmp, out, given)
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
    finally:
        _release(held)
    return files


EXPORT_GATE = "PLANNER_TEST_EXPORT_GATE"
"""Test hook (``tests/test_output_safety.py``): when this environment variable names a file,
the export stage, its writers done, creates ``<file>.waiting`` and waits until ``<file>``
exists before it moves the plan into ``--out``: a slow writer, without timing, so a test can
change ``--out`` during the exports. Read only by ``write_folder``."""


def _wait_at_gate() -> None:
    gate = os.environ.get(EXPORT_GATE)
    if not gate:
        return
    Path(gate + ".waiting").touch()
    while not os.path.exists(gate):
        time.sleep(0.01)


def _write_manifest(folder: Path, files: Iterable[str], staging: Path | None = None) -> None:
    """``MANIFEST`` of ``folder`` listing ``files``; written beside in ``staging`` and renamed
    over the old one (atomic) when given."""
    text = "".join(f"{name}\n" for name in sorted(files))
    if staging is None:
        (folder / MANIFEST).write_text(text, encoding="utf-8")
        return
    part = staging / MANIFEST
    part.write_text(text, encoding="utf-8")
    os.replace(part, folder / MANIFEST)


def _umask() -> int:
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _take_mode(new: Path, out: Path) -> None:
    """Give ``new`` the group and mode of the folder ``out`` it replaces, so a group-shared
    plan stays shared (``mkdtemp`` makes 0700); for a new ``out``, the mode ``mkdir`` gives
    under the umask (the set-group-ID bit inherited from the parent kept). A group this user
    may not give is left as the parent's rule made it."""
    try:
        old = os.stat(out, follow_symlinks=False)
    except OSError:
        old = None
    if old is None or not stat.S_ISDIR(old.st_mode):
        os.chmod(new, (os.stat(new).st_mode & stat.S_ISGID) | (0o777 & ~_umask()))
        return
    if os.stat(new).st_gid != old.st_gid:
        try:
            os.chown(new, -1, old.st_gid)
        except OSError:
            pass
    os.chmod(new, stat.S_IMODE(old.st_mode))


def _visible(path: Path, folder: Path, name: str, suffix: str) -> Path:
    """Rename ``path`` to the first free ``NAME.SUFFIX``, ``NAME.SUFFIX-2``, ... in ``folder``
    (a name the user sees and no run removes); the new path."""
    for n in range(1, 1000):
        target = folder / (f"{name}.{suffix}" if n == 1 else f"{name}.{suffix}-{n}")
        if target.exists() or target.is_symlink():
            continue
        try:
            os.rename(path, target)
        except OSError as err:
            if err.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
                continue
            raise
        return target
    raise FileExistsError(errno.EEXIST, f"no free name {name}.{suffix}-N", str(folder))


def _kept_beside(new: Path, out: Path, given, what: str) -> InputError:
    """The finished plan left beside ``out`` as ``NAME.new``, and the one-line refusal."""
    kept = _visible(new, out.parent, out.name, "new")
    shown = Path(given).parent / kept.name
    return InputError(f"--out '{given}' {what}; nothing of yours was deleted: '{given}' is as "
                      f"it was and the new plan is in '{shown}'; move your files out of "
                      f"'{given}' and rename '{shown}' to it, or run again")


UNRENAMABLE = (errno.EBUSY, errno.EXDEV, errno.EPERM, errno.EACCES)
"""Errors of renaming a folder that ``can_rename`` did not foresee (a mount point it missed)."""


def _unrenamable(new: Path, out: Path, given, err: OSError) -> InputError:
    return _kept_beside(new, out, given, f"cannot be replaced ({err.strerror}; a mount point "
                                         "or a folder you may not rename)")


SWAP_ATTEMPTS = 3
"""Tries of the swap when ``--out`` disappears between two of its steps (another run)."""


def _swap(new: Path, out: Path, given) -> None:
    """Rename ``new`` in as ``out``, checked at this moment (module docstring): nothing that
    ``out``'s manifest does not list is ever deleted."""
    _take_mode(new, out)
    for _ in range(SWAP_ATTEMPTS):
        try:
            os.rename(new, out)      # out missing, or an empty folder: nothing to keep
            return
        except OSError as err:
            if err.errno == errno.ENOTDIR:
                raise _kept_beside(new, out, given, "became a file or a link while the plan "
                                                    "was written") from None
            if err.errno in UNRENAMABLE:
                raise _unrenamable(new, out, given, err) from None
            if err.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
        held = _lock(out)
        try:
            old = Path(tempfile.mkdtemp(prefix=_beside(out, "old"), dir=out.parent))
            old.rmdir()
            try:
                os.rename(out, old)
            except FileNotFoundError:
                continue
            except OSError as err:
                if err.errno in UNRENAMABLE:
                    raise _unrenamable(new, out, given, err) from None
                raise
            extra = _unlisted(old)
            if extra is not None:
                try:
                    os.rename(old, out)
                except OSError:      # out made again meanwhile: the old folder stays in sight
                    _visible(old, out.parent, out.name, "previous")
                raise _kept_beside(new, out, given, f"holds '{extra}', which was added while "
                                   "the plan was written and is not one of a plan's files")
            try:
                os.rename(new, out)
            except OSError:          # out made again in the last microseconds
                _discard(old)        # the previous plan: nothing but listed files
                raise _kept_beside(new, out, given, "was made again while the plan was "
                                   "moved in") from None
            if not _discard(old):
                kept = _visible(old, out.parent, out.name, "previous")
                extra = _unlisted(kept) or "a file"
                raise InputError(f"--out '{given}': '{extra}' was saved into the previous plan "
                                 f"while it was replaced; it is kept in "
                                 f"'{Path(given).parent / kept.name}' and the new plan is in "
                                 f"'{given}'")
            return
        finally:
            _release(held)
    raise InputError(f"--out '{given}' kept changing while the plan was swapped in (another "
                     "run into the same folder?); run again")


def _write_in_place(staging: Path, out: Path, given, files: list[str]) -> None:
    """Move the plan in ``staging`` (inside ``out``) into ``out`` file by file (module
    docstring): the manifest lists old and new files while files move, then the new ones."""
    extra = _unlisted(out, skip={staging.name})
    if extra is not None:
        _write_manifest(staging, files)
        kept = _visible(staging, out, out.name, "new")
        raise InputError(f"--out '{given}' holds '{extra}', which was added while the plan was "
                         f"written and is not one of a plan's files; nothing of yours was "
                         f"deleted: the previous plan is as it was and the new one is in "
                         f"'{Path(given) / kept.name}'; move your files away and run again")
    old = _listed(out)
    _write_manifest(out, old | set(files), staging)
    for name in files:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / name, out / name)
    for name in sorted(old - set(files), reverse=True):
        path = out / name
        if path.is_file() and not path.is_symlink():
            path.unlink()
        for parent in path.relative_to(out).parents:
            if str(parent) != ".":
                try:
                    (out / parent).rmdir()
                except OSError:
                    break
    _write_manifest(out, files, staging)
    shutil.rmtree(staging)


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
    """Whether writers can run in forked processes (Linux: fork is safe and cheap there; not in
    a daemon process, such as a Dask worker's, which ``multiprocessing`` forbids children)."""
    return sys.platform.startswith("linux") and interrupts.may_fork()


def _run_here(task: Task, folder: Path) -> None:
    """Run ``task`` in this process, what its writer's parts share first."""
    if task.prepare is not None:
        task.prepare()
    task.write(folder)


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


def _died(task: Task, process) -> BaseException:
    """What a writer that sent nothing back stands for: a stop signal that reached it (the
    whole process group was stopped) is the run's interruption; anything else is a crash."""
    if process.exitcode is not None and process.exitcode < 0:
        signum = -process.exitcode
        if signum in (*interrupts.STOP_SIGNALS, signal.SIGKILL):
            return interrupts.Interrupted(signum)
    part = f" ({task.part})" if task.part else ""
    return RuntimeError(f"export writer '{task.writer}'{part} died (exit code {process.exitcode})")


def start_order(tasks: list[Task]) -> list[Task]:
    """``tasks`` longest first (``Task.seconds``; ties in the given order): the longest
    processing time rule (Graham 1969, "Bounds on multiprocessing timing anomalies": on ``k``
    processes the work ends within ``4/3 - 1/(3k)`` of the shortest possible time), so no long
    task starts last and runs alone while the other processes wait."""
    return sorted(tasks, key=lambda task: -task.seconds)


FORKED_MEMORY_SHARE = 1.25
"""The forked tasks running at once are estimated (``Task.memory``) to take at most this
multiple of the largest task's memory: a writer that copies the plan's texts (1.3 to 1.6 GB at
1M endpoints) runs beside small tasks only (a hall's sheets or labels), not beside another
such writer, so the export peak stays near what one writer at a time would reach while the
small tasks still run in parallel. Measured on the 1M row (benchmarks/RESULTS_plan.md): with
the largest writers free to pair (bom.xlsx beside index.html), a tree peak of 7,673 MiB."""

FORKED_MEMORY_FLOOR = 2 * 2 ** 30
"""Tasks that together are estimated below this run at once whatever their share: on plans
up to 250K endpoints (the largest writer about 0.45 GB) any two writers pair, as fast as
before."""


def next_task(pending: list[Task], running: list[Task], budget: float) -> Task | None:
    """The first of ``pending`` (in start order) whose estimated memory fits beside the
    ``running`` tasks' within ``budget``; with nothing running the first, whatever its size;
    None when none fits now."""
    if not running:
        return pending[0] if pending else None
    used = sum(task.memory for task in running)
    return next((task for task in pending if used + task.memory <= budget), None)


def _run_forked(tasks: list[Task], folder: Path, jobs: int, stages) -> None:
    """Tasks in forked processes, at most ``jobs`` at a time, started longest first
    (``start_order``) among those that fit in memory beside the running ones (``next_task``:
    ``FORKED_MEMORY_SHARE`` of the largest task's estimate, at least ``FORKED_MEMORY_FLOOR``);
    a task's ``prepare`` runs here just before its fork, while the other tasks run. A writer is
    reported done when the last of its tasks is, after the wall time since its first started.
    The first failure is raised here after the other running tasks were stopped."""
    ctx = multiprocessing.get_context("fork")
    budget = max(FORKED_MEMORY_SHARE * max((task.memory for task in tasks), default=0),
                 FORKED_MEMORY_FLOOR)
    pending = start_order(tasks)
    left = {task.writer: 0 for task in tasks}
    for task in tasks:
        left[task.writer] += 1
    first_start: dict[str, float] = {}
    running: dict = {}
    try:
        while pending or running:
            while pending and len(running) < jobs:
                task = next_task(pending, [task for task, _ in running.values()], budget)
                if task is None:
                    break
                pending = [other for other in pending if other is not task]
                if task.prepare is not None:
                    with _named_errors(task.writer):
                        task.prepare()
                receive, send = ctx.Pipe(duplex=False)
                process = ctx.Process(target=_child, args=(task.write, folder, send), daemon=True)
                sys.stdout.flush()
                sys.stderr.flush()
                # known before it starts: a stop signal delivered as the fork returns must
                # still find this writer to stop before its folder is removed
                running[receive] = (task, process)
                first_start.setdefault(task.writer, time.perf_counter())
                _start(process)
                send.close()
            for conn in multiprocessing.connection.wait(list(running)):
                task, process = running.pop(conn)
                try:
                    error = conn.recv()
                except EOFError:
                    error = None
                conn.close()
                process.join()
                if error is None and process.exitcode != 0:
                    error = _died(task, process)
                if error is not None:
                    with _named_errors(task.writer):
                        raise error
                left[task.writer] -= 1
                if not left[task.writer]:
                    stages.done(task.writer, time.perf_counter() - first_start[task.writer])
    finally:
        _stop([process for _, process in running.values() if process.pid is not None])
        for conn in running:
            conn.close()


WRITER_STOP_GRACE_S = 5.0
"""How long a writer told to stop (SIGTERM) has to end before it is killed (SIGKILL). A writer
forked an instant before the stop still carries the parent's deferred handler, which notes
SIGTERM instead of ending, and then writes its whole file (minutes for wiring.pdf at 1M
endpoints); a writer that ignores SIGTERM would hold the parent for ever. With the kill a
stopped run ends within this grace whatever its writers do."""


def _stop(processes) -> None:
    """Stop running writer processes: SIGTERM to all, then SIGKILL to any still alive after
    ``WRITER_STOP_GRACE_S``; returns once every one has ended."""
    for process in processes:
        process.terminate()
    deadline = time.monotonic() + WRITER_STOP_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
