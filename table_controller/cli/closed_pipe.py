"""Output into a closed pipe: `cardtable ... | head -3` ends quietly when `head` has read its lines.

Python ignores SIGPIPE, so a write to a pipe whose reader has gone raises `BrokenPipeError` wherever the
command happens to print: a traceback, and at exit one more ("Exception ignored ... BrokenPipeError") from the
interpreter's last flush of stdout. `quiet_on_closed_pipe` is the one place that turns it into a quiet end.

Why the exception and not SIGPIPE's default action (die at the write): the exception unwinds through the
commands' `finally` blocks, so a journal is closed, a simulator process stopped and a file either written whole
or not begun; a signal would kill the process in the middle of any of them.

Why exit 141: it is what a shell reports for a tool that SIGPIPE ended (128 + 13), so a script running with
`set -o pipefail` sees `cardtable` as it sees `cat` or `yes`. 0 would claim the command ran to its end (a
`demo --hands 30` stopped after the hands the reader saw), and 1 and 2 already mean a finding and bad input.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable
from typing import TextIO

EXIT_CLOSED_PIPE = 141  # 128 + SIGPIPE, as a shell reports a tool the signal ended


def quiet_on_closed_pipe(main: Callable[[], int]) -> int:
    """``main()``'s exit code, its output flushed before returning; `EXIT_CLOSED_PIPE` without a word when a
    reader of stdout or stderr went away before it had all of it.

    A `BrokenPipeError` that is not about stdout or stderr (a socket to the shoe, a child process's stdin) is
    not a reader going away: it is raised on."""
    try:
        try:
            code = main()
        except SystemExit:  # argparse's --help, --version and usage errors end inside main
            _flush_standard_streams()
            raise
        # Flushed here, where a closed pipe can still be caught: the interpreter's own flush at exit can only
        # print "Exception ignored" and exit 120.
        _flush_standard_streams()
        return code
    except BrokenPipeError:
        if not silence_closed_streams():
            raise
        return EXIT_CLOSED_PIPE


def silence_closed_streams() -> bool:
    """Point stdout and stderr, each whose reader has gone, at the null device; whether one had.

    What is still in their buffers then goes nowhere at exit instead of raising again (the cure the Python
    documentation gives, in the signal module's note on SIGPIPE). A stream whose reader is still there keeps
    its place: stderr on a terminal still shows a later warning."""
    gone = [stream for stream in (sys.stdout, sys.stderr) if _reader_gone(stream)]
    for stream in gone:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)
    return bool(gone)


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


def _reader_gone(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a pipe or socket whose reading end is closed: poll reports an error on the writing
    end then (a terminal, a file or the null device never)."""
    if stream is None:
        return False
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by an object without a descriptor, or closed
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
