"""The viewer's data: tables as typed columns in one compressed, base64-encoded block.

Layout of the block before compression (``encode``): a 4-byte little-endian length, that many
bytes of UTF-8 JSON (the header), zero padding to a multiple of 8, then the numeric columns,
each starting at a multiple of 8 (so the page reads them as typed arrays without copying).
The block is zlib-compressed (the page inflates it with the browser's ``DecompressionStream
("deflate")``) and base64-encoded, so it sits in the page as plain ASCII that no browser parses
as markup. ``Block`` makes the block a table at a time, ``pack_stream`` compresses and encodes
it piece by piece: the same bytes as ``pack(encode(...))``, never the whole block in memory.

Header: ``{"meta": {...}, "tables": {name: {"rows": n, "columns": [...]}}}`` where every
column is one of

- ``{"name", "type": "num", "dtype": "u1|i1|u2|i2|i4|f8", "offset", "scale"?, "null"?}``:
  value = stored / scale (scale a power of ten, chosen only when that division gives back
  every value exactly, so lengths like 1.65 m travel as the integer 165); ``null`` is the
  stored value that stands for a missing value;
- ``{"name", "type": "str", "values": [...], "dtype"?, "offset"?}``: text; with ``dtype`` the
  column is dictionary-coded (codes into ``values``), without it ``values`` holds every row;
- ``{"name", "type": "seq", "runs": [[prefix, width, first, count], ...]}``: text that is
  runs of numbered names: the run's k-th row (from 0) is prefix + (first + k) zero-padded to
  width digits (cable ids, device names);
- ``{"name", "type": "ref", "table", "column", "dtype", "offset"}``: text coded as row
  numbers of another table's text column (a cable's cabinet as a row of the cabinets table);
  -1 is missing.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import tempfile
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.exports.tuning import (VIEWER_COMPRESSION_LEVEL as COMPRESSION_LEVEL,
                                    VIEWER_DICTIONARY_SHARE as DICTIONARY_SHARE,
                                    VIEWER_MAX_RUNS as MAX_RUNS,
                                    VIEWER_SPOOL_CHUNK_BYTES as SPOOL_CHUNK_BYTES,
                                    VIEWER_CHUNK_ROWS as CHUNK_ROWS,
                                    VIEWER_STREAM_CHUNK_BYTES as STREAM_CHUNK_BYTES)

_INT_TYPES = (("u1", np.uint8), ("i1", np.int8), ("u2", np.uint16), ("i2", np.int16),
              ("i4", np.int32))
_SCALES = (1, 10, 100, 1000)
_NUMBERED = re.compile(r"(.*?)(\d+)", re.S)


def _int_dtype(low: int, high: int):
    """The narrowest (name, numpy type) of ``_INT_TYPES`` holding ``low..high``, or None."""
    for name, kind in _INT_TYPES:
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return name, kind
    return None


class _Spool:
    """Bytes written once and read back, from an unnamed temporary file (gone
    when closed, or when the process ends), so the block's pieces wait on disk, not in
    memory, until the page is written; in ``folder`` (the system's temporary folder when
    None, which may be memory on some systems)."""

    def __init__(self, folder=None):
        self.file = tempfile.TemporaryFile(dir=folder)
        self.size = 0

    def put(self, data: bytes) -> None:
        self.file.write(data)
        self.size += len(data)

    def take(self, start: int, size: int):
        """The ``size`` bytes put from ``start`` on, in pieces of at most
        ``SPOOL_CHUNK_BYTES``."""
        self.file.seek(start)
        while size > 0:
            data = self.file.read(min(size, SPOOL_CHUNK_BYTES))
            if not data:
                raise EOFError("the viewer's temporary file is shorter than was written")
            size -= len(data)
            yield data

    def close(self) -> None:
        self.file.close()


class _Writer:
    """Collects binary sections, each aligned to 8 bytes, in a ``_Spool``."""

    def __init__(self, folder=None):
        self.spool = _Spool(folder)
        self.size = 0

    def add(self, array: np.ndarray) -> int:
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"),
                                                  copy=False)
        offset = self.size
        self.spool.put(data.tobytes())
        self.size += data.nbytes
        pad = -self.size % 8
        if pad:
            self.spool.put(b"\0" * pad)
            self.size += pad
        return offset


def _chunks(n: int):
    """Slices of ``CHUNK_ROWS`` rows covering ``n`` rows: a float column is checked and
    scaled chunk by chunk, so its temporaries stay small."""
    return [slice(lo, lo + CHUNK_ROWS) for lo in range(0, n, CHUNK_ROWS)]


def _exact_scale(present: np.ndarray):
    """(scale, low, high): the first of ``_SCALES`` giving back every value of the float
    array ``present`` exactly after ``round(value * scale) / scale``, and the scaled range;
    None if no scale does."""
    for scale in _SCALES:
        low, high, exact = 0, 0, True
        for part in _chunks(len(present)):
            values = present[part]
            scaled = np.round(values * scale)
            if not np.array_equal(scaled / scale, values):
                exact = False
                break
            low = int(scaled.min()) if part.start == 0 else min(low, int(scaled.min()))
            high = int(scaled.max()) if part.start == 0 else max(high, int(scaled.max()))
        if exact:
            return scale, low, high
    return None


def _numeric(values: np.ndarray, missing: np.ndarray, out: _Writer) -> dict:
    """A numeric column: the narrowest integer type (after an exact decimal scale), else f8."""
    gaps = bool(missing.any())
    present = values[~missing] if gaps else values
    if present.dtype.kind == "f" and not np.isfinite(present).all():
        return {"type": "num", "dtype": "f8", "offset": out.add(values.astype(float))}
    if present.dtype.kind == "f":
        found = _exact_scale(present)
    else:
        found = (1, int(present.min()) if present.size else 0,
                 int(present.max()) if present.size else 0)
    chosen = None if found is None else _int_dtype(found[1] - 1 if gaps else found[1],
                                                   found[2])
    if chosen is None:
        stored = np.where(missing, np.nan, values.astype(float))
        return {"type": "num", "dtype": "f8", "offset": out.add(stored)}
    (scale, low, _), (name, kind) = found, chosen
    spec = {"type": "num", "dtype": name}
    stored = np.zeros(len(values), dtype=kind)
    if gaps:
        stored[~missing] = np.round(present * scale) if scale != 1 else present
        stored[missing] = low - 1
        spec["null"] = low - 1
    else:
        for part in _chunks(len(values)):
            stored[part] = np.round(values[part] * scale) if present.dtype.kind == "f" \
                else values[part]
    if scale != 1:
        spec["scale"] = scale
    spec["offset"] = out.add(stored)
    return spec


def _codes(codes: np.ndarray, out: _Writer) -> tuple[str, int]:
    name, kind = _int_dtype(int(codes.min()) if codes.size else 0,
                            int(codes.max()) if codes.size else 0)
    return name, out.add(codes.astype(kind))


def _text(values) -> list[str]:
    """Text of every value; missing values as ``""``."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype):
        texts = values.tolist()          # already text: no second copy of every row
        return [v if isinstance(v, str) else "" for v in texts] if values.hasnans else texts
    return pd.Series(values, dtype=object).astype("str").fillna("").tolist()


