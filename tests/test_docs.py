"""Every comment, docstring and doc cites something the repository contains.

The developers' guide: no comment or docstring may point at a file the repository does not
contain. The research notes the planner was built from (a cost-model, an ecosystem, a layout and
an anchors note, with section tags such as "D1" or "B1-B7"), the shorthand only they define for
the papers ("SF14", "S004", "FUJ") and the design and interface pictures kept beside the
repository are such files: cite the paper (authors, venue, section) or a file of the repository
(docs/topologies.md for constructions and published tables, docs/models.md for cost and power).
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

from planner.topologies import FAMILIES
from test_topologies import TABLE_ROWS, TABLES

ROOT = Path(__file__).resolve().parents[1]
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()
SCANNED = ("planner", "tests", "examples", "benchmarks", "catalogs", "layouts", "docs",
           "README.md", "CONTRIBUTING.md")
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".js", ".html", ".css", ".csv", ".txt",
                 ".cfg", ".anynet", ".graphml", ".json"}

# Names of files outside the repository and the notes' shorthand for the papers.
OUTSIDE = re.compile(r"cost_models|ecosystem\.md|layout_opt|anchors\.md|shared/(?:reference|seeds)"
                     r"|/work/shared|INTERFACES\.md|DESIGN\.md|\bSF14\b|\bFUJ\b|\bS00[0-9]\b")
# A bare section tag of the notes (A1-A9, B1-B7, C1-C10, D0-D9) in prose: not a spreadsheet
# cell (Sheet!A1, $A$1, A1:H9, or anywhere in a formula =B12/B6), not a cabinet name (A01,
# H2-A01), not "C4-free".
SECTION_TAG = re.compile(r"(?<![\w!$@'=:.#])[A-D](?:10|[0-9])(?!\w|-[a-z]|:[A-Z$])")
FORMULA = re.compile(r"=[^\s`'\"]*")
PROSE_NAMES = {"A4", "C4"}  # the ISO paper size; the 4-cycle of graph theory
MD_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b")



def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "--", *SCANNED], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    return sorted(f for f in out if Path(f).suffix in TEXT_SUFFIXES and f != THIS
                  and (ROOT / f).is_file())


def prose(path: str, text: str) -> list[tuple[int, str]]:
    """(line, text) of the comments and docstrings of a Python file, the comment lines of a
    YAML file, every line of a Markdown file; nothing else is prose."""
    suffix = Path(path).suffix
    if suffix == ".md":
        return list(enumerate(text.splitlines(), 1))
    if suffix in (".yaml", ".yml"):
        return [(n, line) for n, line in enumerate(text.splitlines(), 1)
                if line.lstrip().startswith("#")]
    if suffix != ".py":
        return []
    found = [(tok.start[0], tok.string) for tok in
             tokenize.generate_tokens(io.StringIO(text).readline) if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            found += [(node.lineno + i, line)
                      for i, line in enumerate(node.value.value.splitlines())]
    return found


def section_tags(line: str) -> list[str]:
    return [m for m in SECTION_TAG.findall(FORMULA.sub("", line)) if m not in PROSE_NAMES]


def outside_references(path: str) -> list[str]:
    """'path:line: text' of every line citing something outside the repository."""
    text = (ROOT / path).read_text(encoding="utf-8", errors="replace")
    bad = {n: line for n, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)}
    bad.update({n: line for n, line in prose(path, text) if section_tags(line)})
    return [f"{path}:{n}: {line.strip()[:120]}" for n, line in sorted(bad.items())]


def test_the_checks_recognise_what_they_look_for():
    cited = ["see cost_models.md D2", "(SF14 §3.1)", "FUJ", "S004's Hamming graphs",
             "INTERFACES.md", "DESIGN.md \"Contracts\"", "shared/reference/ecosystem.md §7",
             "layout_opt.md §2", "anchors.md"]
    assert all(OUTSIDE.search(text) for text in cited)
    assert section_tags("the racks (A1), tables B1-B7, see C2/C3; D1: generator sets") == \
        ["A1", "B1", "B7", "C2", "C3", "D1"]
    assert section_tags("cabinets A01, H2-A01 and D12; =B12/B6; Sheet!A1; ref A1:H9; $A$1; "
                        "C4-free graphs; A4 sheets; 2D HyperX; a C4 test") == []
    assert OUTSIDE.search("S0001 SF140 FUJI") is None
    assert MD_NAME.findall("docs/models.md, floors.md and (see [x](catalogs.md))") == \
        ["docs/models.md", "floors.md", "catalogs.md"]


def test_no_comment_docstring_or_doc_cites_outside_the_repository():
    offending = {}
    for path in tracked_files():
        hits = outside_references(path)
        if hits:
            offending[path] = hits
    assert not offending, "cite the paper or a repository file instead:\n" + "\n".join(
        hit for hits in offending.values() for hit in hits)


def test_every_cited_markdown_file_exists():
    """``docs/x.md``, ``benchmarks/RESULTS.md``, ``[text](models.md)``: each names a file of the
    repository. A path under docs/ must exist as written; another path or a bare name may also
    name a file the planner writes under a tracked file's name (``netbox/README.md``)."""
    tracked = subprocess.run(["git", "ls-files", "*.md", "**/*.md"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    names = {Path(f).name for f in tracked}
    missing = []
    for path in tracked_files():
        text = (ROOT / path).read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            for cited in MD_NAME.findall(line):
                exists = ((ROOT / cited).is_file() or (ROOT / Path(path).parent / cited).is_file()
                          or (not cited.startswith("docs/") and Path(cited).name in names))
                if not exists:
                    missing.append(f"{path}:{n}: {cited}")
    assert not missing, "\n".join(missing)


def test_topologies_doc_covers_every_family_and_table_key():
    """docs/topologies.md has a section per builder (its spec form in the heading) and a
    heading for every table key that tests/test_topologies.py files its rows under."""
    doc = (ROOT / "docs" / "topologies.md").read_text(encoding="utf-8")
    headings = [line for line in doc.splitlines() if line.startswith("#")]
    for family in FAMILIES:
        assert any(f"`{family}:" in h for h in headings), family
    assert {row[0] for row in TABLE_ROWS} == set(TABLES)
    for key in TABLES:
        assert any(f"`{key}`" in h for h in headings), key


@pytest.mark.parametrize("spec", sorted({row[1] for row in TABLE_ROWS}))
def test_every_table_row_spec_is_in_the_topologies_doc(spec):
    """The doc's table sections list each row's spec, so a test's row can be looked up."""
    assert f"`{spec}`" in (ROOT / "docs" / "topologies.md").read_text(encoding="utf-8")
