"""``planner reprice`` carries a plan folder's files over but for those that show the catalog
prices: wiring.pdf, every per-hall sheet document (its cover repeats the totals) and the
viewer."""

from pathlib import Path

from planner.commands.reprice import carry


def test_carry_leaves_out_every_file_that_shows_catalog_prices(tmp_path: Path):
    plan = tmp_path / "plan"
    names = ["cables.csv", "labels.pdf", "wiring.pdf", "wiring-hall-01.pdf",
             "wiring-hall-12.pdf", "index.html", "bom.xlsx", "summary.json",
             "labels-hall-01.pdf", "netbox/devices.csv"]
    for name in names:
        (plan / name).parent.mkdir(parents=True, exist_ok=True)
        (plan / name).write_text(name)
    out = tmp_path / "new"
    out.mkdir()
    carry(plan, out)(out)
    kept = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert kept == ["cables.csv", "labels-hall-01.pdf", "labels.pdf", "netbox/devices.csv"]
