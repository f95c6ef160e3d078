"""Command line: ``planner <command> ...``.

Each command lives in its own module under ``planner/commands/`` and exposes ``NAME``,
``HELP``, ``ORDER`` (position in ``--help``), ``add_arguments(parser)`` and ``run(args) -> int``.
Bad input (``InputError``) prints one line and exits 2; Ctrl-C, SIGTERM and SIGHUP print one
line and exit 128 + the signal number (130, 143, 129; ``planner.run.interrupts``); anything else is
an internal error (1). stdout never decides the result (``planner.run.terminal``): a reader that
closes the pipe early leaves the exit code as it is, and a stdout that fails otherwise (a full
disk) turns a success into 74 (``EX_IOERR``, sysexits.h) with one line on stderr. Command
modules import their heavy libraries (pandas, SciPy, OR-Tools, numba) inside ``run``, so
``planner --help`` and the light commands start fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from planner.run import interrupts
from planner.run.errors import InputError
from planner.run.terminal import error_line, guarded_streams

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2
EXIT_STDOUT_FAILED = 74
"""The run succeeded but stdout could not be written (a full disk): sysexits.h's EX_IOERR."""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line naming the option, exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(EXIT_BAD_INPUT,
                  f"{self.prog}: error: {error_line(message)} (see '{self.prog} --help')\n")


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
    with guarded_streams() as streams:
        try:
            with interrupts.handled():
                code = _main(argv)
        except KeyboardInterrupt as stop:  # a stop signal while the handlers are put back
            signum = interrupts.signal_of(stop)
            print(f"planner: {interrupts.describe(signum)}", file=sys.stderr)
            return interrupts.exit_code(signum)
        streams.stdout.flush()
        if code == EXIT_OK and streams.stdout_failed():
            print(f"planner: stdout: cannot write ({streams.stdout.reason()}): the report "
                  f"printed is incomplete; the run itself completed", file=sys.stderr)
            return EXIT_STDOUT_FAILED
        return code


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
        print(f"{command}: error: {error_line(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as stop:
        return _stopped(command, interrupts.signal_of(stop))
    except Exception:
        if interrupts.received() is None:
            raise
        return _stopped(command, interrupts.received())  # a library lost the KeyboardInterrupt


def _stopped(command: str, signum: int) -> int:
    print(f"{command}: {interrupts.describe(signum)}; nothing was written", file=sys.stderr)
    return interrupts.exit_code(signum)


if __name__ == "__main__":
    sys.exit(main())
