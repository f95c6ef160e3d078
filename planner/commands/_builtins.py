"""What ``planner catalogs`` and ``planner floors`` share: a plain text table, and listing the
built-in files or showing one (by name or path) as a summary or as its YAML."""

from __future__ import annotations

from collections.abc import Callable

from planner.inputs.schema import resolve
from planner.run.errors import InputError
from planner.run.terminal import printable


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*header).rstrip(), *(fmt.format(*map(str, r)).rstrip() for r in rows)]


def list_or_show(action: str | None, name: str | None, as_yaml: bool, *, command: str,
                 kind: str, folder: str, names: Callable[[], list[str]], load: Callable,
                 describe: Callable) -> int:
    """``planner COMMAND`` lists the built-ins; ``planner COMMAND show NAME|PATH`` prints one."""
    if action is None:
        if name is not None:
            raise InputError(f"unexpected argument '{name}'; use "
                             f"'planner {command} show NAME|PATH'")
        rows = [[n, printable(load(n).description, None)] for n in names()]
        print("\n".join(table(["name", "description"], rows)))
        return 0
    if name is None:
        raise InputError(f"{command} show needs a {kind} NAME or PATH; built-ins: "
                         + ", ".join(names()))
    loaded = load(name)
    if as_yaml:
        print(printable(resolve(name, folder, kind).read_text(encoding="utf-8"), None,
                        keep="\n\t"), end="")
    else:
        print(printable(describe(loaded), None, keep="\n"))
    return 0
