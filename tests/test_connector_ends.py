"""``Pieces.connector_ends`` made on demand from its index (``Pieces.connector_index``): any
columns at any positions are the rows of the whole frame; the index keeps values only for the
connectors of multi-link assemblies; the printed label of every piece (``printed_labels``,
what NetBox's cables.csv carries) is the label of its assembly's connector ends, as
labels.csv prints it.

Plans: a Dragonfly (h=2) on the hot-aisle floor with two twin-port catalogs, so that the pieces
are cables, twin-port assemblies, splitters (a head's two tails), patch cords and trunks."""

from __future__ import annotations

import numpy as np
import pytest

from planner.cabling.pieces import CONNECTOR_COLUMNS
from planner.plan import plan
from planner.topologies.dragonfly import dragonfly


@pytest.fixture(scope="module", params=["eth-51t", "ndr-400g"])
def pieces(request):
    return plan(dragonfly(h=2), request.param, "hot-aisle", strategy="hint", time_limit_s=5,
                seed=0).pieces


def test_the_plan_has_every_kind_of_piece(pieces):
    """The checks below cover every case: one-leg pieces, multi-link assemblies with a shared
    twin-port end and splitter tails, cords and trunks."""
    t = pieces.table
    assert {"cable", "cord", "trunk"} <= set(t["role"])
    multi = t[t["links"].to_numpy() > 1]
    legs_per_assembly = t.groupby("assembly").size()
    assert (legs_per_assembly > 1).any()
    assert multi["a_joined"].any() and (multi["a_joined"] & ~multi["b_joined"]).any()


@pytest.mark.parametrize("columns", [None, ["label"], ["this_port", "peer_ru", "end"],
                                     ["row", "assembly", "length_m", "peer_transceiver"]])
@pytest.mark.parametrize("where", ["all", "random", "multi", "empty"])
def test_any_columns_at_any_positions_are_the_whole_frame_rows(pieces, columns, where):
    whole = pieces.connector_ends()
    index = pieces.connector_index()
    n = len(whole)
    at = {"all": np.arange(n),
          "random": np.sort(np.random.default_rng(1).choice(n, n // 3, replace=False)),
          "multi": index.multi, "empty": np.empty(0, np.int64)}[where]
    got = pieces.connector_ends(columns, at=at)
    want = whole[CONNECTOR_COLUMNS if columns is None else columns].iloc[at]
    assert list(got.columns) == list(want.columns)
    assert got.index.tolist() == at.tolist()
    for name in want.columns:
        assert got[name].tolist() == want[name].tolist(), name


def test_only_multi_link_connectors_keep_values_of_their_own(pieces):
    """A connector of a one-leg piece is its row seen from one end: the whole frame's texts
    there are the table's; only connectors of assemblies of several legs are in ``multi``."""
    whole = pieces.connector_ends()
    t = pieces.table
    legs = t.groupby("assembly")["piece_id"].transform("size").to_numpy()
    row = whole["row"].to_numpy()
    several = legs[row] > 1
    assert np.flatnonzero(several).tolist() == pieces.connector_index().multi.tolist()
    one = np.flatnonzero(~several)
    b = whole["end"].to_numpy(object)[one] == "B"
    for field in ("place", "device"):
        this = np.where(b, t[f"b_{field}"].to_numpy(object)[row[one]],
                        t[f"a_{field}"].to_numpy(object)[row[one]])
        assert whole[f"this_{field}"].to_numpy(object)[one].tolist() == this.tolist()
    assert whole["label"].to_numpy(object)[one].tolist() == \
        t["label"].to_numpy(object)[row[one]].tolist()


def test_printed_labels_are_the_assemblies_connector_labels(pieces):
    """Every piece id (a multi-link assembly's ``C0091+C0092`` split into its links) gets the
    label of the assembly's connector ends, as labels.csv prints it."""
    whole = pieces.connector_ends()
    printed = {piece: label
               for ids, label in zip(whole["assembly"].tolist(), whole["label"].tolist())
               for piece in ids.split("+")}
    got = pieces.printed_labels()
    ids = pieces.table["piece_id"].tolist()
    assert got.tolist() == [printed[i] for i in ids]
    joined = pieces.assembly_labels()
    assert len(joined) and all("+" in a for a in joined.index)
    assert joined.to_dict() == {a: printed[a.split("+")[0]] for a in joined.index}
