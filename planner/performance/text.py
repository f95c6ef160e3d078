"""The performance block in words: the lines ``planner plan`` prints and the PDF cover shows, and
θ as ``compare`` writes it."""

from __future__ import annotations


def theta_text(block: dict) -> str:
    """``0.957`` (exact) or ``<= 0.912`` (an upper bound)."""
    theta = block.get("theta")
    if theta is None:
        return "n/a"
    return f"{theta:.3f}" if block.get("kind") == "exact" else f"<= {theta:.3f}"


def summary_lines(perf: dict, total_cost: float | None = None) -> list[tuple[str, str]]:
    """Plain-language lines of the performance block (``planner plan`` output, PDF cover)."""
    hops, lat, bis, uni = perf["hops"], perf["latency_ns"], perf["bisection"], perf["uniform"]
    lines = [("hops", f"{hops['average']:.3f} average, {hops['diameter']} at most "
                      "(router-router links between two endpoints)")]
    if lat.get("average") is not None:
        sampled = "" if lat["method"].startswith("exact") else f"; {lat['method']}"
        lines.append(("latency", f"{lat['average']:,.0f} ns average, {lat['max']:,.0f} ns worst "
                                 f"pair at zero load (router {lat['router_ns']:g} ns, "
                                 f"{lat['router_source']}{sampled})"))
    bound = "" if bis["kind"] == "exact" else \
        f" (partitioner cut, an upper bound; at least {bis['lower_bound_links']:,})"
    lines.append(("bisection", f"{bis['links']:,} cables = {bis['tbps']:,.3f} Tb/s one way"
                               f"{bound}"))
    per_tbps = perf.get("cost_per_delivered_tbps")
    money = (f", ${per_tbps:,.0f} per delivered Tb/s" + (" (at least)" if uni["kind"] != "exact"
                                                         else "")) if per_tbps else ""
    lower = (f"; ECMP minimal routing {uni['ecmp_minimal']:.3f}"
             if uni.get("ecmp_minimal") is not None else "")
    lines.append(("uniform theta", f"{theta_text(uni)} of injection bandwidth ({uni['kind']}: "
                               f"{uni['method']}){lower}; {uni['delivered_tbps']:,.3f} Tb/s "
                               f"delivered{money}"))
    wc = perf.get("worst_case")
    if wc:
        parts = []
        if wc.get("ecmp_minimal") is not None:
            parts.append(f"{wc['ecmp_minimal']:.3f} with ECMP minimal routing")
        if wc.get("optimal") is not None:
            parts.append(f"{wc['optimal']:.3f} with optimal routing")
        parts.append(f"paper: {wc['formula']}")
        lines.append(("worst-case theta", f"{'; '.join(parts)} ({wc['source']}: {wc['pattern']})"))
    return lines
