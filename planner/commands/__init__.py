"""One module per ``planner`` sub-command (see planner/cli.py for the protocol)."""
