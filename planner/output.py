"""The ``planner plan`` output folder, written atomically (DESIGN.md "Contracts").

Every writer writes into a fresh temporary folder beside ``--out``; only when all of them
succeeded is it swapped into place (rename the old folder aside, rename the new one in, delete
the old one). On any error (or Ctrl-C) the temporary folder is removed and the previous contents
of ``--out`` stay exactly as they were.

``--out`` may be a new path, an empty folder or the folder of a previous plan (it holds a
``summary.json`` with a ``topology`` block); an existing file or any other non-empty folder is
refused with a one-line InputError before anything is planned.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from planner.errors import InputError

SUMMARY = "summary.json"


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


def check_out(out: Path | str) -> Path:
    """The absolute output folder, or InputError when ``out`` must not be replaced."""
    out = Path(out).expanduser()
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise InputError(f"--out '{out}' is an existing file; give a folder path (new, "
                             "empty, or a previous plan's output folder)")
        if any(out.iterdir()) and not _is_previous_plan(out):
            raise InputError(f"--out '{out}' is a non-empty folder that does not hold a previous "
                             f"plan (no {SUMMARY}); give a new or empty folder so nothing is "
                             "overwritten")
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
                 progress: bool = False) -> list[str]:
    """Run ``writers`` (name, fn(tmp_dir)) into a temp folder, then swap it in as ``out``.

    Returns the names of the files written (sorted, relative to ``out``)."""
    out = check_out(out)
    writers = list(writers)
    created = _make_parents(out.parent)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        bar = progress_bar(len(writers), "exports") if progress else None
        try:
            for name, fn in writers:
                if bar is not None:
                    bar.set_description_str(f"exports: {name}")
                fn(tmp)
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.set_description_str("exports: done")
                bar.close()
        files = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file())
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for path in created:
            try:
                path.rmdir()
            except OSError:
                break
        raise
    return files


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


def write_plan(plan, out: Path | str, progress: bool = False) -> list[str]:
    """Every export writer of ``planner.exports`` into ``out``, atomically."""
    from planner.exports import writers
    return write_folder(out, [(name, lambda d, fn=fn: fn(plan, d)) for name, fn in writers()],
                        progress=progress)
