"""The viewer's data: tables as typed columns in one compressed, base64-encoded block.

Layout of the block before compression (``encode``): a 4-byte little-endian length, that many
bytes of UTF-8 JSON (the header), zero padding to a multiple of 8, then the numeric columns,
each starting at a multiple of 8 (so the page reads them as typed arrays without copying).
The block is zlib-compressed (the page inflates it with the browser's ``DecompressionStream
("deflate")``) and base64-encoded, so it sits in the page as plain ASCII that no browser parses
as markup.

Header: ``{"meta": {...}, "tables": {name: {"rows": n, "columns": [...]}}}`` where every
column is one of

- ``{"name", "type": "num", "dtype": "u1|i1|u2|i2|i4|f8", "offset", "scale"?, "null"?}``:
  value = stored / scale (scale a power of ten, chosen only when that division gives back
  every value exactly, so lengths like 1.65 m travel as the integer 165); ``null`` is the
  stored value that stands for a missing value;
- ``{"name", "type": "str", "values": [...], "dtype"?, "offset"?}``: text; with ``dtype`` the
  column is dictionary-coded (codes into ``values``), without it ``values`` holds every row;
- ``{"name", "type": "ref", "table", "column", "dtype", "offset"}``: text coded as row
  numbers of another table's text column (a cable's cabinet as a row of the cabinets table);
  -1 is missing.
"""

from __future__ import annotations

import base64
import json
import zlib

import numpy as np
import pandas as pd

COMPRESSION_LEVEL = 6
"""zlib level of the block. On the 10K default plan's page, level 6 gives a block about 10 %
smaller than level 1 at about twice the time (a few tenths of a second on 250K cables); the
writer runs beside wiring.pdf, which takes several times longer."""

_INT_TYPES = (("u1", np.uint8), ("i1", np.int8), ("u2", np.uint16), ("i2", np.int16),
              ("i4", np.int32))
_SCALES = (1, 10, 100, 1000)
DICTIONARY_SHARE = 0.5
"""Text columns with at most this share of distinct values are dictionary-coded."""


def _int_dtype(low: int, high: int):
    """The narrowest (name, numpy type) of ``_INT_TYPES`` holding ``low..high``, or None."""
    for name, kind in _INT_TYPES:
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return name, kind
    return None


class _Writer:
    """Collects binary sections, each aligned to 8 bytes."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, array: np.ndarray) -> int:
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"),
                                                  copy=False).tobytes()
        offset = self.size
        self.parts.append(data)
        self.size += len(data)
        pad = -self.size % 8
        if pad:
            self.parts.append(b"\0" * pad)
            self.size += pad
        return offset


def _numeric(values: np.ndarray, missing: np.ndarray, out: _Writer) -> dict:
    """A numeric column: the narrowest integer type (after an exact decimal scale), else f8."""
    present = values[~missing]
    if present.dtype.kind == "f" and not np.isfinite(present).all():
        return {"type": "num", "dtype": "f8", "offset": out.add(values.astype(float))}
    for scale in _SCALES:
        scaled = np.round(present * scale) if present.dtype.kind == "f" else present
        if present.dtype.kind == "f" and not np.array_equal(scaled / scale, present):
            continue
        low = int(scaled.min()) if scaled.size else 0
        high = int(scaled.max()) if scaled.size else 0
        chosen = _int_dtype(low - 1 if missing.any() else low, high)
        if chosen is None:
            break
        name, kind = chosen
        stored = np.zeros(len(values), dtype=kind)
        stored[~missing] = scaled
        spec = {"type": "num", "dtype": name}
        if missing.any():
            stored[missing] = low - 1
            spec["null"] = low - 1
        if scale != 1:
            spec["scale"] = scale
        spec["offset"] = out.add(stored)
        return spec
    stored = np.where(missing, np.nan, values.astype(float))
    return {"type": "num", "dtype": "f8", "offset": out.add(stored)}


def _codes(codes: np.ndarray, out: _Writer) -> tuple[str, int]:
    name, kind = _int_dtype(int(codes.min()) if codes.size else 0,
                            int(codes.max()) if codes.size else 0)
    return name, out.add(codes.astype(kind))


def _text(series: pd.Series) -> list[str]:
    return ["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)
            for v in series.to_numpy(dtype=object).tolist()]


def encode_column(series: pd.Series, out: _Writer, refs: dict[str, tuple[str, str, dict]]
                  ) -> dict:
    """The header entry of one column, its data added to ``out`` (module doc). ``refs`` maps a
    column name to (table, column, {text: row}) for columns coded as rows of another table."""
    name = str(series.name)
    dtype = series.dtype
    if name in refs:
        table, column, index = refs[name]
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        lookup = np.array([index.get(str(u), -1) for u in uniques] + [-1], dtype=np.int64)
        if (lookup[:-1] >= 0).all():
            kind, offset = _codes(lookup[codes], out)
            return {"name": name, "type": "ref", "table": table, "column": column,
                    "dtype": kind, "offset": offset}
    if dtype.kind in "biuf":
        missing = series.isna().to_numpy()
        values = series.to_numpy(dtype=float, na_value=np.nan)
        if dtype.kind in "biu" and not missing.any():
            values = series.to_numpy(dtype=np.int64)
        return {"name": name, **_numeric(values, missing, out)}
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    if len(uniques) <= max(1, DICTIONARY_SHARE * len(series)):
        kind, offset = _codes(codes, out)
        return {"name": name, "type": "str", "values": _text(pd.Series(uniques)),
                "dtype": kind, "offset": offset}
    return {"name": name, "type": "str", "values": _text(series)}


def encode(tables: dict[str, pd.DataFrame], meta: dict,
           refs: dict[str, dict[str, tuple[str, str]]] | None = None) -> bytes:
    """The uncompressed block (module doc) of ``tables`` and the JSON-ready ``meta``.
    ``refs[table][column] = (other table, its column)`` codes a text column as row numbers of
    the other table (whose column must come earlier in ``tables``)."""
    refs = refs or {}
    out = _Writer()
    header: dict = {"meta": meta, "tables": {}}
    indexes: dict[tuple[str, str], dict] = {}
    for table_name, frame in tables.items():
        wanted = refs.get(table_name, {})
        table_refs = {}
        for column, (other, other_column) in wanted.items():
            key = (other, other_column)
            if key not in indexes:
                names = tables[other][other_column].astype(str).tolist()
                indexes[key] = {n: i for i, n in enumerate(names)}
            table_refs[column] = (other, other_column, indexes[key])
        columns = [encode_column(frame[c].rename(str(c)), out, table_refs)
                   for c in frame.columns]
        header["tables"][table_name] = {"rows": int(len(frame)), "columns": columns}
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")
    head = len(text).to_bytes(4, "little") + text
    head += b"\0" * (-len(head) % 8)
    return head + b"".join(out.parts)


def pack(block: bytes) -> str:
    """``block`` zlib-compressed and base64-encoded (ASCII)."""
    return base64.b64encode(zlib.compress(block, COMPRESSION_LEVEL)).decode("ascii")
