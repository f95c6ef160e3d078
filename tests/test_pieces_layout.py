"""The pieces table as ``planner.cabling.pieces.build`` lays it out column by column: each leg
points at its own piece, pieces in cable order with trunks last, and each link's end pieces
(``Pieces.end_pieces``) as a plain grouping of the legs finds them."""

from __future__ import annotations

import numpy as np
import pytest

from test_pieces import two_hall_plan


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    return two_hall_plan(str(tmp_path_factory.mktemp("pieces-layout")))


def test_every_leg_points_at_its_own_piece(planned):
    """A link's first and last legs are its cords (through panels) or its cable, named after
    its id; its middle legs are the trunks of ``StructuredPlan.links`` in order."""
    table, legs = planned.pieces.table, planned.pieces.legs
    ids = planned.cables["cable_id"].to_numpy(object)
    piece_id = table["piece_id"].to_numpy(object)[legs["piece"].to_numpy()]
    links = planned.structured.links
    chains = dict(zip(links["cable"].tolist(), links["trunks"].str.split(",").tolist()))
    assert chains, "the two-hall plan has links through panels"
    for cable, step, name in zip(legs["cable"].tolist(), legs["step"].tolist(),
                                 piece_id.tolist()):
        chain = chains.get(cable)
        if chain is None:
            expected = ids[cable]
        elif step == 0:
            expected = ids[cable] + ".A"
        elif step == len(chain) + 1:
            expected = ids[cable] + ".B"
        else:
            expected = chain[step - 1]
        assert name == expected


def test_pieces_are_in_cable_order_with_trunks_last(planned):
    table = planned.pieces.table
    cable = table["cable"].to_numpy()
    trunk = (table["role"] == "trunk").to_numpy()
    assert np.all(cable[trunk] == -1) and not np.any(trunk[:np.argmax(trunk)])
    assert np.all(np.diff(cable[~trunk]) >= 0)
    assert table["piece_id"].is_unique
    assert (table["assembly"].notna()).all()


def test_end_pieces_are_each_links_first_and_last_leg(planned):
    legs = planned.pieces.legs
    grouped = legs.sort_values(["cable", "step"]).groupby("cable")["piece"]
    first, last = planned.pieces.end_pieces()
    assert first.tolist() == grouped.first().tolist()
    assert last.tolist() == grouped.last().tolist()
    assert len(first) == len(planned.cables)
    sku = planned.pieces.table["sku"].to_numpy(object)
    assert planned.cables["a_sku"].tolist() == sku[first].tolist()
    assert planned.cables["b_sku"].tolist() == sku[last].tolist()