def numbered_runs(texts: list[str]) -> list[list] | None:
    """``[[prefix, width, first, count], ...]`` when ``texts`` are at most ``MAX_RUNS`` runs
    (of two texts each on average, at least) of a prefix and consecutive numbers zero-padded
    to ``width`` (cable ids ``C000001 ..``; devices ``r0000 .. r6271, n000000 ..``), else
    None. Each run is checked in chunks that double in size up to ``CHUNK_ROWS`` texts, so a
    column that is no such run is given up after a few thousand texts."""
    runs, i, n = [], 0, len(texts)
    while i < n:
        match = _NUMBERED.fullmatch(texts[i]) if len(runs) < MAX_RUNS else None
        if match is None or len(match.group(2)) > 15:      # JavaScript counts exactly to 2^53
            return None
        prefix, digits = match.groups()
        width, first = len(digits), int(digits)
        count, step = 1, 1024
        while i + count < n:
            stop = min(n, i + count + step)
            want = np.array([f"{prefix}{first + k:0{width}d}" for k in range(count, stop - i)],
                            dtype=object)
            same = np.array(texts[i + count:stop], dtype=object) == want
            if not same.all():
                count += int(np.argmin(same))
                break
            count, step = stop - i, min(2 * step, CHUNK_ROWS)
        runs.append([prefix, width, first, count])
        i += count
    return runs if 2 * len(runs) <= max(n, 2) else None


