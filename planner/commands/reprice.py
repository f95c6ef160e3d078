"""``planner reprice --plan DIR --quote FILE ... --out NEWDIR``: the same plan (same cables,
same cabinets) at quoted prices.

Reads the plan's BOM, cables and summary back (``planner.commands._plan_folder``), awards the
quotes per line, per class or to one supplier (``planner.costing.quotes.award``), and writes
NEWDIR: the plan folder's files with ``bom.xlsx`` and ``summary.json`` rewritten by their own
writers at the new prices, ``delta.csv``/``delta.xlsx`` (old and new unit price, supplier,
quantity break, Δ per line) and none of ``wiring.pdf``, ``wiring-hall-NN.pdf`` and
``index.html`` (``STALE``).
It then re-plans with the quoted prices (``planner plan --prices``) and reports whether the
design would change and what a re-plan would save.
"""

from __future__ import annotations

import datetime

NAME = "reprice"
HELP = "re-price a plan from supplier quotes (CSV/XLSX) without re-planning; report what a "\
       "re-plan at those prices would save"
ORDER = 56
STALE = ("wiring.pdf", "wiring-hall-*.pdf", "index.html")
"""Files of the plan folder not carried over (names or ``fnmatch`` patterns): they show the
catalog prices (the wiring PDF's BOM pages and the cover's totals, which every per-hall sheet
document repeats; the viewer's BOM table); the plan folder keeps them, for the same cables."""


def add_arguments(parser) -> None:
    from planner.costing.awards import AWARDS
    parser.add_argument("--plan", required=True, metavar="DIR",
                        help="plan folder written by 'planner plan'")
    parser.add_argument("--quote", required=True, action="append", metavar="FILE",
                        help="a filled-in rfq sheet (CSV or XLSX); repeat for several suppliers")
    parser.add_argument("--out", required=True, metavar="NEWDIR",
                        help="folder for the re-priced plan (not the plan folder itself)")
    parser.add_argument("--award", choices=AWARDS, default="per-line",
                        help="cheapest valid offer per line (default), one supplier per class, "
                             "or one supplier for all lines")
    parser.add_argument("--rate", action="append", default=[], metavar="CUR=RATE",
                        help="exchange rate of a quote currency: one CUR costs RATE of the "
                             "plan's currency (e.g. EUR=1.08)")
    parser.add_argument("--date", metavar="YYYY-MM-DD", default=None,
                        help="pricing date: quote lines valid until before it are refused "
                             "(default today)")
    parser.add_argument("--no-replan", dest="replan", action="store_false",
                        help="skip the re-plan at the quoted prices (large plans)")


def pricing_date(text: str | None) -> datetime.date:
    from planner.run.errors import InputError
    if text is None:
        return datetime.date.today()
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"--date {text!r}: give a date as YYYY-MM-DD") from None


def replan(folder, summary: dict, quotes) -> dict:
    """Re-plan the plan's topology, floor and options with the quoted prices: its total, and
    how the cables would differ; ``{"available": False, "why": ...}`` when its inputs cannot be
    found again."""
    from pathlib import Path

    from planner.costing.reprice import priced_catalog, quoted_prices
    from planner.costing.bom import Spares
    from planner.inputs.catalog import load_catalog
    from planner.inputs.floor import load_floor
    from planner.plan import plan
    from planner.run.errors import InputError
    top, opts = summary["topology"], summary["options"]
    if top["family"] == "import":
        return {"available": False, "why": "the topology was imported from a file"}
    spec = f"{top['family']}:" + ",".join(f"{k}={v}" for k, v in top["params"].items())
    recorded = Path(folder) / "catalog.yaml"
    try:
        catalog = load_catalog(recorded if recorded.is_file() else summary["catalog"]["name"])
        floor = load_floor(summary["floor"]["name"])
        catalog = priced_catalog(catalog, quoted_prices(quotes))
    except InputError as err:
        return {"available": False, "why": str(err)}
    spares = opts.get("spares") or {"cables": opts.get("spares_pct", 0.0)}
    group = summary["floor"].get("group_endpoints")
    try:
        result = plan(spec, catalog, floor, strategy=opts["strategy"], seed=opts["seed"],
                      time_limit_s=opts["time_limit_s"],
                      endpoint_cables=opts["endpoint_cables"], spares=Spares(**spares),
                      router_latency_ns=opts.get("router_latency_ns"),
                      group_endpoints=group if group != floor.group_endpoints else None)
    except InputError as err:
        return {"available": False, "why": f"re-planning {spec}: {err}"}
    old, new = summary["cables"], result.summary["cables"]
    changed = {k: [old[k]["electrical"], new[k]["electrical"]] for k in ("network", "endpoint")
               if old[k]["electrical"] != new[k]["electrical"]}
    skus = sorted(set(old["by_sku"]) | set(new["by_sku"]))
    parts = {k: [old["by_sku"].get(k, 0), new["by_sku"].get(k, 0)] for k in skus
             if old["by_sku"].get(k, 0) != new["by_sku"].get(k, 0)}
    return {"available": True, "total": result.summary["cost"]["total"],
            "design_changes": bool(changed or parts),
            "electrical_before_after": changed, "cables_by_part_before_after": parts,
            "cabinets": result.summary["placement"]["cabinets"]}


