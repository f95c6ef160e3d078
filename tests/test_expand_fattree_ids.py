"""Growth of a fat tree whose router ids pass its endpoint count: ``fattree:k=4,pods=2`` has 8
hosts (n0..n7) and routers r0..r11, so a router id indexes past the endpoint map. The work
order must still pair every standing cable (it raised IndexError before)."""

import json

from planner.cli import main


def test_small_fat_tree_grows_by_pods(tmp_path):
    """k=4, 2 -> 4 pods (hand count): a pod has 2 edge and 2 aggregation switches, 4 hosts; per
    pod 4 host cables, 4 edge-aggregation and 4 aggregation-core cables. Standing: 2 pods, 24
    cables, every one kept on its ports; added: the 2 new pods' 24."""
    old, new = tmp_path / "old", tmp_path / "new"
    assert main(["plan", "--topology", "fattree:k=4,pods=2", "--resilience", "off",
                 "--out", str(old)]) == 0
    assert main(["expand", "--from", str(old), "--topology", "fattree:k=4",
                 "--out", str(new)]) == 0
    cables = json.loads((new / "summary.json").read_text())["growth"]["cables"]
    assert (cables["kept"], cables["moved"], cables["removed"], cables["added"]) == \
        (24, 0, 0, 24)
