"""One string object per distinct text in a column of the plan's tables.

A column made row by row (a port number formatted for each cable end, a cord's entry port
``F3.7`` joined for each link) holds one Python string per row, although a few hundred
distinct texts repeat: at 622,720 cables (``dragonfly:a=56,p=28,h=28,g=160`` on ``eth-51t``,
``campus``) the pieces' and connector ends' port columns held 2.5 million strings for 208
distinct ports, 146 MiB. ``shared`` makes the rows point at one string per distinct text:
the values, and so every output, are the same; the plan is smaller, and an export writer
forked from the planner copies fewer pages when it reads them (reading a string writes its
reference count, which copies the page holding it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def shared(values) -> np.ndarray:
    """``values`` (texts) as an object array in which equal texts are one object, the first
    row of each text giving it; a missing value (None, NaN) stays the object it was."""
    values = np.array(values, dtype=object)
    if not len(values):
        return values
    codes, uniques = pd.factorize(values)
    present = codes >= 0
    values[present] = np.asarray(uniques, dtype=object)[codes[present]]
    return values