def carry(folder, target):
    """A writer copying the plan folder's files into the new folder, but for the rewritten
    and stale ones, hidden ones (the manifest, staging folders) and ``target`` (``--out``)
    itself when it lies inside."""
    import shutil
    from fnmatch import fnmatch

    from planner.exports import bom_xlsx, summary_json

    def copy(out) -> None:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if (path.is_file() and rel.name not in (bom_xlsx.FILENAME, summary_json.FILENAME)
                    and not any(fnmatch(rel.name, stale) for stale in STALE)
                    and not any(part.startswith(".") for part in rel.parts)
                    and target not in path.resolve().parents):
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, out / rel)
    return copy


def report(note: dict, lines: int, total_new: float, out: str) -> None:
    """What re-pricing did, on the terminal."""
    cur, total_old, estimate = note["currency"], note["total_before"], note["replan"]
    for line in note["expired"]:
        print(f"refused: {line}")
    print(f"re-priced {lines - len(note['unquoted'])} of {lines} lines ({note['award']}): "
          f"total {total_old:,.2f} -> {total_new:,.2f} {cur} ({total_new - total_old:+,.2f})")
    if note["unquoted"]:
        print(f"unquoted, old price kept: {', '.join(note['unquoted'])}")
    if estimate.get("available"):
        moves = estimate["cables_by_part_before_after"]
        verdict = ("would change the design (cables per part number: " + ", ".join(
            f"{k} {a}->{b}" for k, (a, b) in moves.items()) + ")"
            if estimate["design_changes"] else "would keep the same design")
        print(f"re-plan at the quoted prices {verdict}: total {estimate['total']:,.2f} {cur}, "
              f"saving {estimate['saving']:,.2f} {cur} against this re-pricing "
              "(planner plan --prices FILE makes it)")
    else:
        print(f"re-plan estimate not made: {estimate['why']}")
    print(f"output: {out}/ (without {', '.join(STALE)}: they show the catalog prices; "
          f"the plan folder has them for the same cables)")


def run(args) -> int:
    from pathlib import Path
    from types import SimpleNamespace

    from planner.commands._plan_folder import currency, read_plan
    from planner.costing import quotes as q
    from planner.costing.reprice import (link_prices, repriced_bom, repriced_summary,
                                         unquoted)
    from planner.exports import bom_xlsx, summary_json
    from planner.exports.quotes_xlsx import write_delta
    from planner.run import output
    from planner.run.errors import InputError
    folder = Path(args.plan)
    old = read_plan(folder)
    if Path(args.out).resolve() == folder.resolve():
        raise InputError(f"--out '{args.out}' is the plan folder; give a new folder so the "
                         "plan stays as it was")
    output.check_out(args.out, [folder / bom_xlsx.FILENAME, *args.quote])
    today, cur = pricing_date(args.date), currency(old.summary)
    rates = q.parse_rates(args.rate)
    known = set(q.bom_keys(old.bom))
    quotes = [q.read_quote(p, known, currency=cur, rates=rates, today=today)
              for p in args.quote]
    bom, delta = repriced_bom(old.bom, q.award(old.bom, quotes, args.award))
    total_new = float(bom["extended_price"].sum())
    estimate = replan(folder, old.summary, quotes) if args.replan else \
        {"available": False, "why": "--no-replan"}
    if estimate.get("available"):
        estimate["saving"] = round(total_new - estimate["total"], 2)
    note = {"quotes": [str(p) for p in args.quote], "award": args.award, "currency": cur,
            "rates": rates, "date": today.isoformat(),
            "total_before": round(float(old.bom["extended_price"].sum()), 2),
            "unquoted": unquoted(delta)["sku"].astype(str).tolist(),
            "expired": [e for quote in quotes for e in quote.expired], "replan": estimate}
    cables = old.cables.assign(unit_price=link_prices(old.cables, old.bom, bom).round(6))
    new = SimpleNamespace(**{**vars(old), "bom": bom, "cables": cables,
                             "summary": repriced_summary(old.summary, bom, note)})
    output.write_folder(args.out, [("carry", carry(folder, Path(args.out).resolve())),
                                   ("bom_xlsx", lambda d: bom_xlsx.write(new, d)),
                                   ("summary_json", lambda d: summary_json.write(new, d)),
                                   ("delta", lambda d: write_delta(delta, d))])
    report(note, len(bom), total_new, args.out)
    return 0
