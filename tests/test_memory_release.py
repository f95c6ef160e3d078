"""``planner.run.memory.release``: memory freed by a stage goes back to the operating system."""

from __future__ import annotations

import subprocess
import sys

import pytest

from planner.run import memory

MIB = 2 ** 20


_FREED_HEAP = """
import os, numpy as np
from planner.run import memory
memory.RELEASE_FROM_RSS_BYTES = 0   # a small process: release only above the threshold
def resident():
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
memory.release()
blocks, kept = [], []
for _ in range(1024):
    blocks.append(np.ones(64 * 1024 // 8))
    kept.append(bytearray(2048))
del blocks
before = resident()
memory.release()
print(before, resident(), len(kept))
"""


@pytest.mark.skipif(memory._malloc_trim() is None, reason="glibc's malloc_trim only")
def test_release_returns_the_freed_heap():
    """64 MiB of 64 KiB arrays (below glibc's mmap threshold, so they live in its heap), each
    followed by a small buffer that stays (so freed blocks cannot merge into the heap's top and
    be trimmed on the way): freed, the heap keeps their pages; ``release`` hands them back.
    Run in a new interpreter, so the heap is not shaped by the tests before it in this worker."""
    out = subprocess.run([sys.executable, "-c", _FREED_HEAP], capture_output=True, text=True,
                         check=True).stdout
    before, after, kept = (int(v) for v in out.split())
    assert before - after >= 32 * MIB, (before / MIB, after / MIB)
    assert kept == 1024


def test_release_without_glibc_is_harmless(monkeypatch):
    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)
    memory.release()


@pytest.mark.parametrize("threshold, collections", [(0, 1), (2 ** 62, 0)])
def test_release_collects_only_above_its_threshold(monkeypatch, threshold, collections):
    """Below ``RELEASE_FROM_RSS_BYTES`` of resident memory a full collection costs more than it
    frees (its docstring's figures): ``release`` then neither collects nor trims."""
    calls = []
    monkeypatch.setattr(memory, "RELEASE_FROM_RSS_BYTES", threshold)
    monkeypatch.setattr(memory.gc, "collect", lambda: calls.append("collect"))
    monkeypatch.setattr(memory, "_malloc_trim", lambda: lambda pad: calls.append("trim"))
    memory.release()
    assert calls == ["collect", "trim"] * collections
