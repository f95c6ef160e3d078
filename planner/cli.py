"""Command line: ``planner <command> ...``.

Each command lives in its own module under ``planner/commands/`` and exposes ``NAME``,
``HELP``, ``ORDER`` (position in ``--help``), ``add_arguments(parser)`` and ``run(args) -> int``.
Bad input (``InputError``) prints one line and exits 2; Ctrl-C, SIGTERM and SIGHUP print one
line and exit 128 + the signal number (130, 143, 129; ``planner.run.interrupts``); anything else is
an internal error (1). Command modules import their heavy libraries (pandas, SciPy, OR-Tools,
numba) inside ``run``, so ``planner --help`` and the light commands start fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from planner.run import interrupts
from planner.run.errors import InputError

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line naming the option, exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _command_modules():
    import planner.commands as pkg
    mods = [importlib.import_module(f"planner.commands.{m.name}")
            for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_")]
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 99), m.NAME))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="planner", description=__import__("planner").__doc__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in _command_modules():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        with interrupts.handled():
            return _main(argv)
    except KeyboardInterrupt as stop:  # a stop signal while the handlers are put back
        signum = interrupts.signal_of(stop)
        print(f"planner: {interrupts.describe(signum)}", file=sys.stderr)
        return interrupts.exit_code(signum)


def _main(argv: list[str] | None) -> int:
    command = "planner"
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help()
            return EXIT_BAD_INPUT
        command = f"planner {args.command}"
        from planner.run.output import created_time
        created_time()  # a bad SOURCE_DATE_EPOCH is refused before any library reads it
        return int(args._run(args) or EXIT_OK)
    except InputError as err:
        print(f"{command}: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as stop:
        signum = interrupts.signal_of(stop)
        print(f"{command}: {interrupts.describe(signum)}; nothing was written", file=sys.stderr)
        return interrupts.exit_code(signum)
    except BrokenPipeError:  # output piped into a reader that stopped early (``| head``)
        # Python docs, "Note on SIGPIPE": point stdout at devnull so the exit flush stays quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
