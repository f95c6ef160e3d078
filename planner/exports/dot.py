"""``topology.dot``: the expected wiring in prescriptive-topology form.

One undirected edge per physical cable, ``"device":"port" -- "device":"port"``, the form that
prescriptive topology checkers (Cumulus PTM style) compare against LLDP neighbours, and that
Graphviz draws (the DOT language). Each edge carries the cable ``label``.
"""

from __future__ import annotations

from pathlib import Path

from planner.exports._csv import column_text

FILENAME = "topology.dot"


def quote(text: str) -> str:
    """A DOT double-quoted ID (backslash and double quote escaped)."""
    return quoted([text])[0]


def quoted(values) -> list[str]:
    """``quote`` of every value, at once (escaping only when some value needs it)."""
    texts = [str(v) for v in values]
    joined = "\x00".join(texts)
    if "\\" in joined or '"' in joined:
        texts = joined.replace("\\", "\\\\").replace('"', '\\"').split("\x00")
    return ['"' + t + '"' for t in texts]


def dot_lines(plan) -> list[str]:
    cables = plan.cables
    name = f"{plan.topology.family} plan"
    lines = [f"graph {quote(name)} {{"]
    ends = [quoted(column_text(cables[k]))
            for k in ("a_device", "a_port", "b_device", "b_port", "label")]
    lines.extend(map("  {}:{} -- {}:{} [label={}];".format, *ends))
    lines.append("}")
    return lines


def write(plan, out_dir: Path) -> None:
    """Write ``topology.dot`` (UTF-8, LF)."""
    with open(Path(out_dir) / FILENAME, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(dot_lines(plan)) + "\n")
