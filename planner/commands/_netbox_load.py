"""``planner netbox load``: run the bulk loader (``planner.commands._netbox_bulk``) with
NetBox's own Python in NetBox's ``netbox/`` folder, on the NetBox host.

Checks what it can before NetBox starts: the bundle is there, the folder holds ``manage.py``,
the Python exists. The loader's own output (a line per step, the counts) goes straight through;
its exit code is this command's (2 when it refuses a clash, naming it).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from planner.run.errors import InputError


def default_python(netbox_dir: Path) -> Path:
    """NetBox's install guide puts its virtual environment beside ``netbox/``."""
    return netbox_dir.parent / "venv" / "bin" / "python"


def loader_command(plan_dir: Path, netbox: str | None, python: str | None) -> tuple[list[str], Path]:
    """The command line that runs the loader, and the folder it runs in; InputError naming the
    flag when something is missing."""
    from planner.commands import _netbox_bulk
    from planner.exports import netbox as export
    bundle = plan_dir / export.FOLDER
    if not (bundle / "sites.csv").is_file():
        raise InputError(f"--plan {plan_dir}: no {export.FOLDER}/sites.csv; give a folder "
                         "written by 'planner plan'")
    if not netbox:
        raise InputError("--netbox: 'planner netbox load' needs NetBox's netbox/ folder (the "
                         "one holding manage.py), e.g. --netbox /opt/netbox/netbox")
    netbox_dir = Path(netbox).resolve()
    if not (netbox_dir / "manage.py").is_file():
        raise InputError(f"--netbox {netbox}: no manage.py there; give NetBox's netbox/ folder, "
                         "e.g. /opt/netbox/netbox")
    interpreter = Path(python) if python else default_python(netbox_dir)
    if not interpreter.is_file():
        raise InputError(f"--python {interpreter}: no such file; give the Python of NetBox's "
                         "virtual environment (--python /opt/netbox/venv/bin/python)")
    return ([str(interpreter), str(Path(_netbox_bulk.__file__).resolve()),
             str(bundle.resolve())], netbox_dir)


def run_load(plan_dir: Path, netbox: str | None, python: str | None) -> int:
    command, cwd = loader_command(plan_dir, netbox, python)
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, encoding="utf-8", errors="replace")
    errors = threading.Thread(target=_copy, args=(proc.stderr, sys.stderr), daemon=True)
    errors.start()
    try:
        _copy(proc.stdout, sys.stdout)
        errors.join()
        return proc.wait()
    except KeyboardInterrupt:  # the loader got the same Ctrl-C: let it roll back and say so
        errors.join(timeout=30)
        proc.wait()
        return 130


def _copy(source, target) -> None:
    """The loader's lines as they come (its progress), to this process's stream."""
    for line in source:
        target.write(line)
        target.flush()
