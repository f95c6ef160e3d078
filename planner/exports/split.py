"""Writers split in parts: a writer that writes one file per hall on a large plan
(``wiring_pdf``, ``labels``: ``wiring_pdf.document.hall_files``) hands ``planner.exports.
write_plan`` its files as ``Part``s, so that forked writer processes share that work to the end
of the exports instead of one process drawing every hall while the others wait. The parts write
the same files, byte for byte, as the writer's ``write``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Part:
    """One file (``name``) of a split writer: ``write(folder)`` writes it; ``weight`` is its
    share of the writer's time (the parts' weights sum to 1); ``prepare()``, when given, makes
    what the writer's parts share, once (memoised); ``per_hall``: the part reads one hall's
    pieces, not the whole plan's (its memory is estimated as such:
    ``tuning.HALL_PART_FORK_BYTES_PER_CABLE``)."""

    name: str
    weight: float
    write: Callable[[Path], None]
    prepare: Callable[[], object] | None = None
    per_hall: bool = False


def hall_weights(plan, halls: list[int], share: float) -> list[float]:
    """``share`` divided among ``halls`` by their cabinets (a hall's sheets and labels grow
    with its cabinets)."""
    counts = np.bincount(plan.cabinets["hall"].to_numpy(np.int64),
                         minlength=max(halls) + 1)[halls].astype(float)
    return (share * counts / max(counts.sum(), 1.0)).tolist()
