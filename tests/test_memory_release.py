"""``planner.run.memory.release``: memory freed by a stage goes back to the operating system."""

from __future__ import annotations

import os

import numpy as np
import pytest

from planner.run import memory

MIB = 2 ** 20


def _resident() -> int:
    """Resident bytes of this process (``/proc/self/statm``: pages in RAM)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(memory._malloc_trim() is None, reason="glibc's malloc_trim only")
def test_release_returns_the_freed_heap():
    """64 MiB of 64 KiB arrays (below glibc's mmap threshold, so they live in its heap), each
    followed by a small buffer that stays (so freed blocks cannot merge into the heap's top and
    be trimmed on the way): freed, the heap keeps their pages; ``release`` hands them back."""
    memory.release()
    blocks, kept = [], []
    for _ in range(1024):
        blocks.append(np.ones(64 * 1024 // 8))
        kept.append(bytearray(2048))
    del blocks
    before = _resident()
    memory.release()
    after = _resident()
    assert before - after >= 32 * MIB, (before / MIB, after / MIB)
    assert len(kept) == 1024


def test_release_without_glibc_is_harmless(monkeypatch):
    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)
    memory.release()
