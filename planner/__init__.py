"""planner: from "this topology, these routers, this room" to a bill of materials and a wiring plan."""

__version__ = "0.1.0"
