"""planner: from "this topology, these routers, this room" to a bill of materials and a wiring plan."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``planner.plan(...)`` without importing ``planner.plan`` first (PEP 562); the submodule
    is itself callable (see ``planner/plan.py``), so both spellings reach the same function."""
    if name == "plan":
        import importlib

        return importlib.import_module("planner.plan")
    raise AttributeError(f"module 'planner' has no attribute {name!r}")
