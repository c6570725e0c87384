"""User-facing terminal output: progress and messages go to stderr, reports to stdout.

Keeping the two streams apart lets ``esbench race ... > report.txt`` capture only the report.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import click


class Console:
    """Writes messages and a live progress line.

    Args:
        stream: where messages and progress go (default stderr).
        quiet: suppress info messages and progress (warnings and errors still show).
    """

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False) -> None:
        self._stream = stream or sys.stderr
        self._quiet = quiet
        self._progress_open = False
        self._tty = hasattr(self._stream, "isatty") and self._stream.isatty()

    @property
    def stream(self) -> TextIO:
        """Where messages and progress go."""
        return self._stream

    @property
    def is_tty(self) -> bool:
        """True when :attr:`stream` is a terminal."""
        return self._tty

    @property
    def quiet(self) -> bool:
        """True when info messages and progress are suppressed."""
        return self._quiet

    def info(self, message: str) -> None:
        """An informational line (hidden with ``quiet``)."""
        if not self._quiet:
            self._line(message)

    def warn(self, message: str) -> None:
        """A warning line, always shown."""
        self._line(click.style("[WARNING] ", fg="yellow") + message if self._tty else f"[WARNING] {message}")

    def progress(self, message: str) -> None:
        """A progress line that overwrites itself on a terminal (one line per call otherwise)."""
        if self._quiet:
            return
        if self._tty:
            self._stream.write("\r\033[K" + message)
            self._stream.flush()
            self._progress_open = True
        else:
            self._line(message)

    def end_progress(self) -> None:
        """Finish an open progress line."""
        if self._progress_open:
            self._stream.write("\n")
            self._stream.flush()
            self._progress_open = False

    def _line(self, message: str) -> None:
        self.end_progress()
        self._stream.write(message + "\n")
        self._stream.flush()


def tabulate(tabular_data: Any, headers: Any = (), **options: Any) -> str:
    """A plain-text table: :func:`tabulate.tabulate` with the same arguments, imported on first use.

    tabulate and the wcwidth tables it loads are ~8.6 MiB of RSS. Imported with the reporting
    modules, every ``esbench race`` process held them through the whole race for a report printed
    after the workers have exited (issue 25: the race's process tree, search-16, at most 150 MiB).

    Raises:
        whatever :func:`tabulate.tabulate` raises for rows and headers of different shapes.
    """
    import tabulate as _tabulate

    return _tabulate.tabulate(tabular_data, headers, **options)
