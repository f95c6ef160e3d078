"""What reaches the terminal: text from inputs with its control characters escaped, and a
stdout and stderr that never decide the result of a run.

Text read from an input (a catalog's SKU or description, a floor's name, an LLDP neighbour's
device name, a file name) can hold control characters. Printed raw, an escape sequence
(ECMA-48 ``ESC ]``, ``ESC [``) retitles, clears or rewrites the terminal, a newline forges a line
of the report and bidirectional controls reorder what is shown (CVE-2021-42574, "Trojan
Source"). ``printable`` escapes them the way Python's ``repr`` does (``\\x1b``, ``\\n``,
``\\u202e``); every place that prints input text calls it.

``guarded_streams`` wraps stdout and stderr for a command: a reader that closes the pipe early
(``| head -1``, ``| grep -q``), a full disk or an I/O error on stdout stops the printing and
never the work, and a character the stream's encoding cannot show (``θ`` under
``PYTHONIOENCODING=latin-1``) is printed in ASCII (``theta``, or ``\\u2248``). What happened to
the stream is kept in ``lost`` for the exit code (``docs/robustness.md``, "Exit codes").
"""

from __future__ import annotations

import errno
import io
import os
import re
import sys
import unicodedata
from contextlib import contextmanager

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")
"""Unicode's explicit directional formatting characters (UAX #9, section 2)."""

MAX_PRINTED = 200
"""Characters of one input text printed in a report cell or an error line; the rest is cut
with '...' (a 40 KB device name must not flood the terminal)."""

MAX_ERROR_LINE = 5 * MAX_PRINTED
"""Characters of one error line (``error_line``): room for the field, a quoted value cut to
``MAX_PRINTED`` and the fix; the longest message the planner writes itself is shorter."""

ASCII_SPELLING = str.maketrans({"θ": "theta", "≤": "<=", "≥": ">=", "×": "x", "·": "*",
                                "—": "-", "–": "-", "…": "...", "µ": "u", "≈": "~",
                                "→": "->", "°": " deg", "⌈": "ceil(", "⌉": ")", "≠": "!="})
"""How the planner's own symbols are written on a stream that cannot show them."""


def _unsafe(ch: str) -> bool:
    """A control character: U+0000-U+001F, DEL and U+0080-U+009F (category Cc), the line and
    paragraph separators, a bidirectional control, or a byte-order mark."""
    return (ch in BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Zl", "Zp")
            or ch == "\ufeff")


def printable(text, limit: int | None = MAX_PRINTED, keep: str = "") -> str:
    """``text`` (any object, as ``str``) with every control character escaped as ``repr``
    escapes it, cut to ``limit`` characters with '...'; characters in ``keep`` (the newlines of
    a multi-line report) stay as they are."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "..."
    if text.isprintable() or not any(_unsafe(ch) and ch not in keep for ch in text):
        return text
    return "".join(ch.encode("unicode_escape").decode("ascii")
                   if _unsafe(ch) and ch not in keep else ch for ch in text)


def error_line(message) -> str:
    """``message`` (an ``InputError``, an argparse error) as one readable line: control
    characters escaped and, while it is longer than ``MAX_ERROR_LINE``, the longest stretch
    between quote marks (a quoted input: a name, a path, a value) cut to ``MAX_PRINTED`` with
    '...'; what is still too long loses its middle, so the field (at the start) and the fix
    (at the end) stay."""
    line = printable(message, None)
    pieces = re.split(r"(['\"])", line)
    by_length = sorted(range(len(pieces)), key=lambda i: -len(pieces[i]))
    total = len(line)
    for i in by_length:
        if total <= MAX_ERROR_LINE or len(pieces[i]) <= MAX_PRINTED + 3:
            break
        total -= len(pieces[i]) - MAX_PRINTED - 3
        pieces[i] = pieces[i][:MAX_PRINTED] + "..."
    line = "".join(pieces)
    if len(line) <= MAX_ERROR_LINE:
        return line
    half = (MAX_ERROR_LINE - 5) // 2
    return f"{line[:half]} ... {line[-half:]}"


def in_ascii(text: str, encoding: str) -> str:
    """``text`` as ``encoding`` can show it: the planner's symbols spelled out, anything else
    as a backslash escape."""
    return text.translate(ASCII_SPELLING).encode(encoding or "ascii", "backslashreplace") \
        .decode(encoding or "ascii")


QUIET_LOSSES = (errno.EPIPE,)
"""Stream errors that end the printing without changing the exit code: the reader stopped
reading (``| head -1``), which is its choice."""


class GuardedStream(io.TextIOBase):
    """A text stream that writes to ``stream`` until it fails. The first OSError (a closed pipe,
    a full disk, an I/O error) is kept in ``lost``; from then on the file descriptor points at
    the null device, so nothing more is written there (the exit-time flush included) and the run
    goes on. Text the encoding cannot show is written in ASCII (``in_ascii``)."""

    def __init__(self, stream):
        super().__init__()
        self.stream = stream
        self.lost: OSError | None = None

    @property
    def encoding(self):
        return getattr(self.stream, "encoding", None)

    @property
    def errors(self):
        return getattr(self.stream, "errors", None)

    def isatty(self) -> bool:
        try:
            return not self.lost and bool(self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.lost is not None:
            return len(text)
        try:
            try:
                self.stream.write(text)
            except UnicodeEncodeError:
                self.stream.write(in_ascii(text, self.encoding))
        except OSError as err:
            self._lose(err)
        except ValueError:           # the stream was closed under us
            self._lose(OSError(errno.EBADF, os.strerror(errno.EBADF)))
        return len(text)

    def flush(self) -> None:
        if self.lost is None:
            try:
                self.stream.flush()
            except OSError as err:
                self._lose(err)
            except ValueError:
                self._lose(OSError(errno.EBADF, os.strerror(errno.EBADF)))

    def _lose(self, err: OSError) -> None:
        """Keep ``err``; point the descriptor at the null device (Python docs, "Note on
        SIGPIPE") so the buffered rest and the exit-time flush go nowhere, quietly."""
        self.lost = err
        try:
            fd = self.stream.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)
        except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
            pass             # not a file (a test's capture): nothing is flushed at exit

    def reason(self) -> str:
        """Why the stream was lost, for the one line on stderr."""
        err = self.lost
        return err.strerror or str(err) if err is not None else ""


class Streams:
    """The guarded stdout and stderr of one command (``guarded_streams``)."""

    def __init__(self, stdout: GuardedStream, stderr: GuardedStream):
        self.stdout, self.stderr = stdout, stderr

    def stdout_failed(self) -> bool:
        """stdout failed for a reason other than a reader that stopped reading."""
        lost = self.stdout.lost
        return lost is not None and lost.errno not in QUIET_LOSSES


@contextmanager
def guarded_streams():
    """``sys.stdout`` and ``sys.stderr`` as ``GuardedStream`` during the block (a closed
    descriptor, ``>&-``, reads as the null device). Yields the ``Streams``."""
    saved = sys.stdout, sys.stderr
    guarded = [GuardedStream(s if s is not None else open(os.devnull, "w", encoding="utf-8"))
               for s in saved]
    sys.stdout, sys.stderr = guarded
    try:
        yield Streams(*guarded)
    finally:
        for stream in guarded:
            stream.flush()
        sys.stdout, sys.stderr = saved
