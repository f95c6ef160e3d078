"""``topology.dot``: the expected wiring in prescriptive-topology form.

One undirected edge per physical cable, ``"device":"port" -- "device":"port"``, the form that
prescriptive topology checkers (Cumulus PTM style) compare against LLDP neighbours, and that
Graphviz draws (the DOT language). Each edge carries the cable ``label``. Written
``tuning.CSV_CHUNK_ROWS`` cables at a time.
"""

from __future__ import annotations

from pathlib import Path

from planner.exports._csv import column_text
from planner.exports.tuning import CSV_CHUNK_ROWS

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


def edge_lines(cables) -> list[str]:
    """The edge statements of the cables ``cables`` (rows of ``Plan.cables``)."""
    ends = [quoted(column_text(cables[k]))
            for k in ("a_device", "a_port", "b_device", "b_port", "label")]
    return list(map("  {}:{} -- {}:{} [label={}];".format, *ends))


def write(plan, out_dir: Path) -> None:
    """Write ``topology.dot`` (UTF-8, LF), ``tuning.CSV_CHUNK_ROWS`` cables at a time."""
    cables = plan.cables
    with open(Path(out_dir) / FILENAME, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(f"graph {quote(plan.topology.family + ' plan')} {{\n")
        for lo in range(0, len(cables), CSV_CHUNK_ROWS):
            fh.write("".join(line + "\n" for line in
                             edge_lines(cables.iloc[lo:lo + CSV_CHUNK_ROWS])))
        fh.write("}\n")
