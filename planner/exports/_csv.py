"""CSV text for the export writers: the bytes ``DataFrame.to_csv(index=False)`` writes, several
times faster on 10^5-10^6 rows.

Columns are formatted with array operations, exactly as pandas formats them for ``to_csv``
(integers ``str``, floats numpy's shortest round-trip text, missing values empty, ``True`` /
``False``), and the rows are joined in C. Fields holding a comma or a double quote are quoted as
the ``csv`` module that pandas itself uses quotes them (minimal quoting); text with line breaks
goes through the ``csv`` module itself. So the output is the same byte for byte; column types
outside that list fall back to ``to_csv``. ``write_csv`` and ``write_rows`` write
``tuning.CSV_CHUNK_ROWS`` rows at a time: the text of a whole large table is never held at once
(the same bytes: every choice above is made per field). Text cells (``str`` values of object and string
columns) are written formula-safe (``planner.exports.cells.neutralise``): they may hold input
text such as SKUs and names.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd

from planner.exports.cells import neutralise, neutralise_all
from planner.exports.tuning import CSV_CHUNK_ROWS



def _has_break(text: str) -> bool:
    """Whether ``text`` holds a line break (two substring scans in C: a character-class regex is
    several times slower on 10^7 characters)."""
    return "\n" in text or "\r" in text


def column_text(values: pd.Series) -> list[str] | None:
    """The CSV text of every value of a column, or None for a type handled only by pandas."""
    dtype = values.dtype
    if isinstance(dtype, pd.StringDtype):
        return values.to_numpy(dtype=object, na_value="").tolist()
    if isinstance(values.array, pd.arrays.IntegerArray):
        text = np.array(_ints(values.to_numpy(dtype=np.int64, na_value=0)), dtype=object)
        text[values.isna().to_numpy()] = ""
        return text.tolist()
    if isinstance(dtype, np.dtype):
        if dtype.kind == "b":
            return np.where(values.to_numpy(), "True", "False").astype(object).tolist()
        if dtype.kind in "iu":
            return _ints(values.to_numpy())
        if dtype.kind == "f":
            return float_text(values.to_numpy()).tolist()
        if dtype == object:
            array = values.to_numpy()
            missing = pd.isna(array)
            return ["" if gone else x if isinstance(x, str) else str(x)
                    for x, gone in zip(array.tolist(), missing.tolist())]
    return None


def _ints(array: np.ndarray) -> list[str]:
    return list(map(str, array.tolist()))


def float_text(array: np.ndarray) -> np.ndarray:
    """numpy's text of every float (``astype(str)``, as ``to_csv``), formatted once per distinct
    value; NaN gives ``""``."""
    array = np.asarray(array, dtype=float)
    out = np.full(array.shape, "", dtype=object)
    ok = ~np.isnan(array)
    uniq, inverse = np.unique(array[ok], return_inverse=True)
    out[ok] = uniq.astype(str).astype(object)[inverse]
    return out


def _quoted(column: list[str]) -> list[str]:
    """Fields holding a comma or a double quote, quoted as ``csv.writer`` quotes them."""
    joined = "".join(column)
    if "," not in joined and '"' not in joined:
        return column
    return ['"' + f.replace('"', '""') + '"' if ("," in f or '"' in f) else f for f in column]


def join_rows(header: list[str], columns: list[list[str]], lineterminator: str = "\n") -> str:
    """CSV text of a header and text columns, quoted as ``csv.writer`` (minimal quoting)."""
    if len(header) < 2 or any(_has_break("".join(c)) for c in [header, *columns]):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator=lineterminator)
        writer.writerow(header)
        writer.writerows(zip(*columns))
        return buffer.getvalue()
    lines = [",".join(_quoted(header)), *map(",".join, zip(*map(_quoted, columns)))]
    return lineterminator.join(lines) + lineterminator


def safe_text(values: pd.Series, text: list[str]) -> list[str]:
    """``text`` (the column's CSV text) with the cells that hold text neutralised; numbers,
    also in object columns, are left as they are."""
    if isinstance(values.dtype, pd.StringDtype):
        return neutralise_all(text)
    if values.dtype != object or neutralise_all(text) is text:
        return text
    return [neutralise(t) if isinstance(v, str) else t for v, t in zip(values.tolist(), text)]


def csv_text(frame: pd.DataFrame, lineterminator: str = "\n") -> str:
    """``frame.to_csv(index=False, lineterminator=...)`` as a string, text cells formula-safe."""
    columns = [column_text(frame[name]) for name in frame.columns]
    if any(c is None for c in columns):
        frame = frame.apply(lambda col: col.map(lambda v: neutralise(v) if isinstance(v, str)
                                                else v) if col.dtype == object else col)
        return frame.to_csv(index=False, lineterminator=lineterminator)
    columns = [safe_text(frame[name], text) for name, text in zip(frame.columns, columns)]
    return join_rows([str(name) for name in frame.columns], columns, lineterminator)


def write_text(text: str, path: Path | str, encoding: str = "utf-8") -> None:
    """Write CSV text as is (line ends included)."""
    with open(path, "w", encoding=encoding, newline="") as fh:
        fh.write(text)


def write_rows(fh, frame: pd.DataFrame, lineterminator: str = "\n", header: bool = True,
               chunk_rows: int | None = None) -> None:
    """``csv_text(frame)`` (without its header line unless ``header``) into the open text file
    ``fh``, ``chunk_rows`` rows (default ``tuning.CSV_CHUNK_ROWS``) at a time."""
    chunk_rows = chunk_rows or CSV_CHUNK_ROWS
    for lo in range(0, max(len(frame), 1), chunk_rows):
        text = csv_text(frame.iloc[lo:lo + chunk_rows], lineterminator)
        fh.write(text if header and lo == 0 else text.split(lineterminator, 1)[1])


def write_csv(frame: pd.DataFrame, path: Path | str, encoding: str = "utf-8",
              lineterminator: str = "\n") -> None:
    """``frame.to_csv(path, index=False, encoding=..., lineterminator=...)``, faster, a chunk
    of rows at a time (``write_rows``)."""
    with open(path, "w", encoding=encoding, newline="") as fh:
        write_rows(fh, frame, lineterminator)
