"""The layout shows the pipeline: one package per stage, imports one way only.

Every ``import`` and ``from ... import`` of ``planner/`` (those inside functions too) is read
with ``ast``. A test fails on an import circle between modules, on a stage package that imports
a stage after it (exports read the ``Plan``; nothing upstream imports exports or the command
line), on a module left flat in ``planner/`` that is not an orchestrator, and on a package that
``pyproject.toml`` would not install; and on a dotted name (``planner.a.b``) in the code or the
docs that no longer exists.
"""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "planner"

STAGES = ("run", "topologies", "inputs", "placement", "cabling", "performance", "costing",
          "exports", "verify")
"""The stage packages in data-flow order: each may import only itself and the ones before it.
``run`` (errors, interrupts, progress, guards, the output folder) serves every stage."""
TOP = ("__init__", "plan", "compare", "cli", "commands")
"""The orchestrators and the command line, above every stage: they may import anything, and
no stage imports them."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The planner modules ``name`` imports: ``from a.b import c`` names module ``a.b.c`` when
    that is a module, else ``a.b``; relative imports are resolved against ``name``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    found = modules()
    g = nx.DiGraph()
    g.add_nodes_from(found)
    for name, path in found.items():
        g.add_edges_from((name, other) for other in imported(name, path, set(found)))
    return g


def stage_of(module: str) -> str:
    """The stage (or top-level entry) a module belongs to: its first name under ``planner``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def rank(stage: str) -> int:
    return STAGES.index(stage) if stage in STAGES else len(STAGES)


def test_every_module_belongs_to_a_stage_or_the_top(graph):
    """Only the orchestrators and the command line stay flat in ``planner/``."""
    stray = sorted(m for m in graph if stage_of(m) not in STAGES + TOP)
    assert not stray, f"modules outside the stage packages: {stray}"
    for stage in STAGES:
        assert (PACKAGE / stage / "__init__.py").is_file(), f"stage package {stage} missing"


def test_no_import_circles(graph):
    cycle = next(nx.simple_cycles(graph), None)
    assert cycle is None, "import circle: " + " -> ".join(cycle + cycle[:1])


def test_stages_import_only_earlier_stages(graph):
    backwards = sorted(f"{a} imports {b}" for a, b in graph.edges
                       if rank(stage_of(b)) > rank(stage_of(a)))
    assert not backwards, "a stage imports a later one:\n" + "\n".join(backwards)


def test_run_machinery_imports_no_stage(graph):
    """``planner.run`` is below every stage: it takes nothing from them."""
    up = sorted(f"{a} imports {b}" for a, b in graph.edges
                if stage_of(a) == "run" and stage_of(b) != "run")
    assert not up, "\n".join(up)


def test_every_stage_package_says_what_it_takes_and_hands_on():
    """Each stage's ``__init__`` opens with a docstring (the map's first stop for a newcomer)."""
    for stage in STAGES:
        doc = ast.get_docstring(ast.parse((PACKAGE / stage / "__init__.py").read_text()))
        assert doc and len(doc.split()) >= 20, f"planner/{stage}/__init__.py needs a docstring"


def test_pyproject_installs_every_package():
    """A package missing from ``[tool.setuptools] packages`` works from the source tree and
    breaks in a regular install: the list must name every folder with an ``__init__.py``."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    on_disk = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    assert on_disk <= listed, f"not in pyproject.toml packages: {sorted(on_disk - listed)}"
    assert listed - on_disk <= {"planner.catalogs", "planner.layouts"}, sorted(listed - on_disk)


def test_the_checker_finds_a_circle_and_a_backward_import(tmp_path):
    """The import reader on a planted package: a circle and an upstream import of exports."""
    pkg = tmp_path / "planner"
    for rel, text in {"__init__.py": "", "cabling/__init__.py": "from planner.exports import x\n",
                      "exports/__init__.py": "", "exports/x.py": "from . import y\n",
                      "exports/y.py": "def f():\n    from planner.exports import x\n"}.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    names = {".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
             for p in pkg.rglob("*.py")}
    edges = {(n, m) for n, p in names.items() for m in imported(n, p, set(names))}
    assert ("planner.exports.x", "planner.exports.y") in edges
    assert ("planner.exports.y", "planner.exports.x") in edges
    assert [e for e in edges if rank(stage_of(e[1])) > rank(stage_of(e[0]))] == [
        ("planner.cabling", "planner.exports.x")]


DOTTED = re.compile(r"(?<![\w/])planner(?:\.[A-Za-z_]\w*)+")
DATA_PACKAGES = {"catalogs", "layouts"}  # the built-in YAML files, shipped as package data


def resolves(dotted: str) -> bool:
    """``planner.a.b.c`` names a module, or an attribute of the longest module prefix."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        try:
            for name in parts[k:]:
                obj = getattr(obj, name)
        except AttributeError:
            return False
        return True
    return False


def test_every_dotted_name_in_code_and_docs_exists():
    """A name such as ``planner.inputs.parts.media.choose_parts`` in a docstring, comment or doc
    leads a newcomer to the code: after a move, every such name must still resolve."""
    files = [p for folder in ("planner", "tests", "benchmarks", "examples", "docs")
             for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md")]
    files += [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    stale = sorted({f"{p.relative_to(ROOT)}: {name}"
                    for p in files if p != Path(__file__).resolve()
                    for name in DOTTED.findall(p.read_text(encoding="utf-8"))
                    if name.split(".")[1] not in DATA_PACKAGES and not resolves(name)})
    assert not stale, "names that do not exist:\n" + "\n".join(stale)


@pytest.mark.parametrize("name, exists", [
    ("planner.inputs.parts.media.choose_parts", True),     # a function of a module
    ("planner.placement.tuning.HARD_CAP_FACTOR", True),    # a constant
    ("planner.cabling.structured.StructuredPlan", True),   # a class of a sub-module
    ("planner.media.choose_parts", False),                 # the flat module before the layout
    ("planner.placement.budget.HARD_CAP_FACTOR", False),   # moved to tuning
])
def test_resolves_tells_a_stale_name(name, exists):
    assert resolves(name) is exists
