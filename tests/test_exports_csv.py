"""The export writers' fast CSV text equals ``DataFrame.to_csv`` byte for byte (quoting, missing
values, number formats), so replacing ``to_csv`` changed no output file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from planner.exports._csv import csv_text, write_csv

FRAMES = {
    "plain": lambda: pd.DataFrame({"id": ["C1", "C2"], "port": [1, 64], "ok": [True, False]}),
    "quoting": lambda: pd.DataFrame({"sku": ["DAC, 2 m", 'say "hi"', "", "plain"],
                                     "n": [1, 2, 3, 4]}),
    "missing": lambda: pd.DataFrame({
        "text": pd.array(["a", None, "c"], dtype="str"),
        "ru": pd.array([40, None, 2], dtype="Int64"),
        "length": [1.5, np.nan, 2.0]}),
    "floats": lambda: pd.DataFrame({"x": [0.1 + 0.2, 1e20, 1e-7, -0.0, np.inf, 12.0, 5.25],
                                    "k": np.arange(7)}),
    "object": lambda: pd.DataFrame({"mixed": np.array([1, "s", None, 2.5], dtype=object),
                                    "b": list("wxyz")}),
    "one column": lambda: pd.DataFrame({"only": ["", "a,b", "c"]}),
    "line breaks": lambda: pd.DataFrame({"note": ["two\nlines", "cr\r"], "n": [1, 2]}),
    "nullable float": lambda: pd.DataFrame({"ru": pd.array([12.5, None], dtype="Float64"),
                                            "n": [1, 2]}),
    "odd header": lambda: pd.DataFrame({"a,b": [1], 'say "x"': [2]}),
    "empty": lambda: pd.DataFrame({"a": pd.array([], dtype="str"), "b": np.zeros(0)}),
}


@pytest.mark.parametrize("lineterminator", ["\n", "\r\n"])
@pytest.mark.parametrize("name", sorted(FRAMES))
def test_same_text_as_pandas(name, lineterminator):
    frame = FRAMES[name]()
    assert csv_text(frame, lineterminator) == frame.to_csv(index=False,
                                                           lineterminator=lineterminator)


def test_random_floats_round_trip_like_pandas():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.standard_normal(2000) * 10.0 ** rng.integers(-20, 20, 2000),
                          "y": rng.integers(-10**12, 10**12, 2000)})
    assert csv_text(frame) == frame.to_csv(index=False)


def test_write_csv_with_byte_order_mark(tmp_path):
    frame = FRAMES["quoting"]()
    write_csv(frame, tmp_path / "a.csv", encoding="utf-8-sig", lineterminator="\r\n")
    frame.to_csv(tmp_path / "b.csv", index=False, encoding="utf-8-sig", lineterminator="\r\n")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
