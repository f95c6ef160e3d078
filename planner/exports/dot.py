"""``topology.dot``: the expected wiring in prescriptive-topology form.

One undirected edge per physical cable, ``"device":"port" -- "device":"port"``, the form that
prescriptive topology checkers (Cumulus PTM style) compare against LLDP neighbours, and that
Graphviz draws (ecosystem.md §5 "DOT"). Each edge carries the cable ``label``.
"""

from __future__ import annotations

from pathlib import Path

FILENAME = "topology.dot"


def quote(text: str) -> str:
    """A DOT double-quoted ID (backslash and double quote escaped)."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot_lines(plan) -> list[str]:
    cables = plan.cables
    name = f"{plan.topology.family} plan"
    lines = [f"graph {quote(name)} {{"]
    lines.extend(
        f"  {quote(ad)}:{quote(ap)} -- {quote(bd)}:{quote(bp)} [label={quote(lb)}];"
        for ad, ap, bd, bp, lb in zip(cables["a_device"].astype(str), cables["a_port"].astype(str),
                                      cables["b_device"].astype(str), cables["b_port"].astype(str),
                                      cables["label"].astype(str)))
    lines.append("}")
    return lines


def write(plan, out_dir: Path) -> None:
    """Write ``topology.dot`` (UTF-8, LF)."""
    with open(Path(out_dir) / FILENAME, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(dot_lines(plan)) + "\n")