def encode_column(series: pd.Series, out: _Writer,
                  refs: dict[str, tuple[str, str, pd.Index]]) -> dict:
    """The header entry of one column, its data added to ``out`` (module doc). ``refs`` maps a
    column name to (table, column, that column's index) for text coded as rows of another
    table (which must hold each text once)."""
    name = str(series.name)
    dtype = series.dtype
    if name in refs:
        table, column, index = refs[name]
        rows = index.get_indexer(series)
        if ((rows >= 0) | series.isna().to_numpy()).all():
            kind, offset = _codes(rows, out)
            return {"name": name, "type": "ref", "table": table, "column": column,
                    "dtype": kind, "offset": offset}
    if dtype.kind in "biuf":
        missing = series.isna().to_numpy()
        if dtype.kind in "biu" and not missing.any():
            values = series.to_numpy()
            values = values.astype(np.int64) if values.dtype.kind == "b" else values
        else:
            values = series.to_numpy(dtype=float, na_value=np.nan)
        return {"name": name, **_numeric(values, missing, out)}
    texts = runs = None
    if len(series) and _NUMBERED.fullmatch(_text(series.iloc[:1])[0]):
        texts = _text(series)
        runs = numbered_runs(texts)
    if runs is None or not _distinct(runs, len(series)):
        codes, uniques = pd.factorize(series, use_na_sentinel=False)
        if len(uniques) <= max(1, DICTIONARY_SHARE * len(series)):
            kind, offset = _codes(codes, out)
            return {"name": name, "type": "str", "values": _text(uniques),
                    "dtype": kind, "offset": offset}
        del codes, uniques
    if runs is not None:
        return {"name": name, "type": "seq", "runs": runs}
    return {"name": name, "type": "str", "values": _text(series) if texts is None else texts}


def _distinct(runs: list[list], rows: int) -> bool:
    """Whether ``runs`` (``numbered_runs``) of ``rows`` texts are so many distinct texts that
    no dictionary would code them (``encode_column``), known without hashing every text: each
    text parts uniquely into its prefix (never ending in a digit) and its digits, so runs of
    distinct prefixes give distinct texts."""
    return (len({prefix for prefix, _, _, _ in runs}) == len(runs)
            and rows > max(1, DICTIONARY_SHARE * rows))


@dataclass
class CodedText:
    """A text column given as ``codes`` into ``labels`` (-1 missing), for ``Block.add``:
    encoded as the same column of texts would be, without making a text per row."""

    name: str
    codes: np.ndarray
    labels: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.codes)

    def texts(self) -> pd.Series:
        """The column as texts (missing as NaN)."""
        labels = np.asarray([*self.labels, np.nan], dtype=object)
        return pd.Series(labels[self.codes], name=self.name)


def _coded_column(column: CodedText, out: _Writer) -> dict | None:
    """``column`` dictionary-coded as ``encode_column`` codes its texts (values in order of
    first appearance), or None when that would not code it so."""
    codes, first = pd.factorize(column.codes, use_na_sentinel=False)
    if len(first) > max(1, DICTIONARY_SHARE * len(column)):
        return None
    values = [column.labels[c] if c >= 0 else "" for c in first.tolist()]
    kind, offset = _codes(codes, out)
    return {"name": column.name, "type": "str", "values": _text(values),
            "dtype": kind, "offset": offset}


class _Texts:
    """The ``values`` lists of the header's text columns, each kept as its JSON text (UTF-8,
    in a ``_Spool``) in place of a list of strings; the header carries a placeholder for
    each."""

    def __init__(self, folder=None):
        self.mark = "\0" + secrets.token_hex(8) + ":"
        self.spool = _Spool(folder)
        self.starts: list[int] = []
        self.sizes: list[int] = []

    def hold(self, spec: dict) -> dict:
        if "values" in spec:
            text = json.dumps(spec["values"], ensure_ascii=False,
                              separators=(",", ":")).encode("utf-8")
            self.starts.append(self.spool.size)
            self.spool.put(text)
            self.sizes.append(len(text))
            spec["values"] = f"{self.mark}{len(self.sizes) - 1}"
        return spec

    def splice(self, header: str) -> tuple[int, list]:
        """The UTF-8 length of ``header``'s JSON text with each placeholder replaced by its
        text, and that text's pieces: bytes, or the number of a held text."""
        marked = re.escape(json.dumps(self.mark)[:-1]) + r'(\d+)"'
        pieces = re.split(marked, header)
        assert len(pieces) == 2 * len(self.sizes) + 1, "a text held twice or lost"
        out = [int(piece) if k % 2 else piece.encode("utf-8") for k, piece in enumerate(pieces)]
        assert sorted(p for p in out if isinstance(p, int)) == list(range(len(self.sizes)))
        return sum(self.sizes[p] if isinstance(p, int) else len(p) for p in out), out


class Block:
    """The uncompressed block (module doc), made one table at a time: ``add`` encodes a table's
    columns as they come (so a table need not exist whole) and keeps their bytes and long text
    lists in temporary files, ``pieces`` gives the block's bytes with the tables in the order
    ``order`` names (any order they were added in: a table can be made when it takes the
    least memory); the temporary files go in ``folder``. ``refs[table][column] = (other
    table, its column)`` codes a text column as row numbers of the other table (added
    earlier)."""

    def __init__(self, refs: dict[str, dict[str, tuple[str, str]]] | None = None,
                 order: list[str] | None = None, folder=None):
        self.refs = refs or {}
        self.order = order
        self.targets = {key for wanted in self.refs.values() for key in wanted.values()}
        self.out = _Writer(folder)
        self.texts = _Texts(folder)
        self.tables: dict[str, dict] = {}
        self.spans: dict[str, tuple[int, int]] = {}    # each table's bytes in self.out
        self.indexes: dict[tuple[str, str], pd.Index] = {}

    def add(self, name: str, columns, rows: int) -> None:
        """Encode table ``name`` of ``rows`` rows from its ``columns`` (named Series or
        ``CodedText``, in order), each let go once encoded."""
        table_refs = {column: (other, other_column, self.indexes[(other, other_column)])
                      for column, (other, other_column) in self.refs.get(name, {}).items()}
        specs, start = [], self.out.size
        for column in columns:
            spec = None
            if isinstance(column, CodedText):
                spec = _coded_column(column, self.out)
                column = column.texts() if spec is None else column
            if spec is None:
                if (name, column.name) in self.targets:
                    self.indexes[(name, column.name)] = pd.Index(column.astype(str))
                spec = encode_column(column.rename(str(column.name)), self.out, table_refs)
            specs.append(self.texts.hold(spec))
            del column
        self.tables[name] = {"rows": int(rows), "columns": specs}
        self.spans[name] = (start, self.out.size)

    def add_frame(self, name: str, frame: pd.DataFrame) -> None:
        self.add(name, (frame[c].rename(str(c)) for c in frame.columns), len(frame))

    def pieces(self, meta: dict):
        """The block's bytes, piece by piece: header length, header, padding, columns."""
        order = list(self.tables) if self.order is None else self.order
        assert sorted(order) == sorted(self.tables), "tables added and ordered differ"
        base = 0
        for name in order:              # offsets from where each table's bytes will be
            start, end = self.spans[name]
            for spec in self.tables[name]["columns"]:
                if "offset" in spec:
                    spec["offset"] += base - start
            base += end - start
        text = json.dumps({"meta": meta, "tables": {name: self.tables[name] for name in order}},
                          ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        size, head = self.texts.splice(text)
        del text
        try:
            yield size.to_bytes(4, "little")
            for piece in head:
                if isinstance(piece, int):
                    yield from self.texts.spool.take(self.texts.starts[piece],
                                                     self.texts.sizes[piece])
                else:
                    yield piece
            del head
            yield b"\0" * (-(size + 4) % 8)
            for name in order:
                start, end = self.spans[name]
                yield from self.out.spool.take(start, end - start)
        finally:
            self.texts.spool.close()
            self.out.spool.close()


def encode(tables: dict[str, pd.DataFrame], meta: dict,
           refs: dict[str, dict[str, tuple[str, str]]] | None = None) -> bytes:
    """The uncompressed block (module doc) of ``tables`` and the JSON-ready ``meta``
    (``Block``, all at once)."""
    block = Block(refs)
    for name, frame in tables.items():
        block.add_frame(name, frame)
    return b"".join(block.pieces(meta))


def pack(block: bytes) -> str:
    """``block`` zlib-compressed and base64-encoded (ASCII)."""
    return base64.b64encode(zlib.compress(block, COMPRESSION_LEVEL)).decode("ascii")


def pack_stream(pieces, write) -> None:
    """``pack`` of the concatenated ``pieces``, given to ``write`` in ASCII chunks as it is
    made: one zlib stream fed piece by piece (the same bytes as ``zlib.compress`` of the whole,
    zlib's output not depending on how its input is cut), base64 in whole 3-byte groups."""
    squeeze = zlib.compressobj(COMPRESSION_LEVEL)
    carry = b""
    for piece in pieces:
        carry += squeeze.compress(piece)
        cut = len(carry) - len(carry) % 3
        if cut >= STREAM_CHUNK_BYTES:
            write(base64.b64encode(carry[:cut]).decode("ascii"))
            carry = carry[cut:]
    write(base64.b64encode(carry + squeeze.flush()).decode("ascii"))
